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
// Decimals that show `sig` significant digits of |v| > 0: 3 for 0.01234 ("0.0123"), 0 for 989.4.
int significant_decimals(double v, int sig);
// v with `digits` decimals, trailing zeros and a trailing point dropped: (140.0, 1) → "140", (0.250, 3)
// → "0.25". The short numbers of the verdict lines and of the charts' labels both end here.
std::string fixed_trimmed(double v, int digits);
// A rate (tokens/s, FPS): whole from 100 up ("731000"), else 3 significant digits ("12.3", "0.156"), never
// rounded to a "0" that is not zero.
std::string rate(double v);

}  // namespace bwacct::detail
