#include <gtest/gtest.h>

#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/projection.h"

using namespace bwacct;

namespace {

const Catalog& catalog() {
    static const Catalog c = Catalog::load(BWACCT_CONFIG_DIR "/gpus.json", "catalog");
    return c;
}

ProjectionRequest rate(double v, Roof bound = Roof::hbm) {
    ProjectionRequest r;
    r.bound = bound;
    r.value = v;
    return r;
}

}  // namespace

TEST(Projection, SeedAnchorH200ToB200Fps) {
    // seed 000: 20 FPS on H200 (4.8 TB/s) → B200 (8.0 TB/s): 20 · 8000 / 4800 = 33.33 FPS; time ratio 0.600
    const Projection p = project(catalog().get("h200", "t"), catalog().get("b200", "t"), rate(20));
    EXPECT_DOUBLE_EQ(p.from.value, 4800);
    EXPECT_DOUBLE_EQ(p.to.value, 8000);
    EXPECT_NEAR(p.ratio, 8000.0 / 4800.0, 1e-12);
    EXPECT_NEAR(p.projected, 33.333333, 1e-5);
    EXPECT_NEAR(1 / p.ratio, 0.6, 1e-12);  // seed: ratio 0.58–0.60
    EXPECT_EQ(p.to.key, "hbm_GBps");
    EXPECT_FALSE(p.to.source.empty());
    // the catalog's alternatives for B200: 7672 (derived) → 20 · 7672 / 4800 = 31.97; 7700 → 32.08
    ASSERT_EQ(p.alternatives.size(), 2u);
    EXPECT_DOUBLE_EQ(p.alternatives[0].figure, 7672);
    EXPECT_EQ(p.alternatives[0].label, "derived");
    EXPECT_NEAR(p.alternatives[0].projected, 31.966667, 1e-5);
    EXPECT_DOUBLE_EQ(p.alternatives[1].figure, 7700);
    EXPECT_NEAR(p.alternatives[1].projected, 32.083333, 1e-5);
}

TEST(Projection, TimeShrinksByTheRatio) {
    // 113 µs on H200 → B200 by HBM: 113 · 4800 / 8000 = 67.8 µs
    ProjectionRequest r = rate(113);
    r.quantity = Quantity::time;
    const Projection p = project(catalog().get("h200", "t"), catalog().get("b200", "t"), r, "--time-us");
    EXPECT_NEAR(p.projected, 67.8, 1e-9);
}

TEST(Projection, ComputeUsesTheDenseDtypePeak) {
    // bf16 dense: H200 989.4, B200 2250 TFLOP/s → 100 · 2250 / 989.4 = 227.41; the sparse 1979 is never used
    const Projection p = project(catalog().get("h200", "t"), catalog().get("b200", "t"), rate(100, Roof::compute));
    EXPECT_DOUBLE_EQ(p.from.value, 989.4);
    EXPECT_DOUBLE_EQ(p.to.value, 2250);
    EXPECT_NEAR(p.projected, 100 * 2250 / 989.4, 1e-9);
    for (const auto& a : p.alternatives)
        EXPECT_NE(a.figure, 1979);  // REJECTED alternative (sparse filed as dense) is skipped
}

TEST(Projection, LinkUsesPerDirectionBandwidth) {
    // NVLink 4 450 GB/s → NVLink 5 900 GB/s per direction: a 113 µs collective → 56.5 µs
    ProjectionRequest r = rate(113, Roof::link);
    r.quantity = Quantity::time;
    const Projection p = project(catalog().get("h200", "t"), catalog().get("b200", "t"), r);
    EXPECT_DOUBLE_EQ(p.ratio, 2.0);
    EXPECT_DOUBLE_EQ(p.projected, 56.5);
}

TEST(Projection, DispatchIsUnchanged) {
    const Projection p = project(catalog().get("h200", "t"), catalog().get("b200", "t"), rate(20, Roof::dispatch));
    EXPECT_DOUBLE_EQ(p.ratio, 1.0);
    EXPECT_DOUBLE_EQ(p.projected, 20.0);
    EXPECT_TRUE(p.alternatives.empty());
}

TEST(Projection, MissingFiguresNameTheOption) {
    GpuSpec bare;
    bare.id = "bare";
    bare.hbm_bw_GBps = {1000, "test", "", {}};
    const GpuSpec& h200 = catalog().get("h200", "t");
    try {
        (void)project(h200, bare, rate(1, Roof::link));
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--to");
    }
    try {
        (void)project(bare, h200, rate(1, Roof::compute));
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--from");
    }
    try {
        (void)project(h200, h200, rate(-1), "--fps");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--fps");
    }
}

TEST(Projection, FigureLabel) {
    EXPECT_EQ(figure_label("derived: 7680-bit x 3996 MHz"), "derived");
    EXPECT_EQ(figure_label("NVIDIA 'Individual Blackwell GPU Specifications', HGX B200 column"), "");
    EXPECT_EQ(figure_label("a very long sentence that has a colon much later: x"), "");
}
