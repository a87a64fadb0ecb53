// EXAONE 3.0 / 3.5 (ExaoneForCausalLM, configuration_exaone.py and modeling_exaone.py of LGAI-EXAONE's repositories;
// vLLM keeps a copy) read as Llama's block: ExaoneAttention's q, k, v (GQA, d = hidden_size / num_attention_heads) and
// out_proj without bias, ExaoneGatedMLP's c_fc_0, c_fc_1, c_proj (gated activation_function, no bias), RMSNorms
// ln_1, ln_2, ln_f. ExaoneConfig: num_key_value_heads None → num_attention_heads, intermediate_size None → 4 ·
// hidden_size, tie_word_embeddings True.
#include "hf_exaone.h"

#include <fmt/format.h>

namespace bwacct::hf {

Translated exaone_as_llama(const Reader& top) {
    Translated t;
    json& f = t.fields;
    f["hidden_size"] = top.count("hidden_size");
    f["num_hidden_layers"] = top.count("num_layers");
    f["num_attention_heads"] = top.count("num_attention_heads");
    f["vocab_size"] = top.count("vocab_size");
    std::string defaulted;
    if (top.has("num_key_value_heads")) {
        f["num_key_value_heads"] = top.count("num_key_value_heads");
    } else {
        f["num_key_value_heads"] = f["num_attention_heads"];  // ExaoneConfig: None → num_attention_heads
        defaulted = fmt::format("num_key_value_heads = num_attention_heads = {}", f["num_attention_heads"].get<std::uint64_t>());
    }
    if (top.has("intermediate_size")) {
        f["intermediate_size"] = top.count("intermediate_size");
    } else {
        f["intermediate_size"] = 4 * f["hidden_size"].get<std::uint64_t>();
        defaulted += fmt::format("{}intermediate_size = 4 · hidden_size = {}", defaulted.empty() ? "" : ", ",
                                 f["intermediate_size"].get<std::uint64_t>());
    }
    const std::string act = top.text_or("activation_function", "silu");
    top.refuse_unless(act == "silu" || act == "swish", "activation_function", "the gated MLP is modelled as SiLU(gate)·up");
    f["hidden_act"] = act;
    if (top.doc.contains("tie_word_embeddings")) {
        f["tie_word_embeddings"] = top.doc.at("tie_word_embeddings");
    } else {
        f["tie_word_embeddings"] = true;
        defaulted += fmt::format("{}tie_word_embeddings = true", defaulted.empty() ? "" : ", ");
    }
    for (const char* key : {"quantization_config", "_name_or_path"})
        if (top.doc.contains(key))
            f[key] = top.doc.at(key);
    if (!defaulted.empty())
        t.limitations.push_back(fmt::format("config.json leaves out {} (ExaoneConfig's defaults, taken here)", defaulted));
    return t;
}

}  // namespace bwacct::hf
