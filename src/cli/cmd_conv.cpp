#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "bwacct/values.h"
#include "op_runner.h"

namespace bwacct::cli {

namespace {

// A per-spatial-dimension option: one value for every dimension or one per dimension ("3" or "3,3").
std::vector<std::uint64_t> dims_option(const Args& args, const std::string& option, ValueKind kind) {
    const std::string& text = args.get(option);
    if (text.empty())
        return {};
    if (text.find(':') != std::string::npos)
        throw InputError(option, fmt::format("takes one value per spatial dimension or one for all (e.g. 1 or 1,1), not a "
                                             "range; got '{}'",
                                             text));
    std::vector<std::uint64_t> out;
    for (double v : parse_values(text, option, kind))
        out.push_back(static_cast<std::uint64_t>(v));
    return out;
}

std::string dims_text(const std::vector<std::uint64_t>& v) { return fmt::format("{}", fmt::join(v, "x")); }

}  // namespace

CommandSpec conv_command() {
    CommandSpec c;
    c.name = "conv";
    c.summary =
        "convolution 1D/2D/3D (grouped, dilated, transposed): FLOPs 2·N·C_out·spatial_out·(C_in/groups)·kernel, "
        "minimum HBM bytes, the implicit GEMM, roofs and bound";
    c.example =
        "bwacct conv --input 32,3,224,224 --out-channels 64 --kernel 7 --stride 2 --padding 3 --time-us 400\n"
        "  bwacct conv --input 1,512,4,60,104 --out-channels 512 --kernel 3 --padding 1 --batch 1:8:x2 --format jsonl";
    c.options = {
        {"--input", "input N,C,H[,W[,D]] (channels-first description; the layout does not change the minimum bytes)", ""},
        {"--out-channels", "output channels C_out", ""},
        {"--kernel", "kernel size per spatial dimension, or one for all (e.g. 3,3 or 3)", ""},
        {"--stride", "stride per spatial dimension, or one for all", "1"},
        {"--padding", "zero padding on each side, per spatial dimension or one for all", "0"},
        {"--dilation", "dilation per spatial dimension, or one for all", "1"},
        {"--groups", "groups (C_in and C_out multiples of it; groups = C_in is depthwise)", "1"},
        {"--batch", "batch size, overriding N of --input (sweepable)", ""},
        {"--transposed", "transposed convolution (ConvTranspose*d, deconvolution; weight C_in×C_out/groups×kernel)", "", true},
        {"--output-padding", "with --transposed: extra size on one side of the output, per dimension or one for all", "0"},
        {"--bias", "add a bias of C_out elements (read once, in the output's dtype)", "", true},
        {"--dtype", "dtype of input, weight and output unless --dtype-input/-weight/-output say otherwise", "bf16"},
        {"--dtype-input", "dtype of the input X (default: --dtype)", ""},
        {"--dtype-weight", "dtype of the weight W (default: the input's)", ""},
        {"--dtype-output", "dtype of the output Y (default: the input's; bf16 when the input is fp8 or fp4)", ""},
        {"--pass", "fwd, bwd (data + weight), fwd+bwd, bwd-data (dX) or bwd-weight (dW)", "fwd"},
    };
    for (OptionSpec& o : common_op_options())
        c.options.push_back(std::move(o));
    c.run = [](const Args& args, const Env& env) {
        if (args.get("--input").empty())
            throw InputError("--input", "is required (N,C,H[,W[,D]], e.g. 32,3,224,224)");
        const std::vector<std::uint64_t> input = parse_shape(args.get("--input"), "--input");
        if (input.size() < 3 || input.size() > 5)
            throw InputError("--input", fmt::format("expected N,C,H[,W[,D]]: 3 to 5 sizes (e.g. 32,3,224,224); got '{}'",
                                                    args.get("--input")));
        ConvDesc base;
        base.batch = input[0];
        base.in_channels = input[1];
        base.spatial.assign(input.begin() + 2, input.end());
        if (args.get("--kernel").empty())
            throw InputError("--kernel", "is required (e.g. --kernel 3,3 or --kernel 3)");
        base.kernel = dims_option(args, "--kernel", ValueKind::count);
        base.stride = dims_option(args, "--stride", ValueKind::count);
        base.padding = dims_option(args, "--padding", ValueKind::whole);
        base.dilation = dims_option(args, "--dilation", ValueKind::count);
        base.output_padding = dims_option(args, "--output-padding", ValueKind::whole);
        base.transposed = args.flag("--transposed");
        base.bias = args.flag("--bias");
        const DType all = dtype_option(args, "--dtype");
        base.input_dtype = args.get("--dtype-input").empty() ? all : dtype_option(args, "--dtype-input");
        base.weight_dtype = args.get("--dtype-weight").empty() ? base.input_dtype : dtype_option(args, "--dtype-weight");
        // As for GEMM: fp8 and fp4 convolutions write bf16 unless told otherwise.
        const bool low_precision_float = peak_key(base.input_dtype) == "fp8" || peak_key(base.input_dtype) == "fp4";
        base.output_dtype = !args.get("--dtype-output").empty() ? dtype_option(args, "--dtype-output")
                            : low_precision_float               ? DType::bf16
                                                                : base.input_dtype;
        base.pass = parse_gemm_pass(args.get("--pass"));

        OpPlan plan;
        plan.axes = {{"--batch", ValueKind::count}, {"--out-channels", ValueKind::count}, {"--groups", ValueKind::count}};
        plan.defaults = {{"--batch", std::to_string(base.batch)}};
        plan.fixed = {{"in_channels", base.in_channels},
                      {"input", dims_text(base.spatial)},
                      {"transposed", base.transposed},
                      {"bias", base.bias},
                      {"dtype_input", std::string(dtype_name(base.input_dtype))},
                      {"dtype_weight", std::string(dtype_name(base.weight_dtype))},
                      {"dtype_output", std::string(dtype_name(base.output_dtype))},
                      {"pass", std::string(gemm_pass_name(base.pass))}};
        plan.size_options = "--input, --batch, --out-channels, --kernel";
        plan.evaluate = [base](const Point& p) {
            ConvDesc d = base;
            d.batch = p.count("--batch");
            d.out_channels = p.count("--out-channels");
            d.groups = p.count("--groups");
            const ConvGeometry g = conv_geometry(d);
            Evaluated e{conv_cost(d), std::nullopt};
            e.params = {{"kernel", dims_text(g.kernel)},
                        {"stride", dims_text(g.stride)},
                        {"padding", dims_text(g.padding)},
                        {"dilation", dims_text(g.dilation)}};
            if (d.transposed)
                e.params.push_back({"output_padding", dims_text(g.output_padding)});
            e.params.push_back({"output", dims_text(g.out)});
            // The forward pass's implicit GEMM, per group (`groups` of them).
            e.params.push_back({"gemm_m", g.fwd.m});
            e.params.push_back({"gemm_n", g.fwd.n});
            e.params.push_back({"gemm_k", g.fwd.k});
            return e;
        };
        return run_op(plan, args, env);
    };
    return c;
}

}  // namespace bwacct::cli
