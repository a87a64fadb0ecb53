// End-to-end tests of measurement: the real `bwacct` binary with no GPU, with the simulated backend
// (BWACCT_SIMULATE=<catalog id>, BWACCT_SIMULATE_FAIL=verify|cuda), with the calibration cache, and
// under mpirun. Each run has a time limit (10 s; 30 s for mpirun), so a hang fails instead of
// blocking the suite.
//
// Every expected number is computed here by hand from the catalog figures (checked against the
// documented values first) and the simulated backend's documented model: time = roofline floor /
// efficiency (hbm 0.90, compute 0.80, link 0.80, dispatch 1.0), each sample × (1 + u), u uniform in
// [−1 %, +1 %). A median of such samples is therefore within ±1 % of floor / efficiency; a ratio of
// two such medians within [0.99/1.01, 1.01/0.99] ≈ ±2 %.
//
// Contracts: a measurement that cannot be made exits 1 with exactly one line on stderr and nothing
// on stdout (never a number); bad input exits 2 with one line naming the option; every output fed
// by the simulated backend says "simulated", never "measured on".
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::vector<std::string> kGemmSeed{"gemm", "--m", "2160", "--k", "5120", "--n", "5120"};

// The documented H200 figures every expectation below is computed from.
constexpr double kH200Bf16Tflops = 989.4;  // dense bf16 TFLOP/s
constexpr double kH200HbmGBps = 4800.0;    // HBM3e GB/s
constexpr double kH200LaunchUs = 2.5;      // launch overhead µs (the dispatch roof)
constexpr double kH200L2Bytes = 52428800;  // 50 MiB
constexpr double kH200LinkGBps = 450.0;    // NVLink 4 per direction
constexpr double kH200AlphaUs = 2.5;       // per-step latency of a collective

// The simulated backend's efficiencies (src/measure/sim/sim_backend.cpp).
constexpr double kEffHbm = 0.90, kEffCompute = 0.80, kEffLink = 0.80, kEffDispatch = 1.0;

// ---------------------------------------------------------------------------------------------
// Environments. Every run controls the variables the measurement reads, so the caller's shell (a
// BWACCT_SIMULATE left set, a real ~/.cache/bwacct) cannot change the result.

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size()))
        ++n;
    return n;
}

// =============================================================================================
// A. The documented figures the arithmetic below is based on.

TEST(MeasureCatalog, H200FiguresAreTheDocumentedOnes) {
    EXPECT_DOUBLE_EQ(tensor_tflops("h200", "bf16"), kH200Bf16Tflops);
    EXPECT_DOUBLE_EQ(hbm_GBps("h200"), kH200HbmGBps);
    EXPECT_DOUBLE_EQ(launch_us("h200"), kH200LaunchUs);
    const json& g = catalog().at("gpus").at("h200");
    EXPECT_DOUBLE_EQ(g.at("l2_bytes").at("value").get<double>(), kH200L2Bytes);
    EXPECT_DOUBLE_EQ(g.at("scaleup_link").at("bw_GBps").at("value").get<double>(), kH200LinkGBps);
    EXPECT_DOUBLE_EQ(g.at("scaleup_link").at("step_latency_us").at("value").get<double>(), kH200AlphaUs);
}

// =============================================================================================
// B. No GPU, no simulation: every measurement exits 1 with one line, the model still works.

class NoGpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (gpu_present())
            GTEST_SKIP() << "a GPU device node exists here; these tests need a machine without one";
    }
    TempDir dir_;
};

TEST_F(NoGpu, MachineRoofCommandsExitOneWithOneLine) {
    for (const std::string cmd : {"hbm", "launch", "device", "calibrate"}) {
        const RunResult r = run_bwacct({cmd}, no_sim(dir_));
        EXPECT_TRUE(failed_cleanly(r, 1, "bwacct " + cmd + ": "));
    }
}

TEST_F(NoGpu, CalibrateWritesNoCache) {
    const std::string cache = dir_.file("cal.json");
    const RunResult r = run_bwacct({"calibrate", "--cache", cache}, no_sim(dir_));
    EXPECT_TRUE(failed_cleanly(r, 1, "bwacct calibrate: "));
    EXPECT_FALSE(fs::exists(cache)) << "a failed calibration must not write the cache";
}

TEST_F(NoGpu, GemmMeasureExitsOneWithOneLine) {
    for (const char* format : {"table", "json"}) {
        const RunResult r = run_bwacct(with(kGemmSeed, {"--measure", "--format", format}), no_sim(dir_));
        EXPECT_TRUE(failed_cleanly(r, 1, "bwacct gemm: "));
    }
}

// Acceptance: without --measure the same command is the model, with or without a GPU.
TEST_F(NoGpu, GemmWithoutMeasureIsTheModel) {
    const RunResult r = run_bwacct(kGemmSeed, no_sim(dir_));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find("modelled"), std::string::npos) << r.out;
    // h200 floor = compute roof = 2·2160·5120·5120 / 989.4e12 s = 113,246,208,000 / 989.4e12 = 114.46 µs
    EXPECT_NE(r.out.find("114.46"), std::string::npos) << r.out;
    // b200: 113,246,208,000 / 2250e12 = 50.33 µs
    EXPECT_NE(r.out.find("50.33"), std::string::npos) << r.out;

    const json j = run_json(with(kGemmSeed, {"--format", "json"}), no_sim(dir_));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "source"), "modelled");
    EXPECT_FALSE(j.contains("measurement"));
    EXPECT_EQ(num_u(j, "flops"), 113246208000ull);
}

// =============================================================================================
// C. Commands that have no --measure: CLI11 rejects the unknown option (exit 2, one line naming it).

const std::vector<std::string> kLayer{"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2048"};
TEST(NoMeasureOption, LayerRejectsIt) {
    TempDir dir;
    for (const std::vector<std::string>& base : {kLayer}) {
        // control: the command itself is valid
        EXPECT_TRUE(succeeded(run_bwacct(base, no_sim(dir))));
        // with --measure, with and without the simulated backend: the option does not exist
        for (const RunOptions& opt : {no_sim(dir), sim(dir)}) {
            const RunResult r = run_bwacct(with(base, {"--measure"}), opt);
            EXPECT_TRUE(failed_cleanly(r, 2, "--measure"));
            EXPECT_NE(r.err.find("bwacct " + base.front()), std::string::npos) << r.err;
        }
    }
}

// =============================================================================================
// D. --measure with --time-us: two times for one run is bad input.

TEST(MeasureInput, MeasureWithTimeUsIsRejected) {
    TempDir dir;
    for (const RunOptions& opt : {no_sim(dir), sim(dir)}) {
        const RunResult r = run_bwacct(with(kGemmSeed, {"--measure", "--time-us", "140", "--format", "json"}), opt);
        EXPECT_TRUE(failed_cleanly(r, 2, "--time-us"));
    }
}

// =============================================================================================
// E. The simulated backend: gemm --measure.

// The seed GEMM on the simulated H200.
//   FLOPs = 2·2160·5120·5120 = 113,246,208,000; bytes = 2·(2160·5120 + 5120·5120 + 2160·5120) = 96,665,600
//   roofs: compute 113,246,208,000 / 989.4e12 s = 114.4595 µs; HBM 96,665,600 / 4800e9 s = 20.1387 µs;
//          dispatch 2.5 µs  → compute-bound, floor 114.4595 µs
//   simulated time = 114.4595 / 0.80 = 143.0743 µs; median ∈ [0.99, 1.01] × 143.0743 = [141.644, 144.505]
constexpr double kSeedFlops = 113246208000.0;
constexpr double kSeedBytes = 96665600.0;

TEST(SimulatedGemm, JsonCarriesTheMeasurement) {
    TempDir dir;
    const json j = run_json(with(kGemmSeed, {"--gpu", "h200", "--measure", "--format", "json"}), sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "source"), "simulated");
    ASSERT_TRUE(j.contains("measurement") && j.at("measurement").is_object()) << j.dump(2);
    const json& m = j.at("measurement");
    EXPECT_EQ(str_of(m, "backend"), "simulated");
    EXPECT_EQ(str_of(m, "source"), "simulated");
    ASSERT_TRUE(m.contains("device"));
    EXPECT_EQ(str_of(m.at("device"), "catalog_match"), "h200");
    EXPECT_EQ(str_of(m.at("device"), "uuid"), "SIM-h200");
    EXPECT_EQ(num_u(m, "ranks"), 1u);
    EXPECT_FALSE(m.contains("achievable")) << "no calibration cache, so no achievable roofs";

    const double floor_us = kSeedFlops / (kH200Bf16Tflops * 1e12) * 1e6;  // 114.4595 µs
    EXPECT_NEAR(floor_us, 114.4595, 1e-4);
    const double model_us = floor_us / kEffCompute;  // 143.0743 µs
    EXPECT_NEAR(model_us, 143.0743, 1e-4);
    const double median = num_d(m, "median_us");
    expect_within_noise(median, model_us, "measurement.median_us");
    EXPECT_GE(median, 141.6);
    EXPECT_LE(median, 144.6);

    // the samples: the sampler takes at least 10 (min_samples) and at most 200 (--max-samples default)
    ASSERT_TRUE(m.contains("samples_us") && m.at("samples_us").is_array());
    const std::size_t n = m.at("samples_us").size();
    EXPECT_GE(n, 10u);
    EXPECT_LE(n, 200u);
    EXPECT_EQ(num_u(m, "n"), n);
    for (const json& s : m.at("samples_us"))
        expect_within_noise(s.get<double>(), model_us, "a sample");
    EXPECT_LE(num_d(m, "min_us"), median);
    EXPECT_GE(num_d(m, "max_us"), median);
    EXPECT_NE(str_of(m, "timer").find("simulated"), std::string::npos);
    EXPECT_NE(str_of(m, "detail").find("not a measurement"), std::string::npos);

    // The analysis uses the median as the time.
    expect_rel(num_d(j, "time_us"), median, 1e-12, "time_us");
    ASSERT_EQ(j.at("gpus").size(), 1u) << "--gpu h200, and the device's own match is h200";
    const json& g = j.at("gpus")[0];
    EXPECT_EQ(str_of(g, "gpu"), "h200");
    expect_rel(num_d(g, "time_us"), median, 1e-12, "gpus[0].time_us");
    // TFLOP/s = 113,246,208,000 / (median µs · 1e6) ≈ 113,246,208,000 / 143.0743e6 = 791.52 (= 0.80 · 989.4)
    expect_rel(num_d(g, "tflops"), kSeedFlops / (median * 1e6), 1e-9, "gpus[0].tflops");
    expect_rel(num_d(g, "tflops"), kEffCompute * kH200Bf16Tflops, 0.0102, "tflops ≈ 791.5");
    // implied bandwidth = 96,665,600 / (median µs · 1e3) ≈ 675.6 GB/s
    expect_rel(num_d(g, "implied_bw_GBps"), kSeedBytes / (median * 1e3), 1e-9, "implied_bw_GBps");
    // utilization of compute = 791.5 / 989.4 = 0.80 (±1 %)
    expect_rel(num_d(g.at("util"), "compute"), kEffCompute, 0.0102, "util.compute");
    // the compute roof is 114.46 / 143.07 = 80 % of the time (≥ 50 %): compute-bound
    EXPECT_EQ(str_of(g, "bound"), "compute");
}

TEST(SimulatedGemm, MaxSamplesCapsTheSampleCount) {
    TempDir dir;
    // --max-samples 5 lowers min_samples to 5 as well: exactly 5 samples
    const json j = run_json(with(kGemmSeed, {"--gpu", "h200", "--measure", "--max-samples", "5", "--format", "json"}), sim(dir));
    ASSERT_TRUE(j.is_object() && j.contains("measurement"));
    EXPECT_EQ(num_u(j.at("measurement"), "n"), 5u);
    EXPECT_EQ(j.at("measurement").at("samples_us").size(), 5u);
}

// The device's own catalog match is added to the GPUs analysed even when --gpu does not list it.
TEST(SimulatedGemm, OwnCatalogEntryIsAdded) {
    TempDir dir;
    const json j = run_json(with(kGemmSeed, {"--gpu", "b200", "--measure", "--format", "json"}), sim(dir));
    ASSERT_TRUE(j.is_object());
    ASSERT_EQ(j.at("gpus").size(), 2u);
    EXPECT_NE(gpu_entry(j, "b200"), nullptr);
    EXPECT_NE(gpu_entry(j, "h200"), nullptr);
}

TEST(SimulatedGemm, TableSaysSimulatedNeverMeasured) {
    TempDir dir;
    const RunResult r = run_bwacct(with(kGemmSeed, {"--gpu", "h200", "--measure"}), sim(dir));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find("simulated"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("measured on"), std::string::npos) << r.out;
}

TEST(SimulatedGemm, VerificationFailureExitsOneWithoutANumber) {
    TempDir dir;
    for (const char* format : {"table", "json"}) {
        const RunResult r = run_bwacct(with(kGemmSeed, {"--gpu", "h200", "--measure", "--format", format}), sim(dir, "verify"));
        EXPECT_TRUE(failed_cleanly(r, 1, "verification failed"));
    }
}

TEST(SimulatedGemm, CudaFailureExitsOneWithoutANumber) {
    TempDir dir;
    const RunResult r = run_bwacct(with(kGemmSeed, {"--gpu", "h200", "--measure", "--format", "json"}), sim(dir, "cuda"));
    EXPECT_TRUE(failed_cleanly(r, 1, "CUDA error"));
}

TEST(SimulatedGemm, UnknownSimulatedGpuIsNamed) {
    TempDir dir;
    RunOptions o = sim(dir);
    o.env["BWACCT_SIMULATE"] = std::string("nosuch");
    const RunResult r = run_bwacct(with(kGemmSeed, {"--gpu", "h200", "--measure"}), o);
    SCOPED_TRACE(report(r));
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
    EXPECT_NE(r.err.find("BWACCT_SIMULATE"), std::string::npos);
}

// =============================================================================================
// F. The simulated machine-roof commands.

// hbm --size 1G: arrays of 1G = 1024³ = 1,073,741,824 B each.
//   bytes moved: copy 2× = 2,147,483,648; read 1× = 1,073,741,824; write 1× = 1,073,741,824; triad 3× = 3,221,225,472
//   each is HBM-bound (read: 1,073,741,824 / 4800e9 s = 223.7 µs ≫ dispatch 2.5 µs), so the simulated
//   time is bytes / 4800 GB/s / 0.90 and bw = bytes / time = 0.90 · 4800 = 4320 GB/s (±1 % noise).
TEST(SimulatedHbm, KernelsBytesAndBandwidth) {
    TempDir dir;
    const json j = run_json({"hbm", "--size", "1G", "--format", "json"}, sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "schema"), "bwacct.hbm/1");
    EXPECT_EQ(str_of(j, "backend"), "simulated");
    EXPECT_EQ(str_of(j.at("device"), "catalog_match"), "h200");
    EXPECT_DOUBLE_EQ(num_d(j, "catalog_hbm_GBps"), kH200HbmGBps);
    ASSERT_TRUE(j.contains("kernels") && j.at("kernels").is_array());
    const u64 array = 1073741824ull;  // 1024³
    const std::vector<std::pair<std::string, u64>> want{{"copy", 2}, {"read", 1}, {"write", 1}, {"triad", 3}};
    ASSERT_EQ(j.at("kernels").size(), want.size());
    const double bw = kEffHbm * kH200HbmGBps;  // 4320 GB/s
    EXPECT_DOUBLE_EQ(bw, 4320.0);
    for (std::size_t i = 0; i < want.size(); ++i) {
        const json& k = j.at("kernels")[i];
        SCOPED_TRACE(want[i].first);
        EXPECT_EQ(str_of(k, "kernel"), want[i].first);
        EXPECT_EQ(num_u(k, "array_bytes"), array);
        EXPECT_EQ(num_u(k, "bytes_moved"), want[i].second * array);
        EXPECT_EQ(str_of(k, "source"), "simulated");
        // model time = bytes / (4320e9 B/s), e.g. copy 2,147,483,648 / 4320e9 s = 497.10 µs
        expect_within_noise(num_d(k, "median_us"), static_cast<double>(want[i].second * array) / (bw * 1e3), "median_us");
        expect_rel(num_d(k, "bw_GBps"), bw, 0.015, "bw_GBps ≈ 4320");
        // fraction of the catalog = 4320 / 4800 = 0.90
        expect_rel(num_d(k, "fraction_of_catalog"), kEffHbm, 0.015, "fraction_of_catalog ≈ 0.90");
        EXPECT_EQ(num_u(k, "n"), k.at("samples_us").size());
    }
}

// Default array size: max(4 × L2, 256 MiB) = max(4 · 52,428,800 = 209,715,200, 268,435,456) = 268,435,456.
TEST(SimulatedHbm, DefaultArraySize) {
    TempDir dir;
    const json j = run_json({"hbm", "--kernel", "copy", "--format", "json"}, sim(dir));
    ASSERT_TRUE(j.is_object() && j.contains("kernels"));
    ASSERT_EQ(j.at("kernels").size(), 1u);
    EXPECT_EQ(4 * static_cast<u64>(kH200L2Bytes), 209715200ull);
    EXPECT_EQ(num_u(j.at("kernels")[0], "array_bytes"), 268435456ull);
    EXPECT_EQ(num_u(j.at("kernels")[0], "bytes_moved"), 2 * 268435456ull);
}

TEST(SimulatedHbm, TableSaysSimulated) {
    TempDir dir;
    const RunResult r = run_bwacct({"hbm", "--size", "1G"}, sim(dir));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find("simulated"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("measured on"), std::string::npos) << r.out;
}

// launch: an empty kernel is dispatch-bound (HBM roof 1 B / 4800e9 = 0.0000002 µs, compute 0), so
// the stream kernel takes the catalog's launch overhead 2.5 µs / 1.0 efficiency = 2.5 µs (±1 %).
TEST(SimulatedLaunch, StreamKernelIsTheCatalogOverhead) {
    TempDir dir;
    const json j = run_json({"launch", "--format", "json"}, sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "schema"), "bwacct.launch/1");
    EXPECT_EQ(str_of(j, "backend"), "simulated");
    EXPECT_DOUBLE_EQ(num_d(j, "catalog_launch_us"), kH200LaunchUs);
    ASSERT_TRUE(j.contains("results") && j.at("results").is_array());
    std::vector<std::string> what;
    const json* stream = nullptr;
    for (const json& row : j.at("results")) {
        what.push_back(str_of(row, "what"));
        EXPECT_EQ(str_of(row, "source"), "simulated");
        EXPECT_GT(num_d(row, "median_us"), 0.0);
        if (row.value("what", "") == "stream kernel")
            stream = &row;
    }
    EXPECT_EQ(what, (std::vector<std::string>{"host launch", "stream kernel", "graph kernel", "sync round trip"}));
    ASSERT_NE(stream, nullptr);
    expect_within_noise(num_d(*stream, "median_us"), kH200LaunchUs / kEffDispatch, "stream kernel median_us ≈ 2.5");
}

TEST(SimulatedMachineRoofs, FailuresExitOneWithOneLine) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    const std::vector<std::vector<std::string>> commands{
        {"hbm", "--format", "json"}, {"launch", "--format", "json"}, {"calibrate", "--format", "json", "--cache", cache}};
    for (const std::vector<std::string>& args : commands) {
        for (const std::string fail : {"verify", "cuda"}) {
            const RunResult r = run_bwacct(args, sim(dir, fail));
            EXPECT_TRUE(failed_cleanly(r, 1, fail == "verify" ? "verification failed" : "CUDA error"));
        }
    }
    EXPECT_FALSE(fs::exists(cache)) << "a failed calibration must not write the cache";
}

TEST(SimulatedDevice, NamesTheSimulatedGpu) {
    TempDir dir;
    const json j = run_json({"device", "--format", "json"}, sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "backend"), "simulated");
    EXPECT_EQ(str_of(j.at("device"), "catalog_match"), "h200");
    EXPECT_EQ(str_of(j.at("device"), "uuid"), "SIM-h200");
    EXPECT_NE(str_of(j.at("device"), "name").find("simulated"), std::string::npos);
    EXPECT_DOUBLE_EQ(num_d(j, "catalog_hbm_GBps"), kH200HbmGBps);
}

// =============================================================================================
// G. Calibration and its cache.

// calibrate on the simulated H200 (default arrays 256 MiB):
//   HBM = best of copy and triad = 0.90 · 4800 = 4320 GB/s (±1 %)
//   bf16 GEMM 8192³: FLOPs 2·8192³ = 1,099,511,627,776; compute roof 1,099,511,627,776 / 989.4e12 s
//     = 1111.29 µs; HBM roof 3·8192²·2 = 402,653,184 B / 4800e9 = 83.89 µs → compute-bound;
//     time 1111.29 / 0.80 = 1389.11 µs; TFLOP/s = 1,099,511,627,776 / 1389.11e6 = 791.52 = 0.80 · 989.4 (±1 %)
//   launch = stream kernel = 2.5 µs (±1 %)
constexpr double kGemm8192Flops = 2.0 * 8192 * 8192 * 8192;  // 1,099,511,627,776
constexpr double kGemm8192Bytes = 3.0 * 8192 * 8192 * 2;     // 402,653,184
constexpr const char* kCalibrationSchema = "bwacct.calibration/1";
const std::vector<std::string> kGemm8192{"gemm", "--m",   "8192", "--k",       "8192",     "--n",
                                         "8192", "--gpu", "h200", "--measure", "--format", "json"};

// Checks a cache file and returns its entry for the simulated H200 (null when absent).
json expect_valid_cache(const std::string& path) {
    EXPECT_TRUE(fs::exists(path)) << path;
    const json c = parse_json(read_text(path), path);
    if (!c.is_object())
        return json();
    EXPECT_EQ(str_of(c, "schema"), kCalibrationSchema);
    if (!c.contains("devices") || !c.at("devices").contains("SIM-h200")) {
        ADD_FAILURE() << "no devices[\"SIM-h200\"] in " << c.dump(2);
        return json();
    }
    return c.at("devices").at("SIM-h200");
}

TEST(Calibration, WritesTheCacheWithTheSimulatedRoofs) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    const RunResult r = run_bwacct({"calibrate", "--cache", cache}, sim(dir));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find(cache), std::string::npos) << "the table names the cache file\n" << r.out;
    const json e = expect_valid_cache(cache);
    ASSERT_TRUE(e.is_object());
    EXPECT_EQ(str_of(e, "backend"), "simulated");
    EXPECT_NE(str_of(e, "name").find("simulated"), std::string::npos);
    EXPECT_FALSE(str_of(e, "measured_at").empty());
    EXPECT_NEAR(kGemm8192Flops, 1099511627776.0, 0.5);
    expect_rel(num_d(e, "hbm_GBps"), kEffHbm * kH200HbmGBps, 0.015, "hbm_GBps ≈ 4320");
    expect_rel(num_d(e, "bf16_tflops"), kEffCompute * kH200Bf16Tflops, 0.015, "bf16_tflops ≈ 791.5");
    expect_rel(num_d(e, "launch_us"), kH200LaunchUs / kEffDispatch, 0.015, "launch_us ≈ 2.5");
    // written atomically: nothing left beside it but the cache itself and its lock file (the lock
    // serializes concurrent calibrations; no temporary file remains)
    std::vector<std::string> names;
    for (const auto& f : fs::directory_iterator(dir.path()))
        names.push_back(f.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"cal.json", "cal.json.lock"}));
}

TEST(Calibration, JsonResultMatchesTheCache) {
    TempDir dir;
    const std::string cache = dir.file("sub/dir/cal.json");  // parent folders are created
    const json j = run_json({"calibrate", "--cache", cache, "--format", "json"}, sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "cache"), cache);
    EXPECT_EQ(str_of(j, "uuid"), "SIM-h200");
    EXPECT_EQ(str_of(j, "catalog_match"), "h200");
    const json e = expect_valid_cache(cache);
    ASSERT_TRUE(e.is_object() && j.contains("achievable"));
    for (const char* key : {"hbm_GBps", "bf16_tflops", "launch_us"})
        expect_rel(num_d(j.at("achievable"), key), num_d(e, key), 1e-12, key);
    // the catalog figures beside them
    EXPECT_DOUBLE_EQ(num_d(j.at("catalog"), "hbm_GBps"), kH200HbmGBps);
    EXPECT_DOUBLE_EQ(num_d(j.at("catalog"), "bf16_tflops"), kH200Bf16Tflops);
    EXPECT_DOUBLE_EQ(num_d(j.at("catalog"), "launch_us"), kH200LaunchUs);
}

// gemm --measure with the calibration cached: utilization against the achievable roofs.
//   util_compute = (F / t_gemm) / (F / t_cal) = t_cal / t_gemm, both 8192³ GEMMs simulated at
//     1389.11 µs × (1 ± 1 %): ∈ [0.99/1.01, 1.01/0.99] = [0.980, 1.020] → 1.0 ± 3 %
//   util_hbm = 402,653,184 B / t_gemm / hbm_cal = 402,653,184 / 1389.11e-6 s = 289.87 GB/s / 4320 GB/s = 0.0671
//     (±1 % on the time, ±1 % on the calibrated bandwidth → ±3 %)
TEST(Calibration, GemmMeasureUsesTheAchievableRoofs) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    ASSERT_TRUE(succeeded(run_bwacct({"calibrate", "--cache", cache}, sim(dir))));
    const json e = expect_valid_cache(cache);
    ASSERT_TRUE(e.is_object());

    const RunResult r = run_bwacct(kGemm8192, sim(dir, "", cache));
    ASSERT_TRUE(succeeded(r));
    const json j = parse_json(r.out, r.command);
    ASSERT_TRUE(j.is_object() && j.contains("measurement"));
    const json& m = j.at("measurement");
    // the GEMM itself: 1111.29 / 0.80 = 1389.11 µs (±1 %)
    const double model_us = kGemm8192Flops / (kH200Bf16Tflops * 1e12) / kEffCompute * 1e6;
    EXPECT_NEAR(model_us, 1389.11, 0.01);
    const double median = num_d(m, "median_us");
    expect_within_noise(median, model_us, "8192³ median_us");
    ASSERT_TRUE(m.contains("achievable") && m.at("achievable").is_object()) << m.dump(2);
    const json& a = m.at("achievable");
    EXPECT_EQ(str_of(a, "backend"), "simulated");
    EXPECT_EQ(str_of(a, "measured_at"), str_of(e, "measured_at"));
    for (const char* key : {"hbm_GBps", "bf16_tflops", "launch_us"})
        expect_rel(num_d(a, key), num_d(e, key), 1e-12, key);
    // exactly the formulas, with the numbers the run printed
    expect_rel(num_d(a, "util_compute"), kGemm8192Flops / (median * 1e6) / num_d(e, "bf16_tflops"), 1e-9, "util_compute");
    expect_rel(num_d(a, "util_hbm"), kGemm8192Bytes / (median * 1e3) / num_d(e, "hbm_GBps"), 1e-9, "util_hbm");
    // and the hand values
    EXPECT_NEAR(num_d(a, "util_compute"), 1.0, 0.03);
    const double util_hbm = kGemm8192Bytes / (model_us * 1e3) / (kEffHbm * kH200HbmGBps);  // 0.0671
    EXPECT_NEAR(util_hbm, 0.0671, 0.0001);
    expect_rel(num_d(a, "util_hbm"), util_hbm, 0.03, "util_hbm ≈ 0.0671");
}

// A truncated cache is ignored with one warning, the measurement still succeeds without the
// achievable roofs, and the next calibrate rewrites the file.
TEST(Calibration, TruncatedCacheIsIgnoredThenRewritten) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    ASSERT_TRUE(succeeded(run_bwacct({"calibrate", "--cache", cache}, sim(dir))));
    const std::string whole = read_text(cache);
    ASSERT_GT(whole.size(), 20u);
    write_text(cache, whole.substr(0, whole.size() / 2));

    const RunResult r = run_bwacct(kGemm8192, sim(dir, "", cache));
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "exactly one warning line";
    EXPECT_NE(r.err.find("cache"), std::string::npos);
    EXPECT_NE(r.err.find(cache), std::string::npos) << "the warning names the file";
    const json j = parse_json(r.out, r.command);
    ASSERT_TRUE(j.is_object() && j.contains("measurement"));
    EXPECT_FALSE(j.at("measurement").contains("achievable"));
    EXPECT_EQ(read_text(cache), whole.substr(0, whole.size() / 2)) << "a measurement never writes the cache";

    // calibrate rewrites it as valid JSON, saying so in one line; the next measurement uses it again,
    // without a warning
    const RunResult again = run_bwacct({"calibrate", "--cache", cache}, sim(dir));
    EXPECT_EQ(again.status, 0) << report(again);
    EXPECT_FALSE(again.out.empty());
    EXPECT_EQ(std::count(again.err.begin(), again.err.end(), '\n'), 1) << report(again);
    EXPECT_NE(again.err.find("ignoring the calibration cache " + cache), std::string::npos) << again.err;
    const json e = expect_valid_cache(cache);
    EXPECT_TRUE(e.is_object());
    const RunResult after = run_bwacct(kGemm8192, sim(dir, "", cache));
    ASSERT_TRUE(succeeded(after));
    const json j2 = parse_json(after.out, after.command);
    ASSERT_TRUE(j2.is_object() && j2.contains("measurement"));
    EXPECT_TRUE(j2.at("measurement").contains("achievable"));
}

// Where the cache lives: --cache, else $BWACCT_CACHE, else $XDG_CACHE_HOME/bwacct/calibration.json,
// else ~/.cache/bwacct/calibration.json.
TEST(Calibration, CachePathPrecedence) {
    TempDir dir;
    const std::string home = dir.file("home"), xdg = dir.file("xdg");
    fs::create_directories(home);
    auto env = [&](std::optional<std::string> bwacct_cache, std::optional<std::string> xdg_home) {
        RunOptions o = sim(dir);
        o.env["HOME"] = home;
        o.env["BWACCT_CACHE"] = std::move(bwacct_cache);
        o.env["XDG_CACHE_HOME"] = std::move(xdg_home);
        return o;
    };
    auto cache_of = [](const RunResult& r) {
        EXPECT_TRUE(succeeded(r));
        const json j = parse_json(r.out, r.command);
        return j.is_object() ? j.value("cache", std::string()) : std::string();
    };
    // ~/.cache
    EXPECT_EQ(cache_of(run_bwacct({"calibrate", "--format", "json"}, env(std::nullopt, std::nullopt))),
              home + "/.cache/bwacct/calibration.json");
    EXPECT_TRUE(expect_valid_cache(home + "/.cache/bwacct/calibration.json").is_object());
    // $XDG_CACHE_HOME
    EXPECT_EQ(cache_of(run_bwacct({"calibrate", "--format", "json"}, env(std::nullopt, xdg))), xdg + "/bwacct/calibration.json");
    EXPECT_TRUE(expect_valid_cache(xdg + "/bwacct/calibration.json").is_object());
    // $BWACCT_CACHE beats $XDG_CACHE_HOME
    EXPECT_EQ(cache_of(run_bwacct({"calibrate", "--format", "json"}, env(dir.file("env.json"), xdg))), dir.file("env.json"));
    EXPECT_TRUE(expect_valid_cache(dir.file("env.json")).is_object());
    // --cache beats $BWACCT_CACHE
    EXPECT_EQ(
        cache_of(run_bwacct({"calibrate", "--format", "json", "--cache", dir.file("opt.json")}, env(dir.file("env2.json"), xdg))),
        dir.file("opt.json"));
    EXPECT_TRUE(expect_valid_cache(dir.file("opt.json")).is_object());
    EXPECT_FALSE(fs::exists(dir.file("env2.json")));
}

// =============================================================================================
// H. Under mpirun: one rank per process, only rank 0 prints.

constexpr auto kMpiTimeout = std::chrono::seconds(30);

class Mpi : public ::testing::Test {
protected:
    void SetUp() override {
        if (find_on_path("mpirun").empty())
            GTEST_SKIP() << "mpirun is not on PATH";
        const RunResult v = run_bwacct({"--version"});
        if (v.out.find("MPI") == std::string::npos)
            GTEST_SKIP() << "this bwacct was built without MPI: " << v.out;
    }
    // mpirun with the launcher's flags; the rest of argv follows.
    static std::vector<std::string> mpirun(std::initializer_list<std::string> more) {
        return with({"mpirun", "--allow-run-as-root", "--oversubscribe"}, more);
    }
    RunOptions mpi_env() {
        RunOptions o = no_sim(dir_);  // each app context sets BWACCT_SIMULATE(_FAIL) with -x
        o.timeout = kMpiTimeout;
        return o;
    }
    TempDir dir_;
};

// allreduce 1 GiB on 2 ranks, ring, on the simulated H200:
//   bus factor 2(n−1)/n = 2·1/2 = 1.0; wire bytes per rank 2(n−1)/n · S = 1 · 1,073,741,824; steps 2(n−1) = 2
//   link roof = 1,073,741,824 B / 450e9 B/s = 2386.09 µs + 2 steps × 2.5 µs α = 2391.09 µs (link-bound:
//   HBM 2 · 1,073,741,824 / 4800e9 = 447.39 µs)
//   simulated time = 2391.09 / 0.80 = 2988.87 µs; each rank's median ±1 %, their average too (±1.5 % asserted)
TEST_F(Mpi, AllreduceTwoRanksSimulated) {
    const std::string bin = bwacct_bin();
    const RunResult r = run_program(
        mpirun({"-np", "2", "-x", "BWACCT_SIMULATE=h200", bin, "allreduce", "--bytes", "1G", "--measure", "--format", "json"}),
        mpi_env());
    SCOPED_TRACE(report(r));
    ASSERT_FALSE(r.timed_out);
    ASSERT_EQ(r.status, 0);
    // exactly one JSON document: only rank 0 prints (two documents would not parse as one)
    EXPECT_EQ(count_of(r.out, "\"bwacct.op/1\""), 1u);
    const json j = parse_json(r.out, r.command);
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "source"), "simulated");
    const u64 size = 1073741824ull;
    EXPECT_EQ(j.at("params").value("ranks", u64{0}), 2u) << "--ranks defaults to the MPI size";
    EXPECT_EQ(j.at("params").value("size_bytes", u64{0}), size);
    EXPECT_EQ(num_u(j, "ranks"), 2u);
    EXPECT_DOUBLE_EQ(num_d(j, "bus_factor"), 1.0);  // 2(2−1)/2
    EXPECT_EQ(num_u(j, "wire_bytes_per_rank"), 2 * (2 - 1) * size / 2);
    EXPECT_EQ(num_u(j, "steps"), 2u);

    ASSERT_TRUE(j.contains("measurement"));
    const json& m = j.at("measurement");
    EXPECT_EQ(str_of(m, "backend"), "simulated");
    EXPECT_EQ(num_u(m, "ranks"), 2u);
    const double link_us = static_cast<double>(size) / (kH200LinkGBps * 1e9) * 1e6;  // 2386.09 µs
    EXPECT_NEAR(link_us, 2386.09, 0.01);
    const double floor_us = link_us + 2 * kH200AlphaUs;  // 2391.09 µs
    const double model_us = floor_us / kEffLink;         // 2988.87 µs
    EXPECT_NEAR(model_us, 2988.87, 0.01);
    const double median = num_d(m, "median_us");
    expect_rel(median, model_us, 0.015, "measurement.median_us ≈ 2988.9");
    expect_rel(num_d(j, "time_us"), median, 1e-12, "time_us = the reduced median");
    EXPECT_EQ(num_u(m, "n"), m.at("samples_us").size());
    // algbw = 1,073,741,824 B / (median µs · 1e3) ≈ 359.2 GB/s; busbw = algbw · 1.0
    const json* g = gpu_entry(j, "h200");
    ASSERT_NE(g, nullptr);
    expect_rel(num_d(*g, "algbw_GBps"), static_cast<double>(size) / (median * 1e3), 1e-9, "algbw_GBps");
    expect_rel(num_d(*g, "busbw_GBps"), static_cast<double>(size) / (median * 1e3), 1e-9, "busbw_GBps");

    // the note: "median over 2 ranks: average A µs (reported), min L, max H", min ≤ A ≤ max, A = median_us
    std::string note;
    for (const json& n : m.at("notes"))
        if (n.get<std::string>().find("median over 2 ranks") != std::string::npos)
            note = n.get<std::string>();
    ASSERT_FALSE(note.empty()) << m.at("notes").dump();
    static const std::regex re(R"(average ([0-9.]+) .*min ([0-9.]+), max ([0-9.]+))");
    std::smatch sm;
    ASSERT_TRUE(std::regex_search(note, sm, re)) << note;
    const double avg = std::stod(sm[1].str()), lo = std::stod(sm[2].str()), hi = std::stod(sm[3].str());
    EXPECT_NEAR(avg, median, 0.0006) << "printed with 3 decimals";
    EXPECT_LE(lo, avg);
    EXPECT_GE(hi, avg);
    EXPECT_LT(lo, hi) << "two ranks with different seeds give different medians";
    expect_rel(lo, model_us, 0.0101, "min over ranks");
    expect_rel(hi, model_us, 0.0101, "max over ranks");
}

// One rank fails (MPMD: -x BWACCT_SIMULATE_FAIL=cuda on one app context only): every rank fails,
// none waits forever in a reduction, nothing is printed on stdout.
TEST_F(Mpi, OneFailingRankFailsEveryRankWithoutHanging) {
    const std::string bin = bwacct_bin();
    for (int failing : {1, 0}) {
        SCOPED_TRACE(fmt::format("failing rank {}", failing));
        const std::vector<std::string> ok{"-np", "1", "-x", "BWACCT_SIMULATE=h200"};
        const std::vector<std::string> bad{"-np", "1", "-x", "BWACCT_SIMULATE=h200", "-x", "BWACCT_SIMULATE_FAIL=cuda"};
        const std::vector<std::string> cmd{bin, "allreduce", "--bytes", "1G", "--measure", "--format", "json"};
        std::vector<std::string> argv = mpirun({});
        for (const auto* part : {failing == 0 ? &bad : &ok, &cmd})
            argv.insert(argv.end(), part->begin(), part->end());
        argv.push_back(":");
        for (const auto* part : {failing == 1 ? &bad : &ok, &cmd})
            argv.insert(argv.end(), part->begin(), part->end());
        const RunResult r = run_program(argv, mpi_env());
        SCOPED_TRACE(report(r));
        EXPECT_FALSE(r.timed_out);
        EXPECT_LT(r.wall_s, 10.0) << "must finish within 10 s (no rank left waiting)";
        EXPECT_NE(r.status, 0);
        EXPECT_EQ(r.out, "") << "nothing on stdout, never a number";
        EXPECT_NE(r.err.find("CUDA error: simulated failure"), std::string::npos) << "the failing rank's message";
    }
}

// Open MPI is loaded at run time, only when a launcher started bwacct: when it does not load, a
// multi-rank measurement is refused with one line naming the library (exit 1, nothing on stdout),
// under a real mpirun and with only a launcher's environment; the model still answers.
TEST_F(Mpi, UnloadableLibraryIsAOneLineFailure) {
    const std::string bin = bwacct_bin();
    const std::string missing = fmt::format("{}/no/libmpi.so.40", dir_.path());
    const std::string said = fmt::format("MPI is not usable: cannot load {}", missing);
    const RunResult r =
        run_program(mpirun({"-np", "2", "-x", "BWACCT_SIMULATE=h200", "-x", fmt::format("BWACCT_MPI_LIBRARY={}", missing), bin,
                            "allreduce", "--bytes", "1G", "--measure", "--format", "json"}),
                    mpi_env());
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(said), std::string::npos);

    RunOptions launcher = sim(dir_);
    const std::string two = fmt::format("{}", 2);  // (a string literal here trips GCC 12's false -Wrestrict)
    launcher.env["OMPI_COMM_WORLD_SIZE"] = two;
    launcher.env["BWACCT_MPI_LIBRARY"] = missing;
    const RunResult alone = run_bwacct({"allreduce", "--bytes", "1G", "--measure"}, launcher);
    EXPECT_TRUE(failed_cleanly(alone, 1, said));
    EXPECT_TRUE(succeeded(run_bwacct({"allreduce", "--bytes", "1G"}, launcher))) << "the model needs no MPI";
}

// One binary for every machine: the CUDA runtime and zlib are linked statically, and cuBLASLt, NCCL,
// CUPTI, NVML, the driver and Open MPI are opened with dlopen, so the executable names none of them
// (only the C and C++ runtimes, libfmt and libsimdjson).
TEST(OneBinary, LinksNoGpuOrMpiLibrary) {
    if (find_on_path("ldd").empty())
        GTEST_SKIP() << "ldd is not on PATH";
    const RunResult r = run_program({"ldd", bwacct_bin()});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_NE(r.out.find("libc.so"), std::string::npos) << "control: ldd lists the C library\n" << r.out;
    for (const char* lib : {"libcudart", "libcublas", "libnccl", "libcupti", "libnvidia-ml", "libcuda.so", "libmpi", "libz.so"})
        EXPECT_EQ(r.out.find(lib), std::string::npos) << lib << " is linked:\n" << r.out;
}

}  // namespace
