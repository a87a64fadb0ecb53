// Seed 004 §4 (data-parallel gradient all-reduce) and §8 (gradient accumulation, ZeRO stages 1–3):
// the collectives each scheme issues per optimizer step, each costed with collective_cost (nccl-tests
// conventions), and the bytes each GPU sends. Formulas: docs/formulas.md ("Data parallel and ZeRO").
#include <fmt/format.h>

#include "bwacct/error.h"
#include "bwacct/workload_train.h"

namespace bwacct {

namespace {

// Rounds `bytes` up to a multiple of `unit` (frameworks pad flat buffers so every rank's shard is
// the same whole number of elements).
Exact pad_to(Exact bytes, Exact unit) { return ceil_div(bytes, unit) * unit; }

ZeroCollective make(std::string what, CollectiveKind kind, Exact bytes, DType dtype, const ZeroDesc& d, Exact per_step) {
    const Exact elem(std::max<unsigned>(dtype_bits(dtype) / 8, 1u));
    const Exact unit = kind == CollectiveKind::allreduce ? elem : elem * Exact(d.ranks);
    const Exact padded = pad_to(bytes, unit);
    CollectiveDesc cd;
    cd.kind = kind;
    cd.algo = d.algo;
    cd.size_bytes = padded.value();
    cd.ranks = d.ranks;
    cd.dtype = dtype;
    ZeroCollective c;
    c.what = std::move(what);
    c.cost = collective_cost(cd);
    c.per_step = per_step.value();
    c.padded_bytes = (padded - bytes).value();
    return c;
}

void total(ZeroPlan& p, const ZeroDesc& d) {
    Exact with, without;
    for (const ZeroCollective& c : p.collectives) {
        const Exact once(c.cost.collective->wire_bytes_per_rank);
        with += once * Exact(c.per_step);
        // Without accumulation every micro-batch synchronises: collectives issued once per step
        // only because of accumulation (the gradient all-reduce) would run `accum` times.
        const bool accumulated = c.cost.collective->kind == CollectiveKind::allreduce;
        without += once * Exact(c.per_step) * (accumulated ? Exact(d.accum) : Exact(1));
    }
    p.wire_bytes_per_gpu = with.value();
    p.wire_bytes_without_accum = without.value();
}

}  // namespace

std::string_view dp_scheme_name(DpScheme s) {
    switch (s) {
        case DpScheme::dp:
            return "dp";
        case DpScheme::zero1:
            return "zero1";
        case DpScheme::zero2:
            return "zero2";
        case DpScheme::zero3:
            return "zero3";
    }
    return "?";
}

std::vector<ZeroPlan> zero_plans(const ZeroDesc& d) {
    if (d.model_bytes == 0)
        throw InputError("--params", "the model size must be positive (give --params or --model-bytes)");
    if (d.ranks < 2)
        throw InputError("--ranks", "data parallelism needs at least 2 GPUs");
    if (d.layers == 0)
        throw InputError("--layers", "must be a positive count");
    if (d.accum == 0)
        throw InputError("--accum", "must be a positive count (1 = no gradient accumulation)");
    if (d.zero3_gathers == 0)
        throw InputError("--zero3-gathers", "must be 1 (gather once, keep for backward) or 2 (forward and backward)");
    if (d.algo == CollectiveAlgo::tree)
        throw InputError("--algo", "ZeRO's all-gathers and reduce-scatters have no tree algorithm; use ring or nvls");
    try {
        const Exact m(d.model_bytes), a(d.accum), l(d.layers);
        std::vector<ZeroPlan> out;

        ZeroPlan dp;
        dp.scheme = DpScheme::dp;
        dp.formula = "2(N−1)/N·M";
        dp.collectives.push_back(make("all-reduce gradients", CollectiveKind::allreduce, m, d.dtype, d, 1));
        total(dp, d);
        out.push_back(std::move(dp));

        ZeroPlan z1;
        z1.scheme = DpScheme::zero1;
        z1.formula = "2(N−1)/N·M + (N−1)/N·O";
        z1.collectives.push_back(make("all-reduce gradients", CollectiveKind::allreduce, m, d.dtype, d, 1));
        if (d.optimizer_bytes > 0)
            z1.collectives.push_back(
                make("all-gather optimizer state", CollectiveKind::allgather, Exact(d.optimizer_bytes), DType::fp32, d, 1));
        total(z1, d);
        out.push_back(std::move(z1));

        ZeroPlan z2;
        z2.scheme = DpScheme::zero2;
        z2.formula = "A·(N−1)/N·M";
        z2.collectives.push_back(make("reduce-scatter gradients", CollectiveKind::reducescatter, m, d.dtype, d, a));
        total(z2, d);
        out.push_back(std::move(z2));

        ZeroPlan z3;
        z3.scheme = DpScheme::zero3;
        z3.formula = "A·(g·L·(N−1)/N·M/L + (N−1)/N·M)";
        z3.collectives.push_back(make("all-gather parameters (one layer)", CollectiveKind::allgather, ceil_div(m, l), d.dtype, d,
                                      a * l * Exact(d.zero3_gathers)));
        z3.collectives.push_back(make("reduce-scatter gradients", CollectiveKind::reducescatter, m, d.dtype, d, a));
        total(z3, d);
        out.push_back(std::move(z3));
        return out;
    } catch (const OverflowError&) {
        throw InputError("--params, --model-bytes, --accum", "the byte count overflows 64 bits; use smaller sizes");
    }
}

}  // namespace bwacct
