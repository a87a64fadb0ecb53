// `--gpu all` over a catalog where some GPUs lack a tensor path for the op's dtype (V100 and T4 have no
// BF16, the A100s no FP8): "all" is every GPU that has the peak the op needs. Before, the first GPU
// without it stopped the run (exit 2), so `bwacct gemm --gpu all` failed for the default bf16 once the
// catalog held a V100, and `--dtype fp8 --gpu all` always failed on the A100s.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "harness.h"

using namespace bwacct_test;

namespace {

std::set<std::string> gpus_of(const json& j) {
    std::set<std::string> out;
    for (const json& g : j.at("gpus"))
        out.insert(g.at("gpu").get<std::string>());
    return out;
}

// Exit 2, nothing on stdout, one line on stderr holding `what`.
void expect_bad_input(const std::vector<std::string>& args, const std::string& what) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find(what), std::string::npos) << report(r);
}

}  // namespace

TEST(GpuAll, Bf16CoversEveryGpuWithABf16PeakAndSkipsTheOthers) {
    const json j = run_json({"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--gpu", "all", "--format", "json"});
    const std::set<std::string> ids = gpus_of(j);
    for (const char* id : {"h100-sxm", "a100-sxm-80gb", "a100-pcie-40gb", "rtx-3090", "mi100", "mi250"})
        EXPECT_TRUE(ids.count(id) > 0) << id;
    for (const char* id : {"v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-16gb", "v100-pcie-32gb", "t4"})
        EXPECT_EQ(ids.count(id), 0u) << id;  // no BF16 tensor path (Volta, Turing)
}

TEST(GpuAll, Fp8LeavesOutTheGpusWithoutAnFp8Path) {
    const json j =
        run_json({"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--dtype", "fp8", "--gpu", "all", "--format", "json"});
    const std::set<std::string> ids = gpus_of(j);
    EXPECT_TRUE(ids.count("h100-sxm") > 0);
    EXPECT_TRUE(ids.count("rtx-6000-ada") > 0);
    for (const char* id : {"a100-sxm-80gb", "a100-sxm-40gb", "a30", "mi250x", "v100-sxm2-32gb"})
        EXPECT_EQ(ids.count(id), 0u) << id;
}

TEST(GpuAll, ANamedGpuWithoutThePeakIsStillRefused) {
    expect_bad_input({"gemm", "--m", "64", "--n", "64", "--k", "64", "--gpu", "t4"}, "--gpu: t4 has no dense tensor bf16 peak");
    expect_bad_input({"gemm", "--m", "64", "--n", "64", "--k", "64", "--dtype", "fp8", "--gpu", "a100-sxm-80gb"},
                     "--gpu: a100-sxm-80gb has no dense tensor fp8 peak");
}

// The same for `bwacct layer` / `bwacct model`: --gpu all stopped at the first GPU without a bf16 tensor peak.
TEST(GpuAll, LayerCoversEveryGpuWithThePeak) {
    const RunResult r = run_bwacct({"layer", "--preset", "llama3-8b", "--phase", "decode", "--batch", "8", "--context", "4096",
                                    "--tp", "1", "--gpu", "all"});
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("h100-sxm"), std::string::npos) << report(r);
    EXPECT_EQ(r.out.find("v100-sxm2-16gb"), std::string::npos) << report(r);
    expect_bad_input(
        {"layer", "--preset", "llama3-8b", "--phase", "decode", "--batch", "8", "--context", "4096", "--tp", "1", "--gpu", "t4"},
        "--gpu: t4 has no dense tensor bf16 peak");
}
