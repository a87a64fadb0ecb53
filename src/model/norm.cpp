// Row-wise layernorm, rmsnorm and softmax over the last dimension D of the shape.
// Bytes: read x, write y (same shape and dtype), plus the affine parameters (layernorm γ and β,
// rmsnorm γ: D elements each, read once). FLOPs per element: docs/formulas.md.
#include <fmt/format.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "tensor_bytes.h"
#include "term.h"

namespace bwacct {

using detail::tensor_bytes;
using detail::term;

std::uint64_t norm_flops_per_elem(NormKind k) {
    switch (k) {
        case NormKind::layernorm:
            return 7;  // sum, sub mean, square, sum, mul rstd, mul γ, add β
        case NormKind::rmsnorm:
            return 4;  // square, sum, mul rstd, mul γ
        case NormKind::softmax:
            return 5;  // max, sub, exp, sum, div
    }
    return 0;
}

std::string_view norm_name(NormKind k) {
    switch (k) {
        case NormKind::layernorm:
            return "layernorm";
        case NormKind::rmsnorm:
            return "rmsnorm";
        case NormKind::softmax:
            return "softmax";
    }
    return "?";
}

Cost norm_cost(const NormDesc& d) {
    const Exact n = element_count(d.shape);
    const Exact dim(d.shape.back());
    const std::string shape = fmt::format("{}", fmt::join(d.shape, "·"));
    Cost c;
    c.op = std::string(norm_name(d.kind));
    c.unit = Unit::vector;
    c.compute_dtype = d.dtype;
    const std::uint64_t per = norm_flops_per_elem(d.kind);
    const Exact flops = n * Exact(per);
    c.terms.push_back(term("flops", fmt::format("elements · {}", per), fmt::format("{}·{}", n.value(), per), flops));
    Exact read = tensor_bytes(c.terms, "read x", "elements", shape, n, d.dtype);
    const std::uint64_t per_set = d.kind == NormKind::layernorm ? 2 : d.kind == NormKind::rmsnorm ? 1 : 0;
    const std::uint64_t params = per_set * d.parameter_sets;
    if (params > 0) {
        const std::string one = per_set == 2 ? "2·D (γ, β)" : "D (γ)";
        read += tensor_bytes(c.terms, "read parameters",
                             d.parameter_sets == 1 ? one : fmt::format("{} sets of {}", d.parameter_sets, one),
                             fmt::format("{}·{}", params, d.shape.back()), Exact(params) * dim, d.dtype);
    }
    const Exact written = tensor_bytes(c.terms, "write y", "elements", shape, n, d.dtype);
    c.flops = flops.value();
    c.bytes_read = read.value();
    c.bytes_written = written.value();
    c.launches = 1;
    return c;
}

}  // namespace bwacct
