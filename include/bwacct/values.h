// Numeric option values: one number, a range (a:b:xF geometric, a:b:+S arithmetic) or a list
// (a,b,c). Every numeric option accepts all three; more than one value makes a sweep.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bwacct {

enum class ValueKind {
    count,  // positive integer; scientific notation allowed when integral (7e9)
    whole,  // non-negative integer (0 allowed)
    size,   // positive integer of bytes; K, M, G, T suffixes are powers of 1024 (nccl-tests)
    real,   // positive real number
};

// Parses `text` into its values, in order. Throws InputError naming `option` with the accepted form.
std::vector<double> parse_values(std::string_view text, const std::string& option, ValueKind kind);

// Parses a comma-separated shape "32,2048,4096" of positive integers.
std::vector<std::uint64_t> parse_shape(std::string_view text, const std::string& option);

// Most points a sweep may have.
inline constexpr std::uint64_t kMaxSweepPoints = 10'000'000;

}  // namespace bwacct
