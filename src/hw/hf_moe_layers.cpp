// Per-layer MoE/dense MLP patterns and Llama 4's chunked attention from a Hugging Face config.json.
#include "hf_moe_layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace bwacct::hf {
namespace {

// A list of layer indices (`key`), each below `layers`, as one flag per layer.
std::vector<bool> layer_set(const Reader& r, const char* key, std::uint64_t layers) {
    std::vector<bool> in(layers, false);
    const json& v = r.doc.at(key);
    if (!v.is_array())
        r.fail(fmt::format("\"{}\" must be a list of layer indices (0 to {}), got {}", key, layers - 1, v.dump()));
    for (const json& e : v) {
        if (!e.is_number_unsigned() || e.get<std::uint64_t>() >= layers)
            r.fail(fmt::format("\"{}\" entries must be layer indices from 0 to {}, got {}", key, layers - 1, e.dump()));
        in[e.get<std::uint64_t>()] = true;
    }
    return in;
}

}  // namespace

void set_dense_layers(MoeConfig& m, const std::vector<bool>& dense) {
    const auto count = static_cast<std::uint64_t>(std::count(dense.begin(), dense.end(), true));
    const auto first_moe = std::find(dense.begin(), dense.end(), false);
    const bool leading_run = std::find(first_moe, dense.end(), true) == dense.end();
    m.dense_layers = count;
    m.dense_pattern = leading_run ? std::vector<bool>{} : dense;
}

std::vector<bool> qwen_moe_dense_layers(const Reader& r, std::uint64_t layers) {
    const std::uint64_t step = r.count_or("decoder_sparse_step", 1);
    std::vector<bool> dense = r.has("mlp_only_layers") ? layer_set(r, "mlp_only_layers", layers) : std::vector<bool>(layers);
    for (std::uint64_t i = 0; i < layers; ++i)
        dense[i] = dense[i] || (i + 1) % step != 0;
    return dense;
}

std::vector<bool> first_k_dense_layers(const Reader& r, std::uint64_t layers, bool with_freq, bool types_decide) {
    const std::uint64_t k = r.natural_or("first_k_dense_replace", 0);
    if (k > layers)
        r.fail(fmt::format("\"first_k_dense_replace\" ({}) exceeds \"num_hidden_layers\" ({})", k, layers));
    const std::uint64_t freq = with_freq ? r.count_or("moe_layer_freq", 1) : 1;
    std::vector<bool> dense(layers);
    for (std::uint64_t i = 0; i < layers; ++i)
        dense[i] = i < k || i % freq != 0;
    if (!r.has("mlp_layer_types") && !types_decide)
        return dense;
    // transformers 5 writes the same decision per layer ("dense" or "sparse"); it decides, and must agree with the
    // rule above when first_k_dense_replace or moe_layer_freq is given too. Glm4MoeLite reads only mlp_layer_types,
    // by default layer 0 dense and the rest sparse (transformers' Glm4MoeLiteConfig).
    std::vector<bool> listed(layers);
    if (!r.has("mlp_layer_types")) {
        listed[0] = layers > 0;
    } else {
        const json& types = r.doc.at("mlp_layer_types");
        if (!types.is_array() || types.size() != layers)
            r.fail(fmt::format("\"mlp_layer_types\" must list \"dense\" or \"sparse\" for each of the {} layers", layers));
        for (std::uint64_t i = 0; i < layers; ++i) {
            if (types[i] != "dense" && types[i] != "sparse")
                r.fail(fmt::format("\"mlp_layer_types\" entries must be \"dense\" or \"sparse\", got {}", types[i].dump()));
            listed[i] = types[i] == "dense";
        }
    }
    if ((r.has("first_k_dense_replace") || (with_freq && r.has("moe_layer_freq"))) && listed != dense)
        r.fail(
            fmt::format("\"mlp_layer_types\"{} disagrees with \"first_k_dense_replace\"/\"moe_layer_freq\": give one rule "
                        "for the dense layers",
                        r.has("mlp_layer_types") ? "" : " (absent: transformers' default for this class, layer 0 dense)"));
    return listed;
}

std::vector<bool> ernie_dense_layers(const Reader& r, std::uint64_t layers) {
    const std::uint64_t interval = r.count_or("moe_layer_interval", 1);
    const std::uint64_t start = r.natural_or("moe_layer_start_index", 1);
    std::uint64_t end = layers - 1;
    if (r.has("moe_layer_end_index")) {
        const json& v = r.doc.at("moe_layer_end_index");
        if (!(v.is_number_integer() && v.get<std::int64_t>() == -1)) {
            if (!v.is_number_unsigned() || v.get<std::uint64_t>() >= layers)
                r.fail(fmt::format("\"moe_layer_end_index\" must be a layer index from 0 to {} or -1 (the last), got {}",
                                   layers - 1, v.dump()));
            end = v.get<std::uint64_t>();
        }
    }
    std::vector<bool> dense(layers);
    for (std::uint64_t i = 0; i < layers; ++i)
        dense[i] = !((i + 1) % interval == 0 && i >= start && i <= end);
    return dense;
}

std::vector<bool> llama4_dense_layers(const Reader& r, std::uint64_t layers) {
    if (r.has("moe_layers")) {
        std::vector<bool> dense = layer_set(r, "moe_layers", layers);
        dense.flip();
        return dense;
    }
    const std::uint64_t step = r.count_or("interleave_moe_layer_step", 1);
    std::vector<bool> dense(layers);
    for (std::uint64_t i = 0; i < layers; ++i)
        dense[i] = i % step != step - 1;
    return dense;
}

void read_llama4_attention(const Reader& r, TransformerConfig& c) {
    if (r.flag_or("use_qk_norm", true))
        c.limitations.push_back(
            "use_qk_norm: Llama 4's weightless L2 norm of Q and K per head on the RoPE layers is not counted (a few FLOPs per "
            "element of Q and K; no parameters)");
    // Llama4TextConfig defaults attn_temperature_tuning to on (Maverick's file leaves it out): stated unless false.
    if (!(r.has("attn_temperature_tuning") && r.doc.at("attn_temperature_tuning") == false))
        c.limitations.push_back(
            "attn_temperature_tuning: the NoPE layers' position-dependent scaling of Q is not counted (one multiply per "
            "element of Q)");
    if (!r.has("attention_chunk_size"))
        return;
    const std::uint64_t chunk = r.count("attention_chunk_size");
    std::vector<bool> chunked(c.layers, false);
    if (r.has("layer_types")) {
        const json& types = r.doc.at("layer_types");
        if (!types.is_array() || types.size() != c.layers)
            r.fail(fmt::format("\"layer_types\" must list one entry per layer ({} layers)", c.layers));
        for (std::uint64_t i = 0; i < c.layers; ++i) {
            if (types[i] != "chunked_attention" && types[i] != "full_attention")
                r.fail(fmt::format("\"layer_types\" entries must be \"chunked_attention\" or \"full_attention\", got {}",
                                   types[i].dump()));
            chunked[i] = types[i] == "chunked_attention";
        }
    } else if (r.has("no_rope_layers") && !(r.doc.at("no_rope_layers").is_array() && r.doc.at("no_rope_layers").empty())) {
        // transformers: layer_types[i] = "chunked_attention" if no_rope_layers[i] else "full_attention" (1: the layer
        // uses RoPE and attends within its chunk; 0: a NoPE layer with full attention).
        const json& flags = r.doc.at("no_rope_layers");
        if (!flags.is_array() || flags.size() != c.layers)
            r.fail(fmt::format("\"no_rope_layers\" must list one 0 or 1 per layer ({} layers)", c.layers));
        for (std::uint64_t i = 0; i < c.layers; ++i) {
            if (flags[i] != 0 && flags[i] != 1)
                r.fail(fmt::format("\"no_rope_layers\" entries must be 0 or 1, got {}", flags[i].dump()));
            chunked[i] = flags[i] == 1;
        }
    } else {
        const std::uint64_t interval = r.count_or("no_rope_layer_interval", 4);
        for (std::uint64_t i = 0; i < c.layers; ++i)
            chunked[i] = (i + 1) % interval != 0;
    }
    const auto n = static_cast<std::uint64_t>(std::count(chunked.begin(), chunked.end(), true));
    if (n == 0)
        return;
    c.sliding_window = chunk;
    c.local_layers = chunked;
    c.limitations.push_back(fmt::format(
        "attention_chunk_size = {0}: the {1} chunked-attention layers (of {2}) are modelled as sliding windows of {0} keys, "
        "an upper bound: a query attends only to the keys of its own chunk ((position mod {0}) + 1 of them, about half a "
        "chunk on average once the context exceeds one), and the cache keeps at most one chunk",
        chunk, n, c.layers));
}

}  // namespace bwacct::hf
