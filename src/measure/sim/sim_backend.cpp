#include "sim_backend.h"

#include <cmath>

#include "../mpi_context.h"
#include "../sampling.h"
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

class SimBackend : public Backend {
public:
    SimBackend(GpuSpec gpu, std::string fail, std::uint64_t seed)
        : gpu_(std::move(gpu)), fail_(std::move(fail)), state_(seed | 1) {}

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
        d.index = MpiContext::instance().local_rank();
        return d;
    }
    Clocks clocks() override { return {gpu_.boost_clock_MHz ? gpu_.boost_clock_MHz->value : 0, 0}; }

    Timing gemm(const GemmDesc& d, const SamplePolicy& p) override { return simulate(gemm_cost(d), p, "none: simulated"); }
    Timing elementwise(const ElementwiseDesc& d, const SamplePolicy& p) override {
        return simulate(elementwise_cost(d), p, "none: simulated");
    }
    Timing hbm(HbmKernel k, std::uint64_t array_bytes, const SamplePolicy& p) override {
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

    Timing simulate(const Cost& c, const SamplePolicy& p, const std::string& verification) {
        if (fail_ == "cuda")
            throw MeasureError("CUDA error: simulated failure (BWACCT_SIMULATE_FAIL=cuda)");
        if (fail_ == "verify")
            throw MeasureError("verification failed: simulated failure (BWACCT_SIMULATE_FAIL=verify); no time reported");
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
    std::string fail_;
    std::uint64_t state_;
};

}  // namespace

std::unique_ptr<Backend> make_sim_backend(const GpuSpec& gpu, std::string fail_mode, std::uint64_t seed) {
    return std::make_unique<SimBackend>(gpu, std::move(fail_mode), seed);
}

}  // namespace bwacct::measure
