// `bwacct layer` and `bwacct model`: a transformer block (or a whole decoder-only model) as a list
// of ops, each analyzed on every selected GPU. Option wiring only; the arithmetic is in
// src/model/transformer_layer.cpp and the totals in src/report/layer_report.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <optional>

#include "bwacct/catalog.h"
#include "bwacct/choice.h"
#include "bwacct/dit_config.h"
#include "bwacct/efficiency.h"
#include "bwacct/error.h"
#include "bwacct/finite_guard.h"
#include "bwacct/inference_report.h"
#include "bwacct/json_text.h"
#include "bwacct/layer_report.h"
#include "bwacct/suggest.h"
#include "bwacct/values.h"
#include "bwacct/video_tokens.h"
#include "model_source.h"
#include "op_runner.h"

namespace bwacct::cli {
namespace {

using json = nlohmann::ordered_json;

// Token counts (--seq, --tokens, --context, --prompt, --output, --text-tokens) take K/M suffixes (powers of
// 1024: 32K = 32768) and say "token count" when refused; the other counts are plain integers.
ValueKind kind_of(const std::string& option) {
    static constexpr std::array<std::string_view, 6> kTokens{"--seq",    "--tokens", "--context",
                                                             "--prompt", "--output", "--text-tokens"};
    return std::find(kTokens.begin(), kTokens.end(), option) != kTokens.end() ? ValueKind::tokens : ValueKind::count;
}

std::optional<std::uint64_t> count_option(const Args& args, const std::string& option) {
    const std::string& text = args.get(option);
    if (text.empty())
        return std::nullopt;
    const auto v = parse_values(text, option, kind_of(option));
    if (v.size() != 1)
        throw InputError(option, "takes one positive integer, not a range or list");
    return static_cast<std::uint64_t>(v.front());
}

TransformerConfig config_from(const Args& args) {
    TransformerConfig c;
    std::string source = "--layers";
    if (auto named = named_model(args, {})) {  // the sizes below override the model's
        c = std::move(named->config);
        source = named->source;
    }
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
    // The report walks the layers one by one (each one's kind: dense or MoE, local or global), so a count no model has
    // (a config's 2^63) would run for hours: refused past 100,000 (the deepest published models have a few hundred).
    if (c.layers > kMaxLayers)
        throw InputError(
            count_option(args, "--layers") ? std::string("--layers") : source,
            fmt::format("{} layers is more than bwacct models (at most {}); check the layer count", c.layers, kMaxLayers));
    if (overridden && !c.name.empty())
        c.name += " (modified on the command line)";
    return c;
}

// --dtype sets all three; --act-dtype, --weight-dtype (with --group-size) and --kv-dtype override it.
void precision_from(const Args& args, LayerRun& r) {
    r.dtype = dtype_option(args, "--dtype");
    if (!args.get("--act-dtype").empty())
        r.dtype = dtype_option(args, "--act-dtype");
    const auto group = count_option(args, "--group-size");
    if (!args.get("--weight-dtype").empty())
        r.weight = weight_format(dtype_option(args, "--weight-dtype"), group.value_or(0));
    else if (group)
        throw InputError("--group-size", "applies with --weight-dtype int4 or int8 (the weights' quantisation group)");
    if (!args.get("--kv-dtype").empty())
        r.kv = dtype_option(args, "--kv-dtype");
    if (args.get("--act-dtype").empty() && r.dtype == DType::int4)
        throw InputError("--dtype", "int4 activations are not modelled; use --weight-dtype int4 (and --kv-dtype int4)");
}

// The options every run shares: batch, parallelism, precision, attention, experts touched.
LayerRun common_run_from(const Args& args) {
    LayerRun r;
    r.batch = *count_option(args, "--batch");
    r.tp = *count_option(args, "--tp");
    r.ep = *count_option(args, "--ep");
    r.pp = *count_option(args, "--pp");
    r.micro_batches = *count_option(args, "--micro-batches");
    r.sequence_parallel = args.flag("--sequence-parallel");
    r.recompute = args.flag("--recompute");
    precision_from(args, r);
    static constexpr std::array<Choice<AttentionImpl>, 2> kImpls{
        {{"flash", AttentionImpl::flash}, {"naive", AttentionImpl::naive}}};
    r.attention = parse_choice(args.get("--attention"), "--attention", "attention implementation", kImpls);
    if (const auto touched = count_option(args, "--experts-touched"))
        r.experts_touched = *touched;
    return r;
}

// The roofs' options: launch overhead, link bandwidth and latency, efficiency factors.
AnalysisOptions analysis_from(const Args& args) {
    AnalysisOptions a;
    a.launch_us = launch_us_option(args);
    a.link_GBps = single_real(args, "--link-GBps");
    a.alpha_us = single_real(args, "--alpha-us");
    if (args.given("--efficiency"))
        a.efficiency = parse_efficiency(args.get("--efficiency"), "--efficiency");
    return a;
}

// --phase generate (model only): --prompt and --output; the run is the decode run the steps share.
// --fit: --context (the KV length) and --batch; the run is a decode run at that context.
// `--gpu all` is every catalog GPU with a dense tensor peak for the run's dtype (V100 and T4 have no bf16
// tensor path, the A100s none for fp8); a GPU named in the list without it is still refused by the analysis.
std::vector<const GpuSpec*> selected_gpus(const Catalog& catalog, const Args& args, DType dtype) {
    std::vector<const GpuSpec*> gpus = catalog.select(args.get("--gpu"), "--gpu");
    if (equal_ignoring_case(args.get("--gpu"), "all")) {
        std::erase_if(gpus, [&](const GpuSpec* g) { return g->peak(Unit::tensor, peak_key(dtype)) == nullptr; });
        if (gpus.empty())
            throw InputError("--gpu",
                             fmt::format("no catalog GPU has a dense tensor {} peak; choose another --dtype", peak_key(dtype)));
    }
    return gpus;
}

LayerRun inference_run_from(const Args& args, bool generate) {
    LayerRun r = common_run_from(args);
    r.phase = Phase::decode;
    const char* what = generate ? "--phase generate" : "--fit";
    if (args.given("--micro-batches"))
        throw InputError("--micro-batches",
                         generate ? "does not apply to --phase generate (each step is one batch through every stage)"
                                  : "does not apply to --fit: --batch counts every sequence a stage holds KV for (all "
                                    "micro-batches in flight)");
    if (generate && r.pp > 1)
        throw InputError("--pp",
                         "is not modelled with --phase generate (a token's latency crosses every stage); use --phase decode "
                         "--pp N for the pipelined step");
    for (const char* o : {"--seq", "--tokens", "--recompute"})
        if (args.given(o))
            throw InputError(o, fmt::format("does not apply to {} ({})", what,
                                            generate ? "give --prompt and --output" : "give --batch and --context"));
    if (!generate)
        for (const char* o : {"--efficiency", "--launch-us", "--link-GBps", "--alpha-us"})
            if (args.given(o))
                throw InputError(o, "does not apply to --fit (it sizes memory, not time)");
    if (generate) {
        if (args.given("--context"))
            throw InputError("--context", "does not apply to --phase generate: the context grows from --prompt by one per token");
        if (!args.given("--prompt"))
            throw InputError("--prompt", "is required with --phase generate (prompt tokens per sequence)");
        if (!args.given("--output"))
            throw InputError("--output", "is required with --phase generate (tokens generated per sequence)");
        r.seq = 1;
        r.context = *count_option(args, "--prompt");
        return r;
    }
    const auto context = count_option(args, "--context");
    if (!context)
        throw InputError("--context", "is required with --fit (tokens per sequence the KV cache holds)");
    r.seq = 1;
    r.context = *context;
    return r;
}

// The diffusion options (DiT models only; config_checks refuses them elsewhere).
void dit_run_from(const Args& args, DitRun& d) {
    if (const auto v = count_option(args, "--text-tokens")) {
        // The bound the config's own text_len has (kDitMaxSize): past it the costs overflow or mean nothing.
        if (*v > kDitMaxSize)
            throw InputError("--text-tokens", fmt::format("takes at most {} (2^24) text tokens, got {}", kDitMaxSize, *v));
        d.text_tokens = *v;
    }
    if (const auto v = count_option(args, "--steps"))
        d.steps = *v;
    d.cfg = args.flag("--cfg");
    if (const auto v = count_option(args, "--frames-per-chunk"))
        d.frames_per_chunk = *v;
}

// Options that apply to one kind of model only.
void config_checks(const Args& args, const TransformerConfig& config, bool whole_model) {
    if (!config.dit) {
        for (const char* o : {"--text-tokens", "--steps", "--cfg", "--frames-per-chunk"})
            if (args.given(o))
                throw InputError(o,
                                 "applies to video diffusion transformers only (--preset wan2.1-t2v-14b or --hf-config of a "
                                 "WanModel config.json)");
        return;
    }
    if (!whole_model)
        for (const char* o : {"--steps", "--cfg", "--frames-per-chunk"})
            if (args.given(o))
                throw InputError(o, "applies to `bwacct model` (a whole forward: blocks, patch embedding and head)");
}

// --video FxHxW (DiT only; run_point refuses it elsewhere): the video tokens per sequence, derived from the frames and
// resolution through the model's VAE and patch embedding (src/model/video_tokens.cpp).
std::optional<VideoLatent> video_from(const Args& args, const TransformerConfig& config) {
    if (!args.given("--video"))
        return std::nullopt;
    for (const char* o : {"--tokens", "--seq"})
        if (args.given(o))
            throw InputError("--video", fmt::format("gives the video tokens from FRAMESxHEIGHTxWIDTH; give --video or {}, "
                                                    "not both",
                                                    o));
    return video_latent(parse_video_size(args.get("--video"), "--video"), *config.dit, "--video");
}

LayerRun run_from(const Args& args, const TransformerConfig& config) {
    for (const char* o : {"--prompt", "--output"})
        if (args.given(o))
            throw InputError(o, "applies to `bwacct model --phase generate` only");
    LayerRun r = common_run_from(args);
    r.phase = parse_phase(args.get("--phase"));
    dit_run_from(args, r.dit);
    r.dit.video = video_from(args, config);
    const auto seq = r.dit.video ? std::optional<std::uint64_t>(r.dit.video->tokens) : count_option(args, "--seq");
    const auto tokens = count_option(args, "--tokens"), context = count_option(args, "--context");
    if (seq && tokens)
        throw InputError("--tokens", "give --seq (tokens per sequence, with --batch) or --tokens (one sequence), not both");
    // A chunk of the video yields its frames unless told otherwise (an overlapping chunk yields fewer new frames).
    if (r.dit.video && r.dit.frames_per_chunk == 0)
        r.dit.frames_per_chunk = r.dit.video->frames;
    if (r.phase == Phase::decode) {
        if (seq || tokens)
            throw InputError(r.dit.video ? "--video"
                             : seq       ? "--seq"
                                         : "--tokens",
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
        throw InputError("--seq",
                         "is required with --phase prefill or training (tokens per sequence; or --tokens; a DiT: or "
                         "--video FxHxW)");
    }
    if (r.phase == Phase::training && context && *context != r.seq)
        throw InputError("--context", "training attends within the sequence: leave --context out (it equals --seq)");
    r.context = context.value_or(r.seq);
    return r;
}

int run_layer_command(const Args& args, const Env& env, bool whole_model);

CommandSpec make_command(bool whole_model) {
    CommandSpec c;
    c.name = whole_model ? "model" : "layer";
    c.summary = whole_model ? "a whole decoder-only model (layers + embedding + LM head): time per step, tokens/s, bound"
                            : "one transformer block as ops (norms, QKV, attention, projections, MLP, TP collectives): "
                              "per-op roofs, floor, tokens/s, memory";
    c.example = whole_model ? "bwacct model --preset llama3-70b --phase decode --batch 1 --context 8192 --tp 8 --gpu h200,b200\n"
                              "  bwacct model --preset wan2.1-t2v-14b --video 81x480x832 --steps 50 --cfg"
                            : "bwacct layer --preset llama3-8b --phase decode --batch 8 --context 4096 --tp 1\n"
                              "  bwacct layer --hidden 5120 --heads 40 --kv-heads 40 --ffn 13824 --tokens 2160 --tp 2 --phase "
                              "prefill";
    c.options = {
        {"--preset",
         "model preset: an id in configs/models (llama3-8b, llama3-70b, mixtral-8x7b, deepseek-v3, wan2.1-t2v-14b) or a preset "
         "JSON file",
         ""},
        {"--prompt", "--phase generate: prompt tokens per sequence (the prefill)", ""},
        {"--output", "--phase generate: tokens generated per sequence (1 from the prefill, the rest one decode step each)", ""},
        {"--fit", "memory per GPU (weights, KV cache, prefill-peak activations, workspace) against HBM; largest batch", "", true},
        {"--workspace", "--fit: bytes per GPU held besides weights, KV and activations (CUDA context, library workspaces)", "1G"},
        {"--hf-config",
         "a Hugging Face config.json (Llama, Mistral, Qwen, Mixtral, DeepSeek, Gemma, GLM, OLMo, Granite, ...; WanModel; "
         "Mistral's "
         "params.json; the full list: docs/formulas.md)",
         ""},
        {"--wan-i2v",
         "DiT: whose \"model_type\": \"i2v\" WanModel config.json: 2.1 (CLIP image cross-attention) or 2.2 (A14B "
         "experts: none)",
         ""},
        {"--text-tokens", "DiT: text tokens of the cross-attention; default: the config's text_len (Wan: 512)", ""},
        {"--steps", "DiT (model): denoising steps per chunk", "1"},
        {"--cfg", "DiT (model): classifier-free guidance, two forwards per step", "", true},
        {"--frames-per-chunk", "DiT (model): video frames one chunk yields, for FPS; default with --video: its frames", ""},
        {"--video",
         "DiT: FRAMESxHEIGHTxWIDTH in pixels (e.g. 81x480x832; frames 4n + 1): the video tokens, derived through Wan's VAE "
         "(stride 4×8×8, or 4×16×16 for a 48-channel latent) and patch_size, instead of --tokens",
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
        {"--phase",
         whole_model ? "prefill, decode (one token per sequence against a KV cache), training (forward + backward) or generate "
                       "(prefill + every decode step)"
                     : "prefill, decode (one token per sequence against a KV cache) or training (forward + backward)",
         "prefill"},
        {"--batch", "sequences", "1"},
        {"--seq", "prefill/training: new tokens per sequence", ""},
        {"--tokens", "prefill/training: one sequence of this many tokens (instead of --batch and --seq)", ""},
        {"--context", "keys each query attends to: decode: the KV-cache length (required); prefill: default --seq", ""},
        {"--tp", "tensor-parallel ranks (Megatron-style: 2 all-reduces per layer forward)", "1"},
        {"--ep", "MoE: expert-parallel ranks (E/N experts each; all-to-all dispatch and combine)", "1"},
        {"--pp", "pipeline stages: layers split in order; stage time, bubble, stage-to-stage sends", "1"},
        {"--micro-batches", "with --pp: micro-batches of --batch sequences each per step", "1"},
        {"--sequence-parallel", "with --tp: reduce-scatter + all-gather instead of each all-reduce", "", true},
        {"--recompute", "training: full activation recomputation (one more forward per layer)", "", true},
        {"--dtype", "dtype of weights, activations and KV cache (each overridable below)", "bf16"},
        {"--act-dtype", "activations' dtype (GEMM inputs/outputs, norms, Q and O); default: --dtype", ""},
        {"--weight-dtype",
         "the blocks' linear weights: int4, int8, fp8, nvfp4, mxfp4, bf16, ... with their scale bytes; default: --dtype, or "
         "the config's quantization_config",
         ""},
        {"--group-size", "with --weight-dtype int4/int8: weights per scale (int4 default 128; int8 default per channel)", ""},
        {"--kv-dtype", "KV cache dtype (bf16, fp8, int8, int4, nvfp4, mxfp4); default: --dtype", ""},
        {"--attention", "flash (scores stay on chip) or naive (S_q×S_k scores through HBM)", "flash"},
        {"--gpu", "GPUs to compare, comma-separated catalog ids, or 'all'", "h200,b200"},
        {"--gpu-file", "extra catalog JSON (same schema as configs/gpus.json); adds or overrides entries", ""},
        {"--format",
         "output: table or json (schema bwacct.layer/1); jsonl, csv or md (one row per point and GPU), as are ranges and lists "
         "of --batch, --seq, --context, --prompt, --output (a sweep: --batch 1:256:x2 --context 1K:128K:x2)",
         "table"},
        {"--launch-us", "kernel launch overhead for the dispatch roof (µs); 0: no dispatch roof; default: the catalog's", ""},
        {"--link-GBps", "per-direction link bandwidth for the TP collectives (GB/s) instead of the catalog's", ""},
        {"--efficiency", "scale the catalog roofs: hbm=0.9,compute=0.7[,link=0.8] (fractions in (0, 1])", ""},
        {"--alpha-us", "per-step collective latency (µs) instead of the catalog's", ""},
    };
    c.run = [whole_model](const Args& args, const Env& env) { return run_layer_command(args, env, whole_model); };
    return c;
}

// One point of the command: prints its report, or (rows != nullptr, a sweep) appends one row per GPU.
int run_point(const Args& args, const Env& env, bool whole_model, Format format, std::vector<json>* rows) {
    {
        const TransformerConfig config = config_from(args);
        if (args.given("--video") && !config.dit)
            throw InputError("--video",
                             "FRAMESxHEIGHTxWIDTH applies to video diffusion transformers only (--preset wan2.1-t2v-14b or "
                             "--hf-config of a WanModel config.json); give --seq or --tokens");
        const bool generate = args.get("--phase") == "generate", fit = args.flag("--fit");
        if (!whole_model && (generate || fit))
            throw InputError(generate ? "--phase" : "--fit",
                             "generate and --fit apply to a whole model: use `bwacct model` (with --preset or --hf-config)");
        if (!fit && args.given("--workspace"))
            throw InputError("--workspace", "applies with --fit");
        if (generate || fit) {
            if (generate && fit)
                throw InputError("--fit", "give --fit or --phase generate, not both");
            if (fit && args.given("--phase"))
                throw InputError("--phase", "does not apply to --fit (it sizes a decode batch at --context)");
            if (config.dit)
                throw InputError(generate ? "--phase" : "--fit",
                                 fmt::format("{} applies to decoder-only language models (a diffusion transformer has no "
                                             "token-by-token generation or KV cache); use --steps and --frames-per-chunk",
                                             generate ? "generate" : "--fit"));
            if (config.vocab == 0 || config.layers == 0)
                throw InputError(config.vocab == 0 ? "--vocab" : "--layers", "is required for a whole model (or give --preset)");
            const LayerRun irun = inference_run_from(args, generate);
            const AnalysisOptions ia = analysis_from(args);
            const Catalog cat = catalog_for(args);
            const std::vector<const GpuSpec*> sel = selected_gpus(cat, args, irun.dtype);
            try {
                if (generate) {
                    const std::uint64_t output = *count_option(args, "--output");
                    const GenerateReport g =
                        build_generate_report(args.get("--preset"), config, irun, irun.context, output, sel, ia);
                    if (rows == nullptr)
                        print_generate_report(g, format, env.out);
                    else
                        for (const GenerateGpu& x : g.gpus)
                            rows->push_back(json{{"phase", "generate"},
                                                 {"batch", irun.batch},
                                                 {"prompt", g.prompt},
                                                 {"output", g.output},
                                                 {"tp", irun.tp},
                                                 {"ep", irun.ep},
                                                 {"gpu", x.gpu},
                                                 {"ttft_us", x.ttft_us},
                                                 {"tpot_us", x.tpot_us ? json(*x.tpot_us) : json(nullptr)},
                                                 {"total_us", x.total_us},
                                                 {"tokens_per_s_per_seq", x.tokens_per_s_per_seq},
                                                 {"tokens_per_s_per_gpu", x.tokens_per_s_per_gpu}});
                } else {
                    const auto ws_values = parse_values(args.get("--workspace"), "--workspace", ValueKind::size);
                    if (ws_values.size() != 1)
                        throw InputError("--workspace", "takes one size in bytes (e.g. 1G), not a range or list");
                    const auto ws = static_cast<std::uint64_t>(ws_values.front());
                    const FitReport f = build_fit_report(args.get("--preset"), config, irun, ws, sel);
                    if (rows == nullptr)
                        print_fit_report(f, format, env.out);
                    else
                        for (const FitGpu& x : f.gpus)
                            rows->push_back(
                                json{{"phase", "fit"},
                                     {"batch", irun.batch},
                                     {"context", irun.context},
                                     {"tp", irun.tp},
                                     {"ep", irun.ep},
                                     {"pp", irun.pp},
                                     {"gpu", x.gpu},
                                     {"total_bytes", x.total_bytes},
                                     {"hbm_capacity_bytes", x.capacity_bytes ? json(*x.capacity_bytes) : json(nullptr)},
                                     {"fits", x.capacity_bytes ? json(x.fits) : json(nullptr)},
                                     {"max_batch", x.capacity_bytes ? json(x.max_batch) : json(nullptr)}});
                }
            } catch (const OverflowError&) {
                throw InputError(generate ? "--prompt, --output, --batch" : "--context, --batch",
                                 "the FLOP or byte count overflows 64 bits; use smaller sizes");
            }
            return 0;
        }
        const LayerRun run = run_from(args, config);
        config_checks(args, config, whole_model);
        if (whole_model && config.vocab == 0 && !config.dit)
            throw InputError("--vocab", "is required for a whole model (or give --preset)");
        if (whole_model && config.layers == 0)
            throw InputError("--layers", "is required for a whole model (or give --preset)");
        const AnalysisOptions analysis = analysis_from(args);
        const Catalog catalog = catalog_for(args);
        const std::vector<const GpuSpec*> gpus = selected_gpus(catalog, args, run.dtype);
        LayerReport report;
        try {
            report = build_layer_report(whole_model ? "model" : "layer", args.get("--preset"), config, run, whole_model, gpus,
                                        analysis);
        } catch (const OverflowError&) {
            // Name the sizes the user gave (the preset's when none), not one option that may be absent.
            std::string given;
            for (const char* o : {"--preset", "--hf-config", "--batch", "--seq", "--tokens", "--video", "--context", "--hidden",
                                  "--heads", "--kv-heads", "--head-dim", "--ffn", "--vocab", "--layers"})
                if (args.given(o))
                    given += given.empty() ? std::string(o) : fmt::format(", {}", o);
            throw InputError(given.empty() ? "--batch" : given, "the FLOP or byte count overflows 64 bits; use smaller sizes");
        }
        if (rows == nullptr) {
            print_layer_report(report, format, env.out);
            return 0;
        }
        for (const GpuTotals& t : report.totals) {
            const SpanTotals& span = t.model ? *t.model : t.layer;
            rows->push_back(
                json{{"phase", phase_name(run.phase)},
                     {"batch", run.batch},
                     {"seq", run.q_len()},
                     {"context", run.context},
                     {"tp", run.tp},
                     {"gpu", t.gpu},
                     {"layer_floor_us", t.layer.floor_us},
                     {"model_floor_us", t.model ? json(t.model->floor_us) : json(nullptr)},
                     {"tokens_per_s", span.tokens_per_s},
                     {"bound", roof_name(span.bound)},
                     {"kv_cache_bytes", config.layers != 0 ? report.model_kv_cache.value() : report.memory.kv_cache.value()}});
            if (const auto& v = run.dit.video)  // seq was derived from it
                rows->back()["video"] = fmt::format("{}x{}x{}", v->frames, v->height, v->width);
        }
        return 0;
    }
}

// The flat rows of a sweep: jsonl (one object a line), csv (a header, then one line a row), md or table (one
// pipe table), json (one document).
void print_rows(const std::vector<json>& rows, Format format, std::FILE* out) {
    const json doc{{"schema", "bwacct.layer-sweep/1"}, {"source", "modelled"}, {"rows", rows}};
    require_finite(doc);
    if (format == Format::json) {
        fmt::print(out, "{}\n", detail::json_text(doc, 2));
        return;
    }
    if (format == Format::jsonl) {
        for (const json& r : rows)
            fmt::print(out, "{}\n", detail::json_text(r));
        return;
    }
    auto cell = [](const json& v) {
        return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : detail::json_text(v);
    };
    std::vector<std::string> keys;
    for (const json& r : rows)
        for (const auto& [k, v] : r.items())
            if (std::find(keys.begin(), keys.end(), k) == keys.end())
                keys.push_back(k);
    const bool csv = format == Format::csv;
    auto line = [&](const std::vector<std::string>& cells) {
        std::string l = csv ? "" : "|";
        for (std::size_t i = 0; i < cells.size(); ++i)
            l += csv ? (i ? "," : "") + cells[i] : " " + cells[i] + " |";
        fmt::print(out, "{}\n", l);
    };
    line(keys);
    if (!csv)
        line(std::vector<std::string>(keys.size(), "---"));
    for (const json& r : rows) {
        std::vector<std::string> cells;
        for (const std::string& k : keys)
            cells.push_back(r.contains(k) ? cell(r.at(k)) : std::string());
        line(cells);
    }
}

int run_layer_command(const Args& args, const Env& env, bool whole_model) {
    const Format format = parse_format(args.get("--format"));
    // Ranges and lists of --batch, --seq, --context, --prompt, --output make a sweep (as the op commands do).
    std::vector<std::pair<std::string, std::vector<double>>> axes;
    bool sweep = format == Format::jsonl || format == Format::csv || format == Format::md;
    double points = 1;
    for (const char* o : {"--batch", "--seq", "--context", "--prompt", "--output"}) {
        if (!args.given(o))
            continue;
        std::vector<double> v = parse_values(args.get(o), o, kind_of(o));
        points *= static_cast<double>(v.size());
        if (v.size() > 1)
            sweep = true;
        axes.emplace_back(o, std::move(v));
    }
    if (!sweep)
        return run_point(args, env, whole_model, format, nullptr);
    constexpr double kMaxPoints = 10000;
    if (points > kMaxPoints)
        throw InputError(axes.front().first, fmt::format("a sweep of {} points is over the {}-point limit of layer/model sweeps",
                                                         points, kMaxPoints));
    std::vector<json> rows;
    std::vector<std::size_t> at(axes.size(), 0);
    for (std::uint64_t p = 0; p < static_cast<std::uint64_t>(points); ++p) {
        Args a = args;
        for (std::size_t i = 0; i < axes.size(); ++i)
            a.set(axes[i].first, fmt::format("{}", static_cast<std::uint64_t>(axes[i].second[at[i]])));
        run_point(a, env, whole_model, format, &rows);
        for (std::size_t i = axes.size(); i-- > 0;) {  // the last axis varies fastest
            if (++at[i] < axes[i].second.size())
                break;
            at[i] = 0;
        }
    }
    print_rows(rows, format, env.out);
    return 0;
}

}  // namespace

std::vector<CommandSpec> layer_commands() { return {make_command(false), make_command(true)}; }

}  // namespace bwacct::cli
