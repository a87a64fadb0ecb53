// plot_svg: picks the chart for the records (include/bwacct/plot.h).
#include "plot_charts.h"

namespace bwacct {

std::string plot_svg(const std::vector<Record>& records, const std::vector<const GpuSpec*>& gpus, const PlotOptions& opt) {
    if (plot::is_collective_sweep(records))
        return plot::collective_chart(records, gpus, opt);
    return plot::roofline_chart(records, gpus, opt);
}

}  // namespace bwacct
