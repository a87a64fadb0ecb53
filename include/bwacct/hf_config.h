// Hugging Face `config.json` → TransformerConfig (`--hf-config FILE`). The architecture (the first
// entry of "architectures") picks the mapping; a field that changes the arithmetic and is not
// modelled, an unknown architecture or a malformed field is an InputError naming it and the file.
// Fields read but deliberately not modelled (sliding windows, logit soft-capping, quantization,
// the multi-token-prediction module, a multimodal wrapper's vision tower) are listed in
// TransformerConfig::limitations, and every report repeats them. Mapping: docs/formulas.md ("Hugging Face config.json").
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/transformer.h"

namespace bwacct {

// Parses config.json text. `origin` ("--hf-config path") prefixes every error. `wan_i2v`: whose an "i2v" WanModel
// config.json is (--wan-i2v; unstated: refused).
TransformerConfig parse_hf_config(std::string_view json_text, const std::string& origin, WanI2v wan_i2v = WanI2v::unstated);
// Reads and parses `path`; errors name `option` and the path.
TransformerConfig load_hf_config(const std::string& path, const std::string& option, WanI2v wan_i2v = WanI2v::unstated);
// The architectures the reader maps ("LlamaForCausalLM", ..., and the multimodal wrappers whose text_config it
// reads, "Gemma3ForConditionalGeneration", ...).
std::vector<std::string> hf_architectures();

}  // namespace bwacct
