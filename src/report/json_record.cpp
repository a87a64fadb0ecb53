#include "json_record.h"

#include <fmt/format.h>

#include <algorithm>

#include "bwacct/ops.h"
#include "json_writer.h"

namespace bwacct::detail {
namespace {

void optional(JsonWriter& w, std::string_view key, const std::optional<double>& v) {
    w.key(key);
    if (v)
        w.value(*v);
    else
        w.null();
}

void terms(JsonWriter& w, const std::vector<Term>& ts) {
    w.key("explain").begin_array();
    for (const Term& t : ts)
        w.begin_object()
            .field("name", t.name)
            .field("formula", t.formula)
            .field("substituted", t.substituted)
            .field("value", t.value)
            .end_object();
    w.end_array();
}

void roofs(JsonWriter& w, std::string_view key, const RoofTimes& r) {
    w.key(key)
        .begin_object()
        .field("compute", r.compute)
        .field("hbm", r.hbm)
        .field("link", r.link)
        .field("dispatch", r.dispatch)
        .end_object();
}

void verdict(JsonWriter& w, const Verdict& v, bool explain) {
    w.begin_object();
    w.field("gpu", v.gpu);
    w.field("bound", roof_name(v.timed ? v.timed->bound : v.bound));
    w.field("floor_us", v.floor_us);
    w.field("sum_us", v.sum_us);
    roofs(w, "roofs_us", v.roofs_us);
    w.field("modelled_bound", roof_name(v.bound));
    optional(w, "ridge", v.ridge);
    optional(w, "attainable_tflops", v.attainable_tflops);
    optional(w, "attainable_fraction", v.attainable_fraction);
    w.key("peaks").begin_object();
    optional(w, "compute_tflops", v.peaks.compute_tflops);
    w.field("compute", v.peaks.compute_label);
    w.field("hbm_GBps", v.peaks.hbm_GBps);
    if (v.peaks.link_GBps) {
        w.field("link_GBps", *v.peaks.link_GBps);
        w.field("link", v.peaks.link_name + " (per direction)");
        w.field("alpha_us", v.peaks.alpha_us);
    }
    w.field("launch_us", v.peaks.launch_us);
    w.end_object();
    if (v.timed) {
        const TimedAnalysis& t = *v.timed;
        w.field("time_us", t.time_us);
        w.field("projected", !t.projected_from.empty());
        if (!t.projected_from.empty())
            w.field("projected_from", t.projected_from);
        optional(w, "x_floor", t.x_floor);
        w.field("implied_bw_GBps", t.implied_bw_GBps);
        w.field("tflops", t.tflops);
        w.key("util").begin_object().field("compute", t.util_compute).field("hbm", t.util_hbm);
        optional(w, "link", t.util_link);
        w.end_object();
        roofs(w, "shares", t.shares);
        w.field("unexplained", t.unexplained);
    }
    if (v.algbw_GBps) {
        w.field("algbw_GBps", *v.algbw_GBps);
        w.field("busbw_GBps", *v.busbw_GBps);
    }
    w.key("notes").begin_array();
    for (const std::string& n : v.notes)
        w.value(n);
    w.end_array();
    if (explain)
        terms(w, v.terms);
    w.end_object();
}

void clocks(JsonWriter& w, std::string_view key, const Clocks& c) {
    w.key(key).begin_object().field("sm_MHz", c.sm_MHz).field("mem_MHz", c.mem_MHz).end_object();
}

void measurement(JsonWriter& w, const Measurement& m, const Cost& cost) {
    const Timing& t = m.timing;
    const DeviceInfo& d = m.device;
    w.key("measurement").begin_object();
    w.field("backend", m.backend);
    w.field("source", time_source_name(t.source));
    w.key("device").begin_object();
    w.field("index", static_cast<std::uint64_t>(d.index)).field("name", d.name).field("uuid", d.uuid);
    w.field("catalog_match", m.catalog_match);
    w.field("compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor));
    w.field("sm_count", static_cast<std::uint64_t>(d.sm_count))
        .field("l2_bytes", d.l2_bytes)
        .field("memory_bytes", d.memory_bytes);
    w.field("derived_hbm_GBps", d.derived_hbm_GBps);
    w.field("visible_devices", static_cast<std::uint64_t>(d.visible_devices));
    w.end_object();
    w.field("ranks", static_cast<std::uint64_t>(m.ranks));
    w.field("n", static_cast<std::uint64_t>(t.stats.n));
    w.field("median_us", t.stats.median_us).field("min_us", t.stats.min_us).field("max_us", t.stats.max_us);
    w.field("mean_us", t.stats.mean_us).field("cv", t.stats.cv);
    w.key("samples_us").begin_array();
    for (double s : t.samples_us)
        w.value(s);
    w.end_array();
    w.field("timer", t.timer).field("cache", t.cache).field("verification", t.verification).field("detail", t.detail);
    w.key("kernels").begin_array();
    for (const KernelRecord& k : t.kernels)
        w.begin_object().field("name", k.name).field("count", k.count).field("total_us", k.total_us).end_object();
    w.end_array();
    if (t.dram_bytes_read)
        w.field("dram_bytes_read", *t.dram_bytes_read);
    if (t.dram_bytes_written)
        w.field("dram_bytes_written", *t.dram_bytes_written);
    if (m.achievable) {
        const Calibration& c = *m.achievable;
        const AchievableUtil u = achievable_util(cost, t.stats.median_us, c);
        w.key("achievable").begin_object().field("measured_at", c.measured_at).field("backend", c.backend);
        w.field("hbm_GBps", c.hbm_GBps).field("bf16_tflops", c.bf16_tflops).field("launch_us", c.launch_us);
        w.field("util_hbm", u.util_hbm);
        w.key("util_compute");
        u.util_compute ? (void)w.value(*u.util_compute) : (void)w.null();
        w.end_object();
    }
    clocks(w, "clocks_before", t.clocks_before);
    clocks(w, "clocks_after", t.clocks_after);
    w.key("notes").begin_array();
    for (const std::string& n : t.notes)
        w.value(n);
    w.end_array();
    w.end_object();
}

void cost_fields(JsonWriter& w, const Cost& c) {
    w.field("flops", c.flops);
    w.field("bytes", c.bytes());
    w.field("bytes_read", c.bytes_read);
    w.field("bytes_written", c.bytes_written);
    w.field("intensity", static_cast<double>(c.flops) / static_cast<double>(c.bytes()));
    w.field("launches", c.launches);
    w.field("unit", unit_name(c.unit));
    w.field("compute_dtype", dtype_name(c.compute_dtype));
}

}  // namespace

std::string record_json(const Record& r, bool explain) {
    JsonWriter w;
    w.begin_object();
    w.field("schema", kOpSchema);
    w.field("op", r.cost.op);
    w.field("source", time_source_name(r.source));
    w.key("params").begin_object();
    for (const Param& p : r.params) {
        w.key(p.name);
        std::visit([&](const auto& v) { w.value(v); }, p.value);
    }
    w.end_object();
    cost_fields(w, r.cost);
    w.field("bytes_convention", "lower bound: each input read from HBM once, each output written once");
    if (r.cost.collective) {
        const CollectiveCost& cc = *r.cost.collective;
        w.field("size_bytes", cc.size_bytes);
        w.field("ranks", cc.ranks);
        w.field("algo", algo_name(cc.algo));
        w.field("bus_factor", cc.bus_factor);
        w.field("bus_factor_formula", cc.bus_factor_formula);
        w.field("wire_bytes_per_rank", cc.wire_bytes_per_rank);
        w.field("steps", cc.steps);
    }
    // The record's time is the one given or measured: on its own GPU, not a projection.
    const auto own = std::find_if(r.verdicts.begin(), r.verdicts.end(),
                                  [](const Verdict& v) { return v.timed && v.timed->projected_from.empty(); });
    if (r.source != TimeSource::modelled && own != r.verdicts.end()) {
        const Verdict& v = *own;
        w.field("time_us", v.timed->time_us);
        w.field("time_gpu", v.gpu);
        if (v.algbw_GBps) {
            w.field("algbw_GBps", *v.algbw_GBps);
            w.field("busbw_GBps", *v.busbw_GBps);
        }
    }
    w.key("gpus").begin_array();
    for (const Verdict& v : r.verdicts)
        verdict(w, v, explain);
    w.end_array();
    if (r.fusion) {
        const Cost& f = r.fusion->fused;
        w.key("fused").begin_object();
        cost_fields(w, f);
        w.field("bytes_saved", r.cost.bytes() - f.bytes());
        w.field("launches_saved", r.cost.launches - f.launches);
        w.key("gpus").begin_array();
        for (std::size_t i = 0; i < r.fusion->verdicts.size(); ++i) {
            const Verdict& fv = r.fusion->verdicts[i];
            w.begin_object().field("gpu", fv.gpu).field("bound", roof_name(fv.bound)).field("floor_us", fv.floor_us);
            roofs(w, "roofs_us", fv.roofs_us);
            w.field("time_saved_us", r.verdicts[i].floor_us - fv.floor_us).end_object();
        }
        w.end_array().end_object();
    }
    if (r.measurement)
        measurement(w, *r.measurement, r.cost);
    if (explain)
        terms(w, r.cost.terms);
    w.end_object();
    return std::string(w.text());
}

}  // namespace bwacct::detail
