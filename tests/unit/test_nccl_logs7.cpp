// nccl-tests logs bwacct had not seen (tests/data/corpus/nccl-tests/, "# logs7"): a paste that names no
// test but whose busbw/algbw only an allreduce prints, a README's second run cut before its rows, and an
// old broadcast header (root and error column, no redop). Each test fails before the fix.
#include <gtest/gtest.h>

#include <string>

#include "../../src/ingest/inline_markup.h"
#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"

namespace {

using namespace bwacct;

const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";

IngestReport account(const NcclLog& log, const std::string& file) {
    static const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    return account_nccl(log, file, NcclAccountingInput{}, {&catalog.get("gb200", "--gpu")});
}

bool has_note(const IngestReport& r, const std::string& part) {
    for (const std::string& n : r.notes)
        if (n.find(part) != std::string::npos)
            return true;
    return false;
}

// CoreWeave's GB200 example (coreweave/nccl-tests PR 48) pastes from its last rank line: no test name,
// command or header line. Its first row: 536870912 B in 7108.4 us, algbw printed 75.53, busbw 150.95.
// busbw/algbw >= (150.95 - 0.005) / (75.53 + 0.005) = 150.945 / 75.535 = 1.99834 > 1: nccl-tests' factor
// is 2(n-1)/n for allreduce and at most 1 for every other test, so the rows are an allreduce's.
// n: highest rank id 1439 + 1 = 1440; 2 x 1439 / 1440 = 1.998611, and 75.53 x 1.998611 = 150.955 (printed
// 150.95). Before: refused ("the log does not name its collective; give --op").
TEST(NcclCollectiveFromRows, BusFactorAboveOneIsOnlyAnAllreduce) {
    const std::string text =
        std::string("#  Rank 1439 Group  0 Pid  21082 on slurm-gb200-218-073 device  3 [0x01] NVIDIA GB200\n") + "#\n" + kHeader +
        "   536870912     134217728     float     sum      -1   7108.4   75.53  150.95      0   7145.8   75.13  "
        "150.16      0\n";
    const NcclLog log = parse_nccl_tests(text, "x.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_TRUE(log.runs[0].program.empty());
    const auto f = nccl_rows_allreduce_factor(log.runs[0]);
    ASSERT_TRUE(f.has_value());
    // In-place: (150.16 - 0.005) / (75.13 + 0.005) = 150.155 / 75.135 = 1.99847; out-of-place 1.99834: every result
    // holds, so the factor is at least the greater of the two lower bounds.
    EXPECT_NEAR(*f, 150.155 / 75.135, 1e-9);
    const IngestReport r = account(log, "x.md");
    EXPECT_TRUE(has_note(r, "collective: allreduce (the rows: busbw/algbw ≥ 1.9985 > 1"));
    EXPECT_TRUE(has_note(r, "ranks: 1440"));
}

// The same shape with a factor of at most 1 is no proof: a reduce_scatter's (n-1)/n (busbw 7.00 of algbw
// 8.00 = 0.875, 8 ranks) or a sendrecv's 1 (busbw = algbw; also an allreduce over 2 ranks). Still refused.
TEST(NcclCollectiveFromRows, FactorAtMostOneStillAsksForOp) {
    const std::string rs =
        std::string(kHeader) +
        "     1048576         32768     float     sum      -1    131.1    8.00    7.00      0    131.0    8.00    "
        "7.00      0\n";
    const NcclLog a = parse_nccl_tests(rs, "x.md");
    EXPECT_FALSE(nccl_rows_allreduce_factor(a.runs.at(0)).has_value());
    EXPECT_THROW(account(a, "x.md"), InputError);
    // 1048576 B / 131.1 us = 8.00 GB/s; busbw 8.00: ratio in [7.995/8.005, 8.005/7.995] = [0.99875, 1.00125].
    const std::string sr =
        std::string(kHeader) +
        "     1048576        262144     float     sum      -1    131.1    8.00    8.00      0    131.0    8.00    "
        "8.00      0\n";
    const NcclLog b = parse_nccl_tests(sr, "x.md");
    EXPECT_FALSE(nccl_rows_allreduce_factor(b.runs.at(0)).has_value());
    EXPECT_THROW(account(b, "x.md"), InputError);
    // A rooted row (broadcast/reduce print root >= 0) is never an allreduce's, whatever its numbers.
    const std::string rooted = std::string(kHeader) +
                               "     1048576        262144     float     sum       0    131.1    8.00   15.00      0    131.0    "
                               "8.00   15.00      0\n";
    EXPECT_FALSE(nccl_rows_allreduce_factor(parse_nccl_tests(rooted, "x.md").runs.at(0)).has_value());
}

// A README's second example cut after its rank line and a '#' (coreweave/nccl-tests PR 43: "#  Rank 143 ...",
// "#", "#"): the run has no row. Before: dropped without a word; now one warning naming its first line (8).
TEST(NcclTruncatedRun, HeaderWithNoRowAtTheEndIsWarned) {
    const std::string text =
        std::string("#  Rank 71 Group  0 Pid  14840 on slurm-gb200-207-171 device  3 [0x01] NVIDIA Graphics Device\n") + kHeader +
        "   536870912     134217728     float     sum      -1   1806.7  297.16  586.06      0   1835.9  292.43  "
        "576.74      0\n"
        "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 581.4\n"
        "```\n"
        "Example performance for a multi-rack NVL72 run:\n"
        "#  Rank 143 Group  0 Pid  14840 on slurm-gb200-207-171 device  3 [0x01] NVIDIA Graphics Device\n"
        "#\n"
        "#\n";
    const NcclLog log = parse_nccl_tests(text, "x.md");
    ASSERT_EQ(log.runs.size(), 1u);
    bool warned = false;
    for (const std::string& w : log.warnings)
        warned = warned || w.find("line 8: a run's header or rank list with no result row after it") != std::string::npos;
    EXPECT_TRUE(warned);
    // A file that ends at its footer has nothing to warn about.
    const NcclLog whole = parse_nccl_tests(text.substr(0, text.find("```")), "x.md");
    EXPECT_TRUE(whole.warnings.empty());
}

// nccl-tests 2.9-era broadcast header (NVIDIA/nccl-tests issue 82): "size count type root time algbw busbw
// error": a root and an error column, no redop. Before: named "2.x: redop, root, #wrong".
TEST(NcclLayoutName, RootAndErrorColumnWithoutRedop) {
    const NcclLog log = parse_nccl_tests(
        "#       size         count    type    root     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "           8             2   float       0    45.82    0.00    0.00    N/A    38.17    0.00    0.00    N/A\n",
        "broadcast_perf.log");
    EXPECT_EQ(log.format, "nccl-tests text (root, error column)");
}

// A coloured terminal's escapes around every line (a CI or launcher log: "\x1b[32m" ... "\x1b[0m"), or their residue
// when a copy dropped the ESC ("[32m"): cut before reading. Before: "31 lines look like nccl-tests rows but none
// could be read". The row: 536870912 B in 1806.7 us = 297.16 GB/s algbw (536870912 / 1806.7e-6 / 1e9 = 297.156).
TEST(NcclTerminalEscapes, ColourCodesAroundEveryLineAreCut) {
    const std::string row =
        "   536870912     134217728     float     sum      -1   1806.7  297.16  586.06      0   1835.9  292.43  576.74      0";
    for (const std::string esc : {"\x1b[32m", "[32m", "\x1b[1;31m\x1b[K"}) {
        const std::string reset = esc[0] == '\x1b' ? "\x1b[0m" : "[0m";
        const std::string text =
            esc + std::string(kHeader).substr(0, std::string(kHeader).size() - 1) + reset + "\n" + esc + row + reset + "\n";
        const NcclLog log = parse_nccl_tests(text, "all_reduce_perf.log");
        ASSERT_EQ(log.runs.size(), 1u) << esc;
        ASSERT_EQ(log.runs[0].rows.size(), 1u) << esc;
        EXPECT_EQ(log.runs[0].rows[0].size, 536870912u) << esc;
        ASSERT_TRUE(log.runs[0].rows[0].in_place.has_value()) << esc;
        EXPECT_DOUBLE_EQ(log.runs[0].rows[0].in_place->busbw_GBps.value, 576.74) << esc;
    }
}

// A bare rank label "[0]" (MPICH -prepend-rank, Intel MPI -l) before every write, so also inside a row where the test
// flushed (NVIDIA/nccl issue 1453). Before: "not an nccl-tests row". The row: 1048576 B in 1626.5 us = 0.645 GB/s
// algbw (printed 0.64), in-place 2302.3 us = 0.455 (0.46). A device's "[0x8d]" in a rank line is not a label.
TEST(NcclLaunchTags, BareRankLabelInsideARowIsCut) {
    const NcclLog log = parse_nccl_tests(
        "[0]#  Rank  0 Group  0 Pid   1887 on   worker-1 device  0 [0x8d] NVIDIA H100 80GB HBM3\n"
        "[0]      1048576        262144     float     sum      -1[0]    1626.5    0.64    1.24      0[0]    2302.3    0.46    "
        "0.87      0\n",
        "all_reduce_perf.log");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].device_name, "NVIDIA H100 80GB HBM3");
    const NcclRow& row = log.runs[0].rows[0];
    EXPECT_EQ(row.size, 1048576u);
    ASSERT_TRUE(row.root.has_value());
    EXPECT_EQ(*row.root, -1);
    ASSERT_TRUE(row.out_of_place && row.in_place);
    EXPECT_DOUBLE_EQ(row.out_of_place->time_us.value, 1626.5);
    EXPECT_DOUBLE_EQ(row.in_place->time_us.value, 2302.3);
    EXPECT_DOUBLE_EQ(row.in_place->busbw_GBps.value, 0.87);
}

// The escapes cut, and nothing else: SGR with and without ESC, erase-line, an OSC window title, a charset switch, the
// bare reset "[m" before a line end, a blank or another residue; launcher tags that start with '[' ("[1,0]<stdout>:",
// "[12:00:01]"), "[m]" and "[mlx5_0]" are kept, and so is every newline.
TEST(NcclTerminalEscapes, OnlyEscapesAreCut) {
    EXPECT_EQ(ingest::strip_terminal_escapes("\x1b[1;32mCopy\x1b[0m 1.0\n[32mx[0m\n"), "Copy 1.0\nx\n");
    EXPECT_EQ(ingest::strip_terminal_escapes("\x1b]0;title\x07"
                                             "a\x1b[Kb\x1b(Bc\n"),
              "abc\n");
    EXPECT_EQ(ingest::strip_terminal_escapes("[1,0]<stdout>:[12:00:01] [m\n\n"), "[1,0]<stdout>:[12:00:01] \n\n");
    EXPECT_EQ(ingest::strip_terminal_escapes("a[m[32mb[m c[m"), "ab c");
    EXPECT_EQ(ingest::strip_terminal_escapes("[m] [mlx5_0]:1 [1,0]"), "[m] [mlx5_0]:1 [1,0]");
}

// Whether a reader strips at all is one rule for both readers: an ESC or any residue strip_terminal_escapes cuts. Before:
// only an ESC or "[0m" started it, so "[32m" ... "[39m" (a foreground reset) or "[m" was left in every line.
TEST(NcclTerminalEscapes, AnyResidueStartsTheStripping) {
    EXPECT_TRUE(ingest::has_terminal_escapes("x\x1b[K"));
    EXPECT_TRUE(ingest::has_terminal_escapes("[32mrow[39m\n"));
    EXPECT_TRUE(ingest::has_terminal_escapes("row[m\n"));
    EXPECT_TRUE(ingest::has_terminal_escapes("[1;31mrow"));
    EXPECT_FALSE(ingest::has_terminal_escapes("[1,0]<stdout>:[12:00:01] [m] [mlx5_0] [0]m\n"));
}

// A log coloured with "[32m" ... "[39m" residue and no "[0m" anywhere. Before: "lines look like nccl-tests rows but none
// could be read". The row is read as printed: 1048576 B, time 21.0 us, busbw 87.38 (algbw 1048576 / 21.0e-6 / 1e9 =
// 49.93 GB/s, printed 49.93).
TEST(NcclTerminalEscapes, ForegroundResetWithoutZeroResetIsCut) {
    const std::string row =
        "     1048576        262144     float     sum      -1     21.0   49.93   87.38       0     21.0   49.93   87.38       0";
    const std::string header = std::string(kHeader).substr(0, std::string(kHeader).size() - 1);
    const NcclLog log = parse_nccl_tests("[32m" + header + "[39m\n[32m" + row + "[39m\n", "all_reduce_perf.log");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].rows[0].size, 1048576u);
    ASSERT_TRUE(log.runs[0].rows[0].in_place.has_value());
    EXPECT_DOUBLE_EQ(log.runs[0].rows[0].in_place->busbw_GBps.value, 87.38);
}

}  // namespace
