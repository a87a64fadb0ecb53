// --plot FILE.svg: draws the records a command produced (include/bwacct/plot.h) and writes the file.
#pragma once
#include <string>
#include <vector>

#include "bwacct/gpu.h"
#include "bwacct/plot.h"
#include "bwacct/record.h"
#include "command.h"

namespace bwacct::cli {

OptionSpec plot_option();

// The --plot path when it was given (empty when not). Throws InputError("--plot", ...) when the path
// does not end in .svg, is a directory, or lies in a folder that is missing or not writable: call it
// before printing anything.
std::string checked_plot_path(const Args& args);

// Writes --plot when it was given; throws InputError("--plot", ...) when the path is not *.svg or
// cannot be written. `title` heads the chart.
void write_plot_if_asked(const Args& args, const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus,
                         const std::string& title);
// The same with the calibrated roofs to draw dashed.
void write_plot_if_asked(const Args& args, const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus,
                         const PlotOptions& options);

}  // namespace bwacct::cli
