// The verdict on one row of a baseline comparison (a metric present in both runs), shared by
// compare_nccl (bus bandwidth: lower is worse) and compare_traces (time: higher is worse).
#pragma once

#include <string>

namespace bwacct {

enum class Worse { when_lower, when_higher };

// change = new / baseline − 1. Beyond the tolerance in the worse direction: "regressed"; beyond it in
// the other: "improved"; else "same" (a change of exactly ±tolerance is "same").
inline std::string baseline_verdict(double change, double tolerance, Worse worse) {
    const double worsened = worse == Worse::when_higher ? change : -change;
    if (worsened > tolerance)
        return "regressed";
    if (worsened < -tolerance)
        return "improved";
    return "same";
}

}  // namespace bwacct
