#include "device.h"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "timing.h"

namespace bwacct::measure::cuda {

std::string format_uuid(const unsigned char (&b)[16]) {
    char s[64];
    std::snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
                  b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return s;
}

double derived_hbm_GBps(int bus_bits, double mem_clock_kHz) {
    if (bus_bits <= 0 || mem_clock_kHz <= 0)
        return 0;
    return static_cast<double>(bus_bits) / 8.0 * mem_clock_kHz * 1e3 * 2.0 / 1e9;
}

DeviceInfo query_device(int index) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
    // CUDA 13 removed clockRate and memoryClockRate from cudaDeviceProp: the attributes remain.
    int mem_clock_kHz = 0, bus_bits = 0, sm_clock_kHz = 0;
    check(cudaDeviceGetAttribute(&mem_clock_kHz, cudaDevAttrMemoryClockRate, index), "cudaDeviceGetAttribute(MemoryClockRate)");
    check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, index),
          "cudaDeviceGetAttribute(GlobalMemoryBusWidth)");
    check(cudaDeviceGetAttribute(&sm_clock_kHz, cudaDevAttrClockRate, index), "cudaDeviceGetAttribute(ClockRate)");

    DeviceInfo d;
    d.index = index;
    d.name = prop.name;
    unsigned char uuid[16];
    for (int i = 0; i < 16; ++i)
        uuid[i] = static_cast<unsigned char>(prop.uuid.bytes[i]);
    d.uuid = format_uuid(uuid);
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.sm_count = prop.multiProcessorCount;
    d.l2_bytes = prop.l2CacheSize > 0 ? static_cast<std::uint64_t>(prop.l2CacheSize) : 0;
    d.memory_bytes = prop.totalGlobalMem;
    d.memory_bus_bits = bus_bits;
    d.memory_clock_MHz = mem_clock_kHz / 1e3;
    d.sm_clock_MHz = sm_clock_kHz / 1e3;
    d.derived_hbm_GBps = derived_hbm_GBps(bus_bits, mem_clock_kHz);
    int visible = 0;
    if (cudaGetDeviceCount(&visible) == cudaSuccess)
        d.visible_devices = visible;
    return d;
}

DeviceGuard::DeviceGuard(int device) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != device)
        check(cudaSetDevice(device), "cudaSetDevice");
}

DeviceGuard::~DeviceGuard() {
    int now = -1;
    if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_)
        (void)cudaSetDevice(previous_);
}

}  // namespace bwacct::measure::cuda
