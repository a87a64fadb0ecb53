// Seed 003's HBM traffic of one training step (each state moved twice) and the capacity footprint
// beside it. Formulas: docs/formulas.md ("Training step traffic").
#include <cmath>

#include "bwacct/error.h"
#include "bwacct/workload_train.h"

namespace bwacct {

std::string_view step_limit_name(StepLimit l) {
    switch (l) {
        case StepLimit::capacity:
            return "capacity";
        case StepLimit::bandwidth:
            return "bandwidth";
        case StepLimit::neither:
            return "neither";
    }
    return "?";
}

StepTraffic step_traffic(const StepDesc& d) {
    if (d.params == 0)
        throw InputError("--params", "must be a positive count");
    if (d.activation_bytes == 0)
        throw InputError("--activations-bytes", "must be a positive size");
    try {
        const Exact n(d.params);
        const Exact p = storage_bytes(d.dtype, n);
        const Exact g = p;  // gradients in the parameters' dtype
        const Exact o = n * Exact(d.optimizer_bytes_per_param);
        const Exact a(d.activation_bytes);
        StepTraffic t;
        t.param_bytes = p.value();
        t.grad_bytes = g.value();
        t.optimizer_bytes = o.value();
        t.activation_bytes = a.value();
        t.traffic_bytes = (Exact(2) * p + Exact(2) * g + Exact(2) * a + Exact(2) * o).value();
        t.footprint_bytes = (p + g + o + a).value();
        return t;
    } catch (const OverflowError&) {
        throw InputError("--params, --activations-bytes", "the byte count overflows 64 bits; use smaller sizes");
    }
}

StepAnalysis analyze_step(const StepTraffic& t, double step_ms, const StepHardware& hw) {
    if (!(step_ms > 0) || !std::isfinite(step_ms))
        throw InputError("--step-ms", "must be a positive time in milliseconds");
    if (!(hw.hbm_GBps > 0))
        throw InputError("--gpu", hw.id + " has no HBM bandwidth in the catalog");
    StepAnalysis a;
    a.hw = hw;
    const double traffic = static_cast<double>(t.traffic_bytes);
    a.bw_GBps = traffic / (step_ms * 1e-3) / 1e9;
    a.util_hbm = a.bw_GBps / hw.hbm_GBps;
    a.floor_ms = traffic / (hw.hbm_GBps * 1e9) * 1e3;
    if (hw.capacity_bytes && *hw.capacity_bytes > 0)
        a.capacity_fraction = static_cast<double>(t.footprint_bytes) / static_cast<double>(*hw.capacity_bytes);
    // Capacity first: a step that does not fit does not run at all. Bandwidth when the traffic
    // explains at least half the step (the roofline analysis' threshold); otherwise neither.
    if (a.capacity_fraction && *a.capacity_fraction > 1)
        a.limit = StepLimit::capacity;
    else if (a.util_hbm >= 0.5)
        a.limit = StepLimit::bandwidth;
    else
        a.limit = StepLimit::neither;
    return a;
}

}  // namespace bwacct
