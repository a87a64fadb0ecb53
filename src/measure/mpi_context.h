// Multi-process runs (mpirun, srun): one rank per GPU, results reduced across ranks the way
// nccl-tests does (average by default, with min and max). Without MPI (not compiled in, or not
// launched by an MPI launcher) this is a single-rank context and every call is local.
//
// No rank waits forever: every collective call here (and the barrier before MPI_Finalize) waits at
// most timeout_s() seconds ($BWACCT_MPI_TIMEOUT_S, default 600: longer than NCCL's own 300 s stall
// limit, so NCCL's more precise message comes first). Past it the rank prints one line naming the
// call and aborts the whole job (MPI_Abort), so a rank that crashed, hangs or failed outside a
// coordinated path makes every rank exit, non-zero, in bounded time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace bwacct::measure {

class MpiContext {
public:
    // Initializes MPI only when the process was started by an MPI launcher (OMPI_COMM_WORLD_SIZE,
    // PMI_SIZE or PMIX_RANK in the environment) and MPI support is compiled in; Open MPI's library is
    // loaded then (dlopen), never for a run outside a launcher.
    static MpiContext& instance();
    // Started by mpirun/srun (environment only; initializes nothing). Their stdout is often a pty
    // forwarded to the launcher, so "is a terminal" says nothing about the user's terminal.
    static bool under_launcher();

    int rank() const { return rank_; }
    int size() const { return size_; }
    bool active() const { return size_ > 1; }
    int local_rank() const { return local_rank_; }  // rank within the node: picks the GPU
    // Started by an MPI launcher with several ranks, but MPI is not compiled in: each process would
    // believe it is alone, so multi-rank measurements must be refused.
    bool launched_without_mpi() const { return launched_without_mpi_; }
    // Why MPI is not usable when a launcher started this process: built without it, or the library
    // does not load (set only then; empty otherwise).
    const std::string& unavailable() const { return unavailable_; }

    double allreduce_sum(double v) const;
    double allreduce_min(double v) const;
    double allreduce_max(double v) const;
    // Rank 0's bytes to everyone (NCCL's unique id).
    void broadcast(std::vector<char>& bytes) const;
    // Every rank learns whether any rank failed, so none is left waiting in a collective.
    bool any(bool failed) const;
    // The lowest rank that failed, or -1 when none did (a collective call, like any()).
    int first_failed(bool failed) const;
    void barrier() const;
    [[noreturn]] void abort(int code) const;
    // "MPI (Open MPI 4.1)" or "not compiled in".
    static std::string build_info();
    double timeout_s() const { return timeout_s_; }

    // Failure injection for the simulated backend's tests (set only by open_backend under
    // BWACCT_SIMULATE): "crash" aborts this process, "hang" stops it answering, on entering the
    // first allreduce_sum/min/max (the reduction of the ranks' results).
    void inject_at_reduction(std::string fault) { reduction_fault_ = std::move(fault); }
    ~MpiContext();

private:
    MpiContext();
    int rank_ = 0, size_ = 1, local_rank_ = 0;
    bool initialized_ = false;
    bool launched_without_mpi_ = false;
    std::string unavailable_;
    double timeout_s_ = 600;
    std::string reduction_fault_;
    void reduction_fault() const;
};

}  // namespace bwacct::measure
