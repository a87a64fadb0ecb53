#include <cstdlib>
#include <string>

#include "backend.h"
#include "bwacct/catalog.h"
#include "mpi_context.h"
#include "sim/sim_backend.h"

#ifdef BWACCT_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

namespace bwacct::measure {

std::unique_ptr<Backend> open_backend() {
    const MpiContext& mpi = MpiContext::instance();
    if (mpi.launched_without_mpi())
        throw MeasureError(
            "started by an MPI launcher with several ranks, but this bwacct was built without MPI: "
            "install Open MPI (libopenmpi-dev) and rebuild");
    if (const char* sim = std::getenv("BWACCT_SIMULATE"); sim != nullptr && *sim != '\0') {
        const Catalog catalog = Catalog::load_default();
        const char* fail = std::getenv("BWACCT_SIMULATE_FAIL");
        return make_sim_backend(catalog.get(sim, "BWACCT_SIMULATE"), fail != nullptr ? fail : "",
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

}  // namespace bwacct::measure
