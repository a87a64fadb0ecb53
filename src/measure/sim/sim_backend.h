// The simulated backend: times from the roofline model of a catalog GPU, divided by a fixed
// efficiency per roof and scattered by deterministic noise. For tests of the measurement pipeline
// only; selected solely by BWACCT_SIMULATE=<gpu id>, and labelled "simulated" everywhere.
//
// BWACCT_SIMULATE_FAIL injects one failure (failure-path tests; docs/robustness.md):
//   verify        every measurement fails its verification
//   cuda          every measurement fails with a CUDA error
//   oom[:SIZE]    the GPU has SIZE free (default 1G; K, M, G = 1024^n): a measurement whose buffers
//                 need more runs out of memory (HBM retries smaller; fixed-size ops fail)
//   nccl          every collective fails with an NCCL error worded like the real one
//   open          opening the GPU fails (before any measurement or collective)
//   hang, crash   the first measurement never returns / aborts the process
//   hang@reduce, crash@reduce   the same, on entering the reduction of the ranks' results (MPI)
// Under mpirun, set it on one rank only (an MPMD app context with -x) to fail that rank alone.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "../backend.h"
#include "bwacct/gpu.h"

namespace bwacct::measure {

struct SimFailure {
    enum class Kind { none, verify, cuda, oom, nccl, open, hang, crash } kind = Kind::none;
    bool at_reduction = false;              // hang@reduce, crash@reduce
    std::uint64_t free_bytes = 1ull << 30;  // oom: what the simulated GPU has free
};

// Parses BWACCT_SIMULATE_FAIL; throws InputError naming the variable and the accepted values.
SimFailure parse_sim_failure(const std::string& text);

std::unique_ptr<Backend> make_sim_backend(const GpuSpec& gpu, SimFailure fail, std::uint64_t seed);
// The same with the failure given as BWACCT_SIMULATE_FAIL's text ("" for none).
std::unique_ptr<Backend> make_sim_backend(const GpuSpec& gpu, const std::string& fail, std::uint64_t seed);

}  // namespace bwacct::measure
