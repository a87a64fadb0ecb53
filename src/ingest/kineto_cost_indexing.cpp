// Data movement, indexing and reductions from a Kineto op's "Input Dims" (docs/formulas.md, "Data
// movement, indexing and reductions"): bytes as each tensor read once and each output written once,
// at the storage size of its type (integer and bool tensors included). FLOPs: reductions and scans 1
// per input element; where, masked_fill 1 per element; copies, fills, gathers, sorts 0 (comparisons and
// moves are not FLOPs).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using namespace detail;

// A dimension argument ("1", "-1") normalised to [0, rank); nullopt when absent or out of range.
std::optional<std::size_t> dim_arg(const CpuOp& op, std::size_t i, std::size_t rank) {
    if (i >= op.concrete.size() || rank == 0)
        return std::nullopt;
    const std::string& s = op.concrete[i];
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    const std::int64_t r = static_cast<std::int64_t>(rank);
    if (v < -r || v >= r)
        return std::nullopt;
    return static_cast<std::size_t>(v < 0 ? v + r : v);
}

// A list of dims ("[1, 2]", "[-1]"), normalised; nullopt when absent or malformed; empty for "[]".
std::optional<std::vector<std::size_t>> dims_arg(const CpuOp& op, std::size_t i, std::size_t rank) {
    if (i >= op.concrete.size() || op.concrete[i].empty() || op.concrete[i].front() != '[')
        return std::nullopt;
    std::vector<std::size_t> out;
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
        const std::int64_t r = static_cast<std::int64_t>(rank);
        if (ec != std::errc() || v < -r || v >= r)
            return std::nullopt;
        out.push_back(static_cast<std::size_t>(v < 0 ? v + r : v));
        p = next;
    }
    return out;
}

std::optional<DType> type_of(const CpuOp& op, std::size_t i) {
    return i < op.types.size() ? storage_dtype(op.types[i]) : std::nullopt;
}

std::string label(const CpuOp& op, std::size_t i) {
    if (const auto t = input_dtype(op, i))
        return std::string(dtype_name(*t));
    return i < op.types.size() ? op.types[i] : "";
}

// Reductions over `dims` of input 0 (all dims when none given): read the input, write the reduced output.
std::optional<OpCost> reduction(const std::string& name, const CpuOp& op, bool indices_out) {
    const auto x = input_shape(op, 0);
    const auto t = type_of(op, 0);
    if (!x || !t)
        return std::nullopt;
    std::uint64_t out = 1;
    std::vector<std::size_t> dims;
    if (auto d = dims_arg(op, 1, x->size()); d && !d->empty())
        dims = *d;
    else if (auto one = dim_arg(op, 1, x->size()))
        dims = {*one};
    if (!dims.empty()) {
        out = elems(*x);
        for (std::size_t d : dims)
            out /= (*x)[d];
    }
    std::uint64_t written = bytes_of(*t, out) + (indices_out ? bytes_of(DType::fp64, out) : 0);
    return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), written, elems(*x), Category::reduce,
                   "input read, reduced output written; 1 FLOP per input element");
}

}  // namespace

std::optional<OpCost> cost_data_op(const std::string& name, const CpuOp& op) {
    if (name.rfind("aten::", 0) != 0)
        return std::nullopt;
    std::string_view base = std::string_view(name).substr(6);
    const bool inplace = base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_';
    if (inplace)
        base.remove_suffix(1);
    const auto x = input_shape(op, 0);
    const auto t = type_of(op, 0);

    if (base == "fill" || base == "zero" || base == "ones_like" || base == "zeros_like" || base == "normal" ||
        base == "uniform" || base == "random") {
        if (!x || !t)
            return std::nullopt;
        return traffic(name, shape_text(*x), *t, label(op, 0), 0, input_bytes(op, 0), 0, Category::elementwise, "output written");
    }
    if (base == "copy" || base == "_to_copy" || base == "clone" || base == "contiguous") {
        // Source is input 1 for copy_(self, src), else input 0; destination self's type (input 0).
        const std::size_t src = base == "copy" ? 1 : 0;
        const auto s = input_shape(op, src);
        if (!x || !t || !s || elems(*s) != elems(*x))
            return std::nullopt;
        return traffic(name, shape_text(*x), *t,
                       fmt::format("{}{}", label(op, src), src == 1 && op.types[0] != op.types[1] ? "->" + label(op, 0) : ""),
                       input_bytes(op, src), input_bytes(op, 0), 0, Category::elementwise, "source read, destination written");
    }
    if (base == "where" || base == "masked_fill" || base == "masked_scatter" || base == "lerp" || base == "addcmul" ||
        base == "addcdiv") {
        // Every full-size tensor input read (mask and condition at their own type), the output written
        // at the size and type of the largest input.
        std::uint64_t read = 0, out_elems = 0;
        std::optional<DType> out_t;
        std::string out_label;
        for (std::size_t i = 0; i < op.dims.size(); ++i) {
            const auto s = input_shape(op, i);
            const auto ti = type_of(op, i);
            if (!s || !ti)
                continue;
            read += input_bytes(op, i);
            if (elems(*s) > out_elems || (elems(*s) == out_elems && ti != DType::int8)) {
                out_elems = elems(*s);
                out_t = ti;
                out_label = label(op, i);
            }
        }
        if (!out_t)
            return std::nullopt;
        return traffic(name, fmt::format("{} elements", out_elems), *out_t, out_label, read, bytes_of(*out_t, out_elems),
                       out_elems, Category::elementwise, "tensor inputs read, output written; 1 FLOP per element");
    }
    if (base == "sum" || base == "mean" || base == "amax" || base == "amin" || base == "prod" || base == "any" || base == "all" ||
        base == "norm" || base == "linalg_vector_norm" || base == "var" || base == "std" || base == "logsumexp" ||
        base == "count_nonzero")
        return reduction(name, op, false);
    if (base == "max" || base == "min" || base == "argmax" || base == "argmin" || base == "var_mean" || base == "std_mean")
        return reduction(name, op, base == "max" || base == "min" ? dim_arg(op, 1, x ? x->size() : 0).has_value() : false);
    if (base == "cumsum" || base == "cumprod" || base == "logcumsumexp") {
        if (!x || !t)
            return std::nullopt;
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), input_bytes(op, 0), elems(*x),
                       Category::reduce, "input read, scan written; 1 FLOP per element");
    }
    if (base == "sort" || base == "argsort") {
        if (!x || !t)
            return std::nullopt;
        const std::uint64_t n = elems(*x);
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0),
                       (base == "sort" ? bytes_of(*t, n) : 0) + bytes_of(DType::fp64, n), 0, Category::reduce,
                       "input read; values and int64 indices written");
    }
    if (base == "topk") {
        const auto k = dim_arg(op, 1, std::numeric_limits<std::size_t>::max() / 2);
        if (!x || !t || !k || *k == 0)
            return std::nullopt;
        const std::size_t dim = dim_arg(op, 2, x->size()).value_or(x->size() - 1);
        const std::uint64_t out = elems(*x) / (*x)[dim] * *k;
        return traffic(name, fmt::format("{} k={}", shape_text(*x), *k), *t, label(op, 0), input_bytes(op, 0),
                       bytes_of(*t, out) + bytes_of(DType::fp64, out), 0, Category::reduce,
                       "input read; k values and int64 indices per row written");
    }
    if (base == "embedding" || base == "index_select" || base == "gather" || base == "take_along_dim") {
        // Output elements: embedding: indices·D; index_select(self, dim, index): self with dim → len(index);
        // gather(self, dim, index): index's shape. Read the gathered elements and the indices, write the output.
        std::uint64_t out = 0;
        std::size_t idx = 0;
        if (base == "embedding") {
            const auto ind = input_shape(op, 1);
            if (!x || !ind || x->size() != 2)
                return std::nullopt;
            out = elems(*ind) * (*x)[1];
            idx = 1;
        } else {
            const auto ind = input_shape(op, 2);
            if (!x || !ind)
                return std::nullopt;
            idx = 2;
            if (base == "index_select") {
                const auto d = dim_arg(op, 1, x->size());
                if (!d)
                    return std::nullopt;
                out = elems(*x) / (*x)[*d] * elems(*ind);
            } else {
                out = elems(*ind);
            }
        }
        if (!t)
            return std::nullopt;
        return traffic(name, fmt::format("{} → {} elements", shape_text(*x), out), *t, label(op, 0),
                       bytes_of(*t, out) + input_bytes(op, idx), bytes_of(*t, out), 0, Category::indexing,
                       "gathered elements + indices read, output written");
    }
    if (base == "scatter" || base == "scatter_add" || base == "scatter_reduce" || base == "index_add" || base == "index_copy") {
        // (self, dim, index, src): src and index read, that many elements written into self.
        const auto src = input_shape(op, 3);
        const auto st = type_of(op, 3);
        if (!src || !st)
            return std::nullopt;
        const std::uint64_t n = elems(*src);
        return traffic(name, fmt::format("{} elements", n), *st, label(op, 3), input_bytes(op, 3) + input_bytes(op, 2),
                       bytes_of(*st, n), base == "scatter" || base == "index_copy" ? 0 : n, Category::indexing,
                       "source + indices read, scattered elements written");
    }
    if (base == "max_pool2d_with_indices" || base == "max_pool2d" || base == "avg_pool2d" || base == "adaptive_avg_pool2d" ||
        base == "_adaptive_avg_pool2d") {
        // Read the input once; the output is at most the input (stride ≥ 1): the input read is the
        // lower bound that binds, the output written is counted from the op's output size when the
        // concrete kernel/stride are given, else not at all.
        if (!x || !t || x->size() < 3)
            return std::nullopt;
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), 0, elems(*x), Category::reduce,
                       "input read; 1 FLOP per input element (window compare/add)");
    }
    return std::nullopt;
}

}  // namespace bwacct::kineto
