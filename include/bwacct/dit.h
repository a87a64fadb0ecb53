// A video diffusion transformer (Wan2.1's WanModel) as ops: the DiT block (adaLN modulation,
// bidirectional self-attention with q/k RMSNorm and RoPE, cross-attention to the text, GELU-tanh
// MLP) and the ops outside the blocks (3D-conv patch embedding, text and timestep embeddings, head).
// Pure functions (src/model/dit_block.cpp). Formulas: docs/formulas.md ("Video diffusion
// transformers (DiT)").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/transformer.h"

namespace bwacct {

// Throws InputError naming the option (--phase, --tp, --text-tokens, ...) when the run does not fit a DiT.
void validate_dit(const TransformerConfig& cfg, const LayerRun& run);
// Keys of the cross-attention: --text-tokens, else the config's text_len.
std::uint64_t dit_text_tokens(const TransformerConfig& cfg, const LayerRun& run);
// Forwards per denoising step: 2 with classifier-free guidance (conditional and unconditional), else 1.
std::uint64_t dit_forwards_per_step(const LayerRun& run);
// The kinds of DiT block a forward runs. VACE (VaceWanModel): `vace` context blocks (a main block's ops + after_proj),
// and the main blocks that add a hint (`hinted`: + x + hint · scale); all other blocks are `main`.
enum class DitBlock { main, hinted, vace };
// How many blocks of that kind one forward runs (main: layers − hinted).
std::uint64_t dit_block_count(const TransformerConfig& cfg, DitBlock kind);
// One DiT block on one tensor-parallel rank, in execution order (inference).
std::vector<LayerOp> dit_block_ops(const TransformerConfig& cfg, const LayerRun& run, DitBlock kind = DitBlock::main);
// Once per forward: patch embedding (the conv op), text embedding, the image embedding (i2v, flf2v) and the
// context concatenation, timestep embedding and projection, VACE's patch embedding, before_proj and hint stacking,
// head. Replicated on every TP rank.
std::vector<LayerOp> dit_edge_ops(const TransformerConfig& cfg, const LayerRun& run);
// Parameters term by term (ParamCount's fields: embedding = patch + text + time embeddings;
// attention = self + cross (+ k_img, v_img, norm_k_img); norms = norm3 + the block's modulation table; lm_head =
// the head; dit_vace = VACE's context blocks, their before/after projections and vace_patch_embedding).
ParamCount dit_param_count(const TransformerConfig& cfg);
// Weight bytes one tensor-parallel rank holds, each block parameter sharded as the block's ops shard it (q, k, v,
// k_img, v_img and the MLP's first linear column-parallel with their biases; o, cross o and the MLP's second linear
// row-parallel, their biases replicated; norm_q, norm_k, norm_k_img split by head; norm3 and the modulation table
// replicated); the embeddings and the head replicated, as the ops outside the blocks run on every rank
// (src/model/dit_weights.cpp). dense_layer = one block; moe_layer and routed 0.
RankWeights dit_rank_weights(const TransformerConfig& cfg, const LayerRun& run);
// The whole model on one rank: blocks + embeddings + head (+ VACE's context blocks as blocks, its projections and
// patch embedding replicated).
Exact dit_weight_bytes_per_rank(const TransformerConfig& cfg, const LayerRun& run);
// KV cache: the self-attention keys beyond this chunk's tokens (a rolling cache, --context > --tokens),
// else 0; activations: 0 (inference only).
LayerMemory dit_layer_memory(const TransformerConfig& cfg, const LayerRun& run);

}  // namespace bwacct

namespace bwacct {

// WanModel's own config.json (diffusers ConfigMixin, "_class_name": "WanModel") → a DiT config.
// Fields WanModel's constructor leaves out of the file (patch_size, text_dim, qk_norm,
// cross_attn_norm, window_size) take its defaults; a field that changes the arithmetic and is not
// modelled (a local window; qk_norm false) is an InputError naming it.
// model_type i2v, which Wan2.1 (CLIP image cross-attention) and Wan2.2 (none) share with different networks:
// `i2v` says whose it is (--wan-i2v 2.1 or 2.2; unstated: refused, naming --wan-i2v).
TransformerConfig parse_wan_config(std::string_view json_text, const std::string& origin, WanI2v i2v = WanI2v::unstated);
// The refusal of a DiT config.json's "quantization_config" (`method`: its quant_method, "" when it names none): a
// quantized DiT is not modelled (its weights are counted in --dtype), so it is named as such, not as a foreign key.
std::string dit_quantization_refusal(const std::string& class_name, const std::string& method);
// The "dit" object of a bwacct preset: the same keys as WanModel's config (in_dim, out_dim,
// patch_size, text_dim, freq_dim, text_len, cross_attn_norm), each optional.
DitConfig parse_dit_object(std::string_view json_text, const std::string& origin);

}  // namespace bwacct
