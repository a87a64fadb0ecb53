// Analyzes a transformer block's ops on each GPU and renders the per-op table, the totals and the
// memory (schema "bwacct.layer/1"). Totals: ops run one after another, so a span's floor is the sum
// of its ops' floors; the share of a roof is the part of that floor spent in ops bound by it.
#include "bwacct/layer_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bwacct/dit.h"
#include "bwacct/error.h"
#include "bwacct/expert_parallel.h"
#include "bwacct/finite_guard.h"
#include "bwacct/json_text.h"
#include "bwacct/pipeline_parallel.h"
#include "human.h"
#include "verdict_line.h"

namespace bwacct {
namespace {

using json = nlohmann::ordered_json;
using detail::fixed;
using detail::human_bytes;
using detail::human_count;
using detail::percent;
using detail::rate;

const char* weight_part_name(WeightPart part) {
    switch (part) {
        case WeightPart::attention:
            return "attention";
        case WeightPart::dense_mlp:
            return "dense MLPs";
        case WeightPart::shared_experts:
            return "shared experts";
    }
    return "";
}

// The parts of the blocks the checkpoint keeps in 16 bits (TransformerConfig::kept), e.g. "attention, shared experts".
std::string kept_parts_note(const TransformerConfig& c) {
    std::string s;
    for (const WeightPart part : kWeightParts)
        if (kept_part(c, part))
            s += (s.empty() ? "" : ", ") + std::string(weight_part_name(part));
    return s;
}

// The format of the kept parts (part_weight_format; each kept part has the same).
std::string kept_format_name(const TransformerConfig& c, const LayerRun& run) {
    for (const WeightPart part : kWeightParts)
        if (kept_part(c, part))
            return format_name(part_weight_format(c, run, part));
    return "";
}

double& roof_slot(RoofTimes& r, Roof roof) {
    switch (roof) {
        case Roof::compute:
            return r.compute;
        case Roof::hbm:
            return r.hbm;
        case Roof::link:
            return r.link;
        case Roof::dispatch:
        case Roof::overhead:
            return r.dispatch;
    }
    return r.dispatch;
}

void accumulate(SpanTotals& s, const Verdict& v, double times) {
    s.floor_us += times * v.floor_us;
    s.roof_sums_us.compute += times * v.roofs_us.compute;
    s.roof_sums_us.hbm += times * v.roofs_us.hbm;
    s.roof_sums_us.link += times * v.roofs_us.link;
    s.roof_sums_us.dispatch += times * v.roofs_us.dispatch;
    roof_slot(s.bound_us, v.bound) += times * v.floor_us;
}

void finish(SpanTotals& s, std::uint64_t tokens) {
    const double f = s.floor_us > 0 ? s.floor_us : 1;
    s.share = {s.bound_us.compute / f, s.bound_us.hbm / f, s.bound_us.link / f, s.bound_us.dispatch / f};
    s.bound = s.bound_us.argmax();
    s.tokens_per_s = s.floor_us > 0 ? static_cast<double>(tokens) / (s.floor_us * 1e-6) : 0;
}

std::vector<OpResult> analyze_ops(const std::vector<LayerOp>& ops, const std::vector<const GpuSpec*>& gpus,
                                  const AnalysisOptions& options) {
    std::vector<OpResult> out;
    for (const LayerOp& op : ops) {
        OpResult r{op, {}};
        for (const GpuSpec* g : gpus)
            r.verdicts.push_back(analyze(op.cost, *g, options));
        out.push_back(std::move(r));
    }
    return out;
}

// ---- JSON

json roofs_json(const RoofTimes& r) {
    return json{{"compute_us", r.compute}, {"hbm_us", r.hbm}, {"link_us", r.link}, {"dispatch_us", r.dispatch}};
}

json share_json(const RoofTimes& r) {
    return json{{"compute", r.compute}, {"hbm", r.hbm}, {"link", r.link}, {"dispatch", r.dispatch}};
}

json span_json(const SpanTotals& s) {
    return json{{"floor_us", s.floor_us},
                {"bound", roof_name(s.bound)},
                {"share", share_json(s.share)},
                {"bound_us", roofs_json(s.bound_us)},
                {"roof_sums_us", roofs_json(s.roof_sums_us)},
                {"tokens_per_s", s.tokens_per_s}};
}

DitTiming dit_timing(double forward_us, const LayerRun& run) {
    DitTiming d;
    d.forwards_per_step = dit_forwards_per_step(run);
    d.steps = run.dit.steps;
    d.frames_per_chunk = run.dit.frames_per_chunk;
    d.forward_us = forward_us;
    d.step_us = static_cast<double>(d.forwards_per_step) * forward_us;
    d.chunk_us = static_cast<double>(d.steps) * d.step_us;
    if (d.frames_per_chunk != 0 && d.chunk_us > 0)
        d.fps = static_cast<double>(d.frames_per_chunk) / (d.chunk_us * 1e-6);
    return d;
}

json dit_json(const DitTiming& d) {
    return json{{"forwards_per_step", d.forwards_per_step},
                {"steps", d.steps},
                {"frames_per_chunk", d.frames_per_chunk == 0 ? json(nullptr) : json(d.frames_per_chunk)},
                {"forward_us", d.forward_us},
                {"step_us", d.step_us},
                {"chunk_us", d.chunk_us},
                {"fps", d.fps ? json(*d.fps) : json(nullptr)}};
}

double floors(const std::vector<OpResult>& ops, std::size_t gi) {
    double f = 0;
    for (const OpResult& o : ops)
        f += o.verdicts[gi].floor_us;
    return f;
}

PipelineTiming pipeline_timing(const LayerReport& r, std::size_t gi) {
    const TransformerConfig& c = r.config;
    PipelineTiming p;
    p.stages = r.run.pp;
    p.micro_batches = r.run.micro_batches;
    p.send_bytes = stage_send_bytes(c, r.run).value();
    const double moe = floors(r.layer_ops, gi), dense = c.moe ? floors(r.dense_layer_ops, gi) : moe;
    double first = 0, every = 0, last = 0;
    for (const OpResult& o : r.edge_ops) {
        const EdgeStage where = edge_op_stage(c, o.op);
        (where == EdgeStage::first ? first : where == EdgeStage::every ? every : last) += o.verdicts[gi].floor_us;
    }
    for (const StageLayers& s : pipeline_stages(c, r.run.pp)) {
        const double t = static_cast<double>(s.dense) * dense + static_cast<double>(s.moe) * moe + every + (s.first ? first : 0) +
                         (s.last ? last : 0);
        p.slowest_stage_us = std::max(p.slowest_stage_us, t);
    }
    p.send_us = floors(r.pipeline_ops, gi);
    p.slot_us = p.slowest_stage_us + p.send_us;
    p.step_us = static_cast<double>(p.micro_batches + p.stages - 1) * p.slot_us;
    p.bubble_fraction = pipeline_bubble_fraction(p.stages, p.micro_batches);
    p.tokens_per_s = p.step_us > 0 ? static_cast<double>(p.micro_batches * r.run.tokens()) / (p.step_us * 1e-6) : 0;
    return p;
}

json pipeline_json(const PipelineTiming& p) {
    return json{{"stages", p.stages},
                {"micro_batches", p.micro_batches},
                {"send_bytes_per_micro_batch", p.send_bytes},
                {"slowest_stage_us", p.slowest_stage_us},
                {"send_us", p.send_us},
                {"slot_us", p.slot_us},
                {"step_us", p.step_us},
                {"bubble_fraction", p.bubble_fraction},
                {"tokens_per_s", p.tokens_per_s}};
}

json op_json(const OpResult& r, const char* scope) {
    const Cost& c = r.op.cost;
    json j{{"name", r.op.name},
           {"scope", scope},
           {"part", op_part_name(r.op.part)},
           {"detail", r.op.detail},
           {"flops", c.flops},
           {"unit", unit_name(c.unit)},
           {"bytes_read", c.bytes_read},
           {"bytes_written", c.bytes_written},
           {"bytes", c.bytes()},
           {"launches", c.launches}};
    if (c.collective) {
        const CollectiveCost& cc = *c.collective;
        j["collective"] = json{{"kind", collective_name(cc.kind)},
                               {"algo", algo_name(cc.algo)},
                               {"ranks", cc.ranks},
                               {"size_bytes", cc.size_bytes},
                               {"wire_bytes_per_rank", cc.wire_bytes_per_rank},
                               {"steps", cc.steps}};
    }
    json gpus = json::array();
    for (const Verdict& v : r.verdicts) {
        json g{{"gpu", v.gpu}, {"bound", roof_name(v.bound)}, {"floor_us", v.floor_us}};
        g["compute_us"] = v.roofs_us.compute;
        g["hbm_us"] = v.roofs_us.hbm;
        g["link_us"] = v.roofs_us.link;
        g["dispatch_us"] = v.roofs_us.dispatch;
        if (!v.notes.empty())
            g["notes"] = v.notes;
        gpus.push_back(g);
    }
    j["gpus"] = gpus;
    return j;
}

// The run on one GPU: the whole model's weights (no tensor or expert split).
LayerRun tp1(const LayerRun& run) {
    LayerRun r = run;
    r.tp = 1;
    r.ep = 1;
    return r;
}

json report_json(const LayerReport& r) {
    const TransformerConfig& c = r.config;
    const LayerRun& run = r.run;
    json j;
    j["schema"] = "bwacct.layer/1";
    j["command"] = r.command;
    j["source"] = "modelled";
    j["efficiency"] = json{{"hbm", r.efficiency.hbm},
                           {"compute", r.efficiency.compute},
                           {"link", r.efficiency.link},
                           {"source", r.efficiency.scaled() ? json(r.efficiency.source) : json("none: the catalog's peaks")}};
    json model{{"preset", r.preset.empty() ? json(nullptr) : json(r.preset)},
               {"name", c.name.empty() ? json(nullptr) : json(c.name)},
               {"source", c.source.empty() ? json("given on the command line") : json(c.source)},
               {"hidden", c.hidden},
               {"layers", c.layers == 0 ? json(nullptr) : json(c.layers)},
               {"heads", c.heads},
               {"kv_heads", c.kv_heads},
               {"head_dim", head_dim(c)},
               {"ffn", c.ffn},
               {"vocab", c.vocab == 0 ? json(nullptr) : json(c.vocab)},
               {"mlp", mlp_name(c.mlp)},
               {"norm", norm_name(c.norm)},
               {"tied_embeddings", c.tied_embeddings}};
    if (c.qk_norm)
        model["qk_norm"] = true;
    if (c.sliding_window != 0)
        model["sliding_window"] = c.sliding_window;
    if (c.weight_format)
        model["checkpoint_weight_format"] = format_name(*c.weight_format);
    if (!kept_parts_note(c).empty())
        model["checkpoint_kept_16bit"] = kept_parts_note(c);
    if (c.moe)
        model["moe"] = json{{"experts", c.moe->experts},
                            {"top_k", c.moe->top_k},
                            {"expert_ffn", c.moe->expert_ffn},
                            {"shared_experts", c.moe->shared_experts},
                            {"dense_layers", c.moe->dense_layers},
                            {"moe_layers", moe_layer_count(c)},
                            {"experts_touched_per_layer", experts_touched(c, run)},
                            {"experts_touched_source", run.experts_touched != 0 ? "given (--experts-touched)"
                                                                                : "expected: E·(1 − (1 − k/E)^T), T = tokens"}};
    if (c.mla)
        model["mla"] = json{{"q_lora_rank", c.mla->q_lora_rank},
                            {"kv_lora_rank", c.mla->kv_lora_rank},
                            {"qk_nope_head_dim", c.mla->qk_nope_head_dim},
                            {"qk_rope_head_dim", c.mla->qk_rope_head_dim},
                            {"v_head_dim", c.mla->v_head_dim},
                            {"attention", "absorbed"}};
    model["limitations"] = c.limitations;
    j["model"] = model;
    j["run"] = json{{"phase", phase_name(run.phase)},
                    {"batch", run.batch},
                    {"seq", run.phase == Phase::decode ? json(nullptr) : json(run.seq)},
                    {"q_len", run.q_len()},
                    {"context", run.context},
                    {"tokens", run.tokens()},
                    {"tp", run.tp},
                    {"ep", run.ep},
                    {"pp", run.pp},
                    {"micro_batches", run.micro_batches},
                    {"sequence_parallel", run.sequence_parallel},
                    {"recompute", run.recompute},
                    {"dtype", dtype_name(run.dtype)},
                    {"act_dtype", dtype_name(run.dtype)},
                    {"weight_format", format_name(block_weight_format(c, run))},
                    {"kv_format", format_name(kv_cache_format(c, run))},
                    {"attention", run.attention == AttentionImpl::flash ? "flash" : "naive"}};
    if (const auto& v = run.dit.video)  // the tokens were derived from --video, not given
        j["run"]["video"] = json{{"source", "derived from --video"},
                                 {"frames", v->frames},
                                 {"height", v->height},
                                 {"width", v->width},
                                 {"vae_latent_channels", v->vae_channels},
                                 {"vae_stride", v->vae_stride},
                                 {"latent", v->latent},
                                 {"patch", v->patch},
                                 {"tokens", v->tokens}};
    if (r.params) {
        const ParamCount& p = *r.params;
        j["params"] = json{{"embedding", p.embedding.value()},
                           {"attention_per_layer", p.attention.value()},
                           {"mlp_per_layer", p.mlp.value()},
                           {"norms_per_layer", p.norms.value()},
                           {"per_layer", p.per_layer.value()},
                           {"final_norm", p.final_norm.value()},
                           {"lm_head", p.lm_head.value()},
                           {"total", p.total.value()},
                           {"active", p.active.value()},
                           {"bytes", weight_bytes_per_rank(c, tp1(run)).value()},
                           {"bytes_per_gpu", weight_bytes_per_rank(c, run).value()}};
        if (c.dit && c.dit->vace_blocks != 0)
            j["params"]["dit_vace"] = p.dit_vace.value();
        if (c.moe) {
            json& jp = j["params"];
            jp["dense_layers"] = p.dense_layers;
            jp["moe_layers"] = p.moe_layers;
            jp["router_per_layer"] = p.router.value();
            jp["expert"] = p.expert.value();
            jp["shared_per_layer"] = p.shared.value();
            jp["moe_mlp_per_layer"] = p.moe_mlp.value();
            jp["moe_per_layer"] = p.moe_per_layer.value();
        }
    }
    const LayerMemory& m = r.memory;
    json mem{{"per_rank", true},
             {"kv_cache_bytes", m.kv_cache.value()},
             {"activations_bytes", m.activations.value()},
             {"activations_checkpointed_bytes", m.activations_checkpointed.value()},
             {"attention_scores_bytes", m.attention_scores.value()}};
    mem["kv_cache_bytes_per_token_per_layer"] = kv_bytes(c, run, Exact(1)).value();
    if (c.layers != 0)
        mem["model"] = json{{"kv_cache_bytes", (Exact(c.layers) * m.kv_cache).value()},
                            {"kv_cache_bytes_per_token", (Exact(c.layers) * kv_bytes(c, run, Exact(1))).value()},
                            {"activations_bytes", r.model_activations.value()},
                            {"activations_checkpointed_bytes",
                             (Exact(c.layers) * m.activations_checkpointed + r.peak_layer_activations).value()}};
    if (c.layers != 0)
        mem["model"]["kv_cache_bytes"] = r.model_kv_cache.value();
    json kinds = json::array();
    for (const LayerReport::LayerKind& k : r.kinds) {
        json jk{{"dense_mlp", k.dense}, {"window", k.window == 0 ? json(nullptr) : json(k.window)}, {"layers", k.count}};
        if (!k.block.empty())
            jk["block"] = k.block;
        kinds.push_back(jk);
    }
    j["layer_kinds"] = kinds;
    j["memory"] = mem;
    json ops = json::array();
    for (const OpResult& o : r.layer_ops)
        ops.push_back(op_json(o, "layer"));
    for (const OpResult& o : r.dense_layer_ops)
        ops.push_back(op_json(o, "dense_layer"));
    for (const OpResult& o : r.edge_ops)
        ops.push_back(op_json(o, "model"));
    for (std::size_t ki = 0; ki < r.kinds.size(); ++ki) {
        const LayerReport::LayerKind& k = r.kinds[ki];
        if (ki == r.layer_kind || ki == r.dense_kind)
            continue;
        const std::string scope =
            !k.block.empty() ? fmt::format("layer ({})", k.block)
                             : fmt::format("{}{}", k.dense ? "dense_layer" : "layer",
                                           k.window ? fmt::format(" (window {})", k.window) : std::string(" (full attention)"));
        for (const OpResult& o : k.ops)
            ops.push_back(op_json(o, scope.c_str()));
    }
    for (const OpResult& o : r.pipeline_ops)
        ops.push_back(op_json(o, "pipeline"));
    j["ops"] = ops;
    json totals = json::array();
    for (const GpuTotals& t : r.totals) {
        json g{{"gpu", t.gpu}, {"layer", span_json(t.layer)}};
        g["model"] = t.model ? span_json(*t.model) : json(nullptr);
        if (t.dit)
            g["diffusion"] = dit_json(*t.dit);
        if (t.pipeline)
            g["pipeline"] = pipeline_json(*t.pipeline);
        totals.push_back(g);
    }
    j["totals"] = totals;
    j["notes"] = r.notes;
    return j;
}

// ---- Table

std::string roof_or_dash(double v, bool present) { return present ? fixed(v, 2) : "-"; }

void print_ops_for_gpu(std::FILE* out, const std::vector<OpResult>& ops, std::size_t gi, double times) {
    for (const OpResult& o : ops) {
        const Verdict& v = o.verdicts[gi];
        const Cost& c = o.op.cost;
        fmt::print(out, "  {:<34}{:>18}{:>18}{:>9}{:>12}{:>11}{:>10}{:>12}{:>11}  {:<9} {}\n", o.op.name, human_count(c.flops),
                   human_count(c.bytes()), c.launches, roof_or_dash(v.roofs_us.compute, v.peaks.compute_tflops.has_value()),
                   fixed(v.roofs_us.hbm, 2), roof_or_dash(v.roofs_us.link, c.collective.has_value()),
                   fixed(v.roofs_us.dispatch, 2), fixed(v.floor_us * times, 2), roof_name(v.bound), o.op.detail);
    }
}

std::string share_text(const SpanTotals& s) {
    return fmt::format("hbm {} · compute {} · link {} · dispatch {}", percent(s.share.hbm), percent(s.share.compute),
                       percent(s.share.link), percent(s.share.dispatch));
}

// "bf16", or "act bf16, weights int4 (g128 …), KV fp8_e4m3" when they differ.
std::string precision_text(const TransformerConfig& c, const LayerRun& run) {
    const StorageFormat w = block_weight_format(c, run), kv = kv_cache_format(c, run);
    if (w == plain_format(run.dtype) && kv == plain_format(run.dtype))
        return std::string(dtype_name(run.dtype));
    return fmt::format("act {}, weights {}, KV {}", dtype_name(run.dtype), format_name(w), format_name(kv));
}

// The answer first, one line per GPU: what binds, the floor and the rate. `layer`: one layer's floor
// and tokens/s through it; `model`: the time per step (decode: per token of each sequence), tokens/s,
// and the pipeline's or the diffusion run's figure when there is one.
std::vector<detail::GpuVerdict> verdict_lines(const LayerReport& r) {
    std::vector<detail::GpuVerdict> lines;
    for (const GpuTotals& t : r.totals) {
        std::string text;
        if (!t.model) {
            text = fmt::format("{} · floor {} µs per layer · {} tokens/s through one layer (modelled)",
                               detail::bound_text(t.layer.bound), detail::short_number(t.layer.floor_us),
                               rate(t.layer.tokens_per_s));
        } else {
            const SpanTotals& m = *t.model;
            const std::string per = r.config.dit                   ? "per forward"
                                    : r.run.phase == Phase::decode ? "per token (one per sequence each step)"
                                                                   : "per step";
            text = fmt::format("{} · floor {} ms {} · {} tokens/s (modelled)", detail::bound_text(m.bound),
                               detail::short_number(m.floor_us / 1000), per, rate(m.tokens_per_s));
        }
        if (t.pipeline)
            text += fmt::format(" · pipeline step {} ms, {} tokens/s", detail::short_number(t.pipeline->step_us / 1000),
                                rate(t.pipeline->tokens_per_s));
        if (t.dit && t.dit->fps)
            text += fmt::format(" · {} FPS", rate(*t.dit->fps));
        lines.push_back({t.gpu, text});
    }
    return lines;
}

void print_table(const LayerReport& r, std::FILE* out) {
    const TransformerConfig& c = r.config;
    const LayerRun& run = r.run;
    detail::print_verdict_lines(out, verdict_lines(r));
    fmt::print(out, "\n");
    const std::string who = c.name.empty()     ? std::string("given architecture")
                            : r.preset.empty() ? c.name
                                               : fmt::format("{} (preset {})", c.name, r.preset);
    fmt::print(out, "{}  {}: hidden {}, heads {}/{} KV, head_dim {}, ffn {} ({}), {}{}\n", r.command, who, c.hidden, c.heads,
               c.kv_heads, head_dim(c), c.ffn, mlp_name(c.mlp), norm_name(c.norm),
               c.layers ? fmt::format(", {} layers", c.layers) : "");
    fmt::print(out,
               "  {:<12}{}: batch {}, {} tokens per sequence, context {} → {} tokens per step; tp {}{}{}; {}; {} attention\n",
               "run", phase_name(run.phase), run.batch, run.q_len(), run.context, human_count(run.tokens()), run.tp,
               run.sequence_parallel ? " + sequence parallel" : "", run.recompute ? ", activation recompute" : "",
               precision_text(c, run), run.attention == AttentionImpl::flash ? "flash" : "naive");
    if (const auto& v = run.dit.video)
        fmt::print(out,
                   "  {:<12}derived from --video {}x{}x{}: VAE ({} latent channels) stride {}×{}×{} → latent {}×{}×{} → patch "
                   "{}×{}×{} → {}·{}·{} = {} tokens per sequence\n",
                   "video", v->frames, v->height, v->width, v->vae_channels, v->vae_stride[0], v->vae_stride[1], v->vae_stride[2],
                   v->latent[0], v->latent[1], v->latent[2], v->patch[0], v->patch[1], v->patch[2], v->grid[0], v->grid[1],
                   v->grid[2], human_count(v->tokens));
    fmt::print(out, "  {:<12}modelled: each op's roofs from catalog peaks, no measurement; FLOPs and bytes per rank{}\n", "time",
               r.efficiency.scaled() ? fmt::format("; roofs scaled by efficiency: compute × {}, HBM × {}, link × {} ({})",
                                                   r.efficiency.compute, r.efficiency.hbm, r.efficiency.link, r.efficiency.source)
                                     : "");
    if (!c.source.empty())
        fmt::print(out, "  {:<12}{}\n", "source", c.source);
    if (r.params) {
        const ParamCount& p = *r.params;
        fmt::print(
            out,
            "  {:<12}{} = embedding {} + {} layers × {} (attention {} + mlp {} + norms {}) + final norm {} + LM head {}{}; "
            "{} in {}{}{}\n",
            "parameters", human_count(p.total.value()), human_count(p.embedding.value()),
            c.moe ? fmt::format("{} MoE layers (below) + {}", p.moe_layers, p.dense_layers) : std::to_string(c.layers),
            human_count(p.per_layer.value()), human_count(p.attention.value()), human_count(p.mlp.value()),
            human_count(p.norms.value()), human_count(p.final_norm.value()), human_count(p.lm_head.value()),
            c.dit && c.dit->vace_blocks != 0 ? fmt::format(" + vace {}", human_count(p.dit_vace.value())) : "",
            human_bytes(weight_bytes_per_rank(c, tp1(run)).value()), format_name(block_weight_format(c, run)),
            run.weight || kept_parts_note(c).empty() ? std::string()
                                                     : fmt::format(" ({} in {})", kept_parts_note(c), kept_format_name(c, run)),
            run.tp > 1 || run.ep > 1 ? fmt::format(", {} per GPU at tp {}, ep {} (no pipeline split)",
                                                   human_bytes(weight_bytes_per_rank(c, run).value()), run.tp, run.ep)
                                     : "");
        if (c.dit && c.dit->vace_blocks != 0)
            fmt::print(out,
                       "  {:<12}{} in the total: {} context blocks (a block + after_proj each), before_proj, patch embedding\n",
                       "vace", human_count(p.dit_vace.value()), c.dit->vace_blocks);
        if (c.moe)
            fmt::print(out,
                       "  {:<12}{} MoE layers × {} (attention {} + router {} + {} experts × {} + shared {} + norms {}); "
                       "{} {}; active per token {}; experts touched per layer {:.3f} ({})\n",
                       "moe", p.moe_layers, human_count(p.moe_per_layer.value()), human_count(p.attention.value()),
                       human_count(p.router.value()), c.moe->experts, human_count(p.expert.value()),
                       human_count(p.shared.value()), human_count(p.norms.value()), p.dense_layers,
                       c.moe->dense_pattern.empty() ? "dense-first layers" : "dense-MLP layers (interleaved)",
                       human_count(p.active.value()), experts_touched(c, run),
                       run.experts_touched != 0 ? "given" : "expected under uniform routing");
    }

    for (std::size_t gi = 0; gi < r.totals.size(); ++gi) {
        const Verdict& any = r.layer_ops.front().verdicts[gi];
        fmt::print(out, "\n{}: HBM {} GB/s{}, launch {} µs\n", r.totals[gi].gpu, fixed(any.peaks.hbm_GBps, 0),
                   r.efficiency.hbm != 1 ? fmt::format(" (catalog × {}, --efficiency)", r.efficiency.hbm) : "",
                   fixed(any.peaks.launch_us, 2));
        fmt::print(out, "  {:<34}{:>18}{:>18}{:>9}{:>12}{:>11}{:>10}{:>12}{:>11}  {}\n", "op (one layer)", "FLOPs", "HBM bytes",
                   "launches", "compute µs", "hbm µs", "link µs", "dispatch µs", "floor µs", "bound");
        print_ops_for_gpu(out, r.layer_ops, gi, 1);
        const GpuTotals& t = r.totals[gi];
        fmt::print(out, "  {:<34}{:>103}  {}\n", "layer floor (Σ op floors)", fixed(t.layer.floor_us, 2),
                   roof_name(t.layer.bound));
        if (!r.dense_layer_ops.empty()) {
            fmt::print(out, "  {:<34}\n",
                       c.moe->dense_pattern.empty() ? fmt::format("dense layers (first {} of {})", dense_layer_count(c), c.layers)
                                                    : fmt::format("dense layers ({} of {})", dense_layer_count(c), c.layers));
            print_ops_for_gpu(out, r.dense_layer_ops, gi, 1);
        }
        if (!r.edge_ops.empty()) {
            fmt::print(out, "  {:<34}\n", "outside the layers (once per model)");
            print_ops_for_gpu(out, r.edge_ops, gi, 1);
        }
        if (!r.pipeline_ops.empty()) {
            fmt::print(out, "  {:<34}\n", "between pipeline stages (per micro-batch)");
            print_ops_for_gpu(out, r.pipeline_ops, gi, 1);
        }
    }

    fmt::print(out, "\ntotals (ops run one after another: a floor is the sum of the ops' floors)\n");
    for (const GpuTotals& t : r.totals) {
        fmt::print(out, "  {:<10}layer  floor {} µs, {} tokens/s through one layer; bound {}; share of time: {}\n", t.gpu,
                   fixed(t.layer.floor_us, 2), rate(t.layer.tokens_per_s), roof_name(t.layer.bound), share_text(t.layer));
        fmt::print(out, "  {:<10}       each roof alone: compute {} µs, hbm {} µs, link {} µs, dispatch {} µs\n", "",
                   fixed(t.layer.roof_sums_us.compute, 2), fixed(t.layer.roof_sums_us.hbm, 2),
                   fixed(t.layer.roof_sums_us.link, 2), fixed(t.layer.roof_sums_us.dispatch, 2));
        if (t.model) {
            const SpanTotals& m = *t.model;
            fmt::print(out, "  {:<10}{}  floor {} ms per {}{}, {} tokens/s; bound {}; share of time: {}\n", "",
                       r.edge_ops.empty() ? "layers" : "model ", fixed(m.floor_us / 1000, 3), c.dit ? "forward" : "step",
                       run.phase == Phase::decode ? " (one token per sequence)" : "", rate(m.tokens_per_s), roof_name(m.bound),
                       share_text(m));
            fmt::print(out, "  {:<10}       each roof alone: compute {} ms, hbm {} ms, link {} ms, dispatch {} ms\n", "",
                       fixed(m.roof_sums_us.compute / 1000, 3), fixed(m.roof_sums_us.hbm / 1000, 3),
                       fixed(m.roof_sums_us.link / 1000, 3), fixed(m.roof_sums_us.dispatch / 1000, 3));
        }
        if (t.pipeline) {
            const PipelineTiming& p = *t.pipeline;
            fmt::print(out,
                       "  {:<10}pipeline  {} stages × {} micro-batches: slowest stage {} ms + send {} µs ({} B) per slot; step "
                       "({} + {} − 1) slots = {} ms; bubble {} = (N − 1)/(M + N − 1); {} tokens/s\n",
                       "", p.stages, p.micro_batches, fixed(p.slowest_stage_us / 1000, 3), fixed(p.send_us, 2), p.send_bytes,
                       p.micro_batches, p.stages, fixed(p.step_us / 1000, 3), percent(p.bubble_fraction), rate(p.tokens_per_s));
        }
        if (t.dit) {
            const DitTiming& d = *t.dit;
            fmt::print(out, "  {:<10}diffusion  forward {} ms; step {} ms ({} forward{}); chunk {} ms ({} step{}){}\n", "",
                       fixed(d.forward_us / 1000, 3), fixed(d.step_us / 1000, 3), d.forwards_per_step,
                       d.forwards_per_step > 1 ? "s: classifier-free guidance" : "", fixed(d.chunk_us / 1000, 3), d.steps,
                       d.steps > 1 ? "s" : "",
                       d.fps ? fmt::format("; {} frames per chunk → {} FPS", d.frames_per_chunk, rate(*d.fps)) : "");
        }
    }

    const LayerMemory& m = r.memory;
    fmt::print(out, "\nmemory per layer, per rank\n");
    fmt::print(out, "  {:<34}{} ({})\n", "KV cache", human_count(m.kv_cache.value()), human_bytes(m.kv_cache.value()));
    fmt::print(
        out, "  {:<34}{} ({}){}\n", "activations kept for backward", human_count(m.activations.value()),
        human_bytes(m.activations.value()),
        m.attention_scores.value() ? fmt::format(", of which attention scores {}", human_bytes(m.attention_scores.value())) : "");
    fmt::print(out, "  {:<34}{} ({}): the layer input only; the rest is recomputed\n", "  with checkpointing",
               human_count(m.activations_checkpointed.value()), human_bytes(m.activations_checkpointed.value()));
    if (c.layers != 0)
        fmt::print(out, "  {:<34}KV {}, activations {} without checkpointing, {} with (L inputs + one layer's working set)\n",
                   fmt::format("× {} layers", c.layers), human_bytes(r.model_kv_cache.value()),
                   human_bytes(r.model_activations.value()),
                   human_bytes((Exact(c.layers) * m.activations_checkpointed + r.peak_layer_activations).value()));
    for (const std::string& n : r.notes)
        fmt::print(out, "  note: {}\n", n);
}

// Groups the layers by kind: dense-first or not, and the window that caps this run's context (0: none).
std::vector<LayerReport::LayerKind> layer_kinds(const TransformerConfig& config, const LayerRun& run,
                                                const std::vector<const GpuSpec*>& gpus, const AnalysisOptions& options) {
    std::vector<LayerReport::LayerKind> kinds;
    if (config.dit && config.dit->vace_blocks != 0 && config.layers != 0) {  // VACE: main, hinted and context blocks
        for (const auto& [kind, label] : {std::pair{DitBlock::main, ""}, std::pair{DitBlock::hinted, "block with a VACE hint"},
                                          std::pair{DitBlock::vace, "vace context block"}}) {
            const std::uint64_t n = dit_block_count(config, kind);
            if (n != 0)
                kinds.push_back({false, 0, n, analyze_ops(dit_block_ops(config, run, kind), gpus, options), label});
        }
        return kinds;
    }
    const std::uint64_t layers = std::max<std::uint64_t>(config.layers, 1);
    for (std::uint64_t i = 0; i < layers; ++i) {
        const bool dense = config.moe && is_dense_mlp_layer(config, i);
        const std::uint64_t w = is_local_layer(config, i) && config.sliding_window < run.context ? config.sliding_window : 0;
        auto it = std::find_if(kinds.begin(), kinds.end(),
                               [&](const LayerReport::LayerKind& k) { return k.dense == dense && k.window == w; });
        if (it == kinds.end()) {
            kinds.push_back({dense, w, 0, {}, {}});
            it = kinds.end() - 1;
        }
        it->count += config.layers == 0 ? 0 : 1;
    }
    for (LayerReport::LayerKind& k : kinds) {
        LayerRun kr = run;
        kr.window = k.window;
        k.ops = analyze_ops(transformer_layer_ops(config, kr, k.dense), gpus, options);
    }
    return kinds;
}

}  // namespace

std::vector<double> model_floor_us(const TransformerConfig& config, const LayerRun& run, const std::vector<const GpuSpec*>& gpus,
                                   const AnalysisOptions& options) {
    const std::vector<LayerReport::LayerKind> kinds = layer_kinds(config, run, gpus, options);
    const std::vector<OpResult> edges = analyze_ops(model_edge_ops(config, run), gpus, options);
    std::vector<double> out(gpus.size(), 0.0);
    for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
        SpanTotals m;
        for (const LayerReport::LayerKind& k : kinds)
            for (const OpResult& o : k.ops)
                accumulate(m, o.verdicts[gi], static_cast<double>(k.count));
        for (const OpResult& o : edges)
            accumulate(m, o.verdicts[gi], 1);
        out[gi] = m.floor_us;
    }
    return out;
}

LayerReport build_layer_report(const std::string& command, const std::string& preset, const TransformerConfig& config,
                               const LayerRun& run, bool whole_model, const std::vector<const GpuSpec*>& gpus,
                               const AnalysisOptions& options) {
    LayerReport r;
    r.command = command;
    r.preset = preset;
    r.config = config;
    r.run = run;
    r.efficiency = options.efficiency;
    if (whole_model && config.layers == 0)
        throw InputError("--layers", "must be a positive integer (or give --preset)");
    r.kinds = layer_kinds(config, run, gpus, options);
    // layer_ops: the repeated layer (a MoE model's MoE layer) as layer 0 of its kind runs it.
    const bool moe_model = config.moe && moe_layer_count(config) > 0;
    for (std::size_t ki = r.kinds.size(); ki-- > 0;) {
        if (!r.kinds[ki].dense)  // the first kind without a dense-first MLP
            r.layer_kind = ki;
        if (moe_model && r.kinds[ki].dense)
            r.dense_kind = ki;
    }
    r.layer_ops = r.kinds[r.layer_kind].ops;
    if (r.dense_kind != LayerReport::kNone)
        r.dense_layer_ops = r.kinds[r.dense_kind].ops;
    if (whole_model)
        r.edge_ops = analyze_ops(model_edge_ops(config, run), gpus, options);
    validate_pp(config, run);
    if (run.pp > 1)
        r.pipeline_ops = analyze_ops(stage_sendrecv_ops(config, run), gpus, options);
    LayerRun first = run;
    first.window = r.kinds[r.layer_kind].window;
    r.memory = layer_memory(config, first);
    for (const LayerReport::LayerKind& k : r.kinds) {
        LayerRun kr = run;
        kr.window = k.window;
        const LayerMemory km = layer_memory(config, kr, k.dense);
        r.model_kv_cache += Exact(k.count) * km.kv_cache;
        r.model_activations += Exact(k.count) * km.activations;
        if (km.activations.value() > r.peak_layer_activations.value())
            r.peak_layer_activations = km.activations;
    }
    if ((config.vocab != 0 || config.dit) && config.layers != 0)
        r.params = param_count(config);
    const std::uint64_t tokens = run.tokens();
    for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
        GpuTotals t;
        t.gpu = gpus[gi]->id;
        for (const OpResult& o : r.layer_ops)
            accumulate(t.layer, o.verdicts[gi], 1);
        finish(t.layer, tokens);
        if (config.layers != 0) {
            SpanTotals m;
            for (const LayerReport::LayerKind& k : r.kinds)
                for (const OpResult& o : k.ops)
                    accumulate(m, o.verdicts[gi], static_cast<double>(k.count));
            for (const OpResult& o : r.edge_ops)
                accumulate(m, o.verdicts[gi], 1);
            finish(m, tokens);
            t.model = m;
            if (config.dit && whole_model)
                t.dit = dit_timing(m.floor_us, run);
            if (run.pp > 1)
                t.pipeline = pipeline_timing(r, gi);
        }
        r.totals.push_back(std::move(t));
    }
    if (config.dit)
        r.notes.push_back(
            "DiT: one forward over the video tokens (bidirectional self-attention, cross-attention to the text); with --tp, "
            "one all-reduce of [tokens, hidden] after each row-parallel projection (self-attention out, cross-attention out, "
            "MLP down) and a fp32 all-reduce of each row's Σx² for the q/k RMSNorm over the sharded hidden size; the patch "
            "embedding, text and timestep embeddings and head are replicated on every rank");
    else
        r.notes.push_back(config.mla
                              ? "kv_a_proj's output holds this step's latent and RoPE key: that is the KV-cache write, "
                                "counted once there; attention reads the cache of --context tokens"
                              : "the QKV projection's output holds this step's K and V: that is the KV-cache write, counted "
                                "once there; attention reads the cache of --context tokens");
    if (config.dit && config.dit->vace_blocks != 0)
        r.notes.push_back(fmt::format(
            "VACE: the model floor also runs {0} context blocks (a block + after_proj each) and adds a hint to {0} of the {1} "
            "blocks (x + hint·scale): their ops are listed under \"layer (vace context block)\" and \"layer (block with a "
            "VACE hint)\" in --format json; vace_patch_embedding, before_proj and (Wan's VaceWanModel) the hints' torch.stack "
            "copies are once per "
            "forward",
            config.dit->vace_blocks, config.layers));
    if (run.phase == Phase::training)
        r.notes.push_back(
            "training: each compute op is forward + backward (GEMMs: data and weight gradients; attention backward 2.5× the "
            "forward FLOPs, reading Q, K, V, O, dO and writing dQ, dK, dV); collectives are listed per pass");
    if (whole_model && !config.dit)
        r.notes.push_back(
            "model: the embedding lookup reads only the rows of this step's tokens, not the whole table; inference computes "
            "logits for the last position of each sequence only");
    else if (!whole_model && config.layers != 0)
        r.notes.push_back("layers × layer: the embedding, final norm and LM head are left out (see `bwacct model`)");
    if (run.pp > 1)
        r.notes.push_back(fmt::format(
            "PP {}: stages are consecutive layer ranges (the first L mod {} one more); {}; each boundary sends the [tokens, "
            "hidden] activations of a micro-batch in --dtype{}",
            run.pp, run.pp,
            config.dit ? "the patch embedding runs on the first stage, the text and timestep embeddings on every stage (each "
                         "is given the text encoder's output and the timestep), the head on the last"
                       : "the embedding runs on the first stage, the final norm and LM head on the last",
            run.phase == Phase::training ? " (and their gradients back)" : ""));
    if (config.moe)
        r.notes.push_back(
            "MoE: the model floor is MoE layers × the layer above + dense-first layers × the dense layer; expert weights "
            "are read for the distinct experts touched in the step (an expectation under uniform independent routing "
            "unless --experts-touched), rounded to a byte");
    if (config.moe && run.ep > 1) {
        const ExpertParallel e = expert_parallel(config, run);
        r.notes.push_back(fmt::format(
            "EP {}: each rank holds {} of {} routed experts ({} of routed-expert weights over the model), routes {} tokens "
            "(tokens / tp) and receives {} rows on average; dispatch and combine are all-to-alls of {} B per rank, of "
            "which (N − 1)/N = {} B leave each rank per direction; experts touched per rank {:.3f}",
            run.ep, e.local_experts, config.moe->experts, human_bytes(routed_expert_bytes_per_rank(config, run).value()),
            e.tokens_per_rank, e.rows_per_rank, e.a2a_bytes, e.wire_bytes, e.touched_per_rank));
    }
    if (config.mla)
        r.notes.push_back(
            "MLA: absorbed-weight attention (W_UK folded into the query, W_UV applied to the latent output); the cache holds "
            "kv_lora_rank + qk_rope_head_dim elements per token per layer, replicated on every TP rank");
    for (const std::string& l : config.limitations)
        r.notes.push_back("limitation: " + l);
    if (!gpus.empty())
        for (const OpResult& o : r.layer_ops)
            for (const Verdict& v : o.verdicts)
                for (const std::string& n : v.notes)
                    if (std::find(r.notes.begin(), r.notes.end(), v.gpu + ": " + n) == r.notes.end())
                        r.notes.push_back(v.gpu + ": " + n);
    return r;
}

void print_layer_report(const LayerReport& report, Format format, std::FILE* out) {
    require_finite(report_json(report));  // every figure, before the first byte of any format
    switch (format) {
        case Format::table:
            print_table(report, out);
            return;
        case Format::json:
            fmt::print(out, "{}\n", detail::json_text(report_json(report), 2));
            return;
        default:
            throw InputError("--format", "layer and model print table or json");
    }
}

}  // namespace bwacct
