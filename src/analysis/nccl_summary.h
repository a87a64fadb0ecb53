// The answer first for an nccl-tests run: a few lines built from the run's own sections (rows, α–β
// fit, peak), so the summary can never disagree with the tables under it.
#pragma once
#include <string>
#include <vector>

#include "bwacct/ingest.h"

namespace bwacct {

// A byte count in IEC units with four significant digits: "38.41 MiB".
std::string size_text(double bytes);

// `hosts`: how many hosts the ranks span (0 or 1: one host); `hosts_at_least`: the log lists only some
// of its ranks, so they span at least that many.
std::vector<std::string> nccl_run_summary(const IngestRun& run, std::size_t hosts, bool hosts_at_least = false);

}  // namespace bwacct
