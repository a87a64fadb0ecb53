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
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <optional>
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

// A valid invocation of each command (the option under test is appended, or replaces the base's);
// "CMD (label)" is another base of CMD, for options that exclude each other.
// measure = run under the simulated H200.
struct Base {
    std::vector<std::string> args;
    bool measure = false;
    bool has_value_options = true;  // false: the command takes no option with a value (nothing to sweep)
};

const std::map<std::string, Base>& bases() {
    static const std::map<std::string, Base> b{
        {"gemm", {{"gemm", "--m", "2160", "--n", "5120", "--k", "5120"}}},
        {"attention",
         {{"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "2160", "--kv-len", "2160", "--head-dim", "128"}}},
        {"elementwise", {{"elementwise", "--shape", "32,2048,4096"}}},
        {"conv", {{"conv", "--input", "32,64,56,56", "--out-channels", "64", "--kernel", "3", "--padding", "1"}}},
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
        // --fps, --rate and --time-us exclude each other: one base for each
        {"project (rate)", {{"project", "--from", "h200", "--to", "b200", "--rate", "20 tokens/s"}}},
        {"project (time)", {{"project", "--from", "h100-sxm", "--to", "h200", "--time-us", "850", "--bound", "compute"}}},
        {"fit", {{"fit", "--gpu", "h200", kData + "/fit/linear_bytes.csv"}}},
        {"gpus", {{"gpus"}}},
        // b is faster than a: no regression, exit 0 (--tolerance is swept)
        {"compare", {{"compare", kData + "/ux/gemm_150us.json", kData + "/ux/gemm_140us.json"}}},
        {"completion", {{"completion", "bash"}, false, false}},
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
    // "--m INT|RANGE", "--batch INT|RANGE=1", "--hw KEY=VALUE": the option, one space, its kind (help
    // shows each option's kind); a flag has none (its help follows after the padding).
    static const std::regex opt(R"(^  (--[A-Za-z0-9-]+) [A-Z][A-Z|=]*\S*\s*(.*)$)");
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

namespace {

// Runs every case on a few threads; returns one failure text per case (empty when it held).
std::vector<std::string> run_all(const std::vector<Case>& cases, const TempDir& dir,
                                 const std::map<std::string, std::set<std::string>>& base_numbers,
                                 std::vector<RunResult>* results = nullptr) {
    std::vector<std::string> failures(cases.size());
    if (results != nullptr)
        results->assign(cases.size(), RunResult{});
    std::atomic<std::size_t> next{0};
    static const std::set<std::string> none;
    auto worker = [&] {
        for (std::size_t i = next++; i < cases.size(); i = next++) {
            const Case& c = cases[i];
            RunResult r = run_bwacct(c.args, options_for(c, dir));
            const std::string name = c.args[0] == "ingest" ? c.args[0] + " " + c.args[1] : c.args[0];
            const auto it = base_numbers.find(name);
            const std::string why = check(c, r, it == base_numbers.end() ? none : it->second);
            if (!why.empty())
                failures[i] = why + ": " + report(r);
            if (results != nullptr)
                (*results)[i] = std::move(r);
        }
    };
    const unsigned n = std::max(2u, std::min(6u, std::thread::hardware_concurrency() * 2));
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < n; ++i)
        threads.emplace_back(worker);
    for (auto& t : threads)
        t.join();
    return failures;
}

}  // namespace

// Each option is first probed with 1.5: an option that takes it (exit 0) is real-valued and swept over
// the four extremes in table and JSON; an integer or name option must refuse 1.5 with one line (and
// its extremes are the bad-input matrix's). Key=value options are swept key by key.
TEST(ExtremeValues, EveryRealOptionOfEveryCommandGivesFiniteNumbersOrOneLineExit2) {
    TempDir dir;
    std::map<std::string, std::set<std::string>> base_numbers;  // command → numeric JSON paths of its base run
    struct Swept {
        std::string command;
        std::vector<std::string> base;
        std::string option;
        bool measure, json_ok;
        std::optional<KeyValueForm> kv;
    };
    std::vector<Swept> options;
    std::vector<Case> probes;
    for (const auto& [name, base] : bases()) {
        std::vector<std::string> command(base.args.begin(), base.args.begin() + (name.rfind("ingest ", 0) == 0 ? 2 : 1));
        const std::vector<OptionHelp> opts = value_options(command);
        ASSERT_EQ(opts.empty(), !base.has_value_options) << name << ": options read from --help: " << opts.size();
        if (opts.empty())
            continue;
        bool json_ok = false;
        for (const OptionHelp& o : opts)
            if (o.name == "--format")
                json_ok = o.help.find("json") != std::string::npos;
        if (json_ok) {  // the base run in JSON: which paths hold numbers
            const Case bc{with_format(base.args, "json"), base.measure, true};
            const RunResult r = run_bwacct(bc.args, options_for(bc, dir));
            ASSERT_EQ(r.status, 0) << report(r);
            number_paths(json::parse(r.out), "", base_numbers[name]);
        }
        for (const OptionHelp& o : opts) {
            if (takes_path(o) || o.name == "--format")
                continue;
            options.push_back({name.substr(0, name.find(" (")), base.args, o.name, base.measure, json_ok, key_value_form(o)});
            probes.push_back({set_option(base.args, o.name, "1.5"), base.measure, false});
        }
    }
    std::vector<RunResult> probed;
    std::vector<std::string> failures = run_all(probes, dir, base_numbers, &probed);

    std::vector<Case> cases;
    std::set<std::string> real_options;
    for (std::size_t i = 0; i < options.size(); ++i) {
        const Swept& o = options[i];
        std::vector<std::string> values;
        if (o.kv) {
            for (const char* x : kExtremes) {
                for (const std::string& k : o.kv->numeric_keys)
                    values.push_back(with_key(o.kv->example, {k}, x));
                values.push_back(with_key(o.kv->example, o.kv->numeric_keys, x));  // all of them at once
            }
        } else if (probed[i].status == 0) {
            values.assign(std::begin(kExtremes), std::end(kExtremes));
        }
        if (!values.empty())
            real_options.insert(o.command + " " + o.option);
        for (const std::string& v : values) {
            const auto args = set_option(o.base, o.option, v);
            cases.push_back({args, o.measure, false});
            if (o.json_ok)
                cases.push_back({with_format(args, "json"), o.measure, true});
        }
    }
    // The options the issue names are among those found real-valued.
    for (const char* must : {"gemm --time-us", "gemm --launch-us", "allreduce --alpha-us", "allreduce --link-GBps",
                             "train --kappa", "train --hw", "project --rate", "step --step-ms", "layer --link-GBps"})
        EXPECT_EQ(real_options.count(must), 1u) << must << " was not swept";
    const std::vector<std::string> swept = run_all(cases, dir, base_numbers);
    failures.insert(failures.end(), swept.begin(), swept.end());
    std::printf("[ swept    ] %zu probes, %zu sweep runs over %zu real-valued options\n", probes.size(), cases.size(),
                real_options.size());
    std::size_t failed = 0;
    for (const std::string& f : failures)
        if (!f.empty() && ++failed <= 40)
            ADD_FAILURE() << f;
    EXPECT_EQ(failed, 0u) << "of " << probes.size() << " probes and " << cases.size() << " sweep runs over "
                          << real_options.size() << " real-valued options";
}

// A --gpu-file whose peaks are subnormal (1e-310) or huge (1e308) is refused when read, naming the
// field: every derived figure would be inf or NaN.
TEST(ExtremeValues, CatalogPeaksOutOfRangeAreRefusedNamingTheField) {
    TempDir dir;
    const std::pair<const char*, json::json_pointer> fields[] = {
        {"1e-310", json::json_pointer("/gpus/h200/hbm_bw_GBps/value")},
        {"1e308", json::json_pointer("/gpus/h200/tensor_tflops/bf16/value")},
        {"1e-310", json::json_pointer("/gpus/h200/launch_overhead_us/value")},
    };
    for (const auto& [value, pointer] : fields) {
        json c = catalog();
        c[pointer] = std::strtod(value, nullptr);
        const std::string path = dir.file("peaks.json");
        write_text(path, c.dump());
        const RunResult r =
            run_bwacct({"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--gpu", "h200", "--gpu-file", path});
        const std::string field = pointer.to_string().substr(std::string("/gpus/h200/").size());
        std::string dotted = field;
        std::replace(dotted.begin(), dotted.end(), '/', '.');
        EXPECT_TRUE(failed_cleanly(r, 2, dotted)) << value << " at " << field;
    }
}
