// compare_nccl: a known-good nccl-tests log against a new one (include/bwacct/ingest_nccl.h).
#include <fmt/format.h>

#include <map>
#include <utility>

#include "baseline_verdict.h"
#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"

namespace bwacct {
namespace {

// The busbw of each (run, size): out-of-place, else in-place; the last row of a repeated size wins.
std::map<std::pair<std::size_t, std::uint64_t>, double> busbw_by_size(const NcclLog& log, bool by_run) {
    std::map<std::pair<std::size_t, std::uint64_t>, double> out;
    for (std::size_t i = 0; i < log.runs.size(); ++i)
        for (const NcclRow& row : log.runs[i].rows) {
            const std::optional<NcclResult>& r = row.out_of_place ? row.out_of_place : row.in_place;
            if (r)
                out[{by_run ? i : 0, row.size}] = r->busbw_GBps.value;
        }
    return out;
}

std::string iec(std::uint64_t b) {
    static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(b);
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    return fmt::format("{:.4g} {}", v, kUnits[u]);
}

}  // namespace

NcclBaseline compare_nccl(const NcclLog& now, const NcclLog& base, double tolerance, const std::string& base_name) {
    const bool by_run = now.runs.size() > 1 || base.runs.size() > 1;
    if (by_run && now.runs.size() != base.runs.size())
        throw InputError("--baseline", fmt::format("{} holds {} runs and the log {}; compare logs of the same runs", base_name,
                                                   base.runs.size(), now.runs.size()));
    const auto a = busbw_by_size(base, by_run), b = busbw_by_size(now, by_run);
    NcclBaseline out;
    Section& s = out.section;
    s.key = "baseline";
    s.title = fmt::format("against the baseline {}: busbw per size (tolerance {:g} %)", base_name, tolerance * 100);
    s.columns = {{"run", "run", 0},
                 {"size_bytes", "size B", 0},
                 {"baseline_busbw_GBps", "baseline busbw GB/s", 2},
                 {"busbw_GBps", "busbw GB/s", 2},
                 {"change_pct", "change %", 1},
                 {"verdict", "verdict", 0}};
    std::optional<std::pair<double, std::uint64_t>> worst;
    std::size_t improved = 0, vanished = 0, added = 0;
    auto keys = a;
    for (const auto& [k, v] : b)
        keys.emplace(k, v);
    for (const auto& [key, unused] : keys) {
        (void)unused;
        const auto old_it = a.find(key), new_it = b.find(key);
        std::vector<Cell> row{static_cast<std::uint64_t>(key.first + 1), key.second};
        if (old_it == a.end()) {
            row.insert(row.end(), {Cell(), new_it->second, Cell(), std::string("new")});
            ++added;
        } else if (new_it == b.end()) {
            row.insert(row.end(), {old_it->second, Cell(), Cell(), std::string("vanished")});
            ++vanished;
        } else {
            ++out.compared;
            const double o = old_it->second, n = new_it->second;
            // A zero baseline busbw (the 0-byte row) has no relative change; it is compared as equal when both are zero.
            std::optional<double> change;
            if (o > 0)
                change = n / o - 1;
            const std::string verdict =
                change ? baseline_verdict(*change, tolerance, Worse::when_lower) : std::string(n > 0 ? "improved" : "same");
            out.regressed += verdict == "regressed" ? 1 : 0;
            improved += verdict == "improved" ? 1 : 0;
            if (change && (!worst || *change < worst->first))
                worst = std::pair{*change, key.second};
            row.insert(row.end(), {o, n, change ? Cell(*change * 100) : Cell(), verdict});
        }
        s.rows.push_back(std::move(row));
    }
    std::string line = fmt::format("baseline {}: {} sizes compared, {} regressed beyond {:g} %, {} improved", base_name,
                                   out.compared, out.regressed, tolerance * 100, improved);
    if (worst)
        line += fmt::format("; worst change {:+.1f} % at {}", worst->first * 100, iec(worst->second));
    if (added + vanished > 0)
        line += fmt::format("; {} sizes only in the new log, {} only in the baseline", added, vanished);
    out.lines.push_back(line);
    if (out.regressed > 0)
        out.lines.push_back("REGRESSION: busbw fell beyond the tolerance (exit code 3)");
    return out;
}

}  // namespace bwacct
