// The two operands of a matrix product (GEMM's A and B, a convolution's input and weight) must share a
// math type for the tensor cores: fp8 e4m3 × e5m2 do (both "fp8"), bf16 × fp8 does not.
#pragma once
#include <fmt/format.h>

#include "bwacct/dtype.h"
#include "bwacct/error.h"

namespace bwacct::detail {

// Throws InputError naming `option` (the second operand's dtype option); `operands` says which they
// are ("A and B").
inline void require_common_math_path(DType first, DType second, const char* option, const char* operands) {
    if (peak_key(first) != peak_key(second))
        throw InputError(option, fmt::format("{} × {} has no common math path; {} must share a math type "
                                             "(fp8_e4m3 × fp8_e5m2 is fine)",
                                             dtype_name(first), dtype_name(second), operands));
}

}  // namespace bwacct::detail
