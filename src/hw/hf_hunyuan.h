// Hunyuan's MoE config.json (HunYuanMoEV1ForCausalLM: Hunyuan-A13B, Tencent's remote code hunyuan.py) gives its expert
// sizes, top-k and shared experts as per-layer lists; when every list holds one value (Hunyuan-A13B), the model is
// DeepSeekMoE's block (Llama's attention, a softmax router without bias, routed and shared gated experts on every
// layer) with per-head q/k RMSNorms: read into DeepseekForCausalLM's names (docs/formulas.md).
#pragma once
#include "hf_dbrx.h"

namespace bwacct::hf {

// Whether the file can be read so: uniform lists, no cross-layer KV sharing (use_cla), no MLA (use_mla), no skipped
// (dense) layers, no MLP bias. Otherwise the class stays refused (hf_unmodelled.cpp) naming the lists.
bool hunyuan_moe_is_uniform(const json& doc);

Translated hunyuan_moe_as_deepseek_moe(const Reader& top);

}  // namespace bwacct::hf
