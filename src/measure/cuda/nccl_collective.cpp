// NCCL collective measurement, following nccl-tests (src/common.cu and the per-collective files):
// its buffer sizes for a given "size", out-of-place or in-place operation (its buffer offsets), warm-up, back-to-back iterations
// per timed batch, and a data check after timing that counts wrong elements. Two differences: CUDA events on each GPU's stream
// instead of a host clock, and stop-on-noise sampling (sampling.h).
#include "nccl_collective.h"

#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "../dynlib.h"
#include "../failure_text.h"
#include "../mpi_context.h"
#include "../sampling.h"
#include "check_kernels.h"
#include "timing.h"

namespace bwacct::measure::cuda {
namespace {

using checks::Elem;

constexpr double kTargetBatchUs = 500;     // a timed batch lasts at least this long, when the iteration cap allows
constexpr int kMaxIterations = 1000;       // per timed batch
constexpr double kStallSeconds = 300;      // a batch that has not finished by then is reported, not waited on
constexpr double kMaxCheckOps = 0x1.0p34;  // verification work bound: value evaluations per rank

// ---- NCCL, loaded once and kept loaded for the life of the process.
struct NcclApi {
    DynLib lib{{"libnccl.so.2", "libnccl.so"},
               "install NCCL (libnccl2 from NVIDIA's CUDA repository) or put libnccl.so.2 on LD_LIBRARY_PATH"};
#define BWACCT_NCCL_SYM(name) decltype(&::name) name = lib.sym<decltype(&::name)>(#name)
    BWACCT_NCCL_SYM(ncclGetVersion);
    BWACCT_NCCL_SYM(ncclGetErrorString);
    BWACCT_NCCL_SYM(ncclGetUniqueId);
    BWACCT_NCCL_SYM(ncclCommInitRank);
    BWACCT_NCCL_SYM(ncclCommInitAll);
    BWACCT_NCCL_SYM(ncclCommDestroy);
    BWACCT_NCCL_SYM(ncclCommAbort);
    BWACCT_NCCL_SYM(ncclCommGetAsyncError);
    BWACCT_NCCL_SYM(ncclGroupStart);
    BWACCT_NCCL_SYM(ncclGroupEnd);
    BWACCT_NCCL_SYM(ncclAllReduce);
    BWACCT_NCCL_SYM(ncclAllGather);
    BWACCT_NCCL_SYM(ncclReduceScatter);
    BWACCT_NCCL_SYM(ncclBroadcast);
    BWACCT_NCCL_SYM(ncclReduce);
    BWACCT_NCCL_SYM(ncclSend);
    BWACCT_NCCL_SYM(ncclRecv);
#undef BWACCT_NCCL_SYM
    decltype(&::ncclGetLastError) last_error = optional_last_error();  // NCCL 2.13 and later

private:
    decltype(&::ncclGetLastError) optional_last_error() const {
        try {
            return lib.sym<decltype(&::ncclGetLastError)>("ncclGetLastError");
        } catch (const MeasureError&) {
            return nullptr;
        }
    }
};

const NcclApi& nccl_api() {
    // Never unloaded: NCCL keeps threads and state for the process. A failed load throws and is retried next call.
    static const NcclApi* api = new NcclApi();
    return *api;
}

void nccl_check(const NcclApi& api, ncclResult_t r, const std::string& what, ncclComm_t comm = nullptr) {
    if (r == ncclSuccess)
        return;
    // ncclGetErrorString of the result, and ncclGetLastError's text where this NCCL has it (2.13+).
    const char* detail = api.last_error != nullptr ? api.last_error(comm) : nullptr;
    throw MeasureError(nccl_error_message(what, api.ncclGetErrorString(r), detail != nullptr ? detail : ""));
}

std::string version_text(int v) {
    // NCCL >= 2.9 encodes major·10000 + minor·100 + patch.
    return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
}

// ---- Types.
struct TypeInfo {
    ncclDataType_t nccl{};
    Elem elem{};
    std::uint64_t max_exact = 0;  // largest integer with every smaller one exactly representable
};

TypeInfo type_info(DType t) {
    switch (t) {
        case DType::bf16:
            return {ncclBfloat16, Elem::bf16, 256};
        case DType::fp16:
            return {ncclFloat16, Elem::fp16, 2048};
        case DType::fp32:
        case DType::tf32:
            return {ncclFloat32, Elem::fp32, 1ull << 24};
        case DType::fp64:
            return {ncclFloat64, Elem::fp64, 1ull << 53};
        case DType::int8:
            return {ncclInt8, Elem::int8, 127};
        case DType::fp8_e4m3:
            return {ncclFloat8e4m3, Elem::e4m3, 16};
        case DType::fp8_e5m2:
            return {ncclFloat8e5m2, Elem::e5m2, 8};
        default:
            break;
    }
    throw MeasureError("collectives on " + std::string(dtype_name(t)) +
                       " are not measurable: NCCL has no sub-byte types (use bf16, fp16, fp32, fp64, int8 or fp8)");
}

// Inputs whose every partial sum is exact: n ranks × magnitude within max_exact, or, when even ±1 on
// every rank would not fit, only max_exact ranks non-zero at each index.
checks::CollValues values_for(std::uint32_t n, std::uint64_t max_exact) {
    checks::CollValues v;
    v.seed = 0xC011EC7173ull;
    v.nranks = n;
    const std::uint64_t cap = std::min<std::uint64_t>(max_exact, 1u << 20);
    if (3ull * n <= cap) {
        v.magnitude = 3;
        v.active = n;
    } else if (n <= cap) {
        v.magnitude = static_cast<std::uint32_t>(cap / n);
        v.active = n;
    } else {
        v.magnitude = 1;
        v.active = static_cast<std::uint32_t>(cap);
    }
    return v;
}

// ---- Buffers per nccl-tests for size S bytes over n ranks (counts in elements of e bytes).
struct Shape {
    std::uint64_t send_count = 0, recv_count = 0;
    std::uint64_t count_arg = 0;  // the count passed to NCCL (per peer for alltoall)
};

Shape shape_for(CollectiveKind k, std::uint64_t size, std::uint64_t n, unsigned e) {
    const std::uint64_t count = size / e;
    switch (k) {
        case CollectiveKind::allgather:  // size = gathered output
            return {count / n, count, count / n};
        case CollectiveKind::reducescatter:  // size = input
            return {count, count / n, count / n};
        case CollectiveKind::alltoall:  // size = each rank's send buffer, n chunks
            return {count, count, count / n};
        default:  // allreduce, broadcast, reduce, sendrecv
            return {count, count, count};
    }
}

// ---- RAII for one process's share of the collective: communicators, streams, events, buffers.
struct Local {
    int device = 0;
    int rank = 0;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    void* send = nullptr;                  // null in place: the input lies inside `recv`
    void* recv = nullptr;                  // in place: one buffer of max(send, receive) bytes
    unsigned long long* result = nullptr;  // verification counters
};

class Session {
public:
    explicit Session(const NcclApi& api) : api_(api), exceptions_(std::uncaught_exceptions()) {}
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;
    ~Session() {
        // Unwinding from an error: abort the communicators (does not wait for peers or hung kernels).
        const bool failing = std::uncaught_exceptions() > exceptions_;
        for (Local& l : locals) {
            if (l.comm == nullptr)
                continue;
            if (failing) {
                (void)api_.ncclCommAbort(l.comm);
            } else {
                (void)cudaSetDevice(l.device);
                (void)cudaStreamSynchronize(l.stream);
                (void)api_.ncclCommDestroy(l.comm);
            }
        }
        for (Local& l : locals) {
            (void)cudaSetDevice(l.device);
            if (l.start != nullptr)
                (void)cudaEventDestroy(l.start);
            if (l.stop != nullptr)
                (void)cudaEventDestroy(l.stop);
            if (l.send != nullptr)
                (void)cudaFree(l.send);
            if (l.recv != nullptr)
                (void)cudaFree(l.recv);
            if (l.result != nullptr)
                (void)cudaFree(l.result);
            if (l.stream != nullptr)
                (void)cudaStreamDestroy(l.stream);
        }
    }
    std::vector<Local> locals;

private:
    const NcclApi& api_;
    int exceptions_;
};

// ncclGroupStart ... ncclGroupEnd, closed on every path so the thread's group depth never leaks.
class Group {
public:
    Group(const NcclApi& api, bool active) : api_(api), open_(active) {
        if (open_)
            nccl_check(api_, api_.ncclGroupStart(), "ncclGroupStart");
    }
    Group(const Group&) = delete;
    Group& operator=(const Group&) = delete;
    void end() {
        if (open_) {
            open_ = false;
            nccl_check(api_, api_.ncclGroupEnd(), "ncclGroupEnd");
        }
    }
    ~Group() {
        if (open_)
            (void)api_.ncclGroupEnd();
    }

private:
    const NcclApi& api_;
    bool open_;
};

struct Plan {
    CollectiveKind kind{};
    std::uint32_t n = 0;  // ranks in the communicator
    TypeInfo type;
    unsigned elem = 0;
    Shape shape;
    bool in_place = false;
};

// In place, as NCCL defines it and nccl-tests runs it: allgather's input is rank r's block of the
// output (send = recv + r·sendcount); reducescatter's output is rank r's block of the input
// (recv = send + r·recvcount); allreduce, broadcast and reduce use one buffer for both.
std::uint64_t send_offset(const Plan& p, std::uint64_t r) {
    return p.in_place && p.kind == CollectiveKind::allgather ? r * p.shape.send_count * p.elem : 0;
}
std::uint64_t recv_offset(const Plan& p, std::uint64_t r) {
    return p.in_place && p.kind == CollectiveKind::reducescatter ? r * p.shape.recv_count * p.elem : 0;
}
void* send_ptr(const Plan& p, const Local& l) {
    return p.in_place ? static_cast<char*>(l.recv) + send_offset(p, static_cast<std::uint64_t>(l.rank)) : l.send;
}
void* recv_ptr(const Plan& p, const Local& l) {
    return static_cast<char*>(l.recv) + recv_offset(p, static_cast<std::uint64_t>(l.rank));
}

// Enqueues one collective for one rank on its stream (out of place, or in place per send_ptr/recv_ptr).
void issue(const NcclApi& api, const Plan& p, const Local& l) {
    void* const send = send_ptr(p, l);
    void* const recv = recv_ptr(p, l);
    const ncclDataType_t dt = p.type.nccl;
    const std::size_t c = p.shape.count_arg;
    const std::uint32_t n = p.n;
    const auto r = static_cast<std::uint32_t>(l.rank);
    switch (p.kind) {
        case CollectiveKind::allreduce:
            nccl_check(api, api.ncclAllReduce(send, recv, c, dt, ncclSum, l.comm, l.stream), "ncclAllReduce", l.comm);
            return;
        case CollectiveKind::allgather:
            nccl_check(api, api.ncclAllGather(send, recv, c, dt, l.comm, l.stream), "ncclAllGather", l.comm);
            return;
        case CollectiveKind::reducescatter:
            nccl_check(api, api.ncclReduceScatter(send, recv, c, dt, ncclSum, l.comm, l.stream), "ncclReduceScatter", l.comm);
            return;
        case CollectiveKind::broadcast:
            nccl_check(api, api.ncclBroadcast(send, recv, c, dt, 0, l.comm, l.stream), "ncclBroadcast", l.comm);
            return;
        case CollectiveKind::reduce:
            nccl_check(api, api.ncclReduce(send, recv, c, dt, ncclSum, 0, l.comm, l.stream), "ncclReduce", l.comm);
            return;
        case CollectiveKind::alltoall: {  // as nccl-tests: one send and one receive per peer, in a group
            Group g(api, true);
            const std::size_t chunk_bytes = c * p.elem;
            for (std::uint32_t peer = 0; peer < n; ++peer) {
                nccl_check(api,
                           api.ncclSend(static_cast<const char*>(send) + peer * chunk_bytes, c, dt, static_cast<int>(peer),
                                        l.comm, l.stream),
                           "ncclSend", l.comm);
                nccl_check(
                    api,
                    api.ncclRecv(static_cast<char*>(recv) + peer * chunk_bytes, c, dt, static_cast<int>(peer), l.comm, l.stream),
                    "ncclRecv", l.comm);
            }
            g.end();
            return;
        }
        case CollectiveKind::sendrecv: {  // ring neighbours: send to r+1, receive from r-1
            Group g(api, true);
            nccl_check(api, api.ncclSend(send, c, dt, static_cast<int>((r + 1) % n), l.comm, l.stream), "ncclSend", l.comm);
            nccl_check(api, api.ncclRecv(recv, c, dt, static_cast<int>((r + n - 1) % n), l.comm, l.stream), "ncclRecv", l.comm);
            g.end();
            return;
        }
        case CollectiveKind::gather:
        case CollectiveKind::scatter:  // refused by measure_collective before any buffer is made
            throw MeasureError(std::string(collective_name(p.kind)) + " is not measured");
    }
}

// One iteration on every local GPU (grouped when this process drives several).
void launch_once(const NcclApi& api, const Plan& p, const std::vector<Local>& locals) {
    Group g(api, locals.size() > 1);
    for (const Local& l : locals)
        issue(api, p, l);
    g.end();
}

// Waits for every local stream, watching NCCL's asynchronous errors as nccl-tests does, and gives
// up (the communicators are then aborted) when a batch stalls.
void wait_all(const NcclApi& api, const std::vector<Local>& locals) {
    std::vector<bool> done(locals.size(), false);
    std::size_t remaining = locals.size();
    const auto t0 = std::chrono::steady_clock::now();
    while (remaining > 0) {
        for (std::size_t i = 0; i < locals.size(); ++i) {
            if (done[i])
                continue;
            const cudaError_t e = cudaStreamQuery(locals[i].stream);
            if (e == cudaSuccess) {
                done[i] = true;
                --remaining;
                continue;
            }
            if (e != cudaErrorNotReady)
                check(e, "collective (cudaStreamQuery)");
            ncclResult_t async = ncclSuccess;
            nccl_check(api, api.ncclCommGetAsyncError(locals[i].comm, &async), "ncclCommGetAsyncError", locals[i].comm);
            if (async != ncclSuccess && async != ncclInProgress)
                nccl_check(api, async, "the running collective (asynchronous error)", locals[i].comm);
        }
        if (remaining == 0)
            break;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > kStallSeconds)
            throw MeasureError("collective did not complete within " + std::to_string(static_cast<int>(kStallSeconds)) +
                               " s (a rank, GPU or link stalled); communicators aborted");
        std::this_thread::yield();
    }
}

// A batch of `iters` iterations between events on every local stream; the slowest GPU's time per
// iteration in µs.
double time_batch(const NcclApi& api, const Plan& p, const std::vector<Local>& locals, int iters) {
    for (const Local& l : locals) {
        check(cudaSetDevice(l.device), "cudaSetDevice");
        check(cudaEventRecord(l.start, l.stream), "cudaEventRecord(start)");
    }
    for (int i = 0; i < iters; ++i)
        launch_once(api, p, locals);
    for (const Local& l : locals) {
        check(cudaSetDevice(l.device), "cudaSetDevice");
        check(cudaEventRecord(l.stop, l.stream), "cudaEventRecord(stop)");
    }
    wait_all(api, locals);
    double slowest_ms = 0;
    for (const Local& l : locals) {
        float ms = 0;
        check(cudaEventElapsedTime(&ms, l.start, l.stop), "cudaEventElapsedTime");
        slowest_ms = std::max(slowest_ms, static_cast<double>(ms));
    }
    return slowest_ms * 1e3 / iters;
}

// What rank r's output must hold after one run (see checks::CollExpect), nccl-tests' semantics:
// allreduce/reduce the sum; reducescatter rank r's block of the sum; broadcast root 0's input;
// allgather rank q's input at block q; alltoall rank q's block r at block q; sendrecv rank r-1's input.
checks::CollExpect expect_for(CollectiveKind kind, std::uint64_t r, std::uint64_t n, const Shape& shape) {
    checks::CollExpect x;
    switch (kind) {
        case CollectiveKind::allreduce:
        case CollectiveKind::reduce:
            x.sum_all = true;
            break;
        case CollectiveKind::reducescatter:
            x.sum_all = true;
            x.base = r * shape.recv_count;
            break;
        case CollectiveKind::broadcast:
            x.sum_all = false;
            x.src_rank = 0;
            break;
        case CollectiveKind::allgather:
            x.sum_all = false;
            x.chunk = shape.send_count;
            break;
        case CollectiveKind::alltoall:
            x.sum_all = false;
            x.chunk = shape.count_arg;
            x.base = r * shape.count_arg;
            break;
        case CollectiveKind::sendrecv:
            x.sum_all = false;
            x.src_rank = static_cast<std::uint32_t>((r + n - 1) % n);
            break;
        case CollectiveKind::gather:
        case CollectiveKind::scatter:  // refused by measure_collective before any check
            break;
    }
    return x;
}

std::string device_list(const std::vector<Local>& locals) {
    std::string s;
    for (const Local& l : locals) {
        if (!s.empty())
            s += ',';
        s += std::to_string(l.device);
    }
    return s;
}

}  // namespace

Timing measure_collective(const CollectiveDesc& d, const SamplePolicy& p, int device) {
    const MpiContext& mpi = MpiContext::instance();
    const bool multi_process = mpi.active();

    // Every check before the first MPI or NCCL call depends only on arguments every rank shares.
    if (d.ranks < 2)
        throw MeasureError("a collective needs at least 2 ranks");
    if (d.ranks > std::numeric_limits<std::int32_t>::max())
        throw MeasureError("too many ranks");
    if (multi_process && d.ranks != static_cast<std::uint64_t>(mpi.size()))
        throw MeasureError("--ranks " + std::to_string(d.ranks) + " does not match the " + std::to_string(mpi.size()) +
                           " MPI ranks of this launch (one GPU per rank)");
    if (d.kind == CollectiveKind::gather || d.kind == CollectiveKind::scatter)
        throw MeasureError(std::string(collective_name(d.kind)) +
                           " is read from nccl-tests logs and costed, not measured by bwacct (no command runs it)");
    Plan plan;
    plan.kind = d.kind;
    plan.n = static_cast<std::uint32_t>(d.ranks);
    plan.type = type_info(d.dtype);
    plan.elem = checks::elem_bytes(plan.type.elem);
    const std::uint64_t n = d.ranks;
    const bool divides =
        d.kind == CollectiveKind::allgather || d.kind == CollectiveKind::reducescatter || d.kind == CollectiveKind::alltoall;
    if (d.size_bytes == 0 || d.size_bytes % plan.elem != 0 || (divides && d.size_bytes % (n * plan.elem) != 0))
        throw MeasureError(
            std::to_string(d.size_bytes) + " bytes is not a whole number of " + std::string(dtype_name(d.dtype)) + " elements" +
            (divides ? " per rank (" + std::string(collective_name(d.kind)) + " splits it " + std::to_string(n) + " ways)"
                     : std::string()));
    plan.shape = shape_for(d.kind, d.size_bytes, n, plan.elem);
    plan.in_place = d.in_place;
    if (d.in_place && (d.kind == CollectiveKind::alltoall || d.kind == CollectiveKind::sendrecv))
        throw MeasureError("in-place is not defined for alltoall/sendrecv");
    const checks::CollValues values = values_for(plan.n, plan.type.max_exact);

    // From here on a failure on one rank must reach every rank before the next collective call.
    std::string error;
    bool out_of_memory = false;  // kept apart: the backend words it as "out of GPU memory measuring ..."
    auto phase = [&](const auto& fn) {
        if (error.empty()) {
            try {
                fn();
            } catch (const OutOfMemory& e) {
                error = e.what();
                out_of_memory = true;
            } catch (const std::exception& e) {
                error = e.what();
                if (error.empty())
                    error = "unknown error";
            }
        }
        const int failed = mpi.first_failed(!error.empty());
        if (out_of_memory)
            throw OutOfMemory(error);
        if (failed >= 0)
            throw MeasureError(
                !error.empty() ? error : "the collective failed on MPI rank " + std::to_string(failed) + "; see its message");
    };

    const NcclApi* api = nullptr;
    int version = 0;
    phase([&] {
        api = &nccl_api();
        nccl_check(*api, api->ncclGetVersion(&version), "ncclGetVersion");
        if ((d.dtype == DType::fp8_e4m3 || d.dtype == DType::fp8_e5m2) && version < 22400)
            throw MeasureError("fp8 collectives need NCCL 2.24 or later; " + api->lib.name() + " is " + version_text(version));
        int count = 0;
        check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
        if (!multi_process && static_cast<std::uint64_t>(count) < n)
            throw MeasureError("--ranks " + std::to_string(n) + " needs " + std::to_string(n) + " GPUs in this process but " +
                               std::to_string(count) + " are visible (or launch one rank per GPU with mpirun)");
        if (device < 0 || device >= count)
            throw MeasureError("GPU " + std::to_string(device) + " is not visible to this process");
        check(cudaSetDevice(device), "cudaSetDevice");
    });
    const NcclApi& nccl = *api;

    Session session(nccl);
    std::vector<Local>& locals = session.locals;
    if (multi_process) {
        Local l;
        l.device = device;
        l.rank = mpi.rank();
        locals.push_back(l);
        ncclUniqueId id{};
        phase([&] {
            if (mpi.rank() == 0)
                nccl_check(nccl, nccl.ncclGetUniqueId(&id), "ncclGetUniqueId");
        });
        std::vector<char> bytes(sizeof id);
        std::memcpy(bytes.data(), &id, sizeof id);
        mpi.broadcast(bytes);
        std::memcpy(&id, bytes.data(), sizeof id);
        phase([&] {
            check(cudaSetDevice(device), "cudaSetDevice");
            nccl_check(nccl, nccl.ncclCommInitRank(&locals[0].comm, static_cast<int>(n), id, mpi.rank()), "ncclCommInitRank");
        });
    } else {
        int count = 0;
        check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
        std::vector<int> devs;
        for (std::uint64_t r = 0; r < n; ++r)
            devs.push_back(static_cast<int>((static_cast<std::uint64_t>(device) + r) % static_cast<std::uint64_t>(count)));
        std::vector<ncclComm_t> comms(n, nullptr);
        nccl_check(nccl, nccl.ncclCommInitAll(comms.data(), static_cast<int>(n), devs.data()), "ncclCommInitAll");
        for (std::uint64_t r = 0; r < n; ++r) {
            Local l;
            l.device = devs[r];
            l.rank = static_cast<int>(r);
            l.comm = comms[r];
            locals.push_back(l);
        }
    }

    const std::uint64_t send_bytes = plan.shape.send_count * plan.elem, recv_bytes = plan.shape.recv_count * plan.elem;
    // In place there is one buffer per rank, large enough for the input and the output.
    const std::uint64_t buffer_bytes = plan.in_place ? std::max(send_bytes, recv_bytes) : recv_bytes;
    auto fill_input = [&](const Local& l) {
        check(checks::coll_fill(send_ptr(plan, l), plan.type.elem, plan.shape.send_count, static_cast<std::uint32_t>(l.rank),
                                values, l.stream),
              "fill send buffer");
    };
    phase([&] {
        for (Local& l : locals) {
            check(cudaSetDevice(l.device), "cudaSetDevice");
            check(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            check(cudaEventCreate(&l.start), "cudaEventCreate");
            check(cudaEventCreate(&l.stop), "cudaEventCreate");
            if (!plan.in_place)
                check(cudaMalloc(&l.send, send_bytes), "cudaMalloc(send buffer)");
            check(cudaMalloc(&l.recv, buffer_bytes), "cudaMalloc(receive buffer)");
            check(cudaMalloc(reinterpret_cast<void**>(&l.result), 2 * sizeof(unsigned long long)), "cudaMalloc(counters)");
            check(cudaMemsetAsync(l.recv, 0, buffer_bytes, l.stream), "cudaMemset(receive buffer)");
            fill_input(l);  // after the memset: in place, the input lies inside the receive buffer
        }
        for (Local& l : locals)
            check(cudaStreamSynchronize(l.stream), "fill collective inputs");
    });

    // Warm-up (connections are set up lazily by the first calls), then the batch length: the slowest
    // rank's estimate, so that every rank runs the same number of iterations.
    double per_iter_us = 0;
    phase([&] {
        for (int i = 0; i < std::max(p.warmup, 2); ++i) {
            launch_once(nccl, plan, locals);
            wait_all(nccl, locals);
        }
        per_iter_us = time_batch(nccl, plan, locals, 3);
    });
    per_iter_us = mpi.allreduce_max(per_iter_us);
    const int iters = static_cast<int>(
        std::clamp(std::ceil(kTargetBatchUs / std::max(per_iter_us, 1e-3)), 1.0, static_cast<double>(kMaxIterations)));

    // Sampling in lockstep: the value sample() sees is the slowest rank's (so every rank stops after
    // the same sample); each rank keeps its own samples, which the caller averages across ranks.
    std::vector<double> local_samples;
    auto one_sample = [&]() -> double {
        double local = std::numeric_limits<double>::infinity();
        std::string why;
        try {
            local = time_batch(nccl, plan, locals, iters);
        } catch (const std::exception& e) {
            why = e.what();
            local = std::numeric_limits<double>::infinity();
        }
        const double slowest = multi_process ? mpi.allreduce_max(local) : local;
        if (!std::isfinite(slowest))
            throw MeasureError(!why.empty() ? why : "the collective failed on another MPI rank; see its message");
        local_samples.push_back(local);
        return slowest;
    };
    const Clocks before = read_clocks(device);
    const Timing lockstep = sample(p, one_sample);
    const Clocks after = read_clocks(device);

    Timing t;
    t.samples_us.assign(local_samples.end() - static_cast<std::ptrdiff_t>(lockstep.samples_us.size()), local_samples.end());
    t.stats = summarize(t.samples_us);
    t.source = TimeSource::measured;
    t.clocks_before = before;
    t.clocks_after = after;

    // ---- Verification: poison the outputs, one run, compare every output element with its exact value.
    // In place the timed runs overwrote the inputs: poison the whole buffer, then write the input
    // again into its part of it (allgather's own block, reducescatter's whole buffer, the rest all of it).
    const bool poison_int8 = plan.type.elem == Elem::int8;  // 0x80 = -128, never an expected int8 value here
    unsigned long long wrong = 0, checked_elements = 0;
    std::uint64_t step = 1;
    std::string first_wrong;
    phase([&] {
        for (Local& l : locals) {
            check(cudaSetDevice(l.device), "cudaSetDevice");
            check(cudaMemsetAsync(l.recv, poison_int8 ? 0x80 : 0xFF, buffer_bytes, l.stream), "cudaMemset(poison)");
            if (plan.in_place)
                fill_input(l);
            const unsigned long long init[2] = {0, ~0ull};
            check(cudaMemcpyAsync(l.result, init, sizeof init, cudaMemcpyHostToDevice, l.stream), "cudaMemcpy(counters)");
            check(cudaStreamSynchronize(l.stream), "poison receive buffer");
        }
        launch_once(nccl, plan, locals);
        wait_all(nccl, locals);
        const std::uint64_t out = plan.shape.recv_count;
        for (Local& l : locals) {
            if (d.kind == CollectiveKind::reduce && l.rank != 0)
                continue;  // only the root receives
            checks::CollExpect x = expect_for(d.kind, static_cast<std::uint64_t>(l.rank), n, plan.shape);
            const double ops = static_cast<double>(out) * (x.sum_all ? values.active : 1);
            step = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(ops / kMaxCheckOps)));
            x.step = step;
            check(cudaSetDevice(l.device), "cudaSetDevice");
            check(checks::coll_count_wrong(recv_ptr(plan, l), plan.type.elem, out, values, x, l.result, l.stream),
                  "check output");
            unsigned long long res[2] = {0, 0};
            check(cudaMemcpyAsync(res, l.result, sizeof res, cudaMemcpyDeviceToHost, l.stream), "cudaMemcpy(counters)");
            check(cudaStreamSynchronize(l.stream), "check output");
            wrong += res[0];
            checked_elements += (out + step - 1) / step + ((out - 1) % step != 0 ? 1 : 0);
            if (res[0] != 0 && first_wrong.empty())
                first_wrong = "rank " + std::to_string(l.rank) + ": first at element " + std::to_string(res[1]);
        }
    });
    const double wrong_total = mpi.allreduce_sum(static_cast<double>(wrong));
    if (wrong_total > 0)
        throw MeasureError("collective verification failed: " + std::to_string(static_cast<unsigned long long>(wrong_total)) +
                           " wrong elements" + (first_wrong.empty() ? std::string() : " (" + first_wrong + ")"));

    // ---- Description.
    const std::string name(collective_name(d.kind));
    const std::string mode = plan.in_place ? "in-place" : "out-of-place";
    t.timer = "CUDA events on each GPU's stream around " + std::to_string(iters) + " back-to-back " + mode + " " + name +
              " calls" + (locals.size() > 1 ? " (grouped across this process's GPUs)" : "") + "; sample = slowest GPU's time / " +
              std::to_string(iters) +
              "; no spin-kernel gate, so host launch time counts where it exceeds the collective's (as in nccl-tests)" +
              (multi_process ? "; MPI ranks sample in lockstep (stop decisions on the slowest rank's sample) and each "
                               "reports its own samples"
                             : "");
    t.cache = "hot: the same buffers every iteration, L2 not flushed (as nccl-tests)";
    const std::string scope = d.kind == CollectiveKind::reduce ? "the root's" : "every rank's";
    const std::string poisoned =
        !plan.in_place ? "NaN-poisoned outputs"
        : d.kind == CollectiveKind::allgather
            ? "the shared buffer NaN-poisoned except each rank's own input block, rewritten before the run"
            : "each rank's input rewritten into the shared buffer before the run (the output overwrites it"
              " in place, so only a changed value shows the collective ran)";
    t.verification = "after timing, one run with " + poisoned + ": " + scope + " output elements" +
                     (step > 1 ? " (every " + std::to_string(step) + "th, and the last)" : "") +
                     " compared with exact expected values (inputs are integers within ±" + std::to_string(values.magnitude) +
                     " on " + std::to_string(values.active) + " of " + std::to_string(n) +
                     " ranks per index, so every partial sum is exact in " + std::string(dtype_name(d.dtype)) + "): 0 wrong of " +
                     std::to_string(checked_elements) + (multi_process ? " on this rank" : "");
    t.detail =
        mode +
        (plan.in_place ? " (send buffer inside the receive buffer, as nccl-tests' in-place column)"
                       : " (separate send and receive buffers)") +
        "; NCCL " + version_text(version) + " (" + nccl.lib.name() + "); " +
        (multi_process ? "MPI rank " + std::to_string(mpi.rank()) + " of " + std::to_string(mpi.size()) + ", GPU " +
                             std::to_string(device) + " (ncclCommInitRank)"
                       : std::to_string(n) + " ranks in one process on GPUs " + device_list(locals) + " (ncclCommInitAll)");
    const char* algo_env = std::getenv("NCCL_ALGO");
    t.notes.push_back(algo_env != nullptr
                          ? "NCCL_ALGO=" + std::string(algo_env) + " in the environment"
                          : "NCCL chose its own algorithm and protocol (set NCCL_ALGO / NCCL_PROTO to pin them); --algo " +
                                std::string(algo_name(d.algo)) + " shapes the model only");
    if (d.dtype == DType::tf32)
        t.notes.push_back("tf32 is stored as fp32: the collective moved fp32 elements");
    return t;
}

}  // namespace bwacct::measure::cuda
