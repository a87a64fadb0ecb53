// Parses a model preset (schema "bwacct.model/1"). Every size is a positive integer; the source is
// required, so every preset says where its numbers come from.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bwacct/dit.h"
#include "bwacct/error.h"
#include "bwacct/model_preset.h"

namespace bwacct {
namespace {

using json = nlohmann::json;

std::uint64_t positive(const json& doc, const std::string& origin, const char* key, bool required = true) {
    if (!doc.contains(key)) {
        if (required)
            throw InputError(origin, fmt::format("missing \"{}\" (a positive integer)", key));
        return 0;
    }
    const json& v = doc.at(key);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0)
        throw InputError(origin, fmt::format("\"{}\" must be a positive integer", key));
    return v.get<std::uint64_t>();
}

// A non-negative integer, 0 when absent.
std::uint64_t natural(const json& doc, const std::string& origin, const char* key) {
    if (!doc.contains(key))
        return 0;
    if (!doc.at(key).is_number_unsigned())
        throw InputError(origin, fmt::format("\"{}\" must be a non-negative integer", key));
    return doc.at(key).get<std::uint64_t>();
}

std::string text(const json& doc, const std::string& origin, const char* key) {
    if (!doc.contains(key) || !doc.at(key).is_string() || doc.at(key).get<std::string>().empty())
        throw InputError(origin, fmt::format("missing \"{}\" (a non-empty string)", key));
    return doc.at(key).get<std::string>();
}

}  // namespace

TransformerConfig parse_model_preset(std::string_view json_text, const std::string& origin) {
    json doc;
    try {
        doc = json::parse(json_text);
    } catch (const json::parse_error& e) {
        throw InputError(origin, fmt::format("not valid JSON (at byte {}); expected a bwacct model preset", e.byte));
    } catch (const json::out_of_range&) {  // a number beyond a double's range (1e999)
        throw InputError(origin, "a number is too large for a double; expected a bwacct model preset");
    }
    if (!doc.is_object())
        throw InputError(origin, "expected an object with \"schema\": \"bwacct.model/1\"");
    const std::string schema = text(doc, origin, "schema");
    if (schema != "bwacct.model/1")
        throw InputError(origin, fmt::format("expected schema \"bwacct.model/1\", got \"{}\"", schema));
    TransformerConfig c;
    c.name = text(doc, origin, "name");
    c.source = text(doc, origin, "source");
    c.hidden = positive(doc, origin, "hidden");
    c.layers = positive(doc, origin, "layers");
    c.heads = positive(doc, origin, "heads");
    c.kv_heads = positive(doc, origin, "kv_heads");
    c.head_dim = positive(doc, origin, "head_dim", false);
    c.ffn = positive(doc, origin, "ffn");
    c.vocab = positive(doc, origin, "vocab", !doc.contains("dit"));  // a diffusion transformer has no vocabulary
    if (doc.contains("dit"))
        c.dit = parse_dit_object(doc.at("dit").dump(), origin + " dit");
    c.mlp = parse_mlp(doc.contains("mlp") ? text(doc, origin, "mlp") : "gated", origin + " mlp");
    const std::string norm = doc.contains("norm") ? text(doc, origin, "norm") : "rmsnorm";
    if (norm == "rmsnorm")
        c.norm = NormKind::rmsnorm;
    else if (norm == "layernorm")
        c.norm = NormKind::layernorm;
    else
        throw InputError(origin, fmt::format("\"norm\" must be rmsnorm or layernorm, got \"{}\"", norm));
    if (doc.contains("tied_embeddings")) {
        if (!doc.at("tied_embeddings").is_boolean())
            throw InputError(origin, "\"tied_embeddings\" must be true or false");
        c.tied_embeddings = doc.at("tied_embeddings").get<bool>();
    }
    for (const auto& [key, member] :
         {std::pair{"qk_norm", &TransformerConfig::qk_norm}, std::pair{"qkv_bias", &TransformerConfig::qkv_bias},
          std::pair{"o_bias", &TransformerConfig::o_bias}, std::pair{"mlp_bias", &TransformerConfig::mlp_bias},
          std::pair{"gelu_gate", &TransformerConfig::gelu_gate}})
        if (doc.contains(key)) {
            if (!doc.at(key).is_boolean())
                throw InputError(origin, fmt::format("\"{}\" must be true or false", key));
            c.*member = doc.at(key).get<bool>();
        }
    if (doc.contains("block_norms")) {
        c.block_norms = positive(doc, origin, "block_norms");
        if (c.block_norms != 2 && c.block_norms != 4)
            throw InputError(origin, "\"block_norms\" must be 2 (pre-norm) or 4 (pre- and post-norm, Gemma)");
    }
    if (doc.contains("moe")) {
        const json& m = doc.at("moe");
        if (!m.is_object())
            throw InputError(origin, "\"moe\" must be an object {experts, top_k, expert_ffn, shared_experts, dense_layers}");
        const std::string o = origin + " moe";
        MoeConfig e;
        e.experts = positive(m, o, "experts");
        e.top_k = positive(m, o, "top_k");
        e.expert_ffn = positive(m, o, "expert_ffn");
        e.shared_experts = natural(m, o, "shared_experts");
        e.dense_layers = natural(m, o, "dense_layers");
        if (m.contains("router_bias")) {
            if (!m.at("router_bias").is_boolean())
                throw InputError(o, "\"router_bias\" must be true or false");
            e.router_bias = m.at("router_bias").get<bool>();
        }
        if (e.top_k > e.experts)
            throw InputError(o, fmt::format("\"top_k\" ({}) must not exceed \"experts\" ({})", e.top_k, e.experts));
        if (e.dense_layers > c.layers)
            throw InputError(o, fmt::format("\"dense_layers\" ({}) exceeds \"layers\" ({})", e.dense_layers, c.layers));
        c.moe = e;
        // mlp_bias is LlamaMLP's (a dense MLP's gate, up and down); experts with biases are not modelled.
        if (c.mlp_bias)
            throw InputError(origin,
                             "\"mlp_bias\": true with \"moe\" is not modelled (biases on a dense MLP only: gate, up, "
                             "down); drop one of them");
    }
    if (doc.contains("mla")) {
        const json& m = doc.at("mla");
        if (!m.is_object())
            throw InputError(
                origin, "\"mla\" must be an object {q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim}");
        const std::string o = origin + " mla";
        MlaConfig a;
        a.q_lora_rank = natural(m, o, "q_lora_rank");
        a.kv_lora_rank = positive(m, o, "kv_lora_rank");
        a.qk_nope_head_dim = positive(m, o, "qk_nope_head_dim");
        a.qk_rope_head_dim = positive(m, o, "qk_rope_head_dim");
        a.v_head_dim = positive(m, o, "v_head_dim");
        c.mla = a;
        c.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    }
    if (doc.contains("limitations")) {
        const json& l = doc.at("limitations");
        if (!l.is_array())
            throw InputError(origin, "\"limitations\" must be a list of strings");
        for (const json& x : l) {
            if (!x.is_string())
                throw InputError(origin, "\"limitations\" must be a list of strings");
            c.limitations.push_back(x.get<std::string>());
        }
    }
    if (c.heads % c.kv_heads != 0)
        throw InputError(origin, fmt::format("\"kv_heads\" ({}) must divide \"heads\" ({})", c.kv_heads, c.heads));
    if (c.head_dim == 0 && c.hidden % c.heads != 0)
        throw InputError(origin, "\"heads\" must divide \"hidden\", or give \"head_dim\"");
    return c;
}

}  // namespace bwacct
