// bwacct ingest nccl-tests, issue 11: launcher tags anywhere in a line (defect 7), the rank count
// from every clue (defect 5), files holding several runs (defect 6), and results whose time is
// printed as 0.00 (defect 9). Each test fails on the parser before the fix.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "ingest_test_util.h"

namespace {

using namespace bwacct;
using bwacct_test::column;
using bwacct_test::fixture;
using bwacct_test::section;

const char* kHeader =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";

std::string rank_line(int r, const char* pid = "9448", const char* host = "h") {
    return fmt::format("#  Rank {:2} Group  0 Pid {} on {} device  {} [0x1b] NVIDIA H100 80GB HBM3\n", r, pid, host, r % 8);
}

IngestReport account(const NcclLog& log, std::optional<CollectiveKind> kind = std::nullopt,
                     std::optional<std::uint64_t> ranks = std::nullopt) {
    static const Catalog catalog = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    NcclAccountingInput in;
    in.kind = kind;
    in.ranks = ranks;
    return account_nccl(log, "t.log", in, {&catalog.get("h100-sxm", "--gpu")});
}

std::string field_text(const IngestRun& run, const std::string& key) {
    for (const auto& [k, v] : run.fields)
        if (k == key)
            return std::holds_alternative<std::string>(v)     ? std::get<std::string>(v)
                   : std::holds_alternative<std::uint64_t>(v) ? std::to_string(std::get<std::uint64_t>(v))
                                                              : "?";
    return "(none)";
}

const Section& section_of(const IngestRun& run) {
    for (const Section& s : run.sections)
        if (s.key == "rows")
            return s;
    throw std::runtime_error("no rows section");
}

// ---- defect 7: launcher tags ------------------------------------------------------------------

TEST(NcclTags, RayPrefixAndTagOutputInsideARow) {
    // The row "1024 256 float sum -1  35.39 0.03 0.05 0  33.82 0.03 0.06 0" with a Ray prefix, the
    // mpirun tag before it and again after the root column and inside the in-place result, where the
    // test flushed. The tags are cut out; the numbers must come back as printed.
    const std::string text = std::string("(head, rank=0, pid=3808) [1,0]<stdout>:# Collective test starting: all_reduce_perf\n") +
                             "(head, rank=0, pid=3808) [1,0]<stdout>:" + rank_line(0) +
                             "(worker1, rank=1, pid=2345, ip=10.0.0.2) [1,1]<stdout>:" + rank_line(1) +
                             "(head, rank=0, pid=3808) [1,0]<stdout>:" + kHeader +
                             "(head, rank=0, pid=3808) [1,0]<stdout>:        1024           256     float     sum      "
                             "-1[1,0]<stdout>:    35.39    0.03    0.05      0    33.82    0.03[1,0]<stdout>:    0.06      0\n"
                             "(worker1, rank=1, pid=2345) [1,1]<stderr>:h:1:1 [1] NCCL WARN peer closed\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 1u);
    const NcclRun& run = log.runs[0];
    EXPECT_EQ(run.program, "all_reduce_perf");
    EXPECT_EQ(run.ranks.size(), 2u);
    EXPECT_EQ(run.device_name, "NVIDIA H100 80GB HBM3");  // "[0x1b]" is not a tag: no stream after it
    ASSERT_EQ(run.rows.size(), 1u);
    EXPECT_EQ(*run.rows[0].root, -1);
    EXPECT_EQ(run.rows[0].out_of_place->time_us.text, "35.39");
    EXPECT_EQ(run.rows[0].in_place->busbw_GBps.text, "0.06");
    EXPECT_TRUE(log.warnings.empty()) << log.warnings.front();
}

TEST(NcclTags, SrunLabelsTimeStampsCrlfAndInfoLines) {
    const std::string text = std::string("2024-05-01T12:00:00.123Z 0: # nThread 1 nGpus 2 minBytes 8\r\n") +
                             "[12:00:01] 0: " + rank_line(0) + "12:00:01.5 1: " + rank_line(1) + "0: " + kHeader +
                             "0: h:1:1 [0] NCCL INFO Channel 00/02 : 0 1\r\n"
                             "2024-05-01 12:00:02 0:         1024           256     float     sum      -1"
                             "    35.39    0.03    0.05      0    33.82    0.03    0.06      0\r\n"
                             "1: h:1:2 [1] NCCL WARN Cuda failure\r\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(*log.runs[0].header_gpus, 2u);
    EXPECT_EQ(log.runs[0].ranks.size(), 2u);
    ASSERT_EQ(log.runs[0].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].rows[0].in_place->wrong, 0.0);  // "0\r" read as 0: CR is not part of the token
    EXPECT_TRUE(log.warnings.empty());
}

TEST(NcclTags, RealLogWithEveryLineTagged) {
    // The 2-node H200 log under Ray and tag-output tags (fixture .src.txt): 32 rows, 16 ranks, as the
    // untagged original.
    const NcclLog log = parse_nccl_tests(fixture("nccl/nccl_allreduce_h200_2node16gpu_ray_midrow_tags_synthetic.txt"), "t");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].rows.size(), 32u);
    EXPECT_EQ(log.runs[0].ranks.size(), 16u);
    EXPECT_EQ(log.runs[0].launcher_processes, 2u);  // "mpirun ... -np 2 ... all_reduce_perf"
    EXPECT_TRUE(log.warnings.empty());
    const IngestReport r = account(log);
    for (const auto& row : section(r, "rows").rows)
        EXPECT_EQ(std::get<std::string>(row[column(section(r, "rows"), "matches_log")]), "yes");
}

// Prefixes no launcher rule names, on every line: a ctime stamp before mpirun's tag (--timestamp-output),
// kubectl logs --prefix, docker compose, torchrun's "[default0]:", a Python logger, glog, PyTorch's
// "[rank0]: ", a containerd CRI log line, a bare pid. nccl-tests' own '#' and a row's "size count type"
// mark where the program's text starts: each reads as the bare log, 1 row, ranks 0 and 1, the footer.
// Before: every one "holds no nccl-tests result row".
TEST(NcclTags, PrefixesNoLauncherRuleKnows) {
    const std::string row =
        "     8388608       2097152     float     sum      -1    84.72   99.01   99.01      0    84.60   99.15   99.15      0\n";
    const std::string bare = std::string("# nThread 1 nGpus 1 minBytes 8 maxBytes 8388608\n") + rank_line(0) + rank_line(1) +
                             kHeader + row + "# Avg bus bandwidth    : 99.08\n";
    for (const std::string prefix :
         {"Mon Mar  4 12:00:00 2024[1,0]<stdout>:", "[pod/nccl-test-launcher-abc12/mpi-launcher] ", "nccl-1  | ",
          "[default0]:", "2024-03-04 12:00:00,123 - INFO - ", "I0304 12:00:00.123456 1234 run.py:10] ",
          "[rank0]: ", "2024-03-04T12:00:00.123Z stdout F ", "1234 "}) {
        std::string text;
        for (std::size_t at = 0; at < bare.size();) {
            const std::size_t nl = bare.find('\n', at);
            text += prefix + bare.substr(at, nl + 1 - at);
            at = nl + 1;
        }
        const NcclLog log = parse_nccl_tests(text, "t.log");
        ASSERT_EQ(log.runs.size(), 1u) << prefix;
        const NcclRun& run = log.runs[0];
        EXPECT_EQ(run.ranks, (std::set<std::uint64_t>{0, 1})) << prefix;
        EXPECT_EQ(run.header_gpus, 1u) << prefix;
        ASSERT_EQ(run.rows.size(), 1u) << prefix;
        EXPECT_EQ(run.rows[0].size, 8388608u) << prefix;
        EXPECT_EQ(run.rows[0].in_place->busbw_GBps.text, "99.15") << prefix;
        EXPECT_EQ(run.avg_busbw_GBps, 99.08) << prefix;
        EXPECT_TRUE(log.warnings.empty()) << prefix << ": " << log.warnings.front();
    }
}

// ---- defect 5: the rank count ----------------------------------------------------------------

// An all-reduce over 64 ranks, factor 2·63/64 = 1.96875. 1073741824 B at 5000.0 µs:
// algbw = 1073741824 / 5000.0 / 1e3 = 214.7484 → 214.75; busbw = 214.7484 × 1.96875 = 422.7858 → 422.79.
// Ratio bounds: (422.79 ∓ 0.005) / (214.75 ± 0.005) = [1.968685, 1.968823] → n = 2/(2 − f) ∈
// [63.87, 64.15]: only 64.
const char* kRow64 =
    "  1073741824     268435456     float     sum      -1   5000.0  214.75  422.79      0   5000.0  214.75  422.79      0\n";

TEST(NcclRanks, ElidedRankListAndALineThatLostItsHash) {
    // Ranks 0, 1, 62, 63 of 64 listed, rank 1's line without its '#' (markdown); header 8 per process.
    std::string r1 = rank_line(1);
    r1.erase(0, 1);
    const std::string text = "# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 8 minBytes 8\n" + rank_line(0) + r1 +
                             "#  ...\n" + rank_line(62, "77") + rank_line(63, "77") + kHeader + kRow64;
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].ranks, (std::set<std::uint64_t>{0, 1, 62, 63}));
    const NcclRanks n = resolve_nccl_ranks(log.runs[0], CollectiveKind::allreduce, std::nullopt, "t.log");
    EXPECT_EQ(n.n, 64u);
    EXPECT_EQ(n.from, "busbw_algbw_ratio");
    EXPECT_EQ(n.highest_rank_plus_one, 64u);
    EXPECT_EQ(n.ratio_min, 64u);
    EXPECT_EQ(n.ratio_max, 64u);
    const IngestReport r = account(log);
    EXPECT_EQ(std::get<std::string>(section(r, "rows").rows[0][column(section(r, "rows"), "matches_log")]), "yes");
    EXPECT_NE(r.notes[1].find("ranks: 64"), std::string::npos) << r.notes[1];
}

TEST(NcclRanks, ElidedRealLog) {
    // The H200 log with ranks 2..13 elided and rank 1's '#' lost (fixture .src.txt): 16, not 3.
    const NcclLog log = parse_nccl_tests(fixture("nccl/nccl_allreduce_h200_2node16gpu_elided_ranks_synthetic.txt"), "t");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].ranks.size(), 4u);
    const NcclRanks n = resolve_nccl_ranks(log.runs[0], CollectiveKind::allreduce, std::nullopt, "t");
    EXPECT_EQ(n.n, 16u);
}

// Small messages only, no rank lines and no header: busbw/algbw printed with two decimals bound n from
// below but do not fix it, so the count is refused (one line naming --ranks), never the smallest guessed.
// 1024 B at 31.25 µs: algbw 0.03, busbw 0.06 → f ∈ [0.055/0.035, 0.065/0.025] = [1.571, 2.6]: n ≥ 1/(1 − 0.786)
// = 4.67 → 5, no upper bound (f may reach 2); 2048 B at 31.5 µs: 0.07/0.12 → f ∈ [0.115/0.075, 0.125/0.065]
// = [1.533, 1.923] → n ∈ [4.3, 26]. Both 6 and 16 fit.
TEST(NcclRanks, ARatioRangeWithoutAnotherClueIsRefusedNotGuessed) {
    const std::string text = std::string(kHeader) +
                             "        1024           256     float     sum      -1    31.25    0.03    0.06      0"
                             "    31.25    0.03    0.06      0\n"
                             "        2048           512     float     sum      -1    31.50    0.07    0.12      0"
                             "    31.50    0.07    0.12      0\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    try {
        resolve_nccl_ranks(log.runs.at(0), CollectiveKind::allreduce, std::nullopt, "t.log");
        FAIL() << "expected a refusal naming --ranks";
    } catch (const bwacct::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--ranks"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("does not fix the rank count"), std::string::npos) << e.what();
    }
    EXPECT_EQ(resolve_nccl_ranks(log.runs.at(0), CollectiveKind::allreduce, 16, "t.log").n, 16u);
}

// Older nccl-tests/rccl-tests print an "error" column (the largest deviation, e.g. 4e-07) where 2.x prints
// #wrong: a positive value there is not a count of corrupted elements.
TEST(NcclRanks, AnOlderErrorColumnIsNotReadAsWrongElements) {
    const std::string text =
        "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
        "#        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
        "  1073741824     268435456     float     sum   5000.0  214.75  402.65  4e-07   5000.0  214.75  402.65  2e-07\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_TRUE(log.runs[0].rows.at(0).in_place.has_value());
    EXPECT_TRUE(log.runs[0].rows[0].in_place->max_error);
    // 1073741824 B / 5000 µs = 214.75 GB/s; × 2·15/16 = 402.65: 16 ranks, fixed by the ratio.
    const IngestReport r = account(log, CollectiveKind::allreduce);
    bool error_note = false;
    for (const std::string& n : section(r, "rows").notes) {
        EXPECT_EQ(n.find("wrong elements (#wrong > 0)"), std::string::npos) << n;
        error_note = error_note || n.find("\"error\" column") != std::string::npos;
    }
    EXPECT_TRUE(error_note);
}

TEST(NcclRanks, NoRankLinesHeaderPerProcessAndTheRatio) {
    // Two rows of the H200 log (16 ranks, factor 1.875) with only the header "nGpus 8" (one process's
    // ranks). 1048576 B: (19.56 ∓ 0.005)/(10.43 ± 0.005) = [1.87398, 1.87674] → n ∈ [15.87, 16.23];
    // 4194304 B: (46.46 ∓ 0.005)/(24.78 ± 0.005) = [1.87438, 1.87551] → n ∈ [15.97, 16.09]. n = 16,
    // a multiple of 8: the header's 8 is one process of two.
    const std::string text = std::string("# nThread 1 nGpus 8 minBytes 8\n") + kHeader +
                             "     1048576        262144     float     sum      -1    100.5   10.43   19.56      0"
                             "    98.94   10.60   19.87      0\n"
                             "     4194304       1048576     float     sum      -1    169.3   24.78   46.46      0"
                             "    166.0   25.27   47.39      0\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    const NcclRanks n = resolve_nccl_ranks(log.runs.at(0), CollectiveKind::allreduce, std::nullopt, "t.log");
    EXPECT_EQ(n.n, 16u);
    EXPECT_EQ(n.from, "busbw_algbw_ratio");
    EXPECT_EQ(n.per_process, 8u);
    // Before: 8 from the header, every busbw flagged NO.
    const IngestReport r = account(log, CollectiveKind::allreduce);
    for (const auto& row : section(r, "rows").rows)
        EXPECT_EQ(std::get<std::string>(row[column(section(r, "rows"), "matches_log")]), "yes");
}

TEST(NcclRanks, ConflictingCluesAreRefused) {
    // Ranks 0..7 listed (complete), the command line says -np 2 with nGpus 8 (16), the rows say 8
    // (1.75 = 2·7/8: 8388608 B at 84.72 µs prints 99.01 / 173.28, the H100 NVLS log's row).
    std::string text = "mpirun -np 2 ./build/all_reduce_perf -b 8 -e 8M -g 8\n# nThread 1 nGpus 8 minBytes 8\n";
    for (int i = 0; i < 8; ++i)
        text += rank_line(i);
    text +=
        std::string(kHeader) +
        "     8388608       2097152     float     sum      -1    84.72   99.01  173.28      0    84.60   99.15  173.52      0\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    try {
        resolve_nccl_ranks(log.runs.at(0), CollectiveKind::allreduce, std::nullopt, "t.log");
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "t.log");
        EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
    }
    // --ranks decides, and says the log disagrees.
    const NcclRanks given = resolve_nccl_ranks(log.runs.at(0), CollectiveKind::allreduce, 8, "t.log");
    EXPECT_EQ(given.n, 8u);
    EXPECT_EQ(given.from, "--ranks");
    ASSERT_FALSE(given.notes.empty());
}

TEST(NcclRanks, IndependentProcessesSharingRankIds) {
    // Two single-process runs (ranks 0..7 each, different pids) writing into one file: 8 ranks, not 16
    // (the H100 NVLS row above: 1.75 = 2·7/8).
    std::string text = "# nThread 1 nGpus 8 minBytes 8\n";
    for (int i = 0; i < 8; ++i)
        text += rank_line(i, "100", "a");
    for (int i = 0; i < 8; ++i)
        text += rank_line(i, "200", "b");
    text +=
        std::string(kHeader) +
        "     8388608       2097152     float     sum      -1    84.72   99.01  173.28      0    84.60   99.15  173.52      0\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    EXPECT_EQ(log.runs.at(0).processes_per_rank_id, 2u);
    const NcclRanks n = resolve_nccl_ranks(log.runs.at(0), CollectiveKind::allreduce, std::nullopt, "t.log");
    EXPECT_EQ(n.n, 8u);
    EXPECT_EQ(n.from, "rank_lines");
}

// NCCL's own init lines (NCCL_DEBUG=INFO) name the communicator's size: "comm 0x… rank R nranks N … Init
// COMPLETE" (aws-samples/aws-efa-eks README, tests/data/corpus/nccl-tests/awsefaeks_*). Small messages alone
// leave n open (above: n ≥ 5, 6 and 16 both fit), the init lines fix it. Lines after a run's footer
// belong to the next run. Before: the init lines were skipped as noise and the count refused.
TEST(NcclRanks, NcclInitLinesFixTheCount) {
    const std::string rows =
        "        1024           256     float     sum      -1    31.25    0.03    0.06      0    31.25    0.03    0.06      0\n"
        "        2048           512     float     sum      -1    31.50    0.07    0.12      0    31.50    0.07    0.12      0\n";
    // Run 2: 2 ranks; 1024 B at 31.25 µs prints algbw 0.03 and busbw 0.03 (factor 2·1/2 = 1):
    // f ∈ [0.025/0.035, 0.035/0.025] = [0.714, 1.4] → n ∈ [1/(1 − 0.357), 1/(1 − 0.7)] = [1.56, 3.33]: 2 fits.
    const std::string run2 =
        "        1024           256     float     sum      -1    31.25    0.03    0.03      0    31.25    0.03    0.03      0\n";
    const std::string text =
        "[1,15]<stdout>:w-1:32:67 [7] NCCL INFO comm 0x7faa64000dc0 rank 15 nranks 16 cudaDev 7 busId a01d0 - Init COMPLETE\n"
        "[1,0]<stdout>:w-0:26:67 [0] NCCL INFO 8 coll channels, 8 p2p channels, 1 p2p channels per peer\n" +
        std::string(kHeader) +
        "[1,1]<stdout>:w-0:27:72 [1] NCCL INFO comm 0x7fece4000dc0 rank 1 nranks 16 cudaDev 1 busId 101d0 - Init COMPLETE\n" +
        rows + "# Avg bus bandwidth    : 0.045\n" +
        "h:1:1 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nRanks 2 cudaDev 0 nvmlDev 0 busId 1b0 commId 0x2 - Init "
        "COMPLETE\n"
        "# nThread 1 nGpus 2\n" +
        kHeader + run2;
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_EQ(log.runs[0].comm_nranks, (std::set<std::uint64_t>{16}));
    EXPECT_EQ(log.runs[1].comm_nranks, (std::set<std::uint64_t>{2}));
    const NcclRanks n = resolve_nccl_ranks(log.runs[0], CollectiveKind::allreduce, std::nullopt, "t.log");
    EXPECT_EQ(n.n, 16u);
    EXPECT_EQ(n.from, "nccl_init");
    EXPECT_NE(n.why.find("nranks 16"), std::string::npos) << n.why;
    const NcclRanks n2 = resolve_nccl_ranks(log.runs[1], CollectiveKind::allreduce, std::nullopt, "t.log");
    EXPECT_EQ(n2.n, 2u);
    EXPECT_EQ(n2.from, "rank_lines" == n2.from ? "" : "nccl_init");

    // Communicators of two sizes in one run: not one count; the rows alone decide (here: refused).
    NcclRun split = log.runs[0];
    split.comm_nranks = {8, 16};
    EXPECT_THROW(resolve_nccl_ranks(split, CollectiveKind::allreduce, std::nullopt, "t.log"), InputError);
    // A size the rows rule out is a disagreement, not a silent choice: 4 ranks give factor 1.5, but
    // 0.06/0.03 needs n ≥ 5.
    NcclRun four = log.runs[0];
    four.comm_nranks = {4};
    try {
        resolve_nccl_ranks(four, CollectiveKind::allreduce, std::nullopt, "t.log");
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("disagree"), std::string::npos) << e.what();
    }
}

// NCCL's teardown lines ("comm … rank 1 nranks 2 … - Destroy COMPLETE", after a run's rows, as the EKS T4
// log in the corpus prints them) name the finished run's communicator: they are no clue for the next run,
// whose own rank lines say 8.
TEST(NcclRanks, DestroyLinesAreNotTheNextRunsInitLines) {
    std::string ranks;
    for (int r = 0; r < 8; ++r)
        ranks += fmt::format("#  Rank  {} Group  0 Pid  1 on host device  {} [0x1b] NVIDIA H100 80GB HBM3\n", r, r);
    const std::string text =
        std::string(kHeader) +
        "        1024           256     float     sum      -1    31.25    0.03    0.03      0    31.25    0.03    0.03      0\n"
        "h:1:1 [0] NCCL INFO comm 0x7f9c0c000f60 rank 1 nranks 2 cudaDev 0 busId f5000 - Destroy COMPLETE\n"
        "h:1:1 [0] NCCL INFO comm 0x7f9c0c000f61 rank 0 nranks 2 cudaDev 0 busId f5000 - Abort COMPLETE\n"
        "# Avg bus bandwidth    : 0.03\n"
        "# nThread 1 nGpus 8\n" +
        ranks + kHeader +
        // 8 ranks: busbw = algbw · 2·7/8 = 1.75·algbw (1.00 → 1.75).
        "     1048576        262144     float     sum      -1    1048.6    1.00    1.75      0    1048.6    1.00    1.75      "
        "0\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_TRUE(log.runs[0].comm_nranks.empty());
    EXPECT_TRUE(log.runs[1].comm_nranks.empty());
    EXPECT_EQ(resolve_nccl_ranks(log.runs[1], CollectiveKind::allreduce, std::nullopt, "t.log").n, 8u);
}

// A paste with only the command line above the rows ("./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8",
// li-plus/playground cuda/nccl.md in the corpus): sendrecv's factor is 1, so busbw/algbw gives no count;
// the test's own -g 8 (× -t 1, its default) is 8 ranks per process, as "# nThread 1 nGpus 8" would be.
// Before: refused, "the log gives no rank count". A header line, when there is one, is read over it.
TEST(NcclRanks, TheCommandLinesGpusPerProcess) {
    const std::string row =
        "   134217728      33554432     float     sum      -1   1211.2  110.81  110.81      0   1211.8  110.76  110.76    N/A\n";
    const NcclLog log = parse_nccl_tests("./build/sendrecv_perf -b 128M -e 1G -f 2 -g 8\n" + std::string(kHeader) + row, "t.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].header_gpus, 8u);
    EXPECT_EQ(log.runs[0].header_threads, 1u);
    EXPECT_TRUE(log.runs[0].per_process_from_command);
    const NcclRanks n = resolve_nccl_ranks(log.runs[0], CollectiveKind::sendrecv, std::nullopt, "t.md");
    EXPECT_EQ(n.n, 8u);
    EXPECT_EQ(n.from, "header");
    EXPECT_NE(n.why.find("the command line's -t 1 × -g 8"), std::string::npos) << n.why;
    EXPECT_NE(n.why.find("one process's ranks only"), std::string::npos) << n.why;

    const NcclLog both = parse_nccl_tests(
        "./build/sendrecv_perf -g 8 -t 2\n# nThread 1 nGpus 4 minBytes 8\n" + std::string(kHeader) + row, "t.md");
    EXPECT_EQ(both.runs.at(0).header_gpus, 4u);
    EXPECT_EQ(both.runs.at(0).header_threads, 1u);
    EXPECT_FALSE(both.runs.at(0).per_process_from_command);
}

// A README that quotes a run's rows and footer, then only the footers of bigger runs
// ("16 nodes:\nAvg bus bandwidth    : 21.1951", aws-samples/aws-do-eks nccl-test README): a footer with no
// row since the last one averages rows that are not in the file. Before: it replaced the run's own
// footer, and the run was said to disagree with it. Mean of the row's two busbw: (173.28 + 173.52)/2 = 173.40.
TEST(NcclRuns, AFooterWithoutRowsIsNotTheRunsFooter) {
    const std::string text = std::string(kHeader) +
                             "     8388608       2097152     float     sum      -1    84.72   99.01  173.28      0"
                             "    84.60   99.15  173.52      0\n"
                             "# Avg bus bandwidth    : 173.40\n\n16 nodes:\nAvg bus bandwidth    : 21.1951\n";
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 1u);
    ASSERT_TRUE(log.runs[0].avg_busbw_GBps.has_value());
    EXPECT_DOUBLE_EQ(*log.runs[0].avg_busbw_GBps, 173.40);
    EXPECT_EQ(log.runs[0].last_line, 3);
    ASSERT_EQ(log.warnings.size(), 1u);
    EXPECT_NE(log.warnings[0].find("line 6: an \"Avg bus bandwidth\" line with no result rows"), std::string::npos)
        << log.warnings[0];
    // Independent runs writing at once (rank 0 listed by two processes, nccl-tests issue 329) each print
    // their own footer after the shared rows: the second is not a missing run's, so no warning.
    const NcclLog twice =
        parse_nccl_tests(rank_line(0, "454", "a") + rank_line(0, "808", "b") + kHeader +
                             "     4194304       1048576     float     sum      -1    84.15   49.85    0.00      0"
                             "     0.28  15033.35    0.00      0\n"
                             "# Avg bus bandwidth    : 0\n# Avg bus bandwidth    : 0\n",
                         "t.log");
    EXPECT_EQ(twice.runs.at(0).processes_per_rank_id, 2u);
    EXPECT_TRUE(twice.warnings.empty()) << twice.warnings.front();

    const IngestReport r = account(log, CollectiveKind::allreduce);
    bool matches = false;
    for (const std::string& note : section(r, "peak").notes)
        matches = matches || note.find("Avg bus bandwidth 173.4 GB/s matches") != std::string::npos;
    EXPECT_TRUE(matches);
}

// A paste cut in the middle of a row's first column ("   1", nccl issue 1435): the run's rows stop there
// with a warning, never silently. The same stub before any row (a numbered list) is not a row.
TEST(NcclRuns, ARowCutToItsFirstNumbersIsWarned) {
    const std::string row =
        "    16777216       4194304  bfloat16    none      -1    108.8  154.20   77.10      0    98.19  170.86   85.43      0\n";
    const NcclLog log = parse_nccl_tests("1\n" + std::string(kHeader) + row + "   1\n", "t.md");
    ASSERT_EQ(log.runs.size(), 1u);
    EXPECT_EQ(log.runs[0].rows.size(), 1u);
    ASSERT_EQ(log.warnings.size(), 1u);
    EXPECT_NE(log.warnings[0].find("line 4: row cut short (1 of 13 columns"), std::string::npos) << log.warnings[0];
}

// The only row cut short (nccl-tests issue 249: the paste stops at "8 2 float sum"): the refusal says why.
TEST(NcclRuns, ARefusalSaysWhyTheOnlyRowWasNotRead) {
    try {
        parse_nccl_tests(std::string(kHeader) + "           8             2     float     sum\n", "t.md");
        FAIL() << "no throw";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(e.option(), "t.md");
        EXPECT_NE(what.find("1 line looks like an nccl-tests row but could not be read"), std::string::npos) << what;
        EXPECT_NE(what.find("row cut short (4 of the header's 13 columns"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

// ---- defect 6: several runs in one file ------------------------------------------------------

TEST(NcclRuns, ReadmePasteOfThreeRuns) {
    // all_reduce (8 ranks, 4 rows), alltoall (8 ranks, 34 rows, 5 of size 0), reduce on 1 GPU (5 rows).
    const NcclLog log = parse_nccl_tests(fixture("nccl/nccl_multirun_readme_paste_synthetic.txt"), "t.md");
    ASSERT_EQ(log.runs.size(), 3u);
    EXPECT_EQ(log.runs[0].program, "all_reduce_perf");
    EXPECT_EQ(log.runs[1].program, "alltoall_perf");  // from its command line: the log names no test
    EXPECT_EQ(log.runs[2].program, "reduce_perf");
    EXPECT_EQ(log.runs[0].rows.size(), 4u);
    EXPECT_EQ(log.runs[1].rows.size(), 34u);
    EXPECT_EQ(log.runs[2].rows.size(), 5u);
    EXPECT_EQ(log.runs[2].ranks.size(), 1u);

    const IngestReport r = account(log);
    ASSERT_EQ(r.runs.size(), 3u);
    EXPECT_TRUE(r.sections.empty());  // never one merged analysis
    EXPECT_EQ(field_text(r.runs[0], "collective"), "allreduce");
    EXPECT_EQ(field_text(r.runs[1], "collective"), "alltoall");
    EXPECT_EQ(field_text(r.runs[2], "collective"), "reduce");
    EXPECT_EQ(field_text(r.runs[0], "ranks"), "8");
    EXPECT_EQ(field_text(r.runs[1], "ranks"), "8");
    EXPECT_EQ(field_text(r.runs[2], "ranks"), "1");
    // Records: 4 × 2 = 8, then (34 − 5 rows of size 0) × 2 = 58, then none for one rank.
    EXPECT_EQ(r.runs[0].records_end - r.runs[0].records_begin, 8u);
    EXPECT_EQ(r.runs[1].records_end - r.runs[1].records_begin, 58u);
    EXPECT_EQ(r.runs[2].records_end - r.runs[2].records_begin, 0u);
    EXPECT_EQ(r.records.size(), 66u);
    for (const IngestRun& run : r.runs)
        for (const auto& row : section_of(run).rows)
            EXPECT_EQ(std::get<std::string>(row[column(section_of(run), "matches_log")]), "yes") << run.title;
}

TEST(NcclRuns, SplitAtEachMarker) {
    // Rows after "# Avg bus bandwidth", a second "# nThread" block, a repeated column header: three
    // runs; rows with no marker between them stay one run.
    const std::string row8 =
        "           8             2     float     sum      -1    35.39    0.00    0.00      0    33.82    0.00    0.00      0\n";
    const std::string text = std::string("# nThread 1 nGpus 8\n") + kHeader + row8 + row8 + "# Avg bus bandwidth    : 0\n" +
                             row8 + "# nThread 1 nGpus 4\n" + row8 + kHeader + row8;
    const NcclLog log = parse_nccl_tests(text, "t.log");
    ASSERT_EQ(log.runs.size(), 4u);
    EXPECT_EQ(log.runs[0].rows.size(), 2u);
    EXPECT_EQ(log.runs[1].rows.size(), 1u);
    EXPECT_EQ(log.runs[2].rows.size(), 1u);
    EXPECT_EQ(*log.runs[2].header_gpus, 4u);
    EXPECT_EQ(log.runs[3].rows.size(), 1u);
    EXPECT_EQ(log.runs[0].first_line, 1);
    EXPECT_EQ(log.runs[0].last_line, 5);
}

// A grep of several logs ("egrep 'node|4294967296|8589934592' result.log", hisohara/ai-scripts rccl README in
// tests/data/corpus/nccl-tests/hisohara_*): the same sweep again with no header between is another run. Each
// keeps its own rank count from its rows: 316.88/181.07 → f ∈ [316.875/181.075, 316.885/181.065] =
// [1.74997, 1.75012] → n = 1/(1 − f/2) ∈ [7.999, 8.004] = 8; 347.23/185.19 → [1.874916, 1.875070] →
// n ∈ [15.989, 16.009] = 16. Before: one run whose ratios fit no count, refused as "no busbw/algbw ratio".
TEST(NcclRuns, ASweepThatStartsAgainIsAnotherRun) {
    const std::string text =
        "mpirun -np 8 -x NCCL_ALGO=Ring ./build/all_reduce_perf -b 8 -e 16G -f 2 -g 1\n"
        "====== 1-node ======\n"
        "  4294967296    1073741824     float     sum      -1    23719  181.07  316.88      0    23774  180.66  316.16      0\n"
        "  8589934592    2147483648     float     sum      -1    47217  181.93  318.37      0    47268  181.73  318.03      0\n"
        "====== 2-node ======\n"
        "  4294967296    1073741824     float     sum      -1    23192  185.19  347.23      0    23209  185.06  346.99      0\n"
        "  8589934592    2147483648     float     sum      -1    46123  186.24  349.20      0    46145  186.15  349.03      0\n";
    const NcclLog log = parse_nccl_tests(text, "t.md");
    ASSERT_EQ(log.runs.size(), 2u);
    EXPECT_EQ(log.runs[1].program, "all_reduce_perf");  // the same test again
    EXPECT_EQ(resolve_nccl_ranks(log.runs[0], CollectiveKind::allreduce, std::nullopt, "t.md").n, 8u);
    EXPECT_EQ(resolve_nccl_ranks(log.runs[1], CollectiveKind::allreduce, std::nullopt, "t.md").n, 16u);
    ASSERT_EQ(log.warnings.size(), 1u);
    EXPECT_NE(log.warnings[0].find("line 6: the sizes start again (4294967296 B after 8589934592 B)"), std::string::npos)
        << log.warnings[0];

    // Merged into one run, those rows fit no count: the refusal says so and names the file.
    NcclRun merged = log.runs[1];  // the rows alone (run 1 also has the command line's -np 8 × -g 1)
    merged.rows.insert(merged.rows.begin(), log.runs[0].rows.begin(), log.runs[0].rows.end());
    try {
        resolve_nccl_ranks(merged, CollectiveKind::allreduce, std::nullopt, "t.md");
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "t.md");
        EXPECT_NE(std::string(e.what()).find("fit no one rank count for allreduce"), std::string::npos) << e.what();
    }

    // One run's sweep repeats only under -N (each cycle after "# Testing N cycle."), with another redop
    // (-o all), and in size-0 rows (small counts rounded down): none of these is another run.
    const std::string a =
        "        1024           256     float     sum      -1    31.25    0.03    0.06      0    31.25    0.03    0.06      0\n";
    const std::string b =
        "        2048           512     float     sum      -1    31.50    0.07    0.12      0    31.50    0.07    0.12      0\n";
    const std::string a_prod =
        "        1024           256     float    prod      -1    31.25    0.03    0.06      0    31.25    0.03    0.06      0\n";
    const std::string zero =
        "           0             0     float     sum      -1     0.10    0.00    0.00      0     0.10    0.00    0.00      0\n";
    const NcclLog cycles =
        parse_nccl_tests(std::string(kHeader) + "# Testing 1 cycle.\n" + a + b + "# Testing 2 cycle.\n" + a + b, "t.log");
    EXPECT_EQ(cycles.runs.size(), 1u);
    EXPECT_EQ(parse_nccl_tests(std::string(kHeader) + a + b + a_prod, "t.log").runs.size(), 1u);
    EXPECT_EQ(parse_nccl_tests(std::string(kHeader) + zero + zero + a, "t.log").runs.size(), 1u);
}

TEST(NcclRuns, ATestBwacctDoesNotCostIsNotReadAsTheFileName) {
    // "hypercube_perf" names no collective bwacct costs: the file name (allreduce) must not stand in.
    const std::string text = std::string("# Collective test starting: hypercube_perf\n") + rank_line(0) + rank_line(1) + kHeader +
                             "        1024           256     float    none       0    35.39    0.03    0.03      0"
                             "    33.82    0.03    0.03      0\n";
    const NcclLog log = parse_nccl_tests(text, "allreduce.log");
    NcclAccountingInput in;
    in.file_kind = CollectiveKind::allreduce;
    try {
        account_nccl(log, "allreduce.log", in, {});
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--op");
        // The refusal says why (nccl-tests' hypercube.cu: algbw = count·typesize·(n−1)/time, count = size/n).
        EXPECT_NE(std::string(e.what()).find("algbw = busbw = size·(n−1)/n / time"), std::string::npos) << e.what();
    }
}

// ---- defect 9: a time printed as 0.00 ----------------------------------------------------------

TEST(NcclTimeZero, NotReDerivedAndSaidSo) {
    // The H200 log with the 8 B out-of-place time set to 0.00 (fixture .src.txt): [0 − 0.005, 0.005)
    // holds 0, so 8 B / t has no finite value. Before: re-derived as inf and "yes".
    const NcclLog log = parse_nccl_tests(fixture("nccl/nccl_allreduce_h200_2node16gpu_time_zero_synthetic.txt"), "t");
    const IngestReport r = account(log);
    const Section& rows = section(r, "rows");
    const auto& first = rows.rows.at(0);  // 8 B out-of-place
    EXPECT_EQ(std::get<std::string>(first[column(rows, "matches_log")]), "not re-derivable");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(first[column(rows, "algbw_rederived_GBps")]));
    EXPECT_TRUE(std::holds_alternative<std::monostate>(first[column(rows, "busbw_rederived_GBps")]));
    std::size_t yes = 0;
    for (const auto& row : rows.rows)
        yes += std::get<std::string>(row[column(rows, "matches_log")]) == "yes";
    EXPECT_EQ(yes, 63u);  // 32 rows × 2 − 1
    EXPECT_EQ(r.records.size(), 63u);
    bool noted = false;
    for (const std::string& n : rows.notes)
        noted = noted || n.find("not re-derivable") != std::string::npos;
    EXPECT_TRUE(noted);
}

}  // namespace
