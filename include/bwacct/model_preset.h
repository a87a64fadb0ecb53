// Model presets (configs/models/<id>.json, schema "bwacct.model/1"): an architecture with its source.
// Parsing is pure (src/model/model_preset.cpp); finding and reading the file is I/O
// (src/shipped/model_presets.cpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/transformer.h"

namespace bwacct {

// Parses preset JSON. `origin` names the file in errors (InputError with option = origin).
TransformerConfig parse_model_preset(std::string_view json_text, const std::string& origin);

// The ids of the shipped presets ("llama3-70b", "llama3-8b"), sorted: those compiled into the binary
// (configs/models/ at build time), or the files of $BWACCT_MODELS when it is set.
std::vector<std::string> model_preset_ids();
// Loads a preset by id (compiled in, or a file in $BWACCT_MODELS) or by path (anything with a '/' or ending in
// ".json"). Throws InputError naming `option` (and listing the ids) when it cannot.
TransformerConfig load_model_preset(const std::string& id_or_path, const std::string& option);

}  // namespace bwacct
