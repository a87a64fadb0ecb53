// Eager attention in a PyTorch profiler trace: matmul → softmax → matmul (aten::matmul, aten::bmm or
// aten::baddbmm for the scores), with any scale, mask or dropout ops between, recognised by the shapes
// flowing through it (docs/ingest.md, "Eager attention"). A view beside the per-op records: each
// kernel keeps its own row and cost; the group says what the whole attention moved and computed, and
// what a fused (flash) kernel would move instead.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"

namespace bwacct::kineto {

struct EagerAttention {
    std::string ops;          // "aten::matmul → aten::softmax → aten::matmul" (the ops that matched)
    std::string shape;        // "batch=2x4 Sq=128 Sk=128 D=64", the grouping key with ops and dtype
    std::string dtype;        // the first matmul's input dtype
    AttentionDesc desc;       // the attention it computes (impl naive: S and P go through HBM)
    Cost eager;               // attention_cost(desc): Q, K, V read, O written, S and P written and read
    Cost flash;               // the same attention fused (impl flash): what one kernel would move
    std::uint64_t calls = 0;  // matched chains
    std::uint64_t kernels = 0;
    double kernel_us = 0;  // the kernels of every op in the chain (both matmuls, the softmax, the ops between)
};

// Chains of one CPU thread, in time order: a matmul giving scores [..., Sq, Sk], a softmax of a tensor
// of exactly that shape, and a matmul taking that shape times [..., Sk, Dv], at most `kMaxBetween`
// other ops (outside the matmuls' and softmax's own children) between them; D = Dv. Grouped per
// (ops, shape, dtype), largest kernel time first. Traces without shapes give none.
constexpr std::size_t kMaxBetween = 32;
std::vector<EagerAttention> eager_attention(const Trace& t, const Links& links);

}  // namespace bwacct::kineto
