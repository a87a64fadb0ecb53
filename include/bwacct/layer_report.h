// `bwacct layer` and `bwacct model`: every op of a transformer block analyzed on every selected GPU,
// then totals (floor per layer and per model, tokens/s, share of time per roof) and memory.
// Schema "bwacct.layer/1"; every number is modelled (catalog peaks, no measurement).
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/gpu.h"
#include "bwacct/report.h"
#include "bwacct/roofline.h"
#include "bwacct/transformer.h"

namespace bwacct {

struct OpResult {
    LayerOp op;
    std::vector<Verdict> verdicts;  // one per GPU, in the report's GPU order
};

// Sums over ops that run one after another: each op takes its floor (its largest roof).
struct SpanTotals {
    double floor_us = 0;      // Σ per-op floors
    RoofTimes roof_sums_us;   // Σ of each roof over the ops (the time if that roof alone bound every op)
    RoofTimes bound_us;       // Σ of the floors of the ops bound by each roof
    RoofTimes share;          // bound_us / floor_us
    Roof bound = Roof::hbm;   // the roof with the largest share
    double tokens_per_s = 0;  // tokens of one step / floor
};

// A diffusion transformer's run (`model` only): forward = the model floor; step = forwards per step ×
// forward (2 with --cfg); chunk = steps × step; FPS = frames per chunk / chunk.
struct DitTiming {
    std::uint64_t forwards_per_step = 1, steps = 1, frames_per_chunk = 0;
    double forward_us = 0, step_us = 0, chunk_us = 0;
    std::optional<double> fps;  // with --frames-per-chunk
};

// Pipeline parallelism (--pp N, --micro-batches M): each time slot takes the slowest stage plus its
// send; a step takes M + N − 1 slots (GPipe and 1F1B alike), of which N − 1 are the bubble.
struct PipelineTiming {
    std::uint64_t stages = 1, micro_batches = 1, send_bytes = 0;
    double slowest_stage_us = 0;  // Σ op floors of the slowest stage, one micro-batch
    double send_us = 0;           // the stage-to-stage sendrecv floors, one micro-batch
    double slot_us = 0;           // slowest stage + send
    double step_us = 0;           // (M + N − 1) · slot
    double bubble_fraction = 0;   // (N − 1)/(M + N − 1)
    double tokens_per_s = 0;      // M · tokens per micro-batch / step
};

struct GpuTotals {
    std::string gpu;
    std::optional<DitTiming> dit;
    std::optional<PipelineTiming> pipeline;
    SpanTotals layer;
    std::optional<SpanTotals>
        model;  // MoE layers × layer + dense layers × dense layer (+ embedding, final norm, LM head for `model`)
};

struct LayerReport {
    std::string command;  // "layer" or "model"
    std::string preset;   // the --preset id, empty when none
    TransformerConfig config;
    LayerRun run;
    std::vector<OpResult> layer_ops;        // the repeated block (a MoE model: its MoE layer)
    std::vector<OpResult> dense_layer_ops;  // a MoE model's dense-first layers (DeepSeek), else empty
    std::vector<OpResult> edge_ops;         // `model` only
    // Every kind of layer the model has (MoE or dense-first × sliding-window or full attention), with how many
    // layers are of it: the model floor sums count × each kind's floor. The kinds beyond layer_ops and
    // dense_layer_ops (sliding-window variants) are listed in JSON with scope "layer (window W)" etc.
    struct LayerKind {
        bool dense = false;
        std::uint64_t window = 0;  // effective: 0 when the window does not cap this context
        std::uint64_t count = 0;
        std::vector<OpResult> ops;
        std::string block;  // a DiT's VACE block kinds: "vace context block", "block with a VACE hint"; empty otherwise
    };
    std::vector<LayerKind> kinds;
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t layer_kind = 0, dense_kind = kNone;  // the kinds layer_ops and dense_layer_ops show
    Exact model_kv_cache;          // Σ over layers of each layer's KV cache (windowed layers hold min(context, window) tokens)
    Exact model_activations;       // Σ over layers of each layer's activations (dense-first layers at their dense MLP)
    Exact peak_layer_activations;  // the largest layer's activations (one layer's working set under checkpointing)
    std::vector<OpResult> pipeline_ops;  // --pp: the stage-to-stage sends of one micro-batch
    std::vector<GpuTotals> totals;
    LayerMemory memory;
    std::optional<ParamCount> params;  // when the config has a vocabulary
    std::vector<std::string> notes;
    Efficiency efficiency;  // --efficiency factors the roofs were scaled by
};

// Analyzes every op on every GPU. `whole_model` adds the embedding, final norm and LM head and needs
// config.layers and config.vocab. Throws InputError (bad config, a GPU without a needed peak or link).
LayerReport build_layer_report(const std::string& command, const std::string& preset, const TransformerConfig& config,
                               const LayerRun& run, bool whole_model, const std::vector<const GpuSpec*>& gpus,
                               const AnalysisOptions& options);

// Table (for people) or JSON (schema "bwacct.layer/1"); other formats throw InputError naming --format.
void print_layer_report(const LayerReport& report, Format format, std::FILE* out);

// The model floor (µs) of one step per GPU, in the report's GPU order: Σ over layer kinds of count × the
// kind's floor + the edge ops. Used by --phase generate for every step.
std::vector<double> model_floor_us(const TransformerConfig& config, const LayerRun& run, const std::vector<const GpuSpec*>& gpus,
                                   const AnalysisOptions& options);

}  // namespace bwacct
