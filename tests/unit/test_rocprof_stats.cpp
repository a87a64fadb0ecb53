// AMD rocprof's kernel statistics CSV read by `bwacct ingest nsys` (src/ingest/rocprof_stats.cpp), and the warning for a
// kernel table whose own time % adds up to less than 100 (part of the kernels). Expected numbers by hand.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"
#include "bwacct/kernel_category.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

std::string refusal(const std::string& text) { return bwacct_test::nsys_refusal(text, "stats.csv"); }

bool warns(const NsysKernSum& s, const std::string& what) { return bwacct_test::any_holds(s.warnings, what); }

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

// Old code: refused at the first table (domain_stats' "HIP_API") without looking at the kernel table below it.
TEST(RocprofStats, ApiAndDomainTablesArePassedOverForTheKernelTable) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/rocprofv3_hip_jacobi_domain_and_api_stats_before_kernel_stats_then_wrapped_kernel_trace_excerpt.md"),
        "j.md");
    EXPECT_FALSE(s.from_trace);  // the statistics, not the kernel trace after them
    ASSERT_EQ(s.kernels.size(), 7u);
    EXPECT_EQ(s.table_line, 54u);
    const NsysKernel& j = s.kernels[0];
    EXPECT_EQ(j.name, "JacobiIterationKernel(int, double, double, double const*, double const*, double*, double*)");
    EXPECT_EQ(j.instances, 1000u);
    EXPECT_DOUBLE_EQ(j.total_us, 545275.48);  // 545,275,480 ns
    EXPECT_DOUBLE_EQ(*j.time_pct, 43.03);
    // Percentage in exponent form: 4.671e-04 %.
    EXPECT_DOUBLE_EQ(*s.kernels[6].time_pct, 4.671e-04);
    EXPECT_DOUBLE_EQ(*s.kernels[6].stddev_us, 0.0);  // 0.00000000e+00 ns
    EXPECT_TRUE(warns(s, "at lines 11, 18 hold HIP/HSA API calls, memory copies or rocprofv3 domains, not kernels: passed over"))
        << (s.warnings.empty() ? "" : s.warnings[0]);
    // Only API and domain tables: still refused, naming the first.
    const std::string only = refusal(
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"HIP_API\",3,30,10.0,100.0\n\n"
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"hipMemcpy\",3,30,10.0,100.0\n");
    EXPECT_NE(only.find("the rocprof statistics at line 1 are per domain"), std::string::npos) << only;
}

// Old code: "no kernel summary table found". rocprofv3's kernel_trace.csv, one row per dispatch: End - Start in ns.
TEST(RocprofStats, Rocprofv3KernelTraceSummedPerName) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/rocprofv3_kernel_trace_csv_lumi_taylor_base_vertical_dot_elision_excerpt.md"), "t.md");
    EXPECT_TRUE(s.from_trace);
    EXPECT_TRUE(s.from_rocprof);
    EXPECT_EQ(s.profiler, "rocprof");
    ASSERT_EQ(s.kernels.size(), 2u);
    const NsysKernel& t = s.kernels[0];  // most time first
    EXPECT_EQ(t.name, "taylor_base(float*, float*, unsigned long, unsigned long)");
    EXPECT_EQ(t.instances, 3u);
    // 1614963547425378 - 1614963488155186 = 59,270,192; 1614963607003411 - 1614963547688898 = 59,314,513;
    // 1614963666422240 - 1614963607259568 = 59,162,672 ns: 177,747,377 ns in all.
    EXPECT_DOUBLE_EQ(t.total_us, 177747.377);
    EXPECT_DOUBLE_EQ(*t.min_us, 59162.672);
    EXPECT_DOUBLE_EQ(*t.max_us, 59314.513);
    EXPECT_DOUBLE_EQ(*t.med_us, 59270.192);
    EXPECT_DOUBLE_EQ(s.kernels[1].total_us, 10.08);  // initHeap: 1614963487791997 - 1614963487781917 = 10,080 ns
    EXPECT_NEAR(*t.time_pct, 100.0 * 177747.377 / (177747.377 + 10.08), 1e-9);
    // The three "." lines (a vertical ellipsis) end the table with a warning.
    EXPECT_TRUE(warns(s, "is cut at line 15 ('.')")) << (s.warnings.empty() ? "" : s.warnings[0]);
    // Timestamps past 2^53 ns are read exactly: 9007199254740993 - 9007199254740992 = 1 ns (a double makes it 0).
    const NsysKernSum big = parse_nsys_kern_sum(
        "\"Kind\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"KERNEL_DISPATCH\",\"k\",9007199254740992,9007199254740993\n",
        "b.csv");
    EXPECT_DOUBLE_EQ(big.kernels[0].total_us, 0.001);
    const std::string backwards =
        refusal("\"Kind\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n\"KERNEL_DISPATCH\",\"k\",20,10\n");
    EXPECT_NE(backwards.find("line 2: a kernel trace row without a kernel name and whole-ns timestamps"), std::string::npos)
        << backwards;
}

// Old code: "no kernel summary table found". rocprof v1's per-dispatch results.csv: EndNs - BeginNs per launch.
TEST(RocprofStats, RocprofV1ResultsCsvSummedPerName) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/rocprof_v1_results_csv_per_dispatch_mini_nbody_ten_launches_enccs_excerpt.md"), "r.md");
    EXPECT_TRUE(s.from_trace);
    EXPECT_NE(s.format.find("rocprof v1 per-dispatch results.csv"), std::string::npos) << s.format;
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].instances, 10u);
    // 26316649 + 26115847 + 26102728 + 26060585 + 26095946 + 26070505 + 26084872 + 26083752 + 26098793 + 26095267
    // = 261,124,944 ns, the TotalDurationNs of the same run's results.stats.csv.
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 261124.944);
    EXPECT_DOUBLE_EQ(*s.kernels[0].min_us, 26060.585);
    EXPECT_DOUBLE_EQ(*s.kernels[0].max_us, 26316.649);   // row 0: 1591372836189584 - 1591372809872935
    EXPECT_DOUBLE_EQ(*s.kernels[0].med_us, 26095.6065);  // (26095267 + 26095946) / 2 ns
}

// Old code: "line 1: text after a closing quote" (a blank after '"DurationNs"', and a line counted from the table).
// Blanks after a closing quote are read; the shell prompt right after the row (no comma) ends the table.
TEST(RocprofStats, RocprofV1CsvWithBlanksAfterQuotesAndAPromptAfterTheRow) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/rocprof_v1_rpl_run_2019_rocm22_per_dispatch_csv_trailing_blanks_prompt_after_row_matmul_excerpt.md"),
        "m.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "matmul_kernel(long, int*, int*, int*)");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 17218.016);  // 13839523017841 - 13839505799825 ns
    EXPECT_EQ(s.table_line, 31u);
    // A malformed row names its line in the file, not in the table: line 32 holds the row.
    std::string text =
        fixture("corpus/nsys/rocprof_v1_rpl_run_2019_rocm22_per_dispatch_csv_trailing_blanks_prompt_after_row_matmul_excerpt.md");
    text.replace(text.find(",17218016 "), 10, ",\"x\"y ");
    const std::string why = refusal(text);
    EXPECT_NE(why.find("line 32: text after a closing quote"), std::string::npos) << why;
}

// Old code: "line 5: the header lacks ..." and "line 10: 3 fields where the header has 8". A later line that looks
// like a header (prose naming the columns, an API table cut mid-row) is skipped with a warning once a kernel table
// is read; with no kernel table its error is the refusal.
TEST(RocprofStats, ALaterTableThatFailsIsSkippedWithAWarning) {
    const std::string kernels =
        "```\n\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
        "\"k1\",1000,545275480,545275.480000,100.00\n```\n";
    const NsysKernSum prose = parse_nsys_kern_sum(
        kernels + "Each row sums one kernel Name over its Calls: TotalDurationNs is in nanoseconds.\n", "q.md");
    ASSERT_EQ(prose.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(prose.kernels[0].total_us, 545275.48);  // 545,275,480 ns
    EXPECT_TRUE(warns(prose, "the rocprof table at line 5 was not read")) << (prose.warnings.empty() ? "" : prose.warnings[0]);
    const NsysKernSum cut =
        parse_nsys_kern_sum(kernels +
                                "HIP API statistics:\n```\n\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                                "\"hipMemcpy\",1005,1248355080,1242144.358209,75.20\n\"hipMemset\",1,297454\n```\n",
                            "n.md");
    ASSERT_EQ(cut.kernels.size(), 1u);
    EXPECT_EQ(cut.kernels[0].name, "k1");
    EXPECT_TRUE(warns(cut, "the rocprof table at line 7 was not read (line 9: 3 fields where the header has 5"))
        << (cut.warnings.empty() ? "" : cut.warnings[0]);
    // A cut table before the kernel table is skipped the same way.
    const NsysKernSum before = parse_nsys_kern_sum(
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"hipMemset\",1,297454\n\n" + kernels, "b.md");
    ASSERT_EQ(before.kernels.size(), 1u);
    EXPECT_TRUE(warns(before, "the rocprof table at line 1 was not read")) << (before.warnings.empty() ? "" : before.warnings[0]);
    // Alone, the cut table is refused with its own error.
    const std::string alone =
        refusal("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n\"hipMemset\",1,297454\n");
    EXPECT_NE(alone.find("line 2: 3 fields where the header has 5"), std::string::npos) << alone;
}

// Old code: "line 1: quoted field never closed" (the line without a comma ended the table inside the quote), and a
// kernel name wrapped inside its quotes counted as a second kernel. The table goes on while a quote is open; the
// line break inside a cell is dropped.
TEST(RocprofStats, CellsWrappedInsideTheirQuotesAreJoined) {
    const NsysKernSum stats = parse_nsys_kern_sum(
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\",\"Std\nDev\"\n"
        "\"k1\",1000,545275480,545275.480000,100.00,526082,709763,8821.418627\n",
        "o.csv");
    ASSERT_EQ(stats.kernels.size(), 1u);
    ASSERT_TRUE(stats.kernels[0].stddev_us.has_value());      // the title "Std" + "Dev" is StdDev
    EXPECT_DOUBLE_EQ(*stats.kernels[0].stddev_us, 8.821419);  // 8821.418627 ns, to 10^-6 us
    const NsysKernSum trace = parse_nsys_kern_sum(
        "\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\n"
        "\"KERNEL_DISPATCH\",8,\"NormKernel1(int, dou\nble)\",1000,2000\n"
        "\"KERNEL_DISPATCH\",8,\"NormKernel1(int, double)\",3000,5000\n",
        "t.csv");
    ASSERT_EQ(trace.kernels.size(), 1u);
    EXPECT_EQ(trace.kernels[0].name, "NormKernel1(int, double)");
    EXPECT_EQ(trace.kernels[0].instances, 2u);
    EXPECT_DOUBLE_EQ(trace.kernels[0].total_us, 3.0);  // (2000 - 1000) + (5000 - 3000) = 3000 ns
}

// Old code: "the kernel trace header lacks a kernel name, start or end column" for a table that has them, split by
// '|' or spaces: the refusal says the columns are not comma-separated.
TEST(RocprofStats, AMarkdownTraceIsRefusedAsNotCommaSeparated) {
    const std::string md = refusal(
        "| Kind | Kernel_Name | Start_Timestamp | End_Timestamp |\n|---|---|---|---|\n| KERNEL_DISPATCH | k1 | 1000 | 2000 |\n");
    EXPECT_NE(md.find("line 1: the rocprof kernel trace header is not comma-separated CSV"), std::string::npos) << md;
    const std::string spaces = refusal("Name Calls TotalDurationNs AverageNs Percentage\nk1 1000 545275480 545275.48 100.00\n");
    EXPECT_NE(spaces.find("line 1: the rocprof statistics header is not comma-separated CSV"), std::string::npos) << spaces;
}

// Old code: the section title said rocprofv3 for rocprof v1's results.csv.
TEST(RocprofStats, RocprofV1TraceIsNotTitledRocprofv3) {
    const NsysKernSum s =
        parse_nsys_kern_sum("\"Index\",\"KernelName\",\"BeginNs\",\"EndNs\"\n0,\"k(int) [clone .kd]\",1000,3000\n", "r.csv");
    const IngestReport r = nsys_report(s, "r.csv");
    ASSERT_FALSE(r.sections.empty());
    EXPECT_EQ(r.sections[0].title, "Kernels (rocprof kernel trace summed per kernel name; times only)");
    EXPECT_EQ(r.sections[0].title.find("rocprofv3"), std::string::npos);
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

// ROCm 7's `rocpd summary` console (refused before nsight10: "no kernel summary table found"). Names right-aligned
// and holding blanks; numbers are a row's last seven tokens.
TEST(RocprofStats, RocpdSummaryKernelsSummary) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/rocpd_summary_kernels_summary_right_aligned_names_omp_fortran_jacobi_readme_excerpt.md"), "r.md");
    EXPECT_TRUE(s.from_rocprof);
    EXPECT_NE(s.format.find("rocpd summary"), std::string::npos) << s.format;
    ASSERT_EQ(s.kernels.size(), 4u);
    const NsysKernel& k = s.kernels[0];
    EXPECT_EQ(k.name, "__omp_offloading_30_57b9f__QMnorm_modPnorm_l23");
    EXPECT_EQ(k.instances, 1001u);
    EXPECT_DOUBLE_EQ(k.total_us, 92043.05);    // 92,043,050 ns
    EXPECT_DOUBLE_EQ(*k.avg_us, 91.951099);    // 91,951.098901 ns = 92,043,050 / 1001, to 10^-6 us
    EXPECT_DOUBLE_EQ(*k.min_us, 85.52);        // 85,520 ns
    EXPECT_DOUBLE_EQ(*k.max_us, 105.08);       // 105,080 ns
    EXPECT_DOUBLE_EQ(*k.stddev_us, 3.300146);  // 3300.146442 ns
    EXPECT_DOUBLE_EQ(*k.time_pct, 42.085668);
    double total = 0;
    for (const NsysKernel& r : s.kernels)
        total += r.total_us;
    EXPECT_NEAR(total, 218704.027, 1e-6);  // 92,043,050 + 49,900,815 + 48,184,981 + 28,575,181 ns
}

// --summary-by-rank: KERNELS_SUMMARY read, the per-process table (ProcessID, Hostname, NaN STD_DEV) warned.
TEST(RocprofStats, RocpdSummaryByRankNotRead) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/rocpd_summary_three_dbs_merged_then_by_rank_nan_stddev_hip_jacobi_readme_excerpt.md"), "r.md");
    ASSERT_EQ(s.kernels.size(), 7u);
    EXPECT_EQ(s.kernels[1].name, "JacobiIterationKernel(int, double, double, double const*, double const*, double*, double*)");
    EXPECT_EQ(s.kernels[1].instances, 3000u);
    EXPECT_DOUBLE_EQ(s.kernels[1].total_us, 558300.618);  // 558,300,618 ns
    EXPECT_EQ(s.kernels[6].instances, 3u);                // fillBufferAligned, not the by-rank rows' 1
    EXPECT_TRUE(warns(s, "KERNELS_SUMMARY_BY_RANK")) << s.warnings.size();
    // The by-rank table alone is refused: its rows repeat kernels per process.
    const std::string by_rank =
        "KERNELS_SUMMARY_BY_RANK:\n"
        " ProcessID        Hostname  Name  Calls  DURATION (nsec)  AVERAGE (nsec)  PERCENT (INC)  MIN (nsec)  MAX (nsec)  "
        "STD_DEV\n"
        "    718729 ppac  k   1  4960  4960.000000  100.0  4960  4960  NaN\n";
    EXPECT_NE(refusal(by_rank).find("not its KERNELS_SUMMARY"), std::string::npos) << refusal(by_rank);
    // A row shifted off its columns (AVERAGE x Calls != DURATION) is refused, not misread.
    const std::string shifted =
        "KERNELS_SUMMARY:\n"
        "Name  Calls  DURATION (nsec)  AVERAGE (nsec)  PERCENT (INC)  MIN (nsec)  MAX (nsec)  STD_DEV\n"
        "k 7   1000  2000.000000  100.0  1000  3000  1.0\n";  // a cell short: "7" of the name falls under Calls
    EXPECT_NE(refusal(shifted).find("does not line"), std::string::npos) << refusal(shifted);
}

// rocprofv3 --memory-copy-trace: copies summed per Direction into memory_ops (dropped before nsight10).
TEST(RocprofStats, Rocprofv3MemoryCopyTraceSummedPerDirection) {
    // The docs' 199_kernel_trace.csv and 197_memory_copy_trace.csv: two processes (the file names' ids); the kernel's
    // Correlation_Id is 0 and so are both copies' (each process counts from its own start): another process's copies,
    // not attached, warned (attached before the time-gap rule; that rule is gone, identity decides).
    const std::string docs = fixture("corpus/nsys/rocprofv3_docs_kernel_trace_then_memory_copy_trace_no_bytes_excerpt.md");
    const NsysKernSum k = parse_nsys_kern_sum(docs, "d.md");
    ASSERT_EQ(k.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(k.kernels[0].total_us, 66.76);  // 671,599,825,328 - 671,599,758,568 = 66,760 ns
    EXPECT_TRUE(k.memory_ops.empty());
    EXPECT_TRUE(warns(k, "reuses Correlation_Id 0 of the kernel trace (one counter per process)"))
        << fmt::format("{}", fmt::join(k.warnings, "|"));
    // The copy trace alone is read.
    const NsysKernSum s = parse_nsys_kern_sum(docs.substr(docs.find("#### Memory copy trace")), "d.md");
    EXPECT_TRUE(s.kernels.empty());
    ASSERT_EQ(s.memory_ops.size(), 2u);
    EXPECT_EQ(s.memory_ops[0].operation, "MEMORY_COPY_HOST_TO_DEVICE");
    EXPECT_EQ(s.memory_ops[0].count, 1u);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 563.88);  // 14,955,950,239,443 - 14,955,949,675,563 ns
    EXPECT_FALSE(s.memory_ops[0].bytes);                 // no byte column in the file
    EXPECT_DOUBLE_EQ(s.memory_ops[1].total_us, 581.8);   // 14,955,953,315,285 - 14,955,952,733,485 ns
    // A trace with a Bytes column: two H2D copies of 1000 and 3000 B, 10 and 30 ns.
    const NsysKernSum b = parse_nsys_kern_sum(
        "\"Kind\",\"Direction\",\"Start_Timestamp\",\"End_Timestamp\",\"Bytes\"\n"
        "\"MEMORY_COPY\",\"HOST_TO_DEVICE\",100,110,1000\n"
        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",200,230,3000\n",  // ROCm 7 spelling: the same direction
        "m.csv");
    ASSERT_EQ(b.memory_ops.size(), 1u);
    EXPECT_EQ(b.memory_ops[0].count, 2u);
    EXPECT_DOUBLE_EQ(b.memory_ops[0].total_us, 0.04);  // 10 + 30 ns
    EXPECT_DOUBLE_EQ(*b.memory_ops[0].bytes, 4000.0);  // 1000 + 3000 B
}

// A kernel trace, then a copy trace whose last row was cut off ("...,0,6715999000": 6 fields of 7): the row is left out,
// warned, the rest read (refused whole before). The H2D copy 671,599,000,000 to 671,599,500,000 = 500,000 ns goes to
// agent 1, the kernel's, with Correlation_Id 0 where the kernel's is 7: the same run, attached.
TEST(RocprofStats, CopyTraceRowCutOffLeftOutSecondCopyTableWarned) {
    const std::string kernel =
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_"
        "Timestamp\"\n"
        "\"KERNEL_DISPATCH\",1,139690710949888,15,\"matrixTranspose(float*, float*, int)\",7,671599758568,671599825328\n"
        "\n";
    const std::string copy_head =
        "\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\","
        "\"End_Timestamp\"\n";
    const std::string h2d = "\"MEMORY_COPY\",\"HOST_TO_DEVICE\",0,1,0,671599000000,671599500000\n";
    const NsysKernSum c =
        parse_nsys_kern_sum(kernel + copy_head + h2d + "\"MEMORY_COPY\",\"DEVICE_TO_HOST\",1,0,0,6715999000\n", "c1.csv");
    ASSERT_EQ(c.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(c.kernels[0].total_us, 66.76);  // 671,599,825,328 - 671,599,758,568 ns
    ASSERT_EQ(c.memory_ops.size(), 1u);
    EXPECT_EQ(c.memory_ops[0].operation, "MEMORY_COPY_HOST_TO_DEVICE");
    EXPECT_DOUBLE_EQ(c.memory_ops[0].total_us, 500.0);  // 671,599,500,000 - 671,599,000,000 ns
    EXPECT_TRUE(warns(c, "line 6: a memory copy trace row (6 fields, the header 7)"))
        << fmt::format("{}", fmt::join(c.warnings, "|"));
    // A second copy table (another process's file): warned, not read; the first one's copy alone.
    const NsysKernSum two = parse_nsys_kern_sum(
        kernel + copy_head + h2d + "\n" + copy_head + "\"MEMORY_COPY\",\"HOST_TO_DEVICE\",0,1,0,99671599000000,99671599900000\n",
        "c2.csv");
    ASSERT_EQ(two.memory_ops.size(), 1u);
    EXPECT_EQ(two.memory_ops[0].count, 1u);
    EXPECT_DOUBLE_EQ(two.memory_ops[0].total_us, 500.0);  // the first table's one copy, not + 900,000 ns
    EXPECT_TRUE(warns(two, "the memory copy trace at line 7 (another process's?) is not read: the one at line 4 is"));
    // A copy trace alone whose only row is cut: refused, naming the row and memory_copy_trace.csv.
    const std::string r = refusal(copy_head + "\"MEMORY_COPY\",\"DEVICE_TO_HOST\",1,0,0,6715999000\n");
    EXPECT_NE(r.find("line 2: a memory copy trace row (6 fields, the header 7)"), std::string::npos) << r;
    EXPECT_NE(r.find("memory_copy_trace.csv"), std::string::npos) << r;
}

// Copies of the same process are attached however far in time from its kernels; another process's are told by identity.
TEST(RocprofStats, CopyTraceAttachedByAgentAndCorrelationIdNotByTime) {
    const std::string khead =
        "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n";
    const std::string chead =
        "\"Kind\",\"Direction\",\"Source_Agent_Id\",\"Destination_Agent_Id\",\"Correlation_Id\",\"Start_Timestamp\","
        "\"End_Timestamp\"\n";
    // Three uploads at 0-10.5, 11-21.5, 22-32.5 ms, then a 300 ms code-object load, then kernels from 333 ms on
    // (Correlation_Id 3, 4; agent 1 as the copies' destination): one process, attached (detached by the old gap rule:
    // 333 - 32.5 = 300.5 ms > the longer span 32.5 ms). H2D 3 x 10,500,000 ns = 31,500 us.
    const std::string up =
        khead + "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"triad\",3,2650333000000,2650334000000\n" +
        "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"triad\",4,2650334010000,2650335010000\n\n" + chead +
        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",\"Agent 0\",\"Agent 1\",0,2650000000000,2650010500000\n" +
        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",\"Agent 0\",\"Agent 1\",1,2650011000000,2650021500000\n" +
        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",\"Agent 0\",\"Agent 1\",2,2650022000000,2650032500000\n";
    const NsysKernSum a = parse_nsys_kern_sum(up, "up.csv");
    ASSERT_EQ(a.memory_ops.size(), 1u) << fmt::format("{}", fmt::join(a.warnings, "|"));
    EXPECT_EQ(a.memory_ops[0].operation, "MEMORY_COPY_HOST_TO_DEVICE");
    EXPECT_EQ(a.memory_ops[0].count, 3u);
    EXPECT_DOUBLE_EQ(a.memory_ops[0].total_us, 31500.0);
    // A read-back 1 s after the last kernel (host work): agent 1 as its source, Correlation_Id 99, attached: 5,000 us.
    const std::string back = khead + "\"KERNEL_DISPATCH\",1,1,\"copy\",10,671599758568,671600658568\n\n" + chead +
                             "\"MEMORY_COPY\",\"DEVICE_TO_HOST\",1,0,99,672609758568,672614758568\n";
    const NsysKernSum b = parse_nsys_kern_sum(back, "back.csv");
    ASSERT_EQ(b.memory_ops.size(), 1u) << fmt::format("{}", fmt::join(b.warnings, "|"));
    EXPECT_DOUBLE_EQ(b.memory_ops[0].total_us, 5000.0);  // 672,614,758,568 - 672,609,758,568 ns
    // Rank 0's kernels on agent 1, rank 1's uploads to agent 2 over the same milliseconds: not attached.
    const std::string ranks =
        khead + "\"KERNEL_DISPATCH\",\"Agent 1\",1,\"triad\",3,2650002000000,2650003000000\n\n" + chead +
        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",\"Agent 0\",\"Agent 2\",0,2650000000000,2650000900000\n" +
        "\"MEMORY_COPY\",\"MEMORY_COPY_HOST_TO_DEVICE\",\"Agent 0\",\"Agent 2\",1,2650001000000,2650001900000\n";
    const NsysKernSum r = parse_nsys_kern_sum(ranks, "ranks.csv");
    EXPECT_TRUE(r.memory_ops.empty());
    EXPECT_TRUE(warns(r, "line 5 copies on Agent 2, an agent the kernel trace does not run on"))
        << fmt::format("{}", fmt::join(r.warnings, "|"));
}

// A DURATION beyond any real run (1e308 ns: its average overflowed to null and the headline printed 300 digits)
// and a MIN above MAX are rows that do not line up: refused in one line naming the line.
TEST(RocprofStats, Rocprofv3SummaryImpossibleRowsAreRefused) {
    const std::string head =
        "ROCPROFV3 KERNEL_DISPATCH SUMMARY:\n"
        "| NAME | DOMAIN | CALLS | DURATION (nsec) | AVERAGE (nsec) | PERCENT (INC) | MIN (nsec) | MAX (nsec) | STDDEV |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
    const std::string huge = refusal(head + "| k1 | KERNEL_DISPATCH | 8 | 1e308 | 1.25e307 | 100 | 1 | 2 | 0 |\n");
    EXPECT_NE(huge.find("line 4: DURATION 1e308 is more than 31 years"), std::string::npos) << huge;
    const std::string swapped = refusal(head + "| k1 | KERNEL_DISPATCH | 2 | 100 | 5.000e+01 | 100 | 60 | 40 | 0 |\n");
    EXPECT_NE(swapped.find("line 4: MIN 60 is above MAX 40"), std::string::npos) << swapped;
    // The same row with MIN 40 and MAX 60 is read: 100 ns = 0.1 µs over 2 calls.
    const NsysKernSum ok =
        parse_nsys_kern_sum(head + "| k1 | KERNEL_DISPATCH | 2 | 100 | 5.000e+01 | 100 | 40 | 60 | 0 |\n", "ok.md");
    ASSERT_EQ(ok.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(ok.kernels[0].total_us, 0.1);
}

}  // namespace

// rocprofv3's own summary (`rocprofv3 -S -D`, ROCm docs): per-domain pipe tables, then the combined ROCPROFV3 SUMMARY
// holding the kernels again. Old code: "no kernel summary table found". By hand, from the KERNEL_DISPATCH table:
//   sum of the four kernels = 184,324 + 94,482 + 91,763 + 82,521 = 453,090 ns = 453.090 us
//   addition_kernel 184,324 ns = 184.324 us over 8 calls; PERCENT 40.681542 = 184,324 / 453,090 (0.40681542)
TEST(RocprofStats, Rocprofv3SummaryKernelDispatchRowsAreTheKernels) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/rocprofv3_docs_summary_per_domain_pipe_tables_kernel_dispatch_then_combined_excerpt.md"), "s.md");
    ASSERT_EQ(s.kernels.size(), 4u);
    EXPECT_EQ(s.kernels[0].name, "void addition_kernel<float>(float*, float const*, float const*, int, int)");
    EXPECT_EQ(s.kernels[0].instances, 8u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 184.324);
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_pct, 40.681542);
    EXPECT_NEAR(100.0 * 184324 / 453090, *s.kernels[0].time_pct, 1e-6);
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 23.0405);  // 184.324 / 8, not the rounded AVERAGE 2.304e+04 ns
    EXPECT_DOUBLE_EQ(*s.kernels[0].min_us, 11.2);
    EXPECT_DOUBLE_EQ(*s.kernels[0].max_us, 98.802);
    double total = 0;
    for (const NsysKernel& k : s.kernels)
        total += k.total_us;
    EXPECT_NEAR(total, 453.090, 1e-9);
    EXPECT_TRUE(s.other_tables.empty());  // the combined summary's identical rows are the same run
    ASSERT_EQ(s.memory_ops.size(), 2u);
    EXPECT_EQ(s.memory_ops[0].operation, "MEMORY_COPY_HOST_TO_DEVICE");
    EXPECT_EQ(s.memory_ops[0].count, 16u);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 3691.929);
    EXPECT_FALSE(s.memory_ops[0].bytes.has_value());
}

// The same summary printed to the console (5 columns, thousands separators, a '| ... |' row where the author left
// rows out): one kernel, 44,242 ns = 44.242 us; its PERCENT (INC) 0.014317 is a share of every domain's time, so the
// time % is computed here: 44.242 / 44.242 = 100 %.
TEST(RocprofStats, Rocprofv3SummaryConsoleCombinedTableComputesTheKernelShare) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/"
                "rocprofv3_summary_console_pipe_table_thousands_separators_api_rows_elided_mi350x_tutorial_excerpt.md"),
        "c.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "vector_add(float const*, ...)");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 44.242);
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_pct, 100.0);
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 44.242);  // no AVERAGE column: DURATION / CALLS = 44.242 / 1
    EXPECT_FALSE(s.kernels[0].min_us.has_value());   // not printed: never made up
    ASSERT_EQ(s.memory_ops.size(), 2u);
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 2357.053);  // 2,357,053 ns
    EXPECT_DOUBLE_EQ(s.memory_ops[1].total_us, 1205.206);
    EXPECT_TRUE(warns(s, "time % computed here"));
    EXPECT_TRUE(warns(s, "left rows out"));  // the '| ... (HSA/HIP bookkeeping calls omitted) ... |' row
}

// A summary of API calls alone (no --kernel-trace): refused in one line saying so.
TEST(RocprofStats, Rocprofv3SummaryWithoutKernelRowsIsRefused) {
    const std::string m = refusal(
        "ROCPROFV3 SUMMARY:\n"
        "| NAME | DOMAIN | CALLS | DURATION (nsec) | AVERAGE (nsec) | PERCENT (INC) | MIN (nsec) | MAX (nsec) | STDDEV |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        "| hipMalloc | HIP_API | 2 | 1000 | 5.000e+02 | 100.000000 | 400 | 600 | 1.414e+02 |\n");
    EXPECT_NE(m.find("holds no KERNEL_DISPATCH row"), std::string::npos) << m;
}
