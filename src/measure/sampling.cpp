#include "sampling.h"

#include "bwacct/median.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace bwacct::measure {

Stats summarize(const std::vector<double>& samples_us) {
    Stats s;
    s.n = samples_us.size();
    if (s.n == 0)
        return s;
    std::vector<double> v = samples_us;
    std::sort(v.begin(), v.end());
    s.min_us = v.front();
    s.max_us = v.back();
    s.median_us = median_of(v);
    s.mean_us = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(s.n);
    double ss = 0;
    for (double x : v)
        ss += (x - s.mean_us) * (x - s.mean_us);
    s.cv = s.mean_us > 0 ? std::sqrt(ss / static_cast<double>(s.n)) / s.mean_us : 0;
    return s;
}

Timing sample(const SamplePolicy& policy, const std::function<double()>& one_sample) {
    for (int i = 0; i < policy.warmup; ++i)
        (void)one_sample();
    Timing t;
    double spent_us = 0;
    while (static_cast<int>(t.samples_us.size()) < policy.max_samples) {
        const double us = one_sample();
        t.samples_us.push_back(us);
        spent_us += us;
        const int n = static_cast<int>(t.samples_us.size());
        if (n >= policy.min_samples && summarize(t.samples_us).cv <= policy.target_cv)
            break;
        if (n >= policy.min_samples && spent_us >= policy.budget_ms * 1e3)
            break;
    }
    t.stats = summarize(t.samples_us);
    return t;
}

std::string_view hbm_kernel_name(HbmKernel k) {
    switch (k) {
        case HbmKernel::copy:
            return "copy";
        case HbmKernel::read:
            return "read";
        case HbmKernel::write:
            return "write";
        case HbmKernel::triad:
            return "triad";
    }
    return "?";
}

std::uint64_t hbm_bytes_moved(HbmKernel k, std::uint64_t array_bytes) {
    switch (k) {
        case HbmKernel::copy:  // b = a: read a, write b
            return 2 * array_bytes;
        case HbmKernel::read:   // sum of a: read a
        case HbmKernel::write:  // a = x: write a
            return array_bytes;
        case HbmKernel::triad:  // a = b + s·c: read b, c, write a
            return 3 * array_bytes;
    }
    return 0;
}

}  // namespace bwacct::measure
