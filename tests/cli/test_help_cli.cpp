// Issue 14, "help shows each option's kind": `--help` names what each option takes (INT|RANGE,
// SIZE, FLOAT, NAME, FILE, ...) instead of CLI11's TEXT, for every command and ingest tool.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "harness.h"

namespace {

using namespace bwacct_test;

// The command names `bwacct --help` lists, and the tools `bwacct ingest --help` lists.
std::vector<std::vector<std::string>> every_command() {
    std::vector<std::vector<std::string>> out;
    for (const std::vector<std::string>& parent : {std::vector<std::string>{}, std::vector<std::string>{"ingest"}}) {
        std::vector<std::string> args = parent;
        args.push_back("--help");
        const RunResult r = run_bwacct(args);
        EXPECT_EQ(r.status, 0) << report(r);
        const std::size_t at = r.out.find("Subcommands:\n");
        EXPECT_NE(at, std::string::npos) << r.out;
        std::istringstream in(r.out.substr(at + 13));
        std::string line;
        while (std::getline(in, line) && line.rfind("  ", 0) == 0) {
            const std::string name = line.substr(2, line.find(' ', 2) - 2);
            if (parent.empty() && name == "ingest")
                continue;  // a group: its tools come from `bwacct ingest --help`
            std::vector<std::string> cmd = parent;
            cmd.push_back(name);
            out.push_back(cmd);
        }
    }
    return out;
}

TEST(HelpKinds, NoCommandOrToolShowsText) {
    const auto commands = every_command();
    ASSERT_GE(commands.size(), 30u);  // 29 commands besides ingest, and its 5 tools
    for (std::vector<std::string> cmd : commands) {
        cmd.push_back("--help");
        const RunResult r = run_bwacct(cmd);
        ASSERT_EQ(r.status, 0) << report(r);
        EXPECT_FALSE(std::regex_search(r.out, std::regex(" TEXT\\b"))) << describe(cmd) << ":\n" << r.out;
    }
}

// One option's line of `bwacct ARGS --help`, from its name to the end of the line.
std::string option_line(const std::vector<std::string>& args, const std::string& option) {
    std::vector<std::string> a = args;
    a.push_back("--help");
    const RunResult r = run_bwacct(a);
    EXPECT_EQ(r.status, 0) << report(r);
    const std::size_t at = r.out.find("  " + option + " ");
    if (at == std::string::npos)
        return "(" + option + " missing)\n" + r.out;
    return r.out.substr(at + 2, r.out.find('\n', at) - at - 2);
}

TEST(HelpKinds, NamedOptionsShowTheirKind) {
    struct Case {
        std::vector<std::string> command;
        std::string option, shown;
    };
    const Case cases[] = {
        {{"gemm"}, "--m", "--m INT|RANGE"},            // a sweepable count: 2160, 1024:16384:x2, 1024,2048
        {{"gemm"}, "--batch", "--batch INT|RANGE=1"},  // the default after the kind, as CLI11 shows it
        {{"gemm"}, "--dtype", "--dtype NAME=bf16"},
        {{"gemm"}, "--time-us", "--time-us FLOAT|RANGE"},
        {{"gemm"}, "--launch-us", "--launch-us FLOAT"},  // one value
        {{"gemm"}, "--gpu", "--gpu LIST=h200,b200"},
        {{"gemm"}, "--gpu-file", "--gpu-file FILE"},
        {{"gemm"}, "--plot", "--plot FILE"},
        {{"allreduce"}, "--bytes", "--bytes SIZE|RANGE"},
        {{"layer"}, "--workspace", "--workspace SIZE=1G"},
        {{"layer"}, "--context", "--context INT|RANGE"},
        {{"layer"}, "--hidden", "--hidden INT"},  // a model size: one value
        {{"model"}, "--hf-config", "--hf-config FILE"},
        {{"train"}, "--gamma", "--gamma FLOAT=1.2"},
        {{"train"}, "--price-hr", "--price-hr FLOAT|LIST"},
        {{"zero"}, "--ranks", "--ranks INT"},  // one value here; a sweep in the collectives
        {{"allreduce"}, "--ranks", "--ranks INT|RANGE"},
        {{"conv"}, "--kernel", "--kernel INT|LIST"},
        {{"hbm"}, "--kernel", "--kernel LIST=copy,read,write,triad"},
        {{"ingest", "nccl-tests"}, "--tolerance", "--tolerance PERCENT=5%"},
        {{"ingest", "nccl-tests"}, "--baseline", "--baseline FILE"},
        {{"ingest", "nccl-tests"}, "file", "file FILE"},
        {{"fit"}, "--gpu", "--gpu NAME"},
        {{"project"}, "--rate", "--rate RATE"},
    };
    for (const Case& c : cases) {
        const std::string line = option_line(c.command, c.option);
        // The option and its kind, then the help text (or the end of the line when the help wraps).
        EXPECT_EQ(line.substr(0, line.find(' ', c.option.size() + 1)), c.shown) << describe(c.command) << ": " << line;
    }
}

TEST(HelpKinds, FlagsShowNoKind) {
    EXPECT_EQ(option_line({"gemm"}, "--bias").rfind("--bias  ", 0), 0u) << option_line({"gemm"}, "--bias");
}

// The completion script reads the same kinds: every FILE option completes file names (--plot and
// --baseline did not, being missing from a hand-kept list).
TEST(HelpKinds, FileOptionsCompleteFileNames) {
    const RunResult r = run_bwacct({"completion", "bash"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    std::string files_case;
    for (const std::string& l : lines_of(r.out))
        if (l.find(") COMPREPLY=($(compgen -f") != std::string::npos)
            files_case = l;
    for (const char* o : {"--gpu-file", "--plot", "--hf-config", "--baseline", "--cache"})
        EXPECT_NE(files_case.find(o), std::string::npos) << o << " missing from: " << files_case;
}

}  // namespace
