// The HBM peak a trace's inferred tensor-list shapes are checked against (inventory_hbm.h).
#include "inventory_hbm.h"

namespace bwacct::cli {

std::optional<kineto::HbmRoof> inventory_hbm(const std::string& device_name, const Catalog& catalog,
                                             const std::vector<const GpuSpec*>& given) {
    const GpuSpec* g = device_name.empty() ? nullptr : catalog.match(device_name);
    if (!g)
        for (const GpuSpec* x : given)
            if (!g || x->hbm_bw_GBps.value > g->hbm_bw_GBps.value ||
                (x->hbm_bw_GBps.value == g->hbm_bw_GBps.value && x->id < g->id))
                g = x;
    if (!g)
        return std::nullopt;
    return kineto::HbmRoof{g->id, g->hbm_bw_GBps.value};
}

}  // namespace bwacct::cli
