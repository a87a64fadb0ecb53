// The IngestReport of BabelStream / gpu-stream output: bandwidth per kernel against the HBM peak, and
// a re-derivation of BabelStream's bandwidth from its bytes and printed min time.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "bwacct/ingest_babelstream.h"

namespace bwacct {
namespace {

// Half a unit of the last printed digit of a number token ("0.00038" -> 5e-6, "1.40026e+06" -> 5).
double half_unit(const std::string& token) {
    const std::size_t e = token.find_first_of("eE");
    const std::string mantissa = token.substr(0, e);
    int exponent = 0;  // the token already parsed as a finite number: its exponent is small
    if (e != std::string::npos) {
        const char* first = token.data() + e + 1;
        if (*first == '+')
            ++first;
        std::from_chars(first, token.data() + token.size(), exponent);
    }
    const std::size_t dot = mantissa.find('.');
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(mantissa.size() - dot - 1);
    return 0.5 * std::pow(10.0, exponent - decimals);
}

// Decimals that show a bandwidth of `smallest` GB/s (> 0) to at least 3 significant digits, and never
// fewer than 1: a Raspberry Pi's 0.0147 GB/s is "0.0147", not "0.0"; 396.1 stays "396.1".
int decimals_for(double smallest) {
    if (!(smallest > 0) || !std::isfinite(smallest))
        return 1;
    const int d = 2 - static_cast<int>(std::floor(std::log10(smallest)));
    return std::clamp(d, 1, 9);
}

// A bandwidth for a line of text, to the same rule ("0.0147 GB/s", "419.6 GB/s").
std::string gbps_text(double v) { return fmt::format("{:.{}f}", v, decimals_for(v)); }

// The GPUs each run is analysed on: its own when it ran on another device than the file's first.
struct RunGpus {
    const std::vector<const GpuSpec*>& file;
    const std::vector<std::optional<std::vector<const GpuSpec*>>>& runs;
    const std::vector<const GpuSpec*>& of(int run) const {
        const auto i = static_cast<std::size_t>(run - 1);
        return run >= 1 && i < runs.size() && runs[i] ? *runs[i] : file;
    }
};

const BabelStreamRun* run_of(const BabelStreamFile& f, int run) {
    for (const BabelStreamRun& r : f.runs)
        if (r.run == run)
            return &r;
    return nullptr;
}

// A BabelStream row's bandwidth in GB/s (10^9 B/s): the printed MB/s or MiB/s.
// Bytes per printed bandwidth unit per second: MBytes/sec 10^6, MiBytes/sec 2^20, alpaka's GB/s 10^9.
double bytes_per_unit(const BabelStreamRun* run) { return run && run->gigabytes ? 1e9 : run && run->mebibytes ? 1048576.0 : 1e6; }

double row_GBps(const BabelStreamFile& f, const BabelStreamRow& row) {
    const BabelStreamRun* run = run_of(f, row.run);
    return row.bw_printed * bytes_per_unit(run) / 1e9;
}

// The answer first: the best kernel's bandwidth (over both formats' rows) and its share of each GPU's
// HBM peak; without a GPU, how to get that share.
std::vector<std::string> babelstream_summary(const BabelStreamFile& f, const RunGpus& run_gpus) {
    // The best row's own GPU and validation: its run's for a BabelStream row, the file's for a gpu-stream row.
    std::string best_name;
    double best = -1;
    const std::vector<const GpuSpec*>* gpus = &run_gpus.file;
    bool unverified = false;
    for (const BabelStreamRow& row : f.rows)
        if (const double bw = row_GBps(f, row); bw > best) {
            best = bw;
            best_name = f.runs.size() > 1 ? fmt::format("{} (run {})", row.function, row.run) : row.function;
            gpus = &run_gpus.of(row.run);
            const BabelStreamRun* run = run_of(f, row.run);
            unverified = run && !run->validation_failure.empty();
        }
    for (const GpuStreamRow& row : f.gs_rows)
        if (row.bw_GBps > best) {
            best = row.bw_GBps;
            best_name =
                fmt::format("{} {} (device {}, block {}, {} B)", row.kernel, row.dtype, row.device, row.block, row.buffer_bytes);
            gpus = &run_gpus.file;
            unverified = !f.gs_validation_failure.empty();
        }
    if (best < 0)
        return {};
    const std::string head =
        fmt::format("best kernel {} {} GB/s{}", best_name, gbps_text(best), unverified ? " (unverified: validation failed)" : "");
    if (gpus->empty())
        return {head + "; give --gpu for % of the HBM peak"};
    std::vector<std::string> lines;
    for (const GpuSpec* g : *gpus)
        lines.push_back(fmt::format("{} = {:.1f} % of {} HBM peak {:.0f} GB/s", head, 100 * best / g->hbm_bw_GBps.value, g->id,
                                    g->hbm_bw_GBps.value));
    return lines;
}

void babelstream_section(const BabelStreamFile& f, const RunGpus& run_gpus, IngestReport& r) {
    Section s;
    s.key = "kernels";
    s.title = "BabelStream kernels";
    s.columns = {{"run", "run", 0},
                 {"function", "function", 0},
                 {"gpu", "gpu", 0},
                 {"bw_GBps", "GB/s", 1},
                 {"hbm_peak_GBps", "peak GB/s", 0},
                 {"pct_of_hbm_peak", "% of peak", 1},
                 {"min_us", "min us", 1},
                 {"max_us", "max us", 1},
                 {"avg_us", "avg us", 1},
                 {"bytes", "bytes/call", 0},
                 {"bw_from_min_time_GBps", "bytes/min GB/s", 1},
                 {"check", "check", 0},
                 {"validation", "validation", 0}};
    // The bandwidth columns show the smallest non-zero bandwidth to 3 significant digits.
    double smallest = HUGE_VAL;
    for (const BabelStreamRow& row : f.rows)
        if (const double bw = row_GBps(f, row); bw > 0)
            smallest = std::min(smallest, bw);
    s.columns[3].decimals = s.columns[10].decimals = decimals_for(smallest);
    for (const BabelStreamRow& row : f.rows) {
        const BabelStreamRun* run = run_of(f, row.run);
        const double unit = bytes_per_unit(run);
        const double bw_GBps = row_GBps(f, row);
        const int arrays = row.arrays ? *row.arrays : babelstream_arrays(row.function);
        Cell bytes_cell, derived_cell, check_cell = std::string("no array size");
        if (arrays == 0) {
            // A function BabelStream does not define (a variant's own kernel), or a row whose own count of arrays
            // fits no convention: its bandwidth as printed, its bytes per call unknown.
            bytes_cell = derived_cell = std::string("unknown");
            check_cell = std::string(row.arrays ? "arrays unknown" : "unknown function");
        } else if (run && run->array_bytes) {
            const double bytes = arrays * *run->array_bytes;
            const double half_bytes = arrays * run->array_bytes_halfwidth;
            bytes_cell = static_cast<std::uint64_t>(std::llround(bytes));
            derived_cell = bytes / row.min_s / 1e9;
            // Agreement to the printed precision: the printed bandwidth's interval must meet the interval
            // of bytes / min time allowed by the rounding of the array size and of the min time.
            const double dt = half_unit(row.min_text), dbw = half_unit(row.bw_text) * unit;
            const double printed_lo = row.bw_printed * unit - dbw, printed_hi = row.bw_printed * unit + dbw;
            const double derived_lo = (bytes - half_bytes) / (row.min_s + dt);
            const double derived_hi = row.min_s > dt ? (bytes + half_bytes) / (row.min_s - dt) : HUGE_VAL;
            const bool ok = printed_lo <= derived_hi && derived_lo <= printed_hi;
            check_cell = std::string(ok ? "ok" : "disagrees");
            if (!ok)
                r.warnings.push_back(fmt::format(
                    "run {} {}: printed {:.3f} GB/s but {} x {:.0f} bytes / min time {} s gives {:.3f}..{:.3f} GB/s", row.run,
                    row.function, bw_GBps, arrays, *run->array_bytes, row.min_text, derived_lo / 1e9, derived_hi / 1e9));
        }
        const std::string validation = run && !run->validation_failure.empty() ? "failed: unverified" : "no failure printed";
        const auto base = [&](const std::string& gpu, Cell peak, Cell pct) {
            s.rows.push_back({static_cast<std::uint64_t>(row.run), row.function, gpu, bw_GBps, std::move(peak), std::move(pct),
                              row.min_s * 1e6, row.max_s * 1e6, row.avg_s * 1e6, bytes_cell, derived_cell, check_cell,
                              validation});
        };
        const std::vector<const GpuSpec*>& gpus = run_gpus.of(row.run);
        if (gpus.empty())
            base("-", Cell(), Cell());
        for (const GpuSpec* g : gpus)
            base(g->id, g->hbm_bw_GBps.value, 100.0 * bw_GBps / g->hbm_bw_GBps.value);
    }
    s.notes.push_back(
        "GB/s = the printed MBytes/sec x 10^6 / 10^9 (MiBytes/sec x 2^20 / 10^9; alpaka's table prints GB/s), from "
        "BabelStream's min time; bytes per call = arrays x array size (Copy, Mul, Dot 2; Add, Triad, BabelStream 5's Init "
        "and Read 3; alpaka's Init 2 or 3 as its DataUsage says; Nstream 4; GPU-STREAM 1.0 HIP's Add4 5)");
    s.notes.push_back(
        "check: the printed bandwidth agrees with bytes / printed min time within the rounding of both "
        "(and of a text file's 'Array size' line, printed to 0.1 MB); a function BabelStream does not "
        "define is shown as printed, its bytes unknown");
    s.notes.push_back(
        "validation: 'failed: unverified' when the run printed a validation failure (its kernels computed wrong "
        "results; BabelStream prints it on stderr, so capture with 2>&1)");
    r.sections.push_back(std::move(s));
    // A run that prints no array size still has one: each row's bandwidth x min time / arrays is it, to the rounding of
    // both printed numbers. Rows that agree on one value are self-consistent; rows that do not were edited or mis-read.
    for (const BabelStreamRun& run : f.runs) {
        if (run.array_bytes)
            continue;
        const double unit = bytes_per_unit(&run);
        double lo = 0, hi = HUGE_VAL;
        std::size_t rows = 0;
        for (const BabelStreamRow& row : f.rows) {
            const int arrays = row.arrays ? *row.arrays : babelstream_arrays(row.function);
            const double dt = half_unit(row.min_text), dbw = half_unit(row.bw_text) * unit;
            if (row.run != run.run || arrays == 0 || !(row.min_s > dt) || !(row.bw_printed * unit > dbw))
                continue;
            ++rows;
            lo = std::max(lo, (row.bw_printed * unit - dbw) * (row.min_s - dt) / arrays);
            hi = std::min(hi, (row.bw_printed * unit + dbw) * (row.min_s + dt) / arrays);
        }
        if (rows < 2)
            continue;
        if (lo <= hi)
            r.notes.push_back(
                fmt::format("run {}: no array size printed; its {} rows agree on one (bandwidth x min time / "
                            "arrays = {:.0f}..{:.0f} bytes), so each bandwidth fits its time",
                            run.run, rows, lo, hi));
        else
            r.warnings.push_back(
                fmt::format("run {}: no array size printed, and its rows' bandwidth x min time / arrays "
                            "agree on none (the table was edited, or a row mis-read)",
                            run.run));
    }
    for (const BabelStreamRun& run : f.runs)
        if (!run.validation_failure.empty())
            r.warnings.push_back(
                fmt::format("run {}: line {}: '{}': every bandwidth of this run is unverified (the "
                            "kernels' results failed validation)",
                            run.run, run.validation_line, run.validation_failure));
    for (const BabelStreamRun& run : f.runs) {
        std::string size = "array size not printed";
        if (run.n_elements && run.sizeof_t)
            size = fmt::format("{} elements x {} bytes", *run.n_elements, *run.sizeof_t);
        else if (run.array_bytes)
            size =
                fmt::format("array {:.0f} +- {:.0f} bytes (from the printed size)", *run.array_bytes, run.array_bytes_halfwidth);
        r.notes.push_back(
            fmt::format("run {}: {}{}{}, {}{}{}", run.run, run.implementation.empty() ? "BabelStream" : run.implementation,
                        run.version.empty() ? "" : " " + run.version, run.device.empty() ? "" : " on " + run.device, size,
                        run.gigabytes   ? ", GB/s"
                        : run.mebibytes ? ", MiBytes/sec"
                                        : ", MBytes/sec",
                        run.validation_failure.empty() ? "" : ", validation FAILED: bandwidths unverified"));
        // Only 5.0's main.cpp swaps the two (later versions time init_arrays and read_arrays each under its own name):
        // said as a fact for a run that prints "Version: 5.0", as a condition for one that prints no version.
        if (run.phase_line > 0) {
            const bool v50 = run.version == "5.0" || run.version.rfind("5.0 ", 0) == 0;
            const std::string swapped =
                v50 ? ", and this version (5.0) prints each under the other's name (main.cpp: initElapsedS = read2 - read1, "
                      "readElapsedS = init2 - init1)"
                : run.version.empty() ? "; if this is BabelStream 5.0, each is printed under the other's name (its main.cpp: "
                                        "initElapsedS = read2 - read1)"
                                      : "";
            r.notes.push_back(fmt::format(
                "run {}: its Init and Read timings (line {}) are not read: each is one host-timed call (filling the arrays, "
                "with the first touch of their pages; copying them back to the host), not a device-memory kernel timed "
                "over repeats{}",
                run.run, run.phase_line, swapped));
        }
    }
}

void gpu_stream_section(const BabelStreamFile& f, const std::vector<const GpuSpec*>& gpus, IngestReport& r) {
    Section s;
    s.key = "gpu_stream";
    s.title = "SuperBench gpu-stream kernels";
    s.columns = {{"device", "dev", 0},
                 {"kernel", "kernel", 0},
                 {"dtype", "type", 0},
                 {"block", "block", 0},
                 {"bytes", "bytes/iter", 0},
                 {"bw_GBps", "GB/s", 1},
                 {"time_us", "us/iter", 1},
                 {"file_peak_GBps", "file peak", 0},
                 {"file_pct", "file %", 2},
                 {"gpu", "gpu", 0},
                 {"hbm_peak_GBps", "peak GB/s", 0},
                 {"pct_of_hbm_peak", "% of peak", 1},
                 {"validation", "validation", 0}};
    const std::string validation = f.gs_validation_failure.empty() ? "no failure printed" : "failed: unverified";
    if (!f.gs_validation_failure.empty())
        r.warnings.push_back(
            fmt::format("line {}: '{}': every bandwidth of this file is unverified (the kernels' results "
                        "failed validation)",
                        f.gs_validation_line, f.gs_validation_failure));
    for (const GpuStreamRow& row : f.gs_rows) {
        std::optional<double> file_peak;
        for (const GpuStreamDevice& d : f.gs_devices)
            if (d.device == row.device)
                file_peak = d.peak_GBps;
        const double bytes = static_cast<double>(gpu_stream_arrays(row.kernel)) * static_cast<double>(row.buffer_bytes);
        const double time_us = bytes / (row.bw_GBps * 1e3);  // bytes / (GB/s x 1e9) in s, x 1e6
        if (file_peak && row.pct_printed) {
            const double want = 100.0 * row.bw_GBps / *file_peak;
            if (std::fabs(want - *row.pct_printed) > 0.01 + 1e-4 * want)
                r.warnings.push_back(fmt::format("device {} {} block {}: printed {:.2f} % of peak, {} / {} GB/s = {:.2f} %",
                                                 row.device, row.kernel, row.block, *row.pct_printed, row.bw_GBps, *file_peak,
                                                 want));
        }
        const auto add = [&](const std::string& gpu, Cell peak, Cell pct) {
            s.rows.push_back({static_cast<std::uint64_t>(row.device), row.kernel, row.dtype, row.block,
                              static_cast<std::uint64_t>(std::llround(bytes)), row.bw_GBps, time_us,
                              file_peak ? Cell(*file_peak) : Cell(), row.pct_printed ? Cell(*row.pct_printed) : Cell(), gpu,
                              std::move(peak), std::move(pct), validation});
        };
        if (gpus.empty())
            add("-", Cell(), Cell());
        for (const GpuSpec* g : gpus)
            add(g->id, g->hbm_bw_GBps.value, 100.0 * row.bw_GBps / g->hbm_bw_GBps.value);
    }
    s.notes.push_back(
        "bytes per iteration = 2 x buffer (COPY, SCALE) or 3 x buffer (ADD, TRIAD), as gpu_stream.cu "
        "counts them; us/iter = bytes / bandwidth is derived (the tool prints no times)");
    s.notes.push_back("file peak = the tool's memory clock x bus width x 2 figure; % of peak uses the catalog's HBM figure");
    r.sections.push_back(std::move(s));
}

}  // namespace

IngestReport babelstream_report(const BabelStreamFile& f, const std::string& file, const std::vector<const GpuSpec*>& gpus,
                                const std::vector<std::optional<std::vector<const GpuSpec*>>>& run_gpus) {
    IngestReport r;
    r.tool = "babelstream";
    r.file = file;
    r.format = f.format;
    for (const GpuSpec* g : gpus)
        r.gpus.push_back(g->id);
    for (const auto& on : run_gpus)
        if (on)
            for (const GpuSpec* g : *on)
                if (std::find(r.gpus.begin(), r.gpus.end(), g->id) == r.gpus.end())
                    r.gpus.push_back(g->id);
    const RunGpus per_run{gpus, run_gpus};
    r.warnings = f.warnings;
    if (!f.rows.empty())
        babelstream_section(f, per_run, r);
    if (!f.gs_rows.empty())
        gpu_stream_section(f, gpus, r);
    r.summary.lines = babelstream_summary(f, per_run);
    return r;
}

}  // namespace bwacct
