// A Record as JSON (contract: docs/json.md). Internal to src/report.
#pragma once
#include <string>

#include "bwacct/record.h"

namespace bwacct::detail {

inline constexpr const char* kOpSchema = "bwacct.op/1";
// Compact, one line: the form of JSONL and of sweep arrays; pretty output re-indents it.
std::string record_json(const Record& r, bool explain);

}  // namespace bwacct::detail
