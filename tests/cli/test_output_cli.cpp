// Output and environment, end to end (issue 11, defects 13, 14, 17, 18, 19, 20): write errors on
// stdout, CSV and Markdown quoting, the calibration cache without HOME, colour and TERM, catalog
// matching of every entry's own name, and duplicate ids and keys in --gpu-file.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <csignal>

#include "harness.h"

using namespace bwacct_test;

namespace {

// A --gpu-file entry whose id holds a quote and a pipe and whose name holds a quote, a comma, a
// pipe and a line break: each would split a CSV or Markdown row unless quoted.
constexpr const char* kEvilId = "ev\"il|1";
constexpr const char* kEvilName = "Evil \"GPU\", rev|2\nsecond line";
constexpr const char* kEvilCatalog = R"({"schema": "bwacct.gpus/1", "gpus": {"ev\"il|1": {
  "name": "Evil \"GPU\", rev|2\nsecond line",
  "hbm_bw_GBps": {"value": 1000, "source": "test"},
  "tensor_tflops": {"bf16": {"value": 100, "sparsity": "dense", "source": "test"}},
  "launch_overhead_us": {"value": 3, "source": "test"}}}})";

// An RFC 4180 reader for the checks: records of fields; quoted fields may hold , " ("") and breaks.
std::vector<std::vector<std::string>> read_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true, any = true;
        } else if (c == ',') {
            row.push_back(field), field.clear(), any = true;
        } else if (c == '\n') {
            row.push_back(field), field.clear();
            rows.push_back(row), row.clear(), any = false;
        } else {
            field += c, any = true;
        }
    }
    if (any)
        rows.push_back(row);
    return rows;
}

// Cells of a Markdown table row "| a | b |": split at '|' not escaped by '\'; escapes kept.
std::vector<std::string> md_cells(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size()) {
            cell += line.substr(i, 2), ++i;
        } else if (line[i] == '|') {
            cells.push_back(cell), cell.clear();
        } else {
            cell += line[i];
        }
    }
    cells.push_back(cell);
    // "| a | b |" gives "", " a ", " b ", "": drop the outer empties, trim each.
    if (!cells.empty() && cells.front().empty())
        cells.erase(cells.begin());
    if (!cells.empty() && cells.back().empty())
        cells.pop_back();
    for (std::string& c : cells) {
        const auto b = c.find_first_not_of(' '), e = c.find_last_not_of(' ');
        c = b == std::string::npos ? "" : c.substr(b, e - b + 1);
    }
    return cells;
}

std::size_t catalog_size() { return catalog().at("gpus").size(); }

// Runs `bwacct args...` with stdout redirected by the shell (`redirect`: "> /dev/full", ">&-").
RunResult run_redirected(const std::vector<std::string>& args, const std::string& redirect) {
    std::string cmd = "exec '" + bwacct_bin() + "'";
    for (const std::string& a : args)
        cmd += " '" + a + "'";
    return run_program({"/bin/sh", "-c", cmd + " " + redirect});
}

// Runs `bwacct args...` with stdout a pipe whose reader has already gone. Returns the wait status;
// stderr in `err`.
int run_into_closed_pipe(const std::vector<std::string>& args, std::string& err) {
    TempDir dir;
    const std::string err_path = dir.file("stderr");
    int p[2];
    if (::pipe(p) != 0)
        throw std::runtime_error("pipe");
    ::close(p[0]);  // no reader: every write gets EPIPE
    const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    std::vector<std::string> argv_s{bwacct_bin()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_s)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(p[1], 1);
        ::dup2(err_fd, 2);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(p[1]);
    ::close(err_fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    err = read_text(err_path);
    return status;
}

}  // namespace

// =============================================================================================
// 13. Every output is flushed and checked at the end.

// A full device: exit 1, one line naming the failure, for a small output (buffered until exit: the
// old code exited 0) and for a large one (written during the command).
TEST(OutputWrite, FullDeviceIsARuntimeFailure) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"gpus"}, std::vector<std::string>{"gpu", "h200", "--format", "json"},
          std::vector<std::string>{"gemm", "--m", "1:3000:+1", "--k", "64", "--n", "64", "--format", "jsonl"},
          std::vector<std::string>{"--help"}}) {
        const RunResult r = run_redirected(args, "> /dev/full");
        SCOPED_TRACE(r.command);
        EXPECT_EQ(r.status, 1) << report(r);
        EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
        EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << report(r);
        EXPECT_NE(r.err.find("standard output"), std::string::npos) << report(r);
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << report(r);
    }
}

// stdout closed (`>&-`): exit 1 and one line, not exit 0 with the output lost.
TEST(OutputWrite, ClosedStdoutIsARuntimeFailure) {
    const RunResult r = run_redirected({"gpus"}, ">&-");
    EXPECT_EQ(r.status, 1) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find("stdout is closed"), std::string::npos) << report(r);
}

// With stdout closed, a file bwacct opens must not become its stdout: --plot still gets the chart
// alone, and the report is not written into it.
TEST(OutputWrite, ClosedStdoutDoesNotLandInTheChart) {
    TempDir dir;
    const RunResult r = run_redirected({"gemm", "--m", "256", "--k", "256", "--n", "256", "--plot", dir.file("c.svg")}, ">&-");
    EXPECT_EQ(r.status, 1) << report(r);
    const std::string svg = read_text(dir.file("c.svg"));
    EXPECT_EQ(svg.rfind("<", 0), 0u) << svg.substr(0, 200);
    EXPECT_EQ(svg.find("FLOPs"), std::string::npos) << "the table went into the chart";
}

// Bad input stays exit 2 with its own line even when stdout is closed (nothing was to be written).
TEST(OutputWrite, BadInputWithClosedStdoutKeepsExitTwo) {
    const RunResult r = run_redirected({"gemm", "--m", "x"}, ">&-");
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find("--m"), std::string::npos) << report(r);
}

// A reader that went away (`bwacct ... | head -1`): quiet, ended by SIGPIPE as `yes | head` is.
TEST(OutputWrite, BrokenPipeEndsQuietly) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"gpus"},
          std::vector<std::string>{"gemm", "--m", "1:3000:+1", "--k", "64", "--n", "64", "--format", "jsonl"}}) {
        std::string err;
        const int status = run_into_closed_pipe(args, err);
        SCOPED_TRACE(describe(args));
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) << "wait status " << status << ", stderr: " << err;
        EXPECT_EQ(err, "");
    }
}

// =============================================================================================
// 14. CSV and Markdown go through one quoting path.

// gpus --format csv: every row has the header's 8 fields, the evil id and name come back whole
// (the old writer wrapped the name in quotes without doubling the inner ones and left ids bare).
TEST(OutputQuoting, CatalogCsvRoundTrips) {
    TempDir dir;
    write_text(dir.file("evil.json"), kEvilCatalog);
    const RunResult r = run_bwacct({"gpus", "--gpu-file", dir.file("evil.json"), "--format", "csv"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    const auto rows = read_csv(r.out);
    ASSERT_EQ(rows.size(), catalog_size() + 2) << r.out;  // header + shipped + the evil entry
    for (const auto& row : rows)
        EXPECT_EQ(row.size(), 8u) << fmt::format("{}", fmt::join(row, "¦"));
    EXPECT_EQ(rows.back().at(0), kEvilId);
    EXPECT_EQ(rows.back().at(1), kEvilName);
    EXPECT_EQ(rows.back().at(4), "1000");  // hbm_GBps, printed with 0 decimals
}

// gpus --format md: every line of the table has the header's 8 cells; '|' is escaped and the line
// break is a <br>, so the entry stays one row.
TEST(OutputQuoting, CatalogMarkdownKeepsColumns) {
    TempDir dir;
    write_text(dir.file("evil.json"), kEvilCatalog);
    const RunResult r = run_bwacct({"gpus", "--gpu-file", dir.file("evil.json"), "--format", "md"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), catalog_size() + 3) << r.out;  // header, rule, shipped, evil
    for (const std::string& l : lines)
        EXPECT_EQ(md_cells(l).size(), 8u) << l;
    const auto last = md_cells(lines.back());
    EXPECT_EQ(last.at(0), "ev\"il\\|1");
    EXPECT_EQ(last.at(1), "Evil \"GPU\", rev\\|2<br>second line");
}

// The op sinks (RowSink) take the same path: the evil id as a --gpu in CSV and Markdown.
TEST(OutputQuoting, OpSinksQuoteTheGpuId) {
    TempDir dir;
    write_text(dir.file("evil.json"), kEvilCatalog);
    const std::vector<std::string> gemm{
        "gemm", "--m", "256,512", "--k", "256", "--n", "256", "--gpu-file", dir.file("evil.json"), "--gpu", kEvilId, "--format"};
    const RunResult csv = run_bwacct(with(gemm, {"csv"}));
    ASSERT_TRUE(succeeded(csv)) << report(csv);
    const auto rows = read_csv(csv.out);
    ASSERT_EQ(rows.size(), 3u) << csv.out;
    for (const auto& row : rows)
        EXPECT_EQ(row.size(), rows.front().size()) << csv.out;
    const auto gpu_col = std::find(rows.front().begin(), rows.front().end(), "gpu") - rows.front().begin();
    ASSERT_LT(static_cast<std::size_t>(gpu_col), rows.front().size()) << csv.out;
    EXPECT_EQ(rows[1].at(static_cast<std::size_t>(gpu_col)), kEvilId);

    const RunResult md = run_bwacct(with(gemm, {"md"}));
    ASSERT_TRUE(succeeded(md)) << report(md);
    const auto lines = lines_of(md.out);
    ASSERT_EQ(lines.size(), 4u) << md.out;
    for (const std::string& l : lines)
        EXPECT_EQ(md_cells(l).size(), md_cells(lines.front()).size()) << l;
}

// =============================================================================================
// 17. No default cache path without HOME or XDG_CACHE_HOME.

TEST(CalibrationCache, NoHomeRefusesToPickAPath) {
    TempDir dir;
    const bool root_cache_existed = fs::exists("/.cache/bwacct/calibration.json");
    RunOptions o = sim(dir);
    o.env["HOME"] = std::nullopt;
    o.env["XDG_CACHE_HOME"] = std::nullopt;
    o.env["BWACCT_CACHE"] = std::nullopt;
    const RunResult r = run_bwacct({"calibrate"}, o);
    EXPECT_TRUE(failed_cleanly(r, 2, "--cache")) << report(r);
    EXPECT_NE(r.err.find("BWACCT_CACHE"), std::string::npos) << report(r);
    if (!root_cache_existed) {
        EXPECT_FALSE(fs::exists("/.cache/bwacct/calibration.json"));
    }
    // A relative XDG_CACHE_HOME is ignored (XDG base directory rules): still no path.
    o.env["XDG_CACHE_HOME"] = std::string("relative/cache");
    EXPECT_TRUE(failed_cleanly(run_bwacct({"calibrate"}, o), 2, "--cache"));
    EXPECT_FALSE(fs::exists("relative/cache"));
    // --cache still works without HOME.
    const RunResult ok = run_bwacct({"calibrate", "--cache", dir.file("c.json"), "--format", "json"}, o);
    EXPECT_TRUE(succeeded(ok)) << report(ok);
    EXPECT_TRUE(fs::exists(dir.file("c.json")));
    // Reading (gemm --measure) without any cache path: no calibration, no error.
    const RunResult m = run_bwacct({"gemm", "--m", "256", "--k", "256", "--n", "256", "--measure", "--format", "json"}, o);
    EXPECT_TRUE(succeeded(m)) << report(m);
}

// =============================================================================================
// 18. Colour only on a terminal that shows it: TERM=dumb or unset, or NO_COLOR non-empty, is plain.

namespace {

bool coloured_on_terminal(const std::optional<std::string>& term, const std::optional<std::string>& no_color, RunResult& r) {
    RunOptions o;
    o.stdout_tty = true;
    o.env["TERM"] = term;
    o.env["NO_COLOR"] = no_color;
    try {
        r = run_bwacct({"gemm", "--m", "256", "--k", "256", "--n", "256"}, o);
    } catch (const std::exception&) {
        return false;
    }
    return true;
}

}  // namespace

TEST(Colour, TermDecidesOnATerminal) {
    struct Case {
        std::optional<std::string> term, no_color;
        bool colour;
    };
    const std::vector<Case> cases{{std::string("dumb"), std::nullopt, false},
                                  {std::nullopt, std::nullopt, false},
                                  {std::string(""), std::nullopt, false},
                                  {std::string("xterm"), std::nullopt, true},
                                  {std::string("xterm"), std::string("1"), false},
                                  {std::string("xterm"), std::string(""), true}};  // NO_COLOR="" is unset (no-color.org)
    for (const Case& c : cases) {
        RunResult r;
        if (!coloured_on_terminal(c.term, c.no_color, r))
            GTEST_SKIP() << "no pseudo-terminal";
        SCOPED_TRACE(fmt::format("TERM={} NO_COLOR={}", c.term.value_or("(unset)"), c.no_color.value_or("(unset)")));
        ASSERT_EQ(r.status, 0) << report(r);
        EXPECT_NE(r.out.find("gemm"), std::string::npos) << report(r);
        EXPECT_EQ(r.out.find('\x1b') != std::string::npos, c.colour) << report(r);
    }
}

// =============================================================================================
// 19. Every catalog entry's simulated device matches its own entry.

TEST(CatalogMatch, EverySimulatedEntryMatchesItself) {
    const json list = run_json({"gpus", "--format", "json"});
    ASSERT_TRUE(list.is_object() && list.contains("gpus"));
    ASSERT_GE(list.at("gpus").size(), 10u);
    for (const auto& [id, entry] : list.at("gpus").items()) {
        TempDir dir;
        RunOptions o = sim(dir);
        o.env["BWACCT_SIMULATE"] = id;
        const json j = run_json({"device", "--format", "json"}, o);
        ASSERT_TRUE(j.is_object()) << id;
        EXPECT_EQ(str_of(j.at("device"), "catalog_match"), id) << "device name: " << str_of(j.at("device"), "name");
    }
}

// =============================================================================================
// 20. Duplicate ids and keys in --gpu-file.

namespace {

std::string entry(const std::string& id, double hbm) {
    return fmt::format(R"("{}": {{"name": "Test {}", "hbm_bw_GBps": {{"value": {}, "source": "test"}},
      "launch_overhead_us": {{"value": 3, "source": "test"}}}})",
                       id, id, hbm);
}

}  // namespace

TEST(GpuFile, DuplicateIdInOneFileIsRefused) {
    TempDir dir;
    const std::string f = dir.file("dup.json");
    write_text(f, R"({"schema": "bwacct.gpus/1", "gpus": {)" + entry("mine", 1000) + "," + entry("mine", 2000) + "}}");
    const RunResult r = run_bwacct({"gpus", "--gpu-file", f});
    EXPECT_TRUE(failed_cleanly(r, 2, "'mine'")) << report(r);
    EXPECT_NE(r.err.find(f), std::string::npos) << report(r);
    EXPECT_NE(r.err.find("twice"), std::string::npos) << report(r);
}

TEST(GpuFile, DuplicateKeyInAnObjectIsRefused) {
    TempDir dir;
    const std::string f = dir.file("dupkey.json");
    write_text(f, R"({"schema": "bwacct.gpus/1", "gpus": {"mine": {"name": "A", "name": "B",
      "hbm_bw_GBps": {"value": 1000, "value": 2000, "source": "test"}, "launch_overhead_us": {"value": 3, "source": "test"}}}})");
    const RunResult r = run_bwacct({"gpus", "--gpu-file", f});
    EXPECT_TRUE(failed_cleanly(r, 2, "key 'name'")) << report(r);
    EXPECT_NE(r.err.find("gpus.mine"), std::string::npos) << report(r);
    // Inside a figure too (the value that would have been used silently).
    write_text(f, R"({"schema": "bwacct.gpus/1", "gpus": {"mine": {"name": "A",
      "hbm_bw_GBps": {"value": 1000, "value": 2000, "source": "test"}, "launch_overhead_us": {"value": 3, "source": "test"}}}})");
    const RunResult r2 = run_bwacct({"gpus", "--gpu-file", f});
    EXPECT_TRUE(failed_cleanly(r2, 2, "key 'value'")) << report(r2);
    EXPECT_NE(r2.err.find("gpus.mine.hbm_bw_GBps"), std::string::npos) << report(r2);
}

// An id of the shipped catalog in --gpu-file: one warning line saying the file's entry wins, and
// the file's figure is the one used.
TEST(GpuFile, OverridingAShippedIdWarnsOnce) {
    TempDir dir;
    const std::string f = dir.file("over.json");
    write_text(f, R"({"schema": "bwacct.gpus/1", "gpus": {)" + entry("h200", 1234) + "," + entry("mine", 1000) + "}}");
    const RunResult r = run_bwacct({"gpu", "h200", "--gpu-file", f, "--format", "json"});
    ASSERT_EQ(r.status, 0) << report(r);
    ASSERT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find("warning"), std::string::npos) << report(r);
    EXPECT_NE(r.err.find("h200 replaces"), std::string::npos) << report(r);
    EXPECT_NE(r.err.find("file's figures are used"), std::string::npos) << report(r);
    const json j = parse_json(r.out, r.command);
    EXPECT_DOUBLE_EQ(j.at("gpus").at("h200").at("hbm_bw_GBps").at("value").get<double>(), 1234);
    // A new id only: no warning.
    write_text(f, R"({"schema": "bwacct.gpus/1", "gpus": {)" + entry("mine", 1000) + "}}");
    EXPECT_TRUE(succeeded(run_bwacct({"gpu", "mine", "--gpu-file", f})));
}
