#include "bwacct/values.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

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
    if (kind == ValueKind::size && !rest.empty()) {
        static constexpr std::pair<std::string_view, double> kSuffixes[] = {
            {"K", 1024.0},   {"M", 1048576.0},   {"G", 1073741824.0},   {"T", 1099511627776.0},
            {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
        bool found = false;
        for (const auto& [suffix, factor] : kSuffixes)
            if (rest == suffix)
                v *= factor, found = true;
        if (!found)
            bad(full, option, kind, fmt::format("unknown size suffix '{}' (K, M, G, T are powers of 1024)", rest));
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
    const double s = parse_one(step.substr(1), option, ValueKind::real, text);
    std::vector<double> out;
    const bool integral = kind != ValueKind::real;
    if (step[0] == 'x') {
        if (s <= 1)
            bad(text, option, kind, "a geometric factor must be greater than 1");
        if (lo <= 0)
            bad(text, option, kind, "a geometric range must start above 0");
        // Bounds the loop below: with a factor just above 1, rounding to integers could repeat a value
        // for billions of steps without adding one (1:1e15:x1.000000000001 never ended).
        if ((std::log(hi) - std::log(lo)) / std::log(s) >= static_cast<double>(kMaxSweepPoints))
            throw InputError(option, fmt::format("range takes more than {} steps; use a larger factor", kMaxSweepPoints));
        for (double i = 0;; ++i) {
            double v = lo * std::pow(s, i);
            if (integral)
                v = std::round(v);
            if (v > hi * (1 + 1e-12))
                break;
            if (out.empty() || v != out.back())
                push_checked(out, v, option);
        }
    } else {
        if (integral && s != std::floor(s))
            bad(text, option, kind, "an integer option needs an integer step");
        if ((hi - lo) / s >= static_cast<double>(kMaxSweepPoints))
            throw InputError(option, fmt::format("range has more than {} values", kMaxSweepPoints));
        for (double i = 0;; ++i) {
            const double v = lo + s * i;
            if (v > hi * (1 + 1e-12))
                break;
            push_checked(out, v, option);
        }
    }
    return out;
}

}  // namespace

std::vector<double> parse_values(std::string_view text, const std::string& option, ValueKind kind) {
    if (text.find(':') != std::string_view::npos)
        return parse_range(text, option, kind);
    std::vector<double> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        push_checked(out, parse_one(text.substr(start, comma - start), option, kind, text), option);
        if (comma == std::string_view::npos)
            break;
        start = comma + 1;
    }
    return out;
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
