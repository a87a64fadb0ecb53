#include "bwacct/measure_report.h"

#include <fmt/format.h>

#include "bwacct/error.h"
#include "human.h"
#include "json_pretty.h"
#include "json_writer.h"

namespace bwacct {
namespace {

using detail::fixed;
using detail::JsonWriter;
using detail::percent;

double gbps(std::uint64_t bytes, double us) { return static_cast<double>(bytes) / (us * 1e3); }

void device_json(JsonWriter& w, const Measurement& m) {
    const DeviceInfo& d = m.device;
    w.field("backend", m.backend);
    w.key("device").begin_object();
    w.field("index", static_cast<std::uint64_t>(d.index)).field("name", d.name).field("uuid", d.uuid);
    w.field("catalog_match", m.catalog_match);
    w.field("compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor));
    w.field("sm_count", static_cast<std::uint64_t>(d.sm_count)).field("l2_bytes", d.l2_bytes);
    w.field("memory_bytes", d.memory_bytes).field("memory_bus_bits", static_cast<std::uint64_t>(d.memory_bus_bits));
    w.field("memory_clock_MHz", d.memory_clock_MHz).field("sm_clock_MHz", d.sm_clock_MHz);
    w.field("derived_hbm_GBps", d.derived_hbm_GBps);
    w.field("visible_devices", static_cast<std::uint64_t>(d.visible_devices));
    w.end_object();
}

void timing_json(JsonWriter& w, const Timing& t) {
    w.field("source", time_source_name(t.source));
    w.field("n", static_cast<std::uint64_t>(t.stats.n)).field("median_us", t.stats.median_us).field("min_us", t.stats.min_us);
    w.field("max_us", t.stats.max_us).field("cv", t.stats.cv);
    w.key("samples_us").begin_array();
    for (double s : t.samples_us)
        w.value(s);
    w.end_array();
    w.field("timer", t.timer).field("cache", t.cache).field("verification", t.verification);
    w.key("notes").begin_array();
    for (const std::string& n : t.notes)
        w.value(n);
    w.end_array();
}

void print_json(std::FILE* out, const JsonWriter& w, Format f) {
    if (f == Format::json)
        fmt::print(out, "{}\n", detail::pretty_json(w.text()));
    else
        fmt::print(out, "{}\n", w.text());
}

void header(std::FILE* out, const Measurement& m, const std::string& source) {
    fmt::print(out, "{} (GPU {}{}) — {}\n", m.device.name, m.device.index,
               m.catalog_match.empty() ? ", no catalog match" : ", catalog " + m.catalog_match,
               source == "simulated" ? "simulated by the test backend, not a measurement" : source);
}

void require_table_or_json(Format f) {
    if (f == Format::csv || f == Format::md)
        throw InputError("--format", "this report prints table, json or jsonl");
}

}  // namespace

void print_hbm(const HbmReport& r, Format f, std::FILE* out) {
    require_table_or_json(f);
    const double derived = r.device.device.derived_hbm_GBps;
    if (f != Format::table) {
        JsonWriter w;
        w.begin_object().field("schema", "bwacct.hbm/1");
        device_json(w, r.device);
        w.key("catalog_hbm_GBps");
        r.catalog_GBps ? (void)w.value(*r.catalog_GBps) : (void)w.null();
        w.field("bytes_convention", "bytes moved = reads + writes: copy 2x, read 1x, write 1x, triad 3x the array size");
        w.key("kernels").begin_array();
        for (const HbmRow& row : r.rows) {
            const double bw = gbps(row.bytes_moved, row.timing.stats.median_us);
            w.begin_object()
                .field("kernel", row.kernel)
                .field("array_bytes", row.array_bytes)
                .field("bytes_moved", row.bytes_moved);
            w.field("traffic", row.traffic);
            w.field("bw_GBps", bw).field("best_bw_GBps", gbps(row.bytes_moved, row.timing.stats.min_us));
            w.key("fraction_of_catalog");
            r.catalog_GBps ? (void)w.value(bw / *r.catalog_GBps) : (void)w.null();
            w.key("fraction_of_derived");
            derived > 0 ? (void)w.value(bw / derived) : (void)w.null();
            timing_json(w, row.timing);
            w.end_object();
        }
        w.end_array().end_object();
        print_json(out, w, f);
        return;
    }
    header(out, r.device, r.rows.empty() ? "" : std::string(time_source_name(r.rows.front().timing.source)));
    fmt::print(out, "  peaks: catalog {} GB/s, derived from bus width × memory clock {} GB/s\n",
               r.catalog_GBps ? fixed(*r.catalog_GBps, 0) : "-", derived > 0 ? fixed(derived, 0) : "-");
    fmt::print(out, "  bytes moved count reads + writes (copy 2×, read 1×, write 1×, triad 3× the array)\n\n");
    fmt::print(out, "  {:<7}{:>12}{:>14}{:>12}{:>12}{:>10}{:>11}{:>11}{:>8}\n", "kernel", "array", "moved", "median µs", "GB/s",
               "best", "% catalog", "% derived", "cv");
    for (const HbmRow& row : r.rows) {
        const double bw = gbps(row.bytes_moved, row.timing.stats.median_us);
        fmt::print(out, "  {:<7}{:>12}{:>14}{:>12}{:>12}{:>10}{:>11}{:>11}{:>8}\n", row.kernel,
                   detail::human_bytes(row.array_bytes), detail::human_bytes(row.bytes_moved),
                   fixed(row.timing.stats.median_us, 1), fixed(bw, 1), fixed(gbps(row.bytes_moved, row.timing.stats.min_us), 1),
                   r.catalog_GBps ? percent(bw / *r.catalog_GBps) : "-", derived > 0 ? percent(bw / derived) : "-",
                   percent(row.timing.stats.cv));
    }
    if (!r.rows.empty()) {
        const Timing& t = r.rows.front().timing;
        fmt::print(out, "\n  timer: {}\n  cache: {}\n  verified: {}\n", t.timer, t.cache, t.verification);
    }
    for (const HbmRow& row : r.rows)
        for (const std::string& n : row.timing.notes)
            fmt::print(out, "  note ({}): {}\n", row.kernel, n);
}

void print_launch(const LaunchReport& r, Format f, std::FILE* out) {
    require_table_or_json(f);
    if (f != Format::table) {
        JsonWriter w;
        w.begin_object().field("schema", "bwacct.launch/1");
        device_json(w, r.device);
        w.key("catalog_launch_us");
        r.catalog_launch_us ? (void)w.value(*r.catalog_launch_us) : (void)w.null();
        w.key("results").begin_array();
        for (const LaunchRow& row : r.rows) {
            w.begin_object().field("what", row.what).field("meaning", row.meaning);
            timing_json(w, row.timing);
            w.end_object();
        }
        w.end_array().end_object();
        print_json(out, w, f);
        return;
    }
    header(out, r.device, r.rows.empty() ? "" : std::string(time_source_name(r.rows.front().timing.source)));
    fmt::print(out, "  catalog launch overhead (the dispatch roof's default): {} µs\n\n",
               r.catalog_launch_us ? fixed(*r.catalog_launch_us, 2) : "-");
    fmt::print(out, "  {:<18}{:>12}{:>10}{:>8}   {}\n", "", "median µs", "min µs", "cv", "what it is");
    for (const LaunchRow& row : r.rows)
        fmt::print(out, "  {:<18}{:>12}{:>10}{:>8}   {}\n", row.what, fixed(row.timing.stats.median_us, 2),
                   fixed(row.timing.stats.min_us, 2), percent(row.timing.stats.cv), row.meaning);
    for (const LaunchRow& row : r.rows)
        for (const std::string& n : row.timing.notes)
            fmt::print(out, "  note ({}): {}\n", row.what, n);
}

void print_calibration(const Calibration& c, const GpuSpec* match, const std::string& path, Format f, std::FILE* out) {
    require_table_or_json(f);
    const Figure* bf16 = match != nullptr ? match->peak(Unit::tensor, "bf16") : nullptr;
    if (f != Format::table) {
        JsonWriter w;
        w.begin_object().field("schema", "bwacct.calibration-result/1").field("cache", path);
        w.field("uuid", c.uuid).field("name", c.name).field("backend", c.backend).field("measured_at", c.measured_at);
        w.field("catalog_match", match != nullptr ? match->id : "");
        w.key("achievable").begin_object().field("hbm_GBps", c.hbm_GBps).field("bf16_tflops", c.bf16_tflops);
        w.field("launch_us", c.launch_us).end_object();
        w.key("notes").begin_array();
        for (const std::string& n : c.notes)
            w.value(n);
        w.end_array();
        w.key("catalog").begin_object();
        if (match != nullptr) {
            w.field("hbm_GBps", match->hbm_bw_GBps.value).field("launch_us", match->launch_overhead_us.value);
            if (bf16 != nullptr)
                w.field("bf16_tflops", bf16->value);
        }
        w.end_object().end_object();
        print_json(out, w, f);
        return;
    }
    fmt::print(out, "{} ({}, {}) calibrated {}; cached in {}\n", c.name, c.uuid, c.backend, c.measured_at, path);
    fmt::print(out, "  {:<24}{:>12}{:>12}{:>10}\n", "roof", "achievable", "catalog", "fraction");
    auto line = [&](const char* what, double got, std::optional<double> spec, int digits) {
        fmt::print(out, "  {:<24}{:>12}{:>12}{:>10}\n", what, fixed(got, digits), spec ? fixed(*spec, digits) : "-",
                   spec ? percent(got / *spec) : "-");
    };
    line("HBM GB/s (copy, triad)", c.hbm_GBps, match ? std::optional<double>(match->hbm_bw_GBps.value) : std::nullopt, 1);
    line("bf16 TFLOP/s (8192³)", c.bf16_tflops, bf16 ? std::optional<double>(bf16->value) : std::nullopt, 1);
    line("launch µs per kernel", c.launch_us, match ? std::optional<double>(match->launch_overhead_us.value) : std::nullopt, 2);
    for (const std::string& n : c.notes)
        fmt::print(out, "  note: {}\n", n);
}

void print_device(const Measurement& m, const GpuSpec* match, const Clocks& now, const std::string& build, Format f,
                  std::FILE* out) {
    require_table_or_json(f);
    const DeviceInfo& d = m.device;
    if (f != Format::table) {
        JsonWriter w;
        w.begin_object().field("schema", "bwacct.device/1");
        device_json(w, m);
        w.key("catalog_hbm_GBps");
        match ? (void)w.value(match->hbm_bw_GBps.value) : (void)w.null();
        w.key("clocks_now").begin_object().field("sm_MHz", now.sm_MHz).field("mem_MHz", now.mem_MHz).end_object();
        w.field("build", build);
        w.end_object();
        print_json(out, w, f);
        return;
    }
    fmt::print(out, "{} — GPU {}, {}\n", d.name, d.index, d.uuid);
    fmt::print(out, "  backend           {}\n", m.backend);
    fmt::print(out, "  catalog match     {}\n",
               m.catalog_match.empty() ? "none (use --gpu-file to add this GPU)" : m.catalog_match);
    fmt::print(out, "  compute cap.      {}.{}, {} SMs, L2 {}\n", d.cc_major, d.cc_minor, d.sm_count,
               detail::human_bytes(d.l2_bytes));
    fmt::print(out, "  memory            {}, {}-bit bus at {} MHz\n", detail::human_bytes(d.memory_bytes), d.memory_bus_bits,
               fixed(d.memory_clock_MHz, 0));
    fmt::print(out, "  HBM peak          derived {} GB/s (bus bits / 8 × clock × 2); catalog {}\n", fixed(d.derived_hbm_GBps, 0),
               match ? fixed(match->hbm_bw_GBps.value, 0) + " GB/s (" + match->hbm_bw_GBps.source + ")" : "-");
    if (match && d.derived_hbm_GBps > 0)
        fmt::print(out, "                    derived / catalog = {}\n", percent(d.derived_hbm_GBps / match->hbm_bw_GBps.value));
    fmt::print(out, "  clocks now        SM {} MHz, memory {} MHz (max SM clock {} MHz)\n",
               now.sm_MHz > 0 ? fixed(now.sm_MHz, 0) : "?", now.mem_MHz > 0 ? fixed(now.mem_MHz, 0) : "?",
               fixed(d.sm_clock_MHz, 0));
    fmt::print(out, "  build             {}\n", build);
}

}  // namespace bwacct
