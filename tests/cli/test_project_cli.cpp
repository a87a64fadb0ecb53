// End-to-end tests of `bwacct project` and `bwacct fit` (seed 000) and of the examples/ scripts of
// seeds 000 and 001, run with the binary's directory first on the PATH. Expected numbers by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

std::string fit_data(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/fit/" + name; }

// Bad input: exit 2, one line on stderr naming `what`, nothing on stdout.
void expect_bad_input(const std::vector<std::string>& args, const std::string& what) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find(what), std::string::npos) << report(r);
}

RunResult run_example(const std::string& script) {
    const std::string bin = bwacct_bin();
    const std::string dir = bin.substr(0, bin.rfind('/'));
    const char* path = std::getenv("PATH");
    RunOptions opt;
    opt.env["PATH"] = dir + ":" + (path ? path : "/usr/bin:/bin");
    opt.env["NO_COLOR"] = "1";
    return run_program({"bash", std::string(BWACCT_EXAMPLES) + "/" + script}, opt);
}

void expect_has(const std::string& text, const std::string& needle) {
    EXPECT_NE(text.find(needle), std::string::npos) << "missing: " << needle << "\n--- output ---\n" << text;
}

}  // namespace

TEST(ProjectCli, SeedAnchorTable) {
    // 20 · 8000 / 4800 = 33.33 FPS; alternatives 20 · 7672 / 4800 = 31.97, 20 · 7700 / 4800 = 32.08
    const RunResult r = run_bwacct({"project", "--from", "h200", "--to", "b200", "--fps", "20", "--bound", "hbm"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    expect_has(r.out, "33.33 fps on b200 (modelled");
    expect_has(r.out, "20 fps on h200 (given)");
    expect_has(r.out, "time × 0.6000");  // seed: ratio 0.58–0.60
    expect_has(
        r.out,
        "summary       33.3 fps (b200 8000 GB/s, the catalog's figure); 32.0 with 7672 GB/s (derived); 32.1 with 7700 GB/s");
}

TEST(ProjectCli, SeedAnchorJson) {
    const json j = run_json({"project", "--from", "h200", "--to", "b200", "--fps", "20", "--format", "json"});
    EXPECT_EQ(str_of(j, "schema"), "bwacct.projection/1");
    const json& p = j["projections"][0];
    EXPECT_EQ(str_of(p["given"], "source"), "given");
    EXPECT_EQ(str_of(p["projected"], "source"), "modelled");
    expect_rel(num_d(p["projected"], "rate"), 20.0 * 8000 / 4800, 1e-12, "projected fps");
    expect_rel(num_d(p["figures"]["to"], "hbm_GBps"), hbm_GBps("b200"), 1e-12, "b200 HBM");
    expect_rel(num_d(p["figures"]["from"], "hbm_GBps"), hbm_GBps("h200"), 1e-12, "h200 HBM");
    ASSERT_EQ(p["alternatives"].size(), 2u);
    expect_rel(num_d(p["alternatives"][0]["projected"], "rate"), 20.0 * 7672 / 4800, 1e-12, "7672 alternative");
}

TEST(ProjectCli, TimeRateAndOtherBounds) {
    // 113 µs collective, NVLink 450 → 900 GB/s per direction: 56.5 µs
    RunResult r = run_bwacct({"project", "--from", "h200", "--to", "b200", "--time-us", "113", "--bound", "link"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    expect_has(r.out, "56.50 µs on b200");
    // bf16 dense 989.4 → 2250: 1500 tokens/s · 2250 / 989.4 = 3411.2
    r = run_bwacct({"project", "--from", "h200", "--to", "b200", "--rate", "1500 tokens/s", "--bound", "compute"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    expect_has(r.out, "3411 tokens/s on b200");
    r = run_bwacct({"project", "--from", "h200", "--to", "b200", "--fps", "20", "--bound", "dispatch"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    expect_has(r.out, "20.00 fps on b200 (modelled: unchanged)");
}

TEST(ProjectCli, BadInput) {
    expect_bad_input({"project", "--from", "h200", "--to", "nope", "--fps", "20"}, "--to");
    expect_bad_input({"project", "--from", "h999", "--to", "b200", "--fps", "20"}, "--from");
    expect_bad_input({"project", "--from", "h200", "--to", "b200", "--fps", "-20"}, "--fps");
    expect_bad_input({"project", "--from", "h200", "--to", "b200"}, "--fps");
    expect_bad_input({"project", "--from", "h200", "--to", "b200", "--fps", "20", "--time-us", "3"}, "--fps");
    expect_bad_input({"project", "--from", "h200", "--to", "b200", "--fps", "20", "--bound", "overhead"}, "--bound");
    expect_bad_input({"project", "--from", "h200", "--to", "b200", "--rate", "fast"}, "--rate");
    expect_bad_input({"project", "--from", "h200", "--to", "b200", "--fps", "20", "--format", "csv"}, "--format");
}

TEST(FitCli, SyntheticRecoversOverheadAndBandwidth) {
    // t = 5 µs + bytes / 3 TB/s (3e6 B/µs), generated here: both recovered within 1 %
    TempDir dir;
    std::string csv = "bytes,time_us\n";
    for (double b : {2e7, 2.2e7, 2.4e7, 3e7, 5e7, 1e8, 4e8})
        csv += std::to_string(static_cast<long long>(b)) + "," + std::to_string(5 + b / 3e6) + "\n";
    write_text(dir.file("t.csv"), csv);
    const json j = run_json({"fit", dir.file("t.csv"), "--format", "json", "--gpu", "h200"});
    EXPECT_EQ(str_of(j, "schema"), "bwacct.fit/1");
    EXPECT_EQ(str_of(j["input"], "source"), "given");
    EXPECT_EQ(str_of(j, "source"), "modelled");
    expect_rel(num_d(j, "intercept_us"), 5.0, 0.01, "intercept");
    expect_rel(num_d(j, "bw_GBps"), 3000.0, 0.01, "effective bandwidth");
    expect_rel(num_d(j["peak"], "util_hbm"), 3000.0 / 4800, 0.01, "share of h200 HBM");
    // first step 2e7 → 2.2e7: t 11.667 → 12.333, e = ln(12.333/11.667) / ln 1.1 = 0.583: sublinear (overhead 43 %)
    EXPECT_EQ(str_of(j["scaling"], "verdict"), "sublinear");
}

TEST(FitCli, FixturesTableAndJsonl) {
    RunResult r = run_bwacct({"fit", fit_data("linear_bytes.csv")});
    ASSERT_TRUE(succeeded(r)) << report(r);
    expect_has(r.out, "effective bandwidth 1/b = 3000 GB/s");
    expect_has(r.out, "verdict         linear");
    r = run_bwacct({"fit", fit_data("superlinear_area.csv")});
    ASSERT_TRUE(succeeded(r)) << report(r);
    expect_has(r.out, "verdict         superlinear");
    const json j = run_json({"fit", fit_data("sweep_allreduce.jsonl"), "--x", "size_bytes", "--format", "json"});
    expect_rel(num_d(j, "bw_GBps"), 150.0, 1e-6, "allreduce sweep algbw");
    expect_rel(num_d(j, "intercept_us"), 10.0, 1e-6, "allreduce sweep intercept");
}

TEST(FitCli, BadInput) {
    expect_bad_input({"fit", fit_data("no_default_columns.csv")}, "--x");
    expect_bad_input({"fit", fit_data("linear_bytes.csv"), "--y", "latency"}, "--y");
    expect_bad_input({"fit", fit_data("one_point.csv")}, "one_point.csv");
    expect_bad_input({"fit", fit_data("non_numeric.csv")}, "non_numeric.csv");
    expect_bad_input({"fit", fit_data("negative_size.csv")}, "negative_size.csv");
    expect_bad_input({"fit", fit_data("empty.csv")}, "empty.csv");
    expect_bad_input({"fit", fit_data("missing.csv")}, "missing.csv");
    expect_bad_input({"fit", std::string(BWACCT_TEST_DATA) + "/fit"}, "directory");
    expect_bad_input({"fit", fit_data("linear_bytes.csv"), "--gpu", "nope"}, "--gpu");
}

TEST(Examples, Seed000) {
    const RunResult r = run_example("seed000-bandwidth-accounting.sh");
    ASSERT_EQ(r.status, 0) << report(r);
    // 2(MK + KN + MN) = 2(11,059,200 + 26,214,400 + 11,059,200) = 96,665,600; compute-bound on h200
    expect_has(r.out, "HBM bytes     96,665,600");
    expect_has(r.out, "h200      compute        114.46");
    // 22,118,400 B / 113 µs = 195.74 GB/s algbw
    expect_has(r.out, "h200            195.74");
    expect_has(r.out, "summary       33.3 fps (b200 8000 GB/s");
    expect_has(r.out, "verdict         linear");
}

TEST(Examples, Seed001) {
    const RunResult r = run_example("seed001-intensity-and-fusion.sh");
    ASSERT_EQ(r.status, 0) << report(r);
    // 10 FLOP / (2 B read + 2 B written) = 2.5; 2.5 · 3350 GB/s = 8.375 TFLOP/s = 0.85 % of 989.4
    expect_has(r.out, "intensity     2.50 FLOP/B");
    expect_has(r.out, "8.4 (0.85 %)");
    // [32,2048,4096] fp16 = 512 MiB; 3 kernels each read + write it: 3 GiB; fused: 1 GiB; saved 2 GiB = 2,147,483,648 B
    expect_has(r.out, "saves 2,147,483,648");
}
