// `bwacct ingest nccl-tests`, run as a user runs it, on every real log in tests/data/nccl/ and on
// bad input. Counts in the comments are read off the logs by hand.
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::string kNccl = std::string(BWACCT_TEST_DATA) + "/nccl/";

struct LogCase {
    const char* file;
    const char* gpu;  // the catalog entry the log's device name matches
    u64 records;      // results with size > 0, out-of-place and in-place
    u64 results;      // every printed result (rows × 2)
};

// H100 NVLS: 31 sizes 8 B .. 8 GiB → 62 results, none of size 0.
// A100 allgather / reducescatter: 34 rows, the first 5 of size 0 → 29 × 2 = 58 records of 68.
// A100 allreduce: 34 rows, 2 of size 0 → 32 × 2 = 64 of 68. Bitdeer: 4 rows → 8. H200: 32 rows → 64.
const LogCase kLogs[] = {
    {"nccl_all_reduce_h100_1node8gpu_nvls_together.txt", "h100-sxm", 62, 62},
    {"nccl_allgather_a100sxm4_40gb_8gpu_superbench.txt", "a100-sxm-40gb", 58, 68},
    {"nccl_allreduce_a100sxm4_40gb_8gpu_superbench.txt", "a100-sxm-40gb", 64, 68},
    {"nccl_allreduce_h100_1node8gpu_bitdeer.txt", "h100-sxm", 8, 8},
    {"nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt", "h200", 64, 64},
    {"nccl_reducescatter_a100sxm4_40gb_8gpu_superbench.txt", "a100-sxm-40gb", 58, 68},
    {"nccl_allreduce_h100_json_synthetic.json", "h100-sxm", 8, 8},
    // Issue 11 shapes (each a real log edited, see its .src.txt): Ray + tag-output tags inside rows,
    // srun labels + time stamps + CRLF + NCCL INFO/WARN lines, an elided rank list.
    {"nccl_allreduce_h200_2node16gpu_ray_midrow_tags_synthetic.txt", "h200", 64, 64},
    {"nccl_allgather_a100sxm4_40gb_8gpu_srun_timestamps_crlf_synthetic.txt", "a100-sxm-40gb", 58, 68},
    {"nccl_allreduce_h200_2node16gpu_elided_ranks_synthetic.txt", "h200", 64, 64},
};

TEST(IngestNccl, EveryLogParsesAndEveryResultMatches) {
    for (const LogCase& c : kLogs) {
        SCOPED_TRACE(c.file);
        const json j = run_json({"ingest", "nccl-tests", kNccl + c.file, "--format", "json"});
        EXPECT_EQ(str_of(j, "schema"), "bwacct.ingest/1");
        EXPECT_EQ(str_of(j, "tool"), "nccl-tests");
        ASSERT_EQ(j.at("gpus").size(), 1u);
        EXPECT_EQ(j.at("gpus")[0], c.gpu);  // matched from the log's "# Rank" device name
        EXPECT_EQ(num_u(j, "records_total"), c.records);
        const json& rows = j.at("sections").at("rows").at("rows");
        EXPECT_EQ(rows.size(), c.results);
        for (const json& r : rows)
            EXPECT_EQ(r.at("matches_log"), "yes") << r.dump();
        for (const json& rec : j.at("records")) {
            EXPECT_EQ(str_of(rec, "source"), "ingested");
            expect_finite_numbers(rec, c.file);
        }
        EXPECT_EQ(j.at("sections").at("alpha_beta").at("rows").size(), 1u);
    }
}

TEST(IngestNccl, TwoNodeLogCountsSixteenRanks) {
    const json j =
        run_json({"ingest", "nccl-tests", kNccl + "nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt", "--format", "json"});
    const std::string notes = j.at("notes").dump();
    EXPECT_NE(notes.find("ranks: 16"), std::string::npos) << notes;
    EXPECT_NE(notes.find("2 hosts"), std::string::npos) << notes;
    // 16 ranks: allreduce busbw factor 2·15/16 = 1.875. Last row 17179869184 B out-of-place at
    // 348875 µs: algbw = 17179869184 / 348875 / 1e3 = 49.2436 GB/s, busbw = 92.3317 GB/s.
    const json& last_oop = j.at("records")[62];
    const json* g = gpu_entry(last_oop, "h200");
    ASSERT_NE(g, nullptr);
    expect_rel(num_d(*g, "busbw_GBps"), 17179869184.0 / 348875 / 1e3 * 1.875, 1e-9, "busbw");
}

TEST(IngestNccl, NvlsBusbwAboveTheWireIsCalledOut) {
    const RunResult r = run_bwacct({"ingest", "nccl-tests", kNccl + "nccl_all_reduce_h100_1node8gpu_nvls_together.txt"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    // Best busbw 479.85 GB/s (8 GiB in-place) > 450 GB/s one way: 106.6 %.
    EXPECT_NE(r.out.find("479.85"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("NVLS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("106.6"), std::string::npos) << r.out;
}

TEST(IngestNccl, WrongCollectiveIsFlagged) {
    // The allgather log read as an all-reduce: busbw factor 1.75 instead of 0.875, so every
    // non-zero busbw disagrees with the log.
    const json j = run_json({"ingest", "nccl-tests", kNccl + "nccl_allgather_a100sxm4_40gb_8gpu_superbench.txt", "--op",
                             "allreduce", "--format", "json"});
    u64 no = 0;
    for (const json& r : j.at("sections").at("rows").at("rows"))
        no += r.at("matches_log") == "NO";
    EXPECT_GT(no, 40u);
    EXPECT_NE(j.at("sections").at("rows").at("notes").dump().find("do NOT match"), std::string::npos);
}

TEST(IngestNccl, JsonlAndCsvCarryTheRecords) {
    const RunResult r =
        run_bwacct({"ingest", "nccl-tests", kNccl + "nccl_allreduce_h100_1node8gpu_bitdeer.txt", "--format", "jsonl"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    // Issue 14: JSONL carries every section, each object with its "section": the 8 records (4 rows ×
    // out-of-place and in-place), the same 8 results re-derived, 1 α–β fit and 1 peak (one GPU).
    std::map<std::string, std::size_t> sections;
    for (const std::string& line : lines_of(r.out))
        ++sections[json::parse(line).at("section").get<std::string>()];
    EXPECT_EQ(sections["records"], 8u);
    EXPECT_EQ(sections["rows"], 8u);
    EXPECT_EQ(sections["alpha_beta"], 1u);
    EXPECT_EQ(sections["peak"], 1u);
    EXPECT_EQ(lines_of(r.out).size(), 18u);
    const RunResult c = run_bwacct(
        {"ingest", "nccl-tests", kNccl + "nccl_allreduce_h100_1node8gpu_bitdeer.txt", "--format", "csv", "--top", "2"});
    ASSERT_TRUE(succeeded(c)) << report(c);
    EXPECT_EQ(lines_of(c.out).size(), 3u);  // header + 2 records
}

TEST(IngestNccl, SingleRunJsonKeepsItsLayoutAndListsTheRun) {
    const json j =
        run_json({"ingest", "nccl-tests", kNccl + "nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt", "--format", "json"});
    ASSERT_EQ(j.at("runs").size(), 1u);
    const json& run = j.at("runs")[0];
    EXPECT_EQ(run.at("ranks"), 16);
    EXPECT_EQ(run.at("ranks_from"), "rank_lines");
    EXPECT_EQ(run.at("header_ranks_per_process"), 8);
    EXPECT_EQ(run.at("header_ranks"), 16);  // 8 per process × -np 2 on the command line
    EXPECT_EQ(run.at("ratio_ranks_min"), 16);
    EXPECT_EQ(run.at("ratio_ranks_max"), 16);
    EXPECT_EQ(run.at("records_total"), 64);
    EXPECT_EQ(run.at("sections").at("rows"), j.at("sections").at("rows"));
}

TEST(IngestNccl, ElidedRankListGivesSixteenRanks) {
    // Ranks 0, 1, 14, 15 listed, rank 1's '#' lost: before the fix 3 ranks and every busbw "NO".
    const json j = run_json(
        {"ingest", "nccl-tests", kNccl + "nccl_allreduce_h200_2node16gpu_elided_ranks_synthetic.txt", "--format", "json"});
    EXPECT_EQ(j.at("runs")[0].at("ranks"), 16);
    EXPECT_EQ(j.at("runs")[0].at("ranks_from"), "busbw_algbw_ratio");
    EXPECT_EQ(j.at("runs")[0].at("highest_rank"), 15);
}

TEST(IngestNccl, SeveralRunsAreReportedSeparately) {
    const std::string file = kNccl + "nccl_multirun_readme_paste_synthetic.txt";
    const json j = run_json({"ingest", "nccl-tests", file, "--format", "json"});
    ASSERT_EQ(j.at("runs").size(), 3u);
    EXPECT_TRUE(j.at("sections").empty());
    const char* kinds[] = {"allreduce", "alltoall", "reduce"};
    const int ranks[] = {8, 8, 1};
    const u64 records[] = {8, 58, 0};  // 4 rows × 2; (34 − 5 of size 0) × 2; one rank: none
    for (std::size_t i = 0; i < 3; ++i) {
        const json& run = j.at("runs")[i];
        EXPECT_EQ(run.at("collective"), kinds[i]);
        EXPECT_EQ(run.at("ranks"), ranks[i]);
        EXPECT_EQ(num_u(run, "records_total"), records[i]);
        for (const json& r : run.at("sections").at("rows").at("rows"))
            EXPECT_EQ(r.at("matches_log"), "yes") << r.dump();
    }
    EXPECT_EQ(num_u(j, "records_total"), 66u);
    // Each run on its own GPU: the all_reduce and the reduce ran on H100s, the alltoall on A100s.
    EXPECT_EQ(j.at("runs")[0].at("gpus"), "h100-sxm");
    EXPECT_EQ(j.at("runs")[1].at("gpus"), "a100-sxm-40gb");
    EXPECT_EQ(j.at("runs")[2].at("gpus"), "h100-sxm");
    EXPECT_EQ(j.at("gpus"), json::parse(R"(["h100-sxm", "a100-sxm-40gb"])"));
    const RunResult t = run_bwacct({"ingest", "nccl-tests", file});
    ASSERT_TRUE(succeeded(t)) << report(t);
    EXPECT_NE(t.out.find("== run 2 of 3: alltoall over 8 rank(s)"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("== run 3 of 3: reduce over 1 rank(s)"), std::string::npos) << t.out;
}

TEST(IngestNccl, TimeZeroIsNotReDerived) {
    const std::string file = kNccl + "nccl_allreduce_h200_2node16gpu_time_zero_synthetic.txt";
    const RunResult t = run_bwacct({"ingest", "nccl-tests", file});
    ASSERT_TRUE(succeeded(t)) << report(t);
    // No "inf" as a number anywhere (the file's path, echoed in the header, may hold the letters).
    std::string body = t.out;
    for (std::size_t at = body.find(file); at != std::string::npos; at = body.find(file))
        body.erase(at, file.size());
    EXPECT_EQ(body.find("inf"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("not re-derivable"), std::string::npos) << t.out;
    const json j = run_json({"ingest", "nccl-tests", file, "--format", "json"});
    const json& first = j.at("sections").at("rows").at("rows")[0];
    EXPECT_EQ(first.at("matches_log"), "not re-derivable");
    EXPECT_EQ(num_u(j, "records_total"), 63u);
}

// A paste whose later run ran on a GPU the catalog lacks: that run is read without a GPU (re-derived,
// no % of peak) with the note asking for --gpu, and the other runs keep theirs. It used to stop the
// whole file with "not in the catalog" (exit 2), though the same run alone was read.
TEST(IngestNccl, ALaterRunOnAnUnknownGpuIsReadWithoutOne) {
    TempDir d;
    std::string text = read_text(kNccl + "nccl_multirun_readme_paste_synthetic.txt");
    for (std::size_t at = text.find("A100-SXM4-40GB"); at != std::string::npos; at = text.find("A100-SXM4-40GB", at))
        text.replace(at, 14, "Tesla P100-PCIE-16GB");  // a GPU the catalog lacks
    write_text(d.file("paste.txt"), text);
    const json j = run_json({"ingest", "nccl-tests", d.file("paste.txt"), "--format", "json"});
    ASSERT_EQ(j.at("runs").size(), 3u);
    EXPECT_EQ(j.at("runs")[0].at("gpus"), "h100-sxm");
    EXPECT_EQ(j.at("runs")[1].at("gpus"), "");
    EXPECT_EQ(j.at("runs")[2].at("gpus"), "h100-sxm");
    EXPECT_EQ(j.at("gpus"), json::parse(R"(["h100-sxm"])"));
    // The alltoall's rows are still re-derived and checked: (34 − 5 of size 0) rows, one record each
    // without a GPU (with one, two: the row and its GPU row, 58 in SeveralRunsAreReportedSeparately).
    for (const json& r : j.at("runs")[1].at("sections").at("rows").at("rows"))
        EXPECT_EQ(r.at("matches_log"), "yes") << r.dump();
    bool noted = false;
    for (const json& n : j.at("notes"))
        noted |= n.get<std::string>().find("'Tesla P100-PCIE-16GB' is not in the catalog") != std::string::npos;
    EXPECT_TRUE(noted) << j.at("notes");
}

// Runs that name no GPU in a file whose first run does (a grep of four logs without their rank lines;
// an MI355X run whose rank lines end at the bus id): analysed on the first run's GPU, and the note says
// which runs that is. Before: the first run's GPU was used for them without a word.
TEST(IngestNccl, RunsThatNameNoGpuAreSaidToUseTheFirstRunsGpu) {
    const std::string file = std::string(BWACCT_TEST_DATA) +
                             "/corpus/nccl-tests/hisohara_rccl_tests_mi300x_mi325x_mi355x_seven_runs_grep_of_four_logs.md";
    const json j = run_json({"ingest", "nccl-tests", file, "--format", "json"});
    ASSERT_EQ(j.at("runs").size(), 7u);
    // Ranks: 8 and 16 from the rank lists; the grep's four sweeps 8, 16, 32, 64 from busbw/algbw; 16.
    const int ranks[] = {8, 16, 8, 16, 32, 64, 16};
    for (std::size_t i = 0; i < 7; ++i)
        EXPECT_EQ(j.at("runs")[i].at("ranks"), ranks[i]) << i;
    bool noted = false;
    for (const json& n : j.at("notes"))
        noted |= n.get<std::string>().find(
                     "runs 3, 4, 5, 6, 7 name no GPU: analysed on the file's first named GPU ('AMD Instinct MI300X')") !=
                 std::string::npos;
    EXPECT_TRUE(noted) << j.at("notes");
}

// A one-rank run (alltoall on one RTX 5090, nccl-tests issue 287) has no % of the link because nothing
// crosses one, not because its GPU is unknown: the summary says which. Before: "(no GPU given: % of
// the link needs --gpu)" for a run whose rank line names its GPU.
TEST(IngestNccl, OneRankRunSaysNothingCrossesALink) {
    const std::string file = std::string(BWACCT_TEST_DATA) +
                             "/corpus/nccl-tests/nccl_tests_issue287_rtx5090_allreduce_4gpu_blockquoted_then_alltoall_1gpu.md";
    const json j = run_json({"ingest", "nccl-tests", file, "--format", "json"});
    ASSERT_EQ(j.at("runs").size(), 2u);
    EXPECT_EQ(j.at("runs")[0].at("ranks"), 4);  // the blockquoted run, every line behind "> "
    EXPECT_EQ(j.at("runs")[1].at("ranks"), 1);
    bool said = false;
    for (const json& line : j.at("summary").at("lines")) {
        const std::string l = line.get<std::string>();
        EXPECT_EQ(l.find("no GPU given"), std::string::npos) << l;
        said |= l.find("run 2: alltoall over 1 ranks: peak busbw 0.0 GB/s at 32 MiB (1 rank: nothing crosses a link)") !=
                std::string::npos;
    }
    EXPECT_TRUE(said) << j.at("summary").dump();
}

// A log that names no GPU (or one the catalog lacks) is read without one: every row re-derived and
// checked, no per-GPU rows, and a note asking for --gpu. (It used to be refused.)
TEST(IngestNccl, ReadWithoutAGpu) {
    TempDir d;
    // 1024 B in 35.39 µs: algbw = 1024 / 35.39e-6 / 1e9 = 0.0289 GB/s (printed 0.03); busbw × 2·7/8 =
    // 0.0506 (printed 0.05), over 8 ranks from the header's nGpus 8.
    write_text(d.file("allreduce_bare.log"),
               "# nThread 1 nGpus 8\n        1024           256     float     sum      -1"
               "    35.39    0.03    0.05      0    33.82    0.03    0.06      0\n");
    const json j = run_json({"ingest", "nccl-tests", d.file("allreduce_bare.log"), "--format", "json"});
    EXPECT_TRUE(j.at("gpus").empty());
    EXPECT_EQ(j.at("sections").at("rows").at("rows")[0].at("matches_log"), "yes");
    bool noted = false;
    for (const json& n : j.at("notes"))
        noted |= n.get<std::string>().find("does not say which GPU") != std::string::npos;
    EXPECT_TRUE(noted) << j.at("notes");
    const json with_gpu =
        run_json({"ingest", "nccl-tests", d.file("allreduce_bare.log"), "--gpu", "h100-sxm", "--format", "json"});
    EXPECT_EQ(with_gpu.at("gpus"), json::parse(R"(["h100-sxm"])"));
}

// Bad input: exit 2, one line on stderr naming the file or option, nothing on stdout.
void expect_bad(const std::vector<std::string>& args, const std::string& names) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find(names), std::string::npos) << report(r);
}

TEST(IngestNccl, BadInput) {
    TempDir d;
    write_text(d.file("empty.log"), "");
    write_text(d.file("blank.log"), "\n  \n");
    write_text(d.file("binary.log"), std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) + std::string(100, '\0'));
    write_text(d.file("table.csv"), "name,time\nk,1\n");
    write_text(d.file("cut.json"), "{\"version\":1,\"results\":[{\"size\":8,");
    write_text(d.file("trace.json"), "{\"traceEvents\":[]}");
    // A valid log whose name, text and rows do not say which collective it is: busbw = algbw (8.00 of 8.00 GB/s)
    // fits a sendrecv on any count and an allreduce on 2 ranks. (Rows with busbw/algbw above 1 name allreduce since
    // logs7: the Bitdeer log without its command line is read, NcclCollectiveFromRows.)
    write_text(d.file("results.txt"),
               "# nThread 1 nGpus 2\n     1048576        262144     float     sum      -1"
               "    131.1    8.00    8.00      0    131.0    8.00    8.00      0\n");
    // No device name and no "# Rank" lines: read without a GPU (IngestNccl.ReadWithoutAGpu below).
    write_text(d.file("allreduce_bare.log"),
               "# nThread 1 nGpus 8\n        1024           256     float     sum      -1"
               "    35.39    0.03    0.05      0    33.82    0.03    0.06      0\n");

    expect_bad({"ingest", "nccl-tests", d.file("missing.log")}, "missing.log");
    expect_bad({"ingest", "nccl-tests", d.path()}, d.path());
    expect_bad({"ingest", "nccl-tests", d.file("empty.log")}, "empty.log");
    expect_bad({"ingest", "nccl-tests", d.file("blank.log")}, "blank.log");
    expect_bad({"ingest", "nccl-tests", d.file("binary.log")}, "binary.log");
    expect_bad({"ingest", "nccl-tests", d.file("table.csv")}, "table.csv");
    expect_bad({"ingest", "nccl-tests", d.file("cut.json")}, "cut.json");
    expect_bad({"ingest", "nccl-tests", d.file("trace.json")}, "trace.json");
    expect_bad({"ingest", "nccl-tests", d.file("results.txt")}, "--op");
    expect_bad({"ingest", "nccl-tests", d.file("results.txt"), "--op", "allsum"}, "--op");
    expect_bad({"ingest", "nccl-tests", kNccl + "nccl_allreduce_h100_1node8gpu_bitdeer.txt", "--gpu", "nosuch"}, "--gpu");
    expect_bad({"ingest", "nccl-tests", kNccl + "nccl_allreduce_h100_1node8gpu_bitdeer.txt", "--ranks", "0"}, "--ranks");
    expect_bad({"ingest", "nccl-tests", kNccl + "nccl_allreduce_h100_1node8gpu_bitdeer.txt", "--top", "-1"}, "--top");
    expect_bad({"ingest", "nccl-tests"}, "file");
    // Clues that disagree: the bitdeer log lists ranks 0..7 and its rows say 8 (1.75), but its command
    // line, edited to run under "mpirun -np 2", makes the header's 8 per process 16.
    std::string conflict = read_text(kNccl + "nccl_allreduce_h100_1node8gpu_bitdeer.txt");
    conflict.replace(conflict.find("./build/all_reduce_perf"), 23, "mpirun -np 2 ./build/all_reduce_perf");
    write_text(d.file("conflict.log"), conflict);
    expect_bad({"ingest", "nccl-tests", d.file("conflict.log")}, "conflict.log");
}

TEST(IngestNccl, GivenGpuAndRanks) {
    TempDir d;
    write_text(d.file("allreduce_bare.log"),
               "        1024           256     float     sum      -1"
               "    35.39    0.03    0.05      0    33.82    0.03    0.05      0\n"
               "        2048           512     float     sum      -1"
               "    35.42    0.06    0.10      0    35.89    0.06    0.10      0\n");
    // 8 ranks given: factor 1.75. 1024 / 35.39 / 1e3 = 0.0289 → 0.03, × 1.75 = 0.0506 → 0.05;
    // 1024 / 33.82 = 0.0303 → 0.03, × 1.75 = 0.0530 → 0.05; 2048 / 35.42 = 0.0578 → 0.06,
    // × 1.75 = 0.1012 → 0.10; 2048 / 35.89 = 0.0571 → 0.06, × 1.75 = 0.0999 → 0.10.
    const json j =
        run_json({"ingest", "nccl-tests", d.file("allreduce_bare.log"), "--gpu", "b200", "--ranks", "8", "--format", "json"});
    EXPECT_EQ(j.at("gpus")[0], "b200");
    for (const json& r : j.at("sections").at("rows").at("rows"))
        EXPECT_EQ(r.at("matches_log"), "yes") << r.dump();
}

}  // namespace

namespace {

// A gather_perf log (NVIDIA/nccl-tests#350, 2 ranks) is read as gather: nccl-tests' GatherGetBw gives busbw =
// algbw x (n-1)/n (134217728 B in 3324.7 us: algbw 134217728 / 3324.7 / 1e3 = 40.37, busbw 40.37 / 2 = 20.19
// for n = 2). Before this session it was refused (gather was no collective bwacct costs).
TEST(IngestNcclLogs3, GatherLogIsReadAsGather) {
    const std::string file =
        std::string(BWACCT_TEST_DATA) +
        "/corpus/nccl-tests/nccl_tests_issue350_gather_a100pcie_2node_linear_step_nccl_debug_trace_interleaved_excerpt.md";
    const json j = run_json({"ingest", "nccl-tests", file, "--format", "json"});
    const json& rows = j.at("sections").at("rows").at("rows");
    ASSERT_EQ(rows.size(), 32u);  // 16 rows x 2 results, every one re-derived
    for (const json& row : rows)
        EXPECT_EQ(row.at("matches_log"), "yes") << row.dump();
    ASSERT_FALSE(j.at("records").empty());
    EXPECT_EQ(j.at("records").at(0).at("op"), "gather") << j.at("records").at(0).dump();
    EXPECT_EQ(j.at("records").at(0).at("bus_factor"), 0.5);  // (2 − 1)/2
}

}  // namespace

// A log whose device name holds a byte that is not UTF-8 (a copy in another encoding): the JSON output stayed
// impossible ("internal error: invalid UTF-8 byte", exit 1, from nccl-tests and BabelStream alike). Every string the
// JSON writers meet is now repaired to U+FFFD, so the report is valid JSON and the rows are read as before.
TEST(IngestNccl, ADeviceNameThatIsNotUtf8StillGivesValidJson) {
    const std::string src =
        read_text(std::string(BWACCT_TEST_DATA) + "/corpus/nccl-tests/together_allgather_h100_8gpu_sharp_collnet_v2179.out");
    const std::size_t at = src.find("NVIDIA H100");
    ASSERT_NE(at, std::string::npos);
    std::string bad = src;
    bad.replace(at, 11,
                "NVIDIA H\xff"
                "100");
    TempDir dir;
    write_text(dir.file("latin1.txt"), bad);
    const RunResult r = run_bwacct({"ingest", "nccl-tests", dir.file("latin1.txt"), "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = parse_json(r.out, "ingest json");
    EXPECT_NE(r.out.find("H\xef\xbf\xbd"
                         "100"),
              std::string::npos);  // U+FFFD where the 0xFF byte was
    write_text(dir.file("utf8.txt"), src);
    const RunResult good = run_bwacct({"ingest", "nccl-tests", dir.file("utf8.txt"), "--format", "json"});
    ASSERT_EQ(good.status, 0) << good.err;
    // The same rows either way (the GPU no longer matches the catalog, so only the rows' own fields compare).
    const json want = parse_json(good.out, "ingest json").at("records");
    ASSERT_EQ(doc.at("records").size(), want.size());
    ASSERT_GT(want.size(), 0u);
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(doc.at("records")[i].at("params"), want[i].at("params"));
        EXPECT_EQ(doc.at("records")[i].at("bytes"), want[i].at("bytes"));
    }
}
