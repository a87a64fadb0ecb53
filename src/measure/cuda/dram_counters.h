// DRAM bytes of one untimed run of an op, from the CUPTI Range Profiler (CUDA 12.6+ API:
// cupti_range_profiler.h with cupti_profiler_host.h; libcupti loaded with dlopen, and libcupti in
// turn loads libnvperf_host for the metric evaluation).
#pragma once
#include <cstdint>
#include <functional>

#include "../backend.h"

namespace bwacct::measure::cuda {

// Runs `run_once` (enqueues ONE iteration of the op on `device` and waits for it) with
// dram__bytes_read.sum and dram__bytes_write.sum collected per kernel (auto range, kernel replay),
// sums them over the kernels, fills t.dram_bytes_read / t.dram_bytes_written and adds the note
// "DRAM bytes measured by CUPTI: read X, written Y (lower bound: R, W)". When CUPTI cannot profile
// here (library missing, not permitted, device or configuration not supported) it adds ONE note
// saying why and leaves the fields empty. Errors thrown by `run_once` itself propagate.
void add_dram_bytes(Timing& t, int device, std::uint64_t lower_read, std::uint64_t lower_written,
                    const std::function<void()>& run_once);

}  // namespace bwacct::measure::cuda
