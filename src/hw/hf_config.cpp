// Reads a Hugging Face config.json into a TransformerConfig. The architecture name picks the family;
// each family reads the fields its reference implementation (transformers' modeling_<arch>.py,
// DeepSeek-V3's inference/model.py) uses for shapes. Math-changing fields bwacct does not model are
// refused (exit 2, naming the field); fields it reads but deliberately approximates become
// `limitations`, printed in every report. Mapping: docs/formulas.md ("Hugging Face config.json").
#include "bwacct/hf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <utility>

#include "bwacct/dit.h"
#include "bwacct/error.h"
#include "bwacct/quant.h"
#include "bwacct/text_file.h"
#include "hf_dbrx.h"
#include "hf_exaone.h"
#include "hf_granite_hybrid.h"
#include "hf_hunyuan.h"
#include "hf_kept_parts.h"
#include "hf_mistral_params.h"
#include "hf_moe_layers.h"
#include "hf_reader.h"
#include "hf_unmodelled.h"

namespace bwacct {
namespace {

using json = nlohmann::json;
using hf::Reader;

enum class Family {
    llama,
    qwen2,
    qwen3,
    gemma,
    gemma2,
    gemma3,
    mixtral,
    qwen2_moe,
    qwen3_moe,
    deepseek,
    gpt_oss,
    llama4,
    olmoe,
    phimoe,
    glm4_moe,
    deepseek_moe,
    minimax_m2,
    ernie45_moe,
    ernie45,
    granite,
    granite_moe,
    olmo2,
    olmo3,
    smollm3,
    seed_oss,
    exaone4,
    stablelm,
    internlm2,
    internlm3,
    glm,
    glm4
};

struct Arch {
    const char* name;
    Family family;
};

constexpr std::array<Arch, 45> kArchs{{{"LlamaForCausalLM", Family::llama},
                                       // LLaMAForCausalLM: the class's name before transformers 4.28 (LLaMA 1 conversions
                                       // such as decapoda-research's; vLLM keeps the alias): the same block.
                                       {"LLaMAForCausalLM", Family::llama},
                                       {"MistralForCausalLM", Family::llama},
                                       // YiForCausalLM (Yi's first remote code), BaichuanForCausalLM / BaiChuanForCausalLM
                                       // (Baichuan 1 and 2; W_pack holds q, k, v; ALiBi or RoPE, neither an op here):
                                       // Llama's block and field names.
                                       {"YiForCausalLM", Family::llama},
                                       {"BaichuanForCausalLM", Family::llama},
                                       {"BaiChuanForCausalLM", Family::llama},
                                       // Ministral3ForCausalLM: Mistral's block with a scale of Q by position
                                       // (read_ministral3).
                                       {"Ministral3ForCausalLM", Family::llama},
                                       // Phi3ForCausalLM: Llama's block with the q, k, v and the gate, up projections each
                                       // fused into one matrix (qkv_proj, gate_up_proj): the same shapes and FLOPs.
                                       {"Phi3ForCausalLM", Family::llama},
                                       {"Qwen2ForCausalLM", Family::qwen2},
                                       {"Qwen3ForCausalLM", Family::qwen3},
                                       // GemmaForCausalLM (Gemma 1, CodeGemma): Gemma 2's GELU-gated MLP and tied
                                       // embeddings with Llama's two norms per block, no window, no softcapping.
                                       {"GemmaForCausalLM", Family::gemma},
                                       {"Gemma2ForCausalLM", Family::gemma2},
                                       {"Gemma3ForCausalLM", Family::gemma3},
                                       {"MixtralForCausalLM", Family::mixtral},
                                       {"Qwen2MoeForCausalLM", Family::qwen2_moe},
                                       {"Qwen3MoeForCausalLM", Family::qwen3_moe},
                                       {"DeepseekV3ForCausalLM", Family::deepseek},
                                       {"DeepseekV2ForCausalLM", Family::deepseek},
                                       // Glm4MoeLiteForCausalLM (GLM-4.7-Flash): DeepSeek-V3's MLA and MoE layers
                                       // (transformers' modular_glm4_moe_lite.py), its router always with the
                                       // score-correction bias (as GLM-4.5's).
                                       {"Glm4MoeLiteForCausalLM", Family::deepseek},
                                       {"GptOssForCausalLM", Family::gpt_oss},
                                       {"Llama4ForCausalLM", Family::llama4},
                                       {"OlmoeForCausalLM", Family::olmoe},
                                       {"PhimoeForCausalLM", Family::phimoe},
                                       // microsoft/Phi-3.5-MoE-instruct's config.json names its remote-code class.
                                       {"PhiMoEForCausalLM", Family::phimoe},
                                       {"Glm4MoeForCausalLM", Family::glm4_moe},
                                       // Dots1ForCausalLM (dots.llm1; transformers' modular_dots1.py): DeepseekV3's
                                       // decoder layer (dense-first MoE, shared experts, the router's score-correction
                                       // bias) on Qwen3's attention (per-head q/k RMSNorm): GLM-4.5's mapping, q/k norm on.
                                       {"Dots1ForCausalLM", Family::glm4_moe},
                                       // DeepseekForCausalLM (DeepSeekMoE 16B, remote code): Llama's attention with
                                       // DeepSeek-V2's MoE layers (a softmax gate without bias, n_shared_experts).
                                       {"DeepseekForCausalLM", Family::deepseek_moe},
                                       {"MiniMaxM2ForCausalLM", Family::minimax_m2},
                                       {"Ernie4_5_MoeForCausalLM", Family::ernie45_moe},
                                       // Ernie4_5ForCausalLM (ERNIE-4.5-0.3B; transformers), Ernie4_5_ForCausalLM (its
                                       // remote code's spelling): Llama's block, embeddings tied by default (read_ernie45).
                                       {"Ernie4_5ForCausalLM", Family::ernie45},
                                       {"Ernie4_5_ForCausalLM", Family::ernie45},
                                       // GraniteForCausalLM: Llama's block with four scalar multipliers (read_granite_scales).
                                       {"GraniteForCausalLM", Family::granite},
                                       {"GraniteMoeForCausalLM", Family::granite_moe},
                                       {"GraniteMoeSharedForCausalLM", Family::granite_moe},
                                       // Olmo2ForCausalLM: Llama's shapes, its two norms after (not before) each sub-block,
                                       // and RMSNorms of the whole Q and K (read_whole_qk_norm).
                                       {"Olmo2ForCausalLM", Family::olmo2},
                                       // Olmo3ForCausalLM: OLMo 2's block with sliding-window layers (layer_types).
                                       {"Olmo3ForCausalLM", Family::olmo3},
                                       // SmolLM3ForCausalLM: Llama's block; its NoPE layers (no_rope_layers) skip RoPE only.
                                       {"SmolLM3ForCausalLM", Family::smollm3},
                                       // SeedOssForCausalLM: Llama's block with q, k, v biases (attention_bias, default
                                       // true) and an o bias only with attention_out_bias.
                                       {"SeedOssForCausalLM", Family::seed_oss},
                                       // Exaone4ForCausalLM: OLMo 2's post-norm block (no biases) with per-head q/k
                                       // RMSNorms and sliding-window layers.
                                       {"Exaone4ForCausalLM", Family::exaone4},
                                       // StableLmForCausalLM: Llama's gated MLP with LayerNorms (weight and bias) and q,
                                       // k, v biases with use_qkv_bias (read_stablelm).
                                       {"StableLmForCausalLM", Family::stablelm},
                                       // InternLM2ForCausalLM (remote code): Llama's shapes with wqkv fused; "bias" puts
                                       // biases on wqkv and wo.
                                       {"InternLM2ForCausalLM", Family::internlm2},
                                       // InternLM3ForCausalLM (remote code): Llama's block, "qkv_bias" on q, k, v and
                                       // "bias" on o, gate, up, down (read_internlm3).
                                       {"InternLM3ForCausalLM", Family::internlm3},
                                       // MiMoForCausalLM (Xiaomi's remote code: MiMoModel is Qwen2Model, plus
                                       // num_nextn_predict_layers MTP layers, stated): Qwen2's block, q, k, v biases.
                                       {"MiMoForCausalLM", Family::qwen2},
                                       // GlmForCausalLM (GLM-4-9B "-hf"), Glm4ForCausalLM (GLM-4-0414): Llama's shapes
                                       // (gate_up fused) with q, k, v biases and none on o; GLM-4 adds a norm after each
                                       // sub-block (four per block, as Gemma 2).
                                       {"GlmForCausalLM", Family::glm},
                                       {"Glm4ForCausalLM", Family::glm4}}};

// Multimodal wrappers ("...ForConditionalGeneration") whose language model is one of the families above: its
// fields sit in "text_config" (model_type `text_model_type`, class `text_config_class`, read as `language_arch`); the
// vision tower and projector ("vision_config") are not modelled, and every report says so. Qwen2.5-VL's config.json
// files written before transformers 4.53 keep the language model's fields at the top level (`top_level_text`).
//
// transformers writes a nested text_config without the fields equal to its class's defaults (to_diff_dict). `dropped`
// lists, per wrapper, the fields bwacct reads whose class default is a fixed number bwacct would not take by itself (its
// own default: num_key_value_heads = the query heads, head_dim = hidden_size / num_attention_heads, no window or
// chunk, no query LoRA, no shared expert, no dense layer): a nested text_config that leaves one out is refused, naming
// it. Where the class's defaults are certain, `text_defaults` takes them instead (Gemma 3: class_defaults).
struct Dropped {
    const char* key;
    const char* class_default;  // as the message gives it
    const char* accepted;       // the accepted form of its value
};
struct Wrapper {
    const char* name;
    const char* text_model_type;
    const char* text_config_class;
    const char* language_arch;
    bool top_level_text = false;
    std::array<Dropped, 4> dropped{};
    const char* defaults_named = nullptr;  // whose defaults text_defaults (a JSON object) are: the fields a nested
    const char* text_defaults = nullptr;   // text_config may leave out
};

constexpr Dropped kKvHeads(const char* class_default) { return {"num_key_value_heads", class_default, "<key/value heads>"}; }
constexpr Dropped kHeadDim128{"head_dim", "128, not hidden_size / num_attention_heads", "<dims per head>"};

// transformers' DeepseekV3Config (configuration_deepseek_v3.py) defaults, for the fields bwacct reads. It has no
// topk_method or moe_layer_freq (never left out then); its model always carries the noaux_tc router bias, which the
// router reads for DeepseekV3ForCausalLM without topk_method (top-level files too).
constexpr const char* kDeepseekV3Defaults = R"({"vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432,
    "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
    "n_shared_experts": 1, "n_routed_experts": 256, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
    "v_head_dim": 128, "qk_nope_head_dim": 128, "num_experts_per_tok": 8, "first_k_dense_replace": 3})";
// Kimi-VL's text_config class is not one class: its remote code (configuration_kimi_vl.py) copies DeepSeek-V3's
// configuration_deepseek.py (q_lora_rank 1536, n_shared_experts 1, first_k_dense_replace 3), NVIDIA NeMo's copy
// defaults to Kimi-VL's own values (null, 2, 1), a transformers port uses DeepseekV3Config. Only the fields every copy
// defaults alike are taken; those three are refused when left out.
constexpr const char* kKimiVlTextDefaults = R"({"kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
    "v_head_dim": 128, "moe_layer_freq": 1, "topk_method": "noaux_tc"})";

constexpr std::array<Wrapper, 10> kWrappers{
    {{"Gemma3ForConditionalGeneration", "gemma3_text", "Gemma3TextConfig", "Gemma3ForCausalLM"},
     // Kimi-K2.5 (remote code modeling_kimi_k25.py): a vision tower and projector before Kimi-K2's DeepseekV3ForCausalLM;
     // configuration_kimi_k25.py builds text_config with transformers' DeepseekV3Config.
     {"KimiK25ForConditionalGeneration",
      "deepseek_v3",
      "DeepseekV3Config",
      "DeepseekV3ForCausalLM",
      false,
      {},
      "transformers' DeepseekV3Config defaults",
      kDeepseekV3Defaults},
     // Kimi-VL (remote code modeling_kimi_vl.py): a MoonViT tower and projector before Moonlight's DeepseekV3ForCausalLM.
     {"KimiVLForConditionalGeneration",
      "deepseek_v3",
      "DeepseekV3Config",
      "DeepseekV3ForCausalLM",
      false,
      {{{"q_lora_rank", "1536 in Kimi-VL's remote code but null in NVIDIA NeMo's copy", "<rank>, or null for none"},
        {"n_shared_experts", "1 in Kimi-VL's remote code but 2 in NVIDIA NeMo's copy", "<shared experts>"},
        {"first_k_dense_replace", "3 in Kimi-VL's remote code but 1 in NVIDIA NeMo's copy", "<dense layers>"}}},
      "the DeepseekV3Config defaults every copy Kimi-VL uses shares",
      kKimiVlTextDefaults},
     // MistralConfig: num_key_value_heads 8, sliding_window 4096 (Mistral-Small-3.1's file gives "sliding_window": null).
     {"Mistral3ForConditionalGeneration",
      "mistral",
      "MistralConfig",
      "MistralForCausalLM",
      false,
      {{kKvHeads("8"), {"sliding_window", "4096 (a window on every layer)", "<tokens>, or null for none"}}}},
     // Llama4TextConfig: num_key_value_heads 8, head_dim 128, attention_chunk_size 8192.
     {"Llama4ForConditionalGeneration",
      "llama4_text",
      "Llama4TextConfig",
      "Llama4ForCausalLM",
      false,
      {{kKvHeads("8"), kHeadDim128, {"attention_chunk_size", "8192", "<tokens per chunk>, or null for none"}}}},
     // Qwen2.5-VL's and Qwen3-VL's language models are Qwen2's and Qwen3's (their multimodal RoPE rotates the same
     // vectors; Qwen3-VL adds the vision tower's features to the first layers' hidden states: T · D adds each).
     {"Qwen2_5_VLForConditionalGeneration",
      "qwen2_5_vl_text",
      "Qwen2_5_VLTextConfig",
      "Qwen2ForCausalLM",
      true,
      {{kKvHeads("a fixed number")}}},
     {"Qwen2VLForConditionalGeneration",
      "qwen2_vl_text",
      "Qwen2VLTextConfig",
      "Qwen2ForCausalLM",
      true,
      {{kKvHeads("a fixed number")}}},
     // Qwen3VLTextConfig: num_key_value_heads 32, head_dim 128; Qwen3VLMoeTextConfig: num_key_value_heads 16, head_dim
     // None (hidden_size / num_attention_heads, as bwacct takes it).
     {"Qwen3VLForConditionalGeneration",
      "qwen3_vl_text",
      "Qwen3VLTextConfig",
      "Qwen3ForCausalLM",
      false,
      {{kKvHeads("32"), kHeadDim128}}},
     {"Qwen3VLMoeForConditionalGeneration",
      "qwen3_vl_moe_text",
      "Qwen3VLMoeTextConfig",
      "Qwen3MoeForCausalLM",
      false,
      {{kKvHeads("16")}}},
     // GLM-4.5V, GLM-4.6V (Glm4vMoeForConditionalGeneration): GLM-4.5-Air's language model (Glm4vMoeTextModel: the
     // Glm4MoeDecoderLayer's attention with q, k, v biases, dense-first MoE with the noaux_tc router bias and shared
     // experts); its multimodal RoPE rotates the same vectors. Glm4vMoeTextConfig's defaults are GLM-4.5-Air's
     // fixed numbers, so a text_config without the fields that shape the count is refused; attention_bias defaults to
     // true there (Glm4MoeConfig's to false), taken and said.
     {"Glm4vMoeForConditionalGeneration",
      "glm4v_moe_text",
      "Glm4vMoeTextConfig",
      "Glm4MoeForCausalLM",
      false,
      {{kKvHeads("a fixed number"),
        {"head_dim", "a fixed number, not hidden_size / num_attention_heads", "<dims per head>"},
        {"first_k_dense_replace", "a fixed number", "<dense layers>"},
        {"n_shared_experts", "a fixed number", "<shared experts>"}}},
      "transformers' Glm4vMoeTextConfig defaults",
      R"({"attention_bias": true})"}}};

// Fields transformers' config class fills in when config.json leaves them out, for the families whose published
// files rely on it (Google's Gemma 3 multimodal config.json files give only a few text_config fields):
// Gemma3TextConfig's defaults. Every default taken is named in the report's limitations.
struct ClassDefaults {
    const char* named;  // "transformers' <class> defaults"
    const json& fields;
};
ClassDefaults class_defaults(Family fam, std::string_view lm_arch) {
    static const json none = json::object();
    // Parsed, so the counts are unsigned JSON numbers as config.json's own are.
    static const json gemma3 = json::parse(R"({"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
        "num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
        "sliding_window": 4096, "hidden_activation": "gelu_pytorch_tanh"})");
    // Olmo3Config: a window of 4096 on the layers layer_types marks (default: all but every 4th); SeedOssConfig: head_dim
    // 128 whatever hidden_size / num_attention_heads gives.
    static const json olmo3 = json::parse(R"({"sliding_window": 4096})");
    static const json seed_oss = json::parse(R"({"head_dim": 128})");
    // GlmConfig, Glm4Config: head_dim 128 and attention_bias true when left out.
    static const json glm = json::parse(R"({"head_dim": 128, "attention_bias": true})");
    // GemmaConfig, Gemma2Config: head_dim 256 whatever hidden_size / num_attention_heads gives (GemmaAttention reads
    // config.head_dim). GemmaConfig: num_key_value_heads 16 (4.57 and the newest). Gemma2Config: sliding_window 4096; its
    // num_key_value_heads default changed (16 in older transformers, 4 in newer), so a Gemma 2 file without it is refused.
    static const json gemma = json::parse(R"({"head_dim": 256, "num_key_value_heads": 16})");
    static const json gemma2 = json::parse(R"({"head_dim": 256, "sliding_window": 4096})");
    // The MoE classes' defaults for the fields that size the shared experts and the dense layers, where the class gives a
    // fixed number (not None): Glm4MoeConfig 1 and 1; Dots1Config first_k_dense_replace 0 and a window of 4096 from layer
    // max_window_layers (62) on (its n_shared_experts default None cannot be built: refused, read_first_k_moe);
    // Qwen2MoeConfig a shared expert of 5632 (Ernie4_5_MoeConfig's 2 shared experts: not taken, read_ernie45_moe).
    static const json glm4_moe = json::parse(R"({"first_k_dense_replace": 1, "n_shared_experts": 1})");
    static const json dots1 = json::parse(R"({"first_k_dense_replace": 0, "sliding_window": 4096, "max_window_layers": 62})");
    static const json qwen2_moe = json::parse(R"({"shared_expert_intermediate_size": 5632})");
    if (lm_arch == "Dots1ForCausalLM")
        return {"transformers' Dots1Config defaults", dots1};
    if (fam == Family::glm4_moe)
        return {"transformers' Glm4MoeConfig defaults", glm4_moe};
    if (fam == Family::qwen2_moe)
        return {"transformers' Qwen2MoeConfig defaults", qwen2_moe};
    if (fam == Family::gemma)
        return {"transformers' GemmaConfig defaults", gemma};
    if (fam == Family::gemma2)
        return {"transformers' Gemma2Config defaults", gemma2};
    if (fam == Family::glm)
        return {"transformers' GlmConfig defaults", glm};
    if (fam == Family::glm4)
        return {"transformers' Glm4Config defaults", glm};
    if (fam == Family::olmo3)
        return {"transformers' Olmo3Config defaults", olmo3};
    if (fam == Family::seed_oss)
        return {"transformers' SeedOssConfig defaults", seed_oss};
    return fam == Family::gemma3 ? ClassDefaults{"transformers' Gemma3TextConfig defaults", gemma3} : ClassDefaults{"", none};
}

std::string supported_list() {
    std::string s;
    for (const Arch& a : kArchs)
        s += (s.empty() ? "" : ", ") + std::string(a.name);
    for (const Wrapper& w : kWrappers)
        s += fmt::format(", {} (its text_config)", w.name);
    return s + ", DbrxForCausalLM, ExaoneForCausalLM";
}

// SmolLM3's NoPE layers (SmolLM3Config): `no_rope_layers` gives 1 (RoPE) or 0 (NoPE) per layer; absent, layer i is NoPE
// when (i + 1) mod `no_rope_layer_interval` (default 4) = 0.
std::vector<bool> smollm3_nope_layers(const Reader& r, std::uint64_t layers) {
    std::vector<bool> nope;
    if (r.has("no_rope_layers")) {
        const json& v = r.doc.at("no_rope_layers");
        if (!v.is_array() || v.size() < layers)
            r.fail(fmt::format("\"no_rope_layers\" must list 1 or 0 for each of the {} layers", layers));
        for (std::uint64_t i = 0; i < layers; ++i) {
            if (!v[i].is_number_unsigned() || v[i].get<std::uint64_t>() > 1)
                r.fail(fmt::format("\"no_rope_layers\" entries must be 1 or 0, got {}", v[i].dump()));
            nope.push_back(v[i] == 0);
        }
        return nope;
    }
    r.refuse_null("no_rope_layer_interval", "SmolLM3Config's NoPE-layer rule ((i + 1) % no_rope_layer_interval)");
    const std::uint64_t every = r.count_or("no_rope_layer_interval", 4);
    for (std::uint64_t i = 0; i < layers; ++i)
        nope.push_back((i + 1) % every == 0);
    return nope;
}

// Sliding-window attention (transformers' per-family rules): Mistral-style `sliding_window` on every layer;
// Gemma 2 every other layer (layer_idx % 2 == 0 local); Gemma 3 all but every `sliding_window_pattern`-th
// (default 6); an explicit `layer_types` list ("sliding_attention"/"full_attention") wins; Qwen2/3 only with
// `use_sliding_window`, on layers from `max_window_layers` on; dots1 (Dots1Config: Qwen3's attention, no use_sliding_window)
// on layers from `max_window_layers` on whenever sliding_window is set; OLMo 3 all but every 4th (Olmo3Config); SmolLM3
// only with `use_sliding_window`, on its NoPE layers (`no_rope_layers` 0; default every `no_rope_layer_interval`-th, 4).
void read_sliding_window(const Reader& r, Family fam, TransformerConfig& c, bool dots1) {
    const bool qwen = fam == Family::qwen2 || fam == Family::qwen3 || fam == Family::qwen2_moe || fam == Family::qwen3_moe;
    const json& doc = r.doc;
    const bool typed = doc.contains("layer_types") && !doc.at("layer_types").is_null();
    if (fam == Family::exaone4 && !doc.contains("sliding_window")) {
        c.sliding_window = 4096;  // Exaone4Config's default (a null sliding_window: no window)
        c.limitations.push_back("config.json leaves out sliding_window: 4096 taken (transformers' Exaone4Config default)");
    } else if (!r.has("sliding_window") || (qwen && !r.flag_or("use_sliding_window", false)) ||
               (fam == Family::smollm3 && !typed && !r.flag_or("use_sliding_window", false))) {
        return;
    } else {
        c.sliding_window = r.count_or("sliding_window", 0);
    }
    if (typed) {
        const json& types = doc.at("layer_types");
        if (!types.is_array() || types.size() != c.layers)
            r.fail(fmt::format("\"layer_types\" must list one entry per layer ({} layers)", c.layers));
        for (const json& t : types) {
            if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
                r.fail(
                    fmt::format("\"layer_types\" entries must be \"sliding_attention\" or \"full_attention\", got {}", t.dump()));
            c.local_layers.push_back(t == "sliding_attention");
        }
        return;
    }
    // Gemma3TextConfig and Exaone4Config expand the period without layer_types as (i + 1) % sliding_window_pattern: a null
    // there is a TypeError (Gemma 3 reads kwargs.get("sliding_window_pattern", 6), which a null does not replace).
    if (fam == Family::gemma3)
        r.refuse_null("sliding_window_pattern", "Gemma3TextConfig without layer_types ((i + 1) % sliding_window_pattern)");
    if (fam == Family::exaone4)
        r.refuse_null("sliding_window_pattern", "Exaone4Config without layer_types ((i + 1) % sliding_window_pattern)");
    if (fam == Family::gemma2 || fam == Family::gemma3) {
        // transformers >= 4.53 writes Gemma 3's period as "_sliding_window_pattern" (and also "layer_types").
        const std::uint64_t period = fam == Family::gemma2             ? 2
                                     : r.has("sliding_window_pattern") ? r.count_or("sliding_window_pattern", 6)
                                                                       : r.count_or("_sliding_window_pattern", 6);
        for (std::uint64_t i = 0; i < c.layers; ++i)
            c.local_layers.push_back((i + 1) % period != 0);
    } else if (qwen || dots1) {
        // Qwen2Config and its kin (and Dots1Config) mark layer i sliding when i >= max_window_layers: None fails there.
        r.refuse_null("max_window_layers", "the class's sliding-layer rule (i >= max_window_layers)");
        // Left out: Qwen2Config, Qwen3Config, Qwen2MoeConfig and Qwen3MoeConfig all default it to 28 (dots1: its
        // class defaults above); it was read as 0, a window on every layer.
        if (qwen && !r.has("max_window_layers"))
            c.limitations.push_back(
                "config.json leaves out max_window_layers: 28 taken (transformers' Qwen2/Qwen3 "
                "config classes' default): layers 28 and up use the window");
        const std::uint64_t from = r.natural_or("max_window_layers", qwen ? 28 : 0);
        for (std::uint64_t i = 0; i < c.layers; ++i)
            c.local_layers.push_back(i >= from);
    } else if (fam == Family::olmo3) {
        for (std::uint64_t i = 0; i < c.layers; ++i)
            c.local_layers.push_back((i + 1) % 4 != 0);
    } else if (fam == Family::smollm3) {
        c.local_layers = smollm3_nope_layers(r, c.layers);
    } else if (fam == Family::exaone4) {
        // Exaone4Config expands only an integer period; EXAONE-4.0-32B's "LLLG" comes with layer_types.
        if (r.has("sliding_window_pattern") && !doc.at("sliding_window_pattern").is_number_unsigned())
            r.fail(
                fmt::format("\"sliding_window_pattern\" = {} without \"layer_types\": only an integer period is "
                            "expanded (as transformers' Exaone4Config does); give layer_types",
                            doc.at("sliding_window_pattern").dump()));
        const std::uint64_t period = r.count_or("sliding_window_pattern", 4);
        for (std::uint64_t i = 0; i < c.layers; ++i)
            c.local_layers.push_back((i + 1) % period != 0);
    }
}

// gpt-oss (transformers' modeling_gpt_oss.py): what the family does that the engine's model does not, each a
// limitation of every report. Its alternating sliding windows come from "layer_types" (read_sliding_window).
void read_gpt_oss_limits(const Reader& r, const MoeConfig& m, TransformerConfig& c) {
    if (r.has("swiglu_limit"))
        c.limitations.push_back(fmt::format(
            "swiglu_limit = {}: gpt-oss's clamped GLU, (up + 1) · gate · sigmoid(1.702 · gate) with gate and up clamped, is "
            "modelled as SiLU(gate) · up (a few vector FLOPs per element fewer)",
            r.doc.at("swiglu_limit").dump()));
    c.limitations.push_back(
        "attention sinks (one learned logit per head in every softmax row) are not counted: one term per query row and head");
    c.limitations.push_back(fmt::format(
        "expert biases (gate_up 2 · {} + down {} per expert: {} parameters per layer) are not counted (parameters or bytes)",
        m.expert_ffn, c.hidden, m.experts * (2 * m.expert_ffn + c.hidden)));
}

// A q_norm and k_norm over all of Q (heads · head_dim) and of K (kv_heads · head_dim) before RoPE (OLMoE's
// OlmoeAttention, MiniMax-M2's qk_norm_type "per_layer"). The engine's q/k norm normalises the same elements per head
// (the same FLOPs and bytes) and counts 2 · head_dim weights; the difference in weights is stated.
void read_whole_qk_norm(const char* who, TransformerConfig& c) {
    c.qk_norm = true;
    const std::uint64_t hd = c.head_dim != 0 ? c.head_dim : c.hidden / c.heads;
    c.limitations.push_back(fmt::format(
        "{}'s q_norm and k_norm normalise all of Q and of K ({} + {} weights per layer), modelled as per-head norms of "
        "the same elements ({} weights): {} parameters in all are not counted",
        who, c.heads * hd, c.kv_heads * hd, 2 * hd, c.layers * (c.heads * hd + c.kv_heads * hd - 2 * hd)));
}

// OLMoE (transformers' OlmoeAttention): Llama's attention with whole-Q and whole-K RMSNorms.
void read_olmoe_attention(const Reader& r, TransformerConfig& c) {
    read_whole_qk_norm("OLMoE", c);
    if (r.has("clip_qkv"))
        c.limitations.push_back(fmt::format("clip_qkv = {}: the clamp of Q, K and V is not counted (one comparison per element)",
                                            r.doc.at("clip_qkv").dump()));
}

// PhiMoE (transformers' modeling_phimoe.py): Mixtral's MoE block with LayerNorms (weight and bias) for the block and
// final norms, and an LM head with a bias when lm_head_bias (vocab parameters, one add per logit: stated).
void read_phimoe_limits(const Reader& r, TransformerConfig& c) {
    c.norm = NormKind::layernorm;
    if (r.flag_or("lm_head_bias", false))
        c.limitations.push_back(
            fmt::format("lm_head_bias: the LM head's bias ({} parameters, one add per logit) is not counted", c.vocab));
}

// MiniMax-M2 (transformers' modeling_minimax_m2.py): Llama's attention (head_dim given, q/k/v/o without bias) with
// RMSNorms of Q and K, over all of each (qk_norm_type "per_layer") or per head; every layer a MoE block of
// num_local_experts gated experts (w1, w3, w2) of intermediate_size, a router Linear(hidden, E) without bias and, with
// use_routing_bias, a per-expert score-correction bias. Lightning-attention layers (attn_type_list 0, MiniMax-M1) are
// refused before (hf_unmodelled.cpp); a shared expert (shared_intermediate_size > 0) is refused here.
void read_minimax_m2(const Reader& r, TransformerConfig& c, MoeConfig& m) {
    m.experts = r.count("num_local_experts");
    m.expert_ffn = c.ffn;
    m.router_bias = r.flag_or("use_routing_bias", false);
    if (r.has("shared_intermediate_size"))
        r.refuse_unless(r.natural_or("shared_intermediate_size", 0) == 0, "shared_intermediate_size",
                        "MiniMax-M2's MoE block has no shared expert in its reference implementation");
    if (r.flag_or("use_qk_norm", false)) {
        const std::string type = r.text_or("qk_norm_type", "per_layer");
        // The reference builds RMSNorm(h·d) and RMSNorm(kv·d) whenever use_qk_norm is set and never reads another type.
        r.refuse_unless(type == "per_layer", "qk_norm_type",
                        "the q/k norm of MiniMax-M2's reference, per_layer (one RMSNorm over all of Q and of K)");
        read_whole_qk_norm("MiniMax-M2", c);
    }
    if (const std::uint64_t mtp = r.natural_or("num_mtp_modules", 0); mtp > 0)
        c.limitations.push_back(
            fmt::format("num_mtp_modules = {}: the multi-token-prediction modules are not counted (parameters or time)", mtp));
    else if (r.flag_or("use_mtp", false))
        c.limitations.push_back("use_mtp = true: the multi-token-prediction modules are not counted (parameters or time)");
}

// ERNIE 4.5 MoE (transformers' modeling_ernie4_5_moe.py): Llama's attention and gated MLPs (biases on every linear
// with use_bias: refused); the MoE layers (hf::ernie_dense_layers) a router Linear(D, E) without bias with its
// e_score_correction_bias (Ernie4_5_MoeStatics, E parameters), moe_num_experts experts of moe_intermediate_size, top
// moe_k, and one shared MLP of moe_num_shared_experts · moe_intermediate_size (the engine's fused shared experts);
// the other layers a dense MLP of intermediate_size. Tied embeddings by default (Ernie4_5_MoeConfig).
// ERNIE 4.5's dense models (Ernie4_5ForCausalLM; baidu/ERNIE-4.5-0.3B-*): Llama's attention (GQA, explicit head_dim) and
// gated MLP, RMSNorms, tied embeddings by default (Ernie4_5Config). use_bias (every projection) is refused as for the MoE
// models; a missing head_dim too: transformers' Ernie4_5Config defaults it to 128, PaddleNLP's copy to None (hidden / heads).
void read_ernie45(const Reader& r) {
    r.refuse_unless(!r.flag_or("use_bias", false), "use_bias", "biases on every attention and MLP projection");
    if (!r.doc.contains("head_dim"))
        r.fail(
            "missing \"head_dim\": Ernie4_5ForCausalLM's implementations disagree on its default (transformers' "
            "Ernie4_5Config 128, PaddleNLP's None: hidden_size / num_attention_heads); bwacct will not guess: give "
            "\"head_dim\": <dims per head>");
}

void read_ernie45_moe(const Reader& r, TransformerConfig& c, MoeConfig& m) {
    r.refuse_unless(!r.flag_or("use_bias", false), "use_bias", "biases on every attention and MLP projection");
    m.experts = r.count("moe_num_experts");
    m.top_k = r.count("moe_k");
    m.expert_ffn = r.count("moe_intermediate_size");
    // Left out: the class's copies disagree (transformers' Ernie4_5_MoeConfig 2; FastDeploy's
    // PRETRAINED_INIT_CONFIGURATION and mlx-lm's ernie4_5_moe ModelArgs 0): refused, as DeepSeek-V2's n_shared_experts.
    // Null: Ernie4_5_MoeSparseMoeBlock compares it with 0 and fails.
    if (!r.doc.contains("moe_num_shared_experts"))
        r.fail(
            "missing \"moe_num_shared_experts\": Ernie4_5_MoeForCausalLM's implementations disagree on its default "
            "(transformers' Ernie4_5_MoeConfig 2, FastDeploy's and mlx-lm's 0); bwacct will not guess: give "
            "\"moe_num_shared_experts\": <count, 0 for none>");
    if (r.doc.at("moe_num_shared_experts").is_null())
        r.fail(
            "\"moe_num_shared_experts\" is null, which Ernie4_5_MoeForCausalLM cannot be built with: give a number (0 for none)");
    m.shared_experts = r.natural_or("moe_num_shared_experts", 0);
    m.router_bias = true;
    hf::set_dense_layers(m, hf::ernie_dense_layers(r, c.layers));
    if (const std::uint64_t mtp = r.natural_or("num_nextn_predict_layers", 0); mtp > 0)
        c.limitations.push_back(fmt::format(
            "num_nextn_predict_layers = {}: the multi-token-prediction layer is not counted (parameters or time)", mtp));
}

// StableLM (transformers' modeling_stablelm.py): LayerNorms with weight and bias, q/k/v biases with use_qkv_bias, o
// without. Its parallel block (use_parallel_residual: one norm feeding attention and MLP side by side) and per-head
// LayerNorms of Q and K (qk_layernorm) are refused: the engine's block has neither.
void read_stablelm(const Reader& r, TransformerConfig& c) {
    c.norm = NormKind::layernorm;
    c.qkv_bias = r.flag_or("use_qkv_bias", false);
    if (r.has("use_parallel_residual"))
        r.refuse_unless(!r.flag_or("use_parallel_residual", false), "use_parallel_residual",
                        "attention and MLP side by side from one LayerNorm");
    if (r.has("qk_layernorm"))
        r.refuse_unless(!r.flag_or("qk_layernorm", false), "qk_layernorm", "per-head LayerNorms of Q and K");
}

// InternLM2 (its remote modeling_internlm2.py): wqkv [(h + 2·kv)·d, D] and wo, both with a bias when "bias" is true;
// RMSNorms; the gated MLP w1, w3, w2 without bias. InternLM2Config's default for "bias" is not assumed: a file without
// it is refused.
void read_internlm2(const Reader& r, TransformerConfig& c) {
    if (!r.has("bias"))
        r.fail("missing \"bias\" (true or false: InternLM2's biases on wqkv and wo); bwacct will not guess");
    c.qkv_bias = c.o_bias = r.flag_or("bias", false);
}

// InternLM3 (its remote modeling_internlm3.py): Llama's q, k, v, o and gated MLP; q, k, v carry a bias when
// "qkv_bias" is true, o_proj and the MLP's gate, up and down when "bias" is true. As for InternLM2, the remote code's
// defaults are not assumed: a file without either is refused.
void read_internlm3(const Reader& r, TransformerConfig& c) {
    for (const char* key : {"qkv_bias", "bias"})
        if (!r.has(key))
            r.fail(fmt::format("missing \"{}\" (true or false: InternLM3's biases on {}); bwacct will not guess", key,
                               std::string_view(key) == "bias" ? "o_proj and the MLP" : "q, k and v"));
    c.qkv_bias = r.flag_or("qkv_bias", false);
    c.o_bias = c.mlp_bias = r.truth_or("bias", false);
}

// Ministral 3 (transformers' modular_ministral3.py): Mistral's attention with Q multiplied after RoPE by
// 1 + llama_4_scaling_beta · log(1 + ⌊position / original_max_position_embeddings⌋) (rope_parameters): one multiply per
// Q element, stated, not counted.
void read_ministral3(const Reader& r, TransformerConfig& c) {
    const json* rope = nullptr;
    for (const char* key : {"rope_parameters", "rope_scaling"})
        if (rope == nullptr && r.has(key) && r.doc.at(key).is_object())
            rope = &r.doc.at(key);
    const std::string beta =
        rope != nullptr && rope->contains("llama_4_scaling_beta") ? rope->at("llama_4_scaling_beta").dump() : "given";
    c.limitations.push_back(fmt::format(
        "llama_4_scaling_beta = {}: Ministral 3's scale of Q by position (one multiply per element) is not counted", beta));
}

// Granite, GraniteMoE (transformers' modeling_granite.py, modeling_granitemoe.py): Llama's block scaled by four numbers:
// the embeddings by embedding_multiplier, each sub-block's output by residual_multiplier before its residual add, the
// logits divided by logits_scaling, and attention_multiplier as the softmax scale (in place of 1/√d: no extra work).
// No parameters; the three multiplies per element (fused into the ops beside them) are stated, not counted.
void read_granite_scales(const Reader& r, TransformerConfig& c) {
    std::string scales;
    for (const char* key : {"embedding_multiplier", "residual_multiplier", "logits_scaling"})
        if (r.has(key) && r.doc.at(key) != 1 && r.doc.at(key) != 1.0)
            scales += fmt::format("{}{} = {}", scales.empty() ? "" : ", ", key, r.doc.at(key).dump());
    if (!scales.empty())
        c.limitations.push_back(fmt::format(
            "{}: Granite's scalar multiplies of the embeddings, of each sub-block's output and of the logits (one per "
            "element, fused) are not counted",
            scales));
}

// GraniteMoE (GraniteMoeMoE): every layer a router Linear(D, E) without bias and num_local_experts gated experts of
// intermediate_size (input_linear [E, 2·I, D], output_linear [E, D, I]); GraniteMoeShared adds one always-on gated MLP
// of shared_intermediate_size (no gate), read as shared_intermediate_size / intermediate_size whole experts (refused
// when that does not divide, as Qwen2-MoE's shared expert is).
void read_granite_moe(const Reader& r, TransformerConfig& c, MoeConfig& m) {
    m.experts = r.count("num_local_experts");
    m.expert_ffn = c.ffn;
    const std::uint64_t shared = r.natural_or("shared_intermediate_size", 0);
    if (shared % m.expert_ffn != 0)
        r.fail(
            fmt::format("\"shared_intermediate_size\" ({}) must be a multiple of \"intermediate_size\" ({}): bwacct models "
                        "the shared MLP as whole experts of that size",
                        shared, m.expert_ffn));
    m.shared_experts = shared / m.expert_ffn;
}

// Qwen2-MoE (transformers' Qwen2MoeSparseMoeBlock): beside the routed experts, one always-on gated MLP of
// shared_expert_intermediate_size, scaled by sigmoid(shared_expert_gate(x)), a Linear(hidden, 1). The engine's
// shared experts are n MLPs of the expert size fused into one of n · expert_ffn, so the shared expert is
// read as shared_expert_intermediate_size / moe_intermediate_size of them (refused when that does not divide).
void read_qwen2_moe_shared_expert(const Reader& r, std::uint64_t hidden, std::uint64_t layers, MoeConfig& m,
                                  std::vector<std::string>& limitations, bool defaulted) {
    // Left out: Qwen2MoeConfig's 5632 (class_defaults); null: no number the class can build its shared expert with.
    if (r.doc.contains("shared_expert_intermediate_size") && r.doc.at("shared_expert_intermediate_size").is_null())
        r.fail(
            "\"shared_expert_intermediate_size\" is null, which Qwen2MoeForCausalLM cannot be built with: give a number (0 for "
            "none)");
    const std::uint64_t shared = r.natural_or("shared_expert_intermediate_size", 0);
    if (shared == 0)
        return;
    if (shared % m.expert_ffn != 0)
        r.fail(fmt::format(
            "\"shared_expert_intermediate_size\" ({}) must be a multiple of \"moe_intermediate_size\" ({}): "
            "bwacct models the shared expert as whole experts of that size",
            defaulted ? fmt::format("left out: {}, Qwen2MoeConfig's default", shared) : std::to_string(shared), m.expert_ffn));
    m.shared_experts = shared / m.expert_ffn;
    limitations.push_back(fmt::format(
        "the shared expert's gate, sigmoid(Linear({0}, 1)) scaling its output, is not counted: {0} parameters per layer "
        "({1} in all) and a GEMV per token",
        hidden, hidden * layers));
}

// n_shared_experts and first_k_dense_replace of the DeepSeek-style MoE classes. Left out, each takes its class's default:
// a fixed number (Glm4MoeConfig, Dots1Config's first_k_dense_replace: class_defaults), none (DeepSeekMoE's remote code: no
// shared experts, no dense layer; DeepSeek-V2's first_k_dense_replace 0 in both transformers and its remote code) or a
// default the copies disagree on or cannot build with (Dots1Config's n_shared_experts None; transformers' DeepseekV2Config
// 2 shared experts where DeepSeek-V2's remote code has none), refused, as the other classes' (DeepseekV3Config 1 and 3).
// A null is refused for all but DeepSeekMoE (its remote code builds no shared experts for None).
std::uint64_t shared_experts_of(const Reader& r, const std::string& lm_arch) {
    const bool none_ok = lm_arch == "DeepseekForCausalLM";
    for (const char* key : {"n_shared_experts", "first_k_dense_replace"}) {
        const bool present = r.doc.contains(key);
        const bool not_read = lm_arch == "Glm4MoeLiteForCausalLM" && std::string_view(key) == "first_k_dense_replace";
        if (present && r.doc.at(key).is_null() && !none_ok && !not_read)
            r.fail(fmt::format("\"{}\" is null, which {} cannot be built with: give a number (0 for none)", key, lm_arch));
        // DeepSeek-V2's first_k_dense_replace defaults to 0 in transformers and its remote code; Glm4MoeLite reads none.
        // transformers 5's mlp_layer_types decides the dense layers without it.
        const bool zero_default =
            std::string_view(key) == "first_k_dense_replace" &&
            (lm_arch == "DeepseekV2ForCausalLM" || lm_arch == "Glm4MoeLiteForCausalLM" || r.has("mlp_layer_types"));
        if (!present && !none_ok && !zero_default)
            r.fail(fmt::format(
                "missing \"{}\": {}'s config class does not default it to 0 ({}); bwacct will not guess: give \"{}\": <{}>", key,
                lm_arch,
                lm_arch == "Dots1ForCausalLM"        ? "Dots1Config's n_shared_experts is None, which cannot be built"
                : lm_arch == "DeepseekV2ForCausalLM" ? "transformers' DeepseekV2Config 2, DeepSeek-V2's remote code none"
                : lm_arch == "DeepseekV3ForCausalLM" ? "transformers' DeepseekV3Config: 1 shared expert, 3 dense layers"
                                                     : "its class's default is not checked here",
                key, key[0] == 'n' ? "shared experts" : "dense layers"));
    }
    return r.natural_or("n_shared_experts", 0);
}

// The routed experts of Qwen2-MoE, Qwen3-MoE and OLMoE: "num_experts" in their config classes up to transformers 4.x;
// transformers 5 renames the attribute "num_local_experts" (Mixtral's name) and save_pretrained writes it so (Qwen3-MoE
// configs printed by 5.7 have no "num_experts"). Either name means the same count; a file giving both must agree.
std::uint64_t routed_experts(const Reader& r) {
    if (!r.has("num_experts"))
        return r.count(r.has("num_local_experts") ? "num_local_experts" : "num_experts");
    const std::uint64_t n = r.count("num_experts");
    if (r.has("num_local_experts") && r.count("num_local_experts") != n)
        r.fail(fmt::format("\"num_experts\" ({}) and \"num_local_experts\" ({}) disagree: both name the routed experts", n,
                           r.count("num_local_experts")));
    return n;
}

// compressed-tensors (llm-compressor's checkpoints: RedHat/neuralmagic FP8-dynamic, W8A8, W4A16, NVFP4): the
// linear weights' scheme is config_groups' "weights" (QuantizationArgs: num_bits, type, strategy, group_size,
// block_structure, symmetric, scale_dtype), stored as "format" says. Modelled where it is one of the engine's
// formats: fp8 e4m3 (float-quantized; strategy tensor, channel or block), int4 (pack-quantized, 4 bits per weight
// packed in int32) or int8 (pack-, int- or naive-quantized) per group or channel with scales and, when asymmetric,
// zero points, NVFP4 (nvfp4-pack-quantized). Scales take scale_dtype when given, else the checkpoint's 16-bit dtype
// (compressed-tensors stores them in the model's dtype). Anything else is refused naming the field.
// An entry of a module list naming what the engine keeps in the activation dtype anyway: the LM head, the token
// embedding and the MoE router with its score-correction bias ("mlp.gate", Mixtral's "block_sparse_moe.gate",
// Qwen-MoE's "shared_expert_gate", MiniMax's bare "gate"; not "gate_proj"), as a module name, a prefix ending in "."
// (AWQ's "mlp.gate.") or a "re:" pattern (a trailing "$" dropped). A norm ("...input_layernorm", "...q_norm": Qwen's FP8
// checkpoints list every layer's) is no linear weight: the engine keeps norm weights in the activation dtype too.
bool ignored_outside_blocks(std::string e) {
    if (!e.empty() && (e.back() == '$' || e.back() == '.'))
        e.pop_back();
    auto ends_with = [&](std::string_view tail) { return e.size() >= tail.size() && e.substr(e.size() - tail.size()) == tail; };
    return e.find("lm_head") != std::string::npos || e.find("embed_tokens") != std::string::npos || e == "gate" ||
           ends_with(".gate") || ends_with("shared_expert_gate") || ends_with("router") || ends_with("e_score_correction_bias") ||
           ends_with("norm");
}

// The module lists by which quantised checkpoints keep weights out of their format: compressed-tensors' and modelopt's
// "ignore" (modelopt also "exclude_modules"), bitsandbytes' "llm_int8_skip_modules", and "modules_to_not_convert"
// (transformers' HfQuantizer, written by mxfp4, fp8 and AWQ/GPTQ checkpoints). Entries beyond what the engine keeps in
// the activation dtype anyway are stated: the engine stores every linear weight of the blocks in one format.
// Entries that name every linear module of a part of the blocks (all layers' attention, the dense MLPs, the shared
// experts: hf::kept_parts) keep that part in the activation dtype (TransformerConfig::kept) and are not stated.
// An entry past hf::entry_problem's bounds (its length, a "re:" pattern's nesting and repeats) is refused naming the list.
// The kept parts are in the config's 16-bit dtype ("torch_dtype", "dtype" since transformers 4.56): float16, else bf16.
void state_kept_modules(const Reader& r, const json& q, Family fam, TransformerConfig& c) {
    static constexpr std::array<const char*, 5> kLists{"ignore", "exclude_modules", "llm_int8_skip_modules",
                                                       "modules_to_not_convert", "ignored_layers"};
    std::vector<std::string> entries, unexplained;
    for (const char* key : kLists)
        if (q.contains(key) && q.at(key).is_array())
            for (const json& e : q.at(key))
                if (e.is_string()) {
                    if (const std::string problem = hf::entry_problem(e.get<std::string>()); !problem.empty())
                        r.fail(
                            fmt::format("\"quantization_config.{}\": {}; bwacct reads module names and \"re:\" patterns "
                                        "of at most {} characters, {} nested groups, {} repeats, no repeated repeat",
                                        key, problem, hf::kMaxEntryChars, hf::kMaxEntryNesting, hf::kMaxEntryRepeats));
                    entries.push_back(e.get<std::string>());
                }
    for (const char* key : {"torch_dtype", "dtype"})
        if (r.doc.contains(key) && r.doc.at(key).is_string() && r.doc.at(key).get<std::string>() == "float16")
            c.kept.dtype = DType::fp16;
    hf::ModuleNames names;
    if (fam == Family::llama4)
        names.mlp = "feed_forward";
    if (fam == Family::qwen2_moe || fam == Family::llama4)
        names.shared = "shared_expert";
    const DType kept_dtype = c.kept.dtype;
    c.kept = hf::kept_parts(entries, c, names, unexplained);
    c.kept.dtype = kept_dtype;
    std::vector<std::string>& limitations = c.limitations;
    for (const char* key : kLists) {
        if (!q.contains(key) || !q.at(key).is_array())
            continue;
        std::string kept;
        for (const json& e : q.at(key))
            if (e.is_string() && !ignored_outside_blocks(e.get<std::string>()) &&
                std::find(unexplained.begin(), unexplained.end(), e.get<std::string>()) != unexplained.end()) {
                kept += (kept.empty() ? "" : ", ") + e.get<std::string>();
                if (kept.size() > 120) {
                    kept += ", ...";
                    break;
                }
            }
        if (!kept.empty())
            limitations.push_back(
                fmt::format("quantization_config.{} keeps {} unquantized: bwacct stores every linear weight of the blocks in the "
                            "checkpoint's format (their bytes are understated)",
                            key, kept));
    }
}

// A quantised KV cache ("kv_cache_scheme"; modelopt's "kv_cache_quant_algo"), which --kv-dtype selects, stated.
void state_quantised_kv(const json& q, std::vector<std::string>& limitations) {
    const bool kv_scheme = q.contains("kv_cache_scheme") && q.at("kv_cache_scheme").is_object();
    const bool kv_algo = q.contains("kv_cache_quant_algo") && q.at("kv_cache_quant_algo").is_string();
    if (kv_scheme || kv_algo)
        limitations.push_back(fmt::format(
            "quantization_config.{} quantises the KV cache: give --kv-dtype (e.g. fp8) for that path",
            kv_scheme ? "kv_cache_scheme" : "kv_cache_quant_algo = " + q.at("kv_cache_quant_algo").get<std::string>()));
}

StorageFormat read_compressed_tensors(const Reader& qr, const json& q, std::vector<std::string>& limitations) {
    // The format: the top level's, else the one every group names (llm-compressor writes it per group for
    // mixed checkpoints; "mixed-precision" at the top level when they differ).
    std::string format = qr.text_or("format", "");
    if (format.empty() && q.contains("config_groups") && q.at("config_groups").is_object())
        for (const auto& [name, g] : q.at("config_groups").items())
            if (g.is_object() && g.contains("format") && g.at("format").is_string()) {
                if (!format.empty() && format != g.at("format").get<std::string>()) {
                    format = "mixed-precision";
                    break;
                }
                format = g.at("format").get<std::string>();
            }
    static constexpr std::array<const char*, 5> kFormats{"float-quantized", "pack-quantized", "int-quantized", "naive-quantized",
                                                         "nvfp4-pack-quantized"};
    if (std::find(kFormats.begin(), kFormats.end(), format) == kFormats.end())
        qr.fail(
            fmt::format("\"quantization_config.format\" = \"{}\" is not modelled (compressed-tensors: float-quantized, "
                        "pack-quantized, int-quantized, naive-quantized, nvfp4-pack-quantized); bwacct will not guess",
                        format));
    for (const char* key : {"sparsity_config", "transform_config"})
        if (qr.has(key) && !(q.at(key).is_object() && q.at(key).empty()))
            qr.fail(fmt::format("\"quantization_config.{}\" = {} is not modelled ({}); bwacct will not guess", key,
                                q.at(key).dump(), key[0] == 's' ? "sparse weights" : "rotations applied to the weights"));
    if (!q.contains("config_groups") || !q.at("config_groups").is_object() || q.at("config_groups").empty())
        qr.fail("\"quantization_config.config_groups\" must be an object of one or more schemes (compressed-tensors)");
    // Every group must give the Linear weights one scheme: the engine stores all block weights in one format.
    const json* weights = nullptr;
    const json* inputs = nullptr;
    for (const auto& [name, g] : q.at("config_groups").items()) {
        if (!g.is_object() || !g.contains("weights") || !g.at("weights").is_object())
            qr.fail(
                fmt::format("\"quantization_config.config_groups.{}.weights\" must be an object (its QuantizationArgs)", name));
        if (weights != nullptr && g.at("weights") != *weights)
            qr.fail(
                fmt::format("\"quantization_config.config_groups\" gives the weights more than one scheme (\"{}\" differs): "
                            "not modelled, bwacct stores every linear weight of the blocks in one format",
                            name));
        weights = &g.at("weights");
        if (g.contains("input_activations") && g.at("input_activations").is_object())
            inputs = &g.at("input_activations");
    }
    const Reader w{*weights, qr.origin + " quantization_config weights"};
    const std::uint64_t bits = w.count("num_bits");
    const std::string type = w.text_or("type", "int");
    const std::string strategy = w.text_or("strategy", "tensor");
    const bool symmetric = w.flag_or("symmetric", true);
    const std::string scale_dtype = w.text_or("scale_dtype", "");
    const unsigned scale_bits = scale_dtype.empty() || scale_dtype.find("16") != std::string::npos ? 16
                                : scale_dtype.find("32") != std::string::npos                      ? 32
                                : scale_dtype.find("8") != std::string::npos                       ? 8
                                                                                                   : 0;
    if (scale_bits == 0)
        w.fail(fmt::format("\"scale_dtype\" = \"{}\" is not modelled (a 8-, 16- or 32-bit type)", scale_dtype));
    auto refuse = [&]() {
        w.fail(
            fmt::format("num_bits {} type {} strategy {}{} in format {} is not modelled (fp8 e4m3 tensor/channel/block, "
                        "int4 or int8 group/channel, nvfp4); bwacct will not guess the weights' storage",
                        bits, type, strategy, symmetric ? "" : " asymmetric", format));
    };
    StorageFormat f;
    if (type == "float" && bits == 8 && (format == "float-quantized" || format == "naive-quantized")) {
        if (!symmetric)
            refuse();
        f = plain_format(DType::fp8_e4m3);
        if (strategy == "tensor") {
            f.tensor_scale_bytes = scale_bits / 8;
        } else if (strategy == "channel") {
            f.scale_bits = scale_bits;  // group 0: one per output channel
        } else if (strategy == "block") {
            const json b = weights->value("block_structure", json());
            if (!b.is_array() || b.size() != 2 || !b[0].is_number_unsigned() || b[0] != b[1] || b[0].get<std::uint64_t>() == 0)
                w.fail(fmt::format("\"block_structure\" must be [n, n] (square blocks), got {}", b.dump()));
            f.block = b[0].get<std::uint64_t>();
            f.scale_bits = scale_bits;
        } else {
            refuse();
        }
    } else if (type == "int" && (bits == 4 || bits == 8) && (strategy == "group" || strategy == "channel") &&
               (format == "pack-quantized" || (bits == 8 && format != "float-quantized" && format != "nvfp4-pack-quantized"))) {
        f = plain_format(bits == 4 ? DType::int4 : DType::int8);
        f.group = strategy == "group" ? w.count("group_size") : 0;
        f.scale_bits = scale_bits;
        // Zero points: packed like the weights (pack-quantized), else one int8 each.
        f.zero_bits = symmetric ? 0 : format == "pack-quantized" ? static_cast<unsigned>(bits) : 8;
    } else if (type == "float" && bits == 4 && format == "nvfp4-pack-quantized" && strategy == "tensor_group" &&
               w.count_or("group_size", 16) == 16) {
        f = weight_format(DType::fp4, 0);  // e2m1, one fp8 e4m3 scale per 16 + one fp32 global scale per tensor
    } else {
        refuse();
    }
    if (inputs != nullptr) {
        const Reader a{*inputs, qr.origin + " quantization_config input_activations"};
        const std::string atype = a.text_or("type", "int");
        const std::uint64_t abits = a.count_or("num_bits", 8);
        limitations.push_back(fmt::format(
            "quantization_config input_activations ({} {}-bit, {}): the reference quantises activations at each GEMM; "
            "bwacct keeps activations in --act-dtype (default --dtype): give --act-dtype {} for that path",
            atype, abits, a.text_or("strategy", "tensor"),
            atype == "float" ? (abits == 4 ? "nvfp4" : "fp8") : (abits == 4 ? "int4" : "int8")));
    }
    return f;
}

// bitsandbytes (transformers' BitsAndBytesConfig: QLoRA and "-bnb-4bit" checkpoints). load_in_4bit: each linear weight
// as 4-bit codes (nf4 or fp4: a 16-entry table, stored and read as 4 bits like int4) in blocks of 64 along the flattened
// tensor, one absmax per block: fp32, or with bnb_4bit_use_double_quant an 8-bit code per block plus one fp32 offset
// per tensor (the nested fp32 scale per 256 blocks is stated, not counted). load_in_8bit (LLM.int8()): int8 weights,
// one fp32 scale per output row. Either way the GEMM dequantises to bnb_4bit_compute_dtype (4-bit) or fp16 (8-bit).
StorageFormat read_bitsandbytes(const Reader& qr, std::vector<std::string>& limitations) {
    const bool four = qr.flag_or("load_in_4bit", false);
    if (four == qr.flag_or("load_in_8bit", false))
        qr.fail("\"quantization_config\" (bitsandbytes) must set exactly one of \"load_in_4bit\" and \"load_in_8bit\" to true");
    StorageFormat f;
    if (four) {
        const std::string type = qr.text_or("bnb_4bit_quant_type", "fp4");
        if (type != "nf4" && type != "fp4")
            qr.fail(fmt::format(
                "\"quantization_config.bnb_4bit_quant_type\" = \"{}\" is not a bitsandbytes 4-bit type (nf4 or fp4)", type));
        f = plain_format(DType::int4);
        f.group = 64;  // bitsandbytes' 4-bit blocksize (not a config field)
        if (qr.flag_or("bnb_4bit_use_double_quant", false)) {
            f.scale_bits = 8;
            f.tensor_scale_bytes = 4;
            limitations.push_back(
                "bnb_4bit_use_double_quant: the nested fp32 scale of every 256 absmax codes (4 bytes per 16,384 weights) is "
                "not counted");
        } else {
            f.scale_bits = 32;
        }
        limitations.push_back(
            fmt::format("bitsandbytes {} weights are read as 4-bit codes with int4's bytes (the "
                        "dequantisation is a 16-entry table lookup)",
                        type));
        const std::string compute = qr.text_or("bnb_4bit_compute_dtype", "float32");
        if (compute != "bfloat16" && compute != "float16")
            limitations.push_back(fmt::format(
                "quantization_config.bnb_4bit_compute_dtype = {}: the reference dequantises to it and runs its GEMMs there; "
                "bwacct keeps activations in --act-dtype (default --dtype): give --act-dtype fp32 for that path",
                compute));
    } else {
        // has_fp16_weights keeps the weights in fp16 (bitsandbytes' Int8Params), quantising only inside the matmul.
        qr.refuse_unless(!qr.flag_or("llm_int8_has_fp16_weight", false), "llm_int8_has_fp16_weight",
                         "true keeps the weights in fp16, quantised only inside the matmul: describe the model without "
                         "quantization_config");
        f = plain_format(DType::int8);
        f.scale_bits = 32;  // group 0: one per output row (SCB)
        limitations.push_back(
            "bitsandbytes load_in_8bit (LLM.int8()): the outlier columns above llm_int8_threshold run in fp16 beside the int8 "
            "GEMM; not counted");
    }
    return f;
}

// quantization_config → the weights' storage format. fp8 (block scales from weight_block_size, else one
// per tensor), fbgemm_fp8 (one fp32 scale per output channel), AWQ (4-bit, group_size, zero_point), GPTQ (4/8-bit, group_size, −1
// = per channel; sym: no zero point), modelopt (quant_algo NVFP4 or FP8), mxfp4, bitsandbytes. Anything else: refused naming the
// field.
// MLX's "quantization" in a few words: {"group_size": 64, "bits": 4, "model.layers.1.mlp.gate": {...}} → "group_size 64,
// bits 4, 1 per-layer entry" (mlx-lm's mixed-precision files list thousands); another value, its first 40 bytes (cut between
// UTF-8 characters).
std::string mlx_summary(const json& q) {
    if (!q.is_object()) {
        const std::string text = q.dump();
        return text.size() > 40 ? utf8_prefix(text, 40) + "..." : text;
    }
    std::string out;
    std::size_t entries = 0;
    for (const char* key : {"group_size", "bits", "mode"})
        if (q.contains(key)) {
            const std::string v = q.at(key).dump();
            out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, v.size() > 20 ? utf8_prefix(v, 20) + "..." : v);
        }
    for (const auto& [key, value] : q.items())
        entries += key != "group_size" && key != "bits" && key != "mode" ? 1 : 0;
    if (entries > 0)
        out += fmt::format("{}{} per-layer entr{}", out.empty() ? "" : ", ", entries, entries == 1 ? "y" : "ies");
    return out;
}

StorageFormat read_quantization_format(const Reader& r, const json& q, std::vector<std::string>& limitations) {
    if (!q.is_object())
        r.fail("\"quantization_config\" must be an object");
    const Reader qr{q, r.origin};
    // transformers reads load_in_4bit / load_in_8bit true as bitsandbytes whatever quant_method says (AutoHfQuantizer:
    // BitsAndBytesConfig written before quant_method existed).
    const bool bnb = qr.flag_or("load_in_4bit", false) || qr.flag_or("load_in_8bit", false);
    // MLX checkpoints (mlx-community, Apple silicon) write {"group_size", "bits"} without a method, also as "quantization".
    if (!qr.has("quant_method") && !bnb)
        r.fail(
            fmt::format("\"quantization_config\" has no \"quant_method\"{}; bwacct reads fp8, fbgemm_fp8, awq, gptq, "
                        "modelopt, mxfp4, compressed-tensors and bitsandbytes checkpoints and will not guess the weights' "
                        "storage",
                        r.doc.contains("quantization") ? " (MLX's group_size and bits: an Apple-silicon format)" : ""));
    const std::string method = bnb ? "bitsandbytes" : qr.text_or("quant_method", "");
    auto group_of = [&](const char* key, std::uint64_t fallback) -> std::uint64_t {
        if (!qr.has(key))
            return fallback;
        const json& v = q.at(key);
        if (v.is_number_integer() && v.get<std::int64_t>() == -1)
            return 0;  // per output channel
        return qr.count_or(key, fallback);
    };
    StorageFormat f;
    if (method == "fp8") {
        // transformers' FineGrainedFP8Config writes "e4m3"; MiniMax-M2's checkpoints give the torch dtype's name.
        const std::string fmt_name = qr.text_or("fmt", "e4m3");
        const bool e4m3 = fmt_name == "e4m3" || fmt_name == "float8_e4m3fn" || fmt_name == "float8_e4m3";
        if (!e4m3 && fmt_name != "e5m2" && fmt_name != "float8_e5m2")
            r.fail(
                fmt::format("\"quantization_config.fmt\" = \"{}\" is not an fp8 format (e4m3, e5m2, float8_e4m3fn or "
                            "float8_e5m2)",
                            fmt_name));
        f = plain_format(e4m3 ? DType::fp8_e4m3 : DType::fp8_e5m2);
        if (qr.text_or("activation_scheme", "") == "dynamic")
            limitations.push_back(
                "quantization_config.activation_scheme = dynamic: the reference quantises activations to fp8 at each GEMM "
                "(fp8 × fp8 math); bwacct keeps activations in --act-dtype (default --dtype): give --act-dtype fp8 for that "
                "path");
        if (q.contains("weight_block_size") && !q.at("weight_block_size").is_null()) {
            const json& b = q.at("weight_block_size");
            if (!b.is_array() || b.size() != 2 || !b[0].is_number_unsigned() || b[0] != b[1] || b[0].get<std::uint64_t>() == 0)
                r.fail(fmt::format("\"quantization_config.weight_block_size\" must be [n, n] (square blocks), got {}", b.dump()));
            f.block = b[0].get<std::uint64_t>();
            f.scale_bits = 32;  // one fp32 scale_inv per block (DeepSeek-V3's weight_scale_inv)
            // Qwen's FP8 checkpoints (Qwen3-8B-FP8's tensor list) store weight_scale_inv in bf16; config.json does not say.
            limitations.push_back(fmt::format(
                "quantization_config.weight_block_size: one fp32 scale per {0}×{0} block counted (DeepSeek-V3's "
                "weight_scale_inv); config.json does not give the scales' dtype, and checkpoints that store them in bf16 "
                "(Qwen's FP8 releases) hold 2 B fewer per block",
                f.block));
        } else {
            f.tensor_scale_bytes = 4;
        }
        return f;
    }
    if (method == "awq" || method == "gptq") {
        const std::uint64_t bits = qr.count_or("bits", 4);
        if (bits != 4 && !(method == "gptq" && bits == 8))
            r.fail(fmt::format("\"quantization_config.bits\" = {} is not modelled ({}: 4{})", bits, method,
                               method == "gptq" ? " or 8" : ""));
        f = weight_format(bits == 4 ? DType::int4 : DType::int8, 0);
        f.group = group_of("group_size", 128);
        // AWQ stores qzeros only with zero_point. GPTQ's format stores them whatever "sym" says (qzeros int32 [K/group,
        // N·bits/32] beside qweight and scales: AutoGPTQ's QuantLinear and vLLM's GPTQ create_weights build them for
        // either; a symmetric checkpoint's hold the constant midpoint), so they are counted: the checkpoint's bytes.
        // GPTQ's Marlin format (checkpoint_format "marlin", AutoGPTQ's is_marlin_format) stores qweight and scales only.
        const bool marlin =
            method == "gptq" && (qr.text_or("checkpoint_format", "") == "marlin" || qr.flag_or("is_marlin_format", false));
        if (marlin && !qr.flag_or("sym", true))
            r.fail(
                "\"quantization_config.sym\" = false with the Marlin checkpoint format is not modelled: that format stores "
                "no zero points (AutoGPTQ converts symmetric checkpoints only)");
        f.zero_bits = !marlin && (method == "gptq" || qr.flag_or("zero_point", true)) ? static_cast<unsigned>(bits) : 0;
        // AutoAWQ's layouts (quantization_config.version): GEMM (the default) stores scales fp16 [K/g, N] and qzeros
        // packed [K/g, N/8]; GEMV (WQLinear_GEMV) pads each output row's groups to calculate_zeros_width(K, g) · 8 (a
        // multiple of 8 at g >= 128, 16 at 64, 32 at 32); GEMV_FAST (WQLinear_GEMVFast) pads scales the same and stores
        // its zeros as fp16 scaled_zeros shaped like the scales, with or without zero_point.
        if (method == "awq" && q.contains("version") && !q.at("version").is_string())
            r.fail(fmt::format("\"quantization_config.version\" must be a string (gemm, gemv or gemv_fast), got {}",
                               q.at("version").dump()));
        std::string version = method == "awq" ? qr.text_or("version", "gemm") : "gemm";
        std::transform(version.begin(), version.end(), version.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        if (version == "gemv" || version == "gemv_fast") {
            const std::uint64_t g = f.group;
            if (g != 0 && g < 128 && g != 64 && g != 32)
                r.fail(
                    fmt::format("\"quantization_config.group_size\" = {} with version {}: AutoAWQ's GEMV layouts take "
                                "32, 64, 128 or more (calculate_zeros_width)",
                                g, q.at("version").get<std::string>()));
            f.group_pad = g == 64 ? 16 : g == 32 ? 32 : 8;
            if (version == "gemv_fast")
                f.zero_bits = 16;  // scaled_zeros, fp16, always stored
        } else if (version != "gemm") {
            limitations.push_back(
                fmt::format("quantization_config.version = \"{}\": counted in AWQ's GEMM layout; this layout is not checked",
                            q.at("version").get<std::string>()));
        }
        if (method == "gptq" && marlin)
            limitations.push_back(
                "quant_method gptq in the Marlin checkpoint format: qweight and scales counted as stored (no qzeros, no "
                "g_idx)");
        else if (method == "gptq")
            limitations.push_back(fmt::format(
                "quant_method gptq: g_idx (an int32 per input row of each quantized matrix: {}) is not counted; "
                "{}the qzeros are counted as stored",
                qr.flag_or("desc_act", false)
                    ? "desc_act true, the act-order permutation every such checkpoint stores"
                    : "AutoGPTQ and GPTQModel store it even with desc_act false, other producers (auto-round) omit it, and "
                      "config.json does not say which",
                qr.flag_or("sym", true) ? "with sym true vLLM's Marlin kernels drop the constant zero points at load; " : ""));
        return f;
    }
    if (method == "fbgemm_fp8") {
        // Meta's FP8 checkpoints (Llama-3.1-405B-Instruct-FP8): fp8 e4m3 weights with one fp32 scale per output
        // channel (FBGEMM's row-wise scaling); activations quantised per token at each GEMM.
        f = plain_format(DType::fp8_e4m3);
        f.scale_bits = 32;
        limitations.push_back(
            "quantization_config.quant_method = fbgemm_fp8: the reference quantises activations to fp8 per token at each "
            "GEMM; bwacct keeps activations in --act-dtype (default --dtype): give --act-dtype fp8 for that path");
        return f;
    }
    if (method == "mxfp4")
        return weight_format(DType::mxfp4, 0);
    if (method == "compressed-tensors")
        return read_compressed_tensors(qr, q, limitations);
    if (method == "modelopt") {
        // NVIDIA ModelOpt: NVFP4 (W4A4) or FP8 (W8A8) with static activation scales: the reference quantises the GEMM
        // inputs too.
        const std::string algo = qr.text_or("quant_algo", "");
        // NVFP4's scale block is 16 (one fp8 e4m3 scale per 16 weights, what the bytes count): ModelOpt writes
        // "group_size": 16; another value would be a format bwacct does not count (its bytes silently wrong).
        if ((algo == "NVFP4" || algo == "W4A16_NVFP4") && qr.has("group_size") && qr.doc.at("group_size") != 16)
            r.fail(fmt::format(
                "\"quantization_config.group_size\" = {} is not modelled with quant_algo {}: NVFP4 stores one fp8 scale per "
                "16 weights (group_size 16, or left out)",
                qr.doc.at("group_size").dump(), algo));
        if (algo == "NVFP4" || algo == "FP8") {
            limitations.push_back(fmt::format(
                "quantization_config.quant_algo = {}: the reference quantises activations at each GEMM too; bwacct keeps "
                "activations in --act-dtype (default --dtype): give --act-dtype {} for that path",
                algo, algo == "NVFP4" ? "nvfp4" : "fp8"));
            return weight_format(algo == "NVFP4" ? DType::fp4 : DType::fp8_e4m3, 0);
        }
        // W4A16_NVFP4 (TensorRT-LLM's QuantAlgo of that name): NVFP4's weight tensors (e2m1 codes, an fp8 scale per 16, an
        // fp32 global scale) with activations left in 16 bits: the w4a16 path bwacct costs by default.
        if (algo == "W4A16_NVFP4")
            return weight_format(DType::fp4, 0);
        r.fail(fmt::format("\"quantization_config.quant_algo\" = \"{}\" is not modelled (modelopt: NVFP4, W4A16_NVFP4 or FP8)",
                           algo));
    }
    if (method == "bitsandbytes")
        return read_bitsandbytes(qr, limitations);
    r.fail(
        fmt::format("\"quantization_config.quant_method\" = \"{}\" is not modelled (fp8, fbgemm_fp8, awq, gptq, modelopt "
                    "NVFP4/FP8, mxfp4, compressed-tensors, bitsandbytes); bwacct will not guess the weights' storage",
                    method));
}

// The weights' format, then a quantised KV cache (state_quantised_kv); the modules the checkpoint keeps in 16 bits are
// read once the blocks' shapes are known (state_kept_modules).
StorageFormat read_quantization(const Reader& r, const json& q, std::vector<std::string>& limitations) {
    StorageFormat f = read_quantization_format(r, q, limitations);
    state_quantised_kv(q, limitations);
    return f;
}

// diffusers' WanTransformer3DModel (or WanVACETransformer3DModel) config → the WanModel config.json keys
// parse_wan_config reads: the same network (diffusers' conversion script maps Wan2.1's weights onto it one to one)
// under other names. Image conditioning (image_dim: Wan2.1's CLIP image cross-attention, add_k_proj/add_v_proj of
// added_kv_proj_dim = the hidden size; pos_embed_seq_len: FLF2V's position embedding over both images' tokens) is
// applied by wan_image_branch; another q/k norm is refused, as WanModel's qk_norm = false is.
json wan_from_diffusers(const Reader& r) {
    // qk_norm null: diffusers up to 0.34 passed it to Attention(qk_norm=None), no q/k norm; 0.35 and later
    // (WanAttention) ignore qk_norm and always build RMSNorm across heads. The file does not say which: refused.
    if (r.doc.contains("qk_norm") && r.doc.at("qk_norm").is_null())
        r.fail(
            "\"qk_norm\" = null is not modelled: diffusers up to 0.34 built no q/k norm for it, later diffusers "
            "ignore qk_norm and build q/k RMSNorm across heads, and the file does not say which (give "
            "\"rms_norm_across_heads\")");
    if (r.doc.contains("qk_norm") && r.doc.at("qk_norm") != "rms_norm_across_heads")
        r.fail(
            fmt::format("\"qk_norm\" = {} is not modelled (the DiT block is modelled with q/k RMSNorm across heads, "
                        "\"rms_norm_across_heads\")",
                        r.doc.at("qk_norm").dump()));
    const bool vace = r.doc.at("_class_name") == "WanVACETransformer3DModel";
    // A key the class's constructor does not take (a fork's extra modules) would be dropped here: refused instead.
    static const std::set<std::string> known{"patch_size",
                                             "num_attention_heads",
                                             "attention_head_dim",
                                             "in_channels",
                                             "out_channels",
                                             "text_dim",
                                             "freq_dim",
                                             "ffn_dim",
                                             "num_layers",
                                             "cross_attn_norm",
                                             "qk_norm",
                                             "eps",
                                             "image_dim",
                                             "added_kv_proj_dim",
                                             "rope_max_seq_len",
                                             "pos_embed_seq_len",
                                             "vace_layers",
                                             "vace_in_channels"};
    for (const auto& [key, value] : r.doc.items()) {
        if (key == "architectures")  // null or [] (else not read by class)
            continue;
        // null: unquantized (diffusers' ModelMixin.from_pretrained quantizes only a value that is not None)
        if (key == "quantization_config" && value.is_null())
            continue;
        if (key == "quantization_config")
            r.fail(dit_quantization_refusal(
                r.doc.at("_class_name").get<std::string>(),
                value.is_object() && value.contains("quant_method") && value.at("quant_method").is_string()
                    ? value.at("quant_method").get<std::string>()
                    : std::string()));
        if (!key.empty() && key.front() != '_' && known.count(key) == 0)
            r.fail(
                fmt::format("\"{}\" is not a {} constructor argument: a Wan-derived model whose extra modules or "
                            "attention bwacct does not count; bwacct will not guess",
                            key, r.doc.at("_class_name").get<std::string>()));
    }
    // A null the class gives a meaning: out_channels (in_channels), image_dim, added_kv_proj_dim, pos_embed_seq_len
    // (none), cross_attn_norm (none: `if cross_attn_norm`). Any other null is a value the class cannot be built with
    // (nn.Conv3d(None, ...), PixArtAlphaTextProjection(None, ...), range(None)) or, eps, run with (layer_norm's eps):
    // refused naming it, not read as the default.
    static const std::set<std::string> nullable{"out_channels",      "image_dim",       "added_kv_proj_dim",
                                                "pos_embed_seq_len", "cross_attn_norm", "quantization_config"};
    for (const auto& [key, value] : r.doc.items())
        if (value.is_null() && !key.empty() && key.front() != '_' && key != "architectures" && nullable.count(key) == 0)
            r.fail(
                fmt::format("\"{}\" is null, which {} cannot be {} with (give a value, or leave the key out for "
                            "the class's default)",
                            key, r.doc.at("_class_name").get<std::string>(), key == "eps" ? "run" : "built"));
    const std::uint64_t heads = r.count("num_attention_heads");
    const std::uint64_t head_dim = r.count("attention_head_dim");
    if (head_dim % 2 != 0)
        r.fail(fmt::format("\"attention_head_dim\" must be even (RoPE rotates pairs), got {}", head_dim));
    if (heads > std::numeric_limits<std::uint64_t>::max() / head_dim)
        r.fail(
            fmt::format("\"num_attention_heads\" ({}) × \"attention_head_dim\" ({}), the hidden size, overflows "
                        "a 64-bit count",
                        heads, head_dim));
    if (heads * head_dim > kDitMaxSize)
        r.fail(
            fmt::format("\"num_attention_heads\" ({}) × \"attention_head_dim\" ({}), the hidden size, is more than "
                        "bwacct models for a DiT (at most {}); check the values",
                        heads, head_dim, kDitMaxSize));
    // The sizes checked under the class's own names (parse_wan_config would name WanModel's in_dim, out_dim,
    // vace_in_dim).
    // rope_max_seq_len sizes the RoPE table (a buffer, no parameter): a positive integer all the same, as the class
    // builds the table with it.
    for (const char* key :
         {"in_channels", "out_channels", "text_dim", "freq_dim", "vace_in_channels", "rope_max_seq_len", "num_attention_heads",
          "attention_head_dim", "ffn_dim", "image_dim", "added_kv_proj_dim", "pos_embed_seq_len"})
        if (r.count_or(key, 1) > kDitMaxSize)
            r.fail(fmt::format("\"{}\" = {} is more than bwacct models for a DiT (at most {}); check the value", key,
                               r.count_or(key, 1), kDitMaxSize));
    json w = {{"_class_name", vace ? "VaceWanModel" : "WanModel"},
              {"model_type", "t2v"},
              {"dim", heads * head_dim},
              {"num_heads", heads},
              {"num_layers", r.count("num_layers")},
              {"ffn_dim", r.count("ffn_dim")}};
    for (const auto& [from, to] : std::array<std::pair<const char*, const char*>, 7>{{{"in_channels", "in_dim"},
                                                                                      {"out_channels", "out_dim"},
                                                                                      {"text_dim", "text_dim"},
                                                                                      {"freq_dim", "freq_dim"},
                                                                                      {"patch_size", "patch_size"},
                                                                                      {"cross_attn_norm", "cross_attn_norm"},
                                                                                      {"eps", "eps"}}})
        if (r.has(from))
            w[to] = r.doc.at(from);
    if (r.doc.contains("cross_attn_norm") && r.doc.at("cross_attn_norm").is_null())
        w["cross_attn_norm"] = false;
    // out_channels null is in_channels (the class's `out_channels = out_channels or in_channels`), not 16.
    if (r.doc.contains("out_channels") && r.doc.at("out_channels").is_null())
        w["out_dim"] = r.count_or("in_channels", 16);
    // The VACE keys belong to WanVACETransformer3DModel alone (the plain class has no VACE blocks and diffusers
    // ignores the keys there: a file naming one class with the other's keys is refused rather than guessed), with ITS
    // defaults when left out: vace_layers [0, 5, ..., 35] and vace_in_channels 96, not WanModel's range(0, num_layers,
    // 2) and in_dim (parse_wan_config refuses, as diffusers raises, a layer past the last or a list without layer 0).
    for (const char* key : {"vace_layers", "vace_in_channels"})
        if (!vace && r.has(key))
            r.fail(
                fmt::format("\"{}\" is a WanVACETransformer3DModel key: a WanTransformer3DModel has no VACE blocks "
                            "(\"_class_name\": \"WanVACETransformer3DModel\" for a VACE model)",
                            key));
    if (vace) {
        w["vace_layers"] = r.has("vace_layers") ? r.doc.at("vace_layers") : json::array({0, 5, 10, 15, 20, 25, 30, 35});
        w["vace_in_dim"] = r.has("vace_in_channels") ? r.doc.at("vace_in_channels") : json(96);
    }
    return w;
}

// diffusers' image branch (WanImageEmbedding(image_dim, D) and the blocks' add_k_proj/add_v_proj/norm_added_k) onto
// a parsed WanTransformer3DModel: 257 CLIP tokens per image (diffusers' pipeline feeds CLIPVisionModel's
// penultimate hidden states of one 224 px image), or pos_embed_seq_len tokens when the FLF2V position embedding
// is present (it is added to all the images' tokens at once). added_kv_proj_dim without image_dim, or another
// width than the hidden size (the image embedding's output feeds add_k_proj), is refused.
void wan_image_branch(const Reader& r, TransformerConfig& w) {
    const bool image = r.has("image_dim"), added = r.has("added_kv_proj_dim");
    if (!image && !added) {
        if (r.has("pos_embed_seq_len"))
            r.fail(
                fmt::format("\"pos_embed_seq_len\" = {} without \"image_dim\" is not modelled (the position embedding "
                            "belongs to the image embedding)",
                            r.doc.at("pos_embed_seq_len").dump()));
        return;
    }
    if (!image || !added)
        r.fail(fmt::format("\"{}\" without \"{}\" is not modelled (the image cross-attention needs both)",
                           image ? "image_dim" : "added_kv_proj_dim", image ? "added_kv_proj_dim" : "image_dim"));
    if (r.count("added_kv_proj_dim") != w.hidden)
        r.fail(
            fmt::format("\"added_kv_proj_dim\" = {} is not modelled: only the hidden size ({}), the width of the image "
                        "embedding it projects",
                        r.count("added_kv_proj_dim"), w.hidden));
    if (w.dit->vace_blocks != 0)
        r.fail("VACE with image conditioning (image_dim) is not modelled; bwacct will not guess");
    w.dit->image_dim = r.count("image_dim");
    w.dit->image_pos_emb = r.has("pos_embed_seq_len");
    w.dit->image_tokens = w.dit->image_pos_emb ? r.count("pos_embed_seq_len") : kClipTokensPerImage;
}

}  // namespace

std::vector<std::string> hf_architectures() {
    std::vector<std::string> out;
    for (const Arch& a : kArchs)
        out.emplace_back(a.name);
    for (const Wrapper& w : kWrappers)
        out.emplace_back(w.name);
    out.emplace_back("DbrxForCausalLM");
    out.emplace_back("ExaoneForCausalLM");
    return out;
}

TransformerConfig parse_hf_config(std::string_view json_text, const std::string& origin, WanI2v wan_i2v) {
    json doc;
    try {
        doc = json::parse(json_text);
    } catch (const json::parse_error& e) {
        throw InputError(origin, fmt::format("not valid JSON (at byte {}); expected a Hugging Face config.json", e.byte));
    } catch (const json::out_of_range&) {
        throw InputError(origin, "a number is too large for a double; expected a Hugging Face config.json");
    }
    if (!doc.is_object())
        throw InputError(origin, "expected a JSON object (a Hugging Face config.json)");
    const Reader top{doc, origin};
    // A diffusers model config names its class instead of "architectures" (docs/formulas.md, "Video
    // diffusion transformers (DiT)").
    // "architectures" null or [] says nothing: such a file is read by its "_class_name" too.
    const bool no_architectures = !doc.contains("architectures") || doc.at("architectures").is_null() ||
                                  (doc.at("architectures").is_array() && doc.at("architectures").empty());
    if (no_architectures && doc.contains("_class_name")) {
        if (doc.at("_class_name") == "WanModel" || doc.at("_class_name") == "VaceWanModel")
            return parse_wan_config(json_text, origin, wan_i2v);
        if (doc.at("_class_name") == "WanTransformer3DModel" || doc.at("_class_name") == "WanVACETransformer3DModel") {
            const std::string cls = doc.at("_class_name").get<std::string>();
            TransformerConfig w = parse_wan_config(wan_from_diffusers(top).dump(), origin);
            wan_image_branch(top, w);
            w.dit->vace_stacked_hints = false;  // diffusers keeps the VACE hints in a list
            // The transformer embeds a [B] or a [B, T] timestep, whichever the pipeline passes; only the pipeline's
            // expand_timesteps says per token. Read once per sample. Diffusers sets it for the Wan2.2 VAE's 48-channel
            // latent alone (Wan2.2-TI2V-5B-Diffusers; Wan2.1 and the A14B experts, 16 channels, pass [B]): said where
            // this file's out_channels is 48, as the modulation's bytes differ by a factor of about T.
            const DitConfig& d = *w.dit;
            if (d.vace_blocks == 0 && d.image_tokens == 0 && d.out_channels == 48)
                w.limitations.push_back(
                    "out_channels 48 (the Wan2.2 VAE latent): its diffusers pipelines (Wan2.2-TI2V-5B-Diffusers) set "
                    "\"expand_timesteps\" in model_index.json, embedding the timestep per token, which this config.json "
                    "cannot say; modelled once per sample (Wan's own config.json, \"model_type\": \"ti2v\", is read per "
                    "token)");
            // Labelled by what the file says: an image embedding (i2v, flf2v), VACE blocks, or more input than output
            // channels (conditioning latents concatenated on channels: Wan2.2-I2V-A14B's 36 = 16 + mask 4 + image 16).
            w.name = d.vace_blocks != 0   ? cls + " (vace)"
                     : d.image_pos_emb    ? cls + " (flf2v)"
                     : d.image_tokens > 0 ? cls + " (i2v)"
                     : d.in_channels > d.out_channels
                         ? fmt::format("{} (channel-concat conditioning: in_channels {}, out_channels {})", cls, d.in_channels,
                                       d.out_channels)
                         : cls + " (t2v)";
            w.source = fmt::format("diffusers config.json ({}), class {} (read as Wan2.1's {})", origin, cls,
                                   w.dit->vace_blocks != 0 ? "VaceWanModel" : "WanModel");
            return w;
        }
        if (doc.at("_class_name").is_string()) {
            const std::string cls = doc.at("_class_name").get<std::string>();
            hf::refuse_unmodelled_class(top, cls);
            hf::refuse_wan_derived_class(top, cls);
        }
        top.fail(
            fmt::format("unsupported diffusers class {}; supported: WanModel, VaceWanModel, WanTransformer3DModel, "
                        "WanVACETransformer3DModel (or a config.json "
                        "with \"architectures\": {})",
                        doc.at("_class_name").dump(), supported_list()));
    }
    // Mistral's native params.json (mistral-inference's TransformerArgs; hf_mistral_params.cpp).
    const bool mistral_params = hf::is_mistral_params(doc);
    if (no_architectures && !mistral_params)
        top.fail(
            "missing \"architectures\" (a list naming the model class, e.g. [\"LlamaForCausalLM\"]) and \"_class_name\" "
            "(a diffusers model's class: WanModel, VaceWanModel, WanTransformer3DModel, WanVACETransformer3DModel); "
            "Mistral's params.json (\"dim\", \"n_layers\") is read too");
    if (!mistral_params && (!doc.at("architectures").is_array() || !doc.at("architectures").front().is_string()))
        top.fail(fmt::format("\"architectures\" must be a list naming the model class, e.g. [\"LlamaForCausalLM\"], got {}",
                             doc.at("architectures").dump()));
    const std::string arch = mistral_params ? hf::mistral_params_class(doc) : doc.at("architectures").front().get<std::string>();

    // A multimodal wrapper: the language model's fields are its "text_config"; the checkpoint-wide ones
    // (quantization, tied embeddings, the name) may sit at the top level.
    json lm = doc;
    std::string lm_arch = arch;
    std::string lm_origin = origin;
    const Wrapper* wrapper = nullptr;
    for (const Wrapper& w : kWrappers)
        if (arch == w.name)
            wrapper = &w;
    // DBRX: Mixtral's block under its own, nested field names (hf_dbrx.cpp).
    std::vector<std::string> translated_limits;
    const bool dbrx = arch == "DbrxForCausalLM";
    // EXAONE 3.0 / 3.5: Llama's block under its own field names (hf_exaone.cpp).
    const bool exaone3 = arch == "ExaoneForCausalLM";
    if (dbrx || exaone3) {
        hf::Translated t = dbrx ? hf::dbrx_as_mixtral(top) : hf::exaone_as_llama(top);
        lm = std::move(t.fields);
        translated_limits = std::move(t.limitations);
        lm_arch = dbrx ? "MixtralForCausalLM" : "LlamaForCausalLM";
    }
    // Hunyuan-A13B: DeepSeekMoE's block with per-head q/k norms when its per-layer lists are uniform (hf_hunyuan.cpp).
    const bool hunyuan = arch == "HunYuanMoEV1ForCausalLM" && hf::hunyuan_moe_is_uniform(doc);
    if (hunyuan) {
        hf::Translated t = hf::hunyuan_moe_as_deepseek_moe(top);
        lm = std::move(t.fields);
        translated_limits = std::move(t.limitations);
        lm_arch = "DeepseekForCausalLM";
    }
    if (mistral_params) {
        hf::Translated t = hf::mistral_params_as_hf(top);
        lm = std::move(t.fields);
        translated_limits = std::move(t.limitations);
    }
    // Granite 4.0 (GraniteMoeHybrid): read only when every layer is attention (hf_granite_hybrid.cpp).
    const bool granite_hybrid = arch == "GraniteMoeHybridForCausalLM";
    if (granite_hybrid) {
        hf::Translated t = hf::granite_hybrid_as_granite(top, lm_arch);
        lm = std::move(t.fields);
        translated_limits = std::move(t.limitations);
    }
    if (wrapper != nullptr) {
        const bool nested = doc.contains("text_config") && !doc.at("text_config").is_null();
        if (nested && !doc.at("text_config").is_object())
            top.fail(fmt::format("\"text_config\" must be an object (the language model of {})", arch));
        if (!nested && !wrapper->top_level_text)
            top.fail(fmt::format("\"text_config\" must be an object (the language model of {})", arch));
        if (nested) {
            lm = doc.at("text_config");
            lm_origin = origin + " text_config";
        }
        // Ministral 3 (Mistral3ForConditionalGeneration with a "ministral3" text_config): Mistral's block (read_ministral3).
        const bool ministral3 = nested && arch == "Mistral3ForConditionalGeneration" && lm.contains("model_type") &&
                                lm.at("model_type") == "ministral3";
        if (nested && lm.contains("model_type") && !lm.at("model_type").is_null() &&
            lm.at("model_type") != wrapper->text_model_type && !ministral3)
            top.fail(fmt::format("\"text_config.model_type\" = {} is not modelled for {} (expected \"{}\")",
                                 lm.at("model_type").dump(), arch, wrapper->text_model_type));
        for (const char* key : {"quantization_config", "quantization", "tie_word_embeddings", "_name_or_path"})
            if ((!lm.contains(key) || lm.at(key).is_null()) && doc.contains(key))
                lm[key] = doc.at(key);
        lm_arch = ministral3 ? "Ministral3ForCausalLM" : wrapper->language_arch;
    }
    const Arch* found = nullptr;
    for (const Arch& a : kArchs)
        if (lm_arch == a.name)
            found = &a;
    if (found == nullptr) {
        hf::refuse_unmodelled_class(top, arch);
        // A class not listed whose fields (its own or its text_config's) show layers the engine has no op for (Qwen3.5's
        // Gated DeltaNet "linear_attention", Mamba fields): refused saying so, not only as unsupported.
        const bool nested_lm = doc.contains("text_config") && doc.at("text_config").is_object();
        const std::string text_origin = origin + " text_config";
        for (const Reader& layers : {top, Reader{nested_lm ? doc.at("text_config") : doc, nested_lm ? text_origin : origin}})
            try {
                hf::refuse_unmodelled_layers(layers);
            } catch (const InputError& e) {
                // The reason without the "<origin>: " InputError put before it.
                const std::string what = e.what(), prefix = e.option() + ": ";
                throw InputError(origin, fmt::format("{} is not modelled: {}", arch,
                                                     what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what));
            }
        top.fail(fmt::format("unsupported architecture \"{}\"; supported: {}", arch, supported_list()));
    }
    const Family fam = found->family;
    const bool gemma = fam == Family::gemma || fam == Family::gemma2 || fam == Family::gemma3;
    std::string defaulted;
    json taken = json::object();  // the keys taken from the class's defaults
    const bool nested_text = wrapper != nullptr && lm_origin != origin;
    const json wrapper_defaults =
        nested_text && wrapper->text_defaults != nullptr ? json::parse(wrapper->text_defaults) : json::object();
    const ClassDefaults defaults =
        wrapper_defaults.empty() ? class_defaults(fam, lm_arch) : ClassDefaults{wrapper->defaults_named, wrapper_defaults};
    // Only a key config.json leaves out takes the class default: an explicit null is None in transformers
    // too (Olmo3Config's "sliding_window": null means no window; SeedOssConfig's "head_dim": null, hidden / heads).
    for (const auto& [key, value] : defaults.fields.items())
        if (!lm.contains(key)) {
            lm[key] = value;
            taken[key] = value;
            defaulted += fmt::format("{}{} = {}", defaulted.empty() ? "" : ", ", key, value.dump());
        }
    const Reader r{lm, lm_origin};
    hf::refuse_unmodelled_layers(r);
    // A nested text_config without a field its class defaults to a fixed number (kWrappers' `dropped`) is refused. Ministral
    // 3's text_config (Ministral3Config) keeps only the num_key_value_heads rule.
    if (nested_text) {
        const bool ministral3 = lm_arch == "Ministral3ForCausalLM";
        for (const Dropped& d : wrapper->dropped) {
            if (d.key == nullptr || lm.contains(d.key) || (ministral3 && std::string_view(d.key) != "num_key_value_heads"))
                continue;
            r.fail(
                fmt::format("missing \"text_config.{0}\": transformers leaves out of a nested text_config the fields equal "
                            "to its class's defaults, and {1}'s default {0} (model_type \"{2}\") is {3}; bwacct will not "
                            "guess: give \"text_config.{0}\": {4}",
                            d.key, ministral3 ? "Ministral3Config" : wrapper->text_config_class,
                            ministral3 ? "ministral3" : wrapper->text_model_type,
                            ministral3 ? "not the query heads" : d.class_default, d.accepted));
        }
    }

    // Yi's remote code (configuration_yi.py, YiConfig) and Gemma2Config default num_key_value_heads to a fixed number (Yi
    // 4; Gemma 2: 16 in older transformers, 4 in newer), not to the query heads as LlamaConfig does.
    if ((lm_arch == "YiForCausalLM" || fam == Family::gemma2) && !lm.contains("num_key_value_heads"))
        r.fail(
            fmt::format("missing \"num_key_value_heads\": {}'s default is a fixed number ({}), not the query heads; "
                        "bwacct will not guess: give \"num_key_value_heads\": <key/value heads>",
                        fam == Family::gemma2 ? "Gemma2Config" : "YiConfig (configuration_yi.py)",
                        fam == Family::gemma2 ? "16 in older transformers, 4 in newer" : "4"));

    TransformerConfig c;
    c.name = !r.text_or("_name_or_path", "").empty() ? fmt::format("{} ({})", r.text_or("_name_or_path", arch), arch) : arch;
    c.source =
        wrapper != nullptr
            ? fmt::format("Hugging Face config.json ({}), architecture {}: its text_config read as {}", origin, arch, lm_arch)
        : dbrx ? fmt::format(
                     "Hugging Face config.json ({}), architecture {}: read as {} (d_model, n_layers, n_heads, "
                     "attn_config, ffn_config)",
                     origin, arch, lm_arch)
        : hunyuan ? fmt::format(
                        "Hugging Face config.json ({}), architecture {}: uniform per-layer lists, read as {} with "
                        "per-head q/k RMSNorms",
                        origin, arch, lm_arch)
        : mistral_params
            ? fmt::format(
                  "Mistral params.json ({}), mistral-inference's TransformerArgs: read as {} (dim, n_layers, head_dim, "
                  "hidden_dim, n_heads, n_kv_heads{})",
                  origin, lm_arch, doc.contains("moe") ? ", moe" : "")
        : exaone3 ? fmt::format("Hugging Face config.json ({}), architecture {}: read as {} (num_layers, activation_function)",
                                origin, arch, lm_arch)
        : granite_hybrid ? fmt::format("Hugging Face config.json ({}), architecture {}: every layer attention, read as {}",
                                       origin, arch, lm_arch)
                         : fmt::format("Hugging Face config.json ({}), architecture {}", origin, arch);
    c.limitations.insert(c.limitations.end(), translated_limits.begin(), translated_limits.end());
    if (wrapper != nullptr)
        c.limitations.push_back(
            fmt::format("{} is multimodal: its language model (text_config, read as {}) is modelled; the vision tower and "
                        "projector (vision_config) are not counted (parameters or time)",
                        arch, lm_arch));
    if (!defaulted.empty())
        c.limitations.push_back(fmt::format("config.json leaves out {} ({}, taken here)", defaulted, defaults.named));
    c.hidden = r.count("hidden_size");
    c.layers = r.count("num_hidden_layers");
    if (c.layers > kMaxLayers)
        r.fail(fmt::format("\"num_hidden_layers\" = {} is more than bwacct models (at most {}); check the layer count", c.layers,
                           kMaxLayers));
    c.heads = r.count("num_attention_heads");
    c.kv_heads = r.count_or("num_key_value_heads", c.heads);
    c.head_dim = r.count_or("head_dim", 0);
    c.vocab = r.count("vocab_size");
    const bool qwen_moe = fam == Family::qwen2_moe || fam == Family::qwen3_moe;
    c.ffn = qwen_moe ? r.count_or("intermediate_size", r.count("moe_intermediate_size")) : r.count("intermediate_size");
    c.mlp = MlpKind::gated;
    c.norm = NormKind::rmsnorm;
    c.tied_embeddings = r.truth_or("tie_word_embeddings", gemma || fam == Family::ernie45_moe || fam == Family::ernie45 ||
                                                              fam == Family::smollm3);  // per-class defaults

    // The activation: SiLU everywhere but Gemma (GELU, tanh form). Gemma 2/3's MLP runs hidden_activation (their configs
    // default it to gelu_pytorch_tanh). Gemma 1's depends on the engine: vLLM (_get_gemma_act_fn) and transformers
    // 4.40-4.47 (GemmaMLP, PR 29402) run hidden_activation, gelu_pytorch_tanh when it is null, whatever hidden_act says;
    // transformers >= 4.48 runs ACT2FN[hidden_act] (GemmaConfig's default gelu_pytorch_tanh). Both must be a GELU form.
    const char* act_key = gemma ? "hidden_activation" : "hidden_act";
    const std::string act = r.text_or(act_key, gemma ? "gelu_pytorch_tanh" : "silu");
    if (gemma) {
        const auto is_gelu = [](const std::string& a) {
            return a == "gelu_pytorch_tanh" || a == "gelu_tanh" || a == "gelu_new" || a == "gelu";
        };
        constexpr const char* kGeluForms = "gelu_pytorch_tanh, gelu_tanh, gelu_new or gelu";
        r.refuse_unless(is_gelu(act), act_key, fmt::format("Gemma's MLP is modelled with GELU: {}", kGeluForms).c_str());
        if (fam == Family::gemma && r.has("hidden_act")) {
            const std::string run_by_new = r.text_or("hidden_act", "");
            if (!is_gelu(run_by_new))
                r.fail(
                    fmt::format("\"hidden_act\" = {} is not modelled: transformers >= 4.48 runs it in Gemma's MLP (vLLM "
                                "and transformers 4.40-4.47 run hidden_activation, or GELU's tanh form when it is "
                                "null); accepted: {}",
                                lm.at("hidden_act").dump(), kGeluForms));
            if (run_by_new == "gelu" && act != "gelu")
                c.limitations.push_back(fmt::format(
                    "hidden_act = \"gelu\" with hidden_activation {}: vLLM and transformers 4.40-4.47 run GELU's tanh form, as "
                    "costed here; transformers >= 4.48 runs hidden_act, the exact (erf) form (a few FLOPs per element apart)",
                    r.has("hidden_activation") ? "= " + lm.at("hidden_activation").dump() : std::string("null")));
        }
        if (act == "gelu")  // the erf form costs about what the tanh form does
            c.limitations.push_back(
                "hidden_activation = \"gelu\" (the exact, erf form) is costed as GELU's tanh form (a few FLOPs per element "
                "apart)");
        c.gelu_gate = true;
        c.block_norms = fam == Family::gemma ? 2 : 4;  // GemmaDecoderLayer: input and post-attention norms only
        c.qk_norm = fam == Family::gemma3;
    } else if (r.has(act_key)) {
        r.refuse_unless(act == "silu" || act == "swish", act_key, "the gated MLP is modelled as SiLU(gate)·up");
    }
    // LlamaMLP and GraniteMLP put mlp_bias on gate, up and down (IBM's granite-*-code Llama files); elsewhere refused.
    if (r.truth_or("mlp_bias", false)) {
        r.refuse_unless(lm_arch == "LlamaForCausalLM" || lm_arch == "LLaMAForCausalLM" || fam == Family::granite, "mlp_bias",
                        "biases on the MLP projections (counted for LlamaForCausalLM and GraniteForCausalLM only)");
        c.mlp_bias = true;
    }
    if (fam == Family::qwen2 || fam == Family::qwen2_moe) {
        c.qkv_bias = true;  // Qwen2Attention, Qwen2MoeAttention: q, k, v projections with bias, o without
    } else if (fam == Family::exaone4) {
        // Exaone4Attention builds q, k, v, o without bias and reads no attention_bias.
    } else if (fam == Family::stablelm) {
        read_stablelm(r, c);
    } else if (fam == Family::internlm2) {
        read_internlm2(r, c);
    } else if (fam == Family::internlm3) {
        read_internlm3(r, c);
    } else if (fam == Family::ernie45) {
        read_ernie45(r);
    } else if (fam == Family::seed_oss) {
        c.qkv_bias = r.truth_or("attention_bias", true);  // SeedOssAttention, SeedOssConfig's defaults
        c.o_bias = r.truth_or("attention_out_bias", false);
    } else if (r.truth_or("attention_bias", false)) {
        r.refuse_unless(fam != Family::deepseek, "attention_bias", "biases on the latent-attention projections");
        // dots1's o_proj takes the bias in transformers (Qwen3Attention) but not in vLLM: not guessed.
        r.refuse_unless(lm_arch != "Dots1ForCausalLM", "attention_bias",
                        "dots1's o_proj bias: transformers builds one, vLLM does not");
        c.qkv_bias = true;
        // Glm4MoeAttention, GlmAttention (and GLM-4's): o_proj has no bias
        c.o_bias = fam != Family::glm4_moe && fam != Family::glm && fam != Family::glm4;
    }
    if (fam == Family::qwen3 || fam == Family::qwen3_moe || fam == Family::exaone4)
        c.qk_norm = true;  // per-head RMSNorms of Q and K (Exaone4Attention's q_norm, k_norm of head_dim)
    if (fam == Family::glm4_moe)
        c.qk_norm = lm_arch == "Dots1ForCausalLM" || r.flag_or("use_qk_norm", false);  // GLM-4.5 (not 4.5-Air), dots1
    if (hunyuan)
        c.qk_norm = top.truth_or("use_qk_norm", false);  // query_layernorm, key_layernorm: RMSNorm(head_dim) per head
    if (fam == Family::olmoe)
        read_olmoe_attention(r, c);
    if (fam == Family::olmo2 || fam == Family::olmo3)
        read_whole_qk_norm(fam == Family::olmo2 ? "OLMo 2" : "OLMo 3", c);
    if (fam == Family::granite || fam == Family::granite_moe)
        read_granite_scales(r, c);
    if (fam == Family::phimoe)
        read_phimoe_limits(r, c);
    if (fam == Family::glm4)
        c.block_norms = 4;  // Glm4DecoderLayer: post_self_attn_layernorm and post_mlp_layernorm beside the two pre-norms
    if (lm_arch == "Ministral3ForCausalLM")
        read_ministral3(r, c);
    if (fam == Family::llama4)
        hf::read_llama4_attention(r, c);

    // Families whose reference attention applies no window whatever config.json says (LlamaAttention and the classes
    // built on it pass no sliding_window, and their masks are causal): a window given there is stated, not applied.
    // OLMoE, GLM-4.5 (Glm4MoeModel) and MiniMax-M2 ("No sliding window opposed to mixtral") build only a causal mask too.
    const bool windowless = lm_arch == "LlamaForCausalLM" || lm_arch == "LLaMAForCausalLM" || lm_arch == "YiForCausalLM" ||
                            lm_arch == "BaichuanForCausalLM" || lm_arch == "BaiChuanForCausalLM" || fam == Family::gemma ||
                            fam == Family::glm || fam == Family::glm4 || fam == Family::granite || fam == Family::granite_moe ||
                            fam == Family::olmo2 || fam == Family::seed_oss || fam == Family::stablelm ||
                            fam == Family::internlm2 || fam == Family::internlm3 || fam == Family::olmoe ||
                            (fam == Family::glm4_moe && lm_arch != "Dots1ForCausalLM") || fam == Family::minimax_m2 ||
                            fam == Family::deepseek_moe || fam == Family::ernie45;
    if (!windowless)
        read_sliding_window(r, fam, c, lm_arch == "Dots1ForCausalLM");
    else if (r.has("sliding_window")) {
        // Yi, Baichuan, DeepSeekMoE and InternLM2 run their repositories' remote code, not a transformers class.
        const bool remote = lm_arch == "YiForCausalLM" || lm_arch == "BaichuanForCausalLM" || lm_arch == "BaiChuanForCausalLM" ||
                            fam == Family::deepseek_moe || fam == Family::internlm2 || fam == Family::internlm3;
        c.limitations.push_back(fmt::format("sliding_window = {} is not applied: {}'s attention ({}) has no window",
                                            lm.at("sliding_window").dump(), lm_arch,
                                            remote ? "its remote code" : "transformers"));
    }
    for (const char* key : {"attn_logit_softcapping", "final_logit_softcapping"})
        if (r.has(key))
            c.limitations.push_back(fmt::format(
                "{} = {} is not modelled: a tanh per score/logit (a few FLOPs per element, fused)", key, lm.at(key).dump()));
    // MLX checkpoints (mlx-community, Apple silicon) write their {"group_size", "bits"} as "quantization", often with no
    // "quantization_config" beside it: read alone, the weights would pass for 16-bit. Refused (docs/formulas.md). mlx-lm
    // (utils.load_model) quantizes by any non-null "quantization"; false and {} carry no group_size or bits (mlx-lm fails
    // on them, transformers ignores the key): no format, as null, and said.
    const bool no_mlx_format =
        r.has("quantization") && (lm.at("quantization") == false || lm.at("quantization") == json::object());
    if (no_mlx_format)
        c.limitations.push_back(
            fmt::format("\"quantization\" = {} gives no group_size or bits: read as unquantized", lm.at("quantization").dump()));
    else if (!r.has("quantization_config") && r.has("quantization"))
        r.fail(fmt::format(
            "\"quantization\" {} is not modelled: {}; bwacct reads \"quantization_config\" (fp8, fbgemm_fp8, "
            "awq, gptq, modelopt, mxfp4, compressed-tensors, bitsandbytes) and will not guess the weights' "
            "storage",
            lm.at("quantization").is_object() ? "(" + mlx_summary(lm.at("quantization")) + ")"
                                              : "= " + mlx_summary(lm.at("quantization")),
            lm.at("quantization").is_object() ? "MLX's group-quantized format (Apple silicon)"
                                              : "MLX writes {\"group_size\", \"bits\"} there, and null, false or {} means none"));
    if (r.has("quantization_config"))
        c.weight_format = read_quantization(r, lm.at("quantization_config"), c.limitations);

    if (fam == Family::mixtral || qwen_moe || fam == Family::deepseek || fam == Family::gpt_oss || fam == Family::llama4 ||
        fam == Family::olmoe || fam == Family::phimoe || fam == Family::glm4_moe || fam == Family::deepseek_moe ||
        fam == Family::minimax_m2 || fam == Family::ernie45_moe || fam == Family::granite_moe) {
        MoeConfig m;
        if (fam != Family::ernie45_moe)  // ERNIE: moe_k (read_ernie45_moe)
            m.top_k = r.count("num_experts_per_tok");
        if (fam == Family::gpt_oss) {
            // transformers' GptOssMLP: a router Linear(hidden, E) with bias, then every layer's experts (gate_up
            // [E, hidden, 2·I], down [E, I, hidden], both with biases).
            m.experts = r.count("num_local_experts");
            m.expert_ffn = c.ffn;
            m.router_bias = true;
            read_gpt_oss_limits(r, m, c);
        } else if (fam == Family::ernie45_moe) {
            read_ernie45_moe(r, c, m);
        } else if (fam == Family::minimax_m2) {
            read_minimax_m2(r, c, m);
        } else if (fam == Family::granite_moe) {
            read_granite_moe(r, c, m);
        } else if (fam == Family::mixtral || fam == Family::olmoe || fam == Family::phimoe) {
            // MixtralSparseMoeBlock, OlmoeSparseMoeBlock, PhimoeSparseMoeBlock: a router Linear(hidden, E) without bias
            // and E gated experts of intermediate_size, on every layer.
            m.experts = fam == Family::olmoe ? routed_experts(r) : r.count("num_local_experts");
            m.expert_ffn = c.ffn;
        } else if (fam == Family::llama4) {
            // Llama4TextMoe: a router Linear(hidden, E) without bias, E routed experts and one shared expert, each a
            // gated MLP of intermediate_size; the layers outside moe_layers have a dense MLP of intermediate_size_mlp.
            m.experts = r.count("num_local_experts");
            m.expert_ffn = c.ffn;
            m.shared_experts = 1;
            const std::vector<bool> dense = hf::llama4_dense_layers(r, c.layers);
            hf::set_dense_layers(m, dense);
            c.ffn = m.dense_layers > 0 ? r.count("intermediate_size_mlp") : r.count_or("intermediate_size_mlp", m.expert_ffn);
        } else if (qwen_moe) {
            m.experts = routed_experts(r);
            m.expert_ffn = r.count("moe_intermediate_size");
            if (fam == Family::qwen2_moe)
                read_qwen2_moe_shared_expert(r, c.hidden, c.layers, m, c.limitations,
                                             taken.contains("shared_expert_intermediate_size"));
            // Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer: the dense layers' MLP is of intermediate_size.
            hf::set_dense_layers(m, hf::qwen_moe_dense_layers(r, c.layers));
            if (m.dense_layers > 0)
                c.ffn = r.count("intermediate_size");
        } else {
            // DeepSeek-V2/V3, DeepSeekMoE (DeepseekMoE: layer i sparse by V2's rule) and GLM-4.5 (Glm4MoeMoE: DeepSeek-V3's
            // noaux_tc router, n_shared_experts shared experts).
            m.experts = r.count("n_routed_experts");
            m.expert_ffn = r.count("moe_intermediate_size");
            m.shared_experts = shared_experts_of(r, lm_arch);
            hf::set_dense_layers(m, hf::first_k_dense_layers(r, c.layers, fam == Family::deepseek || fam == Family::deepseek_moe,
                                                             lm_arch == "Glm4MoeLiteForCausalLM"));
            // DeepSeek-V3's noaux_tc gate carries a per-expert score-correction bias (E parameters); GLM-4.5's always.
            // DeepseekV3ForCausalLM without topk_method: transformers' DeepseekV3TopkRouter always has the bias (its
            // DeepseekV3Config has no topk_method), and DeepSeek-V3's remote configuration_deepseek.py defaults to noaux_tc.
            const std::string topk_method = r.text_or("topk_method", lm_arch == "DeepseekV3ForCausalLM" ? "noaux_tc" : "");
            m.router_bias = fam == Family::glm4_moe || lm_arch == "Glm4MoeLiteForCausalLM" || topk_method == "noaux_tc";
            if (fam == Family::glm4_moe)
                if (const std::uint64_t mtp = r.natural_or("num_nextn_predict_layers", 0); mtp > 0)
                    c.limitations.push_back(fmt::format(
                        "num_nextn_predict_layers = {}: the multi-token-prediction layer is not counted (parameters or time)",
                        mtp));
        }
        if (m.top_k > m.experts)
            r.fail(fmt::format("\"num_experts_per_tok\" ({}) exceeds the routed experts ({})", m.top_k, m.experts));
        c.moe = m;
    }
    if (fam == Family::deepseek) {
        MlaConfig a;
        a.q_lora_rank = r.natural_or("q_lora_rank", 0);
        a.kv_lora_rank = r.count("kv_lora_rank");
        a.qk_nope_head_dim = r.count("qk_nope_head_dim");
        a.qk_rope_head_dim = r.count("qk_rope_head_dim");
        a.v_head_dim = r.count("v_head_dim");
        c.mla = a;
        c.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
        c.kv_heads = c.heads;  // every head has its own K and V after the up-projection
        if (const std::uint64_t mtp = r.natural_or("num_nextn_predict_layers", 0); mtp > 0)
            c.limitations.push_back(fmt::format(
                "num_nextn_predict_layers = {}: the multi-token-prediction module is not counted (parameters or time)", mtp));
    }
    if (c.weight_format)
        state_kept_modules(r, lm.at("quantization_config"), fam, c);
    if (c.heads % c.kv_heads != 0)
        r.fail(fmt::format("\"num_key_value_heads\" ({}) must divide \"num_attention_heads\" ({})", c.kv_heads, c.heads));
    if (c.head_dim == 0 && c.hidden % c.heads != 0)
        r.fail(fmt::format("\"num_attention_heads\" ({}) must divide \"hidden_size\" ({}), or give \"head_dim\"", c.heads,
                           c.hidden));
    // Any family's multi-token-prediction layers (MiMo's on Qwen2's block; the MoE families say it above): stated once.
    const std::uint64_t mtp = r.natural_or("num_nextn_predict_layers", 0);
    if (mtp > 0 && std::none_of(c.limitations.begin(), c.limitations.end(),
                                [](const std::string& l) { return l.rfind("num_nextn_predict_layers", 0) == 0; }))
        c.limitations.push_back(fmt::format(
            "num_nextn_predict_layers = {}: the multi-token-prediction layer is not counted (parameters or time)", mtp));
    return c;
}

TransformerConfig load_hf_config(const std::string& path, const std::string& option, WanI2v wan_i2v) {
    return parse_hf_config(read_input_file(path, option, "expected a Hugging Face config.json"), option + " " + path, wan_i2v);
}

}  // namespace bwacct
