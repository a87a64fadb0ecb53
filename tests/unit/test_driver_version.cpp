// The message for a driver older than the CUDA runtime (issue 15): the versions found and needed.
#include <gtest/gtest.h>

#include <string>

#include "driver_version.h"

namespace bwacct::measure {
namespace {

TEST(DriverVersion, SaysTheDriversVersionAndTheRuntimesNeed) {
    // A CUDA 12.4 driver (12040) under a CUDA 13.0 runtime (13000).
    const std::string m = insufficient_driver_message(12040, 13000);
    EXPECT_NE(m.find("supports CUDA 12.4 (cudaDriverGetVersion 12040)"), std::string::npos) << m;
    EXPECT_NE(m.find("install a driver for CUDA 13.0 or newer"), std::string::npos) << m;
}

TEST(DriverVersion, NoDriverAtAll) {
    EXPECT_NE(insufficient_driver_message(0, 13000).find("no NVIDIA driver is installed"), std::string::npos);
}

}  // namespace
}  // namespace bwacct::measure
