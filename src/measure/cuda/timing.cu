// CUDA event timing behind a spin gate (nvbandwidth, nvbench), the L2 flush, and the clocks (NVML).
#include "timing.h"

#include "../clock_events.h"
#include "../gate_policy.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "../dynlib.h"
#include "../sampling.h"
#include "device.h"
#include "kernels.h"

namespace bwacct::measure::cuda {

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess)
        return;
    if (e == cudaErrorMemoryAllocation) {
        // Not sticky: clear it, so that a retry at a smaller size (oom_retry.h) starts clean.
        (void)cudaGetLastError();
        throw OutOfMemory(std::string("out of GPU memory in ") + what + ": " + cudaGetErrorString(e) +
                          " (cudaErrorMemoryAllocation)");
    }
    throw MeasureError(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

namespace {

// A sample lasts at least this long (event timestamps resolve about 0.5 µs).
constexpr double kTargetSampleUs = 100;
// Most iterations queued behind the gate. Work queued behind a blocked stream waits in the launch
// queue, whose depth depends on the device and driver (about 1000 launches per stream has been
// reported); once it is full the host's next launch blocks, waiting for a GPU that waits for the
// host. nvbench's blocking_kernel has no timeout, so it warns to queue "conservatively (~32 kernel
// launches max)" and releases its gate after two launches. This gate times out instead, and a
// sample whose gate timed out is thrown away and retaken with half the batch; the cap keeps a
// batch of several-launch iterations clear of the limit in the first place. Only iterations under
// 0.4 µs reach it.
constexpr int kMaxBatch = 256;
// The gate's timeout: far above any batch's host enqueue time (kMaxBatch launches of a few µs).
constexpr std::uint64_t kGateTimeoutNs = 1'000'000'000;

std::string mib(std::uint64_t bytes) {
    const double m = static_cast<double>(bytes) / (1024.0 * 1024.0);
    char s[32];
    std::snprintf(s, sizeof s, m == std::floor(m) ? "%.0f MiB" : "%.1f MiB", m);
    return s;
}

// What one device needs for gated timing; created on first use and kept for the process (like the
// CUDA context it lives in), so it is never freed.
struct GateState {
    std::mutex region;          // one time_region at a time per device: the gate's flags are shared
    int* host_flags = nullptr;  // mapped pinned memory: [0] the released ticket (host writes), [1] the
    int* dev_flags = nullptr;   // ticket of the last gate that timed out (device writes)
    std::uint32_t next_ticket = 0;
    std::uint64_t timeout_cycles = 0;
    std::uint64_t l2_bytes = 0;
    void* flush_buf = nullptr;  // 2 × L2, allocated at the first cold region
    std::size_t flush_bytes = 0;
    unsigned* flush_sink = nullptr;
};

GateState& gate_state(int device) {
    static std::mutex m;
    static auto* states = new std::map<int, std::unique_ptr<GateState>>();  // never freed, see above
    std::lock_guard<std::mutex> lock(m);
    auto& slot = (*states)[device];
    if (slot)
        return *slot;
    auto st = std::make_unique<GateState>();
    void* flags = nullptr;
    check(cudaHostAlloc(&flags, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc (spin-gate flag)");
    st->host_flags = static_cast<int*>(flags);
    st->host_flags[0] = 0;
    st->host_flags[1] = 0;
    void* dev = nullptr;
    check(cudaHostGetDevicePointer(&dev, flags, 0), "cudaHostGetDevicePointer (spin-gate flag)");
    st->dev_flags = static_cast<int*>(dev);
    int clock_kHz = 0, l2 = 0;
    check(cudaDeviceGetAttribute(&clock_kHz, cudaDevAttrClockRate, device), "cudaDeviceGetAttribute(ClockRate)");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2CacheSize)");
    // One second at the peak SM clock (the clock64 bound; %globaltimer gives the 1 s bound).
    st->timeout_cycles = clock_kHz > 0 ? static_cast<std::uint64_t>(clock_kHz) * 1000u : 4'000'000'000ull;
    st->l2_bytes = l2 > 0 ? static_cast<std::uint64_t>(l2) : 0;
    check(kernels::preload_util_kernels(), "loading the utility kernels");
    slot = std::move(st);
    return *slot;
}

void ensure_flush_buffer(GateState& st) {
    if (st.flush_buf != nullptr || st.l2_bytes == 0)
        return;
    const std::size_t bytes = (2 * st.l2_bytes + 15) / 16 * 16;
    check(cudaMalloc(&st.flush_buf, bytes), "cudaMalloc (L2 flush buffer)");
    check(cudaMalloc(reinterpret_cast<void**>(&st.flush_sink), sizeof(unsigned)), "cudaMalloc (L2 flush sink)");
    st.flush_bytes = bytes;
}

class Events {
public:
    Events() {
        check(cudaEventCreate(&start), "cudaEventCreate");
        if (const cudaError_t e = cudaEventCreate(&stop); e != cudaSuccess) {
            (void)cudaEventDestroy(start);
            check(e, "cudaEventCreate");
        }
    }
    ~Events() {
        (void)cudaEventDestroy(start);
        (void)cudaEventDestroy(stop);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    cudaEvent_t start{}, stop{};
};

// Holds the stream behind the spin kernel from construction to release(). If the scope is left
// without release() (the enqueue threw), the destructor releases the gate and drains the stream.
class Gate {
public:
    Gate(GateState& st, cudaStream_t s) : st_(st), stream_(s), ticket_(static_cast<int>(++st.next_ticket)) {
        check(kernels::launch_spin_gate(st.dev_flags, st.dev_flags + 1, ticket_, kGateTimeoutNs, st.timeout_cycles, s),
              "the spin-gate launch");
        armed_ = true;
    }
    ~Gate() {
        if (armed_) {
            release();
            (void)cudaStreamSynchronize(stream_);
        }
    }
    Gate(const Gate&) = delete;
    Gate& operator=(const Gate&) = delete;

    void release() {
        static_cast<volatile int*>(st_.host_flags)[0] = ticket_;
        std::atomic_thread_fence(std::memory_order_seq_cst);  // drain the store buffer: the GPU polls this word
        armed_ = false;
    }
    // After the stream is synchronized: whether this gate gave up waiting for release().
    bool timed_out() const { return static_cast<volatile const int*>(st_.host_flags)[1] == ticket_; }

private:
    GateState& st_;
    cudaStream_t stream_;
    int ticket_;
    bool armed_ = false;
};

// One gated batch: µs per iteration, or nothing when the gate timed out (the sample is invalid:
// its start event may have been recorded while the host was still enqueuing).
// Without the gate (gate_policy.h: BWACCT_NO_GATE, or a profiler attached) the batch is timed as it is
// enqueued.
std::optional<double> gated_batch_us(GateState& st, const Region& r, bool flush, int batch, Events& ev,
                                     const std::function<void(cudaStream_t)>& enqueue, bool gated) {
    if (flush)
        check(kernels::launch_l2_flush(st.flush_buf, st.flush_bytes, st.flush_sink, r.stream), "the L2 flush");
    if (!gated) {
        check(cudaEventRecord(ev.start, r.stream), "cudaEventRecord (start)");
        for (int i = 0; i < batch; ++i)
            enqueue(r.stream);
        check(cudaEventRecord(ev.stop, r.stream), "cudaEventRecord (stop)");
        check(cudaStreamSynchronize(r.stream), "the timed batch (cudaStreamSynchronize)");
        check(cudaGetLastError(), "the timed batch");
    } else {
        Gate gate(st, r.stream);
        check(cudaEventRecord(ev.start, r.stream), "cudaEventRecord (start)");
        for (int i = 0; i < batch; ++i)
            enqueue(r.stream);
        check(cudaEventRecord(ev.stop, r.stream), "cudaEventRecord (stop)");
        gate.release();
        check(cudaStreamSynchronize(r.stream), "the timed batch (cudaStreamSynchronize)");
        check(cudaGetLastError(), "the timed batch");
        if (gate.timed_out())
            return std::nullopt;
    }
    float ms = 0;
    check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1e3 / batch;
}

}  // namespace

Timing time_region(const Region& r, const SamplePolicy& p, const std::function<void(cudaStream_t)>& enqueue) {
    DeviceGuard guard(r.device);
    GateState& st = gate_state(r.device);
    std::lock_guard<std::mutex> lock(st.region);
    check(cudaGetLastError(), "an earlier CUDA call (before the timed region)");
    const bool flush = r.flush_l2 && st.l2_bytes > 0;
    if (flush)
        ensure_flush_buffer(st);
    Events ev;
    const GatePolicy gate = gate_policy();

    // One untimed, ungated run first: modules load lazily at a kernel's first launch and libraries
    // set up on their first call, which may wait for the device; behind a spinning gate that wait
    // would last until the gate's timeout.
    enqueue(r.stream);
    check(cudaStreamSynchronize(r.stream), "the first, untimed run (cudaStreamSynchronize)");
    check(cudaGetLastError(), "the first, untimed run");

    const std::string stuck =
        "the spin gate timed out (1 s) with one iteration queued behind it: the operation waits for the device while it "
        "is being enqueued (a synchronous allocation, free or copy), so it cannot be timed this way; no time reported";
    int batch = 1;
    if (!flush) {
        // Each iteration must start cold when flushing, so only a hot region is batched.
        const std::optional<double> est = gated_batch_us(st, r, false, 1, ev, enqueue, gate.gated);
        if (!est)
            throw MeasureError(stuck);
        const double per_iter = std::max(*est, 0.5);
        const int cap = r.max_batch > 0 ? std::min(r.max_batch, kMaxBatch) : kMaxBatch;
        batch = static_cast<int>(std::clamp(std::ceil(kTargetSampleUs / per_iter), 1.0, static_cast<double>(cap)));
    }

    std::string halved;
    std::uint64_t clock_events = 0;  // NVML's reasons, read after every sample (outside its events) and ORed
    Timing t = sample(p, [&]() -> double {
        for (;;) {
            if (const std::optional<double> us = gated_batch_us(st, r, flush, batch, ev, enqueue, gate.gated)) {
                clock_events |= clock_event_reasons(r.device).value_or(0);
                return *us;
            }
            if (batch == 1)
                throw MeasureError(stuck);
            const int before = batch;
            batch = std::max(1, batch / 2);
            halved = "the spin gate timed out with a batch of " + std::to_string(before) +
                     " queued (launch queue full?): that sample was discarded and the batch lowered to " + std::to_string(batch);
        }
    });
    t.source = TimeSource::measured;
    t.timer = "CUDA events around a batch of " + std::to_string(batch) +
              (gate.gated ? ", stream gated by a spin kernel" : ", not gated");
    if (!gate.gated)
        t.notes.push_back(gate.why_not);
    if (flush)
        t.cache = "cold: L2 (" + mib(st.l2_bytes) + ") flushed before each sample (a " + mib(st.flush_bytes) +
                  " buffer written, then read back, outside the timed events)";
    else if (r.flush_l2)
        t.cache = "cold requested, but the device reports no L2 size: nothing flushed";
    else
        t.cache = "hot: working set left in L2 between iterations";
    if (!halved.empty())
        t.notes.push_back(halved);
    if (const std::string throttled = clock_event_note(clock_events); !throttled.empty())
        t.notes.push_back(throttled);
    return t;
}

// ---- clocks through NVML, loaded at run time

namespace {

// The few NVML declarations used (nvml.h is not needed to build): nvmlReturn_t and nvmlClockType_t
// are C enums (int), nvmlDevice_t an opaque pointer.
using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM

class Nvml {
public:
    Nvml() : lib_({"libnvidia-ml.so.1", "libnvidia-ml.so"}, "NVML comes with the NVIDIA driver") {
        init_ = lib_.sym<nvmlReturn_t (*)()>("nvmlInit_v2");
        by_bus_id_ = lib_.sym<nvmlReturn_t (*)(const char*, nvmlDevice_t*)>("nvmlDeviceGetHandleByPciBusId_v2");
        clock_ = lib_.sym<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetClockInfo");
        // Renamed in driver 535 (the old name stays exported); either reads the same bits.
        for (const char* name : {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"})
            if (reasons_ == nullptr)
                reasons_ = lib_.try_sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*)>(name);
    }
    bool init() { return init_() == kNvmlSuccess; }

    Clocks clocks(int device) {
        std::lock_guard<std::mutex> lock(m_);
        const nvmlDevice_t h = handle(device);
        Clocks c;
        unsigned sm = 0, mem = 0;
        if (h != nullptr && clock_(h, kNvmlClockSm, &sm) == kNvmlSuccess && clock_(h, kNvmlClockMem, &mem) == kNvmlSuccess) {
            c.sm_MHz = sm;
            c.mem_MHz = mem;
        }
        return c;
    }

    // The clock-event reasons now (clock_events.h), or nothing when NVML cannot say.
    std::optional<std::uint64_t> reasons(int device) {
        std::lock_guard<std::mutex> lock(m_);
        const nvmlDevice_t h = handle(device);
        unsigned long long bits = 0;
        if (h == nullptr || reasons_ == nullptr || reasons_(h, &bits) != kNvmlSuccess)
            return std::nullopt;
        return static_cast<std::uint64_t>(bits);
    }

private:
    // NVML numbers GPUs its own way (PCI order, all GPUs), CUDA after CUDA_VISIBLE_DEVICES and
    // fastest first by default: the same GPU is found through its PCI bus id. Called under m_.
    nvmlDevice_t handle(int device) {
        auto it = handles_.find(device);
        if (it == handles_.end()) {
            char bus[64] = {};
            nvmlDevice_t h = nullptr;
            if (cudaDeviceGetPCIBusId(bus, static_cast<int>(sizeof bus), device) != cudaSuccess ||
                by_bus_id_(bus, &h) != kNvmlSuccess)
                h = nullptr;
            it = handles_.emplace(device, h).first;
        }
        return it->second;
    }

    DynLib lib_;
    nvmlReturn_t (*init_)() = nullptr;
    nvmlReturn_t (*by_bus_id_)(const char*, nvmlDevice_t*) = nullptr;
    nvmlReturn_t (*clock_)(nvmlDevice_t, int, unsigned*) = nullptr;
    nvmlReturn_t (*reasons_)(nvmlDevice_t, unsigned long long*) = nullptr;
    std::mutex m_;
    std::map<int, nvmlDevice_t> handles_;  // nullptr: this GPU is not known to NVML
};

// NVML, initialized once; nullptr when it cannot be loaded or initialized. Kept for the process.
Nvml* nvml() {
    static Nvml* instance = []() -> Nvml* {
        try {
            auto n = std::make_unique<Nvml>();
            return n->init() ? n.release() : nullptr;
        } catch (...) {
            return nullptr;
        }
    }();
    return instance;
}

}  // namespace

Clocks read_clocks(int device) {
    try {
        if (Nvml* n = nvml())
            return n->clocks(device);
    } catch (...) {
    }
    return {};
}

std::optional<std::uint64_t> clock_event_reasons(int device) {
    try {
        if (Nvml* n = nvml())
            return n->reasons(device);
    } catch (...) {
    }
    return std::nullopt;
}

}  // namespace bwacct::measure::cuda
