// Chart labels never cross roof lines (src/report/plot_labels.h): the box-against-segment test on
// hand-computed cases, the text outline, and whole charts read back from their SVG — every label's
// outline against every roof line segment and every other text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../src/report/plot_labels.h"
#include "bwacct/catalog.h"
#include "bwacct/ingest_nccl.h"
#include "bwacct/plot.h"
#include "bwacct/roofline.h"
#include "ingest_test_util.h"

using namespace bwacct;
using plot::Box;
using plot::Point;
using plot::Quad;
using plot::Segment;

namespace {

// ---- Reading the SVG back: texts (with their style), lines and polylines (as segments), plot boxes.

std::string attr(const std::string& tag, const std::string& name) {
    const std::string key = " " + name + "=\"";
    const std::size_t at = tag.find(key);
    if (at == std::string::npos)
        return "";
    const std::size_t from = at + key.size();
    return tag.substr(from, tag.find('"', from) - from);
}

double num(const std::string& tag, const std::string& name) { return std::strtod(attr(tag, name).c_str(), nullptr); }

std::string unescape(std::string s) {
    for (const auto& [entity, c] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}})
        for (std::size_t i = 0; (i = s.find(entity, i)) != std::string::npos; i += c.size())
            s.replace(i, entity.size(), c);
    return s;
}

struct SvgText {
    double x = 0, y = 0;
    std::string text;
    plot::TextStyle style;
    Quad outline() const { return plot::text_outline(x, y, text, style, 0); }
};

struct SvgLine {
    Segment seg;
    double width = 0;
};

struct Drawing {
    std::vector<SvgText> texts;
    std::vector<SvgLine> lines;  // <line> and each piece of a <polyline>
    std::vector<Box> frames;     // the plot boxes (<rect fill="none">)
};

// Every element starting with `open` ("<text"), whole tag up to its '>' and (for text) the content.
Drawing read_svg(const std::string& svg) {
    Drawing d;
    for (std::size_t i = svg.find("<text "); i != std::string::npos; i = svg.find("<text ", i + 1)) {
        const std::size_t close = svg.find('>', i), end = svg.find("</text>", close);
        const std::string tag = svg.substr(i, close - i);
        SvgText t;
        t.x = num(tag, "x"), t.y = num(tag, "y");
        t.text = unescape(svg.substr(close + 1, end - close - 1));
        t.style.size = num(tag, "font-size");
        t.style.anchor = attr(tag, "text-anchor").empty() ? "start" : attr(tag, "text-anchor");
        t.style.bold = attr(tag, "font-weight") == "bold";
        const std::string tr = attr(tag, "transform");
        if (tr.rfind("rotate(", 0) == 0)
            t.style.rotate = std::strtod(tr.c_str() + 7, nullptr);
        d.texts.push_back(t);
    }
    for (std::size_t i = svg.find("<line "); i != std::string::npos; i = svg.find("<line ", i + 1)) {
        const std::string tag = svg.substr(i, svg.find('>', i) - i);
        d.lines.push_back({{{num(tag, "x1"), num(tag, "y1")}, {num(tag, "x2"), num(tag, "y2")}}, num(tag, "stroke-width")});
    }
    for (std::size_t i = svg.find("<polyline "); i != std::string::npos; i = svg.find("<polyline ", i + 1)) {
        const std::string tag = svg.substr(i, svg.find('>', i) - i);
        std::vector<Point> pts;
        const std::string list = attr(tag, "points");
        for (const char* p = list.c_str(); *p != '\0';) {
            char* e = nullptr;
            const double x = std::strtod(p, &e);
            const double y = std::strtod(e + 1, &e);  // skip the comma
            pts.push_back({x, y});
            p = e;
            while (*p == ' ')
                ++p;
        }
        for (std::size_t k = 1; k < pts.size(); ++k)
            d.lines.push_back({{pts[k - 1], pts[k]}, num(tag, "stroke-width")});
    }
    for (std::size_t i = svg.find("<rect "); i != std::string::npos; i = svg.find("<rect ", i + 1)) {
        const std::string tag = svg.substr(i, svg.find('>', i) - i);
        if (attr(tag, "fill") == "none")
            d.frames.push_back(
                {num(tag, "x"), num(tag, "y"), num(tag, "x") + num(tag, "width"), num(tag, "y") + num(tag, "height")});
    }
    return d;
}

bool in_frame(const Drawing& d, Point p) {
    return std::any_of(d.frames.begin(), d.frames.end(),
                       [&](const Box& b) { return p.x >= b.x0 && p.x <= b.x1 && p.y >= b.y0 && p.y <= b.y1; });
}

// Roof lines: lines drawn 1.5 px wide and wider inside a plot box (HBM and compute roofs 2 px,
// calibrated roofs 1.6, link peaks 2, α–β fit 1.5; grid, axes, series and leader lines are thinner).
std::vector<Segment> roof_lines(const Drawing& d) {
    std::vector<Segment> out;
    for (const SvgLine& l : d.lines)
        if (l.width >= 1.5 && in_frame(d, l.seg.a) && in_frame(d, l.seg.b))
            out.push_back(l.seg);
    return out;
}

// The labels: texts anchored inside a plot box.
std::vector<SvgText> labels(const Drawing& d) {
    std::vector<SvgText> out;
    for (const SvgText& t : d.texts)
        if (in_frame(d, {t.x, t.y}))
            out.push_back(t);
    return out;
}

// No label crosses a roof line, and no label overlaps any other text of the chart.
void expect_labels_clear(const std::string& svg) {
    const Drawing d = read_svg(svg);
    const std::vector<Segment> roofs = roof_lines(d);
    const std::vector<SvgText> ls = labels(d);
    ASSERT_FALSE(roofs.empty());
    ASSERT_FALSE(ls.empty());
    for (const SvgText& l : ls) {
        for (const Segment& s : roofs)
            EXPECT_FALSE(plot::intersects(l.outline(), s))
                << "label '" << l.text << "' at (" << l.x << ", " << l.y << ") crosses the line (" << s.a.x << ", " << s.a.y
                << ")–(" << s.b.x << ", " << s.b.y << ")";
        for (const SvgText& o : d.texts) {
            if (o.x == l.x && o.y == l.y && o.text == l.text)
                continue;  // the label itself
            EXPECT_FALSE(plot::intersects(l.outline(), o.outline())) << "label '" << l.text << "' overlaps '" << o.text << "'";
        }
    }
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1))
        ++n;
    return n;
}

const Catalog& catalog() {
    static const Catalog c = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    return c;
}

}  // namespace

// The box (10, 10)–(30, 20) against segments, by hand:
TEST(PlotLabels, BoxAgainstSegmentHandComputed) {
    const Quad q = plot::quad_of({10, 10, 30, 20});
    auto hit = [&](double x1, double y1, double x2, double y2) { return plot::intersects(q, Segment{{x1, y1}, {x2, y2}}); };
    EXPECT_TRUE(hit(0, 15, 40, 15));   // straight through, left to right
    EXPECT_TRUE(hit(15, 0, 15, 40));   // straight through, top to bottom
    EXPECT_TRUE(hit(15, 12, 20, 18));  // wholly inside
    EXPECT_TRUE(hit(15, 15, 15, 15));  // a point inside
    EXPECT_TRUE(hit(25, 15, 60, 15));  // one end inside
    // y = x from (0, 0) to (40, 40): at x = 15, y = 15 is inside.
    EXPECT_TRUE(hit(0, 0, 40, 40));
    // x + y = 25 from (0, 25) to (25, 0): at x = 10, y = 15 is inside.
    EXPECT_TRUE(hit(0, 25, 25, 0));
    EXPECT_FALSE(hit(0, 15, 10, 15));      // ends on the left edge: touches, does not cross
    EXPECT_FALSE(hit(0, 20, 40, 20));      // along the bottom edge
    EXPECT_FALSE(hit(0, 20.5, 40, 20.5));  // half a pixel below
    EXPECT_FALSE(hit(50, 0, 50, 40));      // to the right
    EXPECT_FALSE(hit(0, 40, 5, 5));        // left of the box, wholly
    // 2x + y = 20 from (0, 20) to (10, 0): the nearest corner (10, 10) gives 2·10 + 10 = 30 > 20.
    EXPECT_FALSE(hit(0, 20, 10, 0));
    // Past the corner (30, 10): from (25, 0) to (35, 12) the line is at x = 25 + 10·10/12 = 33.3 when
    // y = 10, right of the corner, though the segment's bounding box (25..35, 0..12) overlaps the box.
    EXPECT_FALSE(hit(25, 0, 35, 12));
    // The same, 5 px to the left: at y = 10, x = 28.3, inside the box's 10..30.
    EXPECT_TRUE(hit(20, 0, 30, 12));
}

// Outlines against outlines, one turned: the diamond |x| + |y| ≤ 10 against axis-aligned boxes.
TEST(PlotLabels, OutlineAgainstOutlineHandComputed) {
    const Quad diamond{{Point{10, 0}, Point{0, 10}, Point{-10, 0}, Point{0, -10}}};
    // Box (6, 6)–(16, 16): its corner nearest the diamond, (6, 6), has x + y = 12 > 10; apart, though
    // the bounding boxes (−10..10 and 6..16) overlap.
    EXPECT_FALSE(plot::intersects(diamond, plot::quad_of({6, 6, 16, 16})));
    // Box (4, 4)–(14, 14): (4, 4) has x + y = 8 < 10, inside the diamond.
    EXPECT_TRUE(plot::intersects(diamond, plot::quad_of({4, 4, 14, 14})));
    // Side by side, sharing the edge x = 10: touching only.
    EXPECT_FALSE(plot::intersects(plot::quad_of({0, 0, 10, 10}), plot::quad_of({10, 0, 20, 10})));
    EXPECT_TRUE(plot::intersects(plot::quad_of({0, 0, 10, 10}), plot::quad_of({9, 9, 20, 20})));
    EXPECT_TRUE(plot::inside(plot::quad_of({1, 1, 2, 2}), {0, 0, 10, 10}));
    EXPECT_FALSE(plot::inside(diamond, {0, 0, 10, 10}));
}

// Widths in em (plot_labels.h): "h200" = h, 2, 0, 0 = 4 × 0.65 = 2.6 em = 26 px at 10 px;
// "TFLOP/s" = 5 capitals × 0.8 + "/" 0.42 + "s" 0.65 = 5.07 em; "m=1" = 1 + 1 + 0.65 = 2.65 em;
// "µs" = 0.7 + 0.65 = 1.35 em; bold × 1.1.
TEST(PlotLabels, TextWidthAndOutlineHandComputed) {
    EXPECT_NEAR(plot::text_width("h200", 10), 26, 1e-9);
    EXPECT_NEAR(plot::text_width("TFLOP/s", 10), 50.7, 1e-9);
    EXPECT_NEAR(plot::text_width("m=1", 10), 26.5, 1e-9);
    EXPECT_NEAR(plot::text_width("µs", 10), 13.5, 1e-9);
    EXPECT_NEAR(plot::text_width("h200", 10, true), 28.6, 1e-9);
    // "h200" at (100, 50), 10 px, anchored at its end: x 100 − 26 = 74 to 100; y 50 − 8 = 42 (ascent
    // 0.8 em) to 50 + 2.5 = 52.5 (descent 0.25 em); with pad 1 each side grows by 1.
    plot::TextStyle st{10, "end", "#222", false, 0};
    Quad q = plot::text_outline(100, 50, "h200", st, 1);
    EXPECT_NEAR(q.c[0].x, 73, 1e-9);
    EXPECT_NEAR(q.c[0].y, 41, 1e-9);
    EXPECT_NEAR(q.c[2].x, 101, 1e-9);
    EXPECT_NEAR(q.c[2].y, 53.5, 1e-9);
    st.anchor = "middle";
    q = plot::text_outline(100, 50, "h200", st, 0);
    EXPECT_NEAR(q.c[0].x, 87, 1e-9);
    EXPECT_NEAR(q.c[1].x, 113, 1e-9);
    // Turned 90° (SVG rotate: clockwise on screen), anchored at its start: the text runs downward from
    // (100, 50); local (x, y) goes to (100 − y, 50 + x): the top-left (0, −8) to (108, 50), the
    // top-right (26, −8) to (108, 76), the bottom-right (26, 2.5) to (97.5, 76).
    st.anchor = "start";
    st.rotate = 90;
    q = plot::text_outline(100, 50, "h200", st, 0);
    EXPECT_NEAR(q.c[0].x, 108, 1e-9);
    EXPECT_NEAR(q.c[0].y, 50, 1e-9);
    EXPECT_NEAR(q.c[1].x, 108, 1e-9);
    EXPECT_NEAR(q.c[1].y, 76, 1e-9);
    EXPECT_NEAR(q.c[2].x, 97.5, 1e-9);
    EXPECT_NEAR(q.c[2].y, 76, 1e-9);
}

// The placer takes the first free spot, else a leader, and never a spot across a line.
TEST(PlotLabels, PlacerSkipsSpotsAcrossLines) {
    plot::LabelPlacer p({0, 0, 200, 100});
    p.add_line(0, 50, 200, 50);
    const plot::TextStyle st{10, "start", "#222", false, 0};
    // Baseline 52 on the line y = 50: the outline (52 − 8 − 1.5 = 42.5 .. 52 + 2.5 + 1.5 = 56) crosses
    // it; baseline 64 (54.5 .. 68) is clear below it.
    const auto l = p.place("h200", st, {{10, 52, "start", 0}, {10, 64, "start", 0}});
    ASSERT_TRUE(l);
    EXPECT_EQ(l->y, 64.0);
    EXPECT_FALSE(l->leader);
    // The same spot again is taken by the first label now; the only spot is across the line: a leader.
    EXPECT_FALSE(p.place("h200", st, {{10, 64, "start", 0}, {10, 52, "start", 0}}));
    const auto led = p.place_with_leader("h200", st, {100, 50}, 3);
    ASSERT_TRUE(led);
    ASSERT_TRUE(led->leader);
    EXPECT_FALSE(plot::intersects(plot::text_outline(led->x, led->y, led->text, led->style, 0), Segment{{0, 50}, {200, 50}}));
}

// Roofline for h200 and b200 with bf16 and fp8 GEMM-like records around every ridge:
//   ridges (peak·1000/HBM): h200 bf16 989.4·1000/4800 = 206, fp8 1978.9·1000/4800 = 412;
//   b200 bf16 2250·1000/8000 = 281, fp8 4500·1000/8000 = 562 FLOP/B.
// The h200 fp8 roof (1978.9) and the b200 bf16 roof (2250) are log10(2250/1978.9) = 0.056 decades
// apart, about 8 px: the old layout pushed the second label 13 px under the first, onto its own line.
// Intensities 100 × 1.25^k (k = 0..11: 100 .. 1164 FLOP/B); odd k modelled (on the roofs), even k
// given a time that puts them at 97 % of h200's attainable TFLOP/s, just under its roofs.
TEST(PlotLabels, RooflineTwoGpusNoLabelCrossesARoof) {
    const GpuSpec& h200 = catalog().get("h200", "--gpu");
    const GpuSpec& b200 = catalog().get("b200", "--gpu");
    std::vector<Record> rs;
    std::uint64_t m = 0;
    for (DType dt : {DType::bf16, DType::fp8_e4m3}) {
        double intensity = 100;
        for (int k = 0; k < 12; ++k, intensity *= 1.25) {
            Record r;
            r.cost.op = "gemm";
            r.cost.compute_dtype = dt;
            r.cost.bytes_read = 1'000'000'000;
            r.cost.flops = static_cast<std::uint64_t>(intensity * 1e9);
            r.params.push_back({"m", ++m});
            AnalysisOptions ao;
            if (k % 2 == 0) {
                const double peak = dt == DType::bf16 ? 989.4 : 1978.9;
                const double attainable_tflops = std::min(peak, intensity * 4800 / 1000);
                ao.time_us = static_cast<double>(r.cost.flops) / (0.97 * attainable_tflops * 1e12) * 1e6;
            }
            r.source = ao.time_us ? TimeSource::given : TimeSource::modelled;
            r.verdicts.push_back(analyze(r.cost, h200, ao));
            r.verdicts.push_back(analyze(r.cost, b200, ao));
            rs.push_back(r);
        }
    }
    const std::string svg = plot_svg(rs, {&h200, &b200}, {"two GPUs near the ridge", {}});
    // Every roof is labelled: two HBM slopes, four compute roofs.
    EXPECT_EQ(count(svg, ">h200 HBM 4800 GB/s<"), 1u) << svg;
    EXPECT_EQ(count(svg, ">b200 HBM 8000 GB/s<"), 1u) << svg;
    EXPECT_EQ(count(svg, ">h200 tensor bf16 dense "), 1u) << svg;
    EXPECT_EQ(count(svg, ">h200 tensor fp8 dense "), 1u) << svg;
    EXPECT_EQ(count(svg, ">b200 tensor bf16 dense "), 1u) << svg;
    EXPECT_EQ(count(svg, ">b200 tensor fp8 dense "), 1u) << svg;
    expect_labels_clear(svg);
}

// Two GPUs with the same compute peak (h100-sxm and h200: bf16 989.4 TFLOP/s) draw one roof over
// the other; their labels go above and below it, neither across it.
TEST(PlotLabels, RooflineEqualRoofsLabelledOffTheLine) {
    const GpuSpec& h100 = catalog().get("h100-sxm", "--gpu");
    const GpuSpec& h200 = catalog().get("h200", "--gpu");
    std::vector<Record> rs;
    for (std::uint64_t m = 1; m <= 8; ++m) {
        Record r;
        r.cost.op = "gemm";
        r.cost.bytes_read = 1'000'000'000;
        r.cost.flops = m * 100'000'000'000;  // 100 .. 800 FLOP/B
        r.params.push_back({"m", m});
        r.verdicts.push_back(analyze(r.cost, h100, {}));
        r.verdicts.push_back(analyze(r.cost, h200, {}));
        rs.push_back(r);
    }
    const std::string svg = plot_svg(rs, {&h100, &h200}, {"equal roofs", {}});
    EXPECT_EQ(count(svg, ">h100-sxm tensor bf16 dense "), 1u) << svg;
    EXPECT_EQ(count(svg, ">h200 tensor bf16 dense "), 1u) << svg;
    expect_labels_clear(svg);
}

// The collective chart of a real log (8 × H100, all_reduce_perf) on h100-sxm and h200: both links are
// 450 GB/s per direction, so the two link-peak lines coincide; the old layout put the second label
// 13 px below the first one's baseline, across both lines. The α–β fit is a roof line too.
TEST(PlotLabels, CollectiveChartOfARealLogNoLabelCrossesALine) {
    const GpuSpec& h100 = catalog().get("h100-sxm", "--gpu");
    const GpuSpec& h200 = catalog().get("h200", "--gpu");
    const std::string file = "nccl/nccl_allreduce_h100_1node8gpu_bitdeer.txt";
    const NcclLog log = parse_nccl_tests(bwacct_test::fixture(file), file);
    NcclAccountingInput in;
    in.file_kind = collective_from_name(file);
    const IngestReport r = account_nccl(log, file, in, {&h100, &h200});
    ASSERT_GE(r.records.size(), 2u);
    const std::string svg = plot_svg(r.records, {&h100, &h200}, {"nccl-tests", {}});
    EXPECT_NE(svg.find("bwacct collective sweep"), std::string::npos);
    EXPECT_EQ(count(svg, ">h100-sxm NVLink"), 1u) << svg;
    EXPECT_EQ(count(svg, ">h200 NVLink"), 1u) << svg;
    EXPECT_NE(svg.find(R"(stroke-dasharray="7 4")"), std::string::npos);  // the fit is drawn
    expect_labels_clear(svg);
}
