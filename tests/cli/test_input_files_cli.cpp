// End-to-end: every file argument is read the same way (src/hw/text_file.cpp, src/ingest/kineto_gzip.cpp):
// endless or binary inputs (/dev/zero, /dev/urandom, an endless text stream) stop quickly with exit 2
// and one line; "-" is standard input and pipes work for every file argument; a UTF-8 BOM and CRLF
// line ends are accepted in every text input (the result equals the plain file's).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::string kData = std::string(BWACCT_TEST_DATA);
const std::string kNccl = kData + "/nccl/nccl_allreduce_h100_1node8gpu_bitdeer.txt";
const std::string kNsys = kData + "/nsight/nsys_cuda_gpu_kern_sum_rtx5090_deepseekocr_decode.csv";
const std::string kNcu = kData + "/nsight/ncu_metrics_rtx5090_cublas_gemv_bf16_kernel0001.csv";
const std::string kRtx5090 = kData + "/nsight/rtx5090_catalog.json";
const std::string kBabel = kData + "/babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt";
const std::string kBert = kData + "/kineto/kineto_h100_gaunernst_bert-small-uncased__1016001.redacted.json";
const std::string kDdp = kData + "/kineto/kineto_a100_ddp2gpu_nccl_collectives_hta.json.gz";
const std::string kFit = kData + "/fit/linear_bytes.csv";

// `sh -c script` with the bwacct binary as $B (stdin redirections and pipes are the script's).
RunResult run_sh(const std::string& script, const RunOptions& opt = {}) {
    RunOptions o = opt;
    o.env["B"] = bwacct_bin();
    return run_program({"/bin/sh", "-c", script}, o);
}

std::string q(const std::string& path) { return "'" + path + "'"; }

// Exit 2, one line on stderr holding `want`, nothing on stdout, in under 5 s (the harness kills at 10 s).
void expect_quick_refusal(const RunResult& r, const std::string& want) {
    EXPECT_FALSE(r.timed_out) << report(r);
    EXPECT_LT(r.wall_s, 5.0) << report(r);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find(want), std::string::npos) << "want '" << want << "'\n" << report(r);
}

// Every command that reads a file, with FILE where the path goes.
struct FileCommand {
    std::vector<std::string> args;
    std::map<std::string, std::optional<std::string>> env;
};
std::vector<FileCommand> file_commands(const std::string& file) {
    return {{{"ingest", "nccl-tests", file, "--gpu", "h100-sxm"}, {}},
            {{"ingest", "nsys", file}, {}},
            {{"ingest", "ncu", file, "--gpu", "h100-sxm"}, {}},
            {{"ingest", "babelstream", file, "--gpu", "h100-sxm"}, {}},
            {{"ingest", "torch-trace", file, "--gpu", "h100-sxm"}, {}},
            {{"fit", file}, {}},
            {{"gpus", "--gpu-file", file}, {}},
            {{"gpus"}, {{"BWACCT_CATALOG", file}}},
            {{"layer", "--preset", file, "--gpu", "h100-sxm"}, {}}};
}

// Defect 2: before, /dev/zero was read until memory ran out (1.6 GB in 10 s) and /dev/urandom too.
TEST(InputFiles, DevZeroAndDevUrandomStopAtOnceForEveryFileArgument) {
    for (const std::string dev : {"/dev/zero", "/dev/urandom"})
        for (const FileCommand& c : file_commands(dev)) {
            RunOptions o;
            o.env = c.env;
            const RunResult r = run_bwacct(c.args, o);
            // Text readers say "binary data, not text"; the trace reader "binary data, not JSON" (or, for
            // random bytes that happen to start with the gzip magic, corrupt gzip data).
            expect_quick_refusal(r, dev);
            EXPECT_TRUE(r.err.find("binary data") != std::string::npos || r.err.find("gzip") != std::string::npos ||
                        r.err.find("not valid JSON") != std::string::npos)
                << report(r);
        }
}

// An endless text stream stops at the bound: `yes` gives 2-byte lines, so the 16 Mi-line bound (32 MiB)
// comes first. A regular file above 256 MiB (sparse here: no disk used) is refused before reading.
TEST(InputFiles, EndlessOrHugeTextStopsAtTheDocumentedBounds) {
    expect_quick_refusal(run_sh("yes | \"$B\" ingest nccl-tests - --gpu h100-sxm"), "more than 16777216 lines");
    TempDir d;
    { std::ofstream(d.file("huge.csv")) << "bytes,time_us\n"; }
    fs::resize_file(d.file("huge.csv"), (256ull << 20) + 1);
    expect_quick_refusal(run_bwacct({"fit", d.file("huge.csv")}), "larger than 256 MiB");
    expect_quick_refusal(run_bwacct({"gpus", "--gpu-file", d.file("huge.csv")}), "larger than 256 MiB");
}

// A UTF-16 file (PowerShell's `>`): told so, with the conversion.
TEST(InputFiles, Utf16IsRefusedWithTheConversion) {
    TempDir d;
    std::string u16 = "\xFF\xFE";
    for (const char c : read_text(kNccl).substr(0, 400)) {
        u16 += c;
        u16 += '\0';
    }
    write_text(d.file("u16.txt"), u16);
    expect_quick_refusal(run_bwacct({"ingest", "nccl-tests", d.file("u16.txt"), "--gpu", "h100-sxm"}), "iconv -f UTF-16");
}

json without_file(json j) {
    j.erase("file");
    return j;
}

// "-" and pipes: the same JSON as from the file (defect 2: before, "-" was "no such file" and a pipe given
// to torch-trace "is empty").
TEST(InputFiles, DashIsStandardInputAndPipesWork) {
    const auto same = [](const std::vector<std::string>& file_args, const std::string& script) {
        const RunResult a = run_bwacct(file_args);
        ASSERT_TRUE(succeeded(a)) << report(a);
        const RunResult b = run_sh(script);
        ASSERT_EQ(b.status, 0) << report(b);
        EXPECT_EQ(without_file(parse_json(a.out, "file")), without_file(parse_json(b.out, "stdin"))) << script;
    };
    // Standard input has no file name to tell the collective: --op says it.
    same({"ingest", "nccl-tests", kNccl, "--op", "allreduce", "--format", "json"},
         "\"$B\" ingest nccl-tests - --op allreduce --format json < " + q(kNccl));
    same({"ingest", "nccl-tests", kNccl, "--op", "allreduce", "--format", "json"},
         "cat " + q(kNccl) + " | \"$B\" ingest nccl-tests /dev/stdin --op allreduce --format json");
    same({"ingest", "torch-trace", kDdp, "--gpu", "a100-sxm-80gb", "--format", "json"},
         "\"$B\" ingest torch-trace - --gpu a100-sxm-80gb --format json < " + q(kDdp));
    same({"ingest", "torch-trace", kDdp, "--gpu", "a100-sxm-80gb", "--format", "json"},
         "cat " + q(kDdp) + " | \"$B\" ingest torch-trace /dev/stdin --gpu a100-sxm-80gb --format json");
    same({"ingest", "torch-trace", kBert, "--format", "json"},
         "cat " + q(kBert) + " | \"$B\" ingest torch-trace - --format json");
    same({"ingest", "babelstream", kBabel, "--format", "json"}, "\"$B\" ingest babelstream - --format json < " + q(kBabel));
    same({"ingest", "ncu", kNcu, "--gpu-file", kRtx5090, "--gpu", "rtx5090", "--format", "json"},
         "\"$B\" ingest ncu " + q(kNcu) + " --gpu-file - --gpu rtx5090 --format json < " + q(kRtx5090));
    // fit prints a table: compare the text.
    const RunResult a = run_bwacct({"fit", kFit});
    ASSERT_TRUE(succeeded(a)) << report(a);
    const RunResult b = run_sh("\"$B\" fit - < " + q(kFit));
    ASSERT_EQ(b.status, 0) << report(b);
    EXPECT_EQ(b.out.substr(b.out.find('\n')), a.out.substr(a.out.find('\n')));  // the first line names the file
    // A model preset and the catalog from standard input (the header line of `layer` names the preset).
    const std::string preset = std::string(BWACCT_TEST_DATA) + "/../../configs/models/llama3-70b.json";
    const RunResult c = run_bwacct({"layer", "--preset", preset, "--gpu", "h100-sxm", "--tokens", "2048"});
    ASSERT_TRUE(succeeded(c)) << report(c);
    const RunResult e = run_sh("\"$B\" layer --preset - --gpu h100-sxm --tokens 2048 < " + q(preset));
    ASSERT_EQ(e.status, 0) << report(e);
    // After the verdict lines, the line "layer  Llama 3 70B (preset PATH or -)" names the preset: compare the rest.
    const auto after_preset = [](const std::string& out) { return out.substr(out.find('\n', out.find("\nlayer  ") + 1)); };
    EXPECT_EQ(after_preset(e.out), after_preset(c.out));
    EXPECT_EQ(e.out.substr(0, e.out.find('\n')), c.out.substr(0, c.out.find('\n')));  // the same verdict line
    const RunResult g = run_bwacct({"gpus", "--format", "json"});
    RunOptions from_stdin;
    from_stdin.env["BWACCT_CATALOG"] = "-";
    const RunResult h = run_sh("\"$B\" gpus --format json < " + q(catalog_path()), from_stdin);
    ASSERT_EQ(h.status, 0) << report(h);
    EXPECT_EQ(h.out, g.out);
    // An empty pipe is "is empty", naming standard input.
    expect_quick_refusal(run_sh("\"$B\" ingest torch-trace - --gpu h100-sxm < /dev/null"), "is empty");
    expect_quick_refusal(run_sh("\"$B\" fit - < /dev/null"), "standard input");
}

// Defect 16: a UTF-8 BOM and CRLF line ends give the same result as the plain file, in every text input.
TEST(InputFiles, BomAndCrlfAreAcceptedInEveryTextInput) {
    TempDir d;
    const auto bom_crlf = [&](const std::string& src, const std::string& name) {
        std::string out = "\xEF\xBB\xBF";
        for (const char c : read_text(src)) {
            if (c == '\n')
                out += '\r';
            out += c;
        }
        write_text(d.file(name), out);
        return d.file(name);
    };
    const auto same_json = [](std::vector<std::string> args, const std::string& plain, const std::string& converted,
                              std::size_t at) {
        args[at] = plain;
        const RunResult a = run_bwacct(args);
        ASSERT_TRUE(succeeded(a)) << report(a);
        args[at] = converted;
        const RunResult b = run_bwacct(args);
        ASSERT_EQ(b.status, 0) << report(b);
        EXPECT_EQ(without_file(parse_json(a.out, "plain")), without_file(parse_json(b.out, "bom+crlf"))) << converted;
    };
    same_json({"ingest", "nccl-tests", "", "--format", "json"}, kNccl, bom_crlf(kNccl, "allreduce_bom_crlf.txt"), 2);
    same_json({"ingest", "nsys", "", "--format", "json"}, kNsys, bom_crlf(kNsys, "nsys.csv"), 2);
    same_json({"ingest", "ncu", "", "--gpu-file", kRtx5090, "--gpu", "rtx5090", "--format", "json"}, kNcu,
              bom_crlf(kNcu, "ncu.csv"), 2);
    same_json({"ingest", "babelstream", "", "--format", "json"}, kBabel, bom_crlf(kBabel, "babel.txt"), 2);
    same_json({"ingest", "ncu", kNcu, "--gpu-file", "", "--gpu", "rtx5090", "--format", "json"}, kRtx5090,
              bom_crlf(kRtx5090, "cat.json"), 4);
    // fit: before, the BOM became part of the first column's name ("no default columns").
    const RunResult a = run_bwacct({"fit", kFit});
    const RunResult b = run_bwacct({"fit", bom_crlf(kFit, "fit.csv")});
    ASSERT_TRUE(succeeded(b)) << report(b);
    EXPECT_EQ(b.out.substr(b.out.find('\n')), a.out.substr(a.out.find('\n')));
}

// A file given to the wrong reader is refused (exit 2, one line), and the line names the reader that
// takes it (src/ingest/file_kind.cpp): each shipped kind through another kind's reader.
TEST(InputFiles, WrongReaderNamesTheRightOne) {
    const auto refused_with = [](const std::vector<std::string>& args, const std::string& want) {
        const RunResult r = run_bwacct(args);
        EXPECT_TRUE(failed_cleanly(r, 2, want)) << report(r);
    };
    refused_with({"ingest", "nccl-tests", kBert},
                 "looks like a PyTorch profiler (Kineto) trace: read it with `bwacct ingest torch-trace " + kBert + "`");
    refused_with({"ingest", "babelstream", kDdp}, "read it with `bwacct ingest torch-trace " + kDdp + "`");
    refused_with({"ingest", "torch-trace", kNccl},
                 "looks like nccl-tests output: read it with `bwacct ingest nccl-tests " + kNccl + "`");
    refused_with({"ingest", "babelstream", kNsys}, "read it with `bwacct ingest nsys " + kNsys + "`");
    refused_with({"ingest", "nccl-tests", kNcu}, "read it with `bwacct ingest ncu " + kNcu + "`");
    refused_with({"ingest", "ncu", kBabel}, "looks like BabelStream output: read it with `bwacct ingest babelstream");
    // A gzip-compressed text log: its own reader says to decompress it; another reader names both steps.
    TempDir dir;
    const std::string gz = dir.path() + "/allreduce.txt.gz";
    ASSERT_EQ(run_program({"/bin/sh", "-c", "gzip -c " + q(kNccl) + " > " + q(gz)}).status, 0);
    refused_with({"ingest", "nccl-tests", gz}, "the file is gzip-compressed: decompress it first (gunzip -k " + gz + ")");
    refused_with({"ingest", "nsys", gz}, "looks like gzip-compressed nccl-tests output: decompress it (gunzip -k " + gz +
                                             ") and read it with `bwacct ingest nccl-tests " + dir.path() + "/allreduce.txt`");
    // --hf-config takes a model config.json: a trace or a log given there is named too.
    refused_with({"model", "--hf-config", kBert}, "read it with `bwacct ingest torch-trace " + kBert + "`");
    refused_with({"layer", "--hf-config", kNccl}, "read it with `bwacct ingest nccl-tests " + kNccl + "`");
    // A file that looks like nothing known gets the reader's own refusal only.
    const RunResult plain = run_bwacct({"ingest", "nsys", kFit});
    EXPECT_TRUE(failed_cleanly(plain, 2)) << report(plain);
    EXPECT_EQ(plain.err.find("read it with"), std::string::npos) << report(plain);
}

}  // namespace
