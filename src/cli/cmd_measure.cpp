// The machine-roof subcommands: hbm, launch, device, calibrate. Each needs a GPU (or the simulated
// backend in tests); without one they exit 1 with one line saying why.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "backend.h"
#include "bwacct/catalog.h"
#include "bwacct/choice.h"
#include "bwacct/error.h"
#include "bwacct/measure_report.h"
#include "calibration.h"
#include "mpi_context.h"
#include "oom_retry.h"
#include "op_runner.h"
#include "progress.h"

#ifndef BWACCT_BUILD_NOTE
#define BWACCT_BUILD_NOTE ""
#endif

namespace bwacct::cli {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

struct Opened {
    std::unique_ptr<measure::Backend> backend;
    Measurement base;
    Catalog catalog;
    const GpuSpec* match = nullptr;
};

Opened open_device(const Args& args) {
    Opened o{nullptr, {}, catalog_for(args), nullptr};
    o.backend = measure::open_backend();
    o.base.backend = o.backend->name();
    o.base.device = o.backend->device();
    o.match = o.catalog.match(o.base.device.name);
    if (o.match != nullptr)
        o.base.catalog_match = o.match->id;
    o.base.ranks = measure::MpiContext::instance().size();
    return o;
}

// Arrays of at least 4× the L2 size so the cache cannot hold them, and never below 256 MiB.
std::uint64_t default_array_bytes(const DeviceInfo& d) { return std::max<std::uint64_t>(4 * d.l2_bytes, 256 * kMiB); }

measure::HbmKernel parse_hbm_kernel(std::string_view s) {
    static constexpr std::array<Choice<measure::HbmKernel>, 4> kKernels{{{"copy", measure::HbmKernel::copy},
                                                                         {"read", measure::HbmKernel::read},
                                                                         {"write", measure::HbmKernel::write},
                                                                         {"triad", measure::HbmKernel::triad}}};
    return parse_choice(s, "--kernel", "HBM kernel", kKernels);
}

std::string traffic(measure::HbmKernel k) {
    switch (k) {
        case measure::HbmKernel::copy:
            return "b = a: read a, write b (2× array)";
        case measure::HbmKernel::read:
            return "sum(a): read a (1× array)";
        case measure::HbmKernel::write:
            return "a = x: write a (1× array)";
        case measure::HbmKernel::triad:
            return "a = b + s·c: read b, c, write a (3× array)";
    }
    return "";
}

// Out of GPU memory, the arrays are halved (down to 2 × L2) and a note says so; the row carries the
// size actually measured, so bytes and bandwidth stay true.
HbmRow hbm_row(measure::Backend& b, measure::HbmKernel k, std::uint64_t array_bytes, const measure::SamplePolicy& p) {
    measure::HbmRun run = measure::hbm_fitting(b, k, array_bytes, measure::hbm_floor_bytes(b.device()), p);
    HbmRow row;
    row.kernel = std::string(measure::hbm_kernel_name(k));
    row.array_bytes = run.array_bytes;
    row.bytes_moved = measure::hbm_bytes_moved(k, run.array_bytes);
    row.traffic = traffic(k);
    row.timing = std::move(run.timing);
    return row;
}

std::string now_utc() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::FILE* rank_output(const Env& env) { return measure::MpiContext::instance().rank() == 0 ? env.out : nullptr; }

const OptionSpec kFormatTable{"--format", "table, json or jsonl", "table"};
const OptionSpec kGpuFile{"--gpu-file", "extra catalog JSON (adds this GPU if the catalog lacks it)", ""};
const OptionSpec kMaxSamples{"--max-samples", "most timed samples per measurement (stops earlier once the spread is below 1 %)",
                             "200"};

CommandSpec hbm_command() {
    CommandSpec c;
    c.name = "hbm";
    c.summary = "HBM bandwidth, BabelStream-style: copy, read, write, triad; % of the catalog and the derived peak";
    c.example = "bwacct hbm\n  bwacct hbm --kernel copy,triad --size 4G --format json";
    c.options = {{"--kernel", "kernels, comma-separated: copy, read, write, triad", "copy,read,write,triad"},
                 {"--size", "bytes per array (K, M, G = 1024^n); default: max(4 × L2, 256 MiB)", ""},
                 kMaxSamples,
                 kFormatTable,
                 kGpuFile};
    c.run = [](const Args& args, const Env& env) {
        const Format f = parse_format(args.get("--format"));
        std::vector<measure::HbmKernel> kernels;
        std::string list = args.get("--kernel");
        for (std::size_t start = 0;;) {
            const auto comma = list.find(',', start);
            kernels.push_back(parse_hbm_kernel(list.substr(start, comma == std::string::npos ? comma : comma - start)));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        std::optional<std::uint64_t> size;
        if (!args.get("--size").empty()) {
            const auto v = parse_values(args.get("--size"), "--size", ValueKind::size);
            if (v.size() != 1)
                throw InputError("--size", "takes one size, not a range or list");
            size = static_cast<std::uint64_t>(v.front());
        }
        const measure::SamplePolicy policy = sample_policy(args);
        Opened o = open_device(args);
        HbmReport report;
        report.device = o.base;
        if (o.match != nullptr)
            report.catalog_GBps = o.match->hbm_bw_GBps.value;
        const std::uint64_t bytes = size.value_or(default_array_bytes(o.base.device));
        for (measure::HbmKernel k : kernels)
            report.rows.push_back(hbm_row(*o.backend, k, bytes, policy));
        if (std::FILE* out = rank_output(env))
            print_hbm(report, f, out);
        return 0;
    };
    return c;
}

CommandSpec launch_command() {
    CommandSpec c;
    c.name = "launch";
    c.summary = "dispatch roof: host launch cost, per-kernel time on a stream and in a CUDA graph, sync round trip";
    c.example = "bwacct launch\n  bwacct launch --format json";
    c.options = {kMaxSamples, kFormatTable, kGpuFile};
    c.run = [](const Args& args, const Env& env) {
        const Format f = parse_format(args.get("--format"));
        const measure::SamplePolicy policy = sample_policy(args);
        Opened o = open_device(args);
        const measure::LaunchTimes t = o.backend->launch(policy);
        LaunchReport report;
        report.device = o.base;
        if (o.match != nullptr)
            report.catalog_launch_us = o.match->launch_overhead_us.value;
        report.rows = {{"host launch", "CPU time of one kernel launch, no synchronization", t.host_launch},
                       {"stream kernel", "per empty kernel, dependent launches on one stream", t.stream_kernel},
                       {"graph kernel", "per empty kernel inside one CUDA graph launch", t.graph_kernel},
                       {"sync round trip", "launch + cudaStreamSynchronize of one empty kernel", t.sync_round_trip}};
        if (std::FILE* out = rank_output(env))
            print_launch(report, f, out);
        return 0;
    };
    return c;
}

CommandSpec device_command() {
    CommandSpec c;
    c.name = "device";
    c.summary = "this GPU: name, catalog match, clocks, HBM peak derived from bus width × memory clock beside the catalog's";
    c.example = "bwacct device\n  bwacct device --format json";
    c.options = {kFormatTable, kGpuFile};
    c.run = [](const Args& args, const Env& env) {
        const Format f = parse_format(args.get("--format"));
        Opened o = open_device(args);
        const std::string build = std::string(BWACCT_BUILD_NOTE) + "; " + measure::MpiContext::build_info();
        if (std::FILE* out = rank_output(env))
            print_device(o.base, o.match, o.backend->clocks(), build, f, out);
        return 0;
    };
    return c;
}

CommandSpec calibrate_command() {
    CommandSpec c;
    c.name = "calibrate";
    c.summary = "measure this GPU's achievable roofs once (HBM copy/triad, bf16 GEMM 8192³, launch) and cache them";
    c.example = "bwacct calibrate\n  bwacct calibrate --cache ./calibration.json";
    c.options = {
        {"--cache", "cache file (default: $BWACCT_CACHE, else $XDG_CACHE_HOME or ~/.cache /bwacct/calibration.json)", ""},
        kMaxSamples,
        kFormatTable,
        kGpuFile};
    c.run = [](const Args& args, const Env& env) {
        const Format f = parse_format(args.get("--format"));
        const measure::SamplePolicy policy = sample_policy(args);
        // A directory as --cache is bad input: say so before measuring, not after (exit 2, not 1).
        const std::string path = measure::calibration_path_to_write(args.get("--cache"));
        if (std::error_code ec; std::filesystem::is_directory(path, ec))
            throw InputError("--cache", fmt::format("'{}' is a directory; expected the path of a cache file", path));
        Opened o = open_device(args);
        Progress progress("calibrating: HBM copy, bf16 GEMM and launch overhead", 0, progress_wanted());
        progress.show();
        const Calibration cal = measure::run_calibration(*o.backend, default_array_bytes(o.base.device), policy, now_utc());
        progress.done();
        if (measure::MpiContext::instance().rank() == 0)
            if (const std::string warning = measure::store_calibration(path, cal); !warning.empty())
                fmt::print(stderr, "bwacct calibrate: {}\n", warning);
        if (std::FILE* out = rank_output(env))
            print_calibration(cal, o.match, path, f, out);
        return 0;
    };
    return c;
}

}  // namespace

std::vector<CommandSpec> measure_commands() { return {hbm_command(), launch_command(), device_command(), calibrate_command()}; }

}  // namespace bwacct::cli
