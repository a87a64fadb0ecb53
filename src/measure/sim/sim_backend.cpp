#include "sim_backend.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "../attention_limits.h"
#include "../device_choice.h"
#include "../failure_text.h"
#include "../mpi_context.h"
#include "../sampling.h"
#include "bwacct/error.h"
#include "bwacct/roofline.h"

namespace bwacct::measure {
namespace {

// Fractions of each roof a good kernel reaches (round numbers, in the range published measurements
// show: HBM copies ~90 %, large GEMMs ~80 %, NCCL ring busbw ~80 % of the link).
double efficiency(Roof r) {
    switch (r) {
        case Roof::hbm:
            return 0.90;
        case Roof::compute:
            return 0.80;
        case Roof::link:
            return 0.80;
        default:
            return 1.0;
    }
}

// The NCCL call nccl-tests (and the CUDA backend) issue for each collective.
const char* nccl_call(CollectiveKind k) {
    switch (k) {
        case CollectiveKind::allreduce:
            return "ncclAllReduce";
        case CollectiveKind::allgather:
            return "ncclAllGather";
        case CollectiveKind::reducescatter:
            return "ncclReduceScatter";
        case CollectiveKind::broadcast:
            return "ncclBroadcast";
        case CollectiveKind::reduce:
            return "ncclReduce";
        default:
            return "ncclSend";
    }
}

int hbm_arrays(HbmKernel k) {
    switch (k) {
        case HbmKernel::copy:
            return 2;
        case HbmKernel::triad:
            return 3;
        default:
            return 1;
    }
}

// "1G", "512M", "4096": bytes (K, M, G = 1024^n); 0 when malformed.
std::uint64_t parse_size(const std::string& text) {
    if (text.empty())
        return 0;
    std::uint64_t scale = 1;
    std::string digits = text;
    switch (text.back()) {
        case 'K':
            scale = 1ull << 10;
            break;
        case 'M':
            scale = 1ull << 20;
            break;
        case 'G':
            scale = 1ull << 30;
            break;
        default:
            break;
    }
    if (scale != 1)
        digits.pop_back();
    if (digits.empty() || digits.size() > 12 || digits.find_first_not_of("0123456789") != std::string::npos)
        return 0;
    return std::stoull(digits) * scale;
}

class SimBackend : public Backend {
public:
    SimBackend(GpuSpec gpu, SimFailure fail, std::uint64_t seed) : gpu_(std::move(gpu)), fail_(fail), state_(seed | 1) {}

    std::string name() const override { return "simulated"; }
    TimeSource source() const override { return TimeSource::simulated; }

    DeviceInfo device() override {
        DeviceInfo d;
        d.name = gpu_.name + " (simulated)";
        d.uuid = "SIM-" + gpu_.id;
        d.sm_count = gpu_.sm_count ? static_cast<int>(gpu_.sm_count->value) : 0;
        d.l2_bytes = gpu_.l2_bytes ? static_cast<std::uint64_t>(gpu_.l2_bytes->value) : 0;
        d.memory_bytes = gpu_.hbm_capacity_bytes ? static_cast<std::uint64_t>(gpu_.hbm_capacity_bytes->value) : 0;
        d.derived_hbm_GBps = gpu_.hbm_bw_GBps.value;
        d.visible_devices = simulated_visible_devices();
        d.index = choose_device(MpiContext::instance().local_rank(), d.visible_devices, std::getenv("BWACCT_DEVICE"));
        return d;
    }
    Clocks clocks() override { return {gpu_.boost_clock_MHz ? gpu_.boost_clock_MHz->value : 0, 0}; }

    Timing gemm(const GemmDesc& d, const SamplePolicy& p) override {
        const Cost c = gemm_cost(d);
        fixed_size_allocation(c.bytes_read + c.bytes_written,
                              fmt::format("the GEMM M={} N={} K={}{}", d.m, d.n, d.k,
                                          d.batch > 1 ? fmt::format(" batch={}", d.batch) : std::string()));
        return simulate(c, p, "none: simulated");
    }
    Timing elementwise(const ElementwiseDesc& d, const SamplePolicy& p) override {
        const Cost c = elementwise_cost(d);
        fixed_size_allocation(c.bytes_read + c.bytes_written,
                              fmt::format("the elementwise op over {} elements", element_count(d.shape).value()));
        return simulate(c, p, "none: simulated");
    }
    // The norm's bytes (x, the parameters, y) and FLOPs through the roofline, as elementwise.
    Timing norm(const NormDesc& d, const SamplePolicy& p) override {
        const Cost c = norm_cost(d);
        fixed_size_allocation(c.bytes_read + c.bytes_written,
                              fmt::format("the {} over {} elements", norm_name(d.kind), element_count(d.shape).value()));
        return simulate(c, p, "none: simulated");
    }
    // The same shapes the CUDA kernel takes (attention_limits.h); Q, K, V, O through the roofline.
    Timing attention(const AttentionDesc& d, const SamplePolicy& p) override {
        if (const auto why = attention_unmeasurable(d))
            throw MeasureError(*why);
        const Cost c = attention_cost(d);
        fixed_size_allocation(c.bytes_read + c.bytes_written,
                              fmt::format("the attention over {} KV head(s) of {} keys", d.batch * d.kv_heads, d.kv_len));
        return simulate(c, p, "none: simulated");
    }
    Timing hbm(HbmKernel k, std::uint64_t array_bytes, const SamplePolicy& p) override {
        const std::uint64_t need = static_cast<std::uint64_t>(hbm_arrays(k)) * array_bytes;
        if (fail_.kind == SimFailure::Kind::oom && need > fail_.free_bytes)
            throw OutOfMemory(oom_cause(need, fmt::format("{} array(s) of {}", hbm_arrays(k), iec_size(array_bytes))));
        Cost c;
        c.op = std::string(hbm_kernel_name(k));
        c.flops = 0;
        c.bytes_read = k == HbmKernel::write ? 0 : hbm_bytes_moved(k, array_bytes) - (k == HbmKernel::read ? 0 : array_bytes);
        c.bytes_written = k == HbmKernel::read ? 0 : array_bytes;
        return simulate(c, p, "none: simulated");
    }
    LaunchTimes launch(const SamplePolicy& p) override {
        Cost empty;
        empty.op = "empty kernel";
        empty.bytes_read = 1;  // a non-zero byte count keeps intensity finite; the dispatch roof binds
        LaunchTimes t;
        t.stream_kernel = simulate(empty, p, "none");
        t.host_launch = scaled(t.stream_kernel, 0.8);
        t.graph_kernel = scaled(t.stream_kernel, 0.55);
        t.sync_round_trip = scaled(t.stream_kernel, 3.0);
        return t;
    }
    Timing collective(const CollectiveDesc& d, const SamplePolicy& p) override {
        // Buffers as the CUDA backend allocates them: send and receive, or one buffer in place.
        fixed_size_allocation((d.in_place ? 1 : 2) * d.size_bytes,
                              fmt::format("{} of {}", collective_name(d.kind), iec_size(d.size_bytes)));
        if (fail_.kind == SimFailure::Kind::nccl)
            // ncclSystemError as ncclGetErrorString words it (NCCL src/init.cc), and a ncclGetLastError-like detail.
            throw MeasureError(nccl_error_message(nccl_call(d.kind),
                                                  "unhandled system error (run with NCCL_DEBUG=INFO for details)",
                                                  "simulated failure: BWACCT_SIMULATE_FAIL=nccl"));
        return simulate(collective_cost(d), p, "none: simulated");
    }

private:
    // Uniform in [0, 1) from xorshift64*: deterministic for a seed, so tests can rely on it.
    double uniform() {
        state_ ^= state_ >> 12;
        state_ ^= state_ << 25;
        state_ ^= state_ >> 27;
        return static_cast<double>((state_ * 2685821657736338717ull) >> 11) * 0x1.0p-53;
    }

    std::string oom_cause(std::uint64_t need, const std::string& what) const {
        return fmt::format("out of GPU memory in cudaMalloc ({}): {} needed, {} free (simulated: BWACCT_SIMULATE_FAIL=oom)", what,
                           iec_size(need), iec_size(fail_.free_bytes));
    }

    // An op whose buffers are fixed by what it measures: out of memory is a failure, never a smaller op.
    void fixed_size_allocation(std::uint64_t need, const std::string& op) const {
        if (fail_.kind == SimFailure::Kind::oom && need > fail_.free_bytes)
            throw MeasureError(fixed_size_oom_message(op, oom_cause(need, "its buffers")));
    }

    Timing simulate(const Cost& c, const SamplePolicy& p, const std::string& verification) {
        if (fail_.kind == SimFailure::Kind::cuda)
            throw MeasureError("CUDA error: simulated failure (BWACCT_SIMULATE_FAIL=cuda)");
        if (fail_.kind == SimFailure::Kind::verify)
            throw MeasureError("verification failed: simulated failure (BWACCT_SIMULATE_FAIL=verify); no time reported");
        if (!fail_.at_reduction && (fail_.kind == SimFailure::Kind::hang || fail_.kind == SimFailure::Kind::crash)) {
            const bool crash = fail_.kind == SimFailure::Kind::crash;
            fmt::print(stderr, "bwacct: MPI rank {}: simulated {} in the measurement (BWACCT_SIMULATE_FAIL={})\n",
                       MpiContext::instance().rank(), crash ? "crash" : "hang", crash ? "crash" : "hang");
            std::fflush(stderr);
            if (crash)
                std::abort();
            std::this_thread::sleep_for(std::chrono::hours(1));  // bounded, should a test forget its own limit
            std::_Exit(1);
        }
        const Verdict v = analyze(c, gpu_, {});
        const double base = v.floor_us / efficiency(v.bound);
        Timing t = sample(p, [&] { return base * (1.0 + 0.02 * (uniform() - 0.5)); });
        t.source = TimeSource::simulated;
        t.timer = "simulated: roofline floor / efficiency, ±1 % noise";
        t.cache = p.cold ? "cold (simulated)" : "hot (simulated)";
        t.verification = verification;
        t.detail = "simulated backend (BWACCT_SIMULATE=" + gpu_.id + "); not a measurement";
        t.clocks_before = t.clocks_after = clocks();
        return t;
    }

    static Timing scaled(const Timing& t, double f) {
        Timing s = t;
        for (double& x : s.samples_us)
            x *= f;
        s.stats = summarize(s.samples_us);
        return s;
    }

    GpuSpec gpu_;
    SimFailure fail_;
    std::uint64_t state_;
};

}  // namespace

SimFailure parse_sim_failure(const std::string& text) {
    SimFailure f;
    std::string mode = text;
    if (const auto at = mode.find('@'); at != std::string::npos) {
        f.at_reduction = mode.substr(at) == "@reduce";
        mode = f.at_reduction ? mode.substr(0, at) : "?";  // any other suffix is rejected below
    }
    if (mode.rfind("oom:", 0) == 0) {
        f.free_bytes = parse_size(mode.substr(4));
        if (f.free_bytes == 0)
            throw InputError("BWACCT_SIMULATE_FAIL",
                             fmt::format("'{}' is not oom:SIZE with a positive SIZE (bytes, or K, M, G = 1024^n)", text));
        mode = "oom";
    }
    static constexpr std::pair<const char*, SimFailure::Kind> kModes[] = {
        {"verify", SimFailure::Kind::verify}, {"cuda", SimFailure::Kind::cuda}, {"oom", SimFailure::Kind::oom},
        {"nccl", SimFailure::Kind::nccl},     {"open", SimFailure::Kind::open}, {"hang", SimFailure::Kind::hang},
        {"crash", SimFailure::Kind::crash}};
    bool known = text.empty();
    for (const auto& [name, kind] : kModes)
        if (!text.empty() && mode == name) {
            f.kind = kind;
            known = true;
        }
    if (!known || (f.at_reduction && f.kind != SimFailure::Kind::hang && f.kind != SimFailure::Kind::crash))
        throw InputError("BWACCT_SIMULATE_FAIL",
                         fmt::format("unknown failure '{}'; expected verify, cuda, oom or oom:SIZE, nccl, open, hang, crash, "
                                     "hang@reduce or crash@reduce",
                                     text));
    return f;
}

std::unique_ptr<Backend> make_sim_backend(const GpuSpec& gpu, SimFailure fail, std::uint64_t seed) {
    return std::make_unique<SimBackend>(gpu, fail, seed);
}

std::unique_ptr<Backend> make_sim_backend(const GpuSpec& gpu, const std::string& fail, std::uint64_t seed) {
    return make_sim_backend(gpu, parse_sim_failure(fail), seed);
}

}  // namespace bwacct::measure
