// What the CUDA runtime says about one GPU, and a scope that makes a GPU current.
#pragma once
#include <cstdint>
#include <string>

#include "../backend.h"

namespace bwacct::measure::cuda {

// Name, UUID, compute capability, SMs, L2, memory, bus width and clocks of GPU `index` (CUDA's
// numbering, after CUDA_VISIBLE_DEVICES). Throws MeasureError on a CUDA error.
DeviceInfo query_device(int index);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from the 16 bytes of cudaDeviceProp::uuid, in lower-case
// hex as nvidia-smi prints it.
std::string format_uuid(const unsigned char (&bytes)[16]);

// Peak DRAM bandwidth from the bus width and the memory clock, double data rate:
//   GB/s = bus_bits / 8 × mem_clock_kHz × 1e3 × 2 / 1e9
// HBM2e/HBM3/HBM3e report their clock in this DDR convention (cudaDevAttrMemoryClockRate is half the
// per-pin data rate): H100 SXM 5120 bits at 2 619 000 kHz → 640 B × 2.619e9 × 2 = 3352 GB/s, the
// datasheet's 3.35 TB/s. 0 when either input is unknown.
double derived_hbm_GBps(int bus_bits, double mem_clock_kHz);

// Makes `device` current for the scope and restores the previous one after (errors on restore are
// ignored: a destructor must not throw).
class DeviceGuard {
public:
    explicit DeviceGuard(int device);
    ~DeviceGuard();
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = -1;
};

}  // namespace bwacct::measure::cuda
