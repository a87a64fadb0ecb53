// AMD rocprof's kernel statistics CSV (nsys_parts.h): `rocprof --stats` (results.stats.csv: "Name","Calls",
// "TotalDurationNs","AverageNs","Percentage") and `rocprofv3 --stats` (kernel_stats.csv: the same, then "MinNs",
// "MaxNs","StdDev"). One row per kernel, the layout of nsys's kernel summary: read into the same rows.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "bwacct/error.h"
#include "csv.h"
#include "nsys_parts.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using nsys_parts::blank;
using nsys_parts::in_us;
using nsys_parts::is_fence;

constexpr const char* kExpected =
    "expected rocprof's kernel statistics (`rocprof --stats` results.stats.csv, `rocprofv3 --stats` kernel_stats.csv: "
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"[,\"MinNs\",\"MaxNs\",\"StdDev\"])";

bool is_header(const std::string& line) {
    return line.find("Name") != std::string::npos && line.find("Calls") != std::string::npos &&
           line.find("TotalDurationNs") != std::string::npos;
}

// A name of the HIP or HSA API (hipMemcpy, __hipPushCallConfiguration, hsa_signal_wait_scacquire): the rows of
// rocprof's hip_stats / hsa_stats files, which share the kernel statistics' header.
bool is_api_name(const std::string& n) {
    const bool ident = std::all_of(n.begin(), n.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
    return ident && (n.rfind("hip", 0) == 0 || n.rfind("__hip", 0) == 0 || n.rfind("hsa", 0) == 0 || n.rfind("roctx", 0) == 0);
}

// rocprofv3's domain and memory-copy statistics name domains in capitals: KERNEL_DISPATCH, HIP_RUNTIME_API,
// MEMORY_COPY_HOST_TO_DEVICE.
bool is_domain_name(const std::string& n) {
    return !n.empty() && std::all_of(n.begin(), n.end(), [](unsigned char c) { return std::isupper(c) || c == '_'; });
}

}  // namespace

std::optional<NsysKernSum> nsys_parts::parse_rocprof_stats(const std::vector<std::string>& lines, const std::string& origin) {
    std::size_t h = 0;
    while (h < lines.size() && !is_header(lines[h]))
        ++h;
    if (h == lines.size())
        return std::nullopt;
    std::string table;
    for (std::size_t i = h; i < lines.size() && !blank(lines[i]) && !is_fence(lines[i]); ++i)
        table += lines[i] + "\n";
    const std::vector<ingest::CsvRecord> records = ingest::parse_csv(table, origin);
    if (records.empty())  // the header line's CSV held no record (an unclosed quote swallowed it)
        return std::nullopt;
    const std::vector<std::string>& head = records.front().fields;
    const auto col = [&head](const char* t) {
        return static_cast<std::size_t>(std::find(head.begin(), head.end(), t) - head.begin());
    };
    const std::size_t name = col("Name"), calls = col("Calls"), total = col("TotalDurationNs"), avg = col("AverageNs"),
                      pct = col("Percentage"), min = col("MinNs"), max = col("MaxNs"), sd = col("StdDev");
    if (name == head.size() || calls == head.size() || total == head.size())
        throw InputError(
            origin, fmt::format("line {}: the header lacks \"Name\", \"Calls\" or \"TotalDurationNs\"; {}", h + 1, kExpected));
    NsysKernSum out;
    out.table_line = h + 1;
    out.from_rocprof = true;
    out.profiler = "rocprof";
    std::size_t api = 0, domain = 0;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const std::vector<std::string>& f = records[r].fields;
        const std::size_t line = h + records[r].line;
        if (f.size() != head.size())
            throw InputError(origin, fmt::format("line {}: {} fields where the header has {} (file truncated?); {}", line,
                                                 f.size(), head.size(), kExpected));
        const auto num = [&](std::size_t c) -> std::optional<double> {
            if (c == head.size())
                return std::nullopt;
            const std::optional<double> v = parse_number_text(f[c]);
            if (!v || *v < 0)
                throw InputError(
                    origin, fmt::format("line {}: {} '{}' is not a non-negative number; {}", line, head[c], f[c], kExpected));
            return v;
        };
        NsysKernel k;
        k.name = f[name];
        const std::optional<double> n = num(calls);
        if (k.name.empty() || *n < 1 || *n != std::floor(*n) || *n > 1e18)
            throw InputError(
                origin, fmt::format("line {}: a row without a name or a whole Calls >= 1 ('{}'); {}", line, f[calls], kExpected));
        k.instances = static_cast<std::uint64_t>(*n);
        k.total_us = in_us(*num(total), 1e-3);
        if (const auto v = num(avg))
            k.avg_us = in_us(*v, 1e-3);
        if (const auto v = num(min))
            k.min_us = in_us(*v, 1e-3);
        if (const auto v = num(max))
            k.max_us = in_us(*v, 1e-3);
        if (const auto v = num(sd))
            k.stddev_us = in_us(*v, 1e-3);
        k.time_pct = num(pct);
        api += is_api_name(k.name) ? 1 : 0;
        domain += is_domain_name(k.name) ? 1 : 0;
        k.category = classify_kernel(k.name);
        out.kernels.push_back(std::move(k));
    }
    if (out.kernels.empty())
        throw InputError(origin, fmt::format("the rocprof statistics table at line {} has no rows; {}", h + 1, kExpected));
    if (api == out.kernels.size())
        throw InputError(origin, fmt::format("the rocprof statistics at line {} are HIP/HSA API calls ('{}', ...: rocprof's "
                                             "hip_stats or hsa_stats file), not kernels; {}",
                                             h + 1, out.kernels.front().name, kExpected));
    if (domain == out.kernels.size())
        throw InputError(origin, fmt::format("the rocprof statistics at line {} are per domain or memory copy ('{}', ...: "
                                             "rocprofv3's domain_stats or memory_copy_stats file), not kernels; {}",
                                             h + 1, out.kernels.front().name, kExpected));
    out.format = fmt::format("rocprof kernel statistics CSV (AMD ROCm: rocprof --stats / rocprofv3 --stats; {} kernel{})",
                             out.kernels.size(), out.kernels.size() == 1 ? "" : "s");
    return out;
}

}  // namespace bwacct
