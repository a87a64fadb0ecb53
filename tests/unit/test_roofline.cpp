#include <gtest/gtest.h>

#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "bwacct/roofline.h"

using namespace bwacct;

namespace {

// A GPU with round numbers so every expectation is easy to check by hand.
GpuSpec toy_gpu() {
    GpuSpec g;
    g.id = "toy";
    g.name = "Toy";
    g.hbm_bw_GBps = {1000, "test", "", {}};           // 1 TB/s
    g.tensor_tflops["bf16"] = {100, "test", "", {}};  // 100 TFLOP/s
    g.vector_tflops["bf16"] = {10, "test", "", {}};
    g.launch_overhead_us = {2, "test", "", {}};
    g.l2_bytes = Figure{50.0 * 1048576, "test", "", {}};
    g.scaleup_link = Link{"toylink", {100, "test", "", {}}, false, Figure{1, "test", "", {}}};
    return g;
}

Cost cost(std::uint64_t flops, std::uint64_t read, std::uint64_t written, std::uint64_t launches = 1) {
    Cost c;
    c.op = "test";
    c.flops = flops;
    c.bytes_read = read;
    c.bytes_written = written;
    c.launches = launches;
    return c;
}

}  // namespace

TEST(Roofline, ComputeBoundOp) {
    // 1e9 FLOP at 100 TFLOP/s = 10 µs; 1e6 B at 1000 GB/s = 1 µs; 1 launch = 2 µs
    const Verdict v = analyze(cost(1'000'000'000, 500'000, 500'000), toy_gpu(), {});
    EXPECT_DOUBLE_EQ(v.roofs_us.compute, 10.0);
    EXPECT_DOUBLE_EQ(v.roofs_us.hbm, 1.0);
    EXPECT_DOUBLE_EQ(v.roofs_us.dispatch, 2.0);
    EXPECT_EQ(v.bound, Roof::compute);
    EXPECT_DOUBLE_EQ(v.floor_us, 10.0);
    EXPECT_DOUBLE_EQ(v.sum_us, 13.0);
    EXPECT_DOUBLE_EQ(v.intensity, 1000.0);  // 1e9 / 1e6
    EXPECT_DOUBLE_EQ(*v.ridge, 100.0);      // 100e12 / 1000e9
    EXPECT_DOUBLE_EQ(*v.attainable_tflops, 100.0);
}

TEST(Roofline, HbmBoundAttainable) {
    // intensity 2.5: attainable = 2.5 · 1000 GB/s = 2.5 TFLOP/s = 2.5 % of 100
    const Verdict v = analyze(cost(2'500'000'000, 500'000'000, 500'000'000), toy_gpu(), {});
    EXPECT_EQ(v.bound, Roof::hbm);
    EXPECT_DOUBLE_EQ(v.roofs_us.hbm, 1000.0);  // 1e9 B / 1e12 B/s
    EXPECT_DOUBLE_EQ(*v.attainable_tflops, 2.5);
    EXPECT_DOUBLE_EQ(*v.attainable_fraction, 0.025);
}

TEST(Roofline, DispatchBoundManySmallKernels) {
    // 100 launches · 2 µs = 200 µs beats 1 µs of bytes
    const Verdict v = analyze(cost(1000, 500'000, 500'000, 100), toy_gpu(), {});
    EXPECT_EQ(v.bound, Roof::dispatch);
    EXPECT_DOUBLE_EQ(v.floor_us, 200.0);
}

TEST(Roofline, GivenTimeUtilizationAndShares) {
    AnalysisOptions o;
    o.time_us = 20;
    const Verdict v = analyze(cost(1'000'000'000, 500'000, 500'000), toy_gpu(), o);
    ASSERT_TRUE(v.timed);
    // 1e9 FLOP / 20 µs = 50 TFLOP/s = 50 % of peak; 1e6 B / 20 µs = 50 GB/s = 5 % of HBM
    EXPECT_DOUBLE_EQ(v.timed->tflops, 50.0);
    EXPECT_DOUBLE_EQ(v.timed->util_compute, 0.5);
    EXPECT_DOUBLE_EQ(v.timed->implied_bw_GBps, 50.0);
    EXPECT_DOUBLE_EQ(v.timed->util_hbm, 0.05);
    // the compute roof (10 µs) explains exactly half of 20 µs: compute-bound
    EXPECT_DOUBLE_EQ(v.timed->shares.compute, 0.5);
    EXPECT_EQ(v.timed->bound, Roof::compute);
}

TEST(Roofline, OverheadBoundWhenNoRoofExplainsHalf) {
    AnalysisOptions o;
    o.time_us = 100;  // compute roof 10 µs explains 10 %
    const Verdict v = analyze(cost(1'000'000'000, 500'000, 500'000), toy_gpu(), o);
    EXPECT_EQ(v.timed->bound, Roof::overhead);
    EXPECT_DOUBLE_EQ(v.timed->unexplained, 0.9);
    EXPECT_FALSE(v.notes.empty());
}

TEST(Roofline, ImpliedBandwidthAboveHbmPeakIsExplained) {
    AnalysisOptions o;
    o.time_us = 1;  // 10 MB in 1 µs = 10,000 GB/s > 1000 GB/s; working set fits the 50 MiB L2
    const Verdict v = analyze(cost(1000, 5'000'000, 5'000'000), toy_gpu(), o);
    EXPECT_DOUBLE_EQ(v.timed->util_hbm, 10.0);
    bool mentions_l2 = false;
    for (const auto& n : v.notes)
        mentions_l2 |= n.find("L2") != std::string::npos;
    EXPECT_TRUE(mentions_l2);
}

TEST(Roofline, CollectiveAlphaBetaAndBusbw) {
    CollectiveDesc d;
    d.size_bytes = 100'000'000;
    d.ranks = 4;
    const Cost c = collective_cost(d);
    AnalysisOptions o;
    o.time_us = 2000;
    const Verdict v = analyze(c, toy_gpu(), o);
    // wire = 2·3/4·1e8 = 1.5e8 B at 100 GB/s = 1500 µs, plus 6 steps · 1 µs = 1506 µs
    EXPECT_DOUBLE_EQ(v.roofs_us.link, 1506.0);
    EXPECT_EQ(v.bound, Roof::link);
    // algbw = 1e8 B / 2000 µs = 50 GB/s; busbw = 50 · 1.5 = 75 GB/s; link util = 1.5e8/2000µs = 75 GB/s of 100
    EXPECT_DOUBLE_EQ(*v.algbw_GBps, 50.0);
    EXPECT_DOUBLE_EQ(*v.busbw_GBps, 75.0);
    EXPECT_DOUBLE_EQ(*v.timed->util_link, 0.75);
    o.link_GBps = 200;  // --link-GBps override: 750 + 6 = 756 µs
    o.alpha_us = 0;
    EXPECT_DOUBLE_EQ(analyze(c, toy_gpu(), o).roofs_us.link, 750.0);
}

TEST(Roofline, MissingPeakOrLinkIsAnInputError) {
    Cost c = cost(1000, 10, 10);
    c.compute_dtype = DType::fp4;
    EXPECT_THROW(analyze(c, toy_gpu(), {}), InputError);
    CollectiveDesc d;
    d.size_bytes = 1024;
    d.algo = CollectiveAlgo::nvls;
    EXPECT_THROW(analyze(collective_cost(d), toy_gpu(), {}), InputError);  // toylink has no NVLS
    // NVLS a trace's kernel shows (not chosen): analysed on the link's bandwidth, with a note asking
    // whether this is the trace's GPU.
    d.algo_seen = true;
    const Verdict seen = analyze(collective_cost(d), toy_gpu(), {});
    EXPECT_NE(std::find_if(seen.notes.begin(), seen.notes.end(),
                           [](const std::string& n) { return n.find("the kernel runs NVLS") != std::string::npos; }),
              seen.notes.end());
    d.algo_seen = false;
    GpuSpec no_link = toy_gpu();
    no_link.scaleup_link.reset();
    d.algo = CollectiveAlgo::ring;
    EXPECT_THROW(analyze(collective_cost(d), no_link, {}), InputError);
}

TEST(Roofline, SeedOneOnCatalogH100) {
    // Seed 001: fp16 elementwise at 2.5 FLOP/B against the H100 tensor fp16 ridge (~295).
    const Catalog cat = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    ElementwiseDesc d;
    d.shape = {32, 2048, 4096};
    d.dtype = DType::fp16;
    d.flops_per_elem = 10;
    d.unit = Unit::tensor;
    const Verdict v = analyze(elementwise_cost(d), cat.get("h100-sxm", "test"), {});
    // ridge = 989.4 TFLOP/s / 3350 GB/s = 295.3 FLOP/B; attainable = 2.5 · 3.35 = 8.375 TFLOP/s = 0.846 %
    EXPECT_NEAR(*v.ridge, 295.34, 0.01);
    EXPECT_EQ(v.bound, Roof::hbm);
    EXPECT_NEAR(*v.attainable_fraction, 0.008465, 0.00001);
}
