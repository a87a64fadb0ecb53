// Out of GPU memory in the HBM benchmark: retry at half the array size, down to a floor, and say
// so. Backend-independent (the CUDA and the simulated backend both throw OutOfMemory); the
// bandwidth of a stream kernel does not depend on the array size once the arrays are well beyond
// the L2, so a smaller array measures the same roof. Below the floor the L2 would serve part of the
// traffic: then the measurement fails instead.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>

#include "backend.h"
#include "failure_text.h"

namespace bwacct::measure {

// Arrays smaller than this are not tried: 2 × the L2 size (no array fits in the cache), or 64 MiB
// when the L2 size is unknown.
inline std::uint64_t hbm_floor_bytes(const DeviceInfo& d) {
    return d.l2_bytes > 0 ? 2 * d.l2_bytes : std::uint64_t{64} * 1024 * 1024;
}

struct HbmRun {
    std::uint64_t array_bytes = 0;  // the size measured (the requested one, or smaller after running out of memory)
    Timing timing;                  // with a note when the size was reduced
};

// b.hbm(k, array_bytes, p); on OutOfMemory, again at half the size (rounded down to a multiple of
// 64 bytes, so every element type divides it) while that stays at or above floor_bytes.
inline HbmRun hbm_fitting(Backend& b, HbmKernel k, std::uint64_t array_bytes, std::uint64_t floor_bytes, const SamplePolicy& p) {
    std::uint64_t size = array_bytes;
    for (;;) {
        try {
            HbmRun run{size, b.hbm(k, size, p)};
            if (size != array_bytes)
                run.timing.notes.push_back(oom_retry_note(array_bytes, size));
            return run;
        } catch (const OutOfMemory& e) {
            const std::uint64_t half = size / 2 / 64 * 64;
            if (half < floor_bytes || half == 0)
                throw MeasureError(fmt::format(
                    "out of GPU memory for the {} kernel at {} per array{}; arrays below {} are not tried (the L2 cache "
                    "would serve part of the traffic): free GPU memory and retry ({})",
                    hbm_kernel_name(k), iec_size(array_bytes),
                    size != array_bytes ? fmt::format(" and still at {}", iec_size(size)) : std::string(), iec_size(floor_bytes),
                    e.what()));
            size = half;
        }
    }
}

}  // namespace bwacct::measure
