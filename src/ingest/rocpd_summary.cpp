// ROCm 7's `rocpd summary` / `rocpd2summary` console output (nsys_parts.h): a "KERNELS_SUMMARY:" title over a
// table of right-aligned names and seven numbers ("Name  Calls  DURATION (nsec)  AVERAGE (nsec)  PERCENT (INC)  MIN
// (nsec)  MAX (nsec)  STD_DEV"); with --summary-by-rank a "KERNELS_SUMMARY_BY_RANK:" table of the same columns led by
// ProcessID and Hostname. Names hold blanks ("NormKernel1(int, double, ...)"): a row is read from its end, the
// numbers being its last tokens and the name all before them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "bwacct/error.h"
#include "csv.h"
#include "nsys_parts.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using ingest::split_words;
using nsys_parts::trim;

constexpr const char* kExpected =
    "expected rocpd's summary (`rocpd summary -i FILE.db`: a 'KERNELS_SUMMARY:' title over 'Name  Calls  DURATION "
    "(nsec)  AVERAGE (nsec)  PERCENT (INC)  MIN (nsec)  MAX (nsec)  STD_DEV')";

bool has(const std::string& l, const char* w) { return l.find(w) != std::string::npos; }

// The header of a rocpd summary table: a Name, Calls and DURATION column, in capitals as rocpd prints them.
bool is_summary_header(const std::string& l) {
    return has(l, "Name") && has(l, "Calls") && has(l, "DURATION (") && has(l, "AVERAGE (");
}

// The titles after "Name": runs of text separated by two blanks or more ("DURATION (nsec)", "PERCENT (INC)").
std::vector<std::string> titles_after_name(const std::string& header) {
    std::vector<std::string> out;
    const std::string rest = header.substr(header.find("Name") + 4);
    std::string cur;
    std::size_t blanks = 0;
    for (const char c : rest + "  ") {
        if (c == ' ' || c == '\t') {
            ++blanks;
            continue;
        }
        if (blanks >= 2 && !cur.empty()) {
            out.push_back(cur);
            cur.clear();
        } else if (blanks == 1 && !cur.empty()) {
            cur += ' ';
        }
        blanks = 0;
        cur += c;
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

std::string previous_nonblank(const std::vector<std::string>& lines, std::size_t h) {
    for (std::size_t i = h; i-- > 0;)
        if (!nsys_parts::blank(lines[i]))
            return trim(lines[i]);
    return "";
}

// The table whose header is lines[h] (titled KERNELS_SUMMARY): one kernel per row. Throws InputError on a row that
// does not line up with the header.
NsysKernSum read_table(const std::vector<std::string>& lines, std::size_t h, const std::string& origin) {
    const std::vector<std::string> titles = titles_after_name(lines[h]);
    std::size_t calls = titles.size(), total = calls, avg = calls, pct = calls, min = calls, max = calls, sd = calls;
    std::optional<double> to_us = 1e-3;
    for (std::size_t i = 0; i < titles.size(); ++i) {
        const nsys_parts::Title t = nsys_parts::split_title(titles[i]);
        const auto time_col = [&](std::size_t& c) {
            c = i;
            if (const std::optional<double> u = nsys_parts::unit_to_us(t.unit); u)
                to_us = u;
            else
                throw InputError(origin, fmt::format("line {}: column '{}' has a time unit bwacct does not know; {}", h + 1,
                                                     titles[i], kExpected));
        };
        if (t.base == "calls")
            calls = i;
        else if (t.base == "duration")
            time_col(total);
        else if (t.base == "average")
            time_col(avg);
        else if (t.base == "percent")
            pct = i;
        else if (t.base == "min")
            time_col(min);
        else if (t.base == "max")
            time_col(max);
        else if (t.base == "std_dev")
            sd = i;
    }
    if (calls == titles.size() || total == titles.size())
        throw InputError(origin, fmt::format("line {}: a rocpd summary header without Calls or DURATION; {}", h + 1, kExpected));
    NsysKernSum out;
    out.table_line = h + 1;
    out.from_rocprof = true;
    out.profiler = "rocprof";
    std::size_t i = h + 1;
    for (; i < lines.size(); ++i) {
        const std::string& row = lines[i];
        if (nsys_parts::blank(row) || nsys_parts::is_fence(row))
            break;
        if (nsys_parts::is_elision(row)) {
            out.warnings.push_back(nsys_parts::elision_warning(h + 1, i + 1, row, out.kernels.size()));
            break;
        }
        const std::vector<std::string> toks = split_words(row);
        if (toks.size() <= titles.size())
            throw InputError(origin, fmt::format("line {}: {} blank-separated cells where the rocpd summary's header has a "
                                                 "name and {} numbers; {}",
                                                 i + 1, toks.size(), titles.size(), kExpected));
        const std::size_t first = toks.size() - titles.size();
        const auto num = [&](std::size_t c) -> std::optional<double> {
            if (c == titles.size())
                return std::nullopt;
            const std::string& cell = toks[first + c];
            if (c == sd && (cell == "NaN" || cell == "nan"))  // one call: no spread
                return std::nullopt;
            const std::optional<double> v = parse_number_text(cell);
            if (!v || *v < 0)
                throw InputError(
                    origin, fmt::format("line {}: {} '{}' is not a non-negative number; {}", i + 1, titles[c], cell, kExpected));
            return v;
        };
        // The name: the row's text before its numbers, with its inner blanks ("NormKernel2(int, double const*,
        // double*)"); right-aligned by rocpd, so its leading blanks go.
        std::size_t at = 0;
        for (std::size_t t = 0; t < first; ++t)
            at = row.find(toks[t], at) + toks[t].size();
        std::string name = trim(row.substr(0, at));
        NsysKernel k;
        k.name = name;
        const double n = *num(calls);
        if (name.empty() || n < 1 || n != std::floor(n) || n > 1e18)
            throw InputError(origin, fmt::format("line {}: a row without a name or a whole Calls >= 1; {}", i + 1, kExpected));
        k.instances = static_cast<std::uint64_t>(n);
        const double total_in = *num(total);
        k.total_us = nsys_parts::in_us(total_in, *to_us);
        if (const auto v = num(avg)) {
            // rocpd's AVERAGE is DURATION / Calls to 6 decimals: a row cut or shifted off its columns fails this.
            if (std::abs(*v * n - total_in) > 1e-6 * total_in + n)
                throw InputError(origin,
                                 fmt::format("line {}: AVERAGE {} x Calls {} is not DURATION {}: the row does not line "
                                             "up with its header; {}",
                                             i + 1, toks[first + avg], toks[first + calls], toks[first + total], kExpected));
            k.avg_us = nsys_parts::in_us(*v, *to_us);
        }
        if (const auto v = num(min))
            k.min_us = nsys_parts::in_us(*v, *to_us);
        if (const auto v = num(max))
            k.max_us = nsys_parts::in_us(*v, *to_us);
        if (const auto v = num(sd))
            k.stddev_us = nsys_parts::in_us(*v, *to_us);
        k.time_pct = num(pct);
        k.category = classify_kernel(k.name);
        out.kernels.push_back(std::move(k));
    }
    if (out.kernels.empty())
        throw InputError(origin, fmt::format("line {}: the rocpd KERNELS_SUMMARY has no rows; {}", h + 1, kExpected));
    out.format = fmt::format("rocpd summary console (AMD ROCm: rocpd summary, KERNELS_SUMMARY; {} kernel{})", out.kernels.size(),
                             out.kernels.size() == 1 ? "" : "s");
    return out;
}

}  // namespace

std::optional<NsysKernSum> nsys_parts::parse_rocpd_summary(const std::vector<std::string>& lines, const std::string& origin) {
    std::optional<NsysKernSum> found;
    std::vector<std::string> passed;  // other summaries of the file: "line N (TITLE)"
    for (std::size_t h = 0; h < lines.size(); ++h) {
        if (!is_summary_header(lines[h]))
            continue;
        std::string title = previous_nonblank(lines, h);
        if (!title.empty() && title.back() == ':')
            title.pop_back();
        // Only the kernels' own summary: per rank (--summary-by-rank: the same kernels again, per process), the API
        // and memory-copy summaries are not kernel totals.
        if (title != "KERNELS_SUMMARY") {
            passed.push_back(fmt::format("line {} ({})", h + 1, title.empty() ? "untitled" : title));
            continue;
        }
        if (found) {
            found->other_tables.push_back(h + 1);
            continue;
        }
        found = read_table(lines, h, origin);
    }
    if (!found) {
        if (passed.empty())
            return std::nullopt;
        throw InputError(origin, fmt::format("the rocpd summary tables at {} are not its KERNELS_SUMMARY (per-rank, API or "
                                             "memory-copy summaries are not kernel totals); {}",
                                             fmt::join(passed, ", "), kExpected));
    }
    if (!passed.empty())
        found->warnings.push_back(
            fmt::format("rocpd summary tables other than KERNELS_SUMMARY at {} not read (per rank: the same kernels per "
                        "process)",
                        fmt::join(passed, ", ")));
    return found;
}

}  // namespace bwacct
