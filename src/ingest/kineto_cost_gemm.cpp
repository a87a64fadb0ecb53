// Matrix products from a Kineto op's "Input Dims": aten::mm, addmm, bmm, baddbmm, matmul, linear, mv,
// addmv (N = 1), _scaled_mm (fp8 A and B, C in out_dtype, the per-tensor or per-row scales read), and
// _grouped_mm (MoE's grouped GEMM, where offs splits the tokens but the total work is the shapes').
// M, N, K (and the batch) from the operand shapes; transposes are layout only (the minimum bytes do
// not change). addmm's `self` of N elements is the engine's bias (read once, C's dtype); a full
// M×N (or B×M×N) addend is read in full: its bytes are added to the reads.
#include <fmt/format.h>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"
#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using Shape = std::vector<std::uint64_t>;

std::uint64_t product(const Shape& s, std::size_t from, std::size_t to) {
    std::uint64_t p = 1;
    for (std::size_t i = from; i < to; ++i)
        if (__builtin_mul_overflow(p, s[i], &p))
            throw OverflowError("a product of the input dims does not fit in 64 bits");
    return p;
}

struct Mnk {
    std::uint64_t m = 0, n = 0, k = 0, batch = 1;
};

// a[..., M, K] · b[..., K, N]; a 1-D operand is a row (a) or a column (b).
std::optional<Mnk> matmul_dims(Shape a, Shape b, bool fold_batch_into_m) {
    if (a.size() == 1)
        a.insert(a.begin(), 1);
    if (b.size() == 1)
        b.push_back(1);
    const std::uint64_t k = a.back();
    if (b[b.size() - 2] != k)
        return std::nullopt;
    Mnk r;
    r.k = k;
    r.n = b.back();
    if (b.size() == 2 || fold_batch_into_m) {
        r.m = product(a, 0, a.size() - 1);  // every leading dim of a is a row of one product
    } else {
        r.m = a[a.size() - 2];
        r.batch = product(a, 0, a.size() - 2);
        if (product(b, 0, b.size() - 2) != r.batch && product(b, 0, b.size() - 2) != 1)
            return std::nullopt;
    }
    return r;
}

// C's type from an out_dtype input (a c10::ScalarType code) at `at`: A's type when absent or "None";
// nullopt for a code other than fp16, fp32 or bf16.
std::optional<DType> output_type(const CpuOp& op, std::size_t at, DType a) {
    if (op.concrete.size() <= at || op.concrete[at].empty() || op.concrete[at] == "None")
        return a;
    const auto t = detail::scalar_type_code(op.concrete[at]);
    if (!t || (t->second != "fp16" && t->second != "fp32" && t->second != "bf16"))
        return std::nullopt;
    return t->first;
}

// The scale tensors of an fp8 GEMM at inputs `at` (scale_a, scale_b, scale_result), added to the reads at
// their own sizes and types (a 0-d scale: one element); inputs without a tensor type are skipped.
void read_scales(OpCost& r, const CpuOp& op, const std::vector<std::size_t>& at) {
    std::uint64_t scales = 0;
    for (const std::size_t i : at)
        if (i < op.dims.size() && i < op.types.size())
            if (const auto t = storage_dtype(op.types[i])) {
                const auto s = input_shape(op, i);
                scales += storage_bytes(*t, Exact(s ? product(*s, 0, s->size()) : 1)).value();
            }
    if (scales > 0) {
        r.cost.bytes_read += scales;
        r.cost.terms.push_back({"read scales", "scale_a, scale_b (and scale_result) at their own sizes",
                                fmt::format("{} B", scales), fmt::format("{} B", scales)});
    }
}

// _scaled_mm(self [M, K], mat2 [K, N], scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum):
// A and B in their (fp8) types, C in out_dtype (a c10::ScalarType code: 5 fp16, 6 fp32, 15 bf16; None:
// A's type), the scales (a scalar, or one per row of A / column of B) and a bias [N] read.
std::optional<OpCost> cost_scaled_mm(const std::string& name, const CpuOp& op) {
    const auto sa = input_shape(op, 0), sb = input_shape(op, 1);
    const auto ta = input_dtype(op, 0), tb = input_dtype(op, 1);
    if (!sa || !sb || !ta || !tb || sa->size() != 2 || sb->size() != 2 || (*sa)[1] != (*sb)[0])
        return std::nullopt;
    const std::optional<DType> out = output_type(op, 6, *ta);
    if (!out)
        return std::nullopt;
    const DType c = *out;
    GemmDesc d;
    d.m = (*sa)[0];
    d.k = (*sa)[1];
    d.n = (*sb)[1];
    d.a = *ta;
    d.b = *tb;
    d.c = c;
    d.bias = input_shape(op, 4).has_value();
    OpCost r;
    r.op = name;
    r.shape = fmt::format("M={} N={} K={}{}", d.m, d.n, d.k, d.bias ? " bias" : "");
    r.dtype = fmt::format("{}x{}->{}", dtype_name(d.a), dtype_name(d.b), dtype_name(d.c));
    r.category = Category::gemm;
    r.cost = gemm_cost(d);
    read_scales(r, op, {2, 3, 5});
    r.params = {{"m", d.m}, {"n", d.n}, {"k", d.k}, {"bias", d.bias}};
    return r;
}

// _grouped_mm(self, mat2, offs, bias, out_dtype) (ATen's grouped GEMM, aten/src/ATen/native/cuda/Blas.cpp):
// G groups; offs [G] holds where each group ends (values), but the work does not depend on them:
//   self [T, K] · mat2 [G, K, N] (offs splits the T rows; each row meets one group's weight):
//       FLOPs 2·T·K·N; read T·K + G·K·N; write T·N;
//   self [M, T] · mat2 [T, N] (offs splits K = T; a weight gradient per group): FLOPs 2·M·N·T; read
//       M·T + T·N; write G·M·N;
//   self [G, M, K] · mat2 [G, K, N]: a batched GEMM of G.
// C in out_dtype (a c10::ScalarType code), else self's type; offs read (4 B each). _scaled_grouped_mm(self,
// mat2, scale_a, scale_b, offs, bias, scale_result, out_dtype, use_fast_accum): the same, fp8 operands,
// the scales read at their own sizes.
struct GroupedArgs {
    std::size_t offs, bias, out_dtype;
    std::vector<std::size_t> scales;
};
std::optional<OpCost> cost_grouped_mm(const std::string& name, const CpuOp& op, const GroupedArgs& at) {
    const auto sa = input_shape(op, 0), sb = input_shape(op, 1);
    const auto ta = input_dtype(op, 0), tb = input_dtype(op, 1);
    if (!sa || !sb || !ta || !tb)
        return std::nullopt;
    const std::optional<DType> out = output_type(op, at.out_dtype, *ta);
    if (!out)
        return std::nullopt;
    const DType c = *out;
    const auto offs = input_shape(op, at.offs);
    GemmDesc d;
    d.a = *ta;
    d.b = *tb;
    d.c = c;
    std::uint64_t groups = 0, extra_b = 0, extra_c = 0;
    std::string form;
    if (sa->size() == 2 && sb->size() == 3 && (*sa)[1] == (*sb)[1]) {
        groups = (*sb)[0];
        d.m = (*sa)[0];
        d.k = (*sa)[1];
        d.n = (*sb)[2];
        extra_b = (groups - 1) * d.k * d.n;  // every group's weight read once
        form = "tokens split by offs";
    } else if (sa->size() == 2 && sb->size() == 2 && (*sa)[1] == (*sb)[0]) {
        if (!offs || offs->size() != 1)
            return std::nullopt;
        groups = (*offs)[0];
        d.m = (*sa)[0];
        d.k = (*sa)[1];
        d.n = (*sb)[1];
        extra_c = (groups - 1) * d.m * d.n;  // one M×N output per group
        form = "K split by offs";
    } else if (sa->size() == 3 && sb->size() == 3 && (*sa)[0] == (*sb)[0] && (*sa)[2] == (*sb)[1]) {
        groups = (*sa)[0];
        d.batch = groups;
        d.m = (*sa)[1];
        d.k = (*sa)[2];
        d.n = (*sb)[2];
        form = "batched";
    } else {
        return std::nullopt;
    }
    if (groups == 0)
        return std::nullopt;
    d.bias = input_shape(op, at.bias).has_value();
    OpCost r;
    r.op = name;
    r.shape = fmt::format("G={} M={} N={} K={} ({})", groups, d.m, d.n, d.k, form);
    r.dtype = d.a == d.c && d.b == d.c ? std::string(dtype_name(d.c))
                                       : fmt::format("{}x{}->{}", dtype_name(d.a), dtype_name(d.b), dtype_name(d.c));
    r.category = Category::gemm;
    r.cost = gemm_cost(d);
    if (extra_b > 0) {
        const std::uint64_t bytes = storage_bytes(d.b, Exact(extra_b)).value();
        r.cost.bytes_read += bytes;
        r.cost.terms.push_back({"read the other groups' weights", "(G − 1)·K·N · bytes per element",
                                fmt::format("{}·{}·{}", groups - 1, d.k, d.n), fmt::format("{} B", bytes)});
    }
    if (extra_c > 0) {
        const std::uint64_t bytes = storage_bytes(d.c, Exact(extra_c)).value();
        r.cost.bytes_written += bytes;
        r.cost.terms.push_back({"write the other groups' outputs", "(G − 1)·M·N · bytes per element",
                                fmt::format("{}·{}·{}", groups - 1, d.m, d.n), fmt::format("{} B", bytes)});
    }
    if (offs && offs->size() == 1) {
        r.cost.bytes_read += 4 * (*offs)[0];
        r.cost.terms.push_back({"read offs", "G · 4 B", fmt::format("{}·4", (*offs)[0]), fmt::format("{} B", 4 * (*offs)[0])});
    }
    read_scales(r, op, at.scales);
    r.params = {{"groups", groups}, {"m", d.m}, {"n", d.n}, {"k", d.k}};
    return r;
}

}  // namespace

std::optional<OpCost> cost_gemm_op(const std::string& name, const CpuOp& op) {
    // (a, b, addend) input positions; addend -1: none.
    int a = 0, b = 1, addend = -1;
    bool linear = false;
    if (name == "aten::mm" || name == "aten::bmm" || name == "aten::matmul") {
    } else if (name == "aten::addmm" || name == "aten::baddbmm") {
        a = 1;
        b = 2;
        addend = 0;
    } else if (name == "aten::linear") {
        linear = true;
        addend = 2;
    } else if (name == "aten::mv") {
    } else if (name == "aten::addmv") {
        a = 1;
        b = 2;
        addend = 0;
    } else if (name == "aten::_scaled_mm") {
        return cost_scaled_mm(name, op);
    } else if (name == "aten::_grouped_mm") {
        return cost_grouped_mm(name, op, {2, 3, 4, {}});
    } else if (name == "aten::_scaled_grouped_mm") {
        return cost_grouped_mm(name, op, {4, 5, 7, {2, 3, 6}});
    } else {
        return std::nullopt;
    }
    const auto sa = input_shape(op, static_cast<std::size_t>(a));
    auto sb = input_shape(op, static_cast<std::size_t>(b));
    const auto dtype = input_dtype(op, static_cast<std::size_t>(a));
    if (!sa || !sb || !dtype || input_dtype(op, static_cast<std::size_t>(b)) != dtype)
        return std::nullopt;
    if (linear) {  // weight [N, K]: the product is x · Wᵀ
        if (sb->size() != 2)
            return std::nullopt;
        std::swap((*sb)[0], (*sb)[1]);
    }
    if ((name == "aten::mm" || name == "aten::addmm") && (sa->size() != 2 || sb->size() != 2))
        return std::nullopt;
    if ((name == "aten::mv" || name == "aten::addmv") && (sa->size() != 2 || sb->size() != 1))
        return std::nullopt;
    if ((name == "aten::bmm" || name == "aten::baddbmm") && (sa->size() != 3 || sb->size() != 3))
        return std::nullopt;
    const auto mnk = matmul_dims(*sa, *sb, linear);
    if (!mnk)
        return std::nullopt;

    GemmDesc d;
    d.m = mnk->m;
    d.n = mnk->n;
    d.k = mnk->k;
    d.batch = mnk->batch;
    d.a = d.b = d.c = *dtype;
    std::uint64_t addend_elems = 0;
    std::string shape = fmt::format("M={} N={} K={}", d.m, d.n, d.k);
    if (d.batch > 1)
        shape = fmt::format("B={} {}", d.batch, shape);
    if (addend >= 0) {
        if (const auto s = input_shape(op, static_cast<std::size_t>(addend))) {
            const std::uint64_t elems = product(*s, 0, s->size());
            if (elems == d.n) {
                d.bias = true;
                shape += " bias";
            } else {
                addend_elems = elems;  // a full addend (beta·C): read in full
                shape += fmt::format(" +C[{}]", shape_text(*s));
            }
        }
    }
    OpCost r;
    r.op = name;
    r.shape = shape;
    r.dtype = std::string(dtype_name(*dtype));
    r.category = Category::gemm;
    r.cost = gemm_cost(d);
    if (addend_elems > 0) {
        const std::uint64_t bytes = storage_bytes(*dtype, Exact(addend_elems)).value();
        r.cost.bytes_read += bytes;
        r.cost.terms.push_back({"read addend C", "elements · bytes per element",
                                fmt::format("{}·{}", addend_elems, dtype_bits(*dtype) / 8), fmt::format("{} B", bytes)});
    }
    r.params = {{"m", d.m}, {"n", d.n}, {"k", d.k}};
    if (d.batch > 1)
        r.params.push_back({"batch", d.batch});
    r.params.push_back({"bias", d.bias});
    return r;
}

}  // namespace bwacct::kineto
