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
    for (const NcclRun& run : mixed.runs)
        for (const NcclRow& r : run.rows)
            EXPECT_FALSE(r.out_of_place && r.out_of_place->time_us.value == 2.20) << "algbw read as a time";
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

// NVIDIA/nccl issue 120: NCCL 1's single-process all_gather_test ("bytes N type op time algbw busbw res", times in
// ms). Its rows have the token shape of nccl-tests' older "redop ... error" layout: read as that, 10000000 B in
// "0.064 us" gave an algbw of 10000000 / 0.064e-6 / 1e9 = 156250 GB/s against the 157.38 the log prints
// (10000000 B / 0.064 ms = 156.25 GB/s). Now refused by its column header, in one line naming the line.
TEST(NcclCutRow, Nccl1TestOutputIsRefused) {
    const std::string text =
        "    #  bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res\n"
        "    10000000      10000000    char     sum    0.064  157.38   0.00    0e+00    0.005  2083.77   0.00    0e+00\n";
    try {
        parse_nccl_tests(text, "t.md");
        FAIL() << "not refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("line 1: NCCL 1.x test output"), std::string::npos) << e.what();
    }
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
