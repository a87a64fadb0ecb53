// `bwacct ingest torch-trace`: the time accounting's report parts (Summary::time, kineto_timeline.cpp):
// the window section (per step, mean step, profiled window, whole trace), idle time per stream, and
// the answer-first summary.
#pragma once
#include <vector>

#include "bwacct/ingest.h"
#include "bwacct/ingest_kineto.h"

namespace bwacct::cli {

Section window_section(const kineto::Summary& s);
Section stream_section(const kineto::Summary& s);

// `record_group[i]`: the group record i was made from. Records carry their verdicts on the analysed
// GPUs (the first GPU's is used); without GPUs the bounds and roof losses are left out.
IngestSummary torch_summary(const kineto::Summary& s, const std::vector<Record>& records,
                            const std::vector<const kineto::Group*>& record_group, double unanalysed_us);

}  // namespace bwacct::cli
