// The time accounting of `bwacct ingest torch-trace` as report parts: see ingest_torch_time.h and
// docs/ingest.md ("Where the time goes").
#include "ingest_torch_time.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <string>

namespace bwacct::cli {
namespace {

using namespace bwacct::kineto;

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

constexpr auto kComm = static_cast<std::size_t>(TimeClass::communication);

// The share of communication hidden under compute: (all − exposed) / all; none without communication.
Cell hidden_share(const WindowTime& w) {
    if (!(w.class_us[kComm] > 0))
        return Cell{};
    return 100 * (w.class_us[kComm] - w.exposed_us[kComm]) / w.class_us[kComm];
}

std::vector<Cell> window_row(const WindowTime& w) {
    std::vector<Cell> row{w.name, w.activities, w.span_us, w.busy_us, w.idle_us, 100 * share(w.busy_us, w.span_us)};
    for (std::size_t c = 0; c < kTimeClasses; ++c)
        row.push_back(w.exposed_us[c]);
    for (std::size_t c = 0; c < kTimeClasses; ++c)
        row.push_back(w.class_us[c]);
    row.push_back(hidden_share(w));
    row.insert(row.end(), {w.host_wait_us, w.after_launch_us, w.no_launch_us});
    return row;
}

WindowTime mean_of(const std::vector<WindowTime>& steps) {
    WindowTime m;
    m.name = "mean step";
    const auto n = static_cast<double>(steps.size());
    for (const WindowTime& w : steps) {
        m.span_us += w.span_us / n;
        m.busy_us += w.busy_us / n;
        m.idle_us += w.idle_us / n;
        for (std::size_t c = 0; c < kTimeClasses; ++c) {
            m.class_us[c] += w.class_us[c] / n;
            m.exposed_us[c] += w.exposed_us[c] / n;
        }
        m.host_wait_us += w.host_wait_us / n;
        m.after_launch_us += w.after_launch_us / n;
        m.no_launch_us += w.no_launch_us / n;
        m.activities += w.activities;
    }
    m.activities = steps.empty() ? 0 : m.activities / steps.size();
    return m;
}

// One decimal; a time under 0.05 µs but not zero in two significant digits, not as "0.0 µs".
std::string us(double v) { return v > 0 && v < 0.05 ? fmt::format("{:.2g} µs", v) : fmt::format("{:.1f} µs", v); }

// "ProfilerStep#15..#17 (3 steps)", "the kernels with a CPU launch record", ...
std::string window_words(const Timeline& tl) {
    if (tl.window_basis == "ProfilerStep" && !tl.steps.empty())
        return tl.steps.size() == 1
                   ? tl.steps.front().name
                   : fmt::format("{} to {} ({} steps)", tl.steps.front().name, tl.steps.back().name, tl.steps.size());
    if (tl.window_basis == "linked")
        return "first to last activity with a CPU launch record (no ProfilerStep in the trace)";
    return "the whole trace (no ProfilerStep and no CPU launch record in the trace)";
}

std::uint64_t outside(const Timeline& tl) { return tl.outside_no_launch + tl.outside_other_launch + tl.outside_ran_outside; }

// "968 activities (31834.4 µs of kernel time) ran outside it: 968 with no CPU launch record (queued
// before the profiler started)"; "" when none did.
std::string outside_words(const Timeline& tl) {
    if (outside(tl) == 0 && tl.cut == 0)
        return "";
    std::vector<std::string> why;
    if (tl.outside_no_launch > 0)
        why.push_back(fmt::format("{} with no CPU launch record (queued before the profiler started)", tl.outside_no_launch));
    if (tl.outside_other_launch > 0)
        why.push_back(fmt::format("{} launched outside every ProfilerStep", tl.outside_other_launch));
    if (tl.outside_ran_outside > 0)
        why.push_back(fmt::format("{} launched in a step but run outside the window", tl.outside_ran_outside));
    std::string text = fmt::format("{} activities ({} of kernel time) left out", outside(tl), us(tl.outside_kernel_us));
    if (!why.empty())
        text += ": " + fmt::format("{}", fmt::join(why, ", "));
    if (tl.cut > 0)
        text += fmt::format("; {} cut by its edges (their time inside counted)", tl.cut);
    return text;
}

}  // namespace

Section window_section(const Summary& s) {
    const Timeline& tl = s.time;
    Section sec{"window", "GPU time of the profiled window", {}, {}, {}};
    sec.columns = {{"window", "window", 0},   {"activities", "activities", 0}, {"span_us", "span µs", 2},
                   {"busy_us", "busy µs", 2}, {"idle_us", "idle µs", 2},       {"busy_share", "% busy", 1}};
    for (std::size_t c = 0; c < kTimeClasses; ++c) {
        const std::string name(time_class_name(static_cast<TimeClass>(c)));
        sec.columns.push_back({fmt::format("exposed_{}_us", name), fmt::format("exposed {} µs", name), 2});
    }
    for (std::size_t c = 0; c < kTimeClasses; ++c) {
        const std::string name(time_class_name(static_cast<TimeClass>(c)));
        sec.columns.push_back({fmt::format("{}_us", name), fmt::format("all {} µs", name), 2});
    }
    sec.columns.push_back({"communication_hidden_share", "% comm hidden", 1});
    sec.columns.push_back({"host_wait_us", "idle: host µs", 2});
    sec.columns.push_back({"after_launch_us", "idle: after launch µs", 2});
    sec.columns.push_back({"no_launch_us", "idle: no launch µs", 2});
    for (const WindowTime& w : tl.steps)
        sec.rows.push_back(window_row(w));
    if (tl.steps.size() > 1)
        sec.rows.push_back(window_row(mean_of(tl.steps)));
    sec.rows.push_back(window_row(tl.window));
    sec.rows.push_back(window_row(tl.trace));
    sec.notes.push_back("profiled window: " + window_words(tl));
    if (const std::string o = outside_words(tl); !o.empty())
        sec.notes.push_back(o);
    sec.notes.push_back(
        "exposed: where classes run at the same time the time belongs to the highest, compute > communication > "
        "memcpy (TraceLens's GPU timeline); the three exposed columns add up to busy. all: the union of the class's "
        "activities; % comm hidden = (all communication - exposed communication) / all communication");
    sec.notes.push_back(
        "idle split at the next activity's CPU launch: host = the GPU waits for the launch, after launch = launched but "
        "not started (dependencies, launch latency), no launch = the next activity has no CPU launch record");
    return sec;
}

Section stream_section(const Summary& s) {
    Section sec{"streams", "idle time per stream (profiled window)", {}, {}, {}};
    sec.columns = {{"device", "device", 0},
                   {"stream", "stream", 0},
                   {"activities", "activities", 0},
                   {"span_us", "span µs", 2},
                   {"busy_us", "busy µs", 2},
                   {"idle_us", "idle µs", 2},
                   {"host_wait_us", "idle: host µs", 2},
                   {"after_launch_us", "idle: after launch µs", 2},
                   {"no_launch_us", "idle: no launch µs", 2},
                   {"launch_delay_count", "delays", 0},
                   {"launch_delay_median_us", "delay median µs", 2},
                   {"launch_delay_p90_us", "delay p90 µs", 2},
                   {"launch_delay_max_us", "delay max µs", 2}};
    const auto delay_cells = [](const LaunchDelays& d) -> std::vector<Cell> {
        if (d.count == 0)
            return {std::uint64_t{0}, Cell{}, Cell{}, Cell{}};
        return {d.count, d.median_us, d.p90_us, d.max_us};
    };
    for (const StreamTime& st : s.time.streams) {
        std::vector<Cell> row{fmt::format("{}", st.device),
                              fmt::format("{}", st.stream),
                              st.activities,
                              st.span_us,
                              st.busy_us,
                              st.idle_us,
                              st.host_wait_us,
                              st.after_launch_us,
                              st.no_launch_us};
        const std::vector<Cell> d = delay_cells(st.delay);
        row.insert(row.end(), d.begin(), d.end());
        sec.rows.push_back(std::move(row));
    }
    std::vector<Cell> all{std::string("all"), std::string("all"), Cell{}, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}, Cell{}};
    const std::vector<Cell> d = delay_cells(s.time.delay);
    all.insert(all.end(), d.begin(), d.end());
    sec.rows.push_back(std::move(all));
    sec.notes.push_back(
        "per stream: the gaps between its consecutive activities inside the window, split at the next activity's CPU "
        "launch as in the window section; launch delay = activity start - start of its CPU launch call (nearest-rank "
        "median and p90), over the activities starting in the window that have a launch record");
    return sec;
}

IngestSummary torch_summary(const Summary& s, const std::vector<Record>& records, const std::vector<const Group*>& record_group,
                            double unanalysed_us) {
    const Timeline& tl = s.time;
    const WindowTime& w = tl.window;
    IngestSummary sum;

    // GPU busy / idle of the window, and the whole trace beside it.
    std::string line = fmt::format("GPU busy {} of the {} profiled window ({:.1f} %), idle {}", us(w.busy_us), us(w.span_us),
                                   100 * share(w.busy_us, w.span_us), us(w.idle_us));
    if (w.idle_us > 0)
        line += fmt::format(" ({} waiting for the host to launch, {} after launch{})", us(w.host_wait_us), us(w.after_launch_us),
                            w.no_launch_us > 0 ? fmt::format(", {} before unlaunched work", us(w.no_launch_us)) : "");
    sum.lines.push_back(line);
    line = "window: " + window_words(tl);
    if (tl.steps.size() > 1) {
        const WindowTime m = mean_of(tl.steps);
        line += fmt::format("; mean step {}, busy {}, idle {}", us(m.span_us), us(m.busy_us), us(m.idle_us));
    }
    sum.lines.push_back(line);
    line = fmt::format("whole trace: span {}, busy {}", us(tl.trace.span_us), us(tl.trace.busy_us));
    if (const std::string o = outside_words(tl); !o.empty())
        line += "; " + o;
    sum.lines.push_back(line);
    if (tl.delay.count > 0)
        sum.lines.push_back(fmt::format("launch delay (CPU launch to start, {} launch{}): median {}, p90 {}, max {}",
                                        tl.delay.count, tl.delay.count == 1 ? "" : "es", us(tl.delay.median_us),
                                        us(tl.delay.p90_us), us(tl.delay.max_us)));

    // Exposed time by class in the window.
    std::vector<std::string> parts;
    for (std::size_t c = 0; c < kTimeClasses; ++c)
        parts.push_back(fmt::format("{} {}", time_class_name(static_cast<TimeClass>(c)), us(w.exposed_us[c])));
    line = fmt::format("exposed (window): {}", fmt::join(parts, ", "));
    const Cell hidden = hidden_share(w);
    if (std::holds_alternative<double>(hidden))
        line += fmt::format("; communication {} in all, {:.1f} % of it hidden under compute", us(w.class_us[kComm]),
                            std::get<double>(hidden));
    else
        line += "; no communication";
    sum.lines.push_back(line);

    // Top three categories by busy time over the profiled window, each with the roof that binds most
    // of its time there.
    std::map<std::size_t, std::map<std::string, double>> roof_us;  // category → bound → window busy µs
    // category → (Σ calls · the roof's time per call, Σ kernel time) over its records with a verdict
    // (whole trace, the first GPU): how fast the category runs against its roofs.
    std::map<std::size_t, std::pair<double, double>> at_roof;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& v = records[i].verdicts;
        const std::size_t cat = static_cast<std::size_t>(record_group[i]->what.category);
        const bool timed = !v.empty() && v.front().timed;
        const std::string bound = timed ? std::string(roof_name(v.front().timed->bound)) : "no verdict";
        roof_us[cat][bound] += record_group[i]->window_busy_us;
        if (timed) {
            at_roof[cat].first += static_cast<double>(record_group[i]->calls) * v.front().floor_us;
            at_roof[cat].second += record_group[i]->kernel_us;
        }
    }
    std::vector<const CategoryTime*> cats;
    for (const CategoryTime& c : s.categories)
        if (c.window_busy_us > 0)
            cats.push_back(&c);
    std::stable_sort(cats.begin(), cats.end(),
                     [](const CategoryTime* a, const CategoryTime* b) { return a->window_busy_us > b->window_busy_us; });
    if (cats.size() > 3)
        cats.resize(3);
    Section top{"top_categories", "", {}, {}, {}};
    top.columns = {{"category", "category", 0},
                   {"busy_us", "busy µs", 2},
                   {"busy_share", "% busy", 1},
                   {"exposed_us", "exposed µs", 2},
                   {"bound", "bound", 0},
                   {"bound_share", "% of the category", 1},
                   {"roof_speed_share", "% of roof speed", 1}};
    parts.clear();
    for (const CategoryTime* c : cats) {
        std::map<std::string, double> by = roof_us[static_cast<std::size_t>(c->category)];
        double analysed = 0;
        for (const auto& [roof, t] : by)
            analysed += t;
        if (c->window_uncosted_busy_us > 0)
            by["no formula"] += c->window_uncosted_busy_us;
        // Costed groups that got no record (refused by the GPU's peaks): what remains of the category.
        const double rest = c->window_busy_us - analysed - c->window_uncosted_busy_us;
        if (rest > 1e-9 * c->window_busy_us && unanalysed_us > 0)
            by["not analysed"] += rest;
        std::string bound = "no formula";
        double most = 0;
        for (const auto& [roof, t] : by)
            if (t > most) {
                bound = roof;
                most = t;
            }
        const std::string name(category_name(c->category));
        // Σ roof time / Σ kernel time of its analysed records: 100 % runs at its roofs; an overhead-bound
        // GEMM at 35 % is a slow compute-bound kernel, not launch overhead.
        Cell speed = std::monostate{};
        std::string speed_words;
        if (const auto it = at_roof.find(static_cast<std::size_t>(c->category)); it != at_roof.end() && it->second.second > 0) {
            speed = 100 * it->second.first / it->second.second;
            speed_words = fmt::format("; at {:.0f} % of its roofs' speed", std::get<double>(speed));
        }
        top.rows.push_back({name, c->window_busy_us, 100 * share(c->window_busy_us, w.busy_us), c->window_exposed_us, bound,
                            100 * share(most, c->window_busy_us), speed});
        parts.push_back(
            fmt::format("{} {:.1f} % ({} for {:.0f} % of it{})", name, 100 * share(c->window_busy_us, w.busy_us),
                        bound == "no formula" || bound == "no verdict" || bound == "not analysed" ? bound : bound + "-bound",
                        100 * share(most, c->window_busy_us), speed_words));
    }
    sum.lines.push_back(fmt::format("top categories by busy time (window): {}", fmt::join(parts, ", ")));

    // The time no formula covers, over the window and the whole trace, with its main reason.
    {
        std::map<std::string, double> reasons;
        for (const CategoryTime& c : s.categories)
            for (const auto& [why, t] : c.window_uncosted_reasons)
                reasons[why] += t;
        const auto main =
            std::max_element(reasons.begin(), reasons.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
        line =
            fmt::format("unaccounted (no formula): {:.1f} % of the window's busy time ({}), {:.1f} % of the whole trace's ({})",
                        100 * share(s.window_uncosted_busy_us, w.busy_us), us(s.window_uncosted_busy_us),
                        100 * share(s.uncosted_busy_us, tl.trace.busy_us), us(s.uncosted_busy_us));
        if (main != reasons.end())
            line += fmt::format("; most of the window's: {} ({})", main->first, us(main->second));
        sum.lines.push_back(line);
    }

    // The three records farthest below their roof by absolute time lost: kernel time − calls × the
    // roof's time per call (the first GPU's verdict).
    struct Loss {
        std::size_t record;
        double lost, roof;
    };
    std::vector<Loss> losses;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& v = records[i].verdicts;
        if (v.empty() || !v.front().timed)
            continue;
        const Group& g = *record_group[i];
        const double roof = static_cast<double>(g.calls) * v.front().floor_us;
        losses.push_back({i, std::max(0.0, g.kernel_us - roof), roof});
    }
    std::stable_sort(losses.begin(), losses.end(), [](const Loss& a, const Loss& b) { return a.lost > b.lost; });
    if (losses.size() > 3)
        losses.resize(3);
    Section worst{"farthest_below_roof", "", {}, {}, {}};
    worst.columns = {{"torch_op", "op", 0},          {"shape", "shape", 0},         {"dtype", "dtype", 0},
                     {"calls", "calls", 0},          {"kernel_us", "kernel µs", 2}, {"roof_us", "roof µs", 2},
                     {"time_lost_us", "lost µs", 2}, {"bound", "bound", 0}};
    parts.clear();
    for (const Loss& l : losses) {
        const Group& g = *record_group[l.record];
        const std::string bound(roof_name(records[l.record].verdicts.front().timed->bound));
        worst.rows.push_back({g.what.op, g.what.shape, g.what.dtype, g.calls, g.kernel_us, l.roof, l.lost, bound});
        // A copy's shape is its byte count ("5114880 B") and its dtype the word "bytes": said once.
        std::string what = g.what.op;
        if (!g.what.shape.empty())
            what += " " + g.what.shape;
        if (!g.what.dtype.empty() && g.what.dtype != "bytes")
            what += " " + g.what.dtype;
        parts.push_back(fmt::format("{}: {} lost ({} of kernel time, {} at the roof, {}-bound)", what, us(l.lost),
                                    us(g.kernel_us), us(l.roof), bound));
    }
    if (!parts.empty())
        sum.lines.push_back(fmt::format("farthest below their roof (whole trace): {}", fmt::join(parts, "; ")));
    else
        sum.lines.push_back("farthest below their roof: no record analysed on a GPU");

    // JSON fields.
    sum.fields = {{"window_basis", tl.window_basis},
                  {"window_steps", static_cast<std::uint64_t>(tl.steps.size())},
                  {"window_span_us", w.span_us},
                  {"window_busy_us", w.busy_us},
                  {"window_idle_us", w.idle_us},
                  {"window_busy_share", 100 * share(w.busy_us, w.span_us)},
                  {"window_idle_host_wait_us", w.host_wait_us},
                  {"window_idle_after_launch_us", w.after_launch_us},
                  {"window_idle_no_launch_us", w.no_launch_us}};
    if (!tl.steps.empty()) {
        const WindowTime m = mean_of(tl.steps);
        sum.fields.push_back({"step_mean_span_us", m.span_us});
        sum.fields.push_back({"step_mean_busy_us", m.busy_us});
        sum.fields.push_back({"step_mean_idle_us", m.idle_us});
    }
    sum.fields.insert(sum.fields.end(), {{"trace_span_us", tl.trace.span_us},
                                         {"trace_busy_us", tl.trace.busy_us},
                                         {"trace_idle_us", tl.trace.idle_us},
                                         {"left_out_activities", outside(tl)},
                                         {"left_out_no_launch", tl.outside_no_launch},
                                         {"left_out_launched_outside_steps", tl.outside_other_launch},
                                         {"left_out_ran_outside", tl.outside_ran_outside},
                                         {"left_out_kernel_us", tl.outside_kernel_us},
                                         {"cut_activities", tl.cut},
                                         {"window_unaccounted_us", s.window_uncosted_busy_us},
                                         {"window_unaccounted_share", 100 * share(s.window_uncosted_busy_us, w.busy_us)},
                                         {"trace_unaccounted_us", s.uncosted_busy_us},
                                         {"trace_unaccounted_share", 100 * share(s.uncosted_busy_us, tl.trace.busy_us)}});
    for (std::size_t c = 0; c < kTimeClasses; ++c)
        sum.fields.push_back({fmt::format("exposed_{}_us", time_class_name(static_cast<TimeClass>(c))), w.exposed_us[c]});
    for (std::size_t c = 0; c < kTimeClasses; ++c)
        sum.fields.push_back({fmt::format("{}_us", time_class_name(static_cast<TimeClass>(c))), w.class_us[c]});
    if (std::holds_alternative<double>(hidden))
        sum.fields.push_back({"communication_hidden_share", std::get<double>(hidden)});
    sum.fields.push_back({"launch_delay_count", tl.delay.count});
    if (tl.delay.count > 0) {
        sum.fields.push_back({"launch_delay_median_us", tl.delay.median_us});
        sum.fields.push_back({"launch_delay_p90_us", tl.delay.p90_us});
        sum.fields.push_back({"launch_delay_max_us", tl.delay.max_us});
    }
    sum.lists = {std::move(top), std::move(worst)};
    return sum;
}

}  // namespace bwacct::cli
