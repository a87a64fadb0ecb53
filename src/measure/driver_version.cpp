#include "driver_version.h"

#include <fmt/format.h>

namespace bwacct::measure {
namespace {

std::string cuda_version(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

}  // namespace

std::string insufficient_driver_message(int driver_version, int runtime_version) {
    if (driver_version <= 0)
        return "no CUDA GPU: no NVIDIA driver is installed (libcuda.so.1 was not found; cudaGetDeviceCount: "
               "cudaErrorInsufficientDriver)";
    return fmt::format(
        "no usable CUDA GPU: the NVIDIA driver supports CUDA {} (cudaDriverGetVersion {}), older than the CUDA {} "
        "runtime this bwacct is built with; install a driver for CUDA {} or newer (cudaErrorInsufficientDriver)",
        cuda_version(driver_version), driver_version, cuda_version(runtime_version), cuda_version(runtime_version));
}

}  // namespace bwacct::measure
