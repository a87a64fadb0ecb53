// Issue 14, "one file" and "forgiving and conventional": the binary runs alone (configs/ compiled
// in), names that are not valid get the nearest valid ones, names are case-insensitive, sizes and
// token counts take K/k suffixes (powers of 1024), `bwacct` alone prints the help, `completion` and
// the man page are written from the command tables, and help texts speak to users.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness.h"

namespace {

using namespace bwacct_test;

// A failed run as the contract says: exit 2, nothing on stdout, one line on stderr containing every `part`.
void expect_bad(const std::vector<std::string>& args, const std::vector<std::string>& parts, const RunOptions& opt = {}) {
    const RunResult r = run_bwacct(args, opt);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_EQ(r.out, "") << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    for (const std::string& p : parts)
        EXPECT_NE(r.err.find(p), std::string::npos) << "missing '" << p << "'\n" << report(r);
}

// The source tree's configs/ (tests/data/../../configs), as an absolute path without "..".
std::string source_configs() { return fs::weakly_canonical(fs::path(BWACCT_TEST_DATA) / ".." / ".." / "configs").string(); }

// ---------------------------------------------------------------------------------------------
// One file.

TEST(OneFile, TheBinaryCopiedAloneToAnEmptyDirectoryPrintsTheRightNumbers) {
    TempDir dir;
    const std::string copy = dir.file("bwacct");
    fs::copy_file(bwacct_bin(), copy);
    fs::permissions(copy, fs::perms::owner_all);
    // Nothing in the binary leads back to the source tree's configs/ (no compiled-in fallback path) ...
    std::ifstream in(copy, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    EXPECT_EQ(bytes.str().find(source_configs()), std::string::npos) << "the binary names " << source_configs();
    // ... and no environment does: BWACCT_CATALOG (cleared by the harness) and BWACCT_MODELS unset, run from
    // the temporary directory, which holds the binary alone.
    RunOptions opt;
    opt.env["BWACCT_MODELS"] = std::nullopt;
    opt.env["BWACCT_CATALOG"] = std::nullopt;
    const RunResult r =
        run_program({"/bin/sh", "-c", "cd \"$0\" && ./bwacct gemm --m 2160 --k 5120 --n 5120 --format json", dir.path()}, opt);
    ASSERT_TRUE(succeeded(r)) << report(r);
    const json j = parse_json(r.out, "gemm json");
    // FLOPs 2·M·N·K = 2·2160·5120·5120 = 113,246,208,000.
    EXPECT_EQ(num_u(j, "flops"), 113246208000u);
    // bf16 (2 bytes): A 2160·5120·2 = 22,118,400 + B 5120·5120·2 = 52,428,800 read = 74,547,200;
    // C 2160·5120·2 = 22,118,400 written; 96,665,600 in all.
    EXPECT_EQ(num_u(j, "bytes_read"), 74547200u);
    EXPECT_EQ(num_u(j, "bytes_written"), 22118400u);
    EXPECT_EQ(num_u(j, "bytes"), 96665600u);
    ASSERT_EQ(j.at("gpus").size(), 2u);  // the default --gpu h200,b200
    const json& h200 = j.at("gpus").at(0);
    EXPECT_EQ(str_of(h200, "gpu"), "h200");
    EXPECT_EQ(str_of(h200, "bound"), "compute");
    // H200 dense bf16 989.4 TFLOP/s (configs/gpus.json): 113,246,208,000 / 989.4e12 s = 114.4595 µs;
    // HBM 4800 GB/s: 96,665,600 / 4.8e12 s = 20.1387 µs.
    expect_rel(h200.at("roofs_us").at("compute").get<double>(), 113246208000.0 / 989.4e6, 1e-12, "h200 compute roof");
    expect_rel(h200.at("roofs_us").at("hbm").get<double>(), 96665600.0 / 4.8e6, 1e-12, "h200 hbm roof");
    // B200 dense bf16 2250 TFLOP/s: 113,246,208,000 / 2.25e15 s = 50.331648 µs.
    EXPECT_EQ(str_of(j.at("gpus").at(1), "gpu"), "b200");
    expect_rel(j.at("gpus").at(1).at("roofs_us").at("compute").get<double>(), 50.331648, 1e-12, "b200 compute roof");

    // The model presets travel inside too: Llama 3 8B's hidden size is 4096 (configs/models/llama3-8b.json).
    const RunResult preset = run_program(
        {"/bin/sh", "-c", "cd \"$0\" && ./bwacct layer --preset llama3-8b --tokens 2048 --format json", dir.path()}, opt);
    ASSERT_TRUE(succeeded(preset)) << report(preset);
    EXPECT_NE(preset.out.find("4096"), std::string::npos) << preset.out;
}

TEST(OneFile, BwacctCatalogStillOverridesTheCompiledInCatalog) {
    TempDir dir;
    json cat = catalog();
    json only;
    only["schema"] = cat.at("schema");
    only["gpus"]["h200"] = cat.at("gpus").at("h200");
    only["gpus"]["h200"]["hbm_bw_GBps"]["value"] = 1000;  // 96,665,600 / 1e12 s = 96.6656 µs
    write_text(dir.file("c.json"), only.dump());
    RunOptions opt;
    opt.env["BWACCT_CATALOG"] = dir.file("c.json");
    const RunResult r =
        run_bwacct({"gemm", "--m", "2160", "--k", "5120", "--n", "5120", "--gpu", "h200", "--format", "json"}, opt);
    ASSERT_TRUE(succeeded(r)) << report(r);
    expect_rel(parse_json(r.out, "gemm").at("gpus").at(0).at("roofs_us").at("hbm").get<double>(), 96.6656, 1e-12, "hbm roof");
    // and b200 is not in that catalog
    expect_bad({"gemm", "--m", "8", "--k", "8", "--n", "8", "--gpu", "b200"}, {"--gpu", "b200"}, opt);
}

// ---------------------------------------------------------------------------------------------
// Did you mean.

TEST(DidYouMean, UnknownCommandToolOptionGpuDtypeAndFormatNameTheNearest) {
    expect_bad({"gemn", "--m", "8"}, {"unknown command 'gemn'", "did you mean gemm?"});
    expect_bad({"ingest", "nccl", "x.log"}, {"unknown tool 'nccl'", "did you mean nccl-tests?"});
    expect_bad({"gemm", "--m", "8", "--n", "8", "--k", "8", "--dtyp", "bf16"}, {"unknown option '--dtyp'", "--dtype"});
    expect_bad({"gemm", "--m", "8", "--n", "8", "--k", "8", "--time", "5"},
               {"unknown option '--time'", "did you mean --time-us"});
    expect_bad({"gemm", "--m", "8", "--n", "8", "--k", "8", "--gpu", "h100"},
               {"unknown GPU 'h100' (did you mean h100-sxm, h100-pcie, h100-nvl?)"});
    expect_bad({"gemm", "--m", "8", "--n", "8", "--k", "8", "--dtype", "bf61"}, {"unknown dtype 'bf61' (did you mean bf16?)"});
    expect_bad({"gemm", "--m", "8", "--n", "8", "--k", "8", "--format", "jsn"}, {"unknown format 'jsn' (did you mean json?)"});
    expect_bad({"allreduce", "--bytes", "8M", "--ranks", "8", "--algo", "rign"}, {"--algo", "did you mean ring?"});
}

TEST(CaseInsensitiveNames, GpuDtypeAndFormatInUpperCaseGiveTheSameRecord) {
    const RunResult lower =
        run_bwacct({"gemm", "--m", "2160", "--k", "5120", "--n", "5120", "--gpu", "h200", "--dtype", "bf16", "--format", "json"});
    const RunResult upper =
        run_bwacct({"gemm", "--m", "2160", "--k", "5120", "--n", "5120", "--gpu", "H200", "--dtype", "BF16", "--format", "JSON"});
    ASSERT_TRUE(succeeded(lower)) << report(lower);
    ASSERT_TRUE(succeeded(upper)) << report(upper);
    EXPECT_EQ(upper.out, lower.out);
    EXPECT_EQ(str_of(parse_json(upper.out, "upper").at("gpus").at(0), "gpu"), "h200");  // the catalog's spelling
}

TEST(NoArguments, PrintsTheHelpOnStdoutAndExitsZero) {
    const RunResult r = run_bwacct({});
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("gemm"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("completion"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(" man "), std::string::npos) << "the hidden man command is not listed\n" << r.out;
}

// ---------------------------------------------------------------------------------------------
// Sizes and token counts: K M G T and k m g t are powers of 1024.

TEST(Suffixes, TokenCountsAndSizesTakeUpperAndLowerCaseSuffixes) {
    auto attention = [](const std::string& kv) {
        return run_json({"attention", "--batch", "1", "--heads", "32", "--head-dim", "128", "--q-len", "1", "--kv-len", kv,
                         "--gpu", "h200", "--format", "json"});
    };
    // --kv-len 8K = 8k = 8 · 1024 = 8192 tokens: the same record as --kv-len 8192.
    const json plain = attention("8192");
    EXPECT_EQ(attention("8K"), plain);
    EXPECT_EQ(attention("8k"), plain);
    // --tokens 2k = 2048.
    const json a =
        run_json({"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2k", "--format", "json"});
    const json b =
        run_json({"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2048", "--format", "json"});
    EXPECT_EQ(a, b);
    // --bytes 1K:4K:+1k: 1024, 2048, 3072, 4096 (a suffix in the step too), lower-case g in a size.
    const RunResult r = run_bwacct({"allreduce", "--bytes", "1K:4K:+1k", "--ranks", "8", "--gpu", "h200", "--format", "jsonl"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 4u) << r.out;
    for (std::size_t i = 0; i < 4; ++i)
        EXPECT_NE(lines[i].find(std::to_string(1024 * (i + 1))), std::string::npos) << lines[i];
    const json one_g = run_json({"allreduce", "--bytes", "1g", "--ranks", "8", "--gpu", "h200", "--format", "json"});
    EXPECT_NE(one_g.dump().find("1073741824"), std::string::npos);  // 1g = 1024^3
}

// ---------------------------------------------------------------------------------------------
// Completion and the man page.

TEST(Completion, BashAndZshScriptsParseAndNameCommandsOptionsGpusDtypesFormatsAndTools) {
    TempDir dir;
    for (const std::string shell : {"bash", "zsh", "fish"}) {
        const RunResult r = run_bwacct({"completion", shell});
        ASSERT_TRUE(succeeded(r)) << report(r);
        for (const char* word : {"gemm", "time-us", "h100-sxm", "bf16", "jsonl", "nccl-tests", "torch-trace"})
            EXPECT_NE(r.out.find(word), std::string::npos) << shell << " completion lacks " << word;
        write_text(dir.file("bwacct." + shell), r.out);
    }
    const RunResult bash = run_program({"bash", "-n", dir.file("bwacct.bash")});
    EXPECT_EQ(bash.status, 0) << report(bash);
    // The bash completion works: `bwacct ingest ncc<TAB>` offers nccl-tests, `bwacct gemm --gpu h1<TAB>` the H100s.
    const RunResult use =
        run_program({"bash", "-c",
                     "source \"$0\"; COMP_WORDS=(bwacct ingest ncc); COMP_CWORD=2; _bwacct; echo \"${COMPREPLY[*]}\"; "
                     "COMP_WORDS=(bwacct gemm --gpu h1); COMP_CWORD=3; _bwacct; echo \"${COMPREPLY[*]}\"",
                     dir.file("bwacct.bash")});
    ASSERT_EQ(use.status, 0) << report(use);
    EXPECT_EQ(use.out, "nccl-tests\nh100-sxm h100-pcie h100-nvl\n") << report(use);
    if (find_on_path("zsh").empty())
        GTEST_SKIP() << "zsh is not installed here: `zsh -n` on the zsh completion was not run";
    const RunResult zsh = run_program({"zsh", "-n", dir.file("bwacct.zsh")});
    EXPECT_EQ(zsh.status, 0) << report(zsh);
}

TEST(ManPage, ManRendersTheGeneratedPageWithEveryCommand) {
    TempDir dir;
    const RunResult r = run_bwacct({"man"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    write_text(dir.file("bwacct.1"), r.out);
    if (find_on_path("man").empty())
        GTEST_SKIP() << "man is not installed here: the page was generated but not rendered";
    RunOptions opt;
    opt.env["MANWIDTH"] = "100";
    opt.env["MANPAGER"] = "cat";
    opt.env["PAGER"] = "cat";
    const RunResult man = run_program({"man", "-l", dir.file("bwacct.1")}, opt);
    ASSERT_EQ(man.status, 0) << report(man);
    for (const char* word : {"bwacct gemm", "bwacct ingest nccl-tests", "--time-us", "EXIT STATUS", "BWACCT_CATALOG"})
        EXPECT_NE(man.out.find(word), std::string::npos) << "man page lacks " << word << "\n" << man.out.substr(0, 2000);
}

// ---------------------------------------------------------------------------------------------
// Help that speaks to users.

TEST(Help, NoSeedJargonAnExampleOnIngestAndNoHotOnCollectives) {
    const RunResult top = run_bwacct({"--help"});
    ASSERT_EQ(top.status, 0) << report(top);
    EXPECT_EQ(top.out.find("seed"), std::string::npos) << top.out;
    for (const char* cmd : {"train", "step", "zero", "project", "fit", "layer", "model"}) {
        const RunResult r = run_bwacct({cmd, "--help"});
        ASSERT_EQ(r.status, 0) << report(r);
        EXPECT_EQ(r.out.find("seed"), std::string::npos) << cmd << " --help:\n" << r.out;
    }
    const RunResult ingest = run_bwacct({"ingest", "--help"});
    ASSERT_EQ(ingest.status, 0) << report(ingest);
    EXPECT_NE(ingest.out.find("Example:\n  bwacct ingest nccl-tests"), std::string::npos) << ingest.out;
    for (const char* coll : {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast"}) {
        const RunResult r = run_bwacct({coll, "--help"});
        ASSERT_EQ(r.status, 0) << report(r);
        EXPECT_EQ(r.out.find("--hot"), std::string::npos) << coll << " offers --hot:\n" << r.out;
    }
    const RunResult gemm = run_bwacct({"gemm", "--help"});
    EXPECT_NE(gemm.out.find("--hot"), std::string::npos) << "gemm keeps --hot";
}

}  // namespace
