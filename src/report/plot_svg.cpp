// The SVG writer and log axes of svg.h.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "human.h"
#include "svg.h"

namespace bwacct::plot {

std::string xml_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                // Control characters are not allowed in XML 1.0: show them as a space.
                out += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? ' ' : c;
        }
    }
    return out;
}

std::string coord(double v) {
    std::string s = fmt::format("{:.1f}", v);
    return s == "-0.0" ? "0.0" : s;
}

namespace {

std::string stroke_attrs(const Stroke& s) {
    std::string a = fmt::format(R"( stroke="{}" stroke-width="{}")", s.color, coord(s.width));
    if (!s.dash.empty())
        a += fmt::format(R"( stroke-dasharray="{}")", s.dash);
    return a;
}

}  // namespace

Svg::Svg(double width, double height) : width_(width), height_(height) {}

void Svg::rect(double x, double y, double w, double h, const std::string& fill, const Stroke* stroke) {
    body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}/>)", coord(x), coord(y), coord(w), coord(h),
                         fill, stroke ? stroke_attrs(*stroke) : std::string());
    body_ += '\n';
}

void Svg::line(double x1, double y1, double x2, double y2, const Stroke& s) {
    body_ +=
        fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}"{}/>)", coord(x1), coord(y1), coord(x2), coord(y2), stroke_attrs(s));
    body_ += '\n';
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, const Stroke& s) {
    if (points.size() < 2)
        return;
    std::string pts;
    for (const auto& [x, y] : points) {
        if (!pts.empty())
            pts += ' ';
        pts += coord(x);
        pts += ',';
        pts += coord(y);
    }
    body_ += fmt::format(R"(<polyline points="{}" fill="none"{} stroke-linejoin="round"/>)", pts, stroke_attrs(s));
    body_ += '\n';
}

void Svg::marker(std::string_view shape, double x, double y, double r, const std::string& fill, const std::string& stroke) {
    const std::string paint = fmt::format(R"(fill="{}" stroke="{}" stroke-width="1.2")", fill, stroke);
    if (shape == "square") {
        body_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" {}/>)", coord(x - r), coord(y - r), coord(2 * r),
                             coord(2 * r), paint);
    } else if (shape == "diamond") {
        const double d = r * 1.3;
        body_ += fmt::format(R"(<polygon points="{},{} {},{} {},{} {},{}" {}/>)", coord(x), coord(y - d), coord(x + d), coord(y),
                             coord(x), coord(y + d), coord(x - d), coord(y), paint);
    } else if (shape == "triangle") {
        const double d = r * 1.3;
        body_ += fmt::format(R"(<polygon points="{},{} {},{} {},{}" {}/>)", coord(x), coord(y - d), coord(x + d),
                             coord(y + d * 0.75), coord(x - d), coord(y + d * 0.75), paint);
    } else {
        body_ += fmt::format(R"(<circle cx="{}" cy="{}" r="{}" {}/>)", coord(x), coord(y), coord(r), paint);
    }
    body_ += '\n';
}

void Svg::text(double x, double y, std::string_view s, const TextStyle& st) {
    std::string attrs = fmt::format(R"(x="{}" y="{}" font-size="{}" fill="{}")", coord(x), coord(y), coord(st.size), st.fill);
    if (st.anchor != "start")
        attrs += fmt::format(R"( text-anchor="{}")", st.anchor);
    if (st.bold)
        attrs += R"( font-weight="bold")";
    if (st.rotate != 0)
        attrs += fmt::format(" transform=\"rotate({} {} {})\"", coord(st.rotate), coord(x), coord(y));
    body_ += fmt::format("<text {}>{}</text>\n", attrs, xml_escape(s));
}

void Svg::comment(std::string_view s) {
    std::string safe = xml_escape(s);
    for (std::size_t i = 0; (i = safe.find("--", i)) != std::string::npos;)
        safe.replace(i, 2, "- ");
    body_ += fmt::format("<!-- {} -->\n", safe);
}

std::string Svg::finish() const {
    std::string out = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n",
        coord(width_), coord(height_));
    out += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>)", coord(width_), coord(height_));
    out += '\n';
    out += body_;
    out += "</svg>\n";
    return out;
}

// ---------------------------------------------------------------------------------------------

double LogAxis::pos(double v) const { return p0 + (std::log10(v) - lo) / (hi - lo) * (p1 - p0); }
double LogAxis::value_at(double pixel) const { return std::pow(10.0, lo + (pixel - p0) / (p1 - p0) * (hi - lo)); }
double LogAxis::min() const { return std::pow(10.0, lo); }
double LogAxis::max() const { return std::pow(10.0, hi); }

LogAxis decade_axis(double vmin, double vmax, double p0, double p1, int min_decades) {
    // Room: a point within 20 % of a decade line is pushed one decade inward.
    double lo = std::floor(std::log10(vmin / 1.25));
    double hi = std::ceil(std::log10(vmax * 1.25));
    while (hi - lo < min_decades) {
        hi += 1;
        if (hi - lo < min_decades)
            lo -= 1;
    }
    return {lo, hi, p0, p1};
}

LogAxis binary_axis(double vmin, double vmax, double p0, double p1) {
    double lo2 = std::floor(std::log2(vmin));
    double hi2 = std::ceil(std::log2(vmax));
    if (hi2 <= lo2)
        hi2 = lo2 + 1;
    // One step of room on each side, so the first and last points sit inside the box.
    lo2 -= 1;
    hi2 += 1;
    const double k = std::log10(2.0);
    return {lo2 * k, hi2 * k, p0, p1};
}

std::vector<Tick> decade_ticks(const LogAxis& a) {
    std::vector<Tick> out;
    const int lo = static_cast<int>(std::lround(a.lo)), hi = static_cast<int>(std::lround(a.hi));
    for (int e = lo; e <= hi; ++e) {
        const double base = std::pow(10.0, e);
        out.push_back({base, decade_label(e)});
        if (e < hi)
            for (int m = 2; m <= 9; ++m)
                out.push_back({base * m, ""});
    }
    return out;
}

std::vector<Tick> size_ticks(const LogAxis& a) {
    const double k = std::log10(2.0);
    const int lo = static_cast<int>(std::lround(a.lo / k)), hi = static_cast<int>(std::lround(a.hi / k));
    // A label every `step` powers of two: 1, 2, 5 or 10 (×1024), so 1 KiB, 1 MiB, 1 GiB are among them; at most 8 labels.
    int step = 1;
    for (int s : {1, 2, 5, 10, 20}) {
        step = s;
        if ((hi - lo) / s + 1 <= 8)
            break;
    }
    std::vector<Tick> out;
    for (int p = lo; p <= hi; ++p) {
        // Labels on multiples of the step (so 1 KiB, 1 MiB, 1 GiB appear whenever step divides 10).
        const bool major = ((p % step) + step) % step == 0;
        out.push_back({std::pow(2.0, p), major ? iec_label(p) : std::string()});
    }
    return out;
}

std::string decade_label(int e) {
    static constexpr std::array<const char*, 12> kNames{"1",  "10",  "100",  "1k", "10k", "100k",
                                                        "1M", "10M", "100M", "1G", "10G", "100G"};
    static constexpr std::array<const char*, 4> kSmall{"0.1", "0.01", "0.001", "0.0001"};
    if (e >= 0 && e < 12)
        return kNames[static_cast<std::size_t>(e)];
    if (e < 0 && e >= -4)
        return kSmall[static_cast<std::size_t>(-e - 1)];
    return fmt::format("1e{}", e);
}

std::string iec_label(int k) {
    static constexpr std::array<const char*, 7> kUnit{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (k < 0)
        return fmt::format("2^{} B", k);
    const int u = std::min(k / 10, 6);
    return fmt::format("{} {}", std::uint64_t{1} << (k - 10 * u), kUnit[static_cast<std::size_t>(u)]);
}

std::string short_number(double v) {
    const double a = std::fabs(v);
    if (a == 0)
        return "0";
    if (a < 0.001 || a >= 1e7)
        return fmt::format("{:.2e}", v);
    return detail::fixed_trimmed(v, detail::significant_decimals(a, 3));
}

void draw_frame(Svg& svg, const Frame& f) {
    const Stroke grid{"#e6e6e6", 1, ""};
    const Stroke axis{"#444", 1, ""};
    const TextStyle tick_text{11, "middle", "#333", false, 0};
    for (const Tick& t : f.x_ticks) {
        if (t.value < f.x.min() * 0.999 || t.value > f.x.max() * 1.001)
            continue;
        const double x = f.x.pos(t.value);
        if (!t.label.empty()) {
            svg.line(x, f.y0, x, f.y1, grid);
            svg.line(x, f.y1, x, f.y1 + 6, axis);
            svg.text(x, f.y1 + 20, t.label, tick_text);
        } else {
            svg.line(x, f.y1, x, f.y1 + 3, axis);
        }
    }
    TextStyle ylab = tick_text;
    ylab.anchor = "end";
    for (const Tick& t : f.y_ticks) {
        if (t.value < f.y.min() * 0.999 || t.value > f.y.max() * 1.001)
            continue;
        const double y = f.y.pos(t.value);
        if (!t.label.empty()) {
            svg.line(f.x0, y, f.x1, y, grid);
            svg.line(f.x0 - 6, y, f.x0, y, axis);
            svg.text(f.x0 - 9, y + 4, t.label, ylab);
        } else {
            svg.line(f.x0 - 3, y, f.x0, y, axis);
        }
    }
    const Stroke box{"#444", 1.2, ""};
    svg.rect(f.x0, f.y0, f.x1 - f.x0, f.y1 - f.y0, "none", &box);
    svg.text((f.x0 + f.x1) / 2, f.y1 + 42, f.x_label, {13, "middle", "#222", false, 0});
    svg.text(f.x0 - 52, (f.y0 + f.y1) / 2, f.y_label, {13, "middle", "#222", false, -90});
}

const std::string& palette(std::size_t i) {
    static const std::array<std::string, 8> kColors{"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                                    "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    return kColors[i % kColors.size()];
}

}  // namespace bwacct::plot
