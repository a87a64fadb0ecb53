// Published config.json files found in the eleventh session (tests/data/models/*.src.txt: CodeGemma and Gemma 7B,
// Mistral-7B-Instruct-v0.1, Llama-2-13B-chat, Llama-3.1-Nemotron-70B, Phi-4, DeepSeek-R1 as transformers 4.57 prints
// it, a Qwen2.5-32B GPTQ checkpoint, EXAONE 3.0, Aya-23-8B) and the rules they exercised: GemmaConfig's head_dim 256
// when left out, Gemma's hidden_activation over hidden_act, windows only where the reference attention has one, DBRX's
// activation named as DBRX spells it, EXAONE 3's field names, and blocks refused by the field that shows them. Every
// expected count is derived by hand in the comments.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <utility>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/quant.h"
#include "bwacct/transformer.h"
#include "hf_test_util.h"

using namespace bwacct;
using bwacct_test::error_of;
using bwacct_test::has_limitation;
using bwacct_test::hf;
using bwacct_test::model_file;

namespace {

// Gemma 7B: per layer attention 4 · 3072·4096 = 50,331,648 (16 heads of 256: q, k, v, o of 3072 × 4096); MLP
// 3·3072·24,576 = 226,492,416; norms 2·3072 = 6144 → 276,830,208 · 28 = 7,751,245,824 + tied embedding 256,000·3072
// (786,432,000) + final norm 3072 = 8,537,680,896 (Gemma 7B: 8.54B).
constexpr std::uint64_t kGemma7B = 8537680896u;

}  // namespace

TEST(HfPublishedFiles, CodeGemmaAndGemma7BCountTheirPublishedSize) {
    const TransformerConfig code = hf("codegemma-7b-it");
    EXPECT_EQ(code.head_dim, 256u);
    EXPECT_EQ(param_count(code).total.value(), kGemma7B);
    EXPECT_TRUE(code.limitations.empty());
    // google/gemma-7b-it as transformers 4.40 printed it: "hidden_act": "gelu", "hidden_activation": null. vLLM
    // (_get_gemma_act_fn) and transformers 4.40-4.47's GemmaMLP run gelu_pytorch_tanh (the printout's module list shows
    // PytorchGELUTanh), as costed; transformers >= 4.48's GemmaMLP runs ACT2FN[hidden_act], the erf form: both stated.
    const TransformerConfig it = hf("gemma-7b-it");
    EXPECT_EQ(param_count(it).total.value(), kGemma7B);
    EXPECT_TRUE(it.gelu_gate);
    EXPECT_TRUE(has_limitation(it, "hidden_act = \"gelu\" with hidden_activation null: vLLM and transformers 4.40-4.47"));
    EXPECT_TRUE(has_limitation(it, "transformers >= 4.48 runs hidden_act, the exact (erf) form"));
}

TEST(HfPublishedFiles, GemmaLeftOutHeadDimIsGemmaConfigs256NotHiddenOverHeads) {
    // Gemma 7B's fields without head_dim (hand-written configs): GemmaConfig's default is 256, and GemmaAttention reads
    // config.head_dim. Before: D / h = 3072 / 16 = 192, attention 4 · 3072·3072 = 37,748,736 per layer, 12,582,912 fewer
    // (· 28 = 352,321,536 parameters short), silently.
    const std::string fields = R"("hidden_size": 3072, "intermediate_size": 24576, "num_attention_heads": 16,
        "num_hidden_layers": 28, "num_key_value_heads": 16, "vocab_size": 256000})";
    const TransformerConfig gemma = parse_hf_config(R"({"architectures": ["GemmaForCausalLM"], )" + fields, "x");
    EXPECT_EQ(gemma.head_dim, 256u);
    EXPECT_EQ(param_count(gemma).total.value(), kGemma7B);
    EXPECT_TRUE(has_limitation(gemma, "head_dim = 256 (transformers' GemmaConfig defaults"));
    // Gemma2Config's default is the same 256 (Gemma2Attention reads config.head_dim).
    const TransformerConfig gemma2 = parse_hf_config(R"({"architectures": ["Gemma2ForCausalLM"], )" + fields, "x");
    EXPECT_EQ(gemma2.head_dim, 256u);
    EXPECT_TRUE(has_limitation(gemma2, "Gemma2Config"));
    // A head_dim given is kept.
    const TransformerConfig given = parse_hf_config(R"({"architectures": ["GemmaForCausalLM"], "head_dim": 192, )" + fields, "x");
    EXPECT_EQ(given.head_dim, 192u);
}

TEST(HfPublishedFiles, GemmaRunsHiddenActivationAndRefusesAnotherByThatName) {
    const std::string gemma =
        R"({"architectures": ["GemmaForCausalLM"], "head_dim": 256, "hidden_size": 3072, "intermediate_size": 24576,
            "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 16, "vocab_size": 256000, )";
    // hidden_activation decides; "relu" there is refused by that name.
    const std::string relu = error_of(gemma + R"("hidden_activation": "relu"})");
    EXPECT_NE(relu.find("\"hidden_activation\" = \"relu\""), std::string::npos) << relu;
    // hidden_act "relu" with hidden_activation null: vLLM and transformers 4.40-4.47 run gelu_pytorch_tanh, but
    // transformers >= 4.48 runs ReLU. Before: costed as GELU, silently. Now refused by that name, with the GELU forms;
    // the same with a GELU hidden_activation beside it (the engines disagree).
    for (const char* extra : {R"("hidden_act": "relu"})", R"("hidden_act": "relu", "hidden_activation": "gelu_pytorch_tanh"})"}) {
        const std::string e = error_of(gemma + extra);
        EXPECT_NE(e.find("\"hidden_act\" = \"relu\" is not modelled: transformers >= 4.48 runs it"), std::string::npos) << e;
        EXPECT_NE(e.find("accepted: gelu_pytorch_tanh, gelu_tanh, gelu_new or gelu"), std::string::npos) << e;
    }
    // A GELU hidden_act in the tanh form beside a null hidden_activation: every engine runs the tanh form, nothing stated.
    EXPECT_TRUE(parse_hf_config(gemma + R"("hidden_act": "gelu_pytorch_tanh"})", "x").limitations.empty());
    // hidden_activation "gelu" (exact, erf) is costed as the tanh form, stated.
    const TransformerConfig erf = parse_hf_config(gemma + R"("hidden_activation": "gelu"})", "x");
    EXPECT_TRUE(has_limitation(erf, "hidden_activation = \"gelu\" (the exact, erf form)"));
}

TEST(HfPublishedFiles, AStraySlidingWindowIsNotAppliedWhereTheReferenceBuildsOnlyACausalMask) {
    // OlmoeModel, Glm4MoeModel and MiniMaxM2Model ("No sliding window opposed to mixtral") build create_causal_mask only;
    // their attention classes take no window. A sliding_window in their config.json was applied to every layer.
    const std::pair<const char*, const char*> cases[] = {
        {"OlmoeForCausalLM", R"("num_experts": 4, "num_experts_per_tok": 2)"},
        {"Glm4MoeForCausalLM", R"("n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
            "n_shared_experts": 1, "first_k_dense_replace": 1)"},
        {"MiniMaxM2ForCausalLM", R"("num_local_experts": 4, "num_experts_per_tok": 2, "head_dim": 16)"},
    };
    for (const auto& [arch, moe] : cases) {
        const TransformerConfig c = parse_hf_config(
            fmt::format(R"({{"architectures": ["{}"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                "intermediate_size": 128, "vocab_size": 100, "sliding_window": 4096, {}}})",
                        arch, moe),
            "x");
        EXPECT_EQ(c.sliding_window, 0u) << arch;
        EXPECT_TRUE(c.local_layers.empty()) << arch;
        EXPECT_TRUE(has_limitation(c, "sliding_window = 4096 is not applied")) << arch;
    }
    // Mixtral's attention applies it (MixtralForCausalLM: every layer).
    const TransformerConfig mixtral = parse_hf_config(
        R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100, "sliding_window": 4096, "num_local_experts": 4,
            "num_experts_per_tok": 2})",
        "x");
    EXPECT_EQ(mixtral.sliding_window, 4096u);
}

TEST(HfPublishedFiles, DbrxActivationIsRefusedUnderItsOwnName) {
    // Refused before as "hidden_act" = "gelu": a key DBRX's config.json does not have.
    const std::string e = error_of(
        R"({"architectures": ["DbrxForCausalLM"], "d_model": 64, "n_heads": 4, "n_layers": 2, "vocab_size": 100,
            "attn_config": {"kv_n_heads": 2}, "ffn_config": {"ffn_hidden_size": 32, "moe_top_k": 2, "moe_num_experts": 4,
            "ffn_act_fn": {"name": "gelu"}}})");
    EXPECT_NE(e.find("ffn_config: \"ffn_act_fn.name\" = \"gelu\" is not modelled"), std::string::npos) << e;
    EXPECT_EQ(e.find("hidden_act"), std::string::npos) << e;
}

TEST(HfPublishedFiles, DenseLlamaFamilyFilesCountTheirPublishedSizes) {
    // Mistral-7B-Instruct-v0.1: attention 2·4096² + 2·1024·4096 = 41,943,040; MLP 3·4096·14,336 = 176,160,768; norms
    // 8192 → 218,112,000 · 32 = 6,979,584,000 + untied 2·32,000·4096 (262,144,000) + 4096 = 7,241,732,096 (7.24B); its
    // window of 4096 on every layer (MistralAttention).
    const TransformerConfig mistral = hf("mistral-7b-instruct-v0.1");
    EXPECT_EQ(param_count(mistral).total.value(), 7241732096u);
    EXPECT_EQ(mistral.sliding_window, 4096u);
    EXPECT_TRUE(mistral.local_layers.empty());
    // Llama-2-13B-chat (MHA, kv 40): attention 4·5120² = 104,857,600; MLP 3·5120·13,824 = 212,336,640; norms 10,240
    // → 317,204,480 · 40 = 12,688,179,200 + 2·32,000·5120 (327,680,000) + 5120 = 13,015,864,320 (13.0B)
    const TransformerConfig llama2 = hf("llama-2-13b-chat");
    EXPECT_EQ(llama2.kv_heads, 40u);
    EXPECT_EQ(param_count(llama2).total.value(), 13015864320u);
    // Llama-3.1-Nemotron-70B-Instruct (Llama 3.1 70B's shapes): attention 2·8192² + 2·1024·8192 = 150,994,944; MLP
    // 3·8192·28,672 = 704,643,072; norms 16,384 → 855,654,400 · 80 = 68,452,352,000 + 2·128,256·8192 (2,101,346,304)
    // + 8192 = 70,553,706,496 (70.6B)
    EXPECT_EQ(param_count(hf("llama-3.1-nemotron-70b-instruct")).total.value(), 70553706496u);
    // Phi-4 (Phi3ForCausalLM, 40 heads, 10 KV heads of 128): attention 2·5120² + 2·1280·5120 = 65,536,000; MLP
    // 3·5120·17,920 = 275,251,200; norms 10,240 → 340,797,440 · 40 = 13,631,897,600 + 2·100,352·5120 (1,027,604,480)
    // + 5120 = 14,659,507,200 (model card: 14.7B); "sliding_window": null, no window.
    const TransformerConfig phi4 = hf("phi-4");
    EXPECT_EQ(param_count(phi4).total.value(), 14659507200u);
    EXPECT_EQ(phi4.sliding_window, 0u);
}

TEST(HfPublishedFiles, DeepSeekR1AsTransformers457PrintsItIsDeepSeekV3) {
    // transformers 4.57 adds "head_dim": 64 (= qk_rope_head_dim), "qk_head_dim": 192 and "dtype": MLA's head size stays
    // qk_nope + qk_rope = 192 and the counts are DeepSeek-V3's (docs/formulas.md, "Mixture of experts"):
    // 3 · (187,107,328 + 14,336 + 396,361,728) + 58 · (187,107,328 + 14,336 + 11,320,164,608) + 2 · 926,679,040 + 7168
    // = 671,026,419,200; active 671,026,419,200 − 58 · 248 · 44,040,192 = 37,552,297,472.
    const TransformerConfig c = hf("deepseek-r1");
    ASSERT_TRUE(c.mla && c.moe);
    EXPECT_EQ(c.head_dim, 192u);
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.total.value(), 671026419200u);
    EXPECT_EQ(p.active.value(), 37552297472u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::fp8_e4m3);
    EXPECT_EQ(c.weight_format->block, 128u);
    EXPECT_TRUE(has_limitation(c, "num_nextn_predict_layers = 1"));
}

TEST(HfPublishedFiles, Qwen25Gptq4BitSymmetricStoresScalesAndZeroPoints) {
    const TransformerConfig c = hf("qwen2.5-32b-instruct-gptq-int4");
    // Qwen2.5-32B: attention 2·5120² + 2·1024·5120 = 62,914,560 + q, k, v biases 5120 + 2·1024 = 7168 → 62,921,728;
    // MLP 3·5120·27,648 = 424,673,280; norms 10,240 → 487,605,248 · 64 = 31,206,735,872 + 2·152,064·5120
    // (1,557,135,360) + 5120 = 32,763,876,352 (32.8B); use_sliding_window false: no window.
    EXPECT_EQ(param_count(c).total.value(), 32763876352u);
    EXPECT_EQ(c.sliding_window, 0u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::int4);
    EXPECT_EQ(c.weight_format->group, 128u);
    // "sym": true, but GPTQ's format stores qzeros anyway (int32 [K/128, N/8]: 4 bits a group); before they were left out
    // (72,990,720 B for up_proj below, 552,960 B short of its qweight + qzeros + scales).
    EXPECT_EQ(c.weight_format->zero_bits, 4u);
    // up_proj [5120, 27,648]: qweight 141,557,760 weights / 2 = 70,778,880 B + 40·27,648 = 1,105,920 groups of a 16-bit
    // scale (scales [40, 27,648] fp16: 2,211,840) and a 4-bit zero (qzeros int32 [40, 3456]: 552,960) → 73,543,680 B
    EXPECT_EQ(format_bytes(*c.weight_format, Exact(5120), Exact(27648)).value(), 73543680u);
    // g_idx (int32 [5120] for this matrix) is stated, not counted: desc_act false, and producers differ.
    EXPECT_TRUE(has_limitation(c, "g_idx (an int32 per input row of each quantized matrix: AutoGPTQ and GPTQModel"));
    EXPECT_TRUE(has_limitation(c, "Marlin kernels drop the constant zero points"));
}

TEST(HfPublishedFiles, Exaone3IsLlamaUnderItsOwnFieldNames) {
    // Refused before (unsupported architecture ExaoneForCausalLM). EXAONE-3.0-7.8B: attention 2·4096² + 2·1024·4096
    // = 41,943,040; MLP (c_fc_0, c_fc_1, c_proj) 3·4096·14,336 = 176,160,768; norms 8192 → 218,112,000 · 32
    // = 6,979,584,000 + untied 2·102,400·4096 (838,860,800) + 4096 = 7,818,448,896 (7.8B)
    const TransformerConfig c = hf("exaone-3.0-7.8b-instruct");
    EXPECT_EQ(c.layers, 32u);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_EQ(param_count(c).total.value(), 7818448896u);
    EXPECT_NE(c.source.find("read as LlamaForCausalLM (num_layers, activation_function)"), std::string::npos) << c.source;
    // ExaoneConfig's defaults when left out: intermediate_size 4 · hidden, tied embeddings, kv = heads (stated).
    const std::string bare = R"({"architectures": ["ExaoneForCausalLM"], "hidden_size": 64, "num_layers": 2,
        "num_attention_heads": 4, "vocab_size": 100)";
    const TransformerConfig d = parse_hf_config(bare + "}", "x");
    EXPECT_EQ(d.ffn, 256u);
    EXPECT_TRUE(d.tied_embeddings);
    EXPECT_EQ(d.kv_heads, 4u);
    EXPECT_TRUE(has_limitation(d, "intermediate_size = 4 · hidden_size = 256, tie_word_embeddings = true"));
    // per layer 4·64² = 16,384 + 3·64·256 = 49,152 + 128 → 65,664 · 2 = 131,328 + tied 100·64 (6400) + 64 = 137,792
    EXPECT_EQ(param_count(d).total.value(), 137792u);
    const std::string gelu = error_of(bare + R"(, "activation_function": "gelu"})");
    EXPECT_NE(gelu.find("\"activation_function\" = \"gelu\""), std::string::npos) << gelu;
    const std::string missing = error_of(R"({"architectures": ["ExaoneForCausalLM"], "hidden_size": 64})");
    EXPECT_NE(missing.find("num_layers"), std::string::npos) << missing;
}

TEST(HfPublishedFiles, YiAndBaichuanAreLlamaWithoutAWindow) {
    // Yi must give num_key_value_heads (YiConfig's default is 4, refused when absent): 4 here, as many as its heads;
    // Baichuan has no KV field (multi-head).
    for (const char* arch : {"YiForCausalLM", "BaichuanForCausalLM", "BaiChuanForCausalLM"}) {
        const TransformerConfig c = parse_hf_config(
            fmt::format(R"({{"architectures": ["{}"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                "intermediate_size": 128, "vocab_size": 100, "sliding_window": 16{}}})",
                        arch, std::string(arch) == "YiForCausalLM" ? R"(, "num_key_value_heads": 4)" : ""),
            "x");
        // per layer 4·64² = 16,384 + 3·64·128 = 24,576 + 128 → 41,088 · 2 = 82,176 + 2·100·64 (12,800) + 64 = 95,040
        EXPECT_EQ(param_count(c).total.value(), 95040u) << arch;
        EXPECT_EQ(c.sliding_window, 0u) << arch;
        EXPECT_TRUE(has_limitation(c, "sliding_window = 16 is not applied")) << arch;
    }
}

TEST(HfPublishedFiles, AyaAndOtherBlocksUnlikeTheEnginesAreRefusedNamingTheField) {
    // Aya-23-8B (CohereForCausalLM): refused before with the supported list only.
    std::string aya;
    try {
        (void)hf("aya-23-8b");
    } catch (const InputError& e) {
        aya = e.what();
    }
    EXPECT_NE(aya.find("CohereForCausalLM is not modelled: \"logit_scale\" (a parallel block"), std::string::npos) << aya;
    EXPECT_NE(aya.find("aya-23-8b.config.json"), std::string::npos) << aya;
    EXPECT_EQ(aya.find('\n'), std::string::npos) << aya;
    const std::pair<const char*, const char*> cases[] = {
        {"Cohere2ForCausalLM", "logit_scale"},
        {"NemotronForCausalLM", "hidden_act"},
        {"DeciLMForCausalLM", "block_configs"},
        {"DeciLMForCausalLM", "num_key_value_heads_per_layer"},
        {"MiniCPMForCausalLM", "scale_depth"},
        {"MiniCPM3ForCausalLM", "kv_lora_rank"},
        {"PhiForCausalLM", "partial_rotary_factor"},
        {"GPT2LMHeadModel", "n_embd"},
        {"GPTJForCausalLM", "n_embd"},
        {"GPTBigCodeForCausalLM", "multi_query"},
        {"OPTForCausalLM", "activation_function"},
        {"BloomForCausalLM", "n_layer"},
    };
    for (const auto& [cls, field] : cases) {
        // Each file gives its deciding field (DeciLM-7B: num_key_value_heads_per_layer, no block_configs).
        const std::string e = error_of(fmt::format(R"({{"architectures": ["{}"], "hidden_size": 64, "{}": 1}})", cls, field));
        EXPECT_NE(e.find(fmt::format("{} is not modelled: \"{}\"", cls, field)), std::string::npos) << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
}

TEST(HfPublishedFiles, Qwen3W8A8CompressedTensorsIsInt8PerChannelWithInt8ActivationsStated) {
    const TransformerConfig c = hf("qwen3-32b-w8a8-compressed-tensors");
    // Qwen3-32B: attention q 5120·8192 = 41,943,040, k, v 2·5120·1024 = 10,485,760, o 8192·5120 = 41,943,040, per-head
    // q/k norms 2·128 = 256; MLP 3·5120·25,600 = 393,216,000; norms 10,240 → 487,598,336 · 64 = 31,206,293,504
    // + 2·151,936·5120 (1,555,824,640) + 5120 = 32,762,123,264 (32.8B)
    EXPECT_EQ(param_count(c).total.value(), 32762123264u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::int8);
    EXPECT_EQ(c.weight_format->group, 0u);  // "strategy": "channel"
    EXPECT_EQ(c.weight_format->scale_bits, 16u);
    EXPECT_EQ(c.weight_format->zero_bits, 0u);
    // up_proj [K 5120, N 25,600]: 131,072,000 int8 B + one 16-bit scale per output channel 25,600 · 2 = 51,200
    EXPECT_EQ(format_bytes(*c.weight_format, Exact(5120), Exact(25600)).value(), 131123200u);
    EXPECT_TRUE(has_limitation(c, "give --act-dtype int8"));
    // "ignore": ["lm_head"] only: nothing stated as kept.
    EXPECT_FALSE(has_limitation(c, "unquantized"));
}

TEST(HfPublishedFiles, AwqModulePrefixesForTheRouterAreNotStatedAsKeptBlockWeights) {
    // QuantTrio's DeepSeek AWQ checkpoints list "mlp.gate." (a module-name prefix) beside whole layers: the router is
    // kept in 16 bits anyway; the layer prefixes are stated.
    const TransformerConfig c = parse_hf_config(
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "awq", "bits": 4,
            "group_size": 32, "version": "gemm", "zero_point": true,
            "modules_to_not_convert": ["mlp.gate.", "model.layers.0."]}})",
        "x");
    EXPECT_TRUE(has_limitation(c, "modules_to_not_convert keeps model.layers.0. unquantized"));
    EXPECT_FALSE(has_limitation(c, "mlp.gate."));
}

TEST(HfPublishedFiles, ANestedTextConfigWithoutKvHeadsIsRefusedNotReadAsMultiHead) {
    // A text_config saved by transformers drops the fields equal to its class defaults; Qwen3VLMoeTextConfig's
    // num_key_value_heads default is 16, not the query heads. Before: read as MHA (kv = 32), KV cache 2× wrong, silently.
    const std::string text = R"("model_type": "qwen3_vl_moe_text", "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "head_dim": 16, "intermediate_size": 128, "moe_intermediate_size": 32, "num_experts": 4,
        "num_experts_per_tok": 2, "vocab_size": 100)";
    const std::string e = error_of(R"({"architectures": ["Qwen3VLMoeForConditionalGeneration"], "text_config": {)" + text + "}}");
    EXPECT_NE(e.find("text_config: missing \"text_config.num_key_value_heads\""), std::string::npos) << e;
    // The class is named as a class, the model_type as a model_type, and the accepted form is given.
    EXPECT_NE(e.find("Qwen3VLMoeTextConfig's default num_key_value_heads (model_type \"qwen3_vl_moe_text\") is 16"),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("give \"text_config.num_key_value_heads\": <key/value heads>"), std::string::npos) << e;
    const TransformerConfig given = parse_hf_config(
        R"({"architectures": ["Qwen3VLMoeForConditionalGeneration"], "text_config": {"num_key_value_heads": 2, )" + text + "}}",
        "x");
    EXPECT_EQ(given.kv_heads, 2u);
    // Gemma 3's text_config takes Gemma3TextConfig's known default (4), stated, as before.
    const TransformerConfig gemma3 = parse_hf_config(
        R"({"architectures": ["Gemma3ForConditionalGeneration"], "text_config": {"model_type": "gemma3_text"}})", "x");
    EXPECT_EQ(gemma3.kv_heads, 4u);
}

TEST(HfPublishedFiles, DeepSeekMoE16BIsLlamaAttentionWithDeepSeekV2sMoELayers) {
    // Refused before (unsupported architecture DeepseekForCausalLM).
    const TransformerConfig c = hf("deepseek-moe-16b");
    ASSERT_TRUE(c.moe);
    EXPECT_FALSE(c.mla);
    EXPECT_FALSE(c.moe->router_bias);  // topk_method greedy (absent): a softmax gate without bias
    const ParamCount p = param_count(c);
    // dense layer 0: attention 4·2048² = 16,777,216 + MLP 3·2048·10,944 = 67,239,936 + norms 4096 = 84,021,248
    // MoE layers 1–27: router 64·2048 = 131,072 + 64 experts · 3·2048·1408 (8,650,752) = 553,648,128 + 2 shared
    //   17,301,504 → 571,080,704 + 16,777,216 + 4096 = 587,862,016 · 27 = 15,872,274,432
    // + 2·102,400·2048 (419,430,400) + 2048 = 16,375,728,128 (model card: 16.4B)
    EXPECT_EQ(p.total.value(), 16375728128u);
    // active: − 27 · (64 − 6) · 8,650,752 = 13,547,077,632 → 2,828,650,496 (model card: 2.8B)
    EXPECT_EQ(p.active.value(), 2828650496u);
}

TEST(HfPublishedFiles, ANestedTextConfigWithoutAFieldItsClassFixesIsRefusedNamingIt) {
    // transformers drops from a re-saved text_config every field equal to its class's default. Qwen3VLTextConfig's and
    // Llama4TextConfig's head_dim default is 128, not D / h: Qwen3-VL-4B (D 2560, 32 heads, head_dim 128) re-saved has no
    // head_dim and was read with 2560 / 32 = 80, silently.
    const std::string qwen3vl = R"({"architectures": ["Qwen3VLForConditionalGeneration"], "text_config": {"model_type":
        "qwen3_vl_text", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 128, "vocab_size": 100)";
    const std::string e = error_of(qwen3vl + "}}");
    EXPECT_NE(e.find("text_config: missing \"text_config.head_dim\""), std::string::npos) << e;
    EXPECT_NE(e.find("Qwen3VLTextConfig's default head_dim (model_type \"qwen3_vl_text\") is 128"), std::string::npos) << e;
    EXPECT_NE(e.find("give \"text_config.head_dim\": <dims per head>"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    // Given: per layer q 64·4·128 = 32,768, k and v 2 · 64·2·128 = 32,768, o 4·128·64 = 32,768, q/k norms 2·128 = 256
    // → 98,560 (with D / h = 16 it was 64·8·16 + 4·16·64 + 32 = 12,320).
    const TransformerConfig given = parse_hf_config(qwen3vl + R"(, "head_dim": 128}})", "x");
    EXPECT_EQ(given.head_dim, 128u);
    EXPECT_EQ(param_count(given).attention.value(), 98560u);
    // Qwen3VLMoeTextConfig's head_dim default is None (D / h), so leaving it out is read as D / h, not refused.
    const TransformerConfig moe = parse_hf_config(
        R"({"architectures": ["Qwen3VLMoeForConditionalGeneration"], "text_config": {"model_type": "qwen3_vl_moe_text",
            "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 128, "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2,
            "vocab_size": 100}})",
        "x");
    EXPECT_EQ(moe.head_dim, 0u);  // 0: D / h = 16
    // Llama4TextConfig: head_dim 128 and attention_chunk_size 8192 (Scout's and Maverick's value, so dropped on re-save).
    const std::string l4 = R"({"architectures": ["Llama4ForConditionalGeneration"], "text_config": {"model_type":
        "llama4_text", "hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
        "intermediate_size": 16, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 1)";
    const std::string no_hd = error_of(l4 + R"(, "attention_chunk_size": 8}})");
    EXPECT_NE(no_hd.find("missing \"text_config.head_dim\": "), std::string::npos) << no_hd;
    EXPECT_NE(no_hd.find("Llama4TextConfig's default head_dim"), std::string::npos) << no_hd;
    const std::string no_chunk = error_of(l4 + R"(, "head_dim": 8}})");
    EXPECT_NE(no_chunk.find("Llama4TextConfig's default attention_chunk_size (model_type \"llama4_text\") is 8192"),
              std::string::npos)
        << no_chunk;
    EXPECT_NE(no_chunk.find("give \"text_config.attention_chunk_size\": <tokens per chunk>, or null for none"), std::string::npos)
        << no_chunk;
    EXPECT_EQ(parse_hf_config(l4 + R"(, "head_dim": 8, "attention_chunk_size": null}})", "x").sliding_window, 0u);
    // MistralConfig (Mistral 3's text_config): sliding_window 4096 when left out; Mistral-Small-3.1's file gives null.
    const std::string m3 = R"({"architectures": ["Mistral3ForConditionalGeneration"], "text_config": {"model_type":
        "mistral", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 16, "intermediate_size": 64, "vocab_size": 100)";
    const std::string no_window = error_of(m3 + "}}");
    EXPECT_NE(no_window.find("MistralConfig's default sliding_window (model_type \"mistral\") is 4096"), std::string::npos)
        << no_window;
    EXPECT_EQ(parse_hf_config(m3 + R"(, "sliding_window": 4096}})", "x").sliding_window, 4096u);
}

TEST(HfPublishedFiles, KvHeadsLeftOutTakeGemmaConfigs16AndAreRefusedForYiAndGemma2) {
    // Gemma 7B without num_key_value_heads: GemmaConfig's default 16 (= its 16 heads), stated; the count is Gemma 7B's.
    const std::string fields = R"("hidden_size": 3072, "intermediate_size": 24576, "num_attention_heads": 16,
        "num_hidden_layers": 28, "head_dim": 256, "vocab_size": 256000})";
    const TransformerConfig gemma = parse_hf_config(R"({"architectures": ["GemmaForCausalLM"], )" + fields, "x");
    EXPECT_EQ(gemma.kv_heads, 16u);
    EXPECT_EQ(param_count(gemma).total.value(), kGemma7B);
    EXPECT_TRUE(has_limitation(gemma, "num_key_value_heads = 16 (transformers' GemmaConfig defaults"));
    // Gemma2Config's default changed between versions (16, then 4): refused, naming the field.
    const std::string g2 = error_of(R"({"architectures": ["Gemma2ForCausalLM"], )" + fields);
    EXPECT_NE(g2.find("missing \"num_key_value_heads\": Gemma2Config's default is a fixed number"), std::string::npos) << g2;
    EXPECT_NE(g2.find("give \"num_key_value_heads\": <key/value heads>"), std::string::npos) << g2;
    // Gemma 2 without sliding_window: Gemma2Config's 4096 on every other layer (layer_idx % 2 == 0 local), stated.
    const TransformerConfig g2w =
        parse_hf_config(R"({"architectures": ["Gemma2ForCausalLM"], "num_key_value_heads": 8, )" + fields, "x");
    EXPECT_EQ(g2w.sliding_window, 4096u);
    ASSERT_EQ(g2w.local_layers.size(), 28u);
    EXPECT_TRUE(g2w.local_layers[0]);
    EXPECT_FALSE(g2w.local_layers[1]);
    EXPECT_TRUE(has_limitation(g2w, "sliding_window = 4096"));
    // Yi's remote code (configuration_yi.py) defaults num_key_value_heads to 4: a Yi file without it was read as MHA.
    const std::string small = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 8,
        "intermediate_size": 128, "vocab_size": 100)";
    const std::string yi = error_of(R"({"architectures": ["YiForCausalLM"], )" + small + "}");
    EXPECT_NE(yi.find("missing \"num_key_value_heads\": YiConfig (configuration_yi.py)'s default is a fixed number (4)"),
              std::string::npos)
        << yi;
    const TransformerConfig yi4 = parse_hf_config(
        R"({"architectures": ["YiForCausalLM"], "num_key_value_heads": 4, "sliding_window": 4096, )" + small + "}", "x");
    EXPECT_EQ(yi4.kv_heads, 4u);
    // Yi's attention is its remote code's, not a transformers class: the stray window is stated as such.
    EXPECT_TRUE(has_limitation(yi4, "YiForCausalLM's attention (its remote code) has no window"));
    // Baichuan has no KV field (multi-head attention): kv = h = 8.
    EXPECT_EQ(parse_hf_config(R"({"architectures": ["BaichuanForCausalLM"], )" + small + "}", "x").kv_heads, 8u);
    // EXAONE 3 without num_key_value_heads: ExaoneConfig's None → num_attention_heads (8), stated.
    const TransformerConfig exaone = parse_hf_config(
        R"({"architectures": ["ExaoneForCausalLM"], "hidden_size": 64, "num_layers": 2, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 100})",
        "x");
    EXPECT_EQ(exaone.kv_heads, 8u);
    EXPECT_TRUE(has_limitation(exaone, "num_key_value_heads = num_attention_heads = 8"));
    // DeciLMForCausalLM with neither of its deciding fields: refused by its first (block_configs).
    EXPECT_NE(error_of(R"({"architectures": ["DeciLMForCausalLM"], "hidden_size": 64})").find("\"block_configs\""),
              std::string::npos);
}

// Published config.json files found in the twelfth session (tests/data/models/*.src.txt): Moonlight, Qwen3-235B-A22B-2507,
// Qwen3-30B-A3B FP8 and Qwen3-32B AWQ as transformers 5.7 writes them, GLM-4.7-Flash, Qwen2.5-72B, gpt-oss-20b, Mistral
// NeMo and Qwen3-0.6B. Four of the checkpoints come with their tensor lists, which the counts below meet exactly.

TEST(HfPublishedFiles, MoonlightIsDeepSeekV3sMlaWithoutAQueryLora) {
    const TransformerConfig c = hf("moonlight-16b-a3b-instruct");
    const ParamCount p = param_count(c);
    // Attention (q_lora_rank null: q_proj [2048, 16·192]): 2048·3072 = 6,291,456 + kv_a 2048·(512 + 64) = 1,179,648 +
    // kv_a norm 512 + kv_b 512·16·(128 + 128) = 2,097,152 + o 16·128·2048 = 4,194,304 → 13,763,072.
    EXPECT_EQ(p.attention.value(), 13763072u);
    // Dense layer 0: + MLP 3·2048·11,264 = 69,206,016 + norms 4096 → 82,973,184. MoE layers 1-26: router 64·2048 + 64
    // (noaux_tc bias) = 131,136 + 64 experts · 3·2048·1408 (8,650,752) = 553,648,128 + 2 shared = 17,301,504 + norms 4096
    // → 584,847,936 · 26 = 15,206,046,336. Embedding and LM head 163,840·2048 = 335,544,320 each, final norm 2048:
    // 82,973,184 + 15,206,046,336 + 671,088,640 + 2048 = 15,960,110,208 (16B).
    EXPECT_EQ(p.moe_per_layer.value(), 584847936u);
    EXPECT_EQ(p.total.value(), 15960110208u);
    // Active: − 26 · 58 · 8,650,752 (13,045,334,016) = 2,914,776,192; less both vocab tables, 2,243,687,552: the card's
    // "2.24B activated" (without embeddings).
    EXPECT_EQ(p.active.value(), 2914776192u);
}

TEST(HfPublishedFiles, Qwen3MoeFilesWrittenByTransformers5NameTheExpertsNumLocalExperts) {
    // Qwen3-235B-A22B-Instruct-2507 (its published file, "num_experts"): attention 4096·8192·2 + 4096·512·2 + q/k norms
    // 256 = 71,303,424; router 128·4096 = 524,288; 128 experts · 3·4096·1536 (18,874,368) = 2,415,919,104; norms 8192 →
    // 2,487,755,008 · 94 = 233,848,970,752 + 2·151,936·4096 (1,244,659,712) + 4096 = 235,093,634,560 (235B).
    const ParamCount big = param_count(hf("qwen3-235b-a22b-instruct-2507"));
    EXPECT_EQ(big.moe_per_layer.value(), 2487755008u);
    EXPECT_EQ(big.total.value(), 235093634560u);
    // Active: − 94 · 120 · 18,874,368 (212,902,871,040) = 22,190,763,520 ("A22B").
    EXPECT_EQ(big.active.value(), 22190763520u);

    // Qwen3-30B-A3B-Thinking-2507-FP8 as transformers 5.7 writes it: "num_local_experts": 128 and no "num_experts".
    // Refused before ("missing num_experts"). Attention 2048·4096·2 + 2048·512·2 + 256 = 18,874,624; router 262,144;
    // 128 · 3·2048·768 (4,718,592) = 603,979,776; norms 4096 → 623,120,640 · 48 = 29,909,790,720 + 2·151,936·2048
    // (622,329,856) + 2048 = 30,532,122,624: the tensor list's 30,533,947,392 less its 1,824,768 scale elements.
    const TransformerConfig fp8 = hf("qwen3-30b-a3b-thinking-2507-fp8");
    const ParamCount p = param_count(fp8);
    EXPECT_EQ(fp8.moe->experts, 128u);
    EXPECT_EQ(p.total.value(), 30532122624u);
    EXPECT_EQ(p.active.value(), 3353032704u);  // − 48 · 120 · 4,718,592
    ASSERT_TRUE(fp8.weight_format);
    EXPECT_EQ(fp8.weight_format->dtype, DType::fp8_e4m3);
    EXPECT_EQ(fp8.weight_format->block, 128u);
    // Its modules_to_not_convert lists lm_head, each router and each layer's two norms: all outside the blocks' linear
    // weights (bwacct keeps them in the activation dtype), so nothing is stated. Before: "keeps model.layers.0.
    // input_layernorm, ... unquantized ... (their bytes are understated)", which was untrue.
    EXPECT_FALSE(has_limitation(fp8, "modules_to_not_convert"));
    // Bytes: vocab tables 1,244,659,712 (bf16); per layer fp8 attention 18,874,368 + its 1152 block scales · 4 (4608) +
    // experts 603,979,776 + 128·288 scales · 4 (147,456) + router 524,288 and norms 8704 in bf16 = 623,539,200 · 48 =
    // 29,929,881,600; final norm 4096 → 31,174,545,408. The checkpoint stores weight_scale_inv in bf16 (the tensor list:
    // 31,170,895,872 bytes, 3,649,536 fewer); config.json does not say, and fp32 (DeepSeek-V3's) is taken.
    EXPECT_EQ(weight_bytes_per_rank(fp8, LayerRun{}).value(), 31174545408u);

    // Either name, one count; both given must agree.
    const std::string moe = R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "moe_intermediate_size": 32, "vocab_size": 100,
        "num_experts_per_tok": 2, )";
    EXPECT_EQ(parse_hf_config(moe + R"("num_experts": 8, "num_local_experts": 8})", "x").moe->experts, 8u);
    const std::string e = error_of(moe + R"("num_experts": 8, "num_local_experts": 4})");
    EXPECT_NE(e.find("\"num_experts\" (8) and \"num_local_experts\" (4) disagree"), std::string::npos) << e;
    // OLMoE reads the same pair.
    EXPECT_EQ(parse_hf_config(R"({"architectures": ["OlmoeForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 32, "vocab_size": 100, "num_experts_per_tok": 2,
        "num_local_experts": 16})",
                              "x")
                  .moe->experts,
              16u);
}

TEST(HfPublishedFiles, Qwen3AwqCountsAndBytesMeetItsTensorList) {
    const TransformerConfig c = hf("qwen3-32b-awq");
    // Attention 5120·8192·2 + 5120·1024·2 + 256 = 94,372,096; MLP 3·5120·25,600 = 393,216,000; norms 10,240 →
    // 487,598,336 · 64 = 31,206,293,504 + 2·151,936·5120 (1,555,824,640) + 5120 = 32,762,123,264 (32.8B).
    EXPECT_EQ(param_count(c).total.value(), 32762123264u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::int4);
    EXPECT_EQ(c.weight_format->group, 128u);
    EXPECT_EQ(c.weight_format->zero_bits, 4u);  // zero_point true
    // The tensor list: a Linear [K, N] is qweight K·N/2 + qzeros (K/128)·N/2 + scales (K/128)·N·2 bytes. q and o
    // 20,971,520 + 163,840 + 655,360 = 21,790,720 each; k and v 2,621,440 + 20,480 + 81,920 = 2,723,840 each; gate, up,
    // down 65,536,000 + 512,000 + 2,048,000 = 68,096,000 each → 253,317,120 · 64 = 16,212,295,680; norms (10,240 + 256)
    // · 2 · 64 = 1,343,488; bf16 vocab tables 3,111,649,280; final norm 10,240: 19,325,298,688 B (its "18.00 GB").
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 19325298688u);
}

TEST(HfPublishedFiles, Glm47FlashIsDeepSeekV3sLayersUnderItsOwnClass) {
    // Refused before (unsupported architecture Glm4MoeLiteForCausalLM).
    const TransformerConfig c = hf("glm-4.7-flash");
    ASSERT_TRUE(c.mla);
    ASSERT_TRUE(c.moe);
    const ParamCount p = param_count(c);
    // Attention: q_a 2048·768 = 1,572,864 + q_a norm 768 + q_b 768·20·256 = 3,932,160 + kv_a 2048·576 = 1,179,648 +
    // kv_a norm 512 + kv_b 512·20·(192 + 256) = 4,587,520 + o 20·256·2048 = 10,485,760 → 21,759,232.
    EXPECT_EQ(p.attention.value(), 21759232u);
    // MoE layer: router 64·2048 + 64 = 131,136 + 64 · 3·2048·1536 (9,437,184) = 603,979,776 + 1 shared 9,437,184 +
    // norms 4096 → 635,311,424. Dense layer 0: 21,759,232 + 3·2048·10,240 (62,914,560) + 4096 = 84,677,888.
    EXPECT_EQ(p.moe_per_layer.value(), 635311424u);
    // 84,677,888 + 46 · 635,311,424 (29,224,325,504) + 2·154,880·2048 (634,388,480) + 2048 = 29,943,393,920. The tensor
    // list's 31,221,488,576 holds the MTP layer 47 too: 635,311,424 + eh_proj 2048·4096 (8,388,608) + enorm, hnorm and
    // shared_head.norm 3·2048 + its embedding and head copies 634,388,480 = 1,278,094,656 → 29,943,393,920.
    EXPECT_EQ(p.total.value(), 29943393920u);
    EXPECT_EQ(p.active.value(), 3896766080u);  // − 46 · 60 · 9,437,184 ("A3B")
    EXPECT_TRUE(has_limitation(c, "num_nextn_predict_layers = 1"));
}

TEST(HfPublishedFiles, MlpLayerTypesDecideTheDenseLayersAndMustAgree) {
    // transformers 5 writes "mlp_layer_types" beside first_k_dense_replace (GLM-4.7-Flash's printout: "dense", then 46
    // "sparse"). Alone, it decides; with first_k_dense_replace, the two must agree.
    const std::string base = R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 3,
        "num_attention_heads": 4, "intermediate_size": 128, "moe_intermediate_size": 32, "vocab_size": 100,
        "n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2, "kv_lora_rank": 16, "qk_nope_head_dim": 16,
        "qk_rope_head_dim": 8, "v_head_dim": 16, )";
    const TransformerConfig listed = parse_hf_config(base + R"("mlp_layer_types": ["dense", "dense", "sparse"]})", "x");
    EXPECT_EQ(listed.moe->dense_layers, 2u);
    EXPECT_EQ(parse_hf_config(base + R"("first_k_dense_replace": 1, "mlp_layer_types": ["dense", "sparse", "sparse"]})", "x")
                  .moe->dense_layers,
              1u);
    const std::string e = error_of(base + R"("first_k_dense_replace": 2, "mlp_layer_types": ["dense", "sparse", "sparse"]})");
    EXPECT_NE(e.find("\"mlp_layer_types\" disagrees with \"first_k_dense_replace\""), std::string::npos) << e;
    const std::string bad = error_of(base + R"("mlp_layer_types": ["dense", "moe", "sparse"]})");
    EXPECT_NE(bad.find("\"mlp_layer_types\" entries must be \"dense\" or \"sparse\", got \"moe\""), std::string::npos) << bad;
    // moe_layer_freq is a rule too: 2 makes layer 1 dense (1 % 2 != 0), which the list calls sparse (accepted before).
    const std::string freq = error_of(base + R"("moe_layer_freq": 2, "mlp_layer_types": ["sparse", "sparse", "sparse"]})");
    EXPECT_NE(freq.find("\"mlp_layer_types\" disagrees with"), std::string::npos) << freq;
    // Glm4MoeLite reads mlp_layer_types alone (transformers' Glm4MoeLiteDecoderLayer), by default ["dense", "sparse",
    // "sparse"]: 1 dense layer with no field; first_k_dense_replace 3 without the list (3 dense before) disagrees: refused.
    std::string lite = base;
    lite.replace(lite.find("DeepseekV3ForCausalLM"), std::string("DeepseekV3ForCausalLM").size(), "Glm4MoeLiteForCausalLM");
    EXPECT_EQ(parse_hf_config(lite + R"("rms_norm_eps": 1e-06})", "x").moe->dense_layers, 1u);
    const std::string three = error_of(lite + R"("first_k_dense_replace": 3})");
    EXPECT_NE(three.find("\"mlp_layer_types\" (absent: transformers' default"), std::string::npos) << three;
}

TEST(HfPublishedFiles, DenseQwenMistralAndGptOssFilesCountTheirPublishedSizes) {
    // Qwen2.5-72B-Instruct: attention 8192² · 2 + 8192·1024·2 + biases 8192 + 2·1024 = 151,005,184; MLP 3·8192·29,568 =
    // 726,663,168; norms 16,384 → 877,684,736 · 80 = 70,214,778,880 + 2·152,064·8192 (2,491,416,576) + 8192 =
    // 72,706,203,648: the tensor list's total. use_sliding_window false: no window.
    const TransformerConfig q72 = hf("qwen2.5-72b-instruct");
    EXPECT_EQ(param_count(q72).total.value(), 72706203648u);
    EXPECT_EQ(q72.sliding_window, 0u);
    // Mistral-Nemo-Base-2407: head_dim 128 (not 5120 / 32 = 160): attention 5120·4096·2 + 5120·1024·2 = 52,428,800; MLP
    // 3·5120·14,336 = 220,200,960; norms 10,240 → 272,640,000 · 40 = 10,905,600,000 + 2·131,072·5120 (1,342,177,280) +
    // 5120 = 12,247,782,400 (12.2B); sliding_window null: none.
    const TransformerConfig nemo = hf("mistral-nemo-base-2407");
    EXPECT_EQ(nemo.head_dim, 128u);
    EXPECT_EQ(param_count(nemo).total.value(), 12247782400u);
    EXPECT_EQ(nemo.sliding_window, 0u);
    // Qwen3-0.6B, tied: attention 1024·2048·2 + 1024·1024·2 + 256 = 6,291,712; MLP 3·1024·3072 = 9,437,184; norms 2048
    // → 15,730,944 · 28 = 440,466,432 + 151,936·1024 (155,582,464) + 1024 = 596,049,920 (0.6B; 0.44B without it).
    const TransformerConfig small = hf("qwen3-0.6b");
    EXPECT_TRUE(small.tied_embeddings);
    EXPECT_EQ(param_count(small).total.value(), 596049920u);
    // gpt-oss-20b: attention 2880·4096·2 + 2880·512·2 = 26,542,080 + biases 4096 + 512·2 + 2880 = 26,550,080; router
    // 32·2880 + 32 = 92,192; 32 experts · 3·2880·2880 (24,883,200) = 796,262,400; norms 5760 → 822,910,432 · 24 =
    // 19,749,850,368 + 2·201,088·2880 (1,158,266,880) + 2880 = 20,908,120,128 (+ expert biases 24·276,480 and sinks
    // 24·64, stated, not counted: 20,914,757,184, the card's 20.91B). Active: − 24·28·24,883,200 = 4,186,609,728; less
    // the embedding, 3,607,476,288 (the card's 3.61B).
    const TransformerConfig oss = hf("gpt-oss-20b");
    const ParamCount p = param_count(oss);
    EXPECT_EQ(p.total.value(), 20908120128u);
    EXPECT_EQ(p.active.value(), 4186609728u);
    ASSERT_TRUE(oss.weight_format);
    EXPECT_EQ(oss.weight_format->dtype, DType::mxfp4);
    EXPECT_EQ(oss.sliding_window, 128u);
    ASSERT_EQ(oss.local_layers.size(), 24u);
    EXPECT_TRUE(oss.local_layers[0]);
    EXPECT_FALSE(oss.local_layers[1]);
    // Its attention stays bf16 (modules_to_not_convert "model.layers.*.self_attn"): kept out of mxfp4. Bytes against the
    // tensor list: vocab tables 2·201,088·2880·2 = 2,316,533,760; per layer: expert blocks 32·(5760 + 2880)·90·16
    // (398,131,200) + their e8m0 scales 32·(5760 + 2880)·90 (24,883,200) + bf16 attention 26,542,080·2 (53,084,160) and
    // its biases 8000·2 + router 92,192·2 + norms 5760·2 (211,904) = 476,310,464 · 24 = 11,431,451,136; final norm 5760:
    // 13,747,990,656 B. The tensor list's 13,761,264,768 also holds the expert biases and sinks (24·553,088, stated).
    // Before: 11.9 GiB, the attention in mxfp4.
    EXPECT_TRUE(oss.kept.attention);
    EXPECT_FALSE(has_limitation(oss, "unquantized"));
    EXPECT_EQ(weight_bytes_per_rank(oss, LayerRun{}).value(), 13747990656u);
}

TEST(HfPublishedFiles, ModuleListsNamingAWholePartKeepItIn16Bits) {
    // Kimi-K2.5's compressed-tensors ignore list (int4 routed experts only): its regular expressions name every layer's
    // attention, shared experts and dense MLP. On a small DeepSeek-V3 shape (D 64, 2 layers, first dense; MLA q_lora
    // 16, kv_lora 16, qk 8 + 8, v 8, 4 heads; 4 experts of 32 + 1 shared; int4 group 32, bf16 scales):
    const std::string cfg = R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "moe_intermediate_size": 32, "vocab_size": 100,
        "n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
        "q_lora_rank": 16, "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 8, "v_head_dim": 8,
        "quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
          "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
            "strategy": "group", "group_size": 32, "symmetric": true}}},
          "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*",
                     "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]}})";
    const TransformerConfig c = parse_hf_config(cfg, "x");
    EXPECT_TRUE(c.kept.attention);
    EXPECT_TRUE(c.kept.dense_mlp);
    EXPECT_TRUE(c.kept.shared_experts);
    EXPECT_FALSE(has_limitation(c, "unquantized"));
    // Bytes (bf16 = 2 B; int4 [K, N] = K·N/2 + (K/32)·N·2): attention q_a 64·16 + q_b 16·64 + kv_a 64·24 + kv_b 16·64 +
    // o 32·64 = 6656 params, 13,312 B, + norms q_a 16, kv_a 16, 2·64 → 160 params, 320 B. Layer 0: MLP 3·64·128 = 24,576
    // params, 49,152 B → 62,784 B. Layer 1: router 4·64 + the 4-expert noaux_tc bias (DeepseekV3ForCausalLM without
    // topk_method) = 260 params, 520 B; experts 4 · (gate, up [64, 32]: 1024 + 128 each; down [32, 64]: 1024 + 128) =
    // 4 · 3456 = 13,824 B; shared 3·64·32 = 6144 params, 12,288 B → 13,312 + 320 + 520 + 13,824 + 12,288 = 40,264 B.
    // Vocab tables 2·100·64·2 = 25,600; final norm 128: 128,776 B.
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 128776u);
    // --weight-dtype sets every block weight: the kept parts follow it.
    LayerRun all;
    all.weight = *c.weight_format;
    EXPECT_LT(weight_bytes_per_rank(c, all).value(), 128776u);
    // A multimodal checkpoint's names for its language model ("model.language_model.layers.", "language_model.model.layers.")
    // name the same modules.
    for (const char* prefix : {"model.language_model.layers.*.self_attn", "language_model.model.layers.*.self_attn"}) {
        const std::string lm = std::regex_replace(cfg, std::regex(R"(re:\.\*self_attn\.\*)"), prefix);
        EXPECT_TRUE(parse_hf_config(lm, "x").kept.attention) << prefix;
    }
    // One layer's attention only: not the whole part, said.
    const std::string one = std::regex_replace(cfg, std::regex(R"(re:\.\*self_attn\.\*)"), "model.layers.0.self_attn");
    const TransformerConfig partial = parse_hf_config(one, "x");
    EXPECT_FALSE(partial.kept.attention);
    EXPECT_TRUE(has_limitation(partial, "keeps model.layers.0.self_attn unquantized"));
}

TEST(HfPublishedFiles, MiniMaxM3IsRefusedNamingItsClass) {
    // A vision-language wrapper around block-sparse attention with mxfp8 weights: no family of the engine's.
    const std::string e = [] {
        try {
            (void)hf("minimax-m3-mxfp8");
        } catch (const InputError& err) {
            return std::string(err.what());
        }
        return std::string();
    }();
    EXPECT_NE(e.find("unsupported architecture \"MiniMaxM3SparseForConditionalGeneration\""), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(HfPublishedFiles, KimiK25IsKimiK2WithInt4RoutedExpertsOnly) {
    // Refused before (unsupported architecture KimiK25ForConditionalGeneration). Its text_config is Kimi-K2's: the same
    // counts as kimi-k2-instruct (test_hf_config_new_families.cpp).
    const TransformerConfig c = hf("kimi-k2.5");
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.total.value(), 1026408232448u);
    EXPECT_EQ(p.active.value(), 32861500928u);
    EXPECT_EQ(c.name, "KimiK25ForConditionalGeneration");  // text_config's "_name_or_path" is ""
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::int4);
    EXPECT_EQ(c.weight_format->group, 32u);
    // The ignore list's regular expressions name every layer's attention, the dense MLP and the shared experts.
    EXPECT_TRUE(c.kept.attention);
    EXPECT_TRUE(c.kept.dense_mlp);
    EXPECT_TRUE(c.kept.shared_experts);
    // Bytes from the tensor list's shapes: vocab tables 2·163,840·7168·2 = 4,697,620,480; per layer (61) bf16 attention
    // q_a 1536·7168 + q_b 12,288·1536 + kv_a 576·7168 + kv_b 16,384·512 + o 7168·8192 = 101,122,048 · 2 = 202,244,096 and
    // norms (7168·2 + 1536 + 512)·2 = 32,768; layer 0's MLP 3·7168·18,432·2 = 792,723,456; layers 1-60: 384 experts ·
    // 3 · (packed 2048·7168/2 = 7,340,032 + scales 2048·224·2 = 917,504) = 9,512,681,472, router 384·7168·2 + bias
    // 384·2 (fp32 in the checkpoint) = 5,505,792, shared 3·2048·7168·2 = 88,080,384 → 9,606,267,648; final norm 14,336:
    // 4,697,620,480 + 61·202,276,864 + 792,723,456 + 60·9,606,267,648 + 14,336 = 594,205,305,856 B. Had the kept parts
    // been read as int4 g32, 1.4375 B fewer per weight: 13,235,376,128 B short.
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 594205305856u);
}

TEST(HfPublishedFiles, Phi4MiniIsPhi3WithTiedEmbeddings) {
    // Phi-4-mini-instruct: attention 3072·3072·2 + 3072·1024·2 = 25,165,824; MLP 3·3072·8192 = 75,497,472; norms 6144 →
    // 100,669,440 · 32 = 3,221,422,080 + tied 200,064·3072 (614,596,608) + 3072 = 3,836,021,760 (3.84B).
    // partial_rotary_factor 0.75 changes no FLOP or byte here (RoPE is not an op); its window (262,144) exceeds every
    // context it takes.
    const TransformerConfig c = hf("phi-4-mini-instruct");
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.kv_heads, 8u);
    EXPECT_EQ(param_count(c).total.value(), 3836021760u);
    EXPECT_EQ(c.sliding_window, 262144u);
}

TEST(HfPublishedFiles, AQuantizationConfigWithoutAMethodIsRefusedNamingTheMissingKey) {
    // mlx-community's 4-bit Phi-4-mini (quoted in a Swift test, file id 60822578940): "quantization" and
    // "quantization_config" both {"group_size": 64, "bits": 4}, no quant_method. Refused before as quant_method = "".
    const std::string mlx = R"({"architectures": ["Phi3ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
        "quantization": {"group_size": 64, "bits": 4}, "quantization_config": {"group_size": 64, "bits": 4}})";
    const std::string e = error_of(mlx);
    EXPECT_NE(e.find("\"quantization_config\" has no \"quant_method\" (MLX's group_size and bits"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

namespace {

// The small DeepSeek-V3 shape of ModuleListsNamingAWholePartKeepItIn16Bits (int4 g32, bf16 scales), its attention entry
// replaced by `attention` and its dtype by `dtype`.
std::string small_mla(const std::string& attention, const std::string& dtype = "bfloat16") {
    return R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "moe_intermediate_size": 32, "vocab_size": 100,
        "n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
        "q_lora_rank": 16, "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 8, "v_head_dim": 8,
        "torch_dtype": ")" +
           dtype + R"(", "quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
          "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
            "strategy": "group", "group_size": 32, "symmetric": true}}},
          "ignore": ["lm_head", )" +
           attention + R"(, "re:.*shared_experts.*", "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"]}})";
}

}  // namespace

TEST(HfPublishedFiles, MlaAttentionIsKeptOnlyWhenQBProjIsNamedToo) {
    // With q_lora_rank > 0 MLA's attention has five matrices: q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj.
    // Named all five: attention kept in bf16, nothing stated; 128,776 B as in ModuleListsNamingAWholePartKeepItIn16Bits.
    const std::string five = R"("model.layers.*.self_attn.q_a_proj", "model.layers.*.self_attn.q_b_proj",
        "model.layers.*.self_attn.kv_a_proj_with_mqa", "model.layers.*.self_attn.kv_b_proj", "model.layers.*.self_attn.o_proj")";
    const TransformerConfig all = parse_hf_config(small_mla(five), "x");
    EXPECT_TRUE(all.kept.attention);
    EXPECT_FALSE(has_limitation(all, "unquantized"));
    EXPECT_EQ(weight_bytes_per_rank(all, LayerRun{}).value(), 128776u);
    // Four of them (no q_b_proj): attention is not kept (before: kept, and q_b_proj costed in bf16 though the checkpoint
    // stores it in int4), the four stated. int4 g32 attention per layer (payload K·N/2 + N·ceil(K/32) bf16 scales):
    // q_a [64, 16] 512 + 64, q_b [16, 64] 512 + 128, kv_a [64, 24] 768 + 96, kv_b [16, 64] 512 + 128, o [32, 64]
    // 1024 + 128 = 3872 B against bf16's 13,312: 2 layers · 9440 = 18,880 B fewer: 109,896 B.
    const std::string four = R"("model.layers.*.self_attn.q_a_proj", "model.layers.*.self_attn.kv_a_proj_with_mqa",
        "model.layers.*.self_attn.kv_b_proj", "model.layers.*.self_attn.o_proj")";
    const TransformerConfig part = parse_hf_config(small_mla(four), "x");
    EXPECT_FALSE(part.kept.attention);
    EXPECT_TRUE(part.kept.dense_mlp);
    EXPECT_TRUE(has_limitation(part, "keeps model.layers.*.self_attn.q_a_proj, model.layers.*.self_attn.kv_a_proj_with_mqa"));
    EXPECT_EQ(weight_bytes_per_rank(part, LayerRun{}).value(), 109896u);
}

TEST(HfPublishedFiles, KeptPartsStay16BitWhateverTheActivationDtype) {
    // The checkpoint stores kept parts in its torch_dtype; --act-dtype fp8 does not make them fp8. At fp8 activations
    // (1 B: norms, router, vocab tables): per layer bf16 attention 13,312 + norms 160; layer 0 bf16 MLP 49,152 → 62,624;
    // layer 1 router 256 + its noaux_tc bias 4 + int4 experts 13,824 + bf16 shared 12,288 → 39,844; vocab 2·100·64 =
    // 12,800; final norm 64: 115,332 B (before: the kept 6656 + 24,576 + 6144 weights at 1 B, 71,300).
    const TransformerConfig c = parse_hf_config(small_mla(R"("re:.*self_attn.*")"), "x");
    EXPECT_EQ(c.kept.dtype, DType::bf16);
    LayerRun fp8;
    fp8.dtype = DType::fp8_e4m3;
    EXPECT_EQ(weight_bytes_per_rank(c, fp8).value(), 115332u);
    EXPECT_EQ(format_name(part_weight_format(c, fp8, WeightPart::attention)), "bf16");
    // A float16 checkpoint keeps them in fp16 (2 B too).
    const TransformerConfig h = parse_hf_config(small_mla(R"("re:.*self_attn.*")", "float16"), "x");
    EXPECT_EQ(h.kept.dtype, DType::fp16);
    EXPECT_EQ(weight_bytes_per_rank(h, fp8).value(), 115332u);
}

TEST(HfPublishedFiles, ModuleListsOfAHugeLayerCountAreMatchedPerLayerKind) {
    // 100,000 layers (the most bwacct models): a list with no digit decides on one layer of each kind (before: every
    // layer's names built for every entry); no list at all, nothing built.
    std::string cfg = small_mla(R"("model.layers.*.self_attn")");
    cfg = std::regex_replace(cfg, std::regex(R"("num_hidden_layers": 2)"), R"("num_hidden_layers": 100000)");
    EXPECT_TRUE(parse_hf_config(cfg, "x").kept.attention);
    const std::string none = std::regex_replace(cfg, std::regex(R"("ignore": \[[^\]]*\])"), R"("ignore": [])");
    EXPECT_FALSE(parse_hf_config(none, "x").kept.attention);
    // 2^63 layers ran out of memory building the dense-layer table (internal error: std::bad_alloc); refused as read.
    const std::string deep =
        std::regex_replace(cfg, std::regex(R"("num_hidden_layers": 100000)"), R"("num_hidden_layers": 9223372036854775808)");
    const std::string e = error_of(deep);
    EXPECT_NE(e.find("\"num_hidden_layers\" = 9223372036854775808 is more than bwacct models (at most 100000)"),
              std::string::npos)
        << e;
}

TEST(HfPublishedFiles, ModuleListEntriesPastTheBoundsAreRefusedNamingTheList) {
    // 20,000 nested groups overflowed std::regex's stack (SIGSEGV); now one line naming the list.
    const std::string deep = "\"re:" + std::string(20000, '(') + "a" + std::string(20000, ')') + "\"";
    for (const std::string& entry : {deep, std::string(R"("re:(.*)*Z")")}) {
        const std::string e = error_of(small_mla(entry));
        EXPECT_NE(e.find("\"quantization_config.ignore\""), std::string::npos) << e.substr(0, 200);
        EXPECT_EQ(e.find('\n'), std::string::npos);
    }
}
