#include "bwacct/projection.h"

#include <fmt/format.h>

#include <cmath>

#include "bwacct/error.h"

namespace bwacct {
namespace {

bool rejected(const std::string& note) { return note.rfind("REJECTED", 0) == 0; }

RoofFigure from_figure(const GpuSpec& gpu, std::string what, std::string key, std::string unit, const Figure& f) {
    RoofFigure r;
    r.gpu = gpu.id;
    r.what = std::move(what);
    r.key = std::move(key);
    r.unit = std::move(unit);
    r.value = f.value;
    r.source = f.source;
    r.note = f.note;
    for (const auto& a : f.alternatives)
        if (!rejected(a.note) && a.value > 0)
            r.alternatives.push_back(a);
    return r;
}

double apply(Quantity q, double value, double ratio) { return q == Quantity::rate ? value * ratio : value / ratio; }

}  // namespace

std::string figure_label(const std::string& note) {
    const auto colon = note.find(':');
    if (colon == std::string::npos || colon == 0 || colon > 24)
        return {};
    return note.substr(0, colon);
}

RoofFigure binding_figure(const GpuSpec& gpu, const ProjectionRequest& req, const std::string& option) {
    switch (req.bound) {
        case Roof::hbm:
            if (!(gpu.hbm_bw_GBps.value > 0))
                throw InputError(option, fmt::format("{} has no memory bandwidth in the catalog", gpu.id));
            return from_figure(gpu, "memory (HBM) bandwidth", "hbm_GBps", "GB/s", gpu.hbm_bw_GBps);
        case Roof::compute: {
            const std::string key(peak_key(req.dtype));
            const Figure* f = gpu.peak(req.unit, key);
            if (f == nullptr || !(f->value > 0))
                throw InputError(option, fmt::format("{} has no dense {} {} peak in the catalog (see `bwacct gpu {}`)", gpu.id,
                                                     unit_name(req.unit), key, gpu.id));
            return from_figure(gpu, fmt::format("{} {} dense peak", unit_name(req.unit), key), "tflops",
                               key == "int8" ? "TOPS" : "TFLOP/s", *f);
        }
        case Roof::link: {
            const Link* l = choose_link(gpu, req.link);
            if (l == nullptr || !(l->bw_GBps.value > 0))
                throw InputError(option, fmt::format("{} has no {} link in the catalog", gpu.id,
                                                     req.link == LinkChoice::pcie ? "PCIe" : "scale-up or PCIe"));
            return from_figure(gpu, l->name + " per direction", "link_GBps", "GB/s", l->bw_GBps);
        }
        case Roof::dispatch: {
            RoofFigure r;
            r.gpu = gpu.id;
            r.what = "dispatch (launch and sync overhead): no figure, assumed unchanged";
            return r;
        }
        case Roof::overhead:
            break;
    }
    throw InputError("--bound", "expected hbm, compute, link or dispatch");
}

Projection project(const GpuSpec& from, const GpuSpec& to, const ProjectionRequest& req, const std::string& value_option) {
    if (!(req.value > 0) || !std::isfinite(req.value))
        throw InputError(value_option, fmt::format("must be a positive number; got {}", req.value));
    Projection p;
    p.bound = req.bound;
    p.quantity = req.quantity;
    p.given = req.value;
    p.from = binding_figure(from, req, "--from");
    p.to = binding_figure(to, req, "--to");
    if (req.bound == Roof::dispatch) {
        p.ratio = 1;
        p.projected = req.value;
        p.notes.push_back(
            "dispatch-bound: launch and synchronization costs are set by the host, driver and kernel count, not by "
            "the GPU's roofs; the projection keeps the value unchanged (ratio 1)");
        return p;
    }
    p.ratio = p.to.value / p.from.value;
    p.projected = apply(req.quantity, req.value, p.ratio);
    auto add_alternatives = [&](const RoofFigure& which, bool is_to) {
        for (const auto& a : which.alternatives) {
            AlternativeProjection ap;
            ap.gpu = which.gpu;
            ap.figure = a.value;
            ap.label = figure_label(a.note);
            ap.note = a.note;
            ap.source = a.source;
            ap.ratio = is_to ? a.value / p.from.value : p.to.value / a.value;
            ap.projected = apply(req.quantity, req.value, ap.ratio);
            p.alternatives.push_back(std::move(ap));
        }
    };
    add_alternatives(p.to, true);
    add_alternatives(p.from, false);
    p.notes.push_back(
        fmt::format("assumes the work stays {}-bound on {} and reaches the same fraction of the roof on both GPUs; "
                    "a roof that binds only on {} caps the gain",
                    roof_name(req.bound), to.id, to.id));
    return p;
}

std::vector<Verdict> analyze_anchored(const Cost& cost, const std::vector<const GpuSpec*>& gpus, std::size_t anchor,
                                      const AnalysisOptions& ao) {
    std::vector<Verdict> out;
    if (!ao.time_us || gpus.size() <= 1) {
        for (const GpuSpec* g : gpus)
            out.push_back(analyze(cost, *g, ao));
        return out;
    }
    const Verdict base = analyze(cost, *gpus[anchor], ao);
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        if (i == anchor) {
            out.push_back(base);
            continue;
        }
        ProjectionRequest req;
        req.bound = base.bound;
        req.dtype = cost.compute_dtype;
        req.unit = cost.unit;
        req.link = ao.link;
        req.quantity = Quantity::time;
        req.value = *ao.time_us;
        std::string how;
        double projected = 0;
        try {
            const Projection p = project(*gpus[anchor], *gpus[i], req, "--time-us");
            projected = p.projected;
            how = req.bound == Roof::dispatch
                      ? "dispatch-bound there: kept unchanged"
                      : fmt::format("{} roof {} → {} {}", roof_name(req.bound), fmt::format("{:g}", p.from.value),
                                    fmt::format("{:g}", p.to.value), p.to.unit);
        } catch (const InputError&) {
            // The catalog lacks the figure `project` divides by (analyze fell back to another peak):
            // the ratio of this op's own roof times on the two GPUs is the same projection.
            AnalysisOptions modelled = ao;
            modelled.time_us.reset();
            const Verdict v = analyze(cost, *gpus[i], modelled);
            auto roof = [&](const RoofTimes& r) {
                return req.bound == Roof::compute ? r.compute : req.bound == Roof::hbm ? r.hbm : r.link;
            };
            projected = *ao.time_us * roof(v.roofs_us) / roof(base.roofs_us);
            how = fmt::format("{} roof times {:.2f} → {:.2f} µs", roof_name(req.bound), roof(base.roofs_us), roof(v.roofs_us));
        }
        AnalysisOptions po = ao;
        po.time_us = projected;
        Verdict v = analyze(cost, *gpus[i], po);
        v.timed->projected_from = gpus[anchor]->id;
        v.notes.insert(v.notes.begin(), fmt::format("time projected from {} ({:g} µs there; {}): {:.2f} µs, not measured here",
                                                    gpus[anchor]->id, *ao.time_us, how, projected));
        out.push_back(std::move(v));
    }
    return out;
}

}  // namespace bwacct
