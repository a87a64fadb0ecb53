// Seed 003 (training-step traffic) and seed 004 §4/§8 (data-parallel and ZeRO communication):
// expected values computed by hand in the comments.
#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/workload_train.h"

using namespace bwacct;

namespace {
StepDesc issue_example() {
    StepDesc d;  // bwacct step --params 124e6 --activations-bytes 3.2e9 (fp32, Adam)
    d.params = 124'000'000;
    d.activation_bytes = 3'200'000'000;
    return d;
}
}  // namespace

TEST(Step, TrafficIsTwiceEachState) {
    const StepTraffic t = step_traffic(issue_example());
    // params 124e6·4 = 496,000,000 B; grads the same; optimizer 124e6·8 = 992,000,000 B
    EXPECT_EQ(t.param_bytes, 496000000u);
    EXPECT_EQ(t.grad_bytes, 496000000u);
    EXPECT_EQ(t.optimizer_bytes, 992000000u);
    // traffic 2·(496e6 + 496e6 + 3.2e9 + 992e6) = 2·5,184,000,000 = 10,368,000,000 B
    EXPECT_EQ(t.traffic_bytes, 10368000000u);
    EXPECT_EQ(t.footprint_bytes, 5184000000u);
    StepDesc bf = issue_example();
    bf.dtype = DType::bf16;  // params and grads 248e6 B each: 2·(248e6·2 + 3.2e9 + 992e6) = 9,376,000,000
    EXPECT_EQ(step_traffic(bf).traffic_bytes, 9376000000u);
}

TEST(Step, BandwidthUtilizationAndVerdict) {
    const StepTraffic t = step_traffic(issue_example());
    StepHardware a100{"a100-sxm-80gb", 2039, 85899345920ull};
    const StepAnalysis a = analyze_step(t, 180, a100);
    // 10.368e9 B / 0.180 s = 57.6 GB/s; 57.6 / 2039 = 2.825 %; floor 10.368e9 / 2039e9 = 5.0849 ms
    EXPECT_NEAR(a.bw_GBps, 57.6, 1e-9);
    EXPECT_NEAR(a.util_hbm, 57.6 / 2039, 1e-12);
    EXPECT_NEAR(a.floor_ms, 10.368e9 / 2039e9 * 1e3, 1e-9);
    // footprint 5.184e9 / 85,899,345,920 = 6.03 %: fits; traffic under half the peak: neither
    ASSERT_TRUE(a.capacity_fraction.has_value());
    EXPECT_NEAR(*a.capacity_fraction, 5.184e9 / 85899345920.0, 1e-12);
    EXPECT_EQ(a.limit, StepLimit::neither);
    // 8 ms step: 10.368e9 / 0.008 = 1296 GB/s = 63.6 % of 2039: bandwidth-limited
    EXPECT_EQ(analyze_step(t, 8, a100).limit, StepLimit::bandwidth);
    // 100 GB of activations: footprint 101.984e9 > 85.9e9: capacity-limited
    StepDesc big = issue_example();
    big.activation_bytes = 100'000'000'000;
    EXPECT_EQ(analyze_step(step_traffic(big), 180, a100).limit, StepLimit::capacity);
}

TEST(Step, BadInput) {
    StepDesc d = issue_example();
    d.params = 0;
    EXPECT_THROW(step_traffic(d), InputError);
    EXPECT_THROW(analyze_step(step_traffic(issue_example()), 0, StepHardware{"x", 2039, {}}), InputError);
    d = issue_example();
    d.params = 1ull << 62;  // ·4 bytes overflows 64 bits
    EXPECT_THROW(step_traffic(d), InputError);
}

TEST(Zero, SeedFourExample) {
    // Seed 004 §4: 4 GPUs, M = 1 GB: each GPU sends 2·(4−1)/4 · 1 GB = 1.5 GB.
    ZeroDesc d;
    d.model_bytes = 1'000'000'000;
    d.optimizer_bytes = 4'000'000'000;  // 5e8 bf16 params · 8 B (Adam m, v in fp32)
    d.ranks = 4;
    const auto plans = zero_plans(d);
    ASSERT_EQ(plans.size(), 4u);
    EXPECT_EQ(plans[0].scheme, DpScheme::dp);
    EXPECT_EQ(plans[0].wire_bytes_per_gpu, 1500000000u);
    // ZeRO-1 (seed §8): all-reduce grads 1.5e9 + gather optimizer (4−1)/4 · 4e9 = 3e9 → 4.5e9
    EXPECT_EQ(plans[1].wire_bytes_per_gpu, 4500000000u);
    // ZeRO-2: reduce-scatter grads (4−1)/4 · 1e9 = 7.5e8
    EXPECT_EQ(plans[2].wire_bytes_per_gpu, 750000000u);
    // ZeRO-3, L = 1, forward + backward gathers: 2 · 7.5e8 + reduce-scatter 7.5e8 = 2.25e9
    EXPECT_EQ(plans[3].wire_bytes_per_gpu, 2250000000u);
}

TEST(Zero, GradientAccumulationAndLayers) {
    ZeroDesc d;
    d.model_bytes = 1'000'000'000;
    d.ranks = 4;
    d.accum = 8;
    d.layers = 10;
    const auto plans = zero_plans(d);
    // DP: one all-reduce per optimizer step (1.5e9) instead of one per micro-batch (8 · 1.5e9 = 1.2e10)
    EXPECT_EQ(plans[0].wire_bytes_per_gpu, 1500000000u);
    EXPECT_EQ(plans[0].wire_bytes_without_accum, 12000000000u);
    // ZeRO-2 reduce-scatters every micro-batch: 8 · 7.5e8 = 6e9
    EXPECT_EQ(plans[2].wire_bytes_per_gpu, 6000000000u);
    // ZeRO-3: per micro-batch 2 gathers · 10 layers · (3/4 · 1e8) + 7.5e8 = 1.5e9 + 7.5e8 = 2.25e9; · 8 = 1.8e10
    EXPECT_EQ(plans[3].collectives[0].per_step, 160u);
    EXPECT_EQ(plans[3].wire_bytes_per_gpu, 18000000000u);
}

TEST(Zero, PadsShardsAndRejectsBadInput) {
    ZeroDesc d;
    d.model_bytes = 1002;  // 501 bf16 elements over 4 ranks: padded to 1008 B (4 ranks · 2 B · 126)
    d.ranks = 4;
    const auto plans = zero_plans(d);
    EXPECT_EQ(plans[2].collectives[0].padded_bytes, 6u);
    EXPECT_EQ(plans[2].wire_bytes_per_gpu, 756u);  // 3 · 1008/4
    d.ranks = 1;
    EXPECT_THROW(zero_plans(d), InputError);
    d.ranks = 4;
    d.model_bytes = 0;
    EXPECT_THROW(zero_plans(d), InputError);
}
