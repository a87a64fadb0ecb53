// nsys's memory-operation summaries (cuda_gpu_mem_time_sum / cuda_gpu_mem_size_sum and their 2020-2022 forms)
// read into memory_ops, and the refusal of files holding only reports without GPU work. Expected numbers by hand
// from the printed cells; the arithmetic is in the comments.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <string>
#include <variant>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

const char* kGlans = "corpus/nsys/nsys2022_stats_commented_hash_kern_gb_sum_memops_time_and_size_numba_glans_excerpt.txt";

std::string refusal(const std::string& text) { return bwacct_test::nsys_refusal(text, "stats.txt"); }

// Old code: the memory tables were skipped; only the kernel table was read.
TEST(NsysMemoryOps, TimeAndSizeTablesAreJoinedByOperation) {
    const NsysKernSum s = parse_nsys_kern_sum(fixture(kGlans), "g.txt");
    ASSERT_EQ(s.kernels.size(), 5u);
    ASSERT_EQ(s.memory_ops.size(), 2u);
    const NsysMemOp& h2d = s.memory_ops[0];
    EXPECT_EQ(h2d.operation, "[CUDA memcpy HtoD]");
    EXPECT_EQ(h2d.count, 5u);
    EXPECT_DOUBLE_EQ(h2d.total_us, 16621.73);  // 16621730 ns
    ASSERT_TRUE(h2d.bytes.has_value());
    EXPECT_DOUBLE_EQ(*h2d.bytes, 80e6);  // 80.000 MB, MB = 10^6 B; the '#' marker before it is not part of the number
    const NsysMemOp& d2h = s.memory_ops[1];
    EXPECT_EQ(d2h.count, 10u);
    EXPECT_DOUBLE_EQ(d2h.total_us, 11795.313);  // 11795313 ns
    EXPECT_DOUBLE_EQ(*d2h.bytes, 81016000.0);   // 81.016 MB

    // The report's rate: 80e6 B / (16621.73 us x 1e3 ns/us) = 4.81295... GB/s (bytes per ns = GB/s).
    const IngestReport r = nsys_report(s, "g.txt");
    const Section* mem = nullptr;
    for (const Section& sec : r.sections)
        if (sec.key == "memory_ops")
            mem = &sec;
    ASSERT_NE(mem, nullptr);
    ASSERT_EQ(mem->rows.size(), 2u);
    EXPECT_NEAR(std::get<double>(mem->rows[0][5]), 80e6 / 16621730.0, 1e-12);
    EXPECT_NEAR(std::get<double>(mem->rows[1][5]), 81016000.0 / 11795313.0, 1e-12);  // 6.868... GB/s
    EXPECT_DOUBLE_EQ(std::get<double>(mem->rows[1][3]), 1179.5313);                  // avg = 11795.313 us / 10
}

// `nsys stats --report cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum` alone: read, with no kernel.
TEST(NsysMemoryOps, AFileOfMemoryTablesAloneIsRead) {
    const std::string all = fixture(kGlans);
    const std::string mem =
        all.substr(all.find("# Processing [glans.sqlite] with [/appl/cuda/11.8.0/nsight-systems-2022.4.2/"
                            "host-linux-x64/reports/gpumemtimesum.py]"));
    const NsysKernSum s = parse_nsys_kern_sum(mem, "mem.txt");
    EXPECT_TRUE(s.kernels.empty());
    ASSERT_EQ(s.memory_ops.size(), 2u);
    EXPECT_DOUBLE_EQ(*s.memory_ops[1].bytes, 81016000.0);
    EXPECT_NE(s.format.find("no kernel table"), std::string::npos) << s.format;
    const IngestReport r = nsys_report(s, "mem.txt");
    ASSERT_EQ(r.summary.lines.size(), 1u);
    // 16621.73 + 11795.313 = 28417.043 us
    EXPECT_EQ(r.summary.lines[0], "no kernel table: 2 memory operation kinds, 28417.0 us in all (see memory_ops)");
}

// nsys 2020: "Operations" for the count, and sizes in KiB named only in the title above the table.
TEST(NsysMemoryOps, Nsys2020KibSizesFromTheTitle) {
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("corpus/nsys/nsys2020_stats_console_cudamemcpyasync_no_unit_columns.txt"), "o.txt");
    ASSERT_EQ(s.memory_ops.size(), 2u);
    EXPECT_EQ(s.memory_ops[0].operation, "[CUDA memcpy DtoH]");
    EXPECT_EQ(s.memory_ops[0].count, 30u);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 5314309.114);      // 5,314,309,114 ns
    EXPECT_DOUBLE_EQ(*s.memory_ops[0].bytes, 31457280.0 * 1024);  // 31,457,280.000 KiB = 30 x 1 GiB
}

// nsys stats of 2021 prints "Running [.../gpumemsizesum.py REPORT.sqlite]" over a size table whose header has no unit:
// a report named "..._512MB.sqlite" says nothing of the unit. Old code: read in MB (39,595,542.188 x 10^6 B,
// 9935.9 GB/s), no warning.
TEST(NsysMemoryOps, MbInTheReportPathIsNoUnit) {
    std::string t =
        fixture("corpus/nsys/nsys2021_hpcsdk21_7_gpukernsum_wrapped_name_title_blank_lines_between_rows_openacc_mlp_excerpt.md");
    for (std::size_t p = t.find("openacc_kernel.sqlite"); p != std::string::npos; p = t.find("openacc_kernel.sqlite", p + 1))
        t.replace(p, 21, "mlp_512MB.sqlite");
    const NsysKernSum s = parse_nsys_kern_sum(t, "m.md");
    ASSERT_EQ(s.memory_ops.size(), 3u);
    EXPECT_EQ(s.memory_ops[0].operation, "[CUDA memcpy HtoD]");
    // 39,595,542.188 KiB x 1024 = 40,545,835,200.512 B (the header's "Operations": nsys 2020-2021, KiB)
    EXPECT_NEAR(*s.memory_ops[0].bytes, 40545835200.512, 1e-3);
    bool warned = false;
    for (const std::string& w : s.warnings)
        warned = warned || w.find("gives no unit: read in KiB") != std::string::npos;
    EXPECT_TRUE(warned);
    // A unit in the title's parentheses is still read: "(by size in MB)" -> 10^6 B.
    const std::string mb =
        " Time(%)  Total Time (ns)  Operations  Average  Minimum  Maximum  Operation\n"
        " -------  ---------------  ----------  -------  -------  -------  ------------------\n"
        "   100.0            2,000           2  1,000.0      900    1,100  [CUDA memcpy HtoD]\n"
        "\n"
        "CUDA Memory Operation Statistics (by size in MB):\n"
        "\n"
        "   Total    Operations  Average  Minimum  Maximum  Operation\n"
        " ---------  ----------  -------  -------  -------  ------------------\n"
        "     8.000           2    4.000    4.000    4.000  [CUDA memcpy HtoD]\n";
    const NsysKernSum m = parse_nsys_kern_sum(mb, "mb.txt");
    ASSERT_EQ(m.memory_ops.size(), 1u);
    EXPECT_DOUBLE_EQ(*m.memory_ops[0].bytes, 8e6);  // 8.000 MB x 10^6
}

// A size printed as 0.000 MB is below the table's precision: no bytes, no rate, and a warning; never 0 GB/s.
TEST(NsysMemoryOps, SizesPrintedAsZeroGetNoBytes) {
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("corpus/nsys/nsys_stats_console_a100_vectoradd_two_runs_readme.md"), "v.md");
    ASSERT_EQ(s.memory_ops.size(), 2u);                 // the first run's only (the second run's tables are not read)
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 2.432);  // 2,432 ns
    EXPECT_FALSE(s.memory_ops[0].bytes.has_value());
    EXPECT_FALSE(s.memory_ops[1].bytes.has_value());
    bool warned = false;
    for (const std::string& w : s.warnings)
        warned = warned || w.find("prints 0 for [CUDA memcpy HtoD], [CUDA memcpy DtoH]") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(NsysMemoryOps, ReportsWithoutGpuWorkAreRefusedByName) {
    const std::string all = fixture("corpus/nsys/nsys_stats_console_a100_vectoradd_two_runs_readme.md");
    // From "[3/8] Executing 'nvtx_sum'" up to the kernel report's banner: nvtx_sum, osrt_sum, cuda_api_sum.
    const std::size_t a = all.find("[3/8] Executing 'nvtx_sum'"), b = all.find("[6/8] Executing 'cuda_gpu_kern_sum'");
    const std::string msg = refusal(all.substr(a, b - a));
    EXPECT_NE(msg.find("the file holds nsys's nvtx_sum, osrt_sum, cuda_api_sum reports, which hold no GPU work"),
              std::string::npos)
        << msg;
    // Without nsys's banners the header tells an API summary.
    const std::string api = refusal(
        " Time (%)  Total Time (ns)  Num Calls  Avg (ns)  Name\n"
        " --------  ---------------  ---------  --------  ----------\n"
        "     90.0            9,000          1   9,000.0  cudaMalloc\n");
    EXPECT_NE(api.find("cuda_api_sum or osrt_sum (Num Calls) report, which holds no GPU work"), std::string::npos) << api;
    // A table with the memory tables' columns but names that are not nsys's bracketed memory operations (an
    // OpenMP event summary) is not one.
    const std::string omp = refusal(
        " Time (%)  Total Time (ns)  Count  Avg (ns)  Operation\n"
        " --------  ---------------  -----  --------  ------------\n"
        "    100.0            5,000      2   2,500.0  omp_parallel\n");
    EXPECT_NE(omp.find("no kernel summary table found"), std::string::npos) << omp;
}

// An OpenMP event summary with the memory tables' columns ahead of the real memory time table: the search went on
// no further than the first such header, so the memory operations after it were lost (tenth session's review).
TEST(NsysMemoryOps, AnEventTableAheadOfTheMemoryTableIsPassedOver) {
    const std::string text =
        " Time (%)  Total Time (ns)  Count  Avg (ns)  Operation\n"
        " --------  ---------------  -----  --------  ------------\n"
        "    100.0            5,000      2   2,500.0  omp_parallel\n"
        "\n"
        " Time (%)  Total Time (ns)  Count  Avg (ns)  Operation\n"
        " --------  ---------------  -----  --------  ----------------------------\n"
        "     75.0            3,000      3   1,000.0  [CUDA memcpy Host-to-Device]\n"
        "     25.0            1,000      1   1,000.0  [CUDA memset]\n";
    const NsysKernSum s = parse_nsys_kern_sum(text, "two.txt");
    ASSERT_EQ(s.memory_ops.size(), 2u);
    EXPECT_EQ(s.memory_ops[0].operation, "[CUDA memcpy Host-to-Device]");
    EXPECT_EQ(s.memory_ops[0].count, 3u);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 3.0);  // 3,000 ns
    EXPECT_DOUBLE_EQ(s.memory_ops[1].total_us, 1.0);  // 1,000 ns
}

// nvprof's memory rows are listed as memory operations, without bytes (nvprof's summary prints none).
TEST(NsysMemoryOps, NvprofMemoryRowsWithoutBytes) {
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("corpus/nsys/nvprof_summary_typed_t600_reduce_memcpy_memset_api_readme_excerpt.md"), "r.md");
    ASSERT_EQ(s.memory_ops.size(), 3u);
    EXPECT_EQ(s.memory_ops[2].operation, "[CUDA memset]");
    EXPECT_EQ(s.memory_ops[0].count, 14u);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 8634.8);  // 8.6348ms
    EXPECT_FALSE(s.memory_ops[0].bytes.has_value());
}

}  // namespace
