// Reads a video diffusion transformer's description: WanModel's config.json (the fields its
// constructor takes, Wan2.1 wan/modules/model.py) and the "dit" object of a bwacct preset, which
// uses the same keys. Pure: the text comes from the caller.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

#include "bwacct/dit.h"
#include "bwacct/error.h"

namespace bwacct {
namespace {

using json = nlohmann::json;

json parse_object(std::string_view text, const std::string& origin, const char* expected) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        throw InputError(origin, fmt::format("not valid JSON (at byte {}); expected {}", e.byte, expected));
    } catch (const json::out_of_range&) {
        throw InputError(origin, fmt::format("a number is too large for a double; expected {}", expected));
    }
    if (!doc.is_object())
        throw InputError(origin, fmt::format("expected a JSON object ({})", expected));
    return doc;
}

void refuse_absurd_size(const std::string& origin, const char* key, std::uint64_t value) {
    if (value > kDitMaxSize)
        throw InputError(origin, fmt::format("\"{}\" = {} is more than bwacct models for a DiT (at most {}); check the value",
                                             key, value, kDitMaxSize));
}

// A positive integer, `fallback` when absent. Null is refused (WanModel's nn.Conv3d(None, ...), range(None) cannot be
// built) except where the class gives None a meaning (`null_is_fallback`: VaceWanModel's vace_in_dim).
std::uint64_t count_or(const json& o, const std::string& origin, const char* key, std::uint64_t fallback, bool required = false,
                       bool null_is_fallback = false) {
    if (!o.contains(key) || (o.at(key).is_null() && null_is_fallback)) {
        if (required)
            throw InputError(origin, fmt::format("missing \"{}\" (a positive integer)", key));
        return fallback;
    }
    const json& v = o.at(key);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0)
        throw InputError(origin, fmt::format("\"{}\" must be a positive integer, got {}", key, v.dump()));
    if (std::string_view(key) != "num_layers")  // bounded where the layers are walked (at most 100,000)
        refuse_absurd_size(origin, key, v.get<std::uint64_t>());
    return v.get<std::uint64_t>();
}

bool flag_or(const json& o, const std::string& origin, const char* key, bool fallback) {
    if (!o.contains(key) || o.at(key).is_null())
        return fallback;
    if (!o.at(key).is_boolean())
        throw InputError(origin, fmt::format("\"{}\" must be true or false, got {}", key, o.at(key).dump()));
    return o.at(key).get<bool>();
}

DitConfig read_fields(const json& o, const std::string& origin, WanI2v i2v = WanI2v::unstated) {
    DitConfig d;
    d.in_channels = count_or(o, origin, "in_dim", d.in_channels);
    d.out_channels = count_or(o, origin, "out_dim", d.out_channels);
    d.text_dim = count_or(o, origin, "text_dim", d.text_dim);
    d.freq_dim = count_or(o, origin, "freq_dim", d.freq_dim);
    d.text_len = count_or(o, origin, "text_len", d.text_len);
    // null is no norm, as false: WanModel's (and diffusers') `if cross_attn_norm`
    d.cross_attn_norm = o.contains("cross_attn_norm") && o.at("cross_attn_norm").is_null()
                            ? false
                            : flag_or(o, origin, "cross_attn_norm", d.cross_attn_norm);
    if (o.contains("patch_size")) {
        const json& p = o.at("patch_size");
        if (!p.is_array() || p.size() != 3)
            throw InputError(origin, fmt::format("\"patch_size\" must be [t, h, w] (three positive integers), got {}", p.dump()));
        for (std::size_t i = 0; i < 3; ++i) {
            if (!p[i].is_number_unsigned() || p[i].get<std::uint64_t>() == 0)
                throw InputError(origin,
                                 fmt::format("\"patch_size\" must be [t, h, w] (three positive integers), got {}", p.dump()));
            refuse_absurd_size(origin, "patch_size", p[i].get<std::uint64_t>());
            d.patch[i] = p[i].get<std::uint64_t>();
        }
    }
    // null is no q/k norm, as false (WanModel's `if qk_norm`: nn.Identity)
    if ((o.contains("qk_norm") && o.at("qk_norm").is_null()) || !flag_or(o, origin, "qk_norm", true))
        throw InputError(origin, fmt::format("\"qk_norm\" = {} is not modelled: WanModel builds no q/k norm for it, and "
                                             "the DiT block is modelled with q/k RMSNorm",
                                             o.at("qk_norm").dump()));
    // null: WanSelfAttention hands it to flash attention's window_size, which indexes it: the class cannot run with it
    if (o.contains("window_size") && o.at("window_size").is_null())
        throw InputError(origin,
                         "\"window_size\" is null, which WanModel cannot be run with (flash attention indexes it); "
                         "give [-1, -1] (global) or leave the key out");
    if (o.contains("window_size") && o.at("window_size") != json::array({-1, -1}))
        throw InputError(origin, fmt::format("\"window_size\" = {} is not modelled (local attention); only [-1, -1] (global)",
                                             o.at("window_size").dump()));
    // model_type: "t2v" (Wan2.1, and Wan2.2's A14B experts, whose reference repeats the one timestep over every
    // token: the same numbers, computed once per sample as diffusers does); "ti2v" (Wan2.2-TI2V-5B: the image is
    // the first latent frame, denoised at timestep 0, so the timestep is embedded per token); "flf2v" (Wan2.1 only:
    // CLIP image cross-attention over the first and last frames, 2 · 257 tokens, with img_emb.emb_pos); "vace"
    // (VaceWanModel: text cross-attention, as t2v); "i2v": Wan2.1's adds a CLIP image cross-attention over one image's
    // 257 tokens, Wan2.2's (A14B experts: channel concatenation only) is t2v's network; both write the same
    // config.json, so the user says which (`i2v`), else it is refused.
    // (null is refused: WanModel asserts model_type is one of its five)
    const std::string type = !o.contains("model_type")        ? std::string("t2v")
                             : o.at("model_type").is_string() ? o.at("model_type").get<std::string>()
                                                              : std::string("?");
    if (type == "ti2v") {
        d.timestep_per_token = true;
    } else if (type == "flf2v") {
        d.image_tokens = 2 * kClipTokensPerImage;
        d.image_pos_emb = true;
    } else if (type == "i2v" && i2v == WanI2v::wan21) {
        d.image_tokens = kClipTokensPerImage;
    } else if (type == "i2v" && i2v == WanI2v::wan22) {
        // t2v's network; in_dim (36) carries the image latent
    } else if (type == "i2v") {
        throw InputError(origin,
                         "\"model_type\" = \"i2v\" is Wan2.1's WanModel (with a CLIP image cross-attention) or Wan2.2's "
                         "(without), and the config.json does not say which: give --wan-i2v 2.1 or --wan-i2v 2.2 (bwacct "
                         "layer, model), or the diffusers WanTransformer3DModel config, whose image_dim says");
    } else if (type != "t2v" && type != "vace") {
        throw InputError(origin,
                         fmt::format("\"model_type\" = {} is not modelled (\"t2v\", \"i2v\", \"ti2v\", \"flf2v\" or \"vace\")",
                                     o.at("model_type").dump()));
    }
    return d;
}

// VaceWanModel's vace_layers (default: every other block from 0) and vace_in_dim (default: in_dim), read when the
// class is VaceWanModel or the file names vace_layers. The reference asserts 0 ∈ vace_layers (block 0's
// before_proj starts the context path).
void read_vace(const json& o, const std::string& origin, TransformerConfig& c) {
    const bool vace = (o.contains("_class_name") && o.at("_class_name") == "VaceWanModel") ||
                      (o.contains("vace_layers") && !o.at("vace_layers").is_null());
    if (!vace)
        return;
    if (c.dit->image_tokens != 0)
        throw InputError(origin,
                         "VACE with image conditioning (model_type i2v of Wan2.1, flf2v) is not modelled; bwacct will not guess");
    std::set<std::uint64_t> seen;
    std::uint64_t n = 0;
    if (o.contains("vace_layers") && !o.at("vace_layers").is_null()) {
        const json& v = o.at("vace_layers");
        const auto bad = [&] {
            return InputError(origin, fmt::format("\"vace_layers\" must be a list of distinct block indices below num_layers "
                                                  "({}) including 0, got {}",
                                                  c.layers, v.dump()));
        };
        if (!v.is_array() || v.empty())
            throw bad();
        for (const json& i : v) {
            if (!i.is_number_unsigned() || i.get<std::uint64_t>() >= c.layers || !seen.insert(i.get<std::uint64_t>()).second)
                throw bad();
            ++n;
        }
        if (seen.count(0) == 0)
            throw bad();
    } else {
        n = (c.layers + 1) / 2;  // range(0, num_layers, 2)
    }
    c.dit->vace_blocks = n;
    c.dit->vace_in_channels = count_or(o, origin, "vace_in_dim", c.dit->in_channels, false, true);  // None: in_dim
}

// A key WanModel's constructor (VaceWanModel's: + vace_layers, vace_in_dim) does not take belongs to a Wan-derived
// model (SkyReels-V2's fps embedding, VideoX-Fun's control adapter and reference conv, a causal or audio-driven fork)
// whose extra modules or attention pattern bwacct does not count: refused naming it. "_"-prefixed keys are
// diffusers' bookkeeping; SkyReels-V2's "inject_sample_info": false is its plain WanModel (no fps embedding).
void refuse_foreign_keys(const json& o, const std::string& origin, bool vace) {
    static const std::set<std::string> known{"model_type", "patch_size",  "text_len", "in_dim",          "dim",
                                             "ffn_dim",    "freq_dim",    "text_dim", "out_dim",         "num_heads",
                                             "num_layers", "window_size", "qk_norm",  "cross_attn_norm", "eps"};
    for (const auto& [key, value] : o.items()) {
        if (key.empty() || key.front() == '_' || known.count(key) != 0 ||
            (vace && (key == "vace_layers" || key == "vace_in_dim")) || (key == "inject_sample_info" && value == false) ||
            (key == "architectures" && (value.is_null() || value == json::array())) ||  // names nothing: read by class
            (key == "quantization_config" && value.is_null()))  // null: unquantized, as diffusers reads it
            continue;
        const std::string cls = vace ? "VaceWanModel" : "WanModel";
        if (key == "quantization_config")
            throw InputError(origin, dit_quantization_refusal(cls, value.is_object() && value.contains("quant_method") &&
                                                                           value.at("quant_method").is_string()
                                                                       ? value.at("quant_method").get<std::string>()
                                                                       : std::string()));
        throw InputError(origin, fmt::format("\"{}\" is not a {} constructor argument: a Wan-derived model whose extra "
                                             "modules or attention bwacct does not count; bwacct will not guess",
                                             key, cls));
    }
}

}  // namespace

std::string dit_quantization_refusal(const std::string& class_name, const std::string& method) {
    return fmt::format(
        "\"quantization_config\"{}: a quantized {} is not modelled (bwacct counts a DiT's weights in "
        "--dtype); give the unquantized model's config.json",
        method.empty() ? std::string() : fmt::format(" (quant_method \"{}\")", method), class_name);
}

DitConfig parse_dit_object(std::string_view json_text, const std::string& origin) {
    return read_fields(parse_object(json_text, origin, "the preset's \"dit\" object"), origin);
}

TransformerConfig parse_wan_config(std::string_view json_text, const std::string& origin, WanI2v i2v) {
    const json doc = parse_object(json_text, origin, "WanModel's config.json");
    const bool vace = doc.contains("_class_name") && doc.at("_class_name") == "VaceWanModel";
    refuse_foreign_keys(doc, origin, vace);
    // eps null: WanRMSNorm and WanLayerNorm take it and fail when run; refused as diffusers' eps null is (no count
    // depends on eps).
    if (doc.contains("eps") && doc.at("eps").is_null())
        throw InputError(origin, fmt::format("\"eps\" is null, which {} cannot be run with (give a value, or leave the key "
                                             "out for the class's default)",
                                             vace ? "VaceWanModel" : "WanModel"));
    // eps of another type (a string, a boolean, a list) or below 0: the class's norms take it as their epsilon, which
    // must be a non-negative number (torch's layer_norm rejects the others; a negative one can put a NaN in
    // sqrt(var + eps)). No count depends on it; refused naming it rather than ignored.
    if (doc.contains("eps") && (!doc.at("eps").is_number() || doc.at("eps").get<double>() < 0))
        throw InputError(origin, fmt::format("\"eps\" must be a non-negative number (the norms' epsilon, e.g. 1e-06), got {}",
                                             doc.at("eps").dump()));
    TransformerConfig c;
    c.dit = read_fields(doc, origin, i2v);
    const bool wan_i2v = doc.contains("model_type") && doc.at("model_type") == "i2v";
    c.name = vace                              ? "VaceWanModel (vace)"
             : wan_i2v && i2v == WanI2v::wan21 ? "WanModel (i2v, Wan2.1)"
             : wan_i2v                         ? "WanModel (i2v, Wan2.2)"
             : c.dit->image_tokens != 0        ? "WanModel (flf2v)"
             : c.dit->timestep_per_token       ? "WanModel (ti2v)"
                                               : "WanModel (t2v)";
    c.source = vace ? fmt::format("diffusers config.json ({}), class VaceWanModel (Wan2.1 wan/modules/vace_model.py)", origin)
                    : fmt::format("diffusers config.json ({}), class WanModel (Wan{} wan/modules/model.py)", origin,
                                  wan_i2v && i2v == WanI2v::wan22 ? "2.2" : "2.1");
    c.hidden = count_or(doc, origin, "dim", 0, true);
    c.layers = count_or(doc, origin, "num_layers", 0, true);
    c.heads = count_or(doc, origin, "num_heads", 0, true);
    c.ffn = count_or(doc, origin, "ffn_dim", 0, true);
    if (c.hidden % c.heads != 0 || (c.hidden / c.heads) % 2 != 0)
        throw InputError(origin, fmt::format("\"num_heads\" ({}) must divide \"dim\" ({}) into an even head size (RoPE pairs)",
                                             c.heads, c.hidden));
    read_vace(doc, origin, c);
    c.kv_heads = c.heads;
    c.head_dim = c.hidden / c.heads;
    c.mlp = MlpKind::plain;
    c.norm = NormKind::layernorm;
    c.qk_norm = true;
    c.qkv_bias = c.o_bias = true;
    c.limitations.push_back(
        "the reference computes RoPE in float64 and the modulation, gates and head in float32: modelled in --dtype");
    // A fork can keep Wan's config.json and add modules only in its checkpoint (MultiTalk, InfiniteTalk: audio
    // cross-attention in every block, their weights indexed beside Wan2.1-I2V-14B's unchanged config.json): nothing in
    // the file says so, so the output says what it counts.
    c.limitations.push_back(
        "counted: the modules this config.json declares; a fork that keeps Wan's config.json and adds modules only in "
        "its checkpoint (MultiTalk and InfiniteTalk: audio cross-attention in every block; LingBot-World: camera "
        "control) is undercounted by them: compare the parameters with its safetensors index (total_size / bytes per "
        "parameter)");
    return c;
}

}  // namespace bwacct
