// The time accounting of a trace's GPU activities (include/bwacct/ingest_kineto.h, "Time accounting"):
//   - busy time by priority: where activities of several time classes run at once, the time belongs to
//     the highest class (compute > communication > memcpy), shared equally among that class's running
//     activities, so each activity's share and each category's sum add up to the union exactly;
//     exposed time per class (TraceLens's GPU timeline) and per category;
//   - the profiled window: the ProfilerStep ranges' GPU activity, else the activities with a CPU launch
//     record, with what ran outside it and why;
//   - idle time explained (per device and per stream): each gap split at the next activity's CPU launch;
//   - launch delays (kernel start − CPU launch start).
// Nothing here names a Category value: categories are counted by index.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

std::string_view time_class_name(TimeClass c) {
    switch (c) {
        case TimeClass::compute:
            return "compute";
        case TimeClass::communication:
            return "communication";
        case TimeClass::memcpy:
            return "memcpy";
    }
    return "compute";
}

TimeClass time_class(const GpuActivity& a, Category c) {
    if (a.kind != Activity::kernel)
        return TimeClass::memcpy;
    if (a.collective || c == Category::collective)
        return TimeClass::communication;
    return TimeClass::compute;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Act {
    std::size_t index = 0;  // into Trace::activities
    double ts = 0, end = 0;
    std::uint32_t cls = 0, category = 0;  // TimeClass and Category values
    double launch = kNaN;                 // CPU launch start; NaN without a launch record
    std::int64_t stream = 0;
    bool first_of_launch = true;  // the first of its launch's activities to start (a CUDA graph's kernels share one)
};

// An idle gap [a, b] before the activities starting at b: split at the earliest CPU launch among the
// first activities starting at or after b (`acts` sorted by start).
void explain_gap(const std::vector<Act>& acts, double a, double b, double& host, double& after, double& none) {
    if (!(b > a))
        return;
    const auto it = std::lower_bound(acts.begin(), acts.end(), b, [](const Act& x, double v) { return x.ts < v; });
    double launch = kNaN;
    for (auto j = it; j != acts.end() && j->ts == it->ts; ++j)
        if (!std::isnan(j->launch))
            launch = std::isnan(launch) ? j->launch : std::min(launch, j->launch);
    if (std::isnan(launch)) {
        none += b - a;
        return;
    }
    const double h = std::clamp(launch - a, 0.0, b - a);
    host += h;
    after += (b - a) - h;
}

// The activities of one device (sorted by start) clipped to [lo, hi): busy, classes, exposed, idle
// explained, added to `w`. With `busy` / `exposed`: each activity's busy share and each category's
// exposed time are added there too. O(n log n) in the activities, whatever their overlap.
// `longest`: the longest activity's duration (the activities that can reach into [lo, hi) start after
// lo − longest), so a window costs its own activities, not the device's.
void sweep(const std::vector<Act>& acts, double longest, double lo, double hi, WindowTime& w, std::vector<double>* busy,
           std::vector<double>* exposed) {
    if (!(hi > lo))
        return;
    struct Ev {
        double t;
        bool start;
        std::size_t act;
    };
    std::vector<Ev> ev;
    const auto from = std::lower_bound(acts.begin(), acts.end(), lo - longest, [](const Act& x, double v) { return x.ts < v; });
    // Sized exactly (at most two events per activity that can reach the window): no doubling peak.
    ev.reserve(2 * static_cast<std::size_t>(
                       std::lower_bound(from, acts.end(), hi, [](const Act& x, double v) { return x.ts < v; }) - from));
    for (auto k = static_cast<std::size_t>(from - acts.begin()); k < acts.size() && acts[k].ts < hi; ++k) {
        const Act& x = acts[k];
        if (x.ts >= lo && x.ts < hi)
            ++w.activities;
        const double b = std::max(x.ts, lo), e = std::min(x.end, hi);
        if (e > b) {
            ev.push_back({b, true, k});
            ev.push_back({e, false, k});
        }
    }
    std::sort(ev.begin(), ev.end(), [](const Ev& x, const Ev& y) { return x.t != y.t ? x.t < y.t : (!x.start && y.start); });
    // Counts, not lists, so a segment costs O(classes + categories) however many activities overlap:
    // running activities per class and per (category, class); and per class the running sum of the
    // share one of its activities gets while it is the top class (Σ dt / running), so an activity's
    // share is that sum at its end minus the sum at its start.
    std::size_t running[kTimeClasses] = {};
    double per_activity[kTimeClasses] = {};
    const std::size_t categories = exposed ? exposed->size() : 0;
    std::vector<std::size_t> by_category(categories * kTimeClasses, 0);
    std::vector<double> at_start(busy ? acts.size() : 0, 0);
    double prev = lo;
    for (const Ev& e : ev) {
        const double dt = e.t - prev;
        if (dt > 0) {
            std::size_t top = kTimeClasses;
            for (std::size_t c = kTimeClasses; c-- > 0;)
                if (running[c] > 0)
                    top = c;
            if (top == kTimeClasses) {
                explain_gap(acts, prev, e.t, w.host_wait_us, w.after_launch_us, w.no_launch_us);
            } else {
                w.busy_us += dt;
                w.exposed_us[top] += dt;
                for (std::size_t c = 0; c < kTimeClasses; ++c)
                    if (running[c] > 0)
                        w.class_us[c] += dt;
                per_activity[top] += dt / static_cast<double>(running[top]);
                for (std::size_t c = 0; c < categories; ++c)
                    if (by_category[c * kTimeClasses + top] > 0)
                        (*exposed)[c] += dt;
            }
        }
        prev = e.t;
        const Act& x = acts[e.act];
        if (e.start) {
            ++running[x.cls];
            if (x.category < categories)
                ++by_category[x.category * kTimeClasses + x.cls];
            if (busy)
                at_start[e.act] = per_activity[x.cls];
        } else {
            --running[x.cls];
            if (x.category < categories)
                --by_category[x.category * kTimeClasses + x.cls];
            if (busy)
                (*busy)[x.index] += per_activity[x.cls] - at_start[e.act];
        }
    }
    explain_gap(acts, prev, hi, w.host_wait_us, w.after_launch_us, w.no_launch_us);
    w.span_us += hi - lo;
    w.idle_us = std::max(0.0, w.span_us - w.busy_us);
}

LaunchDelays delays_of(std::vector<double> v) {
    LaunchDelays d;
    d.count = v.size();
    if (v.empty())
        return d;
    std::sort(v.begin(), v.end());
    const auto rank = [&](double p) {
        const auto r = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
        return v[std::clamp<std::size_t>(r, 1, v.size()) - 1];
    };
    d.median_us = rank(0.5);
    d.p90_us = rank(0.9);
    d.max_us = v.back();
    return d;
}

// One stream's activities (sorted by start) over [lo, hi): union, gaps explained, launch delays.
StreamTime stream_time(const std::vector<Act>& acts, double lo, double hi, std::vector<double>& delays) {
    StreamTime st;
    double first = kNaN, covered = kNaN;
    for (const Act& x : acts) {
        if (x.ts >= lo && x.ts < hi) {
            ++st.activities;
            if (!std::isnan(x.launch) && x.first_of_launch)
                delays.push_back(x.ts - x.launch);
        }
        const double b = std::max(x.ts, lo), e = std::min(x.end, hi);
        if (!(e > b) && !(x.ts >= lo && x.ts < hi))
            continue;
        if (std::isnan(first)) {
            first = covered = b;
        } else if (b > covered && std::isnan(x.launch)) {
            st.no_launch_us += b - covered;
        } else if (b > covered) {
            const double host = std::clamp(x.launch - covered, 0.0, b - covered);
            st.host_wait_us += host;
            st.after_launch_us += (b - covered) - host;
        }
        st.busy_us += std::max(0.0, e - std::max(b, covered));
        covered = std::max(covered, e);
    }
    if (!std::isnan(first)) {
        st.span_us = covered - first;
        st.idle_us = std::max(0.0, st.span_us - st.busy_us);
    }
    st.delay = delays_of(delays);
    return st;
}

void add(WindowTime& to, const WindowTime& w) {
    to.activities += w.activities;
    to.span_us += w.span_us;
    to.busy_us += w.busy_us;
    to.idle_us += w.idle_us;
    for (std::size_t c = 0; c < kTimeClasses; ++c) {
        to.class_us[c] += w.class_us[c];
        to.exposed_us[c] += w.exposed_us[c];
    }
    to.host_wait_us += w.host_wait_us;
    to.after_launch_us += w.after_launch_us;
    to.no_launch_us += w.no_launch_us;
}

}  // namespace

Timeline account_time(const Trace& t, const Links& links, const std::vector<Category>& category, std::size_t categories) {
    Timeline tl;
    const std::size_t n = t.activities.size();
    tl.activity_busy.assign(n, 0);
    tl.activity_window_us.assign(n, 0);
    tl.activity_window_busy.assign(n, 0);
    tl.category_exposed_us.assign(categories, 0);
    tl.window_category_exposed_us.assign(categories, 0);
    tl.trace.name = "whole trace";
    tl.window.name = "profiled window";

    // Each activity's CPU launch (the runtime call with its correlation id) and the time that places it
    // in a step: its launch, else the start of the op it is linked to.
    // Correlation id → start of the first launch with it, as one sorted array (a hash map takes about
    // 2.5 times the memory on a trace of millions of launches).
    struct LaunchAt {
        std::int64_t correlation;
        double ts;
    };
    std::vector<LaunchAt> launch_of;
    launch_of.reserve(static_cast<std::size_t>(
        std::count_if(t.launches.begin(), t.launches.end(), [](const Launch& l) { return l.correlation >= 0; })));
    for (const Launch& l : t.launches)
        if (l.correlation >= 0)
            launch_of.push_back({l.correlation, l.ts});
    std::stable_sort(launch_of.begin(), launch_of.end(),
                     [](const LaunchAt& x, const LaunchAt& y) { return x.correlation < y.correlation; });
    launch_of.erase(std::unique(launch_of.begin(), launch_of.end(),
                                [](const LaunchAt& x, const LaunchAt& y) { return x.correlation == y.correlation; }),
                    launch_of.end());
    std::vector<Step> steps = t.steps;
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
    std::vector<std::int64_t> step_of(n, -1);
    std::vector<bool> launched(n, false);
    std::map<std::int64_t, std::vector<Act>> by_device;
    {  // sized exactly: no doubling peak
        std::map<std::int64_t, std::size_t> per_device;
        for (const GpuActivity& g : t.activities)
            ++per_device[g.device];
        for (const auto& [device, count] : per_device)
            by_device[device].reserve(count);
    }
    // One launch delay per launch: every kernel of one cudaGraphLaunch carries the launch's correlation id, and only the
    // first to start waited on the launch (the others wait on the graph's earlier kernels). Correlation ids are unique
    // only within one process, so a trace merging several processes' events reuses them: an id is shared only on one
    // device (a GPU activity's process is its device's).
    // (Most traces share no id: the ids alone, sorted, say so before any per-activity work.)
    std::vector<bool> later_of_launch(n, false);
    {
        using Key = std::pair<std::int64_t, std::int64_t>;  // (device, correlation)
        const std::vector<Key> shared = shared_launch_ids(t, false);
        if (!shared.empty()) {
            std::map<Key, std::size_t> first;  // shared (device, id) → its earliest-starting activity
            for (std::size_t a = 0; a < n; ++a) {
                const GpuActivity& g = t.activities[a];
                const Key k{g.device, g.correlation};
                if (!std::binary_search(shared.begin(), shared.end(), k))
                    continue;
                const auto [it, fresh] = first.emplace(k, a);
                if (fresh)
                    continue;
                if (g.ts < t.activities[it->second].ts) {
                    later_of_launch[it->second] = true;
                    it->second = a;
                } else {
                    later_of_launch[a] = true;
                }
            }
        }
    }
    bool any_step = false;
    for (std::size_t a = 0; a < n; ++a) {
        const GpuActivity& g = t.activities[a];
        Act x;
        x.first_of_launch = !later_of_launch[a];
        x.index = a;
        x.ts = g.ts;
        x.end = g.ts + g.dur;
        x.cls = static_cast<std::uint32_t>(time_class(g, category[a]));
        x.category = static_cast<std::uint32_t>(category[a]);
        x.stream = g.stream;
        if (g.correlation >= 0) {
            const auto it = std::lower_bound(launch_of.begin(), launch_of.end(), g.correlation,
                                             [](const LaunchAt& l, std::int64_t c) { return l.correlation < c; });
            if (it != launch_of.end() && it->correlation == g.correlation)
                x.launch = it->ts;
        }
        double when = x.launch;
        if (std::isnan(when) && links.op[a] >= 0 && links.how[a] != LinkHow::inferred)  // an inferred op ran in another step
            when = t.ops[static_cast<std::size_t>(links.op[a])].ts;
        launched[a] = !std::isnan(when);
        if (launched[a] && !steps.empty()) {
            // The last step starting at or before `when`, if `when` lies inside it.
            auto it = std::upper_bound(steps.begin(), steps.end(), when, [](double v, const Step& s) { return v < s.ts; });
            if (it != steps.begin() && when <= std::prev(it)->ts + std::prev(it)->dur) {
                step_of[a] = std::prev(it) - steps.begin();
                any_step = true;
            }
        }
        by_device[g.device].push_back(x);
    }
    const bool any_launched = std::find(launched.begin(), launched.end(), true) != launched.end();
    tl.window_basis = any_step ? "ProfilerStep" : any_launched ? "linked" : "whole trace";
    std::vector<WindowTime> step_times(steps.size());
    for (std::size_t k = 0; k < steps.size(); ++k)
        step_times[k].name = steps[k].name;

    std::vector<double> all_delays;
    for (auto& [device, acts] : by_device) {
        std::stable_sort(acts.begin(), acts.end(), [](const Act& x, const Act& y) { return x.ts < y.ts; });
        double lo = acts.front().ts, hi = acts.front().end, longest = 0;
        for (const Act& x : acts) {
            hi = std::max(hi, x.end);
            longest = std::max(longest, x.end - x.ts);
        }
        WindowTime whole;
        sweep(acts, longest, lo, hi, whole, &tl.activity_busy, &tl.category_exposed_us);
        add(tl.trace, whole);

        // The window on this device.
        double wlo = lo, whi = hi;
        if (any_step) {
            std::vector<double> first(steps.size(), kNaN), last(steps.size(), kNaN);
            for (const Act& x : acts) {
                const std::int64_t k = step_of[x.index];
                if (k < 0)
                    continue;
                const auto ku = static_cast<std::size_t>(k);
                first[ku] = std::isnan(first[ku]) ? x.ts : std::min(first[ku], x.ts);
                last[ku] = std::isnan(last[ku]) ? x.end : std::max(last[ku], x.end);
            }
            // Each step from its first start to the next step's (never backwards); the last to its last end.
            std::vector<std::size_t> used;
            for (std::size_t k = 0; k < steps.size(); ++k)
                if (!std::isnan(first[k]))
                    used.push_back(k);
            wlo = whi = kNaN;
            double begin = kNaN;
            for (std::size_t u = 0; u < used.size(); ++u) {
                const std::size_t k = used[u];
                begin = std::isnan(begin) ? first[k] : std::max(begin, first[k]);
                const double end = u + 1 < used.size() ? std::max(begin, first[used[u + 1]]) : std::max(begin, last[k]);
                WindowTime w;
                sweep(acts, longest, begin, end, w, nullptr, nullptr);
                add(step_times[k], w);
                if (std::isnan(wlo))
                    wlo = begin;
                whi = end;
                begin = end;
            }
        } else if (any_launched) {
            wlo = whi = kNaN;
            for (const Act& x : acts)
                if (launched[x.index]) {
                    wlo = std::isnan(wlo) ? x.ts : std::min(wlo, x.ts);
                    whi = std::isnan(whi) ? x.end : std::max(whi, x.end);
                }
        }
        if (std::isnan(wlo))  // nothing of this device in the window
            wlo = whi = lo;
        WindowTime w;
        sweep(acts, longest, wlo, whi, w, &tl.activity_window_busy, &tl.window_category_exposed_us);
        add(tl.window, w);
        for (const Act& x : acts) {
            const double dur = x.end - x.ts;
            tl.activity_window_us[x.index] = std::max(0.0, std::min(x.end, whi) - std::max(x.ts, wlo));
            const bool inside_start = x.ts >= wlo && x.ts < whi;
            if (!inside_start && (x.end <= wlo || x.ts >= whi)) {
                tl.outside_kernel_us += dur;
                if (!launched[x.index])
                    ++tl.outside_no_launch;
                else if (any_step && step_of[x.index] < 0)
                    ++tl.outside_other_launch;
                else
                    ++tl.outside_ran_outside;
            } else if (x.ts < wlo || x.end > whi) {
                ++tl.cut;
            }
        }

        // Streams over the window.
        std::map<std::int64_t, std::vector<Act>> by_stream;
        {  // sized exactly: no doubling peak
            std::map<std::int64_t, std::size_t> per_stream;
            for (const Act& x : acts)
                ++per_stream[x.stream];
            for (const auto& [stream, count] : per_stream)
                by_stream[stream].reserve(count);
        }
        for (const Act& x : acts)
            by_stream[x.stream].push_back(x);
        for (const auto& [stream, list] : by_stream) {
            std::vector<double> delays;
            StreamTime st = stream_time(list, wlo, whi, delays);
            st.device = device;
            st.stream = stream;
            all_delays.insert(all_delays.end(), delays.begin(), delays.end());
            tl.streams.push_back(st);
        }
    }
    for (WindowTime& w : step_times)
        if (w.activities > 0 || w.span_us > 0)
            tl.steps.push_back(std::move(w));
    tl.delay = delays_of(std::move(all_delays));
    return tl;
}

}  // namespace bwacct::kineto
