// The accounting of a trace: every GPU activity linked, costed when a formula covers it (its NCCL
// metadata, else the innermost costable op that launched it), grouped per (op, shape, dtype); the
// GPU busy time split so that the parts add up to it exactly.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {
namespace {

constexpr std::int64_t kUnknown = -2, kNone = -1;

struct Grouper {
    const Trace& t;
    const Links& links;
    std::vector<Group> groups;
    std::unordered_map<std::string, std::size_t> index;  // op|shape|dtype → group
    std::vector<std::int64_t> op_group;                  // per op: group, kNone (no formula), kUnknown (not tried)
    std::uint64_t rejected = 0;                          // ops whose shapes the engine refused
    std::string first_rejection;

    std::size_t group_of(OpCost c) {
        const std::string key = c.op + "|" + c.shape + "|" + c.dtype;
        const auto it = index.find(key);
        if (it != index.end())
            return it->second;
        groups.push_back({std::move(c), 0, 0, 0, 0});
        index.emplace(key, groups.size() - 1);
        return groups.size() - 1;
    }
    std::int64_t cost_op(std::size_t i) {
        if (op_group[i] != kUnknown)
            return op_group[i];
        op_group[i] = kNone;
        try {
            if (auto c = cost_cpu_op(t.names[t.ops[i].name], t.ops[i])) {
                const std::size_t g = group_of(std::move(*c));
                ++groups[g].calls;
                op_group[i] = static_cast<std::int64_t>(g);
            }
        } catch (const std::exception& e) {  // shapes the engine refuses (InputError, OverflowError)
            if (rejected++ == 0)
                first_rejection = fmt::format("{}: {}", t.names[t.ops[i].name], e.what());
        }
        return op_group[i];
    }
    // The group of an activity: its NCCL metadata, else the innermost costable op at or above the
    // op that launched it; kNone when nothing covers it.
    std::int64_t activity_group(std::size_t a) {
        const GpuActivity& g = t.activities[a];
        if (g.kind == Activity::kernel && g.collective) {
            try {
                if (auto c = cost_collective_kernel(g)) {
                    const std::size_t grp = group_of(std::move(*c));
                    ++groups[grp].calls;
                    return static_cast<std::int64_t>(grp);
                }
            } catch (const std::exception& e) {
                if (rejected++ == 0)
                    first_rejection = fmt::format("{}: {}", t.names[g.name], e.what());
            }
        }
        for (std::int64_t op = links.op[a]; op >= 0; op = links.parent[static_cast<std::size_t>(op)]) {
            const std::int64_t grp = cost_op(static_cast<std::size_t>(op));
            if (grp >= 0)
                return grp;
        }
        return kNone;
    }
};

}  // namespace

Summary summarize(const Trace& t) {
    const Links links = link_activities(t);
    Grouper gr{t, links, {}, {}, std::vector<std::int64_t>(t.ops.size(), kUnknown), 0, {}};
    Summary s;
    s.activities = t.activities.size();
    s.categories.resize(static_cast<std::size_t>(Category::other) + 1);
    for (std::size_t c = 0; c < s.categories.size(); ++c)
        s.categories[c].category = static_cast<Category>(c);

    std::vector<std::int64_t> group(t.activities.size());
    std::vector<Category> category(t.activities.size());
    std::map<std::uint32_t, std::size_t> kernel_rows;  // kernel name → row
    for (std::size_t a = 0; a < t.activities.size(); ++a) {
        const GpuActivity& g = t.activities[a];
        ++s.linked[static_cast<std::size_t>(links.how[a])];
        group[a] = gr.activity_group(a);
        category[a] = group[a] >= 0 ? gr.groups[static_cast<std::size_t>(group[a])].what.category
                                    : activity_category(g.kind, t.names[g.name]);
        CategoryTime& ct = s.categories[static_cast<std::size_t>(category[a])];
        ++ct.kernels;
        ct.kernel_us += g.dur;
        s.kernel_us += g.dur;
        if (group[a] >= 0) {
            Group& grp = gr.groups[static_cast<std::size_t>(group[a])];
            ++grp.kernels;
            grp.kernel_us += g.dur;
            ++ct.costed;
        } else {
            ++s.uncosted_kernels;
            s.uncosted_us += g.dur;
        }
        const auto [it, fresh] = kernel_rows.emplace(g.name, s.kernels.size());
        if (fresh) {
            KernelRow row;
            row.name = t.names[g.name];
            row.category = category[a];
            if (links.op[a] >= 0)
                row.op = t.names[t.ops[static_cast<std::size_t>(links.op[a])].name];
            s.kernels.push_back(std::move(row));
        }
        KernelRow& row = s.kernels[it->second];
        ++row.count;
        row.total_us += g.dur;
        if (row.op.empty() && links.op[a] >= 0)
            row.op = t.names[t.ops[static_cast<std::size_t>(links.op[a])].name];
    }

    // Busy time: the union of the activity intervals, each instant given to the highest time class
    // running then and shared among its activities (kineto_timeline.cpp), so the shares add up to it.
    s.time = account_time(t, links, category, s.categories.size());
    for (std::size_t a = 0; a < t.activities.size(); ++a) {
        const double share = s.time.activity_busy[a];
        CategoryTime& ct = s.categories[static_cast<std::size_t>(category[a])];
        ct.busy_us += share;
        if (group[a] >= 0) {
            gr.groups[static_cast<std::size_t>(group[a])].busy_us += share;
        } else {
            ct.uncosted_busy_us += share;
            s.uncosted_busy_us += share;
        }
    }
    for (std::size_t c = 0; c < s.categories.size(); ++c)
        s.categories[c].exposed_us = s.time.category_exposed_us[c];
    s.busy_us = s.time.trace.busy_us;
    s.span_us = s.time.trace.span_us;
    s.idle_us = std::max(0.0, s.span_us - s.busy_us);

    s.groups = std::move(gr.groups);
    std::stable_sort(s.groups.begin(), s.groups.end(), [](const Group& a, const Group& b) { return a.kernel_us > b.kernel_us; });
    std::stable_sort(s.kernels.begin(), s.kernels.end(),
                     [](const KernelRow& a, const KernelRow& b) { return a.total_us > b.total_us; });
    if (gr.rejected > 0)
        s.warnings.push_back(
            fmt::format("{} op(s) not costed: the engine refused their shapes (first: {})", gr.rejected, gr.first_rejection));
    return s;
}

}  // namespace bwacct::kineto
