#include "attention_limits.h"

#include <fmt/format.h>

namespace bwacct::measure {

std::optional<std::string> attention_unmeasurable(const AttentionDesc& d) {
    if (d.impl != AttentionImpl::flash)
        return std::string(
            "attention --measure runs bwacct's fused (flash) kernel only; --impl naive is modelled, not measured "
            "(measure its GEMMs with `bwacct gemm --batch` and its softmax with `bwacct softmax`)");
    if (d.dtype != DType::bf16 && d.dtype != DType::fp16 && d.dtype != DType::fp32)
        return fmt::format("attention --measure supports --dtype bf16, fp16 and fp32, not {}", dtype_name(d.dtype));
    if (d.head_dim > static_cast<std::uint64_t>(kAttnMaxDim) || d.head_dim % kAttnDimMultiple != 0)
        return fmt::format("attention --measure needs --head-dim a multiple of {} up to {} (got {})", kAttnDimMultiple,
                           kAttnMaxDim, d.head_dim);
    const std::uint64_t group = d.heads / d.kv_heads;
    if (d.q_len > static_cast<std::uint64_t>(kAttnMaxRows) || group > static_cast<std::uint64_t>(kAttnMaxRows) / d.q_len)
        return fmt::format(
            "attention --measure covers the memory-bound decode regime: (--heads / --kv-heads) · --q-len at most {} query "
            "rows per KV head (got {} · {}); prefill is compute-bound on the tensor cores, which bwacct's kernel does not "
            "use: profile FlashAttention and read the trace with `bwacct ingest torch-trace`",
            kAttnMaxRows, group, d.q_len);
    if (d.batch > kAttnMaxGroups / d.kv_heads)
        return fmt::format("attention --measure handles --batch × --kv-heads up to {} (got {} × {})", kAttnMaxGroups, d.batch,
                           d.kv_heads);
    return std::nullopt;
}

}  // namespace bwacct::measure
