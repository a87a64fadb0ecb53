// Costing a Kineto op: torch's dtype names, input shapes, the dispatch to the op families, and the
// category of activities no formula covers.
#include <fmt/format.h>

#include <array>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

std::string_view category_name(Category c) {
    static constexpr std::array<std::string_view, 19> kNames{
        "gemm",        "conv",        "attention", "moe",    "norm",       "softmax",     "elementwise",
        "reduce",      "indexing",    "optimizer", "fft",    "collective", "memcpy_htod", "memcpy_dtoh",
        "memcpy_dtod", "memcpy_ptop", "memcpy",    "memset", "other"};
    static_assert(kNames.size() == static_cast<std::size_t>(Category::other) + 1);
    return kNames[static_cast<std::size_t>(c)];
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

std::optional<DType> storage_dtype(std::string_view t) {
    if (auto d = torch_dtype(t))
        return d;
    if (t == "int" || t == "unsigned int")
        return DType::fp32;
    // GCC's TypeMeta names: "short int", "short unsigned int", "long unsigned int"
    if (t == "long int" || t == "long" || t == "unsigned long" || t == "long unsigned int" || t == "c10::complex<float>")
        return DType::fp64;
    if (t == "short" || t == "unsigned short" || t == "short int" || t == "short unsigned int")
        return DType::fp16;
    if (t == "bool" || t == "unsigned char" || t == "c10::Float8_e8m0fnu" || t == "c10::Float4_e2m1fn_x2")
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

std::optional<OpCost> cost_cpu_op(const std::string& name, const CpuOp& op, std::string_view kernel_name,
                                  NameCategories* categories) {
    if (op.dims.empty())
        return std::nullopt;                                                    // record_shapes was off
    if (auto c = cost_list_op(name, op, kernel_element_type(kernel_name, op)))  // tensor lists (kineto_cost_lists.cpp)
        return c;
    for (auto* family :
         {cost_gemm_op, cost_attention_op, cost_conv_op, cost_pointwise_op, cost_backward_op, cost_data_op, cost_serving_op})
        if (auto c = family(name, op))
            return c;
    if (auto c = cost_compiled_op(name, op, categories))
        return c;
    return cost_fft_op(name, op);
}

}  // namespace bwacct::kineto
