// The CPU ops no GPU activity can be charged to, dropped once the trace is read (docs/ingest.md,
// "Performance"). Linking (kineto_link.cpp) charges an activity to the op its External id names or to the
// innermost op of its launch's thread that holds the launch in time; costing, the cost groups and the
// inference from twins read only those ops and the ops enclosing them, which hold the same launch (or
// the start of the op an id keeps). An op that holds none of those and whose id no launch or activity
// carries (aten::empty, aten::view, a python-side op that queues nothing: most of a serving trace's ops)
// is never read after the trace is, so it is dropped and the summary is the same (fuzz_kineto checks it);
// the eager-attention view's gap between its matmuls counts only the ops left. A rule that reads the ops
// an op calls without launching anything (an allocation's shape, a view's size) must read them before
// this runs, on the trace as read. The runtime calls no activity names by its correlation id (a
// synchronisation, an event record, an allocation) are dropped first (drop_idle_calls): the linking finds a
// launch only by an activity's correlation, so an op that holds only such a call is never charged.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "bwacct/ingest_kineto.h"
#include "kineto_keep.h"

namespace bwacct::kineto {

std::size_t drop_idle_calls(Trace& t) {
    std::vector<std::int64_t> launched;  // the correlation ids the activities carry
    launched.reserve(t.activities.size());
    for (const GpuActivity& a : t.activities)
        if (a.correlation >= 0)
            launched.push_back(a.correlation);
    sort_unique(launched);
    const std::size_t before = t.launches.size();
    t.launches.erase(std::remove_if(t.launches.begin(), t.launches.end(),
                                    [&](const Launch& l) {
                                        return l.correlation < 0 ||
                                               !std::binary_search(launched.begin(), launched.end(), l.correlation);
                                    }),
                     t.launches.end());
    t.launches.shrink_to_fit();
    return before - t.launches.size();
}

std::size_t drop_idle_ops(Trace& t) {
    drop_idle_calls(t);
    std::vector<std::int64_t> ids;  // External ids that launches and activities carry
    ids.reserve(t.launches.size() + t.activities.size());
    std::unordered_map<std::uint32_t, std::vector<double>> launch_ts;  // per thread, sorted
    for (const Launch& l : t.launches) {
        if (l.external_id >= 0)
            ids.push_back(l.external_id);
        launch_ts[l.thread].push_back(l.ts);
    }
    for (const GpuActivity& a : t.activities)
        if (a.external_id >= 0)
            ids.push_back(a.external_id);
    sort_unique(ids);
    // An op kept by its id holds its own start: the ops enclosing it (whose shapes the costing climbs to when
    // it has none) hold that time too, and are kept as a launch inside them would keep them. Each op's id is
    // looked up once; `by_id` remembers the answer for the test below.
    std::vector<bool> by_id(t.ops.size(), false);
    for (std::size_t i = 0; i < t.ops.size(); ++i) {
        const CpuOp& o = t.ops[i];
        if (o.external_id >= 0 && std::binary_search(ids.begin(), ids.end(), o.external_id)) {
            by_id[i] = true;
            launch_ts[o.thread].push_back(o.ts);
        }
    }
    for (auto& [thread, ts] : launch_ts)
        std::sort(ts.begin(), ts.end());

    // Held: the op's id is carried, or a launch of its thread starts in [ts, ts + dur] (the linking's
    // own containment test, bounds included).
    auto held = [&](std::size_t i) {
        if (by_id[i])
            return true;
        const CpuOp& o = t.ops[i];
        const auto it = launch_ts.find(o.thread);
        return it != launch_ts.end() && holds_a_start(it->second, o.ts, o.dur);
    };
    const std::size_t before = t.ops.size();
    // Stable: the ops kept stay in file order, which the linking's tie-breaks read.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < before; ++i)
        if (held(i)) {
            if (kept != i)
                t.ops[kept] = std::move(t.ops[i]);
            ++kept;
        }
    t.ops.resize(kept);
    t.ops.shrink_to_fit();
    return before - t.ops.size();
}

}  // namespace bwacct::kineto
