// What to say when the CUDA runtime finds the driver too old (cudaErrorInsufficientDriver): the
// driver's CUDA version (cudaDriverGetVersion, 0 when no driver is installed) beside the one this
// build's runtime needs (CUDART_VERSION), so the user knows what to install.
#pragma once
#include <string>

namespace bwacct::measure {

// Versions as CUDA encodes them: 1000 × major + 10 × minor (12040 = 12.4).
std::string insufficient_driver_message(int driver_version, int runtime_version);

}  // namespace bwacct::measure
