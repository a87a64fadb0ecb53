// Helpers shared by the Kineto op-family cost files (src/ingest/kineto_cost_*.cpp).
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"

namespace bwacct::kineto::detail {

using Shape = std::vector<std::uint64_t>;

inline std::uint64_t elems(const Shape& s) { return element_count(s).value(); }

// An index tensor input: int32 or int64 (GCC's TypeMeta names "int", "long int"; "long" as some builds write
// it), the types PyTorch takes for indices (positions, token ids, targets, top-k expert ids). Not uint8, bool,
// e8m0 or packed fp4: those are scales and packed activations.
inline bool index_input(const CpuOp& op, std::size_t i) {
    if (i >= op.types.size())
        return false;
    const std::string& t = op.types[i];
    return t == "int" || t == "long int" || t == "long";
}

// The elements input i holds in memory: a dim whose "Input Strides" entry is 0 (a broadcast, an
// expand()ed view) repeats the same elements, so it does not multiply them (a lower bound reads each once).
// Without strides of the same rank: every element.
inline Exact stored_elements(const CpuOp& op, std::size_t i, const Shape& s) {
    if (i >= op.strides.size() || op.strides[i].size() != s.size())
        return element_count(s);
    Exact n = 1;
    for (std::size_t d = 0; d < s.size(); ++d)
        if (op.strides[i][d] != 0)
            n = n * Exact(s[d]);
    return n;
}

// Input i's storage bytes (any tensor type, integers and bool included) at its stored elements, or 0
// without a shape or type.
inline std::uint64_t input_bytes(const CpuOp& op, std::size_t i) {
    const auto s = input_shape(op, i);
    if (!s || i >= op.types.size())
        return 0;
    const auto t = storage_dtype(op.types[i]);
    return t ? storage_bytes(*t, stored_elements(op, i, *s)).value() : 0;
}

inline std::uint64_t bytes_of(DType t, std::uint64_t n) { return storage_bytes(t, Exact(n)).value(); }

// Input i's bytes as a tensor, a 0-d tensor (Input Dims [] with a tensor type) being one element; 0 for a
// Scalar, an absent input or a zero-size tensor.
inline std::uint64_t tensor_bytes(const CpuOp& op, std::size_t i) {
    if (i < op.dims.size() && op.dims[i].empty() && i < op.types.size())
        if (const auto t = storage_dtype(op.types[i]))
            return bytes_of(*t, 1);
    return input_bytes(op, i);
}

// The op name without its namespace ("_C::fused_add_rms_norm" → "fused_add_rms_norm").
inline std::string_view base_name(std::string_view name) {
    const std::size_t p = name.rfind("::");
    return p == std::string_view::npos ? name : name.substr(p + 2);
}

// An OpCost of pure data movement / vector work: `read` and `written` bytes, `flops` on the vector
// units in `dtype`, with one --explain term per quantity.
inline OpCost traffic(const std::string& op, std::string shape, DType dtype, std::string dtype_label, std::uint64_t read,
                      std::uint64_t written, std::uint64_t flops, Category cat, const std::string& how) {
    OpCost r;
    r.op = op;
    r.params = {{"shape", shape}};
    r.shape = std::move(shape);
    r.dtype = std::move(dtype_label);
    r.category = cat;
    Cost& c = r.cost;
    c.op = op;
    c.unit = Unit::vector;
    c.compute_dtype = dtype;
    c.flops = flops;
    c.bytes_read = read;
    c.bytes_written = written;
    c.launches = 1;
    c.terms.push_back({"bytes", how, fmt::format("read {} B, write {} B", read, written), fmt::format("{} B", read + written)});
    if (flops > 0)
        c.terms.push_back({"flops", how, fmt::format("{}", flops), fmt::format("{} FLOP", flops)});
    return r;
}

// An integer Concrete Input ("3", "-1"), whole; nullopt when absent or not an integer.
inline std::optional<std::int64_t> int_arg(const CpuOp& op, std::size_t i) {
    if (i >= op.concrete.size())
        return std::nullopt;
    const std::string& s = op.concrete[i];
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

// A list of integers from a Concrete Input ("[1, 1, 2, 2]", "[-1]"); nullopt when absent or malformed.
inline std::optional<std::vector<std::int64_t>> int_list(const CpuOp& op, std::size_t i) {
    if (i >= op.concrete.size() || op.concrete[i].size() < 2 || op.concrete[i].front() != '[')
        return std::nullopt;
    std::vector<std::int64_t> out;
    const std::string& s = op.concrete[i];
    const char* p = s.data() + 1;
    const char* end = s.data() + s.size();
    while (p < end) {
        if (*p == ' ' || *p == ',' || *p == ']') {
            ++p;
            continue;
        }
        std::int64_t v = 0;
        const auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc())
            return std::nullopt;
        out.push_back(v);
        p = next;
    }
    return out;
}

// A list of dims ("[1, 2]", "[-1]"), normalised against `rank`; nullopt when absent, malformed or out of
// range; empty for "[]".
inline std::optional<std::vector<std::size_t>> dims_arg(const CpuOp& op, std::size_t i, std::size_t rank) {
    const auto list = int_list(op, i);
    if (!list)
        return std::nullopt;
    const auto r = static_cast<std::int64_t>(rank);
    std::vector<std::size_t> out;
    for (const std::int64_t v : *list) {
        if (v < -r || v >= r)
            return std::nullopt;
        out.push_back(static_cast<std::size_t>(v < 0 ? v + r : v));
    }
    return out;
}

// The broadcast of two shapes (right-aligned), or nullopt when they do not broadcast.
inline std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
    Shape out(std::max(a.size(), b.size()));
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint64_t x = i < a.size() ? a[a.size() - 1 - i] : 1, y = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (x != y && x != 1 && y != 1)
            return std::nullopt;
        out[out.size() - 1 - i] = std::max(x, y);
    }
    return out;
}

// A dtype code of a Concrete Input (c10::ScalarType: 0 uint8, 1 int8, 2 int16, 3 int32, 4 int64, 5 fp16,
// 6 fp32, 7 fp64, 11 bool, 15 bf16) as a storage dtype and label.
inline std::optional<std::pair<DType, std::string>> scalar_type_code(const std::string& s) {
    int v = -1;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    switch (v) {
        case 0:
            return std::pair{DType::int8, std::string("uint8")};
        case 1:
            return std::pair{DType::int8, std::string("int8")};
        case 2:
            return std::pair{DType::fp16, std::string("int16")};
        case 3:
            return std::pair{DType::fp32, std::string("int32")};
        case 4:
            return std::pair{DType::fp64, std::string("int64")};
        case 5:
            return std::pair{DType::fp16, std::string("fp16")};
        case 6:
            return std::pair{DType::fp32, std::string("fp32")};
        case 7:
            return std::pair{DType::fp64, std::string("fp64")};
        case 11:
            return std::pair{DType::int8, std::string("bool")};
        case 15:
            return std::pair{DType::bf16, std::string("bf16")};
        default:
            return std::nullopt;
    }
}

}  // namespace bwacct::kineto::detail
