// Numeric option values: one number, a range (a:b:xF geometric, a:b:+S arithmetic) or a list
// (a,b,c). Every numeric option accepts all three; more than one value makes a sweep.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace bwacct {

enum class ValueKind {
    count,   // positive integer; scientific notation allowed when integral (7e9)
    whole,   // non-negative integer (0 allowed)
    size,    // positive integer of bytes; K, M, G, T (or k, m, g, t; KiB ...) are powers of 1024 (nccl-tests)
    tokens,  // positive integer count of tokens; the same suffixes, powers of 1024 (--context 8K = 8192)
    real,    // positive real number
};

// Parses `text` into its values, in order. Throws InputError naming `option` with the accepted form.
std::vector<double> parse_values(std::string_view text, const std::string& option, ValueKind kind);

// One integer option that a type narrower than the parser's 2^53 holds: the value must lie in [lo, hi]
// (the consuming type's range, or a tighter documented bound); the message names the range. Every
// integer option read into anything but std::uint64_t goes through this.
std::uint64_t parse_integer_in(std::string_view text, const std::string& option, ValueKind kind, std::uint64_t lo,
                               std::uint64_t hi);
template <typename T>
T parse_int_in(std::string_view text, const std::string& option, ValueKind kind, T lo, T hi = std::numeric_limits<T>::max()) {
    static_assert(std::is_integral_v<T>, "an integer type");
    return static_cast<T>(parse_integer_in(text, option, kind, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi)));
}

// The real-valued options parsed in this run, with their text, in the order first seen: a figure that
// comes out not finite is blamed on them (see bwacct/finite_guard.h). parse_values notes every real option.
void note_real_option(const std::string& option, std::string_view text);
std::vector<std::pair<std::string, std::string>>& real_options_given();

// Parses a comma-separated shape "32,2048,4096" of positive integers.
std::vector<std::uint64_t> parse_shape(std::string_view text, const std::string& option);

// Most points a sweep may have.
inline constexpr std::uint64_t kMaxSweepPoints = 10'000'000;

}  // namespace bwacct
