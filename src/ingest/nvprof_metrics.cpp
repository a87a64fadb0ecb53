// nvprof's metric mode (`nvprof --metrics dram_read_bytes,...`), console or --csv (see ncu_parts.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "bwacct/error.h"
#include "csv.h"
#include "ncu_parts.h"

namespace bwacct {
namespace {

using ingest::parse_number_text;
using ncu_parts::trim;

// One DRAM sector: nvprof's dram_*_transactions count 32-byte transactions (its dram_read_bytes is exactly
// dram_read_transactions x 32 where both are printed: 30 -> 960, 15769 -> 504608 on a GTX 1070).
constexpr double kTransactionBytes = 32;

// "161.18GB/s" -> 10^9 B/s. nvprof's throughput units are binary (KB/s = 2^10 B/s ... GB/s = 2^30 B/s): on the
// GTX 1070 fixture 960 B at 231.66MB/s and 504608 B at 118.92GB/s give one duration (3.952 us) only so; read
// as 10^6 and 10^9 they would give two (4.144 and 4.243 us). On a TITAN X Pascal / V100 README (index id 45116140227)
// bytes / throughput in 2^30 B/s gives 40.55 and 15.53 ms against nvprof's measured Avg durations 41.19 and 15.47 ms;
// in 10^9 B/s (43.5 ms for the first) it does not.
std::optional<double> throughput_GBps(const std::string& v) {
    static const std::map<std::string, double> scale{
        {"B/s", 1}, {"KB/s", 1024.0}, {"MB/s", 1048576.0}, {"GB/s", 1073741824.0}, {"TB/s", 1099511627776.0}};
    const std::size_t u = v.find_first_not_of("0123456789.,");
    if (u == std::string::npos || u == 0)
        return std::nullopt;
    const auto it = scale.find(v.substr(u));
    const std::optional<double> n = parse_number_text(v.substr(0, u));
    if (it == scale.end() || !n)
        return std::nullopt;
    return *n * it->second / 1e9;
}

struct Values {
    std::optional<double> read_bytes, write_bytes, read_tx, write_tx, read_GBps, write_GBps;
};

// Stores one metric's Avg when bwacct reads that metric; throws naming the line when its value does not fit.
void store(Values& v, const std::string& metric, const std::string& avg, std::size_t line, const std::string& origin) {
    std::optional<double>* slot = metric == "dram_read_bytes"           ? &v.read_bytes
                                  : metric == "dram_write_bytes"        ? &v.write_bytes
                                  : metric == "dram_read_transactions"  ? &v.read_tx
                                  : metric == "dram_write_transactions" ? &v.write_tx
                                  : metric == "dram_read_throughput"    ? &v.read_GBps
                                  : metric == "dram_write_throughput"   ? &v.write_GBps
                                                                        : nullptr;
    if (slot == nullptr)
        return;
    const bool rate = slot == &v.read_GBps || slot == &v.write_GBps;
    const std::optional<double> x = rate ? throughput_GBps(avg) : parse_number_text(avg);
    if (!x || *x < 0)
        throw InputError(origin, fmt::format("line {}: nvprof metric {} has Avg '{}'; expected a non-negative {}", line, metric,
                                             avg, rate ? "rate with its unit (B/s, KB/s, MB/s, GB/s)" : "count"));
    *slot = *x;
}

// 'Device "Tesla V100-SXM2-16GB (0)"' or "Tesla K20c (0)" -> the device's name without nvprof's index.
std::string device_of(std::string d) {
    d = trim(d);
    if (d.rfind("Device \"", 0) == 0 && d.back() == '"')
        d = d.substr(8, d.size() - 9);
    const std::size_t open = d.rfind(" (");
    if (open != std::string::npos && d.back() == ')' && d.find_first_not_of("0123456789", open + 2) == d.size() - 1 &&
        d.size() > open + 3)
        d.erase(open);
    return d;
}

}  // namespace

NcuProfile ncu_parts::parse_nvprof_metrics(const std::vector<std::string>& lines, const std::string& origin) {
    NcuProfile out;
    out.nvprof = true;
    std::vector<Values> values;
    std::map<std::string, std::size_t> by_key;  // table number, device and kernel -> kernel index
    std::size_t table = 0;
    bool csv = false, in_table = false;
    std::string device, kernel;
    std::size_t orphan_rows = 0, orphan_line = 0;  // console rows above a table's first "Kernel:" heading
    const auto kernel_for = [&](const std::string& dev, const std::string& name, std::uint64_t inv) -> std::size_t {
        const std::string key = fmt::format("{}\x1f{}\x1f{}", table, dev, name);
        const auto it = by_key.find(key);
        if (it != by_key.end())
            return it->second;
        NcuKernel k;
        k.id = std::to_string(out.kernels.size());
        k.name = name;
        k.device_name = dev;
        k.invocations = inv;
        out.kernels.push_back(std::move(k));
        values.emplace_back();
        by_key.emplace(key, out.kernels.size() - 1);
        return out.kernels.size() - 1;
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        if (t.rfind("\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\"", 0) == 0) {
            ++table, csv = true, in_table = true;
            continue;
        }
        if (t.rfind("Invocations ", 0) == 0 && t.find(" Metric Name ") != std::string::npos &&
            t.find(" Metric Description ") != std::string::npos) {
            ++table, csv = false, in_table = true, device.clear(), kernel.clear();
            continue;
        }
        if (!in_table)
            continue;
        if (csv) {
            if (t.empty() || t[0] != '"') {
                in_table = false;
                continue;
            }
            const std::vector<ingest::CsvRecord> rec = ingest::parse_csv(t, origin);
            if (rec.empty() || rec[0].fields.size() < 8)
                throw InputError(origin, fmt::format("line {}: an nvprof --csv metric row with fewer than the header's 8 "
                                                     "fields (Device, Kernel, Invocations, Metric Name, Metric Description, "
                                                     "Min, Max, Avg)",
                                                     i + 1));
            const auto& f = rec[0].fields;
            const std::optional<double> inv = parse_number_text(f[2]);
            if (!inv || *inv < 1 || *inv > 1e15 || *inv != std::floor(*inv))
                throw InputError(origin, fmt::format("line {}: Invocations '{}' is not a whole number >= 1", i + 1, f[2]));
            const std::size_t k = kernel_for(device_of(f[0]), f[1], static_cast<std::uint64_t>(*inv));
            store(values[k], f[3], trim(f[7]), i + 1, origin);
            continue;
        }
        if (t.rfind("Device \"", 0) == 0) {
            // The Kernel heading may follow on the same line ('Device "GeForce GT 1030 (0)"    Kernel: mm$_omp_fn$0').
            const std::size_t close = t.find('"', 8), same = t.find("Kernel: ", 8);
            device = device_of(close == std::string::npos ? t : t.substr(0, close + 1));
            if (close != std::string::npos && same != std::string::npos && same > close)
                kernel = trim(t.substr(same + 8));
            continue;
        }
        if (t.rfind("Kernel: ", 0) == 0) {
            kernel = trim(t.substr(8));
            continue;
        }
        // A row: invocations, metric name, description, Min, Max, Avg. The values bwacct reads hold no blank,
        // so the Avg is the last word (others may: "Low (1)").
        std::istringstream words(t);
        std::string inv_text, metric;
        words >> inv_text >> metric;
        std::optional<double> inv = parse_number_text(inv_text);
        if (inv && (*inv < 1 || *inv > 1e15 || *inv != std::floor(*inv)))
            inv.reset();                           // not an invocation count: not a row
        if (t.empty() || t.rfind("==", 0) == 0) {  // the table ends at a blank line or nvprof's next message
            in_table = false;
            continue;
        }
        if (!inv)
            continue;
        if (kernel.empty()) {  // a paste cut above the heading: the rows belong to a kernel the file does not name
            if (orphan_rows++ == 0)
                orphan_line = i + 1;
            continue;
        }
        const std::size_t k = kernel_for(device, kernel, static_cast<std::uint64_t>(*inv));
        store(values[k], metric, t.substr(t.find_last_of(" \t") + 1), i + 1, origin);
    }
    if (out.kernels.empty())
        return out;
    if (orphan_rows > 0)
        out.warnings.push_back(
            fmt::format("{} metric row{} from line {} come{} before any \"Kernel:\" heading (the paste is cut "
                        "above it?): not read",
                        orphan_rows, orphan_rows == 1 ? "" : "s", orphan_line, orphan_rows == 1 ? "s" : ""));
    out.format = csv ? "nvprof --metrics --csv (Avg over each kernel's invocations)"
                     : "nvprof --metrics console output (Avg over each kernel's invocations)";
    for (std::size_t i = 0; i < out.kernels.size(); ++i) {
        NcuKernel& k = out.kernels[i];
        const Values& v = values[i];
        k.dram_read_bytes = v.read_bytes ? v.read_bytes
                            : v.read_tx  ? std::optional<double>(*v.read_tx * kTransactionBytes)
                                         : std::nullopt;
        k.dram_write_bytes = v.write_bytes ? v.write_bytes
                             : v.write_tx  ? std::optional<double>(*v.write_tx * kTransactionBytes)
                                           : std::nullopt;
        k.dram_metric = v.read_bytes || v.write_bytes || v.read_tx || v.write_tx || v.read_GBps || v.write_GBps;
        if (v.read_GBps && v.write_GBps)
            k.dram_GBps = *v.read_GBps + *v.write_GBps;
        // nvprof prints no duration in this mode; its throughput is bytes / duration, so the duration is the
        // bytes over the rate (rounded to 10^-6 us). Bytes at a rate of 0 give none (the report says so).
        if (k.dram_read_bytes && k.dram_write_bytes && k.dram_GBps && *k.dram_GBps > 0)
            k.time_us = std::round((*k.dram_read_bytes + *k.dram_write_bytes) / (*k.dram_GBps * 1e3) * 1e6) / 1e6;
        // Both directions ran for the kernel's one duration: read bytes / read rate and write bytes / write rate
        // agree to the printed digits. When they differ by more than 1 %, the rows are not one kernel's.
        if (k.time_us && v.read_GBps && v.write_GBps && *k.dram_read_bytes > 0 && *k.dram_write_bytes > 0) {
            const double r_us = *v.read_GBps > 0 ? *k.dram_read_bytes / (*v.read_GBps * 1e3) : HUGE_VAL,
                         w_us = *v.write_GBps > 0 ? *k.dram_write_bytes / (*v.write_GBps * 1e3) : HUGE_VAL;
            if (std::fabs(r_us - w_us) > 0.01 * std::min(r_us, w_us)) {
                const auto us = [](double x) {
                    return std::isfinite(x) ? fmt::format("{:.6g} us", x) : std::string("none (rate 0)");
                };
                out.warnings.push_back(fmt::format(
                    "kernel {} ({}): read bytes / read rate = {} but write bytes / write rate = {}: the directions do not "
                    "give one duration (> 1 % apart); its time and GB/s are the sum's and may be wrong",
                    k.id, k.name.substr(0, 80), us(r_us), us(w_us)));
            }
        }
        for (const std::optional<double>* x : {&k.dram_read_bytes, &k.dram_write_bytes, &k.dram_GBps, &k.time_us})
            if (x->has_value() && !std::isfinite(**x))
                throw InputError(origin, fmt::format("kernel {} ({}): a DRAM byte count or rate too large to compute with", k.id,
                                                     k.name.substr(0, 80)));
        if (k.dram_read_bytes && k.dram_write_bytes && !std::isfinite(*k.dram_read_bytes + *k.dram_write_bytes))
            throw InputError(origin, fmt::format("kernel {} ({}): DRAM bytes too large to add up", k.id, k.name.substr(0, 80)));
    }
    return out;
}

}  // namespace bwacct
