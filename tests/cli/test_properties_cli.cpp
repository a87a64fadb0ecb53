// Property tests end to end (the real binary): a sweep's records equal the single calls, and the
// catalog JSON round-trips through --gpu-file and $BWACCT_CATALOG.
//
// The random inputs come from a std::mt19937_64 with a fixed seed, so a failure reproduces exactly;
// the command line is in the failure message.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

u64 uniform(std::mt19937_64& rng, u64 lo, u64 hi) { return std::uniform_int_distribution<u64>(lo, hi)(rng); }

// One sweep: `base` plus `option` set to a comma-separated list of `values`.
struct Sweep {
    std::vector<std::string> base;
    std::string option;
    std::vector<u64> values;
};

// Runs the sweep as one --format jsonl command and each value as its own --format json command;
// record i of the sweep must be the single call for value i, field for field.
void expect_sweep_equals_single_calls(const Sweep& s) {
    std::vector<std::string> list;
    for (u64 v : s.values)
        list.push_back(std::to_string(v));
    const RunResult sweep = run_bwacct(with(s.base, {s.option, fmt::format("{}", fmt::join(list, ",")), "--format", "jsonl"}));
    SCOPED_TRACE(report(sweep));
    ASSERT_TRUE(succeeded(sweep));
    const std::vector<std::string> lines = lines_of(sweep.out);
    ASSERT_EQ(lines.size(), s.values.size()) << "one record per value";
    for (std::size_t i = 0; i < s.values.size(); ++i) {
        const json single = run_json(with(s.base, {s.option, list[i], "--format", "json"}));
        const json record = parse_json(lines[i], "sweep record " + std::to_string(i));
        EXPECT_EQ(record, single) << "record " << i << " (" << s.option << " " << list[i] << ") differs from the single call";
    }
}

// gemm over a list of M, attention over a list of kv-len, allreduce/alltoall over a list of sizes,
// each with the other parameters drawn at random: 12 sweeps of 3 to 5 points.
TEST(PropertiesCli, SweepRecordsEqualTheSingleCalls) {
    std::mt19937_64 rng(0x5eed5eed);
    for (int i = 0; i < 12; ++i) {
        Sweep s;
        std::vector<u64> values(uniform(rng, 3, 5));
        switch (i % 4) {
            case 0:
                s.base = {"gemm",  "--n", std::to_string(uniform(rng, 1, 16384)), "--k", std::to_string(uniform(rng, 1, 16384)),
                          "--gpu", "all"};
                s.option = "--m";
                for (u64& v : values)
                    v = uniform(rng, 1, 65536);
                break;
            case 1:
                s.base = {"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "1", "--head-dim", "128", "--causal"};
                s.option = "--kv-len";
                for (u64& v : values)
                    v = uniform(rng, 1, 131072);
                break;
            case 2:
                s.base = {"allreduce", "--ranks", std::to_string(uniform(rng, 2, 64)), "--time-us", "100"};
                s.option = "--bytes";
                for (u64& v : values)
                    v = 2 * uniform(rng, 1, u64(1) << 30);  // whole bf16 elements
                break;
            default: {
                const u64 ranks = uniform(rng, 2, 16);
                s.base = {"alltoall", "--ranks", std::to_string(ranks)};
                s.option = "--bytes";
                for (u64& v : values)
                    v = 2 * ranks * uniform(rng, 1, u64(1) << 24);  // a multiple of ranks · 2 B
                break;
            }
        }
        s.values = values;
        SCOPED_TRACE(fmt::format("sweep {}: {} {} {}", i, describe(s.base), s.option, fmt::join(values, ",")));
        expect_sweep_equals_single_calls(s);
    }
}

// A range sweep is the same as the list it expands to: 1024:16384:x2 = 1024, 2048, 4096, 8192, 16384.
TEST(PropertiesCli, RangeSweepEqualsItsList) {
    const std::vector<std::string> base{"gemm", "--k", "5120", "--n", "5120", "--format", "jsonl"};
    const RunResult range = run_bwacct(with(base, {"--m", "1024:16384:x2"}));
    const RunResult list = run_bwacct(with(base, {"--m", "1024,2048,4096,8192,16384"}));
    ASSERT_TRUE(succeeded(range)) << report(range);
    ASSERT_TRUE(succeeded(list)) << report(list);
    EXPECT_EQ(lines_of(range.out).size(), 5u);
    EXPECT_EQ(range.out, list.out);
}

// `bwacct gpus --format json` re-read as a catalog gives the same catalog: merged over the shipped
// one with --gpu-file (every id replaced by itself) and alone as $BWACCT_CATALOG.
TEST(PropertiesCli, CatalogJsonRoundTrips) {
    TempDir dir;
    const RunResult first = run_bwacct({"gpus", "--format", "json"});
    ASSERT_TRUE(succeeded(first)) << report(first);
    const json original = parse_json(first.out, "gpus --format json");
    ASSERT_TRUE(original.contains("gpus") && original.at("gpus").size() >= 2);
    write_text(dir.file("catalog.json"), first.out);

    const json via_gpu_file = run_json({"gpus", "--format", "json", "--gpu-file", dir.file("catalog.json")});
    EXPECT_EQ(via_gpu_file, original) << "--gpu-file with the printed catalog";
    RunOptions alone;
    alone.env["BWACCT_CATALOG"] = dir.file("catalog.json");
    const json via_env = run_json({"gpus", "--format", "json"}, alone);
    EXPECT_EQ(via_env, original) << "BWACCT_CATALOG set to the printed catalog";

    // And every entry, one by one, prints the same as before (`gpu ID --format json`).
    for (const auto& [id, entry] : original.at("gpus").items()) {
        const json before = run_json({"gpu", id, "--format", "json"});
        const json after = run_json({"gpu", id, "--format", "json"}, alone);
        EXPECT_EQ(after, before) << "gpu " << id;
    }
}

// An op analyzed against the re-read catalog gives the same record as against the shipped one.
TEST(PropertiesCli, OpsGiveTheSameNumbersWithTheReReadCatalog) {
    TempDir dir;
    const RunResult first = run_bwacct({"gpus", "--format", "json"});
    ASSERT_TRUE(succeeded(first)) << report(first);
    write_text(dir.file("catalog.json"), first.out);
    RunOptions alone;
    alone.env["BWACCT_CATALOG"] = dir.file("catalog.json");
    const std::vector<std::vector<std::string>> ops{
        {"gemm", "--m", "2160", "--k", "5120", "--n", "5120", "--gpu", "all", "--format", "json"},
        {"allreduce", "--shape", "1,2160,5120", "--ranks", "8", "--time-us", "113", "--format", "json"},
        {"layernorm", "--shape", "8,2048,4096", "--gpu", "all", "--format", "json"},
    };
    for (const auto& args : ops)
        EXPECT_EQ(run_json(args, alone), run_json(args)) << describe(args);
}

}  // namespace
