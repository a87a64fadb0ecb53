// Model classes bwacct knows and deliberately does not model (hybrid linear-attention / state-space stacks, sparse
// attention with an indexer, MM-DiT image and video transformers): a config.json naming one is refused in one line
// that names the class, the field that makes it so and why, instead of the generic "unsupported architecture".
// Mapping: docs/formulas.md ("Hugging Face config.json").
#pragma once
#include <string>

#include "hf_reader.h"

namespace bwacct::hf {

// Throws InputError (exit 2) when `arch` (an "architectures" entry or a diffusers "_class_name") is a known
// unmodelled class; returns otherwise.
void refuse_unmodelled_class(const Reader& r, const std::string& arch);

// Throws InputError naming the class and the keys Wan's classes do not take when `cls` (a diffusers "_class_name")
// names a Wan-derived class (its name holds "Wan" and the file has Wan's sizes) other than the four bwacct reads;
// returns otherwise.
void refuse_wan_derived_class(const Reader& r, const std::string& cls);

// Throws InputError when the language model's fields describe layers the engine does not model whatever the class
// says: a "layer_types" entry other than full / sliding / chunked attention (linear attention, Mamba), SSM fields
// ("mamba_*", "ssm_*", "linear_attn_config"), a sparse-attention indexer ("index_topk") or MiniMax's
// "attn_type_list" with a lightning-attention layer (0).
void refuse_unmodelled_layers(const Reader& r);

}  // namespace bwacct::hf
