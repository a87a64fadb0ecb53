// The bad-input matrix: every subcommand × every class of bad value that applies to it, run as a
// user runs it. Each case must exit 2 with exactly one line on stderr that names the option (or the
// file) and nothing at all on stdout — never a crash, a hang, a number, or a second line.
//
// Classes: zero, negative, non-numeric, overflowing (a value above 2^53 − 1 for integers, 1e400 for
// reals, or a product of sizes that overflows 64 bits), empty range (10:1:x2), unknown name
// (--gpu nosuch, --dtype nosuch, ...), missing file, directory instead of a file, unreadable file
// (chmod 000; skipped with a message when running as root, who reads it anyway) and empty file.
//
// tests/cli/test_cli.cpp (suite BadInput) has the first, smaller set (gemm's options, the sparse
// catalog, collective divisibility); this file does not repeat those, it spans every command.
// docs/robustness.md lists the matrix.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

struct MatrixCase {
    std::string name;
    std::vector<std::string> args;       // "{DIR}" is replaced by the suite's temporary directory
    std::vector<std::string> must_name;  // stderr must contain one of these ("{DIR}" replaced too)
    bool simulate = false;               // run with BWACCT_SIMULATE=h200 (measurement commands, no GPU here)
    bool unreadable = false;             // the case needs a file its user cannot read
};

void PrintTo(const MatrixCase& c, std::ostream* os) { *os << describe(c.args); }

// ---------------------------------------------------------------------------------------------
// Building the table.

// The classes of bad numeric value. Integers overflow above 2^53 − 1 (1e30); reals overflow a double (1e400).
enum Class : unsigned {
    kZero = 1,
    kNegative = 2,
    kNonNumeric = 4,
    kOverflow = 8,
    kEmptyRange = 16,
    kAll = 31,
    kNoZero = kAll & ~kZero,  // options where 0 is a valid value (FLOPs per element, SGD's optimizer bytes)
};
enum class Kind { integer, real, shape };

struct BadValue {
    Class cls;
    const char* label;
    std::string value;
};

std::vector<BadValue> bad_values(Kind kind, unsigned classes) {
    std::vector<BadValue> all;
    if (kind == Kind::shape) {
        all = {{kZero, "Zero", "8,0,4"},
               {kNegative, "Negative", "8,-1,4"},
               {kNonNumeric, "NonNumeric", "8,abc,4"},
               {kOverflow, "Overflow", "8,1e30,4"},
               {kEmptyRange, "EmptyRange", "8,10:1:x2"}};
    } else {
        all = {{kZero, "Zero", "0"},
               {kNegative, "Negative", "-3"},
               {kNonNumeric, "NonNumeric", "abc"},
               {kOverflow, "Overflow", kind == Kind::integer ? "1e30" : "1e400"},
               {kEmptyRange, "EmptyRange", "10:1:x2"}};
    }
    std::vector<BadValue> out;
    for (const BadValue& b : all)
        if (classes & b.cls)
            out.push_back(b);
    return out;
}

// "--kv-heads" -> "KvHeads"; "nccl-tests" -> "NcclTests"
std::string camel(const std::string& s) {
    std::string out;
    bool up = true;
    for (char ch : s) {
        if (std::isalnum(static_cast<unsigned char>(ch))) {
            out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
            up = false;
        } else {
            up = true;
        }
    }
    return out;
}

// A command with a valid base command line, and what can be made bad in it.
struct Command {
    std::vector<std::string> base;  // a valid invocation, e.g. {"gemm", "--m", "2160", ...}
    std::vector<std::pair<std::string, Kind>> integers, reals;
    std::vector<std::string> no_zero;  // options among the above for which 0 is valid
    std::vector<std::string> names;    // options taking a name: each tested with "nosuch"
    std::vector<std::string> files;    // options taking a file path
    bool simulate = false;
};

const char* const kFileClasses[][2] = {
    {"MissingFile", "{DIR}/no-such-file.json"},
    {"Directory", "{DIR}/a-directory"},
    {"UnreadableFile", "{DIR}/unreadable.json"},
    {"EmptyFile", "{DIR}/empty.json"},
};

void add_cases(std::vector<MatrixCase>& out, const Command& c) {
    const std::string stem = camel(c.base.size() > 1 && c.base[0] == "ingest" ? c.base[0] + "-" + c.base[1] : c.base[0]);
    auto numeric = [&](const std::pair<std::string, Kind>& opt, bool real) {
        // --launch-us 0 is valid in every command that takes it: no dispatch roof (issue 13).
        const bool zero_ok =
            std::find(c.no_zero.begin(), c.no_zero.end(), opt.first) != c.no_zero.end() || opt.first == "--launch-us";
        const Kind kind = opt.second == Kind::shape ? Kind::shape : (real ? Kind::real : Kind::integer);
        for (const BadValue& b : bad_values(kind, zero_ok ? kNoZero : kAll))
            out.push_back({stem + camel(opt.first) + b.label, set_option(c.base, opt.first, b.value), {opt.first}, c.simulate});
    };
    for (const auto& opt : c.integers)
        numeric(opt, false);
    for (const auto& opt : c.reals)
        numeric(opt, true);
    for (const std::string& opt : c.names)
        out.push_back({stem + camel(opt) + "Unknown", set_option(c.base, opt, "nosuch"), {opt, "nosuch"}, c.simulate});
    for (const std::string& opt : c.files)
        for (const auto& fc : kFileClasses) {
            // a positional file (fit FILE, ingest TOOL FILE) replaces the base's last argument
            std::vector<std::string> args = c.base;
            if (opt.rfind("--", 0) == 0)
                args = set_option(args, opt, fc[1]);
            else
                args.back() = fc[1];
            out.push_back({stem + camel(opt) + fc[0], args, {opt, fc[1]}, c.simulate, std::string(fc[0]) == "UnreadableFile"});
        }
}

using K = Kind;

std::vector<MatrixCase> build_matrix() {
    // Every command that takes --gpu-file is tested with each file class there; every --format with "nosuch".
    const std::vector<Command> commands{
        {{"gemm", "--m", "2160", "--k", "5120", "--n", "5120"},
         {{"--m", K::integer}, {"--n", K::integer}, {"--k", K::integer}, {"--batch", K::integer}},
         {{"--time-us", K::real}, {"--launch-us", K::real}},
         {},
         {"--dtype", "--dtype-a", "--dtype-b", "--dtype-c", "--pass", "--gpu", "--format"},
         {"--gpu-file"}},
        {{"conv", "--input", "8,256,56,56", "--out-channels", "256", "--kernel", "3"},
         {{"--input", K::shape},
          {"--out-channels", K::integer},
          {"--kernel", K::integer},
          {"--stride", K::integer},
          {"--padding", K::integer},
          {"--dilation", K::integer},
          {"--output-padding", K::integer},
          {"--groups", K::integer},
          {"--batch", K::integer}},
         {{"--time-us", K::real}, {"--launch-us", K::real}},
         {"--padding", "--output-padding"},
         {"--dtype", "--dtype-input", "--dtype-weight", "--dtype-output", "--pass", "--gpu", "--format"},
         {"--gpu-file"}},
        {{"attention", "--heads", "32", "--kv-heads", "8", "--q-len", "2160", "--kv-len", "2160", "--head-dim", "128"},
         {{"--batch", K::integer},
          {"--heads", K::integer},
          {"--kv-heads", K::integer},
          {"--q-len", K::integer},
          {"--kv-len", K::integer},
          {"--head-dim", K::integer}},
         {{"--time-us", K::real}, {"--launch-us", K::real}},
         {},
         {"--impl", "--dtype", "--gpu", "--format"},
         {"--gpu-file"}},
        {{"elementwise", "--shape", "32,2048,4096"},
         {{"--shape", K::shape},
          {"--inputs", K::integer},
          {"--outputs", K::integer},
          {"--flops-per-elem", K::integer},
          {"--chain", K::integer}},
         {{"--time-us", K::real}, {"--launch-us", K::real}},
         {"--flops-per-elem"},
         {"--dtype", "--unit", "--gpu", "--format"},
         {"--gpu-file"}},
        {{"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2048"},
         {{"--hidden", K::integer},
          {"--heads", K::integer},
          {"--kv-heads", K::integer},
          {"--head-dim", K::integer},
          {"--ffn", K::integer},
          {"--tokens", K::integer},
          {"--tp", K::integer},
          {"--layers", K::integer}},
         {{"--launch-us", K::real}, {"--link-GBps", K::real}, {"--alpha-us", K::real}},
         {},
         {"--preset", "--phase", "--mlp", "--norm", "--attention", "--dtype", "--gpu", "--format"},
         {"--gpu-file", "--preset"}},
        {{"model", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2048", "--layers", "32", "--vocab",
          "128256"},
         {{"--layers", K::integer}, {"--vocab", K::integer}, {"--hidden", K::integer}, {"--tokens", K::integer}},
         {},
         {},
         {"--preset", "--phase", "--dtype", "--gpu", "--format"},
         {"--gpu-file", "--preset"}},
        {{"model", "--preset", "llama3-8b", "--phase", "decode", "--batch", "8", "--context", "4096"},
         {{"--batch", K::integer}, {"--context", K::integer}},
         {},
         {},
         {},
         {}},
        // Issue 13: mixed precision, whole generations, fit.
        {{"model", "--preset", "llama3-8b", "--phase", "decode", "--batch", "8", "--context", "4096", "--weight-dtype", "int4",
          "--group-size", "128", "--act-dtype", "bf16", "--kv-dtype", "fp8"},
         {{"--group-size", K::integer}},
         {},
         {},
         {"--weight-dtype", "--act-dtype", "--kv-dtype"},
         {}},
        {{"model", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "128", "--output", "4"},
         {{"--prompt", K::integer}, {"--output", K::integer}},  // --batch, --context: the decode row (names are unique)
         {},
         {},
         {},
         {}},
        // Issue 13: the diffusion transformer's options, expert and pipeline parallelism.
        {{"model", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--steps", "4", "--cfg", "--frames-per-chunk", "4"},
         {{"--steps", K::integer}, {"--frames-per-chunk", K::integer}, {"--text-tokens", K::integer}},
         {},
         {},
         {},
         {}},
        {{"model", "--preset", "llama3-8b", "--fit", "--context", "4096", "--gpu", "h100-sxm"},
         {{"--workspace", K::integer}},
         {},
         {},
         {},
         {}},
        {{"layer", "--preset", "mixtral-8x7b", "--phase", "decode", "--batch", "16", "--context", "4096", "--ep", "4"},
         {{"--ep", K::integer}},
         {},
         {},
         {},
         {}},
        // The MoE override and the Hugging Face config file (a valid Llama-3-8B config.json in {DIR}).
        {{"model", "--hf-config", "{DIR}/config.json", "--phase", "decode", "--batch", "1", "--context", "128"},
         {},
         {},
         {},
         {},
         {"--hf-config"}},
        {{"layer", "--preset", "mixtral-8x7b", "--phase", "decode", "--batch", "16", "--context", "4096", "--experts-touched",
          "4"},
         {{"--experts-touched", K::integer}},
         {},
         {},
         {},
         {}},
        {{"model", "--preset", "llama3-70b", "--tokens", "4096", "--pp", "4", "--micro-batches", "8"},
         {{"--pp", K::integer}, {"--micro-batches", K::integer}},
         {},
         {},
         {},
         {}},
        {{"train", "--params", "70e9", "--layers", "80", "--hidden", "8192", "--gpu", "h200"},
         {{"--params", K::integer},
          {"--layers", K::integer},
          {"--hidden", K::integer},
          {"--tokens-per-step", K::integer},
          {"--dp", K::integer}},
         {{"--bytes-per-elem", K::real},
          {"--gamma", K::real},
          {"--kappa", K::real},
          {"--alpha-opt", K::real},
          {"--c-act", K::real},
          {"--bytes-per-grad", K::real},
          {"--target-tokens-per-s", K::real},
          {"--util", K::real},
          {"--price-hr", K::real}},
         {"--alpha-opt", "--c-act"},  // 0 is valid: the traffic term left out (cmd_train.cpp nonneg_real)

         {"--dtype", "--gpu", "--format"},
         {"--gpu-file"}},
        {{"step", "--params", "124e6", "--activations-bytes", "3.2e9", "--step-ms", "180", "--gpu", "h200"},
         {{"--params", K::integer}, {"--activations-bytes", K::integer}, {"--optimizer-bytes-per-param", K::integer}},
         {{"--step-ms", K::real}},
         {"--optimizer-bytes-per-param"},
         {"--dtype", "--gpu", "--format"},
         {"--gpu-file"}},
        {{"zero", "--model-bytes", "1e9", "--ranks", "4", "--gpu", "h200"},
         {{"--model-bytes", K::integer},
          {"--ranks", K::integer},
          {"--layers", K::integer},
          {"--accum", K::integer},
          {"--optimizer-bytes-per-param", K::integer}},
         {{"--link-GBps", K::real}},
         {"--optimizer-bytes-per-param"},
         {"--algo", "--dtype", "--gpu", "--format"},
         {"--gpu-file"}},
        {{"zero", "--params", "7e9", "--ranks", "8"}, {{"--params", K::integer}}, {}, {}, {}, {}},
        {{"project", "--from", "h200", "--to", "b200", "--fps", "20"},
         {},
         {{"--fps", K::real}},
         {},
         {"--from", "--to", "--bound", "--format"},
         {"--gpu-file"}},
        {{"project", "--from", "h100-sxm", "--to", "h200", "--time-us", "850", "--bound", "compute"},
         {},
         {{"--time-us", K::real}},
         {},
         {"--dtype", "--unit"},
         {}},
        {{"fit", "--gpu", "h200", "{DIR}/times.csv"}, {}, {}, {}, {"--gpu", "--x", "--y", "--format"}, {"--gpu-file", "file"}},
        {{"gpus"}, {}, {}, {}, {"--format"}, {"--gpu-file"}},
        {{"gpu", "h200"}, {}, {}, {}, {"--format"}, {"--gpu-file"}},
        {{"hbm", "--kernel", "copy", "--size", "64M", "--max-samples", "5"},
         {{"--size", K::integer}, {"--max-samples", K::integer}},
         {},
         {},
         {"--kernel", "--format"},
         {"--gpu-file"},
         true},
        {{"launch", "--max-samples", "5"}, {{"--max-samples", K::integer}}, {}, {}, {"--format"}, {"--gpu-file"}, true},
        {{"device"}, {}, {}, {}, {"--format"}, {"--gpu-file"}, true},
        {{"calibrate", "--cache", "{DIR}/calibration.json", "--max-samples", "5"},
         {{"--max-samples", K::integer}},
         {},
         {},
         {"--format"},
         {"--gpu-file"},
         true},
    };
    std::vector<MatrixCase> out;
    for (const Command& c : commands)
        add_cases(out, c);

    // The seven collectives: every numeric option and name; --gpu-file once per collective.
    for (const char* coll : {"allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv"})
        add_cases(out,
                  Command{{coll, "--bytes", "8M", "--ranks", "8"},
                          {{"--bytes", K::integer}, {"--ranks", K::integer}},
                          {{"--link-GBps", K::real}, {"--alpha-us", K::real}, {"--time-us", K::real}, {"--launch-us", K::real}},
                          {},
                          {"--algo", "--link", "--dtype", "--gpu", "--format"},
                          {"--gpu-file"}});
    for (const char* coll : {"allreduce", "alltoall"})
        add_cases(out, Command{{coll, "--shape", "1,2160,5120", "--ranks", "8"}, {{"--shape", K::shape}}, {}, {}, {}, {}});
    for (const char* norm : {"layernorm", "rmsnorm", "softmax"})
        add_cases(out, Command{{norm, "--shape", "8,2048,4096"},
                               {{"--shape", K::shape}},
                               {{"--time-us", K::real}, {"--launch-us", K::real}},
                               {},
                               {"--dtype", "--gpu", "--format"},
                               {"--gpu-file"}});
    // `bwacct ingest TOOL FILE`: the file classes.
    for (const char* tool : {"nccl-tests", "torch-trace", "nsys", "ncu", "babelstream"})
        add_cases(out, Command{{"ingest", tool, "{DIR}/input.txt"}, {}, {}, {}, {}, {"file"}});

    // Issue 14: a baseline log and two bwacct JSON outputs to compare, each a file option.
    add_cases(out, Command{{"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--baseline", "{DIR}/all_reduce.log"},
                           {},
                           {},
                           {},
                           {},
                           {"--baseline"}});
    add_cases(out, Command{{"compare", "{DIR}/a.json", "{DIR}/a.json"}, {}, {}, {}, {}, {"b"}});
    const std::string trace = std::string(BWACCT_TEST_DATA) + "/kineto/synthetic_eager_attention.json";
    add_cases(out, Command{{"ingest", "torch-trace", trace, "--baseline", trace}, {}, {}, {}, {}, {"--baseline"}});
    out.push_back(
        {"IngestTorchBaselineNotATrace", {"ingest", "torch-trace", trace, "--baseline", "{DIR}/times.csv"}, {"times.csv"}});
    out.push_back({"IngestTorchToleranceNotANumber",
                   {"ingest", "torch-trace", trace, "--baseline", trace, "--tolerance", "abc"},
                   {"--tolerance"}});
    out.push_back(
        {"IngestTorchToleranceWithoutBaseline", {"ingest", "torch-trace", trace, "--tolerance", "5%"}, {"--tolerance"}});
    // What the trace lacks, from the user: --hf-config FILE (the file classes) and --tp N (its numbers; only with
    // --hf-config, and never against the degree the trace's attention ops show: 8 query heads of gpt-oss's 64).
    const std::string gpt_oss = std::string(BWACCT_TEST_DATA) + "/models/gpt-oss-120b.config.json";
    add_cases(out, Command{{"ingest", "torch-trace", trace, "--hf-config", gpt_oss, "--tp", "2"},
                           {{"--tp", K::integer}},
                           {},
                           {},
                           {},
                           {"--hf-config"}});
    out.push_back({"IngestTorchTpWithoutHfConfig", {"ingest", "torch-trace", trace, "--tp", "8"}, {"--tp"}});
    out.push_back(
        {"IngestTorchTpAgainstTheTrace",
         {"ingest", "torch-trace", std::string(BWACCT_TEST_DATA) + "/kineto/kineto_b200_vllm_moe_eager_tracelens.json.gz",
          "--gpu", "b200", "--hf-config", gpt_oss, "--tp", "4"},
         {"--tp"}});

    // Products that overflow 64 bits although each value is below 2^53 (2^32 each).
    const std::string big = "4294967296";
    const std::string wan_t2v = std::string(BWACCT_TEST_DATA) + "/models/wan2.1-t2v-14b.config.json";
    const std::vector<MatrixCase> products{
        {"AttentionProductOverflows",
         {"attention", "--heads", big, "--kv-heads", big, "--q-len", big, "--kv-len", big, "--head-dim", big},
         {"--heads", "--q-len", "--kv-len", "--head-dim"}},
        // elements 2^32·2^32·2^32 = 2^96
        {"ElementwiseShapeProductOverflows", {"elementwise", "--shape", big + "," + big + "," + big}, {"--shape"}},
        {"LayernormShapeProductOverflows", {"layernorm", "--shape", big + "," + big + "," + big}, {"--shape"}},
        {"SoftmaxShapeProductOverflows", {"softmax", "--shape", big + "," + big + "," + big}, {"--shape"}},
        // 2^32·2^32 bf16 elements = 2^65 bytes
        {"AllreduceShapeProductOverflows", {"allreduce", "--shape", big + "," + big, "--ranks", "8"}, {"--shape"}},
        // per token 2^32·2^32 hidden·ffn weights: the QKV/MLP GEMMs alone are 2·2^32·2^32·2^32 FLOPs
        {"LayerProductOverflows",
         {"layer", "--hidden", big, "--heads", "32", "--ffn", big, "--tokens", big},
         {"--hidden", "--tokens", "--ffn"}},
        {"LayerPresetTokensOverflow", {"layer", "--preset", "llama3-8b", "--tokens", "1e15"}, {"--tokens"}},
        // Issue 13: --efficiency takes key=value fractions; options that apply to other models only.
        {"LayerEfficiencyAboveOne",
         {"layer", "--preset", "llama3-8b", "--tokens", "2048", "--efficiency", "hbm=1.5"},
         {"--efficiency"}},
        {"LayerEfficiencyZero",
         {"layer", "--preset", "llama3-8b", "--tokens", "2048", "--efficiency", "compute=0"},
         {"--efficiency"}},
        {"LayerEfficiencyUnknownKey",
         {"layer", "--preset", "llama3-8b", "--tokens", "2048", "--efficiency", "flops=0.5"},
         {"--efficiency"}},
        {"LayerEfficiencyNoValue",
         {"layer", "--preset", "llama3-8b", "--tokens", "2048", "--efficiency", "hbm"},
         {"--efficiency"}},
        {"LayerEfficiencyOverflow",
         {"layer", "--preset", "llama3-8b", "--tokens", "2048", "--efficiency", "hbm=1e400"},
         {"--efficiency"}},
        {"LayerEpOnDenseModel", {"layer", "--preset", "llama3-8b", "--tokens", "2048", "--ep", "2"}, {"--ep"}},
        {"LayerEpNotDividingExperts", {"layer", "--preset", "mixtral-8x7b", "--tokens", "2048", "--ep", "3"}, {"--ep"}},
        {"ModelPpAboveLayers", {"model", "--preset", "llama3-8b", "--tokens", "2048", "--pp", "33"}, {"--pp"}},
        {"ModelMicroBatchesWithoutPp",
         {"model", "--preset", "llama3-8b", "--tokens", "2048", "--micro-batches", "4"},
         {"--micro-batches"}},
        {"ModelCfgOnDecoderOnly", {"model", "--preset", "llama3-8b", "--tokens", "2048", "--cfg"}, {"--cfg"}},
        {"LayerStepsOnDitLayer", {"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--steps", "4"}, {"--steps"}},
        {"DitTpNotDividingHeads", {"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--tp", "3"}, {"--tp"}},
        // --wan-i2v is never ignored: a bad value (an empty one too), or the option where it does not apply (sizes
        // by hand, a preset, a t2v config.json), names it. The value must be 2.1 or 2.2.
        {"WanI2vBogusBySize",
         {"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--layers", "32", "--tokens", "16", "--wan-i2v",
          "bogus"},
         {"--wan-i2v"}},
        {"WanI2vValidBySize",
         {"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--layers", "32", "--tokens", "16", "--wan-i2v", "2.1"},
         {"--wan-i2v"}},
        {"WanI2vOnPreset", {"model", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--wan-i2v", "2.2"}, {"--wan-i2v"}},
        {"WanI2vEmptyOnT2vConfig", {"model", "--hf-config", wan_t2v, "--tokens", "2160", "--wan-i2v", ""}, {"--wan-i2v"}},
        // params·(dtype bytes + optimizer bytes) = (2^53 − 1)·(4 + 2^53 − 1) > 2^64
        {"StepProductOverflows",
         {"step", "--params", "9007199254740991", "--optimizer-bytes-per-param", "9007199254740991", "--activations-bytes", "1G",
          "--step-ms", "180", "--gpu", "h200"},
         {"--params", "--optimizer-bytes-per-param"}},
        {"ZeroProductOverflows",
         {"zero", "--params", "9007199254740991", "--optimizer-bytes-per-param", "9007199254740991", "--ranks", "4"},
         {"--params", "--optimizer-bytes-per-param"}},
        // a sweep of 2^53 − 1 points (1:9007199254740991:+1) is over the 10^7-point limit
        {"SweepTooManyPoints", {"gemm", "--m", "1:9007199254740991:+1", "--n", "8", "--k", "8"}, {"--m"}},
        {"HwUnknownKey", {"train", "--params", "70e9", "--layers", "80", "--hidden", "8192", "--hw", "nosuch=1"}, {"--hw"}},
        {"HwNegativeTflops",
         {"train", "--params", "70e9", "--layers", "80", "--hidden", "8192", "--hw", "name=x,tflops=-1,hbm_TBps=3"},
         {"--hw"}},
        {"ProjectRateNotANumber", {"project", "--from", "h200", "--to", "b200", "--rate", "abc tokens/s"}, {"--rate"}},
        {"ProjectRateZero", {"project", "--from", "h200", "--to", "b200", "--rate", "0 tokens/s"}, {"--rate"}},
        {"GpuIdUnknown", {"gpu", "nosuch"}, {"nosuch"}},
        {"CalibrateCacheIsADirectory", {"calibrate", "--cache", "{DIR}/a-directory", "--max-samples", "5"}, {"--cache"}, true},
        // Issue 11 defect 3: 2^31 overflowed the sampler's int ("median 0.00 µs over 0 samples", exit 0).
        {"GemmMeasureMaxSamplesAboveInt",
         {"gemm", "--m", "64", "--n", "64", "--k", "64", "--measure", "--max-samples", "2147483648"},
         {"--max-samples"},
         true},
        {"HbmMaxSamplesAboveInt",
         {"hbm", "--kernel", "copy", "--size", "64M", "--max-samples", "2147483648"},
         {"--max-samples"},
         true},
        // Issue 11 defect 4: derived figures that are not finite (inf, NaN) are bad input naming the option.
        {"GemmTimeUsTiny", {"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--time-us", "1e-307"}, {"--time-us"}},
        {"GemmTimeUsTinyJson",
         {"gemm", "--m", "4096", "--n", "4096", "--k", "4096", "--time-us", "1e-307", "--format", "json"},
         {"--time-us"}},
        {"AllreduceAlphaHuge", {"allreduce", "--bytes", "8M", "--ranks", "8", "--alpha-us", "1e308"}, {"--alpha-us"}},
        {"AllreduceLinkTiny", {"allreduce", "--bytes", "8M", "--ranks", "8", "--link-GBps", "1e-307"}, {"--link-GBps"}},
        {"LayerLaunchHuge",
         {"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2048", "--launch-us", "1e308"},
         {"--launch-us"}},
        {"LayerLaunchHugeJson",
         {"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2048", "--launch-us", "1e308", "--format",
          "json"},
         {"--launch-us"}},
        {"TrainKappaTiny",
         {"train", "--params", "70e9", "--layers", "80", "--hidden", "8192", "--gpu", "h200", "--kappa", "1e-307"},
         {"--kappa"}},
        {"TrainHwHuge",
         {"train", "--params", "70e9", "--layers", "80", "--hidden", "8192", "--hw", "name=x,tflops=1e308,hbm_TBps=1e308"},
         {"--hw"}},
        {"ZeroAlphaHuge", {"zero", "--params", "7e9", "--ranks", "8", "--alpha-us", "1e308"}, {"--alpha-us"}},
        {"ProjectRateHuge", {"project", "--from", "h200", "--to", "b200", "--rate", "1.5e308 tokens/s"}, {"--rate"}},
        // Issue 13: combinations that do not apply.
        {"GenerateWithContext",
         {"model", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "8", "--output", "4", "--context", "64"},
         {"--context"}},
        {"GenerateWithoutOutput", {"model", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "8"}, {"--output"}},
        {"GenerateOutputTooLong",
         {"model", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "8", "--output", "200000"},
         {"--output"}},
        {"LayerGenerate",
         {"layer", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "8", "--output", "4"},
         {"--phase"}},
        {"PromptWithoutGenerate", {"model", "--preset", "llama3-8b", "--seq", "8", "--prompt", "8"}, {"--prompt"}},
        {"ModelSweepTooManyPoints",
         {"model", "--preset", "llama3-8b", "--phase", "decode", "--batch", "1:200:+1", "--context", "1:100:+1"},
         {"--batch"}},
        {"FitWithoutContext", {"model", "--preset", "llama3-8b", "--fit"}, {"--context"}},
        {"FitWithPhase", {"model", "--preset", "llama3-8b", "--fit", "--context", "64", "--phase", "decode"}, {"--phase"}},
        {"WorkspaceWithoutFit", {"model", "--preset", "llama3-8b", "--seq", "8", "--workspace", "1G"}, {"--workspace"}},
        {"GroupSizeWithoutWeightDtype", {"layer", "--preset", "llama3-8b", "--seq", "8", "--group-size", "64"}, {"--group-size"}},
        {"GroupSizeOnNvfp4",
         {"layer", "--preset", "llama3-8b", "--seq", "8", "--weight-dtype", "nvfp4", "--group-size", "64"},
         {"--group-size"}},
        {"DtypeInt4Activations", {"layer", "--preset", "llama3-8b", "--seq", "8", "--dtype", "int4"}, {"--dtype"}},
        {"ActDtypeInt4", {"layer", "--preset", "llama3-8b", "--seq", "8", "--act-dtype", "int4"}, {"--act-dtype"}},
        {"WeightInt8WithFp8Activations",
         {"layer", "--preset", "llama3-8b", "--seq", "8", "--weight-dtype", "int8", "--act-dtype", "fp8"},
         {"--weight-dtype"}},
        {"TrainingWithInt4Weights",
         {"layer", "--preset", "llama3-8b", "--phase", "training", "--seq", "8", "--weight-dtype", "int4"},
         {"--weight-dtype"}},
        {"TrainingWithKvDtype",
         {"layer", "--preset", "llama3-8b", "--phase", "training", "--seq", "8", "--kv-dtype", "fp8"},
         {"--kv-dtype"}},
        // Issue 11 defect 21: messages that say what is wrong.
        {"ProjectRateList", {"project", "--from", "h200", "--to", "b200", "--rate", "5fps,6fps"}, {"--rate"}},
        {"ProjectRateHex", {"project", "--from", "h200", "--to", "b200", "--rate", "0x10 tokens/s"}, {"--rate"}},
        {"GemmThousandsSeparator", {"gemm", "--m", "1,000", "--n", "8", "--k", "8"}, {"thousands separators"}},
        {"GemmIntegerStepZero", {"gemm", "--m", "1:8:+0", "--n", "8", "--k", "8"}, {"step after + must be a positive integer"}},
        // Issue 14: the new options.
        {"GemmZipUnequalLists", {"gemm", "--m", "1,2,3", "--n", "8", "--k", "8", "--time-us", "5,6", "--zip"}, {"--zip"}},
        {"GemmTimeGpuUnknown",
         {"gemm", "--m", "8", "--n", "8", "--k", "8", "--time-us", "5", "--time-gpu", "nosuch"},
         {"--time-gpu"}},
        {"GemmTimeGpuNotSelected",
         {"gemm", "--m", "8", "--n", "8", "--k", "8", "--gpu", "h200", "--time-us", "5", "--time-gpu", "b200"},
         {"--time-gpu"}},
        {"GemmTimeGpuWithoutTime", {"gemm", "--m", "8", "--n", "8", "--k", "8", "--time-gpu", "h200"}, {"--time-gpu"}},
        {"GemmNoHeaderWithTable", {"gemm", "--m", "8", "--n", "8", "--k", "8", "--no-header"}, {"--no-header"}},
        {"IngestNcclToleranceNotANumber",
         {"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--baseline", "{DIR}/all_reduce.log", "--tolerance", "abc"},
         {"--tolerance"}},
        {"IngestNcclToleranceNegative",
         {"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--baseline", "{DIR}/all_reduce.log", "--tolerance", "-5%"},
         {"--tolerance"}},
        {"IngestNcclToleranceAbove100",
         {"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--baseline", "{DIR}/all_reduce.log", "--tolerance", "150%"},
         {"--tolerance"}},
        {"IngestNcclToleranceWithoutBaseline",
         {"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--tolerance", "5%"},
         {"--tolerance"}},
        {"IngestNcclBaselineNotALog",
         {"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--baseline", "{DIR}/times.csv"},
         {"times.csv"}},
        {"IngestSectionUnknown",
         {"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--format", "csv", "--section", "nosuch"},
         {"--section"}},
        {"IngestSectionWithTableFormat", {"ingest", "nccl-tests", "{DIR}/all_reduce.log", "--section", "rows"}, {"--section"}},
        {"CompareNotBwacctJson", {"compare", "{DIR}/times.csv", "{DIR}/a.json"}, {"times.csv"}},
        {"CompareToleranceNotANumber", {"compare", "{DIR}/a.json", "{DIR}/a.json", "--tolerance", "x"}, {"--tolerance"}},
        {"CompareFormatCsv", {"compare", "{DIR}/a.json", "{DIR}/a.json", "--format", "csv"}, {"--format"}},
        {"GemmMeasureMaxSamplesZero",
         {"gemm", "--m", "64", "--n", "64", "--k", "64", "--measure", "--max-samples", "0"},
         {"--max-samples"},
         true},
    };
    out.insert(out.end(), products.begin(), products.end());
    // Issue 14: an unknown command, tool or option is named with the nearest valid names; a token
    // count or size takes K, M, G, T (or k, m, g, t) and nothing else; `completion` takes a shell.
    const std::vector<MatrixCase> forgiving = {
        {"UnknownCommand", {"gemn", "--m", "8"}, {"'gemn'"}},
        {"UnknownIngestTool", {"ingest", "nccl", "{DIR}/input.txt"}, {"'nccl'"}},
        {"IngestWithoutTool", {"ingest"}, {"nccl-tests"}},
        {"GemmUnknownOption", {"gemm", "--m", "8", "--n", "8", "--k", "8", "--dtyp", "bf16"}, {"--dtyp"}},
        {"GemmUnknownOptionWithValue", {"gemm", "--m", "8", "--n", "8", "--k", "8", "--dtyp=bf16"}, {"--dtyp"}},
        {"AllreduceHotNotOffered", {"allreduce", "--bytes", "8M", "--ranks", "8", "--hot"}, {"--hot"}},
        {"LayerContextBadSuffix",
         {"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--phase", "decode", "--context", "8X"},
         {"--context"}},
        {"LayerTokensBadSuffix",
         {"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--tokens", "2KB"},
         {"--tokens"}},
        {"AttentionKvLenNotWholeAfterSuffix",
         {"attention", "--batch", "1", "--heads", "32", "--head-dim", "128", "--q-len", "1", "--kv-len", "0.3k"},
         {"--kv-len"}},
        {"AllreduceBytesStepBadSuffix", {"allreduce", "--bytes", "1K:1G:+1Q", "--ranks", "8"}, {"--bytes"}},
        {"CompletionUnknownShell", {"completion", "tcsh"}, {"tcsh"}},
        {"CompletionNoShell", {"completion"}, {"shell"}},
    };
    out.insert(out.end(), forgiving.begin(), forgiving.end());
    return out;
}

const std::vector<MatrixCase>& matrix() {
    static const std::vector<MatrixCase> m = build_matrix();
    return m;
}

// ---------------------------------------------------------------------------------------------
// Running it.

class BadInputMatrix : public ::testing::TestWithParam<MatrixCase> {
protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir();
        fs::create_directories(dir_->file("a-directory"));
        write_text(dir_->file("empty.json"), "");
        // valid inputs, so that each case differs from a passing run only in the bad value
        write_text(dir_->file("times.csv"), "bytes,time_us\n1048576,10\n2097152,15\n4194304,25\n");
        write_text(dir_->file("input.txt"), "not used: each ingest case replaces the file\n");
        write_text(dir_->file("config.json"), read_text(std::string(BWACCT_TEST_DATA) + "/models/llama-3-8b.config.json"));
        // issue 14: a valid nccl-tests log (baselines) and a bwacct JSON output (compare)
        write_text(dir_->file("all_reduce.log"), read_text(std::string(BWACCT_TEST_DATA) + "/ux/all_reduce_base.log"));
        write_text(dir_->file("a.json"), run_bwacct({"gemm", "--m", "64", "--n", "64", "--k", "64", "--format", "json"}).out);
        // A valid catalog the user cannot read (chmod 000). Root reads it anyway: see unreadable_skipped().
        write_text(dir_->file("unreadable.json"), read_text(catalog_path()));
        fs::permissions(dir_->file("unreadable.json"), fs::perms::none);
        std::ifstream probe(dir_->file("unreadable.json"));
        root_reads_anything_ = probe.good();
    }
    static void TearDownTestSuite() {
        fs::permissions(dir_->file("unreadable.json"), fs::perms::owner_read | fs::perms::owner_write);
        delete dir_;
        dir_ = nullptr;
    }
    static std::string expand(std::string s) {
        for (std::size_t pos; (pos = s.find("{DIR}")) != std::string::npos;)
            s.replace(pos, 5, dir_->path());
        return s;
    }
    static TempDir* dir_;
    static bool root_reads_anything_;
};
TempDir* BadInputMatrix::dir_ = nullptr;
bool BadInputMatrix::root_reads_anything_ = false;

TEST_P(BadInputMatrix, ExitsTwoWithOneLineNamingTheOption) {
    const MatrixCase& c = GetParam();
    if (c.unreadable && root_reads_anything_)
        GTEST_SKIP() << "running as root: a chmod 000 file is still readable, so the unreadable-file case cannot be made";
    std::vector<std::string> args;
    for (const std::string& a : c.args)
        args.push_back(expand(a));
    RunOptions opt;
    if (c.simulate)
        opt.env["BWACCT_SIMULATE"] = "h200";
    else
        opt.env["BWACCT_SIMULATE"] = std::nullopt;
    const RunResult r = run_bwacct(args, opt);
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out) << "a hang";
    EXPECT_EQ(r.signal, 0) << "a crash";
    EXPECT_EQ(r.status, 2) << "bad input must exit 2";
    EXPECT_EQ(r.out, "") << "bad input must print nothing on stdout";
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "stderr must be exactly one line";
    EXPECT_TRUE(!r.err.empty() && r.err.back() == '\n') << "the line ends with a newline";
    bool named = false;
    std::vector<std::string> names;
    for (const std::string& n : c.must_name) {
        names.push_back(expand(n));
        named = named || r.err.find(names.back()) != std::string::npos;
    }
    EXPECT_TRUE(named) << "stderr must name " << fmt::format("{}", fmt::join(names, " or "));
}

INSTANTIATE_TEST_SUITE_P(Matrix, BadInputMatrix, ::testing::ValuesIn(matrix()),
                         [](const ::testing::TestParamInfo<MatrixCase>& param_info) { return param_info.param.name; });

// The matrix spans every subcommand `bwacct --help` lists (a new command must be added here).
TEST(BadInputMatrixCoverage, EveryCommandIsInTheMatrix) {
    const RunResult help = run_bwacct({"--help"});
    ASSERT_EQ(help.status, 0) << report(help);
    std::vector<std::string> listed;
    bool in_list = false;
    for (const std::string& line : lines_of(help.out)) {
        if (line.rfind("Subcommands:", 0) == 0) {
            in_list = true;
            continue;
        }
        if (in_list && line.size() > 2 && line[0] == ' ' && line[2] != ' ') {
            const std::string name = line.substr(2, line.find(' ', 2) - 2);
            listed.push_back(name);
        } else if (in_list && line.empty()) {
            break;
        }
    }
    ASSERT_GE(listed.size(), 20u) << help.out;
    for (const std::string& cmd : listed) {
        const bool covered =
            std::any_of(matrix().begin(), matrix().end(), [&](const MatrixCase& c) { return c.args.at(0) == cmd; });
        EXPECT_TRUE(covered) << "bwacct " << cmd << " has no case in the bad-input matrix";
    }
}

}  // namespace
