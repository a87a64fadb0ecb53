#include "bwacct/projection_report.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "bwacct/error.h"
#include "bwacct/finite_guard.h"
#include "bwacct/json_text.h"
#include "human.h"
#include "verdict_line.h"

namespace bwacct {
namespace {

using json = nlohmann::ordered_json;

// A real that happens to be integral is written without a fractional part (docs/json.md: 4800, not
// 4800.0), as the op records write it.
json num(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
        return static_cast<std::int64_t>(v);
    return v;
}

// `digits` significant digits, never in exponent form: 33.333 → "33.3", 2500 → "2500", 0.01234 → "0.0123".
std::string sig(double v, int digits) {
    if (v == 0)
        return "0";
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    const int decimals = std::max(0, digits - 1 - magnitude);
    return fmt::format("{:.{}f}", v, decimals);
}

std::string quantity_unit(const Projection& p, const std::string& rate_unit) {
    return p.quantity == Quantity::time ? "µs" : rate_unit;
}

// Catalog figures and given values as written: 8000, 989.4, 20.
std::string plain(double v) { return fmt::format("{:.10g}", v); }

std::string figure_text(const RoofFigure& f) { return fmt::format("{} {}", plain(f.value), f.unit); }

json value_json(const Projection& p, double v, const std::string& gpu, const char* source) {
    json j;
    j[p.quantity == Quantity::time ? "time_us" : "rate"] = num(v);
    j["gpu"] = gpu;
    j["source"] = source;
    return j;
}

json figure_json(const RoofFigure& f) {
    json j{{"gpu", f.gpu}, {"what", f.what}};
    if (!f.key.empty())
        j[f.key] = num(f.value);
    j["source"] = f.source;
    if (!f.note.empty())
        j["note"] = f.note;
    return j;
}

json projection_json(const Projection& p) {
    json j;
    j["to"] = p.to.gpu;
    j["given"] = value_json(p, p.given, p.from.gpu, "given");
    j["projected"] = value_json(p, p.projected, p.to.gpu, "modelled");
    j["ratio"] = num(p.ratio);
    j["figures"] = {{"from", figure_json(p.from)}, {"to", figure_json(p.to)}};
    j["alternatives"] = json::array();
    for (const auto& a : p.alternatives) {
        json aj{{"gpu", a.gpu}};
        aj[p.to.key] = num(a.figure);
        aj["label"] = a.label;
        aj["note"] = a.note;
        aj["source"] = a.source;
        aj["ratio"] = num(a.ratio);
        aj["projected"] = value_json(p, a.projected, p.to.gpu, "modelled");
        j["alternatives"].push_back(aj);
    }
    j["notes"] = p.notes;
    return j;
}

// "33.3 fps (b200 8000 GB/s, the catalog's figure); 32.0 with 7672 GB/s (derived); 32.1 with 7700 GB/s"
std::string summary(const Projection& p, const std::string& unit) {
    if (p.bound == Roof::dispatch)
        return fmt::format("{} {} (unchanged: dispatch-bound)", sig(p.projected, 3), unit);
    std::string s = fmt::format("{} {} ({} {}, the catalog's figure)", sig(p.projected, 3), unit, p.to.gpu, figure_text(p.to));
    for (const auto& a : p.alternatives)
        s += fmt::format("; {} with {}{} {}{}", sig(a.projected, 3), a.gpu == p.to.gpu ? "" : a.gpu + " ", plain(a.figure),
                         p.to.unit, a.label.empty() ? "" : " (" + a.label + ")");
    return s;
}

void print_projection_table(const Projection& p, const std::string& rate_unit, std::FILE* out) {
    const std::string unit = quantity_unit(p, rate_unit);
    fmt::print(out, "project  {} → {}  bound: {}\n", p.from.gpu, p.to.gpu, roof_name(p.bound));
    fmt::print(out, "  given         {} {} on {} (given)\n", plain(p.given), unit, p.from.gpu);
    if (p.bound == Roof::dispatch) {
        fmt::print(out, "  ratio         1 (dispatch: no roof figure scales it)\n");
    } else {
        const std::string what = p.bound == Roof::hbm    ? "memory bandwidth"
                                 : p.bound == Roof::link ? "link bandwidth per direction"
                                                         : p.from.what;
        fmt::print(out, "  ratio         {} {} / {} {} = {:.4f}× speed, time × {:.4f} ({})\n", p.to.gpu, figure_text(p.to),
                   p.from.gpu, figure_text(p.from), p.ratio, 1 / p.ratio, what);
    }
    fmt::print(out, "  projected     {} {} on {} (modelled: {})\n", sig(p.projected, 4), unit, p.to.gpu,
               p.bound == Roof::dispatch      ? "unchanged"
               : p.quantity == Quantity::rate ? "given rate × ratio"
                                              : "given time ÷ ratio");
    if (!p.alternatives.empty()) {
        fmt::print(out, "  alternatives  the same projection with the catalog's other figures:\n");
        for (const auto& a : p.alternatives)
            fmt::print(out, "                {} {} {} → {} {} (ratio {:.4f}){}\n", a.gpu, plain(a.figure), p.to.unit,
                       sig(a.projected, 4), unit, a.ratio, a.note.empty() ? "" : ": " + a.note);
    }
    if (p.bound != Roof::dispatch) {
        for (const RoofFigure* f : {&p.from, &p.to}) {
            fmt::print(out, "  figure        {} {} {}{}\n", f->gpu, f->what, figure_text(*f),
                       f->note.empty() ? "" : " — " + f->note);
            fmt::print(out, "                source: {}\n", f->source);
        }
    }
    fmt::print(out, "  summary       {}\n", summary(p, unit));
    for (const auto& n : p.notes)
        fmt::print(out, "  note          {}\n", n);
}

}  // namespace

void require_table_or_json(Format format) {
    if (format != Format::table && format != Format::json && format != Format::jsonl)
        throw InputError("--format", "expected table, json or jsonl");
}

void print_projections(const std::vector<Projection>& projections, const std::string& rate_unit, Format format, std::FILE* out) {
    require_table_or_json(format);
    json j;
    j["schema"] = "bwacct.projection/1";
    if (!projections.empty()) {
        const Projection& p0 = projections.front();
        j["bound"] = std::string(roof_name(p0.bound));
        j["quantity"] = p0.quantity == Quantity::time ? "time" : "rate";
        if (p0.quantity == Quantity::rate)
            j["rate_unit"] = rate_unit;
        j["from"] = p0.from.gpu;
    }
    j["projections"] = json::array();
    for (const Projection& p : projections)
        j["projections"].push_back(projection_json(p));
    require_finite(j);  // every figure, before the first byte of any format
    if (format == Format::table) {
        // The answer first, one line per GPU (and given value): the projected figure and the ratio.
        std::vector<detail::GpuVerdict> lines;
        for (const Projection& p : projections) {
            const std::string unit = quantity_unit(p, rate_unit);
            lines.push_back({p.to.gpu, fmt::format("{} (given) · projected {} {} from {} {} on {} · {}× speed (modelled)",
                                                   detail::bound_text(p.bound), sig(p.projected, 4), unit, plain(p.given), unit,
                                                   p.from.gpu, detail::fixed(p.ratio, 4))});
        }
        detail::print_verdict_lines(out, lines);
        fmt::print(out, "\n");
        bool first = true;
        for (const Projection& p : projections) {
            if (!first)
                fmt::print(out, "\n");
            first = false;
            print_projection_table(p, rate_unit, out);
        }
        return;
    }
    fmt::print(out, "{}\n", format == Format::json ? detail::json_text(j, 2) : detail::json_text(j));
}

void print_fit(const FitData& d, const FitResult& f, const std::optional<FitPeak>& peak, Format format, std::FILE* out) {
    require_table_or_json(format);
    json j;
    j["schema"] = "bwacct.fit/1";
    j["source"] = "modelled";
    j["input"] = {{"path", d.path},   {"format", d.format},        {"x", d.x_name},
                  {"y", d.y_name},    {"y_to_us", num(d.y_scale)}, {"x_is_bytes", d.x_is_bytes},
                  {"source", "given"}};
    j["n"] = f.n;
    j["intercept_us"] = f.intercept;
    j["slope_us_per_x"] = f.slope;
    j["r2"] = f.r2;
    j["bw_GBps"] = f.bw_GBps ? json(*f.bw_GBps) : json(nullptr);
    if (peak && f.bw_GBps)
        j["peak"] = {{"gpu", peak->gpu}, {"hbm_GBps", num(peak->hbm_GBps)}, {"util_hbm", *f.bw_GBps / peak->hbm_GBps}};
    j["scaling"] = {{"x_first", num(f.x_first)},
                    {"x_second", num(f.x_second)},
                    {"x_last", num(f.x_last)},
                    {"first_step", f.first_step},
                    {"elasticity_first", f.elasticity_first},
                    {"elasticity_range", f.elasticity_range},
                    {"overhead_share", f.overhead_share},
                    {"linear_low", kLinearLow},
                    {"linear_high", kLinearHigh},
                    {"verdict", std::string(scaling_name(f.verdict))},
                    {"meaning", f.meaning}};
    j["points"] = json::array();
    for (const FitPoint& p : d.points)
        j["points"].push_back({{"x", num(p.x)}, {"time_us", num(p.y)}, {"fitted_us", f.intercept + f.slope * p.x}});
    j["notes"] = f.notes;
    require_finite(j);  // every figure, before the first byte of any format
    if (format != Format::table) {
        fmt::print(out, "{}\n", format == Format::json ? detail::json_text(j, 2) : detail::json_text(j));
        return;
    }
    std::string y_note = d.y_scale == 1 ? "" : fmt::format(" (× {:g} → µs)", d.y_scale);
    fmt::print(out, "fit  {} ({}): {}{} vs {}, {} given points; least squares t = a + b·x (modelled)\n", d.path, d.format,
               d.y_name, y_note, d.x_name, f.n);
    fmt::print(out, "  intercept a     {} µs (fixed overhead at x = 0)\n", sig(f.intercept, 4));
    if (f.bw_GBps) {
        std::string vs;
        if (peak)
            vs = fmt::format("; {} of {} HBM {} GB/s", detail::percent(*f.bw_GBps / peak->hbm_GBps), peak->gpu,
                             plain(peak->hbm_GBps));
        fmt::print(out, "  slope b         {:.6g} µs per byte → effective bandwidth 1/b = {} GB/s{}\n", f.slope,
                   sig(*f.bw_GBps, 4), vs);
    } else {
        fmt::print(out, "  slope b         {:.6g} µs per unit of {}\n", f.slope, d.x_name);
    }
    fmt::print(out, "  r²              {:.4f}\n", f.r2);
    fmt::print(out, "  first step      x {:.6g} → {:.6g} (+{:.1f} %): elasticity d ln t / d ln x = {:.3f}\n", f.x_first,
               f.x_second, f.first_step * 100, f.elasticity_first);
    fmt::print(out, "  whole range     x {:.6g} → {:.6g} (×{:.3g}): elasticity {:.3f}\n", f.x_first, f.x_last,
               f.x_last / f.x_first, f.elasticity_range);
    if (f.intercept < 0)
        fmt::print(out, "  overhead share  none: the intercept is negative\n");
    else
        fmt::print(out, "  overhead share  {} of the time at the smallest x (a / (a + b·x))\n",
                   detail::percent(f.overhead_share));
    fmt::print(out, "  verdict         {} (linear when {} ≤ e ≤ {}): {}\n", scaling_name(f.verdict), kLinearLow, kLinearHigh,
               f.meaning);
    for (const auto& n : f.notes)
        fmt::print(out, "  note            {}\n", n);
}

}  // namespace bwacct
