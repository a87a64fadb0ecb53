// Fused attention ops (flash / memory-efficient / cuDNN), forward and backward: batch, heads, sequence
// lengths and head dim from Q's and K's dims, GQA from K's head count, causal from the op's "Concrete
// Inputs". Variable-length and paged-KV ops: kineto_cost_paged_attention.cpp. Backward: FLOPs 2.5× the forward's
// (FlashAttention-2's count: 5 matmuls against 2); bytes dO, Q, K, V, O and the logsumexp read, dQ, dK, dV written
// (docs/formulas.md, "Attention backward").
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <optional>

#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"
#include "kineto_attention.h"

namespace bwacct::kineto {
namespace {

struct Layout {
    std::string_view name;
    bool bshd;           // [B, S, H, D] (the _forward kernels) else [B, H, S, D] (the SDPA ops)
    std::size_t causal;  // index of is_causal (or custom_mask_type) in the op's inputs
    bool mask_type;      // the flag is an integer mask type (non-zero: causal)
};

// The backward ops (native_functions.yaml): grad_out 0, query 1, key 2, value 3; `out` and `lse` the
// indices of the forward's output and logsumexp.
struct BackwardLayout {
    Layout l;
    std::size_t out, lse;
};

constexpr std::array<BackwardLayout, 5> kBackward{{
    {{"aten::_flash_attention_backward", true, 11, false}, 4, 5},
    {{"aten::_efficient_attention_backward", true, 14, true}, 5, 10},
    {{"aten::_scaled_dot_product_flash_attention_backward", false, 11, false}, 4, 5},
    {{"aten::_scaled_dot_product_efficient_attention_backward", false, 11, false}, 5, 6},
    {{"aten::_scaled_dot_product_cudnn_attention_backward", false, 14, false}, 4, 5},
}};

// Q (input q_at) and K (input q_at + 1) as an attention; nullopt when the shapes are not 4-D.
std::optional<AttentionDesc> describe(const Layout& layout, const CpuOp& op, std::size_t q_at) {
    const auto q = input_shape(op, q_at), k = input_shape(op, q_at + 1);
    const auto dtype = input_dtype(op, q_at);
    if (!q || !k || !dtype || q->size() != 4 || k->size() != 4)
        return std::nullopt;
    const std::size_t s = layout.bshd ? 1 : 2, h = layout.bshd ? 2 : 1;
    AttentionDesc d;
    d.batch = (*q)[0];
    d.heads = (*q)[h];
    d.kv_heads = (*k)[h];
    d.q_len = (*q)[s];
    d.kv_len = (*k)[s];
    d.head_dim = (*q)[3];
    d.dtype = *dtype;
    d.impl = AttentionImpl::flash;
    if (layout.causal < op.concrete.size()) {
        const std::string& flag = op.concrete[layout.causal];
        d.causal = layout.mask_type ? (!flag.empty() && flag != "0") : (flag == "True" || flag == "1");
    }
    return d;
}

OpCost described(const std::string& name, const AttentionDesc& d, Cost cost) {
    return detail::attention_record(name, d, std::move(cost));
}

std::optional<OpCost> backward(const std::string& name, const BackwardLayout& b, const CpuOp& op) {
    const auto d = describe(b.l, op, 1);
    if (!d)
        return std::nullopt;
    const Cost fwd = attention_cost(*d);
    Cost c;
    c.op = name;
    c.unit = fwd.unit;
    c.compute_dtype = fwd.compute_dtype;
    c.launches = 1;
    // FLOPs: the forward's 4·B·H·pairs·d (two matmuls per pair: QKᵀ, PV) times 2.5: the backward
    // recomputes QKᵀ and runs dV = PᵀdO, dP = dO Vᵀ, dQ = dS K, dK = dSᵀ Q (five).
    c.flops = fwd.flops / 2 * 5;
    c.terms.push_back({"flops", "2.5 · forward (4·B·H_q·pairs·d): 5 matmuls per pair against the forward's 2",
                       fmt::format("2.5·{}", fwd.flops), fmt::format("{} FLOP", c.flops)});
    // Bytes: Q-shaped dO, Q, O and K, V read with the logsumexp; dQ, dK, dV written (each once).
    const std::uint64_t q_bytes = storage_bytes(d->dtype, Exact(d->batch * d->heads * d->q_len * d->head_dim)).value();
    const std::uint64_t kv_bytes = storage_bytes(d->dtype, Exact(d->batch * d->kv_heads * d->kv_len * d->head_dim)).value();
    std::uint64_t lse = 0;
    if (const auto s = input_shape(op, b.lse); s && b.lse < op.types.size())
        if (const auto t = storage_dtype(op.types[b.lse]))
            lse = storage_bytes(*t, element_count(*s)).value();
    c.bytes_read = 3 * q_bytes + 2 * kv_bytes + lse;
    c.bytes_written = q_bytes + 2 * kv_bytes;
    c.terms.push_back({"bytes read", "dO + Q + O (B·H_q·S_q·d each) + K + V (B·H_kv·S_k·d each) + logsumexp",
                       fmt::format("3·{} + 2·{} + {}", q_bytes, kv_bytes, lse), fmt::format("{} B", c.bytes_read)});
    c.terms.push_back(
        {"bytes written", "dQ + dK + dV", fmt::format("{} + 2·{}", q_bytes, kv_bytes), fmt::format("{} B", c.bytes_written)});
    OpCost r = described(name, *d, std::move(c));
    r.shape += " bwd";
    return r;
}

constexpr std::array<Layout, 6> kLayouts{{
    {"aten::_flash_attention_forward", true, 8, false},
    {"aten::_efficient_attention_forward", true, 9, true},
    {"aten::_scaled_dot_product_flash_attention", false, 4, false},
    {"aten::_scaled_dot_product_efficient_attention", false, 6, false},
    {"aten::_scaled_dot_product_cudnn_attention", false, 6, false},
    {"aten::scaled_dot_product_attention", false, 5, false},
}};

}  // namespace

OpCost detail::attention_record(const std::string& name, const AttentionDesc& d, Cost cost) {
    OpCost r;
    r.op = name;
    r.shape = fmt::format("B={} H={} Hkv={} Sq={} Sk={} D={}{}", d.batch, d.heads, d.kv_heads, d.q_len, d.kv_len, d.head_dim,
                          d.causal ? " causal" : "");
    r.dtype = std::string(dtype_name(d.dtype));
    r.category = Category::attention;
    r.cost = std::move(cost);
    r.params = {{"batch", d.batch},   {"heads", d.heads},       {"kv_heads", d.kv_heads}, {"q_len", d.q_len},
                {"kv_len", d.kv_len}, {"head_dim", d.head_dim}, {"causal", d.causal}};
    return r;
}

std::optional<OpCost> cost_attention_op(const std::string& name, const CpuOp& op) {
    for (const BackwardLayout& b : kBackward)
        if (b.l.name == name)
            return backward(name, b, op);
    if (VarlenAttention v = varlen_attention(name, op); v.recognised)
        return std::move(v.cost);  // packed / paged: src/ingest/kineto_cost_paged_attention.cpp
    for (const Layout& l : kLayouts)
        if (l.name == name) {
            const auto d = describe(l, op, 0);
            return d ? std::optional<OpCost>(described(name, *d, attention_cost(*d))) : std::nullopt;
        }
    return std::nullopt;
}

}  // namespace bwacct::kineto
