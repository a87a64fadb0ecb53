// The HBM peak a Kineto trace's tensor-list shapes inferred from its parameter inventory are checked against
// (docs/ingest.md, "Tensor lists written []"): chosen once per trace, the baseline's by its own GPU.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bwacct/catalog.h"
#include "bwacct/ingest_kineto.h"

namespace bwacct::cli {

// The trace's own GPU's catalog HBM peak (`device_name`: trace_gpu_name, matched in `catalog`), else the highest
// among the --gpu given (`given`; a tie goes to the smaller catalog id: one answer whatever their order), else none
// (nothing inferred).
std::optional<kineto::HbmRoof> inventory_hbm(const std::string& device_name, const Catalog& catalog,
                                             const std::vector<const GpuSpec*>& given);

}  // namespace bwacct::cli
