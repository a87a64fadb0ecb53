// Tensor-list optimizer ops whose lists Kineto wrote as `[]` (more than 30 tensors), costed from the trace's own
// parameter inventory: the `torch::autograd::AccumulateGrad` ops, one per parameter per backward pass, whose Input
// Dims and Input type are the parameter's shape and dtype (docs/formulas.md, "Tensor-list ops"). Pure: no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

// One backward pass's parameters, in the order their AccumulateGrad ops ran.
struct ParameterInventory {
    std::vector<std::vector<std::int64_t>> shapes;
    std::vector<DType> dtypes;
    std::size_t grads = 0;   // AccumulateGrad ops folded into it (shapes.size() × passes)
    std::size_t passes = 1;  // backward passes they held (gradient accumulation)
};
// From the AccumulateGrad ops of one optimizer interval, in time order: one period of the sequence, the smallest p
// dividing its length with the sequence p-periodic in (shape, dtype) and a pass break before every k·p-th op
// (several backward passes before one optimizer step hold the same parameters each time; `breaks[i]`: another
// thread, the next forward's, launched GPU work between ops i − 1 and i, so that one backward pass of identical
// shapes is never folded). nullopt, with `why`, when there are none or one lacks a shape or a floating dtype.
std::optional<ParameterInventory> parameter_inventory(const std::vector<const CpuOp*>& grads, const std::vector<bool>& breaks,
                                                      std::string& why);
// What the trace shows of its threads, for the rule: where GPU work was launched, and which process each thread is in.
struct ThreadClues {
    // (ts, thread) of every launch of GPU work that ran, sorted: a launch by the training loop's thread (the one that
    // calls the optimizer) between two AccumulateGrad ops is the next forward (a backward-pass break); one before the
    // first is the forward of a whole backward pass. Another thread's (a prefetch copy, a metrics read) is neither.
    std::vector<std::pair<double, std::uint32_t>> launches;
    // Per thread index, its process (the pid of Trace::threads' "pid/tid"); a thread past the end: process "".
    std::vector<std::string> processes;
    const std::string& process(std::uint32_t thread) const;
    // Whether `thread` launched GPU work in (from, to).
    bool launched_by(double from, double to, std::uint32_t thread) const;
};

// One call of a tensor-list optimizer op (optimizer_list_op) that launched kernels.
struct ListCall {
    std::size_t op = 0;  // the caller's index of the op (Trace::ops)
    const CpuOp* cpu = nullptr;
    std::string name;
    std::string kernel;    // a kernel it launched: its lists' element type (kernel_element_type)
    double kernel_us = 0;  // its kernels' total time
};
struct ListInference {
    std::map<std::size_t, OpCost> costs;          // op → its cost from inferred list shapes
    std::map<std::size_t, std::string> refusals;  // op → why its lists were not inferred (one line)
};
// The rule (docs/formulas.md, "Tensor-list ops"), per process (a merged multi-rank trace: each rank's calls take its
// own AccumulateGrad ops): the calls between two runs of AccumulateGrad ops (one optimizer interval) are matched with
// the run before them, which must follow a launch by the calls' own thread (the training loop's forward: a whole
// backward pass, not a trace starting mid-backward); a call whose every TensorList is `[]` is costed from the inventory's tensors
// of its element type when it is no step-counter increment (`_foreach_add_(state_steps, 1)`), it is its only such call of (op,
// element type) in the interval, those tensors (less those of the interval's shaped calls of the same op and type) number more
// than 30, and its kernels ran at least as long as the inferred bytes need at `hbm`'s peak. Without `hbm`: nothing inferred.
// Never throws for a shape: a size that overflows 64-bit counts is that call's refusal.
ListInference infer_list_shapes(std::vector<ListCall> calls, std::vector<const CpuOp*> grads, const ThreadClues& clues,
                                const std::optional<HbmRoof>& hbm);
// The same over a trace: its linked kernels' list ops, Trace::accumulate_grads, its launches and its threads' pids.
ListInference infer_list_shapes(const Trace& t, const Links& links, const std::optional<HbmRoof>& hbm);

// Defined with the list formulas (kineto_cost_lists.cpp):
// Whether `name` is a tensor-list op over parameter-sized lists: `_foreach_*`, fused Adam/AdamW, SGD, Adagrad, AMP's
// unscale (not cat, stack or _chunk_cat).
bool optimizer_list_op(std::string_view name);
// Whether the op has TensorList inputs and Kineto spelled out none of them (every one `[]`).
bool shapeless_lists(const CpuOp& op);
// `op` with its TensorList inputs filled from the parameter shapes `params`, by the op's schema: every parameter-sized
// list gets them (a foreach op's every list; Adam's params, grads, exp_avgs, exp_avg_sqs and, with amsgrad, the max;
// SGD's momentum buffers with momentum ≠ 0), a state_steps list one 0-dim tensor per parameter, an unused list
// none; nullopt for another op.
std::optional<CpuOp> with_parameter_lists(const std::string& name, const CpuOp& op,
                                          const std::vector<std::vector<std::int64_t>>& params);

}  // namespace bwacct::kineto
