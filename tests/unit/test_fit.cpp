#include <gtest/gtest.h>

#include <cmath>

#include "bwacct/error.h"
#include "bwacct/fit.h"

using namespace bwacct;

namespace {

// t = 5 µs + bytes / 3 TB/s: 3 TB/s = 3e12 B/s = 3e6 B/µs.
std::vector<FitPoint> synthetic(std::initializer_list<double> sizes) {
    std::vector<FitPoint> p;
    for (double b : sizes)
        p.push_back({b, 5 + b / 3e6});
    return p;
}

std::string data(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/fit/" + name; }

template <typename F>
std::string option_of(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.option() + " | " + e.what();
    }
    return "no error";
}

}  // namespace

TEST(Fit, RecoversOverheadAndBandwidth) {
    // a = 5 µs, b = 1/3e6 µs per byte → 1e-3 / b = 3000 GB/s, both within 1 %
    const FitResult f = fit_scaling(synthetic({1e8, 1.1e8, 1.2e8, 1.5e8, 2e8, 4e8}), true, "test");
    EXPECT_NEAR(f.intercept, 5.0, 0.05);
    ASSERT_TRUE(f.bw_GBps);
    EXPECT_NEAR(*f.bw_GBps, 3000.0, 30.0);
    EXPECT_NEAR(f.r2, 1.0, 1e-9);
    EXPECT_EQ(f.n, 6u);
}

TEST(Fit, LinearFromTheFirstTenPercent) {
    // first step 1e8 → 1.1e8: t 38.333 → 41.667; e = ln(41.667/38.333) / ln 1.1 = 0.08338 / 0.09531 = 0.875
    const FitResult f = fit_scaling(synthetic({1e8, 1.1e8, 1.2e8, 1.5e8}), true, "test");
    EXPECT_NEAR(f.first_step, 0.1, 1e-12);
    EXPECT_NEAR(f.elasticity_first, std::log(41.666667 / 38.333333) / std::log(1.1), 1e-6);
    EXPECT_NEAR(f.elasticity_first, 0.875, 1e-3);
    // overhead share at the smallest x: 5 / 38.333 = 13.0 %
    EXPECT_NEAR(f.overhead_share, 5 / 38.333333, 1e-6);
    EXPECT_EQ(f.verdict, Scaling::linear);
}

TEST(Fit, SublinearWhenOverheadDominates) {
    // 1e6 B: t = 5 + 0.333 = 5.333; 1.1e6: 5.367; e = ln(5.3667/5.3333) / ln 1.1 = 0.00623 / 0.0953 = 0.065
    const FitResult f = fit_scaling(synthetic({1e6, 1.1e6, 1.2e6}), true, "test");
    EXPECT_NEAR(f.elasticity_first, 0.065, 1e-3);
    EXPECT_EQ(f.verdict, Scaling::sublinear);
}

TEST(Fit, SuperlinearAndNotBytes) {
    // t ∝ x²: e = 2 everywhere
    const std::vector<FitPoint> p{{1.0, 100}, {1.1, 121}, {1.2, 144}, {1.5, 225}};
    const FitResult f = fit_scaling(p, false, "test");
    EXPECT_NEAR(f.elasticity_first, 2.0, 1e-9);
    EXPECT_NEAR(f.elasticity_range, 2.0, 1e-9);
    EXPECT_EQ(f.verdict, Scaling::superlinear);
    EXPECT_FALSE(f.bw_GBps);  // x is not bytes
}

TEST(Fit, ThresholdsAreInclusive) {
    // t = x^0.85 and t = x^1.15 are still linear; x^0.84 is sublinear
    auto power = [](double e) { return std::vector<FitPoint>{{1.0, 1.0}, {1.1, std::pow(1.1, e)}, {1.2, std::pow(1.2, e)}}; };
    EXPECT_EQ(fit_scaling(power(0.8500001), false, "t").verdict, Scaling::linear);
    EXPECT_EQ(fit_scaling(power(1.1499999), false, "t").verdict, Scaling::linear);
    EXPECT_EQ(fit_scaling(power(0.84), false, "t").verdict, Scaling::sublinear);
    EXPECT_EQ(fit_scaling(power(1.16), false, "t").verdict, Scaling::superlinear);
}

TEST(Fit, RepeatedXAveragedForTheScalingCheck) {
    // x = 1 twice (10, 12 → mean 11), x = 2 once (22): e = ln(22/11) / ln 2 = 1
    const FitResult f = fit_scaling({{1, 10}, {1, 12}, {2, 22}}, false, "t");
    EXPECT_NEAR(f.elasticity_first, 1.0, 1e-12);
    EXPECT_EQ(f.n, 3u);
}

TEST(Fit, BadPointsNameTheOrigin) {
    EXPECT_EQ(option_of([] { fit_scaling({{1, 1}}, true, "f.csv"); }).substr(0, 8), "f.csv | ");
    EXPECT_EQ(option_of([] { fit_scaling({{1, 1}, {1, 2}}, true, "f.csv"); }).substr(0, 8), "f.csv | ");
    EXPECT_EQ(option_of([] { fit_scaling({{-1, 1}, {2, 2}}, true, "f.csv"); }).substr(0, 8), "f.csv | ");
    EXPECT_EQ(option_of([] { fit_scaling({{1, 0}, {2, 2}}, true, "f.csv"); }).substr(0, 8), "f.csv | ");
}

TEST(FitInput, CsvDefaultsAndUnits) {
    const FitData d = read_fit_input(data("linear_bytes.csv"), "", "");
    EXPECT_EQ(d.format, "csv");
    EXPECT_EQ(d.x_name, "bytes");
    EXPECT_EQ(d.y_name, "time_us");
    EXPECT_TRUE(d.x_is_bytes);
    ASSERT_EQ(d.points.size(), 6u);
    EXPECT_DOUBLE_EQ(d.points[0].x, 1e8);
    // period_ms is converted to µs: 50.0 ms = 50000 µs
    const FitData a = read_fit_input(data("superlinear_area.csv"), "", "");
    EXPECT_EQ(a.x_name, "area");
    EXPECT_DOUBLE_EQ(a.y_scale, 1000);
    EXPECT_DOUBLE_EQ(a.points[0].y, 50000);
    EXPECT_FALSE(a.x_is_bytes);
}

TEST(FitInput, SweepJsonl) {
    // T = 10 µs + S / 150e3 B per µs over S = 1..32 MiB: intercept 10 µs, bandwidth 150 GB/s
    const FitData d = read_fit_input(data("sweep_allreduce.jsonl"), "size_bytes", "");
    EXPECT_EQ(d.format, "jsonl");
    ASSERT_EQ(d.points.size(), 6u);
    EXPECT_DOUBLE_EQ(d.points[0].x, 1048576);
    const FitResult f = fit_scaling(d.points, d.x_is_bytes, d.path);
    EXPECT_NEAR(f.intercept, 10.0, 1e-6);
    EXPECT_NEAR(*f.bw_GBps, 150.0, 1e-6);
}

TEST(FitInput, BadInputNamesFileOrOption) {
    auto opt = [](const std::string& file, const std::string& x = "") {
        const std::string s = option_of([&] { (void)read_fit_input(data(file), x, ""); });
        return s.substr(0, s.find(" | "));
    };
    EXPECT_EQ(opt("no_default_columns.csv"), "--x");
    EXPECT_EQ(opt("linear_bytes.csv", "area"), "--x");
    EXPECT_EQ(opt("one_point.csv"), data("one_point.csv"));
    EXPECT_EQ(opt("non_numeric.csv"), data("non_numeric.csv"));
    EXPECT_EQ(opt("negative_size.csv"), data("negative_size.csv"));
    EXPECT_EQ(opt("empty.csv"), data("empty.csv"));
    EXPECT_EQ(opt("missing.csv"), data("missing.csv"));
    EXPECT_EQ(option_of([] {
                  (void)read_fit_input(std::string(BWACCT_TEST_DATA) + "/fit", "", "");
              }).substr(0, std::string(BWACCT_TEST_DATA).size() + 4),
              std::string(BWACCT_TEST_DATA) + "/fit");
}

// Issue 11 defect 10: x near 1e200 overflowed the sums (dx² ≈ 1e400 = inf) and gave slope 0, r² 0,
// verdict "linear". The fit now scales x and y by their largest value before summing.
TEST(Fit, HugeXIsScaledBeforeSumming) {
    // t = 5 + 3e-200·x at x = 1, 2, 4, 8 (×1e200): t = 5 + 3 = 8, 5 + 6 = 11, 5 + 12 = 17, 5 + 24 = 29.
    const std::vector<FitPoint> pts{{1e200, 8}, {2e200, 11}, {4e200, 17}, {8e200, 29}};
    const FitResult f = fit_scaling(pts, false, "test");
    EXPECT_NEAR(f.slope / 3e-200, 1.0, 1e-12);
    EXPECT_NEAR(f.intercept, 5.0, 1e-9);
    EXPECT_NEAR(f.r2, 1.0, 1e-12);
    // first step doubles x: e = ln(11/8) / ln 2 = 0.3185 / 0.6931 = 0.459 < 0.9: sublinear (overhead 5 of 8 µs)
    EXPECT_EQ(f.verdict, Scaling::sublinear);

    // t = 2e-200·x through the origin at x = 1, 2, 3 (×1e200): t = 2, 4, 6; e = 1 everywhere: linear.
    const FitResult g = fit_scaling({{1e200, 2}, {2e200, 4}, {3e200, 6}}, false, "test");
    EXPECT_NEAR(g.slope / 2e-200, 1.0, 1e-12);
    EXPECT_EQ(g.intercept, 0.0);
    EXPECT_NEAR(g.r2, 1.0, 1e-12);
    EXPECT_EQ(g.verdict, Scaling::linear);
}

// Tiny x (1e-200) with bytes: the same line scaled down; the bandwidth 1e-3 / slope stays finite.
TEST(Fit, TinyXIsScaledBeforeSumming) {
    // t = 1 + 5e199·x at x = 1, 2, 4 (×1e-200): t = 1 + 0.5 = 1.5, 1 + 1 = 2, 1 + 2 = 3.
    const FitResult f = fit_scaling({{1e-200, 1.5}, {2e-200, 2}, {4e-200, 3}}, true, "test");
    EXPECT_NEAR(f.slope / 5e199, 1.0, 1e-12);
    EXPECT_NEAR(f.intercept, 1.0, 1e-12);
    ASSERT_TRUE(f.bw_GBps);
    EXPECT_NEAR(*f.bw_GBps / 2e-203, 1.0, 1e-12);  // 1e-3 / 5e199 = 2e-203 GB/s
}
