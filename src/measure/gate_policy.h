// Whether timed batches wait behind the spin gate (timing.cu). The gate holds a stream while the host
// enqueues a batch, so the batch runs back to back; a profiler or a checker that serialises every
// launch (Nsight Compute, Nsight Systems' CUDA tracing, compute-sanitizer) makes the gate wait until
// its 1 s timeout on every sample. Such a tool is recognised by the variables it sets in the target's
// environment (CUDA_INJECTION64_PATH, or Nsight Compute's and compute-sanitizer's own). Then, and when
// BWACCT_NO_GATE is set, batches run ungated and the output says so.
#pragma once
#include <functional>
#include <string>

namespace bwacct::measure {

struct GatePolicy {
    bool gated = true;
    std::string why_not;  // when not gated: the reason, for the timing's notes
};

// `env` looks a variable up (nullptr when unset); the default is std::getenv.
GatePolicy gate_policy(const std::function<const char*(const char*)>& env);
GatePolicy gate_policy();

}  // namespace bwacct::measure
