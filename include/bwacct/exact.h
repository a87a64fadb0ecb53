// Exact unsigned 64-bit counts: every FLOP and byte count goes through Exact, which throws
// OverflowError instead of wrapping.
#pragma once
#include <cstdint>

#include "bwacct/error.h"

namespace bwacct {

class Exact {
public:
    constexpr Exact() = default;
    constexpr Exact(std::uint64_t v) : v_(v) {}  // NOLINT: implicit by design, counts read like numbers
    constexpr std::uint64_t value() const { return v_; }

    friend Exact operator+(Exact a, Exact b) {
        std::uint64_t r = 0;
        if (__builtin_add_overflow(a.v_, b.v_, &r))
            throw OverflowError("count overflows 64 bits");
        return Exact(r);
    }
    friend Exact operator-(Exact a, Exact b) {
        if (b.v_ > a.v_)
            throw OverflowError("count would be negative");
        return Exact(a.v_ - b.v_);
    }
    friend Exact operator*(Exact a, Exact b) {
        std::uint64_t r = 0;
        if (__builtin_mul_overflow(a.v_, b.v_, &r))
            throw OverflowError("count overflows 64 bits");
        return Exact(r);
    }
    // Division rounding up (used for packed 4-bit data and block scales).
    friend Exact ceil_div(Exact a, Exact b) { return Exact(a.v_ / b.v_ + (a.v_ % b.v_ != 0 ? 1 : 0)); }
    friend Exact operator/(Exact a, Exact b) { return Exact(a.v_ / b.v_); }
    Exact& operator+=(Exact b) { return *this = *this + b; }
    friend bool operator==(Exact a, Exact b) { return a.v_ == b.v_; }

private:
    std::uint64_t v_ = 0;
};

}  // namespace bwacct
