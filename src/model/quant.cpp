// Storage formats of quantised tensors (scales, zero points, block scales) and the math path of a
// mixed-precision product. Formulas: docs/formulas.md ("Mixed precision and quantised weights").
#include "bwacct/quant.h"

#include <fmt/format.h>

#include "bwacct/error.h"

namespace bwacct {

StorageFormat plain_format(DType t) {
    StorageFormat f;
    f.dtype = t;
    return f;
}

StorageFormat weight_format(DType t, std::uint64_t group_size) {
    StorageFormat f = plain_format(t);
    const bool grouped = t == DType::int4 || t == DType::int8;
    if (group_size != 0 && !grouped)
        throw InputError("--group-size",
                         fmt::format("applies to int4 and int8 weights only ({} carries its own scales)", dtype_name(t)));
    switch (t) {
        case DType::int4:
            f.group = group_size != 0 ? group_size : 128;
            f.scale_bits = 16;
            f.zero_bits = 4;
            break;
        case DType::int8:
            f.group = group_size;  // 0: one scale per output channel
            f.scale_bits = 16;
            break;
        case DType::fp8_e4m3:
        case DType::fp8_e5m2:
            f.tensor_scale_bytes = 4;
            break;
        case DType::fp4:
            f.group = 16;
            f.scale_bits = 8;
            f.tensor_scale_bytes = 4;
            break;
        case DType::mxfp4:
            f.group = 32;
            f.scale_bits = 8;
            break;
        default:
            break;
    }
    return f;
}

StorageFormat kv_format(DType t, std::uint64_t head_dim) {
    StorageFormat f = plain_format(t);
    if (t == DType::int4) {
        f.group = head_dim;
        f.scale_bits = 16;
        f.zero_bits = 4;
    } else if (t == DType::fp4) {
        f.group = 16;
        f.scale_bits = 8;
    } else if (t == DType::mxfp4) {
        f.group = 32;
        f.scale_bits = 8;
    }
    return f;
}

Exact format_bytes(const StorageFormat& f, Exact len, Exact count, Exact split) {
    Exact bytes = ceil_div(len * count * Exact(dtype_bits(f.dtype)), Exact(8));
    if (f.scale_bits != 0) {
        Exact groups;
        if (f.block != 0) {
            groups = ceil_div(len, Exact(f.block)) * ceil_div(count, Exact(f.block));
        } else {
            Exact per_vector = f.group == 0 ? Exact(1) : ceil_div(len, Exact(f.group));
            if (f.group_pad != 0) {  // each stored vector's groups padded (AutoAWQ's GEMV layouts), then split
                const Exact whole = f.group == 0 ? Exact(1) : ceil_div(len * split, Exact(f.group));
                per_vector = ceil_div(ceil_div(whole, Exact(f.group_pad)) * Exact(f.group_pad), split);
            }
            groups = count * per_vector;
        }
        bytes += ceil_div(groups * Exact(f.scale_bits + f.zero_bits), Exact(8));
    }
    return bytes + Exact(f.tensor_scale_bytes);
}

std::string format_name(const StorageFormat& f) {
    std::string s(dtype_name(f.dtype));
    auto bits_name = [](unsigned b) { return b == 16 ? "fp16" : b == 32 ? "fp32" : "8-bit"; };
    if (f.block != 0)
        s += fmt::format(" ({}×{} {} block scales)", f.block, f.block, bits_name(f.scale_bits));
    else if (f.scale_bits != 0)
        s += fmt::format(" ({} {} scale{}{})", f.group == 0 ? std::string("per-channel") : fmt::format("g{}", f.group),
                         bits_name(f.scale_bits), f.zero_bits ? fmt::format(" + {}-bit zero", f.zero_bits) : std::string(),
                         f.group_pad != 0 ? fmt::format(", groups padded to {}", f.group_pad) : std::string());
    if (f.tensor_scale_bytes != 0)
        s += " + fp32 tensor scale";
    return s;
}

DType math_dtype(DType weight, DType act, const char* option) {
    if (peak_key(weight) == peak_key(act))
        return act;
    const unsigned w = dtype_bits(weight), a = dtype_bits(act);
    if (w == a)
        throw InputError(option, fmt::format("{} × {} activations has no common math path (same width, different math types)",
                                             dtype_name(weight), dtype_name(act)));
    return w > a ? weight : act;
}

}  // namespace bwacct
