// The IngestReport of an ncu export: measured DRAM bytes and bandwidth per kernel against the HBM peak.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bwacct/ingest_nsight.h"
#include "bwacct/median.h"

namespace bwacct {
namespace {

Cell opt(const std::optional<double>& v) { return v ? Cell(*v) : Cell(); }
Cell bytes_cell(const std::optional<double>& v) { return v ? Cell(static_cast<std::uint64_t>(std::llround(*v))) : Cell(); }

// The answer first: how many kernels, their time, and the median kernel's share of each GPU's HBM peak.
std::vector<std::string> ncu_summary(const std::vector<double>& bws, std::size_t kernels, std::size_t timed, double time_us,
                                     const std::vector<const GpuSpec*>& gpus) {
    // The time in all counts the kernels that have one: say which, never "0.0 us" for times the file lacks.
    std::string head = fmt::format("{} kernel{}, ", kernels, kernels == 1 ? "" : "s");
    if (timed == 0)
        head += fmt::format("{} with a duration", kernels == 1 ? "not" : "none");
    else if (timed < kernels)
        head += fmt::format("{:.1f} us in all over the {} with a duration", time_us, timed);
    else
        head += fmt::format("{:.1f} us in all", time_us);
    if (bws.empty())
        return {head + "; no kernel has both DRAM bytes and a duration, or a DRAM rate: no bandwidth"};
    const double med = median_of(bws), lo = *std::min_element(bws.begin(), bws.end()),
                 hi = *std::max_element(bws.begin(), bws.end());
    if (gpus.empty())
        return {
            fmt::format("{}; median kernel {:.1f} GB/s of DRAM traffic (range {:.1f}-{:.1f}); give --gpu for % of the HBM peak",
                        head, med, lo, hi)};
    std::vector<std::string> lines;
    for (const GpuSpec* g : gpus) {
        const double peak = g->hbm_bw_GBps.value;
        lines.push_back(fmt::format("{}; median kernel {:.1f} GB/s = {:.1f} % of {} HBM peak {:.0f} GB/s (range {:.1f}-{:.1f} %)",
                                    head, med, 100 * med / peak, g->id, peak, 100 * lo / peak, 100 * hi / peak));
    }
    return lines;
}

}  // namespace

IngestReport ncu_report(const NcuProfile& p, const std::string& file, const std::vector<const GpuSpec*>& gpus) {
    IngestReport r;
    r.tool = "ncu";
    r.file = file;
    r.format = p.format;
    if (p.nvprof)
        r.measured_by = "nvprof";
    // nvprof --metrics prints no duration: a kernel's time is its DRAM bytes over its DRAM throughput.
    if (p.nvprof)
        r.time_derivation = "DRAM bytes / nvprof's DRAM throughput";
    for (const GpuSpec* g : gpus)
        r.gpus.push_back(g->id);

    Section s;
    s.key = "kernels";
    s.title = p.nvprof ? "Kernels (nvprof DRAM metrics)" : "Kernels (ncu DRAM counters)";
    s.columns = {{"id", "id", 0},
                 {"kernel", "kernel", 0},
                 {"gpu", "gpu", 0},
                 {"dram_read_bytes", "read B", 0},
                 {"dram_write_bytes", "write B", 0},
                 {"dram_bytes", "DRAM B", 0},
                 {"time_us", "time us", 3},
                 {"bw_GBps", "GB/s", 1},
                 {"hbm_peak_GBps", "peak GB/s", 0},
                 {"pct_of_hbm_peak", "% of peak", 1},
                 {"ncu_dram_pct", "ncu dram %", 2},
                 {"ncu_sm_pct", "ncu sm %", 2}};
    // A --print-summary per-kernel export: each row averages a kernel's launches; say how many.
    const bool per_kernel = std::any_of(p.kernels.begin(), p.kernels.end(), [](const NcuKernel& k) { return k.invocations > 0; });
    if (per_kernel)
        s.columns.push_back({"invocations", "launches", 0});
    if (p.nvprof)  // each row says where its time came from (JSON: "time_source": "derived")
        s.columns.push_back({"time_source", "time is", 0});
    Section names;
    names.key = "kernel_names";
    names.title = "Kernel names in full";
    names.columns = {{"name", "name", 0}, {"id", "id", 0}};
    bool rounded = false;
    std::vector<double> bws;  // each kernel's GB/s, for the summary
    double time_us = 0;
    std::size_t timed = 0;
    std::size_t rate_only = 0;      // nvprof kernels with a DRAM throughput and no byte counts
    std::size_t rate_not_time = 0;  // ncu kernels with DRAM bytes and rate but no duration
    for (const NcuKernel& k : p.kernels) {
        rounded = rounded || k.rounded_bytes;
        std::optional<double> bytes = k.dram_bytes;
        if (k.dram_read_bytes && k.dram_write_bytes)
            bytes = *k.dram_read_bytes + *k.dram_write_bytes;
        std::optional<double> bw;
        // Bytes moved at a rate of 0: nvprof's rate is wrong or cut; no GB/s, no time, never "0.0 GB/s".
        const bool zero_rate = k.dram_GBps && *k.dram_GBps <= 0 && bytes && *bytes > 0;
        if (bytes && k.time_us && *k.time_us > 0)
            bw = *bytes / (*k.time_us * 1e3);  // bytes / (us * 1e-6) / 1e9
        else if (zero_rate)
            r.warnings.push_back(
                fmt::format("kernel {} ({}): {:.0f} DRAM bytes but nvprof's DRAM throughput is 0 B/s; "
                            "bandwidth and time not computed",
                            k.id, short_kernel_name(k.name), *bytes));
        else if (k.dram_GBps) {
            bw = k.dram_GBps;  // nvprof's measured read + write throughput; ncu's dram__bytes.sum.per_second
            if (!bytes)
                ++rate_only;
            else if (!p.nvprof)
                ++rate_not_time;
        }
        if (bw)
            bws.push_back(*bw);
        if (k.time_us) {  // a summary row's time is per launch: its launches' total is average x invocations
            time_us += *k.time_us * static_cast<double>(std::max<std::uint64_t>(k.invocations, 1));
            ++timed;
        }
        if (!bw && !zero_rate) {
            // Name every piece that is missing: one of read and write alone is not the kernel's traffic.
            std::string missing;
            if (p.nvprof)
                missing = k.dram_read_bytes || k.dram_write_bytes
                              ? "dram_read_throughput and dram_write_throughput (the bytes alone give no rate)"
                              : "dram_read_throughput with dram_write_throughput (one direction alone is not the kernel's "
                                "traffic)";
            else if (!bytes)
                missing = k.dram_read_bytes    ? "dram__bytes_write.sum (the read bytes alone are not the kernel's traffic)"
                          : k.dram_write_bytes ? "dram__bytes_read.sum (the written bytes alone are not the kernel's traffic)"
                                               : "DRAM byte counts (dram__bytes_read.sum + dram__bytes_write.sum)";
            if (!p.nvprof && (!k.time_us || *k.time_us <= 0))
                missing += fmt::format("{}{}", missing.empty() ? "" : " and no ",
                                       k.time_us ? "positive duration (gpu__time_duration.sum)"
                                                 : "duration (gpu__time_duration.sum or the section's Duration)");
            r.warnings.push_back(
                fmt::format("kernel {} ({}): no {}; bandwidth not computed", k.id, short_kernel_name(k.name), missing));
        }
        // One row per GPU; with none (the file names none the catalog knows), one row without the peak.
        const std::vector<const GpuSpec*> on = gpus.empty() ? std::vector<const GpuSpec*>{nullptr} : gpus;
        for (const GpuSpec* g : on) {
            std::optional<double> peak, pct;
            if (g != nullptr)
                peak = g->hbm_bw_GBps.value;
            if (peak && bw)
                pct = 100.0 * *bw / *peak;
            std::vector<Cell> row{k.id,
                                  short_kernel_name(k.name),
                                  g != nullptr ? g->id : std::string("-"),
                                  bytes_cell(k.dram_read_bytes),
                                  bytes_cell(k.dram_write_bytes),
                                  bytes_cell(bytes),
                                  opt(k.time_us),
                                  opt(bw),
                                  opt(peak),
                                  opt(pct),
                                  opt(k.dram_pct),
                                  opt(k.sm_pct),
                                  per_kernel ? Cell(k.invocations) : Cell()};
            if (!per_kernel)
                row.pop_back();
            if (p.nvprof) {
                row.emplace_back();  // null: no time
                if (k.time_us)
                    row.back().emplace<std::string>("derived");
            }
            s.rows.push_back(std::move(row));
        }
        names.rows.push_back({k.name, k.id});
    }
    if (p.nvprof)
        s.notes.push_back(
            "nvprof --metrics: GB/s = dram_read_throughput + dram_write_throughput (nvprof's GB/s = 2^30 B/s, shown "
            "here in 10^9 B/s); bytes = dram_read_bytes + dram_write_bytes, else transactions x 32 B; nvprof prints no "
            "duration: time = bytes / GB/s; % of peak uses the catalog's HBM figure");
    else
        s.notes.push_back(
            "GB/s = (dram__bytes_read.sum + dram__bytes_write.sum) / gpu__time_duration.sum, 10^9 bytes/s (without "
            "byte counts: ncu's own DRAM rate, dram__bytes.sum.per_second, the Memory Workload Analysis section's Memory "
            "Throughput); % of peak uses the catalog's HBM figure; ncu dram % is ncu's own share of its sustained peak");
    if (per_kernel && !p.nvprof)
        s.notes.push_back(
            "per-kernel summary: bytes, time and % are ncu's Average over each kernel's launches (one row per kernel "
            "and launch shape); GB/s = average bytes / average time; the total time counts average x launches");
    r.sections.push_back(std::move(s));
    r.sections.push_back(std::move(names));
    r.summary.lines = ncu_summary(bws, p.kernels.size(), timed, time_us, gpus);
    // Kernels profiled on different GPU models (ncu --devices all on a mixed machine): one peak does not
    // fit them all, so say so rather than quietly rate every kernel against the first device's GPU.
    std::vector<std::string> devices;
    for (const NcuKernel& k : p.kernels)
        if (!k.device_name.empty() && std::find(devices.begin(), devices.end(), k.device_name) == devices.end())
            devices.push_back(k.device_name);
    r.warnings.insert(r.warnings.end(), p.warnings.begin(), p.warnings.end());
    if (rate_only > 0)
        r.warnings.push_back(
            p.nvprof ? fmt::format("{} kernel{} {} nvprof's DRAM throughput but no byte counts (dram_read_bytes, "
                                   "dram_write_bytes or the dram_*_transactions): GB/s shown, bytes and time not",
                                   rate_only, rate_only == 1 ? "" : "s", rate_only == 1 ? "has" : "have")
                     : fmt::format("{} kernel{} {} ncu's measured DRAM rate (Memory Throughput, dram__bytes.sum.per_second) "
                                   "but no DRAM byte counts: GB/s is that rate, bytes not shown",
                                   rate_only, rate_only == 1 ? "" : "s", rate_only == 1 ? "has" : "have"));
    if (rate_not_time > 0)
        r.warnings.push_back(
            fmt::format("{} kernel{} {} DRAM byte counts and ncu's measured DRAM rate (dram__bytes.sum.per_second, or "
                        "dram__bytes_read.sum.per_second + dram__bytes_write.sum.per_second) but no duration: GB/s is that rate",
                        rate_not_time, rate_not_time == 1 ? "" : "s", rate_not_time == 1 ? "has" : "have"));
    if (devices.size() > 1) {
        std::string list, ids;
        for (const std::string& d : devices)
            list += (list.empty() ? "" : ", ") + d;
        for (const GpuSpec* g : gpus)
            ids += (ids.empty() ? "" : ", ") + g->id;
        r.warnings.push_back(
            fmt::format("the kernels ran on {} different GPUs ({}){}; export each device's kernels "
                        "({} --devices N) and ingest them one file at a time",
                        devices.size(), list, ids.empty() ? "" : fmt::format(": % of peak uses {} for every kernel", ids),
                        p.nvprof ? "nvprof" : "ncu"));
    }
    r.notes.push_back(
        "bytes are measured DRAM traffic (hardware counters), not a formula's minimum: L2 hits are not "
        "counted, re-reads and partial sectors are");
    if (p.nvprof)
        r.notes.push_back(
            "nvprof replays each kernel to collect its metrics, caches flushed before each (--cache-control all by "
            "default); each value is the Avg over the kernel's invocations");
    else
        r.notes.push_back(
            "ncu replays each kernel with caches flushed (--cache-control all) and clocks locked to base "
            "(--clock-control base) by default: its times are cold-cache, base-clock times");
    if (rounded)
        r.notes.push_back(
            "byte counts came in ncu's scaled units (Kbyte, Mbyte, Gbyte = 10^3, 10^6, 10^9 bytes) "
            "with about 3 significant digits (2.33 Mbyte = 2,330,000 +- 5,000 bytes); export with "
            "--print-units base for exact counts");
    return r;
}

}  // namespace bwacct
