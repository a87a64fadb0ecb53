// BabelStream text/CSV and SuperBench gpu-stream output (include/bwacct/ingest_babelstream.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include "bwacct/error.h"
#include "bwacct/ingest_babelstream.h"
#include "csv.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using ingest::split_lines;

constexpr const char* kExpected =
    "expected BabelStream output (the 'Function MBytes/sec Min (sec) Max Average' table, or --csv) or SuperBench "
    "gpu-stream output (STREAM_<KERNEL>_<type>_buffer_<bytes>_block_<n> <GB/s> <% of peak>)";

std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t");
    if (a == std::string::npos)
        return "";
    const std::size_t b = s.find_last_not_of(" \t");
    return s.substr(a, b - a + 1);
}

std::vector<std::string> tokens(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    std::string t;
    while (in >> t)
        out.push_back(t);
    return out;
}

double number(const std::string& text, const std::string& what, std::size_t line, const std::string& origin, bool positive) {
    const std::optional<double> v = parse_number_text(text);
    if (!v || *v < 0 || (positive && *v == 0))
        throw InputError(origin, fmt::format("line {}: {} '{}' is not a {} number; {}", line, what, text,
                                             positive ? "positive" : "non-negative", kExpected));
    return *v;
}

// A whole number that fits comfortably in 64 bits (device ids, buffer sizes, block sizes).
std::uint64_t whole(const std::string& text, const std::string& what, std::size_t line, const std::string& origin) {
    const double v = number(text, what, line, origin, false);
    if (v != std::floor(v) || v > 1e18)
        throw InputError(origin,
                         fmt::format("line {}: {} '{}' is not a whole number below 10^18; {}", line, what, text, kExpected));
    return static_cast<std::uint64_t>(v);
}

bool is_function(const std::string& s) { return babelstream_arrays(s) > 0; }

// Context lines of a BabelStream run (they come before its table).
void read_context(const std::string& line, BabelStreamRun& run) {
    static const std::regex array_re(R"(^Array size:\s*([0-9]+(?:\.([0-9]+))?)\s*(MB|MiB)\b)");
    static const std::regex device_re(R"(^Using .*device (.+)$)");
    std::smatch m;
    const std::string t = trim(line);
    if (t.rfind("Version:", 0) == 0)
        run.version = trim(t.substr(8));
    else if (t.rfind("Implementation:", 0) == 0)
        run.implementation = trim(t.substr(15));
    else if (t == "Precision: double")
        run.sizeof_t = 8;
    else if (t == "Precision: float")
        run.sizeof_t = 4;
    else if (std::regex_search(t, m, array_re)) {
        const double unit = m[3] == "MiB" ? 1048576.0 : 1e6;
        const std::size_t decimals = m[2].matched ? m[2].length() : 0;
        if (const std::optional<double> v = parse_number_text(m[1].str()); v && decimals < 20) {
            run.array_bytes = *v * unit;
            run.array_bytes_halfwidth = 0.5 * std::pow(10.0, -static_cast<double>(decimals)) * unit;
        }
    } else if (std::regex_match(t, m, device_re))
        run.device = trim(m[1]);
}

void parse_text_table(const std::vector<std::string>& lines, std::size_t& i, const BabelStreamRun& run, BabelStreamFile& out,
                      const std::string& origin) {
    const std::size_t before = out.rows.size();
    for (++i; i < lines.size(); ++i) {
        const std::vector<std::string> t = tokens(lines[i]);
        if (t.empty() || !is_function(t[0]))
            break;
        if (t.size() != 5)
            throw InputError(origin, fmt::format("line {}: {} row with {} fields where 5 are expected (function, "
                                                 "bandwidth, min, max, average; file truncated?); {}",
                                                 i + 1, t[0], t.size(), kExpected));
        BabelStreamRow r;
        r.run = run.run;
        r.function = t[0];
        r.bw_text = t[1];
        r.bw_printed = number(t[1], "bandwidth", i + 1, origin, true);
        r.min_text = t[2];
        r.min_s = number(t[2], "min time", i + 1, origin, true);
        r.max_s = number(t[3], "max time", i + 1, origin, true);
        r.avg_s = number(t[4], "average time", i + 1, origin, true);
        if (r.min_s > r.max_s)
            throw InputError(origin, fmt::format("line {}: min time {} is above max time {}; {}", i + 1, t[2], t[3], kExpected));
        out.rows.push_back(std::move(r));
    }
    --i;
    if (out.rows.size() == before)
        throw InputError(origin, fmt::format("line {}: result table without rows (file truncated?); {}", i + 1, kExpected));
}

// BabelStream --csv: the function table (header function,num_times,n_elements,sizeof,max_m[i]bytes_per_sec,...).
void parse_csv_table(const std::vector<std::string>& lines, std::size_t& i, BabelStreamRun run, BabelStreamFile& out,
                     const std::string& origin) {
    const char sep = lines[i].size() > 8 ? lines[i][8] : ',';
    std::string table;
    std::size_t end = i;
    for (; end < lines.size() && !trim(lines[end]).empty(); ++end) {
        if (end > i && !is_function(lines[end].substr(0, lines[end].find(sep))))
            break;
        table += lines[end] + "\n";
    }
    const std::vector<ingest::CsvRecord> recs = ingest::parse_csv(table, origin, sep);
    const std::vector<std::string>& h = recs.front().fields;
    const auto col = [&](std::initializer_list<const char*> names) -> int {
        for (const char* n : names) {
            const auto it = std::find(h.begin(), h.end(), n);
            if (it != h.end())
                return static_cast<int>(it - h.begin());
        }
        return -1;
    };
    if (col({"gbytes_per_sec", "gibytes_per_sec"}) >= 0)
        throw InputError(
            origin, fmt::format("line {}: BabelStream triad-only output (--triad-only) is not supported; {}", i + 1, kExpected));
    const int c_fn = col({"function"}), c_times = col({"num_times"}), c_n = col({"n_elements"}), c_size = col({"sizeof"}),
              c_bw = col({"max_mbytes_per_sec", "max_mibytes_per_sec"}), c_min = col({"min_runtime"}),
              c_max = col({"max_runtime"}), c_avg = col({"avg_runtime"});
    if (c_fn < 0 || c_times < 0 || c_n < 0 || c_size < 0 || c_bw < 0 || c_min < 0 || c_max < 0 || c_avg < 0)
        throw InputError(origin, fmt::format("line {}: BabelStream CSV header lacks a column of function, num_times, "
                                             "n_elements, sizeof, max_mbytes_per_sec, min_runtime, max_runtime, "
                                             "avg_runtime; {}",
                                             i + 1, kExpected));
    run.mebibytes = h[static_cast<std::size_t>(c_bw)] == "max_mibytes_per_sec";
    const std::size_t before = out.rows.size();
    for (std::size_t k = 1; k < recs.size(); ++k) {
        const auto& f = recs[k].fields;
        const std::size_t line = i + recs[k].line;
        if (f.size() != h.size())
            throw InputError(origin, fmt::format("line {}: {} fields where the header has {} (file truncated?); {}", line,
                                                 f.size(), h.size(), kExpected));
        const auto at = [&](int c) { return f[static_cast<std::size_t>(c)]; };
        BabelStreamRow r;
        r.run = run.run;
        r.function = at(c_fn);
        r.bw_text = at(c_bw);
        r.bw_printed = number(at(c_bw), "bandwidth", line, origin, true);
        r.min_text = at(c_min);
        r.min_s = number(at(c_min), "min_runtime", line, origin, true);
        r.max_s = number(at(c_max), "max_runtime", line, origin, true);
        r.avg_s = number(at(c_avg), "avg_runtime", line, origin, true);
        const double times = number(at(c_times), "num_times", line, origin, true);
        const double n = number(at(c_n), "n_elements", line, origin, true);
        const double size = number(at(c_size), "sizeof", line, origin, true);
        if (n != std::floor(n) || n > 1e18 || (size != 4 && size != 8 && size != 2) || times != std::floor(times))
            throw InputError(origin, fmt::format("line {}: n_elements, sizeof or num_times is not a whole number (sizeof "
                                                 "2, 4 or 8); {}",
                                                 line, kExpected));
        r.n_times = static_cast<std::uint64_t>(times);
        run.n_elements = static_cast<std::uint64_t>(n);
        run.sizeof_t = static_cast<int>(size);
        run.array_bytes = n * size;
        run.array_bytes_halfwidth = 0;
        if (r.min_s > r.max_s)
            throw InputError(origin, fmt::format("line {}: min_runtime is above max_runtime; {}", line, kExpected));
        out.rows.push_back(std::move(r));
    }
    if (out.rows.size() == before)
        throw InputError(origin, fmt::format("line {}: CSV result table without rows (file truncated?); {}", i + 1, kExpected));
    out.runs.push_back(run);
    i = end - 1;
}

void parse_gpu_stream(const std::vector<std::string>& lines, BabelStreamFile& out, const std::string& origin) {
    static const std::regex device_re(R"re(^Device (\d+): "([^"]*)")re");
    static const std::regex peak_re(R"(= *([0-9.]+) GB/s PEAK)");
    static const std::regex row_re(R"(^STREAM_([A-Z]+)_([a-z0-9]+)(?:_gpu_(\d+))?_buffer_(\d+)_block_(\d+)\s+(\S+)\s+(\S+)\s*$)");
    int current_device = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        std::smatch m;
        if (std::regex_search(t, m, device_re)) {
            GpuStreamDevice d;
            d.device = static_cast<int>(std::min<std::uint64_t>(whole(m[1], "device", i + 1, origin), 1u << 20));
            d.name = m[2];
            std::smatch p;
            if (std::regex_search(t, p, peak_re))
                d.peak_GBps = parse_number_text(p[1].str());
            current_device = d.device;
            out.gs_devices.push_back(d);
            continue;
        }
        if (t.rfind("STREAM_", 0) != 0)
            continue;
        if (!std::regex_match(t, m, row_re))
            throw InputError(origin, fmt::format("line {}: gpu-stream row not of the form STREAM_<KERNEL>_<type>_buffer_"
                                                 "<bytes>_block_<n> <GB/s> <%> (file truncated?); {}",
                                                 i + 1, kExpected));
        GpuStreamRow r;
        r.kernel = m[1];
        if (gpu_stream_arrays(r.kernel) == 0)
            throw InputError(origin, fmt::format("line {}: unknown gpu-stream kernel '{}'; expected COPY, SCALE, ADD or "
                                                 "TRIAD",
                                                 i + 1, r.kernel));
        r.dtype = m[2];
        r.device = m[3].matched ? static_cast<int>(std::min<std::uint64_t>(whole(m[3], "device", i + 1, origin), 1u << 20))
                                : current_device;
        r.buffer_bytes = whole(m[4], "buffer size", i + 1, origin);
        r.block = whole(m[5], "block size", i + 1, origin);
        r.bw_GBps = number(m[6], "bandwidth", i + 1, origin, true);
        const std::optional<double> pct = parse_number_text(m[7].str());
        if (!pct)
            throw InputError(origin,
                             fmt::format("line {}: '% of peak' value '{}' is not a number; {}", i + 1, m[7].str(), kExpected));
        if (*pct >= 0)
            r.pct_printed = *pct;
        out.gs_rows.push_back(std::move(r));
    }
}

}  // namespace

int babelstream_arrays(const std::string& function) {
    if (function == "Copy" || function == "Mul" || function == "Dot")
        return 2;
    if (function == "Add" || function == "Triad")
        return 3;
    if (function == "Nstream")
        return 4;
    return 0;
}

int gpu_stream_arrays(const std::string& kernel) {
    if (kernel == "COPY" || kernel == "SCALE")
        return 2;
    if (kernel == "ADD" || kernel == "TRIAD")
        return 3;
    return 0;
}

BabelStreamFile parse_babelstream(const std::string& text, const std::string& origin) {
    static const std::regex header_re(R"(^Function\s+(MBytes|MiBytes)/sec\s+Min \(sec\)\s+Max\s+Average\s*$)");
    const std::vector<std::string> lines = split_lines(text);
    BabelStreamFile out;
    BabelStreamRun cur;
    bool triad_only = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        std::smatch m;
        if (t == "BabelStream") {
            cur = BabelStreamRun{};  // a new run: forget the previous one's context
        } else if (std::regex_match(t, m, header_re)) {
            cur.run = static_cast<int>(out.runs.size()) + 1;
            cur.mebibytes = m[1] == "MiBytes";
            out.runs.push_back(cur);
            parse_text_table(lines, i, cur, out, origin);
            out.format = "BabelStream text";
        } else if (t.rfind("function", 0) == 0 && t.find("num_times") != std::string::npos) {
            cur.run = static_cast<int>(out.runs.size()) + 1;
            parse_csv_table(lines, i, cur, out, origin);
            out.format = "BabelStream CSV";
        } else if (t.rfind("Running triad", 0) == 0 || t.rfind("Bandwidth (GB/s)", 0) == 0 ||
                   t.rfind("Bandwidth (GiB/s)", 0) == 0) {
            triad_only = true;
        } else {
            read_context(t, cur);
        }
    }
    if (!out.rows.empty())
        return out;
    if (triad_only)
        throw InputError(origin, fmt::format("BabelStream triad-only output (--triad-only) is not supported; {}", kExpected));
    parse_gpu_stream(lines, out, origin);
    if (out.gs_rows.empty())
        throw InputError(origin, fmt::format("no BabelStream result table or gpu-stream rows found; {}", kExpected));
    out.format = "SuperBench gpu-stream";
    return out;
}

std::string babelstream_device_name(const BabelStreamFile& f) {
    for (const BabelStreamRun& r : f.runs)
        if (!r.device.empty())
            return r.device;
    for (const GpuStreamDevice& d : f.gs_devices)
        if (!d.name.empty())
            return d.name;
    return "";
}

}  // namespace bwacct
