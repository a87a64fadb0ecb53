#include <fmt/format.h>

#include <algorithm>

#include "bwacct/ops.h"
#include "human.h"
#include "sinks.h"
#include "verdict_line.h"

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
    // The answer first: one line per GPU.
    std::vector<GpuVerdict> lines;
    for (const Verdict& v : r.verdicts)
        lines.push_back({v.gpu, verdict_line(r, v)});
    print_verdict_lines(out_, lines);
    fmt::print(out_, "\n{}  {}\n", bold(c.op), params_text(r));
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
        fmt::print(out_, "\n  {:<10}{:<10}{:>10}{:>9}{:>15}{:>10}{:>11}{:>9}{:>9}   {}\n", "gpu", "bound", "time µs", "× floor",
                   "implied GB/s", "TFLOP/s", "compute", "hbm", "link", "share of time: compute / hbm / link / dispatch");
        for (const Verdict& v : r.verdicts) {
            const TimedAnalysis& t = *v.timed;
            fmt::print(out_, "  {:<10}{:<10}{:>10}{:>9}{:>15}{:>10}{:>11}{:>9}{:>9}   {} / {} / {} / {}{}\n", v.gpu,
                       bold(std::string(roof_name(t.bound))), fixed(t.time_us, 2), opt_fixed(t.x_floor, 2),
                       fixed(t.implied_bw_GBps, 1), fixed(t.tflops, 1), percent(t.util_compute), percent(t.util_hbm),
                       t.util_link ? percent(*t.util_link) : "-", percent(t.shares.compute), percent(t.shares.hbm),
                       percent(t.shares.link), percent(t.shares.dispatch),
                       t.projected_from.empty() ? "" : "   (time projected from " + t.projected_from + ")");
        }
    }
    if (c.collective) {
        fmt::print(out_, "\n  {:<10}{:>12}{:>12}   ({})\n", "gpu", "algbw GB/s", "busbw GB/s",
                   r.verdicts.front().timed ? fmt::format("at each GPU's {} time", time_source_name(r.source))
                                            : "at the modelled floor");
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

namespace {

// Columns a sweep table leaves out: exact byte splits and figures the detailed view has; notes are on
// the GPU lines; collectives have no FLOP columns (their only FLOPs are the reduction's, not a roof).
bool skipped(const std::string& name, bool collective) {
    static const std::vector<std::string> kSkip{"source", "bytes_read", "bytes_written", "ridge", "attainable_tflops", "notes"};
    static const std::vector<std::string> kFlop{"flops", "intensity", "compute_us", "tflops", "util_compute"};
    return std::find(kSkip.begin(), kSkip.end(), name) != kSkip.end() ||
           (collective && std::find(kFlop.begin(), kFlop.end(), name) != kFlop.end());
}

std::string range_text(double lo, double hi) {
    return short_number(lo) == short_number(hi) ? short_number(lo) : short_number(lo) + "–" + short_number(hi);
}

}  // namespace

void TableSink::sweep_row(const Record& r) {
    const std::vector<Row> rows = flatten(r);
    for (std::size_t i = 0; i < rows.size() && i < r.verdicts.size(); ++i) {
        const Verdict& v = r.verdicts[i];
        Row kept;
        for (const Cell& c : rows[i])
            if (!skipped(c.name, r.cost.collective.has_value()))
                kept.push_back(c);
        // The GPU's running summary and the sweep's best and worst point.
        auto g = std::find_if(gpus_.begin(), gpus_.end(), [&](const GpuSummary& s) { return s.gpu == v.gpu; });
        if (g == gpus_.end()) {
            gpus_.push_back({v.gpu, 0, {}, v.floor_us, v.floor_us, std::nullopt, std::nullopt});
            g = gpus_.end() - 1;
        }
        ++g->points;
        const std::string bound(roof_name(v.timed ? v.timed->bound : v.bound));
        auto b = std::find_if(g->bounds.begin(), g->bounds.end(), [&](const auto& p) { return p.first == bound; });
        if (b == g->bounds.end())
            g->bounds.push_back({bound, 1});
        else
            ++b->second;
        g->floor_min = std::min(g->floor_min, v.floor_us);
        g->floor_max = std::max(g->floor_max, v.floor_us);
        if (v.timed && v.timed->x_floor) {
            g->x_min = std::min(g->x_min.value_or(*v.timed->x_floor), *v.timed->x_floor);
            g->x_max = std::max(g->x_max.value_or(*v.timed->x_floor), *v.timed->x_floor);
        }
        if (const auto score = point_score(r, v)) {
            Extreme e{*score, {}, v.gpu, score_text(r, v)};
            for (const Cell& c : rows[i]) {
                if (c.name == "source")
                    break;
                if (c.name != "op")
                    e.params.push_back({c.name, c.human});
            }
            if (v.timed && v.timed->x_floor && *v.timed->x_floor < 1) {
                ++below_count_;
                if (!below_ || *score > below_->score)
                    below_ = std::move(e);
            } else {
                if (!best_ || *score > best_->score)
                    best_ = e;
                if (!worst_ || *score < worst_->score)
                    worst_ = std::move(e);
            }
        }
        if (source_.empty())
            source_ = source_text(r.source);
        if (laid_out_)
            print_row(kept);
        else
            held_.push_back(std::move(kept));
        if (!laid_out_ && held_.size() >= kTableRows)
            lay_out();
    }
}

void TableSink::print_row(const Row& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i)
        if (i >= shared_.size() || !shared_[i])
            line += fmt::format("  {:>{}}", row[i].human, i < width_.size() ? width_[i] : 0);
    fmt::print(out_, "{}\n", line.substr(std::min<std::size_t>(line.size(), 2)));
}

void TableSink::lay_out() {
    laid_out_ = true;
    if (held_.empty())
        return;
    const Row& first = held_.front();
    // A column whose text is the same in every held row moves to the header line (not when the rows
    // are cut off at kTableRows: a later row may differ).
    shared_.assign(first.size(), held_.size() > 1 && held_.size() < kTableRows);
    width_.assign(first.size(), 0);
    for (std::size_t i = 0; i < first.size(); ++i)
        width_[i] = first[i].name.size();
    for (const Row& row : held_)
        for (std::size_t i = 0; i < row.size() && i < first.size(); ++i) {
            width_[i] = std::max(width_[i], row[i].human.size());
            if (row[i].human != first[i].human)
                shared_[i] = false;
        }
    if (std::all_of(shared_.begin(), shared_.end(), [](bool b) { return b; }))
        shared_.assign(first.size(), false);

    // The answer first: per GPU, what binds over the sweep, the floor's range and the time against it.
    std::size_t id_width = 0;
    for (const GpuSummary& g : gpus_)
        id_width = std::max(id_width, g.gpu.size());
    for (const GpuSummary& g : gpus_) {
        std::string bounds;
        for (const auto& [name, n] : g.bounds)
            bounds += fmt::format("{}{}-bound at {}", bounds.empty() ? "" : ", ", name, n);
        std::string line = fmt::format("{:<{}}  {} points{} · {} · floor {} µs", g.gpu, id_width, g.points,
                                       held_.size() >= kTableRows ? " so far" : "", bounds, range_text(g.floor_min, g.floor_max));
        if (g.x_min)
            line += fmt::format(" · {}× floor",
                                g.x_min == g.x_max ? fixed(*g.x_min, 2) : fixed(*g.x_min, 2) + "–" + fixed(*g.x_max, 2));
        fmt::print(out_, "{}\n", line);
    }
    std::string common;
    for (std::size_t i = 0; i < first.size(); ++i)
        if (shared_[i])
            common += fmt::format(" {}={}", first[i].name, first[i].human);
    fmt::print(out_, "\n");
    if (!common.empty())
        fmt::print(out_, "# every row:{}\n", common);
    fmt::print(out_, "# time: {}\n", source_);
    Row head;
    for (const Cell& c : first) {
        head.push_back({c.name, c.name, c.name});
        names_.push_back(c.name);
    }
    print_row(head);
    for (const Row& row : held_)
        print_row(row);
    held_.clear();
    held_.shrink_to_fit();
}

void TableSink::finish() {
    if (!opt_.sweep)
        return;
    if (!laid_out_)
        lay_out();
    auto point = [&](const Extreme& e) {
        std::string s;
        for (const auto& [name, value] : e.params) {
            // Parameters shared by every row are on the header line already.
            const auto it = std::find(names_.begin(), names_.end(), name);
            if (it == names_.end() || !shared_[static_cast<std::size_t>(it - names_.begin())])
                s += fmt::format("{}={} ", name, value);
        }
        return fmt::format("{}on {}: {}", s, e.gpu, e.text);
    };
    if (best_ || below_)
        fmt::print(out_, "\n");
    if (best_ && worst_) {
        fmt::print(out_, "best   {}\n", point(*best_));
        fmt::print(out_, "worst  {}\n", point(*worst_));
    }
    if (below_)
        fmt::print(out_,
                   "below  {} point{} faster than the modelled floor, left out of best and worst (a time under the floor "
                   "means the time or the model's peaks and minimum bytes are off); fastest: {}\n",
                   below_count_, below_count_ == 1 ? " is" : "s are", point(*below_));
}

void TableSink::emit(const Record& r) {
    if (opt_.sweep)
        sweep_row(r);
    else
        detailed(r);
}

}  // namespace bwacct::detail
