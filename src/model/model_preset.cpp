// Parses a model preset (schema "bwacct.model/1"). Every size is a positive integer; the source is
// required, so every preset says where its numbers come from.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

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
    c.vocab = positive(doc, origin, "vocab");
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
    if (c.heads % c.kv_heads != 0)
        throw InputError(origin, fmt::format("\"kv_heads\" ({}) must divide \"heads\" ({})", c.kv_heads, c.heads));
    if (c.head_dim == 0 && c.hidden % c.heads != 0)
        throw InputError(origin, "\"heads\" must divide \"hidden\", or give \"head_dim\"");
    return c;
}

}  // namespace bwacct
