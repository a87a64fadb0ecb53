// The collective chart: two log-log panels side by side, time (µs) against size (bytes) and busbw
// (GB/s) against size, for a sweep of one collective over several sizes.
//   Series: the timed records (given / measured / ingested / simulated) per rank count; without times,
//           the modelled floor per (rank count, GPU).
//   Fit:    t = α + size/β through each series' times (fit_alpha_beta, relative least squares, the
//           same fit `bwacct ingest nccl-tests` reports), drawn as a dashed curve on the time panel.
//   Roof:   each GPU's per-direction link bandwidth as a horizontal line on the busbw panel.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "bwacct/alpha_beta.h"
#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "plot_charts.h"
#include "plot_labels.h"

namespace bwacct::plot {

namespace {

constexpr double kLeft = 90, kTop = 72, kPanelW = 420, kPlotH = 400, kGap = 100;
constexpr double kLegendX = kLeft + 2 * kPanelW + kGap + 24, kLegendW = 330;
constexpr double kWidth = kLegendX + kLegendW;
constexpr std::size_t kTitleChars = 130;  // per line at 16 px across the chart's width

struct Sample {
    double size = 0, time_us = 0, busbw = 0;
};

struct Series {
    std::string name;
    std::string color;
    std::string marker;
    bool filled = true;
    bool fit = true;    // draw the α–β fit through it
    bool thin = false;  // a reference line (modelled floor next to timed data): no markers
    std::vector<Sample> samples;
};

struct LinkRoof {
    std::string gpu, name;
    double GBps = 0;
};

std::string fit_legend(const AlphaBetaFit& fit) {
    const std::string beta = fit.beta_GBps > 0 ? fmt::format("{} GB/s", short_number(fit.beta_GBps)) : "n/a";
    return fmt::format("α = {} µs, β = {}", short_number(fit.alpha_us), beta);
}

}  // namespace

bool is_collective_sweep(const std::vector<Record>& records) {
    if (records.size() < 2 || !records.front().cost.collective)
        return false;
    const CollectiveKind kind = records.front().cost.collective->kind;
    std::set<std::uint64_t> sizes;
    for (const Record& r : records) {
        if (!r.cost.collective || r.cost.collective->kind != kind || r.verdicts.empty())
            return false;
        sizes.insert(r.cost.collective->size_bytes);
    }
    return sizes.size() >= 2;
}

std::string collective_chart(const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus,
                             const PlotOptions& opt) {
    std::vector<std::string> notes;
    std::vector<std::string> seen;
    const CollectiveKind kind = records.front().cost.collective->kind;

    // Group by rank count; timed records make one series per group, else one per (group, GPU).
    std::set<std::uint64_t> rank_counts;
    bool timed = false;
    std::set<TimeSource> sources;
    for (const Record& r : records) {
        rank_counts.insert(r.cost.collective->ranks);
        if (r.verdicts.front().timed) {
            timed = true;
            sources.insert(r.source);
        }
    }
    const bool many_ranks = rank_counts.size() > 1;
    std::vector<Series> series;
    std::map<std::string, std::size_t> index;
    auto series_for = [&](const std::string& key, const std::string& name, const std::string& color, const std::string& marker,
                          bool filled, bool thin_line) -> Series& {
        auto [it, added] = index.emplace(key, series.size());
        if (added) {
            Series s;
            s.name = name, s.color = color, s.marker = marker, s.filled = filled, s.thin = thin_line, s.fit = !thin_line;
            series.push_back(std::move(s));
        }
        return series[it->second];
    };
    std::size_t untimed = 0;
    for (const Record& r : records) {
        const CollectiveCost& cc = *r.cost.collective;
        const double size = static_cast<double>(cc.size_bytes);
        if (size <= 0)
            continue;
        const std::string ranks = many_ranks ? fmt::format(", {} ranks", cc.ranks) : "";
        const Verdict& v0 = r.verdicts.front();
        if (timed) {
            if (!v0.timed || v0.timed->time_us <= 0) {
                ++untimed;
                continue;
            }
            const std::size_t slot = static_cast<std::size_t>(std::distance(rank_counts.begin(), rank_counts.find(cc.ranks)));
            Series& s = series_for(fmt::format("t{}", cc.ranks), fmt::format("{} time{}", time_source_name(r.source), ranks),
                                   many_ranks ? palette(slot) : "#222", source_marker(r.source), true, false);
            s.samples.push_back({size, v0.timed->time_us, v0.busbw_GBps.value_or(0)});
        }
        // The model: the series itself without times, a thin reference line (one rank count) with them.
        if (timed && many_ranks)
            continue;
        for (const Verdict& v : r.verdicts) {
            if (v.floor_us <= 0)
                continue;
            const std::size_t slot = gpu_slot(gpus, seen, v.gpu);
            Series& s = series_for(fmt::format("m{}|{}", cc.ranks, v.gpu), fmt::format("modelled floor, {}{}", v.gpu, ranks),
                                   palette(slot), "circle", false, timed);
            // busbw at the modelled floor: size / floor × bus factor (the verdict's busbw is at the given time).
            s.samples.push_back({size, v.floor_us, size / (v.floor_us * 1e3) * cc.bus_factor});
        }
    }
    if (untimed > 0)
        notes.push_back(fmt::format("{} records without a time are not drawn", untimed));

    // Link roofs (per direction), one per GPU.
    std::vector<LinkRoof> links;
    for (const Verdict& v : records.front().verdicts)
        if (v.peaks.link_GBps && *v.peaks.link_GBps > 0)
            links.push_back({v.gpu, v.peaks.link_name, *v.peaks.link_GBps});

    // The α–β fit of each timed series over all its points (before thinning for drawing); with the
    // table's own fit given (ingest nccl-tests), that one, so the chart and the table agree.
    std::vector<std::optional<AlphaBetaFit>> fits(series.size());
    std::size_t fitted = 0;
    for (const Series& s : series)
        fitted += s.fit ? 1 : 0;
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (!series[i].fit)
            continue;
        if (opt.fit && fitted == 1) {
            fits[i] = opt.fit;
            continue;
        }
        std::vector<AlphaBetaPoint> pts;
        for (const Sample& p : series[i].samples)
            if (p.size > 0 && p.time_us > 0)
                pts.push_back({p.size, p.time_us});
        try {
            fits[i] = fit_alpha_beta(pts);
        } catch (const std::invalid_argument& e) {
            notes.push_back(fmt::format("{}: no α–β fit ({})", series[i].name, e.what()));
        }
    }
    // A modelled floor that measured times beat is the model it is (the ring or tree formula), not a bound.
    for (Series& m : series) {
        if (!m.thin)
            continue;
        bool beaten = false;
        for (const Series& t : series)
            if (t.fit)
                for (const Sample& p : t.samples)
                    for (const Sample& q : m.samples)
                        beaten = beaten || (q.size == p.size && p.time_us < q.time_us * (1 - 1e-9));
        if (beaten)
            m.name = fmt::format("α–β model, {} (times beat it: not a bound)",
                                 m.name.substr(m.name.find("modelled floor, ") == 0 ? 16 : 0));
    }

    // Thin each series for drawing.
    std::size_t most = 0;
    for (Series& s : series) {
        std::sort(s.samples.begin(), s.samples.end(), [](const Sample& a, const Sample& b) { return a.size < b.size; });
        if (s.thin)  // the model depends on the size alone: one point per size, whatever times were given
            s.samples.erase(std::unique(s.samples.begin(), s.samples.end(),
                                        [](const Sample& a, const Sample& b) { return a.size == b.size; }),
                            s.samples.end());
        most = std::max(most, s.samples.size());
    }
    std::size_t stride = 1;
    (void)thin(most, kMaxDrawnPoints / std::max<std::size_t>(1, series.size()), stride);
    if (stride > 1) {
        for (Series& s : series) {
            std::vector<Sample> kept;
            for (std::size_t i = 0; i < s.samples.size(); i += stride)
                kept.push_back(s.samples[i]);
            s.samples = std::move(kept);
        }
        notes.push_back(fmt::format("1 in every {} points of each series is drawn (at most {} in all)", stride, kMaxDrawnPoints));
    }
    // Ranges.
    double smin = 1e300, smax = 0, tmin = 1e300, tmax = 0, bmin = 1e300, bmax = 0;
    for (const Series& s : series)
        for (const Sample& p : s.samples) {
            smin = std::min(smin, p.size), smax = std::max(smax, p.size);
            tmin = std::min(tmin, p.time_us), tmax = std::max(tmax, p.time_us);
            if (p.busbw > 0)
                bmin = std::min(bmin, p.busbw), bmax = std::max(bmax, p.busbw);
        }
    for (const LinkRoof& l : links)
        bmin = std::min(bmin, l.GBps), bmax = std::max(bmax, l.GBps);
    if (smax <= 0)
        smin = 1, smax = 1024;
    if (tmax <= 0)
        tmin = 1, tmax = 100;
    if (bmax <= 0)
        bmin = 1, bmax = 100;

    Frame ft, fb;
    ft.x0 = kLeft, ft.y0 = kTop, ft.x1 = kLeft + kPanelW, ft.y1 = kTop + kPlotH;
    fb = ft;
    fb.x0 = ft.x1 + kGap, fb.x1 = fb.x0 + kPanelW;
    ft.x = binary_axis(smin, smax, ft.x0, ft.x1);
    fb.x = binary_axis(smin, smax, fb.x0, fb.x1);
    ft.y = decade_axis(tmin, tmax, ft.y1, ft.y0, 2);
    fb.y = decade_axis(bmin, bmax, fb.y1, fb.y0, 2);
    ft.x_ticks = size_ticks(ft.x), fb.x_ticks = size_ticks(fb.x);
    ft.y_ticks = decade_ticks(ft.y), fb.y_ticks = decade_ticks(fb.y);
    ft.x_label = fb.x_label = "Message size (bytes, nccl-tests 'size')";
    ft.y_label = "Time (µs)";
    fb.y_label = "Bus bandwidth (GB/s)";

    // Legend.
    std::vector<LegendEntry> legend;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const Series& s = series[i];
        LegendEntry e;
        e.text = s.name;
        e.has_line = true;
        e.line = {s.color, s.thin ? 1.2 : 1.5, s.thin ? "2 3" : ""};
        if (!s.thin) {
            e.marker = s.marker;
            e.fill = s.filled ? s.color : "#ffffff";
            e.edge = s.color;
        }
        legend.push_back(e);
        if (fits[i])
            legend.push_back({fmt::format("fit{}: {}", opt.fit ? " (the table's)" : " t = α + size/β", fit_legend(*fits[i])),
                              {s.color, 1.5, "7 4"},
                              "",
                              "",
                              "",
                              true});
    }
    for (std::size_t i = 0; i < links.size(); ++i)
        legend.push_back({fmt::format("{} link peak {} GB/s per direction", links[i].gpu, short_number(links[i].GBps)),
                          {palette(gpu_slot(gpus, seen, links[i].gpu)), 2, "1 0"},
                          "",
                          "",
                          "",
                          true});
    if (timed && !sources.empty())
        notes.push_back("busbw = size / time × bus factor (nccl-tests); β is size / time (algorithm bandwidth)");
    else
        notes.push_back("Modelled times (α–β model); busbw = size / time × bus factor (nccl-tests)");

    // Geometry first: every line, then the labels placed off all of them (plot_labels.h), then the
    // height (a note when a label has no room).
    LabelPlacer placer({fb.x0, fb.y0, fb.x1, fb.y1});
    // Link roofs on the busbw panel, one per GPU, the highest first.
    std::vector<std::size_t> order(links.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return links[a].GBps > links[b].GBps; });
    for (std::size_t i : order) {
        const double y = fb.y.pos(links[i].GBps);
        placer.add_line(fb.x0, y, fb.x1, y);
    }
    // Fits: t = α + size/β sampled at 64 log-spaced sizes across the panel; only where t > 0 and inside the box.
    std::vector<std::vector<std::pair<double, double>>> fit_lines(series.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (!fits[i])
            continue;
        for (int k = 0; k <= 64; ++k) {
            const double size = ft.x.value_at(ft.x0 + (ft.x1 - ft.x0) * k / 64.0);
            const double t = fits[i]->alpha_us + fits[i]->us_per_byte * size;
            if (t >= ft.y.min() && t <= ft.y.max())
                fit_lines[i].push_back({ft.x.pos(size), ft.y.pos(t)});
        }
        placer.add_polyline(fit_lines[i]);
    }
    // Series: a line through the points (only when each size appears once: several times per size,
    // e.g. a --time-us list, are shown as markers alone), markers on top.
    struct SeriesLines {
        std::vector<std::pair<double, double>> time, busbw;
        bool time_line = false, busbw_line = false;
    };
    std::vector<SeriesLines> series_lines;
    for (const Series& s : series) {
        const bool one_per_size = std::adjacent_find(s.samples.begin(), s.samples.end(), [](const Sample& a, const Sample& b) {
                                      return a.size == b.size;
                                  }) == s.samples.end();
        SeriesLines sl;
        for (const Sample& p : s.samples) {
            sl.time.push_back({ft.x.pos(p.size), ft.y.pos(p.time_us)});
            if (p.busbw > 0)
                sl.busbw.push_back({fb.x.pos(p.size), fb.y.pos(p.busbw)});
        }
        sl.time_line = one_per_size && (s.thin || !s.fit);
        sl.busbw_line = one_per_size;
        if (sl.time_line)
            placer.add_polyline(sl.time);
        if (sl.busbw_line)
            placer.add_polyline(sl.busbw);
        series_lines.push_back(std::move(sl));
    }
    // Link labels: above the line at its left end (where busbw is low), else below it, else at the
    // right end, else the middle; else off the line with a leader; else left out with a note.
    const TextStyle link_text{11, "start", "#222", false, 0};
    std::vector<Label> link_labels;
    std::size_t left_out = 0;
    for (std::size_t i : order) {
        const LinkRoof& l = links[i];
        const double y = fb.y.pos(l.GBps);
        TextStyle st = link_text;
        st.fill = palette(gpu_slot(gpus, seen, l.gpu));
        const std::string text = cut(fmt::format("{} {} {} GB/s", l.gpu, l.name, short_number(l.GBps)), 60);
        const double mid = (fb.x0 + fb.x1) / 2;
        const std::vector<Spot> spots{{fb.x0 + 5, y - 5, "start", 0}, {fb.x0 + 5, y + 13, "start", 0},
                                      {fb.x1 - 5, y - 5, "end", 0},   {fb.x1 - 5, y + 13, "end", 0},
                                      {mid, y - 5, "middle", 0},      {mid, y + 13, "middle", 0}};
        std::optional<Label> placed = placer.place(text, st, spots);
        if (!placed)
            placed = placer.place_with_leader(text, st, {fb.x0 + 5 + text_width(text, st.size) / 2, y}, 2);
        if (placed)
            link_labels.push_back(*placed);
        else
            ++left_out;
    }
    if (left_out > 0)
        notes.push_back(fmt::format("{} link label{} left out where {} would cross a line or other text", left_out,
                                    left_out == 1 ? "" : "s", left_out == 1 ? "it" : "they"));

    const double notes_top = ft.y1 + 72;
    const double height =
        std::max(notes_top + static_cast<double>(notes.size()) * kNoteLine + 8, kTop + legend_height(legend) + 40);
    Svg svg(kWidth, height);
    svg.comment("bwacct collective sweep");
    const std::string title = opt.title.empty() ? std::string(collective_name(kind)) : opt.title;
    draw_title(svg, ft.x0, 30, title, kTitleChars);
    svg.text(ft.x0, ft.y0 - 10, "Time against size", {13, "start", "#222", true, 0});
    svg.text(fb.x0, fb.y0 - 10, "Bus bandwidth against size", {13, "start", "#222", true, 0});
    draw_frame(svg, ft);
    draw_frame(svg, fb);

    for (std::size_t i : order) {
        const double y = fb.y.pos(links[i].GBps);
        svg.line(fb.x0, y, fb.x1, y, {palette(gpu_slot(gpus, seen, links[i].gpu)), 2, ""});
    }
    for (std::size_t i = 0; i < series.size(); ++i)
        if (fits[i])
            svg.polyline(fit_lines[i], {series[i].color, 1.5, "7 4"});
    for (std::size_t i = 0; i < series.size(); ++i) {
        const Series& s = series[i];
        const SeriesLines& sl = series_lines[i];
        const Stroke st{s.color, s.thin ? 1.2 : 1.0, s.thin ? "2 3" : ""};
        if (sl.time_line)
            svg.polyline(sl.time, st);
        if (sl.busbw_line)
            svg.polyline(sl.busbw, st);
        if (s.thin)
            continue;
        const std::string fill = s.filled ? s.color : "#ffffff";
        for (const auto& [x, y] : sl.time)
            svg.marker(s.marker, x, y, 3.2, fill, s.color);
        for (const auto& [x, y] : sl.busbw)
            svg.marker(s.marker, x, y, 3.2, fill, s.color);
    }
    for (const Label& l : link_labels)
        draw_label(svg, l);

    draw_legend(svg, kLegendX, kTop, legend, 48);
    draw_notes(svg, ft.x0 - 60, notes_top, notes);
    return svg.finish();
}

}  // namespace bwacct::plot
