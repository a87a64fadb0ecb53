// The IngestReport of an nsys kernel summary: per-kernel times and time per category.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <variant>
#include <vector>

#include "bwacct/ingest_nsight.h"

namespace bwacct {
namespace {

Cell opt(const std::optional<double>& v) { return v ? Cell(*v) : Cell(); }

// Memory operations per kind: count, time, and where the size table gives bytes, the rate = bytes / time.
Section memory_section(const std::vector<NsysMemOp>& ops) {
    Section m;
    m.key = "memory_ops";
    m.title = "Memory operations (memcpy, memset)";
    m.columns = {{"operation", "operation", 0}, {"count", "count", 0}, {"total_us", "total us", 1},
                 {"avg_us", "avg us", 3},       {"bytes", "bytes", 0}, {"GBps", "GB/s", 2}};
    bool any_bytes = false;
    for (const NsysMemOp& op : ops) {
        any_bytes = any_bytes || op.bytes.has_value();
        const std::optional<double> bytes = op.bytes ? std::optional<double>(std::round(*op.bytes)) : std::nullopt;
        const std::optional<double> rate =
            op.bytes && op.total_us > 0 ? std::optional<double>(*op.bytes / (op.total_us * 1e3)) : std::nullopt;
        m.rows.push_back({op.operation, op.count, op.total_us,
                          std::round(op.total_us / static_cast<double>(op.count) * 1e6) / 1e6, opt(bytes), opt(rate)});
    }
    m.notes.push_back(
        any_bytes ? "GB/s = bytes / total time (10^9 B/s); bytes from the file's size table or column (nsys's MB = "
                    "10^6 B; nvprof's MB = 2^20 B in traces with SrcMemType/DstMemType columns, 10^6 B before them), good to its "
                    "printed digits; avg us = total / count"
                  : "no bytes (no size table, or sizes printed below its precision): times and counts only; "
                    "avg us = total / count");
    return m;
}

}  // namespace

IngestReport nsys_report(const NsysKernSum& sum, const std::string& file) {
    IngestReport r;
    r.tool = "nsys";
    r.measured_by = sum.profiler;  // the profiler that wrote the file, when not nsys
    r.file = file;
    r.format = sum.format;

    double total_us = 0;
    for (const NsysKernel& k : sum.kernels)
        total_us += k.total_us;

    Section kernels;
    kernels.key = "kernels";
    kernels.title = sum.from_trace && sum.from_rocprof ? "Kernels (rocprof kernel trace summed per kernel name; times only)"
                    : sum.from_trace                   ? "Kernels (nsys GPU trace summed per kernel name; times only)"
                    : sum.from_nvprof                  ? "Kernels (nvprof summary, GPU activities; times only)"
                    : sum.from_rocprof                 ? "Kernels (AMD rocprof kernel statistics; times only)"
                                                       : "Kernels (nsys cuda_gpu_kern_sum; times only)";
    kernels.columns = {{"index", "#", 0},         {"kernel", "kernel", 0},     {"category", "category", 0},
                       {"time_pct", "time %", 1}, {"total_us", "total us", 1}, {"instances", "instances", 0},
                       {"avg_us", "avg us", 3},   {"med_us", "med us", 3},     {"min_us", "min us", 3},
                       {"max_us", "max us", 3}};
    Section names;
    names.key = "kernel_names";
    names.title = "Kernel names in full";
    names.columns = {{"name", "name", 0}, {"index", "#", 0}};
    for (std::size_t i = 0; i < sum.kernels.size(); ++i) {
        const NsysKernel& k = sum.kernels[i];
        kernels.rows.push_back({static_cast<std::uint64_t>(i + 1), short_kernel_name(k.name),
                                std::string(category_name(k.category)), opt(k.time_pct), k.total_us, k.instances, opt(k.avg_us),
                                opt(k.med_us), opt(k.min_us), opt(k.max_us)});
        names.rows.push_back({k.name, static_cast<std::uint64_t>(i + 1)});
    }
    kernels.notes.push_back(
        sum.from_trace     ? "time % = kernel total / sum of all kernel launches of the trace (memory operations left out), "
                             "computed here; med and min/max from the launch rows; category is a guess from the kernel name"
        : sum.from_nvprof  ? "time % is nvprof's own column: the share of all GPU activities, memory operations "
                             "included, so the kernels' shares add up to less than 100 where the file "
                             "has memory operations; category is a guess from the kernel name"
        : sum.from_rocprof ? "time % is rocprof's Percentage column (share of all kernel time); category is a guess "
                             "from the kernel name, by the same rules as for NVIDIA kernels"
                           : "time % is the file's own column; category is a guess from the kernel name");

    // Every category, in the enum's order (the rules' order in docs/ingest.md).
    std::vector<KernelCategory> order;
    for (std::size_t c = 0; c <= static_cast<std::size_t>(KernelCategory::other); ++c)
        order.push_back(static_cast<KernelCategory>(c));
    Section cats;
    cats.key = "by_category";
    cats.title = "Kernel time by category";
    cats.columns = {{"category", "category", 0},
                    {"kernels", "kernels", 0},
                    {"instances", "instances", 0},
                    {"total_us", "total us", 1},
                    {"share_pct", "share %", 1}};
    for (const KernelCategory c : order) {
        std::uint64_t n = 0, instances = 0;
        double us = 0;
        for (const NsysKernel& k : sum.kernels)
            if (k.category == c) {
                ++n;
                instances += k.instances;
                us += k.total_us;
            }
        if (n == 0)
            continue;
        cats.rows.push_back(
            {std::string(category_name(c)), n, instances, us, total_us > 0 ? Cell(100.0 * us / total_us) : Cell()});
    }
    // The answer first: the kernel time and the categories that take most of it (at most three).
    std::vector<std::pair<double, std::string>> by_time;
    for (const auto& row : cats.rows)
        if (total_us > 0)
            by_time.push_back({std::get<double>(row[3]), std::get<std::string>(row[0])});
    std::stable_sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string top;
    for (std::size_t i = 0; i < by_time.size() && i < 3; ++i)
        top += fmt::format("{}{} {:.1f} %", top.empty() ? "" : ", ", by_time[i].second, 100.0 * by_time[i].first / total_us);
    std::uint64_t launches = 0;
    for (const NsysKernel& k : sum.kernels)
        launches += k.instances;
    r.summary.lines.push_back(fmt::format("kernel time {:.1f} us over {} kernel{} ({} launch{}){}", total_us, sum.kernels.size(),
                                          sum.kernels.size() == 1 ? "" : "s", launches, launches == 1 ? "" : "es",
                                          top.empty() ? "" : "; top categories: " + top));
    cats.notes.push_back(fmt::format("share % = category total / sum of all kernel totals ({:.1f} us over {} kernel{})", total_us,
                                     sum.kernels.size(), sum.kernels.size() == 1 ? "" : "s"));
    r.sections = {std::move(kernels), std::move(cats), std::move(names)};
    if (!sum.memory_ops.empty())
        r.sections.push_back(memory_section(sum.memory_ops));
    if (sum.kernels.empty()) {
        double us = 0;
        for (const NsysMemOp& m : sum.memory_ops)
            us += m.total_us;
        r.summary.lines = {fmt::format("no kernel table: {} memory operation kind{}, {:.1f} us in all (see memory_ops)",
                                       sum.memory_ops.size(), sum.memory_ops.size() == 1 ? "" : "s", us)};
    }
    if (!sum.other_tables.empty()) {
        std::string lines;
        for (const std::size_t l : sum.other_tables)
            lines += fmt::format("{}{}", lines.empty() ? "" : ", ", l);
        r.warnings.push_back(
            fmt::format("the file holds {} kernel {} tables (several runs' output): read the one at line "
                        "{}; the one(s) at line {} were not read; split the file to ingest each run",
                        sum.other_tables.size() + 1, sum.from_trace ? "GPU trace" : "summary", sum.table_line, lines));
    }
    r.warnings.insert(r.warnings.end(), sum.warnings.begin(), sum.warnings.end());
    if (sum.from_rocprof)
        r.notes.push_back(
            "rocprof kernel statistics carry times only, no bytes or FLOPs: no bandwidth or roofline per kernel here "
            "(bwacct reads no AMD counter export)");
    else
        r.notes.push_back(
            "nsys kernel summaries carry times only, no bytes or FLOPs: no bandwidth or roofline per kernel here; "
            "profile the kernels that matter with `ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,"
            "gpu__time_duration.sum --csv` and read that with `bwacct ingest ncu`");
    return r;
}

}  // namespace bwacct
