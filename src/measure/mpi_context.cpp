#include "mpi_context.h"

#include <cstdlib>
#include <string>

#ifdef BWACCT_HAVE_MPI
#include <mpi.h>
#endif

namespace bwacct::measure {
namespace {

bool launched_by_mpi_env() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
        if (std::getenv(v) != nullptr)
            return true;
    return false;
}

[[maybe_unused]] int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::atoi(v) : fallback;
}

}  // namespace

bool MpiContext::under_launcher() { return launched_by_mpi_env(); }

MpiContext& MpiContext::instance() {
    static MpiContext ctx;
    return ctx;
}

MpiContext::MpiContext() {
#ifdef BWACCT_HAVE_MPI
    if (!launched_by_mpi_env())
        return;
    int already = 0;
    MPI_Initialized(&already);
    if (already == 0)
        MPI_Init(nullptr, nullptr);
    initialized_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // Rank within the node, from a communicator of the ranks that share memory with this one.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_free(&node);
#else
    // Launched by mpirun but built without MPI: every process would act alone. Say so via size 1;
    // the CLI refuses multi-rank measurements in that case (see build_info()).
    local_rank_ = env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0);
    launched_without_mpi_ = launched_by_mpi_env() && env_int("OMPI_COMM_WORLD_SIZE", env_int("PMI_SIZE", 1)) > 1;
#endif
}

MpiContext::~MpiContext() {
#ifdef BWACCT_HAVE_MPI
    if (initialized_) {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized == 0)
            MPI_Finalize();
    }
#endif
}

#ifdef BWACCT_HAVE_MPI
namespace {
double reduce(double v, MPI_Op op, bool active) {
    if (!active)
        return v;
    double out = v;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
    return out;
}
}  // namespace
double MpiContext::allreduce_sum(double v) const { return reduce(v, MPI_SUM, active()); }
double MpiContext::allreduce_min(double v) const { return reduce(v, MPI_MIN, active()); }
double MpiContext::allreduce_max(double v) const { return reduce(v, MPI_MAX, active()); }
void MpiContext::broadcast(std::vector<char>& bytes) const {
    if (active())
        MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
}
bool MpiContext::any(bool failed) const {
    if (!active())
        return failed;
    int local = failed ? 1 : 0, global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return global != 0;
}
void MpiContext::barrier() const {
    if (active())
        MPI_Barrier(MPI_COMM_WORLD);
}
void MpiContext::abort(int code) const {
    if (initialized_)
        MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}
std::string MpiContext::build_info() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string v(version, static_cast<std::size_t>(len));
    return "MPI: " + v.substr(0, v.find_first_of(",\n"));
}
#else
double MpiContext::allreduce_sum(double v) const { return v; }
double MpiContext::allreduce_min(double v) const { return v; }
double MpiContext::allreduce_max(double v) const { return v; }
void MpiContext::broadcast(std::vector<char>&) const {}
bool MpiContext::any(bool failed) const { return failed; }
void MpiContext::barrier() const {}
void MpiContext::abort(int code) const { std::exit(code); }
std::string MpiContext::build_info() { return "MPI: not compiled in"; }
#endif

}  // namespace bwacct::measure
