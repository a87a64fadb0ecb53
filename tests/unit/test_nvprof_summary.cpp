// nvprof's summary mode read by `bwacct ingest nsys` (src/ingest/nvprof_summary.cpp): the console table with and
// without its Type column, the --csv form with its units row, and the refusals. Expected numbers by hand from
// the printed cells; the arithmetic is in the comments.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

std::string refusal(const std::string& text) { return bwacct_test::nsys_refusal(text, "nvprof.log"); }

// Old code: "no kernel summary table found" for every nvprof summary.
TEST(NvprofSummary, TypedConsoleReadsGpuActivitiesOnly) {
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("corpus/nsys/nvprof_summary_typed_t600_reduce_memcpy_memset_api_readme_excerpt.md"), "r.md");
    EXPECT_TRUE(s.from_nvprof);
    EXPECT_FALSE(s.from_trace);
    ASSERT_EQ(s.kernels.size(), 1u);  // HtoD, DtoH and memset rows are memory operations; API rows are not GPU work
    const NsysKernel& k = s.kernels[0];
    EXPECT_EQ(k.name, "reduceNeighbored(int*, int*, unsigned int)");
    EXPECT_EQ(k.instances, 14u);
    EXPECT_DOUBLE_EQ(k.total_us, 4206.0);  // 4.2060ms
    EXPECT_DOUBLE_EQ(*k.avg_us, 300.43);   // 300.43us
    EXPECT_DOUBLE_EQ(*k.min_us, 4.544);    // 4.5440us
    EXPECT_DOUBLE_EQ(*k.max_us, 1385.1);   // 1.3851ms
    EXPECT_DOUBLE_EQ(*k.time_pct, 32.67);  // nvprof's own share of all GPU activities
    EXPECT_FALSE(k.med_us.has_value());    // nvprof prints no median
    EXPECT_TRUE(s.other_tables.empty());
    ASSERT_EQ(s.warnings.size(), 1u);
    // 8.6348ms + 19.487us + 12.640us = 8634.8 + 19.487 + 12.640 = 8666.927 us, printed to 0.1.
    EXPECT_NE(s.warnings[0].find("3 memory operation rows"), std::string::npos) << s.warnings[0];
    EXPECT_NE(s.warnings[0].find("8666.9 us"), std::string::npos) << s.warnings[0];
}

// Before CUDA 9: no Type column, the API table under its own header after "==PID== API calls:"; and an "NVTX
// result:" block's table (the same kernel inside a range): neither is a second run's kernel table.
TEST(NvprofSummary, ApiAndNvtxTablesAreNotFurtherRuns) {
    const NsysKernSum old = parse_nsys_kern_sum(
        fixture("corpus/nsys/nvprof_pre_cuda9_summary_untyped_api_block_gtx1070_opencv_affine.profile"), "a.profile");
    ASSERT_EQ(old.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(old.kernels[0].total_us, 11.936);
    EXPECT_EQ(old.kernels[0].instances, 1u);
    EXPECT_DOUBLE_EQ(*old.kernels[0].time_pct, 6.82);
    EXPECT_TRUE(old.other_tables.empty());
    ASSERT_EQ(old.warnings.size(), 1u);
    EXPECT_NE(old.warnings[0].find("163.2 us"), std::string::npos) << old.warnings[0];  // 90.848 + 72.320 = 163.168

    const NsysKernSum nvtx =
        parse_nsys_kern_sum(fixture("corpus/nsys/nvprof_summary_typed_nvtx_result_block_kernel_only_docker_readme.md"), "n.md");
    ASSERT_EQ(nvtx.kernels.size(), 1u);
    EXPECT_EQ(nvtx.kernels[0].name, "kernel(float*, unsigned long)");
    EXPECT_DOUBLE_EQ(nvtx.kernels[0].total_us, 69832.0);  // 69.832ms
    EXPECT_DOUBLE_EQ(*nvtx.kernels[0].min_us, 34910.0);   // 34.910ms
    EXPECT_TRUE(nvtx.other_tables.empty());
    EXPECT_TRUE(nvtx.warnings.empty());
}

// Two profiled programs pasted one after the other: the first is read, the second named.
TEST(NvprofSummary, ASecondProfilingResultIsAnotherRun) {
    const std::string two =
        "==1== Profiling result:\n"
        "Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        "100.00%  2.0000ms         4  500.00us  400.00us  600.00us  k1(int)\n"
        "\n"
        "==2== Profiling result:\n"
        "Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        "100.00%  1.0000s          1  1.0000s   1.0000s   1.0000s   k2(int)\n";
    const NsysKernSum s = parse_nsys_kern_sum(two, "two.log");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 2000.0);  // 2.0000ms
    ASSERT_EQ(s.other_tables.size(), 1u);
    EXPECT_EQ(s.other_tables[0], 6u);
}

// --csv: a units row under the header, bare numbers in those units; "API calls" rows skipped. The layout is the
// one nvprof documents and tools parse (`nvprof --print-gpu-summary --csv`): "Type","Time(%)",..., then
// ",%,us,,us,us,us,".
TEST(NvprofSummary, CsvWithAUnitsRow) {
    const std::string csv =
        "==27436== Profiling result:\n"
        "\"Type\",\"Time(%)\",\"Time\",\"Calls\",\"Avg\",\"Min\",\"Max\",\"Name\"\n"
        ",%,ms,,us,us,ms,\n"
        "\"GPU activities\",60.0,1.5,3,500.0,400.0,0.6,\"void gemm<float, 2>(float*)\"\n"
        "\"GPU activities\",40.0,1.0,2,500.0,499.0,0.501,\"[CUDA memcpy HtoD]\"\n"
        "\"API calls\",99.0,300.0,1,300000.0,300000.0,300.0,\"cudaMalloc\"\n";
    const NsysKernSum s = parse_nsys_kern_sum(csv, "p.csv");
    EXPECT_EQ(s.format, "nvprof summary (--csv; GPU activities read)");
    ASSERT_EQ(s.kernels.size(), 1u);
    const NsysKernel& k = s.kernels[0];
    EXPECT_EQ(k.name, "void gemm<float, 2>(float*)");  // the comma inside quotes stays in the name
    EXPECT_DOUBLE_EQ(k.total_us, 1500.0);              // 1.5 ms
    EXPECT_DOUBLE_EQ(*k.avg_us, 500.0);                // us column
    EXPECT_DOUBLE_EQ(*k.max_us, 600.0);                // 0.6 ms
    EXPECT_EQ(k.instances, 3u);
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("1 memory operation row "), std::string::npos) << s.warnings[0];
    EXPECT_NE(s.warnings[0].find("1000.0 us"), std::string::npos) << s.warnings[0];  // 1.0 ms
}

TEST(NvprofSummary, Refusals) {
    // Only a memory operation under GPU activities.
    const std::string copy_only = refusal(fixture("corpus/nsys/nvprof_pre_cuda9_summary_memcpy_htoh_only_no_kernel.profile"));
    EXPECT_NE(copy_only.find("holds no kernel (1 memory operation row only)"), std::string::npos) << copy_only;
    // nvprof's own words for a run without kernels, quoted.
    const std::string none = refusal(fixture("corpus/nsys/nvprof_no_kernels_were_profiled.profile"));
    EXPECT_NE(none.find("nvprof profiled no kernel ('No kernels were profiled.')"), std::string::npos) << none;
    // A time without its unit in the console form is not guessed.
    const std::string bare = refusal(
        "Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        "100.00%    2.0000         4  500.00us  400.00us  600.00us  k1(int)\n");
    EXPECT_NE(bare.find("line 2: '2.0000' is not a time with its unit"), std::string::npos) << bare;
    // API calls only (`nvprof --print-api-summary --csv`, the layout quoted in a public parser's docstring).
    const std::string api = refusal(
        "======== Profiling result:\n"
        "\"Type\",\"Time(%)\",\"Time\",\"Calls\",\"Avg\",\"Min\",\"Max\",\"Name\"\n"
        ",%,us,,us,us,us,\n"
        "\"API calls\",78.020031,7570567.921000,11,688233.447000,684120.984000,693194.046000,\"cudaMemcpyAsync\"\n"
        "\"API calls\",3.686877,357751.097000,4,89437.774000,0.541000,357741.117000,\"cudaFree\"\n");
    EXPECT_NE(api.find("holds 2 API call rows and no GPU activities"), std::string::npos) << api;
    // A row cut short.
    const std::string cut = refusal(
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        " GPU activities:  100.00%  2.0000ms         4  500.00us\n");
    EXPECT_NE(cut.find("line 2: 5 cells where the header has 8"), std::string::npos) << cut;
}

// CUDA's own `nvprof --print-gpu-trace`: no dashed rule, cells right-aligned to their titles, times with units, the
// correlation id after each kernel name. Old code: "no kernel summary table found".
TEST(NvprofSummary, PrintGpuTraceWithoutARule) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nvprof_print_gpu_trace_cuda9_gt650m_vectoradd_two_runs_no_rule_readme.md"), "t.md");
    EXPECT_TRUE(s.from_trace);
    EXPECT_EQ(s.profiler, "nvprof");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "vectorAdd(float const *, float const *, float*, int)");  // " [112]" cut off
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 3407.2);                                       // 3.4072ms
    ASSERT_EQ(s.other_tables.size(), 1u);                                                  // the second program's trace
    EXPECT_EQ(s.other_tables[0], 47u);
    bool copies = false;  // 6.4049ms + 6.3746ms + 14.872ms = 27651.5 us
    for (const std::string& w : s.warnings)
        copies = copies || w.find("3 memory operation rows ([CUDA memcpy ...] or [CUDA memset], 27651.5 us") != std::string::npos;
    EXPECT_TRUE(copies);
    // The copies with their bytes: nvprof's sizes are binary, 38.147MB = 38.147 x 2^20 = 40,000,028.672 B (the program
    // copies 10^7 floats, 4 x 10^7 B, to the printed digits); two HtoD copies 80,000,057.344 B in 6.4049 + 6.3746 =
    // 12.7795 ms: 6.26 GB/s (nvprof's own Throughput, 5.8163 and 5.8440, is in GiB/s: 5.8163 x 1.073741824 = 6.245).
    ASSERT_EQ(s.memory_ops.size(), 2u);
    EXPECT_EQ(s.memory_ops[0].operation, "[CUDA memcpy HtoD]");
    EXPECT_EQ(s.memory_ops[0].count, 2u);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 12779.5);
    ASSERT_TRUE(s.memory_ops[0].bytes.has_value());
    EXPECT_NEAR(*s.memory_ops[0].bytes, 80000057.344, 1e-3);
    EXPECT_NEAR(*s.memory_ops[1].bytes, 40000028.672, 1e-3);  // the DtoH copy

    // nsys's trace prints its copy's size as 0.000 MB: below the column's precision, so no bytes (never 0 GB/s).
    const NsysKernSum n = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys_nvprof_print_gpu_trace_console_rtx3060_concurrent_kernels_readme.md"), "n.md");
    ASSERT_EQ(n.memory_ops.size(), 1u);
    EXPECT_DOUBLE_EQ(n.memory_ops[0].total_us, 1.408);  // 1,408 ns
    EXPECT_FALSE(n.memory_ops[0].bytes.has_value());

    // A summary whose GPU activities are copies only, then the trace of the same program: the trace's kernels are
    // read (the two repeated launches of one kernel under two correlation ids are one kernel).
    const std::string both =
        "==1== Profiling result:\n"
        "            Type  Time(%)      Time     Calls       Avg       Min       Max  Name\n"
        " GPU activities:   49.13%  169.63us         1  169.63us  169.63us  169.63us  [CUDA memcpy HtoD]\n"
        "\n"
        "==2== Profiling result:\n"
        "   Start  Duration            Grid Size      Block Size     Regs*  Name\n"
        "347.74ms  169.24us                    -               -         -  [CUDA memcpy HtoD]\n"
        "347.92ms  17.506us            (128 1 1)       (256 1 1)        10  sum_reduction(int*, int*) [114]\n"
        "347.94ms  2.7840us              (1 1 1)       (256 1 1)        10  sum_reduction(int*, int*) [115]\n";
    const NsysKernSum t = parse_nsys_kern_sum(both, "both.log");
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].instances, 2u);
    EXPECT_DOUBLE_EQ(t.kernels[0].total_us, 20.29);  // 17.506 + 2.784 us
}

// `nvprof --print-gpu-trace --csv`: a units row under the header, the name before Correlation_ID. The header, units
// row and the two copy rows are nvprof's (an RTX 2080 Ti output quoted in a public trace reader's comments); the two
// kernel rows are made up in its layout. Old code: "no kernel summary table found".
TEST(NvprofSummary, PrintGpuTraceCsvWithAUnitsRow) {
    const std::string csv =
        "======== Profiling result:\n"
        "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\",\"Registers Per "
        "Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"SrcMemType\",\"DstMemType\",\"Device\",\"Context\","
        "\"Stream\",\"Name\",\"Correlation_ID\"\n"
        "us,us,,,,,,,,KB,KB,KB,GB/s,,,,,,,\n"
        "0.000000,1.888000,,,,,,,,,,1.003906,0.507097,\"Device\",,\"GeForce RTX 2080 Ti (0)\",\"1\",\"7\",\"[CUDA "
        "memset]\",272\n"
        "4643.346000,1.536000,,,,,,,,,,0.125000,0.077610,\"Pinned\",\"Device\",\"GeForce RTX 2080 Ti (0)\",\"1\",\"22\",\"[CUDA "
        "memcpy HtoD]\",316\n"
        "4650.000000,10.500000,80,1,1,128,1,1,32,0.000000,0.000000,,,,,\"GeForce RTX 2080 Ti (0)\",\"1\",\"22\",\"void "
        "gemm<float, 2>(float*)\",320\n"
        "4670.000000,9.500000,80,1,1,128,1,1,32,0.000000,0.000000,,,,,\"GeForce RTX 2080 Ti (0)\",\"1\",\"22\",\"void "
        "gemm<float, 2>(float*)\",330\n";
    const NsysKernSum s = parse_nsys_kern_sum(csv, "trace.csv");
    EXPECT_EQ(s.profiler, "nvprof");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].instances, 2u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 20.0);  // 10.5 + 9.5 us, the units row's "us"
    EXPECT_DOUBLE_EQ(*s.kernels[0].med_us, 10.0);
    ASSERT_EQ(s.memory_ops.size(), 2u);
    // 1.003906 KB x 1024 = 1028.0 B (binary, as nvprof's console); / 1.888 us = 0.5445 GB/s, and nvprof's own
    // Throughput 0.507097 is GiB/s: x 1.073741824 = 0.5445.
    EXPECT_NEAR(*s.memory_ops[0].bytes, 1028.0, 1e-3);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 1.888);
    EXPECT_NEAR(*s.memory_ops[1].bytes, 128.0, 1e-9);  // 0.125 KB
}

// nvprof before CUDA 9: no SrcMemType/DstMemType columns, and its KB/MB are decimal. The layout of NVIDIA's
// Profiler Guide matrixMul trace (A and B are 320·320 floats: 409,600 B, printed "409.60KB"; its Throughput
// 3.0167GB/s = 409,600 B / 135.78 µs in 10^9 B/s, not GiB/s). Two HtoD copies: 819,200 B in 271.56 µs.
TEST(NvprofSummary, PrintGpuTraceBeforeMemTypeColumnsIsDecimal) {
    const std::string trace =
        "==27706== Profiling result:\n"
        "   Start  Duration            Grid Size      Block Size     Regs*    SSMem*    DSMem*      Size  Throughput           "
        "Device   Context    Stream  Name\n"
        "133.81ms  135.78us                    -               -         -         -         -  409.60KB  3.0167GB/s  GeForce GT "
        "640M         1         2  [CUDA memcpy HtoD]\n"
        "134.62ms  135.78us                    -               -         -         -         -  409.60KB  3.0167GB/s  GeForce GT "
        "640M         1         2  [CUDA memcpy HtoD]\n"
        "134.76ms  21.695ms           (20 10 1)       (32 32 1)        29  8.0000KB        0B         -           -  GeForce GT "
        "640M         1         2  void matrixMulCUDA<int=32>(float*, float*, float*, int, int) [94]\n";
    const NsysKernSum s = parse_nsys_kern_sum(trace, "guide.log");
    ASSERT_EQ(s.memory_ops.size(), 1u);
    ASSERT_TRUE(s.memory_ops[0].bytes.has_value());
    EXPECT_NEAR(*s.memory_ops[0].bytes, 819200.0, 1e-6);  // 2 x 409.60 x 1000
    EXPECT_NEAR(s.memory_ops[0].total_us, 271.56, 1e-9);
    ASSERT_EQ(s.kernels.size(), 1u);
}

}  // namespace
