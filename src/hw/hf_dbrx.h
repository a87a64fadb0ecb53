// DBRX's config.json (DbrxForCausalLM) names its fields its own way and nests the attention and MoE ones
// ("attn_config", "ffn_config"); this reads them into the names of Mixtral's config, whose block DBRX's is
// (docs/formulas.md, "Hugging Face config.json").
#pragma once
#include <string>
#include <vector>

#include "hf_reader.h"

namespace bwacct::hf {

struct Translated {
    json fields;                           // the same model under Mixtral's field names
    std::vector<std::string> limitations;  // what DBRX does that Mixtral's block does not, stated in every report
};

// Throws InputError naming the nested field ("ffn_config.moe_num_experts") when one is missing or malformed.
Translated dbrx_as_mixtral(const Reader& top);

}  // namespace bwacct::hf
