// Every command the documentation shows must parse (issue 15 item 3: docs/methodology.md showed
// `hbm copy --bytes 4G` where the CLI is `hbm --kernel copy --size 4G`).
//
// The commands are taken from README.md, docs/*.md and examples/README.md: lines of fenced code blocks
// that start with `bwacct` (or `$ bwacct`), and inline code spans that start with `bwacct` or with a
// subcommand name followed by an option (`hbm --kernel copy`). Each one runs against the simulated
// H200 (BWACCT_SIMULATE=h200, so --measure, hbm, launch and calibrate run too) in a temporary
// directory. It passes when the command line parses (bwacct's words, options and subcommands): exit 0,
// or a complaint about a value (an example file the test does not have, a value the doc shows being
// refused). Skipped: error messages quoted in the docs (`bwacct gemm: …`), commands with a
// placeholder (CMD, ID, FILE, …) or an ellipsis.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

std::string source_root() { return fs::path(BWACCT_TEST_DATA).parent_path().parent_path().string(); }

struct DocCommand {
    std::string where;         // file:line
    std::string text;          // as written, without the leading `$ ` or `bwacct `
    bool inline_span = false;  // in running text (`bwacct gemm --batch` may name an option, not run it)
};

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return "";
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

// The subcommands `bwacct --help` lists (the first word of each line under "Subcommands:").
std::set<std::string> subcommands() {
    const RunResult r = run_bwacct({"--help"});
    std::set<std::string> names;
    bool in_list = false;
    for (const std::string& line : lines_of(r.out)) {
        if (line.rfind("Subcommands:", 0) == 0) {
            in_list = true;
            continue;
        }
        if (in_list && line.size() > 2 && line[0] == ' ') {
            std::istringstream words(line);
            std::string name;
            words >> name;
            names.insert(name);
        } else if (in_list && !line.empty()) {
            in_list = false;
        }
    }
    return names;
}

// The text of one candidate command, or "" when the fragment is not an invocation.
std::string invocation(std::string fragment, const std::set<std::string>& commands) {
    fragment = trim(fragment);
    if (fragment.rfind("$ ", 0) == 0)
        fragment = trim(fragment.substr(2));
    if (fragment.rfind("bwacct ", 0) == 0)
        return trim(fragment.substr(7));
    const std::string first = fragment.substr(0, fragment.find(' '));
    if (commands.count(first) && fragment.find(" --") != std::string::npos)
        return fragment;
    return "";
}

std::vector<DocCommand> doc_commands(const std::set<std::string>& commands) {
    std::vector<std::string> files = {"README.md", "examples/README.md"};
    for (const auto& e : fs::directory_iterator(source_root() + "/docs"))
        if (e.path().extension() == ".md")
            files.push_back("docs/" + e.path().filename().string());
    std::vector<DocCommand> out;
    for (const std::string& file : files) {
        const std::string path = source_root() + "/" + file;
        if (!fs::exists(path))
            continue;
        bool fenced = false;
        int line_no = 0;
        for (const std::string& raw : lines_of(read_text(path))) {
            ++line_no;
            const std::string line = trim(raw);
            const std::string where = fmt::format("{}:{}", file, line_no);
            if (line.rfind("```", 0) == 0) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                std::string cmd = line;
                if (const auto hash = cmd.find("  #"); hash != std::string::npos)
                    cmd = cmd.substr(0, hash);
                cmd = trim(cmd);
                const bool starts = cmd.rfind("bwacct ", 0) == 0 || cmd.rfind("$ bwacct ", 0) == 0;
                if (const std::string inv = starts ? invocation(cmd, commands) : ""; !inv.empty())
                    out.push_back({where, inv, false});
                continue;
            }
            // Inline code spans: `...`.
            for (std::size_t open = line.find('`'); open != std::string::npos;) {
                const std::size_t close = line.find('`', open + 1);
                if (close == std::string::npos)
                    break;
                if (const std::string inv = invocation(line.substr(open + 1, close - open - 1), commands); !inv.empty())
                    out.push_back({where, inv, true});
                open = line.find('`', close + 1);
            }
        }
    }
    return out;
}

bool is_placeholder(const std::string& word) {
    if (word.size() < 2 || !std::isupper(static_cast<unsigned char>(word[0])))
        return false;
    return std::all_of(word.begin(), word.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || c == '_'; });
}

// Splits a documented command into arguments; nullopt-like empty result when it is not runnable as
// written (quoted error message, placeholder, ellipsis, shell pipeline beyond bwacct's own part).
std::vector<std::string> arguments(std::string text, const TempDir& dir, std::string& why_skipped) {
    if (const auto pipe = text.find(" | "); pipe != std::string::npos)
        text = text.substr(0, pipe);  // `... --format json | jq ...`: bwacct's part
    if (text.find("…") != std::string::npos || text.find("...") != std::string::npos) {
        why_skipped = "ellipsis";
        return {};
    }
    std::vector<std::string> args;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (w == "\\")
            continue;
        if (!w.empty() && w.front() == '\'' && w.back() == '\'' && w.size() >= 2)
            w = w.substr(1, w.size() - 2);
        // `[--gpu h100-sxm]`: an optional part, shown with brackets; `ring|nvls`: alternatives (the first;
        // a Markdown table escapes the bar as `\|`).
        for (const char c : {'[', ']', '\\'})
            w.erase(std::remove(w.begin(), w.end(), c), w.end());
        if (w.find('|') != std::string::npos && w.find(':') == std::string::npos)
            w = w.substr(0, w.find('|'));
        if (is_placeholder(w) || w.find('<') != std::string::npos) {
            why_skipped = "placeholder " + w;
            return {};
        }
        if (w.empty())
            continue;
        args.push_back(w);
    }
    if (args.empty() || (args[0].size() > 1 && args[0].back() == ':')) {
        why_skipped = "an error message quoted in the docs";
        return {};
    }
    // Files a command writes go to the temporary directory.
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--plot" || args[i] == "--cache")
            args[i + 1] = dir.file(fs::path(args[i + 1]).filename().string());
    return args;
}

// Running text names a command or an option without its value (`bwacct ingest`, `bwacct gemm
// --batch`): then each word must exist, as `bwacct CMD --help` lists it.
bool names_exist(const std::vector<std::string>& args, const RunResult& r) {
    if (r.err.find("missing") == std::string::npos && r.err.find("A subcommand is required") == std::string::npos &&
        r.err.find("name a tool") == std::string::npos)  // `bwacct ingest` alone lists the tools
        return false;
    std::vector<std::string> path;
    std::vector<std::string> options;
    for (const std::string& a : args)
        (a.rfind("--", 0) == 0 ? options : path).push_back(a);
    path.push_back("--help");
    const RunResult help = run_bwacct(path);
    if (help.status != 0)
        return false;
    return std::all_of(options.begin(), options.end(),
                       [&](const std::string& o) { return help.out.find(o + " ") != std::string::npos; });
}

TEST(DocsCommands, EveryCommandTheDocsShowParses) {
    const std::set<std::string> commands = subcommands();
    ASSERT_GT(commands.size(), 20u) << "bwacct --help lists the subcommands";
    const std::vector<DocCommand> shown = doc_commands(commands);
    ASSERT_GT(shown.size(), 40u) << "the docs show many commands";
    int ran = 0;
    for (const DocCommand& c : shown) {
        TempDir dir;
        std::string why;
        const std::vector<std::string> args = arguments(c.text, dir, why);
        if (args.empty())
            continue;
        RunOptions opt = sim(dir);
        opt.env["HOME"] = dir.path();
        opt.timeout = std::chrono::seconds(30);
        const RunResult r = run_bwacct(args, opt);
        ++ran;
        // app.cpp ends every command-line parse error (unknown subcommand or option, extra argument,
        // missing value) with "(see 'bwacct CMD --help')": that is a doc showing a command that is not
        // bwacct's. Any other outcome means the words parsed: the values may be examples ("M", a file
        // the reader does not have) or deliberately bad (robustness.md shows refused inputs).
        const bool parse_error =
            r.status == 2 && r.err.find("--help')") != std::string::npos && !(c.inline_span && names_exist(args, r));
        EXPECT_FALSE(parse_error || r.signal != 0 || r.timed_out)
            << c.where << ": the docs show `bwacct " << c.text << "`, which does not run:\n"
            << report(r);
    }
    EXPECT_GT(ran, 40) << "most documented commands are runnable as written";
}

// The extraction itself: the wrong form the issue found is caught, the right one is not.
TEST(DocsCommands, TheWrongHbmFormIsRefused) {
    TempDir dir;
    RunOptions opt = sim(dir);
    EXPECT_EQ(run_bwacct({"hbm", "copy", "--bytes", "4G"}, opt).status, 2) << "what docs/methodology.md used to show";
    const RunResult right = run_bwacct({"hbm", "--kernel", "copy", "--size", "64M", "--max-samples", "3"}, opt);
    EXPECT_EQ(right.status, 0) << report(right);
}

}  // namespace
