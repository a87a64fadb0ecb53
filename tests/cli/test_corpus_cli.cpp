// The corpus of real inputs (tests/data/corpus/<tool>/): every file other tools wrote that we could
// find in public repositories, run through `bwacct ingest <tool> FILE --format json` as a user runs it.
//
// tests/data/corpus/EXPECTED.txt says, per file, what the run must give: "ok" (a valid file the parser
// must read) or "refused" (exit 2 with one line), with the extra options of that run and the reason.
// A file may have several lines (e.g. refused without --gpu, read with it). Each line is one test case,
// named after the file, so a failure names it. For every case:
//   (a) no crash and no hang: exit 0 or 2, no signal, within the time limit;
//   (b) exit 0 with one valid JSON document, or exit 2 with exactly one line on stderr and nothing on stdout,
//       and the exit status is the one EXPECTED.txt gives;
//   (c) nccl-tests and BabelStream: every number the file printed that bwacct re-derives matches
//       (rows.matches_log == "yes"; kernels.check == "ok"; gpu_stream file % within its printed precision);
//   (d) no inf or NaN anywhere, and no null where the file printed the number (the measured columns).
// Plus the corpus's own bookkeeping: every data file has its .src.txt and at least one EXPECTED line, and
// every EXPECTED line names a file that exists.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "harness.h"

using namespace bwacct_test;

namespace {

const std::string kCorpus = std::string(BWACCT_TEST_DATA) + "/corpus";
const std::set<std::string> kTools = {"nccl-tests", "babelstream", "nsys", "ncu", "torch-trace"};

struct Expectation {
    std::string tool;               // directory = ingest subcommand
    std::string file;               // path relative to tests/data/corpus
    bool ok = true;                 // "ok" or "refused"
    std::vector<std::string> args;  // extra options of this run
    std::string reason;
    int line = 0;
};

// gtest prints the parameter of a failing case with this (not as raw bytes).
void PrintTo(const Expectation& e, std::ostream* os) {
    *os << e.file << " (" << (e.ok ? "ok" : "refused") << ", EXPECTED.txt line " << e.line << ")";
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
        return "";
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

// EXPECTED.txt: `tool/file | ok|refused | extra args (or -) | reason`, '#' comments, blank lines;
// "{data}/" in an argument is tests/data/.
std::vector<Expectation> load_expectations() {
    std::vector<Expectation> out;
    std::ifstream in(kCorpus + "/EXPECTED.txt");
    std::string raw;
    int n = 0;
    while (std::getline(in, raw)) {
        ++n;
        const std::string line = trim(raw);
        if (line.empty() || line[0] == '#')
            continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string part;
        while (std::getline(ss, part, '|'))
            f.push_back(trim(part));
        Expectation e;
        e.line = n;
        e.file = f.empty() ? "" : f[0];
        e.tool = e.file.substr(0, e.file.find('/'));
        e.ok = f.size() > 1 && f[1] == "ok";
        if (f.size() > 2 && f[2] != "-") {
            std::stringstream as(f[2]);
            std::string a;
            while (as >> a) {
                // "{data}/" stands for tests/data/ (e.g. a --gpu-file beside the fixtures).
                if (a.rfind("{data}/", 0) == 0)
                    a = std::string(BWACCT_TEST_DATA) + a.substr(6);
                e.args.push_back(a);
            }
        }
        e.reason = f.size() > 3 ? f[3] : "";
        if (f.size() < 4 || (f[1] != "ok" && f[1] != "refused"))
            e.tool = "";  // malformed: reported by CorpusBookkeeping
        out.push_back(e);
    }
    return out;
}

bool is_source_note(const fs::path& p) {
    const std::string n = p.filename().string();
    return n.size() > 8 && n.compare(n.size() - 8, 8, ".src.txt") == 0;
}

// Data files under tests/data/corpus/<tool>/, relative to tests/data/corpus.
std::vector<std::string> corpus_files() {
    std::vector<std::string> out;
    for (const std::string& tool : kTools) {
        const fs::path dir = fs::path(kCorpus) / tool;
        if (!fs::is_directory(dir))
            continue;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.is_regular_file() && !is_source_note(entry.path()))
                out.push_back(tool + "/" + entry.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

TEST(CorpusBookkeeping, EveryFileHasProvenanceAndAnExpectation) {
    const auto files = corpus_files();
    EXPECT_GE(files.size(), 30u) << "the corpus should hold at least 30 real files";
    const auto expectations = load_expectations();
    std::set<std::string> expected;
    for (const auto& e : expectations) {
        EXPECT_FALSE(e.tool.empty()) << "EXPECTED.txt line " << e.line
                                     << ": expected `tool/file | ok|refused | args or - | reason`";
        EXPECT_TRUE(kTools.count(e.tool)) << "EXPECTED.txt line " << e.line << ": unknown tool in " << e.file;
        EXPECT_TRUE(fs::is_regular_file(fs::path(kCorpus) / e.file))
            << "EXPECTED.txt line " << e.line << " names a missing file: " << e.file;
        EXPECT_FALSE(e.reason.empty()) << "EXPECTED.txt line " << e.line << ": give the reason";
        expected.insert(e.file);
    }
    for (const auto& f : files) {
        EXPECT_TRUE(fs::is_regular_file(fs::path(kCorpus) / (f + ".src.txt"))) << f << " has no .src.txt";
        EXPECT_TRUE(expected.count(f)) << f << " has no line in tests/data/corpus/EXPECTED.txt";
    }
    // Every .src.txt belongs to a data file.
    for (const std::string& tool : kTools) {
        const fs::path dir = fs::path(kCorpus) / tool;
        if (!fs::is_directory(dir))
            continue;
        for (const auto& entry : fs::directory_iterator(dir)) {
            if (!is_source_note(entry.path()))
                continue;
            std::string data = entry.path().string();
            data.resize(data.size() - 8);
            EXPECT_TRUE(fs::is_regular_file(data)) << entry.path() << " describes no file";
        }
    }
}

// (d) Each check_* below lists the measured columns of its tool's sections: a row that exists must carry
// them as finite numbers. Columns that are n/a by design (the re-derivation of a size-0 row, a median an
// old nsys did not print, a bandwidth without bytes) are checked only where the file gives the inputs.

void expect_number(const json& row, const std::string& key, const std::string& where) {
    ASSERT_TRUE(row.contains(key)) << where << ": no column " << key;
    EXPECT_TRUE(row[key].is_number()) << where << ": " << key << " is " << row[key].dump() << ", not a number";
    if (row[key].is_number()) {
        EXPECT_TRUE(std::isfinite(row[key].get<double>())) << where << ": " << key;
    }
}

void check_nccl_rows(const json& sections, const std::string& what) {
    ASSERT_TRUE(sections.contains("rows")) << what << ": no rows section";
    const json& rows = sections["rows"]["rows"];
    EXPECT_FALSE(rows.empty()) << what << ": no result rows";
    std::size_t i = 0;
    for (const json& r : rows) {
        const std::string where = what + " rows[" + std::to_string(i++) + "] size " + r.value("size_bytes", json()).dump() + " " +
                                  r.value("placement", std::string());
        for (const char* key : {"size_bytes", "time_us", "algbw_GBps", "busbw_GBps"})
            expect_number(r, key, where);
        if (r.value("size_bytes", json(0)).is_number() && r["size_bytes"].get<double>() > 0) {
            expect_number(r, "algbw_rederived_GBps", where);
            expect_number(r, "busbw_rederived_GBps", where);
        }
        // (c) every re-derived number matches what the log printed.
        EXPECT_EQ(r.value("matches_log", std::string("missing")), "yes")
            << where << ": log algbw " << r.value("algbw_GBps", json()).dump() << " busbw "
            << r.value("busbw_GBps", json()).dump() << ", re-derived " << r.value("algbw_rederived_GBps", json()).dump() << " / "
            << r.value("busbw_rederived_GBps", json()).dump() << " (" << sections["rows"]["title"] << ")";
    }
}

// One run: its rows are in "sections"; a file holding several runs (several header blocks) reports
// each run's sections under "runs" (docs/json.md), every run checked alike.
void check_nccl(const json& doc, const std::string& what) {
    if (doc.contains("runs") && doc["runs"].is_array() && !doc["runs"].empty()) {
        for (const json& run : doc["runs"]) {
            const std::string where = what + " run " + run.value("run", json()).dump();
            ASSERT_TRUE(run.contains("sections")) << where << ": no sections";
            check_nccl_rows(run["sections"], where);
        }
        return;
    }
    check_nccl_rows(doc["sections"], what);
}

void check_babelstream(const json& doc, const std::string& what) {
    const json& s = doc["sections"];
    EXPECT_TRUE(s.contains("kernels") || s.contains("gpu_stream")) << what << ": no kernels section";
    if (s.contains("kernels")) {
        std::size_t i = 0;
        for (const json& r : s["kernels"]["rows"]) {
            const std::string where = what + " kernels[" + std::to_string(i++) + "] run " + r.value("run", json()).dump() + " " +
                                      r.value("function", std::string());
            for (const char* key : {"bw_GBps", "min_us", "max_us", "avg_us"})
                expect_number(r, key, where);
            // (c) the printed bandwidth agrees with bytes / printed min time (BabelStream's own formula);
            // a paste of the table alone (no 'Array size' line) has no bytes to re-derive from: "no array
            // size", its bytes null.
            const std::string check = r.value("check", std::string("missing"));
            EXPECT_TRUE(check == "ok" || (check == "no array size" && r.value("bytes", json()).is_null()))
                << where << ": " << r.dump();
            if (r.value("check", std::string()) == "ok") {
                expect_number(r, "bytes", where);
                expect_number(r, "bw_from_min_time_GBps", where);
            }
        }
    }
    if (s.contains("gpu_stream")) {
        std::size_t i = 0;
        for (const json& r : s["gpu_stream"]["rows"]) {
            const std::string where = what + " gpu_stream[" + std::to_string(i++) + "] " + r.value("kernel", std::string());
            for (const char* key : {"bytes", "bw_GBps", "time_us"})
                expect_number(r, key, where);
            // (c) the printed "% of peak" is the printed bandwidth over the file's own peak line, within
            // the rounding of both (two decimals each; 0.01 as docs/ingest.md states for gpu-stream).
            if (r.value("file_peak_GBps", json()).is_number() && r.value("file_pct", json()).is_number()) {
                const double want = 100.0 * r["bw_GBps"].get<double>() / r["file_peak_GBps"].get<double>();
                EXPECT_NEAR(r["file_pct"].get<double>(), want, 0.01 + 1e-4 * want) << where;
            }
        }
    }
}

void check_nsys(const json& doc, const std::string& what) {
    ASSERT_TRUE(doc["sections"].contains("kernels")) << what << ": no kernels section";
    std::size_t i = 0;
    for (const json& r : doc["sections"]["kernels"]["rows"]) {
        const std::string where = what + " kernels[" + std::to_string(i++) + "] " + r.value("kernel", std::string());
        for (const char* key : {"time_pct", "total_us", "instances", "avg_us"})
            expect_number(r, key, where);
        // rocprof's v1 statistics print no minimum or maximum (rocprofv3's do): null there, a number everywhere else.
        const bool rocprof_v1 = doc.value("measured_by", "") == "rocprof" && r["min_us"].is_null() && r["max_us"].is_null();
        if (!rocprof_v1)
            for (const char* key : {"min_us", "max_us"})
                expect_number(r, key, where);
    }
}

void check_ncu(const json& doc, const std::string& what) {
    ASSERT_TRUE(doc["sections"].contains("kernels")) << what << ": no kernels section";
    std::size_t i = 0;
    for (const json& r : doc["sections"]["kernels"]["rows"]) {
        const std::string where = what + " kernels[" + std::to_string(i++) + "] " + r.value("kernel", std::string());
        // A kernel carries its time, or its DRAM bytes with a warning saying what the file lacks (`ncu --metrics
        // dram__bytes_read.sum` alone measures no duration): never neither, never a silent null.
        const auto is_number = [&r](const char* key) { return r.contains(key) && r[key].is_number(); };
        if (is_number("time_us"))
            expect_number(r, "time_us", where);
        else {
            // nvprof --metrics dram_read_throughput,dram_write_throughput, and ncu's Memory Workload Analysis section
            // (Memory Throughput = dram__bytes.sum.per_second), measure the rate alone: bw_GBps is the file's.
            EXPECT_TRUE(is_number("dram_read_bytes") || is_number("dram_write_bytes") || is_number("dram_bytes") ||
                        is_number("bw_GBps"))
                << where << ": neither a time nor DRAM bytes";
            EXPECT_FALSE(doc["warnings"].empty()) << where << ": no time and no warning saying why";
        }
        // A kernel reported with exit 0 carries its measured bytes and bandwidth (a file without DRAM
        // counters has nothing to report: it is refused, or its kernels say why in a warning).
        if (doc["warnings"].empty()) {
            expect_number(r, "dram_bytes", where);
            expect_number(r, "bw_GBps", where);
        }
    }
}

void check_torch(const json& doc, const std::string& what) {
    ASSERT_TRUE(doc["sections"].contains("kernels")) << what << ": no kernels section";
    std::size_t i = 0;
    for (const json& r : doc["sections"]["kernels"]["rows"]) {
        const std::string where = what + " kernels[" + std::to_string(i++) + "] " + r.value("kernel", std::string());
        for (const char* key : {"count", "total_us", "mean_us"})
            expect_number(r, key, where);
    }
}

class Corpus : public ::testing::TestWithParam<Expectation> {};

TEST_P(Corpus, IngestsAsExpected) {
    const Expectation& e = GetParam();
    ASSERT_FALSE(e.tool.empty()) << "malformed EXPECTED.txt line " << e.line;
    const std::string path = kCorpus + "/" + e.file;
    ASSERT_TRUE(fs::is_regular_file(path)) << path;
    std::vector<std::string> args = {"ingest", e.tool, path, "--format", "json"};
    args.insert(args.end(), e.args.begin(), e.args.end());
    RunOptions opt;
    opt.timeout = std::chrono::seconds(60);
    const RunResult r = run_bwacct(args, opt);
    const std::string what =
        e.file + " (EXPECTED.txt line " + std::to_string(e.line) + ": " + (e.ok ? "ok" : "refused") + ", " + e.reason + ")";

    // (a) no crash, no hang.
    ASSERT_FALSE(r.timed_out) << what << "\n" << report(r);
    ASSERT_EQ(r.signal, 0) << what << "\n" << report(r);
    ASSERT_TRUE(r.status == 0 || r.status == 2) << what << "\n" << report(r);

    // (b) the output contract, and the expectation.
    if (r.status == 2) {
        EXPECT_TRUE(failed_cleanly(r, 2)) << what;
        EXPECT_FALSE(e.ok) << what << ": a valid file was refused: " << r.err;
        return;
    }
    EXPECT_TRUE(e.ok) << what << ": expected a one-line refusal, got exit 0";
    EXPECT_TRUE(succeeded(r)) << what;
    expect_finite_json_text(r.out, what);  // (d) no inf / NaN tokens
    const json doc = parse_json(r.out, what);
    ASSERT_TRUE(doc.is_object()) << what;
    EXPECT_EQ(doc.value("schema", std::string()), "bwacct.ingest/1") << what;
    ASSERT_TRUE(doc.contains("sections") && doc["sections"].is_object()) << what;
    if (e.tool == "nccl-tests")
        check_nccl(doc, what);
    else if (e.tool == "babelstream")
        check_babelstream(doc, what);
    else if (e.tool == "nsys")
        check_nsys(doc, what);
    else if (e.tool == "ncu")
        check_ncu(doc, what);
    else if (e.tool == "torch-trace")
        check_torch(doc, what);
}

std::string case_name(const ::testing::TestParamInfo<Expectation>& info) {
    std::string n = info.param.file;
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return n + "_L" + std::to_string(info.param.line);
}

INSTANTIATE_TEST_SUITE_P(RealFiles, Corpus, ::testing::ValuesIn(load_expectations()), case_name);

}  // namespace
