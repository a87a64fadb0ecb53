// Issue 11, acceptance: every option of every command, set to an extreme real value (1e-308, 1e-30,
// 1e30, 1e308), either works with finite numbers everywhere (exit 0, no inf/nan in the table, no
// inf/nan/null in place of a number in the JSON) or is refused as bad input (exit 2, one line on
// stderr, nothing on stdout). Never exit 1 ("internal error"), a crash or a hang.
//
// The options are read from the program itself (`bwacct CMD --help`), so an option added later is
// swept without touching this file; a command added later fails SweepCoversEveryCommand until it
// has a valid base invocation here. Options that take a key=value list (train --hw) are swept key by
// key, the keys read from the example in their help. Options whose help names a file or path are
// left out (a number is not a path, and --plot/--cache would write files). Integer options are swept
// too: an extreme real must be refused there with one line.
//
// The calls run on a few threads (each call is a few ms; the whole sweep stays within seconds).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "harness.h"

using namespace bwacct_test;

namespace {

#ifndef BWACCT_TEST_DATA
#define BWACCT_TEST_DATA ""
#endif

const std::string kData = BWACCT_TEST_DATA;

const char* const kExtremes[] = {"1e-308", "1e-30", "1e30", "1e308"};

// A valid invocation of each command (the option under test is appended, or replaces the base's).
// measure = run under the simulated H200.
struct Base {
    std::vector<std::string> args;
    bool measure = false;
};

const std::map<std::string, Base>& bases() {
    static const std::map<std::string, Base> b{
        {"gemm", {{"gemm", "--m", "2160", "--n", "5120", "--k", "5120"}}},
        {"attention",
         {{"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "2160", "--kv-len", "2160", "--head-dim", "128"}}},
        {"elementwise", {{"elementwise", "--shape", "32,2048,4096"}}},
        {"layernorm", {{"layernorm", "--shape", "8,2048,4096"}}},
        {"rmsnorm", {{"rmsnorm", "--shape", "8,2048,4096"}}},
        {"softmax", {{"softmax", "--shape", "8,2048,4096"}}},
        {"allreduce", {{"allreduce", "--bytes", "8M", "--ranks", "8"}}},
        {"allgather", {{"allgather", "--bytes", "8M", "--ranks", "8"}}},
        {"reducescatter", {{"reducescatter", "--bytes", "8M", "--ranks", "8"}}},
        {"broadcast", {{"broadcast", "--bytes", "8M", "--ranks", "8"}}},
        {"reduce", {{"reduce", "--bytes", "8M", "--ranks", "8"}}},
        {"alltoall", {{"alltoall", "--bytes", "8M", "--ranks", "8"}}},
        {"sendrecv", {{"sendrecv", "--bytes", "8M", "--ranks", "8"}}},
        {"layer", {{"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2048", "--tp", "2"}}},
        {"model", {{"model", "--preset", "llama3-8b", "--phase", "decode", "--batch", "8", "--context", "4096"}}},
        {"train",
         {{"train", "--params", "70e9", "--layers", "80", "--hidden", "8192", "--dp", "8", "--gpu", "h200", "--price-hr", "4",
           "--nic-Gbps", "400"}}},
        {"step", {{"step", "--params", "124e6", "--activations-bytes", "3.2e9", "--step-ms", "180", "--gpu", "h200"}}},
        {"zero", {{"zero", "--params", "7e9", "--ranks", "8"}}},
        {"project", {{"project", "--from", "h200", "--to", "b200", "--fps", "20"}}},
        {"fit", {{"fit", "--gpu", "h200", kData + "/fit/linear_bytes.csv"}}},
        {"gpus", {{"gpus"}}},
        {"gpu", {{"gpu", "h200"}}},
        {"hbm", {{"hbm", "--kernel", "copy", "--size", "64M", "--max-samples", "5"}, true}},
        {"launch", {{"launch", "--max-samples", "5"}, true}},
        {"device", {{"device"}, true}},
        {"calibrate", {{"calibrate", "--max-samples", "5"}, true}},
        {"ingest nccl-tests", {{"ingest", "nccl-tests", kData + "/nccl/nccl_allgather_a100sxm4_40gb_8gpu_superbench.txt"}}},
        {"ingest babelstream",
         {{"ingest", "babelstream", "--gpu", "h200", kData + "/babelstream/gpu_stream_sm100_superbench.txt"}}},
    };
    return b;
}

// The subcommand names a --help lists (the "Subcommands:" block).
std::vector<std::string> subcommands(const std::vector<std::string>& parent) {
    std::vector<std::string> args = parent;
    args.push_back("--help");
    const RunResult r = run_bwacct(args);
    std::vector<std::string> out;
    bool in = false;
    static const std::regex line(R"(^  ([a-z][a-z0-9-]*)\s{2,}\S)");
    for (const std::string& l : lines_of(r.out)) {
        if (l.rfind("Subcommands:", 0) == 0) {
            in = true;
            continue;
        }
        std::smatch m;
        if (in && std::regex_search(l, m, line))
            out.push_back(m[1]);
        else if (in && l.empty())
            in = false;
    }
    return out;
}

struct OptionHelp {
    std::string name, help;
};

// The options of `bwacct CMD --help` that take a value, with their help text.
std::vector<OptionHelp> value_options(const std::vector<std::string>& command) {
    std::vector<std::string> args = command;
    args.push_back("--help");
    const RunResult r = run_bwacct(args);
    std::vector<OptionHelp> out;
    static const std::regex opt(R"(^  (--[A-Za-z0-9-]+) TEXT\S*\s*(.*)$)");
    for (const std::string& l : lines_of(r.out)) {
        std::smatch m;
        if (std::regex_search(l, m, opt)) {
            out.push_back({m[1], m[2]});
        } else if (!out.empty() && l.rfind("      ", 0) == 0) {
            out.back().help += " " + l;  // help wrapped onto the next line
        }
    }
    return out;
}

bool takes_path(const OptionHelp& o) {
    static const std::regex path(R"(\b(file|path|directory)\b)", std::regex::icase);
    return std::regex_search(o.help, path);
}

// "name=H100-SXM,tflops=900,hbm_TBps=3.35": an example key=value list in the help, and its numeric keys.
struct KeyValueForm {
    std::string example;
    std::vector<std::string> numeric_keys;
};

std::optional<KeyValueForm> key_value_form(const OptionHelp& o) {
    static const std::regex list(R"(([A-Za-z_]+=[^,;\s()]+(,[A-Za-z_]+=[^,;\s()]+)+))");
    std::smatch m;
    if (!std::regex_search(o.help, m, list))
        return std::nullopt;
    KeyValueForm f;
    f.example = m[1];
    static const std::regex pair(R"(([A-Za-z_]+)=([0-9.]+)(,|$))");
    for (auto it = std::sregex_iterator(f.example.begin(), f.example.end(), pair); it != std::sregex_iterator(); ++it)
        f.numeric_keys.push_back((*it)[1]);
    return f;
}

std::string with_key(std::string example, const std::vector<std::string>& keys, const std::string& value) {
    for (const std::string& k : keys) {
        const std::regex re("(^|,)" + k + "=[^,]*");
        example = std::regex_replace(example, re, "$1" + k + "=" + value);
    }
    return example;
}

// args with `option value` set (replacing the base's value, or appended before a positional file).
std::vector<std::string> set_option(std::vector<std::string> args, const std::string& option, const std::string& value) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == option) {
            args[i + 1] = value;
            return args;
        }
    args.push_back(option);
    args.push_back(value);
    return args;
}

struct Case {
    std::vector<std::string> args;
    bool measure = false;
    bool json = false;
};

std::vector<std::string> with_format(std::vector<std::string> args, const char* format) {
    // A positional file stays last: CLI11 takes options anywhere.
    return set_option(std::move(args), "--format", format);
}

// The JSON paths whose value is a number, for comparing with a swept run ("null in place of a number").
void number_paths(const json& j, const std::string& path, std::set<std::string>& out) {
    if (j.is_number()) {
        out.insert(path);
    } else if (j.is_object()) {
        for (const auto& [k, v] : j.items())
            number_paths(v, path + "." + k, out);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            number_paths(j[i], path + "[" + std::to_string(i) + "]", out);
    }
}

void null_paths(const json& j, const std::string& path, std::set<std::string>& out) {
    if (j.is_null()) {
        out.insert(path);
    } else if (j.is_object()) {
        for (const auto& [k, v] : j.items())
            null_paths(v, path + "." + k, out);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            null_paths(j[i], path + "[" + std::to_string(i) + "]", out);
    }
}

// "inf", "-inf", "nan", "-nan" as words of a table.
bool has_non_finite_word(const std::string& text) {
    static const std::regex word(R"((^|[^A-Za-z0-9_])-?(inf|nan|infinity)([^A-Za-z0-9_]|$))", std::regex::icase);
    return std::regex_search(text, word);
}

// Checks one run against the contract; returns an empty string when it holds.
std::string check(const Case& c, const RunResult& r, const std::set<std::string>& base_numbers) {
    if (r.timed_out || r.signal != 0)
        return "crashed or hung";
    if (r.status == 2) {
        if (!r.out.empty())
            return "exit 2 with output on stdout";
        if (lines_of(r.err).size() != 1)
            return "exit 2 without exactly one line on stderr";
        return {};
    }
    if (r.status != 0)
        return "exit " + std::to_string(r.status);
    if (c.json) {
        if (r.out.find("inf") != std::string::npos && has_non_finite_word(outside_strings(r.out)))
            return "inf or nan in JSON";
        std::vector<json> docs;
        try {
            docs.push_back(json::parse(r.out));
        } catch (const json::exception&) {
            return "stdout is not one JSON document";
        }
        std::set<std::string> nulls;
        null_paths(docs.front(), "", nulls);
        for (const std::string& p : nulls)
            if (base_numbers.count(p) > 0)
                return "null in place of a number at " + p;
        return {};
    }
    if (has_non_finite_word(r.out))
        return "inf or nan in the table";
    return {};
}

RunOptions options_for(const Case& c, const TempDir& dir) {
    if (!c.measure)
        return {};
    RunOptions o = sim(dir, "", dir.file("calibration.json"));
    return o;
}

}  // namespace

// Every command the program lists has a base invocation above (so its options are swept).
TEST(ExtremeValues, SweepCoversEveryCommand) {
    std::vector<std::string> missing;
    for (const std::string& c : subcommands({})) {
        const std::vector<std::string> children = c == "ingest" ? subcommands({"ingest"}) : std::vector<std::string>{};
        if (children.empty()) {
            if (bases().count(c) == 0)
                missing.push_back(c);
        } else {
            // One ingest tool per input format family is enough for their shared options; each tool's
            // own options are listed by its --help and swept through the tools above.
            bool any = false;
            for (const std::string& t : children)
                any = any || bases().count("ingest " + t) > 0;
            if (!any)
                missing.push_back(c);
        }
    }
    EXPECT_TRUE(missing.empty()) << "commands without a base invocation in test_extreme_values_cli.cpp: "
                                 << ::testing::PrintToString(missing);
}

TEST(ExtremeValues, EveryOptionOfEveryCommandGivesFiniteNumbersOrOneLineExit2) {
    TempDir dir;
    std::vector<Case> cases;
    std::map<std::string, std::set<std::string>> base_numbers;  // command → numeric JSON paths of its base run
    std::size_t options_swept = 0;
    for (const auto& [name, base] : bases()) {
        std::vector<std::string> command(base.args.begin(), base.args.begin() + (name.rfind("ingest ", 0) == 0 ? 2 : 1));
        const std::vector<OptionHelp> opts = value_options(command);
        ASSERT_FALSE(opts.empty()) << name << ": no options read from --help";
        bool json_ok = false;
        for (const OptionHelp& o : opts)
            if (o.name == "--format")
                json_ok = o.help.find("json") != std::string::npos;
        // The base run in JSON: which paths hold numbers.
        if (json_ok) {
            const Case bc{with_format(base.args, "json"), base.measure, true};
            const RunResult r = run_bwacct(bc.args, options_for(bc, dir));
            ASSERT_EQ(r.status, 0) << report(r);
            number_paths(json::parse(r.out), "", base_numbers[name]);
        }
        for (const OptionHelp& o : opts) {
            if (takes_path(o) || o.name == "--format")
                continue;
            ++options_swept;
            std::vector<std::string> values(std::begin(kExtremes), std::end(kExtremes));
            if (const auto kv = key_value_form(o)) {
                values.clear();
                for (const char* x : kExtremes) {
                    for (const std::string& k : kv->numeric_keys)
                        values.push_back(with_key(kv->example, {k}, x));
                    values.push_back(with_key(kv->example, kv->numeric_keys, x));  // all of them at once
                }
            }
            for (const std::string& v : values) {
                const auto args = set_option(base.args, o.name, v);
                cases.push_back({args, base.measure, false});
                if (json_ok)
                    cases.push_back({with_format(args, "json"), base.measure, true});
            }
        }
    }
    // project --rate with its unit, and the options named in the issue, are among the cases above.
    EXPECT_GT(options_swept, 150u);

    std::vector<std::string> failures(cases.size());
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next++; i < cases.size(); i = next++) {
            const Case& c = cases[i];
            const RunResult r = run_bwacct(c.args, options_for(c, dir));
            const std::string name = c.args[0] == "ingest" ? c.args[0] + " " + c.args[1] : c.args[0];
            const std::string why = check(c, r, base_numbers[name]);
            if (!why.empty())
                failures[i] = why + ": " + report(r);
        }
    };
    const unsigned n = std::max(2u, std::min(8u, std::thread::hardware_concurrency() * 2));
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < n; ++i)
        threads.emplace_back(worker);
    for (auto& t : threads)
        t.join();
    std::size_t failed = 0;
    for (const std::string& f : failures)
        if (!f.empty() && ++failed <= 40)
            ADD_FAILURE() << f;
    EXPECT_EQ(failed, 0u) << "of " << cases.size() << " runs";
}
