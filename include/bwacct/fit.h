// The scaling slope (seed 000: "measure the scaling slope first"): a least-squares fit of time
// against size, t = a + b·x, the effective bandwidth 1/b when x is bytes, and the verdict from the
// local elasticity d ln t / d ln x. Fitting is pure (src/analysis/fit.cpp); reading the input is
// src/hw/fit_input.cpp. Formulas and thresholds: docs/formulas.md, "Scaling fit".
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace bwacct {

struct FitPoint {
    double x = 0;  // size: bytes, area, pixels, tokens, ... (positive)
    double y = 0;  // time in µs (positive)
};

enum class Scaling { linear, sublinear, superlinear };
std::string_view scaling_name(Scaling s);

// Elasticity e = d ln t / d ln x. t ∝ x gives e = 1; t = a + b·x with a > 0 gives e = b·x / t < 1.
// linear: kLinearLow ≤ e ≤ kLinearHigh, i.e. a fixed overhead of at most 15 % of the time.
inline constexpr double kLinearLow = 0.85;
inline constexpr double kLinearHigh = 1.15;

struct FitResult {
    std::size_t n = 0;              // points fitted
    double intercept = 0;           // a, µs: the fixed overhead at x = 0
    double slope = 0;               // b, µs per unit of x
    double r2 = 0;                  // coefficient of determination (1 when every y is equal and fitted exactly)
    std::optional<double> bw_GBps;  // x in bytes and b > 0: (1 / b) B/µs = 1e-3 / b GB/s
    // The scaling check, on the points sorted by x (equal x averaged):
    double x_first = 0, x_second = 0, x_last = 0;
    double first_step = 0;        // x_second / x_first − 1 (0.10 for the seed's +10 %)
    double elasticity_first = 0;  // ln(t2/t1) / ln(x2/x1)
    double elasticity_range = 0;  // ln(t_last/t_first) / ln(x_last/x_first)
    double overhead_share = 0;    // a / (a + b·x_first): the fitted fixed part of the smallest time
    Scaling verdict = Scaling::linear;
    std::string meaning;  // what the verdict suggests (seed 000)
    std::vector<std::string> notes;
};

// Fits `points` (at least two distinct positive x, positive y). `origin` names the input in errors
// (InputError): the file, or the option that gave the points.
FitResult fit_scaling(const std::vector<FitPoint>& points, bool x_is_bytes, const std::string& origin);

// ---------------------------------------------------------------------------------------------
// The fit input (src/hw/fit_input.cpp): a CSV with a header row, or a bwacct sweep (JSONL, or a JSON
// array of records).

struct FitData {
    std::string path;
    std::string format;       // "csv" or "jsonl"
    std::string x_name;       // the column or key used for x
    std::string y_name;       // ... and for y (converted to µs)
    double y_scale = 1;       // factor that turned the y column into µs (1000 for a *_ms column)
    bool x_is_bytes = false;  // x_name is "bytes" or ends in "bytes"
    std::vector<FitPoint> points;
};

// Reads `path`. `x` / `y` name the columns (CSV) or keys (JSONL: x from the record's top level or its
// params, y from gpus[0] or the top level); empty picks the default (x: bytes, size_bytes, size,
// area, pixels, tokens, x — the first present; y: time_us, then time_ms, time_s, time_ns,
// period_us, period_ms, time, y). Throws InputError naming the file, --x or --y.
FitData read_fit_input(const std::string& path, const std::string& x, const std::string& y);

// The pure part of read_fit_input (no I/O; the fuzz target calls it): parses `text` as read from
// `origin` (the path: a .json/.jsonl name selects the records format, and errors name it).
FitData parse_fit_input(const std::string& text, const std::string& origin, const std::string& x, const std::string& y);

}  // namespace bwacct
