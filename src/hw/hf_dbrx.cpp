// DBRX (transformers' modeling_dbrx.py) read as Mixtral's block: DbrxAttention is GQA attention (one fused Wqkv of
// D + 2·kv·d rows, out_proj, no biases; d = d_model / n_heads), DbrxFFN a router Linear(D, E) without bias and E gated
// experts (w1, v1, w2) of ffn_hidden_size on every layer; its norms are LayerNorms without bias (D weights each).
#include "hf_dbrx.h"

#include <fmt/format.h>

namespace bwacct::hf {
namespace {

const json& nested(const Reader& top, const char* key) {
    if (!top.doc.contains(key) || !top.doc.at(key).is_object())
        top.fail(fmt::format("\"{}\" must be an object (DBRX's {} fields)", key,
                             std::string(key) == "ffn_config" ? "MoE" : "attention"));
    return top.doc.at(key);
}

}  // namespace

Translated dbrx_as_mixtral(const Reader& top) {
    const std::string attn_origin = top.origin + " attn_config";
    const std::string ffn_origin = top.origin + " ffn_config";
    const Reader attn{nested(top, "attn_config"), attn_origin};
    const Reader ffn{nested(top, "ffn_config"), ffn_origin};
    Translated t;
    json& f = t.fields;
    f["hidden_size"] = top.count("d_model");
    f["num_hidden_layers"] = top.count("n_layers");
    f["num_attention_heads"] = top.count("n_heads");
    f["vocab_size"] = top.count("vocab_size");
    f["num_key_value_heads"] = attn.count("kv_n_heads");
    if (f["num_attention_heads"].get<std::uint64_t>() % f["num_key_value_heads"].get<std::uint64_t>() != 0)
        attn.fail(fmt::format("\"kv_n_heads\" ({}) must divide the top level's \"n_heads\" ({})",
                              f["num_key_value_heads"].get<std::uint64_t>(), f["num_attention_heads"].get<std::uint64_t>()));
    f["intermediate_size"] = ffn.count("ffn_hidden_size");
    f["num_local_experts"] = ffn.count("moe_num_experts");
    f["num_experts_per_tok"] = ffn.count("moe_top_k");
    if (ffn.has("ffn_act_fn")) {
        const json& act = ffn.doc.at("ffn_act_fn");
        if (!act.is_object() || (act.contains("name") && !act.at("name").is_string()))
            ffn.fail(fmt::format("\"ffn_act_fn\" must be an object with a \"name\", got {}", act.dump()));
        // DbrxExpertGLU: ACT2FN[ffn_act_fn.get("name", "silu")]; any other key (e.g. an approximate GELU) is refused.
        for (const auto& [key, value] : act.items())
            if (key != "name")
                ffn.fail(fmt::format("\"ffn_act_fn.{}\" = {} is not modelled; bwacct will not guess", key, value.dump()));
        // Named as DBRX spells it: the gated MLP is modelled as SiLU(gate)·up only.
        const std::string name = act.value("name", "silu");
        if (name != "silu" && name != "swish")
            ffn.fail(fmt::format(
                "\"ffn_act_fn.name\" = \"{}\" is not modelled (the experts' gated MLP is modelled as SiLU(gate)·up); bwacct "
                "will not guess",
                name));
        f["hidden_act"] = name;
    }
    for (const char* key : {"tie_word_embeddings", "quantization_config", "_name_or_path"})
        if (top.doc.contains(key))
            f[key] = top.doc.at(key);
    t.limitations.push_back(
        "DBRX's LayerNorms have no bias (D weights each): costed as RMSNorms, one mean subtraction per element fewer");
    if (attn.has("clip_qkv"))
        t.limitations.push_back(
            fmt::format("attn_config.clip_qkv = {}: the clamp of Q, K and V is not counted (one comparison per element)",
                        attn.doc.at("clip_qkv").dump()));
    return t;
}

}  // namespace bwacct::hf
