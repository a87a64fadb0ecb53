#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "backend.h"
#include "bwacct/catalog.h"
#include "calibration.h"
#include "sampling.h"
#include "sim/sim_backend.h"

using namespace bwacct;
using namespace bwacct::measure;

TEST(Sampling, SummarizeByHand) {
    // 1, 2, 3, 4, 10: median 3, mean 4, min 1, max 10;
    // population sd = sqrt((9 + 4 + 1 + 0 + 36) / 5) = sqrt(10) = 3.1623; cv = 3.1623 / 4 = 0.79057
    const Stats s = summarize({4, 1, 10, 3, 2});
    EXPECT_EQ(s.n, 5u);
    EXPECT_DOUBLE_EQ(s.median_us, 3);
    EXPECT_DOUBLE_EQ(s.mean_us, 4);
    EXPECT_DOUBLE_EQ(s.min_us, 1);
    EXPECT_DOUBLE_EQ(s.max_us, 10);
    EXPECT_NEAR(s.cv, 0.790569, 1e-6);
    EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 4}).median_us, 2.5);  // even count: mean of the middle two
}

TEST(Sampling, StopsOnceQuietAndSkipsWarmup) {
    SamplePolicy p;
    p.warmup = 3;
    p.min_samples = 5;
    p.max_samples = 50;
    p.target_cv = 0.01;
    int calls = 0;
    // Warm-up returns 100 µs (a cold first launch); afterwards a steady 10 µs.
    const Timing t = sample(p, [&] { return ++calls <= 3 ? 100.0 : 10.0; });
    EXPECT_EQ(calls, 3 + 5);  // 3 warm-up calls not recorded, then stop at min_samples: cv = 0
    EXPECT_EQ(t.samples_us.size(), 5u);
    EXPECT_DOUBLE_EQ(t.stats.median_us, 10);
}

TEST(Sampling, NoisyRunsUntilTheCap) {
    SamplePolicy p;
    p.warmup = 0;
    p.min_samples = 5;
    p.max_samples = 20;
    p.budget_ms = 1e9;
    int i = 0;
    // Alternating 10 and 20 µs: cv = 5/15 = 0.333 never reaches 1 %: runs to max_samples.
    const Timing t = sample(p, [&] { return (i++ % 2 == 0) ? 10.0 : 20.0; });
    EXPECT_EQ(t.samples_us.size(), 20u);
    EXPECT_NEAR(t.stats.cv, 1.0 / 3.0, 1e-12);
}

TEST(Sampling, BudgetStopsLongSamples) {
    SamplePolicy p;
    p.warmup = 0;
    p.min_samples = 3;
    p.max_samples = 100;
    p.budget_ms = 1;  // 1000 µs
    int i = 0;
    // 400 and 600 µs alternate (noisy): after 3 samples 1400 µs > 1000 µs budget.
    const Timing t = sample(p, [&] { return (i++ % 2 == 0) ? 400.0 : 600.0; });
    EXPECT_EQ(t.samples_us.size(), 3u);
}

TEST(Hbm, BytesMovedCountReadsAndWrites) {
    // BabelStream: Copy 2×, Mul 2×, Add 3×, Triad 3×; read-only and write-only 1×.
    EXPECT_EQ(hbm_bytes_moved(HbmKernel::copy, 1000), 2000u);
    EXPECT_EQ(hbm_bytes_moved(HbmKernel::read, 1000), 1000u);
    EXPECT_EQ(hbm_bytes_moved(HbmKernel::write, 1000), 1000u);
    EXPECT_EQ(hbm_bytes_moved(HbmKernel::triad, 1000), 3000u);
}

namespace {
GpuSpec h200() { return Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test").get("h200", "test"); }
}  // namespace

TEST(SimBackend, TimesFollowTheModelAndSayTheyAreSimulated) {
    auto b = make_sim_backend(h200(), "", 42);
    EXPECT_EQ(b->source(), TimeSource::simulated);
    GemmDesc g;
    g.m = 2160;
    g.n = 5120;
    g.k = 5120;
    const Timing t = b->gemm(g, SamplePolicy{});
    // Compute-bound on h200: 113,246,208,000 FLOP / 989.4 TFLOP/s = 114.459 µs; / 0.80 = 143.07 µs ± 1 %
    EXPECT_NEAR(t.stats.median_us, 143.07, 143.07 * 0.01);
    EXPECT_EQ(t.source, TimeSource::simulated);
    EXPECT_NE(t.detail.find("not a measurement"), std::string::npos);
    // HBM copy of 1 GiB arrays: 2 GiB / 4800 GB/s = 447.39 µs; / 0.90 = 497.10 µs ± 1 %
    const Timing h = b->hbm(HbmKernel::copy, 1ull << 30, SamplePolicy{});
    EXPECT_NEAR(h.stats.median_us, 497.10, 497.10 * 0.01);
}

TEST(SimBackend, DeterministicForASeed) {
    GemmDesc g;
    g.m = g.n = g.k = 4096;
    const Timing a = make_sim_backend(h200(), "", 7)->gemm(g, SamplePolicy{});
    const Timing b = make_sim_backend(h200(), "", 7)->gemm(g, SamplePolicy{});
    EXPECT_EQ(a.samples_us, b.samples_us);
}

TEST(SimBackend, FailuresAreErrorsNeverNumbers) {
    GemmDesc g;
    g.m = g.n = g.k = 1024;
    EXPECT_THROW(make_sim_backend(h200(), "verify", 1)->gemm(g, SamplePolicy{}), MeasureError);
    EXPECT_THROW(make_sim_backend(h200(), "cuda", 1)->hbm(HbmKernel::triad, 1 << 20, SamplePolicy{}), MeasureError);
}

TEST(Calibration, RoundTripKeepsOtherDevicesAndSurvivesATruncatedFile) {
    const std::string path = ::testing::TempDir() + "bwacct_cal_test.json";
    std::remove(path.c_str());
    Calibration a;
    a.uuid = "GPU-a";
    a.name = "A";
    a.backend = "cuda";
    a.measured_at = "2026-11-22T00:00:00Z";
    a.hbm_GBps = 4300;
    a.bf16_tflops = 790;
    a.launch_us = 2.4;
    Calibration b = a;
    b.uuid = "GPU-b";
    b.hbm_GBps = 7000;
    store_calibration(path, a);
    store_calibration(path, b);
    std::string warning;
    auto got = load_calibration(path, "GPU-a", warning);
    ASSERT_TRUE(got);
    EXPECT_DOUBLE_EQ(got->hbm_GBps, 4300);
    EXPECT_DOUBLE_EQ(load_calibration(path, "GPU-b", warning)->hbm_GBps, 7000);
    EXPECT_FALSE(load_calibration(path, "GPU-c", warning));
    EXPECT_TRUE(warning.empty());

    // Truncate the file in the middle: ignored with a warning, then rewritten whole.
    std::string text;
    {
        std::ifstream in(path);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    {
        std::ofstream out(path, std::ios::trunc);
        out << text.substr(0, text.size() / 2);
    }
    EXPECT_FALSE(load_calibration(path, "GPU-a", warning));
    EXPECT_NE(warning.find("ignoring"), std::string::npos);
    EXPECT_NE(store_calibration(path, a), "") << "replacing an unreadable file says so";
    warning.clear();
    EXPECT_TRUE(load_calibration(path, "GPU-a", warning));
    EXPECT_TRUE(warning.empty());
    std::remove(path.c_str());
    std::remove((path + ".lock").c_str());  // store_calibration's lock file
}

TEST(Calibration, RunOnTheSimulatedBackend) {
    auto b = make_sim_backend(h200(), "", 3);
    const Calibration c = run_calibration(*b, 1ull << 30, SamplePolicy{}, "2026-11-22T00:00:00Z");
    // HBM: 0.90 · 4800 = 4320 GB/s ± 1 %; bf16 8192³ is compute-bound: 0.80 · 989.4 = 791.5 TFLOP/s ± 1 %
    EXPECT_NEAR(c.hbm_GBps, 4320, 4320 * 0.011);
    EXPECT_NEAR(c.bf16_tflops, 791.52, 791.52 * 0.011);
    EXPECT_NEAR(c.launch_us, 2.5, 2.5 * 0.011);
    EXPECT_EQ(c.uuid, "SIM-h200");
}
