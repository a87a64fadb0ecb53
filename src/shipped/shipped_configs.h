// The configs/ compiled into the binary (generated at build time by tools/gen_shipped_configs.cpp
// from configs/gpus.json and configs/models/*.json, which stay the source of truth).
#pragma once
#include <string>
#include <vector>

#include "bwacct/gpu.h"

namespace bwacct::shipped {

// The catalog entries of configs/gpus.json, in the file's order, as the catalog loader read them.
std::vector<GpuSpec> gpus();

// A model preset: its id (the file's stem) and its JSON text, sorted by id.
struct Preset {
    std::string id;
    std::string text;
};
const std::vector<Preset>& model_presets();

}  // namespace bwacct::shipped
