// End-to-end tests: the real `bwacct` binary run as a user runs it, without a shell.
//
// Every run captures stdout, stderr and the exit status separately and has a 10 s limit, so a hang
// fails the test instead of blocking the suite. Every expected number is computed here by hand,
// with the arithmetic in a comment; none is copied from the program's output. The catalog figures
// used in the arithmetic are read from the catalog the binary reads (configs/gpus.json beside it)
// and checked against the documented values.
//
// Contracts checked (from the issue): exit 0 on success with nothing on stderr; exit 2 on bad input
// with exactly one line on stderr that names the offending option and nothing at all on stdout;
// JSON output never contains NaN or infinity; no ANSI escapes unless stdout is a terminal and
// NO_COLOR is unset.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::vector<std::string> kGemmSeed{"gemm", "--m", "2160", "--k", "5120", "--n", "5120"};

// =============================================================================================
// A. Acceptance checks from the issue.

// The documented catalog figures the numbers are based on.
TEST(Acceptance, CatalogHasTheDocumentedPeaks) {
    EXPECT_DOUBLE_EQ(tensor_tflops("h200", "bf16"), 989.4);   // H200 bf16 dense TFLOP/s
    EXPECT_DOUBLE_EQ(hbm_GBps("h200"), 4800.0);               // H200 HBM3e GB/s
    EXPECT_DOUBLE_EQ(tensor_tflops("b200", "bf16"), 2250.0);  // B200 bf16 dense TFLOP/s
    EXPECT_DOUBLE_EQ(hbm_GBps("b200"), 8000.0);               // B200 HBM3e GB/s
    EXPECT_DOUBLE_EQ(tensor_tflops("h100-sxm", "fp16"), 989.4);
    EXPECT_DOUBLE_EQ(hbm_GBps("h100-sxm"), 3350.0);
}

TEST(Acceptance, GemmSeedJson) {
    const json j = run_json(with(kGemmSeed, {"--format", "json"}));
    ASSERT_TRUE(j.is_object());
    EXPECT_TRUE(j.contains("schema") && j.at("schema").is_string() && !j.at("schema").get<std::string>().empty());
    EXPECT_EQ(str_of(j, "op"), "gemm");
    EXPECT_EQ(str_of(j, "source"), "modelled");
    EXPECT_EQ(j.at("params").value("m", u64{0}), 2160u);
    EXPECT_EQ(j.at("params").value("k", u64{0}), 5120u);
    EXPECT_EQ(j.at("params").value("n", u64{0}), 5120u);

    // FLOPs = 2·M·N·K = 2·2160·5120·5120 = 4320·26,214,400 = 113,246,208,000
    const u64 flops = 2ull * 2160 * 5120 * 5120;
    EXPECT_EQ(flops, 113246208000ull);
    EXPECT_EQ(num_u(j, "flops"), flops);
    // bf16 = 2 B. Read A[M,K] = 2160·5120·2 = 22,118,400 and B[K,N] = 5120·5120·2 = 52,428,800;
    // write C[M,N] = 2160·5120·2 = 22,118,400. Total 2·(MK + KN + MN) = 96,665,600.
    const u64 a = 2160ull * 5120 * 2, b = 5120ull * 5120 * 2, c = 2160ull * 5120 * 2;
    EXPECT_EQ(num_u(j, "bytes_read"), a + b);  // 74,547,200
    EXPECT_EQ(num_u(j, "bytes_written"), c);   // 22,118,400
    EXPECT_EQ(num_u(j, "bytes"), 96665600ull);
    EXPECT_EQ(a + b + c, 96665600ull);
    // intensity = 113,246,208,000 / 96,665,600 = 1171.525… FLOP/B
    expect_rel(num_d(j, "intensity"), 113246208000.0 / 96665600.0, 1e-12, "intensity");

    ASSERT_TRUE(j.contains("gpus") && j.at("gpus").is_array());
    ASSERT_EQ(j.at("gpus").size(), 2u) << "default --gpu is h200,b200";
    EXPECT_EQ(j.at("gpus")[0].value("gpu", ""), "h200");
    EXPECT_EQ(j.at("gpus")[1].value("gpu", ""), "b200");
    for (const std::string id : {"h200", "b200"}) {
        SCOPED_TRACE(id);
        const json* g = gpu_entry(j, id);
        ASSERT_NE(g, nullptr);
        const double peak = tensor_tflops(id, "bf16"), bw = hbm_GBps(id);
        // compute roof = FLOPs / (TFLOP/s·1e12) s = FLOPs / (TFLOP/s·1e6) µs:
        //   h200: 113,246,208,000 / 989.4e12 s = 114.4595 µs;  b200: / 2250e12 s = 50.331648 µs
        const double compute_us = 113246208000.0 / (peak * 1e12) * 1e6;
        // HBM roof = bytes / (GB/s·1e9) s: h200 96,665,600 / 4800e9 = 20.13867 µs; b200 / 8000e9 = 12.0832 µs
        const double hbm_us = 96665600.0 / (bw * 1e9) * 1e6;
        const json& roofs = g->at("roofs_us");
        expect_rel(num_d(roofs, "compute"), compute_us, 1e-9, "roofs_us.compute");
        expect_rel(num_d(roofs, "hbm"), hbm_us, 1e-9, "roofs_us.hbm");
        // dispatch roof = 1 launch × the catalog's launch overhead
        expect_rel(num_d(roofs, "dispatch"), 1 * launch_us(id), 1e-12, "roofs_us.dispatch");
        // compute (114.5 / 50.3 µs) > HBM (20.1 / 12.1 µs) > dispatch (2.5 µs): compute-bound
        EXPECT_EQ(str_of(*g, "bound"), "compute");
        expect_rel(num_d(*g, "floor_us"), compute_us, 1e-9, "floor_us = the largest roof");
        // ridge = peak / HBM bandwidth = 989.4e12 / 4800e9 = 206.125 FLOP/B (h200); 2250e12 / 8000e9 = 281.25 (b200)
        expect_rel(num_d(*g, "ridge"), peak * 1e12 / (bw * 1e9), 1e-12, "ridge");
    }
    expect_rel(num_d(*gpu_entry(j, "h200"), "floor_us"), 114.45947847180109, 1e-6, "h200 floor ≈ 114.46 µs");
    expect_rel(num_d(*gpu_entry(j, "b200"), "floor_us"), 50.331648, 1e-9, "b200 floor = 50.331648 µs");
}

TEST(Acceptance, GemmSeedGivenTime) {
    const json j = run_json(with(kGemmSeed, {"--time-us", "140", "--format", "json"}));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "source"), "given");
    expect_rel(num_d(j, "time_us"), 140.0, 1e-12, "time_us");
    EXPECT_EQ(str_of(j, "time_gpu"), "h200");  // the first --gpu (kGemmSeed selects h200,b200)
    // achieved TFLOP/s = 113,246,208,000 / 140e-6 s / 1e12 = 808.9015 (≈ 808.9)
    const double tflops = 113246208000.0 / 140e-6 / 1e12;
    EXPECT_NEAR(tflops, 808.9, 0.01);
    // implied bandwidth = 96,665,600 B / 140e-6 s / 1e9 = 690.4686 GB/s (≈ 690.47)
    const double implied = 96665600.0 / 140e-6 / 1e9;
    EXPECT_NEAR(implied, 690.47, 0.01);
    // Issue 14: the time belongs to h200 (the first --gpu). b200 gets it projected by the binding
    // (compute) roof's ratio, as `bwacct project` does: 140 · 989.4 / 2250 = 61.5627 µs, so b200
    // reaches the same fraction of its peak: achieved 113,246,208,000 / 61.5627e-6 / 1e12 = 1839.5
    // TFLOP/s = 808.9015 · 2250 / 989.4.
    const double ratio = 2250.0 / 989.4;
    for (const std::string id : {"h200", "b200"}) {
        SCOPED_TRACE(id);
        const json* g = gpu_entry(j, id);
        ASSERT_NE(g, nullptr);
        const double scale = id == "b200" ? ratio : 1.0;
        expect_rel(num_d(*g, "time_us"), 140.0 / scale, 1e-9, "time_us");
        EXPECT_EQ(g->at("projected"), id == "b200");
        expect_rel(num_d(*g, "tflops"), tflops * scale, 1e-9, "tflops");
        expect_rel(num_d(*g, "implied_bw_GBps"), implied * scale, 1e-9, "implied_bw_GBps");
        ASSERT_TRUE(g->contains("util"));
        // utilization = achieved / peak: 808.9015 / 989.4 = 0.81757 on h200, and 1839.5 / 2250 the same on b200
        expect_rel(num_d(g->at("util"), "compute"), tflops * scale / tensor_tflops(id, "bf16"), 1e-9, "util.compute");
        // h200 690.4686 / 4800 = 0.14385; b200 690.4686 · 2.27410 / 8000 = 0.19627
        expect_rel(num_d(g->at("util"), "hbm"), implied * scale / hbm_GBps(id), 1e-9, "util.hbm");
        EXPECT_EQ(str_of(*g, "modelled_bound"), "compute");
        // the compute roof is 81.8 % of the time on both → "compute"
        EXPECT_EQ(str_of(*g, "bound"), "compute");
    }
    EXPECT_NEAR(num_d(gpu_entry(j, "h200")->at("util"), "compute"), 808.9 / 989.4, 1e-4);
}

TEST(Acceptance, GemmSeedGivenTimeOnTheSecondGpu) {
    // --time-gpu b200: the 140 µs are b200's. There the compute roof is 50.3316 µs, 36.0 % of the
    // time (< 50 %) → "overhead", unexplained = 1 − 50.3316 / 140 = 0.64049; h200 gets
    // 140 · 2250 / 989.4 = 318.375 µs, also 36.0 % compute → overhead.
    const json j = run_json(with(kGemmSeed, {"--time-us", "140", "--time-gpu", "b200", "--format", "json"}));
    EXPECT_EQ(str_of(*gpu_entry(j, "b200"), "bound"), "overhead");
    expect_rel(num_d(*gpu_entry(j, "b200"), "unexplained"), 1.0 - (113246208000.0 / 2250e12 * 1e6) / 140.0, 1e-9,
               "b200 unexplained");
    expect_rel(num_d(*gpu_entry(j, "h200"), "time_us"), 140.0 * 2250.0 / 989.4, 1e-9, "h200 projected");
    EXPECT_EQ(str_of(*gpu_entry(j, "h200"), "projected_from"), "b200");
}

// A published measurement as the time: stas00/ml-engineering's "Maximum Achievable Matmul FLOPS" table
// (compute/accelerator/README.md at commit 744d01e18b79512572f64a6bbd8b5f4a725203a7) gives H100 SXM bf16 794.5 TFLOP/s
// at 2048x2048x13312, 80.3 % of its 989 theory. FLOPs = 2·2048·2048·13312 = 111,669,149,696; the time that
// rate implies is 111,669,149,696 / 794.5e12 s = 140.553 µs. Given 140.553 µs, bwacct must report the
// table's rate back and the same share of its catalog peak (989.4 dense bf16): 794.5 / 989.4 = 80.30 %.
TEST(Acceptance, GemmGivenTheMamfTablesTimeReportsItsRateAndEfficiency) {
    const double flops = 2.0 * 2048 * 2048 * 13312;
    const double time_us = flops / 794.5e12 * 1e6;
    const json j = run_json({"gemm", "--m", "2048", "--n", "2048", "--k", "13312", "--dtype", "bf16", "--gpu", "h100-sxm",
                             "--time-us", fmt::format("{:.3f}", time_us), "--format", "json"});
    EXPECT_EQ(j["flops"].get<std::uint64_t>(), 111669149696ull);
    const json* g = gpu_entry(j, "h100-sxm");
    ASSERT_NE(g, nullptr);
    EXPECT_NEAR(num_d(*g, "tflops"), 794.5, 0.01);
    EXPECT_NEAR(num_d(g->at("util"), "compute"), 0.803, 0.0005);
    EXPECT_EQ(str_of(*g, "bound"), "compute");
}

TEST(Acceptance, ElementwiseTensorFp16OnH100) {
    const json j = run_json({"elementwise", "--shape", "32,2048,4096", "--dtype", "fp16", "--flops-per-elem", "10", "--unit",
                             "tensor", "--gpu", "h100-sxm", "--format", "json"});
    ASSERT_TRUE(j.is_object());
    // elements = 32·2048·4096 = 268,435,456; FLOPs = 10 per element = 2,684,354,560
    const u64 n = 32ull * 2048 * 4096;
    EXPECT_EQ(n, 268435456ull);
    EXPECT_EQ(num_u(j, "flops"), 10 * n);
    // fp16 = 2 B: read 268,435,456·2 = 536,870,912; write the same; total 1,073,741,824
    EXPECT_EQ(num_u(j, "bytes_read"), 2 * n);
    EXPECT_EQ(num_u(j, "bytes_written"), 2 * n);
    EXPECT_EQ(num_u(j, "bytes"), 4 * n);
    // intensity = 10 FLOP / (2 B read + 2 B written) = 2.5 FLOP/B
    EXPECT_DOUBLE_EQ(num_d(j, "intensity"), 2.5);
    ASSERT_EQ(j.at("gpus").size(), 1u);
    const json* g = gpu_entry(j, "h100-sxm");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(str_of(*g, "bound"), "hbm");
    // ridge = 989.4e12 / 3350e9 = 295.343 FLOP/B
    expect_rel(num_d(*g, "ridge"), 989.4e12 / 3350e9, 1e-9, "ridge");
    EXPECT_NEAR(num_d(*g, "ridge"), 295.3, 0.05);
    // attainable = min(989.4, 2.5 · 3350 GB/s / 1000) = 8.375 TFLOP/s; fraction = 8.375 / 989.4 = 0.008465 (0.85 %)
    expect_rel(num_d(*g, "attainable_tflops"), 2.5 * 3350e9 / 1e12, 1e-9, "attainable_tflops");
    expect_rel(num_d(*g, "attainable_fraction"), 2.5 * 3350e9 / 989.4e12, 1e-9, "attainable_fraction");
    EXPECT_NEAR(num_d(*g, "attainable_fraction"), 0.00847, 0.00001);
    // HBM roof = 1,073,741,824 / 3350e9 s = 320.52 µs; compute roof = 2,684,354,560 / 989.4e12 s = 2.713 µs
    expect_rel(num_d(g->at("roofs_us"), "hbm"), 1073741824.0 / 3350e9 * 1e6, 1e-9, "roofs_us.hbm");
    expect_rel(num_d(g->at("roofs_us"), "compute"), 2684354560.0 / 989.4e12 * 1e6, 1e-9, "roofs_us.compute");
}

TEST(Acceptance, AllreduceGivenTime) {
    const json j = run_json(
        {"allreduce", "--shape", "1,2160,5120", "--dtype", "bf16", "--ranks", "2", "--time-us", "113", "--format", "json"});
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "source"), "given");
    // size = 1·2160·5120 elements · 2 B = 22,118,400 B
    const u64 size = 1ull * 2160 * 5120 * 2;
    EXPECT_EQ(size, 22118400ull);
    EXPECT_EQ(num_u(j, "size_bytes"), size);
    EXPECT_EQ(num_u(j, "ranks"), 2u);
    // ring allreduce wire bytes per rank = 2(n−1)/n · S = 2·1/2 · 22,118,400 = 22,118,400
    EXPECT_EQ(num_u(j, "wire_bytes_per_rank"), 2 * (2 - 1) * size / 2);
    // busbw factor 2(n−1)/n = 2·1/2 = 1 at n = 2
    EXPECT_DOUBLE_EQ(num_d(j, "bus_factor"), 1.0);
    // algbw = 22,118,400 B / 113e-6 s / 1e9 = 195.738 GB/s; busbw = algbw · 1
    const double algbw = 22118400.0 / 113e-6 / 1e9;
    EXPECT_NEAR(algbw, 195.74, 0.005);
    expect_rel(num_d(j, "algbw_GBps"), algbw, 1e-9, "algbw_GBps");
    expect_rel(num_d(j, "busbw_GBps"), algbw * 1.0, 1e-9, "busbw_GBps");
    // Issue 14: the 113 µs are h200's (the first --gpu). The modelled bound is the link, so b200 gets
    // the time projected by the link ratio 900 / 450 GB/s per direction: 113 / 2 = 56.5 µs, and
    // algbw = busbw = 22,118,400 B / 56.5e-6 s / 1e9 = 391.476 GB/s (the same share of its link).
    for (const json& g : j.at("gpus")) {
        SCOPED_TRACE(g.value("gpu", "?"));
        const double scale = g.at("gpu") == "b200" ? 900.0 / 450.0 : 1.0;
        expect_rel(num_d(g, "time_us"), 113.0 / scale, 1e-9, "per-GPU time_us");
        expect_rel(num_d(g, "algbw_GBps"), algbw * scale, 1e-9, "per-GPU algbw_GBps");
        expect_rel(num_d(g, "busbw_GBps"), algbw * scale, 1e-9, "per-GPU busbw_GBps");
    }
}

TEST(Acceptance, GemmSweepJsonl) {
    const RunResult r = run_bwacct({"gemm", "--m", "1024:16384:x2", "--k", "5120", "--n", "5120", "--format", "jsonl"});
    ASSERT_TRUE(succeeded(r));
    const std::vector<std::string> lines = lines_of(r.out);
    // 1024·2^i ≤ 16384 for i = 0..4: 1024, 2048, 4096, 8192, 16384
    const std::vector<u64> ms{1024, 2048, 4096, 8192, 16384};
    ASSERT_EQ(lines.size(), ms.size()) << report(r);
    EXPECT_EQ(r.out.back(), '\n');
    for (std::size_t i = 0; i < ms.size(); ++i) {
        SCOPED_TRACE(fmt::format("line {}", i + 1));
        const json j = parse_json(lines[i], r.command);
        ASSERT_TRUE(j.is_object());
        EXPECT_EQ(j.at("params").value("m", u64{0}), ms[i]);
        // FLOPs = 2·m·5120·5120 = m · 52,428,800 (e.g. 1024 → 53,687,091,200)
        EXPECT_EQ(num_u(j, "flops"), 2 * ms[i] * 5120 * 5120);
        EXPECT_EQ(j.at("gpus").size(), 2u);
    }
}

TEST(Acceptance, GemmSweepCsv) {
    const RunResult r = run_bwacct({"gemm", "--m", "1024:16384:x2", "--k", "5120", "--n", "5120", "--format", "csv"});
    ASSERT_TRUE(succeeded(r));
    const std::vector<std::string> lines = lines_of(r.out);
    // 1 header + 5 points × 2 GPUs (h200, b200) = 11 lines
    ASSERT_EQ(lines.size(), 1u + 5u * 2u) << report(r);
    const std::vector<std::string> header = split(lines[0], ',');
    EXPECT_EQ(header.front(), "op");
    auto column = [&](const std::string& name) -> std::size_t {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return i;
        ADD_FAILURE() << "no CSV column " << name << " in " << lines[0];
        return 0;
    };
    const std::size_t cm = column("m"), cg = column("gpu"), cf = column("flops");
    const std::vector<u64> ms{1024, 2048, 4096, 8192, 16384};
    for (std::size_t row = 0; row < 10; ++row) {
        SCOPED_TRACE(lines[row + 1]);
        const std::vector<std::string> cells = split(lines[row + 1], ',');
        ASSERT_EQ(cells.size(), header.size());
        EXPECT_EQ(cells[cm], std::to_string(ms[row / 2]));
        EXPECT_EQ(cells[cg], row % 2 == 0 ? "h200" : "b200");
        EXPECT_EQ(cells[cf], std::to_string(2 * ms[row / 2] * 5120 * 5120));  // 2·m·5120·5120
    }
}

TEST(Acceptance, GemmSweepJsonArray) {
    const json j = run_json({"gemm", "--m", "1024:16384:x2", "--k", "5120", "--n", "5120", "--format", "json"});
    ASSERT_TRUE(j.is_array());
    const std::vector<u64> ms{1024, 2048, 4096, 8192, 16384};
    ASSERT_EQ(j.size(), ms.size());
    for (std::size_t i = 0; i < ms.size(); ++i) {
        EXPECT_EQ(j[i].at("params").value("m", u64{0}), ms[i]);
        EXPECT_EQ(num_u(j[i], "flops"), 2 * ms[i] * 5120 * 5120);  // 2·m·5120·5120
    }
}

const std::vector<std::string> kAllGpuIds{"h100-sxm",
                                          "h100-pcie",
                                          "h100-nvl",
                                          "h200",
                                          "h200-nvl",
                                          "b200",
                                          "b300",
                                          "gb200",
                                          "gb300",
                                          "a100-sxm-80gb",
                                          "a100-sxm-40gb",
                                          "a10",
                                          "a10g",
                                          "l40s",
                                          "l40",
                                          "l4",
                                          "rtx-4090",
                                          "rtx-5090",
                                          "rtx-pro-6000-blackwell",
                                          "mi250x",
                                          "mi300x",
                                          "mi300a",
                                          "mi325x",
                                          "mi355x",
                                          "a100-pcie-40gb",
                                          "a100-pcie-80gb",
                                          "a800-sxm4-80gb",
                                          "a800-pcie-80gb",
                                          "h800",
                                          "h800-pcie",
                                          "h20",
                                          "gh200",
                                          "gh200-144gb",
                                          "v100-sxm2-16gb",
                                          "v100-sxm2-32gb",
                                          "v100-pcie-16gb",
                                          "v100-pcie-32gb",
                                          "t4",
                                          "a30",
                                          "a40",
                                          "rtx-a6000",
                                          "rtx-6000-ada",
                                          "rtx-3090",
                                          "mi210",
                                          "mi250",
                                          "mi100"};

TEST(Acceptance, GpusListsEveryCatalogEntry) {
    const RunResult r = run_bwacct({"gpus"});
    ASSERT_TRUE(succeeded(r));
    std::set<std::string> first_tokens;
    for (const std::string& line : lines_of(r.out))
        first_tokens.insert(line.substr(0, line.find(' ')));
    for (const std::string& id : kAllGpuIds)
        EXPECT_TRUE(first_tokens.count(id) > 0) << id << " not listed:\n" << r.out;

    // The JSON is the catalog's own format (an object keyed by id), so it can go back in with --gpu-file.
    const json j = run_json({"gpus", "--format", "json"});
    ASSERT_TRUE(j.is_object() && j.contains("gpus") && j.at("gpus").is_object());
    EXPECT_EQ(str_of(j, "schema"), "bwacct.gpus/1");
    std::set<std::string> ids;
    for (const auto& [id, g] : j.at("gpus").items())
        ids.insert(id);
    EXPECT_EQ(ids, std::set<std::string>(kAllGpuIds.begin(), kAllGpuIds.end()));
    EXPECT_EQ(j.at("gpus").size(), kAllGpuIds.size());
}

TEST(Acceptance, SimulatedDeviceMatchesItsOwnCatalogEntry) {
    // Issue 15 acceptance: BWACCT_SIMULATE=ID bwacct device --format json reports catalog_match = ID for every ID.
    TempDir dir;
    for (const std::string& id : kAllGpuIds) {
        RunOptions o = no_sim(dir);
        o.env["BWACCT_SIMULATE"] = id;
        const json j = run_json({"device", "--format", "json"}, o);
        ASSERT_TRUE(j.is_object() && j.contains("device")) << id;
        EXPECT_EQ(str_of(j.at("device"), "catalog_match"), id);
    }
}

TEST(Acceptance, GpusJsonRoundTripsThroughGpuFile) {
    const RunResult listed = run_bwacct({"gpus", "--format", "json"});
    ASSERT_TRUE(succeeded(listed));
    const std::string path = ::testing::TempDir() + "bwacct_roundtrip_gpus.json";
    {
        std::ofstream f(path);
        f << listed.out;
    }
    const RunResult again = run_bwacct({"gpus", "--format", "json", "--gpu-file", path});
    ASSERT_TRUE(succeeded(again)) << again.err;
    EXPECT_EQ(again.out, listed.out);  // every figure, source and note survives the round trip
}

TEST(Acceptance, GpuH200JsonHasSources) {
    const json doc = run_json({"gpu", "h200", "--format", "json"});
    ASSERT_TRUE(doc.is_object() && doc.contains("gpus") && doc.at("gpus").contains("h200"));
    const json& j = doc.at("gpus").at("h200");
    ASSERT_TRUE(j.contains("hbm_bw_GBps"));
    EXPECT_DOUBLE_EQ(num_d(j.at("hbm_bw_GBps"), "value"), 4800.0);
    EXPECT_FALSE(str_of(j.at("hbm_bw_GBps"), "source").empty());
    ASSERT_TRUE(j.contains("tensor_tflops") && j.at("tensor_tflops").contains("bf16"));
    EXPECT_DOUBLE_EQ(num_d(j.at("tensor_tflops").at("bf16"), "value"), 989.4);
    EXPECT_FALSE(str_of(j.at("tensor_tflops").at("bf16"), "source").empty());
}

TEST(Acceptance, ExplainPrintsFormulas) {
    const RunResult r = run_bwacct(with(kGemmSeed, {"--explain"}));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find("2·batch·M·N·K"), std::string::npos) << r.out;
    // and with the numbers substituted: 2·1·2160·5120·5120 = 113246208000
    EXPECT_NE(r.out.find("2·1·2160·5120·5120"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("113246208000"), std::string::npos) << r.out;
}

TEST(Acceptance, MarkdownHasHeaderAndRule) {
    const RunResult r = run_bwacct(with(kGemmSeed, {"--format", "md"}));
    ASSERT_TRUE(succeeded(r));
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_GE(lines.size(), 4u);  // header, rule, one row per GPU (h200, b200)
    EXPECT_EQ(lines[0].rfind("| op |", 0), 0u) << lines[0];
    EXPECT_EQ(lines[1].rfind("| --- |", 0), 0u) << lines[1];
    EXPECT_EQ(lines.size(), 4u);
}

TEST(Acceptance, AttentionCausalFlashPrefill) {
    const json j = run_json({"attention", "--batch", "1", "--heads", "40", "--kv-heads", "8", "--q-len", "2160", "--kv-len",
                             "2160", "--head-dim", "128", "--causal", "--impl", "flash", "--format", "json"});
    ASSERT_TRUE(j.is_object());
    // causal pairs per head = S_q·S_k − S_q·(S_q−1)/2 = 2160·2160 − 2160·2159/2
    //                       = 4,665,600 − 2,331,720 = 2,333,880
    const u64 pairs = 2160ull * 2160 - 2160ull * 2159 / 2;
    EXPECT_EQ(pairs, 2333880ull);
    // FLOPs = 4·B·H_q·pairs·d = 4·1·40·2,333,880·128 = 47,797,862,400
    const u64 flops = 4ull * 1 * 40 * pairs * 128;
    EXPECT_EQ(flops, 47797862400ull);
    EXPECT_EQ(num_u(j, "flops"), flops);
    // bf16 = 2 B. Q and O: 1·40·2160·128·2 = 22,118,400 each; K and V: 1·8·2160·128·2 = 4,423,680 each.
    // read = Q + K + V = 22,118,400 + 8,847,360 = 30,965,760; written = O = 22,118,400; total 53,084,160
    const u64 q = 1ull * 40 * 2160 * 128 * 2, kv = 1ull * 8 * 2160 * 128 * 2;
    EXPECT_EQ(num_u(j, "bytes_read"), q + 2 * kv);
    EXPECT_EQ(num_u(j, "bytes_written"), q);
    EXPECT_EQ(num_u(j, "bytes"), 2 * q + 2 * kv);
    EXPECT_EQ(2 * q + 2 * kv, 53084160ull);
}

TEST(Acceptance, AttentionDecodeContextInFlops) {
    const json j = run_json({"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "1", "--kv-len", "8192", "--head-dim",
                             "128", "--format", "json"});
    ASSERT_TRUE(j.is_object());
    // pairs = S_q·S_k = 1·8192 (not causal); FLOPs = 4·B·H_q·pairs·d = 4·1·32·8192·128 = 134,217,728
    EXPECT_EQ(num_u(j, "flops"), 4ull * 32 * 8192 * 128);
    EXPECT_EQ(4ull * 32 * 8192 * 128, 134217728ull);
    // bytes: Q and O 1·32·1·128·2 = 8,192 each; K and V 1·8·8192·128·2 = 16,777,216 each
    // read = 8,192 + 33,554,432 = 33,562,624; written = 8,192; total 33,570,816
    EXPECT_EQ(num_u(j, "bytes_read"), 8192ull + 2 * 16777216ull);
    EXPECT_EQ(num_u(j, "bytes_written"), 8192ull);
    // intensity ≈ 4 FLOP/B ≪ ridge: memory-bound on both default GPUs
    // (h200 HBM roof 33,570,816 / 4800e9 = 6.99 µs > dispatch 2.5 µs > compute 0.14 µs)
    for (const json& g : j.at("gpus"))
        EXPECT_EQ(str_of(g, "bound"), "hbm") << g.value("gpu", "?");

    // Doubling the context doubles the FLOPs: 4·32·16384·128 = 268,435,456
    const json j2 = run_json({"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "1", "--kv-len", "16384", "--head-dim",
                              "128", "--format", "json"});
    ASSERT_TRUE(j2.is_object());
    EXPECT_EQ(num_u(j2, "flops"), 4ull * 32 * 16384 * 128);
}

// The fusion numbers, on one GPU that has a vector fp16 peak (h200: 133.8 TFLOP/s).
TEST(Acceptance, ElementwiseChainFusion) {
    const json j = run_json(
        {"elementwise", "--shape", "32,2048,4096", "--dtype", "fp16", "--chain", "3", "--gpu", "h200", "--format", "json"});
    ASSERT_TRUE(j.is_object());
    ASSERT_TRUE(j.contains("fused")) << j.dump(2);
    const json& f = j.at("fused");
    // one tensor = 32·2048·4096 = 268,435,456 elements · 2 B = 536,870,912 B
    const u64 one = 268435456ull * 2;
    // unfused chain of 3: reads (1 input + 2 intermediates) and writes (2 intermediates + 1 output) = 6 tensors
    EXPECT_EQ(num_u(j, "bytes"), 6 * one);  // 3,221,225,472
    EXPECT_EQ(num_u(j, "launches"), 3u);
    // fused: read 1 input, write 1 output = 2 tensors = 1,073,741,824
    EXPECT_EQ(num_u(f, "bytes"), 2 * one);
    // saved = 2·(3−1)·268,435,456·2 = 2,147,483,648
    EXPECT_EQ(num_u(f, "bytes_saved"), 2ull * (3 - 1) * 268435456ull * 2);
    EXPECT_EQ(num_u(f, "bytes_saved"), 2147483648ull);
    // launches saved = 3 − 1 = 2
    EXPECT_EQ(num_u(f, "launches_saved"), 2u);
}

// The same chain exactly as `bwacct elementwise --help` shows it (default --gpu h200,b200, default
// --unit vector): a user copying the example must get an answer.
TEST(Acceptance, ElementwiseChainHelpExampleRuns) {
    const RunResult r =
        run_bwacct({"elementwise", "--shape", "32,2048,4096", "--dtype", "fp16", "--chain", "3", "--format", "json"});
    ASSERT_TRUE(succeeded(r));
    const json j = parse_json(r.out, r.command);
    ASSERT_TRUE(j.is_object() && j.contains("fused"));
    // saved = 2·(3−1)·268,435,456·2 = 2,147,483,648; launches saved = 2
    EXPECT_EQ(num_u(j.at("fused"), "bytes_saved"), 2147483648ull);
    EXPECT_EQ(num_u(j.at("fused"), "launches_saved"), 2u);
}

// =============================================================================================
// B. Bad input: exit 2, exactly one line on stderr naming the option, nothing on stdout.

struct BadCase {
    std::string name;
    std::vector<std::string> args;       // "{TMP}" is replaced by the suite's temp directory
    std::vector<std::string> must_name;  // stderr must contain at least one of these
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << describe(c.args); }

class BadInput : public ::testing::TestWithParam<BadCase> {
protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir();
        // (a) malformed JSON: truncated object
        write_text(dir_->file("malformed.json"), "{\"schema\": \"bwacct.gpus/1\", \"gpus\": {\"x\": {\"name\": \n");
        // (d) a valid catalog whose only entry (a copy of the shipped h200) declares a sparse bf16 peak
        json entry = catalog().at("gpus").at("h200");
        entry["tensor_tflops"]["bf16"]["sparsity"] = "sparse";
        entry["tensor_tflops"]["bf16"]["value"] = 1978.8;
        const json doc{{"schema", catalog().at("schema")}, {"gpus", {{"sparse-h200", entry}}}};
        write_text(dir_->file("sparse.json"), doc.dump(2));
        // a directory, for (c)
        fs::create_directories(dir_->file("a-directory"));
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static TempDir* dir_;
};
TempDir* BadInput::dir_ = nullptr;

TEST_P(BadInput, Rejected) {
    const BadCase& c = GetParam();
    std::vector<std::string> args;
    for (std::string a : c.args) {
        const auto pos = a.find("{TMP}");
        if (pos != std::string::npos)
            a.replace(pos, 5, dir_->path());
        args.push_back(a);
    }
    const RunResult r = run_bwacct(args);
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.status, 2) << "bad input must exit 2";
    EXPECT_EQ(r.out, "") << "bad input must print nothing on stdout";
    // exactly one line: non-empty, one newline, at the end
    EXPECT_FALSE(r.err.empty());
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr must be exactly one line";
    EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n');
    bool named = false;
    for (const std::string& n : c.must_name)
        named = named || r.err.find(n) != std::string::npos;
    EXPECT_TRUE(named) << "stderr must name " << fmt::format("{}", fmt::join(c.must_name, " or "));
}

std::vector<std::string> gemm_with(std::initializer_list<std::string> more) {
    return with({"gemm", "--k", "5120", "--n", "5120"}, more);
}
const std::vector<std::string> kAttention{"attention", "--q-len", "2160", "--kv-len", "2160", "--head-dim", "128"};

const std::vector<BadCase> kBadCases{
    {"MZero", gemm_with({"--m", "0"}), {"--m"}},
    {"MNegative", gemm_with({"--m", "-5"}), {"--m"}},
    {"MNegativeEqualsForm", gemm_with({"--m=-5"}), {"--m"}},
    {"MNotANumber", gemm_with({"--m", "abc"}), {"--m"}},
    {"MRangeEndsAtZero", gemm_with({"--m", "1:0:x2"}), {"--m"}},
    {"MRangeFactorOne", gemm_with({"--m", "1:8:x1"}), {"--m"}},
    {"MFraction", gemm_with({"--m", "1.5"}), {"--m"}},
    {"DtypeUnknown", gemm_with({"--m", "2160", "--dtype", "fp7"}), {"--dtype"}},
    {"GpuUnknown", gemm_with({"--m", "2160", "--gpu", "nosuch"}), {"--gpu"}},
    {"GpuFileMalformedJson", gemm_with({"--m", "2160", "--gpu-file", "{TMP}/malformed.json"}), {"--gpu-file"}},
    {"GpuFileMissing", gemm_with({"--m", "2160", "--gpu-file", "{TMP}/no-such-file.json"}), {"--gpu-file"}},
    {"GpuFileIsADirectory", gemm_with({"--m", "2160", "--gpu-file", "{TMP}/a-directory"}), {"--gpu-file"}},
    {"GpuFileSparsePeak", gemm_with({"--m", "2160", "--gpu-file", "{TMP}/sparse.json"}), {"--gpu-file"}},
    {"GpuFileSparsePeakSelected",
     gemm_with({"--m", "2160", "--gpu-file", "{TMP}/sparse.json", "--gpu", "sparse-h200"}),
     {"--gpu-file"}},
    {"GpusCommandGpuFileMalformed", {"gpus", "--gpu-file", "{TMP}/malformed.json"}, {"--gpu-file"}},
    {"FormatXml", gemm_with({"--m", "2160", "--format", "xml"}), {"--format"}},
    {"TimeZero", gemm_with({"--m", "2160", "--time-us", "0"}), {"--time-us"}},
    {"TimeNan", gemm_with({"--m", "2160", "--time-us", "nan"}), {"--time-us"}},
    // 2·2^32·2^32·2^32 = 2^97 FLOPs > 2^64 − 1
    {"FlopsOverflow64", {"gemm", "--m", "4294967296", "--n", "4294967296", "--k", "4294967296"}, {"--m"}},
    // the sweep: note that its first point already overflows (2·1·2^32·2^32 = 2^65 FLOPs);
    // BadInputSweep.OnlyLaterPointOverflows has a sweep whose first point is valid
    {"SweepPointOverflows", {"gemm", "--m", "1,4294967296", "--n", "4294967296", "--k", "4294967296"}, {"--m"}},
    {"AttentionKvHeadsMustDivide", with(kAttention, {"--heads", "40", "--kv-heads", "7"}), {"--kv-heads"}},
    {"AttentionCausalQLongerThanKv",
     {"attention", "--causal", "--heads", "40", "--kv-heads", "8", "--q-len", "4096", "--kv-len", "2048", "--head-dim", "128"},
     {"--q-len", "--kv-len", "--causal"}},
    {"AllreduceOneRank", {"allreduce", "--shape", "1,2160,5120", "--ranks", "1"}, {"--ranks"}},
    // 1001 B is not a multiple of 8 ranks (1001 = 8·125 + 1) — and not a whole number of bf16 elements either
    {"AllgatherBytesNotDivisible", {"allgather", "--bytes", "1001", "--ranks", "8"}, {"--bytes"}},
    // int8: 1001 whole elements, so only the rank divisibility (1001 % 8 = 1) is wrong
    {"AllgatherInt8BytesNotDivisible", {"allgather", "--bytes", "1001", "--dtype", "int8", "--ranks", "8"}, {"--bytes"}},
    {"AllreduceNvlsOnL4",
     {"allreduce", "--algo", "nvls", "--gpu", "l4", "--shape", "1,2160,5120", "--ranks", "2"},
     {"--algo", "--gpu"}},
    {"UnknownOption", gemm_with({"--m", "2160", "--nosuch"}), {"--nosuch"}},
    {"MissingRequiredM", gemm_with({}), {"--m"}},
    {"ElementwiseWithoutShape", {"elementwise", "--dtype", "fp16"}, {"--shape"}},
    {"ElementwiseZeroDimension", {"elementwise", "--shape", "32,0,4"}, {"--shape"}},
    {"GpuUnknownId", {"gpu", "nosuch"}, {"nosuch"}},
};

INSTANTIATE_TEST_SUITE_P(Cases, BadInput, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& param_info) { return param_info.param.name; });

// Control for the sparse-peak case: the same file with "sparsity": "dense" is accepted, so the
// refusal above is due to the sparsity alone.
TEST(BadInputControl, DenseGpuFileIsAccepted) {
    TempDir dir;
    json entry = catalog().at("gpus").at("h200");
    ASSERT_EQ(entry.at("tensor_tflops").at("bf16").value("sparsity", ""), "dense");
    const json doc{{"schema", catalog().at("schema")}, {"gpus", {{"copy-h200", entry}}}};
    write_text(dir.file("dense.json"), doc.dump(2));
    const json j = run_json(with(kGemmSeed, {"--gpu-file", dir.file("dense.json"), "--gpu", "copy-h200", "--format", "json"}));
    ASSERT_TRUE(j.is_object());
    const json* g = gpu_entry(j, "copy-h200");
    ASSERT_NE(g, nullptr);
    // compute roof = 113,246,208,000 / 989.4e12 s = 114.4595 µs
    expect_rel(num_d(g->at("roofs_us"), "compute"), 113246208000.0 / 989.4e12 * 1e6, 1e-9, "roofs_us.compute");
}

// A sweep whose first point is valid and whose last overflows must fail before printing anything,
// even in a streaming format.
TEST(BadInputSweep, OnlyLaterPointOverflows) {
    // m = 1: FLOPs 2·1·2^32·1024 = 2^43; bytes A 1·1024·2, B 1024·2^32·2 = 2^43, C 1·2^32·2 = 2^33: all fit
    const RunResult ok = run_bwacct({"gemm", "--m", "1", "--n", "4294967296", "--k", "1024", "--format", "jsonl"});
    ASSERT_TRUE(succeeded(ok));
    EXPECT_EQ(num_u(parse_json(ok.out, ok.command), "flops"), 2ull * 1 * 4294967296ull * 1024);
    // m = 2^32: FLOPs 2·2^32·2^32·2^10 = 2^75 > 2^64 − 1
    for (const char* format : {"jsonl", "json", "csv", "table"}) {
        const RunResult r = run_bwacct({"gemm", "--m", "1,4294967296", "--n", "4294967296", "--k", "1024", "--format", format});
        SCOPED_TRACE(report(r));
        EXPECT_EQ(r.status, 2);
        EXPECT_EQ(r.out, "") << "nothing on stdout, not even the valid first point";
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
        EXPECT_NE(r.err.find("--m"), std::string::npos);
    }
}

// =============================================================================================
// C. Output hygiene.

struct JsonRun {
    std::vector<std::string> args;
    bool lines;  // jsonl
};

const std::vector<JsonRun> kAcceptanceJsonRuns{
    {with(kGemmSeed, {"--format", "json"}), false},
    {with(kGemmSeed, {"--format", "json", "--explain"}), false},
    {with(kGemmSeed, {"--time-us", "140", "--format", "json"}), false},
    {{"elementwise", "--shape", "32,2048,4096", "--dtype", "fp16", "--flops-per-elem", "10", "--unit", "tensor", "--gpu",
      "h100-sxm", "--format", "json"},
     false},
    {{"allreduce", "--shape", "1,2160,5120", "--dtype", "bf16", "--ranks", "2", "--time-us", "113", "--format", "json"}, false},
    {{"allreduce", "--shape", "1,2160,5120", "--dtype", "bf16", "--ranks", "2", "--format", "json"}, false},
    {{"gemm", "--m", "1024:16384:x2", "--k", "5120", "--n", "5120", "--format", "jsonl"}, true},
    {{"gemm", "--m", "1024:16384:x2", "--k", "5120", "--n", "5120", "--format", "json"}, false},
    {{"attention", "--batch", "1", "--heads", "40", "--kv-heads", "8", "--q-len", "2160", "--kv-len", "2160", "--head-dim", "128",
      "--causal", "--impl", "flash", "--format", "json"},
     false},
    {{"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "1", "--kv-len", "8192", "--head-dim", "128", "--format",
      "json"},
     false},
    {{"elementwise", "--shape", "32,2048,4096", "--dtype", "fp16", "--chain", "3", "--gpu", "h200", "--format", "json"}, false},
    {{"gpus", "--format", "json"}, false},
    {{"gpu", "h200", "--format", "json"}, false},
};

TEST(Hygiene, AcceptanceJsonHasNoNanOrInf) {
    for (const JsonRun& run : kAcceptanceJsonRuns) {
        const RunResult r = run_bwacct(run.args);
        SCOPED_TRACE(r.command);
        ASSERT_TRUE(succeeded(r));
        if (run.lines) {
            for (const std::string& line : lines_of(r.out))
                (void)parse_json(line, r.command);
        } else {
            (void)parse_json(r.out, r.command);
        }
    }
}

TEST(Hygiene, TableHasNoEscapesWhenStdoutIsNotATerminal) {
    for (const std::vector<std::string>& args :
         {kGemmSeed, with(kGemmSeed, {"--time-us", "140", "--explain"}),
          std::vector<std::string>{"gemm", "--m", "1024:16384:x2", "--k", "5120", "--n", "5120"},
          std::vector<std::string>{"gpus"}, std::vector<std::string>{"gpu", "h200"}}) {
        const RunResult r = run_bwacct(args);
        SCOPED_TRACE(r.command);
        ASSERT_TRUE(succeeded(r));
        EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "ANSI escape in output that is not a terminal";
    }
}

// The seed GEMM with stdout on a pseudo-terminal, NO_COLOR set or unset. Returns false (and the test
// is skipped) where no pseudo-terminal can be had.
bool run_on_terminal(bool no_color, RunResult& r) {
    RunOptions opt;
    opt.stdout_tty = true;
    opt.env["TERM"] = std::string("xterm");  // a terminal that shows colour (TERM unset or dumb: none)
    if (no_color)
        opt.env["NO_COLOR"] = std::string("1");  // (a std::string: GCC 12 warns falsely on a char array)
    else
        opt.env["NO_COLOR"] = std::nullopt;
    try {
        r = run_bwacct(kGemmSeed, opt);
    } catch (const std::exception&) {
        return false;
    }
    return true;
}

// On a terminal, NO_COLOR turns colour off.
TEST(Hygiene, NoColorOnATerminal) {
    RunResult r;
    if (!run_on_terminal(true, r))
        GTEST_SKIP() << "no pseudo-terminal";
    ASSERT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("gemm"), std::string::npos) << report(r);
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "NO_COLOR set, yet ANSI escapes on the terminal";
}

// Control for the test above: without NO_COLOR the same run on a terminal is coloured, so the
// absence of escapes with NO_COLOR is due to NO_COLOR.
TEST(Hygiene, ColourOnATerminalWithoutNoColor) {
    RunResult r;
    if (!run_on_terminal(false, r))
        GTEST_SKIP() << "no pseudo-terminal";
    ASSERT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find('\x1b'), std::string::npos) << report(r);
}

TEST(Hygiene, VersionExitsZero) {
    const RunResult r = run_bwacct({"--version"});
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("bwacct"), std::string::npos) << report(r);
    EXPECT_EQ(r.err, "");
}

TEST(Hygiene, GemmHelpHasExample) {
    const RunResult r = run_bwacct({"gemm", "--help"});
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("Example"), std::string::npos) << report(r);
    EXPECT_NE(r.out.find("--m"), std::string::npos) << report(r);
    EXPECT_EQ(r.err, "");
}

}  // namespace
