#include <array>

#include "bwacct/choice.h"
#include "bwacct/ops.h"
#include "op_runner.h"

namespace bwacct::cli {

CommandSpec attention_command() {
    CommandSpec c;
    c.name = "attention";
    c.summary = "attention (prefill or decode, GQA/MQA, causal, flash or naive): FLOPs, bytes, roofs";
    c.example =
        "bwacct attention --batch 1 --heads 40 --kv-heads 8 --q-len 2160 --kv-len 2160 --head-dim 128 --causal --impl flash\n"
        "  bwacct attention --heads 32 --kv-heads 8 --q-len 1 --kv-len 8192 --head-dim 128   # decode against a KV cache\n"
        "  bwacct attention --heads 32 --kv-heads 8 --q-len 1 --kv-len 8192 --head-dim 128 --measure   # on this GPU: "
        "flash-decoding, at most 16 query rows per KV head";
    c.options = {
        {"--batch", "sequences", "1"},
        {"--heads", "query heads", ""},
        {"--kv-heads", "key/value heads (GQA/MQA); default: --heads", ""},
        {"--q-len", "query tokens per sequence (1 = decode)", ""},
        {"--kv-len", "key/value tokens per sequence (the context, KV cache included)", ""},
        {"--head-dim", "dimension per head", ""},
        {"--causal", "causal mask: queries aligned to the end of the keys", "", true},
        {"--impl", "flash (scores stay on chip) or naive (S_q×S_k scores and probabilities go through HBM)", "flash"},
        {"--dtype", "dtype of Q, K, V, O (and the naive score matrix)", "bf16"},
    };
    for (auto* group : {common_op_options, measure_options})
        for (OptionSpec& o : group())
            c.options.push_back(std::move(o));
    c.run = [](const Args& args, const Env& env) {
        AttentionDesc base;
        base.causal = args.flag("--causal");
        base.dtype = dtype_option(args, "--dtype");
        const std::string& impl = args.get("--impl");
        static constexpr std::array<Choice<AttentionImpl>, 2> kImpls{
            {{"flash", AttentionImpl::flash}, {"naive", AttentionImpl::naive}}};
        base.impl = parse_choice(impl, "--impl", "implementation", kImpls);
        const bool kv_given = !args.get("--kv-heads").empty();
        OpPlan plan;
        plan.axes = {{"--batch", ValueKind::count},
                     {"--heads", ValueKind::count},
                     {"--q-len", ValueKind::tokens},
                     {"--kv-len", ValueKind::tokens},
                     {"--head-dim", ValueKind::count}};
        if (kv_given)
            plan.axes.insert(plan.axes.begin() + 2, Axis{"--kv-heads", ValueKind::count});
        plan.fixed = {{"causal", base.causal}, {"impl", impl}, {"dtype", std::string(dtype_name(base.dtype))}};
        plan.size_options = "--batch, --heads, --q-len, --kv-len, --head-dim";
        auto describe = [base, kv_given](const Point& p) {
            AttentionDesc d = base;
            d.batch = p.count("--batch");
            d.heads = p.count("--heads");
            d.kv_heads = kv_given ? p.count("--kv-heads") : d.heads;
            d.q_len = p.count("--q-len");
            d.kv_len = p.count("--kv-len");
            d.head_dim = p.count("--head-dim");
            return d;
        };
        plan.evaluate = [describe](const Point& p) { return Evaluated{attention_cost(describe(p)), std::nullopt}; };
        plan.measure = [describe](measure::Backend& b, const Point& p, const measure::SamplePolicy& sp) {
            return b.attention(describe(p), sp);
        };
        return run_op(plan, args, env);
    };
    return c;
}

}  // namespace bwacct::cli
