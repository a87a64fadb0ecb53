#include "op_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/finite_guard.h"
#include "bwacct/projection.h"
#include "bwacct/report.h"
#include "bwacct/suggest.h"
#include "calibration.h"
#include "mpi_context.h"
#include "plot_option.h"
#include "progress.h"

namespace bwacct::cli {
namespace {

const std::string kTimeOption = "--time-us";
constexpr int kMaxSamplesLimit = 1'000'000;

std::size_t axis_index(const std::vector<Axis>& axes, const std::string& option) {
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (axes[i].option == option)
            return i;
    throw std::logic_error("no axis " + option);
}

// Visits every combination of axis values, the last axis fastest; with `zip`, the i-th value of
// every list together (single values repeat), one point per list position.
template <typename F>
void for_each_point(const std::vector<Axis>& axes, const std::vector<std::vector<double>>& values, bool zip, F&& f) {
    std::vector<double> v(axes.size());
    if (zip) {
        std::size_t n = 1;
        for (const auto& list : values)
            n = std::max(n, list.size());
        for (std::size_t k = 0; k < n; ++k) {
            for (std::size_t i = 0; i < axes.size(); ++i)
                v[i] = values[i].size() == 1 ? values[i].front() : values[i][k];
            f(Point(axes, v));
        }
        return;
    }
    std::vector<std::size_t> idx(axes.size(), 0);
    while (true) {
        for (std::size_t i = 0; i < axes.size(); ++i)
            v[i] = values[i][idx[i]];
        f(Point(axes, v));
        std::size_t i = axes.size();
        while (i > 0) {
            --i;
            if (++idx[i] < values[i].size())
                break;
            idx[i] = 0;
            if (i == 0)
                return;
        }
        if (axes.empty())
            return;
    }
}

// --zip: every list (an option with more than one value) has the same length; the point count is it.
std::uint64_t zipped_points(const std::vector<Axis>& axes, const std::vector<std::vector<double>>& values) {
    std::size_t n = 1;
    std::string first;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (values[i].size() <= 1)
            continue;
        if (first.empty()) {
            first = axes[i].option;
            n = values[i].size();
        } else if (values[i].size() != n) {
            throw InputError("--zip", fmt::format("pairs lists of equal length; {} has {} values and {} has {}", first, n,
                                                  axes[i].option, values[i].size()));
        }
    }
    return n;
}

Evaluated evaluate_checked(const OpPlan& plan, const Point& p) {
    try {
        return plan.evaluate(p);
    } catch (const OverflowError&) {
        throw InputError(plan.size_options, "the FLOP or byte count of this shape overflows 64 bits; use smaller sizes");
    }
}

}  // namespace

std::string Axis::param_name() const {
    if (!param.empty())
        return param;
    std::string name = option.substr(2);
    for (char& c : name)
        if (c == '-')
            c = '_';
    return name;
}

std::uint64_t Point::count(const std::string& option) const {
    return static_cast<std::uint64_t>(values_[axis_index(*axes_, option)]);
}
double Point::real(const std::string& option) const { return values_[axis_index(*axes_, option)]; }

DType dtype_option(const Args& args, const std::string& option) { return parse_dtype(args.get(option), option); }

std::optional<double> single_real(const Args& args, const std::string& option) {
    const std::string& text = args.get(option);
    if (text.empty())
        return std::nullopt;
    const auto v = parse_values(text, option, ValueKind::real);
    if (v.size() != 1)
        throw InputError(option, "takes one value, not a range or list");
    return v.front();
}

std::optional<double> launch_us_option(const Args& args) {
    const std::string& text = args.get("--launch-us");
    // Zero is a value, not a missing one: the dispatch roof is switched off. Only a plain zero ("0",
    // "0.0"); every other value goes through the positive-real parser and its messages.
    if (!text.empty() && text.find_first_not_of("0.") == std::string::npos && text.find_first_of('0') != std::string::npos &&
        std::count(text.begin(), text.end(), '.') <= 1) {
        note_real_option("--launch-us", text);
        return 0.0;
    }
    return single_real(args, "--launch-us");
}

std::vector<OptionSpec> measure_options() {
    return {
        {"--measure", "run the op on this machine's GPU and analyze the measured time", "", true},
        {"--hot", "with --measure: leave L2 warm between samples (default: flush L2 when the data would fit)", "", true},
        {"--max-samples", "with --measure: most timed samples (sampling stops earlier once the spread is below 1 %)", "200"},
    };
}

measure::SamplePolicy sample_policy(const Args& args) {
    measure::SamplePolicy p;
    p.cold = !(args.declared("--hot") && args.flag("--hot"));
    // The sampler counts in int and keeps every sample: at most a million (8 MB of samples), far
    // above the 200 default and below where an int cast or the sample vector could go wrong.
    p.max_samples = parse_int_in<int>(args.get("--max-samples"), "--max-samples", ValueKind::count, 1, kMaxSamplesLimit);
    p.min_samples = std::min(p.min_samples, p.max_samples);
    return p;
}

namespace {

// The measurement side of run_op: the backend, its device and the catalog entry that matches it.
struct Measuring {
    std::unique_ptr<measure::Backend> backend;
    Measurement base;  // backend, device, catalog match
    measure::SamplePolicy policy;
};

std::optional<Measuring> open_measuring(const OpPlan& plan, const Args& args, const Catalog& catalog) {
    const bool wanted = args.given("--measure") && args.flag("--measure");
    if (!wanted)
        return std::nullopt;
    if (!plan.measure)
        throw measure::MeasureError("this op cannot be measured by bwacct yet; time it elsewhere and pass --time-us");
    if (!args.get(kTimeOption).empty())
        throw InputError("--time-us", "give either --measure or --time-us, not both");
    Measuring m;
    m.policy = sample_policy(args);
    m.backend = measure::open_backend();
    m.base.backend = m.backend->name();
    m.base.device = m.backend->device();
    if (const GpuSpec* g = catalog.match(m.base.device.name))
        m.base.catalog_match = g->id;
    m.base.ranks = measure::MpiContext::instance().size();
    std::string warning;
    m.base.achievable = measure::load_calibration(measure::calibration_path(""), m.base.device.uuid, warning);
    if (!warning.empty())
        fmt::print(stderr, "bwacct: {}\n", warning);
    return m;
}

// Under MPI every rank measured; report the average of the ranks' medians (nccl-tests' default),
// with the spread across ranks in a note.
void reduce_across_ranks(Timing& t) {
    const auto& mpi = measure::MpiContext::instance();
    if (!mpi.active())
        return;
    const double median = t.stats.median_us;
    const double lo = mpi.allreduce_min(median), hi = mpi.allreduce_max(median);
    t.stats.median_us = mpi.allreduce_sum(median) / mpi.size();
    t.notes.push_back(fmt::format("median over {} ranks: average {:.3f} µs (reported), min {:.3f}, max {:.3f}", mpi.size(),
                                  t.stats.median_us, lo, hi));
}

// Measures on this rank; when any rank fails, every rank fails with a message (none is left waiting
// in a collective or a reduction).
Timing measure_on_every_rank(const OpPlan& plan, Measuring& m, const Point& p) {
    const auto& mpi = measure::MpiContext::instance();
    std::optional<Timing> t;
    std::string error;
    try {
        t = plan.measure(*m.backend, p, m.policy);
    } catch (const measure::MeasureError& e) {
        error = e.what();
    }
    if (mpi.any(!t.has_value()))
        throw measure::MeasureError(!error.empty() ? error : "another MPI rank failed to measure; see its message");
    return *t;
}

// "gemm: k=5120, n=5120, dtype=bf16": the op and what every record shares.
std::string plot_title(const OpPlan& plan, const std::vector<Axis>& axes, const std::vector<std::vector<double>>& values,
                       const std::vector<Record>& records) {
    std::string title = records.empty() ? std::string("bwacct") : records.front().cost.op;
    std::string shared;
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (values[i].size() == 1)
            shared += fmt::format("{}{}={:g}", shared.empty() ? "" : ", ", axes[i].param_name(), values[i].front());
    for (const Param& p : plan.fixed) {
        if (const auto* s = std::get_if<std::string>(&p.value))
            shared += fmt::format("{}{}={}", shared.empty() ? "" : ", ", p.name, *s);
        else if (const auto* b = std::get_if<bool>(&p.value); b && *b)
            shared += fmt::format("{}{}", shared.empty() ? "" : ", ", p.name);
    }
    return shared.empty() ? title : fmt::format("{}: {}", title, shared);
}

}  // namespace

int run_op(const OpPlan& plan, const Args& args, const Env& env) {
    const Format format = parse_format(args.get("--format"));
    SinkOptions sink_opt;
    sink_opt.explain = args.flag("--explain");
    sink_opt.color = env.tty && format == Format::table;
    sink_opt.header = !(args.declared("--no-header") && args.flag("--no-header"));
    if (!sink_opt.header && format != Format::csv && format != Format::md)
        throw InputError("--no-header", "applies to --format csv or md");

    std::vector<Axis> axes = plan.axes;
    const bool timed = !args.get(kTimeOption).empty();
    if (timed)
        axes.push_back({kTimeOption, ValueKind::real});
    const bool zip = args.declared("--zip") && args.flag("--zip");
    std::vector<std::vector<double>> values;
    std::uint64_t points = 1;
    for (const Axis& a : axes) {
        std::string text = args.get(a.option);
        if (text.empty() && plan.defaults.count(a.option) > 0)
            text = plan.defaults.at(a.option);
        if (text.empty())
            throw InputError(a.option, "is required");
        values.push_back(parse_values(text, a.option, a.kind));
        points = zip ? std::max<std::uint64_t>(points, values.back().size()) : points * values.back().size();
        if (points > kMaxSweepPoints)
            throw InputError(a.option, fmt::format("the sweep has more than {} points; narrow a range", kMaxSweepPoints));
    }
    if (zip)
        points = zipped_points(axes, values);
    // --plot keeps every record until the sink is done: bounded, and checked before anything is printed.
    const std::string plot_path = checked_plot_path(args);
    if (!plot_path.empty() && points > kMaxPlotRecords)
        throw InputError("--plot", fmt::format("draws at most {} points and this sweep has {}; narrow a range or drop --plot",
                                               kMaxPlotRecords, points));
    AnalysisOptions analysis = plan.analysis;
    analysis.launch_us = launch_us_option(args);
    analysis.explain = sink_opt.explain;

    const Catalog catalog = catalog_for(args);
    std::vector<const GpuSpec*> gpus = catalog.select(args.get("--gpu"), "--gpu");
    if (equal_ignoring_case(args.get("--gpu"), "all")) {
        // "all" is every catalog GPU that has the compute peak the op needs (V100 and T4 have no bf16 tensor
        // path, A100 none for fp8): one GPU without it no longer stops the run. Naming a GPU keeps the refusal.
        std::vector<Cost> needs;  // one cost per (unit, dtype) the sweep computes in
        for_each_point(axes, values, zip, [&](const Point& p) {
            const Cost c = evaluate_checked(plan, p).cost;
            if (c.flops > 0 && std::none_of(needs.begin(), needs.end(), [&](const Cost& n) {
                    return n.unit == c.unit && n.compute_dtype == c.compute_dtype;
                }))
                needs.push_back(c);
        });
        std::erase_if(gpus, [&](const GpuSpec* g) {
            return std::any_of(needs.begin(), needs.end(), [&](const Cost& n) { return compute_peak(n, *g) == nullptr; });
        });
        if (gpus.empty())
            throw InputError("--gpu", "no catalog GPU has the compute peak this op needs; choose another --dtype");
    }
    std::optional<Measuring> measuring = open_measuring(plan, args, catalog);
    if (measuring && !measuring->base.catalog_match.empty()) {
        // Utilization against this GPU's own catalog entry too, not only the selected ones.
        const GpuSpec* self = &catalog.get(measuring->base.catalog_match, "--gpu");
        if (std::find(gpus.begin(), gpus.end(), self) == gpus.end())
            gpus.push_back(self);
    }
    // The GPU the time belongs to: the measured one, else --time-gpu, else the first.
    std::size_t time_gpu = 0;
    const std::string time_gpu_arg = args.declared("--time-gpu") ? args.get("--time-gpu") : std::string();
    if (!time_gpu_arg.empty()) {
        if (!timed)
            throw InputError("--time-gpu", "names the GPU of --time-us; give --time-us too");
        const GpuSpec* named = &catalog.get(time_gpu_arg, "--time-gpu");
        const auto it = std::find(gpus.begin(), gpus.end(), named);
        if (it == gpus.end())
            throw InputError("--time-gpu", fmt::format("'{}' is not one of the --gpu list; name one of them", time_gpu_arg));
        time_gpu = static_cast<std::size_t>(it - gpus.begin());
    }
    if (measuring && !measuring->base.catalog_match.empty())
        time_gpu = static_cast<std::size_t>(
            std::find(gpus.begin(), gpus.end(), &catalog.get(measuring->base.catalog_match, "--gpu")) - gpus.begin());
    // Under MPI only rank 0 prints; the other ranks measure and take part in the reductions.
    std::FILE* out = env.out;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> devnull(nullptr, &std::fclose);
    if (measure::MpiContext::instance().rank() != 0) {
        devnull.reset(std::fopen("/dev/null", "w"));
        out = devnull.get();
    }

    // One point's record: parameters, cost, and a verdict per GPU (at the given time, else modelled).
    auto build_record = [&](const Point& p, Evaluated e, std::optional<double> time_us) {
        Record r;
        for (std::size_t i = 0; i < plan.axes.size(); ++i) {
            const Axis& a = plan.axes[i];
            if (a.kind == ValueKind::real)
                r.params.push_back({a.param_name(), p.values()[i]});
            else
                r.params.push_back({a.param_name(), static_cast<std::uint64_t>(p.values()[i])});
        }
        for (const Param& f : plan.fixed)
            r.params.push_back(f);
        for (Param& q : e.params)
            r.params.push_back(std::move(q));
        AnalysisOptions ao = analysis;
        if (timed) {
            ao.time_us = p.real(kTimeOption);
            r.source = TimeSource::given;
        }
        if (time_us)
            ao.time_us = time_us;
        r.cost = std::move(e.cost);
        r.verdicts = analyze_anchored(r.cost, gpus, time_gpu, ao);
        if (e.fused) {
            FusionResult fr;
            fr.fused = std::move(*e.fused);
            AnalysisOptions modelled = analysis;  // the fused kernel has not run: always modelled
            for (const GpuSpec* g : gpus)
                fr.verdicts.push_back(analyze(fr.fused, *g, modelled));
            r.fusion = std::move(fr);
        }
        return r;
    };

    // Validate every point before printing anything, so bad input never leaves partial output: every
    // figure of every record must be finite (bwacct/finite_guard.h), else it is bad input (exit 2).
    for_each_point(axes, values, zip,
                   [&](const Point& p) { require_finite(build_record(p, evaluate_checked(plan, p), {}), sink_opt.explain); });

    sink_opt.sweep = points > 1;
    auto sink = make_sink(format, out, sink_opt);
    std::vector<Record> kept;
    // Measured sweeps take a while: a progress line on stderr when it is a terminal.
    Progress progress("measuring", points,
                      measuring.has_value() && measure::MpiContext::instance().rank() == 0 && progress_wanted());
    for_each_point(axes, values, zip, [&](const Point& p) {
        if (measuring) {
            progress.step();
            Measurement m = measuring->base;
            m.timing = measure_on_every_rank(plan, *measuring, p);
            reduce_across_ranks(m.timing);
            Record r = build_record(p, evaluate_checked(plan, p), m.timing.stats.median_us);
            r.source = m.timing.source;
            r.measurement = std::move(m);
            // Measured sweeps hold every record until the last point has run: a point that fails later
            // (out of memory, a CUDA error) then leaves no partial output.
            kept.push_back(std::move(r));
            return;
        }
        // Model sweeps stream.
        Record r = build_record(p, evaluate_checked(plan, p), {});
        sink->emit(r);
        if (!plot_path.empty())
            kept.push_back(std::move(r));
    });
    progress.done();
    if (measuring)
        for (const Record& r : kept)
            require_finite(r, sink_opt.explain);
    if (measuring)
        for (const Record& r : kept)
            sink->emit(r);
    sink->finish();
    if (!plot_path.empty() && measure::MpiContext::instance().rank() == 0) {
        PlotOptions po;
        po.title = plot_title(plan, axes, values, kept);
        if (measuring && measuring->base.achievable)
            po.achievable.push_back(*measuring->base.achievable);
        write_plot_if_asked(args, kept, gpus, po);
    }
    return 0;
}

}  // namespace bwacct::cli
