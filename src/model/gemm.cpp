// GEMM cost: FLOPs = 2·M·N·K per pass; bytes = each operand read once, result written once.
// Backward passes follow seed 004 section 2 (linear layer with M = tokens, K = D_in, N = D_out).
#include <fmt/format.h>

#include <array>

#include "bwacct/choice.h"
#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "math_path.h"
#include "pass_set.h"
#include "tensor_bytes.h"
#include "term.h"

namespace bwacct {
namespace {

using detail::tensor_bytes;
using detail::term;

void require_positive(std::uint64_t v, const char* option) {
    if (v == 0)
        throw InputError(option, "must be a positive integer");
}

using detail::passes;
using detail::PassSet;

}  // namespace

namespace {
constexpr std::array<Choice<GemmPass>, 5> kPasses{{{"fwd", GemmPass::fwd},
                                                   {"bwd", GemmPass::bwd},
                                                   {"fwd+bwd", GemmPass::fwd_bwd},
                                                   {"bwd-data", GemmPass::bwd_data},
                                                   {"bwd-weight", GemmPass::bwd_weight}}};
}  // namespace

GemmPass parse_gemm_pass(std::string_view s) { return parse_choice(s, "--pass", "pass", kPasses); }
std::string_view gemm_pass_name(GemmPass p) { return choice_name(p, kPasses); }

Cost gemm_cost(const GemmDesc& d) {
    require_positive(d.m, "--m");
    require_positive(d.n, "--n");
    require_positive(d.k, "--k");
    require_positive(d.batch, "--batch");
    detail::require_common_math_path(d.a, d.b, "--dtype-b", "A and B");

    Cost c;
    c.op = "gemm";
    c.compute_dtype = d.a;
    c.unit = matmul_unit(d.a);

    const Exact m(d.m), n(d.n), k(d.k), batch(d.batch);
    const Exact mk = batch * m * k, kn = batch * k * n, mn = batch * m * n;
    const PassSet ps = passes(d.pass);

    Exact flops = Exact(2) * batch * m * n * k * Exact(ps.count());
    c.terms.push_back(
        term("flops", "2·batch·M·N·K · passes", fmt::format("2·{}·{}·{}·{} · {}", d.batch, d.m, d.n, d.k, ps.count()), flops));
    Exact read, written;
    auto bytes = [&](const char* name, const char* formula, std::uint64_t x, std::uint64_t y, Exact elems, DType t) {
        return tensor_bytes(c.terms, name, formula, fmt::format("{}·{}·{}", d.batch, x, y), elems, t);
    };
    if (ps.fwd) {
        read += bytes("fwd read A", "batch·M·K", d.m, d.k, mk, d.a);
        read += bytes("fwd read B", "batch·K·N", d.k, d.n, kn, d.b);
        if (d.bias)
            read += bytes("fwd read bias", "batch·1·N", 1, d.n, batch * n, d.c);
        written += bytes("fwd write C", "batch·M·N", d.m, d.n, mn, d.c);
    }
    if (ps.bwd_data) {
        read += bytes("bwd-data read dC", "batch·M·N", d.m, d.n, mn, d.c);
        read += bytes("bwd-data read B", "batch·K·N", d.k, d.n, kn, d.b);
        written += bytes("bwd-data write dA", "batch·M·K", d.m, d.k, mk, d.a);
    }
    if (ps.bwd_weight) {
        read += bytes("bwd-weight read A", "batch·M·K", d.m, d.k, mk, d.a);
        read += bytes("bwd-weight read dC", "batch·M·N", d.m, d.n, mn, d.c);
        written += bytes("bwd-weight write dB", "batch·K·N", d.k, d.n, kn, d.b);
        if (d.bias)
            written += bytes("bwd-weight write dbias", "batch·1·N", 1, d.n, batch * n, d.c);
    }
    c.flops = flops.value();
    c.bytes_read = read.value();
    c.bytes_written = written.value();
    c.launches = ps.count();
    return c;
}

}  // namespace bwacct
