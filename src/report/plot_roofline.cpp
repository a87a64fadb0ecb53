// The roofline chart: log-log, arithmetic intensity (FLOP per HBM byte) against TFLOP/s.
//   HBM roof of a GPU:      y = x · BW / 1000   (x FLOP/B · BW GB/s = x·BW GFLOP/s = x·BW/1000 TFLOP/s),
//                           drawn from the left edge to the GPU's highest ridge;
//   compute roof per dtype: y = peak (dense TFLOP/s), drawn from its ridge x = peak · 1000 / BW to the right edge;
//   a record:               x = its intensity, y = FLOPs / time when it has a time, else its attainable
//                           min(peak, x · BW / 1000) on each GPU (hollow, "modelled").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "plot_charts.h"
#include "plot_labels.h"

namespace bwacct::plot {

namespace {

// Layout (pixels).
constexpr double kLeft = 90, kTop = 64, kPlotW = 600, kPlotH = 440;
constexpr double kLegendX = kLeft + kPlotW + 24, kLegendW = 340;
constexpr double kWidth = kLegendX + kLegendW;

struct ComputeRoof {
    std::string gpu, label;
    double tflops = 0;
    double hbm_GBps = 0;
    double ridge() const { return tflops * 1e3 / hbm_GBps; }
};

struct HbmRoof {
    std::string gpu;
    double GBps = 0;
    double ridge_max = 0;  // the highest ridge among this GPU's compute roofs (0: none)
};

struct Dot {
    double x = 0, y = 0;
    std::size_t slot = 0;  // GPU colour (modelled points)
    bool timed = false;
    TimeSource source = TimeSource::modelled;
    std::string label;       // empty: no label
    std::size_t record = 0;  // which drawn record (one label per record, on the first of its dots with room)
};

// A roof's label: where it may stand (first free spot wins) and the point a leader line would name.
struct RoofLabel {
    std::string text;
    TextStyle style;
    std::vector<Spot> spots;
    Point target;
};

// Spots along a horizontal roof from pixel xa to xb at height y: the right end first, then stepping
// left to the ridge, each `first_dy` from the line, then `second_dy`.
std::vector<Spot> along_flat_roof(double xa, double xb, double y, double width, double first_dy, double second_dy) {
    std::vector<Spot> spots;
    const double span = std::max(0.0, xb - (xa + width));
    for (int k = 0; k <= 4; ++k) {
        const double x = xb - span * k / 4;
        spots.push_back({x, y + first_dy, "end", 0});
        spots.push_back({x, y + second_dy, "end", 0});
        if (span == 0)
            break;
    }
    return spots;
}

}  // namespace

std::string roofline_chart(const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus, const PlotOptions& opt) {
    std::vector<std::string> notes;
    std::vector<std::string> seen;

    // The roofs: one HBM roof per GPU, one compute roof per (GPU, peak label) among records with FLOPs.
    std::vector<HbmRoof> hbm;
    std::vector<ComputeRoof> compute;
    auto hbm_of = [&](const std::string& gpu, double bw) -> HbmRoof& {
        for (HbmRoof& h : hbm)
            if (h.gpu == gpu)
                return h;
        hbm.push_back({gpu, bw, 0});
        return hbm.back();
    };
    for (const GpuSpec* g : gpus)
        hbm_of(g->id, g->hbm_bw_GBps.value);
    std::vector<const Record*> on_roofline;
    std::map<std::string, std::size_t> off_roofline;  // op → records without FLOPs or bytes
    for (const Record& r : records) {
        if (r.cost.flops == 0 || r.cost.bytes() == 0 || r.verdicts.empty()) {
            ++off_roofline[r.cost.op.empty() ? "?" : r.cost.op];
            continue;
        }
        on_roofline.push_back(&r);
        for (const Verdict& v : r.verdicts) {
            HbmRoof& h = hbm_of(v.gpu, v.peaks.hbm_GBps);
            h.GBps = v.peaks.hbm_GBps;  // the figure the analysis used (overrides included)
            if (!v.peaks.compute_tflops || *v.peaks.compute_tflops <= 0 || h.GBps <= 0)
                continue;
            const bool known = std::any_of(compute.begin(), compute.end(), [&](const ComputeRoof& c) {
                return c.gpu == v.gpu && c.label == v.peaks.compute_label;
            });
            if (!known)
                compute.push_back({v.gpu, v.peaks.compute_label, *v.peaks.compute_tflops, h.GBps});
        }
    }
    for (const ComputeRoof& c : compute) {
        HbmRoof& h = hbm_of(c.gpu, c.hbm_GBps);
        h.ridge_max = std::max(h.ridge_max, c.ridge());
    }
    for (const Calibration& c : opt.achievable)
        if (c.hbm_GBps <= 0)
            notes.push_back(fmt::format("calibration of {} has no HBM bandwidth: not drawn", c.name));

    // The points, thinned when there are many.
    std::size_t stride = 1;
    const std::vector<std::size_t> keep = thin(on_roofline.size(), kMaxDrawnPoints, stride);
    std::vector<const Record*> drawn;
    for (std::size_t i : keep)
        drawn.push_back(on_roofline[i]);
    std::size_t label_stride = 1;
    const std::vector<std::size_t> labelled = thin(drawn.size(), kMaxLabels, label_stride);
    const std::vector<std::string> labels = point_labels(drawn);
    std::vector<Dot> dots;
    std::set<TimeSource> sources;
    bool any_modelled = false;
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        const Record& r = *drawn[i];
        const bool label = std::binary_search(labelled.begin(), labelled.end(), i);
        const Verdict& v0 = r.verdicts.front();
        if (v0.timed && v0.timed->tflops > 0) {
            dots.push_back({v0.intensity, v0.timed->tflops, 0, true, r.source, label ? labels[i] : "", i});
            sources.insert(r.source);
            continue;
        }
        for (const Verdict& v : r.verdicts) {
            if (!v.attainable_tflops || *v.attainable_tflops <= 0)
                continue;
            dots.push_back({v.intensity, *v.attainable_tflops, gpu_slot(gpus, seen, v.gpu), false, TimeSource::modelled,
                            label ? labels[i] : "", i});
            any_modelled = true;
        }
    }

    // Axis ranges: the points, every ridge (with a decade of HBM slope to its left) and every peak.
    double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
    auto take_x = [&](double x) { xmin = std::min(xmin, x), xmax = std::max(xmax, x); };
    auto take_y = [&](double y) { ymin = std::min(ymin, y), ymax = std::max(ymax, y); };
    for (const Dot& d : dots)
        take_x(d.x), take_y(d.y);
    for (const ComputeRoof& c : compute) {
        take_x(c.ridge() / 10), take_x(c.ridge() * 2);
        take_y(c.tflops), take_y(c.tflops / 20);
    }
    for (const Calibration& c : opt.achievable)
        if (c.hbm_GBps > 0 && c.bf16_tflops > 0) {
            take_x(c.bf16_tflops * 1e3 / c.hbm_GBps);
            take_y(c.bf16_tflops);
        }
    if (xmax <= 0)
        xmin = 0.1, xmax = 1000;
    if (ymax <= 0)
        ymin = 1, ymax = 1000;

    Frame f;
    f.x0 = kLeft, f.y0 = kTop, f.x1 = kLeft + kPlotW, f.y1 = kTop + kPlotH;
    f.x = decade_axis(xmin, xmax, f.x0, f.x1, 2);
    f.y = decade_axis(ymin, ymax, f.y1, f.y0, 2);
    f.x_ticks = decade_ticks(f.x);
    f.y_ticks = decade_ticks(f.y);
    f.x_label = "Arithmetic intensity (FLOP per HBM byte)";
    f.y_label = "Performance (TFLOP/s)";

    // Notes (they set the height).
    if (records.empty())
        notes.push_back("Nothing to draw: the command produced no records (only the roofs are shown)");
    if (!off_roofline.empty()) {
        std::string list;
        for (const auto& [op, n] : off_roofline)
            list += fmt::format("{}{} ×{}", list.empty() ? "" : ", ", op, n);
        notes.push_back(cut(fmt::format("Not on the roofline (no FLOPs or no HBM bytes): {}", list), 130));
    }
    if (stride > 1)
        notes.push_back(fmt::format("{} points: 1 in every {} is drawn ({} drawn; at most {})", on_roofline.size(), stride,
                                    keep.size(), kMaxDrawnPoints));
    if (label_stride > 1)
        notes.push_back(fmt::format("Labels on 1 in every {} drawn points; the others are plain markers", label_stride));

    // Legend entries.
    std::vector<LegendEntry> legend;
    for (const HbmRoof& h : hbm) {
        LegendEntry e;
        e.text = gpu_title(gpus, h.gpu);
        e.line = {palette(gpu_slot(gpus, seen, h.gpu)), 2, ""};
        e.has_line = true;
        legend.push_back(e);
    }
    for (const Calibration& c : opt.achievable) {
        LegendEntry e;
        e.text = fmt::format("achievable, calibrated on {}", c.name.empty() ? c.uuid : c.name);
        e.line = {"#555", 1.6, "6 4"};
        e.has_line = true;
        legend.push_back(e);
    }
    for (TimeSource s : sources)
        legend.push_back({source_legend(s), {}, source_marker(s), "#222", "#222", false});
    if (any_modelled)
        legend.push_back({"modelled: attainable, no time (GPU colour)", {}, "circle", "none", "#555", false});

    const double notes_top = f.y1 + 72;
    // One line more than the notes: room for the note on crowded labels, known only when drawing.
    const double height =
        std::max(notes_top + static_cast<double>(notes.size() + 1) * kNoteLine + 8, kTop + legend_height(legend) + 40);
    Svg svg(kWidth, height);
    svg.comment("bwacct roofline");
    draw_title(svg, f.x0, 34, opt.title.empty() ? "Roofline" : opt.title, 110);
    draw_frame(svg, f);

    // Roofs: every line first, so that no label (roof or point) is placed across one.
    LabelPlacer placer({f.x0, f.y0, f.x1, f.y1});
    auto roof_line = [&](double x1, double y1, double x2, double y2, const Stroke& s) {
        svg.line(x1, y1, x2, y2, s);
        placer.add_line(x1, y1, x2, y2);
    };
    const TextStyle roof_text{11, "start", "#222", false, 0};
    std::vector<RoofLabel> flat_labels, slope_labels;
    for (const HbmRoof& h : hbm) {
        if (h.GBps <= 0)
            continue;
        const std::string& color = palette(gpu_slot(gpus, seen, h.gpu));
        // Visible from where it enters the box (left edge, or the bottom edge) to its ridge (or the right edge).
        const double xa = std::max(f.x.min(), f.y.min() * 1e3 / h.GBps);
        const double xb = std::min(f.x.max(), h.ridge_max > 0 ? h.ridge_max : f.x.max());
        if (xa >= xb)
            continue;
        const Point from{f.x.pos(xa), f.y.pos(xa * h.GBps / 1e3)};
        const Point to{f.x.pos(xb), f.y.pos(std::min(xb * h.GBps / 1e3, f.y.max()))};
        roof_line(from.x, from.y, to.x, to.y, {color, 2, ""});
        // Label along the slope: from 14 px past where the line enters, then further up it; above the
        // line, then below it (offsets across the line, in the label's own frame).
        const double angle =
            std::atan2(f.y.pos(10 * h.GBps / 1e3) - f.y.pos(h.GBps / 1e3), f.x.pos(10) - f.x.pos(1)) * 180 / 3.14159265358979;
        RoofLabel l{fmt::format("{} HBM {} GB/s", h.gpu, short_number(h.GBps)), roof_text, {}, {}};
        l.style.fill = color;
        const double length = std::hypot(to.x - from.x, to.y - from.y);
        const Point u{(to.x - from.x) / length, (to.y - from.y) / length};
        const double sn = std::sin(angle * 3.14159265358979 / 180), cs = std::cos(angle * 3.14159265358979 / 180);
        const Point up{sn, -cs};  // the text's "up", perpendicular to the line
        const double below = kAscent * l.style.size + LabelPlacer::kPad + 2;
        const double room = length - 28 - text_width(l.text, l.style.size);
        for (int k = 0; k <= 4; ++k) {
            const double s = 14 + (room > 0 ? room * k / 4 : 0);
            const Point p{from.x + u.x * s, from.y + u.y * s};
            l.spots.push_back({p.x + up.x * 5, p.y + up.y * 5, "start", angle});
            l.spots.push_back({p.x - up.x * below, p.y - up.y * below, "start", angle});
            if (room <= 0)
                break;
        }
        l.target = {from.x + u.x * 14, from.y + u.y * 14};
        slope_labels.push_back(std::move(l));
    }
    for (const ComputeRoof& c : compute) {
        const std::string& color = palette(gpu_slot(gpus, seen, c.gpu));
        const double xa = f.x.pos(std::max(f.x.min(), c.ridge())), y = f.y.pos(c.tflops);
        roof_line(xa, y, f.x1, y, {color, 2, ""});
        RoofLabel l{fmt::format("{} {} {} TFLOP/s", c.gpu, c.label, short_number(c.tflops)), roof_text, {}, {}};
        l.style.fill = color;
        const double w = text_width(l.text, l.style.size);
        // Above the line at its right end, else below it, then further left.
        l.spots = along_flat_roof(xa, f.x1 - 4, y, w, -5, 13);
        l.target = {f.x1 - 4 - w / 2, y};
        flat_labels.push_back(std::move(l));
    }
    for (const Calibration& c : opt.achievable) {
        if (c.hbm_GBps <= 0)
            continue;
        const Stroke dashed{"#555", 1.6, "6 4"};
        const double ridge = c.bf16_tflops > 0 ? c.bf16_tflops * 1e3 / c.hbm_GBps : f.x.max();
        const double xa = std::max(f.x.min(), f.y.min() * 1e3 / c.hbm_GBps);
        const double xb = std::min(f.x.max(), ridge);
        if (xa < xb)
            roof_line(f.x.pos(xa), f.y.pos(xa * c.hbm_GBps / 1e3), f.x.pos(xb), f.y.pos(xb * c.hbm_GBps / 1e3), dashed);
        if (c.bf16_tflops > 0) {
            const double xr = f.x.pos(std::max(f.x.min(), ridge)), y = f.y.pos(c.bf16_tflops);
            roof_line(xr, y, f.x1, y, dashed);
            RoofLabel l{
                fmt::format("calibrated bf16 {} TFLOP/s, HBM {} GB/s", short_number(c.bf16_tflops), short_number(c.hbm_GBps)),
                roof_text,
                {},
                {}};
            l.style.fill = "#555";
            const double w = text_width(l.text, l.style.size);
            // Below the line first (the catalog's roof, above it, has its label above its own line).
            l.spots = along_flat_roof(xr, f.x1 - 4, y, w, 14, -5);
            l.target = {f.x1 - 4 - w / 2, y};
            flat_labels.push_back(std::move(l));
        }
    }
    // Roof labels: the flat roofs' from the highest roof down, then the slopes'; each at its first free
    // spot, else off the line with a leader, else left out (counted in the note below).
    std::stable_sort(flat_labels.begin(), flat_labels.end(),
                     [](const RoofLabel& a, const RoofLabel& b) { return a.target.y < b.target.y; });
    flat_labels.insert(flat_labels.end(), slope_labels.begin(), slope_labels.end());
    std::size_t left_out = 0;
    for (const RoofLabel& l : flat_labels) {
        std::optional<Label> placed = placer.place(l.text, l.style, l.spots);
        if (!placed)
            placed = placer.place_with_leader(l.text, l.style, l.target, 2);
        if (placed)
            draw_label(svg, *placed);
        else
            ++left_out;
    }

    // Points: modelled first, timed on top; then their labels.
    for (const Dot& d : dots)
        if (!d.timed)
            svg.marker("circle", f.x.pos(d.x), f.y.pos(d.y), 3.5, "#ffffff", palette(d.slot));
    for (const Dot& d : dots)
        if (d.timed)
            svg.marker(source_marker(d.source), f.x.pos(d.x), f.y.pos(d.y), 3.5, "#222", "#222");
    // Labels, one per labelled record: below-right of its point, else above-right, below-left, above-left,
    // below, above; on a record's next GPU's point when the first has no room. Records whose points have
    // no room anywhere then get a spot nearby with a leader line to the first of their points with one; a label with no
    // room even so is left out, and a note says how many.
    const TextStyle point_text{10, "start", "#333", false, 0};
    std::set<std::size_t> wanted, done;
    for (const Dot& d : dots) {
        if (d.label.empty() || done.count(d.record) > 0)
            continue;
        wanted.insert(d.record);
        const double px = f.x.pos(d.x), py = f.y.pos(d.y);
        std::vector<Spot> spots;
        for (const auto& [dx, dy] : {std::pair{6.0, 13.0}, {6.0, -6.0}, {-6.0, 13.0}, {-6.0, -6.0}, {0.0, 17.0}, {0.0, -9.0}})
            spots.push_back({px + dx, py + dy, dx > 0 ? "start" : dx < 0 ? "end" : "middle", 0});
        if (const std::optional<Label> l = placer.place(d.label, point_text, spots)) {
            draw_label(svg, *l);
            done.insert(d.record);
        }
    }
    for (const Dot& d : dots) {
        if (d.label.empty() || done.count(d.record) > 0)
            continue;
        if (const std::optional<Label> l = placer.place_with_leader(d.label, point_text, {f.x.pos(d.x), f.y.pos(d.y)}, 5)) {
            draw_label(svg, *l);
            done.insert(d.record);
        }
    }
    left_out += wanted.size() - done.size();
    if (left_out > 0)
        draw_notes(svg, f.x0 - 60, notes_top + static_cast<double>(notes.size()) * kNoteLine,
                   {fmt::format("{} label{} left out where {} would cross a roof or other text", left_out,
                                left_out == 1 ? "" : "s", left_out == 1 ? "it" : "they")});

    draw_legend(svg, kLegendX, kTop, legend, 46);
    draw_notes(svg, f.x0 - 60, notes_top, notes);
    return svg.finish();
}

}  // namespace bwacct::plot
