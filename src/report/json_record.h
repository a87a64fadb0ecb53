// A Record as JSON (contract: docs/json.md). Internal to src/report.
#pragma once
#include <nlohmann/json.hpp>

#include "bwacct/record.h"

namespace bwacct::detail {

inline constexpr const char* kOpSchema = "bwacct.op/1";
nlohmann::ordered_json record_json(const Record& r, bool explain);

}  // namespace bwacct::detail
