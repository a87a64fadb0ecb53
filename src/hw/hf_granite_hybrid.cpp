// GraniteMoeHybrid (transformers' configuration_granitemoehybrid.py, modeling_granitemoehybrid.py): layer i is a
// Mamba-2 mixer or GraniteMoeHybridAttention (q, k, v, o; attention_bias) as layer_types[i] says (layers_block_type:
// absent or empty, every layer "mamba"; "layers_block_type", its attribute_map alias, read the same); each layer then runs the
// routed experts when num_local_experts > 0 (GraniteMoeHybridMoE: a router Linear(D, E) without bias, gated experts of
// intermediate_size) and always a shared gated MLP of shared_intermediate_size (GraniteMoeHybridMLP: input_linear D → 2·S,
// output_linear S → D, no bias). An all-attention stack is therefore GraniteMoeShared's block, or with no routed experts
// Granite's dense block with ffn = shared_intermediate_size; position_embedding_type (rope or nope) changes no count.
// GraniteMoeHybridConfig's defaults when left out: num_local_experts 8, num_experts_per_tok 2, shared_intermediate_size 1024
// (named in the limitations); a null of a field the class cannot be built with is refused naming it.
#include "hf_granite_hybrid.h"

#include <fmt/format.h>

namespace bwacct::hf {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// "0-4, 6-14, 16" for the indices, at most 8 runs then "…".
std::string ranges(const std::vector<std::uint64_t>& idx) {
    std::string out;
    std::size_t runs = 0;
    for (std::size_t i = 0; i < idx.size();) {
        std::size_t j = i;
        while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1)
            ++j;
        if (++runs > 8)
            return out + ", …";
        out += fmt::format("{}{}", out.empty() ? "" : ", ",
                           i == j ? fmt::format("{}", idx[i]) : fmt::format("{}-{}", idx[i], idx[j]));
        i = j + 1;
    }
    return out;
}

}  // namespace

Translated granite_hybrid_as_granite(const Reader& top, std::string& arch) {
    const std::uint64_t layers = top.count("num_hidden_layers");
    const json& doc = top.doc;
    // A null the class cannot be built with (GraniteMoeHybridMLP(None), range(None), nn.Linear(D, None)) is refused naming
    // the key, not read as the default the key's absence takes. num_key_value_heads null is the query heads (the class's
    // own rule), read so by the Granite reader; attention_bias, mlp_bias and tie_word_embeddings null are false (nn.Linear
    // (bias=None) builds no bias; transformers and vLLM tie only when the flag is truthy), read so by Reader::truth_or.
    for (const char* key : {"hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size",
                            "num_local_experts", "num_experts_per_tok", "shared_intermediate_size"})
        if (doc.contains(key) && doc.at(key).is_null())
            top.fail(
                fmt::format("\"{}\" is null, which GraniteMoeHybridConfig cannot be built with (give a value, or leave "
                            "the key out for the class's default)",
                            key));
    // "layers_block_type" is layer_types under GraniteMoeHybridConfig's attribute_map: the same list.
    const bool has_types = doc.contains("layer_types") && !doc.at("layer_types").is_null();
    const bool has_alias = doc.contains("layers_block_type") && !doc.at("layers_block_type").is_null();
    if (has_types && has_alias && doc.at("layer_types") != doc.at("layers_block_type"))
        top.fail("\"layer_types\" and \"layers_block_type\" (its alias) disagree: give one list of layer types");
    const char* types_key = has_types || !has_alias ? "layer_types" : "layers_block_type";
    const bool listed = doc.contains(types_key) && doc.at(types_key).is_array() && !doc.at(types_key).empty();
    if (!listed) {
        if (doc.contains(types_key) && !doc.at(types_key).is_null() && !doc.at(types_key).is_array())
            top.fail(fmt::format("\"{}\" must be a list of \"mamba\" or \"attention\" per layer, got {}", types_key,
                                 doc.at(types_key).dump()));
        top.fail(
            "GraniteMoeHybridForCausalLM is not modelled without \"layer_types\": GraniteMoeHybridConfig then makes every "
            "layer a Mamba-2 state-space layer; bwacct will not guess its cost");
    }
    const json& types = doc.at(types_key);
    if (types.size() != layers)
        top.fail(fmt::format("\"{}\" lists {} layers, \"num_hidden_layers\" is {}", types_key, types.size(), layers));
    std::vector<std::uint64_t> mamba;
    for (std::uint64_t i = 0; i < layers; ++i) {
        if (types[i] == "mamba")
            mamba.push_back(i);
        else if (types[i] != "attention")
            top.fail(fmt::format("\"{}\" entry {} is {}: GraniteMoeHybrid's layers are \"mamba\" or \"attention\"", types_key, i,
                                 types[i].dump()));
    }
    if (!mamba.empty())
        top.fail(
            fmt::format("GraniteMoeHybridForCausalLM is not modelled: \"{}\" makes layers {} ({} of {}) Mamba-2 state-space "
                        "layers, which keep a recurrent state, not a KV cache; bwacct will not guess their cost",
                        types_key, ranges(mamba), mamba.size(), layers));

    Translated t;
    json& f = t.fields;
    // Every field but the Mamba mixer's (and layer_types, now all attention) under the same name.
    for (const auto& [key, value] : doc.items())
        if (!starts_with(key, "mamba_") && key != "layer_types" && key != "layers_block_type" &&
            key != "position_embedding_type" && key != "architectures")
            f[key] = value;
    std::string defaulted;
    const std::uint64_t experts = top.has("num_local_experts") ? top.natural_or("num_local_experts", 0) : 8;
    if (!top.has("num_local_experts"))
        defaulted = "num_local_experts = 8";
    const std::uint64_t shared = top.has("shared_intermediate_size") ? top.count("shared_intermediate_size") : 1024;
    if (!top.has("shared_intermediate_size"))
        defaulted += fmt::format("{}shared_intermediate_size = 1024", defaulted.empty() ? "" : ", ");
    top.refuse_unless(!top.truth_or("mlp_bias", false), "mlp_bias", "GraniteMoeHybrid's MLPs have no bias");
    f.erase("mlp_bias");
    if (experts == 0) {
        // No block_sparse_moe: the shared MLP is the layer's whole MLP (Granite's gated MLP of that size).
        arch = "GraniteForCausalLM";
        f["intermediate_size"] = shared;
        for (const char* key : {"num_local_experts", "num_experts_per_tok", "shared_intermediate_size"})
            f.erase(key);
    } else {
        arch = "GraniteMoeSharedForCausalLM";
        f["num_local_experts"] = experts;
        f["shared_intermediate_size"] = shared;
        if (!doc.contains("num_experts_per_tok")) {
            f["num_experts_per_tok"] = std::uint64_t{2};
            defaulted += fmt::format("{}num_experts_per_tok = 2", defaulted.empty() ? "" : ", ");
        }
    }
    if (!defaulted.empty())
        t.limitations.push_back(
            fmt::format("config.json leaves out {} (GraniteMoeHybridConfig's defaults, taken here)", defaulted));
    return t;
}

}  // namespace bwacct::hf
