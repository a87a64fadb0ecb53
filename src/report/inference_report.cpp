// Whole generations (TTFT, time per output token summed exactly over every step) and the memory fit per GPU.
// Formulas: docs/formulas.md ("Whole generations", "Fit").
#include "bwacct/inference_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bwacct/error.h"
#include "bwacct/expert_parallel.h"
#include "bwacct/finite_guard.h"
#include "bwacct/json_text.h"
#include "bwacct/layer_report.h"
#include "bwacct/pipeline_parallel.h"
#include "human.h"
#include "verdict_line.h"

namespace bwacct {
namespace {

using json = nlohmann::ordered_json;
using detail::fixed;
using detail::human_bytes;

json model_json(const std::string& preset, const TransformerConfig& c, const LayerRun& run) {
    return json{{"preset", preset.empty() ? json(nullptr) : json(preset)},
                {"name", c.name.empty() ? json(nullptr) : json(c.name)},
                {"layers", c.layers},
                {"act_dtype", dtype_name(run.dtype)},
                {"weight_format", format_name(block_weight_format(c, run))},
                {"kv_format", format_name(kv_cache_format(c, run))},
                {"tp", run.tp},
                {"ep", run.ep},
                {"pp", run.pp},
                {"batch", run.batch}};
}

std::string who(const std::string& preset, const TransformerConfig& c) {
    if (c.name.empty())
        return "given architecture";
    return preset.empty() ? c.name : fmt::format("{} (preset {})", c.name, preset);
}

// The head both documents share: schema, command, source and the model.
json report_head(const char* schema, const std::string& preset, const TransformerConfig& c, const LayerRun& run) {
    json j;
    j["schema"] = schema;
    j["command"] = "model";
    j["source"] = "modelled";
    j["model"] = model_json(preset, c, run);
    return j;
}

// Prints `j` for --format json and returns true; returns false for table (the caller prints it); refuses
// the other formats naming `what`.
bool print_json(const json& j, Format format, const char* what, std::FILE* out) {
    require_finite(j);
    if (format == Format::json) {
        fmt::print(out, "{}\n", detail::json_text(j, 2));
        return true;
    }
    if (format != Format::table)
        throw InputError("--format", fmt::format("{} prints table or json", what));
    return false;
}

// The table's first line: the model, what was asked (`run_text`) and the precision.
void print_title(std::FILE* out, const std::string& preset, const TransformerConfig& c, const LayerRun& run,
                 const std::string& run_text) {
    fmt::print(out, "model  {}: {}; act {}, weights {}, KV {}\n", who(preset, c), run_text, dtype_name(run.dtype),
               format_name(block_weight_format(c, run)), format_name(kv_cache_format(c, run)));
}

void print_lines(std::FILE* out, const char* label, const std::vector<std::string>& lines) {
    for (const std::string& l : lines)
        fmt::print(out, "  {}: {}\n", label, l);
}

void add_limitations(std::vector<std::string>& notes, const TransformerConfig& c) {
    for (const std::string& l : c.limitations)
        notes.push_back("limitation: " + l);
}

// KV-cache bytes of layers first … first + n − 1 on one rank (a sliding-window layer holds min(context, window)
// tokens per sequence).
Exact stage_kv_bytes(const TransformerConfig& cfg, const LayerRun& run, std::uint64_t first, std::uint64_t n) {
    Exact total;
    for (std::uint64_t i = first; i < first + n; ++i)
        total += kv_bytes(cfg, run, Exact(run.batch) * Exact(layer_context(cfg, i, run.context)));
    return total;
}

std::string stage_layers(const FitStage& s) {
    std::string t = s.layers == 1 ? fmt::format("layer {}", s.first_layer)
                                  : fmt::format("layers {}–{}", s.first_layer, s.first_layer + s.layers - 1);
    if (s.embedding)
        t += ", embedding";
    if (s.lm_head)
        t += ", LM head";
    return t;
}

}  // namespace

GenerateReport build_generate_report(const std::string& preset, const TransformerConfig& config, const LayerRun& run,
                                     std::uint64_t prompt, std::uint64_t output, const std::vector<const GpuSpec*>& gpus,
                                     const AnalysisOptions& options) {
    if (prompt == 0)
        throw InputError("--prompt", "must be a positive integer (prompt tokens per sequence)");
    if (output == 0)
        throw InputError("--output", "must be a positive integer (tokens generated per sequence)");
    constexpr std::uint64_t kMaxOutput = 131072;  // each step is evaluated: bound the work
    if (output > kMaxOutput)
        throw InputError("--output",
                         fmt::format("at most {} tokens (each decode step is evaluated); got {}", kMaxOutput, output));
    (void)(Exact(prompt) + Exact(output));  // throws OverflowError
    GenerateReport r;
    r.preset = preset;
    r.config = config;
    r.run = run;
    r.prompt = prompt;
    r.output = output;
    LayerRun pre = run;
    pre.phase = Phase::prefill;
    pre.seq = prompt;
    pre.context = prompt;
    r.gpus.resize(gpus.size());
    const std::vector<double> ttft = model_floor_us(config, pre, gpus, options);
    for (std::size_t g = 0; g < gpus.size(); ++g) {
        r.gpus[g].gpu = gpus[g]->id;
        r.gpus[g].ttft_us = ttft[g];
    }
    LayerRun step = run;
    step.phase = Phase::decode;
    step.seq = 1;
    // The prefill yields the first token; step i = 1 … output − 1 appends token i to a cache of prompt + i.
    for (std::uint64_t i = 1; i < output; ++i) {
        step.context = prompt + i;
        const std::vector<double> f = model_floor_us(config, step, gpus, options);
        for (std::size_t g = 0; g < gpus.size(); ++g) {
            GenerateGpu& x = r.gpus[g];
            x.decode_us += f[g];
            if (i == 1)
                x.first_step_us = f[g];
            x.last_step_us = f[g];
        }
    }
    for (GenerateGpu& x : r.gpus) {
        x.total_us = x.ttft_us + x.decode_us;
        if (output > 1)
            x.tpot_us = x.decode_us / static_cast<double>(output - 1);
        x.tokens_per_s_per_seq = static_cast<double>(output) / (x.total_us * 1e-6);
        x.tokens_per_s_per_gpu = static_cast<double>(run.batch) * x.tokens_per_s_per_seq / static_cast<double>(run.tp);
    }
    r.notes.push_back(fmt::format(
        "generate = prefill of {} tokens (time to first token) + Σ of the {} decode steps at contexts {} … {} (each step's "
        "model floor, evaluated step by step, not at a midpoint)",
        prompt, output - 1, prompt + 1, prompt + output - 1));
    if (options.efficiency.scaled())
        r.notes.push_back(fmt::format("roofs scaled by efficiency: compute × {}, HBM × {}, link × {} ({})",
                                      options.efficiency.compute, options.efficiency.hbm, options.efficiency.link,
                                      options.efficiency.source));
    add_limitations(r.notes, config);
    return r;
}

void print_generate_report(const GenerateReport& r, Format format, std::FILE* out) {
    json j = report_head("bwacct.generate/1", r.preset, r.config, r.run);
    j["run"] = json{{"phase", "generate"}, {"batch", r.run.batch}, {"prompt", r.prompt},
                    {"output", r.output},  {"tp", r.run.tp},       {"ep", r.run.ep}};
    json gs = json::array();
    for (const GenerateGpu& g : r.gpus)
        gs.push_back(json{{"gpu", g.gpu},
                          {"ttft_us", g.ttft_us},
                          {"decode_us", g.decode_us},
                          {"first_decode_step_us", g.first_step_us},
                          {"last_decode_step_us", g.last_step_us},
                          {"tpot_us", g.tpot_us ? json(*g.tpot_us) : json(nullptr)},
                          {"total_us", g.total_us},
                          {"tokens_per_s_per_seq", g.tokens_per_s_per_seq},
                          {"tokens_per_s_per_gpu", g.tokens_per_s_per_gpu}});
    j["totals"] = gs;
    j["notes"] = r.notes;
    if (print_json(j, format, "model --phase generate", out))
        return;
    std::vector<detail::GpuVerdict> lines;  // the answer first: time to the first token, per token after, tokens/s
    for (const GenerateGpu& g : r.gpus)
        lines.push_back(
            {g.gpu, fmt::format("TTFT {} ms · TPOT {} · total {} ms · {} tokens/s per sequence (modelled floors)",
                                detail::short_number(g.ttft_us / 1000),
                                g.tpot_us ? detail::short_number(*g.tpot_us / 1000) + " ms" : std::string("-"),
                                detail::short_number(g.total_us / 1000), detail::short_number(g.tokens_per_s_per_seq))});
    detail::print_verdict_lines(out, lines);
    fmt::print(out, "\n");
    print_title(out, r.preset, r.config, r.run,
                fmt::format("generate, batch {}, prompt {} tokens, output {} tokens; tp {}, ep {}", r.run.batch, r.prompt,
                            r.output, r.run.tp, r.run.ep));
    fmt::print(out, "  {:<12}modelled: each step's floor from catalog peaks, no measurement\n", "time");
    fmt::print(out, "  {:<10}{:>14}{:>14}{:>16}{:>16}{:>14}{:>16}{:>16}\n", "gpu", "TTFT ms", "TPOT ms", "first step ms",
               "last step ms", "total ms", "tok/s per seq", "tok/s per GPU");
    for (const GenerateGpu& g : r.gpus)
        fmt::print(out, "  {:<10}{:>14}{:>14}{:>16}{:>16}{:>14}{:>16}{:>16}\n", g.gpu, fixed(g.ttft_us / 1000, 3),
                   g.tpot_us ? fixed(*g.tpot_us / 1000, 3) : std::string("-"), fixed(g.first_step_us / 1000, 3),
                   fixed(g.last_step_us / 1000, 3), fixed(g.total_us / 1000, 3), detail::rate(g.tokens_per_s_per_seq),
                   detail::rate(g.tokens_per_s_per_gpu));
    print_lines(out, "note", r.notes);
}

FitReport build_fit_report(const std::string& preset, const TransformerConfig& config, const LayerRun& run,
                           std::uint64_t workspace, const std::vector<const GpuSpec*>& gpus) {
    validate_ep_split(config, run.ep);
    validate_pp(config, run);
    FitReport r;
    r.preset = preset;
    r.config = config;
    r.run = run;
    r.workspace = workspace;
    LayerRun pre = run;  // the activation peak: a prefill of batch · context tokens
    pre.phase = Phase::prefill;
    pre.seq = run.context;
    pre.window = 0;
    auto activations = [&](std::uint64_t batch) {
        LayerRun x = pre;
        x.batch = batch;
        // The peak over the layer kinds: a MoE model's dense-first layers have their own (dense) MLP.
        Exact a = layer_memory(config, x).activations;
        if (config.moe && dense_layer_count(config) > 0)
            if (const Exact dense = layer_memory(config, x, true).activations; dense.value() > a.value())
                a = dense;
        return a;
    };
    r.activations = activations(run.batch).value();
    r.activations_per_seq = activations(1).value();
    LayerRun one = run;
    one.batch = 1;
    const RankWeights w = rank_weights(config, run);
    std::uint64_t layer = 0;
    for (const StageLayers& s : pipeline_stages(config, run.pp)) {
        FitStage f;
        f.first_layer = layer;
        f.layers = s.dense + s.moe;
        layer += f.layers;
        f.embedding = s.first;
        // Tied embeddings: the head reuses the table on the embedding's stage; a later last stage holds a copy.
        f.lm_head = s.last && !(config.tied_embeddings && s.first);
        Exact weights = Exact(s.dense) * w.dense_layer + Exact(s.moe) * w.moe_layer;
        if (s.first)
            weights += w.embedding;
        if (s.last)
            weights += w.final_norm;
        if (f.lm_head)
            weights += w.lm_head;
        f.weights = weights.value();
        f.kv_cache = stage_kv_bytes(config, run, f.first_layer, f.layers).value();
        f.kv_per_seq = stage_kv_bytes(config, one, f.first_layer, f.layers).value();
        f.total = (Exact(f.weights) + Exact(f.kv_cache) + Exact(r.activations) + Exact(workspace)).value();
        if (r.stages.empty() || f.total > r.stages[r.stage].total)
            r.stage = r.stages.size();
        r.stages.push_back(f);
    }
    const FitStage& top = r.stages[r.stage];
    r.weights = top.weights;
    r.kv_cache = top.kv_cache;
    r.kv_per_seq = top.kv_per_seq;
    // The largest batch one stage holds: memory is linear in the batch up to rounding, so start from the
    // quotient and step down until it fits.
    auto largest_batch = [&](const FitStage& s, std::uint64_t cap) -> std::uint64_t {
        const Exact fixed_part = Exact(s.weights) + Exact(workspace);
        const std::uint64_t slope = (Exact(s.kv_per_seq) + Exact(r.activations_per_seq)).value();
        if (fixed_part.value() >= cap || slope == 0)
            return 0;
        std::uint64_t b = (cap - fixed_part.value()) / slope;
        auto need = [&](std::uint64_t batch) {
            LayerRun x = run;
            x.batch = batch;
            return (fixed_part + stage_kv_bytes(config, x, s.first_layer, s.layers) + activations(batch)).value();
        };
        while (b > 0 && need(b) > cap)
            --b;
        return b;
    };
    for (const GpuSpec* g : gpus) {
        FitGpu f;
        f.gpu = g->id;
        f.total_bytes = top.total;
        if (g->hbm_capacity_bytes) {
            const auto cap = static_cast<std::uint64_t>(g->hbm_capacity_bytes->value);
            f.capacity_bytes = cap;
            f.fits = top.total <= cap;
            f.limiting_stage = r.stage;  // ties go to the largest stage
            f.max_batch = largest_batch(r.stages[r.stage], cap);
            for (std::size_t i = 0; i < r.stages.size(); ++i) {
                const std::uint64_t b = i == r.stage ? f.max_batch : largest_batch(r.stages[i], cap);
                if (b < f.max_batch) {
                    f.max_batch = b;
                    f.limiting_stage = i;
                }
            }
        }
        r.gpus.push_back(f);
    }
    r.assumptions.push_back(
        "activations = one layer's forward tensors for a prefill of batch · context tokens at once (inference frees each "
        "layer's tensors before the next, so one layer is the peak; chunked prefill needs less)");
    r.assumptions.push_back(fmt::format(
        "workspace = {} per GPU as given by --workspace (default 1 GiB: CUDA context, cuBLAS and NCCL workspaces; assumed, "
        "not measured)",
        human_bytes(workspace)));
    r.notes.push_back(
        "per GPU after tensor parallelism: weights sharded as the GEMMs are (column- and row-parallel matrices, vocab-parallel "
        "embedding and LM head; q, k, v biases with their heads; norms, router and the o bias replicated); KV cache of the "
        "stage's layers at --context "
        "(sliding-window layers hold min(context, window))");
    if (run.ep > 1)
        r.notes.push_back(fmt::format(
            "EP {}: each GPU holds {} of the {} routed experts of every MoE layer, whole (not split by --tp); attention, "
            "dense MLPs and shared experts as --tp gives them; activations count the tokens/tp · k rows a rank receives on "
            "average",
            run.ep, config.moe->experts / run.ep, config.moe->experts));
    if (run.pp > 1)
        r.notes.push_back(fmt::format(
            "PP {}: layers split in order (the first L mod {} stages one more); the embedding on the first stage, the final "
            "norm and LM head on the last{}; --batch counts every sequence a stage holds KV for (all micro-batches in "
            "flight); the stage with the largest total decides",
            run.pp, run.pp, config.tied_embeddings ? " (tied embeddings: the last stage holds its own copy of the table)" : ""));
    add_limitations(r.notes, config);
    return r;
}

void print_fit_report(const FitReport& r, Format format, std::FILE* out) {
    json j = report_head("bwacct.fit/1", r.preset, r.config, r.run);
    j["run"] = json{{"batch", r.run.batch}, {"context", r.run.context}, {"tp", r.run.tp}, {"ep", r.run.ep}, {"pp", r.run.pp}};
    j["per_gpu"] = json{{"stage", r.stage},
                        {"weights_bytes", r.weights},
                        {"kv_cache_bytes", r.kv_cache},
                        {"activations_bytes", r.activations},
                        {"workspace_bytes", r.workspace},
                        {"total_bytes", r.stages[r.stage].total},
                        {"kv_cache_bytes_per_seq", r.kv_per_seq},
                        {"activations_bytes_per_seq", r.activations_per_seq}};
    json ss = json::array();
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const FitStage& s = r.stages[i];
        ss.push_back(json{{"stage", i},
                          {"first_layer", s.first_layer},
                          {"layers", s.layers},
                          {"embedding", s.embedding},
                          {"lm_head", s.lm_head},
                          {"weights_bytes", s.weights},
                          {"kv_cache_bytes", s.kv_cache},
                          {"kv_cache_bytes_per_seq", s.kv_per_seq},
                          {"total_bytes", s.total}});
    }
    j["stages"] = ss;
    json gs = json::array();
    for (const FitGpu& g : r.gpus)
        gs.push_back(json{{"gpu", g.gpu},
                          {"hbm_capacity_bytes", g.capacity_bytes ? json(*g.capacity_bytes) : json(nullptr)},
                          {"fits", g.capacity_bytes ? json(g.fits) : json(nullptr)},
                          {"max_batch", g.capacity_bytes ? json(g.max_batch) : json(nullptr)},
                          {"limiting_stage", g.capacity_bytes ? json(g.limiting_stage) : json(nullptr)}});
    j["gpus"] = gs;
    j["assumptions"] = r.assumptions;
    j["notes"] = r.notes;
    if (print_json(j, format, "model --fit", out))
        return;
    std::vector<detail::GpuVerdict> lines;  // the answer first: fits or not, and the largest batch that does
    for (const FitGpu& g : r.gpus)
        lines.push_back(
            {g.gpu, g.capacity_bytes
                        ? fmt::format("{} · {} of {} HBM · largest batch at context {}: {}", g.fits ? "fits" : "does not fit",
                                      human_bytes(g.total_bytes), human_bytes(*g.capacity_bytes), r.run.context, g.max_batch)
                        : fmt::format("unknown: the catalog has no HBM capacity · needs {}", human_bytes(g.total_bytes))});
    detail::print_verdict_lines(out, lines);
    fmt::print(out, "\n");
    print_title(
        out, r.preset, r.config, r.run,
        fmt::format("fit, batch {}, context {}; tp {}, ep {}, pp {}", r.run.batch, r.run.context, r.run.tp, r.run.ep, r.run.pp));
    if (r.stages.size() > 1) {
        for (std::size_t i = 0; i < r.stages.size(); ++i) {
            const FitStage& s = r.stages[i];
            fmt::print(out, "  stage {:<4}{:<34}weights {}, KV {}: total {}{}\n", i, stage_layers(s), human_bytes(s.weights),
                       human_bytes(s.kv_cache), human_bytes(s.total), i == r.stage ? " (largest)" : "");
        }
        fmt::print(out, "  per GPU of stage {} (the largest):\n", r.stage);
    }
    fmt::print(out, "  {:<28}{}\n", "weights per GPU", human_bytes(r.weights));
    fmt::print(out, "  {:<28}{} ({} per sequence)\n", "KV cache per GPU", human_bytes(r.kv_cache), human_bytes(r.kv_per_seq));
    fmt::print(out, "  {:<28}{} ({} per sequence)\n", "activations (prefill peak)", human_bytes(r.activations),
               human_bytes(r.activations_per_seq));
    fmt::print(out, "  {:<28}{}\n", "workspace", human_bytes(r.workspace));
    for (const FitGpu& g : r.gpus) {
        if (!g.capacity_bytes) {
            fmt::print(out, "  {:<10}total {}; the catalog has no HBM capacity for this GPU\n", g.gpu,
                       human_bytes(g.total_bytes));
            continue;
        }
        fmt::print(out, "  {:<10}total {} of {}: {}; largest batch that fits at context {}: {}{}\n", g.gpu,
                   human_bytes(g.total_bytes), human_bytes(*g.capacity_bytes), g.fits ? "fits" : "does not fit", r.run.context,
                   g.max_batch, r.stages.size() > 1 ? fmt::format(" (stage {} limits it)", g.limiting_stage) : "");
    }
    print_lines(out, "assumption", r.assumptions);
    print_lines(out, "note", r.notes);
}

}  // namespace bwacct
