// Issue 14, "the verdict first": the table output of layer, model (step, --fit, --phase generate),
// train, step and project starts with one line per GPU (the ids padded to the longest, as the op
// commands print them) that says what binds, the floor or time, and the key figure. Every expected
// line is worked out by hand below.
#include <gtest/gtest.h>

#include "harness.h"

namespace {

using namespace bwacct_test;

// The first lines of `bwacct args` (table output), then the blank line that ends the verdict block.
std::vector<std::string> verdict_block(const std::vector<std::string>& args, std::size_t gpus) {
    const RunResult r = run_bwacct(args);
    EXPECT_TRUE(succeeded(r)) << report(r);
    std::vector<std::string> lines = lines_of(r.out);
    EXPECT_GT(lines.size(), gpus) << report(r);
    if (lines.size() <= gpus)
        return {};
    EXPECT_EQ(lines[gpus], "") << "the verdict block ends with a blank line\n" << r.out;
    lines.resize(gpus);
    return lines;
}

// A tiny block (hidden 64, one head, ffn 64): every op's compute and HBM time is far under the launch
// cost, so each op is dispatch-bound at --launch-us 10 µs (10 ops of one launch each per layer).
const std::vector<std::string> kTiny{"--hidden", "64",      "--heads", "1",         "--ffn", "64",          "--phase",
                                     "decode",   "--batch", "4",       "--context", "16",    "--launch-us", "10"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(VerdictFirstWorkloads, LayerSaysBoundFloorAndTokensPerSecondPerGpu) {
    // Layer floor: 10 ops × 10 µs = 100 µs; decode, batch 4 → 4 tokens per step; 4 / 100 µs = 40,000 tokens/s.
    const auto lines = verdict_block(with({"layer"}, with(kTiny, {"--gpu", "h200,h100-sxm"})), 2);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "h200      dispatch-bound · floor 100 µs per layer · 40000 tokens/s through one layer (modelled)");
    EXPECT_EQ(lines[1], "h100-sxm  dispatch-bound · floor 100 µs per layer · 40000 tokens/s through one layer (modelled)");
}

TEST(VerdictFirstWorkloads, ModelDecodeSaysTimePerTokenAndTokensPerSecond) {
    // 2 layers × 10 ops + embedding + final norm + LM head = 23 launches × 10 µs = 230 µs = 0.23 ms per
    // decode step (one token per sequence); 4 sequences / 230 µs = 17,391.3 → 17391 tokens/s.
    const auto lines = verdict_block(with({"model", "--layers", "2", "--vocab", "64"}, with(kTiny, {"--gpu", "h200"})), 1);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0],
              "h200  dispatch-bound · floor 0.23 ms per token (one per sequence each step) · 17391 tokens/s (modelled)");
}

TEST(VerdictFirstWorkloads, ModelFitSaysFitsOrNot) {
    // Llama 3 70B in bf16: about 70.6e9 parameters × 2 B ≈ 141 GB of weights alone, over the L4's 24 GB and
    // under the B200's 180 GB (179.1 GiB in the catalog).
    const auto lines = verdict_block({"model", "--preset", "llama3-70b", "--fit", "--context", "1024", "--gpu", "l4,b200"}, 2);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].rfind("l4    does not fit · ", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1].rfind("b200  fits · ", 0), 0u) << lines[1];
    EXPECT_NE(lines[1].find(" of 179.1 GiB HBM · largest batch at context 1024: "), std::string::npos) << lines[1];
}

TEST(VerdictFirstWorkloads, TrainSaysBoundTokensPerGpuGpusAndCost) {
    // F_tok = γ·κ·N = 1.2 · 6 · 70e9 = 5.04e11 FLOP; r_comp = 989.4e12 / 5.04e11 = 1963.10 tokens/s (the
    // binding roof: r_mem is ~383k on the H100); u · r_comp = 0.75 · 1963.10 = 1472.32 → "1472.3";
    // GPUs = ⌈200000 / 1472.32⌉ = ⌈135.84⌉ = 136; $/hr = 136 × 2.5 = 340.
    const auto lines =
        verdict_block({"train", "--params", "70e9", "--layers", "80", "--hidden", "8192", "--tokens-per-step", "512000", "--dp",
                       "8", "--target-tokens-per-s", "200000", "--gpu", "h100-sxm", "--price-hr", "2.5"},
                      1);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "h100-sxm  compute-bound · 1472.3 tokens/s per GPU · 136 GPUs for 200000 tokens/s · $340/hr (modelled)");
}

TEST(VerdictFirstWorkloads, StepSaysLimitFloorAgainstTheGivenTimeAndFootprint) {
    // fp32 params and grads 124e6 × 4 = 496e6 B each, Adam 8 B/param = 992e6 B, activations 3.2e9 B:
    // footprint 5.184e9 B, traffic 2 × 5.184e9 = 10.368e9 B. H100 SXM 3350 GB/s: floor 10.368e9 / 3350e9 s
    // = 3.0949 ms → "3.09"; 180 / 3.0949 = 58.16× floor; 10.368e9 B / 0.18 s = 57.6 GB/s = 1.7 % of 3350;
    // footprint 5.184e9 / 80 GiB (85,899,345,920 B) = 6.0 %.
    const auto lines =
        verdict_block({"step", "--params", "124e6", "--activations-bytes", "3.2e9", "--step-ms", "180", "--gpu", "h100-sxm"}, 1);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0],
              "h100-sxm  neither capacity- nor bandwidth-limited · HBM floor 3.09 ms · given 180 ms = 58.16× floor · 1.7 % "
              "of HBM bandwidth · footprint 6.0 % of HBM");
}

TEST(VerdictFirstWorkloads, ProjectSaysTheProjectedFigurePerGpu) {
    // HBM: b200 8000 / h200 4800 = 1.6667× → 20 fps × 1.6667 = 33.33 fps; h100-sxm 3350 / 4800 = 0.6979×
    // → 13.96 fps.
    const auto lines = verdict_block({"project", "--from", "h200", "--to", "b200,h100-sxm", "--fps", "20", "--bound", "hbm"}, 2);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "b200      hbm-bound (given) · projected 33.33 fps from 20 fps on h200 · 1.6667× speed (modelled)");
    EXPECT_EQ(lines[1], "h100-sxm  hbm-bound (given) · projected 13.96 fps from 20 fps on h200 · 0.6979× speed (modelled)");
}

// ---- A sweep's best point is never one that beats the floor.

TEST(SweepBest, APointBelowTheModelledFloorIsFlaggedNotBest) {
    // --zip pairs (m, time): m=1024 at 50 µs and m=2048 at 200 µs, K = N = 5120, bf16, on the H200 (989.4 TFLOP/s).
    // m=1024: 2·1024·5120·5120 = 53,687,091,200 FLOP / 989.4e12 = 54.26 µs compute floor (HBM: 73,400,320 B /
    // 4800 GB/s = 15.29 µs): 50 µs is 0.92× the floor, impossible by the model, and once ranked best (score 1/0.92).
    // m=2048: 107,374,182,400 / 989.4e12 = 108.52 µs; 200 / 108.52 = 1.84× floor: the only real point.
    const RunResult r =
        run_bwacct({"gemm", "--m", "1024,2048", "--k", "5120", "--n", "5120", "--time-us", "50,200", "--zip", "--gpu", "h200"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_NE(r.out.find("\nbest   m=2048 on h200: 1.84× floor (200 µs vs floor 108.5 µs)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nworst  m=2048 on h200: 1.84× floor"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nbelow  1 point is faster than the modelled floor, left out of best and worst"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("fastest: m=1024 on h200: 0.92× floor (50 µs vs floor 54.26 µs)\n"), std::string::npos) << r.out;
}

}  // namespace
