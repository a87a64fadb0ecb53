// Sampling and statistics, shared by every backend (pure: no GPU, no clock of its own).
#pragma once
#include <functional>
#include <vector>

#include "backend.h"

namespace bwacct::measure {

// Median, min, max, mean and coefficient of variation (population standard deviation / mean).
Stats summarize(const std::vector<double>& samples_us);

// Runs `one_sample` (returns one sample in µs) policy.warmup times unrecorded, then records samples
// until at least min_samples are in and the CV is at most target_cv, or max_samples are in, or the
// recorded time exceeds budget_ms. Returns the samples and their statistics.
Timing sample(const SamplePolicy& policy, const std::function<double()>& one_sample);

}  // namespace bwacct::measure
