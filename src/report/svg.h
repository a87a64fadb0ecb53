// A tiny SVG writer and the log-scale axis the charts share (internal to src/report/plot_*.cpp).
// Every number is printed with a fixed precision, so the same input gives the same bytes.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bwacct::plot {

// & < > " ' as entities, so labels taken from file names or parameters cannot break the document.
std::string xml_escape(std::string_view s);
// A coordinate with one decimal ("12.5"; never "-0.0").
std::string coord(double v);

struct TextStyle {
    double size = 12;
    std::string anchor = "start";  // start, middle, end
    std::string fill = "#222";
    bool bold = false;
    double rotate = 0;  // degrees, about the anchor point
};

struct Stroke {
    std::string color = "#222";
    double width = 1;
    std::string dash;  // stroke-dasharray, empty = solid
};

class Svg {
public:
    Svg(double width, double height);
    void rect(double x, double y, double w, double h, const std::string& fill, const Stroke* stroke = nullptr);
    void line(double x1, double y1, double x2, double y2, const Stroke& s);
    void polyline(const std::vector<std::pair<double, double>>& points, const Stroke& s);
    // Markers: circle, square, diamond, triangle; `fill` "none" draws it hollow.
    void marker(std::string_view shape, double x, double y, double r, const std::string& fill, const std::string& stroke);
    void text(double x, double y, std::string_view s, const TextStyle& st);
    void comment(std::string_view s);
    std::string finish() const;  // the whole document

private:
    double width_, height_;
    std::string body_;
};

// A log10 axis over [10^lo, 10^hi] drawn from pixel p0 (at 10^lo) to pixel p1 (at 10^hi).
struct LogAxis {
    double lo = 0, hi = 1;
    double p0 = 0, p1 = 100;
    double pos(double v) const;  // pixel of v (> 0)
    double value_at(double pixel) const;
    double min() const;
    double max() const;
};

// Whole decades around [vmin, vmax] with a little room on both sides, at least `min_decades` wide.
LogAxis decade_axis(double vmin, double vmax, double p0, double p1, int min_decades);
// Powers of two around [vmin, vmax] (byte sizes): the ends fall on powers of two.
LogAxis binary_axis(double vmin, double vmax, double p0, double p1);

struct Tick {
    double value = 0;
    std::string label;  // empty: a minor tick
};
// 1, 10, 100, ... labelled; 2..9 × 10^k as minor ticks.
std::vector<Tick> decade_ticks(const LogAxis& a);
// Powers of two labelled as IEC sizes (1 KiB, 1 MiB, ...), at most about 8 labels; the rest minor.
std::vector<Tick> size_ticks(const LogAxis& a);

// "0.01", "1", "10", "1k", "10k", "1M", ... for 10^e.
std::string decade_label(int e);
// 2^k bytes: "512 B", "1 KiB", "64 MiB", "2 GiB".
std::string iec_label(int k);
// A figure for a label: 3 significant digits, no exponent for 0.001 ≤ |v| < 1e7 ("989", "4800", "0.25").
std::string short_number(double v);

// The plot area of one panel and its two axes.
struct Frame {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // left, top, right, bottom (pixels)
    LogAxis x, y;
    std::vector<Tick> x_ticks, y_ticks;
    std::string x_label, y_label;
};
// Grid lines at the labelled ticks, the box, tick marks, tick labels and the axis labels.
void draw_frame(Svg& svg, const Frame& f);

// Colours for GPUs / series: readable on white, distinct from each other.
const std::string& palette(std::size_t i);

}  // namespace bwacct::plot
