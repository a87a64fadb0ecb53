// One evaluated point: the op's parameters, its cost, and one verdict per selected GPU.
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bwacct/cost.h"
#include "bwacct/measurement.h"
#include "bwacct/record_source.h"
#include "bwacct/roofline.h"

namespace bwacct {

using ParamValue = std::variant<std::uint64_t, double, std::string, bool>;
struct Param {
    std::string name;
    ParamValue value;
};

// The fused alternative of an elementwise chain (Record::cost is the unfused chain).
struct FusionResult {
    Cost fused;
    std::vector<Verdict> verdicts;
};

struct Record {
    std::vector<Param> params;
    Cost cost;
    TimeSource source = TimeSource::modelled;
    std::vector<Verdict> verdicts;
    std::optional<FusionResult> fusion;
    std::optional<Measurement> measurement;  // when the time was measured (or simulated)
};

}  // namespace bwacct
