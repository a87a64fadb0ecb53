// What a measurement produced: samples, statistics and how they were taken. Plain data, shared by
// the backends (src/measure/) and the renderers (src/report/).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/record_source.h"

namespace bwacct {

struct Stats {
    std::size_t n = 0;
    double median_us = 0, min_us = 0, max_us = 0, mean_us = 0, cv = 0;
};

// SM and memory clocks (MHz) as the driver reports them; 0 = unknown.
struct Clocks {
    double sm_MHz = 0, mem_MHz = 0;
};

// One kernel seen by CUPTI during the measurement.
struct KernelRecord {
    std::string name;
    std::uint64_t count = 0;
    double total_us = 0;
};

struct Timing {
    std::vector<double> samples_us;
    Stats stats;
    TimeSource source = TimeSource::measured;
    std::string cache;                             // "cold: L2 flushed before each sample", "hot: ...", ...
    std::string timer;                             // "CUDA events around a batch gated by a spin kernel"
    std::string verification;                      // what was checked ("every element against the host", ...)
    std::string detail;                            // e.g. "cuBLASLt heuristic candidate 2 of 8 (fastest)"
    std::vector<KernelRecord> kernels;             // from CUPTI, when available
    std::optional<std::uint64_t> dram_bytes_read;  // from CUPTI range profiling, when permitted
    std::optional<std::uint64_t> dram_bytes_written;
    Clocks clocks_before, clocks_after;
    std::vector<std::string> notes;  // e.g. "CUPTI not available: no kernel list"
};

struct DeviceInfo {
    int index = 0;
    std::string name;  // cudaDeviceProp::name
    std::string uuid;  // "GPU-xxxxxxxx-..."
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::uint64_t l2_bytes = 0;
    std::uint64_t memory_bytes = 0;
    int memory_bus_bits = 0;
    double memory_clock_MHz = 0;  // cudaDevAttrMemoryClockRate
    double sm_clock_MHz = 0;      // cudaDevAttrClockRate
    double derived_hbm_GBps = 0;  // bus bits / 8 × memory clock × 2 (DDR)
    int visible_devices = 1;      // cudaGetDeviceCount: the GPUs this process sees (CUDA_VISIBLE_DEVICES applies)
};

// Roofs measured on one device by `bwacct calibrate`: what this GPU really reaches.
struct Calibration {
    std::string uuid, name, backend, measured_at;  // measured_at: ISO 8601 UTC
    double hbm_GBps = 0;                           // best of the copy and triad kernels (bytes = reads + writes)
    double bf16_tflops = 0;                        // cuBLASLt bf16 GEMM 8192³
    double launch_us = 0;                          // per dependent empty kernel on a stream
    std::vector<std::string> notes;                // e.g. HBM arrays reduced after running out of memory (not cached)
};

// A measurement attached to a record: the backend, the device and the timing.
struct Measurement {
    std::string backend;  // "cuda" or "simulated"
    DeviceInfo device;
    std::string catalog_match;  // catalog id of this device, or empty
    Timing timing;
    int ranks = 1;                          // MPI ranks whose times were reduced (average; min and max in notes)
    std::optional<Calibration> achievable;  // this device's calibrated roofs, when cached
};

}  // namespace bwacct
