// AMD rocprof's kernel statistics CSV read by `bwacct ingest nsys` (src/ingest/rocprof_stats.cpp), and the warning for a
// kernel table whose own time % adds up to less than 100 (part of the kernels). Expected numbers by hand.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"
#include "bwacct/kernel_category.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

std::string refusal(const std::string& text) {
    try {
        parse_nsys_kern_sum(text, "stats.csv");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

bool warns(const NsysKernSum& s, const std::string& what) {
    for (const std::string& w : s.warnings)
        if (w.find(what) != std::string::npos)
            return true;
    return false;
}

// Old code: "no kernel summary table found".
TEST(RocprofStats, Rocprofv3KernelStats) {
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("corpus/nsys/rocprofv3_kernel_stats_csv_resnet_mpi_rccl_head_excerpt.md"), "k.md");
    EXPECT_TRUE(s.from_rocprof);
    EXPECT_NE(s.format.find("rocprof kernel statistics CSV (AMD ROCm"), std::string::npos) << s.format;
    ASSERT_EQ(s.kernels.size(), 9u);
    const NsysKernel& r = s.kernels[0];
    EXPECT_EQ(r.name, "rccl_main_kernel(ncclDevComm*, unsigned long, ncclWork*)");
    EXPECT_EQ(r.category, KernelCategory::collective);
    EXPECT_EQ(r.instances, 142u);
    EXPECT_DOUBLE_EQ(r.total_us, 916515.855);      // 916,515,855 ns
    EXPECT_DOUBLE_EQ(*r.avg_us, 6454.337007);      // 6454337.007042 ns, to 10^-6 us
    EXPECT_DOUBLE_EQ(*r.min_us, 7.21);             // 7210 ns
    EXPECT_DOUBLE_EQ(*r.max_us, 382428.559);       // 382428559 ns
    EXPECT_DOUBLE_EQ(*r.stddev_us, 32102.362228);  // 32102362.228032 ns
    EXPECT_DOUBLE_EQ(*r.time_pct, 82.74);
    // The quoted name with commas stays whole.
    EXPECT_EQ(s.kernels[3].name.rfind("void at::native::vectorized_elementwise_kernel<4, ", 0), 0u);
    // `head` kept 9 kernels: 82.74 + 1.44 + 1.16 + 0.9145 + 0.8568 + 0.8192 + 0.8034 + 0.7182 + 0.6013 = 90.0534 %.
    EXPECT_TRUE(warns(s, "adds up to 90.1 % over its 9 kernel rows")) << (s.warnings.empty() ? "" : s.warnings[0]);
}

TEST(RocprofStats, RocprofV1WithoutMinMax) {
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("corpus/nsys/rocprof_v1_results_stats_csv_one_kernel_clone_kd_excerpt.md"), "s.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "copy_kernel(float*, float*, int, int) [clone .kd]");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 165.92);  // 165920 ns
    EXPECT_FALSE(s.kernels[0].min_us.has_value());    // v1 prints no MinNs: n/a, not 0
    EXPECT_TRUE(s.warnings.empty());                  // 100.0 %: the whole run
}

TEST(RocprofStats, ApiAndDomainStatisticsAreNotKernels) {
    const std::string hip = refusal(fixture("corpus/nsys/rocprof_v1_hip_stats_csv_api_calls_not_kernels_excerpt.md"));
    EXPECT_NE(hip.find("are HIP/HSA API calls ('hipMemcpy', ...: rocprof's hip_stats or hsa_stats file), not kernels"),
              std::string::npos)
        << hip;
    // rocprofv3's domain_stats.csv: domains in capitals.
    const std::string domain = refusal(
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"StdDev\"\n"
        "\"KERNEL_DISPATCH\",10,1000,100.0,60.0,90,110,5.0\n"
        "\"MEMORY_COPY\",2,600,300.0,40.0,200,400,141.4\n");
    EXPECT_NE(domain.find("per domain or memory copy ('KERNEL_DISPATCH', ..."), std::string::npos) << domain;
}

// nsys's own Time (%) too: a complete table adds up to 100 within its rounding (0.5 + 0.05 per row); less means
// rows are missing.
TEST(RocprofStats, OwnPercentagesShowAPartialTable) {
    const std::string part =
        "Time (%),Total Time (ns),Instances,Name\n"
        "60.0,6000,3,gemm_a\n"
        "30.0,3000,1,softmax_b\n";  // 90.0 < 100 - 0.5 - 0.1 = 99.4
    EXPECT_TRUE(warns(parse_nsys_kern_sum(part, "p.csv"), "adds up to 90.0 % over its 2 kernel rows"));
    const std::string whole =
        "Time (%),Total Time (ns),Instances,Name\n"
        "66.7,6000,3,gemm_a\n"
        "32.8,3000,1,softmax_b\n";  // 99.5 >= 99.4: rounding, not missing rows
    EXPECT_TRUE(parse_nsys_kern_sum(whole, "w.csv").warnings.empty());
}

}  // namespace
