#include "bwacct/values.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "bwacct/error.h"

namespace bwacct {
namespace {

std::string_view kind_text(ValueKind kind) {
    switch (kind) {
        case ValueKind::count:
            return "a positive integer (e.g. 2160)";
        case ValueKind::whole:
            return "a non-negative integer (e.g. 0, 10)";
        case ValueKind::size:
            return "a positive size in bytes (e.g. 22118400, 64K, 8G)";
        case ValueKind::tokens:
            return "a positive token count (e.g. 8192, 8K, 2k)";
        case ValueKind::real:
            return "a positive number (e.g. 113.5)";
    }
    return "";
}

[[noreturn]] void bad(std::string_view text, const std::string& option, ValueKind kind, std::string_view why = {}) {
    throw InputError(option, fmt::format("{}expected {}, a range a:b:xF or a:b:+S, or a list a,b,c; got '{}'",
                                         why.empty() ? "" : std::string(why) + "; ", kind_text(kind), text));
}

// Integers above 2^53 lose exactness in a double: refuse them rather than round silently.
constexpr double kMaxExactInteger = 9007199254740992.0;

double parse_one(std::string_view token, const std::string& option, ValueKind kind, std::string_view full) {
    const std::string s(token);
    if (s.empty())
        bad(full, option, kind);
    if (s[0] == '-')
        bad(full, option, kind, kind == ValueKind::whole ? "must not be negative" : "must be positive");
    if (s[0] == '+' || std::isspace(static_cast<unsigned char>(s[0])))
        bad(full, option, kind);
    // strtod also reads hexadecimal ("0x10" = 16) and "infinity"/"nan": only decimal numbers are accepted.
    if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        bad(full, option, kind);
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || errno == ERANGE || !std::isfinite(v))
        bad(full, option, kind);
    std::string_view rest(end);
    if ((kind == ValueKind::size || kind == ValueKind::tokens) && !rest.empty()) {
        // Powers of 1024 in either case (8K = 8k = 8192), as nccl-tests reads sizes.
        static constexpr std::pair<std::string_view, double> kSuffixes[] = {
            {"K", 1024.0},   {"M", 1048576.0},   {"G", 1073741824.0},   {"T", 1099511627776.0},
            {"k", 1024.0},   {"m", 1048576.0},   {"g", 1073741824.0},   {"t", 1099511627776.0},
            {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
        bool found = false;
        for (const auto& [suffix, factor] : kSuffixes)
            if (rest == suffix)
                v *= factor, found = true;
        if (!found)
            bad(full, option, kind, fmt::format("unknown suffix '{}' (K, M, G, T or k, m, g, t are powers of 1024)", rest));
        rest = {};
    }
    if (!rest.empty())
        bad(full, option, kind);
    if (v < 0 || (v == 0 && kind != ValueKind::whole))
        bad(full, option, kind, "must be positive");
    if (kind != ValueKind::real) {
        if (v != std::floor(v))
            bad(full, option, kind, "must be a whole number");
        if (v >= kMaxExactInteger)
            bad(full, option, kind, "too large (at most 2^53 − 1)");
    }
    return v;
}

void push_checked(std::vector<double>& out, double v, const std::string& option) {
    if (out.size() >= kMaxSweepPoints)
        throw InputError(option, fmt::format("range has more than {} values", kMaxSweepPoints));
    out.push_back(v);
}

// How many steps of a range fit between its ends: floor(q + eps). The small eps keeps an end that
// the decimal step lands on (0.1:0.3:+0.1 gives q = 1.9999999999999998) and never adds a value
// past the end; the values are then lo + i·s (or lo·f^i) for i = 0..n, each at most hi.
double steps_in(double q) { return std::floor(q + 1e-9); }

// The kind of an arithmetic step: a size or token option's step takes the suffixes (1K:1G:+1M); an
// integer option's step is a positive integer; a real option's a positive real.
ValueKind step_kind(ValueKind kind) {
    return kind == ValueKind::real || kind == ValueKind::size || kind == ValueKind::tokens ? kind : ValueKind::count;
}

std::vector<double> parse_range(std::string_view text, const std::string& option, ValueKind kind) {
    const auto c1 = text.find(':');
    const auto c2 = text.find(':', c1 + 1);
    if (c2 == std::string_view::npos || text.find(':', c2 + 1) != std::string_view::npos)
        bad(text, option, kind, "a range needs a step: a:b:xF or a:b:+S");
    const double lo = parse_one(text.substr(0, c1), option, kind, text);
    const double hi = parse_one(text.substr(c1 + 1, c2 - c1 - 1), option, kind, text);
    std::string_view step = text.substr(c2 + 1);
    if (hi < lo)
        bad(text, option, kind, "empty range (a > b)");
    if (step.size() < 2 || (step[0] != 'x' && step[0] != '+'))
        bad(text, option, kind, "the step is xF (multiply) or +S (add)");
    const bool geometric = step[0] == 'x';
    const ValueKind skind = geometric ? ValueKind::real : step_kind(kind);
    double s = 0;
    try {
        s = parse_one(step.substr(1), option, skind, step.substr(1));
    } catch (const InputError&) {
        bad(text, option, kind,
            geometric ? "the factor after x must be a number greater than 1"
                      : fmt::format("the step after + must be {}", kind_text(skind)));
    }
    const bool integral = kind != ValueKind::real;
    double n = 0;  // the last index: values i = 0..n
    if (geometric) {
        if (s <= 1)
            bad(text, option, kind, "a geometric factor must be greater than 1");
        // Bounds the loop below: with a factor just above 1, rounding to integers could repeat a value
        // for billions of steps without adding one (1:1e15:x1.000000000001 never ended).
        const double q = (std::log(hi) - std::log(lo)) / std::log(s);
        if (!(q < static_cast<double>(kMaxSweepPoints)))
            throw InputError(option, fmt::format("range takes more than {} steps; use a larger factor", kMaxSweepPoints));
        n = steps_in(q);
    } else {
        const double q = (hi - lo) / s;
        if (!(q < static_cast<double>(kMaxSweepPoints)))
            throw InputError(option, fmt::format("range has more than {} values", kMaxSweepPoints));
        n = steps_in(q);
    }
    std::vector<double> out;
    for (double i = 0; i <= n; ++i) {
        double v = geometric ? lo * std::pow(s, i) : lo + s * i;
        if (integral)
            v = std::round(v);
        v = std::min(v, hi);  // rounding never carries a value past the end
        // A step below the values' precision (1e20:1e20+1e5:+1) or integer rounding repeats a value.
        if (out.empty() || v != out.back())
            push_checked(out, v, option);
    }
    return out;
}

}  // namespace

std::vector<double> parse_values(std::string_view text, const std::string& option, ValueKind kind) {
    std::vector<double> out;
    if (text.find(':') != std::string_view::npos) {
        out = parse_range(text, option, kind);
    } else {
        std::size_t start = 0;
        while (true) {
            const auto comma = text.find(',', start);
            const std::string_view item = text.substr(start, comma - start);
            // "1,000" is a list of 1 and 000: an item after a comma that starts with 0 and a digit is a
            // thousands separator, never a value anyone writes.
            if (start > 0 && item.size() > 1 && item[0] == '0' && std::isdigit(static_cast<unsigned char>(item[1])))
                throw InputError(option, fmt::format("a comma separates list values (a,b,c) and thousands separators are "
                                                     "not accepted; write '{}' without commas, or list values like 1,2,4",
                                                     text));
            push_checked(out, parse_one(item, option, kind, text), option);
            if (comma == std::string_view::npos)
                break;
            start = comma + 1;
        }
    }
    if (kind == ValueKind::real)
        note_real_option(option, text);
    return out;
}

std::uint64_t parse_integer_in(std::string_view text, const std::string& option, ValueKind kind, std::uint64_t lo,
                               std::uint64_t hi) {
    if (kind == ValueKind::real)
        throw std::logic_error("parse_integer_in takes an integer kind");
    const std::vector<double> v = parse_values(text, option, kind);
    if (v.size() != 1)
        throw InputError(option, fmt::format("takes one integer from {} to {}, not a range or list; got '{}'", lo, hi, text));
    const double x = v.front();
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi))
        throw InputError(option, fmt::format("must be an integer from {} to {}; got '{}'", lo, hi, text));
    return static_cast<std::uint64_t>(x);
}

void note_real_option(const std::string& option, std::string_view text) {
    auto& given = real_options_given();
    for (const auto& [o, t] : given)
        if (o == option)
            return;
    given.emplace_back(option, std::string(text));
}

std::vector<std::pair<std::string, std::string>>& real_options_given() {
    static std::vector<std::pair<std::string, std::string>> given;
    return given;
}

std::vector<std::uint64_t> parse_shape(std::string_view text, const std::string& option) {
    std::vector<std::uint64_t> dims;
    if (text.find(':') != std::string_view::npos)
        throw InputError(option, fmt::format("a shape cannot be a range; expected dimensions like 32,2048,4096; got '{}'", text));
    for (double v : parse_values(text, option, ValueKind::count))
        dims.push_back(static_cast<std::uint64_t>(v));
    return dims;
}

}  // namespace bwacct
