// CUPTI Activity API (cupti_activity.cpp; CUPTI loaded with dlopen): kernel names, counts and
// kernel-only durations during a measurement.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../backend.h"

namespace bwacct::measure::cuda {

class KernelActivity {
public:
    // Starts recording concurrent-kernel activity. When CUPTI cannot be loaded or subscribed, the
    // session is inert and note() says why in one line; measurements go on without it.
    KernelActivity();
    ~KernelActivity();
    KernelActivity(const KernelActivity&) = delete;
    KernelActivity& operator=(const KernelActivity&) = delete;

    // Flushes and returns the kernels seen since construction, grouped by name.
    std::vector<KernelRecord> stop();
    const std::string& note() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The kernels of one extra, untimed run of the op (`run_once` must synchronize): tracing stays out
// of the timed samples, whose launches it would slow, and sees only the op's own kernels, never the
// spin gate, L2 flush, fill or check kernels around them. Stores them in t.kernels (and CUPTI's note,
// when it could not trace, in t.notes).
void trace_one_run(Timing& t, const std::function<void()>& run_once);

}  // namespace bwacct::measure::cuda
