// The two charts behind plot_svg (include/bwacct/plot.h) and what they share: legend, notes,
// point labels, thinning. Internal to src/report/plot_*.cpp.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "bwacct/plot.h"
#include "svg.h"

namespace bwacct::plot {

// At most this many points are drawn per chart (every k-th beyond it, said in a note) ...
inline constexpr std::size_t kMaxDrawnPoints = 2000;
// ... and at most about this many carry a text label; the others are plain markers.
inline constexpr std::size_t kMaxLabels = 30;

std::string roofline_chart(const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus, const PlotOptions& opt);
std::string collective_chart(const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus, const PlotOptions& opt);
// Every record a collective of one kind, over at least two sizes.
bool is_collective_sweep(const std::vector<Record>& records);

struct LegendEntry {
    std::string text;
    Stroke line;            // drawn when line.width > 0
    std::string marker;     // shape, or empty
    std::string fill;       // marker fill ("none": hollow)
    std::string edge;       // marker outline
    bool has_line = false;  // a line sample
};

// Draws the entries from (x, y) downward; returns the y below the last one. Text longer than
// `max_chars` is cut with "…".
double draw_legend(Svg& svg, double x, double y, const std::vector<LegendEntry>& entries, std::size_t max_chars);
// Height the legend needs.
double legend_height(const std::vector<LegendEntry>& entries);
// Notes under the chart, one line each, from y downward.
void draw_notes(Svg& svg, double x, double y, const std::vector<std::string>& notes);
inline constexpr double kNoteLine = 16;

// Indices 0, k, 2k, ... of n items, k chosen so that at most `cap` are kept; `stride` receives k.
std::vector<std::size_t> thin(std::size_t n, std::size_t cap, std::size_t& stride);

// One short label per record: the op when ops differ, the parameters whose values differ between
// the records ("m=256"), else the time when times differ ("t=120 µs"), else the op name.
std::vector<std::string> point_labels(const std::vector<const Record*>& records);

// Index of the GPU with this id among `gpus` (its colour), else `gpus.size()` + the order of first
// appearance among `seen`.
std::size_t gpu_slot(const std::vector<const GpuSpec*>& gpus, std::vector<std::string>& seen, const std::string& id);
// "H200 SXM (h200)" for a catalog id, or the id itself.
std::string gpu_title(const std::vector<const GpuSpec*>& gpus, const std::string& id);

// The marker shape for a time source: given ●, measured ■, ingested ◆, simulated ▲.
std::string source_marker(TimeSource s);
std::string source_legend(TimeSource s);

// A chart title whole, never cut: wrapped at spaces into lines of at most `chars` characters (a
// single longer word stays whole), drawn so that the last line stands at y (earlier ones above it,
// 18 px apart, no higher than y = 16).
std::vector<std::string> wrap_title(const std::string& title, std::size_t chars);
void draw_title(Svg& svg, double x, double y, const std::string& title, std::size_t chars);

// Cuts `s` to at most `n` characters (UTF-8 aware), ending in "…" when cut.
std::string cut(const std::string& s, std::size_t n);

}  // namespace bwacct::plot
