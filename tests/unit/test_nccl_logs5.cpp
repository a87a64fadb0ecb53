// nccl-tests and BabelStream logs of the fifth round (tests/data/corpus/, "# logs5") and the items the
// fourth left: a paste named only by its "Collective test concluded" line, nccl-tests' -B bitwise column,
// a plain row under a per-iteration header, a sweep that starts again at size 0 as another collective, and
// the BabelStream summary's GPU and validation of its best row. Each test fails before its fix.
#include <gtest/gtest.h>

#include <string>

#include "../../src/ingest/inline_markup.h"
#include "bwacct/catalog.h"
#include "bwacct/ingest_babelstream.h"
#include "bwacct/ingest_nccl.h"

namespace {

using namespace bwacct;

const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";

// OCI's MI355X Pollara page pastes each run from its column header to its footer: no "Collective test
// starting" line, no command, no rank list; only the footer's "# Collective test concluded: all_reduce_perf".
// Before: "run 1: the log does not name its collective; give --op" (exit 2) for a file named README.md.
TEST(NcclRuns5, ConcludedLineNamesTheRunAboveIt) {
    // 8589934592 B in 36863 us: 8589934592 / 36863e-6 / 1e9 = 233.02 GB/s (printed 233.02), x 2 x 7/8 = 407.79.
    const std::string ar = std::string(kHeader) +
                           "  8589934592    2147483648     float     sum      -1    36863  233.02  407.79      0    36835  "
                           "233.20  408.10      0\n"
                           "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 169.455 \n#\n"
                           "# Collective test concluded: all_reduce_perf\n";
    // 8589934592 B in 20839 us: 412.20 GB/s; alltoall x 7/8 = 360.68 (printed 360.67, inside the rounding of 412.20).
    const std::string a2a = std::string(kHeader) +
                            "  8589934592     268435456     float    none      -1    20839  412.20  360.67      0    20893  "
                            "411.14  359.75    N/A\n"
                            "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 133.643 \n#\n"
                            "# Collective test concluded: alltoall_perf\n";
    const NcclLog log = parse_nccl_tests(ar + a2a, "README.md");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    EXPECT_EQ(log.runs[1].program, "alltoall_perf");
    // A "starting" line's name is kept over a different "concluded" one (never seen; the first is the run's own).
    const NcclLog named = parse_nccl_tests("# Collective test starting: all_reduce_perf\n" + ar, "README.md");
    ASSERT_EQ(named.runs.size(), 1u);
    EXPECT_EQ(named.runs[0].program, "all_reduce_perf");
}

// nccl-tests' -B (bitwise repeatability, util.cu writeResultHeader): "#bitdiff" after each placement's #wrong.
// Before: the header was not recognised (5 columns per placement), the 15-token row was read as the 13-token
// layout, and its in-place result started at the out-of-place #bitdiff: time 0, algbw 45.89, busbw 22.85.
TEST(NcclLayout, BitwiseColumnIsSkipped) {
    const std::string header =
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong  #bitdiff     time   algbw   "
        "busbw  #wrong  #bitdiff\n";
    // Out of place: 1048576 B / 46.24 us = 22.677 GB/s (printed 22.68), x 2 x 7/8 = 39.685 (39.69); in place:
    // 1048576 / 45.89 us = 22.850 (22.85), x 1.75 = 39.99.
    const std::string row =
        "     1048576        262144     float     sum      -1    46.24   22.68   39.69       0         0    45.89   22.85   "
        "39.99       0         3\n";
    for (const std::string& text : {header + row, row}) {
        const NcclLog log =
            parse_nccl_tests(text + "# Out of bounds values : 0 OK\n# Bitwise mismatches   : 3 FAILED\n", "all_reduce_perf.log");
        ASSERT_EQ(log.runs.size(), 1u);
        const NcclRow& r = log.runs[0].rows.at(0);
        ASSERT_TRUE(r.out_of_place && r.in_place);
        EXPECT_DOUBLE_EQ(r.out_of_place->busbw_GBps.value, 39.69);
        EXPECT_DOUBLE_EQ(r.in_place->time_us.value, 45.89);
        EXPECT_DOUBLE_EQ(r.in_place->algbw_GBps.value, 22.85);
        EXPECT_DOUBLE_EQ(r.in_place->busbw_GBps.value, 39.99);
        ASSERT_TRUE(r.in_place->wrong.has_value());
        EXPECT_DOUBLE_EQ(*r.in_place->wrong, 0.0);
        bool said = false;
        for (const std::string& w : log.warnings)
            said = said || w.find("3 bitwise mismatches FAILED") != std::string::npos;
        EXPECT_TRUE(said);
    }
}

// A plain 13-token row under a per-iteration header (21 tokens per row, 8 per placement): 21 - 8 = 13 is also
// the per-iteration layout's in-place-only row. Before: read as in-place only, its out-of-place time 46.24 as
// the in-place time and its out-of-place result lost. Its last token, a whole #wrong, is not an i_cv%
// (util.cu prints i_cv% with getFloatStr: decimals).
TEST(NcclLayout, PlainRowUnderAPerIterationHeaderIsAFullRow) {
    const std::string header =
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99  "
        "  i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%\n";
    const std::string plain =
        "     1048576        262144     float     sum      -1    46.24   22.68   39.69      0    45.89   22.85   39.99      0\n";
    const NcclLog log = parse_nccl_tests(header + plain, "all_reduce_perf.log");
    ASSERT_EQ(log.runs.size(), 1u);
    const NcclRow& r = log.runs[0].rows.at(0);
    ASSERT_TRUE(r.out_of_place.has_value());
    ASSERT_TRUE(r.in_place.has_value());
    EXPECT_DOUBLE_EQ(r.out_of_place->time_us.value, 46.24);
    EXPECT_DOUBLE_EQ(r.in_place->time_us.value, 45.89);
    // The per-iteration layout's own in-place-only row (trace replay) still is one: it ends in i_cv% 1.10.
    const std::string replay =
        "     1048576        262144     float     sum      -1    45.89   22.85   39.99       0    44.95    47.80    47.70     "
        "1.10\n";
    const NcclLog rl = parse_nccl_tests(header + replay, "all_reduce_perf.log");
    ASSERT_EQ(rl.runs.size(), 1u);
    EXPECT_FALSE(rl.runs[0].rows.at(0).out_of_place.has_value());
    ASSERT_TRUE(rl.runs[0].rows.at(0).in_place.has_value());
    EXPECT_DOUBLE_EQ(rl.runs[0].rows.at(0).in_place->time_us.value, 45.89);
}

// A headerless reduce_scatter table pasted under an allreduce run, both "float sum -1" on 8 ranks. Its sweep
// starts again at size 0, which has no elements per byte to compare, so the new run kept all_reduce_perf.
// Before: run 2 was read as an allreduce. Now its first row with bytes (1024 B as 32 elements: 1024 / 4 / 8,
// one rank's part, where the allreduce counts 256 = 1024 / 4) clears the name.
TEST(NcclRuns5, SweepRestartingAtSizeZeroAsAnotherCollectiveDropsTheName) {
    // Allreduce: 1024 B / 20.00 us = 0.0512 GB/s (printed 0.05), x 1.75 = 0.0896 (0.09); 2048 B: 0.1024 (0.10),
    // x 1.75 = 0.1792 (0.18). Reduce_scatter: 1024 B / 20.00 us = 0.0512 (0.05), x 7/8 = 0.0448 (0.04).
    const std::string ar = std::string("# Collective test starting: all_reduce_perf\n") + kHeader +
                           "        1024           256     float     sum      -1    20.00    0.05    0.09      0    20.00    "
                           "0.05    0.09      0\n"
                           "        2048           512     float     sum      -1    20.00    0.10    0.18      0    20.00    "
                           "0.10    0.18      0\n";
    const std::string rs_zero =
        "           0             0     float     sum      -1     0.10    0.00    0.00      0     0.10    0.00    0.00      0\n";
    const std::string rs =
        "        1024            32     float     sum      -1    20.00    0.05    0.04      0    20.00    0.05    0.04      0\n";
    const NcclLog log = parse_nccl_tests(ar + rs_zero + rs, "README.md");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    EXPECT_EQ(log.runs[1].rows.size(), 2u);
    EXPECT_TRUE(log.runs[1].program.empty());
    // Starting again at a size with bytes: the count says so at once (before, the name was kept here too).
    const NcclLog direct = parse_nccl_tests(ar + rs, "README.md");
    ASSERT_EQ(direct.runs.size(), 2u);
    EXPECT_TRUE(direct.runs[1].program.empty());
    // The same allreduce sweep again from size 0 keeps it: 1024 B as 256 elements is the allreduce's count.
    const std::string again =
        "        1024           256     float     sum      -1    21.00    0.05    0.09      0    21.00    0.05    0.09      0\n";
    const NcclLog same = parse_nccl_tests(ar + rs_zero + again, "README.md");
    ASSERT_EQ(same.runs.size(), 2u);
    EXPECT_EQ(same.runs[1].program, "all_reduce_perf");
}

// OCI's Pollara page names its single-node alltoall run only by the markdown heading above it ("### All 2 All -
// Single Node"): no test name line, no command, no footer's "concluded" line, and "none -1" rows fit allgather as
// well as alltoall (count = size / 4 / 8 and busbw / algbw = 7/8 for both). Before: "run 2: the log does not name
// its collective; give --op" (exit 2), and --op would set every run of the file. Now the heading names it.
TEST(NcclRuns5, AMarkdownHeadingNamesTheUnnamedRunBelowIt) {
    // 8589934592 B / 20839 us = 412.20 GB/s, x 7/8 = 360.68 (printed 360.67).
    const std::string a2a = std::string(kHeader) +
                            "  8589934592     268435456     float    none      -1    20839  412.20  360.67      0    20893  "
                            "411.14  359.75    N/A\n";
    const NcclLog log = parse_nccl_tests("### All 2 All - Single Node\n\n```bash\n" + a2a + "```\n", "README.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].program, "alltoall_perf");
    EXPECT_EQ(log.runs[0].program_from_heading, "### All 2 All - Single Node");
    // Words joined: "Reduce Scatter" is reduce_scatter, not reduce; "all_gather" is all_gather.
    // (A reduce_scatter row of 8 ranks: 1024 B / 20.00 us = 0.0512 GB/s (0.05), x 7/8 = 0.0448 (0.04).)
    const std::string rs = std::string(kHeader) +
                           "        1024            32     float     sum      -1    20.00    0.05    0.04      0    20.00    "
                           "0.05    0.04      0\n";
    EXPECT_EQ(parse_nccl_tests("## Reduce Scatter, 2 nodes\n" + rs, "README.md").runs[0].program, "reduce_scatter_perf");
    EXPECT_EQ(parse_nccl_tests("#### 3. all_gather results\n" + a2a, "README.md").runs[0].program, "all_gather_perf");
    // A heading naming two collectives, or none, names nothing.
    EXPECT_TRUE(parse_nccl_tests("## All Reduce and All Gather\n" + a2a, "README.md").runs[0].program.empty());
    EXPECT_TRUE(parse_nccl_tests("## Results on 2 nodes\n" + a2a, "README.md").runs[0].program.empty());
    // A heading whose collective cannot have printed the rows names nothing: "reduce" prints an operation and a root
    // >= 0, these rows "none" and -1 (prose such as "## How to reduce latency").
    EXPECT_TRUE(parse_nccl_tests("## How to reduce latency\n" + a2a, "README.md").runs[0].program.empty());
    // The run's own name wins: a test name line before the rows, or the footer's "concluded" line after them.
    EXPECT_EQ(parse_nccl_tests("## All Reduce\n# Collective test starting: alltoall_perf\n" + a2a, "README.md").runs[0].program,
              "alltoall_perf");
    const NcclLog c = parse_nccl_tests(
        "## All Reduce\n" + a2a + "# Avg bus bandwidth : 1\n# Collective test concluded: alltoall_perf\n", "README.md");
    EXPECT_EQ(c.runs[0].program, "alltoall_perf");
    EXPECT_TRUE(c.runs[0].program_from_heading.empty());
}

// An AMD MI300X acceptance guide converted from Word to reStructuredText: every output line is a pandoc ":mark:`...`"
// role, a paragraph of its own, and long lines wrap inside the role ("... 17.70\n0`", "... 180.48` :mark:`315.84`
// :mark:`0`"). Before: "holds no nccl-tests result row" (exit 2), and the BabelStream part "no BabelStream result
// table". Now each role is unwrapped and its wrapped lines joined; the joined lines become empty, so line numbers stay.
TEST(InlineMarkup, RolesAreUnwrappedAndWrappedLinesJoined) {
    EXPECT_EQ(ingest::unwrap_inline_markup(":mark:`# Out of bounds values : 0 OK`\n\n"), "# Out of bounds values : 0 OK\n\n");
    EXPECT_EQ(ingest::unwrap_inline_markup(":mark:`524288 131072 float sum -1 57.96 9.05 15.83 0 51.85 10.11 17.70\n0`\nx"),
              "524288 131072 float sum -1 57.96 9.05 15.83 0 51.85 10.11 17.70 0\n\nx");
    EXPECT_EQ(ingest::unwrap_inline_markup(":mark:`8589934592 2147483648 float sum -1 47488 180.88 316.55 0 47594\n180.48` "
                                           ":mark:`315.84` :mark:`0`"),
              "8589934592 2147483648 float sum -1 47488 180.88 316.55 0 47594 180.48 315.84 0\n");
    // Markdown inline code is the same; a code fence and a line without markup are kept, and so are CRLF ends.
    EXPECT_EQ(ingest::unwrap_inline_markup("`Copy 1.0 2 3 4`\r\n```\nplain `x`\n"), "Copy 1.0 2 3 4\r\n```\nplain `x`\n");
    // A role never joins across a blank line (its paragraph ended), nor past 4 lines: one whose backticks do not
    // close within them joins nothing (the lines after it are kept as they are).
    EXPECT_EQ(ingest::unwrap_inline_markup(":mark:`a\n\nb`"), "a\n\nb`");
    EXPECT_EQ(ingest::unwrap_inline_markup(":mark:`a\nb\nc\nd\ne\nf`"), "a\nb\nc\nd\ne\nf`");

    // The guide's last row, read: 8589934592 B / 47594 us = 180.484 GB/s (printed 180.48), x 1.75 = 315.85 (315.84,
    // within the rounding of 47594 +- 0.5 us).
    const std::string rst =
        ":mark:`# size count type redop root time algbw busbw #wrong time algbw\nbusbw #wrong`\n\n"
        ":mark:`8589934592 2147483648 float sum -1 47488 180.88 316.55 0 47594\n180.48` :mark:`315.84` :mark:`0`\n\n"
        ":mark:`# Avg bus bandwidth : 102.138`\n";
    const NcclLog log = parse_nccl_tests(rst, "guide.rst");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    ASSERT_TRUE(log.runs[0].rows[0].in_place.has_value());
    EXPECT_DOUBLE_EQ(log.runs[0].rows[0].in_place->busbw_GBps.value, 315.84);
    EXPECT_EQ(log.runs[0].rows[0].line, 4);  // the row's first line: 1-2 header, 3 blank, 4-5 the row

    const BabelStreamFile b = parse_babelstream(
        ":mark:`BabelStream`\n\n:mark:`Version: 5.0`\n\n:mark:`Function MBytes/sec Min (sec) Max Average`\n\n"
        ":mark:`Copy 4255995.148 0.00101 0.00117 0.00106`\n",
        "guide.rst");
    ASSERT_EQ(b.rows.size(), 1u);
    EXPECT_DOUBLE_EQ(b.rows[0].bw_printed, 4255995.148);
}

// One A10G rank (AWS Tip's EKS post): nccl-tests' -b 1 sweep starts with two size-0 rows, and with one rank every
// busbw is 0.00 (factor 2(n-1)/n = 0). Before: "peak busbw 0.0 GB/s at 0 B", the size-0 row being the first of the
// equal maxima. A size-0 row moves nothing and is never the peak: now the first row with bytes, 4 B.
TEST(NcclRuns5, ASizeZeroRowIsNeverThePeak) {
    // 4 B / 3.54 us = 0.00113 GB/s (printed 0.00); in place 4 B / 0.11 us = 0.036 (0.03, within 0.11 +- 0.005 us).
    const std::string text = std::string("#  Rank  0 Group  0 Pid     21 on test-nccl-worker-0 device  0 [0x00] NVIDIA A10G\n") +
                             kHeader +
                             "           0             0     float     sum      -1     0.11    0.00    0.00      0     0.10    "
                             "0.00    0.00      0\n"
                             "           4             1     float     sum      -1     3.54    0.00    0.00      0     0.11    "
                             "0.03    0.00      0\n";
    const NcclLog log = parse_nccl_tests(text, "all_reduce_perf.log");
    NcclAccountingInput in;
    in.file_kind = CollectiveKind::allreduce;  // from the file name, as the CLI sets it
    const IngestReport r = account_nccl(log, "all_reduce_perf.log", in, {});
    ASSERT_FALSE(r.summary.lines.empty());
    EXPECT_NE(r.summary.lines[0].find("peak busbw 0.0 GB/s at 4 B (1 rank: nothing crosses a link)"), std::string::npos)
        << r.summary.lines[0];
}

GpuSpec gpu(const std::string& id, double hbm) {
    GpuSpec g;
    g.id = id;
    g.hbm_bw_GBps.value = hbm;
    return g;
}

// The summary's best row is judged on its own run: its GPU and its validation. Before: "unverified" when any
// run of the file failed validation (here run 1, slower), and a gpu-stream row kept the GPU of the last
// BabelStream row that had led before it.
TEST(BabelStreamLater, SummaryUsesTheBestRowsRunOnly) {
    const std::string run1 =
        "BabelStream\nVersion: 4.0\nImplementation: CUDA\nRunning kernels 100 times\nPrecision: double\n"
        "Array size: 1.0 MB (=0.0 GB)\nTotal size: 3.0 MB (=0.0 GB)\n"
        "Validation failed on sum. Error 1\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1000.000    0.00200     0.00200     0.00200\n";
    // Run 2: Copy moves 2 arrays x 1.0 MB = 2.0e6 B in 0.00100 s = 2.0e9 B/s = 2000 MB/s = 2.00 GB/s (3 digits).
    const std::string run2 =
        "BabelStream\nVersion: 4.0\nImplementation: CUDA\nRunning kernels 100 times\nPrecision: double\n"
        "Array size: 1.0 MB (=0.0 GB)\nTotal size: 3.0 MB (=0.0 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        2000.000    0.00100     0.00100     0.00100\n";
    const BabelStreamFile f = parse_babelstream(run1 + run2, "two.txt");
    ASSERT_EQ(f.runs.size(), 2u);
    const IngestReport r = babelstream_report(f, "two.txt", {});
    ASSERT_FALSE(r.summary.lines.empty());
    EXPECT_NE(r.summary.lines[0].find("best kernel Copy (run 2) 2.00 GB/s"), std::string::npos) << r.summary.lines[0];
    EXPECT_EQ(r.summary.lines[0].find("unverified"), std::string::npos) << r.summary.lines[0];

    // A gpu-stream row (5.0 GB/s) above a BabelStream row of run 1 analysed on another GPU: the file's GPU.
    BabelStreamFile g = f;
    g.rows.resize(1);  // run 1's Copy, 1.0 GB/s
    GpuStreamRow gs;
    gs.kernel = "COPY";
    gs.dtype = "double";
    gs.buffer_bytes = 1048576;
    gs.block = 128;
    gs.bw_GBps = 5.0;
    g.gs_rows.push_back(gs);
    const GpuSpec file_gpu = gpu("file-gpu", 100), run1_gpu = gpu("run1-gpu", 50);
    const IngestReport rg = babelstream_report(g, "mixed", {&file_gpu}, {std::vector<const GpuSpec*>{&run1_gpu}});
    ASSERT_EQ(rg.summary.lines.size(), 1u);
    // 5.0 / 100 = 5.0 % of file-gpu (not 5.0 / 50 = 10.0 % of run1-gpu); gpu-stream printed no failure.
    EXPECT_NE(rg.summary.lines[0].find("5.0 % of file-gpu"), std::string::npos) << rg.summary.lines[0];
    EXPECT_EQ(rg.summary.lines[0].find("unverified"), std::string::npos) << rg.summary.lines[0];
}

// A BabelStream run that printed its banner and no table: AMD's Infinity Hub page quotes hip-stream --float up to
// "Validation failed on sum" and "Sum was ..." only; a Segmentation fault after the banner (arrays too large for the
// GPU). Before: "no BabelStream result table or gpu-stream rows found", as for a file of another kind. Now the
// refusal says what the run printed and where.
TEST(BabelStreamLater, ARunWithoutATableSaysWhatItPrinted) {
    try {
        (void)parse_babelstream("BabelStream\nVersion: 4.0\nImplementation: HIP\nValidation failed on sum. Error 0.000530533\n",
                                "hip.md");
        FAIL() << "no table: refused";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("printed 'Validation failed on sum. Error 0.000530533' (line 4)"), std::string::npos)
            << e.what();
    }
    try {
        (void)parse_babelstream("$ ./cuda-stream\nBabelStream\nVersion: 5.0\nSegmentation fault (core dumped)\n", "segv.md");
        FAIL() << "no table: refused";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("banner is on line 2"), std::string::npos) << e.what();
    }
}

// ---- logs6: the review of the fifth round (/work/notes/rv_logs5) ----

// 8 ranks, "float none -1" (allgather and alltoall print the same columns): 1048576 B as 32768 elements, one rank's
// part (1048576 / 4 / 8); 1048576 B / 100.0 us = 10.486 GB/s (printed 10.49), x 7/8 = 9.175 (9.18); 2097152 B /
// 200.0 us the same.
const char* kShardedRows =
    "     1048576         32768     float    none      -1    100.0   10.49    9.18      0    100.0   10.49    9.18      0\n"
    "     2097152         65536     float    none      -1    200.0   10.49    9.18      0    200.0   10.49    9.18      0\n";
// 8 ranks, "float sum -1", allreduce: 1048576 B as 262144 elements (1048576 / 4, the whole buffer); 10.49 GB/s as
// above, x 2 x 7/8 = 10.486 x 1.75 = 18.35.
const char* kAllreduceRows =
    "     1048576        262144     float     sum      -1    100.0   10.49   18.35      0    100.0   10.49   18.35      0\n"
    "     2097152        524288     float     sum      -1    200.0   10.49   18.35      0    200.0   10.49   18.35      0\n";

bool warned(const std::vector<std::string>& warnings, const std::string& part) {
    for (const std::string& w : warnings)
        if (w.find(part) != std::string::npos)
            return true;
    return false;
}

// The same sweep again with no header between keeps the run before's name as its own until a line of its own names
// it: the footer "# Collective test concluded: alltoall_perf" under the second sweep. Before: run 2 kept
// all_gather_perf (the footer only named a run with no name or a heading's), "allgather" in the report.
TEST(NcclRuns6, AFooterReplacesANameCopiedFromTheRunBefore) {
    const std::string footer = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 9.18\n#\n";
    const NcclLog log =
        parse_nccl_tests(std::string(kHeader) + kShardedRows + footer + "# Collective test concluded: all_gather_perf\n" +
                             kShardedRows + footer + "# Collective test concluded: alltoall_perf\n",
                         "t1.log");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_EQ(log.runs[0].program, "all_gather_perf");
    EXPECT_EQ(log.runs[1].program, "alltoall_perf");
    // A name from a heading is carried to the restarted sweep with its origin, and its footer replaces it.
    const NcclLog h = parse_nccl_tests("### All Gather - 1 node\n\n```\n" + std::string(kHeader) + kShardedRows + kShardedRows +
                                           footer + "# Collective test concluded: alltoall_perf\n```\n",
                                       "h2.md");
    ASSERT_EQ(h.runs.size(), 2u);
    EXPECT_EQ(h.runs[0].program, "all_gather_perf");
    EXPECT_EQ(h.runs[0].program_from_heading, "### All Gather - 1 node");
    EXPECT_EQ(h.runs[1].program, "alltoall_perf");
    EXPECT_TRUE(h.runs[1].program_from_heading.empty());
    // Without a footer the restarted sweep keeps the heading's name and says where it came from.
    const NcclLog k = parse_nccl_tests("### All Gather\n" + std::string(kHeader) + kShardedRows + kShardedRows, "h.md");
    ASSERT_EQ(k.runs.size(), 2u);
    EXPECT_EQ(k.runs[1].program, "all_gather_perf");
    EXPECT_EQ(k.runs[1].program_from_heading, "### All Gather");
    // A name the run's own starting line printed is kept, and a footer naming another collective is said.
    const NcclLog s = parse_nccl_tests("# Collective test starting: all_gather_perf\n" + std::string(kHeader) + kShardedRows +
                                           footer + "# Collective test concluded: alltoall_perf\n",
                                       "s.log");
    ASSERT_EQ(s.runs.size(), 1u);
    EXPECT_EQ(s.runs[0].program, "all_gather_perf");
    EXPECT_TRUE(warned(s.warnings, "the footer names alltoall_perf, but the run from line 1 was started as all_gather_perf"));
}

// A heading is taken only for rows its collective prints: elements per byte and busbw/algbw as well as operation and
// root. Before: "### All Reduce" named reduce_scatter rows (sum -1, count 32768 = 1048576 / 4 / 8, one rank's part,
// where allreduce counts 1048576 / 4 = 262144), and the summary called them an allreduce.
TEST(NcclRuns6, AHeadingTheRowsContradictIsNotUsed) {
    // Reduce_scatter, 8 ranks: 10.49 GB/s x 7/8 = 9.18.
    const std::string rs =
        "     1048576         32768     float     sum      -1    100.0   10.49    9.18      0    100.0   10.49    9.18      0\n";
    const NcclLog log = parse_nccl_tests("### All Reduce\n\n```\n" + std::string(kHeader) + rs + "```\n", "h3.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_TRUE(log.runs[0].program.empty());
    EXPECT_TRUE(warned(log.warnings, "the heading on line 1 names all_reduce_perf"));
    try {
        (void)account_nccl(log, "h3.md", NcclAccountingInput{}, {});
        FAIL() << "no collective named: refused";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("the heading '### All Reduce' above it names one whose rows are not these"),
                  std::string::npos)
            << e.what();
    }
    // The same rows under "### Reduce Scatter": 1048576 / (32768 x 4) = 8 ranks, factor 7/8 = 0.875 inside the printed
    // [9.175 / 10.495, 9.185 / 10.485] = [0.874, 0.876].
    EXPECT_EQ(parse_nccl_tests("### Reduce Scatter\n" + std::string(kHeader) + rs, "h.md").runs[0].program,
              "reduce_scatter_perf");
    // Allreduce rows (factor 18.35 / 10.49 = 1.75) under "### Send Recv" (whole buffer, "sum -1", but factor 1): no.
    EXPECT_TRUE(parse_nccl_tests("### Send Recv\n" + std::string(kHeader) + kAllreduceRows, "h.md").runs[0].program.empty());
    EXPECT_EQ(parse_nccl_tests("### All Reduce\n" + std::string(kHeader) + kAllreduceRows, "h.md").runs[0].program,
              "all_reduce_perf");
    // One rank: allreduce's 2(n-1)/n = 0, busbw 0.00.
    const std::string one =
        "     1048576        262144     float     sum      -1    100.0   10.49    0.00      0    100.0   10.49    0.00      0\n";
    EXPECT_EQ(parse_nccl_tests("### All Reduce\n" + std::string(kHeader) + one, "h.md").runs[0].program, "all_reduce_perf");
}

// A heading names the run right under it. Before: "## AllGather", two lines of prose saying the allgather hung, then
// an alltoall-shaped run: named allgather.
TEST(NcclRuns6, ProseBetweenAHeadingAndTheRunEndsTheHeading) {
    const std::string run = "```\n" + std::string(kHeader) + kShardedRows + "# Avg bus bandwidth    : 9.18\n```\n";
    const NcclLog log = parse_nccl_tests(
        "## AllGather\n\nWe first tried all-gather but it hung, so below is the alltoall result.\nLots of prose here.\n\n" + run,
        "t2.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_TRUE(log.runs[0].program.empty());
    // Blank lines, a fence, NCCL's own lines and the log's '#' lines keep it.
    const NcclLog kept = parse_nccl_tests(
        "## AllGather\n\n```\n"
        "node1:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 8 cudaDev 0 busId 1000 - Init COMPLETE\n"
        "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 2097152\n" +
            std::string(kHeader) + kShardedRows + "```\n",
        "t.md");
    ASSERT_EQ(kept.runs.size(), 1u);
    EXPECT_EQ(kept.runs[0].program, "all_gather_perf");
    // An HTML block's tags alone are fences too.
    const NcclLog pre = parse_nccl_tests("## AllGather\n<pre>\n" + std::string(kHeader) + kShardedRows + "</pre>\n", "t.md");
    EXPECT_EQ(pre.runs.at(0).program, "all_gather_perf");
}

// A line of backticks alone is a fence, and markdown inline code joins no line. Before: a lone "`" above a header and
// 4 allreduce rows joined the next 4 lines into one (only the last row read, silently); with a test name line after
// it, nothing was read (refused).
TEST(InlineMarkup, ALoneBacktickIsAFence) {
    const std::string block = std::string("`\n") + kHeader + kAllreduceRows + kAllreduceRows + "`\n";
    EXPECT_EQ(ingest::unwrap_inline_markup(block), block);
    EXPECT_EQ(ingest::unwrap_inline_markup("`a\nb`\n"), "a\nb`\n");  // markdown inline code: its own line only
    const NcclLog log = parse_nccl_tests("Output of `all_reduce_perf -b 1M -e 8M -f 2 -g 8`:\n" + block, "m2.md");
    ASSERT_EQ(log.runs.size(), 2u);  // the sizes start again: 2 runs of 2 rows
    EXPECT_EQ(log.runs[0].rows.size() + log.runs[1].rows.size(), 4u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    const NcclLog named =
        parse_nccl_tests("`\n# Collective test starting: all_reduce_perf\n" + std::string(kAllreduceRows) + "`\n", "m3.md");
    ASSERT_EQ(named.runs.size(), 1u);
    EXPECT_EQ(named.runs[0].rows.size(), 2u);
}

// -B's header (time algbw busbw #wrong #bitdiff per placement, 15 tokens) over plain 13-token rows ending in a whole
// #wrong: plain rows pasted under it. Before: refused as "row cut short (13 of the header's 15 columns)".
TEST(NcclLayout, PlainRowUnderABitwiseHeaderIsAFullRow) {
    const std::string header =
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong  #bitdiff     time   algbw   "
        "busbw  #wrong  #bitdiff\n";
    const NcclLog log = parse_nccl_tests("# Collective test starting: all_reduce_perf\n" + header + kAllreduceRows, "bb.log");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_EQ(log.runs[0].rows.size(), 2u);
    const NcclRow& r = log.runs[0].rows[1];
    ASSERT_TRUE(r.out_of_place && r.in_place);
    EXPECT_DOUBLE_EQ(r.out_of_place->time_us.value, 200.0);
    EXPECT_DOUBLE_EQ(r.in_place->busbw_GBps.value, 18.35);
}

// A heading's text is kept to 80 bytes at a character boundary. "### AllReduce: " is 15 bytes and each Cyrillic
// "я" 2 (D1 8F): 15 + 2 x 32 = 79 <= 80 < 81. Before: cut at byte 80, half of the 33rd "я" (invalid UTF-8).
TEST(NcclRuns6, AHeadingIsCutAtACharacterBoundary) {
    std::string cyr;
    for (int i = 0; i < 40; ++i)
        cyr += "\xD1\x8F";
    const NcclLog log = parse_nccl_tests("### AllReduce: " + cyr + "\n" + kHeader + kAllreduceRows, "u9.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    EXPECT_EQ(log.runs[0].program_from_heading, "### AllReduce: " + cyr.substr(0, 64));
}

// A second table named by the first's shape when the first was named by a heading: the note says the heading, not
// a "test name" the log does not print.
TEST(NcclRuns6, ARunNamedAfterAHeadingNamedRunSaysTheHeading) {
    const std::string text = "## All Reduce\n" + std::string(kHeader) + kAllreduceRows + "# Avg bus bandwidth : 18.35\n\n" +
                             kHeader + kAllreduceRows + "# Avg bus bandwidth : 18.35\n";
    const NcclLog log = parse_nccl_tests(text, "README.md");
    ASSERT_EQ(log.runs.size(), 2u);
    ASSERT_TRUE(log.runs[1].program_from_previous_run);
    const IngestReport r = account_nccl(log, "README.md", NcclAccountingInput{}, {});
    ASSERT_EQ(r.runs.size(), 2u);
    std::string all;
    for (const std::string& n : r.runs[1].notes)
        all += n + "\n";
    const bool said =
        all.find("from the markdown heading '## All Reduce' before run 1 (the log names no test there)") != std::string::npos;
    const bool false_name = all.find("test name") != std::string::npos;
    EXPECT_TRUE(said) << all;
    EXPECT_FALSE(false_name) << all;
}

// A validation failure after a later banner with no table is that run's. Before: pinned on run 1, which passed
// ("best kernel Copy ... (unverified: validation failed)"). Copy: 2 x 268.4 MB / 0.00039 s = 1376.4 GB/s.
TEST(BabelStreamLater, AFailureOfALaterRunWithoutATableIsThatRunsOwn) {
    const std::string run1 =
        "BabelStream\nVersion: 4.0\nImplementation: CUDA\nRunning kernels 100 times\nPrecision: double\n"
        "Array size: 268.4 MB (=0.3 GB)\nTotal size: 805.3 MB (=0.8 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1373517.208 0.00039     0.00040     0.00039\n";
    // Lines 10-14: the second run's banner (10) and its failure (14), no table.
    const std::string run2 = "BabelStream\nVersion: 4.0\nPrecision: float\nValidation failed on sum. Error 0.000530533\n";
    const BabelStreamFile f = parse_babelstream(run1 + run2, "b1.txt");
    ASSERT_EQ(f.runs.size(), 1u);
    EXPECT_TRUE(f.runs[0].validation_failure.empty());
    EXPECT_TRUE(warned(f.warnings, "line 10: a run starts and prints no table; its validation failure on line 13"));
    const IngestReport r = babelstream_report(f, "b1.txt", {});
    ASSERT_FALSE(r.summary.lines.empty());
    EXPECT_EQ(r.summary.lines[0].find("unverified"), std::string::npos) << r.summary.lines[0];
    // A failure after the last table and before any banner is still the last run's.
    const BabelStreamFile g = parse_babelstream(run1 + "Validation failed on sum. Error 1\n", "b.txt");
    EXPECT_FALSE(g.runs.at(0).validation_failure.empty());
}

}  // namespace
