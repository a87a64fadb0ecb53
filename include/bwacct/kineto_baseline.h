// `bwacct ingest torch-trace new.json.gz --baseline old.json.gz [--tolerance 5%]`: two PyTorch
// profiler traces compared by GPU time, per category and per (op, shape, dtype) group, the same
// categories and groups the torch-trace report builds (docs/ingest.md, "Against a baseline").
//
// The time of a row is its kernels' durations inside the profiled window of its own trace
// (Timeline::activity_window_us: cut activities count their part inside): per step (the window's time
// / its ProfilerStep count) when both windows are ProfilerStep windows, else the window's total. A
// row regresses when that time grows by more than the tolerance: now / baseline − 1 > tolerance.
// Rows with time in one window only are "new" or "vanished" (never a regression by themselves: their
// time is in their category's row). Pure (src/analysis/kineto_baseline.cpp).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "bwacct/ingest.h"
#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

struct TraceBaseline {
    Section section;                       // key "baseline": one row per category, then one per group
    bool per_step = false;                 // times per ProfilerStep (else window totals)
    std::size_t compared = 0;              // rows with time in both windows
    std::size_t regressed = 0;             // of them, grew beyond the tolerance (categories and groups)
    std::vector<std::string> regressions;  // "aten::mm M=.. N=.. K=.. bf16 +50.0 %", worst first
    std::vector<std::string> lines;        // the summary: what was compared, the worst change, window notes
};

// `tolerance`: a fraction (0.05 for 5 %); `base_name`: the baseline's path, for the titles.
TraceBaseline compare_traces(const Summary& now, const Summary& base, double tolerance, const std::string& base_name);

}  // namespace bwacct::kineto
