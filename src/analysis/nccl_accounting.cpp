// An nccl-tests log accounted for: re-derived bandwidths, records on the selected GPUs, the α–β fit.
// The formulas are in include/bwacct/ingest_nccl.h and docs/formulas.md ("nccl-tests logs").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bwacct/alpha_beta.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "bwacct/ops.h"

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
    bool ok = true;
    double algbw = 0, busbw = 0;  // re-derived from the unrounded-interval midpoint
};

Check check_result(std::uint64_t size, const NcclResult& r, double factor) {
    Check c;
    if (size == 0) {
        c.ok = r.algbw_GBps.value == 0 && r.busbw_GBps.value == 0;
        return c;
    }
    const double s = static_cast<double>(size);
    const double h = printed_half_unit(r.time_us);
    const double t = r.time_us.value;
    c.algbw = s / t / 1e3;
    c.busbw = c.algbw * factor;
    if (t - h <= 0)
        return c;  // time printed as 0: no interval to check against
    const Interval a{s / (t + h) / 1e3, s / (t - h) / 1e3};
    c.ok = printed_within(r.algbw_GBps, a) && printed_within(r.busbw_GBps, {a.lo * factor, a.hi * factor});
    return c;
}

std::uint64_t resolve_ranks(const NcclLog& log, const NcclAccountingInput& in, std::vector<std::string>& notes) {
    const std::optional<std::uint64_t> header =
        log.header_threads && log.header_gpus ? std::optional(*log.header_threads * *log.header_gpus) : std::nullopt;
    if (in.ranks) {
        notes.push_back(fmt::format("ranks: {} (--ranks)", *in.ranks));
        return *in.ranks;
    }
    if (!log.ranks.empty()) {
        const std::uint64_t n = log.ranks.size();
        if (header && *header != n)
            notes.push_back(
                fmt::format("ranks: {} from the log's rank list; the header's nThread × nGpus = {} counts "
                            "one process only ({} processes)",
                            n, *header, *header > 0 && n % *header == 0 ? n / *header : 0));
        else
            notes.push_back(fmt::format("ranks: {} from the log's rank list", n));
        return n;
    }
    if (header) {
        notes.push_back(
            fmt::format("ranks: {} from the header (nThread × nGpus): the log lists no \"# Rank\" lines, so "
                        "other processes are not counted; give --ranks if it ran under mpirun",
                        *header));
        return *header;
    }
    throw InputError("--ranks", "the log lists no ranks (no \"# Rank\" lines or nGpus header); give --ranks N");
}

std::string size_text(double bytes) {
    static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    return fmt::format("{:.4g} {}", bytes, kUnits[u]);
}

}  // namespace

double printed_half_unit(const PrintedNumber& p) { return 0.5 * std::pow(10.0, -p.decimals); }

IngestReport account_nccl(const NcclLog& log, const std::string& file, const NcclAccountingInput& in,
                          const std::vector<const GpuSpec*>& gpus) {
    IngestReport rep;
    rep.tool = "nccl-tests";
    rep.file = file;
    rep.format = log.format;
    rep.warnings = log.warnings;
    for (const GpuSpec* g : gpus)
        rep.gpus.push_back(g->id);
    rep.notes.push_back(fmt::format("collective: {} ({})", collective_name(in.kind), in.kind_from));
    const std::uint64_t ranks = resolve_ranks(log, in, rep.notes);
    if (ranks < 2)
        throw InputError("--ranks", fmt::format("{} rank(s): a collective needs at least 2", ranks));
    const double factor = bus_factor(in.kind, ranks);
    if (log.hosts.size() > 1)
        rep.notes.push_back(
            fmt::format("the ranks span {} hosts: traffic between hosts crosses the network (its NIC bandwidth "
                        "per GPU is not in the catalog), so % of link below compares with the scale-up link "
                        "inside one host only",
                        log.hosts.size()));

    Section rows;
    rows.key = "rows";
    rows.title = fmt::format("results re-derived: algbw = size / time, busbw = algbw × {:.4g} ({} over {} ranks)", factor,
                             collective_name(in.kind), ranks);
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

    std::vector<AlphaBetaPoint> fit_points;
    std::size_t mismatched = 0, wrong_rows = 0, skipped = 0, printed_results = 0;
    double busbw_sum = 0;
    struct Pending {
        std::size_t row;  // index into rows.rows, for the regime filled after the fit
        std::uint64_t size;
    };
    std::vector<Pending> pending;
    for (const NcclRow& row : log.rows) {
        const std::pair<const char*, const std::optional<NcclResult>*> results[] = {{"out-of-place", &row.out_of_place},
                                                                                    {"in-place", &row.in_place}};
        for (const auto& [placement, result] : results) {
            if (!*result)
                continue;
            const NcclResult& r = **result;
            const Check c = check_result(row.size, r, factor);
            ++printed_results;
            busbw_sum += r.busbw_GBps.value;
            if (!c.ok)
                ++mismatched;
            if (r.wrong && *r.wrong > 0)
                ++wrong_rows;
            pending.push_back({rows.rows.size(), row.size});
            rows.rows.push_back({row.size, std::string(placement), r.time_us.value, r.algbw_GBps.value, r.busbw_GBps.value,
                                 row.size ? Cell(c.algbw) : Cell(), row.size ? Cell(c.busbw) : Cell(),
                                 std::string(c.ok ? "yes" : "NO"), r.wrong ? Cell(*r.wrong) : Cell(std::string("N/A")), Cell()});
            if (row.size == 0 || !(r.time_us.value > 0))
                continue;
            const bool out_of_place = std::string_view(placement) == "out-of-place";
            if (out_of_place || !row.out_of_place)
                fit_points.push_back({static_cast<double>(row.size), r.time_us.value});
            CollectiveDesc d;
            d.kind = in.kind;
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
            try {
                rep.records.push_back(ingested_record(std::move(params), collective_cost(d), r.time_us.value, gpus));
            } catch (const InputError& e) {
                ++skipped;  // e.g. a size that is not a whole number of elements per rank
                if (skipped <= 3)
                    rep.warnings.push_back(fmt::format("size {} not costed: {}", row.size, e.what()));
            }
        }
    }
    rows.notes.push_back(mismatched == 0
                             ? fmt::format("all {} results match the log to its printed precision", printed_results)
                             : fmt::format("{} of {} results do NOT match the log (rows marked NO): the log's rank count or "
                                           "collective may differ from what was assumed, or the log was edited",
                                           mismatched, printed_results));
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
        fit.rows.push_back(
            {static_cast<std::uint64_t>(f.n), f.alpha_us, f.beta_GBps, f.beta_GBps * factor, f.half_bytes, f.max_rel_error});
        if (f.us_per_byte > 0) {
            for (const Pending& p : pending)
                if (p.size > 0)
                    rows.rows[p.row].back() = std::string(static_cast<double>(p.size) < f.half_bytes ? "latency" : "bandwidth");
            const auto first_bw = std::find_if(sizes.begin(), sizes.end(), [&](double s) { return s >= f.half_bytes; });
            fit.notes.push_back(
                first_bw == sizes.end()
                    ? fmt::format("every size is below n½ = {}: the whole sweep is latency-bound", size_text(f.half_bytes))
                    : fmt::format("the curve leaves the latency regime at n½ = {} (α = {:.2f} µs costs as much as moving n½ at "
                                  "β); the first logged size at or above it is {}",
                                  size_text(f.half_bytes), f.alpha_us, size_text(*first_bw)));
        } else {
            fit.notes.push_back("time does not grow with size over this sweep: no bandwidth term (β) can be fitted");
        }
        if (f.alpha_us < 0)
            fit.notes.push_back("α came out negative: the small sizes do not show a fixed cost the line can explain");
    } else {
        fit.notes.push_back("fewer than two distinct non-zero sizes: no α–β fit");
    }

    // Peak against the link, and the log's own average.
    Section peak;
    peak.key = "peak";
    peak.title = "best busbw against each GPU's link (one-way peak)";
    peak.columns = {{"gpu", "gpu", 0},   {"size_bytes", "at size B", 0},          {"busbw_GBps", "busbw GB/s", 2},
                    {"link", "link", 0}, {"link_GBps", "link GB/s (one way)", 1}, {"util_link", "% of link", 1}};
    const Record* best = nullptr;
    for (const Record& r : rep.records)
        if (!r.verdicts.empty() && r.verdicts.front().busbw_GBps &&
            (best == nullptr || *r.verdicts.front().busbw_GBps > *best->verdicts.front().busbw_GBps))
            best = &r;
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
    if (log.avg_busbw_GBps && printed_results > 0) {
        const double mean = busbw_sum / static_cast<double>(printed_results);
        // Each printed busbw is rounded by up to ½·10^−2: the mean of the printed values is within 0.005.
        const bool agrees = std::abs(mean - *log.avg_busbw_GBps) <= 0.005 + 0.0005 + 1e-9;
        peak.notes.push_back(
            fmt::format("the log's Avg bus bandwidth {} GB/s {} the mean of its {} printed busbw values, "
                        "{:.3f} GB/s",
                        *log.avg_busbw_GBps, agrees ? "matches" : "does NOT match", printed_results, mean));
    }
    if (skipped > 3)
        rep.warnings.push_back(fmt::format("{} more sizes not costed", skipped - 3));
    rep.sections = {std::move(rows), std::move(fit), std::move(peak)};
    return rep;
}

}  // namespace bwacct
