// Element types: storage size, and which peak (catalog key) their math runs on.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "bwacct/exact.h"

namespace bwacct {

enum class DType { fp64, fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2, fp4, mxfp4, int8, int4 };

// Parses a dtype name ("bf16", "fp8", "e4m3", "nvfp4", ...). Throws InputError naming `option`.
DType parse_dtype(std::string_view name, const std::string& option);
std::string_view dtype_name(DType t);
// The accepted names, for error messages and --help.
std::string_view dtype_choices();

// Storage bits per element, without block scales (fp4: 4; tf32 is stored as fp32: 32).
unsigned dtype_bits(DType t);
// Exact bytes to store n elements, including block scales for block-scaled formats
// (fp4 = NVFP4: one fp8 scale per 16 elements; mxfp4: one e8m0 scale per 32 elements). int4 and int8
// are the payload only: their scales depend on a group size (bwacct/quant.h, StorageFormat).
Exact storage_bytes(DType t, Exact n);
// Catalog key of the peak this dtype's arithmetic uses ("bf16", "fp8", "fp4", "tf32", ...).
std::string_view peak_key(DType t);

}  // namespace bwacct
