// Which layers of a Hugging Face MoE model have a dense MLP, and Llama 4's chunked attention, as the
// reference implementations (transformers' modeling_<arch>.py) decide them per layer index. Mapping:
// docs/formulas.md ("Hugging Face config.json").
#pragma once
#include <cstdint>
#include <vector>

#include "bwacct/transformer.h"
#include "hf_reader.h"

namespace bwacct::hf {

// One entry per layer, true where the MLP is dense. Stored on `m` in its canonical form: a leading run of dense
// layers as dense_layers alone (DeepSeek's form), any other pattern as dense_pattern beside the count.
void set_dense_layers(MoeConfig& m, const std::vector<bool>& dense);

// Qwen2-MoE / Qwen3-MoE: layer i is sparse when i is not in `mlp_only_layers` and (i + 1) % decoder_sparse_step == 0.
std::vector<bool> qwen_moe_dense_layers(const Reader& r, std::uint64_t layers);
// DeepSeek-V2/V3: sparse when i >= first_k_dense_replace and i % moe_layer_freq == 0 (`with_freq`; GLM-4.5's
// Glm4MoeDecoderLayer reads first_k_dense_replace only); transformers 5's "mlp_layer_types" ("dense"/"sparse" per
// layer) decides when given; with `types_decide` (Glm4MoeLite) it decides alone, by default layer 0 dense.
std::vector<bool> first_k_dense_layers(const Reader& r, std::uint64_t layers, bool with_freq, bool types_decide = false);
// ERNIE 4.5 MoE (transformers' Ernie4_5_MoeDecoderLayer): sparse when (i + 1) % moe_layer_interval == 0 and
// moe_layer_start_index <= i <= moe_layer_end_index (−1 or absent: the last layer).
std::vector<bool> ernie_dense_layers(const Reader& r, std::uint64_t layers);
// Llama 4: sparse when i is in `moe_layers`, else (absent) when i % interleave_moe_layer_step == step − 1.
std::vector<bool> llama4_dense_layers(const Reader& r, std::uint64_t layers);

// Llama 4's attention: chunked local attention (attention_chunk_size) on the layers `layer_types` marks
// "chunked_attention", else those `no_rope_layers` marks 1 (default: all but every no_rope_layer_interval-th),
// modelled as a sliding window of one chunk (an upper bound, said in the limitations); the weightless L2 q/k norm
// and the NoPE layers' attention temperature are stated, not counted.
void read_llama4_attention(const Reader& r, TransformerConfig& c);

}  // namespace bwacct::hf
