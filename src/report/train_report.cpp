#include "bwacct/train_report.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "bwacct/error.h"
#include "bwacct/finite_guard.h"
#include "bwacct/json_text.h"
#include "cell_quote.h"
#include "human.h"
#include "verdict_line.h"

namespace bwacct {
namespace {

using json = nlohmann::ordered_json;
using detail::human_bytes;
using detail::human_count;
using detail::percent;

const char* kModelled = "modelled";

void require_tabular(Format f) {
    if (f == Format::md)
        throw InputError("--format", "accepted here: table, json, jsonl or csv");
}

void put_json(std::FILE* out, const json& j, bool pretty) {
    fmt::print(out, "{}\n", pretty ? detail::json_text(j, 2) : detail::json_text(j));
}

// The seed prints Python's repr(round(x, digits)): shortest form of the rounded double.
std::string seed_num(double x, int digits) {
    std::string s = fmt::format("{}", seed_round(x, digits));
    if (s.find_first_of(".e") == std::string::npos)
        s += ".0";  // Python prints 1288.0, not 1288
    return s;
}

// ---- train

json train_inputs(const TrainReport& r) {
    const TrainModel& m = r.model;
    const TrainConfig& c = r.config;
    json j{{"params", m.params},
           {"active_params", m.active_params > 0 ? m.active_params : m.params},
           {"layers", m.layers},
           {"hidden", m.hidden},
           {"bytes_per_elem", m.bytes_per_elem},
           {"gamma", c.gamma},
           {"kappa", c.kappa},
           {"alpha_opt_bytes_per_param", c.alpha_opt},
           {"c_act", c.c_act},
           {"tokens_per_step", c.tokens_per_step},
           {"bytes_per_grad", c.bytes_per_grad},
           {"dp", c.dp},
           {"target_tokens_per_s", r.target_tokens_s}};
    if (!m.described_by.empty())
        j["model_from"] = m.described_by;
    return j;
}

json train_plan_json(const TrainPlan& p) {
    const TrainRates& t = p.rates;
    json hw{{"name", p.hw.name},         {"source", p.hw.source},     {"tflops", p.hw.tflops},
            {"hbm_TBps", p.hw.hbm_TBps}, {"nic_Gbps", p.hw.nic_Gbps}, {"util", p.hw.util}};
    hw["price_per_hr_usd"] = p.hw.price_per_hr ? json(*p.hw.price_per_hr) : json(nullptr);
    json j{{"hardware", hw},
           {"r_comp_tokens_per_s", t.r_comp},
           {"r_mem_tokens_per_s", t.r_mem},
           {"r_net_tokens_per_s", t.r_net ? json(*t.r_net) : json(nullptr)},
           {"bound", train_bound_name(t.bound)},
           {"per_gpu_tokens_per_s", t.r_gpu},
           {"intensity_flop_per_byte", t.intensity},
           {"machine_balance_flop_per_byte", t.machine_balance},
           {"gpus", p.gpus},
           {"cost_per_hr_usd", p.cost_per_hr ? json(*p.cost_per_hr) : json(nullptr)},
           {"cluster_hbm_TBps", p.cluster_hbm_TBps},
           {"usd_per_TBps_hr", p.usd_per_TBps_hr ? json(*p.usd_per_TBps_hr) : json(nullptr)}};
    // The seed's printed row, rounded as it rounds.
    j["seed_rounded"] = json{{"per_gpu_tokens_s", seed_round(t.r_gpu, 2)},
                             {"gpus", p.gpus},
                             {"per_hr", p.cost_per_hr ? json(seed_round(*p.cost_per_hr, 2)) : json(nullptr)},
                             {"bound", train_bound_name(t.bound)},
                             {"cluster_HBM_TBs", seed_round(p.cluster_hbm_TBps, 3)},
                             {"per_TBs_hr", p.usd_per_TBps_hr ? json(seed_round(*p.usd_per_TBps_hr, 2)) : json(nullptr)}};
    return j;
}

json train_per_token_json(const TrainPerToken& t) {
    return json{{"flops", t.flops},
                {"hbm_bytes", t.hbm_bytes},
                {"optimizer_bytes", t.optimizer_bytes},
                {"activation_bytes", t.activation_bytes},
                {"net_bytes", t.net_bytes}};
}

// The answer first, one line per hardware: what binds, tokens/s per GPU, GPUs for the target, cost.
void train_verdicts(const TrainReport& r, std::FILE* out) {
    std::vector<detail::GpuVerdict> lines;
    for (const TrainPlan& p : r.plans)
        lines.push_back(
            {p.hw.name,
             fmt::format("{}-bound · {} tokens/s per GPU · {} GPUs for {} tokens/s{} (modelled)", train_bound_name(p.rates.bound),
                         detail::short_number(p.rates.r_gpu), p.gpus, detail::short_number(r.target_tokens_s),
                         p.cost_per_hr ? fmt::format(" · ${}/hr", detail::short_number(*p.cost_per_hr)) : std::string())});
    detail::print_verdict_lines(out, lines);
    fmt::print(out, "\n");
}

void train_table(const TrainReport& r, std::FILE* out) {
    train_verdicts(r, out);
    const TrainModel& m = r.model;
    const TrainConfig& c = r.config;
    const TrainPerToken& t = r.per_token;
    fmt::print(out, "training sizing (seed 002 model; every number modelled)\n");
    const bool moe = m.active_params > 0 && m.active_params < m.params;
    fmt::print(out, "  model      N {} params{}, L {}, d_model {}, b {} B/elem{}\n", human_count(m.params),
               moe ? fmt::format(" (N_active {} per token)", human_count(m.active_params)) : "", m.layers, m.hidden,
               m.bytes_per_elem, m.described_by.empty() ? "" : " (from " + m.described_by + ")");
    fmt::print(out, "  training   γ {} · κ {}; α_opt {} B/param/step; c_act {}; B_g {} tokens/step; DP {} (b_g {} B)\n", c.gamma,
               c.kappa, c.alpha_opt, c.c_act, human_count(c.tokens_per_step), c.dp, c.bytes_per_grad);
    fmt::print(out, "  per token  F_tok = γ·κ·{} = {:.6g} FLOP\n", moe ? "N_active" : "N", t.flops);
    fmt::print(out, "             M_tok = α_opt·N/B_g + c_act·L·d·b = {:.8g} + {:.8g} = {:.8g} B\n", t.optimizer_bytes,
               t.activation_bytes, t.hbm_bytes);
    if (c.dp > 1)
        fmt::print(out, "             M_net = 2·N·b_g/B_g = {:.8g} B (DP {} > 1)\n", t.net_bytes, c.dp);
    else
        fmt::print(out, "             M_net = 0 (DP 1: no gradient all-reduce)\n");
    fmt::print(out, "  target     {} tokens/s\n\n", r.target_tokens_s);

    fmt::print(out, "{:<12} {:>8} {:>8} {:>8} {:>5} {:>9} {:>9} {:>9} {:>8} {:>13} {:>6} {:>9} {:>16} {:>10}\n", "hardware",
               "TFLOP/s", "HBM TB/s", "NIC Gb/s", "u", "r_comp", "r_mem", "r_net", "bound", "tokens/s/GPU", "GPUs", "$/hr",
               "cluster HBM TB/s", "$/TB/s·hr");
    for (const TrainPlan& p : r.plans) {
        const TrainRates& t2 = p.rates;
        fmt::print(out, "{:<12} {:>8} {:>8} {:>8} {:>5} {:>9.2f} {:>9.2f} {:>9} {:>8} {:>13} {:>6} {:>9} {:>16} {:>10}\n",
                   p.hw.name, p.hw.tflops, p.hw.hbm_TBps, p.hw.nic_Gbps > 0 ? fmt::format("{}", p.hw.nic_Gbps) : "-", p.hw.util,
                   t2.r_comp, t2.r_mem, t2.r_net ? fmt::format("{:.2f}", *t2.r_net) : "-", train_bound_name(t2.bound),
                   seed_num(t2.r_gpu, 2), human_count(p.gpus), p.cost_per_hr ? seed_num(*p.cost_per_hr, 2) : "-",
                   seed_num(p.cluster_hbm_TBps, 3), p.usd_per_TBps_hr ? seed_num(*p.usd_per_TBps_hr, 2) : "-");
    }
    fmt::print(out,
               "\n  r_* in tokens/s per GPU; tokens/s/GPU = u·min(r_comp, r_mem, r_net); GPUs = ⌈target / that⌉;\n"
               "  cluster HBM TB/s = target·M_tok/1e12 (demand, the same for every GPU); rounded as the seed prints.\n");
    for (const TrainPlan& p : r.plans)
        fmt::print(out, "  {}: {}\n", p.hw.name, p.hw.source);
}

// ---- step

json step_gpu_json(const StepReport& r, const StepAnalysis& a) {
    json j{{"gpu", a.hw.id},
           {"hbm_peak_GBps", a.hw.hbm_GBps},
           {"bw_GBps", a.bw_GBps},
           {"util_hbm", a.util_hbm},
           {"floor_ms", a.floor_ms}};
    j["hbm_capacity_bytes"] = a.hw.capacity_bytes ? json(*a.hw.capacity_bytes) : json(nullptr);
    j["capacity_fraction"] = a.capacity_fraction ? json(*a.capacity_fraction) : json(nullptr);
    j["fits"] = a.capacity_fraction ? json(*a.capacity_fraction <= 1) : json(nullptr);
    j["limit"] = step_limit_name(a.limit);
    (void)r;
    return j;
}

json step_json(const StepReport& r) {
    const StepTraffic& t = r.traffic;
    json j{{"schema", "bwacct.step/1"},
           {"source", "given step time; traffic modelled"},
           {"inputs",
            {{"params", r.desc.params},
             {"dtype", dtype_name(r.desc.dtype)},
             {"optimizer_bytes_per_param", r.desc.optimizer_bytes_per_param},
             {"activation_bytes", r.desc.activation_bytes},
             {"step_ms", r.step_ms}}},
           {"bytes",
            {{"params", t.param_bytes},
             {"grads", t.grad_bytes},
             {"optimizer", t.optimizer_bytes},
             {"activations", t.activation_bytes}}},
           {"traffic_bytes",
            {{"params", 2 * t.param_bytes},
             {"grads", 2 * t.grad_bytes},
             {"optimizer", 2 * t.optimizer_bytes},
             {"activations", 2 * t.activation_bytes},
             {"total", t.traffic_bytes}}},
           {"footprint_bytes", t.footprint_bytes}};
    if (!r.model_from.empty())
        j["inputs"]["model_from"] = r.model_from;
    j["gpus"] = json::array();
    for (const StepAnalysis& a : r.gpus)
        j["gpus"].push_back(step_gpu_json(r, a));
    return j;
}

std::string limit_text(const StepAnalysis& a) {
    switch (a.limit) {
        case StepLimit::capacity:
            return "capacity-limited: the footprint does not fit in HBM";
        case StepLimit::bandwidth:
            return "bandwidth-limited: the traffic needs at least half of the HBM peak";
        case StepLimit::neither:
            break;
    }
    return "neither: fits, and the traffic uses under half the HBM peak (compute, launches or input bind the step)";
}

void step_table(const StepReport& r, std::FILE* out) {
    const StepTraffic& t = r.traffic;
    // The answer first, one line per GPU: the limit, the given step time against the HBM floor of its
    // traffic, and whether the footprint fits.
    std::vector<detail::GpuVerdict> lines;
    for (const StepAnalysis& a : r.gpus) {
        const std::string limit = limit_text(a);
        lines.push_back(
            {a.hw.id,
             fmt::format(
                 "{} · HBM floor {} ms · given {} ms = {}× floor · {} of HBM bandwidth{}",
                 a.limit == StepLimit::neither ? "neither capacity- nor bandwidth-limited" : limit.substr(0, limit.find(':')),
                 detail::short_number(a.floor_ms), detail::short_number(r.step_ms), detail::fixed(r.step_ms / a.floor_ms, 2),
                 percent(a.util_hbm),
                 a.capacity_fraction ? fmt::format(" · footprint {} of HBM", percent(*a.capacity_fraction)) : std::string())});
    }
    detail::print_verdict_lines(out, lines);
    fmt::print(out, "\n");
    fmt::print(out, "training step traffic (seed 003 model: each state moved twice; step time given, traffic modelled)\n");
    fmt::print(out, "  {:<12} {:>28} {:>28}\n", "", "resident", "traffic per step (2×)");
    auto row = [&](const char* name, std::uint64_t b, const std::string& note) {
        fmt::print(out, "  {:<12} {:>28} {:>28}  {}\n", name, fmt::format("{} B", human_count(b)),
                   fmt::format("{} B", human_count(2 * b)), note);
    };
    row("params", t.param_bytes,
        fmt::format("{} × {} ({}){}", human_count(r.desc.params), storage_bytes(r.desc.dtype, 1).value(),
                    dtype_name(r.desc.dtype), r.model_from.empty() ? "" : ", params from " + r.model_from));
    row("grads", t.grad_bytes, fmt::format("in {}", dtype_name(r.desc.dtype)));
    row("optimizer", t.optimizer_bytes, fmt::format("{} B/param", r.desc.optimizer_bytes_per_param));
    row("activations", t.activation_bytes, "given");
    fmt::print(out, "  {:<12} {:>28} {:>28}\n", "total", fmt::format("{} B", human_count(t.footprint_bytes)),
               fmt::format("{} B", human_count(t.traffic_bytes)));
    fmt::print(out, "  step time   {} ms (given)\n\n", r.step_ms);
    fmt::print(out, "{:<16} {:>11} {:>11} {:>9} {:>12} {:>14} {:>10}  {}\n", "gpu", "bw GB/s", "peak GB/s", "HBM util",
               "floor ms", "HBM capacity", "footprint", "verdict");
    for (const StepAnalysis& a : r.gpus)
        fmt::print(out, "{:<16} {:>11.2f} {:>11} {:>9} {:>12.3f} {:>14} {:>10}  {}\n", a.hw.id, a.bw_GBps, a.hw.hbm_GBps,
                   percent(a.util_hbm), a.floor_ms, a.hw.capacity_bytes ? human_bytes(*a.hw.capacity_bytes) : "-",
                   a.capacity_fraction ? percent(*a.capacity_fraction) : "-", limit_text(a));
}

// ---- zero

double link_us(const ZeroGpu& g, std::size_t plan, std::size_t coll) { return g.verdicts[plan][coll].roofs_us.link; }

double plan_link_us(const ZeroReport& r, const ZeroGpu& g, std::size_t plan) {
    double us = 0;
    for (std::size_t k = 0; k < r.plans[plan].collectives.size(); ++k)
        us += static_cast<double>(r.plans[plan].collectives[k].per_step) * link_us(g, plan, k);
    return us;
}

json zero_json(const ZeroReport& r) {
    const ZeroDesc& d = r.desc;
    json inputs{{"model_bytes", d.model_bytes},
                {"optimizer_bytes", d.optimizer_bytes},
                {"ranks", d.ranks},
                {"layers", d.layers},
                {"accum", d.accum},
                {"zero3_gathers", d.zero3_gathers},
                {"dtype", dtype_name(d.dtype)},
                {"algo", algo_name(d.algo)}};
    if (r.params > 0) {
        inputs["params"] = r.params;
        inputs["optimizer_bytes_per_param"] = r.optimizer_bytes_per_param;
    }
    if (!r.model_from.empty())
        inputs["model_from"] = r.model_from;
    json j{{"schema", "bwacct.zero/1"}, {"source", kModelled}, {"inputs", inputs}};
    j["schemes"] = json::array();
    for (std::size_t i = 0; i < r.plans.size(); ++i) {
        const ZeroPlan& p = r.plans[i];
        json s{{"scheme", dp_scheme_name(p.scheme)},
               {"formula", p.formula},
               {"wire_bytes_per_gpu", p.wire_bytes_per_gpu},
               {"wire_bytes_per_gpu_without_accum", p.wire_bytes_without_accum}};
        s["collectives"] = json::array();
        for (const ZeroCollective& c : p.collectives)
            s["collectives"].push_back(json{{"what", c.what},
                                            {"collective", collective_name(c.cost.collective->kind)},
                                            {"size_bytes", c.cost.collective->size_bytes},
                                            {"padded_bytes", c.padded_bytes},
                                            {"wire_bytes_per_rank", c.cost.collective->wire_bytes_per_rank},
                                            {"per_step", c.per_step}});
        s["gpus"] = json::array();
        for (const ZeroGpu& g : r.gpus) {
            const Verdict& v0 = g.verdicts[i].front();
            s["gpus"].push_back(json{{"gpu", g.gpu},
                                     {"link", v0.peaks.link_name},
                                     {"link_GBps", v0.peaks.link_GBps.value_or(0)},
                                     {"alpha_us", v0.peaks.alpha_us},
                                     {"link_time_us", plan_link_us(r, g, i)}});
        }
        j["schemes"].push_back(s);
    }
    return j;
}

void zero_table(const ZeroReport& r, std::FILE* out) {
    const ZeroDesc& d = r.desc;
    fmt::print(out, "data-parallel communication per optimizer step (seed 004 §4, §8; modelled)\n");
    fmt::print(out, "  M = {} B ({}{}), O = {} B, N = {} GPUs, L = {}, A = {} micro-batches/step, {}{}\n",
               human_count(d.model_bytes), r.params > 0 ? human_count(r.params) + " params × " : "", dtype_name(d.dtype),
               human_count(d.optimizer_bytes), d.ranks, d.layers, d.accum, algo_name(d.algo),
               r.model_from.empty() ? "" : "; params and L from " + r.model_from);
    for (std::size_t i = 0; i < r.plans.size(); ++i) {
        const ZeroPlan& p = r.plans[i];
        fmt::print(out, "\n{:<6} {} = {} B per GPU ({})", dp_scheme_name(p.scheme), p.formula, human_count(p.wire_bytes_per_gpu),
                   human_bytes(p.wire_bytes_per_gpu));
        if (p.wire_bytes_without_accum != p.wire_bytes_per_gpu)
            fmt::print(out, "; without accumulation {} B", human_count(p.wire_bytes_without_accum));
        fmt::print(out, "\n");
        for (std::size_t k = 0; k < p.collectives.size(); ++k) {
            const ZeroCollective& c = p.collectives[k];
            fmt::print(out, "  {} × {} of {} B: {} B sent per GPU each{}\n", c.per_step, c.what,
                       human_count(c.cost.collective->size_bytes), human_count(c.cost.collective->wire_bytes_per_rank),
                       c.padded_bytes > 0 ? fmt::format(" (padded by {} B to divide by ranks)", c.padded_bytes) : "");
        }
        for (const ZeroGpu& g : r.gpus) {
            const Verdict& v0 = g.verdicts[i].front();
            fmt::print(out, "  {:<14} link time {:.1f} µs ({}, {} GB/s per direction, α {} µs/step)\n", g.gpu,
                       plan_link_us(r, g, i), v0.peaks.link_name, v0.peaks.link_GBps.value_or(0), v0.peaks.alpha_us);
        }
    }
}

json train_json(const TrainReport& r) {
    json j{{"schema", "bwacct.train/1"}, {"source", kModelled}, {"model", "seed 002 (Hodge, cost per memory bandwidth)"}};
    j["inputs"] = train_inputs(r);
    j["per_token"] = train_per_token_json(r.per_token);
    j["options"] = json::array();
    for (const TrainPlan& p : r.plans)
        j["options"].push_back(train_plan_json(p));
    return j;
}

}  // namespace

void print_train(const TrainReport& r, Format format, std::FILE* out) {
    require_tabular(format);
    const json doc = train_json(r);
    require_finite(doc);  // every figure, before the first byte of any format
    if (format == Format::table)
        return train_table(r, out);
    if (format == Format::json)
        return put_json(out, doc, true);
    if (format == Format::jsonl) {
        for (const TrainPlan& p : r.plans) {
            json j{{"schema", "bwacct.train/1"}, {"source", kModelled}};
            const json row = train_plan_json(p);
            for (const auto& [k, v] : row.items())
                j[k] = v;
            put_json(out, j, false);
        }
        return;
    }
    fmt::print(out,
               "hardware,source,tflops,hbm_TBps,nic_Gbps,util,r_comp_tokens_per_s,r_mem_tokens_per_s,r_net_tokens_per_s,bound,"
               "per_gpu_tokens_per_s,gpus,cost_per_hr_usd,cluster_hbm_TBps,usd_per_TBps_hr,provenance\n");
    for (const TrainPlan& p : r.plans)
        fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", detail::csv_quote(p.hw.name),
                   detail::csv_quote(p.hw.source), p.hw.tflops, p.hw.hbm_TBps, p.hw.nic_Gbps, p.hw.util, p.rates.r_comp,
                   p.rates.r_mem, p.rates.r_net ? fmt::format("{}", *p.rates.r_net) : "", train_bound_name(p.rates.bound),
                   p.rates.r_gpu, p.gpus, p.cost_per_hr ? fmt::format("{}", *p.cost_per_hr) : "", p.cluster_hbm_TBps,
                   p.usd_per_TBps_hr ? fmt::format("{}", *p.usd_per_TBps_hr) : "", kModelled);
}

void print_step(const StepReport& r, Format format, std::FILE* out) {
    require_tabular(format);
    require_finite(step_json(r));  // every figure, before the first byte of any format
    if (format == Format::table)
        return step_table(r, out);
    if (format == Format::json)
        return put_json(out, step_json(r), true);
    if (format == Format::jsonl) {
        const json all = step_json(r);
        for (const json& g : all["gpus"]) {
            json j = all;
            j.erase("gpus");
            for (auto& [k, v] : g.items())
                j[k] = v;
            put_json(out, j, false);
        }
        return;
    }
    fmt::print(out,
               "gpu,params,dtype,step_ms,traffic_bytes,footprint_bytes,bw_GBps,hbm_peak_GBps,util_hbm,floor_ms,"
               "hbm_capacity_bytes,capacity_fraction,limit,provenance\n");
    for (const StepAnalysis& a : r.gpus)
        fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", detail::csv_quote(a.hw.id), r.desc.params,
                   dtype_name(r.desc.dtype), r.step_ms, r.traffic.traffic_bytes, r.traffic.footprint_bytes, a.bw_GBps,
                   a.hw.hbm_GBps, a.util_hbm, a.floor_ms, a.hw.capacity_bytes ? fmt::format("{}", *a.hw.capacity_bytes) : "",
                   a.capacity_fraction ? fmt::format("{}", *a.capacity_fraction) : "", step_limit_name(a.limit),
                   "given step time; traffic modelled");
}

void print_zero(const ZeroReport& r, Format format, std::FILE* out) {
    require_tabular(format);
    require_finite(zero_json(r));  // every figure, before the first byte of any format
    if (format == Format::table)
        return zero_table(r, out);
    if (format == Format::json)
        return put_json(out, zero_json(r), true);
    const json all = zero_json(r);
    if (format == Format::jsonl) {
        for (const json& s : all["schemes"]) {
            json j{{"schema", "bwacct.zero/1"}, {"source", kModelled}, {"inputs", all["inputs"]}};
            for (auto& [k, v] : s.items())
                j[k] = v;
            put_json(out, j, false);
        }
        return;
    }
    fmt::print(out,
               "scheme,gpu,ranks,model_bytes,optimizer_bytes,accum,wire_bytes_per_gpu,wire_bytes_per_gpu_without_accum,"
               "link_time_us,provenance\n");
    for (const json& s : all["schemes"])
        for (const json& g : s["gpus"])
            fmt::print(out, "{},{},{},{},{},{},{},{},{},{}\n", s["scheme"].get<std::string>(), g["gpu"].get<std::string>(),
                       r.desc.ranks, r.desc.model_bytes, r.desc.optimizer_bytes, r.desc.accum,
                       s["wire_bytes_per_gpu"].get<std::uint64_t>(), s["wire_bytes_per_gpu_without_accum"].get<std::uint64_t>(),
                       g["link_time_us"].get<double>(), kModelled);
}

}  // namespace bwacct
