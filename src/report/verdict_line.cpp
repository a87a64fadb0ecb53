#include "verdict_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bwacct/ops.h"
#include "human.h"

namespace bwacct::detail {

std::string short_number(double v) {
    const double a = std::abs(v);
    return fixed_trimmed(v, a >= 100 ? 1 : a >= 1 ? 2 : a > 0 ? significant_decimals(a, 3) : 0);
}

std::string bound_text(Roof b) {
    return b == Roof::overhead ? std::string("overhead-bound (no roof explains half the time)")
                               : fmt::format("{}-bound", roof_name(b));
}

void print_verdict_lines(std::FILE* out, const std::vector<GpuVerdict>& lines) {
    std::size_t id_width = 0;
    for (const GpuVerdict& l : lines)
        id_width = std::max(id_width, l.gpu.size());
    for (const GpuVerdict& l : lines)
        fmt::print(out, "{:<{}}  {}\n", l.gpu, id_width, l.text);
}

namespace {

std::string time_word(const Record& r, const TimedAnalysis& t) {
    if (!t.projected_from.empty())
        return "projected";
    return std::string(time_source_name(r.source));
}

// What the binding roof's utilization says at this time.
std::string roof_use(const Verdict& v, const TimedAnalysis& t) {
    switch (t.bound) {
        case Roof::compute:
            return fmt::format("{} of {} peak", percent(t.util_compute), v.peaks.compute_label);
        case Roof::hbm:
            return fmt::format("{} of HBM bandwidth", percent(t.util_hbm));
        case Roof::link:
            return t.util_link ? fmt::format("{} of the link ({})", percent(*t.util_link), v.peaks.link_name) : "";
        case Roof::dispatch:
            return fmt::format("launch overhead is {} of the time", percent(t.shares.dispatch));
        case Roof::overhead:
            return fmt::format("{} of the time unexplained", percent(t.unexplained));
    }
    return "";
}

}  // namespace

std::string verdict_line(const Record& r, const Verdict& v) {
    std::string s;
    if (v.timed) {
        const TimedAnalysis& t = *v.timed;
        s = fmt::format("{} · floor {} µs · {} {} µs", bound_text(t.bound), short_number(v.floor_us), time_word(r, t),
                        short_number(t.time_us));
        if (!t.projected_from.empty())
            s += fmt::format(" (from {})", t.projected_from);
        if (t.x_floor)
            s += fmt::format(" = {}× floor", fixed(*t.x_floor, 2));
        if (const std::string use = roof_use(v, t); !use.empty())
            s += " · " + use;
        return s;
    }
    s = fmt::format("{} · floor {} µs (modelled, no time given)", bound_text(v.bound), short_number(v.floor_us));
    if (r.cost.collective && v.busbw_GBps)
        s += fmt::format(" · busbw {} GB/s at the floor", short_number(*v.busbw_GBps));
    else if (v.attainable_fraction && r.cost.flops > 0)
        s += fmt::format(" · at most {} of {} peak", percent(*v.attainable_fraction), v.peaks.compute_label);
    return s;
}

std::optional<double> point_score(const Record& r, const Verdict& v) {
    if (v.timed)
        return v.timed->x_floor && *v.timed->x_floor > 0 ? std::optional<double>(1 / *v.timed->x_floor) : std::nullopt;
    if (r.cost.collective)
        return v.busbw_GBps && v.peaks.link_GBps && *v.peaks.link_GBps > 0
                   ? std::optional<double>(*v.busbw_GBps / *v.peaks.link_GBps)
                   : std::nullopt;
    if (r.cost.flops > 0 && v.attainable_fraction)
        return v.attainable_fraction;
    return std::nullopt;
}

std::string score_text(const Record& r, const Verdict& v) {
    if (v.timed && v.timed->x_floor)
        return fmt::format("{}× floor ({} µs vs floor {} µs)", fixed(*v.timed->x_floor, 2), short_number(v.timed->time_us),
                           short_number(v.floor_us));
    if (r.cost.collective && v.busbw_GBps && v.peaks.link_GBps)
        return fmt::format("busbw {} GB/s = {} of the link at the floor", short_number(*v.busbw_GBps),
                           percent(*v.busbw_GBps / *v.peaks.link_GBps));
    if (v.attainable_fraction)
        return fmt::format("at most {} of {} peak", percent(*v.attainable_fraction), v.peaks.compute_label);
    return fmt::format("floor {} µs", short_number(v.floor_us));
}

}  // namespace bwacct::detail
