// What bwacct's attention kernel (kernels/attention.cu) can measure, shared by the CUDA backend, the
// simulated backend and the tests so that all three refuse the same shapes with the same words.
//
// The kernel is a fused flash-decoding kernel: each KV head's keys and values are read once, for
// all the query rows that share that head (R = query heads per KV head × query tokens), held in
// registers. It is representative where attention is memory-bound — decode and short speculative
// steps — and is not a tensor-core prefill kernel, so R is capped.
#pragma once
#include <optional>
#include <string>

#include "bwacct/ops.h"

namespace bwacct::measure {

// Query rows per KV head the kernel holds in registers: (heads / kv-heads) · q-len.
constexpr int kAttnMaxRows = 16;
// Head dimension: at most 256 (8 columns per lane of a warp), a multiple of 8 (16-byte loads).
constexpr int kAttnMaxDim = 256;
constexpr int kAttnDimMultiple = 8;
// KV heads × batch: one grid row each (CUDA's grid y limit).
constexpr unsigned long long kAttnMaxGroups = 65535;

// Why this attention cannot be measured, in one sentence that names the option to change; empty when
// it can. Assumes the description already passed attention_cost's checks.
std::optional<std::string> attention_unmeasurable(const AttentionDesc& d);

}  // namespace bwacct::measure
