// Number formatting for people (tables, Markdown). Machine formats print full precision.
#pragma once
#include <cstdint>
#include <string>

namespace bwacct::detail {

std::string human_bytes(std::uint64_t bytes);      // "92.2 MiB (96,665,600 B)" style: IEC units
std::string human_count(std::uint64_t v);          // "113,246,208,000"
std::string human_si(double v, const char* unit);  // "113.2 GFLOP"
std::string fixed(double v, int digits);           // "114.46"
std::string percent(double fraction);              // "81.8 %"

}  // namespace bwacct::detail
