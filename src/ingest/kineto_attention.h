// Attention ops of serving engines whose sequence lengths are tensor values: variable-length (packed)
// and paged-KV attention (src/ingest/kineto_cost_paged_attention.cpp), and the record every fused
// attention op is described by (src/ingest/kineto_cost_attention.cpp).
#pragma once

#include <optional>
#include <string>

#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"

namespace bwacct::kineto {

// What a variable-length / paged-KV attention op's inputs give: `recognised` when the op has one of
// the known argument layouts (flash-attn varlen, vLLM's FA2/FA3, sgl-kernel's FA3, aiter's batch
// prefill and varlen forward); then either `cost` (the trace fixes every sequence's lengths) or `why`
// (one line: what the trace lacks).
struct VarlenAttention {
    bool recognised = false;
    std::optional<OpCost> cost;
    std::string why;
};
VarlenAttention varlen_attention(const std::string& name, const CpuOp& op);
// FlashInfer's batch prefill (paged, ragged), batch decode and single prefill/decode run ops
// (src/ingest/kineto_cost_flashinfer.cpp); not recognised for other names.
VarlenAttention flashinfer_attention(const std::string& name, const CpuOp& op);

// Why an attention op has no cost: the varlen / paged verdict's reason, or for attention ops whose
// arguments hold no lengths at all (vLLM's unified_attention*, FlashInfer's run ops, paged decode)
// "no sequence lengths in trace for OP (N query tokens; per-sequence KV lengths are tensor values)".
// "" when `op_name` is not an attention op, or the op is costed. For kineto_summary.cpp's reason().
std::string attention_uncosted_reason(const std::string& op_name, const CpuOp& op);

namespace detail {
// The record of one fused attention: shape "B=… H=… Hkv=… Sq=… Sk=… D=…[ causal]", params, category.
OpCost attention_record(const std::string& name, const AttentionDesc& d, Cost cost);
}  // namespace detail

}  // namespace bwacct::kineto
