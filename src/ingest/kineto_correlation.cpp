// Launches and GPU activities paired by a shared External id when the trace has no correlation ids
// (docs/ingest.md, "Linking"). Kineto writes a "correlation" arg on every runtime call and GPU activity;
// some ROCm profiler paths (a gfx942 trace of TraceLens's eval suite) write none: each launch and its
// kernel carry the same "External id" instead, of the runtime's own numbering (the ac2g flow has that id
// too), not the id of the op that launched them. Read as correlation ids, those pair each kernel with its
// launch, and the launch finds its op by time containment as any launch does (the innermost op of its thread
// holding it). The External ids are then cleared: read as op ids they would name whatever op has that number in
// the ops' own numbering, on any thread, as long as it spans the launch.
#include <algorithm>
#include <utility>
#include <vector>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

std::uint64_t correlate_by_external_id(Trace& t) {
    const auto has_correlation = [](const auto& e) { return e.correlation >= 0; };
    if (t.launches.empty() || std::any_of(t.launches.begin(), t.launches.end(), has_correlation) ||
        std::any_of(t.activities.begin(), t.activities.end(), has_correlation))
        return 0;
    // The launches' ids must name one launch each, and every activity's id one of them: then the ids pair
    // launches and activities as correlation ids would. Otherwise nothing is changed.
    std::vector<std::int64_t> ids;
    ids.reserve(t.launches.size());
    for (const Launch& l : t.launches)
        if (l.external_id >= 0)
            ids.push_back(l.external_id);
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
        return 0;
    std::uint64_t paired = 0;
    for (const GpuActivity& a : t.activities) {
        if (a.external_id < 0 || !std::binary_search(ids.begin(), ids.end(), a.external_id))
            return 0;
        ++paired;
    }
    for (Launch& l : t.launches) {
        l.correlation = l.external_id;
        l.external_id = -1;
    }
    for (GpuActivity& a : t.activities) {
        a.correlation = a.external_id;
        a.external_id = -1;
    }
    t.correlated_by_external_id = paired;
    return paired;
}

namespace {
struct ById {
    bool operator()(const std::pair<std::int64_t, CopyKind>& p, std::int64_t id) const { return p.first < id; }
    bool operator()(std::int64_t id, const std::pair<std::int64_t, CopyKind>& p) const { return id < p.first; }
};
}  // namespace

// ROCm's blit copy kernels take their launch's direction: the launches' (correlation, direction) pairs,
// sorted, looked up by each such kernel's correlation id. Nothing is built for a trace without them.
std::uint64_t copy_kinds_from_launches(Trace& t) {
    const auto blit = [&t](const GpuActivity& a) { return a.kind == Activity::memcpy && runtime_copy_kernel(t.names[a.name]); };
    if (std::none_of(t.activities.begin(), t.activities.end(), blit))
        return 0;
    std::vector<std::pair<std::int64_t, CopyKind>> kinds;
    for (const Launch& l : t.launches)
        if (l.copy != CopyKind::unknown && l.correlation >= 0)
            kinds.emplace_back(l.correlation, l.copy);
    std::sort(kinds.begin(), kinds.end());
    std::uint64_t given = 0;
    for (GpuActivity& a : t.activities) {
        if (a.correlation < 0 || !blit(a))
            continue;
        // one launch per correlation id; launches sharing one (ids reused across merged ranks) give a direction
        // only if all agree: sorted by (id, kind), the first and the last of the id's run then have one kind
        const auto [first, last] = std::equal_range(kinds.begin(), kinds.end(), a.correlation, ById{});
        if (first != last && first->second == std::prev(last)->second) {
            a.copy = first->second;
            ++given;
        }
    }
    return given;
}

std::vector<std::pair<std::int64_t, std::int64_t>> shared_launch_ids(const Trace& t, bool kernels_only) {
    std::vector<std::pair<std::int64_t, std::int64_t>> ids, shared;
    for (const GpuActivity& g : t.activities)
        if (g.correlation >= 0 && (!kernels_only || g.kind == Activity::kernel))
            ids.emplace_back(g.device, g.correlation);
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 1; i < ids.size(); ++i)
        if (ids[i] == ids[i - 1] && (shared.empty() || shared.back() != ids[i]))
            shared.push_back(ids[i]);
    return shared;
}

}  // namespace bwacct::kineto
