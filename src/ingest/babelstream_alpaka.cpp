// alpaka's Catch2 babelstream benchmark output (babelstream_alpaka.h). Lines are split on blanks; no regular
// expression.
#include "babelstream_alpaka.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bwacct/error.h"
#include "csv.h"

namespace bwacct::detail {
namespace {

// "AddKernel" -> "Add": the function BabelStream names; alpaka calls Mul "MultKernel". Empty when not "<name>Kernel".
std::string function_of(const std::string& name) {
    constexpr std::string_view kSuffix = "Kernel";
    if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
        return {};
    const std::string f = name.substr(0, name.size() - kSuffix.size());
    if (f == "Mult")
        return "Mul";
    if (f == "NStream")
        return "Nstream";
    return f;
}

double positive(const std::string& text, const char* what, std::size_t line, const std::string& origin) {
    const std::optional<double> v = ingest::parse_number_text(text);
    if (!v || !std::isfinite(*v) || *v <= 0)
        throw InputError(origin, fmt::format("line {}: alpaka babelstream {} '{}' is not a positive number", line, what, text));
    return *v;
}

}  // namespace

bool alpaka_context(const std::string& t, BabelStreamRun& run) {
    const auto value = [&](std::string_view key) { return t.rfind(key, 0) == 0 ? t.substr(key.size()) : std::string(); };
    if (t.rfind("AcceleratorType:", 0) == 0) {
        run = BabelStreamRun{};
        run.implementation = "alpaka " + value("AcceleratorType:");
    } else if (t == "Precision:double") {
        run.sizeof_t = 8;
    } else if (t == "Precision:single" || t == "Precision:float") {
        run.sizeof_t = 4;
    } else if (t.rfind("DataSize(items):", 0) == 0) {
        const std::optional<double> n = ingest::parse_number_text(value("DataSize(items):"));
        if (!n || *n < 1 || *n > 1e15 || std::floor(*n) != *n)
            return false;
        run.n_elements = static_cast<std::uint64_t>(*n);
    } else if (t.rfind("DeviceName:", 0) == 0) {
        run.device = value("DeviceName:");
    } else {
        return false;
    }
    return true;
}

bool alpaka_table_header(const std::string& t) {
    const std::vector<std::string> w = ingest::split_words(t);
    return w.size() == 6 && w[0] == "Kernels" && w[1] == "Bandwidths(GB/s)" && w[2] == "MinTime(s)" && w[5] == "DataUsage(MB)";
}

namespace {

// A row of the table: "<name>Kernel" first.
bool kernel_row(const std::vector<std::string>& w) { return !w.empty() && !function_of(w[0]).empty(); }

// The array size from DataUsage: `mb` x 10^6 B over `arrays`, to the printed decimals of `text`.
void array_from_usage(const std::string& text, double mb, int arrays, BabelStreamRun& run) {
    const std::size_t dot = text.find('.');
    const double decimals = dot == std::string::npos ? 0 : static_cast<double>(text.size() - dot - 1);
    run.array_bytes = mb * 1e6 / arrays;
    run.array_bytes_halfwidth = 0.5 * std::pow(10.0, -decimals) * 1e6 / arrays;
}

}  // namespace

void parse_alpaka_table(const std::vector<std::string>& lines, std::size_t& i, BabelStreamRun run, BabelStreamFile& out,
                        const std::string& origin) {
    run.run = static_cast<int>(out.runs.size()) + 1;
    run.gigabytes = true;
    const bool exact = run.n_elements && run.sizeof_t && *run.n_elements <= (std::uint64_t{1} << 50);
    if (exact) {
        run.array_bytes = static_cast<double>(*run.n_elements * static_cast<std::uint64_t>(*run.sizeof_t));
        run.array_bytes_halfwidth = 0;
    }
    const std::size_t before = out.rows.size();
    struct Usage {
        std::size_t row, line;
        std::string text;
        double mb;
    };
    std::vector<Usage> usage;  // each row's DataUsage
    for (++i; i < lines.size(); ++i) {
        std::vector<std::string> w = ingest::split_words(lines[i]);
        if (!kernel_row(w)) {
            // A blank or foreign line (stderr, a logger) inside the table does not end it: a row of a kernel this
            // table has not had within the next 3 lines goes on with it (a repeated kernel is another run's). A
            // foreign line skipped is warned about.
            std::size_t next = i + 1;
            std::vector<std::string> n;
            for (; next < lines.size() && next <= i + 3; ++next) {
                n = ingest::split_words(lines[next]);
                if (kernel_row(n) || alpaka_table_header(lines[next]))
                    break;
            }
            const auto seen = [&](const std::string& f) {
                return std::any_of(out.rows.begin() + static_cast<std::ptrdiff_t>(before), out.rows.end(),
                                   [&](const BabelStreamRow& r) { return r.function == f; });
            };
            if (next >= lines.size() || next > i + 3 || !kernel_row(n) || seen(function_of(n[0])))
                break;
            for (std::size_t k = i; k < next; ++k)
                if (const std::vector<std::string> skipped = ingest::split_words(lines[k]); !skipped.empty())
                    out.warnings.push_back(fmt::format("line {}: '{}' inside run {}'s table was skipped (not a row)", k + 1,
                                                       lines[k].substr(0, 120), run.run));
            i = next;
            w = std::move(n);
        }
        const std::string function = function_of(w[0]);
        if (w.size() != 6)
            throw InputError(origin, fmt::format("line {}: alpaka babelstream row {} with {} fields where 6 are expected "
                                                 "(kernel, GB/s, min, max, average time, MB moved; file truncated?)",
                                                 i + 1, w[0], w.size()));
        BabelStreamRow r;
        r.run = run.run;
        r.function = function;
        r.bw_text = w[1];
        r.bw_printed = positive(w[1], "bandwidth", i + 1, origin);
        r.min_text = w[2];
        r.min_s = positive(w[2], "min time", i + 1, origin);
        r.max_s = positive(w[3], "max time", i + 1, origin);
        r.avg_s = positive(w[4], "average time", i + 1, origin);
        if (r.min_s > r.max_s)
            throw InputError(origin, fmt::format("line {}: min time {} is above max time {}", i + 1, w[2], w[3]));
        usage.push_back({out.rows.size(), i + 1, w[5], positive(w[5], "data usage", i + 1, origin)});
        out.rows.push_back(std::move(r));
    }
    --i;
    if (out.rows.size() == before)
        throw InputError(origin, fmt::format("line {}: alpaka babelstream table without rows (file truncated?)", i + 1));
    // DataUsage is the bytes one call moves in 10^6 B, printed to its decimals. Without DataSize(items) and Precision,
    // the array size is the first Copy or Mul row's DataUsage / 2 or Add or Triad's / 3 (the kernels every alpaka
    // version counts so); never Init's, which older alpaka counts as 2 arrays and later as 3.
    if (!exact)
        for (const Usage& u : usage)
            if (const std::string& f = out.rows[u.row].function; f == "Copy" || f == "Mul" || f == "Add" || f == "Triad") {
                array_from_usage(u.text, u.mb, babelstream_arrays(f), run);
                break;
            }
    // Init's arrays: its DataUsage / the array size, when that is 2 or 3 within the rounding of both; else unknown.
    for (const Usage& u : usage) {
        BabelStreamRow& r = out.rows[u.row];
        if (r.function != "Init")
            continue;
        r.arrays = 0;
        if (!run.array_bytes)
            continue;
        const std::size_t dot = u.text.find('.');
        const double half_mb =
            0.5 * std::pow(10.0, -(dot == std::string::npos ? 0.0 : static_cast<double>(u.text.size() - dot - 1)));
        for (const int k : {2, 3})
            if (std::abs(u.mb * 1e6 - k * *run.array_bytes) <= half_mb * 1e6 + k * run.array_bytes_halfwidth + 1e-9 * u.mb * 1e6)
                r.arrays = k;
        if (*r.arrays == 0)
            out.warnings.push_back(
                fmt::format("line {}: alpaka InitKernel's DataUsage {} MB is {:.3f} arrays of {:.0f} bytes, "
                            "not 2 or 3: its bytes per call are unknown",
                            u.line, u.text, u.mb * 1e6 / *run.array_bytes, *run.array_bytes));
    }
    out.runs.push_back(std::move(run));
}

}  // namespace bwacct::detail
