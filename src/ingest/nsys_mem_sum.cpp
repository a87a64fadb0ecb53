// nsys's memory-operation summaries (nsys_parts.h): time and count per operation kind (cuda_gpu_mem_time_sum), and
// bytes where the size table (cuda_gpu_mem_size_sum) is there too.
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
using nsys_parts::in_us;
using nsys_parts::unit_to_us;

bool has(const std::string& line, const char* word) { return line.find(word) != std::string::npos; }

using nsys_parts::is_size_header;
using nsys_parts::is_time_header;

// Bytes per unit of a size column: "mb" 10^6 (nsys's MB: 4 MiB prints as 4.194), "kb" 10^3, "gb" 10^9, "b" 1,
// "kib" 1024, "mib" 2^20; none for an unknown unit.
std::optional<double> bytes_per(const std::string& unit) {
    if (unit == "b")
        return 1.0;
    if (unit == "kb")
        return 1e3;
    if (unit == "mb")
        return 1e6;
    if (unit == "gb")
        return 1e9;
    if (unit == "kib")
        return 1024.0;
    if (unit == "mib")
        return 1048576.0;
    return std::nullopt;
}

struct Cols {
    std::size_t total = 0, count = 0, op = 0;
    bool ok = false;
};

Cols columns(const std::vector<std::string>& headers, bool size, std::string& unit) {
    Cols c;
    bool total = false, count = false, op = false;
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const auto [b, u] = nsys_parts::split_title(headers[i]);
        if ((size ? b == "total" : b == "totaltime") && !total) {
            c.total = i;
            unit = u;
            total = true;
        } else if (b == "count" || b == "operations") {
            c.count = i;
            count = true;
        } else if (b == "operation" || b == "name") {
            c.op = i;
            op = true;
        }
    }
    c.ok = total && count && op;
    return c;
}

// A number cell, without a comment marker leading its line ("#      81.016": nsys's output kept as comments).
std::optional<double> number(std::string cell) {
    cell.erase(0, cell.find_first_not_of("#/ \t"));
    return parse_number_text(cell);
}

std::string last_nonblank_before(const std::vector<std::string>& lines, std::size_t h) {
    for (std::size_t i = h; i-- > 0;)
        if (!nsys_parts::blank(lines[i]))
            return lines[i];
    return "";
}

// The size unit a table's title names as the last word of a parenthesised group: "(by size in KiB)" -> "kib",
// "(MB)" -> "mb"; "" for none. Only there: a "Running [.../gpumemsizesum.py run_512MB.sqlite]" line above the
// table (nsys stats of 2021) names a report, and "MB" in its path is no unit.
std::string title_unit(const std::string& title) {
    const std::string t = nsys_parts::trim(title);
    if (t.rfind("Running [", 0) == 0 || t.rfind("Processing [", 0) == 0)
        return "";
    for (std::size_t open = t.find('('); open != std::string::npos; open = t.find('(', open + 1)) {
        const std::size_t close = t.find(')', open);
        if (close == std::string::npos)
            break;
        const std::string group = t.substr(open + 1, close - open - 1);
        std::string word = group.substr(group.find_last_of(' ') == std::string::npos ? 0 : group.find_last_of(' ') + 1);
        std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
        if (bytes_per(word))
            return word;
    }
    return "";
}

// The time table whose header is at line `h`: its memory operations, or none when the header's columns are not
// those of one or its rows are not memory operations (openmp_sum's events have the same columns).
std::vector<NsysMemOp> time_table(const std::vector<std::string>& lines, std::size_t h, const std::string& origin,
                                  NsysKernSum& out) {
    std::vector<std::string> headers;
    const auto rows = nsys_parts::table_rows(lines, h, headers, origin, out);
    std::string unit;
    const Cols tc = columns(headers, false, unit);
    // nsys 2021 prints no unit in the header and says "(nanoseconds)" in the title: its default, ns.
    const std::optional<double> to_us = unit_to_us(unit);
    if (!tc.ok || !to_us)
        return {};
    std::vector<NsysMemOp> ops;
    for (const auto& [line, cells] : rows) {
        if (cells.size() <= std::max({tc.total, tc.count, tc.op}))
            throw InputError(origin, fmt::format("line {}: {} cells where the memory operation table's header has {}", line,
                                                 cells.size(), headers.size()));
        const std::optional<double> t = number(cells[tc.total]), n = number(cells[tc.count]);
        if (!t || *t < 0 || !std::isfinite(in_us(*t, *to_us)) || !n || *n < 1 || *n != std::floor(*n) || *n > 1e18 ||
            cells[tc.op].empty())
            throw InputError(origin, fmt::format("line {}: a memory operation row without a total time, a whole count >= 1 "
                                                 "and an operation ('{}', '{}')",
                                                 line, cells[tc.total], cells[tc.count]));
        ops.push_back({nsys_parts::without_note(cells[tc.op]), static_cast<std::uint64_t>(*n), in_us(*t, *to_us), std::nullopt});
    }
    // nsys names memory operations in brackets ("[CUDA memcpy Host-to-Device]").
    if (std::any_of(ops.begin(), ops.end(),
                    [](const NsysMemOp& m) { return m.operation.front() != '[' || m.operation.back() != ']'; }))
        return {};
    return ops;
}

}  // namespace

namespace {
bool contains(const std::string& line, const char* word) { return line.find(word) != std::string::npos; }
}  // namespace

// cuda_gpu_mem_time_sum and its 2020-2022 forms: a total time, a count ("Count", "Operations") and no
// kernel or API column ("Instances", "Num Calls").
bool nsys_parts::is_time_header(const std::string& l) {
    return contains(l, "Total Time") && (contains(l, "Count") || contains(l, "Operations")) && !contains(l, "Instances") &&
           !contains(l, "Calls");
}

// cuda_gpu_mem_size_sum: a total size ("Total (MB)", or "Total" under a "(by size in KiB)" title), a count and an
// operation, no time.
bool nsys_parts::is_size_header(const std::string& l) {
    const std::size_t t = l.find("Total");
    return t != std::string::npos && !contains(l, "Time") && (contains(l, "Count") || contains(l, "Operations")) &&
           contains(l, "Operation") && l.find_first_not_of(" \t|#/,\"") == t;
}

bool nsys_parts::read_memory_tables(const std::vector<std::string>& lines, std::size_t from, std::size_t to,
                                    const std::string& origin, NsysKernSum& out, const std::vector<bool>& swapped) {
    to = std::min(to, lines.size());
    // The first time table that holds memory operations (another table with its columns may come first).
    std::vector<NsysMemOp> ops;
    std::size_t size_h = to;
    for (std::size_t i = from; i < to; ++i) {
        if (ops.empty() && is_time_header(lines[i]))
            ops = time_table(lines, i, origin, out);
        else if (size_h == to && is_size_header(lines[i]))
            size_h = i;
    }
    if (ops.empty())
        return false;
    std::vector<std::string> headers;
    std::string unit;
    out.memory_ops.insert(out.memory_ops.end(), ops.begin(), ops.end());
    if (size_h == to)
        return true;
    const auto rows = table_rows(lines, size_h, headers, origin, out);
    const Cols sc = columns(headers, true, unit);
    if (!sc.ok)
        return true;
    // A size column without a unit (nsys 2020-2021) takes it from the title above: "(by size in KiB)".
    // Without such a title (`nsys stats` of 2021 prints "Running [.../gpumemsizesum.py ...]" over it), the
    // header's "Operations" (2020-2021; "Count" since, with "Total (MB)") says it is of those versions: KiB.
    if (unit.empty()) {
        unit = title_unit(last_nonblank_before(lines, size_h));
        if (unit.empty() && has(lines[size_h], "Operations")) {
            unit = "kib";
            out.warnings.push_back(
                fmt::format("the memory size table at line {} gives no unit: read in KiB, the unit of nsys 2020-2021 "
                            "(its 'Operations' column)",
                            size_h + 1));
        }
    }
    // nsys 2021 in a decimal-comma locale prints sizes cut down to whole KiB.
    if (std::any_of(rows.begin(), rows.end(),
                    [&swapped](const auto& r) { return r.first - 1 < swapped.size() && swapped[r.first - 1]; }))
        out.warnings.push_back(
            fmt::format("line {}: the memory size table is of a decimal-comma locale, where nsys prints sizes "
                        "cut down to whole KiB: its bytes and GB/s are lower bounds",
                        size_h + 1));
    const std::optional<double> scale = bytes_per(unit);
    std::string zeros;  // operations whose size is printed as 0
    if (!scale) {
        out.warnings.push_back(
            fmt::format("the memory size table at line {} has a size unit bwacct does not know ('{}'): "
                        "memory operations are listed without bytes",
                        size_h + 1, unit));
        return true;
    }
    for (const auto& [line, cells] : rows) {
        if (cells.size() <= std::max({sc.total, sc.count, sc.op}))
            throw InputError(origin, fmt::format("line {}: {} cells where the memory size table's header has {}", line,
                                                 cells.size(), headers.size()));
        const std::optional<double> b = number(cells[sc.total]);
        if (!b || *b < 0 || !std::isfinite(*b * *scale))
            throw InputError(origin, fmt::format("line {}: memory size '{}' is not a non-negative number of bytes a double holds",
                                                 line, cells[sc.total]));
        // A size printed as 0 ("0.000" MB) is below the table's precision, not zero bytes: no bytes, no rate.
        if (*b == 0) {
            zeros += (zeros.empty() ? "" : ", ") + nsys_parts::without_note(cells[sc.op]);
            continue;
        }
        for (NsysMemOp& m : out.memory_ops)
            if (m.operation == nsys_parts::without_note(cells[sc.op]))
                m.bytes = *b * *scale;
    }
    if (!zeros.empty())
        out.warnings.push_back(
            fmt::format("the memory size table at line {} prints 0 for {}: below its printed precision, so "
                        "no bytes and no GB/s for {}",
                        size_h + 1, zeros, zeros.find(", ") == std::string::npos ? "it" : "them"));
    return true;
}

}  // namespace bwacct
