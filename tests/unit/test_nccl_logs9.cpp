// nccl-tests logs bwacct had not seen (tests/data/corpus/nccl-tests/, "# logs9"): a row cut after its
// out-of-place result. Each test fails before the fix.
#include <gtest/gtest.h>

#include <string>

#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"

namespace {

using namespace bwacct;

const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n";

bool has_warning(const NcclLog& log, const std::string& part) {
    for (const std::string& w : log.warnings)
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

// NVIDIA/nccl issue 2169: alltoall_perf on 4 H100 (mpirun -np 4 -g 1), the paste ends after the only row's
// out-of-place busbw. size 524288000 B at 3245.27 us: algbw = 524288000 / 3245.27e-6 / 1e9 = 161.554 GB/s
// (printed 161.55); busbw = 161.554 x (4-1)/4 = 121.166 (printed 121.17). Before: the row was dropped
// ("row cut short") and the file refused as holding no row.
TEST(NcclCutRow, OutOfPlaceHalfIsKept) {
    const std::string text = std::string("# Collective test starting: alltoall_perf\n") +
                             "#  Rank  0 Group  0 Pid 2352196 on    Node1 device  0 [0000:4e:00] NVIDIA H100 80GB HBM3\n"
                             "#  Rank  3 Group  0 Pid 2352199 on    Node1 device  3 [0000:db:00] NVIDIA H100 80GB HBM3\n" +
                             kHeader + "   524288000      32768000     float    none      -1  3245.27  161.55  121.17\n";
    const NcclLog log = parse_nccl_tests(text, "a2a.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    const NcclRow& row = log.runs[0].rows[0];
    EXPECT_EQ(row.size, 524288000u);
    EXPECT_EQ(row.redop, "none");
    EXPECT_EQ(row.root, -1);
    ASSERT_TRUE(row.out_of_place);
    EXPECT_FALSE(row.in_place);
    EXPECT_DOUBLE_EQ(row.out_of_place->time_us.value, 3245.27);
    EXPECT_DOUBLE_EQ(row.out_of_place->busbw_GBps.value, 121.17);
    EXPECT_FALSE(row.out_of_place->wrong);  // not printed
    EXPECT_TRUE(has_warning(log, "the out-of-place result is read, the in-place one is lost"));
}

// The cut goes through the in-place half: the out-of-place #wrong and the in-place time are there, the
// in-place algbw is not. The out-of-place result is read with its #wrong (0).
TEST(NcclCutRow, CutInsideTheInPlaceHalf) {
    const std::string text =
        std::string(kHeader) +
        "     8388608       2097152     float     sum      -1    91.10   92.08  161.14      0    94.94   88.36  154.63      0\n"
        "    16777216       4194304     float     sum      -1   131.20  127.88  223.78      0   133.5\n";
    const NcclLog log = parse_nccl_tests(text, "ar.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    const NcclRow& row = log.runs[0].rows[1];
    ASSERT_TRUE(row.out_of_place);
    EXPECT_FALSE(row.in_place);
    EXPECT_DOUBLE_EQ(row.out_of_place->algbw_GBps.value, 127.88);
    ASSERT_TRUE(row.out_of_place->wrong);
    EXPECT_EQ(*row.out_of_place->wrong, 0.0);

    // A whole row of the older "redop ... error" layout (12 tokens) under this 2.x header is not a cut one: its algbw
    // is not read as a time.
    const NcclLog mixed = parse_nccl_tests(
        std::string(kHeader) +
            "     8388608       2097152     float     sum      -1    91.10   92.08  161.14      0    94.94   88.36  154.63      "
            "0\n"
            "   268435456      67108864     float     sum   122131    2.20    4.33  2e-06   122165    2.20    4.33  2e-06\n",
        "mixed.md");
    // It is left out, warned as a row cut short (line 3), never read with its algbw as a time.
    ASSERT_EQ(mixed.runs.size(), 1u);
    ASSERT_EQ(mixed.runs[0].rows.size(), 1u);
    EXPECT_EQ(mixed.runs[0].rows[0].size, 8388608u);
    EXPECT_TRUE(has_warning(mixed, "line 3: row cut short (12 of the header's 13 columns"));
}

// NVIDIA/nccl-tests issue 78: the paste ends inside the last row's out-of-place busbw ("78.7", where
// nccl-tests prints 2 decimals). That busbw is not the log's number: the row is not read.
TEST(NcclCutRow, BusbwCutThroughIsNotRead) {
    const std::string text =
        "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "  1073741824     268435456   float     sum    29896   35.92   71.55    N/A    29411   36.51   72.73    N/A\n"
        "  2147483648     536870912   float     sum    54309   39.54   78.7\n";
    const NcclLog log = parse_nccl_tests(text, "ar.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].rows[0].size, 1073741824u);
    EXPECT_TRUE(has_warning(log, "row cut short (7 of the header's 12 columns"));
}

// nccl-tests before its 2018 rewrite (NCCL 2.0-2.2) prints "bytes N type ..." headers and times in ms (common.cu:
// PRINT("  %7.3f  %5.2f  %5.2f  %7.0le", deltaSec * 1.0E3, ...)). Read as ms: 33554432 B in 3.500 ms gives an algbw of
// 33554432 / 3.5e-3 / 1e9 = 9.587 GB/s, the printed 9.59; read as us (before) it was 9587 GB/s, 1000x too fast.
// reduce ("op root"), all_gather (no op) and broadcast ("root", out-of-place only) have their own headers.
TEST(NcclEarlyMs, EveryEarlyHeaderReadsTimesInMs) {
    const NcclLog reduce = parse_nccl_tests(
        "#      bytes             N    type      op    root     time  algbw  busbw      res     time  algbw  busbw      res\n"
        "    33554432       8388608   float     sum       0    3.500   9.59   9.59    1e-07    3.500   9.59   9.59    1e-07\n",
        "r.txt");
    ASSERT_EQ(reduce.runs.size(), 1u);
    const NcclRow& r = reduce.runs[0].rows.at(0);
    EXPECT_EQ(r.redop, "sum");
    EXPECT_EQ(r.root, 0);
    ASSERT_TRUE(r.out_of_place && r.in_place);
    EXPECT_DOUBLE_EQ(r.out_of_place->time_us.value, 3500.0);
    EXPECT_EQ(r.out_of_place->time_us.decimals, 0);  // 3 decimals of ms: whole us
    EXPECT_TRUE(r.out_of_place->max_error);          // "res": the largest deviation, not a count
    EXPECT_DOUBLE_EQ(r.in_place->time_us.value, 3500.0);

    const NcclLog gather = parse_nccl_tests(
        "#      bytes             N    type     time  algbw  busbw      res     time  algbw  busbw      res\n"
        "    33554432       4194304   float    7.000   4.79   4.19    0e+00    7.000   4.79   4.19    0e+00\n",
        "ag.txt");
    ASSERT_EQ(gather.runs.size(), 1u);
    EXPECT_DOUBLE_EQ(gather.runs[0].rows.at(0).out_of_place->time_us.value, 7000.0);
    EXPECT_TRUE(gather.runs[0].rows[0].redop.empty());

    // broadcast: one result per row (8 columns); 67108864 B / 7e-3 s / 1e9 = 9.587 GB/s.
    const NcclLog bcast = parse_nccl_tests(
        "#      bytes             N    type    root     time  algbw  busbw      res\n"
        "    67108864      16777216   float       0    7.000   9.59   9.59    0e+00\n",
        "bc.txt");
    ASSERT_EQ(bcast.runs.size(), 1u);
    const NcclRow& b = bcast.runs[0].rows.at(0);
    EXPECT_EQ(b.root, 0);
    ASSERT_TRUE(b.out_of_place);
    EXPECT_FALSE(b.in_place);
    EXPECT_DOUBLE_EQ(b.out_of_place->time_us.value, 7000.0);
}

// The same early rows pasted without their header: the row says its unit. Read as us, 33554432 B in "3.500 us" would
// give size / time = 33554432 / 3.5e-6 / 1e9 = 9587 GB/s against the printed algbw 9.59, a ratio of 999.7; read as ms,
// 9.587 GB/s. Every row with an algbw of at least 1 shows it: read as ms, warned. Before: read as us, 1000x too fast.
TEST(NcclEarlyMs, HeaderlessRowsWhoseAlgbwSaysMs) {
    const NcclLog log = parse_nccl_tests(
        "    33554432       8388608   float     sum    3.500   9.59  14.38    1e-06    3.500   9.59  14.38    1e-06\n"
        "    67108864      16777216   float     sum    7.000   9.59  14.38    1e-06    7.000   9.59  14.38    1e-06\n",
        "ar.txt");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_DOUBLE_EQ(log.runs[0].rows.at(0).out_of_place->time_us.value, 3500.0);
    EXPECT_DOUBLE_EQ(log.runs[0].rows.at(1).in_place->time_us.value, 7000.0);
    EXPECT_TRUE(has_warning(log, "times read as ms"));
    // A us row (8388608 B / 91.10e-6 s / 1e9 = 92.08 GB/s, the printed algbw: ratio 1) is left as it is.
    const NcclLog us = parse_nccl_tests(
        "     8388608       2097152     float     sum      -1    91.10   92.08  161.14      0    94.94   88.36  154.63      0\n",
        "us.txt");
    EXPECT_DOUBLE_EQ(us.runs.at(0).rows.at(0).out_of_place->time_us.value, 91.10);
    EXPECT_TRUE(us.warnings.empty());
}

// NCCL 1's own test/single programs print the same header, but their rank lines say "Rank N uses device" and their
// sizes are not nccl-tests' (reduce_scatter_test prints one rank's bytes). Such a run is dropped with a warning; the
// other runs of the file are read (a README comparing the old output with a current run), and a file holding only that
// run is refused in one line naming it.
TEST(NcclEarlyMs, Nccl1OwnTestRunIsDroppedNotTheFile) {
    const std::string nccl1 =
        "# Using devices\n"
        "#   Rank  0 uses device  0 [0x06] Tesla P100-SXM2-16GB\n"
        "#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res\n"
        "    10000000      10000000    char     sum    0.064  157.38   0.00    0e+00    0.005  2083.77   0.00    0e+00\n";
    const std::string modern = std::string("# Collective test starting: all_reduce_perf\n") + kHeader +
                               "     8388608       2097152     float     sum      -1    91.10   92.08  161.14      0    94.94   "
                               "88.36  154.63      0\n";
    const NcclLog log = parse_nccl_tests(modern + "\nWith NCCL 1 it was:\n" + nccl1, "mixed.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    EXPECT_TRUE(has_warning(log, "NCCL 1's own test output"));
    try {
        parse_nccl_tests(nccl1, "t.md");
        FAIL() << "not refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("line 2: NCCL 1's own test output"), std::string::npos) << e.what();
    }
}

// The same old block with no rank lines is read (times in ms) but names no collective: in a file of several runs it
// is left out with a warning and the named run is accounted; before, the whole file was refused ("give --op"). A file
// whose runs all name none is still refused. The all_reduce row: busbw/algbw = 161.14 / 92.08 = 1.75 = 2(n-1)/n, n = 8.
TEST(NcclEarlyMs, RunNamingNoCollectiveIsLeftOutOfASeveralRunFile) {
    const std::string modern = std::string("# Collective test starting: all_reduce_perf\n") + kHeader +
                               "     8388608       2097152     float     sum      -1    91.10   92.08  161.14      0    94.94   "
                               "88.36  154.63      0\n";
    const std::string old =
        "#      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res\n"
        "    10000000      10000000    char     sum    0.064  157.38   0.00    0e+00    0.005  2083.77   0.00    0e+00\n";
    static const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    NcclAccountingInput in;
    in.ranks = 8;
    const NcclLog log = parse_nccl_tests(modern + "\nWith NCCL 1 it was:\n" + old, "mixed.md");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_DOUBLE_EQ(log.runs[1].rows.at(0).out_of_place->time_us.value, 64.0);  // 0.064 ms
    const IngestReport rep = account_nccl(log, "mixed.md", in, {&catalog.get("a100-sxm-40gb", "--gpu")});
    EXPECT_EQ(rep.runs.size(), 1u);
    bool warned = false;
    for (const std::string& w : rep.warnings)
        warned = warned || w.find("run 2 (lines 6–7): the log does not name its collective") != std::string::npos;
    EXPECT_TRUE(warned);
    const NcclLog none = parse_nccl_tests(old + "\n" + old, "old.md");
    ASSERT_EQ(none.runs.size(), 2u);
    EXPECT_THROW(account_nccl(none, "old.md", in, {&catalog.get("a100-sxm-40gb", "--gpu")}), InputError);
}

// Current nccl-tests prints bandwidths with getFloatStr(bw, 6): "%6.2f" below 1000 GB/s, "%6.1f" below 10^4, "%6.0f"
// below 10^6 (util.cu). A row cut after its out-of-place busbw of 1234.7 GB/s (1 decimal) is whole: 1073741824 B in
// 1304.5 us = 823.11 GB/s algbw, busbw 823.11 x 1.5 = 1234.7 (a 4-rank allreduce, 2(n-1)/n = 1.5). Before: dropped as
// "cut short" (2 decimals were required). "1234" (0 decimals below 10^4) is a cut one.
TEST(NcclCutRow, BandwidthsAbove1000HaveFewerDecimals) {
    const std::string head =
        std::string(kHeader) +
        "   536870912     134217728     float     sum      -1   652.30  823.05  1234.6      0   652.30  823.05  1234.6      0\n";
    const NcclLog log =
        parse_nccl_tests(head + "  1073741824     268435456     float     sum      -1   1304.5  823.11  1234.7\n", "big.txt");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    const NcclRow& row = log.runs[0].rows[1];
    ASSERT_TRUE(row.out_of_place);
    EXPECT_FALSE(row.in_place);
    EXPECT_DOUBLE_EQ(row.out_of_place->busbw_GBps.value, 1234.7);
    const NcclLog cut =
        parse_nccl_tests(head + "  1073741824     268435456     float     sum      -1   1304.5  823.11  1234\n", "cut.txt");
    ASSERT_EQ(cut.runs.size(), 1u);
    EXPECT_EQ(cut.runs[0].rows.size(), 1u);
}

// A row with one result under a header with two. rccl-tests -O 1 (out-of-place only: enable_in_place = 0) prints the
// out-of-place result alone; nccl-tests' trace replay prints the in-place one after 32 blanks. The header's
// out-of-place #wrong ends 73 characters after its "size" column, its in-place #wrong 106 after. The -O 1 row's last
// column ends 73 after its size (2+12 + 2+8 + 2+6 + 2+6 count/type/redop/root = 40, then 2+7 + 2+6 + 2+6 + 2+6 = 33):
// out-of-place, warned once. The trace-replay row's ends 40 + 32 + 33 = 105 after: in-place. Before: both in-place.
TEST(NcclCutRow, OneResultRowIsPlacedByItsColumns) {
    const NcclLog o1 =
        parse_nccl_tests(std::string(kHeader) +
                             "     1048576        262144     float     sum      -1    20.00   52.43   78.64       0\n"
                             "     2097152        524288     float     sum      -1    40.00   52.43   78.64       0\n",
                         "rccl_O1.txt");
    ASSERT_EQ(o1.runs.size(), 1u);
    ASSERT_EQ(o1.runs[0].rows.size(), 2u);
    for (const NcclRow& row : o1.runs[0].rows) {
        EXPECT_TRUE(row.out_of_place);
        EXPECT_FALSE(row.in_place);
    }
    EXPECT_TRUE(has_warning(o1, "read as out-of-place"));
    // With -A 1 rccl-tests appends the algorithm, protocol and channel count: not columns of a result (before: the row
    // was "cut short", 12 of 13 columns).
    const NcclLog a1 = parse_nccl_tests(std::string(kHeader) +
                                            "     1048576        262144     float     sum      -1    20.00   52.43   78.64       "
                                            "0      RING    SIMPLE          16\n",
                                        "rccl_O1A1.txt");
    ASSERT_EQ(a1.runs.size(), 1u);
    ASSERT_TRUE(a1.runs[0].rows.at(0).out_of_place);
    EXPECT_FALSE(a1.runs[0].rows[0].in_place);
    EXPECT_FALSE(has_warning(a1, "cut short"));
    const NcclLog replay = parse_nccl_tests(std::string(kHeader) +
                                                "     1048576        262144     float     sum      -1                            "
                                                "        20.00   52.43   78.64       0\n",
                                            "replay.txt");
    ASSERT_EQ(replay.runs.size(), 1u);
    const NcclRow& row = replay.runs[0].rows.at(0);
    EXPECT_FALSE(row.out_of_place);
    ASSERT_TRUE(row.in_place);
    EXPECT_DOUBLE_EQ(row.in_place->time_us.value, 20.0);
    EXPECT_TRUE(replay.warnings.empty());
}

// A row cut after its in-place busbw (12 of the header's 13 columns) keeps its out-of-place half: its own token count
// (12) is the older "redop ... error" layout's, but that layout would read the root "-1" as a time. Before: dropped.
// nccl-tests -T: the timeout message is printed onto the row after the out-of-place result, glued to its #wrong ("0")
// by the host name ("n1"); the row before that token is read (time 40.00, busbw 78.64, no #wrong) and the timeout said.
TEST(NcclCutRow, CutAfterInPlaceBusbwAndTimeoutText) {
    const std::string full = std::string(kHeader) +
                             "     1048576        262144     float     sum      -1    20.00   52.43   78.64       0    20.00   "
                             "52.43   78.64       0\n";
    const NcclLog ip = parse_nccl_tests(
        full + "     2097152        524288     float     sum      -1    40.00   52.43   78.64       0    40.00   52.43   78.64\n",
        "ip.txt");
    ASSERT_EQ(ip.runs.size(), 1u);
    ASSERT_EQ(ip.runs[0].rows.size(), 2u);
    ASSERT_TRUE(ip.runs[0].rows[1].out_of_place);
    EXPECT_DOUBLE_EQ(ip.runs[0].rows[1].out_of_place->time_us.value, 40.0);

    const NcclLog t = parse_nccl_tests(
        full +
            "     2097152        524288     float     sum      -1    40.00   52.43   78.64       0n1: Test timeout (20s) "
            "common.cu:400\n",
        "timeout.txt");
    ASSERT_EQ(t.runs.size(), 1u);
    ASSERT_EQ(t.runs[0].rows.size(), 2u);
    const NcclRow& row = t.runs[0].rows[1];
    ASSERT_TRUE(row.out_of_place);
    EXPECT_FALSE(row.in_place);
    EXPECT_DOUBLE_EQ(row.out_of_place->busbw_GBps.value, 78.64);
    EXPECT_FALSE(row.out_of_place->wrong);
    EXPECT_TRUE(has_warning(t, "n1: Test timeout (20s)"));
}

// A 2.x reduce row cut after its out-of-place busbw under an older header (no root column, 12 columns): its 8 tokens
// have the older layout's one-result shape, which reads the root "0" as the time and the busbw as the error column.
// nccl-tests never prints a time as a bare "0": the row is not read, warned. Before: read with a time of 0.
TEST(NcclCutRow, RootZeroIsNeverATime) {
    const NcclLog log = parse_nccl_tests(
        "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "   268435456      67108864     float     sum   122131    2.20    4.33  2e-06   122165    2.20    4.33  2e-06\n"
        "     1048576        262144     float     sum       0    20.00   52.43   52.43\n",
        "stale.txt");
    for (const NcclRun& run : log.runs)
        for (const NcclRow& r : run.rows)
            EXPECT_NE(r.size, 1048576u) << "read with the root as its time";
    EXPECT_TRUE(has_warning(log, "line 3: unreadable numbers"));
}

// NVIDIA/nccl issue 340 (NCCL 2.6.4): rows pasted without header or test name, "float sum 0": an operation and root 0.
// Only reduce_perf prints both (broadcast's old rows have a root and no operation; allreduce's root is -1). Each row's
// busbw = algbw (reduce's factor 1): 0.29 / 0.29 bounds the factor to [0.285 / 0.295, 0.295 / 0.285] = [0.966,
// 1.035], which holds 1. Before: refused ("the log does not name its collective; give --op").
TEST(NcclCutRow, OperationAndRootZeroAreOnlyReduce) {
    const std::string text =
        "        2048           512   float     sum       0     7.11    0.29    0.29  0e+00     7.12    0.29    0.29  0e+00\n"
        "        4096          1024   float     sum       0     7.28    0.56    0.56  0e+00     7.20    0.57    0.57  0e+00\n";
    const NcclLog log = parse_nccl_tests(text, "t.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_TRUE(nccl_rows_reduce(log.runs[0]));
    static const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    NcclAccountingInput in;
    in.ranks = 2;
    const IngestReport rep = account_nccl(log, "t.md", in, {&catalog.get("a100-sxm-40gb", "--gpu")});
    bool named = false;
    for (const std::string& n : rep.notes)
        named = named || n.find("collective: reduce (the rows: a reduction operation and a root") != std::string::npos;
    EXPECT_TRUE(named);
    // A broadcast's old row (root, no operation) and an allreduce's (operation, root -1) are not reduce's.
    EXPECT_FALSE(nccl_rows_reduce(
        parse_nccl_tests(
            "#       size         count    type    root     time   algbw   busbw  error     time   algbw   busbw  error\n"
            "           8             2   float       0    45.82    0.00    0.00    N/A    38.17    0.00    0.00    N/A\n",
            "b.md")
            .runs[0]));
    EXPECT_FALSE(nccl_rows_reduce(parse_nccl_tests("        2048           512     float     sum      -1    20.24    0.10    "
                                                   "0.10      0    20.13    0.10    0.10      0\n",
                                                   "a.md")
                                      .runs[0]));
}

}  // namespace

namespace {

// The header's out-of-place and in-place "#wrong" end 73 and 106 characters after its "size" (the header above).
const char* kCputimeHeader =
    "#       size         count      type   redop    root  cputime   algbw   busbw  #wrong  cputime   algbw   busbw  #wrong \n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n";

bool has_warning_at(const NcclLog& log, int line, const std::string& part) {
    return has_warning(log, "line " + std::to_string(line) + ": " + part);
}

}  // namespace

// nccl-tests -C 1 prints "cputime" for "time" (the host's launch loop, in us; algbw is from the GPU time). Rows of
// 536870912 B at 6.10 us and 200.00 GB/s: size / (time in ms) / algbw = 536870912 / 6.10e3 / 200 = 440.1, inside the
// 300..3000 "times in ms" band of headerless rows; 1073741824 / 6.30e3 / 200 = 852.2. Under a header that says "(us)"
// the printed times are not rescaled: they are kept as cputime_us (6.10 and 6.30 us), and the op time is the GPU time
// size / algbw (NcclCputime below), with a note on cputime. Before: read as ms (6100 us), warned as early nccl-tests.
// The same rows under the plain "time" header are kept as printed.
TEST(NcclEarlyMs, HeaderSaysUsSoRowsAreNotRescaled) {
    const std::string rows =
        "   536870912     134217728     float     sum      -1     6.10  200.00  300.00       0     6.10  200.00  300.00       0\n"
        "  1073741824     268435456     float     sum      -1     6.30  200.00  300.00       0     6.30  200.00  300.00       "
        "0\n";
    const NcclLog c = parse_nccl_tests(std::string(kCputimeHeader) + rows, "cputime.txt");
    ASSERT_EQ(c.runs.size(), 1u);
    ASSERT_EQ(c.runs[0].rows.size(), 2u);
    EXPECT_DOUBLE_EQ(c.runs[0].rows[0].out_of_place->cputime_us.value().value, 6.10);
    EXPECT_DOUBLE_EQ(c.runs[0].rows[1].in_place->cputime_us.value().value, 6.30);
    EXPECT_FALSE(has_warning(c, "times read as ms"));
    EXPECT_TRUE(has_warning_at(c, 3, "the time columns are nccl-tests -C 1's \"cputime\""));
    const NcclLog t = parse_nccl_tests(std::string(kHeader) + rows, "time.txt");
    ASSERT_EQ(t.runs.size(), 1u);
    EXPECT_DOUBLE_EQ(t.runs[0].rows.at(0).out_of_place->time_us.value, 6.10);
    EXPECT_TRUE(t.warnings.empty());
}

// nccl-tests -C 1: common.cu prints timeUsec = (report_cputime ? cputimeSec : deltaSec) * 1e6, but getBw gets deltaSec:
// algbw and busbw are from the GPU time, the printed "cputime" is the host's launch loop. The collective's time is
// therefore size / algbw: 536870912 B / 200.00 GB/s = 2684.35456 us (1073741824 B: 5368.70912 us), and the record's
// busbw at that time is 536870912 / 2684.35456e-6 / 1e9 x 2(4-1)/4 = 200 x 1.5 = 300 GB/s, as printed. Rows of 8 B at
// algbw 0.00 have no GPU time (size / [0, 0.005) GB/s is unbounded): no record. Before: the op time was the cputime
// 6.10 us, so busbw = 536870912 / 6.10e-6 / 1e9 x 1.5 = 132017 GB/s, all rows "NO", and an α–β fit from it.
TEST(NcclCputime, OpTimeIsSizeOverAlgbwAndCputimeIsKeptApart) {
    std::string text = "# nThread 1 nGpus 4 minBytes 8 maxBytes 1073741824 step: 2(factor)\n";
    for (int rk = 0; rk < 4; ++rk)
        text += "#  Rank  " + std::to_string(rk) + " Group  0 Pid 1 on n1 device  " + std::to_string(rk) +
                " [0x01] NVIDIA H100 80GB HBM3\n";
    text +=
        std::string(kCputimeHeader) +
        "           8             2     float     sum      -1     5.90    0.00    0.00       0     5.80    0.00    0.00       "
        "0\n"
        "   536870912     134217728     float     sum      -1     6.10  200.00  300.00       0     6.10  200.00  300.00       "
        "0\n"
        "  1073741824     268435456     float     sum      -1     6.30  200.00  300.00       0     6.30  200.00  300.00       "
        "0\n";
    const NcclLog log = parse_nccl_tests(text, "cputime.txt");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 3u);
    const NcclResult& big = *log.runs[0].rows[1].out_of_place;
    EXPECT_NEAR(big.time_us.value, 2684.35456, 1e-6);
    EXPECT_DOUBLE_EQ(big.cputime_us.value().value, 6.10);
    EXPECT_NEAR(log.runs[0].rows[2].in_place->time_us.value, 5368.70912, 1e-6);
    static const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    NcclAccountingInput in;
    in.kind = CollectiveKind::allreduce;
    const IngestReport r = account_nccl(log, "cputime.txt", in, {&catalog.get("h100-sxm", "--gpu")});
    ASSERT_EQ(r.records.size(), 4u);  // the two 8 B results have no GPU time
    for (const Record& rec : r.records) {
        ASSERT_EQ(rec.verdicts.size(), 1u);
        ASSERT_TRUE(rec.verdicts[0].busbw_GBps);
        EXPECT_NEAR(*rec.verdicts[0].busbw_GBps, 300.0, 1e-6);
        bool cputime = false;
        for (const Param& p : rec.params)
            cputime = cputime || (p.name == "cputime_us" && std::get<double>(p.value) > 6.0 && std::get<double>(p.value) < 6.4);
        EXPECT_TRUE(cputime);
    }
    bool note = false;
    for (const std::string& n : r.runs[0].notes)
        note = note || n.find("all 4 re-derived results match the log") != std::string::npos;
    for (const Section& s : r.runs[0].sections)
        for (const std::string& n : s.notes)
            note = note || n.find("all 4 re-derived results match the log") != std::string::npos;
    EXPECT_TRUE(note);
}

// NCCL 1's "Rank N uses device" lines with no row of their own, then a complete 2.x run (its nThread line, or only its
// rank lines and column header): the NCCL 1 block ends where the 2.x lines start; the 2.x run is read (1048576 B at
// 20.00 us) with its own device. Before: the file was refused ("line 2: NCCL 1's own test output").
TEST(NcclEarlyMs, RowlessNccl1BlockDoesNotRefuseTheRunAfterIt) {
    const std::string nccl1 =
        "# Using devices\n"
        "#   Rank  0 uses device  0 [0x06] Tesla K80\n"
        "#   Rank  1 uses device  1 [0x07] Tesla K80\n\n";
    const std::string modern =
        "#  Rank  0 Group  0 Pid 1 on n1 device  0 [0x01] NVIDIA H100 80GB HBM3\n"
        "#  Rank  1 Group  0 Pid 1 on n1 device  1 [0x02] NVIDIA H100 80GB HBM3\n" +
        std::string(kHeader) +
        "     1048576        262144     float     sum      -1    20.00   52.43   78.64       0    20.00   52.43   78.64       "
        "0\n";
    for (const std::string& between :
         {std::string("# nThread 1 nGpus 2 minBytes 8 maxBytes 1048576\n"), std::string("prose\n")}) {
        const NcclLog log = parse_nccl_tests(nccl1 + between + modern, "mixed.md");
        ASSERT_EQ(log.runs.size(), 1u);
        ASSERT_EQ(log.runs[0].rows.size(), 1u);
        EXPECT_DOUBLE_EQ(log.runs[0].rows[0].out_of_place->time_us.value, 20.0);
        EXPECT_EQ(log.runs[0].device_name, "NVIDIA H100 80GB HBM3");
        EXPECT_FALSE(has_warning(log, "NCCL 1's own test output"));
    }
}

// nccl-tests -O 0 (in-place only) with its blanks collapsed to one (a web page). Header after "size": " count type
// redop root time algbw busbw #wrong" = 6+5+6+5+5+6+6+7 = 46 characters to the out-of-place #wrong, + " time algbw
// busbw #wrong" = 24 -> 70 to the in-place one. The row " 262144 float sum -1 22.00 47.66 71.49 0" ends 7+6+4+3+6+6+6+2
// = 40 after its size: 6 from the out-of-place end, 30 from the in-place one, within 3 of neither: read as in-place,
// warned as not certain. Before: out-of-place (the nearer end).
TEST(NcclCutRow, OneResultRowThatLinesUpWithNeitherIsNotPlacedOutOfPlace) {
    const NcclLog log = parse_nccl_tests(
        "# size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "# (B) (elements) (us) (GB/s) (GB/s) (us) (GB/s) (GB/s)\n"
        "1048576 262144 float sum -1 22.00 47.66 71.49 0\n"
        "2097152 524288 float sum -1 44.00 47.66 71.49 0\n",
        "O0_collapsed.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    for (const NcclRow& row : log.runs[0].rows) {
        EXPECT_FALSE(row.out_of_place);
        ASSERT_TRUE(row.in_place);
    }
    EXPECT_DOUBLE_EQ(log.runs[0].rows[1].in_place->time_us.value, 44.0);
    EXPECT_TRUE(has_warning_at(log, 3, "a row with one result that lines up with neither"));
    EXPECT_FALSE(has_warning(log, "read as out-of-place"));
}

// A reduce row with root 3 cut after its in-place busbw (12 of 13 columns). Its 12 tokens are also the older "redop ...
// error" layout's, which would read the "3" as a time; under a header with a root column a whole number below 10^5 there
// is a root: the out-of-place result (40.00 us, busbw 52.43) is kept, root 3. Before: dropped as cut short (root -1 or 0
// was kept).
TEST(NcclCutRow, CutRowKeepsItsOutOfPlaceHalfWhateverTheRoot) {
    const NcclLog log = parse_nccl_tests(
        std::string(kHeader) +
            "     1048576        262144     float     sum       3    20.00   52.43   52.43       0    20.00   52.43   52.43      "
            " "
            "0\n"
            "     2097152        524288     float     sum       3    40.00   52.43   52.43       0    40.00   52.43   52.43\n",
        "root3.txt");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    const NcclRow& row = log.runs[0].rows[1];
    EXPECT_EQ(row.root, 3);
    ASSERT_TRUE(row.out_of_place);
    EXPECT_FALSE(row.in_place);
    EXPECT_DOUBLE_EQ(row.out_of_place->time_us.value, 40.0);
    EXPECT_DOUBLE_EQ(row.out_of_place->busbw_GBps.value, 52.43);
}

// Under an older header (no root column: out-of-place "error" ends 64 characters after "size", in-place 96), a 2.x
// reduce row with one result "... sum 0 20.00 52.43 52.43" ends 14+10+8+8+9+8+8 = 65 after its size, under the
// out-of-place result, but its time would be the bare "0" (a root): not read, and no placement said for it. The next
// one-result row (ending 14+10+8+9+8+8+7 = 64 after its size, read: 40.00 us) gets the placement warning. Before: the
// unread row took the run's one placement warning.
TEST(NcclCutRow, PlacementIsSaidForARowThatIsRead) {
    const NcclLog log = parse_nccl_tests(
        "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "     1048576        262144     float     sum       0    20.00   52.43   52.43\n"
        "     2097152        524288     float     sum    40.00   52.43   52.43  0e+00\n",
        "stale.txt");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    ASSERT_TRUE(log.runs[0].rows[0].out_of_place);
    EXPECT_DOUBLE_EQ(log.runs[0].rows[0].out_of_place->time_us.value, 40.0);
    EXPECT_FALSE(has_warning_at(log, 2, "a row with one result"));
    EXPECT_TRUE(has_warning_at(log, 3, "a row with one result whose columns end under the header's out-of-place"));
}
