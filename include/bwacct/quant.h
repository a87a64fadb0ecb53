// How a quantised tensor is stored: its element type and the scales (and zero points) that come with it,
// and the math path a weight × activation product takes. Pure (src/model/quant.cpp). Formulas:
// docs/formulas.md ("Mixed precision and quantised weights").
#pragma once
#include <cstdint>
#include <string>

#include "bwacct/dtype.h"
#include "bwacct/exact.h"

namespace bwacct {

// Vectors of `len` elements (a weight's reduction axis K, a KV head's head_dim) carry one scale (and zero
// point) per `group` elements; 2-D block formats (fp8 with 128×128 block scales) carry one per block×block tile.
struct StorageFormat {
    DType dtype = DType::bf16;
    std::uint64_t group = 0;          // elements per scale along the vector; 0 with scale_bits: one per vector (per channel)
    std::uint64_t block = 0;          // square tiles of block×block elements per scale (2-D); 0: 1-D groups
    unsigned scale_bits = 0;          // bits of one scale: 16 (fp16/bf16), 8 (fp8, e8m0), 32 (fp32); 0: no scales
    unsigned zero_bits = 0;           // bits of one zero point per group (asymmetric int4: 4)
    unsigned tensor_scale_bytes = 0;  // one more scale per tensor (NVFP4's fp32 global scale; fp8's per-tensor scale)
    std::uint64_t group_pad = 0;      // groups per vector stored rounded up to a multiple of this (AutoAWQ's GEMV layouts)

    bool operator==(const StorageFormat&) const = default;
};

// The format a dtype name means on the command line. group_size: --group-size (0 = not given).
//   int4: one 16-bit scale + one 4-bit zero point per `group` weights (asymmetric, as AWQ/GPTQ store them), default 128;
//   int8: one 16-bit scale per group, default per output channel, symmetric (no zero point);
//   fp8: one fp32 per-tensor scale; nvfp4: one fp8 e4m3 scale per 16 + one fp32 per tensor; mxfp4: one e8m0 per 32;
//   16/32-bit types: no scales. Throws InputError naming --group-size when it does not apply or is 0.
StorageFormat weight_format(DType t, std::uint64_t group_size);
// The KV cache's format: int4 one 16-bit scale + 4-bit zero per head_dim vector (per token and head); int8 and fp8
// per-tensor scales (not counted: one scalar per layer); nvfp4/mxfp4 their block scales.
StorageFormat kv_format(DType t, std::uint64_t head_dim);
StorageFormat plain_format(DType t);

// Bytes of `count` vectors of `len` elements: payload ⌈count·len·bits/8⌉ + scales and zero points
// ⌈groups·(scale_bits + zero_bits)/8⌉ (groups = count·⌈len/group⌉, ⌈len/group⌉ rounded up to a multiple of group_pad
// when set; 2-D: ⌈len/block⌉·⌈count/block⌉) + the tensor scale.
// A weight [K, N] is `N` vectors of `K` (groups run along the reduction axis). `split`: `len` is one of `split` equal parts
// of the stored vector (a row-parallel shard, K/tp): padded groups are padded on the stored vector, then split, this
// share rounded up to a whole group (the stored bytes / tp, at most one group per vector more).
Exact format_bytes(const StorageFormat& f, Exact len, Exact count, Exact split = Exact(1));

// "int4 (g128, fp16 scale + 4-bit zero)", "fp8_e4m3 (128×128 fp32 block scales)", "bf16".
std::string format_name(const StorageFormat& f);

// The dtype a product of a `weight` (or KV) operand and an `act` operand computes in: both the same
// math type → that type (fp8 × fp8 on the fp8 tensor cores); otherwise the wider one, the narrower
// converted in the kernel (w4a16: int4 dequantised to bf16 math). Equal width but different math
// types (int8 × fp8) have no path: InputError naming `option`.
DType math_dtype(DType weight, DType act, const char* option);

}  // namespace bwacct
