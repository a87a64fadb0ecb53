// Mistral's native params.json (mistral-inference's TransformerArgs: "dim", "n_layers", "head_dim", "hidden_dim",
// "n_heads", "n_kv_heads", "vocab_size"), which Mistral's repositories ship beside or instead of config.json
// (Devstral-Small-2507 has only it): read into the names of MistralForCausalLM's config, or MixtralForCausalLM's with
// "moe" (docs/formulas.md, "Hugging Face config.json").
#pragma once
#include "hf_dbrx.h"

namespace bwacct::hf {

// A JSON object with neither "architectures" nor "_class_name" but mistral-inference's "dim" and "n_layers".
bool is_mistral_params(const json& doc);

// The class it is read as: MixtralForCausalLM with a non-null "moe", else MistralForCausalLM.
const char* mistral_params_class(const json& doc);

// Every key outside TransformerArgs' that bwacct reads or knows to change nothing is refused by name (Meta's original
// Llama params.json with "multiple_of", DeepSeek's inference configs), as are "lora", a per-layer "sliding_window" list
// and a "model_type" other than "transformer".
Translated mistral_params_as_hf(const Reader& top);

}  // namespace bwacct::hf
