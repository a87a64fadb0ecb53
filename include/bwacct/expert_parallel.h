// Expert parallelism (`--ep N`) for a mixture-of-experts layer: the routed experts are split over N
// ranks (E/N whole experts each), every rank dispatches its tokens' rows to the experts' ranks with an
// all-to-all and gets the outputs back with a second one (combine). Pure (src/model/expert_parallel.cpp).
// Formulas: docs/formulas.md ("Expert parallelism").
#pragma once
#include <cstdint>

#include "bwacct/transformer.h"

namespace bwacct {

struct ExpertParallel {
    std::uint64_t ranks = 1;            // N
    std::uint64_t tokens_per_rank = 0;  // T_r: tokens / tp (each TP rank dispatches a disjoint share), or tokens
    std::uint64_t local_experts = 0;    // E / N
    std::uint64_t rows_per_rank = 0;    // T_r · k: expected rows each rank's experts receive (uniform routing)
    double touched_per_rank = 0;        // distinct local experts whose weights a step reads
    std::uint64_t a2a_bytes = 0;        // each rank's all-to-all send buffer: T_r · k · D · b (nccl-tests size)
    std::uint64_t wire_bytes = 0;       // sent by each rank per all-to-all, one direction: (N − 1)/N · T_r · k · D · b
};

// Throws InputError naming --ep when `ep` ranks cannot split the routed experts (0, no MoE, E % ep != 0).
void validate_ep_split(const TransformerConfig& cfg, std::uint64_t ep);
// Throws InputError naming --ep (or --tokens) when the run cannot be expert-parallel.
void validate_ep(const TransformerConfig& cfg, const LayerRun& run);
// The split for a MoE layer (run.ep > 1).
ExpertParallel expert_parallel(const TransformerConfig& cfg, const LayerRun& run);
// Bytes of the routed experts' weights one rank holds over the model, in the block weight format:
// moe_layers · E/N experts (all E per layer when ep = 1, sharded by tp then).
Exact routed_expert_bytes_per_rank(const TransformerConfig& cfg, const LayerRun& run);

}  // namespace bwacct
