// `nsys stats --report cuda_gpu_kern_sum` output, CSV or console table (include/bwacct/ingest_nsight.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <map>
#include <sstream>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"
#include "bwacct/median.h"
#include "csv.h"
#include "nsys_parts.h"

namespace bwacct {
namespace {

using ingest::dash_spans;
using ingest::parse_csv;
using ingest::parse_number_text;
using ingest::split_lines;
using nsys_parts::blank;
using nsys_parts::elision_warning;
using nsys_parts::in_us;
using nsys_parts::is_elision;
using nsys_parts::is_fence;
using nsys_parts::trim;
using nsys_parts::unit_to_us;

constexpr const char* kExpected =
    "expected `nsys stats --report cuda_gpu_kern_sum` output (CSV or text) with columns Time (%), Total Time, "
    "Instances, ..., Name, a GPU trace (--report cuda_gpu_trace) with columns Start, Duration, ..., GrdX, ..., Name, "
    "nvprof's summary (Type, Time(%), Time, Calls, Avg, Min, Max, Name), nsys's memory operation summary "
    "(--report cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum), AMD rocprof's kernel statistics CSV "
    "(\"Name\",\"Calls\",\"TotalDurationNs\",...), or rocprofv3's kernel_trace.csv (\"Kernel_Name\",...,"
    "\"Start_Timestamp\",\"End_Timestamp\") with its memory_copy_trace.csv (\"Kind\",\"Direction\",...), or rocprofv3's "
    "--summary tables ('| NAME | DOMAIN | CALLS | DURATION (nsec) | ...' with KERNEL_DISPATCH rows)";

enum class Col { pct, total, instances, avg, med, min, max, stddev, name, unknown };

struct HeaderColumn {
    Col col = Col::unknown;
    double to_us = 1e-3;  // unit of the header, ns unless it says otherwise
};

std::string squeeze_lower(const std::string& s) {
    std::string out;
    for (const char c : s)
        if (!std::isspace(static_cast<unsigned char>(c)))
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// "Total Time (ns)" -> {total, 1e-3}; "Avg (us)" -> {avg, 1}; "Name" -> {name}.
HeaderColumn classify_header(const std::string& header, const std::string& origin) {
    const auto [base, unit] = nsys_parts::split_title(header);
    HeaderColumn c;
    const std::optional<double> scale = unit_to_us(unit);
    const bool known_unit = scale || unit == "%";
    if (scale)
        c.to_us = *scale;
    if (base == "time" && unit == "%")
        c.col = Col::pct;
    else if (base == "totaltime")
        c.col = Col::total;
    else if (base == "instances")
        c.col = Col::instances;
    else if (base == "avg" || base == "average")
        c.col = Col::avg;
    else if (base == "med" || base == "median")
        c.col = Col::med;
    else if (base == "min" || base == "minimum")
        c.col = Col::min;
    else if (base == "max" || base == "maximum")
        c.col = Col::max;
    else if (base == "stddev")
        c.col = Col::stddev;
    else if (base == "name")
        c.col = Col::name;
    const bool timed = c.col == Col::total || c.col == Col::avg || c.col == Col::med || c.col == Col::min || c.col == Col::max ||
                       c.col == Col::stddev;
    if (timed && !known_unit)
        throw InputError(origin, fmt::format("column '{}' has unknown time unit '{}'; expected ns, us, ms or s", header, unit));
    return c;
}

bool is_kern_sum_header(const std::string& line) {
    return line.find("Total Time") != std::string::npos && line.find("Instances") != std::string::npos &&
           line.find("Name") != std::string::npos;
}

// A table whose cells are separated by '|': `nsys stats --format table` ("| Time (%) | ... |" between
// "+----+" borders) and the same table pasted as markdown ("|----|" under the header).
bool is_pipe_row(const std::string& line) {
    const std::string t = trim(line);
    return !t.empty() && t.front() == '|';
}

// A border or rule line of such a table: only '+', '-', '|', ':' and blanks, with at least one '-'.
bool is_pipe_rule(const std::string& line) {
    return line.find('-') != std::string::npos && line.find_first_not_of("+-|: \t") == std::string::npos;
}

// The trimmed cells of "| a | b |" (the outer bars dropped).
std::vector<std::string> pipe_cells(const std::string& line) {
    std::string t = trim(line);
    if (!t.empty() && t.front() == '|')
        t.erase(0, 1);
    if (!t.empty() && t.back() == '|')
        t.pop_back();
    std::vector<std::string> cells;
    std::size_t start = 0;
    for (std::size_t bar = t.find('|'); bar != std::string::npos; bar = t.find('|', start)) {
        cells.push_back(trim(t.substr(start, bar - start)));
        start = bar + 1;
    }
    cells.push_back(trim(t.substr(start)));
    return cells;
}

// One row from its cells (one per column), checked.
NsysKernel make_row(const std::vector<HeaderColumn>& cols, const std::vector<std::string>& cells, std::size_t line,
                    const std::string& origin) {
    NsysKernel k;
    bool have_total = false, have_instances = false;
    for (std::size_t i = 0; i < cols.size(); ++i) {
        const HeaderColumn& c = cols[i];
        if (c.col == Col::unknown)
            continue;
        if (c.col == Col::name) {
            k.name = nsys_parts::without_note(cells[i]);
            continue;
        }
        const std::optional<double> v = parse_number_text(cells[i]);
        if (!v || *v < 0)
            throw InputError(origin, fmt::format("line {}: '{}' is not a non-negative number; {}", line, cells[i], kExpected));
        switch (c.col) {
            case Col::pct:
                k.time_pct = *v;
                break;
            case Col::total:
                k.total_us = in_us(*v, c.to_us);
                have_total = true;
                break;
            case Col::instances:
                if (*v < 1 || *v != std::floor(*v) || *v > 1e18)
                    throw InputError(
                        origin, fmt::format("line {}: Instances '{}' is not a whole number >= 1; {}", line, cells[i], kExpected));
                k.instances = static_cast<std::uint64_t>(*v);
                have_instances = true;
                break;
            case Col::avg:
                k.avg_us = in_us(*v, c.to_us);
                break;
            case Col::med:
                k.med_us = in_us(*v, c.to_us);
                break;
            case Col::min:
                k.min_us = in_us(*v, c.to_us);
                break;
            case Col::max:
                k.max_us = in_us(*v, c.to_us);
                break;
            case Col::stddev:
                k.stddev_us = in_us(*v, c.to_us);
                break;
            default:
                break;
        }
    }
    if (!have_total || !have_instances || k.name.empty())
        throw InputError(origin, fmt::format("line {}: row without a total time, instance count or name; {}", line, kExpected));
    // One instance takes no longer than all of them, nor its shortest longer than its longest (each printed rounded:
    // a unit of slack): otherwise the cells are not the columns they sit under (numbers with blanks between thousands,
    // "2 176", split into cells of their own).
    if ((k.max_us && *k.max_us > k.total_us + 1e-3 * k.total_us + 1e-3) ||
        (k.min_us && k.max_us && *k.min_us > *k.max_us + 1e-3 * *k.max_us + 1e-3))
        throw InputError(origin, fmt::format("line {}: the cells do not line up with the header (a Min above the Max, or a Max "
                                             "above the Total Time: numbers with blanks between thousands?); {}",
                                             line, kExpected));
    k.category = classify_kernel(k.name);
    return k;
}

std::vector<HeaderColumn> columns_of(const std::vector<std::string>& headers, const std::string& origin) {
    std::vector<HeaderColumn> cols;
    for (const std::string& h : headers)
        cols.push_back(classify_header(h, origin));
    const auto has = [&](Col c) {
        return std::any_of(cols.begin(), cols.end(), [c](const HeaderColumn& x) { return x.col == c; });
    };
    if (!has(Col::total) || !has(Col::instances) || !has(Col::name))
        throw InputError(origin, fmt::format("the kernel table lacks a Total Time, Instances or Name column; {}", kExpected));
    return cols;
}

// Rows of a '|'-separated table whose header is lines[h]: border and rule lines are skipped; the table
// ends at the first line that is neither (a blank line, a code fence, text).
void read_pipe_table(const std::vector<std::string>& lines, std::size_t h, const std::string& origin, NsysKernSum& out) {
    const std::vector<HeaderColumn> cols = columns_of(pipe_cells(lines[h]), origin);
    const std::size_t name_col = static_cast<std::size_t>(
        std::find_if(cols.begin(), cols.end(), [](const HeaderColumn& c) { return c.col == Col::name; }) - cols.begin());
    for (std::size_t i = h + 1; i < lines.size(); ++i) {
        if (is_pipe_rule(lines[i]))
            continue;
        if (is_elision(lines[i])) {
            out.warnings.push_back(elision_warning(h + 1, i + 1, lines[i], out.kernels.size()));
            break;
        }
        if (!is_pipe_row(lines[i]))
            break;
        std::vector<std::string> cells = pipe_cells(lines[i]);
        // A '|' inside a kernel name in the last column (operator|) splits it: join the pieces back.
        if (cells.size() > cols.size() && name_col + 1 == cols.size()) {
            for (std::size_t k = cols.size(); k < cells.size(); ++k)
                cells[name_col] += "|" + cells[k];
            cells.resize(cols.size());
        }
        if (cells.size() != cols.size())
            throw InputError(origin, fmt::format("line {}: {} cells where the header has {} (file truncated?); {}", i + 1,
                                                 cells.size(), cols.size(), kExpected));
        out.kernels.push_back(make_row(cols, cells, i + 1, origin));
    }
    out.format = "nsys stats cuda_gpu_kern_sum table ('|' separated: --format table, or pasted as markdown)";
}

// The column titles of a console header, one per run of dashes of the rule under it. nsys prints each
// title within its column's dashes and two or more blanks between titles, whose own blanks are single
// ("Total Time (ns)"). A paste that shifted the header line alone (its leading blank lost, or one added)
// moves every title off its dashes; so when the header splits at runs of two or more blanks into exactly
// one title per column, those titles are taken in order, else each title is the text over its dashes.
std::vector<std::string> console_titles(const std::string& head, const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
    std::vector<std::string> split;
    for (std::size_t i = head.find_first_not_of(' '); i != std::string::npos; i = head.find_first_not_of(' ', i)) {
        std::size_t end = head.find("  ", i);
        if (end == std::string::npos)
            end = head.size();
        split.push_back(trim(head.substr(i, end - i)));
        i = end;
    }
    if (split.size() == spans.size())
        return split;
    std::vector<std::string> titles;
    for (const auto& [a, b] : spans)
        titles.push_back(a < head.size() ? trim(head.substr(a, b - a)) : std::string());
    return titles;
}

// The cells of a console row cut at the column extents of the dashed rule: each column from the end of
// the one before to the end of its own dashes (numbers are right-aligned to that end), the last column
// (the name) to the end of the line. Used when a column other than the name holds blanks itself
// (cuda_gpu_kern_gb_sum's GridXYZ and BlockXYZ, "  64    1    1").
std::vector<std::string> cells_by_extent(const std::string& line, const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
    std::vector<std::string> cells;
    std::size_t from = 0;
    for (std::size_t c = 0; c + 1 < spans.size(); ++c) {
        const std::size_t to = std::max(from, spans[c].second);
        cells.push_back(from < line.size() ? trim(line.substr(from, to - from)) : std::string());
        from = to;
    }
    cells.push_back(from < line.size() ? trim(line.substr(from)) : std::string());
    return cells;
}

// Every column bwacct reads holds a number in `cells`, and the name is there.
bool cells_fit(const std::vector<HeaderColumn>& cols, const std::vector<std::string>& cells) {
    if (cells.size() != cols.size())
        return false;
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (cols[i].col == Col::unknown)
            continue;
        if (cols[i].col == Col::name ? cells[i].empty() : !parse_number_text(cells[i]))
            return false;
    }
    return true;
}

// Whether `cells` (a whole row after one blank line) can go on the kernel table `kernels`: not a memory operation
// (nsys names those in brackets, "[CUDA memcpy Host-to-Device]", never a kernel), a total time no larger than the last
// row's (nsys sorts by it, most first), and where the table has a time %, one no larger than the last row's that keeps
// the sum within 100 % (each share rounded to 0.1: 0.05 per row). Header-less rows of the next report after a blank line fit the
// columns too.
bool continues_table(const std::vector<HeaderColumn>& cols, const std::vector<NsysKernel>& kernels,
                     const std::vector<std::string>& cells) {
    const std::string& name = cells.back();
    if (name.front() == '[' && name.back() == ']')
        return false;
    for (std::size_t i = 0; i < cols.size(); ++i) {
        // nsys sorts the rows by total time: a row of the table takes no more than the row above it (to its rounding).
        if (cols[i].col == Col::total) {
            const std::optional<double> t = parse_number_text(cells[i]);
            if (t && nsys_parts::in_us(*t, cols[i].to_us) > kernels.back().total_us * (1 + 1e-9) + 1e-6)
                return false;
        }
        if (cols[i].col != Col::pct)
            continue;
        const std::optional<double> pct = parse_number_text(cells[i]);
        double sum = *pct;
        for (const NsysKernel& k : kernels)
            sum += k.time_pct.value_or(0.0);
        if ((kernels.back().time_pct && *pct > *kernels.back().time_pct) ||
            sum > 100.0 + 0.05 * static_cast<double>(kernels.size() + 1))
            return false;
    }
    return true;
}

// Tabs expanded to blanks (stops every 8 columns), as the terminal showed them: a copy from a terminal
// may hold tabs where nsys printed runs of blanks.
std::string expand_tabs(const std::string& line) {
    std::string out;
    for (const char c : line) {
        if (c != '\t') {
            out += c;
            continue;
        }
        do
            out += ' ';
        while (out.size() % 8 != 0);
    }
    return out;
}

// `line` with a leading comment marker ("#", "//": nsys's output kept in a script as comments) blanked out,
// so that its columns stay where they were.
std::string blank_marker(std::string line, const std::string& marker) {
    const std::size_t p = line.find_first_not_of(' ');
    if (!marker.empty() && p != std::string::npos && line.compare(p, marker.size(), marker) == 0)
        line.replace(p, marker.size(), marker.size(), ' ');
    return line;
}

// ---- GPU trace (one row per launch), summed per kernel name ----

// `nvprof --print-gpu-trace` (CUDA's own nvprof, not nsys's): "   Start  Duration  Grid Size  Block Size ... Name",
// no dashed rule under it, each time with its unit ("6.4049ms"), kernel names followed by their correlation id ("[112]").
bool is_nvprof_trace_header(const std::string& line) {
    return line.find("Start") != std::string::npos && line.find("Duration") != std::string::npos &&
           line.find("Grid Size") != std::string::npos && line.find("Name") != std::string::npos &&
           line.find(',') == std::string::npos;
}

// The [start, end) extents of the titles of a header line without a rule under it: titles are separated by two or
// more blanks ("Grid Size" is one title).
std::vector<std::pair<std::size_t, std::size_t>> title_spans(const std::string& head) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t i = head.find_first_not_of(' '); i != std::string::npos; i = head.find_first_not_of(' ', i)) {
        std::size_t end = head.find("  ", i);
        if (end == std::string::npos)
            end = head.size();
        while (end > i && head[end - 1] == ' ')
            --end;
        spans.emplace_back(i, end);
        i = end;
    }
    return spans;
}

// The header of a GPU trace: `nsys stats --report cuda_gpu_trace` (and gputrace, its older name) or
// `nsys nvprof --print-gpu-trace`, in any of nsys's formats. The launch-shape column (GrdX) tells it
// from the CUDA API and NVTX traces, which also have Start, Duration and Name.
// `nvprof --print-gpu-trace --csv`: "Start","Duration","Grid X",...,"Name","Correlation_ID", then a row of units
// ("us,us,,,,,,,,KB,KB,KB,GB/s,,,,,,,").
bool is_nvprof_csv_trace_header(const std::string& line) {
    return line.find("\"Start\"") != std::string::npos && line.find("\"Duration\"") != std::string::npos &&
           line.find("\"Grid X\"") != std::string::npos && line.find("\"Name\"") != std::string::npos;
}

bool is_gpu_trace_header(const std::string& line) {
    return line.find("Duration") != std::string::npos && line.find("Name") != std::string::npos &&
           (line.find("GrdX") != std::string::npos || is_nvprof_trace_header(line) || is_nvprof_csv_trace_header(line));
}

// The cells of every row of the trace whose header is lines[h], with their 1-based lines, in the format of
// the header (CSV, '|' table or console columns); the rows end as a summary table's do, an elision line
// with a warning.
std::vector<std::pair<std::size_t, std::vector<std::string>>> trace_rows(const std::vector<std::string>& lines, std::size_t h,
                                                                         std::vector<std::string>& headers,
                                                                         const std::string& origin, NsysKernSum& out) {
    std::vector<std::pair<std::size_t, std::vector<std::string>>> rows;
    const auto ends_at = [&](std::size_t i, const std::string& row) {
        if (blank(row) || is_fence(row))
            return true;
        if (is_elision(row)) {
            out.warnings.push_back(elision_warning(h + 1, i + 1, row, rows.size()));
            return true;
        }
        return false;
    };
    if (is_pipe_row(lines[h])) {
        headers = pipe_cells(lines[h]);
        for (std::size_t i = h + 1; i < lines.size(); ++i) {
            if (is_pipe_rule(lines[i]))
                continue;
            if (ends_at(i, lines[i]) || !is_pipe_row(lines[i]))
                break;
            rows.emplace_back(i + 1, pipe_cells(lines[i]));
        }
    } else if (lines[h].find(',') != std::string::npos) {
        std::size_t end = h;
        const std::string table = nsys_parts::csv_table_text(lines, h, end);
        std::vector<ingest::CsvRecord> records = parse_csv(table, origin, ',', h + 1);  // file line numbers
        if (records.empty())
            throw InputError(origin, fmt::format("line {}: a GPU trace header with no rows under it; {}", h + 1, kExpected));
        headers = records.front().fields;
        for (std::size_t r = 1; r < records.size(); ++r)
            rows.emplace_back(records[r].line, std::move(records[r].fields));
        if (end < lines.size())
            ends_at(end, lines[end]);
    } else {
        const bool ruled = h + 1 < lines.size() && lines[h + 1].find("---") != std::string::npos;
        if (!ruled && !is_nvprof_trace_header(lines[h]))
            throw InputError(origin,
                             fmt::format("line {}: GPU trace header without the dashed rule under it; {}", h + 2, kExpected));
        // nvprof prints no rule: its cells are right-aligned to their titles' ends, the name left-aligned at its title.
        const std::vector<std::pair<std::size_t, std::size_t>> spans =
            ruled ? dash_spans(expand_tabs(lines[h + 1])) : title_spans(expand_tabs(lines[h]));
        headers = console_titles(expand_tabs(lines[h]), spans);
        // Cells may be blank (a kernel has no Bytes, a copy no grid): cut every row at the rule's extents.
        for (std::size_t i = h + (ruled ? 2 : 1); i < lines.size(); ++i) {
            const std::string row = expand_tabs(lines[i]);
            if (ends_at(i, row))
                break;
            rows.emplace_back(i + 1, cells_by_extent(row, spans));
        }
    }
    return rows;
}

// The median of `v` (sorted here).

void read_gpu_trace(const std::vector<std::string>& lines, std::size_t h, const std::string& origin, NsysKernSum& out) {
    std::vector<std::string> headers;
    auto rows = trace_rows(lines, h, headers, origin, out);
    const bool pipe_table = is_pipe_row(lines[h]);
    const bool nvprof_csv = is_nvprof_csv_trace_header(lines[h]);
    const bool nvprof = is_nvprof_trace_header(lines[h]) || nvprof_csv;
    // nvprof's --csv puts the units in the row under the header: cells of letters, '/' and '%' only, or empty.
    std::vector<std::string> units;
    if (nvprof_csv && !rows.empty() &&
        std::all_of(rows.front().second.begin(), rows.front().second.end(), [](const std::string& c) {
            return c.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/%") == std::string::npos;
        })) {
        units = rows.front().second;
        rows.erase(rows.begin());
    }
    // nvprof's KB/MB/GB: binary where the trace has memory-type columns (nvprof of CUDA 9 and later: a
    // "38.147MB" copy is 40,000,000 B and its "5.8163GB/s" is GiB/s), decimal before them (NVIDIA's
    // Profiler Guide matrixMul trace: "409.60KB" for 320·320·4 = 409,600 B, at "3.0167GB/s" = 409,600 B /
    // 135.78 µs in 10^9 B/s).
    const bool nvprof_binary = std::any_of(headers.begin(), headers.end(), [](const std::string& hd) {
        const std::string t = squeeze_lower(hd);
        return t.rfind("srcmemtype", 0) == 0 || t.rfind("dstmemtype", 0) == 0;
    });
    const double kilo = nvprof_binary ? 1024.0 : 1e3;
    // Bytes per unit of nvprof's B/KB/MB/GB (its console cells and its --csv units row alike); 0 for another.
    const auto nvprof_unit = [kilo](const std::string& unit) {
        return unit == "B" ? 1.0 : unit == "KB" ? kilo : unit == "MB" ? kilo * kilo : unit == "GB" ? kilo * kilo * kilo : 0.0;
    };
    std::size_t duration_col = headers.size(), name_col = headers.size(), bytes_col = headers.size();
    double to_us = 1e-3, bytes_scale = 0;
    for (std::size_t c = 0; c < headers.size(); ++c) {
        const nsys_parts::Title title = nsys_parts::split_title(headers[c]);
        const std::string& base = title.base;
        if (base == "duration" && duration_col == headers.size()) {
            std::string unit = title.unit;
            if (c < units.size())
                unit = squeeze_lower(units[c]);
            const std::optional<double> scale = unit_to_us(unit);
            if (!scale)
                throw InputError(
                    origin, fmt::format("column '{}' has unknown time unit '{}'; expected ns, us, ms or s", headers[c], unit));
            to_us = *scale;
            duration_col = c;
        } else if (base == "name") {
            name_col = c;
        } else if (base == "bytes" || (nvprof && base == "size")) {
            // nsys: "Bytes (MB)", MB = 10^6 B (4 MiB prints as 4.194); nvprof: "Size", each cell with its unit.
            const std::string& unit = title.unit;
            bytes_scale = unit == "mb" ? 1e6 : unit == "kb" ? 1e3 : unit == "gb" ? 1e9 : unit == "b" ? 1.0 : 0.0;
            if (c < units.size())  // nvprof's units row: as in its console cells
                bytes_scale = nvprof_unit(units[c]);
            bytes_col = c;
        }
    }
    const bool bytes_per_cell = nvprof && !nvprof_csv;
    // A bare "Bytes" title (nsys 2020-2021's gputrace) beside the trace's own rate ("Thru(MB/s)"): the rows decide
    // the unit. Bytes / Duration must give the printed rate, to its 3 decimals and 0.5 %, on every row that prints
    // all three: in B (4,000,000 over 1,400,294 ns = 2,856.5 MB/s, printed 2,856.543) or in MB.
    if (bytes_col < headers.size() && !bytes_per_cell && bytes_scale == 0 && duration_col < headers.size()) {
        std::size_t rate_col = headers.size();
        double rate_scale = 0;  // B/s per unit of the rate column
        for (std::size_t c = 0; c < headers.size(); ++c) {
            const nsys_parts::Title t = nsys_parts::split_title(headers[c]);
            if (t.base == "thru" || t.base == "throughput") {
                rate_col = c;
                rate_scale = t.unit == "mb/s" || t.unit == "mbps"   ? 1e6
                             : t.unit == "gb/s" || t.unit == "gbps" ? 1e9
                             : t.unit == "kb/s" || t.unit == "kbps" ? 1e3
                                                                    : 0.0;
            }
        }
        std::size_t checked = 0, as_bytes = 0, as_mb = 0;
        for (const auto& [line, cells] : rows) {
            if (rate_scale == 0)
                break;
            if (cells.size() <= std::max({bytes_col, rate_col, duration_col}))
                continue;
            const std::optional<double> b = parse_number_text(trim(cells[bytes_col])),
                                        d = parse_number_text(trim(cells[duration_col])),
                                        t = parse_number_text(trim(cells[rate_col]));
            if (!b || !d || !t || *b <= 0 || *d <= 0 || *t <= 0)
                continue;
            ++checked;
            const double per_s = *b / (*d * to_us * 1e-6) / rate_scale;  // the rate if the bytes are B
            const auto fits = [&t](double r) { return std::abs(r - *t) <= 0.0005 + 0.005 * *t; };
            as_bytes += fits(per_s) ? 1 : 0;
            as_mb += fits(per_s * 1e6) ? 1 : 0;
        }
        if (checked > 0 && (as_bytes == checked || as_mb == checked)) {
            bytes_scale = as_bytes == checked ? 1.0 : 1e6;
            out.warnings.push_back(fmt::format(
                "column '{}' names no size unit: read in {}, the unit in which Bytes / Duration gives the trace's own "
                "'{}' on all {} memory operation row{} that print the three",
                headers[bytes_col], bytes_scale == 1.0 ? "bytes" : "MB (10^6 B)", headers[rate_col], checked,
                checked == 1 ? "" : "s"));
        }
    }
    // A size column whose unit is not known (a bare "Bytes" title, a units-row cell other than B/KB/MB/GB)
    // gives no bytes: say so rather than list the memory operations without them silently.
    const bool size_unit_unknown = bytes_col < headers.size() && !bytes_per_cell && bytes_scale == 0;
    std::size_t unknown_size_units = 0;  // nvprof console cells whose unit is not B/KB/MB/GB
    if (duration_col == headers.size() || name_col == headers.size())
        throw InputError(origin, fmt::format("line {}: the GPU trace lacks a Duration or Name column; {}", h + 1, kExpected));
    // The bytes of a memory operation row: nsys's number in the column's unit; nvprof's number with its own unit
    // (binary or decimal: `kilo` above).
    const auto row_bytes = [&](const std::vector<std::string>& cells) -> std::optional<double> {
        if (bytes_col >= cells.size())
            return std::nullopt;
        const std::string cell = trim(cells[bytes_col]);
        if (!nvprof || nvprof_csv) {
            const std::optional<double> v = parse_number_text(cell);
            // A size printed as 0 ("0.000" MB) is below the column's precision, not zero bytes.
            return v && *v > 0 && bytes_scale > 0 && std::isfinite(*v * bytes_scale) ? std::optional<double>(*v * bytes_scale)
                                                                                     : std::nullopt;
        }
        std::size_t end = cell.size();
        while (end > 0 && std::isalpha(static_cast<unsigned char>(cell[end - 1])))
            --end;
        const std::string unit = cell.substr(end);
        const double scale = nvprof_unit(unit);
        const std::optional<double> v = parse_number_text(cell.substr(0, end));
        if (v && scale == 0)
            ++unknown_size_units;
        return v && *v > 0 && scale > 0 && std::isfinite(*v * scale) ? std::optional<double>(*v * scale) : std::nullopt;
    };
    // Memory operations per name, in order of first appearance; bytes unknown once a row lacks them.
    std::vector<NsysMemOp> ops;
    std::vector<bool> ops_sized;
    const auto add_op = [&](const std::string& name, double us, std::optional<double> bytes) {
        std::size_t i = 0;
        while (i < ops.size() && ops[i].operation != name)
            ++i;
        if (i == ops.size()) {
            ops.push_back({name, 0, 0.0, 0.0});
            ops_sized.push_back(true);
        }
        ++ops[i].count;
        ops[i].total_us += us;
        ops_sized[i] = ops_sized[i] && bytes.has_value();
        if (bytes)
            *ops[i].bytes += *bytes;
    };

    // Per kernel name, in order of first launch: the durations in the file's unit.
    std::vector<std::pair<std::string, std::vector<double>>> launches;
    std::map<std::string, std::size_t> index;  // name -> its place in `launches`
    std::size_t copies = 0;
    double copies_time = 0;
    for (const auto& [line, cells] : rows) {
        if (cells.size() <= std::max(duration_col, name_col))
            throw InputError(origin, fmt::format("line {}: {} cells where the header has {} (file truncated?); {}", line,
                                                 cells.size(), headers.size(), kExpected));
        std::string name = cells[name_col];
        // Cells past the header in the last column are the name's own separators: a '|' inside the name of a '|'
        // table, a ',' inside an unquoted name of a CSV table ("void k<int, float>(int)").
        for (std::size_t c = name_col + 1; c < cells.size() && name_col + 1 == headers.size(); ++c)
            name += (pipe_table ? "|" : ",") + cells[c];
        // nvprof writes each time with its unit ("6.4049ms"); the header's unit otherwise.
        std::optional<double> d = parse_number_text(cells[duration_col]);
        if (!d)
            if (const std::optional<double> us = nsys_parts::suffixed_time_us(cells[duration_col], std::nullopt))
                d = *us / to_us;
        // nvprof follows a kernel's name with its correlation id ("vectorAdd(float*) [112]"): not part of the name.
        if (nvprof && name.size() > 3 && name.back() == ']') {
            const std::size_t open = name.rfind(" [");
            if (open != std::string::npos && open + 2 < name.size() - 1 &&
                name.find_first_not_of("0123456789", open + 2) == name.size() - 1)
                name.erase(open);
        }
        // nvprof's unified-memory rows ("[Unified Memory CPU page faults]") have no duration ("-").
        if (!d && !name.empty() && name.front() == '[' && name.back() == ']' && trim(cells[duration_col]) == "-") {
            ++copies;
            continue;
        }
        if (!d || *d < 0 || name.empty())
            throw InputError(origin, fmt::format("line {}: a GPU trace row without a non-negative Duration ('{}') and a Name; {}",
                                                 line, cells[duration_col], kExpected));
        // nsys names its own non-kernel activities in brackets: [CUDA memcpy Host-to-Device], [CUDA memset].
        if (name.front() == '[' && name.back() == ']') {
            ++copies;
            copies_time += *d;
            add_op(name, in_us(*d, to_us), row_bytes(cells));
            continue;
        }
        const auto [it, added] = index.emplace(name, launches.size());
        if (added)
            launches.push_back({name, {*d}});
        else
            launches[it->second].second.push_back(*d);
    }
    if (launches.empty())
        throw InputError(
            origin, fmt::format("the GPU trace at line {} holds no kernel launch ({} memory operation row{} only); {}", h + 1,
                                copies, copies == 1 ? "" : "s", kExpected));
    nsys_parts::sum_launches(launches, to_us, origin, out);
    if (copies > 0)
        out.warnings.push_back(fmt::format(
            "the GPU trace's {} memory operation row{} ([CUDA memcpy ...] or [CUDA memset], {:.1f} us in all) "
            "{}: listed under memory operations",
            copies, copies == 1 ? "" : "s", copies_time * to_us, copies == 1 ? "is not a kernel" : "are not kernels"));
    if (size_unit_unknown && !ops.empty())
        out.warnings.push_back(
            fmt::format("column '{}' names no size unit ({}): the memory operations are listed "
                        "without bytes",
                        headers[bytes_col], nvprof_csv ? "B, KB, MB or GB in the units row" : "'Bytes (MB)', or KB, GB, B"));
    if (unknown_size_units > 0)
        out.warnings.push_back(
            fmt::format("{} Size cell{} of the memory operations name{} no unit nvprof prints (B, KB, MB, "
                        "GB): listed without bytes",
                        unknown_size_units, unknown_size_units == 1 ? "" : "s", unknown_size_units == 1 ? "s" : ""));
    for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!ops_sized[i])
            ops[i].bytes.reset();
        ops[i].total_us = in_us(ops[i].total_us, 1.0);
        out.memory_ops.push_back(ops[i]);
    }
    out.from_trace = true;
    if (nvprof)
        out.profiler = "nvprof";
    out.format = fmt::format("{} GPU trace ({}): {} launch row{} summed per kernel name", nvprof ? "nvprof" : "nsys",
                             nvprof_csv ? "nvprof --print-gpu-trace --csv"
                             : nvprof   ? "nvprof --print-gpu-trace"
                                        : "cuda_gpu_trace / nsys nvprof --print-gpu-trace",
                             rows.size() - copies, rows.size() - copies == 1 ? "" : "s");
}

// The lines [lo, hi) of the run whose kernel table is at lines[h], `next` the next kernel table (or the end). A line
// naming one report ("Processing [run_a.sqlite] ...", "SKIPPED: run_a.sqlite ...") starts that report's lines; the
// kernel table's report is the one named last above it. Its lines start at the first line naming it after the last
// line naming another above it (`other`: that line, 1-based), and end at the first line below naming another.
// Without a report named above the table (`named` false): [0, next).
struct RunSpan {
    std::size_t lo = 0, hi = 0, other = 0;
    bool named = false;
};
RunSpan run_span(const std::vector<std::string>& lines, std::size_t h, std::size_t next) {
    RunSpan s;
    s.hi = next;
    const auto marker = [&lines](std::size_t i) {
        const std::vector<std::string> r = nsys_parts::reports_named(lines[i]);
        return r.size() == 1 ? r.front() : std::string();
    };
    std::string report;
    std::size_t i = h;
    while (i-- > 0 && (report = marker(i)).empty()) {
    }
    if (report.empty())
        return s;
    s.named = true;
    s.lo = i;
    for (std::size_t j = i; j-- > 0;) {
        const std::string m = marker(j);
        if (m == report)
            s.lo = j;
        else if (!m.empty()) {
            s.other = j + 1;
            break;
        }
    }
    if (s.other == 0)
        s.lo = 0;
    for (std::size_t k = h + 1; k < next; ++k)
        if (const std::string m = marker(k); !m.empty() && m != report) {
            s.hi = k;
            break;
        }
    return s;
}

// nsys's SKIPPED for a kernel summary in lines [from, to) ("... does not contain CUDA kernel data"): the line, 1-based, or 0.
std::size_t skipped_kernels(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
        if (lines[i].find("SKIPPED") != std::string::npos && lines[i].find("CUDA kernel data") != std::string::npos)
            return i + 1;
    return 0;
}

// The first memory time table header in lines [from, to), or `to`.
std::size_t first_time_header(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
        if (nsys_parts::is_time_header(lines[i]))
            return i;
    return to;
}

// The summary's kernel times must add up to a finite total (each is finite, but 1e308 ns twice is not): the
// report sums them for shares and categories.
// `decimal_comma`: the table was printed in a decimal-comma locale, whose nsys 2021 cuts each time % to a whole number.
NsysKernSum checked_total(NsysKernSum out, const std::string& origin, bool decimal_comma = false) {
    // Names go to JSON: bytes that are not UTF-8 (a Latin-1 copy, a name cut inside a character) become U+FFFD.
    std::size_t repaired = 0;
    for (NsysKernel& k : out.kernels)
        k.name = ingest::valid_utf8(k.name, repaired);
    if (repaired > 0)
        out.warnings.push_back(
            fmt::format("{} byte{} of the kernel names {} not UTF-8 (a Latin-1 copy, or a name cut inside "
                        "a character): shown as U+FFFD",
                        repaired, repaired == 1 ? "" : "s", repaired == 1 ? "is" : "are"));
    // The file's own time % (nsys's Time (%), rocprof's Percentage) adds up to 100 over every kernel of the run, up
    // to its rounding (half a unit of its last printed digit, 0.05 each): a table that adds up to less holds only
    // part of the kernels (`head` of the file, rows cut from a paste), and the shares here are of the rows shown.
    const bool own_pct = !out.from_trace && !out.from_nvprof && !out.kernels.empty() &&
                         std::all_of(out.kernels.begin(), out.kernels.end(), [](const NsysKernel& k) { return k.time_pct; });
    // A table cut by an elision line already says so.
    const bool elided = std::any_of(out.warnings.begin(), out.warnings.end(),
                                    [](const std::string& w) { return w.find(nsys_parts::kElided) != std::string::npos; });
    if (own_pct && !elided) {
        double pct = 0, shown = 0;
        for (const NsysKernel& k : out.kernels) {
            pct += *k.time_pct;
            shown += k.total_us;
        }
        // Whole percents each its row's share of the rows shown, cut or rounded to a whole number (nsys 2021 in
        // some locales: "33,0" for 33.8 %): their sum falls short by up to one per row, and the rows are all there.
        const bool whole_shares =
            decimal_comma && shown > 0 && std::all_of(out.kernels.begin(), out.kernels.end(), [shown](const NsysKernel& k) {
                const double share = 100.0 * k.total_us / shown;
                return *k.time_pct == std::floor(*k.time_pct) &&
                       (*k.time_pct == std::floor(share + 1e-9) || *k.time_pct == std::round(share));
            });
        if (!whole_shares && pct < 100.0 - 0.5 - 0.05 * static_cast<double>(out.kernels.size()))
            out.warnings.push_back(
                fmt::format("the file's time % column adds up to {:.1f} % over its {} kernel rows: the table "
                            "holds only part of the run's kernels (a `head` of the file, or rows left out "
                            "of a paste); totals, shares and categories cover the rows shown",
                            pct, out.kernels.size()));
    }
    double total = 0;
    for (const NsysKernel& k : out.kernels)
        total += k.total_us;
    if (!std::isfinite(total))
        throw InputError(
            origin, fmt::format("the kernel times add up to more than a double holds (the largest is {:g} us); {}",
                                std::max_element(out.kernels.begin(), out.kernels.end(),
                                                 [](const NsysKernel& a, const NsysKernel& b) { return a.total_us < b.total_us; })
                                    ->total_us,
                                kExpected));
    return out;
}

// Why there is no table: nsys's own "SKIPPED: ... does not contain CUDA kernel data" when it printed
// one (a profile without kernels), else the accepted form.
// Lines before the first table header that look like rows of nsys's column format (a time %, then at least four
// numbers, then a name): a paste that starts inside a table whose header it cut off. Returns how many and the
// first one's index (lines.size() when none).
std::pair<std::size_t, std::size_t> headerless_rows(const std::vector<std::string>& lines) {
    std::size_t count = 0, first = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (l.find("Time (%)") != std::string::npos || l.find("Time(%)") != std::string::npos || nsys_parts::is_size_header(l) ||
            nsys_parts::is_time_header(l))
            break;
        std::istringstream words(l);
        std::string w;
        std::size_t numbers = 0;
        bool pct = false;
        while (words >> w) {
            const std::optional<double> v = parse_number_text(w);
            if (!v)
                break;
            if (numbers == 0)
                pct = *v >= 0 && *v <= 100 && w.find('.') != std::string::npos;
            ++numbers;
        }
        if (pct && numbers >= 5 && words && !w.empty()) {
            ++count;
            first = std::min(first, i);
        }
    }
    return {count, first};
}

std::string headerless_rows_text(const std::vector<std::string>& lines) {
    const auto [count, first] = headerless_rows(lines);
    if (count == 0)
        return "";
    return fmt::format(
        "{} row{} from line {} on {} the rows of a table whose header is not in the file (a paste that "
        "starts inside a table): not read",
        count, count == 1 ? "" : "s", first + 1, count == 1 ? "looks like one of" : "look like");
}

// The report a report script's banner names, by the script's stem: the bracketed ".py" token after "with ["
// ("Processing [r.sqlite] with [.../cuda_gpu_kern_sum.py]..."), or, after "Running [", a ".py" token in nsys's reports
// directory followed by the report file ("Running [.../reports/gpukernsum.py r.sqlite]..."); "" for any other line
// ("Running [python3 train.py --epochs 1]..." runs a program, a path "bench.py.out/r.sqlite" is no script).
std::string report_banner(const std::string& l) {
    const auto tokens = [&l](std::size_t open) {
        std::vector<std::string> out;
        const std::size_t close = l.find(']', open);
        std::istringstream words(l.substr(open, close == std::string::npos ? std::string::npos : close - open));
        for (std::string w; words >> w;)
            out.push_back(w);
        return out;
    };
    const auto stem = [](const std::string& t) {
        const std::size_t slash = t.find_last_of("/\\");
        return t.substr(slash == std::string::npos ? 0 : slash + 1, t.size() - 3 - (slash == std::string::npos ? 0 : slash + 1));
    };
    const auto ends = [](const std::string& t, const char* x) { return t.ends_with(x); };
    if (const std::size_t w = l.find("with ["); w != std::string::npos && l.find("Processing [") != std::string::npos)
        for (const std::string& t : tokens(w + 6))
            if (ends(t, ".py"))
                return stem(t);
    if (const std::size_t r = l.find("Running ["); r != std::string::npos) {
        const std::vector<std::string> t = tokens(r + 9);
        for (std::size_t i = 0; i + 1 < t.size(); ++i)
            if (ends(t[i], ".py") &&
                (t[i].find("reports/") != std::string::npos || t[i].find("reports\\") != std::string::npos) &&
                std::any_of(t.begin() + static_cast<std::ptrdiff_t>(i) + 1, t.end(), [&ends](const std::string& x) {
                    return ends(x, ".sqlite") || ends(x, ".nsys-rep") || ends(x, ".qdrep");
                }))
                return stem(t[i]);
    }
    return "";
}

std::string no_table_message(const std::vector<std::string>& lines) {
    for (const std::string& l : lines)
        if (l.find("SKIPPED:") != std::string::npos && l.find("CUDA kernel data") != std::string::npos)
            return fmt::format("nsys skipped the kernel summary ('{}'): the profile holds no CUDA kernels; {}", trim(l),
                               kExpected);
    // nvprof's own words for a run without kernels (under "Profiling result:").
    for (const std::string& l : lines)
        if (trim(l) == "No kernels were profiled.")
            return fmt::format("nvprof profiled no kernel ('{}'); {}", trim(l), kExpected);
    // nvprof's metric or event mode: per-kernel counters, read by `ingest ncu` (ncu's predecessor's metrics). A
    // metric table is named first: `--events` and `--metrics` print one table each.
    const auto has_table = [&lines](const char* column, const char* csv) {
        return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
            const std::string t = trim(l);
            return (t.rfind("Invocations ", 0) == 0 && t.find(column) != std::string::npos) || t.rfind(csv, 0) == 0;
        });
    };
    if (has_table(" Metric Name ", "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\""))
        return fmt::format(
            "holds nvprof --metrics output (per-kernel counters, no kernel times): read it with "
            "`bwacct ingest ncu`; {}",
            kExpected);
    if (has_table(" Event Name ", "\"Device\",\"Kernel\",\"Invocations\",\"Event Name\""))
        return fmt::format(
            "holds nvprof --events output (raw per-kernel event counts, no kernel times), which bwacct "
            "does not read; profile with nvprof --metrics dram_read_bytes,dram_write_bytes,"
            "dram_read_throughput,dram_write_throughput for `bwacct ingest ncu`, or {}",
            kExpected);
    // Reports of nsys that hold no GPU work: say which the file holds.
    // By nsys's own banners ("[4/8] Executing 'cuda_api_sum' stats report"), else by the tables' headers.
    std::vector<std::string> reports, by_header;
    const auto add = [](std::vector<std::string>& to, const std::string& r) {
        if (std::find(to.begin(), to.end(), r) == to.end())
            to.push_back(r);
    };
    for (const std::string& l : lines) {
        const std::size_t ex = l.find("Executing '");
        const std::string banner = report_banner(l);
        if (ex != std::string::npos && l.find("' stats report", ex) != std::string::npos) {
            add(reports, l.substr(ex + 11, l.find('\'', ex + 11) - ex - 11));
        } else if (!banner.empty()) {
            add(reports, banner);
        } else if (nsys_parts::is_size_header(l))
            add(by_header, "cuda_gpu_mem_size_sum");
        else if (l.find("Total Time") != std::string::npos && l.find("Num Calls") != std::string::npos)
            add(by_header, "cuda_api_sum or osrt_sum (Num Calls)");
        else if (l.find("Total Proj Time") != std::string::npos)
            add(by_header, "nvtx_gpu_proj_sum");
        else if (l.find("Kern Inst") != std::string::npos)
            add(by_header, "nvtx_kern_sum");
        else if (l.find("QCount") != std::string::npos && l.find("Kernel Name") != std::string::npos)
            add(by_header, "cuda_kern_exec_sum");
        else if (l.find("Total Time") != std::string::npos && l.find("Category") != std::string::npos &&
                 l.find("Operation") != std::string::npos)
            add(by_header, "cuda_gpu_sum");
        else if (l.find("Total Time") != std::string::npos && l.find("Range") != std::string::npos &&
                 l.find("Instances") != std::string::npos)
            add(by_header, "nvtx_sum (Range)");
    }
    if (reports.empty())
        reports = by_header;
    // cuda_gpu_mem_size_sum is GPU work, but sizes without times: nothing to account without its time table.
    // (nsys before 2022 names it gpumemsizesum.)
    const auto size_only = std::find_if(reports.begin(), reports.end(), [](const std::string& r) {
        return r == "cuda_gpu_mem_size_sum" || r == "gpumemsizesum";
    });
    if (size_only != reports.end()) {
        reports.erase(size_only);
        return fmt::format(
            "the file holds nsys's cuda_gpu_mem_size_sum report (memory operation sizes, no times){}{} and no "
            "table with times (cuda_gpu_kern_sum, cuda_gpu_mem_time_sum or a GPU trace); {}",
            reports.empty() ? "" : " beside ", fmt::join(reports, ", "), kExpected);
    }
    // rocprof-compute (omniperf) `analyze`'s "Top Kernels" table: box-drawn, names wrapped over several lines.
    for (const std::string& l : lines)
        if (l.find("Kernel_Name") != std::string::npos && l.find("Sum(ns)") != std::string::npos)
            return fmt::format(
                "holds rocprof-compute (omniperf) analyze output, whose Top Kernels table (kernel names "
                "wrapped over several lines, cut at 40 characters) bwacct does not read; profile with "
                "`rocprofv3 --kernel-trace --stats` and give its kernel_stats.csv, or {}",
                kExpected);
    // ncu's output (==PROF== lines, 'Section:' tables) belongs to `ingest ncu`.
    // So do its CSV export ("ID","Process ID",...,"Kernel Name") and its ==ERROR== / ==WARNING== messages.
    for (const std::string& l : lines)
        if (l.rfind("==PROF==", 0) == 0 || l.rfind("==ERROR==", 0) == 0 || l.rfind("==WARNING==", 0) == 0 ||
            trim(l).rfind("Section: ", 0) == 0 ||
            (trim(l).rfind("\"ID\",", 0) == 0 && l.find("\"Kernel Name\"") != std::string::npos))
            return fmt::format("holds Nsight Compute (ncu) output, not nsys's: read it with `bwacct ingest ncu`; {}", kExpected);
    // Reports of GPU work in a layout not read here (cuda_gpu_sum's kernels and copies in one table, nvtx_kern_sum and
    // nvtx_gpu_proj_sum per NVTX range, cuda_kern_exec_sum per launch API): said so, not "no GPU work".
    std::vector<std::string> gpu, named;  // named: reports read here whose banner has no table under it (a cut paste)
    for (const std::string& r : reports) {
        const bool read_here = r == "cuda_gpu_kern_sum" || r == "gpukernsum" || r == "cuda_gpu_kern_gb_sum" ||
                               r == "cuda_gpu_trace" || r == "gputrace" || r == "cuda_gpu_mem_time_sum" || r == "gpumemtimesum";
        if (read_here)
            named.push_back(r);
        else if (r.find("gpu") != std::string::npos || r.find("kern") != std::string::npos)
            gpu.push_back(r);
    }
    if (!named.empty() && gpu.empty())
        return fmt::format("the file names nsys's {} report{} but holds no such table (cut from the paste?); {}",
                           fmt::join(named, ", "), named.size() == 1 ? "" : "s", kExpected);
    if (!gpu.empty())
        return fmt::format(
            "no kernel, GPU trace or memory operation table: the file holds nsys's {} report{} (GPU time per NVTX range, "
            "per launch, or kernels and copies in one table), which bwacct does not read; give cuda_gpu_kern_sum "
            "(and cuda_gpu_mem_time_sum); {}",
            fmt::join(gpu, ", "), gpu.size() == 1 ? "" : "s", kExpected);
    if (!reports.empty())
        return fmt::format(
            "no kernel, GPU trace or memory operation table: the file holds nsys's {} report{}, which hold{} no GPU "
            "work; {}",
            fmt::join(reports, ", "), reports.size() == 1 ? "" : "s", reports.size() == 1 ? "s" : "", kExpected);
    return fmt::format("no kernel summary table found; {}", kExpected);
}

}  // namespace

std::vector<std::pair<std::size_t, std::vector<std::string>>> nsys_parts::table_rows(const std::vector<std::string>& lines,
                                                                                     std::size_t h,
                                                                                     std::vector<std::string>& headers,
                                                                                     const std::string& origin,
                                                                                     NsysKernSum& out) {
    return trace_rows(lines, h, headers, origin, out);
}

// A time in the file's unit as microseconds, rounded to 10^-6 us (a picosecond, far below
// the nanosecond nsys prints): 72,047.7 ns is 72.0477 us, not the 72.04769999999999 of a bare product.
double nsys_parts::in_us(double value, double to_us) {
    const double us = value * to_us;
    return std::abs(us) < 9e9 ? std::round(us * 1e6) / 1e6 : us;
}

// A header's time unit as a factor to microseconds: none (nsys's default) and "ns" 1e-3, "us" 1, "ms" 1e3,
// "s" 1e6; nullopt for another unit.
std::optional<double> nsys_parts::unit_to_us(const std::string& unit) {
    if (unit.empty() || unit == "ns" || unit == "nsec")
        return 1e-3;
    if (unit == "us" || unit == "\xc2\xb5s" || unit == "usec")
        return 1;
    if (unit == "ms" || unit == "msec")
        return 1e3;
    if (unit == "s" || unit == "sec")
        return 1e6;
    return std::nullopt;
}

nsys_parts::Title nsys_parts::split_title(const std::string& title) {
    std::string t;
    for (const char c : title)
        if (!std::isspace(static_cast<unsigned char>(c)) && c != '"')
            t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::size_t open = t.find('(');
    if (open == std::string::npos)
        return {t, ""};
    const std::size_t close = t.find(')', open);
    return {t.substr(0, open), t.substr(open + 1, close == std::string::npos ? std::string::npos : close - open - 1)};
}

std::string nsys_parts::trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t");
    if (a == std::string::npos)
        return "";
    return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

std::string nsys_parts::without_note(const std::string& name) {
    const std::size_t note = name.find("  #");
    return note == std::string::npos ? name : trim(name.substr(0, note));
}

bool nsys_parts::blank(const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

// A markdown code fence ("```", "~~~"): a table pasted into a README or an issue ends there.
bool nsys_parts::is_fence(const std::string& line) {
    const std::size_t a = line.find_first_not_of(" \t");
    return a != std::string::npos && (line.compare(a, 3, "```") == 0 || line.compare(a, 3, "~~~") == 0);
}

// A line standing for rows left out of a pasted table ("...", "   ....", "…", "| ... | ... |"): nothing
// but dots, ellipses (U+2026 "…", U+22EE "⋮"), blanks and '|', with at least three dots or one ellipsis.
std::string nsys_parts::csv_table_text(const std::vector<std::string>& lines, std::size_t h, std::size_t& end) {
    std::string table;
    for (end = h; end < lines.size() && !blank(lines[end]) && !is_fence(lines[end]) && !is_elision(lines[end]); ++end)
        table += lines[end] + "\n";
    return table;
}

bool nsys_parts::is_elision(const std::string& line) {
    std::size_t dots = 0, ellipses = 0;
    for (std::size_t i = 0; i < line.size();) {
        const char c = line[i];
        if (c == ' ' || c == '\t' || c == '|' || c == '\r') {
            ++i;
        } else if (c == '.') {
            ++dots;
            ++i;
        } else if (line.compare(i, 3, "\xe2\x80\xa6") == 0 || line.compare(i, 3, "\xe2\x8b\xae") == 0) {
            ++ellipses;
            i += 3;
        } else {
            return false;
        }
    }
    // Three dots or more ("..."), or one alone: a line of a vertical ellipsis (a slide's ".\n.\n."). Two ("..") stay a
    // short row, as before.
    return dots >= 3 || dots == 1 || ellipses >= 1;
}

// The warning for a table that a paste cut short with an elision line.
std::string nsys_parts::elision_warning(std::size_t header_line, std::size_t line, const std::string& text, std::size_t rows) {
    return fmt::format(
        "the kernel table at line {} is cut at line {} ('{}'): {}; the {} row{} shown "
        "are read, so the totals, shares and categories cover those rows only",
        header_line, line, trim(text), kElided, rows, rows == 1 ? "" : "s");
}

void nsys_parts::sum_launches(const std::vector<std::pair<std::string, std::vector<double>>>& launches, double to_us,
                              const std::string& origin, NsysKernSum& out) {
    double grand = 0;
    for (const auto& l : launches)
        for (const double d : l.second)
            grand += d;
    // Every figure below (a total, a spread of at most sqrt(2) x the total) stays finite in microseconds.
    if (!std::isfinite(grand * to_us * 2))
        throw InputError(origin, fmt::format("the trace's kernel durations add up to more than a double holds; {}", kExpected));
    for (auto& [name, d] : launches) {
        NsysKernel k;
        k.name = name;
        k.instances = d.size();
        double total = 0;
        for (const double x : d)
            total += x;
        const double n = static_cast<double>(d.size());
        const double mean = total / n;
        // The spread, scaled by the largest deviation so that no square overflows.
        double spread = 0, squares = 0;
        for (const double x : d)
            spread = std::max(spread, std::abs(x - mean));
        for (const double x : d)
            squares += spread > 0 ? ((x - mean) / spread) * ((x - mean) / spread) : 0.0;
        k.total_us = in_us(total, to_us);
        k.avg_us = in_us(mean, to_us);
        k.min_us = in_us(*std::min_element(d.begin(), d.end()), to_us);
        k.max_us = in_us(*std::max_element(d.begin(), d.end()), to_us);
        k.stddev_us = in_us(d.size() > 1 ? spread * std::sqrt(squares / (n - 1)) : 0.0, to_us);  // sample std. dev., as nsys
        k.med_us = in_us(median_of(d), to_us);
        k.time_pct = grand > 0 ? 100.0 * total / grand : 0.0;
        k.category = classify_kernel(k.name);
        out.kernels.push_back(std::move(k));
    }
    // nsys's own summary order: the kernel with the most time first.
    std::stable_sort(out.kernels.begin(), out.kernels.end(),
                     [](const NsysKernel& a, const NsysKernel& b) { return a.total_us > b.total_us; });
}

namespace {

// `swapped`: per line, whether mend_console_paste read it in a decimal-comma locale.
NsysKernSum parse_lines(const std::vector<std::string>& lines, const std::string& origin, const std::vector<bool>& swapped) {
    std::size_t h = 0;
    while (h < lines.size() && !is_kern_sum_header(lines[h]))
        ++h;
    NsysKernSum out;
    if (h == lines.size()) {
        // No nsys summary: nvprof's, or a GPU trace that holds the same kernel times, one row per launch.
        // nvprof's summary, unless it holds no kernel and a GPU trace follows (`nvprof` then `--print-gpu-trace` pasted).
        const bool has_trace = std::any_of(lines.begin(), lines.end(), is_gpu_trace_header);
        if (std::optional<NsysKernSum> nvprof = nsys_parts::parse_nvprof_summary(lines, origin, !has_trace))
            if (!nvprof->kernels.empty())
                return checked_total(std::move(*nvprof), origin);
        if (std::optional<NsysKernSum> rocprof = nsys_parts::parse_rocprof_stats(lines, origin))
            return checked_total(std::move(*rocprof), origin);
        if (std::optional<NsysKernSum> rocpd = nsys_parts::parse_rocpd_summary(lines, origin))
            return checked_total(std::move(*rocpd), origin);
        if (std::optional<NsysKernSum> v3 = nsys_parts::parse_rocprofv3_summary(lines, origin))
            return checked_total(std::move(*v3), origin);
        std::size_t t = 0;
        while (t < lines.size() && !is_gpu_trace_header(lines[t]))
            ++t;
        if (t == lines.size()) {
            // nsys's memory-operation summaries alone (`--report cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum`).
            if (nsys_parts::read_memory_tables(lines, 0, lines.size(), origin, out, swapped)) {
                out.format = "nsys memory operation summary (cuda_gpu_mem_time_sum, cuda_gpu_mem_size_sum; no kernel table)";
                if (const std::string cut = headerless_rows_text(lines); !cut.empty())
                    out.warnings.push_back(cut);
                return checked_total(std::move(out), origin);
            }
            const std::string cut = headerless_rows_text(lines);
            throw InputError(origin,
                             cut.empty() ? no_table_message(lines) : fmt::format("{} ({})", no_table_message(lines), cut));
        }
        out.table_line = t + 1;
        for (std::size_t k = t + 1; k < lines.size(); ++k)
            if (is_gpu_trace_header(lines[k]))
                out.other_tables.push_back(k + 1);
        read_gpu_trace(lines, t, origin, out);
        return checked_total(std::move(out), origin);
    }

    out.table_line = h + 1;
    for (std::size_t k = h + 1; k < lines.size(); ++k)
        if (is_kern_sum_header(lines[k]))
            out.other_tables.push_back(k + 1);
    const bool pipe = is_pipe_row(lines[h]);
    const bool csv = !pipe && lines[h].find(',') != std::string::npos;
    if (pipe) {
        read_pipe_table(lines, h, origin, out);
    } else if (csv) {
        // The table runs from the header to the first blank line (nsys separates reports by one) or the
        // code fence closing a paste.
        std::size_t end = h;
        const std::string table = nsys_parts::csv_table_text(lines, h, end);
        const std::vector<ingest::CsvRecord> records = parse_csv(table, origin, ',', h + 1);  // file line numbers
        if (records.empty())  // the header line itself ends the table (a fence or blank after its markers)
            throw InputError(origin, fmt::format("line {}: a kernel table header with no table under it; {}", h + 1, kExpected));
        const std::vector<HeaderColumn> cols = columns_of(records.front().fields, origin);
        for (std::size_t r = 1; r < records.size(); ++r) {
            const std::size_t line = records[r].line;
            if (records[r].fields.size() != cols.size())
                throw InputError(origin, fmt::format("line {}: {} fields where the header has {} (file truncated?); {}", line,
                                                     records[r].fields.size(), cols.size(), kExpected));
            out.kernels.push_back(make_row(cols, records[r].fields, line, origin));
        }
        if (end < lines.size() && is_elision(lines[end]))
            out.warnings.push_back(elision_warning(h + 1, end + 1, lines[end], out.kernels.size()));
        out.format = "nsys stats cuda_gpu_kern_sum CSV";
    } else {
        // Console table: header, a rule of dashes, rows of blank-separated numbers ending with the name.
        // Column titles hold blanks ("Total Time (ns)"): they are placed by the dashed rule's extents.
        if (h + 1 >= lines.size() || lines[h + 1].find("---") == std::string::npos)
            throw InputError(origin,
                             fmt::format("line {}: kernel table header without the dashed rule under it; {}", h + 2, kExpected));
        // A terminal copy's tabs and a comment marker leading the rule line ("#  ---- ...") are undone on
        // the header, the rule and every row alike.
        const std::string tabbed_rule = expand_tabs(lines[h + 1]);
        const std::string marker = trim(tabbed_rule.substr(0, tabbed_rule.find('-')));
        const auto console = [&marker](const std::string& l) { return blank_marker(expand_tabs(l), marker); };
        const std::string head = console(lines[h]);
        const std::string rule = console(lines[h + 1]);
        const std::vector<std::pair<std::size_t, std::size_t>> spans = dash_spans(rule);
        const std::vector<std::string> headers = console_titles(head, spans);
        const std::vector<HeaderColumn> cols = columns_of(headers, origin);
        if (cols.back().col != Col::name)
            throw InputError(origin, fmt::format("line {}: the Name column is not the last one; {}", h + 1, kExpected));
        // Blanks inside a column other than the name make the blank-separated reading ambiguous: cut such
        // rows at the rule's extents (the blank-separated reading stays for rows those do not fit).
        const bool by_extent =
            std::any_of(cols.begin(), cols.end() - 1, [](const HeaderColumn& c) { return c.col == Col::unknown; });
        // A row as blank-separated numbers, then the name (blanks inside it kept).
        const auto split_row = [&cols](const std::string& row, std::vector<std::string>& cells) {
            std::istringstream in(row);
            std::string token;
            for (std::size_t c = 0; c + 1 < cols.size() && in >> token; ++c)
                cells.push_back(token);
            std::string name;
            std::getline(in, name);
            name.erase(0, name.find_first_not_of(' '));
            while (!name.empty() && name.back() == ' ')
                name.pop_back();
            const bool whole = cells.size() + 1 == cols.size() && !name.empty();
            cells.push_back(name);
            return whole;
        };
        for (std::size_t i = h + 2; i < lines.size() && !is_fence(lines[i]); ++i) {
            const std::string row = console(lines[i]);
            if (blank(row)) {
                // One blank line between two rows (a terminal that broke a row of its exact width twice): the
                // table goes on when the next line is a whole row that can belong to it.
                std::vector<std::string> next;
                if (i + 1 < lines.size() && !out.kernels.empty() && split_row(console(lines[i + 1]), next) &&
                    cells_fit(cols, next) && continues_table(cols, out.kernels, next))
                    continue;
                break;
            }
            if (is_elision(row)) {
                out.warnings.push_back(elision_warning(h + 1, i + 1, row, out.kernels.size()));
                break;
            }
            if (by_extent) {
                const std::vector<std::string> cells = cells_by_extent(row, spans);
                if (cells_fit(cols, cells)) {
                    out.kernels.push_back(make_row(cols, cells, i + 1, origin));
                    continue;
                }
            }
            std::vector<std::string> cells;
            if (!split_row(row, cells))
                throw InputError(origin, fmt::format("line {}: {} columns where the header has {} (file truncated?); {}", i + 1,
                                                     cells.size() - (cells.back().empty() ? 1 : 0), cols.size(), kExpected));
            out.kernels.push_back(make_row(cols, cells, i + 1, origin));
        }
        out.format = "nsys stats cuda_gpu_kern_sum console table";
    }
    if (out.kernels.empty())
        throw InputError(origin, fmt::format("the kernel table has no rows; {}", kExpected));
    // The run's memory tables: nsys prints them after its kernel table, unless told the reports in another order
    // (`--report cuda_gpu_mem_time_sum,cuda_gpu_kern_sum`). Those of this kernel table's run: between the lines
    // naming another report (run_span), else between nothing that says another run's (an earlier run whose kernel
    // summary nsys SKIPPED) and the next kernel table. A table above is read when none is below, or when no report
    // is named and the next kernel table follows one below (memory tables first: that one is the next run's).
    // The kernel table read in a decimal-comma locale (its first row swapped), not another table of the file.
    const bool kernel_dc = h + 2 < swapped.size() && swapped[h + 2];
    const std::size_t next = out.other_tables.empty() ? lines.size() : out.other_tables.front() - 1;
    const RunSpan run = run_span(lines, h, next);
    const std::size_t above = first_time_header(lines, run.lo, h), below = first_time_header(lines, h + 1, run.hi);
    const std::size_t any_above = first_time_header(lines, 0, h);
    const bool skipped = skipped_kernels(lines, run.lo, h) != 0;
    // Memory tables first shows in the last kernel table having none after it (nsys's own order, kernel then memory,
    // puts one after every run's kernel table): mem_a, kern_a, mem_b, kern_b, mem_c, kern_c. With one after the
    // last kernel table, a table above the first is an earlier run's (its kernel SKIPPED line not pasted).
    const std::size_t last_kernel = out.other_tables.empty() ? h : out.other_tables.back() - 1;
    const bool ends_with_memory = first_time_header(lines, last_kernel + 1, lines.size()) < lines.size();
    const bool memory_first = above < h && !skipped && !run.named && next < lines.size() && below < run.hi && !ends_with_memory;
    const bool after = !memory_first && nsys_parts::read_memory_tables(lines, h + 1, run.hi, origin, out, swapped);
    if (memory_first || (!after && above < h && !skipped)) {
        nsys_parts::read_memory_tables(lines, run.lo, h, origin, out, swapped);
        if (memory_first)
            out.warnings.push_back(fmt::format(
                "the memory operation table at line {} comes between the kernel tables at lines {} and {}, and this run's "
                "memory tables come before its kernel table (line {}): the next run's, not read",
                below + 1, h + 1, next + 1, above + 1));
    } else if (any_above < h) {
        const std::size_t skip = skipped_kernels(lines, 0, h);
        if (skip != 0 || any_above < run.lo)
            out.warnings.push_back(
                fmt::format("the memory operation table at line {} comes before the kernel table at line {}: {}, not read",
                            any_above + 1, h + 1,
                            skip != 0 ? fmt::format("another run's (line {}: no kernel data)", skip)
                                      : fmt::format("another run's (line {} names another report)", run.other)));
        else
            out.warnings.push_back(
                fmt::format("the memory operation table at line {} comes before the kernel table at line {} "
                            "and is not read: the one at line {}, after the kernel table, is",
                            any_above + 1, h + 1, below + 1));
    }
    // A GPU trace in the same file (`nsys nvprof --print-gpu-trace` of another run pasted above, or
    // --report cuda_gpu_trace beside the summary): its launches are not added to the summary's, said so.
    for (std::size_t k = 0; k < lines.size(); ++k)
        if (is_gpu_trace_header(lines[k])) {
            out.warnings.push_back(fmt::format(
                "the GPU trace at line {} (one row per launch) is not read: the kernel summary at line {} is", k + 1, h + 1));
            break;
        }
    return checked_total(std::move(out), origin, kernel_dc);
}

}  // namespace

std::vector<std::string> nsys_parts::reports_named(const std::string& l) {
    std::vector<std::string> stems;
    if (l.find(".sqlite") == std::string::npos && l.find(".nsys-rep") == std::string::npos &&
        l.find(".qdrep") == std::string::npos)
        return stems;
    std::istringstream words(l);
    for (std::string w; words >> w;) {
        w.erase(std::remove_if(w.begin(), w.end(), [](char c) { return c == '[' || c == ']' || c == '\'' || c == '"'; }),
                w.end());
        while (!w.empty() && (w.back() == '.' || w.back() == ','))
            w.pop_back();
        const auto ends = [&w](const std::string& x) {
            return w.size() > x.size() && w.compare(w.size() - x.size(), x.size(), x) == 0;
        };
        if (!ends(".sqlite") && !ends(".nsys-rep") && !ends(".qdrep"))
            continue;
        const std::string stem = w.substr(w.rfind('/') + 1, w.rfind('.') - w.rfind('/') - 1);
        if (std::find(stems.begin(), stems.end(), stem) == stems.end())
            stems.push_back(stem);
    }
    return stems;
}

namespace {

// `message` with each line number it names ("line 6", "lines 6, 9 and 12") replaced by line_of's (1-based) entry: the
// lines of the file before mend_json_tables laid a compact JSON array out over more lines. Text the message quotes
// ('...' or "...": a line, a name, a path such as '/scratch/run line 7/r.sqlite') is the file's, left as it is.
std::string original_lines(const std::string& message, const std::vector<std::size_t>& line_of) {
    // quoted[i]: message[i] lies within a quote: an opening ' or " not after a letter or digit (an apostrophe, "nsys's",
    // opens none) up to the same mark not before one.
    std::vector<bool> quoted(message.size(), false);
    const auto alnum = [&message](std::size_t i) {
        return i < message.size() && std::isalnum(static_cast<unsigned char>(message[i])) != 0;
    };
    for (std::size_t i = 0; i < message.size(); ++i) {
        const char q = message[i];
        if ((q != '\'' && q != '"') || (i > 0 && alnum(i - 1)))
            continue;
        std::size_t j = message.find(q, i + 1);
        while (j != std::string::npos && alnum(j + 1))
            j = message.find(q, j + 1);
        if (j == std::string::npos)
            continue;
        std::fill(quoted.begin() + static_cast<std::ptrdiff_t>(i), quoted.begin() + static_cast<std::ptrdiff_t>(j) + 1, true);
        i = j;
    }
    std::string out;
    std::size_t at = 0;
    for (std::size_t w = message.find("line"); w != std::string::npos; w = message.find("line", std::max(w + 4, at))) {
        if ((w > 0 && std::isalpha(static_cast<unsigned char>(message[w - 1]))) || quoted[w])
            continue;
        std::size_t k = w + 4;
        const bool plural = k < message.size() && message[k] == 's';
        k += plural ? 1 : 0;
        if (k >= message.size() || message[k] != ' ')
            continue;
        ++k;
        // The numbers of the list: "6", then ", 9", " and 12" after a plural.
        while (k < message.size() && std::isdigit(static_cast<unsigned char>(message[k]))) {
            std::size_t e = k;
            while (e < message.size() && std::isdigit(static_cast<unsigned char>(message[e])))
                ++e;
            const std::size_t n = e - k <= 9 ? std::stoul(message.substr(k, e - k)) : 0;
            out += message.substr(at, k - at);
            out += n >= 1 && n <= line_of.size() ? std::to_string(line_of[n - 1]) : message.substr(k, e - k);
            at = e;
            k = e;
            if (!plural)
                break;
            if (message.compare(k, 2, ", ") == 0 && k + 2 < message.size() &&
                std::isdigit(static_cast<unsigned char>(message[k + 2])))
                k += 2;
            else if (message.compare(k, 5, " and ") == 0)
                k += 5;
            else
                break;
        }
    }
    return out + message.substr(at);
}

}  // namespace

NsysKernSum parse_nsys_kern_sum(const std::string& text, const std::string& origin) {
    std::vector<std::string> mended;
    std::vector<bool> swapped;
    std::vector<std::size_t> line_of;
    const std::vector<std::string> raw = split_lines(text);
    const std::vector<std::string> lines =
        nsys_parts::mend_console_paste(nsys_parts::mend_json_tables(raw, line_of), mended, swapped);
    // Line numbers of the file, where a compact JSON array was laid out over more lines than it had.
    const bool shifted = lines.size() != raw.size();
    const auto in_file = [&](std::size_t l) { return shifted && l >= 1 && l <= line_of.size() ? line_of[l - 1] : l; };
    NsysKernSum out;
    try {
        out = parse_lines(lines, origin, swapped);
    } catch (const InputError& e) {
        if (!shifted)
            throw;
        std::string m = e.what();
        if (m.rfind(origin + ": ", 0) == 0)
            m.erase(0, origin.size() + 2);
        throw InputError(origin, original_lines(m, line_of));
    }
    // A --format json or tsv table, read as the CSV mend_console_paste made of it: the format line says so.
    if (const std::size_t t = in_file(out.table_line); t > 0 && t <= raw.size() && out.table_line <= lines.size() &&
                                                       raw[t - 1] != lines[out.table_line - 1] && out.format.ends_with(" CSV")) {
        const std::size_t a = raw[t - 1].find_first_not_of(" \t");
        if (a != std::string::npos && raw[t - 1][a] == '[')
            out.format.replace(out.format.size() - 3, 3, "JSON (--format json)");
        else if (raw[t - 1].find('\t') != std::string::npos)
            out.format.replace(out.format.size() - 3, 3, "TSV (--format tsv)");
    }
    out.warnings.insert(out.warnings.begin(), mended.begin(), mended.end());
    if (shifted) {
        out.table_line = in_file(out.table_line);
        for (std::size_t& l : out.other_tables)
            l = in_file(l);
        for (std::string& w : out.warnings)
            w = original_lines(w, line_of);
    }
    return out;
}

}  // namespace bwacct
