#include "bwacct/fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "bwacct/error.h"

namespace bwacct {

std::string_view scaling_name(Scaling s) {
    switch (s) {
        case Scaling::linear:
            return "linear";
        case Scaling::sublinear:
            return "sublinear";
        case Scaling::superlinear:
            return "superlinear";
    }
    return "?";
}

namespace {

std::string_view meaning_of(Scaling s) {
    switch (s) {
        case Scaling::linear:
            return "time grows in proportion to size from the first step: bandwidth (or allocator/copy) bound; only "
                   "byte reducers help";
        case Scaling::sublinear:
            return "time grows slower than size: a fixed overhead (launch/dispatch, synchronization) is still a large "
                   "share; the bandwidth roof is not saturated yet";
        case Scaling::superlinear:
            return "time grows faster than size: suspect allocator fragmentation, format conversions or cache effects "
                   "(a working set leaving L2)";
    }
    return "";
}

double elasticity(double x1, double t1, double x2, double t2) { return std::log(t2 / t1) / std::log(x2 / x1); }

}  // namespace

FitResult fit_scaling(const std::vector<FitPoint>& points, bool x_is_bytes, const std::string& origin) {
    if (points.size() < 2)
        throw InputError(origin, fmt::format("a fit needs at least 2 points; got {}", points.size()));
    for (std::size_t i = 0; i < points.size(); ++i) {
        const FitPoint& p = points[i];
        if (!std::isfinite(p.x) || !(p.x > 0))
            throw InputError(origin, fmt::format("point {}: x must be a positive number; got {}", i + 1, p.x));
        if (!std::isfinite(p.y) || !(p.y > 0))
            throw InputError(origin, fmt::format("point {}: time must be a positive number; got {}", i + 1, p.y));
    }
    // Equal x (repeated measurements) are averaged for the scaling check; the fit uses every point.
    std::map<double, std::pair<double, double>> by_x;  // x → (sum of y, count)
    for (const FitPoint& p : points) {
        auto& [sum, count] = by_x[p.x];
        sum += p.y;
        count += 1;
    }
    if (by_x.size() < 2)
        throw InputError(origin, fmt::format("a fit needs at least 2 distinct x values; every point has x = {}", points[0].x));

    // Least squares on centred sums of scaled values: x and y are divided by their largest value first,
    // so a square never overflows (x ≈ 1e200 squared is 1e400) nor loses everything to underflow; the
    // slope and intercept are scaled back (slope × ys/xs, intercept × ys). r² does not change with scale.
    double xs = 0, ys = 0;
    for (const FitPoint& p : points)
        xs = std::max(xs, p.x), ys = std::max(ys, p.y);
    const double n = static_cast<double>(points.size());
    double mx = 0, my = 0;
    for (const FitPoint& p : points)
        mx += p.x / xs, my += p.y / ys;
    mx /= n, my /= n;
    double sxx = 0, sxy = 0, syy = 0;
    for (const FitPoint& p : points) {
        const double dx = p.x / xs - mx, dy = p.y / ys - my;
        sxx += dx * dx, sxy += dx * dy, syy += dy * dy;
    }
    FitResult r;
    r.n = points.size();
    const double slope = sxy / sxx;  // in scaled units
    double intercept = my - slope * mx;
    // Rounding leaves ~1e-12 of an exact zero intercept (t ∝ x): call it zero.
    if (std::fabs(intercept) < 1e-9 * std::fabs(my))
        intercept = 0;
    double ss_res = 0;
    for (const FitPoint& p : points) {
        const double e = p.y / ys - (intercept + slope * (p.x / xs));
        ss_res += e * e;
    }
    r.slope = slope * (ys / xs);
    r.intercept = intercept * ys;
    r.r2 = syy > 0 ? 1 - ss_res / syy : 1.0;
    if (x_is_bytes && r.slope > 0)
        r.bw_GBps = 1e-3 / r.slope;  // 1/b bytes per µs = 1e6/b B/s = 1e-3/b GB/s

    auto it = by_x.begin();
    const double x1 = it->first, t1 = it->second.first / it->second.second;
    ++it;
    const double x2 = it->first, t2 = it->second.first / it->second.second;
    const auto last = std::prev(by_x.end());
    const double xn = last->first, tn = last->second.first / last->second.second;
    r.x_first = x1, r.x_second = x2, r.x_last = xn;
    r.first_step = x2 / x1 - 1;
    r.elasticity_first = elasticity(x1, t1, x2, t2);
    r.elasticity_range = elasticity(x1, t1, xn, tn);
    const double fitted_first = r.intercept + r.slope * x1;
    r.overhead_share = fitted_first > 0 ? r.intercept / fitted_first : 0;

    if (r.elasticity_first > kLinearHigh || r.elasticity_range > kLinearHigh)
        r.verdict = Scaling::superlinear;
    else if (r.elasticity_first < kLinearLow || r.elasticity_range < kLinearLow)
        r.verdict = Scaling::sublinear;
    else
        r.verdict = Scaling::linear;
    r.meaning = meaning_of(r.verdict);

    if (r.elasticity_first <= kLinearHigh && r.elasticity_range > kLinearHigh)
        r.notes.push_back(
            fmt::format("the first step scales as e = {:.2f} but the whole range as {:.2f}: superlinear at larger x",
                        r.elasticity_first, r.elasticity_range));
    if (r.elasticity_first >= kLinearLow && r.elasticity_first <= kLinearHigh && r.elasticity_range < kLinearLow)
        r.notes.push_back(
            fmt::format("the first step scales as e = {:.2f} but the whole range as {:.2f}: time flattens at larger x",
                        r.elasticity_first, r.elasticity_range));
    if (r.first_step > 0.5)
        r.notes.push_back(
            fmt::format("the first step is +{:.0f} %; the seed's check uses a small one (+10 %): add a point near "
                        "{:.6g}",
                        r.first_step * 100, x1 * 1.1));
    if (r.intercept < 0)
        r.notes.push_back(
            "the intercept is negative: no fixed overhead is visible and time grows faster than linearly somewhere");
    if (r.slope <= 0)
        r.notes.push_back("time does not grow with x: the slope gives no bandwidth");
    else if (!x_is_bytes)
        r.notes.push_back(
            "x is not in bytes: the slope is µs per unit of x and no bandwidth is derived (name a bytes column with --x)");
    if (r.n > 2 && r.r2 < 0.9)
        r.notes.push_back(fmt::format("r² = {:.3f}: a straight line describes these points poorly", r.r2));
    return r;
}

}  // namespace bwacct
