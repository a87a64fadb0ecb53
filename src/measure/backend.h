// The measurement seam. One abstract Backend; one implementation per folder: cuda/ (CUDA events,
// cuBLASLt, NCCL, CUPTI; compiled only with the CUDA toolkit) and sim/ (a hardware model with noise,
// for tests only: selected solely by BWACCT_SIMULATE, and every output it feeds says "simulated").
// BabelStream's Stream<T> is the model: the CLI and the statistics never know which backend runs.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bwacct/measurement.h"
#include "bwacct/ops.h"

namespace bwacct::measure {

// A measurement could not be made (no GPU, a library missing, a CUDA/NCCL error, a failed
// verification). The CLI prints it on one line and exits 1; never a number.
class MeasureError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The GPU ran out of memory (cudaErrorMemoryAllocation, or a working set larger than the free
// memory). A MeasureError, so uncaught it fails the command; hbm_fitting (oom_retry.h) catches it
// and retries at half the size, since a smaller HBM array still measures the same bandwidth. A
// fixed-shape op (GEMM, elementwise, collective) cannot shrink without measuring something else,
// so the backends turn it into a plain MeasureError naming the shape.
class OutOfMemory : public MeasureError {
public:
    using MeasureError::MeasureError;
};

// How to sample (nvbench-style): warm up, then sample until the coefficient of variation is below
// target_cv (after min_samples) or the budget is spent (max_samples or budget_ms).
struct SamplePolicy {
    int warmup = 3;
    int min_samples = 10;
    int max_samples = 200;
    double target_cv = 0.01;
    double budget_ms = 1000;
    bool cold = true;  // flush L2 (or rotate buffers) before each sample when the working set fits in L2
};

enum class HbmKernel { copy, read, write, triad };
std::string_view hbm_kernel_name(HbmKernel k);
// Bytes one pass of the kernel moves over n_bytes-sized arrays: copy 2×, read 1×, write 1×, triad 3×.
std::uint64_t hbm_bytes_moved(HbmKernel k, std::uint64_t array_bytes);

struct LaunchTimes {
    Timing host_launch;      // host cost of one launch (no sync), per kernel
    Timing stream_kernel;    // per kernel, dependent empty kernels on one stream
    Timing graph_kernel;     // per kernel, the same inside a CUDA graph
    Timing sync_round_trip;  // launch + cudaStreamSynchronize of one empty kernel
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;   // "cuda" or "simulated"
    virtual TimeSource source() const = 0;  // measured or simulated
    virtual DeviceInfo device() = 0;
    virtual Clocks clocks() = 0;
    virtual Timing gemm(const GemmDesc& d, const SamplePolicy& p) = 0;
    virtual Timing elementwise(const ElementwiseDesc& d, const SamplePolicy& p) = 0;
    // layernorm, rmsnorm or softmax over the last dimension of d.shape. Not pure, so a test's stub
    // backend need not define it: by default the backend cannot measure it (a MeasureError).
    virtual Timing norm(const NormDesc& d, const SamplePolicy& p);
    // Fused attention in the decode regime (attention_limits.h says which shapes). Not pure either.
    virtual Timing attention(const AttentionDesc& d, const SamplePolicy& p);
    // One of the HBM kernels over arrays of array_bytes each.
    virtual Timing hbm(HbmKernel k, std::uint64_t array_bytes, const SamplePolicy& p) = 0;
    virtual LaunchTimes launch(const SamplePolicy& p) = 0;
    // A collective across this process's GPUs or, under MPI, across ranks (one GPU per rank).
    virtual Timing collective(const CollectiveDesc& d, const SamplePolicy& p) = 0;
};

inline Timing Backend::norm(const NormDesc& d, const SamplePolicy&) {
    std::string what(norm_name(d.kind));
    what += " is not measurable with the ";
    what += name();
    what += " backend";
    throw MeasureError(what);
}

inline Timing Backend::attention(const AttentionDesc&, const SamplePolicy&) {
    throw MeasureError("attention is not measurable with the " + name() + " backend");
}

// The backend for this run: the simulated one when BWACCT_SIMULATE=<catalog gpu id> is set (tests),
// else CUDA when compiled in and a GPU is present. Throws MeasureError saying why there is none.
std::unique_ptr<Backend> open_backend();

}  // namespace bwacct::measure
