#include "option_kind.h"

#include <string>
#include <utility>

namespace bwacct::cli {
namespace {

// The kinds: how the command reads the value (values.h for the numeric ones). RANGE: one value, a
// list a,b,c or a range a:b:xF / a:b:+S (a sweep). LIST: comma-separated values. SIZE takes K, M,
// G, T (powers of 1024); a token count (INT) takes the same suffixes.
constexpr std::string_view kInt = "INT", kInts = "INT|RANGE", kDims = "INT|LIST", kSize = "SIZE", kSizes = "SIZE|RANGE",
                           kReal = "FLOAT", kReals = "FLOAT|RANGE", kRealPerGpu = "FLOAT|LIST", kName = "NAME", kNames = "LIST",
                           kFile = "FILE", kShape = "SHAPE", kPercent = "PERCENT", kRate = "RATE", kKeyValues = "KEY=VALUE",
                           kVideo = "FxHxW";

// Option name -> kind, for every command that takes it unless kByCommand says otherwise.
constexpr std::pair<std::string_view, std::string_view> kByName[] = {
    // Shared by the op, ingest and workload commands.
    {"--gpu", kNames},
    {"--gpu-file", kFile},
    {"--format", kName},
    {"--plot", kFile},
    {"--time-us", kReals},
    {"--time-gpu", kName},
    {"--launch-us", kReal},
    {"--max-samples", kInt},
    {"--top", kInt},
    {"--section", kName},
    {"--tolerance", kPercent},
    {"--baseline", kFile},
    {"file", kFile},
    {"a", kFile},
    {"b", kFile},
    {"id", kName},
    {"shell", kName},
    // dtypes and other choices from a fixed list.
    {"--dtype", kName},
    {"--wan-i2v", kName},
    {"--dtype-a", kName},
    {"--dtype-b", kName},
    {"--dtype-c", kName},
    {"--dtype-input", kName},
    {"--dtype-weight", kName},
    {"--dtype-output", kName},
    {"--act-dtype", kName},
    {"--weight-dtype", kName},
    {"--kv-dtype", kName},
    {"--pass", kName},
    {"--impl", kName},
    {"--unit", kName},
    {"--algo", kName},
    {"--link", kName},
    {"--bound", kName},
    {"--op", kName},
    {"--phase", kName},
    {"--mlp", kName},
    {"--norm", kName},
    {"--attention", kName},
    {"--preset", kName},
    {"--from", kName},
    {"--to", kNames},
    {"--x", kName},
    {"--y", kName},
    {"--hf-config", kFile},
    {"--cache", kFile},
    // Op sizes: sweepable integers.
    {"--m", kInts},
    {"--n", kInts},
    {"--k", kInts},
    {"--batch", kInts},
    {"--heads", kInts},
    {"--kv-heads", kInts},
    {"--q-len", kInts},
    {"--kv-len", kInts},
    {"--head-dim", kInts},
    {"--out-channels", kInts},
    {"--groups", kInts},
    {"--inputs", kInts},
    {"--outputs", kInts},
    {"--flops-per-elem", kInts},
    {"--chain", kInts},
    {"--ranks", kInts},
    {"--bytes", kSizes},
    {"--shape", kShape},
    {"--input", kShape},
    {"--kernel", kDims},
    {"--stride", kDims},
    {"--padding", kDims},
    {"--dilation", kDims},
    {"--output-padding", kDims},
    {"--link-GBps", kReal},
    {"--alpha-us", kReal},
    // layer and model: the sequence axes sweep, the sizes of the model do not.
    {"--seq", kInts},
    {"--tokens", kInts},
    {"--context", kInts},
    {"--prompt", kInts},
    {"--output", kInts},
    {"--hidden", kInt},
    {"--layers", kInt},
    {"--ffn", kInt},
    {"--vocab", kInt},
    {"--tp", kInt},
    {"--ep", kInt},
    {"--pp", kInt},
    {"--micro-batches", kInt},
    {"--group-size", kInt},
    {"--experts-touched", kInt},
    {"--text-tokens", kInt},
    {"--steps", kInt},
    {"--frames-per-chunk", kInt},
    {"--video", kVideo},
    {"--workspace", kSize},
    {"--efficiency", kReal},
    // train, step, zero.
    {"--params", kInt},
    {"--bytes-per-elem", kReal},
    {"--gamma", kReal},
    {"--kappa", kReal},
    {"--alpha-opt", kReal},
    {"--c-act", kReal},
    {"--tokens-per-step", kInt},
    {"--bytes-per-grad", kReal},
    {"--dp", kInt},
    {"--target-tokens-per-s", kReal},
    {"--util", kReal},
    {"--price-hr", kRealPerGpu},
    {"--nic-Gbps", kRealPerGpu},
    {"--hw", kKeyValues},
    {"--optimizer-bytes-per-param", kInt},
    {"--activations-bytes", kSize},
    {"--step-ms", kReal},
    {"--model-bytes", kSize},
    {"--accum", kInt},
    {"--zero3-gathers", kInt},
    // project and the measurements.
    {"--fps", kReals},
    {"--rate", kRate},
    {"--size", kSize},
};

// Where a command reads a name differently: (command, option) -> kind.
struct CommandKind {
    std::string_view command, option, kind;
};
constexpr CommandKind kByCommand[] = {
    {"ingest nccl-tests", "--ranks", kInt},  // the ranks of the run the log records
    {"zero", "--ranks", kInt},
    {"hbm", "--kernel", kNames},  // copy,read,write,triad
    {"fit", "--gpu", kName},      // the one GPU whose HBM peak the fit is compared with
};

}  // namespace

std::optional<std::string_view> option_kind(const CommandSpec& command, const OptionSpec& option) {
    if (option.flag)
        return std::string_view{};
    const std::string full = command.parent.empty() ? command.name : command.parent + " " + command.name;
    for (const CommandKind& k : kByCommand)
        if (k.command == full && k.option == option.name)
            return k.kind;
    for (const auto& [name, kind] : kByName)
        if (name == option.name)
            return kind;
    return std::nullopt;
}

}  // namespace bwacct::cli
