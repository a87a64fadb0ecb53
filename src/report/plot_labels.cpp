// Label outlines, the separating-axis test, and the placer of plot_labels.h.
#include "plot_labels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string_view>

namespace bwacct::plot {

namespace {

constexpr double kEps = 1e-9;
constexpr double kPi = 3.14159265358979323846;

// The extent of `pts` projected on `axis`.
std::pair<double, double> project(Point axis, std::span<const Point> pts) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const Point& p : pts) {
        const double d = p.x * axis.x + p.y * axis.y;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
    return {lo, hi};
}

// Convex outlines (corners in order; two points: a segment) intersect when no edge normal of either
// separates their projections; projections that only meet at one value are separated (touching).
bool convex_overlap(std::span<const Point> a, std::span<const Point> b) {
    for (std::span<const Point> poly : {a, b}) {
        const std::size_t n = poly.size();
        const std::size_t edges = n == 2 ? 1 : n;
        for (std::size_t i = 0; i < edges; ++i) {
            const Point& p = poly[i];
            const Point& q = poly[(i + 1) % n];
            const double len = std::hypot(q.x - p.x, q.y - p.y);
            if (len <= 0)
                continue;
            const Point axis{-(q.y - p.y) / len, (q.x - p.x) / len};
            const auto [alo, ahi] = project(axis, a);
            const auto [blo, bhi] = project(axis, b);
            if (ahi <= blo + kEps || bhi <= alo + kEps)
                return false;
        }
    }
    return true;
}

// Decodes one UTF-8 code point at s[i], advancing i (a stray byte counts as one character).
char32_t next_code_point(std::string_view s, std::size_t& i) {
    const auto b = static_cast<unsigned char>(s[i++]);
    if (b < 0x80)
        return b;
    const int more = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
    auto c = static_cast<char32_t>(b & (0x3F >> more));
    for (int k = 0; k < more && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; ++k)
        c = (c << 6) | static_cast<char32_t>(static_cast<unsigned char>(s[i++]) & 0x3F);
    return c;
}

double char_em(char32_t c) {
    if (c < 0x80) {
        const std::string_view narrow = " ijlIftr.,:;'!|/()[]-";
        const std::string_view wide = "mwMW%@#&^~=+<>";
        const char ch = static_cast<char>(c);
        if (narrow.find(ch) != std::string_view::npos)
            return 0.42;
        if (wide.find(ch) != std::string_view::npos)
            return 1.0;
        if (ch >= 'A' && ch <= 'Z')
            return 0.8;
        return 0.65;
    }
    switch (c) {
        case 0x00B5:  // µ micro sign
        case 0x03BC:  // μ
        case 0x03B1:  // α
        case 0x03B2:  // β
        case 0x00B7:  // ·
            return 0.7;
        default:
            return 1.0;
    }
}

}  // namespace

Quad quad_of(const Box& b) { return {{Point{b.x0, b.y0}, Point{b.x1, b.y0}, Point{b.x1, b.y1}, Point{b.x0, b.y1}}}; }

bool intersects(const Quad& q, const Segment& s) {
    const std::array<Point, 2> seg{s.a, s.b};
    return convex_overlap(q.c, seg);
}

bool intersects(const Quad& a, const Quad& b) { return convex_overlap(a.c, b.c); }

bool inside(const Quad& q, const Box& b) {
    return std::all_of(q.c.begin(), q.c.end(), [&](const Point& p) {
        return p.x >= b.x0 - kEps && p.x <= b.x1 + kEps && p.y >= b.y0 - kEps && p.y <= b.y1 + kEps;
    });
}

double text_width(std::string_view s, double size, bool bold) {
    double em = 0;
    for (std::size_t i = 0; i < s.size();)
        em += char_em(next_code_point(s, i));
    return em * size * (bold ? 1.1 : 1.0);
}

Quad text_outline(double x, double y, std::string_view s, const TextStyle& st, double pad) {
    const double w = text_width(s, st.size, st.bold);
    const double left = st.anchor == "middle" ? -w / 2 : st.anchor == "end" ? -w : 0;
    const double l = left - pad, r = left + w + pad, t = -kAscent * st.size - pad, b = kDescent * st.size + pad;
    const double a = st.rotate * kPi / 180, cs = std::cos(a), sn = std::sin(a);
    auto turn = [&](double lx, double ly) { return Point{x + lx * cs - ly * sn, y + lx * sn + ly * cs}; };
    return {{turn(l, t), turn(r, t), turn(r, b), turn(l, b)}};
}

void LabelPlacer::add_line(double x1, double y1, double x2, double y2) { lines_.push_back({{x1, y1}, {x2, y2}}); }

void LabelPlacer::add_polyline(const std::vector<std::pair<double, double>>& points) {
    for (std::size_t i = 1; i < points.size(); ++i)
        add_line(points[i - 1].first, points[i - 1].second, points[i].first, points[i].second);
}

void LabelPlacer::reserve(const Quad& q) { taken_.push_back(q); }

bool LabelPlacer::free(const Quad& q) const {
    if (!inside(q, area_))
        return false;
    if (std::any_of(lines_.begin(), lines_.end(), [&](const Segment& s) { return intersects(q, s); }))
        return false;
    return std::none_of(taken_.begin(), taken_.end(), [&](const Quad& o) { return intersects(q, o); });
}

bool LabelPlacer::crosses_label(const Segment& s) const {
    return std::any_of(taken_.begin(), taken_.end(), [&](const Quad& q) { return intersects(q, s); });
}

bool LabelPlacer::crosses_line(const Segment& s) const {
    // Two segments cross when each one's ends lie on opposite sides of the other (strictly).
    auto side = [](const Segment& g, const Point& p) {
        return (g.b.x - g.a.x) * (p.y - g.a.y) - (g.b.y - g.a.y) * (p.x - g.a.x);
    };
    return std::any_of(lines_.begin(), lines_.end(),
                       [&](const Segment& o) { return side(o, s.a) * side(o, s.b) < 0 && side(s, o.a) * side(s, o.b) < 0; });
}

std::optional<Label> LabelPlacer::place(const std::string& text, const TextStyle& style, const std::vector<Spot>& spots) {
    for (const Spot& sp : spots) {
        TextStyle st = style;
        st.anchor = sp.anchor;
        st.rotate = sp.rotate;
        const Quad q = text_outline(sp.x, sp.y, text, st, kPad);
        if (!free(q))
            continue;
        taken_.push_back(q);
        return Label{sp.x, sp.y, text, st, std::nullopt};
    }
    return std::nullopt;
}

std::optional<Label> LabelPlacer::place_with_leader(const std::string& text, const TextStyle& style, Point target, double clear) {
    TextStyle st = style;
    st.anchor = "middle";
    st.rotate = 0;
    const double w = text_width(text, st.size, st.bold), h = (kAscent + kDescent) * st.size;
    constexpr double kDiag = 0.70710678118654752;
    static constexpr std::array<Point, 8> kDirections{
        Point{kDiag, kDiag}, {kDiag, -kDiag}, {-kDiag, kDiag}, {-kDiag, -kDiag}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    auto sign = [](double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; };
    std::optional<std::pair<Label, Quad>> crossing;  // the first spot whose leader crosses a line
    for (const double d : {18.0, 30.0, 44.0, 60.0, 78.0}) {
        for (const Point& dir : kDirections) {
            // The label's near corner (or side) d px from the target along the direction.
            const double cx = target.x + dir.x * d + sign(dir.x) * w / 2;
            const double cy = target.y + dir.y * d + sign(dir.y) * h / 2;
            const double baseline = cy + h / 2 - kDescent * st.size;
            const Quad q = text_outline(cx, baseline, text, st, kPad);
            if (!free(q))
                continue;
            // The leader: from `clear` px off the target to the nearest point of the text's box.
            const Point near{std::clamp(target.x, cx - w / 2, cx + w / 2), std::clamp(target.y, cy - h / 2, cy + h / 2)};
            const double len = std::hypot(near.x - target.x, near.y - target.y);
            if (len <= clear)
                continue;
            const Segment leader{{target.x + (near.x - target.x) / len * clear, target.y + (near.y - target.y) / len * clear},
                                 near};
            if (crosses_label(leader))
                continue;
            Label l{cx, baseline, text, st, leader};
            if (!crosses_line(leader)) {
                taken_.push_back(q);
                lines_.push_back(leader);
                return l;
            }
            if (!crossing)
                crossing = std::pair{l, q};
        }
    }
    if (!crossing)
        return std::nullopt;
    taken_.push_back(crossing->second);
    lines_.push_back(*crossing->first.leader);
    return crossing->first;
}

void draw_label(Svg& svg, const Label& l) {
    if (l.leader)
        svg.line(l.leader->a.x, l.leader->a.y, l.leader->b.x, l.leader->b.y, {"#999", 0.7, ""});
    svg.text(l.x, l.y, l.text, l.style);
}

}  // namespace bwacct::plot
