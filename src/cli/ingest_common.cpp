#include "ingest_common.h"

#include <filesystem>
#include <utility>

#include "bwacct/error.h"
#include "bwacct/text_file.h"
#include "bwacct/values.h"
#include "plot_option.h"
#include "tolerance.h"

namespace bwacct::cli {

std::vector<OptionSpec> ingest_options(const std::string& file_help, const std::string& default_gpu) {
    return {
        {"file", file_help, "", false, true},
        {"--gpu", "GPUs to analyse on, comma-separated catalog ids or 'all' (default: the file's GPU when it names one)",
         default_gpu},
        {"--gpu-file", "extra catalog JSON (same schema as configs/gpus.json); adds or overrides entries", ""},
        {"--format", "output: table, json, jsonl, csv or md", "table"},
        {"--top", "show and plot at most this many records (0: all)", "0"},
        {"--section", "csv, jsonl or md: print only this table (records, or a section's key, as in the JSON)", ""},
        {"--no-header", "csv and md: leave the header row out (for appending to a file in a loop)", "", true},
        plot_option(),
    };
}

std::string read_text_input(const std::string& path, const std::string& expected) {
    std::string text = read_input_file(path, "", expected);
    if (looks_binary(text))
        throw InputError(path, "binary file; " + expected);
    return text;
}

namespace {
// " (it could be h100-sxm, h100-pcie or h100-nvl)" when the name is the start of catalog entries' names.
std::string candidates_text(const Catalog& catalog, const std::string& device_name) {
    const std::vector<const GpuSpec*> c = catalog.candidates(device_name);
    if (c.empty())
        return "";
    std::string ids;
    for (std::size_t i = 0; i < c.size(); ++i)
        ids += (i == 0 ? "" : i + 1 == c.size() ? " or " : ", ") + c[i]->id;
    return " (it could be " + ids + ")";
}
}  // namespace

std::vector<const GpuSpec*> ingest_gpus(const Args& args, const Catalog& catalog, const std::string& device_name,
                                        const std::string& fallback) {
    if (args.given("--gpu") || (!args.get("--gpu").empty() && device_name.empty()))
        return catalog.select(args.get("--gpu"), "--gpu");
    if (!device_name.empty())
        if (const GpuSpec* g = catalog.match(device_name))
            return {g};
    if (!fallback.empty())
        return catalog.select(fallback, "--gpu");
    throw InputError("--gpu", device_name.empty()
                                  ? "the file does not say which GPU it ran on; give --gpu ID (see 'bwacct gpus')"
                                  : "the file's GPU '" + device_name + "' is not in the catalog" +
                                        candidates_text(catalog, device_name) + "; give --gpu ID (see 'bwacct gpus')");
}

std::vector<const GpuSpec*> ingest_gpus_or_none(const Args& args, const Catalog& catalog, const std::string& device_name,
                                                std::string& note) {
    if (args.given("--gpu") || !args.get("--gpu").empty())
        return ingest_gpus(args, catalog, device_name, "");
    if (!device_name.empty())
        if (const GpuSpec* g = catalog.match(device_name))
            return {g};
    note = (device_name.empty()
                ? std::string("the file does not say which GPU it ran on")
                : "the file's GPU '" + device_name + "' is not in the catalog" + candidates_text(catalog, device_name)) +
           ": its numbers are re-derived and checked, but without a GPU there is no % of peak, roof or bound; give "
           "--gpu ID (see 'bwacct gpus'), or --gpu-file for a GPU the catalog lacks";
    return {};
}

namespace {

// The α–β fit the report's table shows (section "alpha_beta" of a one-run report), for the chart.
std::optional<AlphaBetaFit> reported_fit(const IngestReport& r) {
    for (const Section& s : r.sections) {
        if (s.key != "alpha_beta" || s.rows.size() != 1)
            continue;
        std::optional<double> alpha, beta;
        for (std::size_t i = 0; i < s.columns.size() && i < s.rows[0].size(); ++i) {
            const double* v = std::get_if<double>(&s.rows[0][i]);
            if (v && s.columns[i].key == "alpha_us")
                alpha = *v;
            if (v && s.columns[i].key == "beta_algbw_GBps")
                beta = *v;
        }
        if (!alpha || !beta || !(*beta > 0))
            return std::nullopt;
        AlphaBetaFit f;
        f.alpha_us = *alpha;
        f.beta_GBps = *beta;
        f.us_per_byte = 1e-3 / *beta;
        f.half_bytes = *alpha / f.us_per_byte;
        return f;
    }
    return std::nullopt;
}

}  // namespace

int emit_ingest(const IngestReport& report, const std::vector<const GpuSpec*>& gpus, const Args& args, const Env& env) {
    const Format format = parse_format(args.get("--format"));
    const std::vector<double> top_values = parse_values(args.get("--top"), "--top", ValueKind::whole);
    if (top_values.size() != 1)
        throw InputError("--top", "takes one whole number (0: all), not a range or list");
    const auto top = static_cast<std::size_t>(top_values.front());
    (void)checked_plot_path(args);  // a bad --plot path fails before anything is printed
    IngestView view;
    view.top = top;
    view.section = args.get("--section");
    view.header = !args.flag("--no-header");
    if (!view.section.empty() && format != Format::csv && format != Format::jsonl && format != Format::md)
        throw InputError("--section", "selects one table for --format csv, jsonl or md");
    if (!view.header && format != Format::csv && format != Format::md)
        throw InputError("--no-header", "applies to --format csv or md");
    print_ingest(report, format, env.out, view);
    // --top limits the plotted records as it limits the printed ones.
    const std::vector<Record> plotted(
        report.records.begin(),
        report.records.begin() +
            static_cast<std::ptrdiff_t>(top > 0 ? std::min(top, report.records.size()) : report.records.size()));
    PlotOptions po;
    po.title = report.tool + ": " + std::filesystem::path(report.file).filename().string();
    po.fit = reported_fit(report);
    write_plot_if_asked(args, plotted, gpus, po);
    return 0;
}

int emit_ingest_with_baseline(IngestReport& report, const std::vector<std::string>& lines, Section section, std::size_t regressed,
                              const std::vector<const GpuSpec*>& gpus, const Args& args, const Env& env) {
    report.summary.lines.insert(report.summary.lines.begin(), lines.begin(), lines.end());
    report.sections.insert(report.sections.begin(), std::move(section));
    const int rc = emit_ingest(report, gpus, args, env);
    return rc == 0 && regressed > 0 ? kExitRegressed : rc;
}

}  // namespace bwacct::cli
