// The CUDA backend for one GPU: HBM streams, elementwise ops, normalizations and launch costs through kernels/,
// GEMMs through cuBLASLt (gemm_lt), collectives through NCCL (nccl_collective). Every number comes
// from time_region (timing.h) and is reported only after its result has been verified.
#include "cuda_backend.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "../attention_limits.h"
#include "../device_choice.h"
#include "../driver_version.h"
#include "../failure_text.h"
#include "../flush_rule.h"
#include "../sampling.h"
#include "bwacct/dtype.h"
#include "bwacct/exact.h"
#include "bwacct/ops.h"
#include "check_kernels.h"
#include "cupti_activity.h"
#include "device.h"
#include "dram_counters.h"
#include "gemm_lt.h"
#include "kernels.h"
#include "nccl_collective.h"
#include "timing.h"

namespace bwacct::measure::cuda {
namespace {

namespace k = bwacct::kernels;

// Launches per sample for the launch-cost measurements.
constexpr int kLaunches = 100;
// Dependent empty kernels queued behind the spin gate per sample: nvbench advises queueing at most
// ~32 launches behind a blocking kernel (the launch queue's depth depends on device and driver).
constexpr int kGatedLaunches = 32;
// Elements checked on the host (besides the whole-array check on the GPU).
constexpr std::size_t kHostSamples = 256;

std::string iec(std::uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024 * 1024)
        return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
    return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
}

// A cudaMalloc'd buffer, freed on scope exit (cudaFree errors ignored: a destructor must not throw).
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::uint64_t bytes, const char* what) {
        if (bytes > 0)
            check(cudaMalloc(&p_, static_cast<std::size_t>(bytes)), what);
    }
    ~DeviceBuffer() {
        if (p_ != nullptr)
            (void)cudaFree(p_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(p_, o.p_);
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void* get() const { return p_; }
    template <class T>
    T* as() const {
        return static_cast<T*>(p_);
    }

private:
    void* p_ = nullptr;
};

class GraphExec {
public:
    GraphExec() = default;
    ~GraphExec() {
        if (exec != nullptr)
            (void)cudaGraphExecDestroy(exec);
        if (graph != nullptr)
            (void)cudaGraphDestroy(graph);
    }
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
};

std::string no_gpu_reason(cudaError_t e) {
    if (e == cudaErrorInsufficientDriver) {
        int driver = 0;
        if (cudaDriverGetVersion(&driver) != cudaSuccess)
            driver = 0;
        return insufficient_driver_message(driver, CUDART_VERSION);
    }
    if (e == cudaErrorNoDevice)
        return "no CUDA GPU: the NVIDIA driver is loaded but reports no GPU (check nvidia-smi and CUDA_VISIBLE_DEVICES; "
               "cudaGetDeviceCount: cudaErrorNoDevice)";
    return fmt::format("no CUDA GPU: cudaGetDeviceCount failed: {} ({})", cudaGetErrorString(e), cudaGetErrorName(e));
}

// Indices to check on the host: both ends, the vector tail, and pseudo-random ones in between.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count, std::uint64_t seed) {
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < std::min<std::size_t>(n, 8); ++i) {
        idx.push_back(i);
        idx.push_back(n - 1 - i);
    }
    for (std::size_t i = 0; idx.size() < count && i < count; ++i)
        idx.push_back(static_cast<std::size_t>(k::mix64(seed + i) % n));
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    return idx;
}

// Σ random_k(seed, i, bits) for i < n, exactly (integers), on every host core.
std::uint64_t sum_random_k(std::uint64_t seed, std::uint64_t n, int bits) {
    unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 32u);
    if (n < (1u << 20))
        threads = 1;
    std::vector<std::uint64_t> part(threads, 0);
    std::vector<std::thread> pool;
    const std::uint64_t chunk = n / threads;
    for (unsigned t = 0; t < threads; ++t) {
        const std::uint64_t lo = chunk * t, hi = t + 1 == threads ? n : lo + chunk;
        pool.emplace_back([&part, t, lo, hi, seed, bits] {
            std::uint64_t s = 0;
            for (std::uint64_t i = lo; i < hi; ++i)
                s += k::random_k(seed, i, bits);
            part[t] = s;
        });
    }
    for (std::thread& th : pool)
        th.join();
    std::uint64_t s = 0;
    for (std::uint64_t x : part)
        s += x;
    return s;
}

const void* out_ptr(const void* base, std::size_t i, std::size_t esize) { return static_cast<const char*>(base) + i * esize; }

// The value of one stored f32, f16 or bf16 element (exact).
double stored_value(k::Elem e, const void* p) {
    if (e == k::Elem::f32) {
        float f = 0;
        std::memcpy(&f, p, sizeof f);
        return f;
    }
    std::uint16_t h = 0;
    std::memcpy(&h, p, sizeof h);
    return e == k::Elem::f16 ? k::f16_bits_to_double(h) : k::bf16_bits_to_double(h);
}

Timing per_kernel(Timing t, int kernels) {
    for (double& x : t.samples_us)
        x /= kernels;
    t.stats = summarize(t.samples_us);
    return t;
}

class CudaBackend final : public Backend {
public:
    explicit CudaBackend(int device) : device_(device) {
        check(cudaSetDevice(device), "cudaSetDevice");
        info_ = query_device(device);
        const cudaError_t img = k::probe_kernel_image();
        if (img == cudaErrorNoKernelImageForDevice || img == cudaErrorInvalidDeviceFunction)
            throw MeasureError(fmt::format(
                "GPU {} ({}) has compute capability {}.{}, and this bwacct holds no GPU code it can run: rebuild with "
                "-DCMAKE_CUDA_ARCHITECTURES={}{}",
                device, info_.name, info_.cc_major, info_.cc_minor, info_.cc_major, info_.cc_minor));
        check(img, "loading bwacct's kernels");
        check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    }
    ~CudaBackend() override {
        if (stream_ != nullptr)
            (void)cudaStreamDestroy(stream_);
    }
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    std::string name() const override { return "cuda"; }
    TimeSource source() const override { return TimeSource::measured; }
    DeviceInfo device() override { return info_; }
    Clocks clocks() override { return read_clocks(device_); }

    Timing gemm(const GemmDesc& d, const SamplePolicy& p) override {
        DeviceGuard guard(device_);
        const Clocks before = read_clocks(device_);
        Timing t;
        try {
            t = measure_gemm(d, p, device_);  // traces the kernels of one extra, untimed run
        } catch (const OutOfMemory& e) {
            throw MeasureError(fixed_size_oom_message(
                fmt::format("the GEMM M={} N={} K={}{}", d.m, d.n, d.k, d.batch > 1 ? fmt::format(" batch={}", d.batch) : ""),
                e.what()));
        }
        finish(t, before, read_clocks(device_));
        return t;
    }

    Timing collective(const CollectiveDesc& d, const SamplePolicy& p) override {
        DeviceGuard guard(device_);
        const Clocks before = read_clocks(device_);
        Timing t;
        try {
            t = measure_collective(d, p, device_);
        } catch (const OutOfMemory& e) {
            throw MeasureError(
                fixed_size_oom_message(fmt::format("{} of {}", collective_name(d.kind), iec(d.size_bytes)), e.what()));
        }
        finish(t, before, read_clocks(device_));
        return t;
    }

    Timing hbm(HbmKernel kind, std::uint64_t array_bytes, const SamplePolicy& p) override;
    Timing elementwise(const ElementwiseDesc& d, const SamplePolicy& p) override {
        try {
            return measure_elementwise(d, p);
        } catch (const OutOfMemory& e) {
            throw MeasureError(fixed_size_oom_message(
                fmt::format("the elementwise op over {} elements", element_count(d.shape).value()), e.what()));
        }
    }
    Timing norm(const NormDesc& d, const SamplePolicy& p) override {
        try {
            return measure_norm(d, p);
        } catch (const OutOfMemory& e) {
            throw MeasureError(fixed_size_oom_message(
                fmt::format("the {} over {} elements", norm_name(d.kind), element_count(d.shape).value()), e.what()));
        }
    }
    Timing attention(const AttentionDesc& d, const SamplePolicy& p) override {
        if (const auto why = attention_unmeasurable(d))
            throw MeasureError(*why);
        Timing t;
        try {
            t = measure_attention(d, p);  // traces the kernels of one extra, untimed run
        } catch (const OutOfMemory& e) {
            throw MeasureError(fixed_size_oom_message(
                fmt::format("the attention over {} KV head(s) of {} keys", d.batch * d.kv_heads, d.kv_len), e.what()));
        }
        return t;
    }
    LaunchTimes launch(const SamplePolicy& p) override;

private:
    Timing measure_elementwise(const ElementwiseDesc& d, const SamplePolicy& p);
    Timing measure_norm(const NormDesc& d, const SamplePolicy& p);
    Timing measure_attention(const AttentionDesc& d, const SamplePolicy& p);
    std::uint64_t next_seed() { return k::mix64(0xB5AD4ECEDA1CE2A9ull + ++draws_); }

    void sync(const char* what) { check(cudaStreamSynchronize(stream_), what); }

    void read_back(void* dst, const void* src, std::size_t bytes) {
        check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (read-back)");
        sync("the read-back (cudaStreamSynchronize)");
    }

    void check_fits(std::uint64_t need, const std::string& what) {
        std::size_t free = 0, total = 0;
        check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
        if (static_cast<double>(need) > 0.9 * static_cast<double>(free))
            throw OutOfMemory(fmt::format("out of GPU memory: {} need {}, but GPU {} has {} free (of {})", what, iec(need),
                                          device_, iec(free), iec(total)));
    }

    // flush_l2 for a working set: only a cold policy with data the L2 could hold.
    bool wants_flush(const SamplePolicy& p, std::uint64_t working_set) const {
        return wants_l2_flush(p.cold, working_set, info_.l2_bytes);
    }

    std::string cache_text(const Timing& t, const SamplePolicy& p, std::uint64_t working_set) const {
        const double ratio = info_.l2_bytes > 0 ? static_cast<double>(working_set) / static_cast<double>(info_.l2_bytes) : 0;
        if (info_.l2_bytes > 0 && working_set >= kNoFlushFactor * info_.l2_bytes)
            return fmt::format("hot: arrays {:.1f}× L2 ({} of {}), the cache cannot hold them; no flush needed", ratio,
                               iec(working_set), iec(info_.l2_bytes));
        if (!p.cold)
            return fmt::format("{} (working set {:.2f}× L2)", t.cache, ratio);
        return t.cache;
    }

    // Clocks around the measurement, and a note when the SM clock fell by more than 10 %.
    static void finish(Timing& t, const Clocks& before, const Clocks& after) {
        t.clocks_before = before;
        t.clocks_after = after;
        if (before.sm_MHz > 0 && after.sm_MHz > 0 && after.sm_MHz < 0.9 * before.sm_MHz)
            t.notes.push_back(
                fmt::format("clock dropped from {:.0f} to {:.0f} MHz during the measurement: thermal or power throttling",
                            before.sm_MHz, after.sm_MHz));
        if (before.sm_MHz <= 0 && after.sm_MHz <= 0)
            t.notes.push_back("clocks not recorded: NVML (libnvidia-ml.so.1, part of the driver) is not available");
    }

    // Whole-array check on the GPU: throws when any element is off.
    void require_no_mismatch(unsigned long long* counters, std::size_t n, const std::string& what) {
        unsigned long long h[2] = {0, 0};
        read_back(h, counters, sizeof h);
        if (h[0] != 0)
            throw MeasureError(
                fmt::format("verification failed: {} of {} elements of {} are wrong (first at index {}); "
                            "no time reported",
                            h[0], n, what, h[1]));
    }

    int device_;
    DeviceInfo info_;
    cudaStream_t stream_ = nullptr;
    std::uint64_t draws_ = 0;
};

// ---- HBM: copy, read, write, triad

Timing CudaBackend::hbm(HbmKernel kind, std::uint64_t array_bytes, const SamplePolicy& p) {
    DeviceGuard guard(device_);
    if (array_bytes == 0)
        throw MeasureError("the HBM arrays must not be empty");
    const k::Elem e = array_bytes % 8 == 0 ? k::Elem::f64 : k::Elem::f32;
    if (array_bytes % 4 != 0)
        throw MeasureError(
            fmt::format("HBM arrays of {} bytes: the size must be a multiple of 4 bytes (f32 elements)", array_bytes));
    const std::size_t esize = k::elem_bytes(e);
    const std::size_t n = static_cast<std::size_t>(array_bytes / esize);
    const char* type = e == k::Elem::f64 ? "f64" : "f32";

    k::HbmOp op = k::HbmOp::copy;
    int arrays = 2;
    switch (kind) {
        case HbmKernel::copy:
            break;
        case HbmKernel::read:
            op = k::HbmOp::read;
            arrays = 1;
            break;
        case HbmKernel::write:
            op = k::HbmOp::write;
            arrays = 1;
            break;
        case HbmKernel::triad:
            op = k::HbmOp::triad;
            arrays = 3;
            break;
    }
    const std::uint64_t working = (Exact(static_cast<std::uint64_t>(arrays)) * Exact(array_bytes)).value();
    check_fits(working, fmt::format("{} array(s) of {}", arrays, iec(array_bytes)));

    int grid = 0;
    check(k::hbm_grid(op, e, &grid), "the occupancy query (HBM kernel)");
    DeviceBuffer a(array_bytes, "cudaMalloc (array a)");
    DeviceBuffer b(arrays >= 2 ? array_bytes : 0, "cudaMalloc (array b)");
    DeviceBuffer c(arrays >= 3 ? array_bytes : 0, "cudaMalloc (array c)");
    DeviceBuffer partial(op == k::HbmOp::read ? static_cast<std::uint64_t>(grid) * sizeof(double) : 0, "cudaMalloc (partials)");
    DeviceBuffer counters(2 * sizeof(unsigned long long), "cudaMalloc (verification counters)");

    // Random inputs (never zeros); outputs poisoned with all-one bits (NaN) so an unwritten element fails.
    const std::uint64_t seed_a = next_seed(), seed_b = next_seed(), seed_c = next_seed();
    k::HbmArgs args;
    args.a = a.get();
    args.b = b.get();
    args.c = c.get();
    args.partial = partial.as<double>();
    args.n = n;
    switch (op) {
        case k::HbmOp::copy:
            check(k::fill_random(a.get(), n, e, seed_a, stream_), "the random fill");
            check(cudaMemsetAsync(b.get(), 0xFF, array_bytes, stream_), "cudaMemsetAsync (poison)");
            break;
        case k::HbmOp::read:
            check(k::fill_random(a.get(), n, e, seed_a, stream_), "the random fill");
            break;
        case k::HbmOp::write:
            check(cudaMemsetAsync(a.get(), 0xFF, array_bytes, stream_), "cudaMemsetAsync (poison)");
            break;
        case k::HbmOp::triad:
            check(k::fill_random(b.get(), n, e, seed_b, stream_), "the random fill");
            check(k::fill_random(c.get(), n, e, seed_c, stream_), "the random fill");
            check(cudaMemsetAsync(a.get(), 0xFF, array_bytes, stream_), "cudaMemsetAsync (poison)");
            break;
    }
    sync("the array initialization (cudaStreamSynchronize)");

    const Region r{stream_, device_, wants_flush(p, working)};
    const Clocks before = read_clocks(device_);
    Timing t = time_region(r, p, [&](cudaStream_t s) { check(k::launch_hbm(op, e, args, grid, s), "the HBM kernel launch"); });
    const Clocks after = read_clocks(device_);

    // DRAM bytes of one more (untimed) run; the kernels are idempotent, so the check below covers it too.
    // Lower bounds: every input array read once, every output array written once.
    const std::uint64_t reads = op == k::HbmOp::write ? 0 : op == k::HbmOp::triad ? 2 * array_bytes : array_bytes;
    const std::uint64_t writes = op == k::HbmOp::read ? 0 : array_bytes;
    add_dram_bytes(t, device_, reads, writes, [&] {
        check(k::launch_hbm(op, e, args, grid, stream_), "the HBM kernel launch (profiled run)");
        sync("the profiled HBM run (cudaStreamSynchronize)");
    });

    // Verification (the kernels are idempotent: every iteration leaves the same result).
    const std::vector<std::size_t> idx = sample_indices(n, kHostSamples, next_seed());
    k::HbmExpect x;
    const void* out = a.get();
    std::string what = "a";
    switch (op) {
        case k::HbmOp::copy:
            x.kind = k::HbmExpect::Kind::random;
            x.seed = seed_a;
            out = b.get();
            what = "b (copy of a)";
            break;
        case k::HbmOp::write:
            x.kind = k::HbmExpect::Kind::constant;
            x.value = args.value;
            break;
        case k::HbmOp::triad:
            x.kind = k::HbmExpect::Kind::triad;
            x.seed_b = seed_b;
            x.seed_c = seed_c;
            x.scalar = args.scalar;
            what = "a (triad)";
            break;
        case k::HbmOp::read:
            break;
    }
    if (op == k::HbmOp::read) {
        std::vector<double> parts(static_cast<std::size_t>(grid));
        read_back(parts.data(), partial.get(), parts.size() * sizeof(double));
        double got = 0;
        for (double v : parts)
            got += v;
        const int bits = k::random_bits(e);
        const double expected =
            static_cast<double>(n) * 0.5 + static_cast<double>(sum_random_k(seed_a, n, bits)) / static_cast<double>(1ull << bits);
        // Every partial sum is a multiple of 2^-bits below 2^(53-bits) while n < 2^32: exact in double.
        const bool exact = n < (1ull << 32);
        if (exact ? got != expected : std::fabs(got - expected) > 1e-12 * expected)
            throw MeasureError(
                fmt::format("verification failed: the read kernel's sum is {:.17g}, the host's {:.17g}; "
                            "no time reported",
                            got, expected));
        t.verification = fmt::format(
            "the kernel's sum of all {} elements (per-block partials, added on the host) equals "
            "the host's sum of the random values{}",
            n, exact ? " exactly (both exact in double)" : " within 1e-12");
    } else {
        check(k::check_hbm_result(out, n, e, x, counters.as<unsigned long long>(), stream_), "the verification kernel");
        require_no_mismatch(counters.as<unsigned long long>(), n, what);
        for (std::size_t i : idx) {
            bool ok = false;
            if (e == k::Elem::f64) {
                double g = 0;
                read_back(&g, out_ptr(out, i, esize), esize);
                double want = x.value;
                if (x.kind == k::HbmExpect::Kind::random)
                    want = k::random_value(x.seed, i, e);
                else if (x.kind == k::HbmExpect::Kind::triad)
                    want = k::triad_f64(x.scalar, k::random_value(x.seed_c, i, e), k::random_value(x.seed_b, i, e));
                ok = std::bit_cast<std::uint64_t>(g) == std::bit_cast<std::uint64_t>(want);
            } else {
                float g = 0;
                read_back(&g, out_ptr(out, i, esize), esize);
                float want = static_cast<float>(x.value);
                if (x.kind == k::HbmExpect::Kind::random)
                    want = static_cast<float>(k::random_value(x.seed, i, e));
                else if (x.kind == k::HbmExpect::Kind::triad)
                    want = k::triad_f32(static_cast<float>(x.scalar), static_cast<float>(k::random_value(x.seed_c, i, e)),
                                        static_cast<float>(k::random_value(x.seed_b, i, e)));
                ok = std::bit_cast<std::uint32_t>(g) == std::bit_cast<std::uint32_t>(want);
            }
            if (!ok)
                throw MeasureError(
                    fmt::format("verification failed: element {} of {} is wrong on the host check; no time reported", i, what));
        }
        t.verification = fmt::format(
            "every element of {} checked on the GPU, bit for bit, against its value recomputed "
            "from the random inputs; {} sampled elements checked again on the host",
            what, idx.size());
    }

    static constexpr const char* formula[] = {"b = a", "Σ a", "a = x", "a = b + s·c"};
    t.detail = fmt::format(
        "BabelStream-style {} ({}) over {} {} elements per array ({}), 16-byte accesses, "
        "grid {} × {} threads (SMs × resident blocks); {} moved per pass",
        hbm_kernel_name(kind), formula[static_cast<int>(op)], n, type, iec(array_bytes), grid, k::kBlock,
        iec(hbm_bytes_moved(kind, array_bytes)));
    t.cache = cache_text(t, p, working);
    finish(t, before, after);
    return t;
}

// The kernels' element type for a dtype, with its unit roundoff (the verification tolerances):
// bf16 2^-8, fp16 2^-11, fp32 2^-24. Other dtypes are not measurable by these kernels yet.
std::pair<k::Elem, double> stored_type(DType t, std::string_view op) {
    switch (t) {
        case DType::fp32:
            return {k::Elem::f32, 0x1p-24};
        case DType::fp16:
            return {k::Elem::f16, 0x1p-11};
        case DType::bf16:
            return {k::Elem::bf16, 0x1p-8};
        default:
            throw MeasureError(
                fmt::format("{} in {} is not measurable yet: the CUDA backend measures bf16, fp16 and fp32", op, dtype_name(t)));
    }
}

// ---- elementwise

Timing CudaBackend::measure_elementwise(const ElementwiseDesc& d, const SamplePolicy& p) {
    DeviceGuard guard(device_);
    const std::pair<k::Elem, double> stored = stored_type(d.dtype, "elementwise");
    const k::Elem e = stored.first;
    const double unit_roundoff = stored.second;
    if (d.inputs < 1 || d.inputs > static_cast<std::uint64_t>(k::kMaxEwArrays) || d.outputs < 1 ||
        d.outputs > static_cast<std::uint64_t>(k::kMaxEwArrays))
        throw MeasureError(fmt::format("elementwise with {} inputs and {} outputs is not measurable yet: at most {} of each",
                                       d.inputs, d.outputs, k::kMaxEwArrays));
    const int inputs = static_cast<int>(d.inputs), outputs = static_cast<int>(d.outputs);
    const std::uint64_t n64 = element_count(d.shape).value();
    const std::size_t n = static_cast<std::size_t>(n64);
    const std::size_t esize = k::elem_bytes(e);
    const std::uint64_t tensor_bytes = (Exact(n64) * Exact(esize)).value();
    const std::uint64_t working = (Exact(d.inputs + d.outputs) * Exact(tensor_bytes)).value();
    check_fits(working, fmt::format("{} input(s) and {} output(s) of {}", inputs, outputs, iec(tensor_bytes)));

    // FLOPs per element: inputs − 1 adds combine the inputs; the rest is a dependent chain.
    const std::uint64_t combine = d.inputs - 1;
    const std::uint64_t chain = d.flops_per_elem > combine ? d.flops_per_elem - combine : 0;
    if (chain / 4 > static_cast<std::uint64_t>(INT_MAX))
        throw MeasureError(fmt::format("{} FLOPs per element is not measurable: too many for one kernel", d.flops_per_elem));
    const int pairs = static_cast<int>(chain / 4), rem = static_cast<int>(chain % 4);
    const std::uint64_t done = combine + chain;

    std::vector<DeviceBuffer> in, out;
    k::EwArgs args;
    args.inputs = inputs;
    args.outputs = outputs;
    args.n = n;
    args.pairs = pairs;
    args.rem = rem;
    const std::uint64_t seed0 = next_seed();
    for (int j = 0; j < inputs; ++j) {
        in.emplace_back(tensor_bytes, "cudaMalloc (elementwise input)");
        check(k::fill_random(in.back().get(), n, e, seed0 + static_cast<std::uint64_t>(j), stream_), "the random fill");
        args.in[j] = in.back().get();
    }
    for (int j = 0; j < outputs; ++j) {
        out.emplace_back(tensor_bytes, "cudaMalloc (elementwise output)");
        check(cudaMemsetAsync(out.back().get(), 0xFF, tensor_bytes, stream_), "cudaMemsetAsync (poison)");
        args.out[j] = out.back().get();
    }
    int grid = 0;
    check(k::ew_grid(e, &grid), "the occupancy query (elementwise kernel)");
    sync("the array initialization (cudaStreamSynchronize)");

    const Region r{stream_, device_, wants_flush(p, working)};
    const Clocks before = read_clocks(device_);
    Timing t = time_region(
        r, p, [&](cudaStream_t s) { check(k::launch_elementwise(e, args, grid, s), "the elementwise kernel launch"); });
    const Clocks after = read_clocks(device_);

    // DRAM bytes of one more (untimed) run; it rewrites the same outputs, which the check below covers.
    const Cost lower = elementwise_cost(d);
    add_dram_bytes(t, device_, lower.bytes_read, lower.bytes_written, [&] {
        check(k::launch_elementwise(e, args, grid, stream_), "the elementwise kernel launch (profiled run)");
        sync("the profiled elementwise run (cudaStreamSynchronize)");
    });

    // Verification: |out − Σ inputs| ≤ inputs · u · Σ inputs (u: the type's unit roundoff). The sum
    // is rounded inputs − 1 times; the FMA chain is exact for these values.
    const double tol = static_cast<double>(inputs) * unit_roundoff;
    const std::vector<std::size_t> idx = sample_indices(n, kHostSamples / 4, next_seed());
    DeviceBuffer counters(2 * sizeof(unsigned long long), "cudaMalloc (verification counters)");
    for (int o = 0; o < outputs; ++o) {
        const std::string what = fmt::format("output {}", o);
        check(k::check_elementwise_result(out[static_cast<std::size_t>(o)].get(), n, e, inputs, seed0, tol,
                                          counters.as<unsigned long long>(), stream_),
              "the verification kernel");
        require_no_mismatch(counters.as<unsigned long long>(), n, what);
        for (std::size_t i : idx) {
            unsigned char bytes[4] = {};
            read_back(bytes, out_ptr(out[static_cast<std::size_t>(o)].get(), i, esize), esize);
            const double g = stored_value(e, bytes);
            double s = 0;
            for (int j = 0; j < inputs; ++j)
                s += k::random_value(seed0 + static_cast<std::uint64_t>(j), i, e);
            if (!(std::fabs(g - s) <= tol * s))
                throw MeasureError(
                    fmt::format("verification failed: element {} of {} is {:.9g}, expected {:.9g} (± {:.2g}); "
                                "no time reported",
                                i, what, g, s, tol * s));
        }
    }
    t.verification = fmt::format(
        "every element of the {} output(s) checked on the GPU against the sum of its random "
        "inputs (relative tolerance {:.2g}: {} × the {} unit roundoff); {} sampled elements per "
        "output checked again on the host",
        outputs, tol, inputs, dtype_name(d.dtype), idx.size());
    const bool packed = e != k::Elem::f32;
    t.detail = fmt::format(
        "per element: {} add(s) combining the inputs, {} pair(s) of dependent FMAs and {} more FLOP(s), "
        "in {}{}: {} FLOPs; {} input(s) read, {} output(s) written, {} elements, 16-byte accesses, "
        "grid {} × {} threads",
        combine, pairs, rem, dtype_name(d.dtype), packed ? " (packed, 2 elements per instruction)" : "", done, inputs, outputs, n,
        grid, k::kBlock);
    if (done != d.flops_per_elem)
        t.notes.push_back(fmt::format("the kernel does {} FLOPs per element, not the {} asked: combining {} inputs takes {} adds",
                                      done, d.flops_per_elem, inputs, combine));
    if (d.unit == Unit::tensor && done > 0)
        t.notes.push_back("the kernel's arithmetic runs on the CUDA cores (vector FMAs), not the tensor cores");
    t.cache = cache_text(t, p, working);
    finish(t, before, after);
    return t;
}

// ---- layernorm, rmsnorm, softmax

// ε of layernorm and rmsnorm (PyTorch's LayerNorm default).
constexpr float kNormEps = 1e-5f;
// Rows checked on the host against a float64 computation.
constexpr std::size_t kNormRows = 16;

// y of one row in float64 from the exact inputs.
std::vector<double> norm_reference(NormKind kind, const std::vector<double>& x, const std::vector<double>& g,
                                   const std::vector<double>& b, double eps) {
    const double dim = static_cast<double>(x.size());
    std::vector<double> y(x.size());
    if (kind == NormKind::softmax) {
        const double m = *std::max_element(x.begin(), x.end());
        double s = 0;
        for (double v : x)
            s += std::exp(v - m);
        for (std::size_t j = 0; j < x.size(); ++j)
            y[j] = std::exp(x[j] - m) / s;
        return y;
    }
    double mean = 0, ms = 0;
    for (double v : x)
        mean += v;
    mean /= dim;
    for (double v : x)
        ms += kind == NormKind::layernorm ? (v - mean) * (v - mean) : v * v;
    const double rstd = 1.0 / std::sqrt(ms / dim + eps);
    for (std::size_t j = 0; j < x.size(); ++j)
        y[j] = kind == NormKind::layernorm ? (x[j] - mean) * rstd * g[j] + b[j] : x[j] * rstd * g[j];
    return y;
}

Timing CudaBackend::measure_norm(const NormDesc& d, const SamplePolicy& p) {
    DeviceGuard guard(device_);
    const std::pair<k::Elem, double> stored = stored_type(d.dtype, norm_name(d.kind));
    const k::Elem e = stored.first;
    const double unit_roundoff = stored.second;
    k::NormOp op = k::NormOp::layernorm;
    if (d.kind == NormKind::rmsnorm)
        op = k::NormOp::rmsnorm;
    else if (d.kind == NormKind::softmax)
        op = k::NormOp::softmax;
    const int params = d.kind == NormKind::layernorm ? 2 : d.kind == NormKind::rmsnorm ? 1 : 0;

    const std::uint64_t n64 = element_count(d.shape).value();
    const std::uint64_t dim64 = d.shape.empty() ? 0 : d.shape.back();
    if (n64 == 0 || dim64 == 0)
        throw MeasureError(fmt::format("{} of an empty tensor is not measurable", norm_name(d.kind)));
    const std::uint64_t rows64 = n64 / dim64;
    if (rows64 > static_cast<std::uint64_t>(INT_MAX))
        throw MeasureError(fmt::format("{} over {} rows is not measurable: the kernel runs one block per row, at most {}",
                                       norm_name(d.kind), rows64, INT_MAX));
    const std::size_t n = static_cast<std::size_t>(n64), dim = static_cast<std::size_t>(dim64),
                      rows = static_cast<std::size_t>(rows64);
    const std::size_t esize = k::elem_bytes(e);
    const std::uint64_t tensor_bytes = (Exact(n64) * Exact(esize)).value();
    const std::uint64_t param_bytes = (Exact(dim64) * Exact(esize)).value();
    const std::uint64_t working =
        (Exact(2) * Exact(tensor_bytes) + Exact(static_cast<std::uint64_t>(params)) * Exact(param_bytes)).value();
    check_fits(working, fmt::format("x and y of {} and {} parameter vector(s)", iec(tensor_bytes), params));

    // Random inputs in [0.5, 1.5), exact in the type (kernels.h); y poisoned with NaN so an
    // unwritten element fails the check.
    const std::uint64_t seed_x = next_seed(), seed_g = next_seed(), seed_b = next_seed();
    DeviceBuffer x(tensor_bytes, "cudaMalloc (x)");
    DeviceBuffer y(tensor_bytes, "cudaMalloc (y)");
    DeviceBuffer gamma(params >= 1 ? param_bytes : 0, "cudaMalloc (γ)");
    DeviceBuffer beta(params >= 2 ? param_bytes : 0, "cudaMalloc (β)");
    check(k::fill_random(x.get(), n, e, seed_x, stream_), "the random fill");
    if (params >= 1)
        check(k::fill_random(gamma.get(), dim, e, seed_g, stream_), "the random fill");
    if (params >= 2)
        check(k::fill_random(beta.get(), dim, e, seed_b, stream_), "the random fill");
    check(cudaMemsetAsync(y.get(), 0xFF, tensor_bytes, stream_), "cudaMemsetAsync (poison)");
    sync("the array initialization (cudaStreamSynchronize)");

    k::NormArgs args;
    args.x = x.get();
    args.gamma = gamma.get();
    args.beta = beta.get();
    args.y = y.get();
    args.rows = rows;
    args.dim = dim;
    args.eps = kNormEps;

    const Region r{stream_, device_, wants_flush(p, working)};
    const Clocks before = read_clocks(device_);
    Timing t = time_region(r, p, [&](cudaStream_t s) { check(k::launch_norm(op, e, args, s), "the norm kernel launch"); });
    const Clocks after = read_clocks(device_);

    // DRAM bytes of one more (untimed) run, against the model's lower bound (x and the parameters
    // read once, y written once); the run rewrites the same y, which the check below covers.
    const Cost lower = norm_cost(d);
    add_dram_bytes(t, device_, lower.bytes_read, lower.bytes_written, [&] {
        check(k::launch_norm(op, e, args, stream_), "the norm kernel launch (profiled run)");
        sync("the profiled norm run (cudaStreamSynchronize)");
    });

    // Verification of sampled rows against float64 from the same (exact) inputs. Per element
    // |y − ref| ≤ 2u·|ref| + ε·scale: u the type's unit roundoff (y is rounded once to the type),
    // ε = 2^-24 · 64 · (D/kBlock + 16) the fp32 arithmetic's error (each thread's D/kBlock-term sum,
    // the shuffle and shared-memory tree, rsqrt, exp), scale the magnitude of the terms y is made of.
    const double eps_f32 = 0x1p-24 * 64.0 * (static_cast<double>(dim) / k::kBlock + 16.0);
    std::vector<double> g(dim, 1.0), b(dim, 0.0);
    for (std::size_t j = 0; j < dim && params >= 1; ++j)
        g[j] = k::random_value(seed_g, j, e);
    for (std::size_t j = 0; j < dim && params >= 2; ++j)
        b[j] = k::random_value(seed_b, j, e);
    const std::vector<std::size_t> sampled = sample_indices(rows, kNormRows, next_seed());
    std::vector<unsigned char> raw(dim * esize);
    std::vector<double> xr(dim);
    for (std::size_t row : sampled) {
        read_back(raw.data(), out_ptr(y.get(), row * dim, esize), raw.size());
        for (std::size_t j = 0; j < dim; ++j)
            xr[j] = k::random_value(seed_x, row * dim + j, e);
        const std::vector<double> ref = norm_reference(d.kind, xr, g, b, static_cast<double>(kNormEps));
        double mean = 0, ms = 0, mx = xr[0];
        for (double v : xr) {
            mean += v;
            mx = std::max(mx, v);
        }
        mean /= static_cast<double>(dim);
        for (double v : xr)
            ms += d.kind == NormKind::layernorm ? (v - mean) * (v - mean) : v * v;
        const double rstd = 1.0 / std::sqrt(ms / static_cast<double>(dim) + static_cast<double>(kNormEps));
        for (std::size_t j = 0; j < dim; ++j) {
            const double got = stored_value(e, raw.data() + j * esize);
            double scale = std::fabs(ref[j]);
            if (d.kind == NormKind::layernorm)
                scale = (std::fabs(xr[j]) + std::fabs(mean)) * rstd * std::fabs(g[j]) + std::fabs(b[j]);
            else if (d.kind == NormKind::softmax)
                scale = std::fabs(ref[j]) * (2.0 + std::fabs(xr[j] - mx));
            const double tol = 2.0 * unit_roundoff * std::fabs(ref[j]) + eps_f32 * scale;
            if (!(std::fabs(got - ref[j]) <= tol))
                throw MeasureError(
                    fmt::format("verification failed: {} row {} element {} is {:.9g}, the float64 computation {:.9g} "
                                "(± {:.2g}); no time reported",
                                norm_name(d.kind), row, j, got, ref[j], tol));
        }
    }
    t.verification = fmt::format(
        "{} sampled rows (of {}), every element, checked against a float64 computation from the same random inputs "
        "(per element 2 × the {} unit roundoff × |y| plus {:.2g} × the magnitude of its terms for the fp32 arithmetic)",
        sampled.size(), rows, dtype_name(d.dtype), eps_f32);
    const bool vec = dim % (16 / esize) == 0;
    t.detail = fmt::format(
        "{} over {} rows of {} {} elements, one block of {} threads per row, fp32 statistics (warp shuffles, shared "
        "memory){}; two passes over each row (statistics, then y), {} accesses; inputs random in [0.5, 1.5){}",
        norm_name(d.kind), rows, dim, dtype_name(d.dtype), k::kBlock,
        d.kind == NormKind::softmax ? ", online max and sum" : fmt::format(", ε = {:g}", kNormEps),
        vec ? "16-byte" : "element-wise (D is not a whole number of 16-byte vectors)",
        params == 2   ? ", γ and β too"
        : params == 1 ? ", γ too"
                      : "");
    t.cache = cache_text(t, p, working);
    finish(t, before, after);
    return t;
}

// ---- attention (decode regime, kernels/attention.cu)

// Host work budget of the attention check: K and V elements regenerated per sampled row, summed.
constexpr std::uint64_t kAttnCheckBudget = 1ull << 27;
constexpr std::uint64_t kAttnCheckRows = 8;

// The verification run multiplies the scores by this: inputs in [0.5, 1.5) give scores q·k/√d with
// a spread of about 0.4, so at long contexts softmax weights are nearly uniform and any weighting
// averages V to about 1; ×8 makes the weights peaked, so a wrong scale, head or merge shows.
constexpr double kAttnCheckSharpen = 8;

// One query row of attention in float64 from the exact random inputs (kernels.h's layouts), with
// the scores scaled by `sharpen`/√d, streamed (online softmax: no S_k-sized buffer), and the largest
// score magnitude in log2 units, Σ_c |q_c·k_c| · sharpen·log2(e)/√d, for the tolerance.
struct AttnReference {
    std::vector<double> out;
    double score_abs_log2 = 0;
};

AttnReference attention_reference(k::Elem e, const std::uint64_t (&seeds)[3], std::uint64_t group, std::uint64_t row,
                                  std::uint64_t R, std::uint64_t D, std::uint64_t Sk, std::uint64_t Sq, bool causal,
                                  double sharpen) {
    std::vector<double> q(D), acc(D, 0.0);
    for (std::uint64_t c = 0; c < D; ++c)
        q[c] = k::random_value(seeds[0], (group * R + row) * D + c, e);
    const std::uint64_t last = causal ? Sk - Sq + row % Sq : Sk - 1;  // keys 0..last are seen
    const double scale = sharpen / std::sqrt(static_cast<double>(D));
    AttnReference ref;
    double mx = -HUGE_VAL, den = 0;
    for (std::uint64_t j = 0; j <= last; ++j) {
        double dot = 0, magnitude = 0;
        for (std::uint64_t c = 0; c < D; ++c) {
            const double prod = q[c] * k::random_value(seeds[1], (group * Sk + j) * D + c, e);
            dot += prod;
            magnitude += std::fabs(prod);
        }
        ref.score_abs_log2 = std::max(ref.score_abs_log2, magnitude * scale * 1.4426950408889634);
        const double s = dot * scale;
        if (s > mx) {  // rescale what was summed so far to the new maximum
            const double f = std::exp(mx - s);
            den *= f;
            for (double& x : acc)
                x *= f;
            mx = s;
        }
        const double w = std::exp(s - mx);
        den += w;
        for (std::uint64_t c = 0; c < D; ++c)
            acc[c] += w * k::random_value(seeds[2], (group * Sk + j) * D + c, e);
    }
    ref.out.resize(D);
    for (std::uint64_t c = 0; c < D; ++c)
        ref.out[c] = acc[c] / den;
    return ref;
}

Timing CudaBackend::measure_attention(const AttentionDesc& d, const SamplePolicy& p) {
    static_assert(k::kAttnThreads % 32 == 0);
    DeviceGuard guard(device_);
    const std::pair<k::Elem, double> stored = stored_type(d.dtype, "attention");
    const k::Elem e = stored.first;
    const double unit_roundoff = stored.second;
    const std::uint64_t groups = d.batch * d.kv_heads, R = d.heads / d.kv_heads * d.q_len, D = d.head_dim, Sk = d.kv_len,
                        Sq = d.q_len;
    const std::size_t esize = k::elem_bytes(e);
    const std::uint64_t q_elems = (Exact(groups) * Exact(R) * Exact(D)).value();
    const std::uint64_t kv_elems = (Exact(groups) * Exact(Sk) * Exact(D)).value();
    const std::uint64_t q_bytes = (Exact(q_elems) * Exact(esize)).value();
    const std::uint64_t kv_bytes = (Exact(kv_elems) * Exact(esize)).value();

    k::AttnArgs a;
    a.groups = static_cast<int>(groups);
    a.rows = static_cast<int>(R);
    a.q_len = static_cast<int>(Sq);
    a.dim = static_cast<int>(D);
    a.kv_len = static_cast<long long>(Sk);
    a.causal = d.causal;
    a.scale_log2 = static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(D)));  // log2(e)/√d
    check(k::attention_plan(e, a), "planning the attention kernel (cudaFuncSetAttribute, occupancy)");
    const std::uint64_t splits = static_cast<std::uint64_t>(a.splits);
    const std::uint64_t part_o_bytes = (Exact(groups) * Exact(splits) * Exact(R) * Exact(D) * Exact(4)).value();
    const std::uint64_t part_ml_bytes = (Exact(groups) * Exact(splits) * Exact(R) * Exact(8)).value();
    const std::uint64_t working =
        (Exact(2) * Exact(q_bytes) + Exact(2) * Exact(kv_bytes) + Exact(part_o_bytes) + Exact(part_ml_bytes)).value();
    check_fits(working,
               fmt::format("Q and O of {} each, K and V of {} each, and the split partials", iec(q_bytes), iec(kv_bytes)));

    // Random inputs in [0.5, 1.5), exact in the type (kernels.h); O poisoned with NaN so an
    // unwritten element fails the check.
    const std::uint64_t seeds[3] = {next_seed(), next_seed(), next_seed()};
    DeviceBuffer q(q_bytes, "cudaMalloc (Q)"), kk(kv_bytes, "cudaMalloc (K)"), v(kv_bytes, "cudaMalloc (V)"),
        o(q_bytes, "cudaMalloc (O)"), part_o(part_o_bytes, "cudaMalloc (split partials)"),
        part_ml(part_ml_bytes, "cudaMalloc (split partials)"), counter(sizeof(unsigned long long), "cudaMalloc (counter)");
    check(k::fill_random(q.get(), q_elems, e, seeds[0], stream_), "the random fill");
    check(k::fill_random(kk.get(), kv_elems, e, seeds[1], stream_), "the random fill");
    check(k::fill_random(v.get(), kv_elems, e, seeds[2], stream_), "the random fill");
    check(cudaMemsetAsync(o.get(), 0xFF, q_bytes, stream_), "cudaMemsetAsync (poison)");
    sync("the array initialization (cudaStreamSynchronize)");
    a.q = q.get();
    a.k = kk.get();
    a.v = v.get();
    a.o = o.get();
    a.part_o = part_o.as<float>();
    a.part_ml = part_ml.as<float>();

    const Region r{stream_, device_, wants_flush(p, working)};
    const Clocks before = read_clocks(device_);
    Timing t = time_region(r, p, [&](cudaStream_t s) { check(k::launch_attention(e, a, s), "the attention kernels' launch"); });
    const Clocks after = read_clocks(device_);

    // The kernels of one more (untimed) run, traced (CUPTI Activity API: before the Range Profiler's run).
    trace_one_run(t, [&] {
        check(k::launch_attention(e, a, stream_), "the attention kernels' launch (traced run)");
        sync("the traced attention run (cudaStreamSynchronize)");
    });

    // DRAM bytes of one more (untimed) run, against the model's flash lower bound (Q, K, V read
    // once, O written once); the partials are extra traffic the model does not count.
    const Cost lower = attention_cost(d);
    add_dram_bytes(t, device_, lower.bytes_read, lower.bytes_written, [&] {
        check(k::launch_attention(e, a, stream_), "the attention kernels' launch (profiled run)");
        sync("the profiled attention run (cudaStreamSynchronize)");
    });

    // Every element of O finite after the timed runs, then one more run with the scores sharpened
    // (kAttnCheckSharpen), O poisoned with NaN first: all finite again, and sampled rows against float64.
    const checks::Elem ce = e == k::Elem::f32 ? checks::Elem::fp32 : e == k::Elem::f16 ? checks::Elem::fp16 : checks::Elem::bf16;
    auto require_finite = [&](const char* when) {
        check(cudaMemsetAsync(counter.get(), 0, sizeof(unsigned long long), stream_), "cudaMemsetAsync (counter)");
        check(checks::count_nonfinite(o.get(), ce, q_elems, counter.as<unsigned long long>(), stream_), "count non-finite O");
        unsigned long long nonfinite = 0;
        read_back(&nonfinite, counter.get(), sizeof nonfinite);
        if (nonfinite != 0)
            throw MeasureError(
                fmt::format("verification failed: {} of {} elements of O are NaN or infinite {} (unwritten or "
                            "overflowed); no time reported",
                            nonfinite, q_elems, when));
    };
    require_finite("after the timed runs");
    k::AttnArgs sharp = a;
    sharp.scale_log2 = static_cast<float>(kAttnCheckSharpen * 1.4426950408889634 / std::sqrt(static_cast<double>(D)));
    check(cudaMemsetAsync(o.get(), 0xFF, q_bytes, stream_), "cudaMemsetAsync (poison)");
    check(k::launch_attention(e, sharp, stream_), "the attention kernels' launch (verification run)");
    sync("the verification run (cudaStreamSynchronize)");
    require_finite("after the verification run");

    // Rows: the first of the first group, the last of the last, then pseudo-random ones, as many as
    // the host budget allows (each regenerates its group's K and V: 2·S_k·d values).
    const std::uint64_t per_row = 2 * Sk * D;
    const std::uint64_t rows_total = groups * R;
    const std::uint64_t n_rows = std::min({rows_total, kAttnCheckRows, std::max<std::uint64_t>(1, kAttnCheckBudget / per_row)});
    std::vector<std::uint64_t> rows = {0};
    auto add_row = [&](std::uint64_t row) {
        if (rows.size() < n_rows && std::find(rows.begin(), rows.end(), row) == rows.end())
            rows.push_back(row);
    };
    add_row(rows_total - 1);
    for (std::uint64_t i = 0; rows.size() < n_rows && i < 4 * kAttnCheckRows; ++i)
        add_row(k::mix64(seeds[0] + i) % rows_total);

    // Tolerance per element: 2u·|ref| for rounding O to the type, plus 1.5 (the largest |v|) times the
    // fp32 arithmetic's relative error: scores (d FMAs and two scalings, relative to their magnitude
    // in log2 units) → 2·ln2·error per probability, plus 2 ulp for exp2f, doubled for the ratio; and
    // the accumulations (a lane's keys, the per-tile rescales, the warps, the splits, the division).
    const double u32 = 0x1p-24;
    const double kps = static_cast<double>(a.keys_per_split);
    std::vector<unsigned char> raw(D * esize);
    double worst = 0;
    for (std::uint64_t row : rows) {
        const std::uint64_t g = row / R, rr = row % R;
        const AttnReference ref = attention_reference(e, seeds, g, rr, R, D, Sk, Sq, d.causal, kAttnCheckSharpen);
        const double score_err = (static_cast<double>(D) + 2.0) * u32 * ref.score_abs_log2;
        const double prob_rel = 2.0 * 0.6931471805599453 * score_err + 4.0 * u32;
        const double rel32 =
            2.0 * prob_rel + (kps / k::kAttnThreads * 32.0 + kps / 128.0 + static_cast<double>(splits) + 16.0) * u32;
        read_back(raw.data(), out_ptr(o.get(), row * D, esize), raw.size());
        for (std::uint64_t c = 0; c < D; ++c) {
            const double got = stored_value(e, raw.data() + c * esize);
            const double tol = 2.0 * unit_roundoff * std::fabs(ref.out[c]) + 1.5 * rel32;
            const double err = std::fabs(got - ref.out[c]);
            if (!(err <= tol))
                throw MeasureError(fmt::format(
                    "verification failed: attention output group {} row {} column {} is {:.9g}, the float64 computation "
                    "{:.9g} (± {:.2g}); no time reported",
                    g, rr, c, got, ref.out[c], tol));
            worst = std::max(worst, err / tol);
        }
    }
    t.verification = fmt::format(
        "all {} elements of O finite after the timed runs; then one run with the scores ×{:g} (peaked softmax weights, so "
        "a wrong scale, head or merge cannot average out), O NaN-poisoned first: all finite, and {} sampled query rows "
        "(of {}), every column, against a float64 softmax({:g}·QKᵀ/√d)·V from the same random inputs (per element 2 × "
        "the {} unit roundoff × |o| plus 1.5 × the fp32 arithmetic's bound), worst {:.2g} of the tolerance",
        q_elems, kAttnCheckSharpen, rows.size(), rows_total, kAttnCheckSharpen, dtype_name(d.dtype), worst);
    t.detail = fmt::format(
        "bwacct's flash-decoding kernel: {} group(s) (batch × KV heads) of {} query row(s) × {} split(s) of up to {} keys, "
        "{} threads per block, one key per lane for the scores and one column per lane for the output, fp32 arithmetic on "
        "the CUDA cores (no tensor cores), then a combine kernel; {} of fp32 split partials written and read besides Q, K, "
        "V and O; {}; inputs random in [0.5, 1.5)",
        groups, R, a.splits, a.keys_per_split, k::kAttnThreads, iec(part_o_bytes + part_ml_bytes),
        d.causal ? "causal: query i sees keys j ≤ S_k − S_q + i" : "no mask");
    t.notes.push_back(
        "a reference kernel for the memory-bound decode regime: production kernels (FlashAttention, FlashInfer, cuDNN) "
        "may reach more of the HBM roof");
    t.cache = cache_text(t, p, working);
    finish(t, before, after);
    return t;
}

// ---- launch costs

LaunchTimes CudaBackend::launch(const SamplePolicy& p) {
    DeviceGuard guard(device_);
    const Clocks before = read_clocks(device_);
    check(k::launch_empty(stream_), "cudaLaunchKernel (empty kernel)");
    sync("the first empty kernel (cudaStreamSynchronize)");
    using clock = std::chrono::steady_clock;
    const std::string none = "none needed: the empty kernel computes nothing; every launch's return code checked";
    LaunchTimes lt;

    // Host cost of cudaLaunchKernel: the queue is drained before each sample, so no launch waits for room.
    lt.host_launch = sample(p, [&] {
        sync("cudaStreamSynchronize");
        const auto t0 = clock::now();
        for (int i = 0; i < kLaunches; ++i)
            if (const cudaError_t e = k::launch_empty(stream_); e != cudaSuccess)
                check(e, "cudaLaunchKernel (empty kernel)");
        const auto t1 = clock::now();
        sync("cudaStreamSynchronize");
        return std::chrono::duration<double, std::micro>(t1 - t0).count() / kLaunches;
    });
    lt.host_launch.timer = fmt::format(
        "host steady_clock around {} cudaLaunchKernel calls with no synchronization between "
        "them, per call",
        kLaunches);

    // Device time per kernel: kGatedLaunches dependent empty kernels queued behind the spin gate, one
    // iteration per sample, so the queue never holds more.
    const Region gated{stream_, device_, false, 1};
    lt.stream_kernel = per_kernel(time_region(gated, p,
                                              [&](cudaStream_t s) {
                                                  for (int i = 0; i < kGatedLaunches; ++i)
                                                      check(k::launch_empty(s), "cudaLaunchKernel (empty kernel)");
                                              }),
                                  kGatedLaunches);
    lt.stream_kernel.timer +=
        fmt::format("; each sample {} empty kernels on one stream (at most {} launches queued behind the gate), time per kernel",
                    kGatedLaunches, kGatedLaunches);
    const Region r{stream_, device_, false};

    // The same kLaunches kernels as one CUDA graph, instantiated and uploaded before any timing.
    GraphExec g;
    check(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    cudaError_t captured = cudaSuccess;
    for (int i = 0; i < kLaunches && captured == cudaSuccess; ++i)
        captured = k::launch_empty(stream_);
    const cudaError_t ended = cudaStreamEndCapture(stream_, &g.graph);
    check(captured, "cudaLaunchKernel (graph capture)");
    check(ended, "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&g.exec, g.graph, 0), "cudaGraphInstantiate");
    check(cudaGraphUpload(g.exec, stream_), "cudaGraphUpload");
    sync("cudaGraphUpload (cudaStreamSynchronize)");
    lt.graph_kernel =
        per_kernel(time_region(r, p, [&](cudaStream_t s) { check(cudaGraphLaunch(g.exec, s), "cudaGraphLaunch"); }), kLaunches);
    lt.graph_kernel.timer += fmt::format("; each iteration one graph of {} dependent empty kernels, time per kernel", kLaunches);

    // Launch + synchronize of one kernel, host clock (the device's default scheduling flags, unchanged).
    lt.sync_round_trip = sample(p, [&] {
        const auto t0 = clock::now();
        check(k::launch_empty(stream_), "cudaLaunchKernel (empty kernel)");
        sync("cudaStreamSynchronize");
        const auto t1 = clock::now();
        return std::chrono::duration<double, std::micro>(t1 - t0).count();
    });
    lt.sync_round_trip.timer = "host steady_clock around cudaLaunchKernel + cudaStreamSynchronize of one empty kernel";

    const Clocks after = read_clocks(device_);
    for (Timing* t : {&lt.host_launch, &lt.stream_kernel, &lt.graph_kernel, &lt.sync_round_trip}) {
        t->source = TimeSource::measured;
        t->verification = none;
        t->detail = "empty kernel, 1 block of 1 thread";
        t->cache = "not applicable: the empty kernel touches no data";
        finish(*t, before, after);
    }
    return lt;
}

}  // namespace

std::unique_ptr<Backend> open(int local_rank) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        throw MeasureError(no_gpu_reason(e));
    }
    if (count <= 0)
        throw MeasureError(no_gpu_reason(cudaErrorNoDevice));
    const int device = choose_device(local_rank, count, std::getenv("BWACCT_DEVICE"));
    return std::make_unique<CudaBackend>(device);
}

}  // namespace bwacct::measure::cuda
