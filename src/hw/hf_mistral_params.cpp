// mistral-inference (mistral_inference/args.py, TransformerArgs; transformer.py): each layer is Mistral's block (GQA
// attention wq, wk, wv, wo of n_heads · head_dim and n_kv_heads · head_dim, no bias; a gated FeedForward w1, w2, w3 of
// hidden_dim with SiLU; two RMSNorms), an untied output Linear(dim, vocab_size), and with "moe" (MoeArgs:
// num_experts, num_experts_per_tok) every FeedForward replaced by a router Linear(dim, num_experts) and num_experts
// FeedForwards: Mixtral's block. "sliding_window" (an int) applies to every layer, as MistralForCausalLM's.
#include "hf_mistral_params.h"

#include <fmt/format.h>

#include <string_view>

namespace bwacct::hf {

bool is_mistral_params(const json& doc) {
    return doc.is_object() && !doc.contains("architectures") && !doc.contains("_class_name") && doc.contains("dim") &&
           doc.contains("n_layers");
}

const char* mistral_params_class(const json& doc) {
    return doc.contains("moe") && !doc.at("moe").is_null() ? "MixtralForCausalLM" : "MistralForCausalLM";
}

Translated mistral_params_as_hf(const Reader& top) {
    constexpr std::string_view kIgnored[] = {"norm_eps", "rope_theta", "max_batch_size", "max_seq_len",
                                             "max_position_embeddings"};
    constexpr std::string_view kRead[] = {"dim",        "n_layers",      "head_dim",       "hidden_dim",      "n_heads",
                                          "n_kv_heads", "vocab_size",    "sliding_window", "_sliding_window", "moe",
                                          "model_type", "vision_encoder"};
    for (const auto& item : top.doc.items()) {
        bool known = false;
        for (std::string_view k : kIgnored)
            known = known || item.key() == k;
        for (std::string_view k : kRead)
            known = known || item.key() == k;
        if (!known)
            top.fail(
                fmt::format("\"{}\" is not modelled: read as Mistral's params.json (mistral-inference's TransformerArgs: "
                            "dim, n_layers, head_dim, hidden_dim, n_heads, n_kv_heads, vocab_size, sliding_window, moe), "
                            "which has no such field; for another model give its config.json",
                            item.key()));
    }
    if (top.has("model_type"))
        top.refuse_unless(top.text_or("model_type", "") == "transformer", "model_type",
                          "mistral-inference builds a transformer only from \"model_type\": \"transformer\"");
    Translated t;
    json& f = t.fields;
    f["hidden_size"] = top.count("dim");
    f["num_hidden_layers"] = top.count("n_layers");
    f["num_attention_heads"] = top.count("n_heads");
    // TransformerArgs has no default for these: a file without one cannot be loaded.
    f["num_key_value_heads"] = top.count("n_kv_heads");
    f["head_dim"] = top.count("head_dim");
    f["intermediate_size"] = top.count("hidden_dim");
    f["vocab_size"] = top.count("vocab_size");
    f["tie_word_embeddings"] = false;  // Transformer.output is its own Linear(dim, vocab_size)
    f["hidden_act"] = "silu";
    for (const char* key : {"sliding_window", "_sliding_window"})
        if (top.has(key)) {
            if (!top.doc.at(key).is_number_unsigned())
                top.fail(
                    fmt::format("\"{}\" = {} is not modelled: one window for every layer (a positive integer) is "
                                "read, not a per-layer list",
                                key, top.doc.at(key).dump()));
            f["sliding_window"] = top.count(key);
        }
    if (top.has("moe")) {
        const json& moe = top.doc.at("moe");
        if (!moe.is_object())
            top.fail(fmt::format("\"moe\" must be an object (num_experts, num_experts_per_tok), got {}", moe.dump()));
        const std::string origin = top.origin + " moe";
        const Reader m{moe, origin};
        // MoeArgs holds these two only: any other key (Mistral Large 3's expert_hidden_dim, num_shared_experts,
        // first_k_dense_replace) changes the parameter count, so it is refused by name, as at the top level.
        for (const auto& item : moe.items())
            if (item.key() != "num_experts" && item.key() != "num_experts_per_tok")
                m.fail(
                    fmt::format("\"moe\": \"{}\" is not modelled: mistral-inference's MoeArgs has num_experts and "
                                "num_experts_per_tok only",
                                item.key()));
        f["num_local_experts"] = m.count("num_experts");
        f["num_experts_per_tok"] = m.count("num_experts_per_tok");
    }
    if (top.has("vision_encoder"))
        t.limitations.push_back(
            "params.json has a \"vision_encoder\": its language model is modelled; the vision encoder and adapter are not "
            "counted (parameters or time)");
    return t;
}

}  // namespace bwacct::hf
