// End-to-end tests of `--measure` on layernorm, rmsnorm and softmax: the real `bwacct` binary with
// the simulated backend (BWACCT_SIMULATE=h200, optionally BWACCT_SIMULATE_FAIL=verify) and with no
// GPU and no simulation.
//
// Expected numbers are worked by hand from norm_cost's formulas (docs/formulas.md) and the
// simulated backend's documented model: time = roofline floor / efficiency (hbm 0.90, dispatch
// 1.0), each sample × (1 + u), u uniform in [−1 %, +1 %], so a median lies within ±1 % of it.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

constexpr double kH200HbmGBps = 4800.0;  // HBM3e GB/s (catalog)
constexpr double kH200LaunchUs = 2.5;    // the dispatch roof, µs (catalog)
constexpr double kEffHbm = 0.90, kEffDispatch = 1.0;

const std::vector<std::string> kRmsnorm{"rmsnorm", "--shape", "8,2048,4096", "--gpu", "h200"};

// rmsnorm --shape 8,2048,4096 in bf16 (2 bytes), by hand:
//   elements = 8·2048·4096 = 67,108,864
//   read x   = 67,108,864·2 = 134,217,728 B; read γ = 4096·2 = 8,192 B → bytes_read = 134,225,920
//   write y  = 67,108,864·2 = 134,217,728 B                              → bytes_written = 134,217,728
//   bytes    = 134,225,920 + 134,217,728 = 268,443,648
//   FLOPs    = 4·67,108,864 = 268,435,456
//   HBM roof = 268,443,648 / 4800e9 s = 55.92576 µs (compute at 133.8 TFLOP/s vector bf16 ≈ 2.01 µs,
//              dispatch 2.5 µs: HBM-bound); simulated = 55.92576 / 0.90 = 62.13973 µs
constexpr unsigned long long kRmsRead = 134225920, kRmsWritten = 134217728, kRmsBytes = 268443648, kRmsFlops = 268435456;

TEST(NormMeasureSimulated, RmsnormJsonCarriesTheMeasurement) {
    TempDir dir;
    const json j = run_json(with(kRmsnorm, {"--measure", "--format", "json"}), sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "op"), "rmsnorm");
    EXPECT_EQ(str_of(j, "source"), "simulated");
    EXPECT_EQ(num_u(j, "bytes_read"), kRmsRead);
    EXPECT_EQ(num_u(j, "bytes_written"), kRmsWritten);
    EXPECT_EQ(num_u(j, "bytes"), kRmsBytes);
    EXPECT_EQ(num_u(j, "flops"), kRmsFlops);

    ASSERT_TRUE(j.contains("measurement") && j.at("measurement").is_object()) << j.dump(2);
    const json& m = j.at("measurement");
    EXPECT_EQ(str_of(m, "backend"), "simulated");
    EXPECT_EQ(str_of(m, "source"), "simulated");
    EXPECT_EQ(str_of(m, "verification"), "none: simulated");
    const double hbm_us = static_cast<double>(kRmsBytes) / (kH200HbmGBps * 1e9) * 1e6;
    EXPECT_NEAR(hbm_us, 55.92576, 1e-6);
    const double model_us = hbm_us / kEffHbm;
    EXPECT_NEAR(model_us, 62.13973, 1e-5);
    expect_within_noise(num_d(m, "median_us"), model_us, "measurement.median_us");
    EXPECT_GE(num_u(m, "n"), 10u);
    expect_finite_numbers(j, "$");
}

// layernorm and softmax --shape 8,4096 in bf16, by hand (32,768 elements, 65,536 B per tensor):
//   layernorm: read x 65,536 + γ, β 2·4096·2 = 16,384 → 81,920; write y 65,536; bytes 147,456
//   softmax:   read x 65,536; write y 65,536; bytes 131,072
//   HBM roofs 147,456 / 4800e9 s = 0.0307 µs and 0.0273 µs, below the 2.5 µs dispatch roof, so
//   dispatch binds: simulated = 2.5 / 1.0 = 2.5 µs.
TEST(NormMeasureSimulated, LayernormAndSoftmaxMeasureToo) {
    TempDir dir;
    struct Case {
        const char* op;
        unsigned long long read, written;
    };
    for (const Case& c : {Case{"layernorm", 81920, 65536}, Case{"softmax", 65536, 65536}}) {
        const json j = run_json({c.op, "--shape", "8,4096", "--gpu", "h200", "--measure", "--format", "json"}, sim(dir));
        ASSERT_TRUE(j.is_object()) << c.op;
        EXPECT_EQ(str_of(j, "source"), "simulated") << c.op;
        EXPECT_EQ(num_u(j, "bytes_read"), c.read) << c.op;
        EXPECT_EQ(num_u(j, "bytes_written"), c.written) << c.op;
        ASSERT_TRUE(j.contains("measurement")) << c.op;
        expect_within_noise(num_d(j.at("measurement"), "median_us"), kH200LaunchUs / kEffDispatch,
                            fmt::format("{} measurement.median_us", c.op));
    }
}

TEST(NormMeasureSimulated, TableSaysSimulated) {
    TempDir dir;
    const RunResult r = run_bwacct(with(kRmsnorm, {"--measure"}), sim(dir));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find("simulated"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("measured on"), std::string::npos) << r.out;
}

// Control: without --measure the same command is the model, with no measurement.
TEST(NormMeasureSimulated, WithoutMeasureIsTheModel) {
    TempDir dir;
    const json j = run_json(with(kRmsnorm, {"--format", "json"}), sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "source"), "modelled");
    EXPECT_FALSE(j.contains("measurement"));
    EXPECT_EQ(num_u(j, "bytes"), kRmsBytes);
}

TEST(NormMeasureSimulated, FailedVerificationReportsNoNumber) {
    TempDir dir;
    for (const char* op : {"rmsnorm", "layernorm", "softmax"})
        for (const char* format : {"table", "json"}) {
            const RunResult r = run_bwacct({op, "--shape", "8,2048,4096", "--measure", "--format", format}, sim(dir, "verify"));
            EXPECT_TRUE(failed_cleanly(r, 1, fmt::format("bwacct {}: verification failed", op)));
        }
}

TEST(NormMeasureNoGpu, ExitsOneWithOneLine) {
    if (gpu_present())
        GTEST_SKIP() << "a GPU device node exists here; this test needs a machine without one";
    TempDir dir;
    const RunResult r = run_bwacct(with(kRmsnorm, {"--measure", "--format", "json"}), no_sim(dir));
    ASSERT_TRUE(failed_cleanly(r, 1, "bwacct rmsnorm: "));
    // A CUDA build says there is no GPU; a build without the toolkit says measurement is not compiled in.
    EXPECT_TRUE(r.err.find("no CUDA GPU") != std::string::npos ||
                r.err.find("built without the CUDA toolkit") != std::string::npos)
        << r.err;
}

}  // namespace
