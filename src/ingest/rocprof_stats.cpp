// AMD rocprof's kernel statistics CSV (nsys_parts.h): `rocprof --stats` (results.stats.csv: "Name","Calls",
// "TotalDurationNs","AverageNs","Percentage") and `rocprofv3 --stats` (kernel_stats.csv: the same, then "MinNs",
// "MaxNs","StdDev"). One row per kernel, the layout of nsys's kernel summary: read into the same rows. Without one,
// rocprofv3's kernel trace (kernel_trace.csv, one row per dispatch) is summed per kernel name, as nsys's GPU trace.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "bwacct/error.h"
#include "csv.h"
#include "nsys_parts.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using nsys_parts::blank;
using nsys_parts::in_us;
using nsys_parts::is_elision;
using nsys_parts::is_fence;

constexpr const char* kExpected =
    "expected rocprof's kernel statistics (`rocprof --stats` results.stats.csv, `rocprofv3 --stats` kernel_stats.csv: "
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"[,\"MinNs\",\"MaxNs\",\"StdDev\"], or "
    "`rocprofv3 --kernel-trace` kernel_trace.csv: \"Kernel_Name\",...,\"Start_Timestamp\",\"End_Timestamp\", or rocprof v1's "
    "results.csv: \"KernelName\",...,\"BeginNs\",\"EndNs\"; with `--memory-copy-trace` the same run's memory_copy_trace.csv: "
    "\"Kind\",\"Direction\",...,\"Start_Timestamp\",\"End_Timestamp\")";

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

// rocprof v1's memory copies (results.copy_stats.csv, its copy domain, under the same header): "CopyHostToDevice",
// "CopyDeviceToHost", "CopyDeviceToDevice", "CopyHostToHost", and a fill (hipMemset) "FillBuffer". No kernel is named
// so (a HIP kernel's name carries its arguments or a mangling); a table is passed over only when every row is one.
bool is_copy_name(const std::string& n) {
    for (const char* from : {"Host", "Device"})
        for (const char* to : {"Host", "Device"})
            if (n == fmt::format("Copy{}To{}", from, to))
                return true;
    return n == "FillBuffer";
}

// Who a kernel trace's rows belong to: the GPU agents they ran on ("Agent_Id" values as written) and their
// "Correlation_Id" values (one counter per process: a copy of the same process never reuses a kernel's id).
struct TraceIds {
    std::set<std::string> agents, correlations;
};

// A per-dispatch kernel trace: rocprofv3's kernel_trace.csv ("Kernel_Name", "Start_Timestamp", "End_Timestamp") or
// rocprof v1's results.csv ("KernelName", "BeginNs", "EndNs"), among other columns.
bool is_trace_header(const std::string& line) {
    const auto has = [&line](const char* t) { return line.find(t) != std::string::npos; };
    return (has("Kernel_Name") && has("Start_Timestamp") && has("End_Timestamp")) ||
           (has("KernelName") && has("BeginNs") && has("EndNs"));
}

// The lines of the CSV table whose header is lines[h]: to a blank line, a code fence, an elision line, a line
// without a comma (a shell prompt pasted straight after the rows; every row of these tables has several fields) or
// the header of another table (stats files joined by `cat a.stats.csv b.stats.csv`, no blank line between), none of
// which ends it while a quoted cell is open (a title or kernel name wrapped onto the next line); `end` where it
// stopped (parse it with first line h + 1, so that records and errors carry the file's line numbers).
std::string table_text(const std::vector<std::string>& lines, std::size_t h, std::size_t& end) {
    std::string table;
    bool quoted = false;  // a quote opened and not yet closed ("" inside a cell toggles twice)
    const auto ends = [&lines, h](std::size_t i) {
        return blank(lines[i]) || is_fence(lines[i]) || is_elision(lines[i]) ||
               (i > h && (lines[i].find(',') == std::string::npos || is_header(lines[i]) || is_trace_header(lines[i])));
    };
    for (end = h; end < lines.size() && (quoted || !ends(end)); ++end) {
        table += lines[end] + "\n";
        quoted = (std::count(lines[end].begin(), lines[end].end(), '"') % 2 == 1) != quoted;
    }
    return table;
}

// The CSV of the table whose header is lines[h], each cell wrapped across lines joined back (its line breaks
// dropped: "NormKernel1(int, dou" + "ble)" is one kernel name, "Std" + "Dev" the title StdDev).
std::vector<ingest::CsvRecord> table_records(const std::vector<std::string>& lines, std::size_t h, const std::string& origin,
                                             std::size_t& end) {
    std::vector<ingest::CsvRecord> records = ingest::parse_csv(table_text(lines, h, end), origin, ',', h + 1);
    for (ingest::CsvRecord& r : records)
        for (std::string& f : r.fields)
            f.erase(std::remove_if(f.begin(), f.end(), [](char c) { return c == '\n' || c == '\r'; }), f.end());
    return records;
}

// A timestamp in ns as rocprofv3 writes it: a whole number, read exactly (nanoseconds since boot pass 2^53, where
// a double stops holding every integer, after 104 days).
std::optional<std::uint64_t> timestamp(const std::string& cell) {
    const std::string t = nsys_parts::trim(cell);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size())
        return std::nullopt;
    return v;
}

// A header of one cell: the columns are not comma-separated (a markdown table, space- or tab-separated columns).
void refuse_unless_csv(const std::vector<std::string>& head, std::size_t h, const char* what, const std::string& origin) {
    if (head.size() == 1)
        throw InputError(origin, fmt::format("line {}: the rocprof {} header is not comma-separated CSV (a markdown table or "
                                             "columns split by spaces or tabs?); {}",
                                             h + 1, what, kExpected));
}

// The statistics table whose header is lines[h]: its rows, or in `why` the reason they are not kernels (HIP/HSA
// API calls, rocprofv3 domains).
NsysKernSum read_stats_table(const std::vector<std::string>& lines, std::size_t h, const std::string& origin, std::string& why,
                             std::size_t& end) {
    const std::vector<ingest::CsvRecord> records = table_records(lines, h, origin, end);
    NsysKernSum out;
    out.table_line = h + 1;
    if (records.empty())  // the header line's CSV held no record (an unclosed quote swallowed it)
        return out;
    const std::vector<std::string>& head = records.front().fields;
    refuse_unless_csv(head, h, "statistics", origin);
    const auto col = [&head](const char* t) {
        return static_cast<std::size_t>(std::find(head.begin(), head.end(), t) - head.begin());
    };
    const std::size_t name = col("Name"), calls = col("Calls"), total = col("TotalDurationNs"), avg = col("AverageNs"),
                      pct = col("Percentage"), min = col("MinNs"), max = col("MaxNs"), sd = col("StdDev");
    if (name == head.size() || calls == head.size() || total == head.size())
        throw InputError(
            origin, fmt::format("line {}: the header lacks \"Name\", \"Calls\" or \"TotalDurationNs\"; {}", h + 1, kExpected));
    out.from_rocprof = true;
    out.profiler = "rocprof";
    std::size_t api = 0, domain = 0, copy = 0;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const std::vector<std::string>& f = records[r].fields;
        const std::size_t line = records[r].line;
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
        copy += is_copy_name(k.name) ? 1 : 0;
        k.category = classify_kernel(k.name);
        out.kernels.push_back(std::move(k));
    }
    if (out.kernels.empty())
        throw InputError(origin, fmt::format("the rocprof statistics table at line {} has no rows; {}", h + 1, kExpected));
    if (api == out.kernels.size())
        why = fmt::format(
            "the rocprof statistics at line {} are HIP/HSA API calls ('{}', ...: rocprof's hip_stats or "
            "hsa_stats file), not kernels",
            h + 1, out.kernels.front().name);
    else if (domain == out.kernels.size())
        why = fmt::format(
            "the rocprof statistics at line {} are per domain or memory copy ('{}', ...: rocprofv3's "
            "domain_stats or memory_copy_stats file), not kernels",
            h + 1, out.kernels.front().name);
    else if (copy == out.kernels.size())
        why =
            fmt::format("the rocprof statistics at line {} are memory copies ('{}', ...: rocprof's copy_stats file), not kernels",
                        h + 1, out.kernels.front().name);
    if (end < lines.size() && is_elision(lines[end]))
        out.warnings.push_back(nsys_parts::elision_warning(h + 1, end + 1, lines[end], out.kernels.size()));
    out.format = fmt::format("rocprof kernel statistics CSV (AMD ROCm: rocprof --stats / rocprofv3 --stats; {} kernel{})",
                             out.kernels.size(), out.kernels.size() == 1 ? "" : "s");
    return out;
}

// rocprofv3's kernel trace whose header is lines[h]: each dispatch's End_Timestamp - Start_Timestamp (ns), summed
// per Kernel_Name.
// `ids`: its rows' agents and correlation ids (none where it has no such column).
NsysKernSum read_kernel_trace(const std::vector<std::string>& lines, std::size_t h, const std::string& origin, TraceIds& ids) {
    std::size_t end = h;
    const std::vector<ingest::CsvRecord> records = table_records(lines, h, origin, end);
    if (records.empty())
        throw InputError(origin, fmt::format("line {}: a kernel trace header with no table under it; {}", h + 1, kExpected));
    const std::vector<std::string>& head = records.front().fields;
    refuse_unless_csv(head, h, "kernel trace", origin);
    // The first of the names a column has (rocprofv3's, then rocprof v1's), its title trimmed.
    const auto col = [&head](std::initializer_list<const char*> names) {
        for (const char* t : names)
            for (std::size_t c = 0; c < head.size(); ++c)
                if (nsys_parts::trim(head[c]) == t)
                    return c;
        return head.size();
    };
    const bool v1 = col({"Kernel_Name"}) == head.size();
    const std::size_t name = col({"Kernel_Name", "KernelName"}), start = col({"Start_Timestamp", "BeginNs"}),
                      stop = col({"End_Timestamp", "EndNs"}), agent = col({"Agent_Id"}), corr = col({"Correlation_Id"});
    if (name == head.size() || start == head.size() || stop == head.size())
        throw InputError(origin, fmt::format("line {}: the kernel trace header lacks a kernel name, start or end column of its "
                                             "own (\"Kernel_Name\", \"Start_Timestamp\", \"End_Timestamp\"; rocprof v1: "
                                             "\"KernelName\", \"BeginNs\", \"EndNs\"); {}",
                                             h + 1, kExpected));
    std::vector<std::pair<std::string, std::vector<double>>> launches;
    std::map<std::string, std::size_t> index;
    std::size_t rows = 0;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const std::vector<std::string>& f = records[r].fields;
        const std::size_t line = records[r].line;
        if (f.size() != head.size())
            throw InputError(origin, fmt::format("line {}: {} fields where the kernel trace header has {} (file truncated?); {}",
                                                 line, f.size(), head.size(), kExpected));
        const std::optional<std::uint64_t> t0 = timestamp(f[start]), t1 = timestamp(f[stop]);
        if (f[name].empty() || !t0 || !t1 || *t1 < *t0)
            throw InputError(origin, fmt::format("line {}: a kernel trace row without a kernel name and whole-ns timestamps "
                                                 "with its end >= its start ('{}', '{}'); {}",
                                                 line, f[start], f[stop], kExpected));
        const auto [it, added] = index.emplace(f[name], launches.size());
        if (added)
            launches.push_back({f[name], {}});
        launches[it->second].second.push_back(static_cast<double>(*t1 - *t0));
        if (agent != head.size())
            ids.agents.insert(nsys_parts::trim(f[agent]));
        if (corr != head.size())
            ids.correlations.insert(nsys_parts::trim(f[corr]));
        ++rows;
    }
    if (rows == 0)
        throw InputError(origin, fmt::format("the rocprofv3 kernel trace at line {} has no rows; {}", h + 1, kExpected));
    NsysKernSum out;
    out.table_line = h + 1;
    for (std::size_t k = end; k < lines.size(); ++k)
        if (is_trace_header(lines[k]))
            out.other_tables.push_back(k + 1);
    nsys_parts::sum_launches(launches, 1e-3, origin, out);
    if (end < lines.size() && is_elision(lines[end]))
        out.warnings.push_back(nsys_parts::elision_warning(h + 1, end + 1, lines[end], rows));
    out.from_trace = true;
    out.from_rocprof = true;
    out.profiler = "rocprof";
    out.format = fmt::format("{} (AMD ROCm; {} dispatch row{} summed per kernel name)",
                             v1 ? "rocprof v1 per-dispatch results.csv" : "rocprofv3 kernel trace CSV (--kernel-trace)", rows,
                             rows == 1 ? "" : "s");
    return out;
}

// rocprofv3's memory copy trace (memory_copy_trace.csv: "Kind","Direction",...,"Start_Timestamp","End_Timestamp").
bool is_copy_trace_header(const std::string& line) {
    const auto has = [&line](const char* t) { return line.find(t) != std::string::npos; };
    return has("\"Direction\"") && has("Start_Timestamp") && has("End_Timestamp") && !has("Kernel_Name");
}

// The memory copy trace whose header is lines[h], summed per Direction (MEMORY_COPY_HOST_TO_DEVICE, ...) into out.memory_ops:
// count and End_Timestamp - Start_Timestamp (ns); bytes from a "Bytes" column where the file has one (rocprofv3 of
// ROCm 6 writes none: the copies are then listed without bytes). A row that does not read (cut off: fields missing, an
// end before its start) is left out, warned; `bad`: the first such row, said. With `kernels` (the kernel trace's ids),
// copies of another process are not attached (warned), told by identity, never by time (a run may upload, then load
// code for 300 ms, or read back after a second of host work): a copy whose GPU agent (the device end of a
// HOST_TO_DEVICE/DEVICE_TO_HOST copy, either end of another) is none of the kernels' agents, or a copy trace reusing a
// kernel's Correlation_Id (rocprofv3 writes one file per process, each counting from its start).
void read_copy_trace(const std::vector<std::string>& lines, std::size_t h, const std::string& origin, NsysKernSum& out,
                     const std::optional<TraceIds>& kernels, std::string& bad) {
    std::size_t end = h;
    const std::vector<ingest::CsvRecord> records = table_records(lines, h, origin, end);
    if (records.empty())
        return;
    const std::vector<std::string>& head = records.front().fields;
    refuse_unless_csv(head, h, "memory copy trace", origin);
    const auto col = [&head](const char* t) {
        for (std::size_t c = 0; c < head.size(); ++c)
            if (nsys_parts::trim(head[c]) == t)
                return c;
        return head.size();
    };
    const std::size_t dir = col("Direction"), start = col("Start_Timestamp"), stop = col("End_Timestamp"), bytes = col("Bytes");
    const std::size_t src = col("Source_Agent_Id"), dst = col("Destination_Agent_Id"), corr = col("Correlation_Id");
    if (dir == head.size() || start == head.size() || stop == head.size())
        return;
    std::vector<NsysMemOp> ops;
    std::size_t left_out = 0;
    std::string foreign_agent, shared_id;  // the first copy on another agent, the first kernel id reused
    for (std::size_t r = 1; r < records.size(); ++r) {
        const std::vector<std::string>& f = records[r].fields;
        const std::size_t line = records[r].line;
        const std::optional<std::uint64_t> t0 = f.size() == head.size() ? timestamp(f[start]) : std::nullopt,
                                           t1 = f.size() == head.size() ? timestamp(f[stop]) : std::nullopt;
        if (!t0 || !t1 || *t1 < *t0 || f[dir].empty()) {
            if (left_out++ == 0)
                bad = fmt::format(
                    "line {}: a memory copy trace row ({} fields, the header {}) without a Direction and whole-ns "
                    "timestamps with its end >= its start",
                    line, f.size(), head.size());
            continue;
        }
        if (kernels && !kernels->agents.empty() && src != head.size() && dst != head.size() && foreign_agent.empty()) {
            const bool up = f[dir].find("HOST_TO_DEVICE") != std::string::npos,
                       down = f[dir].find("DEVICE_TO_HOST") != std::string::npos;
            const auto ours = [&kernels](const std::string& a) { return kernels->agents.count(nsys_parts::trim(a)) > 0; };
            if (up ? !ours(f[dst]) : down ? !ours(f[src]) : !ours(f[src]) && !ours(f[dst]))
                foreign_agent = fmt::format("line {} copies on {}", line, nsys_parts::trim(up ? f[dst] : f[src]));
        }
        if (kernels && corr != head.size() && shared_id.empty() && kernels->correlations.count(nsys_parts::trim(f[corr])) > 0)
            shared_id = fmt::format("line {} reuses Correlation_Id {}", line, nsys_parts::trim(f[corr]));
        std::optional<double> b;
        if (bytes != head.size())
            if (const std::optional<std::uint64_t> v = timestamp(f[bytes]); v && *v > 0)
                b = static_cast<double>(*v);
        // ROCm 6 writes the direction bare ("HOST_TO_DEVICE"), ROCm 7 with its kind ("MEMORY_COPY_HOST_TO_DEVICE").
        const std::string op = f[dir].rfind("MEMORY_COPY_", 0) == 0 ? f[dir] : "MEMORY_COPY_" + f[dir];
        auto it = std::find_if(ops.begin(), ops.end(), [&op](const NsysMemOp& m) { return m.operation == op; });
        if (it == ops.end()) {
            ops.push_back({op, 0, 0, bytes != head.size() ? std::optional<double>(0.0) : std::nullopt});
            it = ops.end() - 1;
        }
        ++it->count;
        it->total_us = in_us(it->total_us * 1e3 + static_cast<double>(*t1 - *t0), 1e-3);
        if (it->bytes)
            it->bytes = b ? std::optional<double>(*it->bytes + *b) : std::nullopt;  // a copy without its size: none for all
    }
    if (left_out > 0)
        out.warnings.push_back(fmt::format("{}: left out{}", bad,
                                           left_out > 1 ? fmt::format(" with {} more such rows", left_out - 1) : std::string()));
    if (!foreign_agent.empty() || !shared_id.empty()) {
        out.warnings.push_back(fmt::format(
            "the memory copy trace at line {} is another process's (rocprofv3 writes a file per process): {}, its copies "
            "not attached",
            h + 1,
            !foreign_agent.empty() ? foreign_agent + ", an agent the kernel trace does not run on"
                                   : shared_id + " of the kernel trace (one counter per process)"));
        return;
    }
    out.memory_ops.insert(out.memory_ops.end(), ops.begin(), ops.end());
}

}  // namespace

std::optional<NsysKernSum> nsys_parts::parse_rocprof_stats(const std::vector<std::string>& lines, const std::string& origin) {
    std::optional<NsysKernSum> found;
    std::string refusal;              // why the first table passed over holds no kernels
    std::vector<std::string> passed;  // the lines of the first tables passed over
    std::size_t passed_count = 0;
    // Tables that could not be read (a later API table cut mid-row, a prose line naming the columns): skipped with
    // a warning when a kernel table is read, else the first one's error is the refusal.
    std::optional<InputError> unread;
    std::vector<std::string> skipped;
    for (std::size_t h = 0; h < lines.size(); ++h) {
        if (!is_header(lines[h]))
            continue;
        std::string why;
        std::size_t end = h;
        NsysKernSum t;
        try {
            t = read_stats_table(lines, h, origin, why, end);
        } catch (const InputError& e) {
            if (!unread)
                unread = e;
            std::string reason = e.what();
            reason = reason.substr(0, reason.find("; expected"));
            if (reason.rfind(origin + ": ", 0) == 0)
                reason.erase(0, origin.size() + 2);
            skipped.push_back(fmt::format("the rocprof table at line {} was not read ({}): skipped", h + 1, reason));
            h = std::max(h + 1, end) - 1;  // past its lines (the line that ended it may open the next table)
            continue;
        }
        if (t.kernels.empty()) {  // a header that opened no record
        } else if (!why.empty()) {
            if (refusal.empty())
                refusal = why;
            if (++passed_count <= 5)  // the first five named, the rest counted
                passed.push_back(std::to_string(h + 1));
        } else if (!found) {
            found = std::move(t);
        } else {
            found->other_tables.push_back(h + 1);
        }
        h = std::max(h + 1, end) - 1;
    }
    const auto with_passed = [&passed, &passed_count, &skipped](NsysKernSum out) {
        out.warnings.insert(out.warnings.end(), skipped.begin(), skipped.end());
        if (passed_count > 0)
            out.warnings.push_back(fmt::format(
                "the rocprof statistics at line{} {}{} hold HIP/HSA API calls, memory copies or "
                "rocprofv3 domains, not kernels: passed over",
                passed_count == 1 ? "" : "s", fmt::join(passed, ", "),
                passed_count > passed.size() ? fmt::format(" and {} more", passed_count - passed.size()) : std::string()));
        return out;
    };
    // The run's memory copies (rocprofv3 --memory-copy-trace), the first such table, beside its kernels (of the same run:
    // `kernels`, the kernel trace's agents and correlation ids); a further copy table (another process's file) is warned, not
    // read.
    std::string bad_copy;
    const auto with_copies = [&lines, &origin, &bad_copy](NsysKernSum out, const std::optional<TraceIds>& kernels) {
        std::size_t first = 0;
        for (std::size_t h = 0; h < lines.size(); ++h)
            if (!is_copy_trace_header(lines[h])) {
            } else if (first == 0) {
                first = h + 1;
                read_copy_trace(lines, h, origin, out, kernels, bad_copy);
            } else {
                out.warnings.push_back(
                    fmt::format("the memory copy trace at line {} (another process's?) is not read: the "
                                "one at line {} is",
                                h + 1, first));
            }
        return out;
    };
    if (found)
        return with_copies(with_passed(std::move(*found)), std::nullopt);
    for (std::size_t h = 0; h < lines.size(); ++h)
        if (is_trace_header(lines[h])) {
            TraceIds ids;
            NsysKernSum k = read_kernel_trace(lines, h, origin, ids);
            return with_copies(with_passed(std::move(k)), ids);
        }
    if (!unread && refusal.empty()) {
        NsysKernSum copies = with_copies({}, std::nullopt);
        if (copies.memory_ops.empty() && !bad_copy.empty())
            throw InputError(origin, fmt::format("{}; {}", bad_copy, kExpected));
        if (!copies.memory_ops.empty()) {
            copies.from_trace = true;
            copies.from_rocprof = true;
            copies.profiler = "rocprof";
            copies.format = "rocprofv3 memory copy trace CSV (--memory-copy-trace; no kernel table)";
            return copies;
        }
    }
    if (unread)  // the first table that could not be read, said as such (its rows cut, or not CSV)
        throw InputError(origin, fmt::format("{}; {}", skipped.front().substr(0, skipped.front().rfind(": skipped")), kExpected));
    if (!refusal.empty())
        throw InputError(origin, fmt::format("{}; {}", refusal, kExpected));
    return std::nullopt;
}

}  // namespace bwacct
