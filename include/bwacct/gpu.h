// One GPU's figures, each with its source (configs/gpus.json; docs/catalog.md).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/cost.h"

namespace bwacct {

struct Figure {
    double value = 0;
    std::string source;
    std::string note;
    struct Alternative {
        double value = 0;
        std::string source;
        std::string note;
    };
    std::vector<Alternative> alternatives;
};

struct Link {
    std::string name;
    Figure bw_GBps;  // per direction
    bool nvls = false;
    std::optional<Figure> step_latency_us;
};

struct GpuSpec {
    std::string id, name, vendor, arch;
    std::vector<std::string> match;
    std::optional<Figure> sm_count, boost_clock_MHz, l2_bytes, hbm_capacity_bytes;
    Figure hbm_bw_GBps;
    std::map<std::string, Figure> tensor_tflops;  // dense peaks by catalog key (bf16, fp8, ...)
    std::map<std::string, Figure> vector_tflops;
    std::optional<Link> scaleup_link;
    std::optional<Link> pcie;
    Figure launch_overhead_us;

    // The dense peak for `unit` and catalog key, or nullptr when the GPU has none.
    const Figure* peak(Unit unit, std::string_view key) const;
};

}  // namespace bwacct
