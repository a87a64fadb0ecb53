// Costing a Kineto op: torch's dtype names, input shapes, the dispatch to the op families, and the
// category of activities no formula covers.
#include <fmt/format.h>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

std::string_view category_name(Category c) {
    switch (c) {
        case Category::gemm:
            return "gemm";
        case Category::attention:
            return "attention";
        case Category::norm:
            return "norm";
        case Category::elementwise:
            return "elementwise";
        case Category::collective:
            return "collective";
        case Category::memcpy:
            return "memcpy";
        case Category::memset:
            return "memset";
        case Category::other:
            return "other";
    }
    return "other";
}

std::optional<DType> torch_dtype(std::string_view t) {
    if (t == "float")
        return DType::fp32;
    if (t == "c10::BFloat16")
        return DType::bf16;
    if (t == "c10::Half")
        return DType::fp16;
    if (t == "double")
        return DType::fp64;
    if (t == "c10::Float8_e4m3fn" || t == "c10::Float8_e4m3fnuz")
        return DType::fp8_e4m3;
    if (t == "c10::Float8_e5m2" || t == "c10::Float8_e5m2fnuz")
        return DType::fp8_e5m2;
    if (t == "signed char")
        return DType::int8;
    return std::nullopt;
}

std::optional<std::vector<std::uint64_t>> input_shape(const CpuOp& op, std::size_t i) {
    if (i >= op.dims.size() || op.dims[i].empty())
        return std::nullopt;
    std::vector<std::uint64_t> shape;
    shape.reserve(op.dims[i].size());
    for (std::int64_t d : op.dims[i]) {
        if (d <= 0)
            return std::nullopt;
        shape.push_back(static_cast<std::uint64_t>(d));
    }
    return shape;
}

std::optional<DType> input_dtype(const CpuOp& op, std::size_t i) {
    if (i >= op.types.size())
        return std::nullopt;
    return torch_dtype(op.types[i]);
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string s;
    for (std::uint64_t d : shape)
        s += fmt::format("{}{}", s.empty() ? "" : "x", d);
    return s;
}

std::optional<OpCost> cost_cpu_op(const std::string& name, const CpuOp& op) {
    if (op.dims.empty())
        return std::nullopt;  // record_shapes was off
    if (auto c = cost_gemm_op(name, op))
        return c;
    if (auto c = cost_attention_op(name, op))
        return c;
    return cost_pointwise_op(name, op);
}

Category activity_category(Activity kind, std::string_view n) {
    if (kind == Activity::memcpy)
        return Category::memcpy;
    if (kind == Activity::memset)
        return Category::memset;
    auto has = [&](std::string_view s) { return n.find(s) != std::string_view::npos; };
    if (has("nccl"))
        return Category::collective;
    if (has("flash") || has("fmha") || has("attention") || has("attn"))
        return Category::attention;
    if (has("gemm") || has("cutlass") || has("xmma") || has("cublas") || has("_mma"))
        return Category::gemm;
    if (has("norm") || has("softmax") || has("bn_fw") || has("bn_bw"))
        return Category::norm;
    if (has("elementwise") || has("vectorized_") || has("unrolled_"))
        return Category::elementwise;
    return Category::other;
}

}  // namespace bwacct::kineto
