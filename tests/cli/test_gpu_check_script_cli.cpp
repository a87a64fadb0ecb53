// scripts/gpu_check_report.py, the checks of scripts/gpu-check.sh, run on the outputs of the simulated
// H200 (real bwacct JSON) and on copies edited into what a GPU the catalog does not know would give
// (issue 15 item 1: a check that cannot be made used to be skipped, and the run still passed).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

std::string script() {
    return (fs::path(BWACCT_TEST_DATA).parent_path().parent_path() / "scripts" / "gpu_check_report.py").string();
}

// The runs gpu-check.sh makes that the checks read, on the simulated H200, into `dir`.
void simulate_runs(const TempDir& dir) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
        {"device", {"device"}},
        {"hbm", {"hbm", "--size", "256M", "--max-samples", "3"}},
        {"gemm_seed", {"gemm", "--m", "2160", "--k", "5120", "--n", "5120", "--measure", "--max-samples", "3"}},
        {"rmsnorm", {"rmsnorm", "--shape", "8,2048,4096", "--measure", "--max-samples", "3"}},
    };
    for (const auto& [name, args] : runs) {
        const RunResult r = run_bwacct(with(args, {"--format", "json"}), sim(dir));
        ASSERT_TRUE(succeeded(r)) << report(r);
        write_text(dir.file(name + ".json"), r.out);
    }
}

RunResult check(const TempDir& dir) { return run_program({"python3", script(), dir.path(), "clean", dir.file("report.json")}); }

void edit(const TempDir& dir, const std::string& name, const std::function<void(json&)>& change) {
    json doc = parse_json(read_text(dir.file(name + ".json")), name);
    change(doc);
    write_text(dir.file(name + ".json"), doc.dump());
}

TEST(GpuCheckScript, PassesOnAKnownGpu) {
    if (find_on_path("python3").empty())
        GTEST_SKIP() << "python3 not installed";
    TempDir dir;
    simulate_runs(dir);
    const RunResult r = check(dir);
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("ok    gemm_seed at or below the catalog peak"), std::string::npos) << r.out;
    const json rep = parse_json(read_text(dir.file("report.json")), "report");
    EXPECT_EQ(rep["schema"], "bwacct.gpu-check/1");
}

// A device that matches no catalog entry: its GEMM and bandwidth figures have no peak to be checked
// against, and the run must fail saying so (it used to pass with the checks skipped).
TEST(GpuCheckScript, AnUnknownGpuFailsInsteadOfSkippingTheChecks) {
    if (find_on_path("python3").empty())
        GTEST_SKIP() << "python3 not installed";
    TempDir dir;
    simulate_runs(dir);
    for (const char* name : {"gemm_seed", "rmsnorm"})
        edit(dir, name, [](json& d) { d["measurement"]["device"]["catalog_match"] = ""; });
    const RunResult r = check(dir);
    EXPECT_EQ(r.status, 1) << report(r);
    EXPECT_NE(r.out.find("FAIL  gemm_seed bounded by a catalog peak"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("FAIL  rmsnorm bounded by a catalog peak"), std::string::npos) << r.out;
}

// A catalog match without a row for it in the record (the record was made for other --gpu ids).
TEST(GpuCheckScript, AMatchWithoutItsRowFails) {
    if (find_on_path("python3").empty())
        GTEST_SKIP() << "python3 not installed";
    TempDir dir;
    simulate_runs(dir);
    edit(dir, "gemm_seed", [](json& d) { d["measurement"]["device"]["catalog_match"] = "a100-sxm-40gb"; });
    const RunResult r = check(dir);
    EXPECT_EQ(r.status, 1) << report(r);
    EXPECT_NE(r.out.find("no row for the matched catalog entry 'a100-sxm-40gb'"), std::string::npos) << r.out;
}

// A derived HBM peak of 0 (no bus width or memory clock from the driver) bounds nothing: a failure,
// not a division by zero.
TEST(GpuCheckScript, ADerivedPeakOfZeroFails) {
    if (find_on_path("python3").empty())
        GTEST_SKIP() << "python3 not installed";
    TempDir dir;
    simulate_runs(dir);
    edit(dir, "hbm", [](json& d) { d["device"]["derived_hbm_GBps"] = 0; });
    const RunResult r = check(dir);
    EXPECT_EQ(r.status, 1) << report(r);
    EXPECT_NE(r.out.find("FAIL  hbm derived peak"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("ZeroDivisionError"), std::string::npos) << r.err;
}

// A run that failed is a failed check in the report, not only in the script's exit status: the first
// H100 run (2026-11-25) wrote a report of passing checks while `gemm --dtype fp8` had exited 1.
TEST(GpuCheckScript, AFailedRunIsAFailedCheck) {
    if (find_on_path("python3").empty())
        GTEST_SKIP() << "python3 not installed";
    TempDir dir;
    simulate_runs(dir);
    write_text(dir.file("gemm_fp8.json"), "");
    write_text(dir.file("gemm_fp8.err"), "bwacct gemm: no cuBLASLt algorithm ran for the fp8 GEMM\n");
    write_text(dir.file("gemm_seed.err"), "");  // a run that succeeded leaves an empty .err: no check
    const RunResult r = check(dir);
    EXPECT_EQ(r.status, 1) << report(r);
    EXPECT_NE(r.out.find("FAIL  gemm_fp8 ran: bwacct gemm: no cuBLASLt algorithm ran"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("gemm_seed ran"), std::string::npos) << r.out;
    const json rep = parse_json(read_text(dir.file("report.json")), "report");
    bool listed = false;
    for (const json& c : rep["checks"])
        listed = listed || (c["check"] == "gemm_fp8 ran" && c["passed"] == false);
    EXPECT_TRUE(listed) << rep.dump();
}

// gpu-check.sh builds for this machine's own GPU, not only sm_90/sm_100 (issue 15 item 2).
TEST(GpuCheckScript, BuildsForTheMachinesOwnGpu) {
    const std::string sh =
        read_text((fs::path(BWACCT_TEST_DATA).parent_path().parent_path() / "scripts" / "gpu-check.sh").string());
    EXPECT_NE(sh.find("-DCMAKE_CUDA_ARCHITECTURES=\"${BWACCT_GPU_ARCHS:-native}\""), std::string::npos);
}

}  // namespace
