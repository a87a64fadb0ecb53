#include <cstdlib>
#include <exception>
#include <string>

#include "backend.h"
#include "bwacct/catalog.h"
#include "mpi_context.h"
#include "sim/sim_backend.h"

#ifdef BWACCT_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace bwacct::measure {
namespace {

std::unique_ptr<Backend> open_this_rank(MpiContext& mpi) {
    if (const char* sim = std::getenv("BWACCT_SIMULATE"); sim != nullptr && *sim != '\0') {
        const Catalog catalog = Catalog::load_default();
        const char* fail_text = std::getenv("BWACCT_SIMULATE_FAIL");
        const SimFailure fail = parse_sim_failure(fail_text != nullptr ? fail_text : "");
        if (fail.kind == SimFailure::Kind::open)
            throw MeasureError("CUDA error in cudaSetDevice: simulated failure opening the GPU (BWACCT_SIMULATE_FAIL=open)");
        if (fail.at_reduction)
            mpi.inject_at_reduction(fail.kind == SimFailure::Kind::crash ? "crash" : "hang");
        return make_sim_backend(catalog.get(sim, "BWACCT_SIMULATE"), fail,
                                0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(mpi.rank()));
    }
#ifdef BWACCT_HAVE_CUDA
    return cuda::open(mpi.local_rank());
#else
    throw MeasureError(
        "this bwacct was built without the CUDA toolkit: measurement is not compiled in "
        "(install the CUDA toolkit and rebuild to measure)");
#endif
}

}  // namespace

std::unique_ptr<Backend> open_backend() {
    MpiContext& mpi = MpiContext::instance();
    if (mpi.launched_without_mpi())
        throw MeasureError("started by an MPI launcher with several ranks, but MPI is not usable: " + mpi.unavailable());
    // Under MPI every rank opens its GPU, then all learn whether one failed: a rank that cannot open
    // its GPU must not leave the others waiting in the first collective.
    std::unique_ptr<Backend> b;
    std::exception_ptr error;
    try {
        b = open_this_rank(mpi);
    } catch (...) {
        error = std::current_exception();
    }
    const int failed = mpi.first_failed(error != nullptr);
    if (error != nullptr)
        std::rethrow_exception(error);
    if (failed >= 0)
        throw MeasureError("MPI rank " + std::to_string(failed) + " could not open its GPU (see its message); every rank stops");
    return b;
}

}  // namespace bwacct::measure
