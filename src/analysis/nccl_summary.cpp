#include "nccl_summary.h"

#include <fmt/format.h>

#include <algorithm>

namespace bwacct {
std::string size_text(double bytes) {
    static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        ++u;
    }
    return fmt::format("{:.4g} {}", bytes, kUnits[u]);
}

namespace {

// A bandwidth in the summary: one decimal from 0.1 GB/s up; below, 3 significant digits (a 256 B
// reducescatter's 0.009 GB/s printed as "0.0").
std::string gbps(double v) { return v >= 0.1 || v <= 0 ? fmt::format("{:.1f}", v) : fmt::format("{:.3g}", v); }

const Section* find(const std::vector<Section>& list, const std::string& key) {
    const auto it = std::find_if(list.begin(), list.end(), [&](const Section& s) { return s.key == key; });
    return it == list.end() ? nullptr : &*it;
}

std::size_t column(const Section& s, const std::string& key) {
    for (std::size_t i = 0; i < s.columns.size(); ++i)
        if (s.columns[i].key == key)
            return i;
    return s.columns.size();
}

template <typename T>
const T* cell(const Section& s, std::size_t row, const std::string& key) {
    const std::size_t c = column(s, key);
    if (row >= s.rows.size() || c >= s.rows[row].size())
        return nullptr;
    return std::get_if<T>(&s.rows[row][c]);
}

template <typename T>
const T* field(const IngestRun& run, const std::string& key) {
    for (const auto& [k, v] : run.fields)
        if (k == key)
            return std::get_if<T>(&v);
    return nullptr;
}

}  // namespace

std::vector<std::string> nccl_run_summary(const IngestRun& run, std::size_t hosts, bool hosts_at_least) {
    std::vector<std::string> out;
    const std::string* collective = field<std::string>(run, "collective");
    const std::uint64_t* ranks = field<std::uint64_t>(run, "ranks");
    std::string who = collective ? *collective : std::string("collective");
    if (ranks)
        who += fmt::format(" over {} ranks", *ranks);

    // The peak busbw: against each GPU's link when the run was analysed on a GPU, else from the rows.
    const Section* peak = find(run.sections, "peak");
    if (peak && !peak->rows.empty()) {
        const double* bw = cell<double>(*peak, 0, "busbw_GBps");
        const std::uint64_t* at = cell<std::uint64_t>(*peak, 0, "size_bytes");
        std::string line = fmt::format("{}: peak busbw {} GB/s at {}", who, gbps(bw ? *bw : 0.0),
                                       at ? size_text(static_cast<double>(*at)) : std::string("?"));
        for (std::size_t i = 0; i < peak->rows.size(); ++i) {
            const std::string* gpu = cell<std::string>(*peak, i, "gpu");
            const double* util = cell<double>(*peak, i, "util_link");
            const double* link = cell<double>(*peak, i, "link_GBps");
            const std::string* name = cell<std::string>(*peak, i, "link");
            if (gpu && util && link)
                line += fmt::format(" = {:.1f} % of {}'s {} ({:.0f} GB/s one way)", *util, *gpu, name ? *name : "link", *link);
        }
        out.push_back(line);
        for (std::size_t i = 0; i < peak->rows.size(); ++i)
            if (const double* util = cell<double>(*peak, i, "util_link"); util && *util > 100) {
                out.push_back(
                    "NVLS: busbw is above the one-way link, so an in-network reduction (NVLink SHARP) moved less data than "
                    "the ring formula assumes");
                break;
            }
    } else if (const Section* rows = find(run.sections, "rows"); rows && !rows->rows.empty()) {
        // The re-derived busbw (size / time x factor), as against the link above; the log's printed one (2 decimals,
        // "0.00" for a small size) only where the row has none (time 0).
        const auto busbw = [&](std::size_t i) -> const double* {
            const double* d = cell<double>(*rows, i, "busbw_rederived_GBps");
            return d ? d : cell<double>(*rows, i, "busbw_GBps");
        };
        std::size_t best = rows->rows.size();
        for (std::size_t i = 0; i < rows->rows.size(); ++i) {
            // A size-0 row (nccl-tests' -b 0) moves nothing: never the peak, even where every busbw is 0 (one rank).
            const std::uint64_t* size = cell<std::uint64_t>(*rows, i, "size_bytes");
            const double* bw = busbw(i);
            const double* b = best < rows->rows.size() ? busbw(best) : nullptr;
            if (bw && (!size || *size > 0) && (b == nullptr || *bw > *b))
                best = i;
        }
        if (best < rows->rows.size()) {
            const std::uint64_t* at = cell<std::uint64_t>(*rows, best, "size_bytes");
            // Why there is no % of the link: one rank crosses none (its GPU may well be known), else no GPU.
            const std::string* gpus = field<std::string>(run, "gpus");
            const std::string why = ranks && *ranks == 1     ? "1 rank: nothing crosses a link"
                                    : gpus && !gpus->empty() ? "no link figure for " + *gpus
                                                             : "no catalog GPU: % of the link needs --gpu";
            out.push_back(fmt::format("{}: peak busbw {} GB/s at {} ({})", who, gbps(*busbw(best)),
                                      at ? size_text(static_cast<double>(*at)) : std::string("?"), why));
        }
    }

    // Where latency ends: n½ of the α–β fit, and how many sizes lie on each side of it.
    if (const Section* fit = find(run.sections, "alpha_beta"); fit && !fit->rows.empty()) {
        const double* half = cell<double>(*fit, 0, "half_bytes");
        const double* alpha = cell<double>(*fit, 0, "alpha_us");
        const double* beta = cell<double>(*fit, 0, "beta_busbw_GBps");
        std::size_t latency = 0, bandwidth = 0;
        if (const Section* rows = find(run.sections, "rows"))
            for (std::size_t i = 0; i < rows->rows.size(); ++i)
                if (const std::string* regime = cell<std::string>(*rows, i, "regime")) {
                    if (*regime == "latency")
                        ++latency;
                    else if (*regime == "bandwidth")
                        ++bandwidth;
                }
        if (half && alpha && beta && *half > 0 && *half < 1)
            out.push_back(
                fmt::format("no latency regime: α = {:.2f} µs, the times grow with size from the smallest one "
                            "(β = {} GB/s busbw)",
                            *alpha, gbps(*beta)));
        else if (half && alpha && beta && *half > 0)
            out.push_back(
                fmt::format("latency ends at n½ = {} (α = {:.2f} µs, β = {} GB/s busbw): {} rows latency-bound, "
                            "{} bandwidth-bound",
                            size_text(*half), *alpha, gbps(*beta), latency, bandwidth));
        else if (!fit->notes.empty())
            out.push_back(fit->notes.front());
    } else if (fit && !fit->notes.empty()) {
        out.push_back(fit->notes.front());
    }
    if (hosts > 1)
        out.push_back(fmt::format(
            "cross-host: the ranks span {}{} hosts, so the network between them, not the scale-up link, bounds the busbw",
            hosts_at_least ? "at least " : "", hosts));
    return out;
}

}  // namespace bwacct
