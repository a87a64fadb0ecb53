// The rank count of one nccl-tests run from every clue it holds (include/bwacct/ingest_nccl.h,
// resolve_nccl_ranks). Pure: a run in, a count and the reasons out.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "bwacct/ops.h"

namespace bwacct {
namespace {

// The bus factor's family: f(n) = c · (1 − 1/n), c = 2 for allreduce, 1 for allgather,
// reducescatter and alltoall; 0 for the collectives whose factor is 1 (no clue in the ratio).
double factor_scale(CollectiveKind k) {
    switch (k) {
        case CollectiveKind::allreduce:
            return 2;
        case CollectiveKind::allgather:
        case CollectiveKind::reducescatter:
        case CollectiveKind::alltoall:
        case CollectiveKind::gather:
        case CollectiveKind::scatter:
            return 1;
        default:
            return 0;
    }
}

struct RatioBounds {
    bool any = false;    // some row bounded the factor
    bool empty = false;  // no n ≥ 1 fits every row
    std::uint64_t lo = 1;
    std::optional<std::uint64_t> hi;  // absent: unbounded
    double f_lo = 0, f_hi = 0;
};

// Every result bounds the factor: busbw_true = algbw_true · f with both printed rounded, so
// f ∈ [(b − h_b)/(a + h_a), (b + h_b)/(a − h_a)]. The intersection over results bounds n through
// n = 1 / (1 − f/c).
RatioBounds ratio_bounds(const NcclRun& run, CollectiveKind kind) {
    RatioBounds r;
    const double c = factor_scale(kind);
    if (c == 0)
        return r;
    double lo = 0, hi = std::numeric_limits<double>::infinity();
    for (const NcclRow& row : run.rows) {
        if (row.size == 0)
            continue;
        for (const auto* res : {&row.out_of_place, &row.in_place}) {
            if (!*res)
                continue;
            const PrintedNumber& a = (*res)->algbw_GBps;
            const PrintedNumber& b = (*res)->busbw_GBps;
            const double ha = printed_half_unit(a) * (1 + 1e-9), hb = printed_half_unit(b) * (1 + 1e-9);
            if (!(a.value - ha > 0) || !(b.value - hb > 0))
                continue;  // printed 0.00: the ratio is not bounded
            lo = std::max(lo, (b.value - hb) / (a.value + ha));
            hi = std::min(hi, (b.value + hb) / (a.value - ha));
            r.any = true;
        }
    }
    if (!r.any)
        return r;
    r.f_lo = lo;
    r.f_hi = hi;
    const double g_lo = lo / c, g_hi = hi / c;
    if (g_lo > g_hi || g_lo >= 1) {
        r.empty = true;
        return r;
    }
    r.lo = g_lo <= 0 ? 1 : static_cast<std::uint64_t>(std::ceil(1 / (1 - g_lo) - 1e-9));
    if (g_hi < 1) {
        const double h = std::floor(1 / (1 - g_hi) + 1e-9);
        if (h < 1e15)
            r.hi = static_cast<std::uint64_t>(h);
    }
    if (r.hi && *r.hi < r.lo)
        r.empty = true;
    return r;
}

}  // namespace

std::optional<double> nccl_rows_allreduce_factor(const NcclRun& run) {
    for (const NcclRow& row : run.rows)
        if (row.redop.empty() || row.redop == "none" || (row.root && *row.root != -1))
            return std::nullopt;                                         // no operation, or a root: not an allreduce's row
    const RatioBounds r = ratio_bounds(run, CollectiveKind::allgather);  // c = 1: the bare busbw/algbw bounds
    if (!r.any || r.f_lo > r.f_hi || !(r.f_lo > 1))
        return std::nullopt;
    return r.f_lo;
}

bool nccl_rows_reduce(const NcclRun& run) {
    for (const NcclRow& row : run.rows)
        if (row.redop.empty() || row.redop == "none" || !row.root || *row.root < 0)
            return false;
    const RatioBounds r = ratio_bounds(run, CollectiveKind::allgather);  // c = 1: the bare busbw/algbw bounds
    return !run.rows.empty() && (!r.any || (r.f_lo <= 1 && 1 <= r.f_hi));
}

NcclRanks resolve_nccl_ranks(const NcclRun& run, CollectiveKind kind, std::optional<std::uint64_t> given,
                             const std::string& origin) {
    NcclRanks r;
    if (given && *given == 0)
        throw InputError("--ranks", "0 ranks: takes a positive integer");
    std::vector<std::string> clues;  // each clue in words, for the note and a refusal
    if (!run.ranks.empty()) {
        r.rank_lines = run.ranks.size();
        r.highest_rank_plus_one = *run.ranks.rbegin() + 1;
        clues.push_back(*r.rank_lines == *r.highest_rank_plus_one
                            ? fmt::format("the {} \"# Rank\" lines (0–{})", *r.rank_lines, *run.ranks.rbegin())
                            : fmt::format("the highest rank id {} + 1 = {} (the log lists {} of them)", *run.ranks.rbegin(),
                                          *r.highest_rank_plus_one, *r.rank_lines));
    }
    if (run.comm_nranks.size() == 1) {
        r.comm_nranks = *run.comm_nranks.begin();
        clues.push_back(fmt::format("NCCL's init lines (\"comm … nranks {}\") = {}", *r.comm_nranks, *r.comm_nranks));
    } else if (run.comm_nranks.size() > 1) {
        r.notes.push_back(fmt::format("NCCL's init lines name communicators of {} sizes ({}): not one rank count, not used",
                                      run.comm_nranks.size(), fmt::join(run.comm_nranks, ", ")));
    }
    std::string header_words;
    if (run.header_threads && run.header_gpus && *run.header_threads > 0 && *run.header_gpus > 0) {
        r.per_process = *run.header_threads * *run.header_gpus;
        header_words = run.per_process_from_command
                           ? fmt::format("the command line's -t {} × -g {}", *run.header_threads, *run.header_gpus)
                           : fmt::format("nThread {} × nGpus {}", *run.header_threads, *run.header_gpus);
        if (run.launcher_processes && *run.launcher_processes > 0) {
            r.header_total = *r.per_process * *run.launcher_processes;
            clues.push_back(fmt::format("the header ({} per process) × {} process(es) (the command line's -np) = {}",
                                        header_words, *run.launcher_processes, *r.header_total));
        } else if (r.rank_lines && r.rank_lines == r.highest_rank_plus_one && !run.processes.empty() &&
                   run.processes_per_rank_id == 1) {
            r.header_total = *r.per_process * run.processes.size();
            clues.push_back(fmt::format("the header ({} per process) × {} process(es) (pids of the rank lines) = {}",
                                        header_words, run.processes.size(), *r.header_total));
        } else {
            clues.push_back(fmt::format("the header ({}: {} per process, so a multiple of {})", header_words, *r.per_process,
                                        *r.per_process));
        }
    }
    if (run.processes_per_rank_id > 1)
        r.notes.push_back(fmt::format(
            "the rank list names each rank id for {} processes: {} independent runs, each with its own ranks 0–{}, wrote "
            "into this file at once and their rows interleave; each row is one of them and is costed as one run of that size",
            run.processes_per_rank_id, run.processes_per_rank_id, *run.ranks.rbegin()));
    // nccl-tests prints, for the collectives whose buffer holds one part per rank (allgather, reducescatter, alltoall,
    // gather, scatter: *GetCollByteCount), the count of one rank's part: size = count × n × element size, so every
    // row with elements gives n = size / (count × element size). Rows that give no whole n, or two, leave no clue.
    if (factor_scale(kind) == 1 && !run.times_ms) {
        std::optional<std::uint64_t> n_count;
        bool agree = true;
        for (const NcclRow& row : run.rows) {
            const std::uint64_t ts = nccl_type_bytes(row.type);
            if (row.size == 0 || row.count == 0 || ts == 0)
                continue;
            const std::uint64_t part = row.count * ts;
            if (part / ts != row.count || row.size % part != 0 || (n_count && *n_count != row.size / part)) {
                agree = false;
                break;
            }
            n_count = row.size / part;
        }
        if (agree && n_count) {
            r.count_ranks = n_count;
            clues.push_back(
                fmt::format("the rows' size / (count × element size) = {} (the count column is one rank's part "
                            "for {})",
                            *n_count, collective_name(kind)));
        }
    }
    const RatioBounds ratio = ratio_bounds(run, kind);
    if (ratio.any && !ratio.empty) {
        r.ratio_min = ratio.lo;
        r.ratio_max = ratio.hi;
        const std::string formula = factor_scale(kind) == 2 ? "2(n−1)/n" : "(n−1)/n";
        clues.push_back(ratio.hi && *ratio.hi == ratio.lo
                            ? fmt::format("the rows' busbw/algbw ({} = {} for {}) = {}",
                                          ratio.f_hi - ratio.f_lo < 1e-4 ? fmt::format("{:.4f}", (ratio.f_lo + ratio.f_hi) / 2)
                                                                         : fmt::format("{:.4f}–{:.4f}", ratio.f_lo, ratio.f_hi),
                                          formula, collective_name(kind), ratio.lo)
                        : ratio.hi ? fmt::format("the rows' busbw/algbw (n between {} and {})", ratio.lo, *ratio.hi)
                                   : fmt::format("the rows' busbw/algbw (n at least {})", ratio.lo));
    } else if (ratio.empty) {
        r.notes.push_back(
            fmt::format("the rows' busbw/algbw ratios fit no rank count for {} (factor {}): the collective "
                        "may be another, or the log was edited",
                        collective_name(kind), factor_scale(kind) == 2 ? "2(n−1)/n" : "(n−1)/n"));
    }

    const auto fits = [&](std::uint64_t n) {
        if (n == 0)
            return false;
        if (r.highest_rank_plus_one && n < *r.highest_rank_plus_one)
            return false;
        if (r.per_process && n % *r.per_process != 0)
            return false;
        if (r.header_total && n != *r.header_total)
            return false;
        if (r.comm_nranks && n != *r.comm_nranks)
            return false;
        if (r.count_ranks && n != *r.count_ranks)
            return false;
        if (r.ratio_min && (n < *r.ratio_min || (r.ratio_max && n > *r.ratio_max)))
            return false;
        return true;
    };
    const std::string all_clues = fmt::format("{}", fmt::join(clues, "; "));
    if (given) {
        r.n = *given;
        r.from = "--ranks";
        r.why = fmt::format("{} (--ranks)", *given);
        if (!clues.empty() && !fits(*given))
            r.notes.push_back(fmt::format("--ranks {} overrides the log, which says otherwise: {}", *given, all_clues));
        return r;
    }
    struct Candidate {
        std::optional<std::uint64_t> n;
        const char* from;
    };
    const bool complete_list = r.rank_lines && r.rank_lines == r.highest_rank_plus_one;
    std::optional<std::uint64_t> exact_ratio;  // the ratios fix one count
    if (r.ratio_min && r.ratio_max && *r.ratio_min == *r.ratio_max)
        exact_ratio = r.ratio_min;
    const std::vector<Candidate> candidates{
        {complete_list ? r.highest_rank_plus_one : std::nullopt, "rank_lines"},
        {r.comm_nranks, "nccl_init"},
        {exact_ratio, "busbw_algbw_ratio"},
        {r.count_ranks, "count_column"},
        {r.header_total, "header_x_processes"},
        {complete_list ? std::nullopt : r.highest_rank_plus_one, "highest_rank"},
        {r.per_process, "header"},
    };
    for (const Candidate& c : candidates) {
        if (!c.n || !fits(*c.n))
            continue;
        r.n = *c.n;
        r.from = c.from;
        break;
    }
    if (r.n == 0) {
        if (clues.empty() && ratio.empty)
            throw InputError(origin, fmt::format("{}: the rows' busbw/algbw ratios fit no one rank count for {} (the rows may "
                                                 "belong to several runs, or to another collective); give --ranks N or --op",
                                                 run.first_line > 0 ? fmt::format("lines {}–{}", run.first_line, run.last_line)
                                                                    : std::string("the run"),
                                                 collective_name(kind)));
        if (clues.empty())
            throw InputError("--ranks",
                             fmt::format("{}: {} gives no rank count (no \"# Rank\" lines, nGpus header, "
                                         "NCCL init lines, count column, or busbw/algbw ratio that depends on it: sendrecv's, "
                                         "broadcast's and reduce's are 1 at any rank count); give --ranks N",
                                         origin,
                                         run.first_line > 0 ? fmt::format("the run on lines {}–{}", run.first_line, run.last_line)
                                                            : std::string("the log")));
        // Only a range of counts from the ratios (small messages print busbw and algbw with too few digits
        // to fix n): the smallest would be a guess.
        if (r.ratio_min && fits(*r.ratio_min))
            throw InputError("--ranks", fmt::format("{} does not fix the rank count: {}; give --ranks N", origin, all_clues));
        throw InputError(origin, fmt::format("{}: the rank count clues disagree: {}; give --ranks N to choose",
                                             run.first_line > 0 ? fmt::format("lines {}–{}", run.first_line, run.last_line)
                                                                : std::string("the run"),
                                             all_clues));
    }
    r.why = fmt::format("{} from {}", r.n, clues.size() == 1 ? clues.front() : "");
    if (clues.size() > 1) {
        // The clue used first, then the others it agrees with.
        std::string used, others;
        for (const std::string& c : clues) {
            const bool is_used = (r.from == std::string("rank_lines") || r.from == std::string("highest_rank"))
                                     ? c.rfind("the highest", 0) == 0 || c.find("\"# Rank\" lines (") != std::string::npos
                                 : r.from == std::string("nccl_init")         ? c.rfind("NCCL's init", 0) == 0
                                 : r.from == std::string("busbw_algbw_ratio") ? c.rfind("the rows' busbw", 0) == 0
                                 : r.from == std::string("count_column")      ? c.rfind("the rows' size", 0) == 0
                                                                              : c.rfind("the header", 0) == 0;
            if (is_used && used.empty())
                used = c;
            else
                others += (others.empty() ? "" : "; ") + c;
        }
        r.why = fmt::format("{} from {}; consistent with {}", r.n, used, others);
    }
    if (r.from == std::string("header"))
        r.why += ": one process's ranks only; give --ranks if it ran under mpirun with more";
    return r;
}

}  // namespace bwacct
