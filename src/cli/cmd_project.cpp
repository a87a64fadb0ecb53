// project (seed 000's anchor observation) and fit (seed 000's "measure the scaling slope first").
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "bwacct/catalog.h"
#include "bwacct/choice.h"
#include "bwacct/error.h"
#include "bwacct/fit.h"
#include "bwacct/projection.h"
#include "bwacct/projection_report.h"
#include "bwacct/values.h"
#include "command.h"

namespace bwacct::cli {
namespace {

constexpr std::array<Choice<Roof>, 4> kBounds{
    {{"hbm", Roof::hbm}, {"compute", Roof::compute}, {"link", Roof::link}, {"dispatch", Roof::dispatch}}};
constexpr std::array<Choice<Unit>, 2> kUnits{{{"tensor", Unit::tensor}, {"vector", Unit::vector}}};
constexpr std::array<Choice<LinkChoice>, 3> kLinks{
    {{"auto", LinkChoice::automatic}, {"nvlink", LinkChoice::scaleup}, {"pcie", LinkChoice::pcie}}};

// "20fps", "1500 tokens/s", "3.5": one positive decimal number (the values parser's rules: no hex, inf,
// nan, sign or list) and an optional unit of letters with '/', '_', '-', '%' or single spaces (default
// "/s"). Anything else ("5fps,6fps", "0x10 tok/s", "20 fps!") is refused.
std::pair<double, std::string> parse_rate(const std::string& text) {
    const auto bad_rate = [&](std::string_view why) {
        return InputError("--rate", fmt::format("{}; expected one positive decimal number with an optional unit of letters "
                                                "(e.g. 20fps, '1500 tokens/s', 3.2it/s); got '{}'",
                                                why, text));
    };
    std::size_t i = 0;
    while (i < text.size() && text[i] == ' ')
        ++i;
    const std::size_t start = i;
    const auto digits = [&] {
        const std::size_t from = i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
            ++i;
        return i > from;
    };
    bool any = digits();
    if (i < text.size() && text[i] == '.') {
        ++i;
        any = digits() || any;
    }
    if (!any)
        throw bad_rate("no number");
    // An exponent only when digits follow it: "2e3/s" is 2000 per second, "2em" is 2 of unit "em".
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < text.size() && (text[j] == '+' || text[j] == '-'))
            ++j;
        if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
            i = j;
            digits();
        }
    }
    const std::string number = text.substr(start, i - start);
    std::string unit = text.substr(i);
    while (!unit.empty() && unit.front() == ' ')
        unit.erase(unit.begin());
    while (!unit.empty() && unit.back() == ' ')
        unit.pop_back();
    if (unit.size() > 32)
        throw bad_rate("the unit is longer than 32 characters");
    for (std::size_t k = 0; k < unit.size(); ++k) {
        const char c = unit[k];
        const bool ok = std::isalpha(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' || c == '%' ||
                        (c == ' ' && unit[k - 1] != ' ');
        if (!ok)
            throw bad_rate(fmt::format("'{}' cannot be part of a unit", c));
    }
    if (!unit.empty() && !std::isalpha(static_cast<unsigned char>(unit[0])) && unit[0] != '/' && unit[0] != '%')
        throw bad_rate("a unit starts with a letter or '/'");
    const double v = parse_values(number, "--rate", ValueKind::real).front();
    return {v, unit.empty() ? "/s" : unit};
}

int run_project(const Args& args, const Env& env) {
    const Format format = parse_format(args.get("--format"));
    require_table_or_json(format);
    ProjectionRequest req;
    req.bound = parse_choice(args.get("--bound"), "--bound", "bound", kBounds);
    req.dtype = parse_dtype(args.get("--dtype"), "--dtype");
    req.unit = parse_choice(args.get("--unit"), "--unit", "unit", kUnits);
    req.link = parse_choice(args.get("--link"), "--link", "link", kLinks);

    const bool fps = !args.get("--fps").empty(), rate = !args.get("--rate").empty(), time = !args.get("--time-us").empty();
    if (int(fps) + int(rate) + int(time) != 1)
        throw InputError(fps || rate || time ? (fps ? "--fps" : "--rate") : "--fps",
                         "give exactly one of --fps N, --rate 'N unit' or --time-us N");
    std::vector<double> values;
    std::string rate_unit = "fps", value_option = "--fps";
    if (fps) {
        values = parse_values(args.get("--fps"), "--fps", ValueKind::real);
    } else if (rate) {
        const auto [v, unit] = parse_rate(args.get("--rate"));
        values = {v};
        rate_unit = unit;
        value_option = "--rate";
    } else {
        values = parse_values(args.get("--time-us"), "--time-us", ValueKind::real);
        req.quantity = Quantity::time;
        value_option = "--time-us";
    }
    if (args.get("--from").empty())
        throw InputError("--from", "is required: the catalog id of the GPU the value was measured on (e.g. h200)");
    if (args.get("--to").empty())
        throw InputError("--to", "is required: catalog ids to project to (e.g. b200 or b200,b300, or 'all')");
    const Catalog catalog = catalog_for(args);
    const GpuSpec& from = catalog.get(args.get("--from"), "--from");
    const std::vector<const GpuSpec*> to = catalog.select(args.get("--to"), "--to");

    std::vector<Projection> out;  // every projection is made before anything is printed
    for (const GpuSpec* g : to)
        for (double v : values) {
            req.value = v;
            out.push_back(project(from, *g, req, value_option));
        }
    print_projections(out, rate_unit, format, env.out);
    return 0;
}

int run_fit(const Args& args, const Env& env) {
    const Format format = parse_format(args.get("--format"));
    require_table_or_json(format);
    std::optional<FitPeak> peak;
    if (!args.get("--gpu").empty()) {
        const Catalog catalog = catalog_for(args);
        const GpuSpec& g = catalog.get(args.get("--gpu"), "--gpu");
        peak = FitPeak{g.id, g.hbm_bw_GBps.value};
    }
    const FitData data = read_fit_input(args.get("file"), args.get("--x"), args.get("--y"));
    const FitResult fit = fit_scaling(data.points, data.x_is_bytes, data.path);
    print_fit(data, fit, peak, format, env.out);
    return 0;
}

}  // namespace

std::vector<CommandSpec> projection_commands() {
    CommandSpec project;
    project.name = "project";
    project.summary =
        "project a rate or time from one GPU to another by the ratio of the binding roof (hbm, compute, link; dispatch "
        "unchanged)";
    project.example =
        "bwacct project --from h200 --to b200 --fps 20 --bound hbm\n"
        "  bwacct project --from h100-sxm --to h200,b200 --time-us 850 --bound compute --dtype fp8\n"
        "  bwacct project --from h200 --to b200 --rate '1500 tokens/s' --format json";
    project.options = {
        {"--from", "catalog id of the GPU the value was measured on", ""},
        {"--to", "catalog ids to project to, comma-separated, or 'all'", ""},
        {"--fps", "frames per second on --from (a rate: grows with the roof)", ""},
        {"--rate", "any rate with its unit, e.g. '1500 tokens/s' or 3.2it/s", ""},
        {"--time-us", "a time on --from in µs (shrinks with the roof)", ""},
        {"--bound",
         "the roof that binds: hbm (memory bandwidth), compute (dense peak), link (per direction) or dispatch (unchanged)",
         "hbm"},
        {"--dtype", "with --bound compute: whose dense peak", "bf16"},
        {"--unit", "with --bound compute: tensor or vector peak", "tensor"},
        {"--link", "with --bound link: auto (scale-up link if the GPU has one, else PCIe), nvlink or pcie", "auto"},
        {"--gpu-file", "extra catalog JSON that adds or overrides entries", ""},
        {"--format", "table, json or jsonl", "table"},
    };
    project.run = run_project;

    CommandSpec fit;
    fit.name = "fit";
    fit.summary =
        "fit time vs size (CSV or a sweep's JSONL): fixed overhead, effective bandwidth, r², linear/sublinear/superlinear";
    fit.example =
        "bwacct fit times.csv                       # columns bytes,time_us\n"
        "  bwacct fit period.csv --x area --y period_ms\n"
        "  bwacct allreduce --bytes 1M:1G:x2 --measure --format jsonl > s.jsonl; bwacct fit s.jsonl --x size_bytes";
    fit.options = {
        {"file", "CSV with a header row, or a bwacct sweep (JSONL or a JSON array)", "", false, true},
        {"--x", "x column or key (default: the first of bytes, size_bytes, size, area, pixels, tokens, x)", ""},
        {"--y", "time column or key; a _ms, _ns or _s suffix is converted to µs (default: time_us, time_ms, ...)", ""},
        {"--gpu", "compare the effective bandwidth with this GPU's HBM peak", ""},
        {"--gpu-file", "extra catalog JSON that adds or overrides entries", ""},
        {"--format", "table, json or jsonl", "table"},
    };
    fit.run = run_fit;
    return {project, fit};
}

}  // namespace bwacct::cli
