// The accounting of a trace: every GPU activity linked, costed when a formula covers it (its NCCL
// metadata, else the innermost costable op that launched it), grouped per (op, shape, dtype); the
// GPU busy time split so that the parts add up to it exactly.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/quant.h"
#include "kineto_attention.h"
#include "kineto_cost_reasons.h"
#include "kineto_param_inventory.h"

namespace bwacct::kineto {
namespace {

constexpr std::int64_t kUnknown = -2, kNone = -1;

// Why a MoE op has no formula: its inputs hold no expert weights (3-D, after the hidden states), or they
// do but no integer [T, k] top-k ids (a floating [T, k] may be top-k weights, router logits [T, E] or
// per-token activation scales [T, 1]: its shape cannot say which).
std::string moe_uncosted_reason(const std::string& name, const CpuOp& op) {
    const bool weights =
        op.dims.size() > 1 && std::any_of(op.dims.begin() + 1, op.dims.end(), [](const auto& d) { return d.size() == 3; });
    return weights ? fmt::format("no top-k expert ids (an integer [T, k] input) among the inputs of {}", name)
                   : fmt::format("no expert-weight shapes among the inputs of {}", name);
}

struct Grouper {
    const Trace& t;
    const Links& links;
    const TraceHints& hints;
    std::optional<ModelParallel> parallel;  // with a MoE config among the hints: the degree its experts split over
    std::vector<Group> groups;
    std::unordered_map<std::string, std::size_t> index;  // op|shape|dtype → group
    std::vector<std::int64_t> op_group;                  // per op: group, kNone (no formula), kUnknown (not tried)
    std::vector<bool> op_rejected;                       // per op: the engine refused its shapes
    std::uint64_t ranks = 0;                             // the group size the trace's NCCL kernels give (0: none)
    std::uint64_t rejected = 0;                          // ops whose shapes the engine refused
    std::string first_rejection;
    std::uint64_t hinted = 0;                         // MoE ops costed from the hints' model config
    std::map<std::size_t, std::string> hint_refusal;  // per MoE op the config could not cost: why (by op index)
    std::map<std::size_t, std::uint64_t> inferred;    // group → kernels costed through an inferred link
    NameCategories compiled_categories;               // compiled kernels' categories by name, this pass's
    ListInference list_shapes;                        // list ops costed from the parameter inventory, or why not

    std::size_t group_of(OpCost c) {
        const std::string key = c.op + "|" + c.shape + "|" + c.dtype;
        const auto it = index.find(key);
        if (it != index.end())
            return it->second;
        groups.push_back({std::move(c), 0, 0, 0, 0, 0, 0});
        index.emplace(key, groups.size() - 1);
        return groups.size() - 1;
    }
    // `kernel_name`: the kernel the op launched (a tensor list's element type is in it, not in the trace);
    // the first kernel's result is kept for the op (the kernels of a list op all carry the type).
    std::int64_t cost_op(std::size_t i, std::string_view kernel_name) {
        if (op_group[i] != kUnknown)
            return op_group[i];
        op_group[i] = kNone;
        try {
            const auto from_inventory = list_shapes.costs.find(i);
            auto c = from_inventory != list_shapes.costs.end()
                         ? std::optional<OpCost>(from_inventory->second)
                         : cost_cpu_op(t.names[t.ops[i].name], t.ops[i], kernel_name, &compiled_categories);
            if (!c && !t.ops[i].dims.empty())
                c = cost_symmetric_collective(t.names[t.ops[i].name], t.ops[i], ranks);
            if (!c && parallel && moe_op_name(t.names[t.ops[i].name])) {  // expert weights not among the inputs
                std::string why;
                c = cost_moe_from_config(t.names[t.ops[i].name], t.ops[i], *hints.model, *parallel, hints.model_origin, why);
                if (c)
                    ++hinted;
                else if (!why.empty())
                    hint_refusal.emplace(i, std::move(why));
            }
            if (c) {
                const std::size_t g = group_of(std::move(*c));
                ++groups[g].calls;
                op_group[i] = static_cast<std::int64_t>(g);
            }
        } catch (const std::exception& e) {  // shapes the engine refuses (InputError, OverflowError)
            op_rejected[i] = true;
            if (rejected++ == 0)
                first_rejection = fmt::format("{}: {}", t.names[t.ops[i].name], e.what());
        }
        return op_group[i];
    }
    // An Inductor kernel's op (named `triton_*` for the Triton kernel it launches) costs that kernel's arguments: a
    // kernel linked to it that is no Triton kernel at all (an extern GEMM whose launch carried the op's id) is not
    // what its formula counts. (Any Triton kernel is its own: without unique kernel names Inductor's kernels are all
    // called `triton_…` while the op keeps the descriptive name.)
    bool foreign_to_compiled_op(std::size_t op, std::uint32_t kernel_name) const {
        return t.names[t.ops[op].name].rfind("triton_", 0) == 0 && t.names[kernel_name].rfind("triton", 0) != 0;
    }
    // The group of an activity: its NCCL metadata, else the innermost costable op at or above the
    // op that launched it; kNone when nothing covers it.
    std::int64_t activity_group(std::size_t a) {
        const GpuActivity& g = t.activities[a];
        if (g.kind != Activity::kernel) {  // a memcpy or memset: its own bytes and direction
            const CpuOp* op = links.op[a] >= 0 ? &t.ops[static_cast<std::size_t>(links.op[a])] : nullptr;
            if (auto c = cost_transfer(g, t.names[g.name], op, op ? std::string_view(t.names[op->name]) : std::string_view())) {
                const std::size_t grp = group_of(std::move(*c));
                ++groups[grp].calls;
                return static_cast<std::int64_t>(grp);
            }
            return kNone;
        }
        if (const CollectiveArgs* m = collective_of(t, links, a)) {  // its own, or its twins' (inferred)
            try {
                if (auto c = cost_collective_kernel(*m, t.names[g.name])) {
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
            if (foreign_to_compiled_op(static_cast<std::size_t>(op), g.name))
                continue;
            const std::int64_t grp = cost_op(static_cast<std::size_t>(op), t.names[g.name]);
            if (grp >= 0) {
                if (links.how[a] == LinkHow::inferred)
                    ++inferred[static_cast<std::size_t>(grp)];
                return grp;
            }
        }
        return kNone;
    }
    // The name of the op an uncosted activity is filed under: the innermost linked op with shapes,
    // else the innermost linked op; "" when none is linked.
    std::string_view op_name(std::size_t a) const {
        const std::int64_t id = op_name_id(a);
        return id >= 0 ? std::string_view(t.names[static_cast<std::size_t>(id)]) : std::string_view();
    }
    // That name as its index into t.names; -1 when no op is linked.
    std::int64_t op_name_id(std::size_t a) const {
        for (std::int64_t op = links.op[a]; op >= 0; op = links.parent[static_cast<std::size_t>(op)])
            if (op_has_shapes(t.ops[static_cast<std::size_t>(op)]))
                return t.ops[static_cast<std::size_t>(op)].name;
        return links.op[a] >= 0 ? std::int64_t{t.ops[static_cast<std::size_t>(links.op[a])].name} : -1;
    }
    // Whether a runtime call carries correlation id `c` (the launches' ids, sorted, built on first use).
    mutable std::vector<std::int64_t> launch_ids;
    bool has_launch(std::int64_t c) const {
        if (c < 0)
            return false;
        if (launch_ids.empty()) {
            for (const Launch& l : t.launches)
                launch_ids.push_back(l.correlation);
            launch_ids.push_back(-1);  // never empty once built
            std::sort(launch_ids.begin(), launch_ids.end());
        }
        return std::binary_search(launch_ids.begin(), launch_ids.end(), c);
    }
    // Whether kernel `a` ran in a CUDA graph replay: it shares its (device, correlation id) with another kernel
    // (shared_launch_ids; built on first use).
    mutable std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> graph_ids;
    bool graph_replay(std::size_t a) const {
        const GpuActivity& g = t.activities[a];
        if (g.correlation < 0)
            return false;
        if (!graph_ids)
            graph_ids = shared_launch_ids(t, true);
        return std::binary_search(graph_ids->begin(), graph_ids->end(),
                                  std::pair<std::int64_t, std::int64_t>(g.device, g.correlation));
    }
    // Why an activity has no formula (docs/ingest.md, "Reasons").
    std::string reason(std::size_t a, Category category) const {
        const GpuActivity& g = t.activities[a];
        // An activity without an op, kernel or copy, is said the one way: why no op holds it.
        const auto unlinked = [&] {
            return std::string(std::binary_search(links.launch_outside_ops.begin(), links.launch_outside_ops.end(), a)
                                   ? "no CPU op linked (its launch record lies in no CPU op of the trace, e.g. a CUDA graph "
                                     "replayed outside any profiled op)"
                                   : "no CPU op linked (no launch record: queued before the profiler started)");
        };
        if (g.kind != Activity::kernel) {
            if (category == Category::memcpy && runtime_copy_kernel(t.names[g.name])) {
                // the call's fault only where there is a call; a kernel no op holds says so first, as a kernel does
                const std::string dir =
                    fmt::format("copy direction unknown (a runtime copy kernel; {}: HtoD, DtoH and DtoD run alike)",
                                has_launch(g.correlation) ? "its launching runtime call gives no \"kind\""
                                                          : "no launching runtime call gives its \"kind\"");
                return links.op[a] < 0 ? unlinked() + "; " + dir : dir;
            }
            if (links.op[a] < 0)  // a blit kernel never carries a "bytes" arg: only a memcpy/memset event lacks one
                return runtime_kernel_kind(t.names[g.name]) == Activity::kernel ? unlinked() + "; no \"bytes\" arg" : unlinked();
            return fmt::format("no byte count in trace (no \"bytes\" arg; the launching op {} does not give the size)",
                               t.names[t.ops[static_cast<std::size_t>(links.op[a])].name]);
        }
        if (collective_of(t, links, a))
            return "collective metadata not understood (collective name, dtype or group size)";
        if (const std::string_view why = collective_why(links, a); !why.empty())
            return std::string(why);
        if (links.op[a] < 0)
            return unlinked();
        for (std::int64_t op = links.op[a]; op >= 0; op = links.parent[static_cast<std::size_t>(op)])
            if (const auto it = list_shapes.refusals.find(static_cast<std::size_t>(op)); it != list_shapes.refusals.end())
                return it->second;  // a list op whose [] lists the parameter inventory could not stand for
        std::int64_t shaped = -1;
        for (std::int64_t op = links.op[a]; op >= 0 && shaped < 0; op = links.parent[static_cast<std::size_t>(op)])
            if (op_has_shapes(t.ops[static_cast<std::size_t>(op)]))
                shaped = op;
        if (shaped < 0) {
            const CpuOp& linked = t.ops[static_cast<std::size_t>(links.op[a])];
            if (std::string why = list_gap_reason(t.names[linked.name], linked, t.names[g.name]); !why.empty())
                return why;  // a tensor-list op whose lists Kineto wrote without shapes
            if (category == Category::collective)
                return "no collective metadata or shapes in trace";
            // a replayed graph's kernels have no op of their own: record_shapes cannot give them shapes
            return graph_replay(a) ? "no shapes in trace (a CUDA graph replay: its kernels share one launch)"
                                   : "no shapes in trace";
        }
        const std::size_t i = static_cast<std::size_t>(shaped);
        if (foreign_to_compiled_op(i, g.name))
            return fmt::format("its op {} is a compiled (Inductor) kernel's, whose arguments are that kernel's, not this one's",
                               t.names[t.ops[i].name]);
        if (op_rejected[i])
            return fmt::format("shapes of {} refused by the engine", t.names[t.ops[i].name]);
        const CpuOp& o = t.ops[i];
        const bool lists = std::any_of(o.types.begin(), o.types.end(), [](const std::string& ty) { return ty == "TensorList"; });
        if (category == Category::collective && ranks < 2)
            return fmt::format("no group size in trace (no NCCL metadata) for {}", t.names[o.name]);
        if (std::string why = attention_uncosted_reason(t.names[o.name], o); !why.empty())
            return why;
        if (std::string why = indexing_uncosted_reason(t.names[o.name], o); !why.empty())
            return why;
        if (std::string why = conv_uncosted_reason(t.names[o.name], o); !why.empty())
            return why;
        const auto refused = hint_refusal.find(i);
        std::string list_why = lists ? list_gap_reason(t.names[o.name], o, t.names[g.name]) : std::string();
        if (lists && list_why.empty())
            list_why = fmt::format("no formula for {}", t.names[o.name]);
        std::string r = lists                           ? list_why
                        : refused != hint_refusal.end() ? refused->second
                        : category == Category::moe     ? moe_uncosted_reason(t.names[o.name], o)
                                                        : fmt::format("no formula for {}", t.names[o.name]);
        if (const std::string types = kernel_operand_types(t.names[g.name]); !types.empty())
            r += fmt::format(" (operands {})", types);
        return r;
    }
};

// What the hints did, said in the report: the ops costed from the config and how, the ops it could not cost,
// or that it costed nothing (a dense config, no MoE op lacking its weights); the config's limitations.
void hint_notes(const TraceHints& hints, const Grouper& gr, Summary& s) {
    const TransformerConfig& cfg = *hints.model;
    if (!cfg.moe) {
        s.notes.push_back(fmt::format("{}: {} has no routed experts; no op costed from it", hints.model_origin,
                                      cfg.name.empty() ? std::string("the model") : cfg.name));
        return;
    }
    if (gr.hinted > 0) {
        s.notes.push_back(fmt::format(
            "{} MoE ops costed from {}: T and E from each op's inputs (E checked against the config's {} routed experts); "
            "top-k {}, hidden {}, expert FFN {} and the expert weights' format ({}) from the config; split over d = {} "
            "ranks ({}); activations at the trace's dims, weights at the config's; records labelled shapes_from "
            "\"--hf-config\"",
            gr.hinted, hints.model_origin, cfg.moe->experts, cfg.moe->top_k, cfg.hidden, cfg.moe->expert_ffn,
            cfg.weight_format ? format_name(*cfg.weight_format) : std::string("the hidden states' type"), gr.parallel->degree,
            gr.parallel->clue));
    } else if (gr.hint_refusal.empty()) {
        s.notes.push_back(
            fmt::format("{}: no MoE op without expert weights in the trace; no op costed from it", hints.model_origin));
    }
    if (!gr.hint_refusal.empty())
        s.warnings.push_back(fmt::format("{} MoE ops not costed from {} (the first: {})", gr.hint_refusal.size(),
                                         hints.model_origin, gr.hint_refusal.begin()->second));
    for (const std::string& l : cfg.limitations)
        s.notes.push_back(fmt::format("{} limitation: {}", hints.model_origin, l));
}

}  // namespace

Summary summarize(const Trace& t) { return summarize(t, link_activities(t)); }

Summary summarize(const Trace& t, const Links& links, const TraceHints& hints) {
    Grouper gr{t,
               links,
               hints,
               std::nullopt,
               {},
               {},
               std::vector<std::int64_t>(t.ops.size(), kUnknown),
               std::vector<bool>(t.ops.size(), false),
               0,
               0,
               {},
               0,
               {},
               {},
               {},
               {},
               {},
               {}};
    if (hints.model && hints.model->moe)
        gr.parallel = model_parallel_degree(t, *hints.model, hints.tp);
    gr.list_shapes = infer_list_shapes(t, links, hints.hbm);
    {  // the most common NCCL group size: the world of the trace's other collectives
        std::map<std::uint64_t, std::uint64_t> sizes;
        for (const GpuActivity& g : t.activities)
            if (g.collective && g.collective->group_size >= 2)
                ++sizes[g.collective->group_size];
        std::uint64_t best = 0;
        for (const auto& [size, n] : sizes)
            if (n > best) {
                best = n;
                gr.ranks = size;
            }
    }
    Summary s;
    s.activities = t.activities.size();
    s.categories.resize(static_cast<std::size_t>(Category::other) + 1);
    for (std::size_t c = 0; c < s.categories.size(); ++c)
        s.categories[c].category = static_cast<Category>(c);

    std::vector<std::int64_t> group(t.activities.size());
    // Why each uncosted activity has no formula, as an index into `reasons` (4 bytes an activity).
    std::vector<std::string> reasons;
    std::map<std::string, std::uint32_t> reason_index;
    std::vector<std::uint32_t> reason_of(t.activities.size(), 0);
    std::vector<Category> category(t.activities.size());
    std::map<std::uint32_t, std::size_t> kernel_rows;                    // kernel name → row
    std::map<std::size_t, std::map<std::string, double>> row_reason_us;  // row → reason → uncosted kernel µs
    // The name rules (several µs a name) run once per (kind, kernel name, op name), not once per activity.
    std::map<std::tuple<Activity, CopyKind, std::uint32_t, std::int64_t>, Category> category_of_names;
    const auto uncosted_category = [&](std::size_t a) {
        const GpuActivity& g = t.activities[a];
        const std::int64_t op = gr.op_name_id(a);
        const auto [at, added] = category_of_names.try_emplace({g.kind, g.copy, g.name, op}, Category::other);
        if (added)
            at->second = activity_category(g.kind, t.names[g.name], gr.op_name(a), g.copy);
        return at->second;
    };
    for (std::size_t a = 0; a < t.activities.size(); ++a) {
        const GpuActivity& g = t.activities[a];
        ++s.linked[static_cast<std::size_t>(links.how[a])];
        group[a] = gr.activity_group(a);
        category[a] = group[a] >= 0 ? gr.groups[static_cast<std::size_t>(group[a])].what.category : uncosted_category(a);
        const std::string why = group[a] >= 0 ? std::string() : gr.reason(a, category[a]);
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
            ct.uncosted_reasons[why] += g.dur;
            const auto [at, added] = reason_index.emplace(why, static_cast<std::uint32_t>(reasons.size()));
            if (added)
                reasons.push_back(why);
            reason_of[a] = at->second;
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
        if (!why.empty()) {  // the row's reason: the one covering most of its uncosted kernel time
            const double now = row_reason_us[it->second][why] += g.dur;
            if (row.reason.empty() || (why != row.reason && now > row_reason_us[it->second][row.reason]))
                row.reason = why;
        }
        ++row.count;
        row.total_us += g.dur;
        if (row.op.empty() && links.op[a] >= 0)
            row.op = t.names[t.ops[static_cast<std::size_t>(links.op[a])].name];
    }

    // Inferred kernels ran in calls no op recorded: as many calls as their group's linked kernels per call.
    for (const auto& [g, k] : gr.inferred) {
        Group& grp = gr.groups[g];
        if (grp.kernels <= k || grp.calls == 0) {  // no linked twin costed here (cannot happen; never divide by 0)
            grp.calls += k;
            continue;
        }
        const auto per_call = static_cast<double>(grp.kernels - k) / static_cast<double>(grp.calls);
        grp.calls += static_cast<std::uint64_t>(std::llround(static_cast<double>(k) / per_call));
    }

    // Busy time: the union of the activity intervals, each instant given to the highest time class
    // running then and shared among its activities (kineto_timeline.cpp), so the shares add up to it.
    s.time = account_time(t, links, category, s.categories.size());
    for (std::size_t a = 0; a < t.activities.size(); ++a) {
        const double share = s.time.activity_busy[a], window_share = s.time.activity_window_busy[a];
        CategoryTime& ct = s.categories[static_cast<std::size_t>(category[a])];
        ct.busy_us += share;
        ct.window_us += s.time.activity_window_us[a];
        ct.window_busy_us += window_share;
        if (group[a] >= 0) {
            Group& grp = gr.groups[static_cast<std::size_t>(group[a])];
            grp.busy_us += share;
            grp.window_us += s.time.activity_window_us[a];
            grp.window_busy_us += window_share;
        } else {
            ct.uncosted_busy_us += share;
            s.uncosted_busy_us += share;
            ct.window_uncosted_busy_us += window_share;
            s.window_uncosted_busy_us += window_share;
            if (window_share > 0)
                ct.window_uncosted_reasons[reasons[reason_of[a]]] += window_share;
        }
    }
    for (std::size_t c = 0; c < s.categories.size(); ++c) {
        s.categories[c].exposed_us = s.time.category_exposed_us[c];
        s.categories[c].window_exposed_us = s.time.window_category_exposed_us[c];
    }
    s.window_busy_us = s.time.window.busy_us;
    s.busy_us = s.time.trace.busy_us;
    s.span_us = s.time.trace.span_us;
    s.idle_us = std::max(0.0, s.span_us - s.busy_us);

    s.groups = std::move(gr.groups);
    std::stable_sort(s.groups.begin(), s.groups.end(), [](const Group& a, const Group& b) { return a.kernel_us > b.kernel_us; });
    std::stable_sort(s.kernels.begin(), s.kernels.end(),
                     [](const KernelRow& a, const KernelRow& b) { return a.total_us > b.total_us; });
    if (!links.collective_twin.empty())
        s.notes.push_back(fmt::format(
            "{} collective kernels without metadata of their own (queued before the profiler started) costed from the "
            "collective metadata of their linked twins in the same place of a repeated kernel sequence (inferred; outside "
            "the profiled window)",
            links.collective_twin.size()));
    if (hints.model)
        hint_notes(hints, gr, s);
    if (!gr.list_shapes.costs.empty()) {
        const OpCost& first = gr.list_shapes.costs.begin()->second;
        s.notes.push_back(fmt::format(
            "{} tensor-list op call{} whose lists Kineto wrote as [] (more than 30 tensors) costed from the trace's "
            "parameter inventory (its AccumulateGrad ops, one backward pass's): records labelled shapes_from \"inferred\" "
            "(the first: {}: {})",
            gr.list_shapes.costs.size(), gr.list_shapes.costs.size() == 1 ? "" : "s", first.op,
            std::get<std::string>(first.params.back().value)));
    }
    if (gr.rejected > 0)
        s.warnings.push_back(
            fmt::format("{} op(s) not costed: the engine refused their shapes (first: {})", gr.rejected, gr.first_rejection));
    return s;
}

}  // namespace bwacct::kineto
