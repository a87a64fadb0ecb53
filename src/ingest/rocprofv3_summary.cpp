// rocprofv3's own summary (`rocprofv3 --summary` / `-S`, per domain with `-D`; nsys_parts.h): markdown-style tables
// titled "ROCPROFV3 SUMMARY:" or "ROCPROFV3 KERNEL_DISPATCH SUMMARY:" over
// "| NAME | DOMAIN | CALLS | DURATION (nsec) | AVERAGE (nsec) | PERCENT (INC) | MIN (nsec) | MAX (nsec) | STDDEV |".
// The KERNEL_DISPATCH rows are the kernels; MEMORY_COPY rows the copies (no bytes); the API domains are not GPU work.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bwacct/error.h"
#include "csv.h"
#include "nsys_parts.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using nsys_parts::trim;

constexpr const char* kExpected =
    "expected rocprofv3's summary (`rocprofv3 --summary`: a 'ROCPROFV3 SUMMARY:' title over '| NAME | DOMAIN | CALLS | "
    "DURATION (nsec) | ...' with KERNEL_DISPATCH rows)";

// The cells of a pipe-table line ("| a | b |" -> {"a", "b"}), trimmed; empty when the line is not one.
std::vector<std::string> pipe_cells(const std::string& line) {
    const std::string t = trim(line);
    if (t.size() < 2 || t.front() != '|' || t.back() != '|')
        return {};
    std::vector<std::string> out;
    std::size_t from = 1;
    for (std::size_t bar = t.find('|', from); bar != std::string::npos; bar = t.find('|', from)) {
        out.push_back(trim(t.substr(from, bar - from)));
        from = bar + 1;
    }
    return out;
}

struct Table {
    std::size_t header = 0;  // 0-based line of its header
    std::string title;       // "ROCPROFV3 KERNEL_DISPATCH SUMMARY", "ROCPROFV3 SUMMARY", or ""
    std::vector<std::string> titles;
};

bool is_header(const std::vector<std::string>& c) {
    const auto at = [&c](const char* w) { return std::find(c.begin(), c.end(), w) != c.end(); };
    return c.size() >= 4 && c[0] == "NAME" && at("DOMAIN") && at("CALLS") &&
           std::any_of(c.begin(), c.end(), [](const std::string& s) { return s.rfind("DURATION (", 0) == 0; });
}

struct Row {
    std::size_t line = 0;
    std::string name, domain;
    std::uint64_t calls = 0;
    double total_us = 0;
    std::optional<double> avg_us, pct, min_us, max_us, sd_us;
};

// The rows of the table (to its first line that is not a pipe row); `elided`: the line of a "| ... |" row ending it.
std::vector<Row> read_rows(const std::vector<std::string>& lines, const Table& t, const std::string& origin,
                           std::optional<std::size_t>& elided) {
    std::size_t name = 0, domain = t.titles.size(), calls = domain, total = domain, avg = domain, pct = domain, min = domain,
                max = domain, sd = domain;
    std::optional<double> to_us;
    for (std::size_t i = 0; i < t.titles.size(); ++i) {
        const nsys_parts::Title ti = nsys_parts::split_title(t.titles[i]);
        std::size_t* col = ti.base == "domain"     ? &domain
                           : ti.base == "calls"    ? &calls
                           : ti.base == "duration" ? &total
                           : ti.base == "average"  ? &avg
                           : ti.base == "percent"  ? &pct
                           : ti.base == "min"      ? &min
                           : ti.base == "max"      ? &max
                           : ti.base == "stddev"   ? &sd
                                                   : nullptr;
        if (col != nullptr)
            *col = i;
        if (ti.base == "duration")
            to_us = nsys_parts::unit_to_us(ti.unit);
    }
    if (!to_us)
        throw InputError(origin, fmt::format("line {}: the DURATION column has a time unit bwacct does not know; {}",
                                             t.header + 1, kExpected));
    std::vector<Row> out;
    for (std::size_t i = t.header + 2; i < lines.size(); ++i) {
        std::vector<std::string> c = pipe_cells(lines[i]);
        if (c.empty())
            break;
        if (c[0].rfind("...", 0) == 0 || c[0].rfind("…", 0) == 0) {  // "| ... (calls omitted) ... |": rows left out
            elided = i + 1;
            break;
        }
        if (c.size() < t.titles.size())
            throw InputError(origin, fmt::format("line {}: {} cells where the rocprofv3 summary's header has {}; {}", i + 1,
                                                 c.size(), t.titles.size(), kExpected));
        while (c.size() > t.titles.size()) {  // a '|' inside the kernel name ("operator|"): joined back
            c[0] += "|" + c[1];
            c.erase(c.begin() + 1);
        }
        const auto num = [&](std::size_t col) -> std::optional<double> {
            if (col == t.titles.size() || c[col].empty())
                return std::nullopt;
            const std::optional<double> v = parse_number_text(c[col]);
            if (!v || *v < 0 || !std::isfinite(*v))
                throw InputError(origin, fmt::format("line {}: {} '{}' is not a non-negative number; {}", i + 1, t.titles[col],
                                                     c[col], kExpected));
            return v;
        };
        Row r;
        r.line = i + 1;
        r.name = c[name];
        r.domain = domain == t.titles.size() ? "" : c[domain];
        const std::optional<double> n = num(calls), d = num(total);
        if (r.name.empty() || !n || *n < 1 || *n != std::floor(*n) || *n > 1e18 || !d)
            throw InputError(
                origin, fmt::format("line {}: a row without a name, a whole CALLS >= 1 or a DURATION; {}", i + 1, kExpected));
        r.calls = static_cast<std::uint64_t>(*n);
        r.total_us = nsys_parts::in_us(*d, *to_us);
        if (!(r.total_us <= 1e15))  // 31 years: a larger DURATION is a damaged row (its average would overflow)
            throw InputError(origin, fmt::format("line {}: DURATION {} is more than 31 years; {}", i + 1, c[total], kExpected));
        // AVERAGE is DURATION / CALLS printed to 4 digits (2.304e+04): a row shifted off its columns fails this. The average
        // shown is DURATION / CALLS, exact where AVERAGE is rounded (184,324 / 8 = 23,040.5 ns, printed 2.304e+04).
        if (const auto v = num(avg); v && std::abs(*v * *n - *d) > 5e-4 * *d + *n)
            throw InputError(origin, fmt::format("line {}: AVERAGE {} x CALLS {} is not DURATION {}: the row does not "
                                                 "line up with its header; {}",
                                                 i + 1, c[avg], c[calls], c[total], kExpected));
        r.avg_us = std::round(r.total_us / static_cast<double>(r.calls) * 1e6) / 1e6;
        r.pct = num(pct);
        if (const auto v = num(min))
            r.min_us = nsys_parts::in_us(*v, *to_us);
        if (const auto v = num(max))
            r.max_us = nsys_parts::in_us(*v, *to_us);
        if (r.min_us && r.max_us && *r.min_us > *r.max_us)
            throw InputError(origin, fmt::format("line {}: MIN {} is above MAX {}: the row does not line up with its header; {}",
                                                 i + 1, c[min], c[max], kExpected));
        if (const auto v = num(sd))
            r.sd_us = nsys_parts::in_us(*v, *to_us);
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

std::optional<NsysKernSum> nsys_parts::parse_rocprofv3_summary(const std::vector<std::string>& lines, const std::string& origin) {
    std::vector<Table> tables;
    for (std::size_t h = 0; h + 1 < lines.size(); ++h) {
        const std::vector<std::string> c = pipe_cells(lines[h]);
        if (c.empty() || !is_header(c))
            continue;
        Table t;
        t.header = h;
        t.titles = c;
        for (std::size_t i = h; i-- > 0;)
            if (!blank(lines[i])) {
                t.title = trim(lines[i]);
                if (!t.title.empty() && t.title.back() == ':')
                    t.title.pop_back();
                break;
            }
        tables.push_back(std::move(t));
    }
    if (tables.empty())
        return std::nullopt;
    NsysKernSum out;
    out.from_rocprof = true;
    out.profiler = "rocprof";
    std::optional<std::vector<Row>> kernels_read;
    bool copies_read = false;
    std::size_t domains = 0;  // rows of other domains (API calls, allocations) passed over
    for (const Table& t : tables) {
        std::optional<std::size_t> elided;
        const std::vector<Row> rows = read_rows(lines, t, origin, elided);
        std::vector<Row> kernels, copies;
        for (const Row& r : rows) {
            if (r.domain == "KERNEL_DISPATCH")
                kernels.push_back(r);
            else if (r.domain == "MEMORY_COPY")
                copies.push_back(r);
            else
                ++domains;
        }
        if (!copies.empty() && !copies_read) {
            copies_read = true;
            for (const Row& r : copies)
                out.memory_ops.push_back(NsysMemOp{r.name, r.calls, r.total_us, std::nullopt});
        }
        if (kernels.empty())
            continue;
        if (kernels_read) {
            // rocprofv3 -D prints the kernels' own table, then the same rows again in its combined ROCPROFV3 SUMMARY:
            // the same names and durations are the same run; other rows are another run's.
            const bool same =
                kernels.size() == kernels_read->size() && std::all_of(kernels.begin(), kernels.end(), [&](const Row& r) {
                    return std::any_of(kernels_read->begin(), kernels_read->end(), [&](const Row& k) {
                        return k.name == r.name && k.calls == r.calls && k.total_us == r.total_us;
                    });
                });
            if (!same)
                out.other_tables.push_back(t.header + 1);
            continue;
        }
        kernels_read = kernels;
        out.table_line = t.header + 1;
        double sum = 0;
        for (const Row& r : kernels)
            sum += r.total_us;
        // PERCENT (INC) is each row's share of its table: of the kernel time in the KERNEL_DISPATCH summary, of every
        // domain's time in the combined one (there the share of kernel time is computed here).
        const bool own_pct = t.title == "ROCPROFV3 KERNEL_DISPATCH SUMMARY";
        for (const Row& r : kernels) {
            NsysKernel k;
            k.name = r.name;
            k.instances = r.calls;
            k.total_us = r.total_us;
            k.avg_us = r.avg_us;
            k.min_us = r.min_us;
            k.max_us = r.max_us;
            k.stddev_us = r.sd_us;
            k.time_pct = own_pct && r.pct ? r.pct : std::optional<double>(sum > 0 ? 100.0 * r.total_us / sum : 0.0);
            k.category = classify_kernel(k.name);
            out.kernels.push_back(std::move(k));
        }
        if (!own_pct)
            out.warnings.push_back(
                fmt::format("line {}: time % computed here, each kernel's DURATION over the sum of the {} "
                            "KERNEL_DISPATCH rows (the table's PERCENT (INC) is a share of every "
                            "domain's time, API calls included)",
                            t.header + 1, kernels.size()));
        if (elided)
            out.warnings.push_back(nsys_parts::elision_warning(t.header + 1, *elided, lines[*elided - 1], kernels.size()));
    }
    if (!kernels_read) {
        throw InputError(
            origin, fmt::format("the rocprofv3 summary at line {} holds no KERNEL_DISPATCH row (only {}); "
                                "profile with `rocprofv3 --kernel-trace --summary` (or --stats for "
                                "kernel_stats.csv); {}",
                                tables[0].header + 1, copies_read ? "memory copies and API calls" : "API calls or allocations",
                                kExpected));
    }
    out.format = fmt::format("rocprofv3 summary (AMD ROCm: rocprofv3 --summary, KERNEL_DISPATCH rows; {} kernel{})",
                             out.kernels.size(), out.kernels.size() == 1 ? "" : "s");
    if (!out.memory_ops.empty())
        out.warnings.push_back(
            fmt::format("the summary's {} MEMORY_COPY row{} listed under memory operations without bytes "
                        "(rocprofv3's summary prints none; its memory_copy_trace.csv with a Bytes "
                        "column has them)",
                        out.memory_ops.size(), out.memory_ops.size() == 1 ? "" : "s"));
    if (domains > 0)
        out.warnings.push_back(
            fmt::format("{} rows of other domains (HIP/HSA API calls, memory allocations) not read: "
                        "host calls, not GPU work",
                        domains));
    return out;
}

}  // namespace bwacct
