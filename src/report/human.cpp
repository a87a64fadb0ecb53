#include "human.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace bwacct::detail {

std::string human_count(std::uint64_t v) {
    std::string digits = fmt::format("{}", v), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string human_bytes(std::uint64_t bytes) {
    static constexpr std::array<const char*, 6> kUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = static_cast<double>(bytes);
    std::size_t u = 0;
    while (v >= 1024 && u + 1 < kUnits.size())
        v /= 1024, ++u;
    return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string human_si(double v, const char* unit) {
    static constexpr std::array<const char*, 7> kPrefix{"", "K", "M", "G", "T", "P", "E"};
    std::size_t p = 0;
    while (std::fabs(v) >= 1000 && p + 1 < kPrefix.size())
        v /= 1000, ++p;
    return fmt::format("{:.1f} {}{}", v, kPrefix[p], unit);
}

std::string fixed(double v, int digits) { return fmt::format("{:.{}f}", v, digits); }

int significant_decimals(double v, int sig) {
    return std::max(0, sig - 1 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
}

std::string fixed_trimmed(double v, int digits) {
    std::string s = fmt::format("{:.{}f}", v, digits);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    return s;
}

std::string rate(double v) {
    const double a = std::fabs(v);
    return fixed_trimmed(v, a >= 100 || a == 0 ? 0 : significant_decimals(a, 3));
}

std::string percent(double fraction) {
    const double p = fraction * 100;
    return p < 1 ? fmt::format("{:.2f} %", p) : fmt::format("{:.1f} %", p);
}

}  // namespace bwacct::detail
