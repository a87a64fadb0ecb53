// The simulated backend: times from the roofline model of a catalog GPU, divided by a fixed
// efficiency per roof and scattered by deterministic noise. For tests of the measurement pipeline
// only; selected solely by BWACCT_SIMULATE=<gpu id>, and labelled "simulated" everywhere.
// BWACCT_SIMULATE_FAIL=verify|cuda makes every measurement fail that way (failure-path tests).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "../backend.h"
#include "bwacct/gpu.h"

namespace bwacct::measure {

std::unique_ptr<Backend> make_sim_backend(const GpuSpec& gpu, std::string fail_mode, std::uint64_t seed);

}  // namespace bwacct::measure
