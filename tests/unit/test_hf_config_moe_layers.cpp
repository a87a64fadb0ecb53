// Hugging Face config.json → TransformerConfig: MoE on some layers only (one per-layer pattern for Qwen-MoE's
// decoder_sparse_step / mlp_only_layers, DeepSeek's first_k_dense_replace / moe_layer_freq, Llama 4's
// moe_layers / interleave_moe_layer_step) and the families added with it (Llama 4, GLM-4.5, OLMoE, PhiMoE, the
// Qwen-VL wrappers). Expected values derived by hand in the comments from the configs in tests/data/models/ and
// the reference implementations (transformers' modeling_<arch>.py).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/pipeline_parallel.h"
#include "bwacct/transformer.h"
#include "hf_test_util.h"

using namespace bwacct;
using bwacct_test::error_of;
using bwacct_test::has_limitation;
using bwacct_test::hf;
using bwacct_test::model_file;

namespace {

// A small Qwen3-MoE config: D 32, 4 layers, 4 heads of 8 (qk norm), dense MLP 64, 4 experts of 16, top 2.
std::string qwen3_moe(const std::string& extra) {
    return fmt::format(
        R"({{"architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 4, "num_attention_heads": 4, "hidden_size": 32,
            "intermediate_size": 64, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 16, "tie_word_embeddings": false{}}})",
        extra);
}

}  // namespace

TEST(HfConfigMoeLayers, QwenMoeSparseStepAndMlpOnlyLayersArePerLayer) {
    // Qwen3MoeDecoderLayer: sparse when i not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
    // decoder_sparse_step 2 → layers 1 and 3 sparse, 0 and 2 dense (MLP of intermediate_size 64).
    const TransformerConfig c = parse_hf_config(qwen3_moe(R"(, "decoder_sparse_step": 2)"), "x");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->dense_layers, 2u);
    EXPECT_EQ(c.moe->dense_pattern, (std::vector<bool>{true, false, true, false}));
    EXPECT_EQ(c.ffn, 64u);
    EXPECT_EQ(moe_layer_count(c), 2u);
    const ParamCount p = param_count(c);
    // attention 32·(4 + 2·4)·8 + 4·8·32 = 3,072 + 1,024 = 4,096, + q/k norm 2·8 = 4,112; norms 2·32 = 64
    // dense layer: 4,112 + 3·32·64 (6,144) + 64 = 10,320
    // MoE layer: 4,112 + router 4·32 (128) + 4 experts · 3·32·16 (1,536) = 6,272 + 64 = 10,448
    // total: embedding 3,200 + LM head 3,200 + final norm 32 + 2·10,320 (20,640) + 2·10,448 (20,896) = 47,968
    EXPECT_EQ(p.per_layer.value(), 10320u);
    EXPECT_EQ(p.moe_per_layer.value(), 10448u);
    EXPECT_EQ(p.total.value(), 47968u);
    // Positions matter where layers are split: two stages get one dense and one MoE layer each (a dense-first
    // reading would give stage 0 both dense layers).
    const std::vector<StageLayers> s = pipeline_stages(c, 2);
    EXPECT_EQ(s[0].dense, 1u);
    EXPECT_EQ(s[0].moe, 1u);
    EXPECT_EQ(s[1].dense, 1u);
    EXPECT_EQ(s[1].moe, 1u);
    for (std::uint64_t i = 0; i < 4; ++i)
        EXPECT_EQ(is_dense_mlp_layer(c, i), i % 2 == 0) << i;

    // mlp_only_layers [0, 1]: a leading run, stored as DeepSeek's dense-first count (no pattern).
    const TransformerConfig f = parse_hf_config(qwen3_moe(R"(, "mlp_only_layers": [0, 1])"), "x");
    EXPECT_EQ(f.moe->dense_layers, 2u);
    EXPECT_TRUE(f.moe->dense_pattern.empty());
    EXPECT_EQ(param_count(f).total.value(), 47968u);  // the same counts of each kind
    // mlp_only_layers [3] with step 1: only the last layer dense.
    const TransformerConfig l = parse_hf_config(qwen3_moe(R"(, "mlp_only_layers": [3], "decoder_sparse_step": 1)"), "x");
    EXPECT_EQ(l.moe->dense_pattern, (std::vector<bool>{false, false, false, true}));
    // The dense layers need intermediate_size: refused naming it when absent.
    std::string no_ffn = qwen3_moe(R"(, "decoder_sparse_step": 2)");
    no_ffn.erase(no_ffn.find(R"("intermediate_size": 64,)"), std::string(R"("intermediate_size": 64,)").size());
    EXPECT_NE(error_of(no_ffn).find("intermediate_size"), std::string::npos) << error_of(no_ffn);
    // Bad indices, a zero step: one line naming the field.
    EXPECT_NE(error_of(qwen3_moe(R"(, "mlp_only_layers": [4])")).find("mlp_only_layers"), std::string::npos);
    EXPECT_NE(error_of(qwen3_moe(R"(, "mlp_only_layers": 1)")).find("mlp_only_layers"), std::string::npos);
    EXPECT_NE(error_of(qwen3_moe(R"(, "decoder_sparse_step": 0)")).find("decoder_sparse_step"), std::string::npos);
}

TEST(HfConfigMoeLayers, DeepseekMoeLayerFreqIsPerLayer) {
    // DeepseekV3DecoderLayer: MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0.
    // 6 layers, first_k_dense_replace 1, moe_layer_freq 2 → MoE on layers 2 and 4; dense on 0, 1, 3, 5.
    const std::string cfg = R"({"architectures": ["DeepseekV3ForCausalLM"], "num_hidden_layers": 6, "num_attention_heads": 4,
        "hidden_size": 32, "intermediate_size": 64, "vocab_size": 100, "n_routed_experts": 4, "num_experts_per_tok": 2,
        "moe_intermediate_size": 16, "n_shared_experts": 1, "first_k_dense_replace": 1, "moe_layer_freq": 2,
        "kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8})";
    const TransformerConfig c = parse_hf_config(cfg, "x");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->dense_layers, 4u);
    EXPECT_EQ(c.moe->dense_pattern, (std::vector<bool>{true, true, false, true, false, true}));
    EXPECT_EQ(moe_layer_count(c), 2u);
    std::string bad = cfg;
    bad.replace(bad.find(R"("moe_layer_freq": 2)"), 19, R"("moe_layer_freq": 0)");
    EXPECT_NE(error_of(bad).find("moe_layer_freq"), std::string::npos);
}

TEST(HfConfigMoeLayers, Llama4ScoutParametersMatchThePublishedCount) {
    const TransformerConfig c = hf("llama-4-scout-17b-16e");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->experts, 16u);
    EXPECT_EQ(c.moe->top_k, 1u);
    EXPECT_EQ(c.moe->expert_ffn, 8192u);
    EXPECT_EQ(c.moe->shared_experts, 1u);  // Llama4TextMoe's shared_expert, a gated MLP of intermediate_size
    EXPECT_EQ(c.moe->dense_layers, 0u);    // moe_layers lists all 48
    const ParamCount p = param_count(c);
    // D 5120, 40 heads / 8 KV heads of 128, vocab 202,048:
    //   attention 5120·(40 + 16)·128 + 40·128·5120 = 36,700,160 + 26,214,400 = 62,914,560
    //   router 16·5120 = 81,920; expert 3·5120·8192 = 125,829,120; shared 125,829,120
    //   MoE layer 62,914,560 + 81,920 + 16·125,829,120 (2,013,265,920) + 125,829,120 + norms 10,240 = 2,202,101,760
    //   total 48·2,202,101,760 (105,700,884,480) + embedding 1,034,485,760 + LM head 1,034,485,760 + 5,120
    //       = 107,769,861,120 — published 109B with the vision tower (34 ViT layers, about 0.87 B, not counted).
    EXPECT_EQ(p.moe_per_layer.value(), 2202101760u);
    EXPECT_EQ(p.total.value(), 107769861120u);
    // active: 15 of 16 experts idle in 48 layers: 107,769,861,120 − 48·15·125,829,120 (90,596,966,400)
    //       = 17,172,894,720 — published 17B active.
    EXPECT_EQ(p.active.value(), 17172894720u);
    // Chunked attention on the RoPE layers (no_rope_layers 1): 36 of 48, every fourth layer full.
    EXPECT_EQ(c.sliding_window, 8192u);
    EXPECT_EQ(std::count(c.local_layers.begin(), c.local_layers.end(), true), 36);
    EXPECT_FALSE(is_local_layer(c, 3));
    EXPECT_TRUE(is_local_layer(c, 4));
    EXPECT_TRUE(has_limitation(c, "attention_chunk_size"));
    EXPECT_TRUE(has_limitation(c, "use_qk_norm"));
    EXPECT_TRUE(has_limitation(c, "vision tower"));
}

TEST(HfConfigMoeLayers, Llama4MaverickInterleavesDenseAndMoeLayers) {
    const TransformerConfig c = hf("llama-4-maverick-17b-128e");
    ASSERT_TRUE(c.moe);
    // interleave_moe_layer_step 2: moe_layers = range(1, 48, 2), the odd layers; the even ones dense.
    EXPECT_EQ(c.moe->dense_layers, 24u);
    ASSERT_EQ(c.moe->dense_pattern.size(), 48u);
    EXPECT_TRUE(is_dense_mlp_layer(c, 0));
    EXPECT_FALSE(is_dense_mlp_layer(c, 1));
    EXPECT_EQ(c.ffn, 16384u);  // intermediate_size_mlp
    const ParamCount p = param_count(c);
    // dense layer: attention 62,914,560 + 3·5120·16,384 (251,658,240) + norms 10,240 = 314,583,040
    // MoE layer: 62,914,560 + router 128·5120 (655,360) + 128·125,829,120 (16,106,127,360) + shared 125,829,120
    //            + 10,240 = 16,295,536,640
    // total 24·314,583,040 (7,549,992,960) + 24·16,295,536,640 (391,092,879,360) + 2·1,034,485,760 + 5,120
    //     = 400,711,848,960 — published 400B.
    EXPECT_EQ(p.per_layer.value(), 314583040u);
    EXPECT_EQ(p.moe_per_layer.value(), 16295536640u);
    EXPECT_EQ(p.total.value(), 400711848960u);
    // active: 400,711,848,960 − 24·127·125,829,120 (383,527,157,760) = 17,184,691,200 — published 17B.
    EXPECT_EQ(p.active.value(), 17184691200u);
    EXPECT_FALSE(has_limitation(c, "use_qk_norm"));  // use_qk_norm false in Maverick
    // Maverick's file leaves attn_temperature_tuning out: Llama4TextConfig's default is on, so it is stated (was not).
    EXPECT_TRUE(has_limitation(c, "attn_temperature_tuning: the NoPE layers' position-dependent scaling of Q"));
    // Pipeline stages of 12 layers each hold 6 dense and 6 MoE layers.
    for (const StageLayers& s : pipeline_stages(c, 4)) {
        EXPECT_EQ(s.dense, 6u);
        EXPECT_EQ(s.moe, 6u);
    }
}

TEST(HfConfigMoeLayers, Llama4RefusesWhatItCannotRead) {
    auto l4 = [](const std::string& text_extra) {
        return error_of(fmt::format(
            R"({{"architectures": ["Llama4ForConditionalGeneration"], "text_config": {{"model_type": "llama4_text",
                "hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
                "head_dim": 8, "intermediate_size": 16, "intermediate_size_mlp": 64, "vocab_size": 100,
                "num_local_experts": 4, "num_experts_per_tok": 1{}{}}}}})",
            text_extra,
            // Llama4TextConfig's attention_chunk_size default (8192) is dropped from a re-saved text_config: give it.
            text_extra.find("attention_chunk_size") == std::string::npos ? R"(, "attention_chunk_size": null)" : ""));
    };
    EXPECT_EQ(l4(""), "");
    EXPECT_NE(l4(R"(, "moe_layers": [0, 9])").find("moe_layers"), std::string::npos);
    EXPECT_NE(l4(R"(, "interleave_moe_layer_step": 0)").find("interleave_moe_layer_step"), std::string::npos);
    EXPECT_NE(l4(R"(, "attention_chunk_size": 8, "no_rope_layers": [1, 0])").find("no_rope_layers"), std::string::npos);
    EXPECT_NE(l4(R"(, "attention_chunk_size": 8, "no_rope_layers": [1, 2, 1, 0])").find("no_rope_layers"), std::string::npos);
    EXPECT_NE(l4(R"(, "hidden_act": "gelu")").find("hidden_act"), std::string::npos);
    const std::string e = error_of(
        R"({"architectures": ["Llama4ForConditionalGeneration"], "text_config": {"model_type": "llama4_vision_model"}})");
    EXPECT_NE(e.find("text_config.model_type"), std::string::npos) << e;
    // Llama4ForCausalLM (a text-only checkpoint) reads the same fields at the top level; interleave step 2 and no
    // intermediate_size_mlp: refused naming it, the dense layers need it.
    const std::string t = error_of(
        R"({"architectures": ["Llama4ForCausalLM"], "hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4,
            "intermediate_size": 16, "vocab_size": 100, "num_local_experts": 4, "num_experts_per_tok": 1,
            "interleave_moe_layer_step": 2})");
    EXPECT_NE(t.find("intermediate_size_mlp"), std::string::npos) << t;
}

TEST(HfConfigMoeLayers, Glm45AirParametersMatchThePublishedCount) {
    const TransformerConfig c = hf("glm-4.5-air");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->dense_layers, 1u);  // first_k_dense_replace
    EXPECT_TRUE(c.moe->dense_pattern.empty());
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.o_bias);  // Glm4MoeAttention: o_proj without bias
    EXPECT_FALSE(c.qk_norm);
    const ParamCount p = param_count(c);
    // D 4096, 96 heads / 8 KV heads of 128: attention 4096·(96 + 16)·128 + 96·128·4096 = 58,720,256 + 50,331,648
    //   = 109,051,904, + q/k/v biases (96 + 16)·128 = 14,336 → 109,066,240
    EXPECT_EQ(p.attention.value(), 109066240u);
    // dense layer: 109,066,240 + 3·4096·10,944 (134,479,872) + 8,192 = 243,554,304
    // MoE layer: router 128·4096 + 128 (noaux_tc bias) = 524,416; 128 experts · 3·4096·1408 (17,301,504)
    //   = 2,214,592,512; shared 17,301,504 → 2,232,418,432; + 109,066,240 + 8,192 = 2,341,492,864
    // total 243,554,304 + 45·2,341,492,864 (105,367,178,880) + 2·151,552·4096 (1,241,513,984) + 4,096
    //     = 106,852,251,264 — published 106B (without the MTP layer).
    EXPECT_EQ(p.moe_per_layer.value(), 2341492864u);
    EXPECT_EQ(p.total.value(), 106852251264u);
    // active: 120 of 128 experts idle in 45 layers: − 45·120·17,301,504 (93,428,121,600) = 13,424,129,664;
    // published 12B active, which matches without the embedding and LM head: 13,424,129,664 − 1,241,513,984
    // = 12,182,615,680.
    EXPECT_EQ(p.active.value(), 13424129664u);
    // use_qk_norm (GLM-4.5): per-head q/k RMSNorm, 2·128 weights per layer; the MTP layer is stated.
    std::string text = R"({"architectures": ["Glm4MoeForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 64, "vocab_size": 100,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16, "n_shared_experts": 1,
        "first_k_dense_replace": 1, "use_qk_norm": true, "num_nextn_predict_layers": 1, "attention_bias": true})";
    const TransformerConfig g = parse_hf_config(text, "x");
    EXPECT_TRUE(g.qk_norm);
    EXPECT_TRUE(has_limitation(g, "num_nextn_predict_layers"));
    text.replace(text.find(R"("first_k_dense_replace": 1)"), 26, R"("first_k_dense_replace": 3)");
    EXPECT_NE(error_of(text).find("first_k_dense_replace"), std::string::npos);
}

TEST(HfConfigMoeLayers, OlmoeAndPhimoeReadTheirBlocks) {
    // OLMoE-1B-7B's shape (allenai/OLMoE-1B-7B-0924): D 2048, 16 layers, 16 heads, 64 experts of 1024, top 8,
    // vocab 50,304, untied.
    const TransformerConfig o = parse_hf_config(
        R"({"architectures": ["OlmoeForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 16,
            "num_key_value_heads": 16, "intermediate_size": 1024, "vocab_size": 50304, "num_experts": 64,
            "num_experts_per_tok": 8, "clip_qkv": null, "tie_word_embeddings": false, "hidden_act": "silu"})",
        "x");
    ASSERT_TRUE(o.moe);
    EXPECT_TRUE(o.qk_norm);
    const ParamCount op = param_count(o);
    // attention 4·2048² = 16,777,216 + q/k norm (per head, 2·128) 256; router 64·2048 = 131,072;
    // experts 64·3·2048·1024 = 402,653,184; norms 4,096 → 419,565,824 per layer
    // total 16·419,565,824 (6,713,053,184) + 2·50,304·2048 (206,045,184) + 2,048 = 6,919,100,416 — published 6.9B;
    // active − 16·56·6,291,456 (5,637,144,576) = 1,281,955,840 — published 1.3B active.
    EXPECT_EQ(op.total.value(), 6919100416u);
    EXPECT_EQ(op.active.value(), 1281955840u);
    // The whole-vector q/k norms' weights: 16·(2048 + 2048 − 256) = 61,440 not counted, said.
    EXPECT_TRUE(has_limitation(o, "61440"));
    // Phi-3.5-MoE's shape: D 4096, 32 layers, 32 heads / 8 KV, 16 experts of 6400, top 2, vocab 32,064, LayerNorm,
    // biases on q, k, v, o and the LM head.
    const TransformerConfig p = parse_hf_config(
        R"({"architectures": ["PhimoeForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 6400, "vocab_size": 32064, "num_local_experts": 16,
            "num_experts_per_tok": 2, "attention_bias": true, "lm_head_bias": true, "tie_word_embeddings": false})",
        "x");
    EXPECT_EQ(p.norm, NormKind::layernorm);
    const ParamCount pp = param_count(p);
    // attention 4096·(32 + 16)·128 + 32·128·4096 = 41,943,040 + biases 6,144 + 4,096 = 41,953,280
    // router 16·4096 = 65,536; experts 16·3·4096·6400 = 1,258,291,200; LayerNorms 2·2·4096 = 16,384
    // per layer 1,300,326,400; total 32· (41,610,444,800) + 2·32,064·4096 (262,668,288) + final 8,192
    //   = 41,873,121,280 — published 41.9B; active − 32·14·78,643,200 = 6,640,967,680 — published 6.6B.
    EXPECT_EQ(pp.total.value(), 41873121280u);
    EXPECT_EQ(pp.active.value(), 6640967680u);
    EXPECT_TRUE(has_limitation(p, "lm_head_bias"));
    // Remote-code spelling of the class (microsoft/Phi-3.5-MoE-instruct's config.json) reads the same.
    EXPECT_EQ(error_of(R"({"architectures": ["PhiMoEForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 16, "vocab_size": 100, "num_local_experts": 4,
        "num_experts_per_tok": 2})"),
              "");
}

TEST(HfConfigMoeLayers, QwenVlWrappersReadTheLanguageModel) {
    // Qwen2.5-VL before transformers 4.53: the language model's fields at the top level (Qwen2: q/k/v biases).
    const TransformerConfig a = parse_hf_config(
        R"({"architectures": ["Qwen2_5_VLForConditionalGeneration"], "model_type": "qwen2_5_vl", "hidden_size": 32,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 64,
            "vocab_size": 100, "vision_config": {"depth": 32}})",
        "x");
    EXPECT_TRUE(a.qkv_bias);
    EXPECT_TRUE(has_limitation(a, "vision tower"));
    // Qwen3-VL: text_config of model_type qwen3_vl_text, read as Qwen3 (q/k norm).
    const TransformerConfig b = parse_hf_config(
        R"({"architectures": ["Qwen3VLForConditionalGeneration"], "text_config": {"model_type": "qwen3_vl_text",
            "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8,
            "intermediate_size": 64, "vocab_size": 100}})",
        "x");
    EXPECT_TRUE(b.qk_norm);
    EXPECT_NE(error_of(R"({"architectures": ["Qwen3VLForConditionalGeneration"], "hidden_size": 32})").find("text_config"),
              std::string::npos);
}
