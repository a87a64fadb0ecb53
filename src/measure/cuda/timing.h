// CUDA event timing shared by every CUDA measurement (implemented in timing.cu).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>

#include "../backend.h"

namespace bwacct::measure::cuda {

// Throws MeasureError("CUDA error in <what>: <cudaGetErrorString>") unless e == cudaSuccess;
// OutOfMemory("out of GPU memory in <what>: ...") for cudaErrorMemoryAllocation (cleared first).
void check(cudaError_t e, const char* what);

struct Region {
    cudaStream_t stream = nullptr;
    int device = 0;
    bool flush_l2 = true;  // write a buffer of at least the L2 size before each sample ("cold")
    int max_batch = 0;     // most iterations per sample (0: time_region's own cap); bounds the queue behind the gate
};

// Times `enqueue`, which puts ONE iteration of the op on r.stream. Per sample: flush L2 when asked,
// hold the stream behind a spin kernel, record a start event, enqueue a batch of iterations (batch
// sized once so a sample lasts about 100 µs or more; 1 when flushing, since each iteration must
// start cold), record a stop event, release the spin kernel, synchronize; the sample is the event
// time divided by the batch. Warm-up, stop-on-noise and the budget follow `p` (sampling.h).
// Fills samples, stats, timer and cache of the returned Timing; the caller adds the rest.
Timing time_region(const Region& r, const SamplePolicy& p, const std::function<void(cudaStream_t)>& enqueue);

// The SM and memory clocks now (NVML, loaded at run time); zeros when NVML is unavailable.
Clocks read_clocks(int device);
// NVML's clock-event (throttle) reasons of the device now (clock_events.h), or nothing.
std::optional<std::uint64_t> clock_event_reasons(int device);

}  // namespace bwacct::measure::cuda
