// compare_traces: a known-good PyTorch profiler trace against a new one (include/bwacct/kineto_baseline.h).
#include "bwacct/kineto_baseline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "baseline_verdict.h"

namespace bwacct::kineto {
namespace {

// One row of the comparison: a category, or an (op, shape, dtype) group; its time in each window.
struct Row {
    bool group = false;
    Category category = Category::other;
    std::string op, shape, dtype;
    std::optional<double> base, now;

    std::string label() const {
        if (!group)
            return "category " + std::string(category_name(category));
        std::string l = op;
        for (const std::string* part : {&shape, &dtype})
            if (!part->empty())
                l += " " + *part;
        return l;
    }
    double larger() const { return std::max(base.value_or(0), now.value_or(0)); }
};

bool stepped(const Summary& s) { return s.time.window_basis == "ProfilerStep" && !s.time.steps.empty(); }

std::string steps_words(std::size_t n) { return fmt::format("{} ProfilerStep{}", n, n == 1 ? "" : "s"); }

// "3 ProfilerSteps (ProfilerStep#15 to ProfilerStep#17), span 1234.5 µs", ...
std::string window_words(const Summary& s) {
    const Timeline& tl = s.time;
    std::string w;
    if (stepped(s))
        w = tl.steps.size() == 1
                ? fmt::format("1 ProfilerStep ({})", tl.steps.front().name)
                : fmt::format("{} ({} to {})", steps_words(tl.steps.size()), tl.steps.front().name, tl.steps.back().name);
    else if (tl.window_basis == "linked")
        w = "first to last activity with a CPU launch record (no ProfilerStep)";
    else
        w = "the whole trace (no ProfilerStep, no CPU launch record)";
    return w + fmt::format(", span {:.1f} µs", tl.window.span_us);
}

}  // namespace

TraceBaseline compare_traces(const Summary& now, const Summary& base, double tolerance, const std::string& base_name) {
    TraceBaseline out;
    out.per_step = stepped(now) && stepped(base);
    const double now_div = out.per_step ? static_cast<double>(now.time.steps.size()) : 1;
    const double base_div = out.per_step ? static_cast<double>(base.time.steps.size()) : 1;

    // Categories in enum order (both summaries list every category), then the groups by the larger time.
    std::vector<Row> rows;
    const std::size_t categories = std::max(now.categories.size(), base.categories.size());
    for (std::size_t c = 0; c < categories; ++c) {
        Row r;
        r.category = static_cast<Category>(c);
        if (c < base.categories.size() && base.categories[c].window_us > 0)
            r.base = base.categories[c].window_us / base_div;
        if (c < now.categories.size() && now.categories[c].window_us > 0)
            r.now = now.categories[c].window_us / now_div;
        if (r.base || r.now)
            rows.push_back(std::move(r));
    }
    std::vector<Row> groups;
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
    auto add = [&](const Summary& s, double div, std::optional<double> Row::*side) {
        for (const Group& g : s.groups) {
            if (!(g.window_us > 0))
                continue;
            const auto [it, fresh] = index.emplace(std::tuple{g.what.op, g.what.shape, g.what.dtype}, groups.size());
            if (fresh) {
                Row r;
                r.group = true;
                r.category = g.what.category;
                r.op = g.what.op;
                r.shape = g.what.shape;
                r.dtype = g.what.dtype;
                groups.push_back(std::move(r));
            }
            groups[it->second].*side = g.window_us / div;
        }
    };
    add(base, base_div, &Row::base);
    add(now, now_div, &Row::now);
    std::stable_sort(groups.begin(), groups.end(), [](const Row& a, const Row& b) { return a.larger() > b.larger(); });
    rows.insert(rows.end(), std::make_move_iterator(groups.begin()), std::make_move_iterator(groups.end()));

    Section& s = out.section;
    s.key = "baseline";
    const char* per = out.per_step ? " per step" : "";
    s.title = fmt::format(
        "against the baseline {}: kernel time{} in the profiled window, by category and by (op, shape, "
        "dtype) (tolerance {:g} %)",
        base_name, per, tolerance * 100);
    s.columns = {{"row", "row", 0},
                 {"category", "category", 0},
                 {"torch_op", "op", 0},
                 {"shape", "shape", 0},
                 {"dtype", "dtype", 0},
                 {"baseline_kernel_us", fmt::format("baseline µs{}", out.per_step ? "/step" : ""), 2},
                 {"kernel_us", fmt::format("µs{}", out.per_step ? "/step" : ""), 2},
                 {"change_us", "change µs", 2},
                 {"change_pct", "change %", 1},
                 {"verdict", "verdict", 0}};
    std::size_t improved = 0, added = 0, vanished = 0;
    std::optional<std::pair<double, std::string>> worst;
    std::vector<std::pair<double, std::string>> regressions;
    for (const Row& r : rows) {
        const auto text = [](const std::string& v) { return v.empty() ? Cell{} : Cell{v}; };
        std::vector<Cell> row{std::string(r.group ? "group" : "category"), std::string(category_name(r.category)), text(r.op),
                              text(r.shape), text(r.dtype)};
        if (!r.base) {
            row.insert(row.end(), {Cell{}, *r.now, Cell{}, Cell{}, std::string("new")});
            ++added;
        } else if (!r.now) {
            row.insert(row.end(), {*r.base, Cell{}, Cell{}, Cell{}, std::string("vanished")});
            ++vanished;
        } else {
            ++out.compared;
            const double change = *r.now / *r.base - 1;  // a present row's base time is positive
            const std::string verdict = baseline_verdict(change, tolerance, Worse::when_higher);
            if (verdict == "regressed") {
                ++out.regressed;
                regressions.emplace_back(change, r.label());
            }
            improved += verdict == "improved" ? 1 : 0;
            if (!worst || change > worst->first)
                worst = std::pair{change, r.label()};
            row.insert(row.end(), {*r.base, *r.now, *r.now - *r.base, change * 100, verdict});
        }
        s.rows.push_back(std::move(row));
    }
    std::stable_sort(regressions.begin(), regressions.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [change, label] : regressions)
        out.regressions.push_back(fmt::format("{} {:+.1f} %", label, change * 100));

    std::string line = fmt::format(
        "baseline {}: {} rows (categories and op groups) compared by kernel time{} in the profiled "
        "window, {} regressed beyond {:g} %, {} improved",
        base_name, out.compared, per, out.regressed, tolerance * 100, improved);
    if (worst)
        line += fmt::format("; largest change {:+.1f} % at {}", worst->first * 100, worst->second);
    if (added + vanished > 0)
        line += fmt::format("; {} only in the trace (new), {} only in the baseline (vanished)", added, vanished);
    out.lines.push_back(line);
    if (out.regressed > 0) {
        constexpr std::size_t kNamed = 5;
        std::vector<std::string> named(out.regressions.begin(), out.regressions.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                                              kNamed, out.regressions.size())));
        std::string list = fmt::format("{}", fmt::join(named, "; "));
        if (out.regressions.size() > kNamed)
            list += fmt::format("; and {} more", out.regressions.size() - kNamed);
        out.lines.push_back(fmt::format("REGRESSION: kernel time grew beyond the tolerance at {} (exit code 3)", list));
    }

    // The windows compared: per step when both have ProfilerSteps; said when they differ.
    const std::string windows = fmt::format("baseline window: {}; trace window: {}", window_words(base), window_words(now));
    if (out.per_step && now.time.steps.size() != base.time.steps.size())
        out.lines.push_back(
            fmt::format("the baseline's window holds {} and the trace's {}: times compared per step (each "
                        "window's kernel time / its step count)",
                        steps_words(base.time.steps.size()), steps_words(now.time.steps.size())));
    else if (!out.per_step && (stepped(now) || stepped(base) || now.time.window_basis != base.time.window_basis))
        out.lines.push_back(
            fmt::format("the windows differ and are not both ProfilerStep windows ({}): totals over each "
                        "window compared, so a longer window shows more time",
                        windows));
    s.notes.push_back(fmt::format(
        "time: the kernels' durations inside each trace's profiled window (the window section; an activity cut by its "
        "edges counts its part inside; concurrent kernels each count whole), {}",
        out.per_step ? "per step: the window's time / its ProfilerStep count"
                     : "the window's total (per step only when both windows are ProfilerStep windows)"));
    s.notes.push_back(windows);
    s.notes.push_back(fmt::format(
        "verdict: regressed when time / baseline time - 1 > {0:g} %, improved when below -{0:g} %, else same; new / "
        "vanished: time in one window only (never a regression by itself: its time is in its category's row); kernels "
        "without a formula are in their category's row only; exit code 3 when any row regressed",
        tolerance * 100));
    return out;
}

}  // namespace bwacct::kineto
