// Four roofs, the binding one, intensity, ridge and attainable throughput; with a given time,
// implied bandwidth, achieved TFLOP/s, utilization and the share of the time each roof explains.
// Units: µs, GB/s = 1e9 B/s, TFLOP/s = 1e12 FLOP/s. Formulas: docs/formulas.md ("Roofs").
#include "bwacct/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "bwacct/error.h"

namespace bwacct {

const Figure* compute_peak(const Cost& cost, const GpuSpec& gpu) {
    const Figure* f = gpu.peak(cost.unit, peak_key(cost.compute_dtype));
    if (f == nullptr && cost.unit == Unit::vector)
        f = gpu.peak(Unit::vector, "fp32");
    return f;
}
namespace {

std::string num(double v) { return fmt::format("{:.6g}", v); }

Term line(std::string name, std::string formula, std::string substituted, double value, const char* unit) {
    return Term{std::move(name), std::move(formula), std::move(substituted), fmt::format("{} {}", num(value), unit)};
}

PeaksUsed peaks_for(const Cost& cost, const GpuSpec& gpu, const AnalysisOptions& opt) {
    PeaksUsed p;
    if (cost.flops > 0) {
        const std::string_view key = peak_key(cost.compute_dtype);
        const Figure* f = compute_peak(cost, gpu);
        p.compute_label = fmt::format("{} {} dense", unit_name(cost.unit), key);
        if (f != nullptr && f != gpu.peak(cost.unit, key)) {  // the fp32 vector stand-in
            p.compute_label = fmt::format("vector fp32 dense (no vector {} peak in the catalog)", key);
            p.compute_fallback = true;
        }
        if (f == nullptr)
            throw InputError("--gpu", fmt::format("{} has no dense {} {} peak in the catalog; choose another --gpu or --dtype",
                                                  gpu.id, unit_name(cost.unit), key));
        p.compute_tflops = f->value * opt.efficiency.compute;
        if (opt.efficiency.compute != 1)
            p.compute_label += fmt::format(" × {} (--efficiency)", opt.efficiency.compute);
    }
    p.efficiency = opt.efficiency;
    p.hbm_GBps = gpu.hbm_bw_GBps.value * opt.efficiency.hbm;
    p.launch_us = opt.launch_us.value_or(gpu.launch_overhead_us.value);
    if (cost.collective || cost.transfer != TransferLink::none) {
        // A host copy crosses PCIe unless the user chose a link; a peer copy the scale-up link.
        const LinkChoice choice =
            cost.transfer == TransferLink::host && opt.link == LinkChoice::automatic ? LinkChoice::pcie : opt.link;
        const Link* link = choose_link(gpu, choice);
        if (opt.link_GBps) {
            p.link_GBps = *opt.link_GBps;
            p.link_name = "given (--link-GBps)";
        } else if (link != nullptr) {
            p.link_GBps = link->bw_GBps.value * opt.efficiency.link;
            p.link_name =
                opt.efficiency.link != 1 ? fmt::format("{} × {} (--efficiency)", link->name, opt.efficiency.link) : link->name;
        } else {
            throw InputError("--link", fmt::format("{} has no {} link in the catalog; give --link-GBps", gpu.id,
                                                   choice == LinkChoice::pcie ? "PCIe" : "scale-up or PCIe"));
        }
        if (!cost.collective)
            return p;
        if (cost.collective->algo == CollectiveAlgo::nvls && !(link != nullptr && link->nvls)) {
            if (!cost.collective->algo_seen)
                throw InputError("--algo", fmt::format("{} has no NVLink SHARP (NVLS) in the catalog; use ring or tree", gpu.id));
            p.nvls_unlisted = true;
        }
        if (opt.alpha_us)
            p.alpha_us = *opt.alpha_us;
        else if (link != nullptr && link->step_latency_us && !opt.link_GBps)
            p.alpha_us = link->step_latency_us->value;
        else
            p.alpha_missing = true;
    }
    return p;
}

}  // namespace

const Link* choose_link(const GpuSpec& gpu, LinkChoice choice) {
    switch (choice) {
        case LinkChoice::scaleup:
            return gpu.scaleup_link ? &*gpu.scaleup_link : nullptr;
        case LinkChoice::pcie:
            return gpu.pcie ? &*gpu.pcie : nullptr;
        case LinkChoice::automatic:
            if (gpu.scaleup_link)
                return &*gpu.scaleup_link;
            return gpu.pcie ? &*gpu.pcie : nullptr;
    }
    return nullptr;
}

std::string_view roof_name(Roof r) {
    static constexpr std::array<std::string_view, 5> kNames{"compute", "hbm", "link", "dispatch", "overhead"};
    return kNames[static_cast<std::size_t>(r)];
}

double RoofTimes::max() const { return std::max({compute, hbm, link, dispatch}); }

Roof RoofTimes::argmax() const {
    Roof r = Roof::compute;
    double best = compute;
    const std::pair<double, Roof> rest[] = {{hbm, Roof::hbm}, {link, Roof::link}, {dispatch, Roof::dispatch}};
    for (const auto& [v, roof] : rest)
        if (v > best)
            best = v, r = roof;
    return r;
}

AchievableUtil achievable_util(const Cost& cost, double time_us, const Calibration& c) {
    AchievableUtil u;
    u.util_hbm = static_cast<double>(cost.bytes()) / (time_us * 1e3) / c.hbm_GBps;
    if (cost.unit == Unit::tensor && cost.compute_dtype == DType::bf16 && cost.flops > 0)
        u.util_compute = static_cast<double>(cost.flops) / (time_us * 1e6) / c.bf16_tflops;
    return u;
}

Verdict analyze(const Cost& cost, const GpuSpec& gpu, const AnalysisOptions& opt) {
    Verdict v;
    // Explain lines are built only on request; the lambda keeps each formula beside its computation.
    auto explain = [&](auto&& make_term) {
        if (opt.explain)
            v.terms.push_back(make_term());
    };
    v.gpu = gpu.id;
    v.peaks = peaks_for(cost, gpu, opt);
    const PeaksUsed& p = v.peaks;
    const double flops = static_cast<double>(cost.flops);
    const double bytes = static_cast<double>(cost.bytes());

    if (p.compute_tflops) {
        v.roofs_us.compute = flops / (*p.compute_tflops * 1e6);
        explain([&] {
            return line("compute roof", "flops / peak",
                        fmt::format("{} / {} TFLOP/s ({})", cost.flops, num(*p.compute_tflops), p.compute_label),
                        v.roofs_us.compute, "µs");
        });
    }
    v.roofs_us.hbm = bytes / (p.hbm_GBps * 1e3);
    explain([&] {
        return line("hbm roof", "bytes / HBM bandwidth", fmt::format("{} / {} GB/s", cost.bytes(), num(p.hbm_GBps)),
                    v.roofs_us.hbm, "µs");
    });
    if (cost.collective) {
        const CollectiveCost& cc = *cost.collective;
        v.roofs_us.link =
            static_cast<double>(cc.steps) * p.alpha_us + static_cast<double>(cc.wire_bytes_per_rank) / (*p.link_GBps * 1e3);
        explain([&] {
            return line("link roof", "steps·α + wire bytes / one-way link bandwidth",
                        fmt::format("{}·{} µs + {} / {} GB/s ({})", cc.steps, num(p.alpha_us), cc.wire_bytes_per_rank,
                                    num(*p.link_GBps), p.link_name),
                        v.roofs_us.link, "µs");
        });
    }
    if (!cost.collective && cost.transfer != TransferLink::none) {
        v.roofs_us.link = static_cast<double>(cost.transfer_bytes) / (*p.link_GBps * 1e3);
        explain([&] {
            return line("link roof", "bytes / one-way link bandwidth",
                        fmt::format("{} / {} GB/s ({})", cost.transfer_bytes, num(*p.link_GBps), p.link_name), v.roofs_us.link,
                        "µs");
        });
    }
    v.roofs_us.dispatch = static_cast<double>(cost.launches) * p.launch_us;
    explain([&] {
        return line("dispatch roof", "launches · launch overhead", fmt::format("{} · {} µs", cost.launches, num(p.launch_us)),
                    v.roofs_us.dispatch, "µs");
    });
    v.floor_us = v.roofs_us.max();
    v.sum_us = v.roofs_us.sum();
    v.bound = v.roofs_us.argmax();

    v.intensity = flops / bytes;
    if (p.compute_tflops) {
        v.ridge = *p.compute_tflops / p.hbm_GBps * 1e3;
        v.attainable_tflops = std::min(*p.compute_tflops, v.intensity * p.hbm_GBps / 1e3);
        v.attainable_fraction = *v.attainable_tflops / *p.compute_tflops;
        explain([&] {
            return line("ridge", "peak / HBM bandwidth",
                        fmt::format("{} TFLOP/s / {} GB/s", num(*p.compute_tflops), num(p.hbm_GBps)), *v.ridge, "FLOP/B");
        });
        explain([&] {
            return line("attainable", "min(peak, intensity · HBM bandwidth)",
                        fmt::format("min({}, {} · {} GB/s)", num(*p.compute_tflops), num(v.intensity), num(p.hbm_GBps)),
                        *v.attainable_tflops, "TFLOP/s");
        });
    }

    if (p.compute_fallback)
        v.notes.push_back("compute roof uses the " + p.compute_label);
    const double t = opt.time_us.value_or(v.floor_us);
    if (opt.time_us) {
        TimedAnalysis a;
        a.time_us = t;
        a.implied_bw_GBps = bytes / (t * 1e3);
        a.tflops = flops / (t * 1e6);
        a.util_compute = p.compute_tflops ? a.tflops / *p.compute_tflops : 0;
        a.util_hbm = a.implied_bw_GBps / p.hbm_GBps;
        if (cost.collective)
            a.util_link = static_cast<double>(cost.collective->wire_bytes_per_rank) / (t * 1e3) / *p.link_GBps;
        else if (cost.transfer != TransferLink::none)
            a.util_link = static_cast<double>(cost.transfer_bytes) / (t * 1e3) / *p.link_GBps;
        if (v.floor_us > 0)
            a.x_floor = t / v.floor_us;
        a.shares = {v.roofs_us.compute / t, v.roofs_us.hbm / t, v.roofs_us.link / t, v.roofs_us.dispatch / t};
        const double best = a.shares.max();
        if (best >= 0.5) {
            a.bound = a.shares.argmax();
        } else {
            a.bound = Roof::overhead;
            a.unexplained = 1 - best;
            v.notes.push_back(
                fmt::format("no roof explains half of the {} µs: overhead-bound, {:.0f} % of the time is "
                            "not explained by compute, HBM, link or dispatch",
                            num(t), a.unexplained * 100));
        }
        if (a.util_hbm > 1) {
            const bool fits_l2 = gpu.l2_bytes && bytes <= gpu.l2_bytes->value;
            v.notes.push_back(
                fits_l2 ? fmt::format("implied bandwidth {} GB/s exceeds the HBM peak {} GB/s: the working set ({:.1f} MiB) "
                                      "fits in L2 ({:.0f} MiB), so data can come from cache",
                                      num(a.implied_bw_GBps), num(p.hbm_GBps), bytes / 1048576.0, gpu.l2_bytes->value / 1048576.0)
                        : fmt::format("implied bandwidth {} GB/s exceeds the HBM peak {} GB/s: the bytes are undercounted "
                                      "(or the time is too short)",
                                      num(a.implied_bw_GBps), num(p.hbm_GBps)));
        }
        if (a.shares.dispatch > 1)
            v.notes.push_back(
                fmt::format("the given time is shorter than the dispatch roof ({} launches × {} µs): fewer "
                            "launches than modelled (a CUDA graph, fusion) or a smaller launch overhead "
                            "(--launch-us)",
                            cost.launches, num(p.launch_us)));
        if (a.util_compute > 1)
            v.notes.push_back(
                fmt::format("achieved {} TFLOP/s exceeds the dense peak {} TFLOP/s: FLOPs overcounted, "
                            "structured sparsity, or the time is too short",
                            num(a.tflops), num(*p.compute_tflops)));
        v.timed = a;
    }
    if (cost.collective) {
        const CollectiveCost& cc = *cost.collective;
        v.algbw_GBps = static_cast<double>(cc.size_bytes) / (t * 1e3);
        v.busbw_GBps = *v.algbw_GBps * cc.bus_factor;
        if (p.alpha_missing)
            v.notes.push_back(opt.link_GBps ? std::string("with --link-GBps the catalog's per-step latency is not used: the link "
                                                          "roof has no latency term (give --alpha-us)")
                                            : fmt::format("no per-step latency for {} in the catalog: the link roof has no "
                                                          "latency term (give --alpha-us)",
                                                          p.link_name));
        if (v.timed && v.timed->util_link && *v.timed->util_link > 1)
            v.notes.push_back(
                fmt::format("the link carried {:.0f} % of its per-direction peak: the time is too short, or "
                            "this algorithm moves fewer wire bytes than modelled",
                            *v.timed->util_link * 100));
        if (p.nvls_unlisted)
            v.notes.push_back(
                fmt::format("the kernel runs NVLS (its name says so), which the catalog does not list for {}: "
                            "is this the trace's GPU?",
                            gpu.id));
        if (cc.algo == CollectiveAlgo::nvls)
            v.notes.push_back(
                "under NVLS the switch does the reduction, so busbw (the ring-equivalent figure) can "
                "exceed the link's wire rate; wire bytes per rank are the honest link load");
        else if (*v.busbw_GBps > *p.link_GBps)
            v.notes.push_back(
                fmt::format("busbw {} GB/s exceeds the {} GB/s one-way link: NVLS or another in-network "
                            "reduction was probably used",
                            num(*v.busbw_GBps), num(*p.link_GBps)));
    }
    return v;
}

}  // namespace bwacct
