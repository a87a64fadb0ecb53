// An nccl-tests log accounted for: re-derived bandwidths, records on the selected GPUs, the α–β fit.
// The formulas are in include/bwacct/ingest_nccl.h and docs/formulas.md ("nccl-tests logs").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "bwacct/alpha_beta.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "bwacct/ops.h"
#include "nccl_summary.h"

namespace bwacct {
namespace {

struct Interval {
    double lo = 0, hi = 0;
};

// The printed value, widened by its own rounding (and a hair for double arithmetic), meets [lo, hi].
bool printed_within(const PrintedNumber& p, Interval iv) {
    const double w = printed_half_unit(p) + 1e-9 * std::max(1.0, std::abs(p.value));
    return p.value >= iv.lo - w && p.value <= iv.hi + w;
}

// nccl-tests' type names → the engine's dtypes (the element size only matters for whole elements).
DType nccl_dtype(const std::string& type) {
    if (type == "half" || type == "float16")
        return DType::fp16;
    if (type == "bfloat16")
        return DType::bf16;
    if (type == "double" || type == "float64")
        return DType::fp64;
    if (type == "int8" || type == "uint8" || type == "char")
        return DType::int8;
    if (type == "f8e4m3")
        return DType::fp8_e4m3;
    if (type == "f8e5m2")
        return DType::fp8_e5m2;
    return DType::fp32;  // float, int32, uint32 (4 B); int64/uint64 are 8 B but sizes stay exact: S is bytes
}

struct Check {
    bool derivable = true;  // false: the printed time's interval reaches 0 (time 0.00), size/time is unbounded
    bool ok = true;
    double algbw = 0, busbw = 0;  // re-derived from the printed time
};

Check check_result(std::uint64_t size, const NcclResult& r, double factor) {
    Check c;
    if (size == 0) {  // nothing moved: nccl-tests prints 0 whatever the time
        c.ok = r.algbw_GBps.value == 0 && r.busbw_GBps.value == 0;
        return c;
    }
    const double s = static_cast<double>(size);
    const double h = printed_half_unit(r.time_us);
    const double t = r.time_us.value;
    if (!(t - h > 0)) {  // time printed as 0.00 (or negative): [t − h, t + h) holds 0, size/time has no bound
        c.derivable = false;
        c.ok = false;
        return c;
    }
    c.algbw = s / t / 1e3;
    c.busbw = c.algbw * factor;
    const Interval a{s / (t + h) / 1e3, s / (t - h) / 1e3};
    c.ok = printed_within(r.algbw_GBps, a) && printed_within(r.busbw_GBps, {a.lo * factor, a.hi * factor});
    return c;
}

}  // namespace

double printed_half_unit(const PrintedNumber& p) { return 0.5 * std::pow(10.0, -p.decimals); }

namespace {
std::vector<std::string> gpu_ids(const std::vector<const GpuSpec*>& gpus) {
    std::vector<std::string> ids;
    for (const GpuSpec* g : gpus)
        ids.push_back(g->id);
    return ids;
}
}  // namespace

namespace {

// One run accounted for: its sections, notes and records (appended to `records`).
struct RunResult {
    std::vector<Section> sections;
    std::vector<std::string> notes;
    std::uint64_t ranks = 0;
};

// "2 hosts", or "at least 2 hosts (...)" when the log lists fewer rank lines than the run has ranks (an elided list
// names only some of its hosts).
std::string hosts_text(std::size_t hosts, std::size_t listed_ranks, std::uint64_t ranks) {
    return listed_ranks < ranks ? fmt::format("at least {} hosts (the log lists {} of its {} ranks)", hosts, listed_ranks, ranks)
                                : fmt::format("{} hosts", hosts);
}

RunResult account_run(const NcclRun& log, std::size_t run_index, bool several, const std::string& file, CollectiveKind kind,
                      const std::string& kind_from, const NcclAccountingInput& in, const std::vector<const GpuSpec*>& gpus,
                      IngestReport& rep, std::vector<std::pair<std::string, Cell>>& fields) {
    RunResult out;
    const std::string warn_prefix = several ? fmt::format("run {}: ", run_index + 1) : std::string();
    out.notes.push_back(fmt::format("collective: {} ({})", collective_name(kind), kind_from));
    const NcclRanks rk = resolve_nccl_ranks(log, kind, in.ranks, file);
    const std::uint64_t ranks = rk.n;
    out.ranks = ranks;
    out.notes.push_back(fmt::format("ranks: {}", rk.why));
    for (const std::string& n : rk.notes)
        out.notes.push_back(n);
    fields.push_back({"collective", std::string(collective_name(kind))});
    fields.push_back({"collective_from", kind_from});
    fields.push_back({"ranks", ranks});
    fields.push_back({"ranks_from", rk.from});
    if (rk.rank_lines)
        fields.push_back({"rank_lines", *rk.rank_lines});
    if (rk.highest_rank_plus_one)
        fields.push_back({"highest_rank", *rk.highest_rank_plus_one - 1});
    if (rk.per_process)
        fields.push_back({"header_ranks_per_process", *rk.per_process});
    if (rk.header_total)
        fields.push_back({"header_ranks", *rk.header_total});
    if (rk.ratio_min)
        fields.push_back({"ratio_ranks_min", *rk.ratio_min});
    if (rk.ratio_max)
        fields.push_back({"ratio_ranks_max", *rk.ratio_max});
    const double factor = bus_factor(kind, ranks);
    if (ranks < 2)
        out.notes.push_back(
            fmt::format("{} rank: nothing crosses a link, so no records are costed (a collective's cost needs "
                        "at least 2 ranks); its rows are re-derived with nccl-tests' factor {:.4g}",
                        ranks, factor));
    if (log.hosts.size() > 1 && log.processes_per_rank_id == 1)
        out.notes.push_back(
            fmt::format("the ranks span {}: traffic between hosts crosses the network (its NIC bandwidth "
                        "per GPU is not in the catalog), so % of link below compares with the scale-up link "
                        "inside one host only",
                        hosts_text(log.hosts.size(), log.ranks.size(), ranks)));

    const std::size_t first_record = rep.records.size();
    Section rows;
    rows.key = "rows";
    rows.title = fmt::format("results re-derived: algbw = size / time, busbw = algbw × {:.4g} ({} over {} ranks)", factor,
                             collective_name(kind), ranks);
    rows.columns = {{"size_bytes", "size B", 0},
                    {"placement", "placement", 0},
                    {"time_us", "time µs", 2},
                    {"algbw_GBps", "algbw (log)", 2},
                    {"busbw_GBps", "busbw (log)", 2},
                    {"algbw_rederived_GBps", "algbw (re-derived)", 3},
                    {"busbw_rederived_GBps", "busbw (re-derived)", 3},
                    {"matches_log", "matches log", 0},
                    {"wrong", "#wrong", 0},
                    {"regime", "regime", 0}};
    // nccl-tests -C 1: the time is size / algbw (the GPU time), and the printed host launch-loop time is its own column.
    const bool cputime_run = std::any_of(log.rows.begin(), log.rows.end(), [](const NcclRow& row) {
        return (row.out_of_place && row.out_of_place->cputime_us) || (row.in_place && row.in_place->cputime_us);
    });
    if (cputime_run) {
        rows.columns[2] = {"time_us", "time µs (size/algbw)", 2};
        rows.columns.insert(rows.columns.begin() + 3, {"cputime_us", "cputime µs (-C 1, host)", 2});
    }

    std::vector<AlphaBetaPoint> fit_points;
    std::size_t max_error_rows = 0;
    std::size_t mismatched = 0, wrong_rows = 0, skipped = 0, printed_results = 0, underivable = 0, cputime_underivable = 0;
    double busbw_sum = 0;
    struct Pending {
        std::size_t row;  // index into rows.rows, for the regime filled after the fit
        std::uint64_t size;
        bool fitted;  // of the sweep the fit is over
    };
    std::vector<Pending> pending;
    // -d all, -o all, -r all: one run sweeps the sizes once per data type, operation and root, and each
    // sweep has its own cost per byte (int8 and f8 reductions are slower than float's). The α–β line is
    // fitted over the run's first sweep only; a fit across them would mix costs.
    const auto same_sweep = [&](const NcclRow& a, const NcclRow& b) {
        return a.type == b.type && a.redop == b.redop && a.root == b.root;
    };
    std::vector<const NcclRow*> sweeps;  // the first row of each sweep
    for (const NcclRow& row : log.rows)
        if (std::none_of(sweeps.begin(), sweeps.end(), [&](const NcclRow* f) { return same_sweep(*f, row); }))
            sweeps.push_back(&row);
    for (const NcclRow& row : log.rows) {
        const bool fitted = sweeps.empty() || same_sweep(*sweeps.front(), row);
        const std::pair<const char*, const std::optional<NcclResult>*> results[] = {{"out-of-place", &row.out_of_place},
                                                                                    {"in-place", &row.in_place}};
        for (const auto& [placement, result] : results) {
            if (!*result)
                continue;
            const NcclResult& r = **result;
            const Check c = check_result(row.size, r, factor);
            ++printed_results;
            busbw_sum += r.busbw_GBps.value;
            if (!c.derivable && r.cputime_us)
                ++cputime_underivable;
            else if (!c.derivable)
                ++underivable;
            else if (!c.ok)
                ++mismatched;
            if (r.wrong && *r.wrong > 0 && !r.max_error)
                ++wrong_rows;
            max_error_rows += r.max_error ? 1 : 0;
            pending.push_back({rows.rows.size(), row.size, fitted});
            rows.rows.push_back({row.size, std::string(placement), r.time_us.value, r.algbw_GBps.value, r.busbw_GBps.value,
                                 c.derivable ? Cell(c.algbw) : Cell(), c.derivable ? Cell(c.busbw) : Cell(),
                                 std::string(!c.derivable ? "not re-derivable"
                                             : c.ok       ? "yes"
                                                          : "NO"),
                                 r.wrong ? Cell(*r.wrong) : Cell(std::string("N/A")), Cell()});
            if (cputime_run)
                rows.rows.back().insert(rows.rows.back().begin() + 3, r.cputime_us ? Cell(r.cputime_us->value) : Cell());
            if (row.size == 0 || !c.derivable)
                continue;
            const bool out_of_place = std::string_view(placement) == "out-of-place";
            if ((out_of_place || !row.out_of_place) && fitted)
                fit_points.push_back({static_cast<double>(row.size), r.time_us.value});
            if (ranks < 2)
                continue;
            CollectiveDesc d;
            d.kind = kind;
            d.ranks = ranks;
            d.size_bytes = row.size;
            d.dtype = nccl_dtype(row.type);
            d.in_place = !out_of_place;
            std::vector<Param> params{
                {"size", row.size}, {"count", row.count}, {"type", row.type}, {"placement", std::string(placement)}};
            if (!row.redop.empty())
                params.push_back({"redop", row.redop});
            if (row.line > 0)
                params.push_back({"line", static_cast<std::uint64_t>(row.line)});
            if (r.cputime_us)
                params.push_back({"cputime_us", r.cputime_us->value});
            if (several)
                params.push_back({"run", static_cast<std::uint64_t>(run_index + 1)});
            try {
                rep.records.push_back(ingested_record(std::move(params), collective_cost(d), r.time_us.value, gpus));
            } catch (const InputError& e) {
                ++skipped;  // e.g. a size that is not a whole number of elements per rank
                if (skipped <= 3)
                    rep.warnings.push_back(fmt::format("{}size {} not costed: {}", warn_prefix, row.size, e.what()));
            }
        }
    }
    const std::size_t derived = printed_results - underivable - cputime_underivable;
    rows.notes.push_back(mismatched == 0
                             ? fmt::format("all {} re-derived results match the log to its printed precision", derived)
                             : fmt::format("{} of {} re-derived results do NOT match the log (rows marked NO): the log's rank "
                                           "count or collective may differ from what was assumed, or the log was edited",
                                           mismatched, derived));
    if (underivable > 0)
        rows.notes.push_back(fmt::format(
            "{} result(s) not re-derived (marked \"not re-derivable\"): the time is printed as 0 to the log's precision, "
            "so its rounding interval reaches 0 µs and size / time has no finite value; left out of the check, the α–β fit "
            "and the records",
            underivable));
    if (cputime_run)
        rows.notes.push_back(fmt::format(
            "the log prints nccl-tests -C 1's cputime (the host's launch loop), not the GPU time its algbw is from: each "
            "time is size / algbw, the printed cputime is shown apart{}",
            cputime_underivable > 0 ? fmt::format("; {} result(s) with algbw printed as 0 have no GPU time and are left out "
                                                  "of the check, the α–β fit and the records",
                                                  cputime_underivable)
                                    : std::string()));
    if (max_error_rows > 0)
        rows.notes.push_back(
            "the log's \"error\" column (older nccl-tests: the largest deviation from the expected result, not a count "
            "of wrong elements) is shown under #wrong as printed and not judged");
    if (wrong_rows > 0)
        rows.notes.push_back(
            fmt::format("{} results report wrong elements (#wrong > 0): nccl-tests found corrupted data; "
                        "their bandwidth is not valid",
                        wrong_rows));

    // The α–β fit and each row's regime.
    std::vector<double> sizes;
    for (const AlphaBetaPoint& p : fit_points)
        sizes.push_back(p.bytes);
    std::sort(sizes.begin(), sizes.end());
    const bool can_fit = sizes.size() >= 2 && sizes.front() != sizes.back();
    Section fit;
    fit.key = "alpha_beta";
    fit.title = "α–β fit t = α + size/β (relative least squares over the out-of-place times)";
    fit.columns = {{"points", "points", 0},
                   {"alpha_us", "α µs", 2},
                   {"beta_algbw_GBps", "β (algbw) GB/s", 1},
                   {"beta_busbw_GBps", "β × factor (busbw) GB/s", 1},
                   {"half_bytes", "n½ = α·β B", 0},
                   {"max_rel_error", "max |error| / t", 3}};
    if (can_fit) {
        const AlphaBetaFit f = fit_alpha_beta(fit_points);
        // Without a bandwidth term there is no β and no n½: no row (it printed β 0.0 GB/s and n½ 0), the note says why.
        if (f.us_per_byte > 0)
            fit.rows.push_back(
                {static_cast<std::uint64_t>(f.n), f.alpha_us, f.beta_GBps, f.beta_GBps * factor, f.half_bytes, f.max_rel_error});
        if (f.us_per_byte > 0) {
            for (const Pending& p : pending)
                if (p.size > 0 && p.fitted)
                    rows.rows[p.row].back() = std::string(static_cast<double>(p.size) < f.half_bytes ? "latency" : "bandwidth");
            const auto first_bw = std::find_if(sizes.begin(), sizes.end(), [&](double s) { return s >= f.half_bytes; });
            // A negative α (two sizes whose times are proportional to within their rounding: 36956 and
            // 73913 µs for 8 and 16 GiB give α = 2·36956 − 73913 = −1 µs) has no latency regime to leave:
            // n½ = α·β < 0 is no size, so no sentence about where the curve leaves it.
            if (f.alpha_us < 0)
                fit.notes.push_back(
                    fmt::format("α came out negative ({:.2f} µs): the sizes logged show no fixed cost, so "
                                "there is no latency regime (n½) to report; every row is bandwidth-bound",
                                f.alpha_us));
            else
                fit.notes.push_back(
                    first_bw == sizes.end()
                        ? fmt::format("every size is below n½ = {}: the whole sweep is latency-bound", size_text(f.half_bytes))
                        : fmt::format(
                              "the curve leaves the latency regime at n½ = {} (α = {:.2f} µs costs as much as moving n½ at "
                              "β); the first logged size at or above it is {}",
                              size_text(f.half_bytes), f.alpha_us, size_text(*first_bw)));
        } else {
            fit.notes.push_back("time does not grow with size over this sweep: no bandwidth term (β) can be fitted");
        }
        if (f.alpha_us < 0 && !(f.us_per_byte > 0))
            fit.notes.push_back("α came out negative: the small sizes do not show a fixed cost the line can explain");
    } else {
        fit.notes.push_back("fewer than two distinct non-zero sizes: no α–β fit");
    }
    if (sweeps.size() > 1)
        fit.notes.push_back(
            fmt::format("the run sweeps the sizes {} times (data types, operations or roots: -d all, "
                        "-o all, -r all), each at its own cost per byte: the fit is over the first, "
                        "{}{}{}, only; the other sweeps' rows have no regime",
                        sweeps.size(), sweeps.front()->type, sweeps.front()->redop.empty() ? "" : " " + sweeps.front()->redop,
                        sweeps.front()->root ? fmt::format(" root {}", *sweeps.front()->root) : ""));

    // Peak against the link, and the log's own average.
    Section peak;
    peak.key = "peak";
    peak.title = "best busbw against each GPU's link (one-way peak)";
    peak.columns = {{"gpu", "gpu", 0},   {"size_bytes", "at size B", 0},          {"busbw_GBps", "busbw GB/s", 2},
                    {"link", "link", 0}, {"link_GBps", "link GB/s (one way)", 1}, {"util_link", "% of link", 1}};
    const Record* best = nullptr;
    for (std::size_t i = first_record; i < rep.records.size(); ++i) {
        const Record& r = rep.records[i];
        if (!r.verdicts.empty() && r.verdicts.front().busbw_GBps &&
            (best == nullptr || *r.verdicts.front().busbw_GBps > *best->verdicts.front().busbw_GBps))
            best = &r;
    }
    if (best != nullptr)
        for (const Verdict& v : best->verdicts) {
            const double util = v.peaks.link_GBps && *v.peaks.link_GBps > 0 ? *v.busbw_GBps / *v.peaks.link_GBps : 0;
            peak.rows.push_back({v.gpu, best->cost.collective->size_bytes, *v.busbw_GBps, v.peaks.link_name,
                                 v.peaks.link_GBps ? Cell(*v.peaks.link_GBps) : Cell(), util * 100});
            if (util > 1)
                peak.notes.push_back(fmt::format(
                    "{}: busbw {:.1f} GB/s is above the {:.0f} GB/s one-way link: the wire cannot carry that; NVLink SHARP "
                    "(NVLS) or another in-network reduction moved less data than the ring formula assumes",
                    v.gpu, *v.busbw_GBps, *v.peaks.link_GBps));
        }
    if (log.avg_busbw_GBps && log.processes_per_rank_id > 1)
        peak.notes.push_back(
            "the log's Avg bus bandwidth is each independent run's own; the rows of all of them interleave "
            "here, so it is not compared");
    else if (log.avg_busbw_GBps && printed_results > 0) {
        const double mean = busbw_sum / static_cast<double>(printed_results);
        // Each printed busbw is rounded by up to ½·10^−2: the mean of the printed values is within 0.005.
        const bool agrees = std::abs(mean - *log.avg_busbw_GBps) <= 0.005 + 0.0005 + 1e-9;
        peak.notes.push_back(
            fmt::format("the log's Avg bus bandwidth {} GB/s {} the mean of its {} printed busbw values, "
                        "{:.3f} GB/s",
                        *log.avg_busbw_GBps, agrees ? "matches" : "does NOT match", printed_results, mean));
    }
    if (skipped > 3)
        rep.warnings.push_back(fmt::format("{}{} more sizes not costed", warn_prefix, skipped - 3));
    out.sections = {std::move(rows), std::move(fit), std::move(peak)};
    return out;
}

// nccl-tests' gather and scatter print busbw = algbw × (n−1)/n (gather.cu, scatter.cu *GetBw), the factor
// of allgather: that --op re-derives every row of theirs (the cost is then an allgather's).

// Where run i (0-based) that names no test took its test from the run before it: that run's own source, which may
// itself be a markdown heading or a run further up, said as it is.
std::string previous_run_source(const NcclLog& log, std::size_t i) {
    std::size_t j = i - 1;
    while (j > 0 && log.runs[j].program_from_previous_run)
        --j;
    const NcclRun& from = log.runs[j];
    const std::string origin = !from.program_from_heading.empty()
                                   ? fmt::format("{} from the markdown heading '{}' before run {} (the log names no test there)",
                                                 log.runs[i].program, from.program_from_heading, j + 1)
                                   : fmt::format("run {}'s test name {}", j + 1, from.program);
    return fmt::format(
        "{}: this run names none, and its first row fits {} (data type, operation, root, elements per byte "
        "and bus factor)",
        origin, j + 1 == i && from.program_from_heading.empty() ? "that test's" : fmt::format("run {}'s", i));
}

}  // namespace

IngestReport account_nccl(const NcclLog& log, const std::string& file, const NcclAccountingInput& in,
                          const std::vector<const GpuSpec*>& gpus) {
    IngestReport rep;
    rep.tool = "nccl-tests";
    rep.file = file;
    rep.format = log.format;
    rep.warnings = log.warnings;
    const bool several = log.runs.size() > 1;
    std::string unnamed;  // why the first run left out was (no collective named)
    for (std::size_t i = 0; i < log.runs.size(); ++i) {
        const NcclRun& run = log.runs[i];
        CollectiveKind kind{};
        std::string kind_from;
        if (in.kind) {
            kind = *in.kind;
            kind_from = "--op";
        } else if (const auto k = collective_from_name(run.program)) {
            kind = *k;
            kind_from =
                !run.program_from_heading.empty()
                    ? fmt::format("the markdown heading '{}' before the run, which names no test", run.program_from_heading)
                : run.program_from_previous_run ? previous_run_source(log, i)
                                                : "the log's test name " + run.program;
        } else if (!run.program.empty() && run.program.find("hypercube") != std::string::npos) {
            // nccl-tests' hypercube.cu: HyperCubeGetBw prints algbw = busbw = count·typesize·(n−1) / time with count one
            // rank's part (size / n), i.e. size·(n−1)/n / time: no collective's algbw = size / time re-derives it.
            throw InputError(
                "--op",
                fmt::format("{}the log's test {} is not read: nccl-tests' HyperCubeGetBw prints algbw = busbw = "
                            "size·(n−1)/n / time (an all-gather by log2(n) point-to-point steps), a convention no --op "
                            "re-derives (--op allgather costs its bytes, (n−1)/n of the size per rank, but its rows will "
                            "not match)",
                            several ? fmt::format("run {} (lines {}–{}): ", i + 1, run.first_line, run.last_line) : std::string(),
                            run.program));
        } else if (!run.program.empty()) {  // a test bwacct does not cost
            throw InputError(
                "--op",
                fmt::format("{}the log's test {} is not one of the collectives bwacct costs; give --op "
                            "allreduce|allgather|reducescatter|broadcast|reduce|alltoall|sendrecv|gather|scatter to "
                            "read it as one",
                            several ? fmt::format("run {} (lines {}–{}): ", i + 1, run.first_line, run.last_line) : std::string(),
                            run.program));
        } else if (in.file_kind) {
            kind = *in.file_kind;
            kind_from = "the file name";
        } else if (const auto f = nccl_rows_allreduce_factor(run)) {
            kind = CollectiveKind::allreduce;
            kind_from = fmt::format(
                "the rows: busbw/algbw ≥ {:.4f} > 1 with an operation and root -1, which only allreduce's "
                "2(n−1)/n gives (every other nccl-tests factor is at most 1)",
                *f);
        } else if (nccl_rows_reduce(run)) {
            kind = CollectiveKind::reduce;
            kind_from = "the rows: a reduction operation and a root of 0 or more in every row, which only reduce_perf prints";
        } else {
            // In a file of several runs, a run whose collective nothing names is left out, warned, and the others are
            // read (a README that quotes an old tool's output under a current run); the file is refused when no run is
            // left.
            std::string why = fmt::format(
                "{}the log does not name its collective{}; give --op allreduce|allgather|"
                "reducescatter|broadcast|reduce|alltoall|sendrecv|gather|scatter",
                several ? fmt::format("run {} (lines {}–{}): ", i + 1, run.first_line, run.last_line) : std::string(),
                run.heading_not_fitting.empty()
                    ? std::string()
                    : fmt::format(" (the heading '{}' above it names one whose rows are not these: its "
                                  "operation, root, elements per byte or busbw/algbw differ)",
                                  run.heading_not_fitting));
            if (!several)
                throw InputError("--op", why);
            if (unnamed.empty())
                unnamed = why;
            rep.warnings.push_back(why + " (--op applies to every run): this run is not read");
            continue;
        }
        IngestRun part;
        part.records_begin = rep.records.size();
        part.fields.push_back({"run", static_cast<std::uint64_t>(i + 1)});
        if (run.first_line > 0) {
            part.fields.push_back({"first_line", static_cast<std::uint64_t>(run.first_line)});
            part.fields.push_back({"last_line", static_cast<std::uint64_t>(run.last_line)});
        }
        if (!run.program.empty())
            part.fields.push_back({"program", run.program});
        const std::vector<const GpuSpec*>& on = i < in.run_gpus.size() && in.run_gpus[i] ? *in.run_gpus[i] : gpus;
        for (const GpuSpec* g : on)
            if (std::find(rep.gpus.begin(), rep.gpus.end(), g->id) == rep.gpus.end())
                rep.gpus.push_back(g->id);
        if (several)
            part.fields.push_back({"gpus", fmt::format("{}", fmt::join(gpu_ids(on), ","))});
        RunResult rr = account_run(run, i, several, file, kind, kind_from, in, on, rep, part.fields);
        part.records_end = rep.records.size();
        part.fields.push_back({"rows", static_cast<std::uint64_t>(run.rows.size())});
        part.title = fmt::format("run {} of {}: {} over {} rank(s){}", i + 1, log.runs.size(), collective_name(kind), rr.ranks,
                                 run.first_line > 0 ? fmt::format(", lines {}–{}", run.first_line, run.last_line) : "");
        part.sections = std::move(rr.sections);
        part.notes = std::move(rr.notes);
        // An elided rank list ("# Rank 0, 1, ..., 62, 63" of 64) names only some hosts: at least that many.
        const bool hosts_at_least = run.ranks.size() < rr.ranks;
        for (const std::string& line :
             nccl_run_summary(part, run.processes_per_rank_id == 1 ? run.hosts.size() : 0, hosts_at_least))
            rep.summary.lines.push_back(several ? fmt::format("run {}: {}", i + 1, line) : line);
        rep.runs.push_back(std::move(part));
    }
    if (rep.runs.empty())
        throw InputError("--op", unnamed);
    if (several) {
        rep.notes.push_back(fmt::format(
            "the file holds {} runs (new header block, test name, column header or collective): "
            "{} analysed on its own below; records carry run=N",
            log.runs.size(),
            rep.runs.size() == log.runs.size() ? std::string("each is") : fmt::format("{} of them, each", rep.runs.size())));
    } else {
        rep.sections = rep.runs.front().sections;
        rep.notes = rep.runs.front().notes;
    }
    return rep;
}

}  // namespace bwacct
