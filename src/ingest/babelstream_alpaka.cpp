// alpaka's Catch2 babelstream benchmark output (babelstream_alpaka.h). Lines are split on blanks; no regular
// expression.
#include "babelstream_alpaka.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "bwacct/error.h"
#include "csv.h"

namespace bwacct::detail {
namespace {

std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

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
    const std::vector<std::string> w = words(t);
    return w.size() == 6 && w[0] == "Kernels" && w[1] == "Bandwidths(GB/s)" && w[2] == "MinTime(s)" && w[5] == "DataUsage(MB)";
}

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
    for (++i; i < lines.size(); ++i) {
        const std::vector<std::string> w = words(lines[i]);
        const std::string function = w.empty() ? std::string() : function_of(w[0]);
        if (function.empty())
            break;
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
        // DataUsage: the bytes one call moves in 10^6 B, printed to its decimals; a known function moves `arrays` arrays.
        const int arrays = babelstream_arrays(function);
        if (!exact && !run.array_bytes && arrays > 0) {
            const double mb = positive(w[5], "data usage", i + 1, origin);
            const std::size_t dot = w[5].find('.');
            const double decimals = dot == std::string::npos ? 0 : static_cast<double>(w[5].size() - dot - 1);
            run.array_bytes = mb * 1e6 / arrays;
            run.array_bytes_halfwidth = 0.5 * std::pow(10.0, -decimals) * 1e6 / arrays;
        }
        out.rows.push_back(std::move(r));
    }
    --i;
    if (out.rows.size() == before)
        throw InputError(origin, fmt::format("line {}: alpaka babelstream table without rows (file truncated?)", i + 1));
    out.runs.push_back(std::move(run));
}

}  // namespace bwacct::detail
