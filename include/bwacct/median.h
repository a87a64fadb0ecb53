// The median of a sample, as nsys, Nsight Compute and bwacct's own timing loops report it.
#pragma once
#include <algorithm>
#include <vector>

namespace bwacct {

// The middle value of `v` in sorted order, the mean of the two middle values for an even count; `v` is not empty.
inline double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace bwacct
