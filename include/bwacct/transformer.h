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

#include "bwacct/dit_config.h"
#include "bwacct/ops.h"
#include "bwacct/quant.h"

namespace bwacct {

// The MLP: gated (SwiGLU: down(silu(gate(x)) · up(x)), Llama) or plain (down(gelu(up(x))), GPT).
enum class MlpKind { gated, plain };
std::string_view mlp_name(MlpKind k);
MlpKind parse_mlp(std::string_view s, const std::string& option);  // "gated" (also "swiglu"), "plain" (also "gelu")

// Mixture of experts (Mixtral, Qwen3-MoE, DeepSeek-V3): the MLP of a MoE layer is a router GEMM
// [T, D] × [D, E], the top-k routed experts of `expert_ffn` each, and `shared_experts` always-on
// experts (one gated MLP of shared_experts · expert_ffn). The first `dense_layers` layers keep a
// dense MLP of `ffn`. Formulas: docs/formulas.md ("Mixture of experts").
struct MoeConfig {
    std::uint64_t experts = 0;         // routed experts E
    std::uint64_t top_k = 0;           // experts per token k
    std::uint64_t expert_ffn = 0;      // intermediate size of one expert
    std::uint64_t shared_experts = 0;  // always-on experts (DeepSeek: n_shared_experts)
    std::uint64_t dense_layers = 0;    // layers with a dense MLP (DeepSeek: the first_k_dense_replace first ones)
    // Which layers those are when not the first `dense_layers`: one entry per layer, true where the MLP is dense
    // (Llama 4's interleaved MoE, Qwen-MoE's mlp_only_layers); empty: the first `dense_layers` layers. Its count of
    // true entries equals `dense_layers`. Totals depend on the counts only; pipeline stages and the report's layer
    // kinds (with sliding windows) on the positions.
    std::vector<bool> dense_pattern;
    bool router_bias = false;  // the router's per-expert score-correction bias (DeepSeek-V3 noaux_tc: E params)
};

// Multi-head latent attention (DeepSeek-V2/V3). Formulas: docs/formulas.md ("Multi-head latent attention").
struct MlaConfig {
    std::uint64_t q_lora_rank = 0;  // 0: Q projected directly from the hidden state
    std::uint64_t kv_lora_rank = 0;
    std::uint64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
};

// The architecture (a preset file, a Hugging Face config.json or the command line).
struct TransformerConfig {
    std::string name;    // "Llama 3 8B"; empty when given on the command line
    std::string source;  // where the numbers come from
    std::uint64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
    MlpKind mlp = MlpKind::gated;
    NormKind norm = NormKind::rmsnorm;
    bool tied_embeddings = false;   // the LM head reuses the embedding table
    bool gelu_gate = false;         // gated MLP with GELU (tanh) instead of SiLU: down(gelu(gate(x)) · up(x)), Gemma
    bool qk_norm = false;           // per-head RMSNorm of Q and K (Qwen3, Gemma 3): 2 · head_dim parameters per layer
    bool qkv_bias = false;          // bias on the Q, K, V projections (Qwen2): parameters only
    bool o_bias = false;            // bias on the output projection: parameters only
    bool mlp_bias = false;          // biases on the dense MLP's projections (LlamaMLP's mlp_bias): parameters only
    std::uint64_t block_norms = 2;  // norms per block: 2 (pre-norm), 4 (Gemma 2/3: pre and post each sub-block)
    std::optional<MoeConfig> moe;
    std::optional<MlaConfig> mla;
    // The checkpoint's weight storage (Hugging Face quantization_config); --weight-dtype overrides it.
    std::optional<StorageFormat> weight_format;
    // Parts of every block the checkpoint keeps out of weight_format, in its 16-bit dtype (quantization_config's module
    // lists: gpt-oss's "model.layers.*.self_attn", Kimi-K2.5's "re:.*self_attn.*"): their linear weights are stored in
    // `dtype` (the config's torch_dtype: bf16, or fp16), whatever the activations' (part_weight_format). --weight-dtype
    // overrides them too (weight_quantized).
    struct KeptParts {
        bool attention = false, dense_mlp = false, shared_experts = false;
        DType dtype = DType::bf16;
        bool operator==(const KeptParts&) const = default;
    };
    KeptParts kept;
    // Sliding-window attention: a local layer attends to at most `sliding_window` keys per query. Local layers:
    // every layer when `local_layers` is empty (Mistral), else those marked true (Gemma 2: every other layer,
    // Gemma 3: five of every six).
    std::uint64_t sliding_window = 0;  // 0: no window
    std::vector<bool> local_layers;
    std::optional<DitConfig> dit;          // a video diffusion transformer block (src/model/dit_block.cpp)
    std::vector<std::string> limitations;  // fields read but not modelled, said in every report
};

// The deepest model bwacct walks (reports go layer by layer; published models have a few hundred): a config's or
// --layers' count past it is refused (Hugging Face configs as they are read, before any per-layer table is built).
inline constexpr std::uint64_t kMaxLayers = 100000;

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
    std::uint64_t experts_touched = 0;  // MoE: distinct experts whose weights a step reads; 0 = the expectation
    // Mixed precision: `dtype` is the activations' type; the block's linear weights and the KV cache may be
    // stored otherwise (nullopt: in `dtype`, or the config's weight_format). docs/formulas.md ("Mixed precision").
    std::optional<StorageFormat> weight;
    std::optional<DType> kv;
    std::uint64_t window = 0;         // this layer's sliding window (0: full attention); set per layer kind by the report
    std::uint64_t ep = 1;             // MoE: expert-parallel ranks (src/model/expert_parallel.cpp)
    std::uint64_t pp = 1;             // pipeline stages (src/model/pipeline_parallel.cpp)
    std::uint64_t micro_batches = 1;  // with pp: micro-batches of `batch` sequences each per step
    DitRun dit;                       // a DiT model's diffusion run

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
// A MoE model's block has the MoE MLP unless `dense_mlp` (its first moe->dense_layers layers).
std::vector<LayerOp> transformer_layer_ops(const TransformerConfig& cfg, const LayerRun& run, bool dense_mlp = false);

// Layers of each kind: a dense model's layers are all dense.
std::uint64_t moe_layer_count(const TransformerConfig& cfg);
std::uint64_t dense_layer_count(const TransformerConfig& cfg);
// Whether layer `layer` (0-based) of a MoE model has a dense MLP: moe->dense_pattern when given, else
// layer < moe->dense_layers. True for every layer of a dense model.
bool is_dense_mlp_layer(const TransformerConfig& cfg, std::uint64_t layer);
// Expected distinct experts touched by T tokens each routed to k of E experts, uniformly and
// independently: E · (1 − (1 − k/E)^T).
double expected_experts_touched(std::uint64_t experts, std::uint64_t top_k, std::uint64_t tokens);
// The experts a step reads: run.experts_touched when given, else the expectation for run.tokens().
double experts_touched(const TransformerConfig& cfg, const LayerRun& run);
// KV heads one tensor-parallel rank holds: kv_heads/tp, or 1 when tp >= kv_heads (each KV head then
// replicated tp/kv_heads times, as vLLM's QKVParallelLinear and Megatron-LM do).
std::uint64_t kv_heads_per_rank(const TransformerConfig& cfg, std::uint64_t tp);
// KV-cache elements one token adds to one layer (per rank): 2 · kv_heads_per_rank · head_dim, or
// kv_lora_rank + qk_rope_head_dim under MLA (the latent, replicated on every TP rank).
std::uint64_t kv_elems_per_token(const TransformerConfig& cfg, std::uint64_t tp);
// The formats this run uses: the linear weights of the blocks (run.weight, else the config's checkpoint
// format, else run.dtype) and the KV cache (run.kv, else run.dtype). Embedding, LM head, norms and the
// MoE router stay in run.dtype (as quantised checkpoints keep them).
StorageFormat block_weight_format(const TransformerConfig& cfg, const LayerRun& run);
// Which linear weights of a block are stored in block_weight_format: all but the parts the checkpoint keeps in its 16-bit
// dtype (TransformerConfig::kept), unless --weight-dtype sets them all. Routed experts are always in it.
enum class WeightPart { attention, dense_mlp, shared_experts };
inline constexpr WeightPart kWeightParts[] = {WeightPart::attention, WeightPart::dense_mlp, WeightPart::shared_experts};
// Whether the checkpoint keeps `part` out of its weight format (TransformerConfig::kept).
bool kept_part(const TransformerConfig& cfg, WeightPart part);
bool weight_quantized(const TransformerConfig& cfg, const LayerRun& run, WeightPart part);
// The format of `part`'s linear weights: block_weight_format, or where the checkpoint keeps the part, its 16-bit dtype
// (kept.dtype; the activation dtype when that is 16-bit too: the same bytes, one math path).
StorageFormat part_weight_format(const TransformerConfig& cfg, const LayerRun& run, WeightPart part);
StorageFormat kv_cache_format(const TransformerConfig& cfg, const LayerRun& run);
// KV-cache bytes of `tokens` tokens in one layer on one rank, in the KV format.
Exact kv_bytes(const TransformerConfig& cfg, const LayerRun& run, Exact tokens);
// Keys a query of layer `layer` (0-based) attends to at KV length `context`: min(context, window) on a
// local sliding-window layer, else context.
std::uint64_t layer_context(const TransformerConfig& cfg, std::uint64_t layer, std::uint64_t context);
bool is_local_layer(const TransformerConfig& cfg, std::uint64_t layer);
// Weight bytes one rank holds, by part (exact per matrix, scales included), under tensor parallelism
// run.tp and expert parallelism run.ep: attention, dense MLPs and shared experts sharded by tp, a MoE
// layer's routed experts E/ep whole experts per rank when ep > 1 (else all E sharded by tp), q/k/v
// biases sharded with their heads, norms, the o bias and the router replicated, embedding and LM head
// vocab-parallel. docs/formulas.md ("Fit").
struct RankWeights {
    Exact dense_layer;  // one layer with a dense MLP
    Exact moe_layer;    // one MoE layer: attention, router, routed and shared experts, norms (0 without MoE)
    Exact routed;       // the routed experts' part of moe_layer
    Exact embedding;    // vocab/tp · D
    Exact lm_head;      // vocab/tp · D: the head's table (with tied embeddings only a stage without the embedding holds it)
    Exact final_norm;
};
RankWeights rank_weights(const TransformerConfig& cfg, const LayerRun& run);
// Weight bytes of the whole model on one rank (no pipeline split): layers + embedding + LM head (once when
// tied) + final norm.
Exact weight_bytes_per_rank(const TransformerConfig& cfg, const LayerRun& run);
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
    // Mixture of experts (0 for dense models): a MoE layer's MLP = router + routed + shared experts.
    Exact router;         // per MoE layer: experts · hidden (+ experts with the score-correction bias)
    Exact expert;         // one routed expert: 3 · hidden · expert_ffn
    Exact shared;         // per MoE layer: the shared experts, 3 · hidden · shared · expert_ffn
    Exact moe_mlp;        // per MoE layer: router + experts · expert + shared
    Exact moe_per_layer;  // attention + moe_mlp + norms
    std::uint64_t dense_layers = 0, moe_layers = 0;
    Exact active;    // parameters a token uses: total with top_k of the routed experts in each MoE layer
    Exact dit_vace;  // a DiT's VACE branch (context blocks, before/after projections, its patch embedding); 0 otherwise
};
ParamCount param_count(const TransformerConfig& cfg);

// Memory one layer holds on one rank (bytes). Formulas: docs/formulas.md ("Activation and KV memory").
struct LayerMemory {
    Exact kv_cache;                  // 2 · batch · context · kv_heads/tp · head_dim · size(dtype); 0 in training
    Exact activations;               // tensors kept for the backward pass, no checkpointing
    Exact activations_checkpointed;  // with full recomputation: the layer's input only
    Exact attention_scores;          // the B·H·S_q·S_k part of `activations` (naive attention only)
};
// dense_mlp: a MoE model's dense-first layer (its MLP is the dense --ffn one, no router or experts).
LayerMemory layer_memory(const TransformerConfig& cfg, const LayerRun& run, bool dense_mlp = false);

}  // namespace bwacct
