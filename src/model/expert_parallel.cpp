// Expert parallelism: which tokens a rank dispatches, how many experts it holds and reads, and the
// all-to-all bytes of the dispatch and the combine. docs/formulas.md ("Expert parallelism").
#include "bwacct/expert_parallel.h"

#include <fmt/format.h>

#include <cmath>

#include "bwacct/dtype.h"
#include "bwacct/error.h"

namespace bwacct {

void validate_ep_split(const TransformerConfig& cfg, std::uint64_t ep) {
    if (ep == 0)
        throw InputError("--ep", "must be a positive integer (expert-parallel ranks)");
    if (ep == 1)
        return;
    if (!cfg.moe)
        throw InputError("--ep", "applies to mixture-of-experts models only (this one has no routed experts)");
    if (cfg.moe->experts % ep != 0)
        throw InputError("--ep", fmt::format("must divide the routed experts ({} % {} != 0)", cfg.moe->experts, ep));
}

void validate_ep(const TransformerConfig& cfg, const LayerRun& run) {
    validate_ep_split(cfg, run.ep);
    if (run.ep == 1)
        return;
    if (run.sequence_parallel)
        throw InputError("--ep", "is not modelled together with --sequence-parallel; leave one out");
    if (run.tokens() % run.tp != 0)
        throw InputError("--ep", fmt::format("with --tp {} each TP rank dispatches a disjoint share of the tokens: the tokens "
                                             "({}) must divide by --tp",
                                             run.tp, run.tokens()));
    const ExpertParallel e = expert_parallel(cfg, run);
    if (e.a2a_bytes % run.ep != 0)
        throw InputError("--ep",
                         fmt::format("the all-to-all buffer ({} B) must split into {} equal chunks", e.a2a_bytes, run.ep));
    if (run.experts_touched != 0 && run.experts_touched > e.local_experts)
        throw InputError(
            "--experts-touched",
            fmt::format("with --ep {} counts the experts of one rank: at most {} (experts / ep)", run.ep, e.local_experts));
}

ExpertParallel expert_parallel(const TransformerConfig& cfg, const LayerRun& run) {
    ExpertParallel e;
    if (!cfg.moe)
        return e;
    const MoeConfig& m = *cfg.moe;
    e.ranks = run.ep;
    e.tokens_per_rank = run.tokens() / run.tp;
    e.local_experts = m.experts / run.ep;
    e.rows_per_rank = (Exact(e.tokens_per_rank) * Exact(m.top_k)).value();
    // The EP group routes N · T_r tokens; each local expert is one of E, touched with probability
    // 1 − (1 − k/E)^(N·T_r) under uniform independent routing.
    if (run.experts_touched != 0) {
        e.touched_per_rank = static_cast<double>(run.experts_touched);
    } else {
        const double p_untouched = std::pow(1 - static_cast<double>(m.top_k) / static_cast<double>(m.experts),
                                            static_cast<double>(run.ep) * static_cast<double>(e.tokens_per_rank));
        e.touched_per_rank = static_cast<double>(e.local_experts) * (1 - p_untouched);
    }
    e.a2a_bytes = storage_bytes(run.dtype, Exact(e.rows_per_rank) * Exact(cfg.hidden)).value();
    e.wire_bytes = (Exact(run.ep - 1) * (Exact(e.a2a_bytes) / Exact(run.ep))).value();
    return e;
}

Exact routed_expert_bytes_per_rank(const TransformerConfig& cfg, const LayerRun& run) {
    if (!cfg.moe)
        return Exact(0);
    return Exact(moe_layer_count(cfg)) * rank_weights(cfg, run).routed;
}

}  // namespace bwacct
