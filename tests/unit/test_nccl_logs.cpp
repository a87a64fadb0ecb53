// Acceptance check: every row of the real nccl-tests logs in tests/data/nccl/ (copied verbatim from
// ../shared/data/external/, each with its .src.txt provenance note), re-derived from its size and
// time with the collective formulas, matches the log's algbw and busbw to its printed precision:
//
//   algbw = size / time / 1e3            (B / µs / 1e3 = GB/s)
//   busbw = algbw · bus_factor(kind, n)  (allreduce 2(n−1)/n; allgather, reducescatter (n−1)/n)
//
// nccl-tests computes both from the unrounded time and prints the time rounded, so a printed time t
// with d decimals stands for [t − h, t + h), h = ½·10^−d. The true algbw then lies in
// [size/(t+h)/1e3, size/(t−h)/1e3]; the printed algbw (2 decimals) must lie in that interval widened
// by its own rounding, 0.005. busbw: the same interval scaled by the factor, widened by 0.005.
// Rows of size 0 must print 0.00 for both.
//
// The rows come from the product's parser (parse_nccl_tests); the interval check below is the
// test's own, independent of the product's re-derivation (src/analysis/nccl_accounting.cpp).
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "bwacct/ingest_nccl.h"
#include "bwacct/ops.h"

namespace {

using bwacct::bus_factor;
using bwacct::CollectiveKind;

const std::string kNcclDir = std::string(BWACCT_TEST_DATA) + "/nccl/";

// ---- The product's parser (src/ingest/nccl_tests_text.cpp), seen through the test's types ----

// A number as the log printed it: its value and how many decimals it was printed with.
struct Printed {
    std::string text;
    double value = 0;
    int decimals = 0;
};

// One out-of-place or in-place triple.
struct Measurement {
    Printed time, algbw, busbw;  // µs, GB/s, GB/s
};

struct Row {
    std::uint64_t size = 0;  // B, nccl-tests' "size"
    int line = 0;            // 1-based line number in the log
    Measurement out_of_place, in_place;
};

struct Log {
    std::set<std::uint64_t> ranks;    // distinct ranks of the "#  Rank  N ..." lines
    std::vector<Row> rows;            // data rows, in file order
    std::vector<std::string> errors;  // parser warnings (lines that looked like rows but were not read)
};

Printed printed(const bwacct::PrintedNumber& p) { return {p.text, p.value, p.decimals}; }
Measurement measurement(const std::optional<bwacct::NcclResult>& r) {
    if (!r)
        return {};
    return {printed(r->time_us), printed(r->algbw_GBps), printed(r->busbw_GBps)};
}

Log read_log_text(const std::string& text) {
    Log log;
    const bwacct::NcclLog file = bwacct::parse_nccl_tests(text, "test.log");
    EXPECT_EQ(file.runs.size(), 1u);
    const bwacct::NcclRun& parsed = file.runs.front();
    log.ranks = parsed.ranks;
    log.errors = file.warnings;
    for (const bwacct::NcclRow& r : parsed.rows)
        log.rows.push_back({r.size, r.line, measurement(r.out_of_place), measurement(r.in_place)});
    return log;
}

Log read_log_file(const std::string& name) {
    std::ifstream in(kNcclDir + name, std::ios::binary);
    if (!in) {
        Log log;
        log.errors.push_back("cannot open " + kNcclDir + name);
        return log;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return read_log_text(ss.str());
}

// all_reduce / allreduce → allreduce, allgather → allgather, reducescatter → reducescatter.
CollectiveKind kind_from_name(std::string_view name) {
    if (name.find("all_reduce") != std::string_view::npos || name.find("allreduce") != std::string_view::npos)
        return CollectiveKind::allreduce;
    if (name.find("allgather") != std::string_view::npos || name.find("all_gather") != std::string_view::npos)
        return CollectiveKind::allgather;
    if (name.find("reducescatter") != std::string_view::npos || name.find("reduce_scatter") != std::string_view::npos)
        return CollectiveKind::reducescatter;
    ADD_FAILURE() << "no collective in file name " << name;
    return CollectiveKind::allreduce;
}

// ---- The check --------------------------------------------------------------------------------

struct Interval {
    double lo = 0, hi = 0;
};

double half_ulp(const Printed& p) { return 0.5 * std::pow(10.0, -p.decimals); }

// The GB/s interval the true algbw lies in, given the size and the printed (rounded) time.
Interval true_algbw(std::uint64_t size, const Printed& time) {
    const double s = static_cast<double>(size);
    const double h = half_ulp(time);
    return {s / (time.value + h) / 1e3, s / (time.value - h) / 1e3};
}

// Inside [lo, hi] widened by the printed number's own rounding (and a hair for double arithmetic).
bool printed_within(const Printed& p, Interval iv) {
    const double w = half_ulp(p) + 1e-9;
    return p.value >= iv.lo - w && p.value <= iv.hi + w;
}

// The triples (out-of-place or in-place) that do not match; empty when every row matches.
std::vector<std::string> mismatches(const Log& log, CollectiveKind kind, std::uint64_t ranks) {
    const double f = bus_factor(kind, ranks);
    std::vector<std::string> bad;
    for (const Row& r : log.rows) {
        const std::pair<const char*, const Measurement*> triples[] = {{"out-of-place", &r.out_of_place},
                                                                      {"in-place", &r.in_place}};
        for (const auto& [where, mp] : triples) {
            const Measurement& m = *mp;
            bool ok = false;
            std::string why;
            if (r.size == 0) {
                ok = m.algbw.text == "0.00" && m.busbw.text == "0.00";
                why = "size 0 must print 0.00";
            } else if (m.time.value - half_ulp(m.time) <= 0) {
                why = "time is not positive";
            } else {
                const Interval a = true_algbw(r.size, m.time);
                const Interval b{a.lo * f, a.hi * f};
                ok = printed_within(m.algbw, a) && printed_within(m.busbw, b);
                std::ostringstream ss;
                ss << "algbw in [" << a.lo << ", " << a.hi << "], busbw in [" << b.lo << ", " << b.hi << "]";
                why = ss.str();
            }
            if (!ok)
                bad.push_back("line " + std::to_string(r.line) + " size " + std::to_string(r.size) + " " + where + ": time " +
                              m.time.text + " algbw " + m.algbw.text + " busbw " + m.busbw.text + " — " + why);
        }
    }
    return bad;
}

const Row* find_row(const Log& log, std::uint64_t size) {
    for (const Row& r : log.rows)
        if (r.size == size)
            return &r;
    return nullptr;
}

// ---- The logs ---------------------------------------------------------------------------------

struct LogCase {
    const char* file;
    CollectiveKind kind;
    std::uint64_t ranks;  // from the "#  Rank N" lines, counted by hand
    std::size_t rows;     // data rows, counted by hand
};

std::ostream& operator<<(std::ostream& os, const LogCase& c) { return os << c.file; }

const LogCase kLogs[] = {
    // nccl-tests 2.17.9, 8 B .. 8 GiB ×2: 2^3 .. 2^33 = 31 rows.
    {"nccl_all_reduce_h100_1node8gpu_nvls_together.txt", CollectiveKind::allreduce, 8, 31},
    // Old all_gather layout: five rows of size 0, then 32 B .. 8 GiB = 2^5 .. 2^33 (29) = 34 rows.
    {"nccl_allgather_a100sxm4_40gb_8gpu_superbench.txt", CollectiveKind::allgather, 8, 34},
    // Old all_reduce layout: two rows of size 0, then 4 B .. 8 GiB = 2^2 .. 2^33 (32) = 34 rows.
    {"nccl_allreduce_a100sxm4_40gb_8gpu_superbench.txt", CollectiveKind::allreduce, 8, 34},
    // Markdown-indented: 256 MiB .. 2 GiB = 4 rows.
    {"nccl_allreduce_h100_1node8gpu_bitdeer.txt", CollectiveKind::allreduce, 8, 4},
    // Two processes × 8 GPUs: the header says "nGpus 8" but the Rank lines list 16 ranks.
    // 8 B .. 16 GiB = 2^3 .. 2^34 = 32 rows.
    {"nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt", CollectiveKind::allreduce, 16, 32},
    // Old reduce_scatter layout: five rows of size 0, then 2^5 .. 2^33 (29) = 34 rows.
    {"nccl_reducescatter_a100sxm4_40gb_8gpu_superbench.txt", CollectiveKind::reducescatter, 8, 34},
};

class NcclLog : public ::testing::TestWithParam<LogCase> {};

TEST_P(NcclLog, ProvenanceNoteTravelsWithTheLog) {
    std::ifstream in(kNcclDir + GetParam().file + std::string(".src.txt"));
    ASSERT_TRUE(in) << GetParam().file << " has no .src.txt provenance note";
    std::string first;
    std::getline(in, first);
    EXPECT_EQ(first.rfind("Source: ", 0), 0u) << first;
}

TEST_P(NcclLog, ReadsEveryRowAndRank) {
    const LogCase& c = GetParam();
    const Log log = read_log_file(c.file);
    EXPECT_TRUE(log.errors.empty()) << ::testing::PrintToString(log.errors);
    EXPECT_EQ(log.rows.size(), c.rows);
    EXPECT_EQ(log.ranks.size(), c.ranks);
    ASSERT_FALSE(log.ranks.empty());
    EXPECT_EQ(*log.ranks.begin(), 0u);
    EXPECT_EQ(*log.ranks.rbegin(), c.ranks - 1);  // 0 .. n−1, none missing
    EXPECT_EQ(kind_from_name(c.file), c.kind);
    for (const Row& r : log.rows)
        for (const Measurement* m : {&r.out_of_place, &r.in_place}) {
            EXPECT_EQ(m->algbw.decimals, 2) << "line " << r.line;
            EXPECT_EQ(m->busbw.decimals, 2) << "line " << r.line;
        }
}

TEST_P(NcclLog, EveryRowMatchesToPrintedPrecision) {
    const LogCase& c = GetParam();
    const Log log = read_log_file(c.file);
    ASSERT_EQ(log.rows.size(), c.rows);
    ASSERT_EQ(log.ranks.size(), c.ranks);
    const auto bad = mismatches(log, kind_from_name(c.file), log.ranks.size());
    EXPECT_TRUE(bad.empty()) << bad.size() << " of " << 2 * log.rows.size() << " triples do not match:\n"
                             << ::testing::PrintToString(bad);
}

// Test names from the file names: "nccl_allgather_..._superbench".
std::string log_case_name(const ::testing::TestParamInfo<LogCase>& param_info) {
    std::string name = param_info.param.file;
    name = name.substr(0, name.find(".txt"));
    for (char& ch : name)
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
            ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Logs, NcclLog, ::testing::ValuesIn(kLogs), log_case_name);

// ---- One row per file, worked by hand ------------------------------------------------------------
// Each row is one where rounding the unrounded quotient size/time naively would NOT reproduce the
// printed value, so the time's rounding interval is what makes it match.

void expect_worked_row(const std::string& file, std::uint64_t size, bool in_place, const char* time, const char* algbw,
                       const char* busbw, Interval alg, Interval bus) {
    SCOPED_TRACE(file + " size " + std::to_string(size));
    const Log log = read_log_file(file);
    const Row* r = find_row(log, size);
    ASSERT_NE(r, nullptr);
    const Measurement& m = in_place ? r->in_place : r->out_of_place;
    EXPECT_EQ(m.time.text, time);
    EXPECT_EQ(m.algbw.text, algbw);
    EXPECT_EQ(m.busbw.text, busbw);
    const Interval a = true_algbw(size, m.time);
    const double f = bus_factor(kind_from_name(file), log.ranks.size());
    EXPECT_NEAR(a.lo, alg.lo, 1e-4);
    EXPECT_NEAR(a.hi, alg.hi, 1e-4);
    EXPECT_NEAR(a.lo * f, bus.lo, 1e-4);
    EXPECT_NEAR(a.hi * f, bus.hi, 1e-4);
    EXPECT_TRUE(printed_within(m.algbw, a));
    EXPECT_TRUE(printed_within(m.busbw, {a.lo * f, a.hi * f}));
}

TEST(NcclLogWorked, OneRowPerFile) {
    // H100 NVLS, allreduce, n = 8, factor 2·7/8 = 1.75. Out-of-place 8388608 B at 84.72 µs:
    // 8388608 / 84.72 / 1e3 = 99.0157 GB/s would print 99.02; printed 99.01 is inside
    // [99.0098, 99.0215] ± 0.005 because the time 84.72 stands for [84.715, 84.725).
    // busbw: 99.0157 × 1.75 = 173.2774; printed 173.28 is inside [173.2672, 173.2877] ± 0.005.
    expect_worked_row("nccl_all_reduce_h100_1node8gpu_nvls_together.txt", 8388608, false, "84.72", "99.01", "173.28",
                      {99.0098, 99.0215}, {173.2672, 173.2877});

    // A100 allgather (old layout), n = 8, factor 7/8 = 0.875. Out-of-place 4194304 B at 100.7 µs:
    // 4194304 / 100.7 / 1e3 = 41.6515 GB/s would print 41.65; printed 41.64 is inside
    // [41.6308, 41.6722] ± 0.005 because the time 100.7 stands for [100.65, 100.75).
    // busbw: 41.6515 × 0.875 = 36.4450; printed 36.43 is inside [36.4270, 36.4631] ± 0.005.
    expect_worked_row("nccl_allgather_a100sxm4_40gb_8gpu_superbench.txt", 4194304, false, "100.7", "41.64", "36.43",
                      {41.6308, 41.6722}, {36.4270, 36.4631});

    // A100 allreduce (old layout), n = 8, factor 1.75. Out-of-place 4194304 B at 112.0 µs:
    // 4194304 / 112.0 / 1e3 = 37.4491 GB/s would print 37.45; printed 37.44 is inside
    // [37.4324, 37.4659] ± 0.005 because the time 112.0 stands for [111.95, 112.05).
    // busbw: 37.4491 × 1.75 = 65.5360 would print 65.54; printed 65.52 is inside [65.5068, 65.5653] ± 0.005.
    expect_worked_row("nccl_allreduce_a100sxm4_40gb_8gpu_superbench.txt", 4194304, false, "112.0", "37.44", "65.52",
                      {37.4324, 37.4659}, {65.5068, 65.5653});

    // H100 allreduce (markdown-indented), n = 8, factor 1.75. Out-of-place 268435456 B at 1119.8 µs:
    // 268435456 / 1119.8 / 1e3 = 239.7173 GB/s would print 239.72; printed 239.71 is inside
    // [239.7066, 239.7280] ± 0.005 because the time 1119.8 stands for [1119.75, 1119.85).
    // busbw: 239.7173 × 1.75 = 419.5053 would print 419.51; printed 419.49 is inside [419.4866, 419.5240] ± 0.005.
    expect_worked_row("nccl_allreduce_h100_1node8gpu_bitdeer.txt", 268435456, false, "1119.8", "239.71", "419.49",
                      {239.7066, 239.7280}, {419.4866, 419.5240});

    // H200 2 nodes, allreduce, n = 16 (not nGpus 8), factor 2·15/16 = 1.875. Out-of-place 4194304 B at
    // 169.3 µs: 4194304 / 169.3 / 1e3 = 24.7744 GB/s would print 24.77; printed 24.78 is inside
    // [24.7671, 24.7817] ± 0.005 because the time 169.3 stands for [169.25, 169.35).
    // busbw: 24.7744 × 1.875 = 46.4520; printed 46.46 is inside [46.4383, 46.4657] ± 0.005.
    // (With n = 8 the factor would be 1.75 and busbw ≈ 43.36, nowhere near 46.46.)
    expect_worked_row("nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt", 4194304, false, "169.3", "24.78", "46.46",
                      {24.7671, 24.7817}, {46.4383, 46.4657});

    // A100 reducescatter (old layout), n = 8, factor 0.875. Out-of-place 16777216 B at 152.4 µs:
    // 16777216 / 152.4 / 1e3 = 110.0867 GB/s would print 110.09; printed 110.11 is inside
    // [110.0506, 110.1228] ± 0.005 because the time 152.4 stands for [152.35, 152.45).
    // busbw: 110.0867 × 0.875 = 96.3259 would print 96.33; printed 96.34 is inside [96.2943, 96.3575] ± 0.005.
    expect_worked_row("nccl_reducescatter_a100sxm4_40gb_8gpu_superbench.txt", 16777216, false, "152.4", "110.11", "96.34",
                      {110.0506, 110.1228}, {96.2943, 96.3575});
}

// ---- The check can fail -------------------------------------------------------------------------

// Counts the triples flagged, and checks that every triple of at least min_size is among them.
std::size_t flagged(const Log& log, CollectiveKind kind, std::uint64_t ranks, std::uint64_t min_size) {
    const auto bad = mismatches(log, kind, ranks);
    std::size_t big = 0;
    for (const Row& r : log.rows)
        if (r.size >= min_size)
            big += 2;
    std::size_t big_bad = 0;
    for (const std::string& b : bad) {
        const std::size_t at = b.find(" size ") + 6;
        if (std::stoull(b.substr(at)) >= min_size)
            ++big_bad;
    }
    EXPECT_EQ(big_bad, big) << "every triple of size >= " << min_size << " must be flagged";
    return bad.size();
}

TEST(NcclLogCheck, AllgatherLogWithTheAllreduceFactorFails) {
    const Log log = read_log_file("nccl_allgather_a100sxm4_40gb_8gpu_superbench.txt");
    ASSERT_EQ(log.rows.size(), 34u);
    // 2·7/8 = 1.75 instead of 7/8: busbw comes out twice the printed one. Only the 16 triples whose
    // busbw rounds to the same 2 decimals either way still pass (the 10 of size 0, and 32, 64 and
    // 256 B), so 68 − 16 = 52 are flagged, every one from 512 B up.
    EXPECT_EQ(flagged(log, CollectiveKind::allreduce, 8, 512), 52u);
    EXPECT_TRUE(mismatches(log, CollectiveKind::allgather, 8).empty());
}

TEST(NcclLogCheck, TwoNodeLogWithTheNGpusRankCountFails) {
    const Log log = read_log_file("nccl_allreduce_h200_2node16gpu_tcp_schmaustech.txt");
    ASSERT_EQ(log.ranks.size(), 16u);
    // n = 8 (the "nGpus 8" header) gives 1.75 instead of 1.875: 48 of the 64 triples are flagged,
    // every one from 4096 B up.
    EXPECT_EQ(flagged(log, CollectiveKind::allreduce, 8, 4096), 48u);
    EXPECT_TRUE(mismatches(log, CollectiveKind::allreduce, 16).empty());
}

TEST(NcclLogCheck, OneWrongDigitIsCaught) {
    // The allgather worked row (intervals [41.6308, 41.6722] and [36.4270, 36.4631], each ± 0.005).
    const char* header =
        "#   Rank  0 Pid 1 on h device 0 [0x00] A100\n#   Rank  1 Pid 1 on h device 1 [0x00] A100\n"
        "#   Rank  2 Pid 1 on h device 2 [0x00] A100\n#   Rank  3 Pid 1 on h device 3 [0x00] A100\n"
        "#   Rank  4 Pid 1 on h device 4 [0x00] A100\n#   Rank  5 Pid 1 on h device 5 [0x00] A100\n"
        "#   Rank  6 Pid 1 on h device 6 [0x00] A100\n#   Rank  7 Pid 1 on h device 7 [0x00] A100\n";
    const auto check = [&](const std::string& row) {
        const Log log = read_log_text(std::string(header) + row + "\n");
        EXPECT_EQ(log.ranks.size(), 8u);
        EXPECT_EQ(log.rows.size(), 1u) << row;
        return mismatches(log, CollectiveKind::allgather, log.ranks.size()).size();
    };
    // The row as the log prints it, then with one number changed.
    const std::string row = "     4194304        131072   float    100.7   41.64   36.43    N/A    99.56   42.13   36.86    N/A";
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string changed = row;
        changed.replace(changed.find(from), from.size(), to);
        return changed;
    };
    EXPECT_EQ(check(row), 0u);
    EXPECT_EQ(check(with("41.64", "41.62")), 1u);  // algbw below 41.6308 − 0.005
    EXPECT_EQ(check(with("41.64", "41.68")), 1u);  // algbw above 41.6722 + 0.005
    EXPECT_EQ(check(with("36.43", "36.47")), 1u);  // busbw above 36.4631 + 0.005
    EXPECT_EQ(check(with("100.7", "100.9")), 1u);  // time: algbw would be in [41.5483, 41.5895]
    EXPECT_EQ(check(with("36.86", "36.88")), 1u);  // the in-place triple is checked too
    // Size 0 must print 0.00.
    EXPECT_EQ(check("           0             0   float    34.27    0.01    0.00    N/A"
                    "    33.57    0.00    0.00    N/A"),
              1u);
}

// ---- The reader on the layouts and decorations the logs use --------------------------------------

TEST(NcclLogReader, LayoutsPrefixesAndNoise) {
    const Log log = read_log_text(
        "[1,0]<stdout>:#  Rank  0 Group  0 Pid 1 on a device  0 [0x1b] NVIDIA H200\n"
        "[1,1]<stdout>:#  Rank  1 Group  0 Pid 2 on b device  0 [0x1b] NVIDIA H200\n"
        "[1,1]<stdout>:#  Rank  1 Group  0 Pid 2 on b device  0 [0x1b] NVIDIA H200\n"  // repeated: counted once
        "    ./build/all_reduce_perf -b 256M -e 2G -f 2 -g 8\n"
        "    ```\n"
        "NCCL version 2.27.3+cuda12.9\n"
        "3442:3442 [0] NCCL INFO Launch mode Parallel\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "[1,0]<stdout>:        1024           256     float     sum      -1"
        "    35.39    0.03    0.05      0    33.82    0.03    0.06      0\r\n"
        "    2048           512   float     sum    35.42    0.06    0.10    N/A    35.89    0.06    0.10    N/A\n"
        "\t   4096           128   float    34.62    0.12    0.10    N/A    34.81    0.12    0.10    N/A\n"
        "        8192          2048     float     sum      -1    35.83    0.23\n"  // truncated: an error, not skipped
        "# Avg bus bandwidth    : 36.2205\n");
    EXPECT_EQ(log.ranks, (std::set<std::uint64_t>{0, 1}));
    ASSERT_EQ(log.rows.size(), 3u);
    EXPECT_EQ(log.rows[0].size, 1024u);
    EXPECT_EQ(log.rows[0].out_of_place.time.text, "35.39");
    EXPECT_EQ(log.rows[0].in_place.busbw.text, "0.06");
    EXPECT_EQ(log.rows[1].size, 2048u);
    EXPECT_EQ(log.rows[1].out_of_place.busbw.text, "0.10");
    EXPECT_EQ(log.rows[1].in_place.time.text, "35.89");
    EXPECT_EQ(log.rows[2].size, 4096u);
    EXPECT_EQ(log.rows[2].out_of_place.time.text, "34.62");
    EXPECT_EQ(log.rows[2].out_of_place.time.decimals, 2);
    EXPECT_EQ(log.rows[2].in_place.algbw.value, 0.12);
    ASSERT_EQ(log.errors.size(), 1u);
    EXPECT_NE(log.errors[0].find("line 12"), std::string::npos) << log.errors[0];
}

}  // namespace
