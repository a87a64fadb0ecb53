// Numeric option values (include/bwacct/values.h): one number, a:b:xF / a:b:+S ranges, a,b,c lists,
// size suffixes; and shapes (32,2048,4096). Every kind is tried on each input.
#include <cmath>
#include <cstdint>
#include <string>

#include "bwacct/values.h"
#include "fuzz_common.h"

namespace {

using bwacct::ValueKind;
using bwacct::fuzz::check;

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53: larger integers are refused

void values_of(const std::string& text, ValueKind kind) {
    const auto values = bwacct::parse_values(text, "--fuzz", kind);
    check(!values.empty(), "parse_values returned no value");
    check(values.size() <= bwacct::kMaxSweepPoints, "more values than kMaxSweepPoints");
    for (double v : values) {
        check(std::isfinite(v), "a value is not finite");
        check(kind == ValueKind::whole ? v >= 0 : v > 0, "a value is not positive (non-negative for whole)");
        if (kind != ValueKind::real)
            check(v == std::floor(v) && v < kMaxExactInteger, "an integer option gave a non-integer or inexact value");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = bwacct::fuzz::as_text(data, size);
    // Option values come from argv, which cannot hold a NUL byte.
    if (text.find('\0') != std::string::npos)
        return 0;
    for (ValueKind kind : {ValueKind::count, ValueKind::whole, ValueKind::size, ValueKind::real})
        bwacct::fuzz::accept_rejection([&] { values_of(text, kind); });
    bwacct::fuzz::accept_rejection([&] {
        for (std::uint64_t d : bwacct::parse_shape(text, "--shape"))
            check(d > 0, "a shape dimension is 0");
    });
    return 0;
}
