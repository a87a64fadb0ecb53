// Which CPU op launched each GPU activity: the activity's External id names the op (Kineto gives the
// innermost op on the launching thread); else the CUDA runtime launch with the same correlation id
// names it by its External id, or lies inside it in time on the same thread; else, with no launch
// record at all, the op of its twin in a repeated kernel sequence (kineto_infer.cpp).
#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

std::string_view link_how_name(LinkHow h) {
    switch (h) {
        case LinkHow::external_id:
            return "external id";
        case LinkHow::correlation:
            return "correlation id";
        case LinkHow::containment:
            return "time containment";
        case LinkHow::inferred:
            return "inferred";
        case LinkHow::none:
            return "none";
    }
    return "none";
}

namespace {

// Ops of one thread sorted by start (outer before inner on ties).
struct ThreadOps {
    std::vector<std::uint32_t> order;  // op indices by start (an 8 GiB trace holds far fewer than 2^32 ops)
};

bool contains(const CpuOp& o, double t) { return o.ts <= t && t <= o.ts + o.dur; }

// An id → index map as one sorted array (16 bytes an entry; a hash map takes about 40 on millions of ops).
struct IdIndex {
    std::int64_t id;
    std::size_t index;
};
// The entry of `id`, or null.
const IdIndex* find_id(const std::vector<IdIndex>& map, std::int64_t id) {
    const auto it = std::lower_bound(map.begin(), map.end(), id, [](const IdIndex& e, std::int64_t v) { return e.id < v; });
    return it != map.end() && it->id == id ? &*it : nullptr;
}

}  // namespace

Links link_activities(const Trace& t) {
    Links links;
    links.parent.assign(t.ops.size(), -1);
    links.op.assign(t.activities.size(), -1);
    links.how.assign(t.activities.size(), LinkHow::none);

    // Nesting per thread: a stack of open ops while walking them by start time.
    std::unordered_map<std::uint32_t, ThreadOps> threads;
    {
        std::unordered_map<std::uint32_t, std::size_t> per_thread;  // sized exactly: no doubling peak
        for (const CpuOp& o : t.ops)
            ++per_thread[o.thread];
        for (const auto& [tid, n] : per_thread)
            threads[tid].order.reserve(n);
    }
    for (std::size_t i = 0; i < t.ops.size(); ++i)
        threads[t.ops[i].thread].order.push_back(static_cast<std::uint32_t>(i));
    for (auto& [tid, to] : threads) {
        std::sort(to.order.begin(), to.order.end(), [&](std::uint32_t a, std::uint32_t b) {
            const CpuOp &x = t.ops[a], &y = t.ops[b];
            return x.ts != y.ts ? x.ts < y.ts : x.dur > y.dur;
        });
        std::vector<std::size_t> stack;
        for (const std::size_t i : to.order) {
            const CpuOp& o = t.ops[i];
            while (!stack.empty() && !(o.ts + o.dur <= t.ops[stack.back()].ts + t.ops[stack.back()].dur))
                stack.pop_back();
            if (!stack.empty())
                links.parent[i] = static_cast<std::int64_t>(stack.back());
            stack.push_back(i);
        }
    }
    // The innermost op on `thread` whose interval holds `time`, or -1.
    auto innermost = [&](std::uint32_t thread, double time) -> std::int64_t {
        const auto it = threads.find(thread);
        if (it == threads.end())
            return -1;
        const auto& order = it->second.order;
        auto pos = std::upper_bound(order.begin(), order.end(), time, [&](double v, std::uint32_t i) { return v < t.ops[i].ts; });
        if (pos == order.begin())
            return -1;
        auto cur = static_cast<std::int64_t>(*(pos - 1));
        while (cur >= 0 && !contains(t.ops[static_cast<std::size_t>(cur)], time))
            cur = links.parent[static_cast<std::size_t>(cur)];
        return cur;
    };

    // External id → op. Several ops sharing one id: the innermost (latest start) wins; on equal starts
    // the later in the file.
    std::vector<IdIndex> by_external;  // sized exactly: no doubling peak
    by_external.reserve(
        static_cast<std::size_t>(std::count_if(t.ops.begin(), t.ops.end(), [](const CpuOp& o) { return o.external_id >= 0; })));
    for (std::size_t i = 0; i < t.ops.size(); ++i)
        if (t.ops[i].external_id >= 0)
            by_external.push_back({t.ops[i].external_id, i});
    std::sort(by_external.begin(), by_external.end(),
              [](const IdIndex& a, const IdIndex& b) { return a.id != b.id ? a.id < b.id : a.index < b.index; });
    {
        std::size_t out = 0;
        for (std::size_t i = 0; i < by_external.size(); ++i) {
            if (out > 0 && by_external[out - 1].id == by_external[i].id) {
                if (t.ops[by_external[out - 1].index].ts <= t.ops[by_external[i].index].ts)
                    by_external[out - 1].index = by_external[i].index;
            } else {
                by_external[out++] = by_external[i];
            }
        }
        by_external.resize(out);
    }
    // Correlation id → launch: the first in the file.
    std::vector<IdIndex> by_correlation;
    by_correlation.reserve(static_cast<std::size_t>(
        std::count_if(t.launches.begin(), t.launches.end(), [](const Launch& l) { return l.correlation >= 0; })));
    for (std::size_t i = 0; i < t.launches.size(); ++i)
        if (t.launches[i].correlation >= 0)
            by_correlation.push_back({t.launches[i].correlation, i});
    std::sort(by_correlation.begin(), by_correlation.end(),
              [](const IdIndex& a, const IdIndex& b) { return a.id != b.id ? a.id < b.id : a.index < b.index; });
    {  // an id launched by two processes ("pid/tid": the process is the part before the '/')
        auto pid_of = [&](std::size_t launch) {
            const std::string_view th = t.threads[t.launches[launch].thread];
            return th.substr(0, th.find('/'));
        };
        for (std::size_t i = 0, j = 0; i < by_correlation.size(); i = j) {
            bool across = false;
            for (j = i + 1; j < by_correlation.size() && by_correlation[j].id == by_correlation[i].id; ++j)
                across = across || pid_of(by_correlation[j].index) != pid_of(by_correlation[i].index);
            links.correlation_ids_across_processes += across ? 1 : 0;
        }
    }
    by_correlation.erase(std::unique(by_correlation.begin(), by_correlation.end(),
                                     [](const IdIndex& a, const IdIndex& b) { return a.id == b.id; }),
                         by_correlation.end());

    for (std::size_t a = 0; a < t.activities.size(); ++a) {
        const GpuActivity& g = t.activities[a];
        const IdIndex* launch = g.correlation >= 0 ? find_id(by_correlation, g.correlation) : nullptr;
        const Launch* l = launch ? &t.launches[launch->index] : nullptr;
        // An op named by an External id must hold the launch in time when the launch is in the trace: a
        // trace whose ids are not the ops' (another counter's numbers) would otherwise charge a kernel to
        // an unrelated op. Such an id is passed over for the next clue.
        bool passed_over = false;
        auto by_id = [&](std::int64_t id) -> const IdIndex* {
            const IdIndex* e = id >= 0 ? find_id(by_external, id) : nullptr;
            if (e && l && !contains(t.ops[e->index], l->ts)) {
                links.ids_not_enclosing += passed_over ? 0 : 1;
                passed_over = true;
                return nullptr;
            }
            return e;
        };
        if (const IdIndex* e = by_id(g.external_id)) {
            links.op[a] = static_cast<std::int64_t>(e->index);
            links.how[a] = LinkHow::external_id;
            continue;
        }
        if (!l)
            continue;
        if (const IdIndex* e = by_id(l->external_id)) {
            links.op[a] = static_cast<std::int64_t>(e->index);
            links.how[a] = LinkHow::correlation;
            continue;
        }
        const std::int64_t op = innermost(l->thread, l->ts);
        if (op >= 0) {
            links.op[a] = op;
            links.how[a] = LinkHow::containment;
        } else {
            links.launch_outside_ops.push_back(a);
        }
    }
    infer_unlinked(t, links);
    return links;
}

}  // namespace bwacct::kineto
