#include <array>

#include "bwacct/choice.h"
#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "bwacct/values.h"
#include "op_runner.h"

namespace bwacct::cli {

namespace {

Unit unit_option(const Args& args) {
    static constexpr std::array<Choice<Unit>, 2> kUnits{{{"vector", Unit::vector}, {"tensor", Unit::tensor}}};
    return parse_choice(args.get("--unit"), "--unit", "unit", kUnits);
}

}  // namespace

CommandSpec elementwise_command() {
    CommandSpec c;
    c.name = "elementwise";
    c.summary = "elementwise op or a fused chain of them: bytes, intensity, roofs; --chain K compares K kernels with one";
    c.example =
        "bwacct elementwise --shape 32,2048,4096 --dtype fp16 --flops-per-elem 10 --unit tensor --gpu h100-sxm\n"
        "  bwacct elementwise --shape 32,2048,4096 --dtype fp16 --chain 3   # 3 unfused kernels vs 1 fused";
    c.options = {
        {"--shape", "tensor shape, comma-separated (e.g. 32,2048,4096)", ""},
        {"--dtype", "element dtype", "bf16"},
        {"--inputs", "input tensors read (e.g. 2 for add)", "1"},
        {"--outputs", "output tensors written", "1"},
        {"--flops-per-elem", "FLOPs per element (per op in a chain)", "1"},
        {"--unit", "peak to compare with: vector (CUDA cores) or tensor", "vector"},
        {"--chain", "compare a chain of this many unfused ops with one fused kernel", ""},
    };
    for (auto* group : {common_op_options, measure_options})
        for (OptionSpec& o : group())
            c.options.push_back(std::move(o));
    c.run = [](const Args& args, const Env& env) {
        ElementwiseDesc base;
        if (args.get("--shape").empty())
            throw InputError("--shape", "is required (e.g. --shape 32,2048,4096)");
        base.shape = parse_shape(args.get("--shape"), "--shape");
        base.dtype = dtype_option(args, "--dtype");
        base.unit = unit_option(args);
        const bool chain = !args.get("--chain").empty();
        OpPlan plan;
        plan.axes = {{"--inputs", ValueKind::count}, {"--outputs", ValueKind::count}, {"--flops-per-elem", ValueKind::whole}};
        if (chain)
            plan.axes.push_back({"--chain", ValueKind::count});
        plan.fixed = {{"shape", args.get("--shape")},
                      {"dtype", std::string(dtype_name(base.dtype))},
                      {"unit", std::string(unit_name(base.unit))}};
        plan.size_options = "--shape, --inputs, --outputs, --flops-per-elem";
        auto desc = [base](const Point& p) {
            ElementwiseDesc d = base;
            d.inputs = p.count("--inputs");
            d.outputs = p.count("--outputs");
            d.flops_per_elem = p.count("--flops-per-elem");
            return d;
        };
        plan.evaluate = [desc, chain](const Point& p) {
            if (!chain)
                return Evaluated{elementwise_cost(desc(p)), std::nullopt};
            FusionCost f = fused_chain_cost(desc(p), p.count("--chain"));
            return Evaluated{std::move(f.unfused), std::move(f.fused)};
        };
        plan.measure = [desc, chain](measure::Backend& b, const Point& p, const measure::SamplePolicy& sp) {
            if (chain)
                throw measure::MeasureError("--measure runs one elementwise kernel; drop --chain to measure it");
            return b.elementwise(desc(p), sp);
        };
        return run_op(plan, args, env);
    };
    return c;
}

}  // namespace bwacct::cli
