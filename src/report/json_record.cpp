#include "json_record.h"

#include <cmath>
#include <stdexcept>

#include "bwacct/ops.h"

namespace bwacct::detail {
namespace {

using json = nlohmann::ordered_json;

// Numbers must be finite: a NaN or infinity in output is a bug, never data.
double finite(double v) {
    if (!std::isfinite(v)) throw std::logic_error("non-finite number in report");
    return v;
}

json opt(const std::optional<double>& v) { return v ? json(finite(*v)) : json(nullptr); }

json terms_json(const std::vector<Term>& terms) {
    json out = json::array();
    for (const Term& t : terms)
        out.push_back({{"name", t.name}, {"formula", t.formula}, {"substituted", t.substituted}, {"value", t.value}});
    return out;
}

json roofs_json(const RoofTimes& r) {
    return {{"compute", finite(r.compute)}, {"hbm", finite(r.hbm)}, {"link", finite(r.link)}, {"dispatch", finite(r.dispatch)}};
}

json verdict_json(const Verdict& v, bool explain) {
    json g;
    g["gpu"] = v.gpu;
    g["bound"] = roof_name(v.timed ? v.timed->bound : v.bound);
    g["floor_us"] = finite(v.floor_us);
    g["sum_us"] = finite(v.sum_us);
    g["roofs_us"] = roofs_json(v.roofs_us);
    g["modelled_bound"] = roof_name(v.bound);
    g["ridge"] = opt(v.ridge);
    g["attainable_tflops"] = opt(v.attainable_tflops);
    g["attainable_fraction"] = opt(v.attainable_fraction);
    json peaks;
    peaks["compute_tflops"] = opt(v.peaks.compute_tflops);
    peaks["compute"] = v.peaks.compute_label;
    peaks["hbm_GBps"] = finite(v.peaks.hbm_GBps);
    if (v.peaks.link_GBps) {
        peaks["link_GBps"] = finite(*v.peaks.link_GBps);
        peaks["link"] = v.peaks.link_name + " (per direction)";
        peaks["alpha_us"] = finite(v.peaks.alpha_us);
    }
    peaks["launch_us"] = finite(v.peaks.launch_us);
    g["peaks"] = peaks;
    if (v.timed) {
        const TimedAnalysis& t = *v.timed;
        g["time_us"] = finite(t.time_us);
        g["implied_bw_GBps"] = finite(t.implied_bw_GBps);
        g["tflops"] = finite(t.tflops);
        g["util"] = {{"compute", finite(t.util_compute)}, {"hbm", finite(t.util_hbm)}, {"link", opt(t.util_link)}};
        g["shares"] = roofs_json(t.shares);
        g["unexplained"] = finite(t.unexplained);
    }
    if (v.algbw_GBps) {
        g["algbw_GBps"] = finite(*v.algbw_GBps);
        g["busbw_GBps"] = finite(*v.busbw_GBps);
    }
    g["notes"] = v.notes;
    if (explain) g["explain"] = terms_json(v.terms);
    return g;
}

json cost_fields(json& j, const Cost& c) {
    j["flops"] = c.flops;
    j["bytes"] = c.bytes();
    j["bytes_read"] = c.bytes_read;
    j["bytes_written"] = c.bytes_written;
    j["intensity"] = finite(static_cast<double>(c.flops) / static_cast<double>(c.bytes()));
    j["launches"] = c.launches;
    j["unit"] = unit_name(c.unit);
    j["compute_dtype"] = dtype_name(c.compute_dtype);
    return j;
}

}  // namespace

json record_json(const Record& r, bool explain) {
    json j;
    j["schema"] = kOpSchema;
    j["op"] = r.cost.op;
    j["source"] = time_source_name(r.source);
    json params = json::object();
    for (const Param& p : r.params) std::visit([&](const auto& v) { params[p.name] = v; }, p.value);
    j["params"] = params;
    cost_fields(j, r.cost);
    j["bytes_convention"] = "lower bound: each input read from HBM once, each output written once";
    if (r.cost.collective) {
        const CollectiveCost& cc = *r.cost.collective;
        j["size_bytes"] = cc.size_bytes;
        j["ranks"] = cc.ranks;
        j["algo"] = algo_name(cc.algo);
        j["bus_factor"] = finite(cc.bus_factor);
        j["bus_factor_formula"] = cc.bus_factor_formula;
        j["wire_bytes_per_rank"] = cc.wire_bytes_per_rank;
        j["steps"] = cc.steps;
    }
    if (r.source != TimeSource::modelled && !r.verdicts.empty() && r.verdicts.front().timed) {
        const Verdict& v = r.verdicts.front();
        j["time_us"] = finite(v.timed->time_us);
        if (v.algbw_GBps) {
            j["algbw_GBps"] = finite(*v.algbw_GBps);
            j["busbw_GBps"] = finite(*v.busbw_GBps);
        }
    }
    json gpus = json::array();
    for (const Verdict& v : r.verdicts) gpus.push_back(verdict_json(v, explain));
    j["gpus"] = gpus;
    if (r.fusion) {
        const Cost& f = r.fusion->fused;
        json fu;
        cost_fields(fu, f);
        fu["bytes_saved"] = r.cost.bytes() - f.bytes();
        fu["launches_saved"] = r.cost.launches - f.launches;
        json per = json::array();
        for (std::size_t i = 0; i < r.fusion->verdicts.size(); ++i) {
            const Verdict& fv = r.fusion->verdicts[i];
            per.push_back({{"gpu", fv.gpu},
                           {"bound", roof_name(fv.bound)},
                           {"floor_us", finite(fv.floor_us)},
                           {"roofs_us", roofs_json(fv.roofs_us)},
                           {"time_saved_us", finite(r.verdicts[i].floor_us - fv.floor_us)}});
        }
        fu["gpus"] = per;
        j["fused"] = fu;
    }
    if (explain) j["explain"] = terms_json(r.cost.terms);
    return j;
}

}  // namespace bwacct::detail
