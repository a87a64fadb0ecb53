// The nsys reader on shapes met in real pasted output (issue 11, third pass over public files): a table
// cut by an elision line ("..."), a header line shifted off its dashed rule, a GPU trace instead of a
// kernel summary. Expected numbers by hand; the arithmetic is in the comments.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <string>

#include "../../src/ingest/csv.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"
#include "bwacct/kernel_category.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

bool has(const std::vector<std::string>& lines, const std::string& what) {
    for (const std::string& l : lines)
        if (l.find(what) != std::string::npos)
            return true;
    return false;
}

// ---- elision lines ---------------------------------------------------------------------------------

// Old code: "line 6: 1 columns where the header has 4 (file truncated?)" for the console table, a field-count
// error for the CSV, and a pipe table that ended at "..." without a word.
TEST(NsysRealInputs, AnElisionLineEndsAPastedTableWithAWarning) {
    const std::string console =
        " Time (%)  Total Time (ns)  Instances  Name\n"
        " --------  ---------------  ---------  ----\n"
        "     60.0            6,000          3  gemm_a\n"
        "     30.0            3,000          1  softmax_b\n"
        "    ...\n"
        "\n";
    const NsysKernSum c = parse_nsys_kern_sum(console, "console.txt");
    ASSERT_EQ(c.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(c.kernels[1].total_us, 3.0);  // 3,000 ns
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_NE(c.warnings[0].find("line 1 is cut at line 5 ('...')"), std::string::npos) << c.warnings[0];
    EXPECT_NE(c.warnings[0].find("the 2 rows shown"), std::string::npos) << c.warnings[0];

    const std::string csv =
        "Time (%),Total Time (ns),Instances,Name\n"
        "60.0,6000,3,gemm_a\n"
        "\xe2\x80\xa6\n"  // a UTF-8 ellipsis alone on its line
        "10.0,1000,1,left_out\n";
    const NsysKernSum v = parse_nsys_kern_sum(csv, "kern.csv");
    ASSERT_EQ(v.kernels.size(), 1u);
    ASSERT_EQ(v.warnings.size(), 1u);
    EXPECT_NE(v.warnings[0].find("cut at line 3"), std::string::npos) << v.warnings[0];
    EXPECT_NE(v.warnings[0].find("the 1 row shown"), std::string::npos) << v.warnings[0];

    const std::string pipe =
        "| Time (%) | Total Time (ns) | Instances | Name |\n"
        "|---|---|---|---|\n"
        "| 60.0 | 6,000 | 3 | gemm_a |\n"
        "| ... | ... | ... | ... |\n";
    const NsysKernSum p = parse_nsys_kern_sum(pipe, "pipe.md");
    ASSERT_EQ(p.kernels.size(), 1u);
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("cut at line 4"), std::string::npos) << p.warnings[0];

    // The report prints the reader's warnings; totals cover the rows shown: 6,000 + 3,000 ns = 9.0 us.
    const IngestReport r = nsys_report(c, "console.txt");
    EXPECT_TRUE(has(r.warnings, "left rows out"));
    EXPECT_NE(r.summary.lines[0].find("kernel time 9.0 us over 2 kernels (4 launches)"), std::string::npos) << r.summary.lines[0];
}

// A run of dots inside a name or a number is not an elision line; two dots are not one either.
TEST(NsysRealInputs, DotsInsideARowAreNotAnElision) {
    const std::string console =
        " Time (%)  Total Time (ns)  Instances  Name\n"
        " --------  ---------------  ---------  ----\n"
        "    100.0            1,000          1  kernel<...>(T1)\n"
        "    ..\n";
    EXPECT_THROW(parse_nsys_kern_sum(console, "two_dots.txt"), InputError);  // ".." is a short row, as before
    const NsysKernSum s = parse_nsys_kern_sum(console.substr(0, console.rfind("    ..")), "ok.txt");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "kernel<...>(T1)");
    EXPECT_TRUE(s.warnings.empty());
}

// The real file: vLLM's profiling guide pastes nine rows of an H100 run, indented by four blanks inside a
// mkdocs admonition, then '    ...'. Old code refused it ("line 19: 1 columns where the header has 9").
TEST(NsysRealInputs, VllmDocsTableWithElidedRows) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2025_stats_console_indented_admonition_elided_rows_vllm_h100_docs.md"), "vllm.md");
    ASSERT_EQ(s.kernels.size(), 9u);
    EXPECT_EQ(s.table_line, 8u);
    // Row 1: 10,327,352,338 ns over 17,505 instances, median 144,383.0 ns.
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 10327352.338);
    EXPECT_EQ(s.kernels[0].instances, 17505u);
    EXPECT_DOUBLE_EQ(*s.kernels[0].med_us, 144.383);
    // Row 4 has one leading blank less than the others: 2,116,600,578 ns, 33,920 instances, 9.5 %.
    EXPECT_DOUBLE_EQ(s.kernels[3].total_us, 2116600.578);
    EXPECT_EQ(s.kernels[3].instances, 33920u);
    EXPECT_DOUBLE_EQ(*s.kernels[3].time_pct, 9.5);
    // Last row shown: 167,083,069 ns.
    EXPECT_DOUBLE_EQ(s.kernels[8].total_us, 167083.069);
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("line 8 is cut at line 19"), std::string::npos) << s.warnings[0];
}

// ---- a header shifted off its rule -------------------------------------------------------------------

// The header lost its leading blank in the paste while the rule and rows kept theirs: cut at the rule's
// extents, every title lost its first letter ("otal Time (ns" ...). Old code: "the kernel table lacks a
// Total Time, Instances or Name column".
TEST(NsysRealInputs, AHeaderShiftedOffItsRuleIsReadByItsTitles) {
    const std::string text =
        "Time (%)  Total Time (ns)  Instances  Avg (ns)  Name\n"
        " --------  ---------------  ---------  --------  ----------\n"
        "     75.0            3,000          2   1,500.0  kernel_one\n"
        "     25.0            1,000          4     250.0  kernel_two\n";
    const NsysKernSum s = parse_nsys_kern_sum(text, "shifted.txt");
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 3.0);  // 3,000 ns
    EXPECT_EQ(s.kernels[1].instances, 4u);
    EXPECT_DOUBLE_EQ(*s.kernels[1].avg_us, 0.25);  // 250.0 ns
}

// ---- GPU trace -------------------------------------------------------------------------------------

// `nsys nvprof --print-gpu-trace` / `nsys stats --report cuda_gpu_trace` console: blank cells in kernel
// rows (Bytes, Throughput, memory kinds) and in copy rows (grid, block). Old code: "no kernel summary
// table found".
const std::string kConsoleTrace =
    " Start (ns)  Duration (ns)  CorrId  GrdX  GrdY  GrdZ  BlkX  BlkY  BlkZ  Bytes (MB)  SrcMemKd  Strm  Name\n"
    " ----------  -------------  ------  ----  ----  ----  ----  ----  ----  ----------  --------  ----  ------------------\n"
    "  1,000,000          4,000     101    64     1     1   256     1     1                          7  vec_add(float *)\n"
    "  1,010,000          2,000     102    64     1     1   256     1     1                          7  vec_add(float *)\n"
    "  1,020,000          9,000     103    64     1     1   256     1     1                          7  vec_add(float *)\n"
    "  1,030,000          1,500     104                                           4.194  Pageable     7  [CUDA memcpy "
    "Host-to-Device]\n"
    "  1,040,000         12,000     105     8     8     1    32    32     1                          7  gemm_tile(float *)\n"
    "\n";

TEST(NsysRealInputs, GpuTraceConsoleIsSummedPerKernelName) {
    const NsysKernSum s = parse_nsys_kern_sum(kConsoleTrace, "trace.txt");
    EXPECT_TRUE(s.from_trace);
    ASSERT_EQ(s.kernels.size(), 2u);
    // Most time first: gemm_tile 12,000 ns once; vec_add 4,000 + 2,000 + 9,000 = 15,000 ns over 3 launches.
    // Ordered by total: vec_add (15.0 us) before gemm_tile (12.0 us).
    const NsysKernel& v = s.kernels[0];
    EXPECT_EQ(v.name, "vec_add(float *)");
    EXPECT_EQ(v.instances, 3u);
    EXPECT_DOUBLE_EQ(v.total_us, 15.0);
    EXPECT_DOUBLE_EQ(*v.avg_us, 5.0);  // 15,000 / 3 ns
    EXPECT_DOUBLE_EQ(*v.med_us, 4.0);  // sorted 2,000 4,000 9,000: the middle one
    EXPECT_DOUBLE_EQ(*v.min_us, 2.0);
    EXPECT_DOUBLE_EQ(*v.max_us, 9.0);
    // Sample std. dev.: deviations -1,000, -3,000, 4,000 ns; squares 1e6 + 9e6 + 16e6 = 26e6; / (3 - 1) = 13e6;
    // sqrt = 3,605.551... ns = 3.605551 us (rounded to 10^-6 us).
    EXPECT_DOUBLE_EQ(*v.stddev_us, 3.605551);
    // time %: 15,000 / (15,000 + 12,000) = 55.555...%; the copy's 1,500 ns is not a kernel.
    EXPECT_NEAR(*v.time_pct, 100.0 * 15.0 / 27.0, 1e-12);
    EXPECT_EQ(s.kernels[1].name, "gemm_tile(float *)");
    EXPECT_DOUBLE_EQ(s.kernels[1].total_us, 12.0);
    EXPECT_DOUBLE_EQ(*s.kernels[1].med_us, 12.0);  // one launch: its own duration
    EXPECT_DOUBLE_EQ(*s.kernels[1].stddev_us, 0.0);
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("1 memory operation row"), std::string::npos) << s.warnings[0];
    EXPECT_NE(s.warnings[0].find("1.5 us in all"), std::string::npos) << s.warnings[0];  // 1,500 ns

    const IngestReport r = nsys_report(s, "trace.txt");
    EXPECT_EQ(r.sections[0].title, "Kernels (nsys GPU trace summed per kernel name; times only)");
    EXPECT_TRUE(has(r.sections[0].notes, "computed here"));
    // 15.0 + 12.0 us over 2 kernels and 3 + 1 = 4 launches.
    EXPECT_NE(r.summary.lines[0].find("kernel time 27.0 us over 2 kernels (4 launches)"), std::string::npos)
        << r.summary.lines[0];
}

TEST(NsysRealInputs, GpuTraceCsvInMicroseconds) {
    const std::string csv =
        "Processing [report.sqlite] with [cuda_gpu_trace.py]...\n"
        "\"Start (us)\",\"Duration (us)\",\"CorrId\",\"GrdX\",\"GrdY\",\"GrdZ\",\"BlkX\",\"BlkY\",\"BlkZ\",\"Strm\",\"Name\"\n"
        "10.5,2.5,1,1,1,1,32,1,1,7,\"k<int, 2>(int)\"\n"
        "20.0,3.5,2,1,1,1,32,1,1,7,\"k<int, 2>(int)\"\n"
        "30.0,0.5,3,,,,,,,7,\"[CUDA memset]\"\n";
    const NsysKernSum s = parse_nsys_kern_sum(csv, "trace.csv");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "k<int, 2>(int)");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 6.0);  // 2.5 + 3.5 us
    EXPECT_DOUBLE_EQ(*s.kernels[0].med_us, 3.0);   // two launches: (2.5 + 3.5) / 2
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_pct, 100.0);
    EXPECT_EQ(s.table_line, 2u);
    // An unquoted name with a comma (a hand-edited paste) spills into a cell past the header: joined back with the
    // comma it lost (review: it was joined with '|', "k<int| float>(int)").
    const NsysKernSum u =
        parse_nsys_kern_sum("Start (us),Duration (us),CorrId,GrdX,Name\n10.5,2.5,1,1,void k<int, float>(int)\n", "trace.csv");
    ASSERT_EQ(u.kernels.size(), 1u);
    EXPECT_EQ(u.kernels[0].name, "void k<int, float>(int)");
}

// A trace of copies only holds no kernel; an API trace (Start, Duration, Name, no launch shape) is not a
// GPU trace at all. Both are refused in one line.
TEST(NsysRealInputs, TracesWithoutKernelsAreRefused) {
    const std::string copies =
        "Start (ns),Duration (ns),CorrId,GrdX,Name\n"
        "1000,500,1,,[CUDA memcpy Host-to-Device]\n";
    try {
        parse_nsys_kern_sum(copies, "copies.csv");
        FAIL() << "a trace of copies only was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("holds no kernel launch (1 memory operation row only)"), std::string::npos)
            << e.what();
    }
    const std::string api =
        "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid\n"
        "1000,5000,cudaLaunchKernel,0,1,42,42\n";
    try {
        parse_nsys_kern_sum(api, "api.csv");
        FAIL() << "an API trace was read as kernels";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no kernel summary table found"), std::string::npos) << e.what();
    }
}

// A size column without a unit ("Bytes", not "Bytes (MB)") gave the copies no bytes without a word (tenth
// session's review). The bytes stay unknown (a bare number could be B or MB), and a warning says why.
TEST(NsysRealInputs, ASizeColumnWithoutAUnitIsWarned) {
    const std::string csv =
        "Start (ns),Duration (ns),CorrId,GrdX,Bytes,Name\n"
        "1000,500,1,,4000000,[CUDA memcpy Host-to-Device]\n"
        "2000,100,2,1,,k(int)\n";
    const NsysKernSum s = parse_nsys_kern_sum(csv, "trace.csv");
    ASSERT_EQ(s.memory_ops.size(), 1u);
    EXPECT_FALSE(s.memory_ops[0].bytes.has_value());
    EXPECT_DOUBLE_EQ(s.memory_ops[0].total_us, 0.5);  // 500 ns
    EXPECT_TRUE(has(s.warnings, "column 'Bytes' names no size unit")) << ::testing::PrintToString(s.warnings);
    // With the unit the same row has its bytes: 4,000,000 MB would be absurd, so take a real size: 4.000 MB = 4e6 B.
    const NsysKernSum m = parse_nsys_kern_sum(
        "Start (ns),Duration (ns),CorrId,GrdX,Bytes (MB),Name\n1000,500,1,,4.000,[CUDA memcpy Host-to-Device]\n2000,100,2,1,,"
        "k(int)\n",
        "trace.csv");
    ASSERT_EQ(m.memory_ops.size(), 1u);
    EXPECT_DOUBLE_EQ(*m.memory_ops[0].bytes, 4e6);
    EXPECT_FALSE(has(m.warnings, "names no size unit"));
}

// The real file (a README of NVIDIA's concurrentKernels sample on an RTX 3060): 8 clock_block launches on 8
// streams, one sum, one copy.
TEST(NsysRealInputs, NvprofPrintGpuTraceReadme) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys_nvprof_print_gpu_trace_console_rtx3060_concurrent_kernels_readme.md"), "readme.md");
    ASSERT_EQ(s.kernels.size(), 2u);
    // clock_block: 10,047,686 + 10,049,190 + 10,054,311 + 10,055,558 + 10,054,631 + 10,051,079 + 10,050,087
    // + 10,048,102 = 80,410,644 ns; median of the 8 = (10,050,087 + 10,051,079) / 2 = 10,050,583 ns.
    EXPECT_EQ(s.kernels[0].name, "clock_block(long *, long)");
    EXPECT_EQ(s.kernels[0].instances, 8u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 80410.644);
    EXPECT_DOUBLE_EQ(*s.kernels[0].med_us, 10050.583);
    EXPECT_DOUBLE_EQ(*s.kernels[0].min_us, 10047.686);
    EXPECT_DOUBLE_EQ(*s.kernels[0].max_us, 10055.558);
    EXPECT_EQ(s.kernels[1].name, "sum(long *, int)");
    EXPECT_DOUBLE_EQ(s.kernels[1].total_us, 1014.454);  // 1,014,454 ns
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("1.4 us in all"), std::string::npos) << s.warnings[0];  // the copy's 1,408 ns
}

// ---- wording ---------------------------------------------------------------------------------------

// Old code: "kernel time 22.9 us over 1 kernel (1 launches)" and "(22.9 us over 1 kernels)".
TEST(NsysRealInputs, OneLaunchIsSingular) {
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("corpus/nsys/nsys2021_stats_console_no_unit_headers_elided_api_rows_csc_puhti.md"), "csc.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 22.912);  // "Total Time" without a unit: nsys's ns
    EXPECT_TRUE(s.warnings.empty());                  // the '....' lines are in the API and OS tables, not this one
    const IngestReport r = nsys_report(s, "csc.md");
    EXPECT_NE(r.summary.lines[0].find("over 1 kernel (1 launch)"), std::string::npos) << r.summary.lines[0];
    EXPECT_TRUE(has(r.sections[1].notes, "over 1 kernel)"));
}

// ---- text that is not UTF-8 ------------------------------------------------------------------------

// A kernel name with a Latin-1 byte (0xFF) or a UTF-8 character cut short (0xE2 alone) reached the JSON writer
// as is: "internal error: invalid UTF-8 byte", exit 1. Each such byte is now U+FFFD, with a warning.
TEST(NsysRealInputs, NamesThatAreNotUtf8AreRepairedAndWarned) {
    const std::string csv =
        "Time (%),Total Time (ns),Instances,Name\n"
        "60.0,600,1,kern\xff_a\n"
        "40.0,400,1,\"k\xe2\"\n";
    const NsysKernSum s = parse_nsys_kern_sum(csv, "latin1.csv");
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "kern\xef\xbf\xbd_a");
    EXPECT_EQ(s.kernels[1].name, "k\xef\xbf\xbd");
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("2 bytes of the kernel names are not UTF-8"), std::string::npos) << s.warnings[0];
    std::size_t n = 0;
    // Valid sequences pass unchanged: 2, 3 and 4 bytes; an overlong form (0xC0 0xAF), a surrogate (0xED 0xA0 0x80)
    // and a 4-byte form past U+10FFFF (0xF4 0x90 ...) do not: one U+FFFD per byte.
    EXPECT_EQ(ingest::valid_utf8("\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80", n), "\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80");
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(ingest::valid_utf8("\xc0\xaf", n), "\xef\xbf\xbd\xef\xbf\xbd");
    EXPECT_EQ(ingest::valid_utf8("\xed\xa0\x80", n), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    EXPECT_EQ(ingest::valid_utf8("\xf4\x90\x80\x80", n), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    EXPECT_EQ(n, 2u + 3u + 4u);
}

// A name without a function name is cut to 60 bytes for the table: never inside a UTF-8 character.
// "(" + 40 x "é" (2 bytes each) = 81 bytes; byte 60 is the second byte of the 30th "é", so the cut falls back
// to 59 bytes: "(" and 29 "é".
TEST(NsysRealInputs, AShortNameIsNotCutInsideACharacter) {
    std::string name = "(";
    for (int i = 0; i < 40; ++i)
        name += "\xc3\xa9";
    name += ")";
    const std::string cut = short_kernel_name(name);
    EXPECT_EQ(cut.size(), 59u);
    std::size_t n = 0;
    EXPECT_EQ(ingest::valid_utf8(cut, n), cut);
    EXPECT_EQ(n, 0u);
}

// A paste that starts inside a table (its header cut off above): its rows are not read, and a warning says so
// rather than dropping them in silence. nvprof --metrics and ncu output are named for `ingest ncu`; a file whose only
// table with a header is cuda_gpu_mem_size_sum (sizes, no times) is refused saying that, not "no GPU work".
TEST(NsysRealInputs, HeaderlessRowsSizeOnlyTablesAndOtherProfilers) {
    const NsysKernSum ik = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2025_5_stats_console_headerless_kern_rows_ellipsis_then_mem_time_sum_peer_to_peer_ik_llama_"
                "excerpt.txt"),
        "ik.txt");
    EXPECT_TRUE(ik.kernels.empty());
    ASSERT_EQ(ik.memory_ops.size(), 4u);
    EXPECT_EQ(ik.memory_ops[1].operation, "[CUDA memcpy Peer-to-Peer]");
    EXPECT_DOUBLE_EQ(ik.memory_ops[1].total_us, 7493966.99);  // 7,493,966,990 ns
    EXPECT_TRUE(has(ik.warnings, "2 rows from line 1 on look like the rows of a table whose header is not in the file"));

    const auto refusal = [](const std::string& text) {
        try {
            parse_nsys_kern_sum(text, "f.txt");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("read");
    };
    const std::string vllm = refusal(
        fixture("corpus/nsys/nsys2024_stats_console_mem_size_sum_only_headerless_mem_time_rows_vllm_offload_excerpt.txt"));
    EXPECT_NE(vllm.find("cuda_gpu_mem_size_sum report (memory operation sizes, no times)"), std::string::npos) << vllm;
    EXPECT_NE(vllm.find("4 rows from line 2 on"), std::string::npos) << vllm;
    EXPECT_EQ(vllm.find("holds no GPU work"), std::string::npos) << vllm;
    const std::string nvprof =
        refusal(fixture("corpus/ncu/nvprof_metrics_console_v100_transpose_dram_read_write_throughput_only_blog_excerpt.txt"));
    EXPECT_NE(nvprof.find("holds nvprof --metrics output"), std::string::npos) << nvprof;
    const std::string both =  // an Event result table first, then the Metric result one: named as metrics
        refusal(fixture("corpus/ncu/nvprof_events_and_metrics_console_gtx980_maxdnn_tab_indented_kernel_no_dram_readme.md"));
    EXPECT_NE(both.find("holds nvprof --metrics output"), std::string::npos) << both;
    const std::string ncu =
        refusal(fixture("corpus/ncu/ncu2022_console_command_line_metrics_l1tex_sectors_only_transpose.profile"));
    EXPECT_NE(ncu.find("holds Nsight Compute (ncu) output"), std::string::npos) << ncu;
    const std::string omni =
        refusal(fixture("corpus/nsys/rocprof_compute_analyze_top_kernels_box_table_wrapped_names_pr566_excerpt.txt"));
    EXPECT_NE(omni.find("holds rocprof-compute (omniperf) analyze output"), std::string::npos) << omni;
}

// nsys's 2020-2022 size table ("Total  Operations ... Operation" under "(by size in KiB)") is a size table wherever
// the reader looks: its rows are not taken for a table whose header was cut (old code: "rows of a table whose header
// is not in the file ... not read" while they are read), and a file of it alone is refused as sizes without times.
TEST(NsysRealInputs, OldSizeTableHeaderIsKnownEverywhere) {
    const std::string size =
        "CUDA Memory Operation Statistics (by size in KiB):\n"
        "\n"
        "     Total       Operations     Average        Minimum        Maximum         Operation     \n"
        " --------------  ----------  -------------  -------------  -------------  ------------------\n"
        "         39.062           2         19.531          0.000         39.062  [CUDA memcpy DtoH]\n"
        "         78.125          30          2.604          2.604          2.604  [CUDA memcpy HtoD]\n";
    const std::string time =
        "\n"
        "CUDA Memory Operation Statistics (by time):\n"
        "\n"
        " Time(%)  Total Time (ns)  Operations  Average  Minimum  Maximum      Operation     \n"
        " -------  ---------------  ----------  -------  -------  -------  ------------------\n"
        "    60.0            30000          30   1000.0      900     1100  [CUDA memcpy HtoD]\n"
        "    40.0            20000           2  10000.0     9000    11000  [CUDA memcpy DtoH]\n";
    const NsysKernSum s = parse_nsys_kern_sum(size + time, "old2.txt");
    ASSERT_EQ(s.memory_ops.size(), 2u);
    for (const NsysMemOp& m : s.memory_ops) {
        ASSERT_TRUE(m.bytes.has_value()) << m.operation;
        // KiB = 1024 B: HtoD 78.125 x 1024 = 80,000 B; DtoH 39.062 x 1024 = 39,999.488 B
        EXPECT_NEAR(*m.bytes, m.operation == "[CUDA memcpy HtoD]" ? 80000.0 : 39999.488, 1e-6) << m.operation;
    }
    for (const std::string& w : s.warnings)
        EXPECT_EQ(w.find("header is not in the file"), std::string::npos) << w;
    try {
        parse_nsys_kern_sum(size, "old.txt");
        ADD_FAILURE() << "sizes without times were read";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("cuda_gpu_mem_size_sum report (memory operation sizes, no times)"), std::string::npos) << m;
        EXPECT_EQ(m.find("header is not in the file"), std::string::npos) << m;
    }
}

// ncu's own CSV export and a log of ncu's ==ERROR== / ==WARNING== lines belong to `bwacct ingest ncu` (old code:
// "no kernel summary table found").
TEST(NsysRealInputs, NcuCsvAndNcuMessagesPointToIngestNcu) {
    for (const std::string& text :
         {std::string("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Section "
                      "Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                      "\"0\",\"4242\",\"app\",\"127.0.0.1\",\"k\",\"1\",\"7\",\"s\",\"dram__bytes_read.sum\",\"byte\",\"100\"\n"),
          std::string("==ERROR== The application returned an error code (1).\n==WARNING== No kernels were profiled.\n")}) {
        try {
            parse_nsys_kern_sum(text, "ncu.txt");
            ADD_FAILURE() << text;
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("read it with `bwacct ingest ncu`"), std::string::npos) << e.what();
        }
    }
}

// Real GPU traces whose own Throughput column is wrong or whose memset row leaves a cell blank: the bytes and the
// durations decide, never the printed rate.
TEST(NsysRealInputs, GpuTraceRatesComeFromBytesAndDurations) {
    const NsysKernSum a = parse_nsys_kern_sum(
        fixture("corpus/nsys/"
                "nsys2023_nvprof_print_gpu_trace_console_a30_vectoradd_7200mb_copies_throughput_printed_0_two_runs_excerpt.md"),
        "a30.md");
    ASSERT_EQ(a.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(a.kernels[0].total_us, 25627.697);  // 25,627,697 ns
    ASSERT_EQ(a.memory_ops.size(), 2u);
    EXPECT_EQ(a.memory_ops[0].operation, "[CUDA memcpy HtoD]");
    EXPECT_EQ(a.memory_ops[0].count, 2u);
    EXPECT_DOUBLE_EQ(*a.memory_ops[0].bytes, 14.4e9);          // 2 x 7,200.000 MB
    EXPECT_DOUBLE_EQ(a.memory_ops[0].total_us, 15410211.686);  // 7,688,744,098 + 7,721,467,588 ns
    EXPECT_EQ(a.other_tables, std::vector<std::size_t>{39});   // the second run's table
    // 14.4e9 B / 15.410211686 s = 0.93445 GB/s, though nsys printed 0.000 MBps.
    EXPECT_NEAR(*a.memory_ops[0].bytes / (a.memory_ops[0].total_us * 1e3), 0.934445, 1e-6);

    const NsysKernSum r = parse_nsys_kern_sum(
        fixture(
            "corpus/nsys/nsys_nvprof_print_gpu_trace_console_rtx3060_cutlass_sgemm_memset_blank_dstmemkd_cu_comment_excerpt.txt"),
        "m.txt");
    ASSERT_EQ(r.kernels.size(), 1u);
    EXPECT_EQ(r.kernels[0].category, KernelCategory::gemm);
    EXPECT_DOUBLE_EQ(r.kernels[0].total_us, 726902.735);
    ASSERT_EQ(r.memory_ops.size(), 3u);
    EXPECT_EQ(r.memory_ops[1].operation, "[CUDA memset]");  // SrcMemKd "Device", DstMemKd blank
    EXPECT_DOUBLE_EQ(*r.memory_ops[1].bytes, 1610.613e6);   // 1,610.613 MB, not a shifted cell
    EXPECT_DOUBLE_EQ(r.memory_ops[1].total_us, 4709.456);   // 4,709,456 ns
    EXPECT_DOUBLE_EQ(*r.memory_ops[0].bytes, 1342.177e6);   // 805.306 + 536.871 MB
}

// Old code: a bare "Bytes" title (nsys 2020.4's gputrace) gave no bytes. The trace's own Thru(MB/s) decides the unit:
// Bytes / Duration must give it on every memory row.
TEST(NsysRealInputs, BareBytesColumnUnitDecidedByTheTracesOwnRate) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2020_4_gputrace_console_bare_bytes_column_thru_mb_s_a100pcie_omp_offload_excerpt.md"), "g.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 222.08);  // 222,080 ns
    ASSERT_EQ(s.memory_ops.size(), 2u);
    const NsysMemOp& dtoh = s.memory_ops[0];
    const NsysMemOp& htod = s.memory_ops[1];
    EXPECT_EQ(dtoh.operation, "[CUDA memcpy DtoH]");
    EXPECT_DOUBLE_EQ(*dtoh.bytes, 12000001.0);  // 1 + 3 x 4,000,000 B
    EXPECT_DOUBLE_EQ(dtoh.total_us, 1144.134);  // 5,120 + 388,706 + 356,354 + 393,954 ns
    EXPECT_DOUBLE_EQ(*htod.bytes, 12000004.0);  // 4 + 3 x 4,000,000 B
    EXPECT_DOUBLE_EQ(htod.total_us, 4194.961);  // 2,911 + 1,400,294 + 1,399,398 + 1,392,358 ns
    bool said = false;
    for (const std::string& w : s.warnings)
        said = said || w.find("column 'Bytes' names no size unit: read in bytes") != std::string::npos;
    EXPECT_TRUE(said);
    // One row whose rate fits neither unit leaves the column unread, as before: the same file with one printed rate
    // changed (4,000,000 B over 1,400,294 ns is 2,856.5 MB/s, not 9,999.000, in B or in MB).
    std::string text =
        fixture("corpus/nsys/nsys2020_4_gputrace_console_bare_bytes_column_thru_mb_s_a100pcie_omp_offload_excerpt.md");
    const std::string rate = "2,856.543";
    ASSERT_NE(text.find(rate), std::string::npos);
    text.replace(text.find(rate), rate.size(), "9,999.000");
    const NsysKernSum bad = parse_nsys_kern_sum(text, "b.md");
    ASSERT_EQ(bad.memory_ops.size(), 2u);
    EXPECT_FALSE(bad.memory_ops[1].bytes.has_value());
}

// Old code: "no kernel summary table found". nvprof's summary pasted from its first row, the header line cut: the
// "GPU activities:" label (a percentage, then a time with its unit) is read in nvprof's column order.
TEST(NsysRealInputs, NvprofSummaryWithoutItsHeaderLine) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nvprof_summary_headerless_gpu_activities_rows_meshmode_issue103_excerpt.md"), "m.md");
    EXPECT_TRUE(s.from_nvprof);
    ASSERT_EQ(s.kernels.size(), 10u);
    EXPECT_EQ(s.kernels[0].name, "resample_by_picking");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 1728980.0);  // 1.72898 s
    EXPECT_EQ(s.kernels[0].instances, 28160u);
    EXPECT_DOUBLE_EQ(*s.kernels[0].min_us, 3.424);  // 3.4240us
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_pct, 15.95);
    EXPECT_DOUBLE_EQ(s.kernels[5].total_us, 954480.0);  // axpb 954.48ms
    ASSERT_EQ(s.memory_ops.size(), 3u);
    EXPECT_EQ(s.memory_ops[1].operation, "[CUDA memcpy DtoD]");
    EXPECT_DOUBLE_EQ(s.memory_ops[1].total_us, 171510.0);  // 171.51ms
    EXPECT_EQ(s.table_line, 3u);
    EXPECT_NE(s.warnings[0].find("the nvprof summary at line 3 has no header line"), std::string::npos) << s.warnings[0];
    // Prose naming the label is not a row: "GPU activities: none" has no percentage and time. Before a headless
    // row, the prose line is passed over and the row's line is the table's (the rule firing on prose reads line 1).
    const NsysKernSum after = parse_nsys_kern_sum(
        "GPU activities: none were profiled before the loop\n"
        " GPU activities:   60.00%  6.0000ms         2  3.0000ms  2.0000ms  4.0000ms  kA\n",
        "p.txt");
    EXPECT_EQ(after.table_line, 2u);
    ASSERT_EQ(after.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(after.kernels[0].total_us, 6000.0);  // 6.0000ms
    try {
        parse_nsys_kern_sum("GPU activities: none were profiled\n", "p.txt");
        ADD_FAILURE() << "prose read as a table";
    } catch (const InputError& e) {
        // The refusal of a file with no table, not an error from reading the prose as rows.
        EXPECT_NE(std::string(e.what()).find("no kernel summary table found"), std::string::npos) << e.what();
    }
}

// Old code: the second run's "GPU activities:" block of a headerless paste was dropped without a word. It is named
// as a further table, as for headed summaries.
TEST(NsysRealInputs, NvprofHeaderlessPasteOfTwoRunsNamesTheSecond) {
    const NsysKernSum s = parse_nsys_kern_sum(
        "run 1:\n"
        " GPU activities:   60.00%  6.0000ms         2  3.0000ms  2.0000ms  4.0000ms  kA\n"
        "                   40.00%  4.0000ms         1  4.0000ms  4.0000ms  4.0000ms  kB\n"
        "\n"
        "run 2:\n"
        " GPU activities:   70.00%  7.0000ms         2  3.5000ms  2.0000ms  5.0000ms  kA\n"
        "                   30.00%  3.0000ms         1  3.0000ms  3.0000ms  3.0000ms  kB\n",
        "r.log");
    EXPECT_EQ(s.table_line, 2u);
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us + s.kernels[1].total_us, 10000.0);  // run 1: 6 ms + 4 ms
    ASSERT_EQ(s.other_tables.size(), 1u);
    EXPECT_EQ(s.other_tables[0], 6u);
    const IngestReport r = nsys_report(s, "r.log");
    bool named = false;
    for (const std::string& w : r.warnings)
        named = named || w.find("the one(s) at line 6 were not read") != std::string::npos;
    EXPECT_TRUE(named);
}

// `nsys nvprof --print-gpu-trace` of one run (report9) then `--stats=true` of the next (report10) in one block: the
// kernel summary and the memory tables after it are read, the trace above is named as not read.
TEST(NsysRealInputs, SummaryOfTheNextRunReadTheTraceAboveNamed) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys_nvprof_gpu_trace_then_stats_of_next_run_a100_4kb_pages_vectoradd_excerpt.md"), "a.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_FALSE(s.from_trace);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 447.006);  // report10's 447,006 ns, not report9's trace row 448,062
    ASSERT_EQ(s.memory_ops.size(), 2u);
    for (const NsysMemOp& m : s.memory_ops) {
        ASSERT_TRUE(m.bytes) << m.operation;
        if (m.operation == "[CUDA memcpy HtoD]") {
            EXPECT_EQ(m.count, 2u);
            EXPECT_DOUBLE_EQ(m.total_us,
                             69454.749);  // report10's 69,454,749 ns = 21,023,819 + 48,430,930 (its min and max of 2),
            // not report9's trace: 20,912,712 + 47,622,927 = 68,535,639
            EXPECT_DOUBLE_EQ(*m.bytes, 400e6);  // 400.000 MB
        } else {
            EXPECT_EQ(m.operation, "[CUDA memcpy DtoH]");
            EXPECT_DOUBLE_EQ(m.total_us, 90594.918);  // 200e6 B / 90,594,918 ns = 2.2076 GB/s
        }
    }
    EXPECT_TRUE(has(s.warnings, "the GPU trace at line 17 (one row per launch) is not read"));
}

}  // namespace
