// nccl-tests logs bwacct had not seen (tests/data/corpus/nccl-tests/, "# logs3"): a command quoted in
// markdown prose, and rank lists elided to a few lines per run. Each test fails before the fix.
#include <gtest/gtest.h>

#include <string>

#include "bwacct/catalog.h"
#include "bwacct/ingest_nccl.h"

namespace {

using namespace bwacct;

const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";

// A command quoted in prose keeps its quotes on its first and last words: the Slinky GB300 report's
// "NCCL `all_reduce_perf -b 8M -e 8G -f 2 -g 1 -n 30` result:". Before: the run's program was
// "`all_reduce_perf" (shown as "the log's test name `all_reduce_perf"), and a quoted last option
// ("-g 8'") was not read.
TEST(NcclCommandLine, QuotedInProseKeepsTheProgramAndItsOptions) {
    const std::string row =
        "     8388608       2097152     float     sum      -1    95.46   87.87  164.76       0    93.97   89.27  167.38       "
        "0\n";
    const NcclLog a =
        parse_nccl_tests("NCCL `all_reduce_perf -b 8M -e 8G -f 2 -g 1 -n 30` result:\n" + std::string(kHeader) + row, "q");
    ASSERT_EQ(a.runs.size(), 1u);
    EXPECT_EQ(a.runs[0].program, "all_reduce_perf");
    ASSERT_TRUE(a.runs[0].header_gpus.has_value());
    EXPECT_EQ(*a.runs[0].header_gpus, 1u);

    const NcclLog b = parse_nccl_tests(
        "run '/opt/rccl-tests/build/alltoall_perf -b 512k -e 16G -f 2 -g 8'\n" + std::string(kHeader) + row, "q");
    ASSERT_EQ(b.runs.size(), 1u);
    EXPECT_EQ(b.runs[0].program, "alltoall_perf");
    ASSERT_TRUE(b.runs[0].header_gpus.has_value());
    EXPECT_EQ(*b.runs[0].header_gpus, 8u);
}

// A rank list elided to its first and last lines (OCI's GB300 page: "# Rank 0", "# Rank 1", "...",
// "# Rank 6", "# Rank 7" over hosts GPU-5188 and GPU-205) names only the hosts of the lines it kept.
// Before: "the ranks span 2 hosts" as a fact; now "at least 2 hosts (the log lists 4 of its 8 ranks)".
TEST(NcclHosts, ElidedRankListSaysAtLeast) {
    // The row of that run: 8589934592 B in 17930 us (printed to the unit, [17929.5, 17930.5)):
    // algbw 8589934592 / 17930.5 / 1e3 = 479.068 .. / 17929.5 / 1e3 = 479.095 GB/s, printed 479.07;
    // busbw = algbw x 2(n-1)/n = 479.07 x 1.75 = 838.37 for n = 8 (printed 838.38, inside the interval
    // 838.37 .. 838.42): n = 8 from the ratio and from the highest rank id 7 + 1.
    const std::string text = std::string("# nThread 1 nGpus 1 minBytes 524288 maxBytes 17179869184 step: 2(factor)\n") +
                             "# Using devices\n"
                             "#  Rank  0 Group  0 Pid 566235 on   GPU-5188 device  0 [0008:06:00] NVIDIA GB300\n"
                             "#  Rank  1 Group  0 Pid 566236 on   GPU-5188 device  1 [0009:06:00] NVIDIA GB300\n"
                             "...\n"
                             "#  Rank  6 Group  0 Pid 561674 on    GPU-205 device  2 [0018:06:00] NVIDIA GB300\n"
                             "#  Rank  7 Group  0 Pid 561675 on    GPU-205 device  3 [0019:06:00] NVIDIA GB300\n" +
                             kHeader +
                             "  8589934592    2147483648     float     sum      -1    17930  479.07  838.38      0    17928  "
                             "479.15  838.50      0\n";
    const NcclLog log = parse_nccl_tests(text, "all_reduce_perf.log");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].hosts.size(), 2u);
    EXPECT_EQ(log.runs[0].ranks.size(), 4u);
    static const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    NcclAccountingInput in;
    in.kind = CollectiveKind::allreduce;
    const IngestReport r = account_nccl(log, "all_reduce_perf.log", in, {&catalog.get("h100-sxm", "--gpu")});
    ASSERT_EQ(r.runs.size(), 1u);
    bool note = false;
    for (const std::string& n : r.runs[0].notes)
        note = note || n.find("the ranks span at least 2 hosts (the log lists 4 of its 8 ranks)") != std::string::npos;
    EXPECT_TRUE(note);
    bool headline = false;
    for (const std::string& l : r.summary.lines)
        headline = headline || l.find("cross-host: the ranks span at least 2 hosts") != std::string::npos;
    EXPECT_TRUE(headline);

    // A complete list keeps the plain count: ranks 0..7 listed, 2 hosts.
    std::string full = "# nThread 1 nGpus 1 minBytes 524288 maxBytes 17179869184 step: 2(factor)\n";
    for (int rk = 0; rk < 8; ++rk)
        full += "#  Rank  " + std::to_string(rk) + " Group  0 Pid " + std::to_string(100 + rk) + " on " +
                (rk < 4 ? "GPU-5188" : "GPU-205") + " device  " + std::to_string(rk % 4) + " [0x1] NVIDIA GB300\n";
    full += kHeader;
    full +=
        "  8589934592    2147483648     float     sum      -1    17930  479.07  838.38      0    17928  479.15  838.50      0\n";
    const IngestReport f = account_nccl(parse_nccl_tests(full, "x.log"), "x.log", in, {&catalog.get("h100-sxm", "--gpu")});
    bool plain = false;
    for (const std::string& n : f.runs[0].notes)
        plain = plain || n.find("the ranks span 2 hosts:") != std::string::npos;
    EXPECT_TRUE(plain);
}

// Two sizes whose times are proportional within their rounding (OCI's MI355X page: 8 GiB in 36956 us, 16
// GiB in 73913 us) fit t = alpha + size/beta exactly with alpha = 2 x 36956 - 73913 = -1 us. Before, the
// headline said "the curve leaves the latency regime at n1/2 = 0 B (alpha = -1.00 us costs as much as ...)":
// a negative cost and a size that does not exist. Now it says alpha came out negative and claims no n1/2.
TEST(NcclAlphaBeta, NegativeAlphaClaimsNoLatencyRegime) {
    // Rows (8 ranks, allreduce, factor 2 x 7/8 = 1.75): 8589934592 B / [36955.5, 36956.5) us / 1e3 =
    // 232.434 .. 232.440 GB/s (printed 232.43, within its half unit 0.005), x 1.75 = 406.76 .. 406.77
    // (printed 406.76); 17179869184 / [73912.5, 73913.5) / 1e3 = 232.432 .. 232.435 (printed 232.43).
    std::string text = "# nThread 1 nGpus 8 minBytes 524288 maxBytes 17179869184 step: 2(factor)\n";
    for (int rk = 0; rk < 8; ++rk)
        text += "#  Rank  " + std::to_string(rk) + " Group  0 Pid   9632 on   GPU-6403 device  " + std::to_string(rk) +
                " [0000:72:00] AMD Instinct MI355X\n";
    text += kHeader;
    text +=
        "  8589934592    2147483648     float     sum      -1    36956  232.43  406.76      0    36911  232.72  407.26      0\n";
    text +=
        " 17179869184    4294967296     float     sum      -1    73913  232.43  406.76      0    73917  232.42  406.73      0\n";
    static const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    NcclAccountingInput in;
    in.kind = CollectiveKind::allreduce;
    const IngestReport r = account_nccl(parse_nccl_tests(text, "m.log"), "m.log", in, {&catalog.get("mi355x", "--gpu")});
    for (const std::string& l : r.summary.lines)
        EXPECT_EQ(l.find("leaves the latency regime"), std::string::npos) << l;
    bool said = false;
    for (const std::string& l : r.summary.lines)
        said = said || l.find("α came out negative (-1.00 µs)") != std::string::npos;
    EXPECT_TRUE(said);
}

// -d all: one run sweeps the sizes once per data type (the H200 log: int8, uint8, ..., f8e5m2), each at its
// own cost per byte. Before, one α–β line was fitted across all twelve sweeps; now over the first only.
TEST(NcclAlphaBeta, DatatypeAllFitsTheFirstSweepOnly) {
    // 2 ranks, allreduce (factor 2 x 1/2 = 1: busbw = algbw). float: 1 MiB in 20.00 us (1048576 / 20 /
    // 1e3 = 52.4288 -> 52.43), 2 MiB in 30.00 us (2097152 / 30 / 1e3 = 69.905 -> 69.91); half: 1 MiB in
    // 100.0 us (10.49), 2 MiB in 200.0 us (10.49). The float line through its two points: 1/beta =
    // (30 - 20) us / 1048576 B, alpha = 20 - 10 = 10 us, beta = 1048576 / 10 / 1e3 = 104.8576 GB/s algbw.
    std::string text = "# Collective test starting: all_reduce_perf\n";
    text += kHeader;
    text +=
        "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0    20.00   52.43   52.43      0\n";
    text +=
        "     2097152        524288     float     sum      -1    30.00   69.91   69.91      0    30.00   69.91   69.91      0\n";
    text +=
        "     1048576        524288      half     sum      -1    100.0   10.49   10.49      0    100.0   10.49   10.49      0\n";
    text +=
        "     2097152       1048576      half     sum      -1    200.0   10.49   10.49      0    200.0   10.49   10.49      0\n";
    NcclAccountingInput in;
    in.ranks = 2;
    const NcclLog log = parse_nccl_tests(text, "d_all.log");
    ASSERT_EQ(log.runs.size(), 1u);
    const IngestReport r = account_nccl(log, "d_all.log", in, {});
    ASSERT_EQ(r.runs.size(), 1u);
    const Section* fit = nullptr;
    for (const Section& sec : r.runs[0].sections)
        if (sec.key == "alpha_beta")
            fit = &sec;
    ASSERT_NE(fit, nullptr);
    ASSERT_EQ(fit->rows.size(), 1u);
    EXPECT_EQ(std::get<std::uint64_t>(fit->rows[0][0]), 2u);  // the two float points only
    EXPECT_NEAR(std::get<double>(fit->rows[0][1]), 10.0, 1e-6);
    EXPECT_NEAR(std::get<double>(fit->rows[0][2]), 104.8576, 1e-6);
    bool said = false;
    for (const std::string& n : fit->notes)
        said = said || n.find("sweeps the sizes 2 times") != std::string::npos;
    EXPECT_TRUE(said);
}

// A README pastes the same test twice (awsankur/awesome-networking: all_reduce_perf with -n 100, then
// "This result looks very similar with a 1000 iterations:" and a second table), the command line only
// before the first. Before: run 2 named no collective, so a file with a neutral name was refused
// ("run 2 (lines ...): the log does not name its collective"). Now run 2 is read as run 1's test, because
// its rows have the same data type, operation and root (float sum -1), and the note says so.
TEST(NcclRuns3, AnUnnamedSecondTableTakesThePreviousRunsTest) {
    // One row each, 16 ranks from the ratio: 26214400 B / 2009.1 us / 1e3 = 13.048 GB/s (printed 13.05),
    // x 2 x 15/16 = 1.875 -> 24.465 (printed 24.46); run 2: 26214400 / 1896.5 / 1e3 = 13.822 (13.82),
    // x 1.875 = 25.917 (25.92).
    const std::string text = std::string("all_reduce_perf -b 25M -e 25M -f 1 -g 1 -c 1 -n 100 -o sum\n") + kHeader +
                             "    26214400       6553600     float     sum      -1    2009.1  13.05   24.46      0    "
                             "1873.9   13.99   26.23      0\n"
                             "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 25.3468\n"
                             "This result looks very similar with a 1000 iterations:\n" +
                             kHeader +
                             "    26214400       6553600     float     sum      -1   1896.5   13.82   25.92      0   "
                             "1873.1   14.00   26.24      0\n";
    const NcclLog log = parse_nccl_tests(text, "README.md");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_EQ(log.runs[1].program, "all_reduce_perf");
    EXPECT_TRUE(log.runs[1].program_from_previous_run);
    EXPECT_FALSE(log.runs[0].program_from_previous_run);
    const IngestReport r = account_nccl(log, "README.md", NcclAccountingInput{}, {});
    ASSERT_EQ(r.runs.size(), 2u);
    bool said = false;
    for (const std::string& n : r.runs[1].notes)
        said =
            said || n.find("collective: allreduce (run 1's test name all_reduce_perf: this run names none") != std::string::npos;
    EXPECT_TRUE(said);

    // Another operation or root is another test: not inherited (broadcast prints "none" and root 0).
    const std::string other = std::string("all_reduce_perf -b 25M -e 25M\n") + kHeader +
                              "    26214400       6553600     float     sum      -1    2009.1  13.05   24.46      0    "
                              "1873.9   13.99   26.23      0\n" +
                              kHeader +
                              "     1048576        262144     float    none       0    461.9    2.27    2.27      0    "
                              "401.4    2.61    2.61      0\n";
    const NcclLog o = parse_nccl_tests(other, "README.md");
    ASSERT_EQ(o.runs.size(), 2u);
    EXPECT_TRUE(o.runs[1].program.empty());
    EXPECT_FALSE(o.runs[1].program_from_previous_run);

    // The same operation and root is not enough (review): all_reduce, reduce_scatter and sendrecv all print "sum -1".
    // A reduce_scatter row of 8 ranks counts one rank's part: 1048576 B holds 262144 floats, its count column
    // 32768 = 262144 / 8, where allreduce's 262144 (elements per byte 1/32 against 1/4); its bus factor
    // 7/8 = 0.875 (busbw 2.45 / algbw 2.80), allreduce's 2 x 15/16 = 1.875 above. Not inherited.
    const std::string scatter = std::string("all_reduce_perf -b 25M -e 25M\n") + kHeader +
                                "    26214400       6553600     float     sum      -1    2009.1  13.05   24.46      0    "
                                "1873.9   13.99   26.23      0\n" +
                                kHeader +
                                "     1048576         32768     float     sum      -1    374.5    2.80    2.45      0    "
                                "370.1    2.83    2.48      0\n";
    const NcclLog rs = parse_nccl_tests(scatter, "README.md");
    ASSERT_EQ(rs.runs.size(), 2u);
    EXPECT_FALSE(rs.runs[1].program_from_previous_run);
    // The same elements per byte but another bus factor (sendrecv: busbw = algbw, 1 against 1.875): not inherited.
    const std::string sendrecv = std::string("all_reduce_perf -b 25M -e 25M\n") + kHeader +
                                 "    26214400       6553600     float     sum      -1    2009.1  13.05   24.46      0    "
                                 "1873.9   13.99   26.23      0\n" +
                                 kHeader +
                                 "     1048576        262144     float     sum      -1     50.0   20.97   20.97      0    "
                                 "50.1   20.93   20.93      0\n";
    EXPECT_FALSE(parse_nccl_tests(sendrecv, "README.md").runs[1].program_from_previous_run);
    // "none -1" never: all_gather and alltoall print the same columns, elements per byte and bus factor (n-1)/n.
    const std::string gather = std::string("all_gather_perf -b 1M -e 1M -g 8\n") + kHeader +
                               "     1048576         32768     float    none      -1     40.0   26.21   22.94      0    "
                               "39.0   26.89   23.53      0\n" +
                               kHeader +
                               "     1048576         32768     float    none      -1     60.0   17.48   15.29      0    "
                               "59.0   17.77   15.55      0\n";
    const NcclLog g = parse_nccl_tests(gather, "README.md");
    ASSERT_EQ(g.runs.size(), 2u);
    EXPECT_FALSE(g.runs[1].program_from_previous_run);
    EXPECT_TRUE(g.runs[1].program.empty());
}

// nccl-tests' own failure report after the rows (NVIDIA/nccl-tests#322, 1024 ranks: every rank's
// "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error ...'" and " .. HCA-128 pid 757466: Test
// failure common.cu:915", no footer). Before: the lines were skipped without a word and the run read as if
// it had finished. Now one warning names the first failure line and the last row before it; the rows are
// still read (1073741824 B in 19355 us: 1073741824 / 19355e-6 / 1e9 = 55.476 GB/s, printed 55.48).
TEST(NcclFailure, TestFailureAfterRowsIsWarnedOnce) {
    const std::string text =
        std::string(kHeader) +
        "  1073741824     268435456     float     sum      -1    19355   55.48  110.84      0    19189   55.96  111.80      0\n"
        "HCA-128: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '\n"
        " .. HCA-128 pid 757466: Test failure common.cu:915\n"
        "HCA-108: Test NCCL failure common.cu:1204 'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '\n";
    const NcclLog log = parse_nccl_tests(text, "all_reduce_perf.log");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    ASSERT_EQ(log.warnings.size(), 1u);
    EXPECT_NE(log.warnings[0].find("line 3: the test reported a failure after the row of 1073741824 B on line 2"),
              std::string::npos);
    EXPECT_NE(log.warnings[0].find("Test NCCL failure common.cu:1204"), std::string::npos);

    // The footer's "# Out of bounds values : 56 FAILED" (NVIDIA/nccl-tests#356) is said too.
    const NcclLog failed = parse_nccl_tests(std::string(kHeader) +
                                                "        4096          1024     float     sum      -1    11.07    0.37    "
                                                "0.37      0    10.78    0.38    0.38      0\n"
                                                "# Out of bounds values : 56 FAILED\n# Avg bus bandwidth    : 0.375 \n",
                                            "all_reduce_perf.log");
    ASSERT_EQ(failed.warnings.size(), 1u);
    EXPECT_NE(failed.warnings[0].find("56 out-of-bounds values FAILED"), std::string::npos);
}

// Tables of several collectives pasted one under another with nothing between (a Python script quoting an
// 8-GPU H100 all_reduce, then all_gather, reduce_scatter and alltoall sweep in string literals). Before: all
// rows were one run, because the size drops with another operation (sum -> none) were taken for -o all. A
// reduction never changes to or from "none" inside a run, and with the same type the elements per byte stay:
// all_reduce 1048576 B / 524288 elements (bfloat16, 2 B each) against all_gather 1048576 B / 65536 elements
// (one rank's part, 1048576 / 2 / 8). reduce_scatter after all_gather has the same elements per byte but
// "none" -> "sum". -o all (sum then prod, same elements per byte) stays one run.
TEST(NcclRuns3, AnotherCollectivesSweepIsAnotherRun) {
    const std::string ar =
        "     1048576        524288  bfloat16     sum      -1    46.24   22.68   39.69      0    45.89   22.85   39.99      0\n"
        "     2097152       1048576  bfloat16     sum      -1    45.71   45.88   80.29      0    45.82   45.77   80.10      0\n";
    const std::string ag =
        "     1048576         65536  bfloat16    none      -1    47.14   22.24   19.46      0    45.43   23.08   20.20      0\n"
        "     2097152        131072  bfloat16    none      -1    45.69   45.90   40.16      0    45.76   45.83   40.10      0\n";
    const std::string rs =
        "     1048576         65536  bfloat16     sum      -1    43.62   24.04   21.03      0    43.24   24.25   21.22      0\n";
    const NcclLog log = parse_nccl_tests(std::string(kHeader) + ar + ag + rs, "tables.py");
    ASSERT_EQ(log.runs.size(), 3u);
    EXPECT_EQ(log.runs[0].rows.size(), 2u);
    EXPECT_EQ(log.runs[1].rows.size(), 2u);
    EXPECT_EQ(log.runs[2].rows.size(), 1u);

    const std::string prod =
        "     1048576        524288  bfloat16    prod      -1    46.24   22.68   39.69      0    45.89   22.85   39.99      0\n";
    EXPECT_EQ(parse_nccl_tests(std::string(kHeader) + ar + prod, "o_all.log").runs.size(), 1u);
}

// nccl-tests' per-iteration report (util.cu writeResultHeader with per_iter_timing: "i_min i_max i_p99 i_cv%"
// after each placement's time algbw busbw #wrong). Before: the in-place result was read 4 columns after
// the out-of-place time, i.e. from i_min i_max i_p99 (45.10 us, 48.92 and 48.50 GB/s), and i_cv% as #wrong.
// Now the in-place result starts at the header's second time column. Row written with the printf formats
// of writeBenchmarkLinePreamble / writeBenchmarkLineBody / writePerIterReport.
TEST(NcclLayout, PerIterationColumnsMoveTheInPlaceResult) {
    const std::string header =
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99  "
        "  i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%\n";
    const std::string row =
        "     1048576        262144     float     sum      -1    46.24   22.68   39.69       0    45.10    48.92    48.50  "
        "   1.23    45.89   22.85   39.99       0    44.95    47.80    47.70     1.10\n";
    const NcclLog log = parse_nccl_tests(header + row, "all_reduce_perf.log");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    const NcclRow& r = log.runs[0].rows[0];
    ASSERT_TRUE(r.out_of_place.has_value());
    ASSERT_TRUE(r.in_place.has_value());
    EXPECT_DOUBLE_EQ(r.out_of_place->time_us.value, 46.24);
    // In place: 1048576 B / 45.89 us = 22.850 GB/s (printed 22.85), x 2(8-1)/8 = 39.99.
    EXPECT_DOUBLE_EQ(r.in_place->time_us.value, 45.89);
    EXPECT_DOUBLE_EQ(r.in_place->algbw_GBps.value, 22.85);
    EXPECT_DOUBLE_EQ(r.in_place->busbw_GBps.value, 39.99);
    ASSERT_TRUE(r.in_place->wrong.has_value());
    EXPECT_DOUBLE_EQ(*r.in_place->wrong, 0.0);
    // Without the column header, the 21 tokens say the same.
    const NcclLog bare = parse_nccl_tests(row, "all_reduce_perf.log");
    ASSERT_EQ(bare.runs.size(), 1u);
    ASSERT_TRUE(bare.runs[0].rows[0].in_place.has_value());
    EXPECT_DOUBLE_EQ(bare.runs[0].rows[0].in_place->time_us.value, 45.89);
    // With the report's time stamp after the in-place columns (writeTimestamp, "%Y-%m-%d %H:%M:%S"): 23 tokens.
    std::string stamped = row;
    stamped.insert(stamped.size() - 1, "  2026-09-26 10:00:00");
    const NcclLog ts = parse_nccl_tests(stamped, "all_reduce_perf.log");
    ASSERT_EQ(ts.runs.size(), 1u);
    ASSERT_TRUE(ts.runs[0].rows[0].in_place.has_value());
    EXPECT_DOUBLE_EQ(ts.runs[0].rows[0].in_place->busbw_GBps.value, 39.99);
}

}  // namespace
