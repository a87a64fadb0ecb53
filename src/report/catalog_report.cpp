#include "bwacct/catalog_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "bwacct/error.h"
#include "bwacct/json_text.h"
#include "cell_quote.h"
#include "human.h"

namespace bwacct {
namespace {

using json = nlohmann::ordered_json;
using detail::fixed;

// The loader's own format (configs/gpus.json), so `bwacct gpus --format json` can be edited and
// given back with --gpu-file.
json figure_json(const Figure& f) {
    json j{{"value", f.value}, {"source", f.source}};
    if (!f.note.empty())
        j["note"] = f.note;
    for (const auto& a : f.alternatives) {
        json aj{{"value", a.value}, {"source", a.source}};
        if (!a.note.empty())
            aj["note"] = a.note;
        j["alternatives"].push_back(aj);
    }
    return j;
}

json link_json(const std::optional<Link>& l) {
    if (!l)
        return nullptr;
    json bw = figure_json(l->bw_GBps);
    bw["direction"] = "per-direction";
    json j{{"name", l->name}, {"bw_GBps", bw}, {"nvls", l->nvls}};
    if (l->step_latency_us)
        j["step_latency_us"] = figure_json(*l->step_latency_us);
    return j;
}

json gpu_json(const GpuSpec& g) {
    json j{{"name", g.name}, {"vendor", g.vendor}, {"arch", g.arch}, {"match", g.match}};
    const std::pair<const char*, const std::optional<Figure>*> opt[] = {{"sm_count", &g.sm_count},
                                                                        {"boost_clock_MHz", &g.boost_clock_MHz},
                                                                        {"l2_bytes", &g.l2_bytes},
                                                                        {"hbm_capacity_bytes", &g.hbm_capacity_bytes}};
    for (const auto& [k, f] : opt)
        if (*f)
            j[k] = figure_json(**f);
    j["hbm_bw_GBps"] = figure_json(g.hbm_bw_GBps);
    for (const auto& [k, f] : g.tensor_tflops)
        j["tensor_tflops"][k] = figure_json(f), j["tensor_tflops"][k]["sparsity"] = "dense";
    for (const auto& [k, f] : g.vector_tflops)
        j["vector_tflops"][k] = figure_json(f), j["vector_tflops"][k]["sparsity"] = "dense";
    j["scaleup_link"] = link_json(g.scaleup_link);
    j["pcie"] = link_json(g.pcie);
    j["launch_overhead_us"] = figure_json(g.launch_overhead_us);
    return j;
}

std::string peak_or_dash(const GpuSpec& g, const char* key) {
    const Figure* f = g.peak(Unit::tensor, key);
    return f ? fixed(f->value, 1) : "-";
}

std::string figure_value(double v, const char* unit) {
    if (std::string_view(unit) == "bytes")
        return fmt::format("{:.0f} bytes ({})", v, detail::human_bytes(static_cast<std::uint64_t>(v)));
    return fmt::format("{:g} {}", v, unit);
}

void print_figure(std::FILE* out, const std::string& name, const Figure& f, const char* unit) {
    fmt::print(out, "  {:<30} {}{}\n", name, figure_value(f.value, unit), f.note.empty() ? "" : "  (" + f.note + ")");
    fmt::print(out, "  {:<30} source: {}\n", "", f.source);
    for (const auto& a : f.alternatives)
        fmt::print(out, "  {:<30} alternative: {} — {}{}\n", "", figure_value(a.value, unit), a.source,
                   a.note.empty() ? "" : " (" + a.note + ")");
}

}  // namespace

void print_catalog(const Catalog& catalog, Format format, std::FILE* out) {
    if (format == Format::json || format == Format::jsonl) {
        json j{{"schema", "bwacct.gpus/1"}, {"gpus", json::object()}};
        for (const GpuSpec& g : catalog.gpus())
            j["gpus"][g.id] = gpu_json(g);
        fmt::print(out, "{}\n", format == Format::json ? detail::json_text(j, 2) : detail::json_text(j));
        return;
    }
    const bool csv = format == Format::csv, md = format == Format::md;
    std::size_t id_width = 15, name_width = 4;  // an id longer than the column widens it (rtx-pro-6000-blackwell)
    for (const GpuSpec& g : catalog.gpus()) {
        id_width = std::max(id_width, g.id.size() + 2);
        name_width = std::max(name_width, g.name.size() + 2);
    }
    auto row = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (csv)
                line += fmt::format("{}{}", i ? "," : "", detail::csv_quote(cells[i]));
            else if (md)
                line += fmt::format("| {} ", detail::md_cell(cells[i]));
            else
                line += i == 0   ? fmt::format("{:<{}}", cells[i], id_width)
                        : i == 1 ? fmt::format("{:<{}}", cells[i], name_width)
                                 : fmt::format("{:>12}", cells[i]);
        }
        fmt::print(out, "{}{}\n", line, md ? "|" : "");
    };
    row({"id", "name", "bf16_tflops", "fp8_tflops", "hbm_GBps", "link_GBps", "l2_MiB", "sms"});
    if (md)
        row(std::vector<std::string>(8, "---"));
    for (const GpuSpec& g : catalog.gpus()) {
        row({g.id, g.name, peak_or_dash(g, "bf16"), peak_or_dash(g, "fp8"), fixed(g.hbm_bw_GBps.value, 0),
             g.scaleup_link ? fixed(g.scaleup_link->bw_GBps.value, 0) : "-",
             g.l2_bytes ? fixed(g.l2_bytes->value / 1048576.0, 0) : "-", g.sm_count ? fixed(g.sm_count->value, 0) : "-"});
    }
    if (!csv && !md)
        fmt::print(out,
                   "\nTensor peaks are dense (no sparsity); link is the scale-up link, per direction. "
                   "`bwacct gpu ID` lists every figure with its source.\n");
}

void print_gpu(const GpuSpec& g, Format format, std::FILE* out) {
    if (format == Format::json || format == Format::jsonl) {
        const json j{{"schema", "bwacct.gpus/1"}, {"gpus", {{g.id, gpu_json(g)}}}};
        fmt::print(out, "{}\n", format == Format::json ? detail::json_text(j, 2) : detail::json_text(j));
        return;
    }
    if (format != Format::table)
        throw InputError("--format", "gpu prints table, json or jsonl");
    std::string about = g.vendor;
    if (!g.arch.empty())
        about += (about.empty() ? "" : ", ") + g.arch;
    fmt::print(out, "{} — {}{}\n", g.id, g.name, about.empty() ? "" : " (" + about + ")");
    if (g.sm_count)
        print_figure(out, "SMs / CUs", *g.sm_count, "");
    if (g.boost_clock_MHz)
        print_figure(out, "boost clock", *g.boost_clock_MHz, "MHz");
    if (g.l2_bytes)
        print_figure(out, "L2", *g.l2_bytes, "bytes");
    if (g.hbm_capacity_bytes)
        print_figure(out, "memory capacity", *g.hbm_capacity_bytes, "bytes");
    print_figure(out, "memory bandwidth", g.hbm_bw_GBps, "GB/s");
    for (const auto& [k, f] : g.tensor_tflops)
        print_figure(out, "tensor " + k + " (dense)", f, k == "int8" ? "TOPS" : "TFLOP/s");
    for (const auto& [k, f] : g.vector_tflops)
        print_figure(out, "vector " + k + " (dense)", f, "TFLOP/s");
    for (const auto* l : {&g.scaleup_link, &g.pcie}) {
        if (!*l)
            continue;
        print_figure(out, (*l)->name + " per direction", (*l)->bw_GBps, "GB/s");
        if ((*l)->step_latency_us)
            print_figure(out, "  α per step", *(*l)->step_latency_us, "µs");
        if ((*l)->nvls)
            fmt::print(out, "  {:<30} NVLink SHARP (NVLS) available\n", "");
    }
    print_figure(out, "launch overhead", g.launch_overhead_us, "µs");
}

}  // namespace bwacct
