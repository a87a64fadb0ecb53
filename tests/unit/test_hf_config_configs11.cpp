// Model descriptions found in the fifteenth session (tests/data/models/*.src.txt): Mistral's native params.json
// (Devstral-Small-2507 ships only it; mistral-inference's TransformerArgs) and ERNIE 4.5's dense class
// (Ernie4_5_ForCausalLM, ERNIE-4.5-0.3B), both refused before ("missing architectures", "unsupported architecture").
#include <gtest/gtest.h>

#include <string>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/transformer.h"
#include "hf_test_util.h"

using namespace bwacct;
using bwacct_test::error_of;
using bwacct_test::has_limitation;
using bwacct_test::hf;

namespace {

TransformerConfig params_json(const std::string& name) {
    return load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/" + name + ".params.json", "--hf-config");
}

// Mixtral-8x7B's params.json fields (as mistral-inference reads them), with `extra` before the closing brace.
std::string mixtral_params(const std::string& extra = "") {
    return R"({"dim": 4096, "n_layers": 32, "head_dim": 128, "hidden_dim": 14336, "n_heads": 32, "n_kv_heads": 8,
        "norm_eps": 1e-05, "vocab_size": 32000, "moe": {"num_experts_per_tok": 2, "num_experts": 8})" +
           extra + "}";
}

}  // namespace

TEST(HfConfigs11, DevstralParamsJsonMeetsItsIndexTotalParameters) {
    // dim 5120, 32 heads / 8 KV heads of 128, hidden_dim 32,768, 40 layers, vocab 131,072, output untied.
    // Attention: q 5120·4096 + k, v 2·5120·1024 + o 4096·5120 = 20,971,520 + 10,485,760 + 20,971,520 = 52,428,800;
    // MLP 3·5120·32,768 = 503,316,480; norms 2·5120 = 10,240 → 555,755,520 per layer · 40 = 22,230,220,800;
    // + embedding and output 2·131,072·5120 = 1,342,177,280 + final norm 5120 = 23,572,403,200: the index's
    // "total_parameters" (its "total_size" 47,144,806,400 B = 2 B each).
    const TransformerConfig c = params_json("devstral-small-2507");
    EXPECT_EQ(c.name, "MistralForCausalLM");
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_EQ(c.kv_heads, 8u);
    EXPECT_EQ(c.head_dim, 128u);
    EXPECT_EQ(c.sliding_window, 0u);  // no sliding_window key
    EXPECT_EQ(param_count(c).per_layer.value(), 555755520u);
    EXPECT_EQ(param_count(c).total.value(), 23572403200u);
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 47144806400u);
}

TEST(HfConfigs11, MixtralParamsJsonIsMixtralsBlock) {
    // The same model as mixtral-8x7b.config.json: per layer 41,943,040 attention + 32,768 router + 8 · 176,160,768
    // experts + 8192 norms = 1,451,270,144; · 32 = 46,440,644,608 + 2·32,000·4096 + 4096 = 46,702,792,704; active
    // 46,702,792,704 − 32 · 6 · 176,160,768 = 12,879,925,248.
    const TransformerConfig c = parse_hf_config(mixtral_params(), "--hf-config params.json");
    ASSERT_TRUE(c.moe.has_value());
    EXPECT_EQ(c.moe->experts, 8u);
    EXPECT_EQ(c.moe->top_k, 2u);
    EXPECT_EQ(param_count(c).total.value(), 46702792704u);
    EXPECT_EQ(param_count(c).active.value(), 12879925248u);
    // A window for every layer, as mistral-inference's (Mistral-7B-v0.1's params.json: 4096).
    EXPECT_EQ(parse_hf_config(mixtral_params(R"(, "sliding_window": 4096)"), "x").sliding_window, 4096u);
    // A vision encoder: the language model is counted, the rest stated.
    EXPECT_TRUE(
        has_limitation(parse_hf_config(mixtral_params(R"(, "vision_encoder": {"hidden_size": 1024})"), "x"), "vision encoder"));
}

TEST(HfConfigs11, ParamsJsonFieldsOutsideTransformerArgsAreRefusedByName) {
    // Meta's original Llama params.json (multiple_of, no hidden_dim), LoRA adapters, per-layer windows, a missing
    // required field (TransformerArgs has no default for n_kv_heads or head_dim), a bad "moe".
    const std::string meta =
        error_of(R"({"dim": 4096, "multiple_of": 256, "n_heads": 32, "n_layers": 32, "norm_eps": 1e-05, "vocab_size": -1})");
    EXPECT_NE(meta.find("\"multiple_of\" is not modelled"), std::string::npos) << meta;
    EXPECT_NE(meta.find("params.json"), std::string::npos) << meta;
    EXPECT_NE(error_of(mixtral_params(R"(, "lora": {"rank": 16})")).find("\"lora\""), std::string::npos);
    EXPECT_NE(error_of(mixtral_params(R"(, "sliding_window": [4096, 8192])")).find("per-layer list"), std::string::npos);
    EXPECT_NE(error_of(mixtral_params(R"(, "model_type": "mamba")")).find("\"model_type\""), std::string::npos);
    EXPECT_NE(error_of(R"({"dim": 64, "n_layers": 2, "head_dim": 16, "hidden_dim": 128, "n_heads": 4, "vocab_size": 10})")
                  .find("\"n_kv_heads\""),
              std::string::npos);
    EXPECT_NE(error_of(R"({"dim": 64, "n_layers": 2, "head_dim": 16, "hidden_dim": 128, "n_heads": 4, "n_kv_heads": 4,
        "vocab_size": 10, "moe": {"num_experts": 8}})")
                  .find("num_experts_per_tok"),
              std::string::npos);
    // Keys inside "moe" beyond MoeArgs' two (Mistral Large 3's, which vLLM's adapter reads) change the count: refused.
    const std::string large3 = error_of(R"({"dim": 64, "n_layers": 2, "head_dim": 16, "hidden_dim": 128, "n_heads": 4,
        "n_kv_heads": 4, "vocab_size": 10, "moe": {"num_experts": 8, "num_experts_per_tok": 2, "num_shared_experts": 1}})");
    EXPECT_NE(large3.find("\"num_shared_experts\" is not modelled"), std::string::npos) << large3;
    // Neither a class nor params.json's fields: the message names all three forms.
    EXPECT_NE(error_of(R"({"hidden_size": 64})").find("params.json"), std::string::npos);
}

TEST(HfConfigs11, Ernie45DenseIsLlamaWithTiedEmbeddings) {
    // ERNIE-4.5-0.3B: hidden 1024, 16 query / 2 KV heads of 128 (head_dim given, not 1024 / 16 = 64), MLP 3072, 18 layers,
    // vocab 103,424, tied. Attention: q 1024·2048 + k, v 2·1024·256 + o 2048·1024 = 2,097,152 + 524,288 + 2,097,152 =
    // 4,718,592; MLP 3·1024·3072 = 9,437,184; norms 2048 → 14,157,824 · 18 = 254,840,832 + one 103,424·1024 table
    // (105,906,176) + 1024 = 360,748,032 (model card: 0.36B).
    const TransformerConfig c = hf("ernie-4.5-0.3b-pt");
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.head_dim, 128u);
    EXPECT_EQ(param_count(c).attention.value(), 4718592u);
    EXPECT_EQ(param_count(c).total.value(), 360748032u);
    // transformers' spelling is the same class; tie_word_embeddings left out is Ernie4_5Config's default, true.
    const std::string base = R"({"architectures": ["Ernie4_5ForCausalLM"], "hidden_size": 1024, "intermediate_size": 3072,
        "num_attention_heads": 16, "num_key_value_heads": 2, "num_hidden_layers": 18, "vocab_size": 103424)";
    EXPECT_EQ(param_count(parse_hf_config(base + R"(, "head_dim": 128})", "x")).total.value(), 360748032u);
    // use_bias (every projection) refused as for the MoE class; head_dim left out: the copies' defaults disagree.
    EXPECT_NE(error_of(base + R"(, "head_dim": 128, "use_bias": true})").find("\"use_bias\""), std::string::npos);
    EXPECT_NE(error_of(base + "}").find("missing \"head_dim\""), std::string::npos);
}

TEST(HfConfigs11, ModelOptNvfp4WithAnotherScaleBlockIsRefused) {
    // NVFP4 stores one fp8 e4m3 scale per 16 weights; a group_size of 32 was read as 16 before (its bytes silently
    // wrong). 16, or no group_size, read as before.
    const std::string base = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
        "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100, "quantization_config": {"quant_method":
        "modelopt", )";
    const std::string e = error_of(base + R"("quant_algo": "NVFP4", "group_size": 32}})");
    EXPECT_NE(e.find("\"quantization_config.group_size\" = 32"), std::string::npos) << e;
    EXPECT_NE(error_of(base + R"("quant_algo": "W4A16_NVFP4", "group_size": 64}})").find("group_size"), std::string::npos);
    EXPECT_EQ(error_of(base + R"("quant_algo": "NVFP4", "group_size": 16}})"), "");
    EXPECT_EQ(error_of(base + R"("quant_algo": "NVFP4"}})"), "");
}

TEST(HfConfigs11, NullSlidingWindowPatternWithoutLayerTypesIsRefused) {
    // Gemma3TextConfig (kwargs.get("sliding_window_pattern", 6)) and Exaone4Config (sliding_window_pattern: ... = 4)
    // expand layer_types as (i + 1) % pattern: a null there cannot be built. Read as the default period before (Gemma 3:
    // 6, EXAONE 4: 4). With layer_types the pattern is not read; without a window it changes nothing.
    const std::string gemma = R"({"architectures": ["Gemma3ForCausalLM"], "hidden_size": 1152, "intermediate_size": 6912,
        "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "num_hidden_layers": 2, "vocab_size": 1000,
        "sliding_window": 512, "sliding_window_pattern": null)";
    const std::string e = error_of(gemma + "}");
    EXPECT_NE(e.find("\"sliding_window_pattern\" is null"), std::string::npos) << e;
    EXPECT_EQ(error_of(gemma + R"(, "layer_types": ["sliding_attention", "full_attention"]})"), "");
    const std::string exaone = R"({"architectures": ["Exaone4ForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 4, "vocab_size": 100,
        "sliding_window_pattern": null)";
    EXPECT_NE(error_of(exaone + R"(, "sliding_window": 32})").find("\"sliding_window_pattern\" is null"), std::string::npos);
    EXPECT_EQ(error_of(exaone + R"(, "sliding_window": null})"), "");  // no window: nothing to expand
}

TEST(HfConfigs11, HunyuanA13bUniformListsAreDeepSeekMoEWithQkNorms) {
    // Hunyuan-A13B (HunYuanMoEV1ForCausalLM): 32 layers, hidden 4096, 32 query / 8 KV heads of 128 (attention_head_dim),
    // 64 experts of 3072 (top 8), one shared MLP of 1 · 3072, per-head q/k RMSNorms, tied, vocab 128,167. Per layer:
    // attention 4096·4096·2 + 4096·1024·2 = 41,943,040 + q/k norms 2·128 = 41,943,296; router 64·4096 = 262,144; experts
    // 64 · 3·4096·3072 = 64 · 37,748,736 = 2,415,919,104; shared 37,748,736; norms 8192 → 2,495,881,472 · 32 =
    // 79,868,207,104 + 128,167·4096 (524,972,032) + 4096 = 80,393,183,232 (published 80B). Active: − 32 · 56 ·
    // 37,748,736 = 67,645,734,912 → 12,747,448,320 (published 13B). Refused before (per-layer lists).
    const TransformerConfig c = hf("hunyuan-a13b");
    ASSERT_TRUE(c.moe.has_value());
    EXPECT_TRUE(c.qk_norm);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.moe->experts, 64u);
    EXPECT_EQ(c.moe->top_k, 8u);
    EXPECT_EQ(c.moe->shared_experts, 1u);
    EXPECT_FALSE(c.moe->router_bias);
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.moe_per_layer.value(), 2495881472u);
    EXPECT_EQ(p.total.value(), 80393183232u);
    EXPECT_EQ(p.active.value(), 12747448320u);
    EXPECT_TRUE(has_limitation(c, "fp32"));
    // Lists that differ by layer, or cross-layer KV sharing, stay refused naming the lists.
    const std::string base = R"({"architectures": ["HunYuanMoEV1ForCausalLM"], "hidden_size": 64, "intermediate_size": 32,
        "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100, "num_experts": 4, "tie_word_embeddings": true,
        "moe_topk": [2, 2], "num_shared_expert": [1, 1], "use_mixed_mlp_moe": true, )";
    EXPECT_NE(error_of(base + R"("moe_intermediate_size": [32, 16]})").find("moe_intermediate_size"), std::string::npos);
    EXPECT_NE(error_of(base + R"("moe_intermediate_size": [32, 32], "use_cla": true})").find("not modelled"), std::string::npos);
    // A uniform file: 2 layers of attention 2·64·64 + 2·64·64 = 16,384 (MHA), router 4·64 = 256, experts 4 · 3·64·32 =
    // 24,576, shared 6144, norms 128 → 47,488 · 2 = 94,976 + 100·64 + 64 = 101,440.
    EXPECT_EQ(param_count(parse_hf_config(base + R"("moe_intermediate_size": [32, 32]})", "x")).total.value(), 101440u);
}
