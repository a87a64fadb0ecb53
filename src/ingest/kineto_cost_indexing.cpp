// Data movement, indexing and reductions from a Kineto op's "Input Dims" (docs/formulas.md, "Data
// movement, indexing and reductions"): bytes as each tensor read once and each output written once,
// at the storage size of its type (integer and bool tensors included). FLOPs: reductions and scans 1
// per input element; where, masked_fill 1 per element; copies, fills, gathers, sorts 0 (comparisons and
// moves are not FLOPs).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "kineto_cost_reasons.h"
#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using namespace detail;

// A dimension argument ("1", "-1") normalised to [0, rank); nullopt when absent or out of range.
std::optional<std::size_t> dim_arg(const CpuOp& op, std::size_t i, std::size_t rank) {
    const auto v = int_arg(op, i);
    const std::int64_t r = static_cast<std::int64_t>(rank);
    if (!v || rank == 0 || *v < -r || *v >= r)
        return std::nullopt;
    return static_cast<std::size_t>(*v < 0 ? *v + r : *v);
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

// aten::index(self, indices) / index_put_(self, indices, values, accumulate) / _index_put_impl_: the
// indices are a Tensor?[] list (input 1). With its shapes in the trace (Kineto writes that list as an
// empty input in the releases seen so far), k index tensors index self's first k dims: the output (or
// the positions written) is broadcast(index shapes) × self's remaining dims. Index tensors are int64
// (8 B an element). A bool mask has the count of its true values as its length, a value the trace
// lacks: an index shaped like self's leading dims may be one, and is refused (index_reason says so).
struct IndexShape {
    std::uint64_t elements = 0;  // output elements (index) / elements written (index_put)
    std::uint64_t index_bytes = 0;
    std::string text;
};
std::optional<IndexShape> index_shape(const CpuOp& op, std::string* why) {
    const auto self = input_shape(op, 0);
    const TensorListDims* l = input_list(op, 1);
    if (!self || !l || !l->complete() || l->count == 0 || l->count > self->size()) {
        if (why)
            *why = l && !l->complete() ? "its index list is cut short in the trace"
                                       : "its Tensor?[] index list is written without shapes in the trace";
        return std::nullopt;
    }
    Shape b;
    std::uint64_t index_elems = 0;
    for (std::size_t k = 0; k < l->kept(); ++k) {
        Shape s;
        for (const std::int64_t d : l->shape(k)) {
            if (d <= 0)
                return std::nullopt;
            s.push_back(static_cast<std::uint64_t>(d));
        }
        if (!s.empty() && s.size() <= self->size() && std::equal(s.begin(), s.end(), self->begin())) {
            if (why)
                *why = fmt::format(
                    "index {} has self's leading dims {}: a bool mask's length is its count of true values, "
                    "not in trace",
                    k, shape_text(s));
            return std::nullopt;
        }
        index_elems += s.empty() ? 1 : elems(s);
        auto out = broadcast(b, s);
        if (!out)
            return std::nullopt;
        b = std::move(*out);
    }
    std::uint64_t n = b.empty() ? 1 : elems(b);
    for (std::size_t d = l->count; d < self->size(); ++d)
        n *= (*self)[d];
    return IndexShape{n, bytes_of(DType::fp64, index_elems),
                      fmt::format("{} [{} index tensors] → {} elements", shape_text(*self), l->count, n)};
}

std::optional<OpCost> index_op(const std::string& name, std::string_view base, const CpuOp& op) {
    const auto t = type_of(op, 0);
    const auto sh = index_shape(op, nullptr);
    if (!t || !sh)
        return std::nullopt;
    const std::uint64_t moved = bytes_of(*t, sh->elements);
    if (base == "index")
        return traffic(name, sh->text, *t, label(op, 0), moved + sh->index_bytes, moved, 0, Category::indexing,
                       "gathered elements + int64 index tensors read, output written");
    // index_put: values read (at their own size, broadcast to the positions) and the indices; with
    // accumulate (input 3 True) the written positions are read too and added to (1 FLOP each).
    const bool accumulate = op.concrete.size() > 3 && op.concrete[3] == "True";
    const std::uint64_t values = tensor_bytes(op, 2);
    return traffic(name, sh->text, *t, label(op, 0), values + sh->index_bytes + (accumulate ? moved : 0), moved,
                   accumulate ? sh->elements : 0, Category::indexing,
                   accumulate ? "values + int64 indices + the indexed elements read, indexed elements written; 1 FLOP each"
                              : "values + int64 indices read, indexed elements written");
}

bool is_index_op(std::string_view base) { return base == "index" || base == "index_put" || base == "_index_put_impl"; }

// arange(end | start, end[, step], dtype, layout, device, pin_memory) and arange.start_out(start, end,
// step, out): ceil((end − start) / step) elements written at the dtype (the out tensor's type; None:
// int64 when every bound is an integer, else the default fp32); nothing read, 0 FLOPs.
std::optional<OpCost> arange_op(const std::string& name, const CpuOp& op) {
    const std::size_t n = op.types.size();
    std::size_t bounds = 0, dtype_at = 0;
    std::optional<std::pair<DType, std::string>> type;
    if (n == 4 && storage_dtype(op.types[3])) {  // start_out
        bounds = 3;
        type = std::pair{*storage_dtype(op.types[3]), label(op, 3)};
    } else if (n == 5 || n == 6 || n == 7) {
        bounds = n - 4;
        dtype_at = bounds;
        if (dtype_at < op.concrete.size() && !op.concrete[dtype_at].empty())
            type = scalar_type_code(op.concrete[dtype_at]);
    } else {
        return std::nullopt;
    }
    if (op.concrete.size() < bounds)
        return std::nullopt;
    double v[3] = {0, 0, 1};
    bool integral = true;
    for (std::size_t i = 0; i < bounds; ++i) {
        const std::string& c = op.concrete[i];
        char* end = nullptr;
        const double x = std::strtod(c.c_str(), &end);
        if (c.empty() || end != c.c_str() + c.size() || !std::isfinite(x))
            return std::nullopt;
        integral = integral && c.find_first_of(".eE") == std::string::npos;
        v[bounds == 1 ? 1 : i] = x;
    }
    const double count = std::ceil((v[1] - v[0]) / v[2]);
    if (!(count >= 1) || count > 1e15)
        return std::nullopt;
    if (!type)
        type = integral ? std::pair{DType::fp64, std::string("int64")} : std::pair{DType::fp32, std::string("fp32")};
    const auto elements = static_cast<std::uint64_t>(count);
    return traffic(name, fmt::format("{} elements", elements), type->first, type->second, 0, bytes_of(type->first, elements), 0,
                   Category::elementwise, "ceil((end − start) / step) elements written; 0 FLOPs");
}

// Output shapes of the reshaping copies: constant_pad_nd(self, pad, value) (pad: [left, right] pairs
// from the last dim backwards, negative crops), repeat(self, repeats) (repeats may add leading dims),
// upsample_*(self, output_size, ...) ([N, C] + output_size), and their element count; nullopt when the
// Concrete Inputs do not give it.
std::optional<Shape> reshaped_output(std::string_view base, const Shape& x, const CpuOp& op) {
    const auto list = int_list(op, 1);
    if (!list || list->empty())
        return std::nullopt;
    Shape out = x;
    if (base == "constant_pad_nd") {
        if (list->size() % 2 != 0 || list->size() / 2 > x.size())
            return std::nullopt;
        for (std::size_t k = 0; k < list->size() / 2; ++k) {
            const std::int64_t d = static_cast<std::int64_t>(x[x.size() - 1 - k]) + (*list)[2 * k] + (*list)[2 * k + 1];
            if (d <= 0)
                return std::nullopt;
            out[x.size() - 1 - k] = static_cast<std::uint64_t>(d);
        }
        return out;
    }
    if (base == "repeat") {
        if (list->size() < x.size())
            return std::nullopt;
        out.assign(list->size() - x.size(), 1);
        out.insert(out.end(), x.begin(), x.end());
        for (std::size_t k = 0; k < out.size(); ++k) {
            if ((*list)[k] <= 0)
                return std::nullopt;
            out[k] *= static_cast<std::uint64_t>((*list)[k]);
        }
        return out;
    }
    // upsample: the spatial dims after [N, C]
    if (x.size() != list->size() + 2)
        return std::nullopt;
    for (std::size_t k = 0; k < list->size(); ++k) {
        if ((*list)[k] <= 0)
            return std::nullopt;
        out[k + 2] = static_cast<std::uint64_t>((*list)[k]);
    }
    return out;
}

// Interpolation FLOPs per output element of upsample_*: nearest 0; linear 3 (a lerp: a + w·(b − a)),
// bilinear 3 lerps = 9, trilinear 7 lerps = 21; bicubic 16 taps·2 = 32. nullopt for another mode.
std::optional<std::uint64_t> upsample_flops(std::string_view base) {
    if (base.find("nearest") != std::string_view::npos)
        return 0;
    if (base.find("trilinear") != std::string_view::npos)
        return 21;
    if (base.find("bilinear") != std::string_view::npos)
        return 9;
    if (base.find("linear") != std::string_view::npos)
        return 3;
    if (base.find("bicubic") != std::string_view::npos)
        return 32;
    return std::nullopt;
}

// embedding_bag / _embedding_bag / _embedding_bag_forward_only(weight [V, D], indices, offsets,
// scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx): B bags of I
// gathered rows. indices 2-D [B, L]: B rows of L, no offsets; 1-D [I]: B = len(offsets) (− 1 with
// include_last_offset). Read the I gathered rows, the indices, offsets and per-sample weights; write the
// output [B, D] (the index outputs offset2bag/bag_size, which the forward-only variant does not write, are
// not counted). FLOPs: 1 per gathered element (sum/mean add, max compare), 1 more with per-sample
// weights (the multiply), and B·D divides for mean.
std::optional<OpCost> embedding_bag_op(const std::string& name, const CpuOp& op) {
    const auto w = input_shape(op, 0);
    const auto ind = input_shape(op, 1);
    const auto t = type_of(op, 0);
    const auto mode = int_arg(op, 4);
    if (!w || w->size() != 2 || !ind || ind->empty() || ind->size() > 2 || !t || !mode || *mode < 0 || *mode > 2)
        return std::nullopt;
    const std::uint64_t d = (*w)[1], gathered = elems(*ind);
    std::uint64_t bags = 0;
    if (ind->size() == 2) {
        bags = (*ind)[0];
    } else {
        const auto off = input_shape(op, 2);
        if (!off || off->size() != 1)
            return std::nullopt;
        const bool last = op.concrete.size() > 7 && op.concrete[7] == "True";
        if (last && (*off)[0] < 2)
            return std::nullopt;
        bags = (*off)[0] - (last ? 1 : 0);
    }
    const std::uint64_t weighted = input_bytes(op, 6);
    const std::uint64_t flops = gathered * d * (weighted > 0 ? 2 : 1) + (*mode == 1 ? bags * d : 0);
    static constexpr std::string_view kModes[] = {"sum", "mean", "max"};
    return traffic(name, fmt::format("{} [{} rows in {} bags, {}]", shape_text(*w), gathered, bags, kModes[*mode]), *t,
                   label(op, 0), bytes_of(*t, gathered * d) + input_bytes(op, 1) + input_bytes(op, 2) + weighted,
                   bytes_of(*t, bags * d), flops, Category::indexing,
                   "gathered rows + indices + offsets (+ per-sample weights) read, one row per bag written; 1 FLOP per "
                   "gathered element (+1 weighted, + bags·D for mean)");
}

// grid_sampler_2d / _3d(input [N, C, *in], grid [N, *out, 2|3], interpolation_mode, padding_mode,
// align_corners): output [N, C, *out]. Input and grid read, output written; FLOPs per output element as
// the interpolation of upsample (mode 0 bilinear 9 / trilinear 21, 1 nearest 0, 2 bicubic 32).
std::optional<OpCost> grid_sampler_op(const std::string& name, bool three_d, const CpuOp& op) {
    const auto x = input_shape(op, 0);
    const auto g = input_shape(op, 1);
    const auto t = type_of(op, 0);
    const auto mode = int_arg(op, 2);
    const std::size_t rank = three_d ? 5 : 4;
    if (!x || !g || !t || !mode || x->size() != rank || g->size() != rank || (*g)[0] != (*x)[0] || g->back() != rank - 2)
        return std::nullopt;
    std::optional<std::uint64_t> per;
    if (*mode == 0)
        per = upsample_flops(three_d ? "trilinear" : "bilinear");
    else if (*mode == 1)
        per = upsample_flops("nearest");
    else if (*mode == 2 && !three_d)
        per = upsample_flops("bicubic");
    if (!per)
        return std::nullopt;
    const std::uint64_t out = elems(*g) / (rank - 2) * (*x)[1];
    return traffic(name, fmt::format("{} at grid {} → {} elements", shape_text(*x), shape_text(*g), out), *t, label(op, 0),
                   input_bytes(op, 0) + input_bytes(op, 1), bytes_of(*t, out), out * *per, Category::indexing,
                   fmt::format("input + grid read, output written; {} FLOPs per output element (interpolation)", *per));
}

// im2col(self [N, C, H, W], kernel_size, dilation, padding, stride): output [N, C·kh·kw, L], L = Ho·Wo with
// Ho = ⌊(H + 2p − d·(k − 1) − 1)/s⌋ + 1; input read, output written, 0 FLOPs. col2im(self [N, C·kh·kw, L],
// output_size, kernel_size, dilation, padding, stride): output [N, C, oH, oW]; input read, output written,
// 1 FLOP (the overlapping columns' add) per input element.
std::optional<OpCost> im2col_op(const std::string& name, bool col2im, const CpuOp& op) {
    const auto x = input_shape(op, 0);
    const auto t = type_of(op, 0);
    const std::size_t at = col2im ? 2 : 1;
    const auto k = int_list(op, at), d = int_list(op, at + 1), p = int_list(op, at + 2), st = int_list(op, at + 3);
    const bool two = [&] {
        for (const auto* l : {&k, &d, &p, &st})
            if (!*l || (*l)->size() != 2)
                return false;
        return true;
    }();
    if (!x || !t || !two || (*x).size() != (col2im ? 3u : 4u))
        return std::nullopt;
    const std::int64_t kk = (*k)[0] * (*k)[1];
    if (kk <= 0)
        return std::nullopt;
    if (col2im) {
        const auto o = int_list(op, 1);
        if (!o || o->size() != 2 || (*o)[0] <= 0 || (*o)[1] <= 0 || (*x)[1] % static_cast<std::uint64_t>(kk) != 0)
            return std::nullopt;
        const std::uint64_t out = (*x)[0] * ((*x)[1] / static_cast<std::uint64_t>(kk)) * static_cast<std::uint64_t>((*o)[0]) *
                                  static_cast<std::uint64_t>((*o)[1]);
        return traffic(name, fmt::format("{} → {} elements", shape_text(*x), out), *t, label(op, 0), input_bytes(op, 0),
                       bytes_of(*t, out), elems(*x), Category::conv,
                       "columns read, image written; 1 FLOP per column element (overlap add)");
    }
    std::uint64_t l = 1;
    for (std::size_t i = 0; i < 2; ++i) {
        const std::int64_t span = static_cast<std::int64_t>((*x)[2 + i]) + 2 * (*p)[i] - (*d)[i] * ((*k)[i] - 1) - 1;
        if ((*st)[i] <= 0 || span < 0)
            return std::nullopt;
        l *= static_cast<std::uint64_t>(span / (*st)[i] + 1);
    }
    const std::uint64_t out = (*x)[0] * (*x)[1] * static_cast<std::uint64_t>(kk) * l;
    return traffic(name, fmt::format("{} → {} elements", shape_text(*x), out), *t, label(op, 0), input_bytes(op, 0),
                   bytes_of(*t, out), 0, Category::conv, "image read, columns written; 0 FLOPs");
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

    if (is_index_op(base))
        return index_op(name, base, op);
    if (base == "embedding_bag" || base == "_embedding_bag" || base == "_embedding_bag_forward_only")
        return embedding_bag_op(name, op);
    if (base == "grid_sampler_2d" || base == "grid_sampler_3d")
        return grid_sampler_op(name, base == "grid_sampler_3d", op);
    if (base == "im2col" || base == "col2im")
        return im2col_op(name, base == "col2im", op);
    if (base == "flip" || base == "roll" || base == "fliplr" || base == "flipud") {
        if (!x || !t)
            return std::nullopt;
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), input_bytes(op, 0), 0, Category::elementwise,
                       "input read, its permuted copy written; 0 FLOPs");
    }
    if (base == "pixel_shuffle" || base == "pixel_unshuffle" || base == "channel_shuffle" || base == "native_channel_shuffle") {
        // A permutation of the input's elements: as many written as read.
        if (!x || !t)
            return std::nullopt;
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), input_bytes(op, 0), 0, Category::indexing,
                       "input read, its permuted copy written; 0 FLOPs");
    }
    if (base == "searchsorted" || base == "bucketize") {
        // searchsorted(sorted_sequence, self, out_int32, right, …), bucketize(self, boundaries, out_int32, right):
        // both tensors read; one index per element of the searched values written, int32 when out_int32
        // (Concrete Input 2), else int64. Comparisons are not FLOPs.
        const std::size_t values = base == "searchsorted" ? 1 : 0;
        const auto v = input_shape(op, values);
        const auto vt = type_of(op, values);
        if (!v || !vt || !input_shape(op, 1 - values) || op.concrete.size() < 3)
            return std::nullopt;
        const bool int32 = op.concrete[2] == "True" || op.concrete[2] == "1";
        if (!int32 && op.concrete[2] != "False" && op.concrete[2] != "0")
            return std::nullopt;
        const std::uint64_t n = elems(*v);
        return traffic(name, shape_text(*v), *vt, label(op, values), input_bytes(op, 0) + input_bytes(op, 1), n * (int32 ? 4 : 8),
                       0, Category::indexing,
                       fmt::format("sorted boundaries and values read; one int{} index per value written", int32 ? 32 : 64));
    }
    if (base == "multinomial") {
        // multinomial(self [V] or [B, V], num_samples, replacement): the probabilities read and scanned
        // (1 FLOP per element), num_samples int64 indices per row written.
        const auto k = int_arg(op, 1);
        if (!x || !t || x->empty() || x->size() > 2 || !k || *k <= 0)
            return std::nullopt;
        const std::uint64_t rows = x->size() == 2 ? (*x)[0] : 1;
        return traffic(name, fmt::format("{} samples={}", shape_text(*x), *k), *t, label(op, 0), input_bytes(op, 0),
                       rows * static_cast<std::uint64_t>(*k) * 8, elems(*x), Category::reduce,
                       "probabilities read and scanned (1 FLOP per element); int64 samples written");
    }
    if (base == "histc") {
        // histc(self, bins, min, max): self read; `bins` counts written in self's type (PyTorch's histc keeps it);
        // 1 FLOP per element (its count added to a bin; the bin index is a compare and a scale, not counted).
        const auto bins = int_arg(op, 1);
        if (!x || !t || !bins || *bins <= 0)
            return std::nullopt;
        return traffic(name, fmt::format("{} bins={}", shape_text(*x), *bins), *t, label(op, 0), input_bytes(op, 0),
                       bytes_of(*t, static_cast<std::uint64_t>(*bins)), elems(*x), Category::reduce,
                       "input read, one count per bin written; 1 FLOP per element");
    }
    if (base == "dot" || base == "vdot") {
        // dot(x [n], y [n]): both read, one value written, n multiplies and n adds.
        const auto y = input_shape(op, 1);
        if (!x || !t || !y || x->size() != 1 || elems(*y) != elems(*x))
            return std::nullopt;
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0) + input_bytes(op, 1), bytes_of(*t, 1),
                       2 * elems(*x), Category::reduce, "both vectors read, one value written; 2 FLOPs per element pair");
    }
    if (base == "glu") {
        // glu(self, dim = -1): self's two halves along dim read, a ⊗ sigmoid(b) written (half of self);
        // 5 FLOPs per output element (sigmoid 4, multiply 1).
        const std::size_t dim = x ? dim_arg(op, 1, x->size()).value_or(x->size() - 1) : 0;
        if (!x || !t || x->empty() || (*x)[dim] % 2 != 0)
            return std::nullopt;
        const std::uint64_t n = elems(*x) / 2;
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), bytes_of(*t, n), 5 * n, Category::elementwise,
                       "input read, half of it written; 5 FLOPs per output element (sigmoid, multiply)");
    }
    if (base == "repeat_interleave" && op.types.size() > 1 && op.types[1] == "Scalar") {
        // repeat_interleave(self, repeats: int, dim): each element written `repeats` times; a tensor of
        // repeats holds values the trace does not give.
        const auto r = int_arg(op, 1);
        if (!x || !t || !r || *r <= 0)
            return std::nullopt;
        return traffic(name, fmt::format("{} ×{}", shape_text(*x), *r), *t, label(op, 0), input_bytes(op, 0),
                       input_bytes(op, 0) * static_cast<std::uint64_t>(*r), 0, Category::indexing,
                       "input read, each element written `repeats` times; 0 FLOPs");
    }
    const bool upsample = base.rfind("upsample_", 0) == 0 && base.find("backward") == std::string_view::npos;
    if (base == "constant_pad_nd" || base == "repeat" || upsample) {
        const auto out = x ? reshaped_output(upsample ? std::string_view("upsample") : base, *x, op) : std::nullopt;
        const auto per = upsample ? upsample_flops(base) : std::optional<std::uint64_t>(0);
        if (!out || !t || !per)
            return std::nullopt;
        const std::uint64_t n = elems(*out);
        return traffic(name, fmt::format("{} → {}", shape_text(*x), shape_text(*out)), *t, label(op, 0), input_bytes(op, 0),
                       bytes_of(*t, n), n * *per, Category::elementwise,
                       *per == 0 ? std::string("input read, output written; 0 FLOPs")
                                 : fmt::format("input read, output written; {} FLOPs per output element (interpolation)", *per));
    }
    if (base.rfind("upsample_", 0) == 0) {
        // upsample_*_backward(grad_output, output_size, input_size, ...): grad_output read, grad_input
        // [input_size] written; each grad_output element spread over its taps (the forward's FLOPs).
        const auto in = int_list(op, 2);
        const auto per = upsample_flops(base);
        if (!x || !t || !in || !per || in->empty())
            return std::nullopt;
        std::uint64_t n = 1;
        for (const std::int64_t d : *in) {
            if (d <= 0)
                return std::nullopt;
            n *= static_cast<std::uint64_t>(d);
        }
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), bytes_of(*t, n),
                       elems(*x) * std::max<std::uint64_t>(*per, 1), Category::elementwise,
                       "grad_output read, grad_input written; the forward's FLOPs per grad_output element (1 for nearest)");
    }
    if (base == "arange")
        return arange_op(name, op);
    if (base == "fill" || base == "zero" || base == "ones_like" || base == "zeros_like" || base == "normal" ||
        base == "uniform" || base == "random" || base == "bernoulli" || base == "exponential" || base == "geometric" ||
        base == "log_normal" || base == "cauchy") {
        // The output written (a 0-d tensor, Input Dims [] with a tensor type: one element).
        const std::uint64_t written = tensor_bytes(op, 0);
        if (!t || written == 0)
            return std::nullopt;
        return traffic(name, x ? shape_text(*x) : std::string("0-d"), *t, label(op, 0), 0, written, 0, Category::elementwise,
                       "output written");
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
    if (base == "split_with_sizes_copy" || base == "split_copy") {
        // split_with_sizes_copy(self, split_sizes, dim, *, out: Tensor[]) (FSDP2's copy-out of the all-gather output):
        // the outputs partition self in its type, so self is read and as many bytes written, whether or not Kineto
        // spelled out the out list.
        if (!x || !t)
            return std::nullopt;
        return traffic(name, shape_text(*x), *t, label(op, 0), input_bytes(op, 0), input_bytes(op, 0), 0, Category::elementwise,
                       "self read, its split copies written (they partition it); 0 FLOPs");
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

std::string indexing_uncosted_reason(const std::string& name, const CpuOp& op) {
    if (name.rfind("aten::", 0) != 0)
        return "";
    std::string_view base = std::string_view(name).substr(6);
    if (base.size() > 1 && base.back() == '_' && base[base.size() - 2] != '_')
        base.remove_suffix(1);
    if (base == "nonzero" || base == "unique" || base == "_unique" || base == "_unique2" || base == "unique_consecutive" ||
        base == "unique_dim" || base == "masked_select" || base == "argwhere")
        return fmt::format("output size of {} is a count of its input's values, not in trace", name);
    // repeat_interleave(repeats tensor): output length = the sum of the repeats' values; bincount: one bin per
    // value up to the input's maximum (minlength at least), written by atomics over the input's values (histc's
    // bins are given: costed).
    const bool int_repeats = op.types.size() > 1 && op.types[1] == "Scalar";  // self_int: repeats a number
    if (base == "repeat_interleave" && !int_repeats)
        return fmt::format("output size of {} is the sum of its repeats' values, not in trace", name);
    if (base == "bincount")
        return fmt::format("output size of {} is its input's largest value + 1, not in trace", name);
    if (!is_index_op(base))
        return "";
    std::string why;
    if (!input_shape(op, 0) || index_shape(op, &why) || why.empty())
        return "";
    return fmt::format("indexed shape of {} not in trace: {}", name, why);
}

}  // namespace bwacct::kineto
