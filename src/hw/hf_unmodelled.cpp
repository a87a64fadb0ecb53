// Known model classes and layer kinds bwacct refuses, each with the field that decides it and the reason
// (docs/formulas.md, "Hugging Face config.json").
#include "hf_unmodelled.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <string_view>
#include <vector>

namespace bwacct::hf {
namespace {

struct Unmodelled {
    const char* cls;    // "architectures" entry or diffusers "_class_name"
    const char* field;  // the config field that shows what the engine lacks
    const char* why;
};

constexpr std::array<Unmodelled, 45> kUnmodelled{{
    // Hybrid stacks: most layers keep a recurrent state instead of a KV cache and cost linear in the context.
    {"Qwen3NextForCausalLM", "full_attention_interval",
     "Gated DeltaNet linear-attention layers (all but every full_attention_interval-th) keep a recurrent state, not a "
     "KV cache"},
    {"Qwen3_5ForCausalLM", "layer_types", "Gated DeltaNet linear-attention layers keep a recurrent state, not a KV cache"},
    {"Qwen3_5MoeForCausalLM", "layer_types", "Gated DeltaNet linear-attention layers keep a recurrent state, not a KV cache"},
    {"KimiLinearForCausalLM", "linear_attn_config",
     "Kimi Delta Attention layers (kda_layers) keep a recurrent state, not a KV cache"},
    {"JambaForCausalLM", "attn_layer_period", "Mamba layers (all but every attn_layer_period-th) are state-space layers"},
    {"MambaForCausalLM", "state_size", "every layer is a Mamba state-space layer"},
    {"Mamba2ForCausalLM", "state_size", "every layer is a Mamba-2 state-space layer"},
    {"FalconH1ForCausalLM", "mamba_d_ssm", "every layer runs Mamba-2 state-space heads beside attention"},
    {"NemotronHForCausalLM", "hybrid_override_pattern", "the \"M\" layers are Mamba-2 state-space layers"},
    {"Zamba2ForCausalLM", "layers_block_type", "the \"mamba\" layers are Mamba-2 state-space layers"},
    {"MiniMaxText01ForCausalLM", "attn_type_list", "lightning (linear) attention layers (0 entries) keep a recurrent state"},
    {"MiniMaxM1ForCausalLM", "attn_type_list", "lightning (linear) attention layers (0 entries) keep a recurrent state"},
    // Sparse attention: each query attends to index_topk keys an indexer picks, at an indexer cost over all keys.
    {"DeepseekV32ForCausalLM", "index_topk",
     "DeepSeek Sparse Attention: each query attends to the index_topk keys its lightning indexer selects (the indexer "
     "scores every key)"},
    // DeepSeek-V4 (inference/model.py of deepseek-ai/DeepSeek-V4-*): per-layer KV compression by compress_ratios (a
    // compressor beside the attention, an indexer on the 4× layers), attention with one KV head and grouped low-rank
    // output (o_groups, o_lora_rank), hyper-connections (hc_mult streams) and hash-routed first layers.
    {"DeepseekV4ForCausalLM", "compress_ratios",
     "compressed sparse attention: each layer's KV cache compressed by its compress_ratios entry, an indexer picking "
     "index_topk compressed entries, grouped low-rank output projections (o_lora_rank), hyper-connections (hc_mult) and "
     "hash-routed first MoE layers (num_hash_layers)"},
    {"GlmMoeDsaForCausalLM", "index_topk",
     "DeepSeek Sparse Attention: each query attends to the index_topk keys its lightning indexer selects (the indexer "
     "scores every key)"},
    // Blocks the engine's (one pre-norm attention, then one pre-norm gated MLP, bias-free MLP) does not describe.
    {"GPTNeoXForCausalLM", "use_parallel_residual",
     "attention and MLP side by side, each from its own LayerNorm, and a plain GELU MLP with biases"},
    {"FalconForCausalLM", "parallel_attn", "attention and a plain GELU MLP side by side from shared LayerNorms"},
    {"Starcoder2ForCausalLM", "use_bias", "a plain GELU MLP (c_fc, c_proj) with biases on every projection"},
    {"HunYuanMoEV1ForCausalLM", "moe_intermediate_size",
     "per-layer lists of expert sizes, top-k and shared experts (moe_intermediate_size, moe_topk, num_shared_expert) "
     "that differ by layer, cross-layer KV sharing (use_cla), MLA (use_mla) or skipped MoE layers (read when every list "
     "holds one value and none of these is on)"},
    {"Gemma3nForConditionalGeneration", "altup_num_inputs",
     "AltUp's parallel streams, LAuReL low-rank residuals, per-layer embeddings and KV sharing across layers"},
    {"Gemma3nForCausalLM", "altup_num_inputs",
     "AltUp's parallel streams, LAuReL low-rank residuals, per-layer embeddings and KV sharing across layers"},
    // Command-R, Aya: CohereDecoderLayer adds attention and the gated MLP side by side, both from one LayerNorm.
    {"CohereForCausalLM", "logit_scale",
     "a parallel block: attention and the gated MLP side by side from one LayerNorm (CohereDecoderLayer), and logits "
     "scaled by logit_scale"},
    {"Cohere2ForCausalLM", "logit_scale",
     "a parallel block: attention and the gated MLP side by side from one LayerNorm (Cohere2DecoderLayer), and logits "
     "scaled by logit_scale"},
    {"NemotronForCausalLM", "hidden_act",
     "a plain (not gated) squared-ReLU MLP (up_proj, down_proj) and LayerNorm1P norms with bias"},
    // DeciLMForCausalLM names two remote-code models: Nemotron-NAS (block_configs) and Deci's DeciLM-7B
    // (num_key_value_heads_per_layer, no block_configs); the refusal names the field the file has.
    {"DeciLMForCausalLM", "block_configs",
     "per-layer block shapes (Nemotron-NAS): layers without attention or with a linear in its place, and per-layer FFN "
     "sizes (ffn_mult)"},
    {"DeciLMForCausalLM", "num_key_value_heads_per_layer",
     "a different number of key/value heads on each layer (DeciLM-7B's variable grouped-query attention)"},
    {"MiniCPMForCausalLM", "scale_depth",
     "muP scales of the embeddings, each residual branch and the logits (scale_emb, scale_depth, dim_model_base) whose "
     "defaults (and tied embeddings) come from remote code bwacct does not read"},
    {"MiniCPM3ForCausalLM", "kv_lora_rank", "MiniCPM's muP scales on a multi-head latent attention block"},
    {"PhiForCausalLM", "partial_rotary_factor",
     "a parallel block (attention and a plain GELU MLP with biases side by side from one LayerNorm)"},
    {"GPT2LMHeadModel", "n_embd", "learned positions, LayerNorms with bias and a plain GELU MLP with biases everywhere"},
    {"GPTJForCausalLM", "n_embd", "a parallel block (attention and a plain GELU MLP with biases from one LayerNorm)"},
    {"GPTBigCodeForCausalLM", "multi_query", "learned positions and a plain GELU MLP with biases everywhere"},
    {"OPTForCausalLM", "activation_function", "learned positions and a plain ReLU MLP with biases everywhere"},
    {"BloomForCausalLM", "n_layer", "ALiBi, LayerNorms with bias and a plain GELU MLP with biases everywhere"},
    // Diffusion transformers other than Wan's block.
    {"FluxTransformer2DModel", "num_single_layers",
     "MM-DiT: num_layers double-stream blocks (separate image and text weights, joint attention) and num_single_layers "
     "single-stream blocks (fused attention + MLP); only Wan's DiT block (WanModel, WanTransformer3DModel) is modelled"},
    {"SD3Transformer2DModel", "joint_attention_dim",
     "MM-DiT: joint attention over image and text tokens with separate weights per stream; only Wan's DiT block (WanModel, "
     "WanTransformer3DModel) is modelled"},
    {"HunyuanVideoTransformer3DModel", "num_single_layers",
     "MM-DiT: double-stream and single-stream blocks over video and text tokens; only Wan's DiT block (WanModel, "
     "WanTransformer3DModel) is modelled"},
    {"CogVideoXTransformer3DModel", "text_embed_dim",
     "expert-adaLN blocks with full attention over the concatenated text and video tokens; only Wan's DiT block (WanModel, "
     "WanTransformer3DModel) is modelled"},
    {"LTXVideoTransformer3DModel", "cross_attention_dim",
     "its block (self-attention, cross-attention, MLP) differs from Wan's in norms and modulation; only Wan's DiT block "
     "(WanModel, "
     "WanTransformer3DModel) is modelled"},
    {"MochiTransformer3DModel", "pooled_projection_dim",
     "asymmetric MM-DiT: joint attention with separate video and text widths; only Wan's DiT block (WanModel, "
     "WanTransformer3DModel) is modelled"},
    {"SkyReelsV2Transformer3DModel", "inject_sample_info",
     "Wan's network built for diffusion forcing (a timestep per latent frame, a block-causal attention mask by "
     "num_frame_per_block) and, when true, an fps embedding; only Wan's DiT block (WanModel, WanTransformer3DModel) is "
     "modelled"},
    {"CausalWanModel", "local_attn_size",
     "Wan's network run autoregressively (Self-Forcing, CausVid, Matrix-Game-2): block-causal attention over chunks of "
     "latent frames with a rolling KV cache of local_attn_size frames (-1: all), and in forks extra per-block modules "
     "(Matrix-Game-2's action_config); only Wan's DiT block (WanModel, WanTransformer3DModel) is modelled"},
    {"WanAnimateTransformer3DModel", "motion_encoder_dim",
     "Wan2.2-Animate: Wan's image-to-video network plus a motion encoder and face-adapter blocks "
     "(inject_face_latents_blocks); only Wan's DiT block (WanModel, WanTransformer3DModel) is modelled"},
    {"WanModel_S2V", "audio_dim",
     "Wan2.2-S2V: Wan's network plus audio tokens injected into blocks, frame packing and a motion encoder; only Wan's "
     "DiT block (WanModel, WanTransformer3DModel) is modelled"},
    {"QwenImageTransformer2DModel", "joint_attention_dim",
     "MM-DiT: double-stream blocks with joint attention over image and text tokens; only Wan's DiT block (WanModel, "
     "WanTransformer3DModel) is modelled"},
}};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

// Another class named for Wan with Wan's sizes (VideoX-Fun's Wan2_2Transformer3DModel and its camera/FSDP
// subclasses, forks' WanModel variants): the same trunk plus modules its own keys switch on. Refused naming the class
// and the keys that neither WanModel nor diffusers' WanTransformer3DModel takes, rather than the generic list.
void refuse_wan_derived_class(const Reader& r, const std::string& cls) {
    const bool wan_sizes = (r.doc.contains("dim") && r.doc.contains("num_heads")) ||
                           (r.doc.contains("num_attention_heads") && r.doc.contains("attention_head_dim"));
    if (cls.find("Wan") == std::string::npos || !wan_sizes)
        return;
    static const std::set<std::string> wan_keys{"model_type",
                                                "patch_size",
                                                "text_len",
                                                "in_dim",
                                                "dim",
                                                "ffn_dim",
                                                "freq_dim",
                                                "text_dim",
                                                "out_dim",
                                                "num_heads",
                                                "num_layers",
                                                "window_size",
                                                "qk_norm",
                                                "cross_attn_norm",
                                                "eps",
                                                "vace_layers",
                                                "vace_in_dim",
                                                "architectures",
                                                "num_attention_heads",
                                                "attention_head_dim",
                                                "in_channels",
                                                "out_channels",
                                                "image_dim",
                                                "added_kv_proj_dim",
                                                "rope_max_seq_len",
                                                "pos_embed_seq_len",
                                                "vace_in_channels"};
    std::vector<std::string> extra;
    for (const auto& [key, value] : r.doc.items())
        if (!key.empty() && key.front() != '_' && wan_keys.count(key) == 0)
            extra.push_back("\"" + key + "\"");
    const std::size_t shown = std::min<std::size_t>(extra.size(), 4);
    r.fail(fmt::format(
        "{} is not modelled: a Wan-derived class{}; only Wan's DiT block (WanModel, VaceWanModel, "
        "WanTransformer3DModel, WanVACETransformer3DModel) is modelled; bwacct will not guess its cost",
        cls,
        extra.empty() ? std::string()
                      : fmt::format(" (keys Wan's classes do not take: {}{})",
                                    fmt::join(extra.begin(), extra.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                                    extra.size() > shown ? fmt::format(" and {} more", extra.size() - shown) : std::string())));
}

void refuse_unmodelled_class(const Reader& r, const std::string& arch) {
    // A class listed more than once is refused by the entry whose field the file has (else by its first entry).
    const Unmodelled* found = nullptr;
    for (const Unmodelled& u : kUnmodelled)
        if (arch == u.cls && (found == nullptr || (!r.doc.contains(found->field) && r.doc.contains(u.field))))
            found = &u;
    if (found != nullptr)
        r.fail(fmt::format("{} is not modelled: \"{}\" ({}); bwacct will not guess its cost", arch, found->field, found->why));
}

void refuse_unmodelled_layers(const Reader& r) {
    const json& doc = r.doc;
    if (doc.contains("layer_types") && doc.at("layer_types").is_array())
        for (const json& t : doc.at("layer_types"))
            if (t.is_string() && t != "full_attention" && t != "sliding_attention" && t != "chunked_attention")
                r.fail(
                    fmt::format("\"layer_types\" lists {} layers: not modelled (only full, sliding-window and chunked "
                                "attention layers, which keep a KV cache); bwacct will not guess their cost",
                                t.dump()));
    if (doc.contains("attn_type_list") && doc.at("attn_type_list").is_array())
        for (const json& t : doc.at("attn_type_list"))
            if (!(t.is_number_unsigned() && t.get<std::uint64_t>() == 1))
                r.fail(
                    fmt::format("\"attn_type_list\" has an entry {}: only 1 (softmax attention) is modelled, not "
                                "lightning (linear) attention (0); bwacct will not guess its cost",
                                t.dump()));
    if (r.has("index_topk"))
        r.fail(
            fmt::format("\"index_topk\" = {}: sparse attention through an indexer is not modelled; bwacct will not guess "
                        "its cost",
                        doc.at("index_topk").dump()));
    for (const auto& [key, value] : doc.items())
        if (!value.is_null() && (starts_with(key, "mamba_") || starts_with(key, "ssm_") || key == "linear_attn_config" ||
                                 key == "hybrid_override_pattern"))
            r.fail(
                fmt::format("\"{}\" describes state-space or linear-attention layers: not modelled; bwacct will not "
                            "guess their cost",
                            key));
}

}  // namespace bwacct::hf
