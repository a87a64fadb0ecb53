// `ncu --csv` exports, long (--page details) or wide (--page raw) layout (include/bwacct/ingest_nsight.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"
#include "csv.h"
#include "ncu_parts.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;

constexpr const char* kExpected =
    "expected an `ncu --csv` export (header \"ID\",\"Kernel Name\",... with Metric Name/Unit/Value columns, or "
    "--page raw with one column per metric, or --print-summary per-kernel), or ncu's console output (per kernel "
    "'Section:' tables of Metric Name, Unit, Value), holding dram__bytes_read.sum, "
    "dram__bytes_write.sum and "
    "gpu__time_duration.sum; or nvprof --metrics output with dram_read_bytes, dram_write_bytes, dram_read_throughput and "
    "dram_write_throughput";

constexpr const char* kNvprofMetrics =
    "nvprof --metrics dram_read_bytes,dram_write_bytes,dram_read_throughput,dram_write_throughput (where nvprof lacks "
    "dram_*_bytes, as on Kepler and Maxwell: dram_read_transactions,dram_write_transactions in their place)";

enum class Metric {
    read,
    write,
    total,
    time,
    duration,
    dram_rate,
    read_rate,
    write_rate,
    dram_pct,
    sm_pct,
    dram_pct_sol,
    sm_pct_sol,
    device,
    none
};

Metric metric_of(const std::string& name) {
    if (name == "dram__bytes_read.sum")
        return Metric::read;
    if (name == "dram__bytes_write.sum")
        return Metric::write;
    if (name == "dram__bytes.sum")
        return Metric::total;
    if (name == "gpu__time_duration.sum")
        return Metric::time;
    // gpu__time_duration is one counter per launch: its .avg, .max and .min equal .sum (asked for with
    // `--metrics gpu__time_duration.avg`); taken when .sum is absent, like the section's Duration.
    if (name == "Duration" || name == "gpu__time_duration.avg" || name == "gpu__time_duration.max" ||
        name == "gpu__time_duration.min")
        return Metric::duration;
    // The DRAM rate ncu measured: dram__bytes.sum.per_second, which the Memory Workload Analysis section labels
    // "Memory Throughput" (in Gbyte/second; the Speed Of Light section's "Memory Throughput" in % is another figure).
    if (name == "dram__bytes.sum.per_second" || name == "Memory Throughput")
        return Metric::dram_rate;
    // Its two directions (the Memory Workload Analysis tables' Device Memory rows): their sum is the same rate.
    if (name == "dram__bytes_read.sum.per_second")
        return Metric::read_rate;
    if (name == "dram__bytes_write.sum.per_second")
        return Metric::write_rate;
    // ncu 2022+ also names the DRAM share gpu__dram_throughput (the SpeedOfLight section's "DRAM Throughput").
    if (name.rfind("dram__throughput.avg.pct_of_peak_sustained", 0) == 0 ||
        name.rfind("gpu__dram_throughput.avg.pct_of_peak_sustained", 0) == 0)
        return Metric::dram_pct;
    if (name.rfind("sm__throughput.avg.pct_of_peak_sustained", 0) == 0)
        return Metric::sm_pct;
    // Speed Of Light section: the same figures, used when the raw metrics are absent. Nsight Compute 2019.x
    // and 2020.1 named them "SOL FB" (the frame buffer: DRAM) and "SM [%]", 2021.x "Compute (SM) [%]".
    if (name == "DRAM Throughput" || name == "SOL FB" || name == "SOL DRAM")
        return Metric::dram_pct_sol;
    if (name == "Compute (SM) Throughput" || name == "Compute (SM) [%]" || name == "SM [%]" || name == "SOL SM")
        return Metric::sm_pct_sol;
    if (name == "device__attribute_display_name")
        return Metric::device;
    return Metric::none;
}

// ncu prints numbers in the user's locale: "2,508,800" and "62.50" (decimal point, comma groups) or
// "2.508.800" and "62,50" (decimal comma, dot groups). What one printed value says about it: a value
// with both marks, a mark repeated, or one mark followed by other than three digits decides; "4.750" or
// "12,500" (one mark, three digits after it) fits either.
enum class Digits { either, point, comma };

Digits digits_of(const std::string& v) {
    if (v.find_first_not_of("0123456789.,+-eE") != std::string::npos || v.find_first_of("0123456789") == std::string::npos)
        return Digits::either;  // not a number ("n/a", "(256, 1, 1)", a name)
    const auto dots = std::count(v.begin(), v.end(), '.'), commas = std::count(v.begin(), v.end(), ',');
    if (dots > 0 && commas > 0)
        return v.find('.') < v.find(',') ? Digits::comma : Digits::point;
    if (dots > 1)
        return Digits::comma;
    if (commas > 1)
        return Digits::point;
    if (dots + commas == 0)
        return Digits::either;
    const char mark = dots > 0 ? '.' : ',';
    const std::size_t after = v.size() - v.find(mark) - 1;
    if (after == 3 && v.find_first_not_of("0123456789", v.find(mark) + 1) == std::string::npos)
        return Digits::either;
    return mark == '.' ? Digits::point : Digits::comma;
}

// "1.234,5" -> "1234.5" (a value of a file written with a decimal comma).
std::string to_decimal_point(const std::string& v) {
    std::string out;
    for (const char c : v)
        if (c != '.')
            out += c == ',' ? '.' : c;
    return out;
}

// Stores one metric value (text as printed, with its unit) into the kernel.
void store(NcuKernel& k, Metric m, const std::string& metric, const std::string& unit, const std::string& value,
           bool decimal_comma, std::size_t line, const std::string& origin) {
    if (m == Metric::none)
        return;
    if (m == Metric::device) {
        if (!value.empty() && value != "n/a")
            k.device_name = value;
        return;
    }
    if (value.empty() || value == "n/a")
        return;
    // The % of peak figures only in %: a row of that name in another unit ("DRAM Throughput" in Gbyte/second) is
    // another figure, left out.
    const bool percent = m == Metric::dram_pct || m == Metric::sm_pct || m == Metric::dram_pct_sol || m == Metric::sm_pct_sol;
    if (percent && !unit.empty() && unit != "%")
        return;
    // A rate only in bytes per second ("Gbyte/second", "Gbyte/s"): "Memory Throughput" in % is not the DRAM rate.
    std::optional<double> rate_scale;
    if (m == Metric::dram_rate || m == Metric::read_rate || m == Metric::write_rate) {
        const std::size_t slash = unit.find('/');
        if (slash != std::string::npos && (unit.substr(slash + 1) == "second" || unit.substr(slash + 1) == "s"))
            rate_scale = ncu_byte_scale(unit.substr(0, slash));
        if (!rate_scale)
            return;
    }
    const std::optional<double> v = parse_number_text(decimal_comma ? to_decimal_point(value) : value);
    if (!v || *v < 0)
        throw InputError(origin,
                         fmt::format("line {}: {} value '{}' is not a non-negative number; {}", line, metric, value, kExpected));
    switch (m) {
        case Metric::read:
        case Metric::write:
        case Metric::total: {
            const std::optional<double> s = ncu_byte_scale(unit);
            if (!s)
                throw InputError(origin, fmt::format("line {}: {} has unit '{}'; expected byte, Kbyte, Mbyte, Gbyte or "
                                                     "Tbyte",
                                                     line, metric, unit));
            if (*s != 1)
                k.rounded_bytes = true;
            (m == Metric::read ? k.dram_read_bytes : m == Metric::write ? k.dram_write_bytes : k.dram_bytes) = *v * *s;
            break;
        }
        case Metric::time:
        case Metric::duration: {
            const std::optional<double> s = ncu_time_scale_us(unit);
            if (!s)
                throw InputError(origin, fmt::format("line {}: {} has unit '{}'; expected ns/nsecond, us/usecond, "
                                                     "ms/msecond or s/second",
                                                     line, metric, unit));
            if (m == Metric::time || !k.time_us)  // gpu__time_duration.sum wins over the section's Duration
                k.time_us = *s == 1 ? *v : std::round(*v * *s * 1e6) / 1e6;  // ns -> us without binary noise (1e-6 us steps)
            break;
        }
        case Metric::dram_rate:
            k.dram_GBps = *v * *rate_scale / 1e9;
            k.dram_rate_total = true;
            break;
        case Metric::read_rate:
        case Metric::write_rate:
            // Read + write rates make the DRAM rate where dram__bytes.sum.per_second is not in the file.
            (m == Metric::read_rate ? k.dram_read_GBps : k.dram_write_GBps) = *v * *rate_scale / 1e9;
            if (k.dram_read_GBps && k.dram_write_GBps && !k.dram_rate_total)
                k.dram_GBps = *k.dram_read_GBps + *k.dram_write_GBps;
            break;
        case Metric::dram_pct:
            k.dram_pct = *v;
            break;  // the raw metric replaces a Speed Of Light copy
        case Metric::sm_pct:
            k.sm_pct = *v;
            break;
        case Metric::dram_pct_sol:
            if (!k.dram_pct)
                k.dram_pct = *v;
            break;
        case Metric::sm_pct_sol:
            if (!k.sm_pct)
                k.sm_pct = *v;
            break;
        default:
            break;
    }
}

// The profile with its text fields as valid UTF-8 (they go to JSON), and a warning when bytes were replaced.
NcuProfile with_valid_text(NcuProfile p) {
    std::size_t repaired = 0;
    for (NcuKernel& k : p.kernels)
        for (std::string* t : {&k.id, &k.name, &k.device_name, &k.cc})
            *t = ingest::valid_utf8(*t, repaired);
    if (repaired > 0)
        p.warnings.push_back(
            fmt::format("{} byte{} of the kernel names, IDs or devices {} not UTF-8 (a Latin-1 copy, or a "
                        "name cut inside a character): shown as U+FFFD",
                        repaired, repaired == 1 ? "" : "s", repaired == 1 ? "is" : "are"));
    return p;
}

// The kernel holds something bwacct reads: DRAM bytes (either direction or the total), a DRAM rate or a duration.
bool holds_bytes_rate_or_time(const NcuKernel& k) {
    return k.time_us || k.dram_read_bytes || k.dram_write_bytes || k.dram_bytes || k.dram_GBps;
}

// The profile without the kernels that hold nothing bwacct reads (no DRAM bytes, DRAM rate or duration: another run's
// --metrics of the same kernels, pasted after the one that measured them), with a warning naming them. Called once
// some kernel holds something.
NcuProfile without_empty(NcuProfile p) {
    std::vector<NcuKernel> kept;
    std::vector<std::string> left;
    for (NcuKernel& k : p.kernels) {
        if (holds_bytes_rate_or_time(k))
            kept.push_back(std::move(k));
        else
            left.push_back(fmt::format("{} ({})", k.id, short_kernel_name(k.name)));
    }
    if (!left.empty())
        p.warnings.push_back(
            fmt::format("{} kernel{} ({}) hold{} no DRAM bytes, DRAM rate or duration (other metrics only, "
                        "e.g. another run's --metrics): left out",
                        left.size(), left.size() == 1 ? "" : "s", fmt::join(left, ", "), left.size() == 1 ? "s" : ""));
    p.kernels = std::move(kept);
    return p;
}

int index_of(const std::vector<std::string>& header, const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

}  // namespace

void ncu_parts::store_metric(NcuKernel& k, const std::string& metric, const std::string& unit, const std::string& value,
                             bool decimal_comma, std::size_t line, const std::string& origin) {
    store(k, metric_of(metric), metric, unit, value, decimal_comma, line, origin);
}

std::optional<double> ncu_byte_scale(const std::string& unit) {
    static const std::map<std::string, double> k{{"byte", 1},    {"bytes", 1},   {"Kbyte", 1e3},
                                                 {"Mbyte", 1e6}, {"Gbyte", 1e9}, {"Tbyte", 1e12}};
    const auto it = k.find(unit);
    return it == k.end() ? std::nullopt : std::optional<double>(it->second);
}

std::optional<double> ncu_time_scale_us(const std::string& unit) {
    static const std::map<std::string, double> k{{"ns", 1e-3}, {"nsecond", 1e-3}, {"us", 1},  {"usecond", 1},
                                                 {"ms", 1e3},  {"msecond", 1e3},  {"s", 1e6}, {"second", 1e6}};
    const auto it = k.find(unit);
    return it == k.end() ? std::nullopt : std::optional<double>(it->second);
}

NcuProfile parse_ncu_csv(const std::string& text, const std::string& origin) {
    // ncu may print ==PROF== lines (or the application's output) before the table: start at the header.
    std::size_t start = std::string::npos;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t eol = std::min(text.find('\n', pos), text.size());
        const std::string_view line(text.data() + pos, eol - pos);
        const bool has_name = line.find("\"Kernel Name\"") != std::string_view::npos;
        // --page details/raw start with "ID"; --print-summary per-kernel has no ID but Invocations and Average.
        const bool summary = has_name && line.find("\"Invocations\"") != std::string_view::npos &&
                             line.find("\"Average\"") != std::string_view::npos;
        if ((line.rfind("\"ID\",", 0) == 0 && has_name) || summary) {
            start = pos;
            break;
        }
        pos = eol + 1;
    }
    if (start == std::string::npos) {
        const std::vector<std::string> lines = ingest::split_lines(text);
        // nvprof's metric mode (ncu's predecessor), console or --csv.
        NcuProfile metrics = ncu_parts::parse_nvprof_metrics(lines, origin);
        if (!metrics.kernels.empty()) {
            const bool useful = std::any_of(metrics.kernels.begin(), metrics.kernels.end(), [](const NcuKernel& k) {
                return k.dram_GBps || (k.dram_read_bytes && k.dram_write_bytes);
            });
            const bool any_dram =
                std::any_of(metrics.kernels.begin(), metrics.kernels.end(), [](const NcuKernel& k) { return k.dram_metric; });
            if (!useful)
                throw InputError(origin, fmt::format("nvprof --metrics output names {} kernel{} but {}; bwacct reads "
                                                     "dram_read_bytes + dram_write_bytes (or the "
                                                     "two dram_*_transactions) and dram_read_throughput + "
                                                     "dram_write_throughput: {}",
                                                     metrics.kernels.size(), metrics.kernels.size() == 1 ? "" : "s",
                                                     any_dram ? "none has both directions of DRAM traffic"
                                                              : "no DRAM metric (dram_read_*, dram_write_*)",
                                                     kNvprofMetrics));
            return with_valid_text(std::move(metrics));
        }
        // ncu's console output (no --csv), as pasted in READMEs and issues.
        NcuProfile console = ncu_parts::parse_ncu_text(lines, origin);
        if (!console.kernels.empty()) {
            const bool useful = std::any_of(console.kernels.begin(), console.kernels.end(), holds_bytes_rate_or_time);
            if (!useful)
                throw InputError(origin, fmt::format("ncu's console output names {} kernel{} but none has DRAM bytes, a "
                                                     "DRAM rate (Memory Throughput in Gbyte/s) or a Duration; {}",
                                                     console.kernels.size(), console.kernels.size() == 1 ? "" : "s", kExpected));
            return with_valid_text(without_empty(std::move(console)));
        }
        // ncu that failed (an option that matched nothing, no kernel profiled) wrote only its messages: quote
        // the first.
        std::size_t err = text.find("==ERROR==");
        if (err == std::string::npos)
            err = text.find("==WARNING== No kernels were profiled");
        if (err != std::string::npos) {
            std::string first = text.substr(err, std::min(text.find('\n', err), text.size()) - err);
            while (!first.empty() && (first.back() == '\r' || first.back() == ' '))
                first.pop_back();
            throw InputError(origin, fmt::format("holds no ncu CSV table, only ncu's messages ('{}'); {}", first, kExpected));
        }
        // nvprof --events: raw counters per memory partition (fb_subp0_read_sectors, ...), not read.
        for (const std::string& l : lines)
            if ((l.find("Invocations ") != std::string::npos && l.find(" Event Name ") != std::string::npos) ||
                l.find("\"Kernel\",\"Invocations\",\"Event Name\"") != std::string::npos)
                throw InputError(origin, fmt::format("holds nvprof --events output (raw per-partition counts), which bwacct does "
                                                     "not read; profile with {}; {}",
                                                     kNvprofMetrics, kExpected));
        // `--page session`: the session's and devices' attributes ("Session Attribute","Value"), no kernel result.
        if (text.find("\"Session Attribute\",\"Value\"") != std::string::npos ||
            text.find("\"Launch Attribute\",\"Value\"") != std::string::npos)
            throw InputError(origin, fmt::format("holds ncu's --page session export (session, launch and device attributes), "
                                                 "which has no kernel results; export them with --page details or --page "
                                                 "raw; {}",
                                                 kExpected));
        // `ncu -o NAME` wrote its results to a report file and only its progress lines here: name the report.
        const std::size_t report = text.find("==PROF== Report: ");
        if (report != std::string::npos) {
            std::string path = text.substr(report + 17, std::min(text.find('\n', report), text.size()) - report - 17);
            while (!path.empty() && (path.back() == '\r' || path.back() == ' '))
                path.pop_back();
            throw InputError(origin, fmt::format("holds only ncu's progress lines: its results went to the report '{}' "
                                                 "(ncu -o); export them with `ncu -i {} --csv --page raw`; {}",
                                                 path, path, kExpected));
        }
        throw InputError(origin, fmt::format("no ncu CSV header (\"ID\",...,\"Kernel Name\",...) found; {}", kExpected));
    }
    const std::size_t skipped_lines =
        static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
    const std::vector<ingest::CsvRecord> records = ingest::parse_csv(std::string_view(text).substr(start), origin);
    const std::vector<std::string>& header = records.front().fields;
    const int id_col = index_of(header, "ID"), name_col = index_of(header, "Kernel Name");
    const int invocations_col = index_of(header, "Invocations");
    // --print-summary per-kernel: one row per kernel, launch shape and metric, with the Minimum, Maximum and
    // Average over the kernel's invocations; the Average is read (the Metric Value of the other pages).
    const bool per_kernel = id_col < 0 && invocations_col >= 0 && index_of(header, "Average") >= 0;
    if ((id_col < 0 && !per_kernel) || name_col < 0)
        throw InputError(origin, fmt::format("the header lacks \"ID\" or \"Kernel Name\"; {}", kExpected));
    const int cc_col = index_of(header, "CC");
    const int metric_col = index_of(header, "Metric Name"), unit_col = index_of(header, "Metric Unit"),
              value_col = index_of(header, per_kernel ? "Average" : "Metric Value");
    if (per_kernel && (metric_col < 0 || unit_col < 0))
        throw InputError(origin, fmt::format("the per-kernel summary lacks \"Metric Name\" or \"Metric Unit\"; {}", kExpected));
    // A summary row's kernel: its process, name, launch shape and device (ncu's own grouping).
    std::vector<int> key_cols;
    if (per_kernel)
        for (const char* c : {"Process ID", "Kernel Name", "Block Size", "Grid Size", "Device"})
            if (index_of(header, c) >= 0)
                key_cols.push_back(index_of(header, c));

    NcuProfile out;
    std::map<std::string, std::size_t> by_id;
    const auto kernel_for = [&](const std::vector<std::string>& f) -> NcuKernel& {
        std::string key;
        if (per_kernel)
            for (const int c : key_cols)
                key += f[static_cast<std::size_t>(c)] + '\x1f';
        else
            key = f[static_cast<std::size_t>(id_col)];
        const auto it = by_id.find(key);
        if (it != by_id.end())
            return out.kernels[it->second];
        NcuKernel k;
        k.id = per_kernel ? fmt::format("#{}", out.kernels.size() + 1) : key;
        k.name = f[static_cast<std::size_t>(name_col)];
        if (cc_col >= 0)
            k.cc = f[static_cast<std::size_t>(cc_col)];
        if (per_kernel) {
            const std::optional<double> n = parse_number_text(f[static_cast<std::size_t>(invocations_col)]);
            if (!n || *n < 1 || *n != std::floor(*n) || *n > 1e15)
                throw InputError(origin, fmt::format("Invocations '{}' of kernel {} is not a whole number >= 1; {}",
                                                     f[static_cast<std::size_t>(invocations_col)], k.name, kExpected));
            k.invocations = static_cast<std::uint64_t>(*n);
        }
        by_id.emplace(key, out.kernels.size());
        out.kernels.push_back(std::move(k));
        return out.kernels.back();
    };
    const auto line_of = [&](const ingest::CsvRecord& r) { return skipped_lines + r.line; };

    // The number convention of the file, from every value that decides it among the metric values that
    // carry a unit (not IDs, host names such as 127.0.0.1, the CC or version strings).
    const bool details = metric_col >= 0 && unit_col >= 0 && value_col >= 0;
    bool point = false, comma = false;
    std::string undecided;  // a value with one mark and three digits after it ("12,500"): 12500 or 12.5
    for (std::size_t r = details ? 1 : 2; r < records.size(); ++r) {
        const auto& f = records[r].fields;
        for (std::size_t c = 0; c < f.size(); ++c) {
            const std::string* unit =
                details ? (c == static_cast<std::size_t>(value_col) && f.size() > static_cast<std::size_t>(unit_col)
                               ? &f[static_cast<std::size_t>(unit_col)]
                               : nullptr)
                        : (c < records[1].fields.size() ? &records[1].fields[c] : nullptr);
            if (unit == nullptr || unit->empty())
                continue;
            const Digits d = digits_of(f[c]);
            point = point || d == Digits::point;
            comma = comma || d == Digits::comma;
            if (d == Digits::either && undecided.empty() && f[c].find(',') != std::string::npos)
                undecided = f[c];
        }
    }
    if (point && comma)
        throw InputError(origin, fmt::format("numbers are written both as 1,234.5 and as 1.234,5 (two locales mixed?); {}; "
                                             "export with LC_ALL=C",
                                             kExpected));

    if (details) {
        out.format = per_kernel ? "ncu --csv --print-summary per-kernel (Average over each kernel's invocations)"
                                : "ncu --csv --page details (one row per metric)";
        int needed = std::max({id_col, name_col, cc_col, metric_col, unit_col, value_col, invocations_col});
        for (const int c : key_cols)  // a summary row's kernel key is read too
            needed = std::max(needed, c);
        for (std::size_t r = 1; r < records.size(); ++r) {
            // ncu ends metric rows early (a trailing comma, no rule columns): only the columns read must be there.
            const auto& f = records[r].fields;
            if (f.size() <= static_cast<std::size_t>(needed))
                throw InputError(origin, fmt::format("line {}: {} fields, too few to reach the Metric Value column "
                                                     "(file truncated?); {}",
                                                     line_of(records[r]), f.size(), kExpected));
            const std::string& metric = f[static_cast<std::size_t>(metric_col)];
            store(kernel_for(f), metric_of(metric), metric, f[static_cast<std::size_t>(unit_col)],
                  f[static_cast<std::size_t>(value_col)], comma, line_of(records[r]), origin);
        }
    } else {
        out.format = "ncu --csv --page raw (one row per kernel)";
        // The second record holds the units (its ID cell is empty).
        if (records.size() < 2 || !records[1].fields[static_cast<std::size_t>(id_col)].empty())
            throw InputError(origin, fmt::format("line {}: expected the row of metric units under the header; {}",
                                                 line_of(records.front()) + 1, kExpected));
        const std::vector<std::string>& units = records[1].fields;
        for (std::size_t r = 2; r < records.size(); ++r) {
            const auto& f = records[r].fields;
            if (f.size() < header.size() || units.size() < header.size())
                throw InputError(origin, fmt::format("line {}: {} fields where the header has {} (file truncated?); {}",
                                                     line_of(records[r]), f.size(), header.size(), kExpected));
            NcuKernel& k = kernel_for(f);
            for (std::size_t c = 0; c < header.size(); ++c)  // cells past the header (a trailing comma) are ignored
                store(k, metric_of(header[c]), header[c], units[c], f[c], comma, line_of(records[r]), origin);
        }
    }
    if (comma)
        out.format += ", numbers with a decimal comma (1.234,5: read as 1234.5)";
    if (!point && !comma && !undecided.empty())
        out.warnings.push_back(fmt::format(
            "no value tells the file's number convention: '{}' and the like are read with ',' as a thousands separator "
            "(decimal point); if ncu wrote them with a decimal comma they are 1000x too large: export with LC_ALL=C",
            undecided));
    const bool useful = std::any_of(out.kernels.begin(), out.kernels.end(), holds_bytes_rate_or_time);
    if (!useful)
        throw InputError(origin, fmt::format("no kernel has DRAM bytes, a DRAM rate or a duration; {}", kExpected));
    return with_valid_text(without_empty(std::move(out)));
}

std::string ncu_device_name(const NcuProfile& p) {
    for (const NcuKernel& k : p.kernels)
        if (!k.device_name.empty())
            return k.device_name;
    return "";
}

}  // namespace bwacct
