// `bwacct model --phase generate` (a whole generation: prefill, then one decode step per output token)
// and `bwacct model --fit` (memory per GPU against the catalog's HBM capacity). Schemas "bwacct.generate/1"
// and "bwacct.fit/1"; every time is modelled (catalog peaks). Formulas: docs/formulas.md ("Whole
// generations", "Fit").
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

struct GenerateGpu {
    std::string gpu;
    double ttft_us = 0;    // the prefill of `prompt` tokens per sequence (it yields the first token)
    double decode_us = 0;  // Σ over the output − 1 decode steps, step i at context prompt + i
    double first_step_us = 0, last_step_us = 0;
    double total_us = 0;              // ttft + decode
    std::optional<double> tpot_us;    // decode / (output − 1); none when output = 1
    double tokens_per_s_per_seq = 0;  // output / total
    double tokens_per_s_per_gpu = 0;  // batch · output / total / tp
};

struct GenerateReport {
    std::string preset;
    TransformerConfig config;
    LayerRun run;  // the decode run (batch, tp, precision); context unused
    std::uint64_t prompt = 0, output = 0;
    std::vector<GenerateGpu> gpus;
    std::vector<std::string> notes;
};

// Throws InputError (bad sizes, a GPU without a needed peak). config.layers and config.vocab must be set.
GenerateReport build_generate_report(const std::string& preset, const TransformerConfig& config, const LayerRun& run,
                                     std::uint64_t prompt, std::uint64_t output, const std::vector<const GpuSpec*>& gpus,
                                     const AnalysisOptions& options);
void print_generate_report(const GenerateReport& report, Format format, std::FILE* out);

struct FitGpu {
    std::string gpu;
    std::optional<std::uint64_t> capacity_bytes;  // the catalog's HBM capacity; none: the entry lacks it
    std::uint64_t total_bytes = 0;                // the deciding stage's total at run.batch
    bool fits = false;
    std::uint64_t max_batch = 0;     // largest batch whose total fits on every stage (0: not even one sequence)
    std::size_t limiting_stage = 0;  // the stage whose largest batch is max_batch
};

// One pipeline stage's share on each of its GPUs (one stage when pp = 1).
struct FitStage {
    std::uint64_t first_layer = 0, layers = 0;  // layers first_layer … first_layer + layers − 1 (0-based)
    bool embedding = false, lm_head = false;    // the edges it holds (the last stage also the final norm)
    std::uint64_t weights = 0, kv_cache = 0, kv_per_seq = 0;
    std::uint64_t total = 0;  // weights + KV + activations + workspace at run.batch
};

struct FitReport {
    std::string preset;
    TransformerConfig config;
    LayerRun run;  // batch, context (the KV length), tp, ep, pp, precision
    std::vector<FitStage> stages;
    std::size_t stage = 0;  // the stage with the largest total at run.batch: the figures below are its
    std::uint64_t weights = 0, kv_cache = 0, activations = 0, workspace = 0;  // per GPU, at run.batch
    std::uint64_t kv_per_seq = 0, activations_per_seq = 0;                    // the per-sequence slopes
    std::vector<FitGpu> gpus;
    std::vector<std::string> assumptions;  // what the activation and workspace terms assume
    std::vector<std::string> notes;
};

// Memory per GPU of serving `run.batch` sequences of `run.context` tokens after TP, EP and PP sharding:
// weights (tp; routed experts over ep; layers over pp stages, embedding on the first, final norm and LM
// head on the last), KV cache of the stage's layers, activations at the prefill peak (one layer's forward
// tensors for batch · context tokens) and `workspace` bytes; the largest stage decides. The largest batch
// that fits each GPU's HBM capacity on every stage. Throws InputError naming --ep or --pp.
FitReport build_fit_report(const std::string& preset, const TransformerConfig& config, const LayerRun& run,
                           std::uint64_t workspace, const std::vector<const GpuSpec*>& gpus);
void print_fit_report(const FitReport& report, Format format, std::FILE* out);

}  // namespace bwacct
