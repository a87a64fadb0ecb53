// A transformer block (and a whole decoder-only model) as a list of named ops, each costed by the
// engine's op models (gemm_cost, attention_cost, norm_cost, elementwise_cost, collective_cost).
// Pure functions: no I/O (src/model/transformer_layer.cpp). Formulas: docs/formulas.md
// ("Transformer layers and models").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/ops.h"

namespace bwacct {

// The MLP: gated (SwiGLU: down(silu(gate(x)) · up(x)), Llama) or plain (down(gelu(up(x))), GPT).
enum class MlpKind { gated, plain };
std::string_view mlp_name(MlpKind k);
MlpKind parse_mlp(std::string_view s, const std::string& option);  // "gated" (also "swiglu"), "plain" (also "gelu")

// The architecture (a preset file or the command line).
struct TransformerConfig {
    std::string name;    // "Llama 3 8B"; empty when given on the command line
    std::string source;  // where the numbers come from
    std::uint64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
    MlpKind mlp = MlpKind::gated;
    NormKind norm = NormKind::rmsnorm;
    bool tied_embeddings = false;  // the LM head reuses the embedding table
};

enum class Phase { prefill, decode, training };
std::string_view phase_name(Phase p);
Phase parse_phase(std::string_view s);  // throws InputError naming --phase

// What runs through the layer.
struct LayerRun {
    Phase phase = Phase::prefill;
    std::uint64_t batch = 1;         // sequences
    std::uint64_t seq = 0;           // prefill/training: new tokens per sequence (decode: 1)
    std::uint64_t context = 0;       // keys each query attends to: the KV length (decode: the cache, new token included)
    std::uint64_t tp = 1;            // tensor-parallel ranks (Megatron-style)
    bool sequence_parallel = false;  // reduce-scatter + all-gather instead of each all-reduce
    bool recompute = false;          // training: full activation recomputation (one more forward)
    DType dtype = DType::bf16;
    AttentionImpl attention = AttentionImpl::flash;

    std::uint64_t q_len() const { return phase == Phase::decode ? 1 : seq; }
    std::uint64_t tokens() const { return batch * q_len(); }  // rows of every activation
};

// Which part of the block an op belongs to, and for collectives which pass.
enum class OpPart { attention, mlp, norm, residual, tp_comm, embedding, head };
std::string_view op_part_name(OpPart p);

struct LayerOp {
    std::string name;  // "qkv_proj", "attention", "allreduce attn_out (fwd)", ...
    OpPart part = OpPart::attention;
    std::string detail;  // shape and pass in words: "[2160, 5120] × [5120, 7680], fwd+bwd"
    Cost cost;
};

// Throws InputError naming the offending option (--hidden, --heads, --kv-heads, --tp, ...).
void validate(const TransformerConfig& cfg, const LayerRun& run);
// head_dim when given, else hidden / heads.
std::uint64_t head_dim(const TransformerConfig& cfg);

// One transformer block on one tensor-parallel rank, in execution order. Training: each compute op's
// cost covers forward + backward (+ the recomputed forward); collectives get one op per pass.
std::vector<LayerOp> transformer_layer_ops(const TransformerConfig& cfg, const LayerRun& run);
// The ops outside the blocks: embedding lookup, final norm, LM head (and their TP collectives).
std::vector<LayerOp> model_edge_ops(const TransformerConfig& cfg, const LayerRun& run);

// Parameter counts from the config (whole model, not per rank).
struct ParamCount {
    Exact embedding;  // vocab · hidden
    Exact attention;  // per layer: hidden · (heads + 2·kv_heads) · head_dim + heads · head_dim · hidden
    Exact mlp;        // per layer: 3 · hidden · ffn (gated) or 2 · hidden · ffn (plain)
    Exact norms;      // per layer: 2 · hidden (γ of the two norms; layernorm adds β: 4 · hidden)
    Exact per_layer;  // attention + mlp + norms
    Exact final_norm;
    Exact lm_head;  // vocab · hidden, 0 when tied
    Exact total;
};
ParamCount param_count(const TransformerConfig& cfg);

// Memory one layer holds on one rank (bytes). Formulas: docs/formulas.md ("Activation and KV memory").
struct LayerMemory {
    Exact kv_cache;                  // 2 · batch · context · kv_heads/tp · head_dim · size(dtype); 0 in training
    Exact activations;               // tensors kept for the backward pass, no checkpointing
    Exact activations_checkpointed;  // with full recomputation: the layer's input only
    Exact attention_scores;          // the B·H·S_q·S_k part of `activations` (naive attention only)
};
LayerMemory layer_memory(const TransformerConfig& cfg, const LayerRun& run);

}  // namespace bwacct
