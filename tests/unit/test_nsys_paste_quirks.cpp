// nsys and rocprof tables as terminals, locales and pastes left them (nsight9's files): a decimal-comma locale, a
// header wrapped by a narrow terminal with blank lines between rows, rows annotated with '# ' notes, two runs of which
// the first has no kernel table, rocprof statistics files joined by cat, and rows cut at a fixed width. Expected
// numbers by hand; the arithmetic is in the comments.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <chrono>
#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

std::string refusal(const std::string& text, const std::string& origin = "f.txt") {
    return bwacct_test::nsys_refusal(text, origin);
}

bool warns(const NsysKernSum& s, const std::string& what) { return bwacct_test::any_holds(s.warnings, what); }

const NsysMemOp* op(const NsysKernSum& s, const std::string& name) {
    for (const NsysMemOp& m : s.memory_ops)
        if (m.operation == name)
            return &m;
    return nullptr;
}

// nsys 2023+ console tables of one row each, ended by a blank line: cuda_gpu_mem_time_sum with `count` host-to-device
// copies taking `total` ns, and cuda_gpu_kern_sum with one kernel `name` (20 instances, 2,000,000 ns).
std::string mem_table(const char* total, const char* count) {
    return fmt::format(
        " Time (%)  Total Time (ns)  Count  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)           Operation\n"
        " --------  ---------------  -----  ---------  ---------  --------  --------  -----------  "
        "----------------------------\n"
        "    100.0  {:>15}  {:>5}  100,000.0  100,000.0   100,000   100,000          0.0  [CUDA memcpy Host-to-Device]\n\n",
        total, count);
}
std::string kern_table(const char* name) {
    return fmt::format(
        " Time (%)  Total Time (ns)  Instances  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)  Name\n"
        " --------  ---------------  ---------  ---------  ---------  --------  --------  -----------  ----\n"
        "    100.0        2,000,000         20  100,000.0  100,000.0   100,000   100,000          0.0  {}\n\n",
        name);
}

// Old code: "line 24: '33,0' is not a non-negative number" (and, had the Time(%) column been absent, '2.176' ns
// read as 2.176 ns, 1000x short).
TEST(NsysPasteQuirks, DecimalCommaLocaleReadWithItsSeparators) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2021_2_stats_console_decimal_comma_locale_openacc_hpcsdk_excerpt.md"), "l.md");
    ASSERT_EQ(s.kernels.size(), 3u);
    EXPECT_EQ(s.kernels[0].name, "loop_2_38_gpu");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 2.176);  // '2.176' = 2,176 ns
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 2.176);   // '2.176,0' = 2,176.0 ns
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_pct, 33.0);  // '33,0'
    EXPECT_DOUBLE_EQ(s.kernels[2].total_us, 2.113);  // loop_3_55_gpu '2.113'
    // 33 + 33 + 32 = 98 %, yet each is its row's share cut to a whole percent: 2,176 / 6,433 = 33.8 %,
    // 2,144 / 6,433 = 33.3 %, 2,113 / 6,433 = 32.8 %. Every row is there: no "part of the kernels" warning.
    EXPECT_FALSE(warns(s, "holds only part of the run's kernels"));
    EXPECT_TRUE(warns(s, "line 10: '93,0' is a number of a decimal-comma locale")) << s.warnings.front();
    const NsysMemOp* h2d = op(s, "[CUDA memcpy HtoD]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->count, 5u);
    EXPECT_DOUBLE_EQ(h2d->total_us, 4.576);  // '4.576' = 4,576 ns
    // '19,000' KiB = 19.000 x 1024 = 19,456 B as printed; but nsys cut each size to whole KiB there (5 copies of
    // '3,000' cannot add up to '19,000' unless each was more than 3 KiB): a lower bound, warned.
    EXPECT_DOUBLE_EQ(*h2d->bytes, 19456.0);
    EXPECT_TRUE(warns(s, "gives no unit: read in KiB"));
    EXPECT_TRUE(warns(s, "line 40: the memory size table is of a decimal-comma locale")) << s.warnings.size();
    EXPECT_TRUE(warns(s, "its bytes and GB/s are lower bounds"));

    // The same rule on a table of its own: thousands with '.', decimals with ','.
    const std::string t =
        " Time(%)  Total Time (ns)  Instances   Average   Minimum   Maximum  Name\n"
        " -------  ---------------  ---------  ---------  -------  -------  ----\n"
        "    75,5       12.345.678         10  1.234.567,8  1.000.000  2.000.000  k_a\n"
        "    24,5        4.000.000          4  1.000.000,0  1.000.000  1.000.000  k_b\n";
    const NsysKernSum m = parse_nsys_kern_sum(t, "t.txt");
    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(m.kernels[0].total_us, 12345.678);  // 12,345,678 ns
    EXPECT_DOUBLE_EQ(*m.kernels[0].time_pct, 75.5);
    EXPECT_DOUBLE_EQ(*m.kernels[0].avg_us, 1234.5678);  // 1,234,567.8 ns

    // Whole percents that are not the shares of the rows shown (50 and 20 of a 7,000 ns total: 71.4 and 28.6 %)
    // still say the table is cut.
    const NsysKernSum cut = parse_nsys_kern_sum(
        " Time (%)  Total Time (ns)  Instances  Name\n"
        " --------  ---------------  ---------  ----\n"
        "     50.0            5,000          1  k_a\n"
        "     20.0            2,000          1  k_b\n",
        "cut.txt");
    EXPECT_TRUE(warns(cut, "adds up to 70.0 % over its 2 kernel rows"));
    // Whole percents that are the rows' shares excuse a short sum only in a decimal-comma table (whose nsys cut them):
    // a C-locale '50.0' and '49.0' (shares of 99,000 ns: 50.5 and 49.5 %, each cut) add up to 99.0 < 100 - 0.5 - 2 x
    // 0.05 = 99.4: a row is missing. Old code: no warning.
    const NsysKernSum c_cut = parse_nsys_kern_sum(
        " Time (%)  Total Time (ns)  Instances  Name\n"
        " --------  ---------------  ---------  ----\n"
        "     50.0           50,000         10  k_a\n"
        "     49.0           49,000         10  k_b\n",
        "w.txt");
    EXPECT_TRUE(warns(c_cut, "adds up to 99.0 % over its 2 kernel rows"));
}

// The locale is told by a table's own numeric cells, never by digits in a name, and only where the C reading fails.
// Old code: a name token decided it for the whole file and the swap touched names too.
TEST(NsysPasteQuirks, DecimalCommaToldByTheNumericCellsOnly) {
    // A C-locale GPU trace (nsys 2020.4) then an NVTX range named "solver 1,5 v". Old code: the kernel 0.222 us
    // (its '222,080' ns read as 222.080), the memcpys 1000x short.
    std::string g =
        fixture("corpus/nsys/nsys2020_4_gputrace_console_bare_bytes_column_thru_mb_s_a100pcie_omp_offload_excerpt.md");
    g = g.substr(0, g.rfind("```")) +
        " Time(%)  Total Time (ns)  Instances   Average    Minimum  Maximum    Range\n"
        " -------  ---------------  ---------  ---------  -------  -------  ------------\n"
        "   100.0        1,234,567          1  1234567.0  1234567  1234567  solver 1,5 v\n";
    const NsysKernSum t = parse_nsys_kern_sum(g, "g.md");
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(t.kernels[0].total_us, 222.08);  // '222,080' ns
    EXPECT_FALSE(warns(t, "decimal-comma"));
    // A C-locale kernel table, then an NVTX range ':lr 0,01 step 3'. Old code: refused ("'60,0' is not a
    // non-negative number").
    const std::string kern =
        " Time (%)  Total Time (ns)  Instances   Avg (ns)     Med (ns)    Min (ns)   Max (ns)   StdDev (ns)   Name\n"
        " --------  ---------------  ---------  ----------  -----------  ---------  ---------  -----------  -----------\n"
        "     60.0        1,234,567         10   123,456.7    123,000.0    120,000    130,000      1,234.5  gemm_kernel\n"
        "     40.0          823,045          5   164,609.0    164,000.0    160,000    170,000       12.345  copy_kernel\n";
    const NsysKernSum c =
        parse_nsys_kern_sum(kern +
                                "\n Time (%)  Total Time (ns)  Instances   Avg (ns)   Style    Range\n"
                                " --------  ---------------  ---------  ----------  -------  ---------------\n"
                                "    100.0      123,456,789          1  123,456,789.0  PushPop  :lr 0,01 step 3\n",
                            "c.txt");
    ASSERT_EQ(c.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(c.kernels[0].total_us, 1234.567);    // 1,234,567 ns
    EXPECT_DOUBLE_EQ(*c.kernels[1].stddev_us, 0.012345);  // 12.345 ns
    // A decimal-comma table: its numbers swapped, the digits in its names not.
    const NsysKernSum d = parse_nsys_kern_sum(
        " Time(%)  Total Time (ns)  Instances   Average    Minimum    Maximum                    Name\n"
        " -------  ---------------  ---------  ---------  ---------  ---------  ------------------------------------------\n"
        "    75,5       12.345.678         10  1.234.567,8  1.000.000  2.000.000  void gemm<float, 128, 64, 1.5>(float *, int)\n"
        "    24,5        4.000.000          4  1.000.000,0  1.000.000  1.000.000  void k<128, 4>(int)\n",
        "d.txt");
    ASSERT_EQ(d.kernels.size(), 2u);
    EXPECT_EQ(d.kernels[0].name, "void gemm<float, 128, 64, 1.5>(float *, int)");
    EXPECT_EQ(d.kernels[1].name, "void k<128, 4>(int)");
    EXPECT_DOUBLE_EQ(d.kernels[0].total_us, 12345.678);  // '12.345.678' ns
}

// A decimal-comma table pasted with blanks between thousands ("2 176"; a French locale's no-break space turned into a
// blank): the numbers split into cells of their own. Old code: 3 kernels of 0.002 us with 176, 144, 113 instances.
// Row 1 then reads Total '2' ns, Instances '176', Average '1', Minimum '2', Maximum '176,0' = 176 ns > 2 ns: refused.
TEST(NsysPasteQuirks, BlanksBetweenThousandsRefused) {
    const std::string r = refusal(
        " Time(%)  Total Time (ns)  Instances  Average  Minimum  Maximum      Name     \n"
        " -------  ---------------  ---------  -------  -------  -------  -------------\n"
        "    33,0            2 176          1  2 176,0    2 176    2 176  loop_2_38_gpu\n"
        "    33,0            2 144          1  2 144,0    2 144    2 144  loop_1_21_gpu\n",
        "fr.txt");
    EXPECT_NE(r.find("fr.txt: line 3: the cells do not line up with the header"), std::string::npos) << r;
    EXPECT_EQ(r.find('\n'), std::string::npos);
}

// A C-locale table is left as it is: '12,345' is twelve thousand, '1.5' one and a half.
TEST(NsysPasteQuirks, CLocaleNumbersUntouched) {
    const std::string t =
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Name\n"
        " --------  ---------------  ---------  --------  ----\n"
        "    100.0           12,345          2   6,172.5  k_a\n";
    const NsysKernSum s = parse_nsys_kern_sum(t, "t.txt");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 12.345);
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 6.1725);
    EXPECT_TRUE(s.warnings.empty());
}

// Old code: "line 20: kernel table header without the dashed rule" never came: the header lacked "Name", so no
// kernel table was found at all.
TEST(NsysPasteQuirks, WrappedHeaderAndBlankLinesBetweenRows) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2021_hpcsdk21_7_gpukernsum_wrapped_name_title_blank_lines_between_rows_openacc_mlp_excerpt.md"),
        "w.md");
    ASSERT_EQ(s.kernels.size(), 13u);                       // 2 rows, then 11 more with blank lines between some of them
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 39754166.488);  // 39,754,166,488 ns
    EXPECT_EQ(s.kernels[0].instances, 37500u);
    EXPECT_EQ(s.kernels[12].name,
              "mean_acc_168_gpu__red(unsigned char const*, unsigned char const*, unsigned long, unsigned long)");
    EXPECT_DOUBLE_EQ(s.kernels[12].total_us, 21.504);
    EXPECT_EQ(s.kernels[12].instances, 10u);
    const NsysMemOp* h2d = op(s, "[CUDA memcpy HtoD]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->count, 459450u);
    EXPECT_DOUBLE_EQ(h2d->total_us, 3985089.015);
    // 39,595,542.188 KiB x 1024 = 40,545,835,200.512 B: 10.174 GB/s over 3,985,089,015 ns
    EXPECT_NEAR(*h2d->bytes, 40545835200.512, 1e-3);

    // Two blank lines, or a blank line then text, end the table as before.
    const std::string t =
        " Time (%)  Total Time (ns)  Instances  Name\n"
        " --------  ---------------  ---------  ----\n"
        "     60.0            6,000          3  k_a\n"
        "\n"
        "     40.0            4,000          1  k_b\n"
        "\n"
        "\n"
        "     10.0            1,000          1  other_table_row\n";
    const NsysKernSum b = parse_nsys_kern_sum(t, "t.txt");
    ASSERT_EQ(b.kernels.size(), 2u);
    EXPECT_EQ(b.kernels[1].name, "k_b");
}

// One blank line, then header-less rows of another report with the same number of cells: they do not go on the
// kernel table. Old code: 4 kernels (31,663.8 us), the memory copies among them, time % adding up to 198.4.
TEST(NsysPasteQuirks, RowsAfterABlankLineThatCannotBelongEndTheTable) {
    const std::string head =
        " Time (%)  Total Time (ns)  Instances  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)  Name\n"
        " --------  ---------------  ---------  ---------  ---------  --------  --------  -----------  ----\n"
        "     70.0        7,000,000        100   70,000.0   70,000.0    69,000    71,000        500.0  k_sgemm\n"
        "     30.0        3,000,000        100   30,000.0   30,000.0    29,000    31,000        500.0  k_add\n"
        "\n";
    // A bracketed name is nsys's memory operation, never a kernel.
    const NsysKernSum a = parse_nsys_kern_sum(
        head +
            "     64.4       14,169,797    460   30,768.3     416.0       384  44,591    623.0  [CUDA memcpy Host-to-Device]\n",
        "a.txt");
    ASSERT_EQ(a.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(a.kernels[0].total_us + a.kernels[1].total_us, 10000.0);  // 7,000,000 + 3,000,000 ns
    // 64.4 % after 30.0 % breaks nsys's most-time-first order (and 70 + 30 + 64.4 = 164.4 > 100).
    const NsysKernSum b = parse_nsys_kern_sum(
        head + "     64.4       14,169,797    460   30,768.3     416.0       384  44,591    623.0  other_report_row\n", "b.txt");
    EXPECT_EQ(b.kernels.size(), 2u);
    // A row that fits (0.0 <= 30.0, 70 + 30 + 0 = 100) still goes on the table.
    const NsysKernSum c = parse_nsys_kern_sum(
        head + "      0.0            1,000          1    1,000.0    1,000.0     1,000     1,000          0.0  k_tail\n", "c.txt");
    ASSERT_EQ(c.kernels.size(), 3u);
    EXPECT_EQ(c.kernels[2].name, "k_tail");
    // 0.0 % fits the % checks, but its total 14,169,797 ns = 14,169.797 us exceeds the last row's 3,000 us (and the
    // first row's 7,000 us): nsys sorts by total time, so not a row of this table. Old code: a third kernel of 14,169.8 us.
    const NsysKernSum d = parse_nsys_kern_sum(
        head + "      0.0       14,169,797    460   30,768.3     416.0       384  44,591    623.0  other_report_row\n", "d.txt");
    ASSERT_EQ(d.kernels.size(), 2u);
    EXPECT_EQ(d.kernels[1].name, "k_add");
}

// Whole percents are let short of 100 only for a kernel table read in a decimal-comma locale (nsys 2021 cuts them
// there), not because another table of the file was: a C-locale cut table (50.0 + 49.0 = 99.0 < 100 - 0.5 - 2 x 0.05
// = 99.4), then a decimal-comma run, warns. A size table of that other run is not read, and gives no "lower bounds"
// warning. Old code: no "adds up" warning (the exemption keyed on the file), and the lower-bound warning for line 10.
TEST(NsysPasteQuirks, WholePercentExemptionOnlyForADecimalCommaKernelTable) {
    const NsysKernSum s = parse_nsys_kern_sum(
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)  Name\n"
        " --------  ---------------  ---------  --------  --------  --------  --------  -----------  ----\n"
        "     50.0           50,000         10   5,000.0   5,000.0     5,000     5,000          0.0  k_a\n"
        "     49.0           49,000         10   4,900.0   4,900.0     4,900     4,900          0.0  k_b\n"
        "\n"
        " Time(%)  Total Time (ns)  Instances  Average  Minimum  Maximum      Name     \n"
        " -------  ---------------  ---------  -------  -------  -------  -------------\n"
        "   100,0            2.176          1  2.176,0    2.176    2.176  loop_2_38_gpu\n"
        "\n"
        " Total  Operations  Average  Minimum  Maximum      Operation     \n"
        " ------  ----------  -------  -------  -------  ------------------\n"
        " 19,000     5  3,800  3,800  3,800  [CUDA memcpy HtoD]\n",
        "w.txt");
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_TRUE(warns(s, "the file's time % column adds up to 99.0 % over its 2 kernel rows"));
    EXPECT_FALSE(warns(s, "lower bounds"));
}

// Within a run, a table that reads both ways takes the locale of the nearest decided table: tables 1 (C: '1,234,567'
// fails swapped), 2 and 3 (both ways), 4 (decimal comma: '100,0' fails in C). Table 2 is next to table 1 -> C; table 3
// is next to table 4 (1 away) and 2 away from table 1 -> decimal comma: 2 tables swapped. Old code (the tables before
// first, all the way back): table 3 took table 1's C, "1 table".
TEST(NsysPasteQuirks, BothWaysTableTakesTheNearestDecidedTable) {
    const std::string both = " Total  Count  Average  Name\n ------  -----  -------  ----\n 19,000      5    3,800  r\n\n";
    const NsysKernSum s = parse_nsys_kern_sum(
        " Time (%)  Total Time (ns)  Instances  Name\n"
        " --------  ---------------  ---------  ----\n"
        "    100.0        1,234,567         10  k_a\n\n" +
            both + both +
            " Time(%)  Total Time (ns)  Instances  Name\n"
            " -------  ---------------  ---------  ----\n"
            "   100,0            2.176          1  k_b\n",
        "n.txt");
    EXPECT_TRUE(warns(s, "the numbers of 2 tables read with ','"));
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 1234.567);  // table 1 untouched: 1,234,567 ns
}

// A table that reads both ways takes the locale of a decided table of its own run only: run2's C-locale size table
// ("19.531" KiB) after report3's decimal-comma tables stays as it is (2 tables swapped, not 3), and report3's kernel
// table reads no memory table of run2's. Old code: "3 tables", run2's sizes as report3's HtoD bytes.
TEST(NsysPasteQuirks, LocaleOfABothWaysTableStaysInItsRun) {
    const NsysKernSum s = parse_nsys_kern_sum(
        "Running [/r/gpukernsum.py report3.sqlite]...\n"
        "\n"
        " Time(%)  Total Time (ns)  Instances  Average  Minimum  Maximum      Name     \n"
        " -------  ---------------  ---------  -------  -------  -------  -------------\n"
        "   100,0            2.176          1  2.176,0    2.176    2.176  loop_2_38_gpu\n"
        "\n"
        "Running [/r/gpumemtimesum.py report3.sqlite]...\n"
        "\n"
        " Time(%)  Total Time (ns)  Operations  Average  Minimum  Maximum      Operation     \n"
        " -------  ---------------  ----------  -------  -------  -------  ------------------\n"
        "   100,0            4.576           5    915,2      832    1.120  [CUDA memcpy HtoD]\n"
        "\n"
        "Running [/r/gpumemsizesum.py run2.sqlite]...\n"
        "\n"
        " Total  Operations  Average  Minimum  Maximum      Operation     \n"
        " ------  ----------  -------  -------  -------  ------------------\n"
        " 19.531           5    3.906    3.906    3.906  [CUDA memcpy HtoD]\n",
        "j.md");
    EXPECT_TRUE(warns(s, "the numbers of 2 tables read with ','"));
    const NsysMemOp* h2d = op(s, "[CUDA memcpy HtoD]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_DOUBLE_EQ(h2d->total_us, 4.576);  // '4.576' ns read as 4,576 ns
    EXPECT_FALSE(h2d->bytes);
}

// Old code: the memory operations were dropped (their names did not end with ']'), the kernel named with its note.
TEST(NsysPasteQuirks, NotesAfterTheRowsAreNotPartOfTheNames) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2025_stats_console_rows_annotated_with_hash_comments_matmul_excerpt.md"), "c.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "matrixMulKernel(...)");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 2644.05);
    const NsysMemOp* h2d = op(s, "[CUDA memcpy Host-to-Device]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_DOUBLE_EQ(h2d->total_us, 1154.05);
    EXPECT_DOUBLE_EQ(*h2d->bytes, 8.389e6);  // 8.389 MB: 7.269 GB/s over 1,154,050 ns
    const NsysMemOp* d2h = op(s, "[CUDA memcpy Device-to-Host]");
    ASSERT_NE(d2h, nullptr);
    EXPECT_DOUBLE_EQ(*d2h->bytes, 4.194e6);
}

// The first kernel table belongs to the second run: its memory operations are that run's.
TEST(NsysPasteQuirks, FirstRunWithoutKernelsDoesNotLendItsMemoryOps) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2025_3_stats_console_two_runs_first_kern_sum_skipped_cuda_graphs_l40s_excerpt.md"), "r.md");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].instances, 45u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 82.112);
    const NsysMemOp* d2d = op(s, "[CUDA memcpy Device-to-Device]");
    ASSERT_NE(d2d, nullptr);
    EXPECT_DOUBLE_EQ(d2d->total_us, 76.064);  // run N=10's 76,064 ns, not run N=1's 76,321
    EXPECT_DOUBLE_EQ(*d2d->bytes, 9.067e6);
    const NsysMemOp* d2h = op(s, "[CUDA memcpy Device-to-Host]");
    ASSERT_NE(d2h, nullptr);
    EXPECT_EQ(d2h->count, 55u);  // run N=10's 55 copies
    EXPECT_FALSE(d2h->bytes);    // printed 0.000 MB
    EXPECT_TRUE(warns(s,
                      "the memory operation table at line 38 comes before the kernel table at line 167: another run's "
                      "(line 32: no kernel data), not read"));
}

// `nsys stats --report cuda_gpu_mem_time_sum,cuda_gpu_kern_sum`: one run, its memory table first. Old code: passed
// over as "another run's".
TEST(NsysPasteQuirks, MemoryTableAboveTheKernelTableOfTheSameRunIsRead) {
    const std::string mem_then_kern =
        "$ nsys stats --report cuda_gpu_mem_time_sum,cuda_gpu_kern_sum report1.nsys-rep\n"
        "\n"
        " Time (%)  Total Time (ns)  Count  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)           Operation\n"
        " --------  ---------------  -----  ---------  ---------  --------  --------  -----------  ----------------------------\n"
        "    100.0        1,000,000     10  100,000.0  100,000.0    90,000   110,000        100.0  [CUDA memcpy Host-to-Device]\n"
        "\n"
        " Time (%)  Total Time (ns)  Instances  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)  Name\n"
        " --------  ---------------  ---------  ---------  ---------  --------  --------  -----------  ----\n"
        "    100.0        2,000,000         20  100,000.0  100,000.0    90,000   110,000        100.0  k_a\n";
    const NsysKernSum s = parse_nsys_kern_sum(mem_then_kern, "m.txt");
    ASSERT_EQ(s.kernels.size(), 1u);
    const NsysMemOp* h2d = op(s, "[CUDA memcpy Host-to-Device]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->count, 10u);
    EXPECT_DOUBLE_EQ(h2d->total_us, 1000.0);  // 1,000,000 ns
    EXPECT_FALSE(warns(s, "another run's"));
    // Another report named between the memory table (report1's, by the command line above it) and the kernel table
    // (run_b's): another run's, passed over.
    std::string o_text = mem_then_kern;
    o_text.insert(o_text.find(" Time (%)  Total Time (ns)  Instances"),
                  "Processing [run_b.sqlite] with [cuda_gpu_kern_sum.py]...\n");
    const NsysKernSum o = parse_nsys_kern_sum(o_text, "o.txt");
    EXPECT_EQ(op(o, "[CUDA memcpy Host-to-Device]"), nullptr);
    EXPECT_TRUE(warns(o, "table at line 3 comes before the kernel table at line 8: another run's (line 1 names another report)"));
}

// `nsys stats --report cuda_gpu_mem_time_sum,cuda_gpu_kern_sum run_a.nsys-rep run_b.nsys-rep`: mem_a, kern_a, mem_b,
// kern_b. kern_a's memory operations are mem_a's (10 copies, 1,000,000 ns = 1000 us), not mem_b's (90, 9000 us). Old
// code: mem_b read, and mem_a called another run's (the command line names two reports).
TEST(NsysPasteQuirks, TwoReportsMemoryFirstEachKernelTableTakesTheTableAboveIt) {
    const std::string cmd = "$ nsys stats --report cuda_gpu_mem_time_sum,cuda_gpu_kern_sum run_a.nsys-rep run_b.nsys-rep\n\n";
    const auto processing = [](const char* run) { return fmt::format("Processing [{}.sqlite] with [report.py]...\n\n", run); };
    // Report names: each table under its "Processing [run_x.sqlite]" line. Lines: 1 cmd, 2 blank, 3 processing,
    // 4 blank, 5-7 mem_a, 8 blank, 9 processing, 10 blank, 11-13 kern_a, ... 17-19 mem_b.
    const std::string named = cmd + processing("run_a") + mem_table("1,000,000", "10") + processing("run_a") + kern_table("k_a") +
                              processing("run_b") + mem_table("9,000,000", "90") + processing("run_b") + kern_table("k_b");
    // No names (the command line names both reports, so it tells no table's): by order. Lines: 3-5 mem_a, 7-9 kern_a,
    // 11-13 mem_b, 15-17 kern_b.
    const std::string by_order =
        cmd + mem_table("1,000,000", "10") + kern_table("k_a") + mem_table("9,000,000", "90") + kern_table("k_b");
    for (const std::string& text : {named, by_order}) {
        const NsysKernSum s = parse_nsys_kern_sum(text, "m.txt");
        ASSERT_EQ(s.kernels.size(), 1u);
        EXPECT_EQ(s.kernels[0].name, "k_a");
        const NsysMemOp* h2d = op(s, "[CUDA memcpy Host-to-Device]");
        ASSERT_NE(h2d, nullptr);
        EXPECT_EQ(h2d->count, 10u);
        EXPECT_DOUBLE_EQ(h2d->total_us, 1000.0);
        EXPECT_FALSE(warns(s, "another run's"));
    }
    EXPECT_TRUE(warns(parse_nsys_kern_sum(by_order, "m.txt"),
                      "the memory operation table at line 11 comes between the kernel tables at lines 7 and 15"));
}

// nsys's own order (kernel then memory, per run) after an earlier run with memory operations and no kernel table
// (its SKIPPED line not pasted): mem_0 (50 copies), kern k_1, mem_1 (10), kern k_2, mem_2 (90). A memory table follows
// the last kernel table, so the tables are not memory-first: k_1's is mem_1, 10 copies, 1,000,000 ns = 1000 us (not
// mem_0's 50 copies, 5,000,000 ns = 5000 us). Old code: mem_0 read, mem_1 called the next run's.
TEST(NsysPasteQuirks, KernelThenMemoryAfterAMemoryOnlyRunTakesTheTableBelow) {
    // Lines: 1-3 mem_0, 5-7 k_1, 9-11 mem_1, 13-15 k_2, 17-19 mem_2.
    const std::string text = mem_table("5,000,000", "50") + kern_table("k_1") + mem_table("1,000,000", "10") + kern_table("k_2") +
                             mem_table("9,000,000", "90");
    const NsysKernSum s = parse_nsys_kern_sum(text, "m.txt");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "k_1");
    const NsysMemOp* h2d = op(s, "[CUDA memcpy Host-to-Device]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_EQ(h2d->count, 10u);
    EXPECT_DOUBLE_EQ(h2d->total_us, 1000.0);
    EXPECT_FALSE(warns(s, "the next run's"));
    EXPECT_TRUE(warns(s, "the memory operation table at line 1 comes before the kernel table at line 5 and is not read"));
}

// One report, a memory table above and one below the kernel table: the one below is read, and the warning says so.
TEST(NsysPasteQuirks, MemoryTablesAboveAndBelowOneKernelTableWarnPlainly) {
    const std::string mem =
        " Time (%)  Total Time (ns)  Count  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)           Operation\n"
        " --------  ---------------  -----  ---------  ---------  --------  --------  -----------  ----------------------------\n"
        "    100.0        1,000,000     10  100,000.0  100,000.0   100,000   100,000          0.0  [CUDA memcpy "
        "Host-to-Device]\n\n";
    const std::string kern =
        " Time (%)  Total Time (ns)  Instances  Avg (ns)   Med (ns)   Min (ns)  Max (ns)  StdDev (ns)  Name\n"
        " --------  ---------------  ---------  ---------  ---------  --------  --------  -----------  ----\n"
        "    100.0        2,000,000         20  100,000.0  100,000.0   100,000   100,000          0.0  k_a\n\n";
    // Lines: 1-3 mem, 5-7 kern, 9-11 mem. Old wording: "...: the one after the kernel table is read, not read".
    const NsysKernSum s = parse_nsys_kern_sum(mem + kern + mem, "m.txt");
    EXPECT_TRUE(warns(s,
                      "the memory operation table at line 1 comes before the kernel table at line 5 and is not read: the "
                      "one at line 9, after the kernel table, is"));
}

// A Python triple quote glued to the first line changes nothing.
TEST(NsysPasteQuirks, OutputKeptInATripleQuotedString) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys2023_1_stats_console_inside_python_triple_quotes_stencil_matmul_memops.txt"), "s.txt");
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 24472.143);
    EXPECT_EQ(s.kernels[1].instances, 2u);
    EXPECT_DOUBLE_EQ(s.kernels[1].total_us, 347.803);
    const NsysMemOp* h2d = op(s, "[CUDA memcpy HtoD]");
    ASSERT_NE(h2d, nullptr);
    EXPECT_DOUBLE_EQ(*h2d->bytes, 21.218e6);  // 10.118 GB/s over 2,097,125 ns
}

// Names run far past a 4-dash rule; the nvtx_sum table right after is not a second kernel table.
TEST(NsysPasteQuirks, ShortNameRuleAndNvtxTableAfter) {
    const NsysKernSum s = parse_nsys_kern_sum(
        fixture("corpus/nsys/nsys_stats_console_no_thousands_separators_name_rule_short_then_nvtx_sum_bf16_gemm_zenn_excerpt.md"),
        "z.md");
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_32x3_nn");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 705006.251);  // 705006251 ns = 320 x 2,203,144.5 ns (its Avg)
    EXPECT_EQ(s.kernels[0].instances, 320u);
    EXPECT_TRUE(s.other_tables.empty());
}

// Old code: the second file's header read as a row of the first ("Calls 'Calls' is not a number"): refused.
TEST(NsysPasteQuirks, RocprofStatsFilesJoinedByCat) {
    const std::string kernels_then_api =
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
        "\"copy_kernel(float*, float*, int, int) [clone .kd]\",4,663680,165920,100.0\n"
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
        "\"hipMemcpy\",3,900000,300000,90.0\n"
        "\"hipLaunchKernel\",4,100000,25000,10.0\n";
    const NsysKernSum a = parse_nsys_kern_sum(kernels_then_api, "cat.csv");
    ASSERT_EQ(a.kernels.size(), 1u);
    EXPECT_EQ(a.kernels[0].instances, 4u);
    EXPECT_DOUBLE_EQ(a.kernels[0].total_us, 663.68);  // 663,680 ns
    EXPECT_TRUE(warns(a, "at line 3 hold HIP/HSA API calls")) << (a.warnings.empty() ? "" : a.warnings.front());

    const std::string api_then_kernels =
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
        "\"hipMemcpy\",3,900000,300000,90.0\n"
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
        "\"copy_kernel\",2,331840,165920,100.0\n";
    const NsysKernSum b = parse_nsys_kern_sum(api_then_kernels, "cat.csv");
    ASSERT_EQ(b.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(b.kernels[0].total_us, 331.84);
    EXPECT_EQ(b.table_line, 3u);
}

// `cat results.*stats.csv` puts rocprof v1's copy_stats (its copy domain: CopyHostToDevice, ...) before the kernel
// statistics. Old code: the copies read as two kernels (5400 + 1350 us), the kernel table "not read" as another run.
TEST(NsysPasteQuirks, RocprofCopyStatsBeforeKernelStatsPassedOver) {
    const std::string copies_then_kernels =
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
        "\"CopyHostToDevice\",2,5400000,2700000,80.0\n"
        "\"CopyDeviceToHost\",1,1350000,1350000,20.0\n"
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
        "\"vector_add(float*, float*, float*, int) [clone .kd]\",10,663680,66368,100.0\n";
    const NsysKernSum s = parse_nsys_kern_sum(copies_then_kernels, "cat.csv");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.table_line, 4u);
    EXPECT_EQ(s.kernels[0].instances, 10u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 663.68);  // 663,680 ns
    EXPECT_TRUE(s.other_tables.empty());
    EXPECT_TRUE(warns(s, "at line 1 hold HIP/HSA API calls, memory copies or rocprofv3 domains")) << s.warnings.size();
    // The copy_stats file alone: refused, saying what its rows are.
    const std::string r = refusal(copies_then_kernels.substr(0, copies_then_kernels.find("\"Name\"", 10)), "copy.csv");
    EXPECT_NE(r.find("the rocprof statistics at line 1 are memory copies ('CopyHostToDevice', ...: rocprof's copy_stats file)"),
              std::string::npos)
        << r;
}

// Rows cut at 150 characters: no kernel row is whole, so the file is refused, naming the cut row.
TEST(NsysPasteQuirks, RocprofRowsCutAtAFixedWidthRefused) {
    const std::string r = refusal(
        fixture("corpus/nsys/rocprofv3_kernel_stats_csv_rows_cut_at_150_columns_two_tables_gfx906_llama_excerpt.md"), "cut.md");
    // Line 30's name is cut inside its quotes; the quote opening line 31 closes it, and text follows.
    EXPECT_NE(r.find("cut.md: the rocprof table at line 28 was not read (line 31: text after a closing quote)"),
              std::string::npos)
        << r;
    EXPECT_EQ(r.find('\n'), std::string::npos) << r;
}

// nsys --format csv of a decimal-comma locale quotes its numbers with their comma ("482,333"). Old code read that
// size as 482,333 MB (1000x: 1,607,776 GB/s) and refused the kernel table's "60,0".
TEST(NsysPasteQuirks, CsvDecimalCommaToldByItsQuotedNumbers) {
    const std::string text =
        "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"
        "\"60,0\",300000,3,\"100000,0\",\"100000,0\",90000,110000,\"10000,0\",[CUDA memcpy DtoH]\n"
        "\n"
        "Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation\n"
        "\"482,333\",3,\"160,778\",\"160,778\",\"160,778\",\"160,778\",\"0,000\",[CUDA memcpy DtoH]\n";
    const NsysKernSum s = parse_nsys_kern_sum(text, "dc.csv");
    const NsysMemOp* d = op(s, "[CUDA memcpy DtoH]");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->count, 3u);
    EXPECT_DOUBLE_EQ(d->total_us, 300.0);  // 300,000 ns
    ASSERT_TRUE(d->bytes);
    EXPECT_DOUBLE_EQ(*d->bytes, 482333000.0);  // 482.333 MB x 10^6 B (= 3 x 160.778 MB, to rounding)
    EXPECT_TRUE(warns(s, "'0,000' is a number of a decimal-comma locale")) << fmt::format("{}", fmt::join(s.warnings, "|"));

    const std::string kern =
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "\"60,0\",6000,2,\"3000,0\",\"3000,0\",2000,4000,\"1414,2\",kA\n"
        "\"40,0\",4000,1,\"4000,0\",\"4000,0\",4000,4000,\"0,0\",kB\n";
    const NsysKernSum k = parse_nsys_kern_sum(kern, "dk.csv");
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(*k.kernels[0].time_pct, 60.0);
    EXPECT_DOUBLE_EQ(*k.kernels[0].avg_us, 3.0);        // 3000,0 ns
    EXPECT_DOUBLE_EQ(*k.kernels[0].stddev_us, 1.4142);  // 1414,2 ns
}

// Quoted numbers that read both ways ("12,500": 12500, or 12.5 in a decimal-comma locale) are read with ',' between
// thousands, warned; a C-locale CSV's quoted names with commas are never numbers.
TEST(NsysPasteQuirks, CsvQuotedNumberReadingBothWaysIsWarned) {
    const NsysKernSum s = parse_nsys_kern_sum(
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "100.0,\"12,500\",1,\"12,500\",\"12,500\",\"12,500\",\"12,500\",0.0,\"void k<1, 2>(int)\"\n",
        "b.csv");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 12.5);  // 12,500 ns
    EXPECT_EQ(s.kernels[0].name, "void k<1, 2>(int)");
    EXPECT_TRUE(warns(s, "quotes '12,500'"));
    // The same table under one shown decimal-comma ("60,0": one decimal) in the same file: the file's locale, so
    // "12,500" is 12.5 ns = 0.0125 us (the C locale quotes no number), and no thousands warning.
    const NsysKernSum d = parse_nsys_kern_sum(
        "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"
        "\"60,0\",300000,3,\"100000,0\",\"100000,0\",90000,110000,\"10000,0\",[CUDA memcpy DtoH]\n"
        "\n"
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "100.0,\"12,500\",1,\"12,500\",\"12,500\",\"12,500\",\"12,500\",0.0,\"void k<1, 2>(int)\"\n",
        "b.csv");
    ASSERT_EQ(d.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(d.kernels[0].total_us, 0.0125);  // 12,500 ns read 12.500 ns
    EXPECT_FALSE(warns(d, "read with ',' between thousands"));
    EXPECT_TRUE(warns(d, "the CSV table at line 4 quotes '12,500', read with ',' as the decimal point"));
}

// Only numeric columns are evidence of a decimal-comma locale, and only their cells are swapped: a C-locale CSV whose
// NVTX Range is "0,5" and whose kernel is named "1,000" (quoted for its comma) holds no quoted number. The old code
// took "0,5" (a Range) as a decimal comma and renamed the kernel "1.000", warned. Kernel "1,000": 600,000 ns = 600 us.
TEST(NsysPasteQuirks, CsvDecimalCommaLeavesTextColumnsAlone) {
    const NsysKernSum s = parse_nsys_kern_sum(
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Style,Range\n"
        "100.0,1000000,1,1000000.0,1000000.0,1000000,1000000,0.0,PushPop,\"0,5\"\n"
        "\n"
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "60.0,600000,2,300000.0,300000.0,200000,400000,141421.4,\"1,000\"\n"
        "40.0,400000,1,400000.0,400000.0,400000,400000,0.0,kB\n",
        "names.csv");
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "1,000");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 600.0);  // 600,000 ns
    EXPECT_FALSE(warns(s, "decimal")) << fmt::format("{}", fmt::join(s.warnings, "|"));
}

// A size table whose quoted numbers all have three decimals ("400,000") reads both ways; the file's time table shows
// a decimal comma ("100,0"), so the whole file is read so (old code read each table alone: 400,000 MB, 1000x).
// 400.000 MB = 400e6 B over 1,000,000 ns = 1000 us: 400e6 B / 1000e-6 s = 400 GB/s (old: 400,000 GB/s). As CSV and
// as TSV (read as its CSV).
TEST(NsysPasteQuirks, CsvDecimalCommaShownByOneTableHoldsForTheFile) {
    const std::string csv =
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "\"60,0\",600000,2,\"300000,0\",\"300000,0\",290000,310000,\"14142,1\",kernA\n"
        "\"40,0\",400000,1,\"400000,0\",\"400000,0\",400000,400000,\"0,0\",kernB\n"
        "\n"
        "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"
        "\"100,0\",1000000,2,\"500000,0\",\"500000,0\",400000,600000,\"141421,4\",[CUDA memcpy Host-to-Device]\n"
        "\n"
        "Total (MB),Count,Avg (MB),Med (MB),Min (MB),Max (MB),StdDev (MB),Operation\n"
        "\"400,000\",2,\"200,000\",\"200,000\",\"150,000\",\"250,000\",\"70,711\",[CUDA memcpy Host-to-Device]\n";
    const std::string tsv =
        "Time (%)\tTotal Time (ns)\tCount\tAvg (ns)\tMed (ns)\tMin (ns)\tMax (ns)\tStdDev (ns)\tOperation\n"
        "100,0\t1000000\t2\t500000,0\t500000,0\t400000\t600000\t141421,4\t[CUDA memcpy Host-to-Device]\n"
        "\n"
        "Total (MB)\tCount\tAvg (MB)\tMed (MB)\tMin (MB)\tMax (MB)\tStdDev (MB)\tOperation\n"
        "400,000\t2\t200,000\t200,000\t150,000\t250,000\t70,711\t[CUDA memcpy Host-to-Device]\n";
    for (const auto& [text, origin] : {std::pair{csv, "dc1.csv"}, std::pair{tsv, "dc.tsv"}}) {
        const NsysKernSum s = parse_nsys_kern_sum(text, origin);
        const NsysMemOp* h = op(s, "[CUDA memcpy Host-to-Device]");
        ASSERT_NE(h, nullptr) << origin;
        EXPECT_DOUBLE_EQ(h->total_us, 1000.0) << origin;  // 1,000,000 ns
        ASSERT_TRUE(h->bytes) << origin;
        EXPECT_DOUBLE_EQ(*h->bytes, 400e6) << origin;  // 400,000 read 400.000 MB (old: 400,000 MB = 4e11 B)
        EXPECT_FALSE(warns(s, "between thousands")) << origin;
    }
}

// nsys --format tsv (refused before: "kernel table header without the dashed rule under it"): read as its CSV; a
// console table copied from a terminal with tabs keeps its dashed rule and is not taken for TSV.
TEST(NsysPasteQuirks, TsvTablesReadAsCsv) {
    const NsysKernSum k = parse_nsys_kern_sum(
        "Time (%)\tTotal Time (ns)\tInstances\tAvg (ns)\tMed (ns)\tMin (ns)\tMax (ns)\tStdDev (ns)\tName\n"
        "60.0\t6000\t2\t3000.0\t3000.0\t2000\t4000\t1414.2\tvoid k<1, 2>(float*)\n"
        "40.0\t4000\t1\t4000.0\t4000.0\t4000\t4000\t0.0\tkB\n"
        "\n"
        "Time (%)\tTotal Time (ns)\tCount\tAvg (ns)\tMed (ns)\tMin (ns)\tMax (ns)\tStdDev (ns)\tOperation\n"
        "100.0\t300000\t3\t100000.0\t100000.0\t90000\t110000\t10000.0\t[CUDA memcpy Host-to-Device]\n"
        "\n"
        "Total (MB)\tCount\tAvg (MB)\tMed (MB)\tMin (MB)\tMax (MB)\tStdDev (MB)\tOperation\n"
        "30.000\t3\t10.000\t10.000\t10.000\t10.000\t0.000\t[CUDA memcpy Host-to-Device]\n",
        "k.tsv");
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_EQ(k.kernels[0].name, "void k<1, 2>(float*)");  // its comma kept inside the name
    EXPECT_DOUBLE_EQ(k.kernels[0].total_us, 6.0);          // 6000 ns
    EXPECT_EQ(k.kernels[0].instances, 2u);
    EXPECT_NE(k.format.find("TSV"), std::string::npos) << k.format;
    const NsysMemOp* h = op(k, "[CUDA memcpy Host-to-Device]");
    ASSERT_NE(h, nullptr);
    EXPECT_DOUBLE_EQ(h->total_us, 300.0);  // 300,000 ns
    ASSERT_TRUE(h->bytes);
    EXPECT_DOUBLE_EQ(*h->bytes, 30e6);  // 30.000 MB: 30e6 B / 300 us = 100 GB/s
    // Tabs in a console table (a terminal copy) with its dashed rule: the console reading, 8-column tab stops.
    const NsysKernSum c = parse_nsys_kern_sum(
        " Time (%)\tTotal Time (ns)\tInstances\tAvg (ns)\tName\n"
        " --------\t---------------\t---------\t--------\t----\n"
        "    100.0\t          5,000\t        2\t 2,500.0\tkA\n",
        "c.txt");
    ASSERT_EQ(c.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(c.kernels[0].total_us, 5.0);  // 5,000 ns
    EXPECT_EQ(c.format.find("TSV"), std::string::npos) << c.format;
}

// nsys --format json (refused before: "no kernel summary table found"): each report an array of row objects keyed by
// the column titles, pretty-printed or on one line, read as its CSV; an array of other objects is left alone.
TEST(NsysPasteQuirks, JsonTablesReadAsCsv) {
    const NsysKernSum k = parse_nsys_kern_sum(
        "Processing [r.sqlite] with [cuda_gpu_kern_sum.py]...\n"
        "[\n\t{\n\t\t\"Time (%)\": 75.0,\n\t\t\"Total Time (ns)\": 6000,\n\t\t\"Instances\": 2,\n\t\t\"Avg (ns)\": 3000.0,\n"
        "\t\t\"Med (ns)\": 3000.0,\n\t\t\"Min (ns)\": 2000,\n\t\t\"Max (ns)\": 4000,\n\t\t\"StdDev (ns)\": 1414.2,\n"
        "\t\t\"Name\": \"void k<1, 2>(\\\"x\\\")\"\n\t},\n"
        "\t{\"Time (%)\": 25.0, \"Total Time (ns)\": 2000, \"Instances\": 1, \"Avg (ns)\": 2000.0, \"Med (ns)\": 2000.0,"
        " \"Min (ns)\": 2000, \"Max (ns)\": 2000, \"StdDev (ns)\": 0.0, \"Name\": \"kB\"}\n"
        "]\n"
        "[{\"Time (%)\": 100.0, \"Total Time (ns)\": 500000, \"Count\": 5, \"Avg (ns)\": 100000.0, \"Med (ns)\": 100000.0, "
        "\"Min (ns)\": 100000, \"Max (ns)\": 100000, \"StdDev (ns)\": 0.0, \"Operation\": \"[CUDA memcpy Device-to-Host]\"}]\n"
        "[{\"Total (MB)\": 50.0, \"Count\": 5, \"Avg (MB)\": 10.0, \"Med (MB)\": 10.0, \"Min (MB)\": 10.0, \"Max (MB)\": 10.0, "
        "\"StdDev (MB)\": 0.0, \"Operation\": \"[CUDA memcpy Device-to-Host]\"}]\n",
        "k.json");
    ASSERT_EQ(k.kernels.size(), 2u);
    EXPECT_EQ(k.kernels[0].name, "void k<1, 2>(\"x\")");  // its comma and quotes kept
    EXPECT_DOUBLE_EQ(k.kernels[0].total_us, 6.0);         // 6000 ns
    EXPECT_DOUBLE_EQ(*k.kernels[0].stddev_us, 1.4142);    // 1414.2 ns
    EXPECT_DOUBLE_EQ(k.kernels[1].total_us, 2.0);
    EXPECT_NE(k.format.find("JSON"), std::string::npos) << k.format;
    const NsysMemOp* d = op(k, "[CUDA memcpy Device-to-Host]");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->count, 5u);
    EXPECT_DOUBLE_EQ(d->total_us, 500.0);  // 500,000 ns
    ASSERT_TRUE(d->bytes);
    EXPECT_DOUBLE_EQ(*d->bytes, 50e6);  // 50 MB: 50e6 B / 500 us = 100 GB/s
    // An array of objects without nsys's columns is not a table.
    EXPECT_NE(refusal("[{\"a\": 1, \"b\": 2}]\n").find("no kernel summary table found"), std::string::npos);
}

// Reports of GPU work that are not read (cuda_gpu_sum, nvtx_kern_sum, cuda_kern_exec_sum, nvtx_gpu_proj_sum): the refusal
// names them as such (old code: "... which holds no GPU work"), by banner or by header; a banner of a report read here
// with no table under it says the table is missing.
TEST(NsysPasteQuirks, UnreadGpuReportsAreNotCalledWorkless) {
    const std::string by_banner = refusal(
        "[3/4] Executing 'cuda_gpu_sum' stats report\n\n"
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)   Category    Operation\n"
        " --------  ---------------  ---------  --------  --------  --------  --------  -----------  -----------  ---------\n"
        "    100.0            6,000          2   3,000.0   3,000.0     2,000     4,000      1,414.2  CUDA_KERNEL  kA\n");
    EXPECT_NE(by_banner.find("cuda_gpu_sum report (GPU time"), std::string::npos) << by_banner;
    EXPECT_EQ(by_banner.find("no GPU work"), std::string::npos) << by_banner;
    const std::string by_header = refusal(
        "NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),"
        "Kernel Name\n:step,PushPop,1,1,1,10,1000,100.0,100.0,90,110,5.0,kA\n");
    EXPECT_NE(by_header.find("nvtx_kern_sum report"), std::string::npos) << by_header;
    const std::string cut = refusal("[6/8] Executing 'cuda_gpu_kern_sum' stats report\n\n");
    EXPECT_NE(cut.find("names nsys's cuda_gpu_kern_sum report but holds no such table"), std::string::npos) << cut;
    // Reports without GPU work keep their wording.
    EXPECT_NE(refusal("[4/8] Executing 'osrt_sum' stats report\n").find("which holds no GPU work"), std::string::npos);
}

// Arrays nested 20,000 deep, "[" lines then "]" lines (no table): each "[" line used to be scanned, joined and parsed
// to the end of the file (20,000 x ~30,000 lines: 31.7 s), and 6000 nested arrays of objects likewise (3000: 2.1 s); one
// pass now (0.09 s). Refused as no table.
TEST(NsysPasteQuirks, DeeplyNestedJsonArraysReadInOnePass) {
    std::string deep;
    for (int i = 0; i < 20000; ++i)
        deep += "[\n";
    for (int i = 0; i < 20000; ++i)
        deep += "]\n";
    std::string nested;  // each line a candidate array of objects: [{"a":1}, [{"a":1}, ...]]
    for (int i = 0; i < 6000; ++i)
        nested += "[{\"a\":1},\n";
    for (int i = 0; i < 6000; ++i)
        nested += "]\n";
    for (const std::string* text : {&deep, &nested}) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::string r = refusal(*text, "deep.json");
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_NE(r.find("deep.json: no kernel summary table found"), std::string::npos) << r;
        EXPECT_LT(s, 3.0);  // linear: ~0.03 s; the rescans took seconds to minutes
    }
}

// A compact JSON array on one line is laid out as CSV over more lines; a refusal or a warning names the file's own
// line: the second array, on line 2, holds the bad total (-5), not line 6 of the expanded text (3 rows + header +
// blank after line 1's array).
TEST(NsysPasteQuirks, OneLineJsonArrayKeepsTheFileLineNumbers) {
    const std::string row =
        R"j("Instances": 1, "Avg (ns)": 1000.0, "Med (ns)": 1000.0, "Min (ns)": 1000, "Max (ns)": 1000, "StdDev (ns)": 0.0)j";
    const std::string text =
        "[{\"Time (%)\": 50.0, \"Total Time (ns)\": 1000, " + row +
        ", \"Name\": \"k1\"}, {\"Time (%)\": 50.0, \"Total Time (ns)\": 1000, " + row +
        ", \"Name\": \"k2\"}, {\"Time (%)\": 0.0, \"Total Time (ns)\": 1000, " + row + ", \"Name\": \"k3\"}]\n" +
        R"j([{"Time (%)": 100.0, "Total Time (ns)": -5, "Count": 1, "Avg (ns)": 5.0, "Med (ns)": 5.0, "Min (ns)": 5, "Max (ns)": 5, "StdDev (ns)": 0.0, "Operation": "[CUDA memcpy Host-to-Device]"}])j"
        "\n";
    const std::string r = refusal(text, "jl.json");
    EXPECT_NE(r.find("jl.json: line 2"), std::string::npos) << r;
    EXPECT_EQ(r.find("line 6"), std::string::npos) << r;
}

// Text a message quotes is the file's: the path "/scratch/run line 7/report1.sqlite" of nsys's SKIPPED line stays so.
// The one-line array on line 2 (4 rows) is laid out as header + 4 rows + blank = 6 lines (2..7): the expanded text
// has 9 lines, its line 7 standing for the file's line 2, and the old rewrite turned "run line 7" into "run line 2".
TEST(NsysPasteQuirks, OneLineJsonArrayLeavesQuotedTextAlone) {
    const std::string row =
        R"j("Avg (ns)": 1000.0, "Med (ns)": 1000.0, "Min (ns)": 1000.0, "Max (ns)": 1000.0, "StdDev (ns)": 0.0, "Name": )j";
    std::string arr = "[";
    for (const char* n : {"cudaMalloc", "cudaMemcpy", "cudaFree", "cudaLaunchKernel"})
        arr += std::string(arr.size() > 1 ? ", " : "") + R"j({"Time (%)": 25.0, "Total Time (ns)": 1000, "Num Calls": 1, )j" +
               row + "\"" + n + "\"}";
    const std::string text = "Processing [/scratch/run line 7/report1.sqlite] with [/opt/nsys/reports/cuda_api_sum.py]...\n" +
                             arr +
                             "]\n\nProcessing [/scratch/run line 7/report1.sqlite] with "
                             "[/opt/nsys/reports/cuda_gpu_kern_sum.py]...\n"
                             "SKIPPED: /scratch/run line 7/report1.sqlite does not contain CUDA kernel data.\n";
    const std::string r = refusal(text, "q.json");
    EXPECT_NE(r.find("'SKIPPED: /scratch/run line 7/report1.sqlite does not contain CUDA kernel data.'"), std::string::npos) << r;
    EXPECT_EQ(r.find("run line 2"), std::string::npos) << r;
}

// Refusals say what the file holds: nsys 2021's 'gpumemsizesum' banner over a size table is sizes without times (it
// got "GPU time per NVTX range..." from a catch-all on "gpu"); a report script's "Processing [...] with [....py]"
// banner names its report like "Executing '...' stats report" does.
TEST(NsysPasteQuirks, ReportBannersNameTheReportsHeld) {
    const std::string g = refusal(
        "[5/8] Executing 'gpumemsizesum' stats report\n\n"
        "CUDA Memory Operation Statistics (by size in KiB):\n\n"
        "   Total     Operations  Average   Minimum   Maximum         Operation       \n"
        " ----------  ----------  --------  --------  --------  --------------------\n"
        " 409600.000           2  204800.0  204800.0  204800.0  [CUDA memcpy HtoD]\n",
        "g1.txt");
    EXPECT_NE(g.find("cuda_gpu_mem_size_sum report (memory operation sizes, no times)"), std::string::npos) << g;
    EXPECT_EQ(g.find("NVTX"), std::string::npos) << g;
    const std::string b = refusal(
        "Processing [report1.sqlite] with [/opt/nvidia/nsight-systems/2023.4.1/host-linux-x64/reports/cuda_api_sum.py]... \n\n"
        " ** CUDA API Summary (cuda_api_sum):\n\n"
        " Time (%)  Total Time (ns)  Num Calls   Avg (ns)     Med (ns)    Min (ns)   Max (ns)   StdDev (ns)          Name        "
        "\n"
        " --------  ---------------  ---------  -----------  -----------  --------  ----------  -----------  "
        "--------------------\n"
        "     99.0        100000000          1  100000000.0  100000000.0  100000000  100000000          0.0  cudaMalloc          "
        "\n"
        "Processing [report1.sqlite] with [/opt/nvidia/nsight-systems/2023.4.1/host-linux-x64/reports/cuda_gpu_kern_sum.py]... "
        "\n",
        "b3.txt");
    EXPECT_NE(b.find("names nsys's cuda_gpu_kern_sum report but holds no such table"), std::string::npos) << b;
    // The script is the ".py" token after "with [", not the first ".py" of the line (old: "bench", from the report's
    // directory "bench.py.out"); a program run ("Running [python3 train.py ...]") is no report banner (old: "nsys's
    // train report").
    const std::string d = refusal(
        "Processing [/home/u/bench.py.out/report1.sqlite] with "
        "[/opt/nvidia/nsight-systems/2023.4.1/host-linux-x64/reports/cuda_gpu_kern_sum.py]... \n",
        "b4.txt");
    EXPECT_NE(d.find("cuda_gpu_kern_sum report"), std::string::npos) << d;
    EXPECT_EQ(d.find("bench"), std::string::npos) << d;
    const std::string t = refusal("Running [python3 train.py --epochs 1]...\nepoch 0 loss 1.23\n", "b5.txt");
    EXPECT_EQ(t.find("train"), std::string::npos) << t;
}

}  // namespace
