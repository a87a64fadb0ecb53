// SVG charts, drawn without external tools (src/report/plot_*.cpp, pure: records in, text out).
//   roofline:   log-log, arithmetic intensity (FLOP/B) against TFLOP/s; per selected GPU its HBM roof
//               and one compute roof per dtype present in the records (achievable roofs from
//               calibration dashed); one labelled point per record (at its time's TFLOP/s when the
//               record has a time, else at its attainable TFLOP/s, marked modelled). Records without
//               FLOPs (copies, collectives) are listed in a note on the chart.
//   collective: for records that are all collectives of one kind over several sizes: time and busbw
//               against size (log-log), with the α–β fit t = α + size/β drawn through the times and
//               the link's per-direction peak on the busbw panel.
// At most kMaxDrawnPoints markers (src/report/plot_charts.h) and about 30 labels are drawn; the chart
// says so when it thins. The same input gives the same bytes.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/alpha_beta.h"
#include "bwacct/gpu.h"
#include "bwacct/measurement.h"
#include "bwacct/record.h"

namespace bwacct {

// Most records a command keeps in memory for --plot.
inline constexpr std::size_t kMaxPlotRecords = 100'000;

struct PlotOptions {
    std::string title;                    // top line of the chart (wrapped, never cut)
    std::vector<Calibration> achievable;  // measured roofs (bwacct calibrate), drawn dashed
    // The α–β fit the table reports (ingest nccl-tests): the collective chart draws this one through
    // the times instead of fitting its own, so chart and table show the same α and β.
    std::optional<AlphaBetaFit> fit = std::nullopt;
};

// The collective chart when every record is a collective of one kind with at least two sizes,
// else the roofline (with only the GPUs' HBM roofs and a note when there are no records: a command
// that has printed its output must not fail on its chart).
std::string plot_svg(const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus, const PlotOptions& opt);

}  // namespace bwacct
