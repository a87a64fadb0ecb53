// The answer first: one line per GPU that says what binds the op and how close the time is to the
// floor ("h200  compute-bound · floor 114.5 µs · given 140 µs = 1.22× floor · 81.8 % of tensor bf16
// dense peak"), and the score that ranks the points of a sweep (best and worst).
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/record.h"

namespace bwacct::detail {

// 140 → "140", 114.46 → "114.5", 1.2231 → "1.22", 0.01234 → "0.0123": a few significant digits.
std::string short_number(double v);

// "hbm-bound", "compute-bound", "overhead-bound (no roof explains half the time)".
std::string bound_text(Roof b);

// One GPU's answer: its id and the line after it.
struct GpuVerdict {
    std::string gpu, text;
};
// The answer first: one line per GPU, the ids padded to the longest ("h200      hbm-bound · floor ...").
// Every table that compares GPUs (ops, layer, model, train, step, project) starts with this block.
void print_verdict_lines(std::FILE* out, const std::vector<GpuVerdict>& lines);

// The verdict line of one GPU (without the padded GPU id in front).
std::string verdict_line(const Record& r, const Verdict& v);

// How well one point does on one GPU, higher is better: at a time, floor / time (1 / x_floor); modelled,
// the fraction of the compute peak the floor reaches (ops with FLOPs) or of the link (collectives).
// Absent when the point has nothing to rank by (a modelled op without FLOPs).
std::optional<double> point_score(const Record& r, const Verdict& v);
std::string score_text(const Record& r, const Verdict& v);  // "1.22× floor", "98.7 % of peak at the floor"

}  // namespace bwacct::detail
