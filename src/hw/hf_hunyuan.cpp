// HunYuanMoEV1ForCausalLM (Tencent-Hunyuan/Hunyuan-A13B, models/hunyuan.py): HunYuanDecoderLayer = input RMSNorm,
// HunYuanAttention (q, k, v, o with bias = attention_bias; with use_qk_norm a query_layernorm and key_layernorm,
// RMSNorm(head_dim) each, on every head), post-attention RMSNorm, HunYuanMoE: a gate Linear(hidden, num_experts) without
// bias, num_experts gated experts of moe_intermediate_size (top moe_topk, softmax), and with use_mixed_mlp_moe a shared
// gated MLP (HunYuanMLP is_shared_mlp) of num_shared_expert experts' width. Read as DeepSeekMoE's block (n_routed_experts,
// n_shared_experts of moe_intermediate_size, every layer MoE) plus the q/k norms, set by the caller. num_experts may be
// a per-layer list too.
#include "hf_hunyuan.h"

#include <fmt/format.h>

#include <string>

namespace bwacct::hf {
namespace {

// The single value of a per-layer list (or a plain positive integer); 0 when the entries differ or are not positive
// integers, or the list does not have one entry per layer.
std::uint64_t uniform(const json& doc, const char* key) {
    if (!doc.contains(key))
        return 0;
    const json& v = doc.at(key);
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>();
    if (!v.is_array() || v.empty() || !doc.contains("num_hidden_layers") || !doc.at("num_hidden_layers").is_number_unsigned() ||
        v.size() != doc.at("num_hidden_layers").get<std::uint64_t>())
        return 0;
    for (const json& e : v)
        if (!e.is_number_unsigned() || e != v.front())
            return 0;
    return v.front().get<std::uint64_t>();
}

bool off(const json& doc, const char* key) {
    return !doc.contains(key) || doc.at(key).is_null() || doc.at(key) == false || doc.at(key) == 0;
}

}  // namespace

bool hunyuan_moe_is_uniform(const json& doc) {
    return uniform(doc, "num_experts") > 0 && uniform(doc, "moe_intermediate_size") > 0 && uniform(doc, "moe_topk") > 0 &&
           (off(doc, "use_mixed_mlp_moe") || uniform(doc, "num_shared_expert") > 0) && off(doc, "use_cla") &&
           off(doc, "use_mla") && off(doc, "moe_layer_num_skipped") && off(doc, "mlp_bias");
}

Translated hunyuan_moe_as_deepseek_moe(const Reader& top) {
    const json& doc = top.doc;
    Translated t;
    json& f = t.fields;
    for (const char* key : {"hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"})
        f[key] = top.count(key);
    if (top.has("num_key_value_heads"))
        f["num_key_value_heads"] = top.count("num_key_value_heads");
    // HunYuanAttention's head size: attention_head_dim (head_dim in transformers' spelling), else hidden / heads.
    if (top.has("head_dim"))
        f["head_dim"] = top.count("head_dim");
    else if (top.has("attention_head_dim"))
        f["head_dim"] = top.count("attention_head_dim");
    // The class's copies disagree on the default (transformers' HunYuanMoEV1Config False): not guessed.
    if (!doc.contains("tie_word_embeddings"))
        top.fail(
            "missing \"tie_word_embeddings\": HunYuanMoEV1ForCausalLM's remote code and transformers' port need not agree on "
            "its default; bwacct will not guess: give \"tie_word_embeddings\": true or false");
    f["tie_word_embeddings"] = doc.at("tie_word_embeddings");
    f["hidden_act"] = top.text_or("hidden_act", "silu");
    f["attention_bias"] = top.truth_or("attention_bias", false);
    const std::uint64_t expert_ffn = uniform(doc, "moe_intermediate_size");
    f["n_routed_experts"] = uniform(doc, "num_experts");
    f["num_experts_per_tok"] = uniform(doc, "moe_topk");
    f["moe_intermediate_size"] = expert_ffn;
    f["first_k_dense_replace"] = std::uint64_t{0};
    f["moe_layer_freq"] = std::uint64_t{1};
    const std::uint64_t shared = off(doc, "use_mixed_mlp_moe") ? 0 : uniform(doc, "num_shared_expert");
    // HunYuanMLP(is_shared_mlp): moe_intermediate_size · num_shared_expert wide (every copy of the remote code), which
    // DeepSeekMoE's n_shared_experts experts of moe_intermediate_size are.
    f["n_shared_experts"] = shared;
    for (const char* key : {"quantization_config", "_name_or_path"})
        if (doc.contains(key))
            f[key] = doc.at(key);
    t.limitations.push_back(fmt::format(
        "HunYuanMoEV1ForCausalLM's per-layer lists hold one value each: read as {} routed experts of {} (top {}), {} shared, "
        "on every layer; its router (HunYuanTopKGate.wg, nn.Linear(dtype=torch.float32)) is fp32, counted in the activation "
        "dtype "
        "({} B per layer fewer in bf16)",
        f["n_routed_experts"].get<std::uint64_t>(), expert_ffn, f["num_experts_per_tok"].get<std::uint64_t>(), shared,
        2 * f["n_routed_experts"].get<std::uint64_t>() * f["hidden_size"].get<std::uint64_t>()));
    return t;
}

}  // namespace bwacct::hf
