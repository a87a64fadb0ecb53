// Where a time comes from. Every output carries this label.
#pragma once
#include <string_view>

namespace bwacct {

// ingested: measured by another tool (nccl-tests, PyTorch profiler, Nsight, BabelStream) and read
// from its output file by `bwacct ingest`.
enum class TimeSource { modelled, given, measured, simulated, ingested };
std::string_view time_source_name(TimeSource s);

}  // namespace bwacct
