// Weighted least squares for t = α + b·S with weights w_i = 1/t_i²:
//   W = Σw, Sx = Σw·S, Sy = Σw·t, Sxx = Σw·S², Sxy = Σw·S·t
//   b = (W·Sxy − Sx·Sy) / (W·Sxx − Sx²),  α = (Sy − b·Sx) / W
// Sizes are scaled to GiB-ish units before summing so Σw·S² stays well inside double range.
#include "bwacct/alpha_beta.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace bwacct {

AlphaBetaFit fit_alpha_beta(const std::vector<AlphaBetaPoint>& points) {
    double lo = 0, hi = 0;
    bool first = true;
    for (const AlphaBetaPoint& p : points) {
        if (!(p.bytes > 0) || !(p.time_us > 0) || !std::isfinite(p.bytes) || !std::isfinite(p.time_us))
            throw std::invalid_argument("alpha-beta fit: sizes and times must be positive");
        lo = first ? p.bytes : std::min(lo, p.bytes);
        hi = first ? p.bytes : std::max(hi, p.bytes);
        first = false;
    }
    if (points.size() < 2 || lo == hi)
        throw std::invalid_argument("alpha-beta fit: needs two distinct sizes");
    const double scale = hi;  // x = S / scale ∈ (0, 1]
    double W = 0, Sx = 0, Sy = 0, Sxx = 0, Sxy = 0;
    for (const AlphaBetaPoint& p : points) {
        const double w = 1.0 / (p.time_us * p.time_us);
        const double x = p.bytes / scale;
        W += w;
        Sx += w * x;
        Sy += w * p.time_us;
        Sxx += w * x * x;
        Sxy += w * x * p.time_us;
    }
    const double det = W * Sxx - Sx * Sx;
    AlphaBetaFit f;
    f.n = points.size();
    const double b_scaled = (W * Sxy - Sx * Sy) / det;  // µs per `scale` bytes
    f.alpha_us = (Sy - b_scaled * Sx) / W;
    f.us_per_byte = b_scaled / scale;
    if (f.us_per_byte > 0) {
        f.beta_GBps = 1e-3 / f.us_per_byte;
        f.half_bytes = std::max(0.0, f.alpha_us / f.us_per_byte);
    }
    for (const AlphaBetaPoint& p : points)
        f.max_rel_error = std::max(f.max_rel_error, std::abs(p.time_us - (f.alpha_us + f.us_per_byte * p.bytes)) / p.time_us);
    return f;
}

}  // namespace bwacct
