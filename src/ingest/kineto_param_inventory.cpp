// The parameter inventory of a training trace and the tensor-list shapes inferred from it (docs/formulas.md,
// "Tensor-list ops"; kineto_param_inventory.h). Kineto writes a TensorList of more than 30 tensors as `[]`, so a real
// model's optimizer ops carry no shapes; the AccumulateGrad op of each parameter does.
#include "kineto_param_inventory.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <utility>

#include "bwacct/error.h"
#include "bwacct/exact.h"

namespace bwacct::kineto {
namespace {

constexpr std::size_t kListDisplayLimit = 30;  // PyTorch's TENSOR_LIST_DISPLAY_LENGTH_LIMIT

Exact elements(const std::vector<std::int64_t>& shape) {
    Exact n = 1;
    for (const std::int64_t d : shape)
        n = n * Exact(static_cast<std::uint64_t>(d));
    return n;
}

struct Interval {
    std::vector<const ListCall*> calls;
    std::vector<const CpuOp*> grads;  // the AccumulateGrad run before them
    // Where the run may start: the end of the previous interval's last call (−inf: the trace's start).
    double from = -std::numeric_limits<double>::infinity();
};

// `_foreach_add_` / `_foreach_add` of one TensorList and the Scalar 1 (its value as recorded, or none recorded):
// every PyTorch optimizer's step-counter increment, `_foreach_add_(state_steps, 1)`, whose list holds one step
// count per parameter (0-dim tensors), not the parameters.
bool step_counter_increment(const std::string& name, const CpuOp& op) {
    if (name != "aten::_foreach_add_" && name != "aten::_foreach_add")
        return false;
    if (op.types.size() != 2 || op.types[0] != "TensorList" || op.types[1] != "Scalar")
        return false;
    if (op.concrete.size() < 2 || op.concrete[1].empty())
        return true;
    const std::string& v = op.concrete[1];
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    return end == v.c_str() + v.size() && x == 1.0;
}

// One shapeless call of the interval, costed from the inventory or refused (`out`).
// `calls`: the interval's shapeless calls of this (op, element type); `one_group`: some (op, element type) of the
// interval is called once.
void infer_call(const Interval& iv, std::size_t calls, bool one_group, const ListCall* call, const ElementType& e,
                const ParameterInventory& inv, const std::optional<HbmRoof>& hbm, const std::string& head, ListInference& out) {
    const std::string& name = call->name;
    const auto refuse = [&](std::string reason) { out.refusals[call->op] = std::move(reason); };
    if (step_counter_increment(name, *call->cpu)) {
        const bool recorded = call->cpu->concrete.size() > 1 && !call->cpu->concrete[1].empty();
        refuse(
            fmt::format("{}; not inferred: {} of one list and {} may be an optimizer's step-counter increment "
                        "(_foreach_add_(state_steps, 1)): its list then holds one step count per parameter, not the "
                        "parameters",
                        head, name, recorded ? "the Scalar 1" : "a Scalar the trace does not record"));
        return;
    }
    const auto same = [&](const ListCall* o, const std::optional<ElementType>& oe) {
        return o->name == name && oe && oe->label == e.label;
    };
    // Several calls of one (op, type): an optimizer makes each of its ops' calls once per parameter group (of that
    // type), so when another op of the interval is called once there is one group, and each call is over the whole
    // list (foreach AdamW's mul_ of the parameters and of exp_avg_sq; foreach SGD's two add_). When every op is
    // called more than once, the calls may split the parameters among groups: refused.
    if (calls > 1 && !one_group) {
        refuse(
            fmt::format("{}; not inferred: {} calls of {} ({}) with lists written [] between two backward passes, and "
                        "the trace does not show which of its {} AccumulateGrad parameters each of the {} calls covers",
                        head, calls, name, e.label, inv.shapes.size(), calls));
        return;
    }
    // The inventory's tensors of the element type (foreach and fused optimizers group their tensors by dtype), less
    // those of the interval's shaped calls of the same op and type (a parameter group of 30 or fewer).
    std::vector<std::vector<std::int64_t>> params;
    if (!e.source && e.label == dtype_name(e.dtype))
        for (std::size_t k = 0; k < inv.shapes.size(); ++k)
            if (inv.dtypes[k] == e.dtype)
                params.push_back(inv.shapes[k]);
    std::size_t removed = 0;
    std::string missing;
    for (const ListCall* o : iv.calls) {
        if (o == call || shapeless_lists(*o->cpu) || !same(o, kernel_element_type(o->kernel, *o->cpu)))
            continue;
        const TensorListDims* l = input_list(*o->cpu, 0);
        for (std::size_t k = 0; l && k < l->kept() && missing.empty(); ++k) {
            const auto it = std::find(params.begin(), params.end(), l->shape(k));
            if (it == params.end()) {
                missing = fmt::format("[{}]", fmt::join(l->shape(k), "x"));
                break;
            }
            params.erase(it);
            ++removed;
        }
    }
    if (!missing.empty()) {
        refuse(
            fmt::format("{}; not inferred: a shaped call of {} in the same interval holds a tensor {} that is not among "
                        "the trace's AccumulateGrad parameters",
                        head, name, missing));
        return;
    }
    const std::string less = removed > 0 ? fmt::format(" less the {} tensors of its shaped calls", removed) : "";
    if (params.size() <= kListDisplayLimit) {
        refuse(
            fmt::format("{}; not inferred: the trace's AccumulateGrad parameters hold {} {} tensors{}, and Kineto spells "
                        "out a list of 30 or fewer: its lists are not the parameters",
                        head, params.size(), e.label, less));
        return;
    }
    const std::optional<CpuOp> filled = with_parameter_lists(name, *call->cpu, params);
    std::optional<OpCost> cost = filled ? cost_list_op(name, *filled, e) : std::nullopt;
    if (!cost) {
        refuse(fmt::format("{}; not inferred: its formula does not apply to the parameter lists", head));
        return;
    }
    Exact total = 0;
    for (const auto& s : params)
        total += elements(s);
    const std::string from =
        fmt::format("list shapes inferred from the trace's {} AccumulateGrad parameters ({} elements){}{}", params.size(),
                    total.value(), less,
                    inv.passes > 1 ? fmt::format(" (one of {} backward passes: {} AccumulateGrad ops)", inv.passes, inv.grads)
                                   : std::string());
    std::string whole = calls > 1 ? fmt::format(
                                        "; one of {} calls of {} in an interval whose other ops are called once "
                                        "(one parameter group): each over the whole list",
                                        calls, name)
                                  : std::string();
    double bytes = static_cast<double>(cost->cost.bytes_read) + static_cast<double>(cost->cost.bytes_written);
    if (!hbm || !(hbm->GBps > 0)) {
        refuse(
            fmt::format("{}; not inferred: {} would move {} B, which no GPU's HBM peak checks against its kernel time "
                        "(give --gpu)",
                        head, from, static_cast<std::uint64_t>(bytes)));
        return;
    }
    double floor_us = bytes / (hbm->GBps * 1e3);
    // An op reading three or more lists whose kernels ran faster than they allow, but not faster than the same less
    // one list: two of its inputs are one list passed twice and read once (Adam's addcmul_(exp_avg_sq, grad, grad)).
    std::size_t lists = 0;
    for (const std::string& t : call->cpu->types)
        lists += t == "TensorList" ? 1 : 0;
    const double list_bytes = static_cast<double>(storage_bytes(e.dtype, total).value());
    if (call->kernel_us < floor_us && lists >= 3 && static_cast<double>(cost->cost.bytes_read) >= 2 * list_bytes &&
        call->kernel_us >= (bytes - list_bytes) / (hbm->GBps * 1e3)) {
        cost->cost.bytes_read -= storage_bytes(e.dtype, total).value();
        bytes -= list_bytes;
        floor_us = bytes / (hbm->GBps * 1e3);
        cost->cost.terms.push_back({"an input list passed twice",
                                    "its kernels ran faster than its distinct lists allow at the HBM peak: one list read once",
                                    "", fmt::format("-{} B", storage_bytes(e.dtype, total).value())});
        whole +=
            "; one of its input lists counted once: its kernels ran faster than distinct lists allow (the same list "
            "passed twice, as Adam's addcmul_(exp_avg_sq, grad, grad))";
    }
    if (call->kernel_us < floor_us) {
        refuse(
            fmt::format("{}; not inferred: {} would move {} B, {:.1f} µs at {}'s HBM peak, but its kernels ran {:.1f} µs, "
                        "faster than that peak allows: its lists may not be these, or an input list may be passed "
                        "twice (read once)",
                        head, from, static_cast<std::uint64_t>(bytes), floor_us, hbm->gpu, call->kernel_us));
        return;
    }
    cost->shape += " inferred";
    for (Param& p : cost->params)
        if (p.name == "shape")
            p.value = cost->shape;
    cost->params.push_back({"shapes_from", std::string("inferred")});
    cost->params.push_back({"inferred_from", from + whole});
    cost->cost.terms.insert(cost->cost.terms.begin(),
                            {"list shapes",
                             "inferred from the AccumulateGrad ops before the call (Kineto wrote []: "
                             "more than 30 tensors)",
                             from, fmt::format("{} tensors, {} elements", params.size(), total.value())});
    out.costs.emplace(call->op, std::move(*cost));
}

// The interval's shapeless calls, each costed from the inventory or refused.
void infer_interval(const Interval& iv, const ThreadClues& clues, const std::optional<HbmRoof>& hbm, ListInference& out) {
    std::vector<std::pair<const ListCall*, ElementType>> shapeless;
    for (const ListCall* c : iv.calls)
        if (shapeless_lists(*c->cpu))
            if (const auto e = kernel_element_type(c->kernel, *c->cpu))  // none: the reason says so already
                shapeless.emplace_back(c, *e);
    if (shapeless.empty())
        return;
    std::string why;
    std::optional<ParameterInventory> inv;
    // The training loop's thread: the one calling the optimizer, which launched the forward (the backward's
    // AccumulateGrad ops run on the autograd engine's device thread).
    const std::uint32_t loop = iv.calls.front()->cpu->thread;
    if (iv.grads.empty())
        why = "no AccumulateGrad op before it in the trace (no backward pass profiled since the previous optimizer ops)";
    else if (std::any_of(iv.grads.begin(), iv.grads.end(), [&](const CpuOp* g) { return g->thread == loop; }))
        why =
            "its AccumulateGrad ops run on the optimizer's own thread, so its launches cannot tell a forward from the "
            "backward";
    else if (const CpuOp& first = *iv.grads.front(); !clues.launched_by(iv.from, first.ts, loop))
        why = fmt::format(
            "the optimizer's thread launched no GPU work between {} and the first of its {} AccumulateGrad ops (no "
            "forward pass: the trace may start mid-backward and hold only some of the parameters)",
            std::isfinite(iv.from) ? "the previous optimizer ops" : "the trace's start", iv.grads.size());
    else {
        std::vector<bool> breaks(iv.grads.size(), false);
        for (std::size_t i = 1; i < iv.grads.size(); ++i)
            breaks[i] = clues.launched_by(iv.grads[i - 1]->ts, iv.grads[i]->ts, loop);
        inv = parameter_inventory(iv.grads, breaks, why);
    }
    // The shapeless calls per (op, element type), counted once for the interval.
    std::map<std::pair<std::string, std::string>, std::size_t> calls_of;
    for (const auto& [call, e] : shapeless)
        ++calls_of[{call->name, e.label}];
    const bool one_group = std::any_of(calls_of.begin(), calls_of.end(), [](const auto& kv) { return kv.second == 1; });
    for (const auto& [call, e] : shapeless) {
        const std::string head = fmt::format("tensor-list shapes of {} not in trace (written [])", call->name);
        if (!inv) {
            out.refusals[call->op] = fmt::format("{}; not inferred: {}", head, why);
            continue;
        }
        try {  // a size past 64-bit counts (a crafted shape) refuses this call, never the trace
            infer_call(iv, calls_of.at({call->name, e.label}), one_group, call, e, *inv, hbm, head, out);
        } catch (const OverflowError&) {
            out.refusals[call->op] =
                fmt::format("{}; not inferred: the AccumulateGrad parameters' sizes overflow 64-bit counts", head);
        } catch (const InputError& x) {
            out.refusals[call->op] = fmt::format("{}; not inferred: {}", head, x.what());
        }
    }
}

}  // namespace

std::optional<ParameterInventory> parameter_inventory(const std::vector<const CpuOp*>& grads, const std::vector<bool>& breaks,
                                                      std::string& why) {
    if (grads.empty()) {
        why = "no AccumulateGrad op in the trace";
        return std::nullopt;
    }
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<DType> dtypes;
    for (const CpuOp* g : grads) {
        const bool shaped = !g->dims.empty() &&
                            std::all_of(g->dims.front().begin(), g->dims.front().end(), [](std::int64_t d) { return d >= 0; });
        bool typed = false;
        if (!g->types.empty())
            if (const std::optional<DType> t = torch_dtype(g->types.front())) {
                dtypes.push_back(*t);
                typed = true;
            }
        if (!typed || !shaped) {
            why = "an AccumulateGrad op without a parameter shape and floating dtype in its Input Dims and Input type";
            return std::nullopt;
        }
        shapes.push_back(g->dims.front());
    }
    const std::size_t n = shapes.size();
    std::size_t period = n;
    for (std::size_t p = 1; p < n; ++p) {
        if (n % p != 0)
            continue;
        bool periodic = true;
        for (std::size_t i = p; i < n && periodic; ++i)
            periodic =
                shapes[i] == shapes[i - p] && dtypes[i] == dtypes[i - p] && (i % p != 0 || (i < breaks.size() && breaks[i]));
        if (periodic) {
            period = p;
            break;
        }
    }
    ParameterInventory inv;
    inv.shapes.assign(shapes.begin(), shapes.begin() + static_cast<std::ptrdiff_t>(period));
    inv.dtypes.assign(dtypes.begin(), dtypes.begin() + static_cast<std::ptrdiff_t>(period));
    inv.grads = n;
    inv.passes = n / period;
    return inv;
}

const std::string& ThreadClues::process(std::uint32_t thread) const {
    static const std::string none;
    return thread < processes.size() ? processes[thread] : none;
}

bool ThreadClues::launched_by(double from, double to, std::uint32_t thread) const {
    auto it = std::upper_bound(launches.begin(), launches.end(), std::pair<double, std::uint32_t>(from, UINT32_MAX));
    for (; it != launches.end() && it->first < to; ++it)
        if (it->second == thread)
            return true;
    return false;
}

ListInference infer_list_shapes(std::vector<ListCall> calls, std::vector<const CpuOp*> grads, const ThreadClues& clues,
                                const std::optional<HbmRoof>& hbm) {
    ListInference out;
    std::stable_sort(calls.begin(), calls.end(), [](const ListCall& a, const ListCall& b) { return a.cpu->ts < b.cpu->ts; });
    std::stable_sort(grads.begin(), grads.end(), [](const CpuOp* a, const CpuOp* b) { return a->ts < b->ts; });
    // Per process: a merged multi-rank trace's ranks each have their own backward passes and optimizer calls.
    std::map<std::string, std::pair<std::vector<const ListCall*>, std::vector<const CpuOp*>>> by_process;
    for (const ListCall& c : calls)
        by_process[clues.process(c.cpu->thread)].first.push_back(&c);
    for (const CpuOp* g : grads)
        by_process[clues.process(g->thread)].second.push_back(g);
    for (const auto& [process, own] : by_process) {
        const auto& [own_calls, own_grads] = own;
        // Intervals: each maximal run of calls with no AccumulateGrad op between them, with the run of AccumulateGrad
        // ops before it (since the previous calls).
        Interval iv;
        std::size_t g = 0;
        double last_end = -std::numeric_limits<double>::infinity();
        for (const ListCall* c : own_calls) {
            std::vector<const CpuOp*> fresh;
            while (g < own_grads.size() && own_grads[g]->ts < c->cpu->ts)
                fresh.push_back(own_grads[g++]);
            if (!fresh.empty()) {
                infer_interval(iv, clues, hbm, out);
                iv = Interval{{}, std::move(fresh), last_end};
            }
            iv.calls.push_back(c);
            last_end = std::max(last_end, c->cpu->ts + c->cpu->dur);
        }
        infer_interval(iv, clues, hbm, out);
    }
    return out;
}

ListInference infer_list_shapes(const Trace& t, const Links& links, const std::optional<HbmRoof>& hbm) {
    if (t.accumulate_grads.empty())
        return {};
    std::map<std::size_t, ListCall> by_op;
    for (std::size_t a = 0; a < t.activities.size(); ++a) {
        const GpuActivity& k = t.activities[a];
        if (k.kind != Activity::kernel)
            continue;
        for (std::int64_t op = links.op[a]; op >= 0; op = links.parent[static_cast<std::size_t>(op)]) {
            const auto i = static_cast<std::size_t>(op);
            const std::string& name = t.names[t.ops[i].name];
            if (!optimizer_list_op(name))
                continue;
            auto [it, added] = by_op.try_emplace(i);
            if (added)
                it->second = ListCall{i, &t.ops[i], name, t.names[k.name], 0};
            it->second.kernel_us += k.dur;
            break;
        }
    }
    std::vector<ListCall> calls;
    calls.reserve(by_op.size());
    for (auto& [i, c] : by_op)
        calls.push_back(std::move(c));
    std::vector<const CpuOp*> grads;
    grads.reserve(t.accumulate_grads.size());
    for (const CpuOp& o : t.accumulate_grads)
        grads.push_back(&o);
    // The launches of GPU work: the training loop's (the next forward's, on the thread that calls the optimizer, while
    // the backward passes run on the autograd engine's device thread) before or between AccumulateGrad ops. Launches an activity
    // names only, so that the trace as read and after drop_idle_ops give the same.
    ThreadClues clues;
    std::vector<std::int64_t> ran;
    for (const GpuActivity& a : t.activities)
        if (a.correlation >= 0)
            ran.push_back(a.correlation);
    std::sort(ran.begin(), ran.end());
    for (const Launch& l : t.launches)
        if (std::binary_search(ran.begin(), ran.end(), l.correlation))
            clues.launches.emplace_back(l.ts, l.thread);
    std::sort(clues.launches.begin(), clues.launches.end());
    clues.processes.reserve(t.threads.size());
    for (const std::string& th : t.threads)
        clues.processes.push_back(th.substr(0, th.find('/')));
    return infer_list_shapes(std::move(calls), std::move(grads), clues, hbm);
}

}  // namespace bwacct::kineto
