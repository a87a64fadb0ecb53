#include "bwacct/ops.h"
#include "op_runner.h"

namespace bwacct::cli {

CommandSpec gemm_command() {
    CommandSpec c;
    c.name = "gemm";
    c.summary = "GEMM C[M,N] = A[M,K]·B[K,N]: FLOPs 2·M·N·K, minimum HBM bytes, roofs and bound";
    c.example =
        "bwacct gemm --m 2160 --k 5120 --n 5120 --time-us 140\n  bwacct gemm --m 1024:16384:x2 --k 5120 --n 5120 --format jsonl";
    c.options = {
        {"--m", "rows of A and C", ""},
        {"--n", "columns of B and C", ""},
        {"--k", "inner dimension", ""},
        {"--batch", "independent GEMMs (strided batched)", "1"},
        {"--dtype", "dtype of A, B and C unless --dtype-a/-b/-c say otherwise", "bf16"},
        {"--dtype-a", "dtype of A (default: --dtype)", ""},
        {"--dtype-b", "dtype of B (default: --dtype-a)", ""},
        {"--dtype-c", "dtype of C (default: A's dtype; bf16 when A is fp8 or fp4)", ""},
        {"--bias", "add a bias vector of N elements (read once, in C's dtype)", "", true},
        {"--trans-a", "A is transposed (layout only: minimum bytes do not change)", "", true},
        {"--trans-b", "B is transposed (layout only)", "", true},
        {"--pass", "fwd, bwd (data + weight), fwd+bwd, bwd-data or bwd-weight (linear layer: M tokens, K in, N out)", "fwd"},
    };
    for (auto* group : {common_op_options, measure_options})
        for (OptionSpec& o : group())
            c.options.push_back(std::move(o));
    c.run = [](const Args& args, const Env& env) {
        GemmDesc base;
        const DType all = dtype_option(args, "--dtype");
        base.a = args.get("--dtype-a").empty() ? all : dtype_option(args, "--dtype-a");
        base.b = args.get("--dtype-b").empty() ? base.a : dtype_option(args, "--dtype-b");
        // fp8 and fp4 GEMMs write bf16 unless told otherwise; every other type writes its own type.
        const bool low_precision_float = peak_key(base.a) == "fp8" || peak_key(base.a) == "fp4";
        base.c = !args.get("--dtype-c").empty() ? dtype_option(args, "--dtype-c") : low_precision_float ? DType::bf16 : base.a;
        base.bias = args.flag("--bias");
        base.trans_a = args.flag("--trans-a");
        base.trans_b = args.flag("--trans-b");
        base.pass = parse_gemm_pass(args.get("--pass"));
        OpPlan plan;
        plan.axes = {
            {"--m", ValueKind::count}, {"--n", ValueKind::count}, {"--k", ValueKind::count}, {"--batch", ValueKind::count}};
        plan.fixed = {{"dtype_a", std::string(dtype_name(base.a))},
                      {"dtype_b", std::string(dtype_name(base.b))},
                      {"dtype_c", std::string(dtype_name(base.c))},
                      {"bias", base.bias},
                      {"trans_a", base.trans_a},
                      {"trans_b", base.trans_b},
                      {"pass", std::string(gemm_pass_name(base.pass))}};
        plan.size_options = "--m, --n, --k, --batch";
        auto desc = [base](const Point& p) {
            GemmDesc d = base;
            d.m = p.count("--m");
            d.n = p.count("--n");
            d.k = p.count("--k");
            d.batch = p.count("--batch");
            return d;
        };
        plan.evaluate = [desc](const Point& p) { return Evaluated{gemm_cost(desc(p)), std::nullopt}; };
        plan.measure = [desc](measure::Backend& b, const Point& p, const measure::SamplePolicy& sp) {
            if (desc(p).pass != GemmPass::fwd)
                throw measure::MeasureError("--measure times the forward GEMM only; drop --pass or time the backward elsewhere");
            return b.gemm(desc(p), sp);
        };
        return run_op(plan, args, env);
    };
    return c;
}

}  // namespace bwacct::cli
