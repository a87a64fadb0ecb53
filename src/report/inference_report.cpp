// Whole generations (TTFT, time per output token summed exactly over every step) and the memory fit per GPU.
// Formulas: docs/formulas.md ("Whole generations", "Fit").
#include "bwacct/inference_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bwacct/error.h"
#include "bwacct/finite_guard.h"
#include "bwacct/layer_report.h"
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
                {"batch", run.batch}};
}

std::string who(const std::string& preset, const TransformerConfig& c) {
    if (c.name.empty())
        return "given architecture";
    return preset.empty() ? c.name : fmt::format("{} (preset {})", c.name, preset);
}

// Σ over layers of each layer's KV cache on one rank (a sliding-window layer holds min(context, window) tokens).
Exact model_kv_bytes(const TransformerConfig& cfg, const LayerRun& run) {
    Exact total;
    for (std::uint64_t i = 0; i < cfg.layers; ++i) {
        LayerRun r = run;
        r.window = is_local_layer(cfg, i) ? cfg.sliding_window : 0;
        total += layer_memory(cfg, r).kv_cache;
    }
    return total;
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
    for (const std::string& l : config.limitations)
        r.notes.push_back("limitation: " + l);
    return r;
}

void print_generate_report(const GenerateReport& r, Format format, std::FILE* out) {
    json j;
    j["schema"] = "bwacct.generate/1";
    j["command"] = "model";
    j["source"] = "modelled";
    j["model"] = model_json(r.preset, r.config, r.run);
    j["run"] = json{{"phase", "generate"}, {"batch", r.run.batch}, {"prompt", r.prompt}, {"output", r.output}, {"tp", r.run.tp}};
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
    require_finite(j);
    if (format == Format::json) {
        fmt::print(out, "{}\n", j.dump(2));
        return;
    }
    if (format != Format::table)
        throw InputError("--format", "model --phase generate prints table or json");
    std::vector<detail::GpuVerdict> lines;  // the answer first: time to the first token, per token after, tokens/s
    for (const GenerateGpu& g : r.gpus)
        lines.push_back(
            {g.gpu, fmt::format("TTFT {} ms · TPOT {} · total {} ms · {} tokens/s per sequence (modelled floors)",
                                detail::short_number(g.ttft_us / 1000),
                                g.tpot_us ? detail::short_number(*g.tpot_us / 1000) + " ms" : std::string("-"),
                                detail::short_number(g.total_us / 1000), detail::short_number(g.tokens_per_s_per_seq))});
    detail::print_verdict_lines(out, lines);
    fmt::print(out, "\n");
    fmt::print(out, "model  {}: generate, batch {}, prompt {} tokens, output {} tokens; tp {}; act {}, weights {}, KV {}\n",
               who(r.preset, r.config), r.run.batch, r.prompt, r.output, r.run.tp, dtype_name(r.run.dtype),
               format_name(block_weight_format(r.config, r.run)), format_name(kv_cache_format(r.config, r.run)));
    fmt::print(out, "  {:<12}modelled: each step's floor from catalog peaks, no measurement\n", "time");
    fmt::print(out, "  {:<10}{:>14}{:>14}{:>16}{:>16}{:>14}{:>16}{:>16}\n", "gpu", "TTFT ms", "TPOT ms", "first step ms",
               "last step ms", "total ms", "tok/s per seq", "tok/s per GPU");
    for (const GenerateGpu& g : r.gpus)
        fmt::print(out, "  {:<10}{:>14}{:>14}{:>16}{:>16}{:>14}{:>16}{:>16}\n", g.gpu, fixed(g.ttft_us / 1000, 3),
                   g.tpot_us ? fixed(*g.tpot_us / 1000, 3) : std::string("-"), fixed(g.first_step_us / 1000, 3),
                   fixed(g.last_step_us / 1000, 3), fixed(g.total_us / 1000, 3), fixed(g.tokens_per_s_per_seq, 1),
                   fixed(g.tokens_per_s_per_gpu, 1));
    for (const std::string& n : r.notes)
        fmt::print(out, "  note: {}\n", n);
}

FitReport build_fit_report(const std::string& preset, const TransformerConfig& config, const LayerRun& run,
                           std::uint64_t workspace, const std::vector<const GpuSpec*>& gpus) {
    FitReport r;
    r.preset = preset;
    r.config = config;
    r.run = run;
    r.workspace = workspace;
    r.weights = weight_bytes_per_rank(config, run).value();
    LayerRun one = run;
    one.batch = 1;
    LayerRun pre = run;
    pre.phase = Phase::prefill;
    pre.seq = run.context;
    pre.window = 0;
    LayerRun pre_one = pre;
    pre_one.batch = 1;
    r.kv_cache = model_kv_bytes(config, run).value();
    r.kv_per_seq = model_kv_bytes(config, one).value();
    r.activations = layer_memory(config, pre).activations.value();
    r.activations_per_seq = layer_memory(config, pre_one).activations.value();
    const Exact fixed_part = Exact(r.weights) + Exact(r.workspace);
    const Exact total = fixed_part + Exact(r.kv_cache) + Exact(r.activations);
    for (const GpuSpec* g : gpus) {
        FitGpu f;
        f.gpu = g->id;
        f.total_bytes = total.value();
        if (g->hbm_capacity_bytes) {
            const auto cap = static_cast<std::uint64_t>(g->hbm_capacity_bytes->value);
            f.capacity_bytes = cap;
            f.fits = total.value() <= cap;
            const std::uint64_t slope = r.kv_per_seq + r.activations_per_seq;
            if (fixed_part.value() < cap && slope > 0) {
                std::uint64_t b = (cap - fixed_part.value()) / slope;
                // The memory is linear in the batch up to sub-byte rounding: confirm, and step down if needed.
                auto need = [&](std::uint64_t batch) {
                    LayerRun x = run, y = pre;
                    x.batch = y.batch = batch;
                    return (fixed_part + model_kv_bytes(config, x) + layer_memory(config, y).activations).value();
                };
                while (b > 0 && need(b) > cap)
                    --b;
                f.max_batch = b;
            }
        }
        r.gpus.push_back(f);
    }
    r.notes.push_back(
        "per GPU after tensor parallelism: weights sharded as the GEMMs are (column- and row-parallel matrices, vocab-parallel "
        "embedding and LM head; norms, router and biases replicated); KV cache of every layer at --context (sliding-window "
        "layers hold min(context, window)); activations = one layer's forward tensors for a prefill of batch · context tokens "
        "(the peak: inference frees each layer's tensors before the next); workspace as given (--workspace)");
    for (const std::string& l : config.limitations)
        r.notes.push_back("limitation: " + l);
    return r;
}

void print_fit_report(const FitReport& r, Format format, std::FILE* out) {
    json j;
    j["schema"] = "bwacct.fit/1";
    j["command"] = "model";
    j["source"] = "modelled";
    j["model"] = model_json(r.preset, r.config, r.run);
    j["run"] = json{{"batch", r.run.batch}, {"context", r.run.context}, {"tp", r.run.tp}};
    j["per_gpu"] =
        json{{"weights_bytes", r.weights},
             {"kv_cache_bytes", r.kv_cache},
             {"activations_bytes", r.activations},
             {"workspace_bytes", r.workspace},
             {"total_bytes", (Exact(r.weights) + Exact(r.kv_cache) + Exact(r.activations) + Exact(r.workspace)).value()},
             {"kv_cache_bytes_per_seq", r.kv_per_seq},
             {"activations_bytes_per_seq", r.activations_per_seq}};
    json gs = json::array();
    for (const FitGpu& g : r.gpus)
        gs.push_back(json{{"gpu", g.gpu},
                          {"hbm_capacity_bytes", g.capacity_bytes ? json(*g.capacity_bytes) : json(nullptr)},
                          {"fits", g.capacity_bytes ? json(g.fits) : json(nullptr)},
                          {"max_batch", g.capacity_bytes ? json(g.max_batch) : json(nullptr)}});
    j["gpus"] = gs;
    j["notes"] = r.notes;
    require_finite(j);
    if (format == Format::json) {
        fmt::print(out, "{}\n", j.dump(2));
        return;
    }
    if (format != Format::table)
        throw InputError("--format", "model --fit prints table or json");
    std::vector<detail::GpuVerdict> lines;  // the answer first: fits or not, and the largest batch that does
    for (const FitGpu& g : r.gpus)
        lines.push_back(
            {g.gpu, g.capacity_bytes
                        ? fmt::format("{} · {} of {} HBM · largest batch at context {}: {}", g.fits ? "fits" : "does not fit",
                                      human_bytes(g.total_bytes), human_bytes(*g.capacity_bytes), r.run.context, g.max_batch)
                        : fmt::format("unknown: the catalog has no HBM capacity · needs {}", human_bytes(g.total_bytes))});
    detail::print_verdict_lines(out, lines);
    fmt::print(out, "\n");
    fmt::print(out, "model  {}: fit, batch {}, context {}; tp {}; act {}, weights {}, KV {}\n", who(r.preset, r.config),
               r.run.batch, r.run.context, r.run.tp, dtype_name(r.run.dtype), format_name(block_weight_format(r.config, r.run)),
               format_name(kv_cache_format(r.config, r.run)));
    fmt::print(out, "  {:<26}{}\n", "weights per GPU", human_bytes(r.weights));
    fmt::print(out, "  {:<26}{} ({} per sequence)\n", "KV cache per GPU", human_bytes(r.kv_cache), human_bytes(r.kv_per_seq));
    fmt::print(out, "  {:<26}{} ({} per sequence)\n", "activations (prefill peak)", human_bytes(r.activations),
               human_bytes(r.activations_per_seq));
    fmt::print(out, "  {:<26}{}\n", "workspace", human_bytes(r.workspace));
    for (const FitGpu& g : r.gpus) {
        if (!g.capacity_bytes) {
            fmt::print(out, "  {:<10}total {}; the catalog has no HBM capacity for this GPU\n", g.gpu,
                       human_bytes(g.total_bytes));
            continue;
        }
        fmt::print(out, "  {:<10}total {} of {}: {}; largest batch that fits at context {}: {}\n", g.gpu,
                   human_bytes(g.total_bytes), human_bytes(*g.capacity_bytes), g.fits ? "fits" : "does not fit", r.run.context,
                   g.max_batch);
    }
    for (const std::string& n : r.notes)
        fmt::print(out, "  note: {}\n", n);
}

}  // namespace bwacct
