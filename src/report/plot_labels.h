// Label placement for the charts (internal to src/report/plot_*.cpp): every label's outline is
// estimated from its text and font size, tested against every line segment drawn and every label
// already placed, and the label goes to the first of its candidate spots where it crosses nothing,
// else (when the caller asks) to a free spot nearby with a thin leader line back to what it names,
// else it is left out (the chart says how many).
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "svg.h"

namespace bwacct::plot {

struct Point {
    double x = 0, y = 0;
};

struct Segment {
    Point a, b;
};

// A rectangle, possibly turned: its four corners in order around it (pixels, y downward).
struct Quad {
    std::array<Point, 4> c;
};

// An axis-aligned box: left, top, right, bottom.
struct Box {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

Quad quad_of(const Box& b);

// Whether two convex outlines share an inner point (separating-axis test on the edge normals of both:
// shapes that only touch along an edge or at a corner do not intersect). A segment is the outline of
// two points.
bool intersects(const Quad& q, const Segment& s);
bool intersects(const Quad& a, const Quad& b);
// Whether every corner of `q` lies within `b` (edges included).
bool inside(const Quad& q, const Box& b);

// The advance of `s` in pixels at `size` px, from per-character widths of DejaVu Sans (the charts'
// first font) rounded up to classes, in em: narrow (space i j l I f t r . , : ; ' ! | / ( ) [ ] -)
// 0.42; wide (m w M W % @ # & ^ ~ = + < > × — …) 1.0; other capitals 0.8; other ASCII (lower case,
// digits) 0.65; µ α β · 0.7; any other character 1.0. Bold adds 10 %. Wider than the real glyphs, so
// an outline built on it holds the ink in DejaVu Sans and in the narrower fallbacks (Helvetica, Arial).
double text_width(std::string_view s, double size, bool bold = false);
// Above the baseline a line of text reaches 0.8 em (ascenders, capitals), below it 0.25 em (descenders).
inline constexpr double kAscent = 0.8, kDescent = 0.25;
// The outline of `s` drawn by Svg::text at (x, y) in style `st`: the text's width (anchored start,
// middle or end at x) by ascent + descent about the baseline y, grown by `pad` on every side, turned
// by st.rotate degrees about (x, y) as SVG's rotate() does.
Quad text_outline(double x, double y, std::string_view s, const TextStyle& st, double pad = 0);

// A label ready to draw: the text, where and how, and its leader line when it stands off.
struct Label {
    double x = 0, y = 0;
    std::string text;
    TextStyle style;
    std::optional<Segment> leader;
};

// Where a label may go: the anchor point of its text, the text-anchor and the rotation.
struct Spot {
    double x = 0, y = 0;
    std::string anchor = "start";
    double rotate = 0;
};

class LabelPlacer {
public:
    // Labels stay inside `area` (a chart's plot box).
    explicit LabelPlacer(const Box& area) : area_(area) {}

    // Lines drawn on the chart: no label may cross them.
    void add_line(double x1, double y1, double x2, double y2);
    void add_polyline(const std::vector<std::pair<double, double>>& points);
    // Text or marks drawn elsewhere that labels must not cover.
    void reserve(const Quad& q);

    // Whether `q` lies inside the area, off every line and every reserved outline.
    bool free(const Quad& q) const;

    // The first spot where `text` in `style` (its anchor and rotation taken from the spot) is free;
    // its outline (grown by kPad) is reserved. nullopt when no spot is free.
    std::optional<Label> place(const std::string& text, const TextStyle& style, const std::vector<Spot>& spots);

    // When no spot near `target` is free: horizontal, centred spots on rings around it (8 directions,
    // 18 to 78 px away), each with a leader line from `target` (`clear` px out, off its marker) to the
    // nearest point of the label. A spot counts when its label is free and its leader crosses no other
    // label; spots whose leader crosses no line either are preferred. The leader becomes a line later
    // labels avoid.
    std::optional<Label> place_with_leader(const std::string& text, const TextStyle& style, Point target, double clear);

    static constexpr double kPad = 1.5;  // room kept around each label

private:
    bool crosses_label(const Segment& s) const;
    bool crosses_line(const Segment& s) const;

    Box area_;
    std::vector<Segment> lines_;
    std::vector<Quad> taken_;
};

// Draws a placed label (and its leader line, thin and grey).
void draw_label(Svg& svg, const Label& l);

}  // namespace bwacct::plot
