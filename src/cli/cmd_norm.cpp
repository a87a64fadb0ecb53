#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "bwacct/values.h"
#include "op_runner.h"

namespace bwacct::cli {

namespace {

CommandSpec norm_command(NormKind kind, const char* summary) {
    CommandSpec c;
    c.name = std::string(norm_name(kind));
    c.summary = summary;
    c.example = "bwacct " + c.name + " --shape 8,2048,4096 --dtype bf16";
    c.options = {
        {"--shape", "tensor shape, comma-separated; the op runs over the last dimension", ""},
        {"--dtype", "element dtype (of x, y and the parameters)", "bf16"},
    };
    for (auto* group : {common_op_options, measure_options})
        for (OptionSpec& o : group())
            c.options.push_back(std::move(o));
    c.run = [kind](const Args& args, const Env& env) {
        NormDesc d;
        d.kind = kind;
        if (args.get("--shape").empty())
            throw InputError("--shape", "is required (e.g. --shape 8,2048,4096)");
        d.shape = parse_shape(args.get("--shape"), "--shape");
        d.dtype = dtype_option(args, "--dtype");
        OpPlan plan;
        plan.fixed = {{"shape", args.get("--shape")}, {"dtype", std::string(dtype_name(d.dtype))}};
        plan.size_options = "--shape";
        plan.evaluate = [d](const Point&) { return Evaluated{norm_cost(d), std::nullopt}; };
        plan.measure = [d](measure::Backend& b, const Point&, const measure::SamplePolicy& sp) { return b.norm(d, sp); };
        return run_op(plan, args, env);
    };
    return c;
}

}  // namespace

std::vector<CommandSpec> norm_commands() {
    return {norm_command(NormKind::layernorm, "layernorm over the last dimension: 7 FLOPs/element, read x + γ + β, write y"),
            norm_command(NormKind::rmsnorm, "rmsnorm over the last dimension: 4 FLOPs/element, read x + γ, write y"),
            norm_command(NormKind::softmax, "softmax over the last dimension: 5 FLOPs/element, read x, write y")};
}

}  // namespace bwacct::cli
