// EXAONE 3.0 / 3.5's config.json (ExaoneForCausalLM, LG AI Research's remote code) names Llama's fields its own way
// ("num_layers", "activation_function"); this reads them into the names of Llama's config, whose block EXAONE 3's is
// (docs/formulas.md, "Hugging Face config.json").
#pragma once
#include "hf_dbrx.h"

namespace bwacct::hf {

// ExaoneConfig's defaults are taken where config.json leaves a field out (each named in the limitations).
Translated exaone_as_llama(const Reader& top);

}  // namespace bwacct::hf
