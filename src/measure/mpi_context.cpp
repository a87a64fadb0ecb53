#include "mpi_context.h"

#include <fmt/format.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#ifdef BWACCT_HAVE_MPI
// Open MPI's header for its types and function signatures only: the library itself is opened with
// dlopen (MpiApi below) when a launcher started this process, so the binary starts on machines
// without Open MPI and model-only runs do not pay for loading it. Its predefined handles
// (MPI_COMM_WORLD, MPI_DOUBLE, MPI_SUM, ...) are addresses of globals in libmpi, so they come from
// dlsym too; naming one of those macros here would fail to link, by design.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#ifndef OPEN_MPI
#error \
    "bwacct loads Open MPI at run time (its library name and predefined handles); configure with -DBWACCT_MPI=OFF for another MPI"
#endif

#include "dynlib.h"
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

// $BWACCT_MPI_TIMEOUT_S when it is a positive number of seconds, else the default.
double timeout_from_env(double fallback) {
    const char* v = std::getenv("BWACCT_MPI_TIMEOUT_S");
    if (v == nullptr || *v == '\0')
        return fallback;
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end == v || *end != '\0' || !std::isfinite(s) || s <= 0) {
        fmt::print(stderr, "bwacct: ignoring BWACCT_MPI_TIMEOUT_S={} (expected a positive number of seconds); using {} s\n", v,
                   fallback);
        return fallback;
    }
    return s;
}

// The line a rank prints when the launcher stops it (another rank aborted or crashed): written from a
// signal handler, so prepared beforehand and written with write(2).
char g_stopped_line[160];
std::size_t g_stopped_len = 0;

extern "C" void on_stopped_by_launcher(int sig) {
    if (g_stopped_len > 0)
        (void)!::write(STDERR_FILENO, g_stopped_line, g_stopped_len);
    ::_exit(128 + sig);
}

[[maybe_unused]] void say_so_when_stopped(int rank) {
    const std::string line =
        fmt::format("bwacct: MPI rank {}: stopped by the MPI launcher (another rank failed, crashed or aborted the job)\n", rank);
    g_stopped_len = std::min(line.size(), sizeof g_stopped_line);
    std::copy_n(line.data(), g_stopped_len, g_stopped_line);
    struct sigaction sa {};
    sa.sa_handler = on_stopped_by_launcher;
    sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

bool MpiContext::under_launcher() { return launched_by_mpi_env(); }

MpiContext& MpiContext::instance() {
    static MpiContext ctx;
    return ctx;
}

void MpiContext::reduction_fault() const {
    if (reduction_fault_.empty())
        return;
    fmt::print(stderr, "bwacct: MPI rank {}: simulated {} at the reduction (BWACCT_SIMULATE_FAIL={}@reduce)\n", rank_,
               reduction_fault_, reduction_fault_);
    std::fflush(stderr);
    if (reduction_fault_ == "crash")
        std::abort();
    // "hang": stop answering (bounded, so a test that forgot its own limit still ends).
    std::this_thread::sleep_for(std::chrono::hours(1));
    std::_Exit(1);
}

#ifdef BWACCT_HAVE_MPI
namespace {

// Where to look for Open MPI's library: $BWACCT_MPI_LIBRARY when set (a path or a file name), else
// the soname of Open MPI 4 and 5 (libmpi.so.40) on the loader's path.
std::vector<std::string> libmpi_names() {
    if (const char* v = std::getenv("BWACCT_MPI_LIBRARY"); v != nullptr && *v != '\0')
        return {v};
    return {"libmpi.so.40", "libmpi.so"};
}

// Open MPI, loaded at run time (RTLD_GLOBAL: its components resolve symbols against it).
struct MpiApi {
    DynLib lib{libmpi_names(),
               "install Open MPI (apt-get install libopenmpi3, or your cluster's openmpi module), put libmpi.so.40 on "
               "LD_LIBRARY_PATH, or point BWACCT_MPI_LIBRARY at it",
               true};
#define BWACCT_MPI_SYM(name) decltype(&::name) name = lib.sym<decltype(&::name)>(#name)
    BWACCT_MPI_SYM(MPI_Initialized);
    BWACCT_MPI_SYM(MPI_Init);
    BWACCT_MPI_SYM(MPI_Finalized);
    BWACCT_MPI_SYM(MPI_Finalize);
    BWACCT_MPI_SYM(MPI_Comm_rank);
    BWACCT_MPI_SYM(MPI_Comm_size);
    BWACCT_MPI_SYM(MPI_Comm_split_type);
    BWACCT_MPI_SYM(MPI_Comm_free);
    BWACCT_MPI_SYM(MPI_Test);
    BWACCT_MPI_SYM(MPI_Abort);
    BWACCT_MPI_SYM(MPI_Ibarrier);
    BWACCT_MPI_SYM(MPI_Iallreduce);
    BWACCT_MPI_SYM(MPI_Ibcast);
    BWACCT_MPI_SYM(MPI_Get_library_version);
#undef BWACCT_MPI_SYM
    // Open MPI's predefined handles: the address of each global, as its mpi.h macros take it.
    template <typename H>
    H handle(const char* global) const {
        return reinterpret_cast<H>(lib.sym<void*>(global));
    }
    MPI_Comm comm_world = handle<MPI_Comm>("ompi_mpi_comm_world");
    MPI_Info info_null = handle<MPI_Info>("ompi_mpi_info_null");
    MPI_Datatype type_double = handle<MPI_Datatype>("ompi_mpi_double");
    MPI_Datatype type_int = handle<MPI_Datatype>("ompi_mpi_int");
    MPI_Datatype type_char = handle<MPI_Datatype>("ompi_mpi_char");
    MPI_Op op_sum = handle<MPI_Op>("ompi_mpi_op_sum");
    MPI_Op op_min = handle<MPI_Op>("ompi_mpi_op_min");
    MPI_Op op_max = handle<MPI_Op>("ompi_mpi_op_max");
};

// The library, loaded on first use and kept for the process; nullptr with `why` set when it cannot load.
const MpiApi* mpi_api(std::string* why = nullptr) {
    static std::string error;
    static const MpiApi* api = [] {
        try {
            return static_cast<const MpiApi*>(new MpiApi());
        } catch (const MeasureError& e) {
            error = e.what();
            return static_cast<const MpiApi*>(nullptr);
        }
    }();
    if (why != nullptr)
        *why = error;
    return api;
}

// The API, once the constructor has loaded it (every caller below runs only when initialized_).
const MpiApi& mpi() { return *mpi_api(); }

// Completes `req`, or after timeout_s says which call got no answer and aborts every rank.
void wait_or_abort(MPI_Request& req, const char* call, int rank, double timeout_s) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::duration<double>(timeout_s);
    for (long spins = 0;; ++spins) {
        int done = 0;
        mpi().MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done != 0)
            return;
        if (clock::now() > deadline) {
            fmt::print(stderr,
                       "bwacct: MPI rank {}: no answer from the other ranks within {:g} s in {} (a rank failed, crashed or "
                       "hangs; BWACCT_MPI_TIMEOUT_S sets the limit); aborting every rank\n",
                       rank, timeout_s, call);
            std::fflush(stderr);
            mpi().MPI_Abort(mpi().comm_world, 1);
            std::_Exit(1);
        }
        if (spins > 10000)  // answer fast calls at once; then stop burning a core
            std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

}  // namespace
#endif

MpiContext::MpiContext() {
    timeout_s_ = timeout_from_env(timeout_s_);
    if (!launched_by_mpi_env())
        return;
#ifdef BWACCT_HAVE_MPI
    if (const MpiApi* api = mpi_api(&unavailable_); api != nullptr) {
        int already = 0;
        api->MPI_Initialized(&already);
        if (already == 0)
            api->MPI_Init(nullptr, nullptr);
        initialized_ = true;
        api->MPI_Comm_rank(api->comm_world, &rank_);
        api->MPI_Comm_size(api->comm_world, &size_);
        // Rank within the node, from a communicator of the ranks that share memory with this one.
        MPI_Comm node;
        api->MPI_Comm_split_type(api->comm_world, MPI_COMM_TYPE_SHARED, rank_, api->info_null, &node);
        api->MPI_Comm_rank(node, &local_rank_);
        api->MPI_Comm_free(&node);
        if (size_ > 1)
            say_so_when_stopped(rank_);
        return;
    }
#else
    unavailable_ = "this bwacct was built without MPI: install Open MPI (libopenmpi-dev) and rebuild";
#endif
    // Launched by mpirun without a usable MPI: every process would act alone. Say so via size 1;
    // the CLI refuses multi-rank measurements in that case (open_backend).
    local_rank_ = env_int("OMPI_COMM_WORLD_LOCAL_RANK", 0);
    launched_without_mpi_ = env_int("OMPI_COMM_WORLD_SIZE", env_int("PMI_SIZE", 1)) > 1;
}

MpiContext::~MpiContext() {
#ifdef BWACCT_HAVE_MPI
    if (initialized_) {
        int finalized = 0;
        mpi().MPI_Finalized(&finalized);
        if (finalized == 0) {
            // MPI_Finalize waits for every rank: a rank still stuck elsewhere would hold this one forever.
            if (active()) {
                MPI_Request req;
                mpi().MPI_Ibarrier(mpi().comm_world, &req);
                wait_or_abort(req, "the final barrier (every rank finishing)", rank_, timeout_s_);
            }
            mpi().MPI_Finalize();
        }
    }
#endif
}

#ifdef BWACCT_HAVE_MPI
namespace {
double reduce(double v, MPI_Op op, const char* call, int rank, double timeout_s) {
    double out = v;
    MPI_Request req;
    mpi().MPI_Iallreduce(&v, &out, 1, mpi().type_double, op, mpi().comm_world, &req);
    wait_or_abort(req, call, rank, timeout_s);
    return out;
}
}  // namespace
double MpiContext::allreduce_sum(double v) const {
    if (!active())
        return v;
    reduction_fault();
    return reduce(v, mpi().op_sum, "the reduction of the results (sum)", rank_, timeout_s_);
}
double MpiContext::allreduce_min(double v) const {
    if (!active())
        return v;
    reduction_fault();
    return reduce(v, mpi().op_min, "the reduction of the results (min)", rank_, timeout_s_);
}
double MpiContext::allreduce_max(double v) const {
    if (!active())
        return v;
    reduction_fault();
    return reduce(v, mpi().op_max, "the reduction of the results (max)", rank_, timeout_s_);
}
void MpiContext::broadcast(std::vector<char>& bytes) const {
    if (!active())
        return;
    MPI_Request req;
    mpi().MPI_Ibcast(bytes.data(), static_cast<int>(bytes.size()), mpi().type_char, 0, mpi().comm_world, &req);
    wait_or_abort(req, "the broadcast from rank 0", rank_, timeout_s_);
}
bool MpiContext::any(bool failed) const { return first_failed(failed) >= 0; }
int MpiContext::first_failed(bool failed) const {
    if (!active())
        return failed ? rank_ : -1;
    int local = failed ? rank_ : INT_MAX, global = INT_MAX;
    MPI_Request req;
    mpi().MPI_Iallreduce(&local, &global, 1, mpi().type_int, mpi().op_min, mpi().comm_world, &req);
    wait_or_abort(req, "the exchange of failures", rank_, timeout_s_);
    return global == INT_MAX ? -1 : global;
}
void MpiContext::barrier() const {
    if (!active())
        return;
    MPI_Request req;
    mpi().MPI_Ibarrier(mpi().comm_world, &req);
    wait_or_abort(req, "a barrier", rank_, timeout_s_);
}
void MpiContext::abort(int code) const {
    if (initialized_)
        mpi().MPI_Abort(mpi().comm_world, code);
    std::exit(code);
}
std::string MpiContext::build_info() {
    std::string why;
    const MpiApi* api = mpi_api(&why);
    if (api == nullptr)
        return "MPI: compiled in, but the library does not load (" + why + ")";
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    api->MPI_Get_library_version(version, &len);
    std::string v(version, static_cast<std::size_t>(len));
    return "MPI: " + v.substr(0, v.find_first_of(",\n"));
}
#else
double MpiContext::allreduce_sum(double v) const { return v; }
double MpiContext::allreduce_min(double v) const { return v; }
double MpiContext::allreduce_max(double v) const { return v; }
void MpiContext::broadcast(std::vector<char>&) const {}
bool MpiContext::any(bool failed) const { return failed; }
int MpiContext::first_failed(bool failed) const { return failed ? 0 : -1; }
void MpiContext::barrier() const {}
void MpiContext::abort(int code) const { std::exit(code); }
std::string MpiContext::build_info() { return "MPI: not compiled in"; }
#endif

}  // namespace bwacct::measure
