// Pipeline parallelism (`--pp N`, `--micro-batches M`): the layers split into N consecutive stages,
// each micro-batch's activations sent from stage to stage over the link, and the pipeline bubble of
// GPipe / 1F1B schedules. Pure (src/model/pipeline_parallel.cpp). Formulas: docs/formulas.md
// ("Pipeline parallelism").
#pragma once
#include <cstdint>
#include <vector>

#include "bwacct/transformer.h"

namespace bwacct {

// The layers of one stage: the model's layers in order, as evenly as possible (the first L mod N
// stages one more); the first stage also runs the embedding, the last the final norm and head.
struct StageLayers {
    std::uint64_t dense = 0, moe = 0;  // layers of each kind (a dense model's are all dense)
    bool first = false, last = false;
};
std::vector<StageLayers> pipeline_stages(const TransformerConfig& cfg, std::uint64_t pp);

// Throws InputError naming --pp or --micro-batches.
void validate_pp(const TransformerConfig& cfg, const LayerRun& run);
// Bytes one micro-batch sends across one stage boundary, per pass: the [T, D] hidden state in the
// activation dtype (a DiT's stages each compute the text context and timestep rows from the given inputs).
Exact stage_send_bytes(const TransformerConfig& cfg, const LayerRun& run);
// The stage an op outside the layers runs on: the embedding (and its collective) on the first, the final
// norm and head on the last; a DiT's patch embedding on the first, its text and timestep embeddings on every
// stage, its head on the last.
enum class EdgeStage { first, every, last };
EdgeStage edge_op_stage(const TransformerConfig& cfg, const LayerOp& op);
// The point-to-point op of one boundary (a sendrecv of stage_send_bytes; training: one per pass).
std::vector<LayerOp> stage_sendrecv_ops(const TransformerConfig& cfg, const LayerRun& run);
// Idle fraction of a GPipe or 1F1B step: (N − 1)/(M + N − 1).
double pipeline_bubble_fraction(std::uint64_t pp, std::uint64_t micro_batches);

}  // namespace bwacct
