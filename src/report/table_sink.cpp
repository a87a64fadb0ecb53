#include <fmt/format.h>

#include <algorithm>

#include "bwacct/ops.h"
#include "human.h"
#include "sinks.h"

namespace bwacct::detail {
namespace {

std::string params_text(const Record& r) {
    std::string out;
    for (const Row& row : flatten(r)) {
        // Parameters sit between "op" and "source" in the flat row.
        for (std::size_t i = 1; i < row.size() && row[i].name != "source"; ++i)
            out += fmt::format("{}{}={}", out.empty() ? "" : " ", row[i].name, row[i].human);
        break;
    }
    return out;
}

std::string opt_fixed(const std::optional<double>& v, int digits) { return v ? fixed(*v, digits) : "-"; }

std::string source_text(TimeSource s) {
    switch (s) {
        case TimeSource::modelled:
            return "modelled: each roof from catalog peaks, no measurement";
        case TimeSource::given:
            return "given (--time-us): implied rates below use it";
        case TimeSource::measured:
            return "measured on this GPU";
        case TimeSource::simulated:
            return "simulated (test backend, not a measurement)";
        case TimeSource::ingested:
            return "ingested: measured by another tool, read from its file";
    }
    return "";
}

}  // namespace

void TableSink::detailed(const Record& r) {
    const Cost& c = r.cost;
    auto bold = [&](const std::string& s) { return opt_.color ? "\x1b[1m" + s + "\x1b[0m" : s; };
    fmt::print(out_, "{}  {}\n", bold(c.op), params_text(r));
    fmt::print(out_, "  {:<14}{} ({}, {} {})\n", "FLOPs", human_count(c.flops), human_si(static_cast<double>(c.flops), "FLOP"),
               unit_name(c.unit), dtype_name(c.compute_dtype));
    fmt::print(out_, "  {:<14}{} ({}: read {}, written {}; lower bound, each input read once, each output written once)\n",
               "HBM bytes", human_count(c.bytes()), human_bytes(c.bytes()), human_bytes(c.bytes_read),
               human_bytes(c.bytes_written));
    fmt::print(out_, "  {:<14}{} FLOP/B\n", "intensity", fixed(static_cast<double>(c.flops) / static_cast<double>(c.bytes()), 2));
    fmt::print(out_, "  {:<14}{}\n", "launches", c.launches);
    if (c.collective) {
        const CollectiveCost& cc = *c.collective;
        fmt::print(out_, "  {:<14}{} ({}), {} ranks, {}; busbw = algbw · {} = algbw · {:.4f}\n", "size",
                   human_count(cc.size_bytes), human_bytes(cc.size_bytes), cc.ranks, algo_name(cc.algo), cc.bus_factor_formula,
                   cc.bus_factor);
        fmt::print(out_, "  {:<14}{} ({}) per rank, {} latency steps\n", "wire bytes", human_count(cc.wire_bytes_per_rank),
                   human_bytes(cc.wire_bytes_per_rank), cc.steps);
    }
    fmt::print(out_, "  {:<14}{}\n", "time", source_text(r.source));
    if (r.measurement) {
        const Measurement& m = *r.measurement;
        const Timing& t = m.timing;
        fmt::print(out_, "  {:<14}{} (GPU {}{}, {}){}\n", "device", m.device.name, m.device.index,
                   m.catalog_match.empty() ? "" : ", catalog " + m.catalog_match, m.backend,
                   m.ranks > 1 ? fmt::format(", {} ranks", m.ranks) : "");
        fmt::print(out_, "  {:<14}median {} µs, min {}, max {}, cv {} over {} samples\n", "samples", fixed(t.stats.median_us, 2),
                   fixed(t.stats.min_us, 2), fixed(t.stats.max_us, 2), percent(t.stats.cv), t.stats.n);
        for (const auto& [label, text] : {std::pair<const char*, const std::string*>{"timer", &t.timer},
                                          {"cache", &t.cache},
                                          {"verified", &t.verification},
                                          {"detail", &t.detail}})
            if (!text->empty())
                fmt::print(out_, "  {:<14}{}\n", label, *text);
        if (m.achievable) {
            const AchievableUtil u = achievable_util(c, t.stats.median_us, *m.achievable);
            fmt::print(out_, "  {:<14}HBM {} GB/s{} (calibrated {}): this op reaches {} of that bandwidth{}\n", "achievable",
                       fixed(m.achievable->hbm_GBps, 0),
                       u.util_compute ? fmt::format(", bf16 {} TFLOP/s", fixed(m.achievable->bf16_tflops, 0)) : "",
                       m.achievable->measured_at, percent(u.util_hbm),
                       u.util_compute ? fmt::format(" and {} of that compute", percent(*u.util_compute)) : "");
        }
        for (const KernelRecord& k : t.kernels)
            fmt::print(out_, "  {:<14}{} × {} ({} µs in all)\n", "kernel", k.count, k.name, fixed(k.total_us, 2));
        for (const std::string& n : t.notes)
            fmt::print(out_, "  {:<14}{}\n", "note", n);
    }
    if (opt_.explain) {
        fmt::print(out_, "\n  formulas\n");
        for (const Term& t : c.terms)
            fmt::print(out_, "    {:<24}{} = {} = {}\n", t.name, t.formula, t.substituted, t.value);
    }

    fmt::print(out_, "\n  {:<10}{:<10}{:>11}{:>12}{:>10}{:>10}{:>13}{:>14}{:>20}\n", "gpu", "bound", "floor µs", "compute µs",
               "hbm µs", "link µs", "dispatch µs", "ridge FLOP/B", "attainable TFLOP/s");
    for (const Verdict& v : r.verdicts) {
        const std::string attainable =
            v.attainable_tflops ? fmt::format("{} ({})", fixed(*v.attainable_tflops, 1), percent(*v.attainable_fraction)) : "-";
        fmt::print(
            out_, "  {:<10}{:<10}{:>11}{:>12}{:>10}{:>10}{:>13}{:>14}{:>20}\n", v.gpu, bold(std::string(roof_name(v.bound))),
            fixed(v.floor_us, 2), v.peaks.compute_tflops ? fixed(v.roofs_us.compute, 2) : "-", fixed(v.roofs_us.hbm, 2),
            c.collective ? fixed(v.roofs_us.link, 2) : "-", fixed(v.roofs_us.dispatch, 2), opt_fixed(v.ridge, 1), attainable);
    }
    if (r.verdicts.front().timed) {
        fmt::print(out_, "\n  {:<10}{:<10}{:>10}{:>15}{:>10}{:>11}{:>9}{:>9}   {}\n", "gpu", "bound", "time µs", "implied GB/s",
                   "TFLOP/s", "compute", "hbm", "link", "share of time: compute / hbm / link / dispatch");
        for (const Verdict& v : r.verdicts) {
            const TimedAnalysis& t = *v.timed;
            fmt::print(out_, "  {:<10}{:<10}{:>10}{:>15}{:>10}{:>11}{:>9}{:>9}   {} / {} / {} / {}\n", v.gpu,
                       bold(std::string(roof_name(t.bound))), fixed(t.time_us, 2), fixed(t.implied_bw_GBps, 1),
                       fixed(t.tflops, 1), percent(t.util_compute), percent(t.util_hbm),
                       t.util_link ? percent(*t.util_link) : "-", percent(t.shares.compute), percent(t.shares.hbm),
                       percent(t.shares.link), percent(t.shares.dispatch));
        }
    }
    if (c.collective) {
        fmt::print(
            out_, "\n  {:<10}{:>12}{:>12}   ({})\n", "gpu", "algbw GB/s", "busbw GB/s",
            r.verdicts.front().timed ? fmt::format("at the {} time", time_source_name(r.source)) : "at the modelled floor");
        for (const Verdict& v : r.verdicts)
            fmt::print(out_, "  {:<10}{:>12}{:>12}   link {} GB/s per direction ({})\n", v.gpu, opt_fixed(v.algbw_GBps, 2),
                       opt_fixed(v.busbw_GBps, 2), fixed(*v.peaks.link_GBps, 0), v.peaks.link_name);
    }
    if (r.fusion) {
        const Cost& f = r.fusion->fused;
        fmt::print(out_, "\n  fused into one kernel: {} HBM bytes ({}), {} launch; saves {} ({}) and {} launches\n",
                   human_count(f.bytes()), human_bytes(f.bytes()), f.launches, human_count(c.bytes() - f.bytes()),
                   human_bytes(c.bytes() - f.bytes()), c.launches - f.launches);
        fmt::print(out_, "  {:<10}{:>18}{:>16}{:>16}\n", "gpu", "unfused floor µs", "fused floor µs", "time saved µs");
        for (std::size_t i = 0; i < r.verdicts.size(); ++i)
            fmt::print(out_, "  {:<10}{:>18}{:>16}{:>16}\n", r.verdicts[i].gpu, fixed(r.verdicts[i].floor_us, 2),
                       fixed(r.fusion->verdicts[i].floor_us, 2),
                       fixed(r.verdicts[i].floor_us - r.fusion->verdicts[i].floor_us, 2));
    }
    bool any_note = false;
    for (const Verdict& v : r.verdicts)
        for (const std::string& n : v.notes) {
            if (!any_note)
                fmt::print(out_, "\n");
            any_note = true;
            fmt::print(out_, "  note ({}): {}\n", v.gpu, n);
        }
    if (opt_.explain) {
        for (const Verdict& v : r.verdicts) {
            fmt::print(out_, "\n  {} roofs\n", v.gpu);
            for (const Term& t : v.terms)
                fmt::print(out_, "    {:<16}{} = {} = {}\n", t.name, t.formula, t.substituted, t.value);
        }
    }
}

void TableSink::sweep_row(const Record& r) {
    static const std::vector<std::string> kSkip{"source", "bytes_read", "bytes_written", "ridge", "attainable_tflops"};
    for (const Row& row : flatten(r)) {
        std::string head, line;
        for (const Cell& c : row) {
            if (std::find(kSkip.begin(), kSkip.end(), c.name) != kSkip.end())
                continue;
            // Width from the header and the first row; a leading space keeps later, wider values apart.
            const std::size_t w = std::max({c.name.size(), c.human.size() + 3, std::size_t{8}});
            head += fmt::format(" {:>{}}", c.name, w);
            line += fmt::format(" {:>{}}", c.human, w);
        }
        if (!header_done_) {
            fmt::print(out_, "# time: {}\n{}\n", source_text(r.source), head);
            header_done_ = true;
        }
        fmt::print(out_, "{}\n", line);
    }
}

void TableSink::emit(const Record& r) {
    if (opt_.sweep)
        sweep_row(r);
    else
        detailed(r);
}

}  // namespace bwacct::detail
