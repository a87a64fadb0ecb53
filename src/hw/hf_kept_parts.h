// Which parts of every block a quantised checkpoint keeps out of its format (quantization_config's module lists),
// decided by matching each entry against the block's linear modules as transformers names them. Mapping:
// docs/formulas.md ("Hugging Face config.json").
#pragma once
#include <regex>
#include <string>
#include <vector>

#include "bwacct/transformer.h"

namespace bwacct::hf {

// The module names' conventions of a family: the MLP's container ("mlp"; Llama 4 "feed_forward") and its shared
// experts' ("shared_experts"; Qwen2-MoE and Llama 4 "shared_expert").
struct ModuleNames {
    std::string mlp = "mlp";
    std::string shared = "shared_experts";
};

// A module-list entry, read once: "re:" entries are regular expressions matched from the start of a module's name
// (compressed-tensors), others a dotted path ("*": any characters, as fnmatch) found at component boundaries anywhere in the name
// (transformers' modules_to_not_convert; a trailing "." or "$" dropped). names(m): the entry names m or a module above it.
class ModuleEntry {
public:
    explicit ModuleEntry(const std::string& entry);
    bool names(const std::string& module) const;

private:
    std::string path_;  // a path without "*": found by string search (module lists may hold thousands)
    std::regex re_;
    bool valid_ = true;
    bool from_start_ = false;  // a "re:" entry: matched from the name's first character
    // The entry names the language model of a multimodal wrapper: the modules are also tried under its prefixes
    // ("model.language_model.layers." since transformers 4.52, "language_model.model.layers." before).
    bool language_model_ = false;
    bool names_one(const std::string& module) const;
};

// The parts of `c` whose every linear module, in every layer that has the part, is named by some entry of `entries`;
// `unexplained` gets the entries that name some block module outside those parts, or none of them.
TransformerConfig::KeptParts kept_parts(const std::vector<std::string>& entries, const TransformerConfig& c,
                                        const ModuleNames& names, std::vector<std::string>& unexplained);

}  // namespace bwacct::hf
