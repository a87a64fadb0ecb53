// nvprof's summary mode (`nvprof ./app`, `nvprof --print-gpu-summary`), console or --csv (nsys_parts.h).
//
// Console (CUDA 9+): one table whose rows carry a type label where the type changes:
//               Type  Time(%)      Time     Calls       Avg       Min       Max  Name
//    GPU activities:   67.08%  8.6348ms        14  616.77us     512ns  3.1952ms  [CUDA memcpy HtoD]
//                      32.67%  4.2060ms        14  300.43us  4.5440us  1.3851ms  reduceNeighbored(int*, int*, unsigned int)
//         API calls:   53.00%  148.20ms         2  74.101ms     513ns  148.20ms  cudaEventCreate
// Before CUDA 9 there is no Type column: the GPU table follows "==PID== Profiling result:" and the API table
// has its own header after "==PID== API calls:". Each time carries its unit (s, ms, us, ns).
// --csv: "Type","Time(%)","Time","Calls","Avg","Min","Max","Name", a row of units (",%,ms,,us,us,ms,"), then
// one row per activity with bare numbers in those units.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "bwacct/error.h"
#include "csv.h"
#include "nsys_parts.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using nsys_parts::blank;
using nsys_parts::elision_warning;
using nsys_parts::in_us;
using nsys_parts::is_elision;
using nsys_parts::is_fence;
using nsys_parts::trim;
using nsys_parts::unit_to_us;

constexpr const char* kExpected =
    "expected nvprof's summary (`nvprof ./app`: a 'Type  Time(%)  Time  Calls  Avg  Min  Max  Name' table whose "
    "'GPU activities' rows are read), `nsys stats --report cuda_gpu_kern_sum` output or an nsys GPU trace";

enum class Col { type, pct, total, calls, avg, min, max, name, other };

struct Column {
    Col col = Col::other;
    std::optional<double> to_us;  // a unit in the title ("Time(ms)"): bare numbers are in it
};

Column column_of(const std::string& title) {
    const auto [base, unit] = nsys_parts::split_title(title);
    Column c;
    if (base == "type")
        c.col = Col::type;
    else if (base == "time" && unit == "%")
        c.col = Col::pct;
    else if (base == "time")
        c.col = Col::total;
    else if (base == "calls")
        c.col = Col::calls;
    else if (base == "avg")
        c.col = Col::avg;
    else if (base == "min")
        c.col = Col::min;
    else if (base == "max")
        c.col = Col::max;
    else if (base == "name")
        c.col = Col::name;
    if (c.col != Col::pct && !unit.empty())
        c.to_us = unit_to_us(unit);
    return c;
}

// nvprof's summary header: Time(%), Calls, Avg and Name (nsys's summaries say "Time (%)" and "Instances").
bool is_header(const std::string& line) {
    return line.find("Time(%)") != std::string::npos && line.find("Calls") != std::string::npos &&
           line.find("Avg") != std::string::npos && line.find("Name") != std::string::npos &&
           line.find("Total Time") == std::string::npos;
}

// One activity row into `out` (a kernel) or the memory-operation tally; throws on a cell that is not what
// its column holds.
struct Reader {
    const std::string& origin;
    NsysKernSum& out;
    std::size_t copies = 0;
    double copies_us = 0;
    std::size_t not_gpu = 0;  // rows of another type (API calls) passed over

    void add(const std::vector<Column>& cols, const std::vector<std::string>& cells, const std::string& name, std::size_t line,
             const std::vector<std::optional<double>>& units) {
        NsysKernel k;
        k.name = name;
        bool have_total = false, have_calls = false;
        for (std::size_t i = 0; i < cols.size() && i < cells.size(); ++i) {
            const Col c = cols[i].col;
            if (c == Col::type || c == Col::name || c == Col::other)
                continue;
            const std::optional<double> bare = i < units.size() && units[i] ? units[i] : cols[i].to_us;
            std::string cell = trim(cells[i]);
            if (c == Col::pct || c == Col::calls) {
                if (c == Col::pct && !cell.empty() && cell.back() == '%')
                    cell.pop_back();
                const std::optional<double> v = parse_number_text(cell);
                if (!v || *v < 0 || (c == Col::calls && (*v < 1 || *v != std::floor(*v) || *v > 1e18)))
                    throw InputError(origin,
                                     fmt::format("line {}: '{}' is not {}; {}", line, cells[i],
                                                 c == Col::pct ? "a percentage" : "a whole number of calls >= 1", kExpected));
                if (c == Col::pct)
                    k.time_pct = *v;
                else
                    k.instances = static_cast<std::uint64_t>(*v);
                have_calls = have_calls || c == Col::calls;
                continue;
            }
            const std::optional<double> us = nsys_parts::suffixed_time_us(cell, bare);
            if (!us)
                throw InputError(origin, fmt::format("line {}: '{}' is not a time with its unit (s, ms, us or ns); {}", line,
                                                     cells[i], kExpected));
            if (c == Col::total) {
                k.total_us = *us;
                have_total = true;
            } else {
                (c == Col::avg ? k.avg_us : c == Col::min ? k.min_us : k.max_us) = *us;
            }
        }
        if (!have_total || !have_calls || k.name.empty())
            throw InputError(origin, fmt::format("line {}: a row without a time, a call count or a name; {}", line, kExpected));
        // nvprof names its memory operations in brackets: [CUDA memcpy HtoD], [CUDA memset].
        if (k.name.front() == '[' && k.name.back() == ']') {
            ++copies;
            copies_us += k.total_us;
            out.memory_ops.push_back({k.name, k.instances, k.total_us, std::nullopt});
            return;
        }
        k.category = classify_kernel(k.name);
        out.kernels.push_back(std::move(k));
    }
};

// The type label that starts a console row ("GPU activities:", "API calls:", "Range:"), cut off `row`; empty
// when the row has none. nullopt when the row starts with text that is no label (program output after the table).
std::optional<std::string> take_label(std::string& row) {
    if (row.empty() || std::isdigit(static_cast<unsigned char>(row[0])) || row[0] == '.')
        return std::string();
    const std::size_t colon = row.find(": ");
    const std::size_t end = colon == std::string::npos && row.back() == ':' ? row.size() - 1 : colon;
    if (end == std::string::npos)
        return std::nullopt;
    const std::string label = row.substr(0, end);
    if (label.empty() || label.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ()") != std::string::npos)
        return std::nullopt;
    row = trim(row.substr(std::min(row.size(), end + 1)));
    return label;
}

// nvprof's console header since CUDA 9: the columns of every summary, in this order.
constexpr const char* kTypedHeader = "Type  Time(%)  Time  Calls  Avg  Min  Max  Name";

// The console table whose header is `head` (lines[h], or kTypedHeader for a paste that cut it), its rows from
// lines[first] on.
void read_console(const std::vector<std::string>& lines, std::size_t h, Reader& r, const std::string& head, std::size_t first) {
    std::vector<Column> cols;
    std::vector<std::string> titles;
    for (std::size_t i = 0, t = head.find_first_not_of(" \t"); t != std::string::npos; t = head.find_first_not_of(" \t", i)) {
        i = std::min(head.find_first_of(" \t", t), head.size());
        titles.push_back(head.substr(t, i - t));
        cols.push_back(column_of(titles.back()));
    }
    if (cols.empty() || cols.back().col != Col::name)
        throw InputError(r.origin, fmt::format("line {}: the Name column is not the last one; {}", h + 1, kExpected));
    const bool typed = cols.front().col == Col::type;
    std::string type = typed ? "" : "GPU activities";
    bool gpu_seen = false;
    for (std::size_t i = first; i < lines.size(); ++i) {
        std::string row = trim(lines[i]);
        if (blank(row) || is_fence(row))
            break;
        if (is_elision(row)) {
            r.out.warnings.push_back(elision_warning(h + 1, i + 1, row, r.out.kernels.size()));
            break;
        }
        const std::optional<std::string> label = take_label(row);
        if (!label)
            break;  // the program's own output after the table ("PASSED")
        if (!label->empty()) {
            if (!typed)
                break;
            type = *label;
        }
        if (type != "GPU activities") {
            if (gpu_seen)
                break;  // API calls, then the NVTX or OpenACC tables: no GPU work
            ++r.not_gpu;
            continue;
        }
        gpu_seen = true;
        std::vector<std::string> cells(typed ? 1 : 0);
        std::size_t at = 0;
        for (std::size_t c = typed ? 1 : 0; c + 1 < cols.size(); ++c) {
            const std::size_t a = row.find_first_not_of(' ', at);
            if (a == std::string::npos)
                break;
            at = std::min(row.find(' ', a), row.size());
            cells.push_back(row.substr(a, at - a));
        }
        const std::string name = at < row.size() ? trim(row.substr(at)) : "";
        if (cells.size() + 1 != cols.size() || name.empty())
            throw InputError(r.origin, fmt::format("line {}: {} cells where the header has {} (a row cut short?); {}", i + 1,
                                                   cells.size() + (name.empty() ? 0 : 1), cols.size(), kExpected));
        r.add(cols, cells, name, i + 1, {});
    }
    r.out.format = "nvprof summary (console; GPU activities read)";
}

void read_csv(const std::vector<std::string>& lines, std::size_t h, Reader& r) {
    std::string table;
    for (std::size_t i = h; i < lines.size() && !blank(lines[i]) && !is_fence(lines[i]) && lines[i].rfind("==", 0) != 0; ++i)
        table += lines[i] + "\n";
    const std::vector<ingest::CsvRecord> records = ingest::parse_csv(table, r.origin);
    if (records.empty())  // the header line ends the table itself (a fence, a "==" line)
        throw InputError(r.origin, fmt::format("line {}: an nvprof CSV header with no table under it; {}", h + 1, kExpected));
    std::vector<Column> cols;
    for (const std::string& t : records.front().fields)
        cols.push_back(column_of(t));
    const auto at = [&](Col c) {
        return static_cast<std::size_t>(std::find_if(cols.begin(), cols.end(), [c](const Column& x) { return x.col == c; }) -
                                        cols.begin());
    };
    const std::size_t type_col = at(Col::type), name_col = at(Col::name);
    if (name_col == cols.size())
        throw InputError(r.origin, fmt::format("line {}: the header has no Name column; {}", h + 1, kExpected));
    // The units row: every cell empty or a unit ("", "%", "ms", "us").
    std::vector<std::optional<double>> units;
    std::size_t first = 1;
    if (records.size() > 1 && std::all_of(records[1].fields.begin(), records[1].fields.end(),
                                          [](const std::string& f) { return f.empty() || f == "%" || unit_to_us(f); })) {
        for (const std::string& f : records[1].fields)
            units.push_back(f.empty() || f == "%" ? std::nullopt : unit_to_us(f));
        first = 2;
    }
    for (std::size_t k = first; k < records.size(); ++k) {
        const std::vector<std::string>& f = records[k].fields;
        const std::size_t line = h + records[k].line;
        if (f.size() < cols.size())
            throw InputError(r.origin, fmt::format("line {}: {} fields where the header has {} (file truncated?); {}", line,
                                                   f.size(), cols.size(), kExpected));
        if (type_col < cols.size() && f[type_col] != "GPU activities") {
            ++r.not_gpu;
            continue;
        }
        r.add(cols, f, f[name_col], line, units);
    }
    r.out.format = "nvprof summary (--csv; GPU activities read)";
}

// The summary read from its table at lines[h]: refused without a kernel (unless `require_kernels` is false), the memory
// operations warned about.
std::optional<NsysKernSum> finish(NsysKernSum out, const Reader& r, std::size_t h, const std::string& origin,
                                  bool require_kernels) {
    if (out.kernels.empty() && !require_kernels)
        return out;
    if (out.kernels.empty() && r.copies == 0 && r.not_gpu > 0)
        throw InputError(origin, fmt::format("the nvprof summary at line {} holds {} API call row{} and no GPU activities "
                                             "(`--print-api-summary`?): no GPU work; {}",
                                             h + 1, r.not_gpu, r.not_gpu == 1 ? "" : "s", kExpected));
    if (out.kernels.empty())
        throw InputError(origin, fmt::format("the nvprof summary at line {} holds no kernel ({} memory operation row{} only); {}",
                                             h + 1, r.copies, r.copies == 1 ? "" : "s", kExpected));
    if (r.copies > 0)
        out.warnings.push_back(
            fmt::format("nvprof's {} memory operation row{} ([CUDA memcpy ...] or [CUDA memset], {:.1f} us in all) {}: listed "
                        "under memory operations (nvprof prints no bytes); time % stays nvprof's own, a "
                        "share of all GPU activities",
                        r.copies, r.copies == 1 ? "" : "s", r.copies_us, r.copies == 1 ? "is not a kernel" : "are not kernels"));
    out.from_nvprof = true;
    out.profiler = "nvprof";
    return out;
}

}  // namespace

// A time as nvprof prints it: a number with its unit ("8.6348ms", "512ns", "1.22693s"); a bare number is in
// `bare_to_us` (the CSV's units row or the title's unit), else not a time.
std::optional<double> nsys_parts::suffixed_time_us(const std::string& text, std::optional<double> bare_to_us) {
    std::size_t end = text.size();
    while (end > 0 && std::isalpha(static_cast<unsigned char>(text[end - 1])))
        --end;
    if (end >= 2 && text.compare(end - 2, 2, "\xc2\xb5") == 0)
        end -= 2;  // "µs"
    const std::string unit = text.substr(end);
    const std::optional<double> v = parse_number_text(text.substr(0, end));
    if (!v || *v < 0)
        return std::nullopt;
    const std::optional<double> scale = unit.empty() ? bare_to_us : unit_to_us(unit);
    if (!scale)
        return std::nullopt;
    const double us = in_us(*v, *scale);
    return std::isfinite(us) ? std::optional<double>(us) : std::nullopt;  // 1e308s is no time
}

std::optional<NsysKernSum> nsys_parts::parse_nvprof_summary(const std::vector<std::string>& lines, const std::string& origin,
                                                            bool require_kernels) {
    // The tables of GPU activities: headers after "Profiling result:" (or before any nvprof banner), not those
    // after "API calls:" (nvprof before CUDA 9), "NVTX result:" or "Unified Memory profiling result:".
    std::vector<std::size_t> tables;
    bool gpu = true;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (l.find("Unified Memory profiling result:") != std::string::npos || l.find("API calls:") != std::string::npos ||
            l.find("NVTX result:") != std::string::npos || l.find("OpenACC") != std::string::npos)
            gpu = l.find("==") == std::string::npos ? gpu : false;
        if (l.find("Profiling result:") != std::string::npos && l.find("Unified Memory") == std::string::npos)
            gpu = true;
        if (gpu && is_header(l))
            tables.push_back(i);
    }
    // A paste that starts at the first row, its header line cut: " GPU activities:   15.95%  1.72898s  28160 ..." is
    // nvprof's typed summary row all the same (a percentage, then a time with its unit), its columns in nvprof's order.
    // Each such line opens one run's table: the first is read, the others named as further tables.
    std::size_t headless = lines.size();
    std::vector<std::size_t> more_headless;
    if (tables.empty())
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::string t = trim(lines[i]);
            if (t.rfind("GPU activities:", 0) != 0)
                continue;
            std::istringstream words(t.substr(15));
            std::string pct, time;
            words >> pct >> time;
            if (pct.size() > 1 && pct.back() == '%' && parse_number_text(pct.substr(0, pct.size() - 1)) &&
                nsys_parts::suffixed_time_us(time, std::nullopt)) {
                if (headless == lines.size())
                    headless = i;
                else
                    more_headless.push_back(i + 1);
            }
        }
    if (tables.empty() && headless == lines.size())
        return std::nullopt;
    NsysKernSum out;
    if (tables.empty()) {
        out.table_line = headless + 1;
        out.other_tables = more_headless;
        Reader r{origin, out};
        read_console(lines, headless, r, kTypedHeader, headless);
        out.warnings.push_back(
            fmt::format("the nvprof summary at line {} has no header line (the paste starts at its first "
                        "row): read in nvprof's own column order ({})",
                        headless + 1, kTypedHeader));
        return finish(std::move(out), r, headless, origin, require_kernels);
    }
    const std::size_t h = tables.front();
    out.table_line = h + 1;
    out.other_tables.assign(tables.begin() + 1, tables.end());
    for (std::size_t& t : out.other_tables)
        ++t;
    Reader r{origin, out};
    if (lines[h].find("\"Time(%)\"") != std::string::npos || lines[h].find(",Time(%),") != std::string::npos)
        read_csv(lines, h, r);
    else
        read_console(lines, h, r, lines[h], h + 1);
    return finish(std::move(out), r, h, origin, require_kernels);
}

}  // namespace bwacct
