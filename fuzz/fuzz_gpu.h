// The GPU the ingest fuzzers hand to the report builders: the shipped catalog's first entry, loaded
// once (configs/gpus.json, found as Catalog::load_default finds it).
#pragma once
#include <vector>

#include "bwacct/catalog.h"

namespace bwacct::fuzz {

inline std::vector<const GpuSpec*> one_gpu() {
    static const Catalog catalog = Catalog::load_default();
    return {&catalog.gpus().front()};
}

}  // namespace bwacct::fuzz
