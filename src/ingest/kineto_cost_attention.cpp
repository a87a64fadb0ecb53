// Fused attention ops (flash / memory-efficient / cuDNN): batch, heads, sequence lengths and head
// dim from Q's and K's dims, GQA from K's head count, causal from the op's "Concrete Inputs".
#include <fmt/format.h>

#include <array>

#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"

namespace bwacct::kineto {
namespace {

struct Layout {
    std::string_view name;
    bool bshd;           // [B, S, H, D] (the _forward kernels) else [B, H, S, D] (the SDPA ops)
    std::size_t causal;  // index of is_causal (or custom_mask_type) in the op's inputs
    bool mask_type;      // the flag is an integer mask type (non-zero: causal)
};

constexpr std::array<Layout, 6> kLayouts{{
    {"aten::_flash_attention_forward", true, 8, false},
    {"aten::_efficient_attention_forward", true, 9, true},
    {"aten::_scaled_dot_product_flash_attention", false, 4, false},
    {"aten::_scaled_dot_product_efficient_attention", false, 6, false},
    {"aten::_scaled_dot_product_cudnn_attention", false, 6, false},
    {"aten::scaled_dot_product_attention", false, 5, false},
}};

}  // namespace

std::optional<OpCost> cost_attention_op(const std::string& name, const CpuOp& op) {
    const Layout* layout = nullptr;
    for (const Layout& l : kLayouts)
        if (l.name == name)
            layout = &l;
    if (layout == nullptr)
        return std::nullopt;
    const auto q = input_shape(op, 0), k = input_shape(op, 1);
    const auto dtype = input_dtype(op, 0);
    if (!q || !k || !dtype || q->size() != 4 || k->size() != 4)
        return std::nullopt;
    const std::size_t s = layout->bshd ? 1 : 2, h = layout->bshd ? 2 : 1;
    AttentionDesc d;
    d.batch = (*q)[0];
    d.heads = (*q)[h];
    d.kv_heads = (*k)[h];
    d.q_len = (*q)[s];
    d.kv_len = (*k)[s];
    d.head_dim = (*q)[3];
    d.dtype = *dtype;
    d.impl = AttentionImpl::flash;
    if (layout->causal < op.concrete.size()) {
        const std::string& flag = op.concrete[layout->causal];
        d.causal = layout->mask_type ? (!flag.empty() && flag != "0") : (flag == "True" || flag == "1");
    }
    OpCost r;
    r.op = name;
    r.shape = fmt::format("B={} H={} Hkv={} Sq={} Sk={} D={}{}", d.batch, d.heads, d.kv_heads, d.q_len, d.kv_len, d.head_dim,
                          d.causal ? " causal" : "");
    r.dtype = std::string(dtype_name(d.dtype));
    r.category = Category::attention;
    r.cost = attention_cost(d);
    r.params = {{"batch", d.batch},   {"heads", d.heads},       {"kv_heads", d.kv_heads}, {"q_len", d.q_len},
                {"kv_len", d.kv_len}, {"head_dim", d.head_dim}, {"causal", d.causal}};
    return r;
}

}  // namespace bwacct::kineto
