#include "flatten.h"

#include <fmt/format.h>

#include "bwacct/ops.h"
#include "human.h"

namespace bwacct::detail {
namespace {

std::string param_text(const ParamValue& v) {
    return std::visit(
        [](const auto& x) -> std::string {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
                return x;
            else if constexpr (std::is_same_v<T, bool>)
                return x ? "true" : "false";
            else
                return fmt::format("{}", x);
        },
        v);
}

void add(Row& row, std::string name, double v, int digits) {
    row.push_back({std::move(name), fmt::format("{}", v), fixed(v, digits)});
}
void add(Row& row, std::string name, std::uint64_t v) {
    row.push_back({std::move(name), fmt::format("{}", v), fmt::format("{}", v)});
}
void add(Row& row, std::string name, const std::string& v) { row.push_back({std::move(name), v, v}); }
void add_opt(Row& row, std::string name, const std::optional<double>& v, int digits) {
    if (v)
        add(row, std::move(name), *v, digits);
    else
        row.push_back({std::move(name), "", "-"});
}

}  // namespace

std::vector<Row> flatten(const Record& r) {
    std::vector<Row> rows;
    const Cost& c = r.cost;
    for (std::size_t i = 0; i < r.verdicts.size(); ++i) {
        const Verdict& v = r.verdicts[i];
        Row row;
        add(row, "op", c.op);
        for (const Param& p : r.params)
            add(row, p.name, param_text(p.value));
        add(row, "source", std::string(time_source_name(r.source)));
        add(row, "flops", c.flops);
        add(row, "bytes", c.bytes());
        add(row, "bytes_read", c.bytes_read);
        add(row, "bytes_written", c.bytes_written);
        add(row, "intensity", v.intensity, 2);
        add(row, "launches", c.launches);
        add(row, "gpu", v.gpu);
        add(row, "bound", std::string(roof_name(v.timed ? v.timed->bound : v.bound)));
        add(row, "floor_us", v.floor_us, 2);
        add(row, "compute_us", v.roofs_us.compute, 2);
        add(row, "hbm_us", v.roofs_us.hbm, 2);
        add(row, "link_us", v.roofs_us.link, 2);
        add(row, "dispatch_us", v.roofs_us.dispatch, 2);
        add_opt(row, "ridge", v.ridge, 1);
        add_opt(row, "attainable_tflops", v.attainable_tflops, 1);
        if (v.timed) {
            const TimedAnalysis& t = *v.timed;
            add(row, "time_us", t.time_us, 2);
            add(row, "time_basis",
                t.projected_from.empty() ? std::string(time_source_name(r.source)) : "projected from " + t.projected_from);
            add_opt(row, "x_floor", t.x_floor, 2);
            add(row, "implied_bw_GBps", t.implied_bw_GBps, 1);
            add(row, "tflops", t.tflops, 1);
            add(row, "util_compute", t.util_compute, 3);
            add(row, "util_hbm", t.util_hbm, 3);
            add_opt(row, "util_link", t.util_link, 3);
        }
        if (c.collective) {
            add(row, "wire_bytes_per_rank", c.collective->wire_bytes_per_rank);
            add_opt(row, "algbw_GBps", v.algbw_GBps, 2);
            add_opt(row, "busbw_GBps", v.busbw_GBps, 2);
        }
        if (r.fusion) {
            const Verdict& fv = r.fusion->verdicts[i];
            add(row, "fused_bytes", r.fusion->fused.bytes());
            add(row, "bytes_saved", c.bytes() - r.fusion->fused.bytes());
            add(row, "fused_floor_us", fv.floor_us, 2);
            add(row, "time_saved_us", v.floor_us - fv.floor_us, 2);
        }
        std::string notes;
        for (const std::string& n : v.notes)
            notes += fmt::format("{}{}", notes.empty() ? "" : "; ", n);
        add(row, "notes", notes);
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace bwacct::detail
