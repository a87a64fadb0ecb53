// What the charts share: legend, notes, thinning, point labels, GPU names and source markers.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "plot_charts.h"

namespace bwacct::plot {

namespace {

constexpr double kLegendLine = 18;

std::string param_text(const ParamValue& v) {
    if (const auto* u = std::get_if<std::uint64_t>(&v))
        return std::to_string(*u);
    if (const auto* d = std::get_if<double>(&v))
        return fmt::format("{:g}", *d);
    if (const auto* s = std::get_if<std::string>(&v))
        return *s;
    return std::get<bool>(v) ? "true" : "false";
}

}  // namespace

std::vector<std::string> wrap_title(const std::string& title, std::size_t chars) {
    auto length = [](const std::string& t) {
        std::size_t n = 0;
        for (char c : t)
            n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
        return n;
    };
    std::vector<std::string> lines{""};
    std::size_t start = 0;
    while (start <= title.size()) {
        std::size_t end = title.find(' ', start);
        if (end == std::string::npos)
            end = title.size();
        const std::string word = title.substr(start, end - start);
        if (!lines.back().empty() && length(lines.back()) + 1 + length(word) > chars)
            lines.push_back("");
        lines.back() += fmt::format("{}{}", lines.back().empty() ? "" : " ", word);
        start = end + 1;
    }
    return lines;
}

void draw_title(Svg& svg, double x, double y, const std::string& title, std::size_t chars) {
    const std::vector<std::string> lines = wrap_title(title, chars);
    // The last line stays where a one-line title stands; earlier lines go up, not below the top edge.
    double at = std::max(16.0, y - 18 * static_cast<double>(lines.size() - 1));
    for (const std::string& line : lines) {
        svg.text(x, at, line, {16, "start", "#111", true, 0});
        at += 18;
    }
}

std::string cut(const std::string& s, std::size_t n) {
    // Count code points (UTF-8 continuation bytes are 10xxxxxx).
    std::size_t points = 0, i = 0;
    for (; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            if (points == n)
                break;
            ++points;
        }
    }
    if (i >= s.size())
        return s;
    // Cut one more code point to make room for the ellipsis.
    std::size_t end = i;
    do {
        --end;
    } while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80);
    return s.substr(0, end) + "…";
}

double legend_height(const std::vector<LegendEntry>& entries) { return static_cast<double>(entries.size()) * kLegendLine; }

double draw_legend(Svg& svg, double x, double y, const std::vector<LegendEntry>& entries, std::size_t max_chars) {
    for (const LegendEntry& e : entries) {
        const double cy = y + kLegendLine / 2;
        if (e.has_line)
            svg.line(x, cy, x + 26, cy, e.line);
        if (!e.marker.empty())
            svg.marker(e.marker, x + 13, cy, 4, e.fill, e.edge);
        svg.text(x + 34, cy + 4, cut(e.text, max_chars), {11.5, "start", "#222", false, 0});
        y += kLegendLine;
    }
    return y;
}

void draw_notes(Svg& svg, double x, double y, const std::vector<std::string>& notes) {
    for (const std::string& n : notes) {
        svg.text(x, y, n, {11.5, "start", "#444", false, 0});
        y += kNoteLine;
    }
}

std::vector<std::size_t> thin(std::size_t n, std::size_t cap, std::size_t& stride) {
    stride = cap == 0 ? 1 : std::max<std::size_t>(1, (n + cap - 1) / cap);
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < n; i += stride)
        out.push_back(i);
    return out;
}

std::vector<std::string> point_labels(const std::vector<const Record*>& records) {
    // Which parameter names vary (compared as text; the first record's order of names).
    std::vector<std::string> names;
    std::map<std::string, std::string> first;
    std::map<std::string, bool> varies;
    for (const Record* r : records)
        for (const Param& p : r->params) {
            const std::string t = param_text(p.value);
            auto [it, added] = first.emplace(p.name, t);
            if (added)
                names.push_back(p.name);
            else if (it->second != t)
                varies[p.name] = true;
        }
    bool ops_vary = false, times_vary = false;
    auto time_of = [](const Record* r) {
        return r->verdicts.empty() || !r->verdicts.front().timed ? -1.0 : r->verdicts.front().timed->time_us;
    };
    for (const Record* r : records) {
        ops_vary = ops_vary || r->cost.op != records.front()->cost.op;
        times_vary = times_vary || time_of(r) != time_of(records.front());
    }
    std::vector<std::string> out;
    out.reserve(records.size());
    for (const Record* r : records) {
        std::string label = ops_vary ? r->cost.op : std::string();
        for (const std::string& n : names) {
            if (!varies[n])
                continue;
            for (const Param& p : r->params)
                if (p.name == n)
                    label += fmt::format("{}{}={}", label.empty() ? "" : " ", n, param_text(p.value));
        }
        if (times_vary && time_of(r) > 0 && label.empty())
            label = fmt::format("t={} µs", short_number(time_of(r)));
        if (label.empty())
            label = r->cost.op;
        out.push_back(cut(label, 40));
    }
    return out;
}

std::size_t gpu_slot(const std::vector<const GpuSpec*>& gpus, std::vector<std::string>& seen, const std::string& id) {
    for (std::size_t i = 0; i < gpus.size(); ++i)
        if (gpus[i]->id == id)
            return i;
    for (std::size_t i = 0; i < seen.size(); ++i)
        if (seen[i] == id)
            return gpus.size() + i;
    seen.push_back(id);
    return gpus.size() + seen.size() - 1;
}

std::string gpu_title(const std::vector<const GpuSpec*>& gpus, const std::string& id) {
    for (const GpuSpec* g : gpus)
        if (g->id == id)
            return g->name.empty() || g->name == id ? id : fmt::format("{} ({})", g->name, id);
    return id;
}

std::string source_marker(TimeSource s) {
    switch (s) {
        case TimeSource::measured:
            return "square";
        case TimeSource::ingested:
            return "diamond";
        case TimeSource::simulated:
            return "triangle";
        default:
            return "circle";
    }
}

std::string source_legend(TimeSource s) {
    switch (s) {
        case TimeSource::given:
            return "time given (--time-us)";
        case TimeSource::measured:
            return "time measured (--measure)";
        case TimeSource::ingested:
            return "time ingested (measured by another tool)";
        case TimeSource::simulated:
            return "time simulated (test backend, not a GPU)";
        case TimeSource::modelled:
            break;
    }
    return "modelled";
}

}  // namespace bwacct::plot
