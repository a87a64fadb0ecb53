// End-to-end tests of `attention --measure`: the real `bwacct` binary with the simulated backend
// (BWACCT_SIMULATE=h200, optionally BWACCT_SIMULATE_FAIL=verify) and with no GPU and no simulation.
// The simulated backend refuses exactly the shapes the CUDA kernel refuses (attention_limits.h), so
// the refusals tested here are the ones a GPU user gets.
//
// Expected numbers are worked by hand from attention_cost's formulas (docs/formulas.md) and the
// simulated backend's documented model: time = roofline floor / efficiency (hbm 0.90), each sample
// × (1 + u), u uniform in [−1 %, +1 %], so a median lies within ±1 % of it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

constexpr double kH200HbmGBps = 4800.0;  // HBM3e GB/s (catalog)
constexpr double kEffHbm = 0.90;

// Decode: one new token against an 8192-token KV cache, 32 query heads sharing 8 KV heads, d = 128.
const std::vector<std::string> kDecode{"attention", "--heads", "32",         "--kv-heads", "8",     "--q-len", "1",
                                       "--kv-len",  "8192",    "--head-dim", "128",        "--gpu", "h200"};

// By hand, bf16 (2 bytes), flash (the default), not causal:
//   pairs = 1·8192 = 8,192;  FLOPs = 4·B·H_q·pairs·d = 4·1·32·8192·128 = 134,217,728
//   read Q = 1·32·1·128·2 = 8,192 B; read K = read V = 1·8·8192·128·2 = 16,777,216 B
//   bytes_read = 8,192 + 2·16,777,216 = 33,562,624; write O = 8,192 B
//   bytes = 33,570,816
//   HBM roof = 33,570,816 / 4800e9 s = 6.99392 µs (compute 134,217,728 / 989.4e12 s = 0.136 µs,
//   dispatch 2.5 µs: HBM binds); simulated = 6.99392 / 0.90 = 7.771022 µs
constexpr unsigned long long kRead = 33562624, kWritten = 8192, kBytes = 33570816, kFlops = 134217728;

TEST(AttentionMeasureSimulated, DecodeJsonCarriesTheMeasurement) {
    TempDir dir;
    const json j = run_json(with(kDecode, {"--measure", "--format", "json"}), sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "op"), "attention");
    EXPECT_EQ(str_of(j, "source"), "simulated");
    EXPECT_EQ(num_u(j, "bytes_read"), kRead);
    EXPECT_EQ(num_u(j, "bytes_written"), kWritten);
    EXPECT_EQ(num_u(j, "bytes"), kBytes);
    EXPECT_EQ(num_u(j, "flops"), kFlops);
    ASSERT_TRUE(j.contains("gpus") && j.at("gpus").size() == 1u);
    EXPECT_EQ(str_of(j.at("gpus").at(0), "modelled_bound"), "hbm");

    ASSERT_TRUE(j.contains("measurement") && j.at("measurement").is_object()) << j.dump(2);
    const json& m = j.at("measurement");
    EXPECT_EQ(str_of(m, "backend"), "simulated");
    EXPECT_EQ(str_of(m, "source"), "simulated");
    const double hbm_us = static_cast<double>(kBytes) / (kH200HbmGBps * 1e9) * 1e6;
    EXPECT_NEAR(hbm_us, 6.99392, 1e-9);
    const double model_us = hbm_us / kEffHbm;
    EXPECT_NEAR(model_us, 7.771022, 1e-6);
    expect_within_noise(num_d(m, "median_us"), model_us, "measurement.median_us");
    expect_finite_numbers(j, "$");
}

// The largest accepted rows per KV head: (32/8)·4 = 16, causal.
//   pairs = 4·8192 − 4·3/2 = 32,762;  FLOPs = 4·1·32·32,762·128 = 536,772,608
//   Q = O = 1·32·4·128·2 = 32,768 B; K = V = 16,777,216 B
//   bytes = 32,768 + 2·16,777,216 + 32,768 = 33,619,968 → HBM 33,619,968 / 4800e9 s = 7.0041600 µs
//   (compute 536,772,608 / 989.4e12 s = 0.543 µs) → simulated 7.00416 / 0.90 = 7.782400 µs
TEST(AttentionMeasureSimulated, SixteenRowsPerKvHeadCausalIsAccepted) {
    TempDir dir;
    const json j = run_json({"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "4", "--kv-len", "8192", "--head-dim",
                             "128", "--causal", "--gpu", "h200", "--measure", "--format", "json"},
                            sim(dir));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(num_u(j, "flops"), 536772608ull);
    EXPECT_EQ(num_u(j, "bytes"), 33619968ull);
    ASSERT_TRUE(j.contains("measurement"));
    expect_within_noise(num_d(j.at("measurement"), "median_us"), 7.7824, "measurement.median_us");
}

// A sweep over the KV length: one measured record per point, in order.
//   kv-len 1024: K = V = 8·1024·128·2 = 2,097,152 B; bytes = 8,192 + 2·2,097,152 + 8,192 = 4,210,688
//   → HBM 4,210,688 / 4800e9 s = 0.877227 µs, below the 2.5 µs dispatch roof: dispatch binds, and the
//   simulated time is 2.5 / 1.0 = 2.5 µs. kv-len 8192: 7.771022 µs as above.
TEST(AttentionMeasureSimulated, SweepMeasuresEveryPoint) {
    TempDir dir;
    std::vector<std::string> args = kDecode;
    args[8] = "1024,8192";  // --kv-len
    const RunResult r = run_bwacct(with(args, {"--measure", "--format", "jsonl"}), sim(dir));
    ASSERT_TRUE(succeeded(r)) << r.err;
    std::vector<json> records;
    for (const std::string& line : lines_of(r.out))
        records.push_back(parse_json(line, r.command));
    ASSERT_EQ(records.size(), 2u) << r.out;
    EXPECT_EQ(num_u(records[0], "bytes"), 4210688ull);
    EXPECT_EQ(num_u(records[1], "bytes"), kBytes);
    expect_within_noise(num_d(records[0].at("measurement"), "median_us"), 2.5, "kv-len 1024");
    expect_within_noise(num_d(records[1].at("measurement"), "median_us"), 7.771022, "kv-len 8192");
}

// Shapes the kernel does not take: exit 1 (a measurement that cannot be made), one line naming the
// option to change, nothing on stdout. Each has a control that differs in one value and is accepted.
struct Refusal {
    std::vector<std::string> args;
    std::string names;
    std::vector<std::string> control;
};

TEST(AttentionMeasureSimulated, RefusesWhatTheKernelCannotRun) {
    TempDir dir;
    auto decode = [](std::vector<std::pair<std::string, std::string>> changes) {
        std::vector<std::string> a = kDecode;
        for (const auto& [opt, value] : changes) {
            bool found = false;
            for (std::size_t i = 0; i + 1 < a.size(); ++i)
                if (a[i] == opt) {
                    a[i + 1] = value;
                    found = true;
                }
            if (!found) {
                a.push_back(opt);
                if (!value.empty())
                    a.push_back(value);
            }
        }
        return a;
    };
    const std::vector<Refusal> cases{
        // prefill: (40/8)·2160 rows per KV head
        {decode({{"--heads", "40"}, {"--q-len", "2160"}, {"--kv-len", "2160"}}), "(--heads / --kv-heads) · --q-len",
         decode({{"--heads", "40"}, {"--q-len", "3"}, {"--kv-len", "2160"}})},
        // (32/8)·5 = 20 > 16 rows; control (32/8)·4 = 16
        {decode({{"--q-len", "5"}}), "at most 16 query rows per KV head (got 4 · 5)", decode({{"--q-len", "4"}})},
        // MQA with 32 query heads on one KV head: 32 rows; control 16 heads
        {decode({{"--kv-heads", "1"}}), "(got 32 · 1)", decode({{"--kv-heads", "1"}, {"--heads", "16"}})},
        {decode({{"--head-dim", "100"}}), "--head-dim a multiple of 8 up to 256 (got 100)", decode({{"--head-dim", "104"}})},
        {decode({{"--head-dim", "264"}}), "--head-dim a multiple of 8 up to 256 (got 264)", decode({{"--head-dim", "256"}})},
        {decode({{"--impl", "naive"}}), "--impl naive is modelled, not measured", decode({{"--impl", "flash"}})},
        {decode({{"--dtype", "fp8_e4m3"}}), "--dtype bf16, fp16 and fp32, not fp8_e4m3", decode({{"--dtype", "fp16"}})},
    };
    for (const Refusal& c : cases) {
        const RunResult r = run_bwacct(with(c.args, {"--measure"}), sim(dir));
        EXPECT_TRUE(failed_cleanly(r, 1, c.names)) << fmt::format("{}", fmt::join(c.args, " "));
        EXPECT_TRUE(succeeded(run_bwacct(with(c.control, {"--measure"}), sim(dir))))
            << fmt::format("{}", fmt::join(c.control, " "));
        // Without --measure the refused shape is still modelled.
        EXPECT_TRUE(succeeded(run_bwacct(c.args, sim(dir)))) << fmt::format("{}", fmt::join(c.args, " "));
    }
}

TEST(AttentionMeasureSimulated, TableSaysSimulated) {
    TempDir dir;
    const RunResult r = run_bwacct(with(kDecode, {"--measure"}), sim(dir));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find("simulated"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("measured on"), std::string::npos) << r.out;
}

TEST(AttentionMeasureSimulated, FailedVerificationReportsNoNumber) {
    TempDir dir;
    for (const char* format : {"table", "json"}) {
        const RunResult r = run_bwacct(with(kDecode, {"--measure", "--format", format}), sim(dir, "verify"));
        EXPECT_TRUE(failed_cleanly(r, 1, "bwacct attention: verification failed"));
    }
}

TEST(AttentionMeasureNoGpu, ExitsOneWithOneLine) {
    if (gpu_present())
        GTEST_SKIP() << "a GPU device node exists here; this test needs a machine without one";
    TempDir dir;
    const RunResult r = run_bwacct(with(kDecode, {"--measure", "--format", "json"}), no_sim(dir));
    ASSERT_TRUE(failed_cleanly(r, 1, "bwacct attention: "));
    EXPECT_TRUE(r.err.find("no CUDA GPU") != std::string::npos ||
                r.err.find("built without the CUDA toolkit") != std::string::npos)
        << r.err;
    // The model still answers on the same machine.
    EXPECT_TRUE(succeeded(run_bwacct(kDecode, no_sim(dir))));
}

}  // namespace
