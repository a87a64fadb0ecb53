// nccl-tests and BabelStream logs bwacct had not seen (tests/data/corpus/, "# logs11"): a row cut in its in-place
// half with no column header above the rows, the refusal for a log with no rank clue naming the file, and
// BabelStream's --list device listing. Each test fails before the fix.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest.h"
#include "bwacct/ingest_babelstream.h"
#include "bwacct/ingest_nccl.h"

namespace {

using namespace bwacct;

bool has_warning(const std::vector<std::string>& warnings, const std::string& part) {
    for (const std::string& w : warnings)
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

// microsoft/mscclpp PR 646: f8e5m2 all-reduce rows pasted without their header, the paste cut inside the last
// row's in-place algbw ("49."). That row's out-of-place result is whole: 2097152 B at 42.52 us, algbw =
// 2097152 / 42.52e-6 / 1e9 = 49.3215 GB/s (printed 49.32), busbw = 49.3215 x 2(8-1)/8 = 86.313 (printed 86.30:
// 42.525 us gives 86.302). Before: "not an nccl-tests row", dropped (a cut row was measured only against a
// header).
TEST(NcclCutRowNoHeader, OutOfPlaceHalfIsKeptAgainstTheRowsLayout) {
    const std::string text =
        "     1048576       1048576    f8e5m2     sum      -1    30.91   33.92   59.36      0    30.88   33.95   59.42      0\n"
        "     2097152       2097152    f8e5m2     sum      -1    42.52   49.32   86.30      0    42.43   49.\n";
    const NcclLog log = parse_nccl_tests(text, "fp8.md");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    const NcclRow& row = log.runs[0].rows[1];
    EXPECT_EQ(row.size, 2097152u);
    EXPECT_EQ(row.count, 2097152u);  // one byte per element
    EXPECT_EQ(row.type, "f8e5m2");
    EXPECT_EQ(row.redop, "sum");
    ASSERT_TRUE(row.out_of_place);
    EXPECT_FALSE(row.in_place);
    EXPECT_DOUBLE_EQ(row.out_of_place->time_us.value, 42.52);
    EXPECT_DOUBLE_EQ(row.out_of_place->algbw_GBps.value, 49.32);
    EXPECT_DOUBLE_EQ(row.out_of_place->busbw_GBps.value, 86.30);
    EXPECT_TRUE(has_warning(log.warnings, "of the rows' 13 columns"));
}

// The same cut through the out-of-place busbw ("86.3" of "86.30": fewer decimals than nccl-tests prints below
// 1000 GB/s) loses the row, warned; and a whole row of another layout after the rows (an older "redop ... error"
// row, 12 tokens, pasted below 2.x rows) is still read by its own tokens, not as a cut one.
TEST(NcclCutRowNoHeader, CutThroughTheBusbwOrAnotherLayoutIsNotKept) {
    const std::string row1 =
        "     1048576       1048576    f8e5m2     sum      -1    30.91   33.92   59.36      0    30.88   33.95   59.42      0\n";
    const NcclLog cut =
        parse_nccl_tests(row1 + "     2097152       2097152    f8e5m2     sum      -1    42.52   49.32   86.3\n", "fp8.md");
    ASSERT_EQ(cut.runs.size(), 1u);
    EXPECT_EQ(cut.runs[0].rows.size(), 1u);
    EXPECT_TRUE(has_warning(cut.warnings, "row cut short (8 of the rows' 13 columns"));
    // 4194304 B at 61.30 us: algbw 68.42, the old layout's busbw 119.74 (x 1.75), error 2e-07.
    const NcclLog old = parse_nccl_tests(
        row1 + "     4194304       4194304    f8e5m2     sum    61.30   68.42  119.74  2e-07    61.20   68.53  119.93  2e-07\n",
        "fp8.md");
    ASSERT_EQ(old.runs.size(), 1u);
    ASSERT_EQ(old.runs[0].rows.size(), 2u);
    ASSERT_TRUE(old.runs[0].rows[1].in_place);
    EXPECT_DOUBLE_EQ(old.runs[0].rows[1].in_place->busbw_GBps.value, 119.93);
}

// aws/aws-k8s-tester PR 585: rows of 8..128 B only (busbw and algbw print 0.00), no rank lines or header: the refusal
// names the file as well as --ranks. Before: "--ranks: the log gives no rank count ..." with no file name.
TEST(NcclRanksRefusal, NoRankClueNamesTheFile) {
    const std::string text =
        "        [1,0]<stdout>:          64            16     float     sum      -1    69.10    0.00    0.00      0    68.73    "
        "0.00    0.00      0\n"
        "        [1,0]<stdout>:         128            32     float     sum      -1    68.37    0.00    0.00      0    68.62    "
        "0.00    0.00      0\n";
    const NcclLog log = parse_nccl_tests(text, "p5.md");
    ASSERT_EQ(log.runs.size(), 1u);
    try {
        resolve_nccl_ranks(log.runs.at(0), CollectiveKind::allreduce, std::nullopt, "p5.md");
        FAIL() << "expected a refusal naming --ranks";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("--ranks"), std::string::npos) << what;
        EXPECT_NE(what.find("p5.md"), std::string::npos) << what;
        EXPECT_NE(what.find("the run on lines 1–2"), std::string::npos) << what;
        EXPECT_NE(what.find("busbw/algbw ratio that depends on it"), std::string::npos) << what;
    }
}

// A B200 cluster report: each sweep under a paragraph wholly in bold ("**sendrecv  ranks=8  (intra-node)**"), no test
// name, rank lines or command. The bold line names the run's collective as a '#' heading does. Row: 2097152 B at 40.30
// us, algbw = 2097152 / 40.30e-6 / 1e9 = 52.04 GB/s, sendrecv's busbw = algbw x 1 = 52.04 (printed 52.04 52.04).
// Before: refused, "the log does not name its collective; give --op".
TEST(NcclBoldHeading, BoldParagraphNamesTheCollective) {
    const std::string hdr =
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  "
        "#wrong\n";
    const std::string row =
        "     2097152       2097152     uint8     sum      -1    40.30   52.04   52.04       0    40.25   52.10   52.10    N/A\n";
    const NcclLog log = parse_nccl_tests("**sendrecv  ranks=8  (intra-node)**\n\n```\n" + hdr + row + "```\n", "b200.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].program, "sendrecv_perf");
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    // Bold inside a sentence, or two bold spans, is no heading: the run names no collective.
    for (const std::string& prose : {std::string("The **sendrecv** sweep:\n"), std::string("**sendrecv** and **alltoall**\n")}) {
        const NcclLog p = parse_nccl_tests(prose + "```\n" + hdr + row + "```\n", "b200.md");
        ASSERT_EQ(p.runs.size(), 1u);
        EXPECT_EQ(p.runs[0].program, "") << prose;
    }
}

// ROCm/ROCm issue 102: `hc-stream --list` (banner, "Devices:", one line per device) and then a run. The listing is
// no run that stopped before its table: no warning. Copy 2 x 268.4e6 B / 0.00143 s = 375.4 GB/s, printed 375960.286
// MB/s. Before: "line 1: a run starts and prints no table before the next run's banner".
TEST(BabelStreamList, DeviceListingIsNotARunWithoutATable) {
    const std::string listing =
        "BabelStream\nVersion: 3.2\nImplementation: HC\n\nDevices:\n0: CPU Device\n1: AMD HSA Agent gfx8032\n";
    const std::string run =
        "BabelStream\nVersion: 3.2\nImplementation: HC\nRunning kernels 100 times\nPrecision: double\n"
        "Array size: 268.4 MB (=0.3 GB)\nTotal size: 805.3 MB (=0.8 GB)\nUsing HC device AMD HSA Agent gfx8032\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        375960.286  0.00143     0.00154     0.00148\n";
    const BabelStreamFile f = parse_babelstream(listing + run, "hc.md");
    ASSERT_EQ(f.runs.size(), 1u);
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_EQ(f.rows[0].function, "Copy");
    EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
    // A listing after the last table is no run either; a listing alone is refused as measuring nothing.
    EXPECT_TRUE(parse_babelstream(run + listing, "hc.md").warnings.empty());
    try {
        parse_babelstream(listing, "list.txt");
        FAIL() << "expected a refusal";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("device listing (--list"), std::string::npos) << e.what();
    }
    // A banner with no "Devices:" line and no table is still a run that stopped before its timings.
    const BabelStreamFile stopped = parse_babelstream("BabelStream\nVersion: 3.2\nImplementation: HC\n" + run, "hc.md");
    EXPECT_TRUE(has_warning(stopped.warnings, "a run starts and prints no table"));
}

// NVIDIA/nccl issue 527's table (the older "error" column): 2e-07 under #wrong is the largest deviation, shown as
// printed. Before: the table and Markdown views rounded it to "0" (a whole-number column), which reads as "no wrong
// elements counted"; JSON kept 2e-07. A count (0, 3) and a fraction of 0.5 or more still print whole.
TEST(IngestTable, ASmallFractionInAWholeNumberColumnIsNotRoundedToZero) {
    IngestReport r;
    r.tool = "nccl-tests";
    Section s;
    s.key = "rows";
    s.title = "rows";
    s.columns = {{"wrong", "#wrong", 0}};
    s.rows = {{Cell(2e-07)}, {Cell(0.0)}, {Cell(3.0)}};
    r.sections.push_back(s);
    for (const Format f : {Format::table, Format::md}) {
        std::FILE* out = std::tmpfile();
        print_ingest(r, f, out);
        std::rewind(out);
        std::string text;
        for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out))
            text += static_cast<char>(c);
        std::fclose(out);
        EXPECT_NE(text.find("2e-07"), std::string::npos) << text;
        EXPECT_NE(text.find("3"), std::string::npos) << text;
    }
}

}  // namespace
