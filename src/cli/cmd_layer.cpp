// `bwacct layer` and `bwacct model`: a transformer block (or a whole decoder-only model) as a list
// of ops, each analyzed on every selected GPU. Option wiring only; the arithmetic is in
// src/model/transformer_layer.cpp and the totals in src/report/layer_report.cpp.
#include <fmt/format.h>

#include <array>
#include <optional>

#include "bwacct/catalog.h"
#include "bwacct/choice.h"
#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/layer_report.h"
#include "bwacct/model_preset.h"
#include "bwacct/values.h"
#include "op_runner.h"

namespace bwacct::cli {
namespace {

std::optional<std::uint64_t> count_option(const Args& args, const std::string& option, ValueKind kind = ValueKind::count) {
    const std::string& text = args.get(option);
    if (text.empty())
        return std::nullopt;
    const auto v = parse_values(text, option, kind);
    if (v.size() != 1)
        throw InputError(option, "takes one positive integer, not a range or list");
    return static_cast<std::uint64_t>(v.front());
}

TransformerConfig config_from(const Args& args) {
    TransformerConfig c;
    if (args.given("--preset") && args.given("--hf-config"))
        throw InputError("--hf-config", "give --preset (a bwacct preset) or --hf-config (a Hugging Face config.json), not both");
    if (args.given("--hf-config") && args.get("--hf-config").empty())
        throw InputError("--hf-config", "expected the path of a Hugging Face config.json");
    if (!args.get("--preset").empty())
        c = load_model_preset(args.get("--preset"), "--preset");
    else if (!args.get("--hf-config").empty())
        c = load_hf_config(args.get("--hf-config"), "--hf-config");
    const std::pair<const char*, std::uint64_t TransformerConfig::*> sizes[] = {
        {"--hidden", &TransformerConfig::hidden},     {"--layers", &TransformerConfig::layers},
        {"--heads", &TransformerConfig::heads},       {"--kv-heads", &TransformerConfig::kv_heads},
        {"--head-dim", &TransformerConfig::head_dim}, {"--ffn", &TransformerConfig::ffn},
        {"--vocab", &TransformerConfig::vocab}};
    bool overridden = false;
    for (const auto& [option, member] : sizes)
        if (auto v = count_option(args, option)) {
            c.*member = *v;
            overridden = true;
        }
    if (c.kv_heads == 0 && args.get("--preset").empty() && args.get("--hf-config").empty())
        c.kv_heads = c.heads;  // multi-head attention unless told
    if (!args.get("--mlp").empty())
        c.mlp = parse_mlp(args.get("--mlp"), "--mlp"), overridden = true;
    if (!args.get("--norm").empty()) {
        static constexpr std::array<Choice<NormKind>, 2> kNorms{
            {{"rmsnorm", NormKind::rmsnorm}, {"layernorm", NormKind::layernorm}}};
        c.norm = parse_choice(args.get("--norm"), "--norm", "norm", kNorms);
        overridden = true;
    }
    const std::pair<std::uint64_t, const char*> needed[] = {{c.hidden, "--hidden"}, {c.heads, "--heads"}, {c.ffn, "--ffn"}};
    for (const auto& [v, option] : needed)
        if (v == 0)
            throw InputError(option, "is required (or give --preset, e.g. llama3-8b, or --hf-config FILE)");
    if (overridden && !c.name.empty())
        c.name += " (modified on the command line)";
    return c;
}

LayerRun run_from(const Args& args) {
    LayerRun r;
    r.phase = parse_phase(args.get("--phase"));
    r.batch = *count_option(args, "--batch");
    r.tp = *count_option(args, "--tp");
    r.sequence_parallel = args.flag("--sequence-parallel");
    r.recompute = args.flag("--recompute");
    r.dtype = dtype_option(args, "--dtype");
    static constexpr std::array<Choice<AttentionImpl>, 2> kImpls{
        {{"flash", AttentionImpl::flash}, {"naive", AttentionImpl::naive}}};
    r.attention = parse_choice(args.get("--attention"), "--attention", "attention implementation", kImpls);
    if (const auto touched = count_option(args, "--experts-touched"))
        r.experts_touched = *touched;
    const auto seq = count_option(args, "--seq", ValueKind::tokens), tokens = count_option(args, "--tokens", ValueKind::tokens),
               context = count_option(args, "--context", ValueKind::tokens);
    if (seq && tokens)
        throw InputError("--tokens", "give --seq (tokens per sequence, with --batch) or --tokens (one sequence), not both");
    if (r.phase == Phase::decode) {
        if (seq || tokens)
            throw InputError(seq ? "--seq" : "--tokens",
                             "decode runs one token per sequence: give --batch (sequences) and --context (KV-cache length)");
        if (!context)
            throw InputError("--context", "is required with --phase decode (the KV-cache length per sequence)");
        r.seq = 1;
        r.context = *context;
        return r;
    }
    if (tokens) {
        if (args.given("--batch") && r.batch != 1)
            throw InputError("--tokens", "means one sequence of that many tokens; with --batch give --seq instead");
        r.seq = *tokens;
    } else if (seq) {
        r.seq = *seq;
    } else {
        throw InputError("--seq", "is required with --phase prefill or training (tokens per sequence; or --tokens)");
    }
    if (r.phase == Phase::training && context && *context != r.seq)
        throw InputError("--context", "training attends within the sequence: leave --context out (it equals --seq)");
    r.context = context.value_or(r.seq);
    return r;
}

CommandSpec make_command(bool whole_model) {
    CommandSpec c;
    c.name = whole_model ? "model" : "layer";
    c.summary = whole_model ? "a whole decoder-only model (layers + embedding + LM head): time per step, tokens/s, bound"
                            : "one transformer block as ops (norms, QKV, attention, projections, MLP, TP collectives): "
                              "per-op roofs, floor, tokens/s, memory";
    c.example = whole_model ? "bwacct model --preset llama3-70b --phase decode --batch 1 --context 8192 --tp 8 --gpu h200,b200"
                            : "bwacct layer --preset llama3-8b --phase decode --batch 8 --context 4096 --tp 1\n"
                              "  bwacct layer --hidden 5120 --heads 40 --kv-heads 40 --ffn 13824 --tokens 2160 --tp 2 --phase "
                              "prefill";
    c.options = {
        {"--preset",
         "model preset: an id in configs/models (llama3-8b, llama3-70b, mixtral-8x7b, deepseek-v3) or a preset JSON file", ""},
        {"--hf-config", "a Hugging Face config.json (Llama, Mistral, Qwen2/3, Qwen3-MoE, Mixtral, DeepSeek-V2/V3, Gemma 2/3)",
         ""},
        {"--experts-touched", "MoE: distinct experts whose weights a step reads per layer; default: E·(1 − (1 − k/E)^T)", ""},
        {"--hidden", "hidden size D (overrides the preset)", ""},
        {"--layers", whole_model ? "transformer layers (overrides the preset)" : "layers, for the per-model total", ""},
        {"--heads", "query heads", ""},
        {"--kv-heads", "key/value heads (GQA/MQA); default: --heads", ""},
        {"--head-dim", "dimension per head; default: hidden / heads", ""},
        {"--ffn", "MLP intermediate size", ""},
        {"--vocab", "vocabulary size (embedding and LM head)", ""},
        {"--mlp", "gated (SwiGLU: gate and up projections, silu(gate)·up) or plain (up, gelu); default: gated", ""},
        {"--norm", "rmsnorm or layernorm; default: rmsnorm", ""},
        {"--phase", "prefill, decode (one token per sequence against a KV cache) or training (forward + backward)", "prefill"},
        {"--batch", "sequences", "1"},
        {"--seq", "prefill/training: new tokens per sequence", ""},
        {"--tokens", "prefill/training: one sequence of this many tokens (instead of --batch and --seq)", ""},
        {"--context", "keys each query attends to: decode: the KV-cache length (required); prefill: default --seq", ""},
        {"--tp", "tensor-parallel ranks (Megatron-style: 2 all-reduces per layer forward)", "1"},
        {"--sequence-parallel", "with --tp: reduce-scatter + all-gather instead of each all-reduce", "", true},
        {"--recompute", "training: full activation recomputation (one more forward per layer)", "", true},
        {"--dtype", "dtype of weights, activations and KV cache", "bf16"},
        {"--attention", "flash (scores stay on chip) or naive (S_q×S_k scores through HBM)", "flash"},
        {"--gpu", "GPUs to compare, comma-separated catalog ids, or 'all'", "h200,b200"},
        {"--gpu-file", "extra catalog JSON (same schema as configs/gpus.json); adds or overrides entries", ""},
        {"--format", "output: table or json (schema bwacct.layer/1)", "table"},
        {"--launch-us", "kernel launch overhead for the dispatch roof (µs); default: the catalog's", ""},
        {"--link-GBps", "per-direction link bandwidth for the TP collectives (GB/s) instead of the catalog's", ""},
        {"--alpha-us", "per-step collective latency (µs) instead of the catalog's", ""},
    };
    c.run = [whole_model](const Args& args, const Env& env) {
        const Format format = parse_format(args.get("--format"));
        if (format != Format::table && format != Format::json)
            throw InputError("--format", "layer and model print table or json");
        const TransformerConfig config = config_from(args);
        const LayerRun run = run_from(args);
        if (whole_model && config.vocab == 0)
            throw InputError("--vocab", "is required for a whole model (or give --preset)");
        if (whole_model && config.layers == 0)
            throw InputError("--layers", "is required for a whole model (or give --preset)");
        AnalysisOptions analysis;
        analysis.launch_us = single_real(args, "--launch-us");
        analysis.link_GBps = single_real(args, "--link-GBps");
        analysis.alpha_us = single_real(args, "--alpha-us");
        const Catalog catalog = catalog_for(args);
        const std::vector<const GpuSpec*> gpus = catalog.select(args.get("--gpu"), "--gpu");
        LayerReport report;
        try {
            report = build_layer_report(whole_model ? "model" : "layer", args.get("--preset"), config, run, whole_model, gpus,
                                        analysis);
        } catch (const OverflowError&) {
            // Name the sizes the user gave (the preset's when none), not one option that may be absent.
            std::string given;
            for (const char* o : {"--preset", "--hf-config", "--batch", "--seq", "--tokens", "--context", "--hidden", "--heads",
                                  "--kv-heads", "--head-dim", "--ffn", "--vocab", "--layers"})
                if (args.given(o))
                    given += given.empty() ? std::string(o) : fmt::format(", {}", o);
            throw InputError(given.empty() ? "--batch" : given, "the FLOP or byte count overflows 64 bits; use smaller sizes");
        }
        print_layer_report(report, format, env.out);
        return 0;
    };
    return c;
}

}  // namespace

std::vector<CommandSpec> layer_commands() { return {make_command(false), make_command(true)}; }

}  // namespace bwacct::cli
