// Granite 4.0's config.json (GraniteMoeHybridForCausalLM): a stack of Mamba-2 and attention layers ("layer_types").
// One whose every layer is attention (Granite-4.0-Micro) is GraniteMoeShared's block, or Granite's dense block when it
// has no routed experts; any Mamba layer is refused naming them (docs/formulas.md, "Hugging Face config.json").
#pragma once
#include "hf_dbrx.h"

namespace bwacct::hf {

// The fields under GraniteMoeShared's (or Granite's) names and the class to read them as; throws InputError naming
// "layer_types" when a layer is a Mamba layer (GraniteMoeHybridConfig: absent or empty, every layer is).
Translated granite_hybrid_as_granite(const Reader& top, std::string& arch);

}  // namespace bwacct::hf
