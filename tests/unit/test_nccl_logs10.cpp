// nccl-tests and BabelStream text bwacct had not seen (tests/data/corpus/, "# logs10"): two logs pasted side by side,
// no-break spaces from a web page (as blanks, and as a locale's thousands separator), the count column as a rank
// clue, and BabelStream 5's Init/Read timings. Each test fails before the fix.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../src/analysis/nccl_summary.h"
#include "../../src/ingest/nccl_tests_parts.h"
#include "../../src/ingest/text_columns.h"
#include "bwacct/error.h"
#include "bwacct/ingest_babelstream.h"
#include "bwacct/ingest_nccl.h"
#include "ingest_test_util.h"

namespace {

using namespace bwacct;
using bwacct_test::any_holds;
using bwacct_test::fixture;

const std::string kNbsp = "\xC2\xA0";        // U+00A0 no-break space
const std::string kNarrow = "\xE2\x80\xAF";  // U+202F narrow no-break space

// ROCm/rccl PR 1352 (corpus rccl_pr1352_...side_by_side...): two all_reduce_perf logs, each line "<left> | <right>".
// Before: every line read as its left 13 columns, the right-hand log dropped without a word (3 rows, 1 run).
// Left 1 MiB out-of-place: 1048576 B / 28.15 us = 37.2496 GB/s (printed 37.25); right: 1048576 / 27.84 = 37.6644
// (printed 37.66); the right-hand third row is cut inside its type ("flo"): not a row.
TEST(NcclSideBySide, RightHandLogIsReadAsItsOwnRun) {
    const NcclLog log = parse_nccl_tests(
        fixture("corpus/nccl-tests/rccl_pr1352_allreduce_8rank_two_logs_side_by_side_pipe_separated_right_cut.md"), "sbs.md");
    ASSERT_EQ(log.runs.size(), 2u);
    ASSERT_EQ(log.runs[0].rows.size(), 3u);
    ASSERT_EQ(log.runs[1].rows.size(), 2u);
    EXPECT_EQ(log.runs[0].rows[0].size, 1048576u);
    EXPECT_DOUBLE_EQ(log.runs[0].rows[0].out_of_place->time_us.value, 28.15);
    EXPECT_DOUBLE_EQ(log.runs[1].rows[0].out_of_place->time_us.value, 27.84);
    EXPECT_DOUBLE_EQ(log.runs[1].rows[0].out_of_place->algbw_GBps.value, 37.66);
    EXPECT_DOUBLE_EQ(log.runs[1].rows[1].in_place->busbw_GBps.value, 104.63);
    EXPECT_TRUE(any_holds(log.warnings, "lines 2-7: two logs side by side (6 lines split at ' | ')"));
    // The right-hand rows are numbered as the file lines they share with the left-hand ones (5 and 6 of a 9-line
    // file), not after its end (before: 13 and 14).
    EXPECT_EQ(log.runs[0].rows[0].line, 5);
    EXPECT_EQ(log.runs[1].rows[0].line, 5);
    EXPECT_EQ(log.runs[1].rows[1].line, 6);
}

// A markdown table ("| size | busbw |") starts with '|': not a side-by-side paste; nor is a single split line.
TEST(NcclSideBySide, MarkdownTablesAndSingleLinesAreNotSplit) {
    EXPECT_FALSE(ingest::split_side_by_side("| size | busbw |\n|---|---|\n| 1048576 | 65.19 |\n| 2097152 | 99.11 |\n"));
    EXPECT_FALSE(ingest::split_side_by_side("     8     2  float  sum  -1  1.0  0.00  0.00  0 | 8  2 float\n"));
    // Only parts that hold rows or column headers on both sides (8 words or more, row-shaped) make two logs: not a
    // time stamp before a row, nor a note after one.
    EXPECT_FALSE(ingest::split_side_by_side("# a | # b\n1 2 | 3 4\n"));
    const std::string row = "8  2  float  sum  -1  1.0  0.00  0.00  0";
    EXPECT_FALSE(ingest::split_side_by_side("2024-05-01 12:00:01,234 | " + row + "\n2024-05-01 12:00:02,234 | " + row + "\n"));
    EXPECT_FALSE(ingest::split_side_by_side(row + "  | 0\n" + row + "  | 1\n"));
    const auto two = ingest::split_side_by_side("# a | # b\n" + row + " | " + row + "\n");
    ASSERT_TRUE(two);
    // the left lines, an empty line, the right parts
    EXPECT_EQ(two->text, "# a\n" + row + "\n\n\n # b\n " + row + "\n");
    EXPECT_EQ(two->first, 1u);
    EXPECT_EQ(two->last, 2u);
    EXPECT_EQ(two->right_lines, (std::vector<std::size_t>{1, 2}));
}

// A logger's "2024-05-01 12:00:01,234 | " before every line, and rows with a note after " | " (a1/a2 of the review):
// one log, read in place. Before: split as two logs side by side, the right-hand "log" numbered from line 7 of a
// 4-line file. 1048576 B / 28.15 us = 37.2496 GB/s (printed 37.25), x 2 x 7/8 = 65.187 (65.19).
TEST(NcclSideBySide, LoggerPrefixAndNotesAfterRowsAreNotTwoLogs) {
    const std::string hdr =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong";
    const std::string row =
        "     1048576        262144     float     sum      -1    28.15   37.25   65.19      0    27.52   38.10   66.67      0";
    const std::string row2 =
        "     2097152        524288     float     sum      -1    37.03   56.64   99.11      0    35.22   59.55  104.21      0";
    const std::string ts = "2024-05-01 12:00:01,234 | ";
    const NcclLog log = parse_nccl_tests(
        ts + "# Collective test starting: all_reduce_perf\n" + ts + hdr + "\n" + ts + row + "\n" + ts + row2 + "\n", "ts.log");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    EXPECT_EQ(log.runs[0].rows[1].line, 4);
    EXPECT_EQ(log.runs[0].last_line, 4);
    EXPECT_DOUBLE_EQ(log.runs[0].rows[0].out_of_place->busbw_GBps.value, 65.19);
    EXPECT_FALSE(any_holds(log.warnings, "side by side"));

    const NcclLog noted = parse_nccl_tests(hdr + "\n" + row + "  | 0\n" + row2 + "  | 1\n", "noted.log");
    ASSERT_EQ(noted.runs.size(), 1u);
    ASSERT_EQ(noted.runs[0].rows.size(), 2u);
    EXPECT_EQ(noted.runs[0].last_line, 3);
    EXPECT_FALSE(any_holds(noted.warnings, "side by side"));

    // Python logging's "time | LEVEL | message": both parts cut; a line without the prefix keeps every line.
    EXPECT_EQ(ingest::cut_logger_prefix("t1 | INFO | # a\n\nt2 | WARNING | 8 2 |x\n"), "# a\n\n8 2 |x\n");
    EXPECT_FALSE(ingest::cut_logger_prefix("t1 | # a\n8 2\n"));
    EXPECT_FALSE(ingest::cut_logger_prefix("| a | b |\n| 1 | 2 |\n"));  // a markdown table
}

// A web page's &nbsp; between the columns (every gap): read as blanks. Before: "holds no nccl-tests result row".
// 1048576 B / 28.15 us = 37.2496 GB/s, x 2 x 7/8 = 65.187 (printed 37.25 and 65.19).
TEST(NcclUnicodeBlanks, NoBreakSpacesBetweenColumnsAreBlanks) {
    std::string row =
        "     1048576        262144     float     sum      -1    28.15   37.25   65.19      0    27.52   38.10   66.67      0";
    std::string hdr =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong";
    for (std::string* s : {&row, &hdr})
        for (std::size_t at = s->find("  "); at != std::string::npos; at = s->find("  ", at + kNbsp.size() + 1))
            s->replace(at, 1, kNbsp);
    const NcclLog log = parse_nccl_tests("# Collective test starting: all_reduce_perf\n" + hdr + "\n" + row + "\n", "nbsp.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].rows[0].size, 1048576u);
    EXPECT_DOUBLE_EQ(log.runs[0].rows[0].in_place->busbw_GBps.value, 66.67);
    EXPECT_FALSE(any_holds(log.warnings, "thousands"));
}

// A 4-space-indented code block whose columns are single no-break spaces: the indentation is no ASCII column gap, so
// "8192 256" (8192 B of 8 ranks x 256 floats x 4 B) are two columns. Before: merged into 8192256, the row dropped
// unsaid. A row whose size, count and type do not stand as three words is warned about.
TEST(NcclUnicodeBlanks, IndentedBlockOfNoBreakGapsIsReadAsColumns) {
    const auto nb = [](std::string s) {
        for (std::size_t at = s.find(' ', 4); at != std::string::npos; at = s.find(' ', at + 2))
            s.replace(at, 1, kNbsp);
        return s;
    };
    const std::string text = "# Collective test starting: all_gather_perf\n" +
                             nb("    #  size count type redop root time algbw busbw #wrong time algbw busbw #wrong") + "\n" +
                             nb("    1024 32 float none -1 20.01 0.05 0.04 0 20.01 0.05 0.04 0") + "\n" +
                             nb("    8192 256 float none -1 20.08 0.41 0.36 0 20.08 0.41 0.36 0") + "\n";
    const NcclLog log = parse_nccl_tests(text, "nbsp.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    EXPECT_EQ(log.runs[0].rows[1].size, 8192u);
    EXPECT_EQ(log.runs[0].rows[1].count, 256u);
    EXPECT_FALSE(any_holds(log.warnings, "thousands"));

    const NcclLog merged = parse_nccl_tests(
        "    1024  32  float  none  -1  20.01  0.05  0.04  0  20.01  0.05  0.04  0\n"
        "    8192256  float  none  -1  20.08  0.41  0.36  0  20.08  0.41  0.36  0\n",
        "merged.md");
    ASSERT_EQ(merged.runs.size(), 1u);
    EXPECT_EQ(merged.runs[0].rows.size(), 1u);
    EXPECT_TRUE(any_holds(merged.warnings, "line 2: not an nccl-tests row (its size, count and type columns are not three"));
}

// A lone (narrow) no-break space between a digit and three digits on a line of ASCII gaps is a locale's thousands
// separator: removed, warned. "1 048 576" = 1048576 B; 1048576 / 28.15 us = 37.2496 GB/s (printed 37.25).
TEST(NcclUnicodeBlanks, ThousandsSeparatorIsReadAndSaid) {
    const std::string text =
        "# Collective test starting: all_reduce_perf\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   "
        "algbw   busbw #wrong\n"
        "     1" +
        kNarrow + "048" + kNarrow + "576        262" + kNarrow +
        "144     float     sum      -1    28.15   37.25   65.19      0    27.52   38.10   66.67      0\n";
    const NcclLog log = parse_nccl_tests(text, "thousands.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].rows[0].size, 1048576u);
    EXPECT_EQ(log.runs[0].rows[0].count, 262144u);
    EXPECT_TRUE(any_holds(log.warnings, "line 3: a no-break space between digits read as a thousands separator ('1" + kNarrow +
                                            "048" + kNarrow + "576' read as 1048576, and 2 more"));
}

// Not a thousands separator: a no-break space before four digits, or after a blank, or on a line whose gaps are all
// no-break spaces (a web page's: "0.12 184.06" are two columns).
TEST(NcclUnicodeBlanks, OnlyALoneSpaceBeforeThreeDigitsIsASeparator) {
    ingest::BlankReport r;
    EXPECT_EQ(ingest::ascii_blanks("a  12" + kNbsp + "3456 x", r), "a  12 3456 x");
    EXPECT_EQ(ingest::ascii_blanks("a  12 " + kNbsp + "345 x", r), "a  12  345 x");
    EXPECT_EQ(ingest::ascii_blanks("0.12" + kNbsp + "184.06" + kNbsp + kNbsp + "7", r), "0.12 184.06  7");
    EXPECT_EQ(r.thousands, 0u);
    EXPECT_EQ(r.blanks, 5u);
    EXPECT_EQ(ingest::ascii_blanks("x\na  12" + kNbsp + "345.6  7\n", r), "x\na  12345.6  7\n");
    EXPECT_EQ(r.thousands, 1u);
    EXPECT_EQ(r.first_line, 2u);
    EXPECT_EQ(r.first_read, "12345.6");
    // The number as written is cut at a blank that is no separator (before: "x" + NBSP + "12" + NBSP + "345").
    ingest::BlankReport cut;
    EXPECT_EQ(ingest::ascii_blanks("x" + kNbsp + "12" + kNbsp + "345  y", cut), "x 12345  y");
    EXPECT_EQ(cut.first_text, "12" + kNbsp + "345");
    // Decided once per file: the "Array size" line has no ASCII gap, the table's rows do; both read as thousands (before:
    // "1 073.7" on the first line was two words).
    ingest::BlankReport once;
    EXPECT_EQ(ingest::ascii_blanks("Array size: 1" + kNbsp + "073.7 MB\nCopy  1" + kNbsp + "397" + kNbsp + "306.105  0.1", once),
              "Array size: 1073.7 MB\nCopy  1397306.105  0.1");
    EXPECT_EQ(once.thousands, 3u);
    EXPECT_EQ(once.first_line, 1u);
    // A file whose columns are also apart by no-break spaces alone (line 2: a web page's): every one a blank, said.
    ingest::BlankReport both;
    EXPECT_EQ(ingest::ascii_blanks("a  1" + kNbsp + "024\n8192" + kNbsp + "32" + kNbsp + "float", both),
              "a  1 024\n8192 32 float");
    EXPECT_EQ(both.thousands, 0u);
    EXPECT_EQ(ingest::blank_conflict_warning(both),
              "line 1: a no-break space between a digit and three digits, which could be a thousands separator, read as a "
              "blank: line 2 has its columns apart by no-break spaces alone (a web page's)");
    EXPECT_TRUE(
        ingest::has_unicode_blanks("a\xE3\x80\x80"
                                   "b"));                             // U+3000
    EXPECT_FALSE(ingest::has_unicode_blanks("plain \xC3\xA9 text"));  // é
}

// NVIDIA/nccl-tests issue 128: reduce_scatter on 2 nodes x 4 GPUs, busbw/algbw printed 0.00/0.01 (no ratio clue).
// nccl-tests prints one rank's count for reduce_scatter: 128 B / (4 elements x 4 B) = 8, 256 / (8 x 4) = 8.
// Before: refused, "does not fix the rank count ... give --ranks N".
TEST(NcclRanksFromCount, ReduceScatterCountGivesTheRankCount) {
    const NcclLog log = parse_nccl_tests(
        fixture("corpus/nccl-tests/nccl_tests_issue128_reducescatter_2node4gpu_five_size0_rows_no_name_count_gives_ranks.md"),
        "rs.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].rows.size(), 7u);  // five of size 0, 128 and 256 B (the 512 B row is cut)
    const NcclRanks r = resolve_nccl_ranks(log.runs[0], CollectiveKind::reducescatter, std::nullopt, "rs.md");
    EXPECT_EQ(r.n, 8u);
    EXPECT_EQ(r.from, "count_column");
    ASSERT_TRUE(r.count_ranks);
    EXPECT_EQ(*r.count_ranks, 8u);
}

// The count clue is a constraint like the others: NCCL's init line ("nranks 4") against a count of 8 parts disagrees
// (refused),
// and allreduce (whose count is the whole buffer's) takes no clue from it. alltoall: 268435456 B / (1048576 x 4 B)
// = 64 (nccl-tests issue 78's 8 nodes x 8 V100).
TEST(NcclRanksFromCount, ConstraintAndCollectivesItApplies) {
    const std::string hdr =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
    const std::string a2a =
        hdr +
        "   268435456       1048576     float    none      -1   520935    0.52    0.51      0   519562    0.52    0.51      0\n";
    const NcclLog log = parse_nccl_tests(a2a, "a2a.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(resolve_nccl_ranks(log.runs[0], CollectiveKind::alltoall, std::nullopt, "a2a.md").n, 64u);
    const NcclRanks ar = resolve_nccl_ranks(log.runs[0], CollectiveKind::allreduce, 64, "a2a.md");
    EXPECT_FALSE(ar.count_ranks);

    const std::string listed = "h:1:1 [0] NCCL INFO comm 0x5555 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n" + hdr +
                               "         256             8     float    none      -1    20.00    0.01    0.01      0    20.00    "
                               "0.01    0.01      0\n";
    // 256 B / (8 x 4 B) = 8 parts against NCCL's "nranks 4": no count fits both.
    const NcclLog bad = parse_nccl_tests(listed, "ag.md");
    EXPECT_THROW(resolve_nccl_ranks(bad.runs[0], CollectiveKind::allgather, std::nullopt, "ag.md"), InputError);
}

// BabelStream 5.0 prints "Init:" and "Read:" (or --csv's phase table) before its function table: one host-timed call
// each, and main.cpp swaps them (initElapsedS = read2 - read1). The Tursa A100 run shows it: "Read: 0.000810 s
// (=994263 MBytes/sec)" is 805.3 MB in 0.81 ms, no PCIe copy back to the host; "Init: 0.078539 s" at 10.3 GB/s is.
// Before: passed over without a word. Now noted with its line (14), and no row is made of them.
TEST(BabelStreamPhases, InitAndReadAreNotedNotRead) {
    const std::string in = fixture("corpus/babelstream/babelstream5_cuda_a100sxm4_80gb_tursa.txt");
    const BabelStreamFile f = parse_babelstream(in, "tursa");
    ASSERT_EQ(f.runs.size(), 1u);
    EXPECT_EQ(f.runs[0].phase_line, 14u);
    EXPECT_EQ(f.rows.size(), 5u);
    const IngestReport r = babelstream_report(f, "tursa", {});
    EXPECT_TRUE(any_holds(r.notes, "run 1: its Init and Read timings (line 14) are not read"));
    EXPECT_TRUE(any_holds(r.notes, "this version (5.0) prints each under the other's name"));
    // Only 5.0's main.cpp swaps them: another version's run is not said to (before: said of every run).
    std::string later = in;
    later.replace(later.find("Version: 5.0"), 12, "Version: 5.1");
    const IngestReport lr = babelstream_report(parse_babelstream(later, "later"), "later", {});
    EXPECT_TRUE(any_holds(lr.notes, "run 1: its Init and Read timings (line 14) are not read"));
    EXPECT_FALSE(any_holds(lr.notes, "other's name"));

    // --csv: the phase table before the function table (main.cpp's layout; no real capture was found). Copy: 2 arrays
    // x 33554432 x 8 B = 536870912 B in 0.000355 s = 1512312.4 MB/s.
    const std::string csv =
        "phase,n_elements,sizeof,max_mbytes_per_sec,runtime\n"
        "Init,33554432,8,10131.7,0.0795\n"
        "Read,33554432,8,763655.4,0.00105\n"
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n"
        "Copy,100,33554432,8,1512312.4,0.000355,0.000360,0.000357\n";
    const BabelStreamFile c = parse_babelstream(csv, "csv");
    ASSERT_EQ(c.runs.size(), 1u);
    EXPECT_EQ(c.runs[0].phase_line, 1u);
    ASSERT_EQ(c.rows.size(), 1u);
    EXPECT_EQ(c.rows[0].function, "Copy");
    EXPECT_TRUE(any_holds(babelstream_report(c, "csv", {}).notes, "; if this is BabelStream 5.0, each is printed under"));
}

// Second review (logs10b): a lone no-break space between words ("NVIDIA A100", "nGpus 8") is no column-gap evidence;
// only one between two numbers that is not a separator's shape is ("-1 28.15"). Before: the word lines turned the
// file's thousands off, "Copy  1 709 360.800" read as "1 709 360.800" (three words).
TEST(NcclUnicodeBlanks, WordsApartByANoBreakSpaceAreNoColumnGap) {
    ingest::BlankReport r;
    EXPECT_EQ(ingest::ascii_blanks(
                  "NVIDIA" + kNbsp + "A100\n#nGpus" + kNbsp + "8\nCopy  1" + kNbsp + "709" + kNbsp + "360.800  0.00031", r),
              "NVIDIA A100\n#nGpus 8\nCopy  1709360.800  0.00031");
    EXPECT_EQ(r.thousands, 2u);
    EXPECT_EQ(r.gap_line, 0u);
    // A number, its sign or decimal point on both sides: a gap (line 2), so every blank is one.
    ingest::BlankReport gap;
    EXPECT_EQ(ingest::ascii_blanks("Copy  1" + kNbsp + "709\nsum" + kNbsp + "-1" + kNbsp + "28.15", gap),
              "Copy  1 709\nsum -1 28.15");
    EXPECT_EQ(gap.gap_line, 2u);
    EXPECT_EQ(gap.thousands, 0u);
}

// Indentation is no gap, but single blanks between the columns after it are: "    Copy 1 709 360.800 0.00031" is a
// line of ASCII gaps holding separators (before: no ASCII gap, "1 709 360.800" left as three words and the file
// refused). A code block whose columns are no-break spaces alone keeps none.
TEST(NcclUnicodeBlanks, SingleBlanksAfterTheIndentationAreGaps) {
    ingest::BlankReport r;
    EXPECT_EQ(ingest::ascii_blanks("    Copy 1" + kNbsp + "709" + kNbsp + "360.800 0.00031", r), "    Copy 1709360.800 0.00031");
    EXPECT_EQ(r.thousands, 2u);
    ingest::BlankReport none;
    EXPECT_EQ(ingest::ascii_blanks("    Copy" + kNbsp + "1" + kNbsp + "709", none), "    Copy 1 709");
    EXPECT_EQ(none.thousands, 0u);
}

// bs_conflict / bs_indent (logs10b): "1 709 360.800" MB/s = 1709360.8 MB/s on a file naming "NVIDIA A100-SXM4-80GB"
// with a no-break space, and on an indented block of single-blank columns. 2 x 268.4 MB / 0.00031 s = 1731613 MB/s,
// within the 5-decimal time's rounding (0.000305..0.000315 s: 1704127..1760000). Before: refused (no row read).
TEST(BabelStreamUnicodeBlanks, ThousandsBesideANoBreakSpaceBetweenWords) {
    const std::string head =
        "BabelStream\nVersion: 5.0\nImplementation: CUDA\nPrecision: double\n"
        "Array size: 268.4 MB (=0.3 GB)\n";
    const std::string named = head + "Using CUDA device NVIDIA" + kNbsp +
                              "A100-SXM4-80GB\nFunction    MBytes/sec  Min (sec)   Max         Average     \n"
                              "Copy        1" +
                              kNbsp + "709" + kNbsp + "360.800 0.00031     0.00032     0.00032     \n";
    std::string indented =
        "    Function MBytes/sec Min (sec) Max Average\n    Copy 1" + kNbsp + "709" + kNbsp + "360.800 0.00031 0.00032 0.00032\n";
    for (const std::string& in : {named, head + indented}) {
        const BabelStreamFile f = parse_babelstream(in, "bs");
        ASSERT_EQ(f.rows.size(), 1u);
        EXPECT_DOUBLE_EQ(f.rows[0].bw_printed, 1709360.8);
    }
}

// nc_conf2 (logs10b): "# Using" + no-break space + "devices", sizes "1 024" on rows of ASCII gaps: 1024 B (before: the
// word line turned thousands off; with --ranks 8, sizes of 24 B). 4 096 B row: count 1024 floats = 4096 / 4.
TEST(NcclUnicodeBlanks, ThousandsBesideANoBreakSpaceBetweenWords) {
    const std::string text =
        "# nThread 1 nGpus 8 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20\n# Using" + kNbsp +
        "devices\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
        "#wrong\n"
        "        1" +
        kNbsp + "024           256     float     sum      -1    10.00    0.10    0.18      0    10.00    0.10    0.18      0\n" +
        "        4" + kNbsp + "096         1" + kNbsp +
        "024     float     sum      -1    10.00    0.41    0.72      0    10.00    0.41    0.72      0\n";
    const NcclLog log = parse_nccl_tests(text, "nc_conf2");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    EXPECT_EQ(log.runs[0].rows[0].size, 1024u);
    EXPECT_EQ(log.runs[0].rows[1].size, 4096u);
    EXPECT_EQ(log.runs[0].rows[1].count, 1024u);
}

// A locale's no-break thousands separators on every number (review's b1): "Array size: 1 073.7 MB" has no ASCII column
// gap, the rows do; decided once per file, the array is 1073.7 MB = 1073700000 B (+- 0.05 MB) and every row checks:
// Copy 2 x 1073.7e6 B / 0.00154 s = 1394.4e9 B/s against the printed 1397306.105 MB/s, within the time's rounding
// (0.001535..0.001545 s: 1389.9..1398.9 GB/s). Before: the array read as "1" and "073.7", the rows not checked.
TEST(BabelStreamUnicodeBlanks, ThousandsAreDecidedOncePerFile) {
    const std::string in = "BabelStream\nVersion: 4.0\nImplementation: CUDA\nPrecision: double\nArray size: 1" + kNbsp +
                           "073.7 MB (=1.1 GB)\n"
                           "Function    MBytes/sec  Min (sec)   Max         Average     \n"
                           "Copy        1" +
                           kNbsp + "397" + kNbsp + "306.105 0.00154     0.00157     0.00155     \n";
    const BabelStreamFile f = parse_babelstream(in, "b1");
    ASSERT_EQ(f.runs.size(), 1u);
    ASSERT_TRUE(f.runs[0].array_bytes);
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 1073700000.0);
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(f.rows[0].bw_printed, 1397306.105);
    EXPECT_TRUE(any_holds(f.warnings, "line 5: a no-break space between digits read as a thousands separator ('1" + kNbsp +
                                          "073.7' read as 1073.7, and 2 more"));
}

// A web page's no-break spaces in a BabelStream table: read as blanks; one between digits as a thousands separator
// (warned). "1 709 360.800" MB/s = 1709360.8 MB/s; 2 x 268.4 MB / 0.00031 s = 1731613 MB/s, within the rounding of the
// 5-decimal time (0.000305..0.000315 s: 1704127..1760000).
TEST(BabelStreamUnicodeBlanks, ThousandsAndColumnGaps) {
    const std::string in =
        "BabelStream\nVersion: 5.0\nImplementation: CUDA\nPrecision: double\n"
        "Array size: 268.4 MB (=0.3 GB)\n"
        "Function" +
        kNbsp + kNbsp +
        "  MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1" +
        kNbsp + "709" + kNbsp + "360.800 0.00031     0.00032     0.00032\n";
    const BabelStreamFile f = parse_babelstream(in, "nbsp");
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(f.rows[0].bw_printed, 1709360.8);
    EXPECT_TRUE(any_holds(f.warnings, "line 7: a no-break space between digits read as a thousands separator"));
}

// UoB-HPC/BabelStream issue 54: --csv rows with their values elided ("Copy,100,..,"). Before: "CSV result table
// without rows (file truncated?)"; now the refusal says every row has fewer fields than the header.
TEST(BabelStreamCsv, ElidedRowsAreRefusedSayingSo) {
    try {
        (void)parse_babelstream(fixture("corpus/babelstream/babelstream_issue54_csv_rows_elided_then_triad_only_placeholders.md"),
                                "issue54");
        FAIL() << "read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("every row of the CSV result table has fewer fields than its header (5 rows"),
                  std::string::npos)
            << e.what();
    }
    // After a run that was read, such a table is said and left out, not the whole file refused. Copy 2 x 268.4 MB /
    // 0.00031 s = 1731613 MB/s (0.000305..0.000315 s: 1704127..1760000) against 1709360.800.
    const BabelStreamFile f = parse_babelstream(
        "Array size: 268.4 MB (=0.3 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1709360.800 0.00031     0.00032     0.00032\n\n"
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,"
        "max_runtime,avg_runtime\n"
        "Copy,100,..,\n",
        "two");
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(f.rows[0].bw_printed, 1709360.8);
    EXPECT_TRUE(any_holds(f.warnings, "line 5: every row of this CSV result table has fewer fields than its header (1 rows"));
}

// microsoft/mscclpp PR 736: rccl-tests rows pasted through a rich-text editor as a markdown table, '#' escaped as "\#",
// trailing zeros dropped. Before: "holds no nccl-tests result row". 8192 B / 5.8 us (5.75..5.85 us) = 1.400..1.425
// GB/s against the printed 1.41; in place 65536 B / 8.82 us = 7.4304 GB/s (7.43), x 2 x 7/8 = 13.003 against "13".
TEST(NcclMarkdownTable, RowsAsTableCellsAreRead) {
    const NcclLog log = parse_nccl_tests(
        fixture(
            "corpus/nccl-tests/mscclpp_pr736_rccl_tests_mi300x_rows_as_markdown_table_escaped_hash_trailing_zeros_dropped.md"),
        "md.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 9u);  // 1 KiB .. 256 KiB; the 512 KiB row is cut (warned)
    const NcclRow& r8k = log.runs[0].rows[3];
    EXPECT_EQ(r8k.size, 8192u);
    EXPECT_EQ(r8k.type, "half");
    EXPECT_DOUBLE_EQ(r8k.out_of_place->time_us.value, 5.8);
    EXPECT_EQ(r8k.out_of_place->time_us.decimals, 1);                 // as shown: checked to 0.05 us
    EXPECT_EQ(log.runs[0].rows[6].in_place->busbw_GBps.decimals, 0);  // "13"
    EXPECT_TRUE(any_holds(log.warnings, "line 6: 10 rows pasted as a markdown table (cells between '|', 3 header lines"));
    EXPECT_TRUE(any_holds(log.warnings, "line 16: row cut short (6 of the header's 13 columns"));
}

// What is not a result table: a table of words, a row of fewer than 8 cells before any, a cell of two words.
TEST(NcclMarkdownTable, OtherTablesAreLeftAlone) {
    EXPECT_FALSE(ingest::markdown_table_rows("| size | count | type | redop | root | time | algbw | busbw |\n"));
    EXPECT_FALSE(ingest::markdown_table_rows("| 1024 | 512 | 5.39 |\n"));
    EXPECT_FALSE(ingest::markdown_table_rows("1024 | 512 | half | sum | -1 | 5.39 | 0.19 | 0.33 | 0 | 5 45\n"));
    const auto t = ingest::markdown_table_rows("| 8 | 2 | float | sum | -1 | 1.0 | 0.00 | 0.00 | 0 |\n|--|--|\n");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->text, "8  2  float  sum  -1  1.0  0.00  0.00  0\n\n");
    EXPECT_EQ(t->separators, 1u);
}

// UoB-HPC/BabelStream PR 139: an MI-210 table with no "Array size" line. Each row's bandwidth x min time / arrays is the
// array size to the rounding of both: Copy (1406620.269 +- 0.0005) MB/s x (0.00305 +- 0.000005) s / 2, ..., Dot
// 745985.464 x 0.00576 / 2. Their intersection is 2146573171..2148159882 B (the largest lower bound is Add's
// 1279936.3735e6 x 0.005025 / 3, the least upper bound Dot's 745985.4645e6 x 0.005765 / 2); 2^28 x 8 = 2147483648 B is
// in it. Editing Add's min time to 0.00603 moves its lower bound to 2570538883 B, above every upper bound: warned.
TEST(BabelStreamNoArraySize, RowsAgreeOnOneArraySize) {
    const std::string head =
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        1406620.269 0.00305     0.00322     0.00308     \n"
        "Mul         1404059.445 0.00306     0.00316     0.00312     \n";
    const std::string tail =
        "Triad       1272501.462 0.00506     0.00524     0.00516     \n"
        "Dot         745985.464  0.00576     0.00687     0.00626\n";
    const IngestReport ok = babelstream_report(
        parse_babelstream(head + "Add         1279936.374 0.00503     0.00522     0.00515     \n" + tail, "mi210"), "mi210", {});
    EXPECT_TRUE(any_holds(ok.notes,
                          "run 1: no array size printed; its 5 rows agree on one (bandwidth x min time / arrays = "
                          "2146573171..2148159882 bytes)"));
    const IngestReport edited = babelstream_report(
        parse_babelstream(head + "Add         1279936.374 0.00603     0.00622     0.00615     \n" + tail, "mi210"), "mi210", {});
    EXPECT_TRUE(any_holds(edited.warnings,
                          "run 1: no array size printed, and its rows' bandwidth x min time / arrays agree "
                          "on none"));
    EXPECT_FALSE(any_holds(edited.notes, "agree on one"));
}

// journalctl / syslog: "Nov 25 12:00:01 gpu01 all_reduce_perf[4242]: " before every line. Before: "holds no nccl-tests
// result row" (the "[4242]:" was cut as a rank label, leaving "Nov 25 12:00:01 gpu01 all_reduce_perf" before the row).
// 268435456 B / 1151.1 us = 233.20 GB/s (printed 233.20), x 2 x 7/8 = 408.10.
TEST(NcclLauncherPrefix, JournaldPrefixIsCut) {
    const std::string p = "Nov 25 12:00:01 gpu01 all_reduce_perf[4242]: ";
    const NcclLog log = parse_nccl_tests(p + "# Collective test starting: all_reduce_perf\n" + p +
                                             "   268435456      67108864     float     sum      -1   1151.1  233.20  408.10      "
                                             "0   1146.6  234.11  409.70      0\n",
                                         "journal.txt");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].rows[0].size, 268435456u);
    EXPECT_DOUBLE_EQ(log.runs[0].rows[0].out_of_place->busbw_GBps.value, 408.10);
    // Not a month, or no tag ending in ':': not a syslog prefix (the line is left to the other rules).
    EXPECT_EQ(detail::strip_launcher_tags("Now 25 12:00:01 h x: 8 2"), "Now 25 12:00:01 h x: 8 2");
    // journalctl -o short-iso writes the time as one ISO 8601 word. Before: "holds no nccl-tests result row".
    const std::string iso = "2024-11-25T12:00:01+0000 gpu01 all_reduce_perf[4242]: ";
    const NcclLog isolog = parse_nccl_tests(iso + "# Collective test starting: all_reduce_perf\n" + iso +
                                                "   268435456      67108864     float     sum      -1   1151.1  233.20  "
                                                "408.10      0   1146.6  234.11  409.70      0\n",
                                            "iso.txt");
    ASSERT_EQ(isolog.runs.size(), 1u);
    EXPECT_EQ(isolog.runs[0].program, "all_reduce_perf");
    ASSERT_EQ(isolog.runs[0].rows.size(), 1u);
    EXPECT_DOUBLE_EQ(isolog.runs[0].rows[0].in_place->busbw_GBps.value, 409.70);
    EXPECT_EQ(detail::strip_launcher_tags("2024-11-25T12:00:01.123456+0000 h p[1]: # x"), "# x");
}

// UoB-HPC/BabelStream issue 50: a GTX 960 run printed its banner and context, then "Aborted (core dumped)", and the CPU
// run after it printed its table. Before: the aborted run was dropped without a word. CPU Copy: 2 x 268.4 MB / 0.01891
// s = 28387.1 MB/s against the printed 28395.227 (0.00001 s of rounding in the time is 0.03 %).
TEST(BabelStreamRuns, ARunWithoutATableBeforeAnotherIsSaid) {
    const BabelStreamFile f = parse_babelstream(
        fixture("corpus/babelstream/babelstream_issue50_sycl33_gtx960_aborted_after_banner_then_cpu_run_cut_in_triad_name.md"),
        "issue50");
    ASSERT_EQ(f.runs.size(), 1u);
    EXPECT_EQ(f.runs[0].device, "Intel(R) Core(TM) i7-5960X CPU @ 3.00GHz");
    EXPECT_EQ(f.rows.size(), 3u);  // Copy, Mul, Add; "Tr" is cut
    EXPECT_TRUE(any_holds(f.warnings, "line 4: a run starts and prints no table before the next run's banner on line 21"));
}

// NCCL 2.19+ prints, during a communicator's init and before "Init COMPLETE", "comm 0x... rank 13 nRanks 16 nNodes 2
// localRanks 8 localRank 5 MNNVL 0" (two such lines from NVIDIA/nccl issue 1357, a 2-node H100 run). A log that keeps
// these and not the COMPLETE lines had no rank clue from them. The row is made up: busbw/algbw 0.06/0.03 bounds n only
// below (0.055/0.035 = 1.571 = 2(n-1)/n gives n >= 4.7), so 16 comes from the init lines.
TEST(NcclRanksFromInit, TopologyLineWithNNodesNamesTheCount) {
    const std::string text =
        "qh100-gpu20:39634:39692 [5] NCCL INFO comm 0x5558e3c10180 rank 13 nRanks 16 nNodes 2 localRanks 8 localRank 5 MNNVL 0\n"
        "qh100-gpu20:39635:39691 [6] NCCL INFO comm 0x56089796c4b0 rank 14 nRanks 16 nNodes 2 localRanks 8 localRank 6 MNNVL 0\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "        1024           256     float     sum      -1    30.00    0.03    0.06      0    30.00    0.03    0.06      0\n";
    const NcclLog log = parse_nccl_tests(text, "init.txt");
    ASSERT_EQ(log.runs.size(), 1u);
    const NcclRanks r = resolve_nccl_ranks(log.runs[0], CollectiveKind::allreduce, std::nullopt, "init.txt");
    EXPECT_EQ(r.n, 16u);
    EXPECT_EQ(r.from, "nccl_init");
    // Without "nNodes" after the count, or "Init COMPLETE/START" on the line, "rank R nRanks N" is not taken.
    const NcclLog other =
        parse_nccl_tests("h:1:2 [0] NCCL INFO rank 3 nRanks 4 something\n" + text.substr(text.find("#")), "other.txt");
    EXPECT_TRUE(other.runs[0].comm_nranks.empty());
}

// The summary's peak busbw is the re-derived one (size / time x factor), as in the table against the link, not the
// log's 2-decimal one: issue1530's 8 B in 42.56 us over 8 ranks is 8 / 42.56e-6 / 1e9 = 0.000188 GB/s x 2 x 7/8 =
// 0.000329 GB/s (printed "0.00"; before: "peak busbw 0.0 GB/s"). A row not re-derived (time 0) keeps the printed one.
TEST(NcclSummary, PeakBusbwIsTheReDerivedOne) {
    IngestRun run;
    run.fields = {{"collective", std::string("allreduce")}, {"ranks", std::uint64_t{8}}};
    Section rows;
    rows.key = "rows";
    rows.columns = {{"size_bytes", "", 0}, {"busbw_GBps", "", 2}, {"busbw_rederived_GBps", "", 3}};
    const double rederived = 8 / 42.56e-6 / 1e9 * 1.75;
    rows.rows = {{std::uint64_t{8}, 0.0, rederived}, {std::uint64_t{4}, 0.0, Cell()}};
    run.sections.push_back(rows);
    const std::vector<std::string> lines = nccl_run_summary(run, 1);
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0].rfind("allreduce over 8 ranks: peak busbw 0.000329 GB/s at 8 B (", 0), 0u) << lines[0];
    // Printed only: 0.05 GB/s at 4 B, above the re-derived 0.000329.
    run.sections[0].rows[1][1] = 0.05;
    EXPECT_EQ(nccl_run_summary(run, 1)[0].rfind("allreduce over 8 ranks: peak busbw 0.05 GB/s at 4 B (", 0), 0u);
}

}  // namespace
