// bwacct ingest nccl-tests: the parser's layouts (tags, NCCL INFO, N/A, exponents, in-place only,
// -J JSON), the α–β fit, and the accounting of a small log whose numbers are worked by hand.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <fstream>
#include <sstream>
#include <string>
#include <variant>

#include "bwacct/alpha_beta.h"
#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"

namespace {

using namespace bwacct;
using bwacct_test::column;
using bwacct_test::fixture;
using bwacct_test::section;

// The one run of a single-run log (a test failure, not a crash, when there are more or none).
const NcclRun& one_run(const NcclLog& log) {
    static const NcclRun none;
    EXPECT_EQ(log.runs.size(), 1u);
    return log.runs.empty() ? none : log.runs.front();
}

TEST(AlphaBeta, ExactLineIsRecovered) {
    // t = 10 µs + 0.001 µs/B · S: 1000 B → 11, 4000 B → 14, 1e6 B → 1010.
    // β = 1 / (0.001 µs/B) = 1000 B/µs = 1 GB/s; n½ = α·β = 10 µs · 1000 B/µs = 10,000 B.
    const AlphaBetaFit f = fit_alpha_beta({{1000, 11}, {4000, 14}, {1e6, 1010}});
    EXPECT_EQ(f.n, 3u);
    EXPECT_NEAR(f.alpha_us, 10, 1e-9);
    EXPECT_NEAR(f.us_per_byte, 0.001, 1e-15);
    EXPECT_NEAR(f.beta_GBps, 1, 1e-9);
    EXPECT_NEAR(f.half_bytes, 10000, 1e-6);
    EXPECT_NEAR(f.max_rel_error, 0, 1e-12);
}

TEST(AlphaBeta, RelativeWeightsKeepTheLatencyTerm) {
    // The small sizes sit 10 % above the line, the large ones on it. A plain least-squares fit would
    // be dominated by the 1e9 B point; with 1/t² weights each point counts by its relative error, so
    // α stays near the small sizes' times (between 10 and 11 µs), not swamped.
    const AlphaBetaFit f = fit_alpha_beta({{8, 11.0}, {16, 11.0}, {1e8, 100010}, {1e9, 1000010}});
    EXPECT_GT(f.alpha_us, 9.0);
    EXPECT_LT(f.alpha_us, 11.5);
    EXPECT_NEAR(f.beta_GBps, 1, 0.01);
}

TEST(AlphaBeta, RefusesASingleSize) {
    EXPECT_THROW(fit_alpha_beta({{1000, 11}, {1000, 12}}), std::invalid_argument);
    EXPECT_THROW(fit_alpha_beta({{0, 11}, {1000, 12}}), std::invalid_argument);
}

TEST(NcclParse, PrintedExponentsCarryTheirPrecision) {
    // nccl-tests prints times of 8 digits and more as "%7.1e": 1.2e+07 stands for [1.15e7, 1.25e7),
    // i.e. one decimal of the mantissa shifted by 7: decimals = 1 − 7 = −6, half unit ½·10^6.
    const NcclRun log = one_run(parse_nccl_tests(
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "  17179869184  4294967296     float     sum      -1  1.2e+07    1.43    2.68      0  1.2e+07    1.43    2.68      0\n",
        "t.log"));
    ASSERT_EQ(log.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(log.rows[0].out_of_place->time_us.value, 1.2e7);
    EXPECT_EQ(log.rows[0].out_of_place->time_us.decimals, -6);
    EXPECT_DOUBLE_EQ(printed_half_unit(log.rows[0].out_of_place->time_us), 5e5);
}

TEST(NcclParse, TagsInfoLinesNotApplicableAndInPlaceOnlyRows) {
    // mpirun --tag-output prefixes, an NCCL INFO line between rows, N/A in the error column (old
    // layout without root), and a trace-replay row that prints only the in-place result (after 32 blanks where the
    // out-of-place result would stand: writeBenchMarkLineNullBody; without them it lines up with the out-of-place
    // columns, as rccl-tests -O 1 prints).
    const std::string text =
        "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 0\n"
        "[1,0]<stdout>:#   Rank  0 Pid 1 on nodeA device  0 [0x00] NVIDIA H100 80GB HBM3\n"
        "[1,1]<stdout>:#   Rank  1 Pid 2 on nodeB device  0 [0x00] NVIDIA H100 80GB HBM3\n"
        "[1,0]<stdout>:#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  "
        "error\n"
        "nodeA:1:1 [0] NCCL INFO Launch mode Parallel\n"
        "[1,0]<stdout>:           8             2   float     sum    30.00    0.00    0.00    N/A    31.00    0.00    0.00    "
        "N/A\n"
        "[1,0]<stdout>:          16             4   float     sum                                    32.00    0.00    0.00    "
        "N/A\n";
    const NcclRun log = one_run(parse_nccl_tests(text, "t.log"));
    EXPECT_EQ(log.ranks.size(), 2u);
    EXPECT_EQ(log.hosts.size(), 2u);
    EXPECT_EQ(log.device_name, "NVIDIA H100 80GB HBM3");
    ASSERT_EQ(log.rows.size(), 2u);
    EXPECT_EQ(log.rows[0].redop, "sum");
    EXPECT_FALSE(log.rows[0].root);
    ASSERT_TRUE(log.rows[0].out_of_place && log.rows[0].in_place);
    EXPECT_FALSE(log.rows[0].out_of_place->wrong);  // N/A: validation was off
    EXPECT_DOUBLE_EQ(log.rows[0].in_place->time_us.value, 31.0);
    EXPECT_FALSE(log.rows[1].out_of_place);
    ASSERT_TRUE(log.rows[1].in_place);
    EXPECT_DOUBLE_EQ(log.rows[1].in_place->time_us.value, 32.0);
    EXPECT_EQ(*log.header_gpus, 1u);
}

TEST(NcclParse, JsonOutput) {
    // The synthetic -J file (see its .src.txt): 4 sizes, 8 ranks, the bitdeer log's times.
    const NcclLog file = parse_nccl_tests(fixture("nccl/nccl_allreduce_h100_json_synthetic.json"), "j.json");
    EXPECT_EQ(file.format, "nccl-tests -J JSON (version 1)");
    const NcclRun log = one_run(file);
    EXPECT_EQ(log.program, "./build/all_reduce_perf");
    EXPECT_EQ(collective_from_name(log.program), CollectiveKind::allreduce);
    EXPECT_EQ(log.ranks.size(), 8u);
    ASSERT_EQ(log.rows.size(), 4u);
    EXPECT_EQ(log.rows[0].size, 268435456u);
    EXPECT_EQ(*log.rows[0].root, -1);
    EXPECT_DOUBLE_EQ(log.rows[0].out_of_place->time_us.value, 1119.8);
    // alg_bw = 268435456 / 1119.8 / 1e3 = 239.717321 (as %lf).
    EXPECT_NEAR(log.rows[0].out_of_place->algbw_GBps.value, 239.717321, 1e-6);
    EXPECT_EQ(log.rows[0].out_of_place->algbw_GBps.decimals, 6);
    EXPECT_DOUBLE_EQ(*log.avg_busbw_GBps, 448.212);
}

TEST(NcclParse, RejectsWhatIsNotALog) {
    EXPECT_THROW(parse_nccl_tests("name,value\nx,1\n", "a.csv"), InputError);
    EXPECT_THROW(parse_nccl_tests(std::string("\x1f\x8b\x08\0\0\0", 6), "a.gz"), InputError);
    EXPECT_THROW(parse_nccl_tests("{\"results\": [", "t.json"), InputError);
    EXPECT_THROW(parse_nccl_tests("{\"traceEvents\": []}", "t.json"), InputError);
    EXPECT_THROW(parse_nccl_tests("{\"results\": [{\"size\": 8}]}", "t.json"), InputError);
    // Fuzzer findings (fuzz/regressions/nccl_tests/): a number beyond a double is bad input, and a
    // root beyond 64 bits is dropped (root is informational), never converted with undefined behaviour.
    EXPECT_THROW(parse_nccl_tests("{\"results\": [{\"size\": 1e999, \"count\": 1}]}", "t.json"), InputError);
    const NcclRun big_root = one_run(parse_nccl_tests(
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "           8             2     float     sum 99999999999999999999    36.22    0.00    0.00       0    35.03    0.00    "
        "0.00       0\n",
        "t.log"));
    ASSERT_EQ(big_root.rows.size(), 1u);
    EXPECT_FALSE(big_root.rows[0].root);
    try {
        parse_nccl_tests("hello\n", "x.log");
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "x.log");
    }
}

TEST(NcclCollectiveName, FromProgramAndFileNames) {
    EXPECT_EQ(collective_from_name("./build/reduce_scatter_perf"), CollectiveKind::reducescatter);
    EXPECT_EQ(collective_from_name("all_gather_perf"), CollectiveKind::allgather);
    EXPECT_EQ(collective_from_name("reduce_perf"), CollectiveKind::reduce);
    // gather and scatter, after the longer names that hold these words.
    EXPECT_EQ(collective_from_name("./build/gather_perf"), CollectiveKind::gather);
    EXPECT_EQ(collective_from_name("scatter_perf"), CollectiveKind::scatter);
    EXPECT_FALSE(collective_from_name("hypercube_perf"));
    EXPECT_EQ(collective_from_name("/logs/nccl_allreduce_run1.txt"), CollectiveKind::allreduce);
    EXPECT_FALSE(collective_from_name("results.txt"));
}

// A log worked by hand: all-reduce over 4 ranks, factor 2·3/4 = 1.5, times on t = 10 + 0.001·S.
//   S = 1000:     t = 11     algbw = 1000/11/1e3 = 0.0909 → 0.09     busbw 0.136 → 0.14
//   S = 2000:     t = 12     algbw = 0.1667 → printed 5.00 on purpose (disagrees)   busbw 0.25
//   S = 100000:   t = 110    algbw = 0.9091 → 0.91     busbw 1.3636 → 1.36
//   S = 10000000: t = 10010  algbw = 0.9990 → 1.00     busbw 1.4985 → 1.50
// Fit: α = 10 µs, β = 1 GB/s, n½ = 10,000 B: 1000 and 2000 are in the latency regime, the rest not.
const char* kWorkedLog =
    "# Collective test starting: all_reduce_perf\n"
    "#  Rank  0 Group  0 Pid 1 on h device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid 1 on h device  1 [0x1b] NVIDIA H100 80GB HBM3\n"
    "#  Rank  2 Group  0 Pid 1 on h device  2 [0x1b] NVIDIA H100 80GB HBM3\n"
    "#  Rank  3 Group  0 Pid 1 on h device  3 [0x1b] NVIDIA H100 80GB HBM3\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "        1000           250     float     sum      -1    11.00    0.09    0.14      0    11.00    0.09    0.14      0\n"
    "        2000           500     float     sum      -1    12.00    5.00    0.25      0    12.00    0.17    0.25      0\n"
    "      100000         25000     float     sum      -1   110.00    0.91    1.36      0   110.00    0.91    1.36      0\n"
    "    10000000       2500000     float     sum      -1    10010    1.00    1.50      0    10010    1.00    1.50      0\n";

TEST(NcclAccounting, WorkedLog) {
    const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    const NcclLog log = parse_nccl_tests(kWorkedLog, "w.log");
    NcclAccountingInput in;
    in.kind = CollectiveKind::allreduce;
    const IngestReport r = account_nccl(log, "w.log", in, {&catalog.get("h100-sxm", "--gpu")});

    const Section& rows = section(r, "rows");
    ASSERT_EQ(rows.rows.size(), 8u);  // 4 sizes × (out-of-place, in-place)
    const std::size_t match = column(rows, "matches_log"), regime = column(rows, "regime");
    for (std::size_t i = 0; i < rows.rows.size(); ++i) {
        const bool planted = i == 2;  // size 2000 out-of-place prints algbw 5.00
        EXPECT_EQ(std::get<std::string>(rows.rows[i][match]), planted ? "NO" : "yes") << "row " << i;
        EXPECT_EQ(std::get<std::string>(rows.rows[i][regime]), i < 4 ? "latency" : "bandwidth") << "row " << i;
    }
    // Re-derived busbw for S = 100000: 100000 / 110 / 1e3 × 1.5 = 1.363636...
    EXPECT_NEAR(std::get<double>(rows.rows[4][column(rows, "busbw_rederived_GBps")]), 1.3636364, 1e-6);

    const Section& fit = section(r, "alpha_beta");
    ASSERT_EQ(fit.rows.size(), 1u);
    EXPECT_NEAR(std::get<double>(fit.rows[0][column(fit, "alpha_us")]), 10, 1e-6);
    EXPECT_NEAR(std::get<double>(fit.rows[0][column(fit, "beta_algbw_GBps")]), 1, 1e-6);
    EXPECT_NEAR(std::get<double>(fit.rows[0][column(fit, "beta_busbw_GBps")]), 1.5, 1e-6);
    EXPECT_NEAR(std::get<double>(fit.rows[0][column(fit, "half_bytes")]), 10000, 1e-3);

    // Records: every result with a size (8), each analysed on h100-sxm with its time, source ingested.
    ASSERT_EQ(r.records.size(), 8u);
    const Record& big = r.records[6];  // 10,000,000 B out-of-place at 10010 µs
    EXPECT_EQ(big.source, TimeSource::ingested);
    ASSERT_TRUE(big.verdicts[0].busbw_GBps);
    EXPECT_NEAR(*big.verdicts[0].busbw_GBps, 1e7 / 10010 / 1e3 * 1.5, 1e-9);
    // % of link: ring wire bytes per rank 2·3/4·S over the time, against 450 GB/s one way:
    // 1.4985 GB/s / 450 = 0.00333.
    ASSERT_TRUE(big.verdicts[0].timed && big.verdicts[0].timed->util_link);
    EXPECT_NEAR(*big.verdicts[0].timed->util_link, 1e7 * 1.5 / 10010 / 1e3 / 450, 1e-9);
}

TEST(NcclAccounting, NoBandwidthTermGivesNoFitRow) {
    // Two sizes, the larger one faster: 1000 B in 20 µs, 2000 B in 10 µs. The line through them falls
    // (b = (10 − 20)/1000 < 0), so there is no β and no n½: no fit row (it printed β 0.0 GB/s, n½ 0), a note.
    const char* log_text =
        "# Collective test starting: all_reduce_perf\n"
        "#  Rank  0 Group  0 Pid 1 on h device  0 [0x1b] NVIDIA H100 80GB HBM3\n"
        "#  Rank  1 Group  0 Pid 1 on h device  1 [0x1b] NVIDIA H100 80GB HBM3\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "        1000           250     float     sum      -1    20.00    0.05    0.05      0    20.00    0.05    0.05      0\n"
        "        2000           500     float     sum      -1    10.00    0.20    0.20      0    10.00    0.20    0.20      0\n";
    // algbw 1000/20/1e3 = 0.05, 2000/10/1e3 = 0.2; busbw × 2·1/2 = 1: the same.
    const NcclLog log = parse_nccl_tests(log_text, "down.log");
    NcclAccountingInput in;
    in.kind = CollectiveKind::allreduce;
    const IngestReport r = account_nccl(log, "down.log", in, {});
    const Section& fit = section(r, "alpha_beta");
    EXPECT_TRUE(fit.rows.empty());
    EXPECT_TRUE(bwacct_test::any_holds(fit.notes, "no bandwidth term"));
}

TEST(NcclAccounting, RanksFromTheRankLinesNotTheHeader) {
    // The 2-node H200 log: header "nGpus 8" (one process), 16 "# Rank" lines.
    const NcclLog log = parse_nccl_tests(fixture("nccl/nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt"), "h200.log");
    EXPECT_EQ(*one_run(log).header_gpus, 8u);
    EXPECT_EQ(one_run(log).ranks.size(), 16u);
    const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    NcclAccountingInput in;
    const IngestReport r = account_nccl(log, "h200.log", in, {&catalog.get("h200", "--gpu")});
    // busbw factor 2·15/16 = 1.875 is what makes every row match (8 ranks, 1.75, would not).
    const Section& rows = section(r, "rows");
    for (const auto& row : rows.rows)
        EXPECT_EQ(std::get<std::string>(row[column(rows, "matches_log")]), "yes");
    bool noted = false;
    for (const std::string& n : r.notes)
        noted = noted || n.find("2 hosts") != std::string::npos;
    EXPECT_TRUE(noted);
}

// A 2.x log (redop and root columns) whose last row was cut mid-number, as when the job is killed
// while printing: 12 tokens under a 13-column header, the redop "sum" still in its column.
const char* const kTruncatedLastRow =
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n"
    "        1024           256     float     sum      -1    66.03    0.02    0.03       0    57.88    0.02    0.03       0\n"
    "        2048           512     float     sum      -1    59.72    0.03    0.06       0    59.34    0.03    0.0\n";

TEST(NcclParse, RowCutShortUnderItsHeaderIsDroppedWithAWarning) {
    // Old code read the cut row by its 12 tokens as the "redop, error column" layout: time = -1 (the
    // root), algbw = 59.72 (the time), #wrong = 0.06 (the busbw): silently wrong numbers.
    const NcclLog log = parse_nccl_tests(kTruncatedLastRow, "cut.log");
    const NcclRun& run = one_run(log);
    // The 1024-byte row is whole; the 2048-byte one keeps its whole out-of-place result (logs9: the cut is in its
    // in-place busbw), never the 12-token layout's misreading.
    ASSERT_EQ(run.rows.size(), 2u);
    EXPECT_EQ(run.rows[0].size, 1024u);
    ASSERT_TRUE(run.rows[1].out_of_place);
    EXPECT_FALSE(run.rows[1].in_place);
    EXPECT_DOUBLE_EQ(run.rows[1].out_of_place->time_us.value, 59.72);
    bool warned = false;
    for (const auto& w : log.warnings)
        warned = warned || (w.find("line 4") != std::string::npos && w.find("cut short") != std::string::npos);
    EXPECT_TRUE(warned);
}

TEST(NcclParse, RowCutShortWithoutAHeaderIsNotReadWithANegativeTime) {
    // Without the header the row-shape guess puts the time at the root's column (-1): nccl-tests
    // never prints a negative time or bandwidth, so the row is unreadable, not a row with time -1.
    const std::string with_header = kTruncatedLastRow;
    const std::string no_header = with_header.substr(with_header.find("        1024"));
    const NcclLog log = parse_nccl_tests(no_header, "cut.log");
    const NcclRun& run = one_run(log);
    ASSERT_EQ(run.rows.size(), 1u);
    EXPECT_EQ(run.rows[0].size, 1024u);
    ASSERT_TRUE(run.rows[0].out_of_place.has_value());
    EXPECT_DOUBLE_EQ(run.rows[0].out_of_place->time_us.value, 66.03);
}

}  // namespace
