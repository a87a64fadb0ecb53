// Hugging Face config.json → TransformerConfig, MoE and MLA: parameter counts, expert traffic and the
// latent KV cache, each expected value derived by hand from the published configs
// (tests/data/models/*.config.json) in the comments.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/model_preset.h"
#include "bwacct/text_file.h"
#include "bwacct/transformer.h"
#include "hf_test_util.h"

using namespace bwacct;
using bwacct_test::error_of;
using bwacct_test::has_limitation;
using bwacct_test::hf;
using bwacct_test::model_file;

namespace {

LayerRun decode(std::uint64_t batch, std::uint64_t context) {
    LayerRun r;
    r.phase = Phase::decode;
    r.batch = batch;
    r.seq = 1;
    r.context = context;
    return r;
}

const LayerOp& find(const std::vector<LayerOp>& ops, const std::string& name) {
    for (const LayerOp& o : ops)
        if (o.name == name)
            return o;
    throw std::runtime_error("no op " + name);
}

}  // namespace

TEST(HfConfig, Llama3_8bParametersAndShapesMatchThePreset) {
    const TransformerConfig c = hf("llama-3-8b");
    EXPECT_EQ(c.hidden, 4096u);
    EXPECT_EQ(c.kv_heads, 8u);
    EXPECT_EQ(c.ffn, 14336u);
    EXPECT_FALSE(c.moe);
    EXPECT_FALSE(c.mla);
    EXPECT_TRUE(c.limitations.empty());
    // 128,256·4096 (525,336,576) embedding
    // + 32 · [4096·(32 + 2·8)·128 + 32·128·4096 = 41,943,040 attention
    //         + 3·4096·14,336 = 176,160,768 MLP + 2·4096 = 8,192 norms] = 32 · 218,112,000 = 6,979,584,000
    // + 4096 final norm + 525,336,576 LM head = 8,030,261,248
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.total.value(), 8030261248u);
    EXPECT_EQ(p.active.value(), 8030261248u);
    // The same ops, to the byte, as the hand-written preset.
    const TransformerConfig preset = load_model_preset("llama3-8b", "--preset");
    const auto a = transformer_layer_ops(c, decode(8, 4096)), b = transformer_layer_ops(preset, decode(8, 4096));
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].name, b[i].name);
        EXPECT_EQ(a[i].cost.flops, b[i].cost.flops) << a[i].name;
        EXPECT_EQ(a[i].cost.bytes(), b[i].cost.bytes()) << a[i].name;
    }
}

TEST(HfConfig, Mixtral8x7bTotalAndActiveParameters) {
    const TransformerConfig c = hf("mixtral-8x7b");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->experts, 8u);
    EXPECT_EQ(c.moe->top_k, 2u);
    EXPECT_EQ(c.moe->expert_ffn, 14336u);
    const ParamCount p = param_count(c);
    // per layer: attention 4096·(32 + 16)·128 + 32·128·4096 = 41,943,040
    //            router 8·4096 = 32,768; one expert 3·4096·14,336 = 176,160,768; 8 experts 1,409,286,144
    //            norms 2·4096 = 8,192                         → 1,451,270,144
    // total = 32 · 1,451,270,144 (46,440,644,608) + embedding 32,000·4096 (131,072,000)
    //         + final norm 4096 + LM head 131,072,000 = 46,702,792,704
    EXPECT_EQ(p.expert.value(), 176160768u);
    EXPECT_EQ(p.moe_per_layer.value(), 1451270144u);
    EXPECT_EQ(p.total.value(), 46702792704u);
    // active: 6 of 8 experts idle per layer: 46,702,792,704 − 32·6·176,160,768 (33,822,867,456) = 12,879,925,248
    EXPECT_EQ(p.active.value(), 12879925248u);
    // The shipped preset says the same.
    EXPECT_EQ(param_count(load_model_preset("mixtral-8x7b", "--preset")).total.value(), 46702792704u);
}

TEST(HfConfig, DeepSeekV3TotalAndActiveParametersWithoutTheMtpModule) {
    const TransformerConfig c = hf("deepseek-v3");
    ASSERT_TRUE(c.moe && c.mla);
    const ParamCount p = param_count(c);
    // MLA attention per layer (D 7168, H 128, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128):
    //   q_a 7168·1536 = 11,010,048 + q_a_norm 1536 + q_b 1536·128·192 = 37,748,736
    //   + kv_a 7168·(512 + 64) = 4,128,768 + kv_a_norm 512 + kv_b 512·128·(128 + 128) = 16,777,216
    //   + o 128·128·7168 = 117,440,512                                              = 187,107,328
    EXPECT_EQ(p.attention.value(), 187107328u);
    // norms 2·7168 = 14,336; dense MLP 3·7168·18,432 = 396,361,728 (layers 0–2)
    // MoE MLP: router 256·7168 + 256 (noaux_tc bias) = 1,835,264; expert 3·7168·2048 = 44,040,192;
    //          256 experts 11,274,289,152; shared 44,040,192            → 11,320,164,608
    EXPECT_EQ(p.router.value(), 1835264u);
    EXPECT_EQ(p.moe_mlp.value(), 11320164608u);
    EXPECT_EQ(p.dense_layers, 3u);
    EXPECT_EQ(p.moe_layers, 58u);
    // total = embedding 129,280·7168 (926,679,040) + LM head 926,679,040 + final norm 7168
    //       + 3 · (187,107,328 + 14,336 + 396,361,728) = 3 · 583,483,392 = 1,750,450,176
    //       + 58 · (187,107,328 + 14,336 + 11,320,164,608) = 58 · 11,507,286,272 = 667,422,603,776
    //       = 671,026,419,200
    EXPECT_EQ(p.total.value(), 671026419200u);
    // active: 248 of 256 routed experts idle in each of 58 layers:
    //   671,026,419,200 − 58·248·44,040,192 (633,474,121,728) = 37,552,297,472 (≈ 37.5 B)
    EXPECT_EQ(p.active.value(), 37552297472u);
    EXPECT_EQ(param_count(load_model_preset("deepseek-v3", "--preset")).total.value(), 671026419200u);
    // Read and said, not modelled: the MTP module, the fp8 checkpoint's dynamic activations, and its block scales'
    // dtype (fp32 here, as DeepSeek-V3 stores them; config.json does not say).
    ASSERT_EQ(c.limitations.size(), 3u);
    EXPECT_TRUE(has_limitation(c, "one fp32 scale per 128×128 block counted"));
}

TEST(HfConfig, GptOss120bParametersSlidingLayersAndLimitations) {
    const TransformerConfig c = hf("gpt-oss-120b");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->experts, 128u);
    EXPECT_EQ(c.moe->top_k, 4u);
    EXPECT_EQ(c.moe->expert_ffn, 2880u);
    EXPECT_TRUE(c.moe->router_bias);
    EXPECT_EQ(head_dim(c), 64u);  // given: 64 · 64 = 4096 ≠ hidden 2880
    // mxfp4 experts: 4-bit e2m1 + one 8-bit e8m0 scale per 32 (4.25 bits per weight)
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::mxfp4);
    EXPECT_EQ(c.weight_format->group, 32u);
    // layer_types: 18 × [sliding, full], window 128
    EXPECT_EQ(c.sliding_window, 128u);
    ASSERT_EQ(c.local_layers.size(), 36u);
    EXPECT_TRUE(c.local_layers[0]);
    EXPECT_FALSE(c.local_layers[1]);
    const ParamCount p = param_count(c);
    // attention 2880·(64 + 2·8)·64 + 64·64·2880 = 26,542,080 + q/k/v biases 80·64 = 5,120 + o bias 2880 = 26,550,080
    EXPECT_EQ(p.attention.value(), 26550080u);
    // router 128·2880 + 128 (bias) = 368,768; one expert 3·2880·2880 = 24,883,200
    EXPECT_EQ(p.router.value(), 368768u);
    EXPECT_EQ(p.expert.value(), 24883200u);
    // per layer 26,550,080 + 368,768 + 128·24,883,200 (3,185,049,600) + norms 2·2880 = 3,211,974,208
    EXPECT_EQ(p.moe_per_layer.value(), 3211974208u);
    // total 36·3,211,974,208 (115,631,071,488) + embedding and LM head 2·201,088·2880 (1,158,266,880) + 2880
    //     = 116,789,341,248; with the expert biases left out (36·128·(2·2880 + 2880) = 39,813,120) the model
    //     card's 116.83 B: 116,829,154,368
    EXPECT_EQ(p.total.value(), 116789341248u);
    // active: 124 of 128 experts idle in 36 layers: − 36·124·24,883,200 (111,078,604,800) = 5,710,736,448;
    // less the embedding 579,133,440 = 5,131,603,008, the card's 5.13 B active (it leaves the embedding out)
    EXPECT_EQ(p.active.value(), 5710736448u);
    // Said, not modelled: the clamped GLU, attention sinks, expert biases. The bf16 attention of the mxfp4 checkpoint
    // (modules_to_not_convert "model.layers.*.self_attn") is modelled: TransformerConfig::kept.
    ASSERT_EQ(c.limitations.size(), 3u);
    std::string all;
    for (const std::string& l : c.limitations)
        all += l + "\n";
    for (const char* what : {"swiglu_limit", "attention sinks", "expert biases", "1105920 parameters per layer"})
        EXPECT_NE(all.find(what), std::string::npos) << what << " in:\n" << all;
    EXPECT_TRUE(c.kept.attention);
}

TEST(HfConfig, ExpectedExpertsTouchedUnderUniformRouting) {
    // E·(1 − (1 − k/E)^T): Mixtral batch 1: 8·(1 − 6/8) = 2; batch 16: 8·(1 − 0.75^16) = 7.91982
    EXPECT_DOUBLE_EQ(expected_experts_touched(8, 2, 1), 2.0);
    EXPECT_NEAR(expected_experts_touched(8, 2, 16), 7.920, 0.0005);
    EXPECT_NEAR(expected_experts_touched(8, 2, 16), 8 * (1 - std::pow(0.75, 16)), 1e-12);
    // many tokens: every expert
    EXPECT_NEAR(expected_experts_touched(256, 8, 4096), 256.0, 1e-6);
}

TEST(HfConfig, MixtralDecodeReadsTwoExpertsAtBatch1AndTheExpectationAtBatch16) {
    const TransformerConfig c = hf("mixtral-8x7b");
    // one expert's gate+up weights: 4096·(2·14,336)·2 B = 234,881,024 B; down 14,336·4096·2 = 117,440,512 B
    {
        const auto ops = transformer_layer_ops(c, decode(1, 4096));
        const Cost& gu = find(ops, "experts_gate_up").cost;
        // read: A [1·2, 4096] = 2·4096·2 = 16,384 B + 2 experts · 234,881,024 = 469,762,048 → 469,778,432
        EXPECT_EQ(gu.bytes_read, 469778432u);
        // FLOPs from tokens · k = 2 rows: 2·2·4096·28,672 = 469,762,048
        EXPECT_EQ(gu.flops, 469762048u);
        const Cost& dn = find(ops, "experts_down").cost;
        // read: [2, 14,336]·2 = 57,344 B + 2 · 117,440,512 = 234,938,368
        EXPECT_EQ(dn.bytes_read, 234938368u);
    }
    {
        const auto ops = transformer_layer_ops(c, decode(16, 4096));
        const Cost& gu = find(ops, "experts_gate_up").cost;
        // 32 rows: A 32·4096·2 = 262,144 B + round(7.919819233939052 · 234,881,024) = 1,860,215,252 B
        EXPECT_EQ(gu.bytes_read, 262144u + 1860215252u);
        EXPECT_EQ(gu.flops, 7516192768u);  // 2·32·4096·28,672
        const Cost& dn = find(ops, "experts_down").cost;
        // 32·14,336·2 = 917,504 B + round(7.919819233939052 · 117,440,512) = 930,107,626 B
        EXPECT_EQ(dn.bytes_read, 917504u + 930107626u);
        // --experts-touched 4 overrides: 262,144 + 4·234,881,024 = 939,786,240
        LayerRun r = decode(16, 4096);
        r.experts_touched = 4;
        EXPECT_EQ(find(transformer_layer_ops(c, r), "experts_gate_up").cost.bytes_read, 939786240u);
        // the router: [16, 4096] × [4096, 8]
        EXPECT_EQ(find(ops, "router").cost.flops, 2u * 16 * 4096 * 8);
    }
}

TEST(HfConfig, ExpertsTouchedOutsideItsRangeIsRefused) {
    const TransformerConfig c = hf("mixtral-8x7b");
    LayerRun r = decode(1, 128);
    r.experts_touched = 3;  // one token touches exactly k = 2
    EXPECT_THROW((void)transformer_layer_ops(c, r), InputError);
    r.experts_touched = 1;  // fewer than k
    EXPECT_THROW((void)transformer_layer_ops(c, r), InputError);
    r = decode(64, 128);
    r.experts_touched = 9;  // more than E
    EXPECT_THROW((void)transformer_layer_ops(c, r), InputError);
    r.experts_touched = 5;
    EXPECT_THROW((void)transformer_layer_ops(hf("llama-3-8b"), r), InputError);  // a dense model
}

TEST(HfConfig, DeepSeekV3LatentKvCacheAndAbsorbedDecodeAttention) {
    const TransformerConfig c = hf("deepseek-v3");
    // per token per layer: kv_lora 512 + rope 64 = 576 elements, the same on every TP rank
    EXPECT_EQ(kv_elems_per_token(c, 1), 576u);
    EXPECT_EQ(kv_elems_per_token(c, 8), 576u);
    // per token, whole model, bf16: 61 · 576 · 2 = 70,272 B
    const LayerMemory m = layer_memory(c, decode(1, 1));
    EXPECT_EQ((Exact(c.layers) * m.kv_cache).value(), 61u * (512 + 64) * 2);
    EXPECT_EQ((Exact(c.layers) * m.kv_cache).value(), 70272u);

    const auto ops = transformer_layer_ops(c, decode(1, 4096));
    const Cost& a = find(ops, "attention").cost;
    // scores 2·B·H·pairs·(512 + 64) = 2·1·128·4096·576 = 603,979,776; values 2·1·128·4096·512 = 536,870,912
    EXPECT_EQ(a.flops, 1140850688u);
    // read: absorbed Q 1·128·576·2 = 147,456 + latent cache 4096·576·2 = 4,718,592; write 128·512·2 = 131,072
    EXPECT_EQ(a.bytes_read, 4866048u);
    EXPECT_EQ(a.bytes_written, 131072u);
    // W_UK absorbed into the query: 128 heads × [1, 128] × [128, 512]: 2·128·128·512 = 16,777,216 FLOPs
    EXPECT_EQ(find(ops, "q_absorb").cost.flops, 16777216u);
    // W_UV after attention: 128 × [1, 512] × [512, 128]
    EXPECT_EQ(find(ops, "v_absorb").cost.flops, 16777216u);
    // the cache write: kv_a_proj's output [1, 576]
    EXPECT_EQ(find(ops, "kv_a_proj").cost.bytes_written, 576u * 2);
    // a MoE layer of 256 experts, 8 per token, plus one shared expert
    EXPECT_EQ(find(ops, "experts_gate_up").cost.flops, 2u * 8 * 7168 * 4096);
    EXPECT_EQ(find(ops, "shared_gate_up_proj").cost.flops, 2u * 1 * 7168 * 4096);
    // the dense-first layers have the dense MLP of 18,432
    EXPECT_EQ(find(transformer_layer_ops(c, decode(1, 4096), true), "gate_up_proj").cost.flops, 2u * 7168 * 36864);
}

TEST(HfConfig, MlaTrainingAndNaiveAttentionAreRefused) {
    const TransformerConfig c = hf("deepseek-v3");
    LayerRun r;
    r.phase = Phase::training;
    r.seq = 128;
    r.context = 128;
    EXPECT_THROW((void)transformer_layer_ops(c, r), InputError);
    LayerRun n = decode(1, 128);
    n.attention = AttentionImpl::naive;
    EXPECT_THROW((void)transformer_layer_ops(c, n), InputError);
}

TEST(HfConfig, UnknownArchitectureIsNamed) {
    const std::string e = error_of(R"({"architectures": ["FalconForCausalLM"], "hidden_size": 4096})");
    EXPECT_NE(e.find("FalconForCausalLM"), std::string::npos) << e;
    EXPECT_NE(e.find("x.json"), std::string::npos) << e;
    // A diffusers config names its class instead: WanModel is read (tests/unit/test_dit.cpp), any other is named.
    const std::string w = error_of(R"({"_class_name": "FluxTransformer2DModel", "num_layers": 19})");
    EXPECT_NE(w.find("FluxTransformer2DModel"), std::string::npos) << w;
    EXPECT_NE(w.find("WanModel"), std::string::npos) << w;
    EXPECT_NE(error_of(R"({"hidden_size": 4096})").find("\"architectures\""), std::string::npos);
}

TEST(HfConfig, MissingOrMalformedFieldIsNamed) {
    const std::string base = R"("architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "num_attention_heads": 4, )"
                             R"("intermediate_size": 64, "vocab_size": 100)";
    EXPECT_NE(error_of("{" + base + "}").find("\"hidden_size\""), std::string::npos);
    EXPECT_NE(error_of("{" + base + R"(, "hidden_size": "4096"})").find("\"hidden_size\""), std::string::npos);
    EXPECT_NE(error_of("{" + base + R"(, "hidden_size": -32})").find("\"hidden_size\""), std::string::npos);
    EXPECT_NE(error_of("{" + base + R"(, "hidden_size": 32, "num_key_value_heads": 3})").find("num_key_value_heads"),
              std::string::npos);
    EXPECT_NE(error_of("{" + base + R"(, "hidden_size": 32, "tie_word_embeddings": 1})").find("tie_word_embeddings"),
              std::string::npos);
    EXPECT_EQ(error_of("{" + base + R"(, "hidden_size": 32})"), "");
    EXPECT_NE(error_of("[1, 2]").find("object"), std::string::npos);
    EXPECT_NE(error_of("{").find("not valid JSON"), std::string::npos);
}

TEST(HfConfig, MathChangingFieldsThatAreNotModelledAreRefused) {
    const std::string base = R"("num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 32, )"
                             R"("intermediate_size": 64, "vocab_size": 100)";
    auto arch = [&](const char* a, const std::string& extra) {
        return error_of(fmt::format(R"({{"architectures": ["{}"], {}{}}})", a, base, extra));
    };
    // mlp_bias: counted for Llama and Granite (whose MLPs read it), refused where the reference MLP has no bias.
    EXPECT_NE(arch("MistralForCausalLM", R"(, "mlp_bias": true)").find("mlp_bias"), std::string::npos);
    EXPECT_NE(arch("LlamaForCausalLM", R"(, "hidden_act": "relu")").find("hidden_act"), std::string::npos);
    // MoE on some layers is modelled (below); a layer index past the last layer is refused naming the field.
    EXPECT_NE(arch("Qwen3MoeForCausalLM", R"(, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16, )"
                                          R"("mlp_only_layers": [2])")
                  .find("mlp_only_layers"),
              std::string::npos);
    EXPECT_NE(arch("Qwen3MoeForCausalLM", R"(, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16, )"
                                          R"("decoder_sparse_step": 0)")
                  .find("decoder_sparse_step"),
              std::string::npos);
    EXPECT_NE(arch("MixtralForCausalLM", R"(, "num_local_experts": 2, "num_experts_per_tok": 3)").find("num_experts_per_tok"),
              std::string::npos);
    EXPECT_NE(arch("MixtralForCausalLM", R"(, "num_experts_per_tok": 2)").find("num_local_experts"), std::string::npos);
    // A sliding window is modelled (issue 13): every Mistral layer is local, no limitation left.
    const TransformerConfig m =
        parse_hf_config(fmt::format(R"({{"architectures": ["MistralForCausalLM"], {}, "sliding_window": 4096}})", base), "x");
    EXPECT_TRUE(m.limitations.empty());
    EXPECT_EQ(m.sliding_window, 4096u);
    EXPECT_TRUE(is_local_layer(m, 0));
    // Unknown quantisation methods are refused naming the field.
    EXPECT_NE(arch("LlamaForCausalLM", R"(, "quantization_config": {"quant_method": "hqq"})").find("quant_method"),
              std::string::npos);
}

TEST(HfConfig, QwenAndGemmaFamilies) {
    const std::string base = R"("num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, )"
                             R"("hidden_size": 32, "intermediate_size": 64, "vocab_size": 100)";
    // Qwen2: q, k, v biases: (4 + 2·2)·8 = 64 more parameters per layer than Llama
    const TransformerConfig llama = parse_hf_config(R"({"architectures": ["LlamaForCausalLM"], )" + base + "}", "x");
    const TransformerConfig qwen2 = parse_hf_config(R"({"architectures": ["Qwen2ForCausalLM"], )" + base + "}", "x");
    EXPECT_EQ(param_count(qwen2).attention.value() - param_count(llama).attention.value(), 64u);
    // Qwen3: explicit head_dim 16 and q/k norms (2·16 = 32 parameters per layer); the qk_norm op
    const TransformerConfig qwen3 =
        parse_hf_config(R"({"architectures": ["Qwen3ForCausalLM"], "head_dim": 16, )" + base + "}", "x");
    EXPECT_TRUE(qwen3.qk_norm);
    // 32·(4 + 4)·16 + 4·16·32 + 2·16 = 4096 + 2048 + 32 = 6176
    EXPECT_EQ(param_count(qwen3).attention.value(), 6176u);
    (void)find(transformer_layer_ops(qwen3, decode(1, 8)), "qk_norm");
    // Gemma 2: tied embeddings by default, 4 norms per block, GELU-gated MLP
    const TransformerConfig g2 = parse_hf_config(
        R"({"architectures": ["Gemma2ForCausalLM"], "head_dim": 8, "hidden_activation": "gelu_pytorch_tanh", )" + base + "}",
        "x");
    EXPECT_TRUE(g2.tied_embeddings);
    EXPECT_EQ(g2.block_norms, 4u);
    const ParamCount p = param_count(g2);
    // 100·32 embedding + 2 · [32·8·8 + 4·8·32 = 3072 attention + 3·32·64 = 6144 MLP + 4·32 norms] + 32, no LM head
    EXPECT_EQ(p.total.value(), 3200u + 2 * (3072 + 6144 + 128) + 32);
    const auto ops = transformer_layer_ops(g2, decode(1, 8));
    (void)find(ops, "post_attn_norm");
    (void)find(ops, "post_mlp_norm");
    EXPECT_EQ(find(ops, "gelu_mul").cost.flops, 64u * 10);  // [1, 64] · (GELU 9 + the multiply 1)
}

TEST(HfConfig, Qwen3MoeMapsOntoTheMoeModelAndMatchesTheModelCard) {
    // The shape fields of Qwen/Qwen3-30B-A3B's config.json (model card: 30.5 B total, 3.3 B activated).
    const TransformerConfig c = parse_hf_config(
        R"({"architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 2048, "intermediate_size": 6144,
            "moe_intermediate_size": 768, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
            "num_hidden_layers": 48, "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936,
            "tie_word_embeddings": false, "decoder_sparse_step": 1, "mlp_only_layers": [], "hidden_act": "silu"})",
        "x");
    ASSERT_TRUE(c.moe);
    EXPECT_TRUE(c.qk_norm);
    const ParamCount p = param_count(c);
    // per layer: attention 2048·(32 + 8)·128 + 32·128·2048 + q/k norms 2·128 = 18,874,624
    //            router 128·2048 = 262,144; 128 experts · 3·2048·768 (4,718,592) = 603,979,776; norms 4096
    //            = 623,120,640; · 48 = 29,909,790,720
    // + embedding 151,936·2048 = 311,164,928 + LM head 311,164,928 + final norm 2048 = 30,532,122,624
    EXPECT_EQ(p.total.value(), 30532122624u);
    // active: − 48 · 120 · 4,718,592 (27,179,089,920) = 3,353,032,704
    EXPECT_EQ(p.active.value(), 3353032704u);
}

// Published configs of the kinds bwacct is judged on (tests/data/models/*.config.json, provenance in each
// .src.txt): parameter counts by hand from the file's numbers, against the model card's figure.

TEST(HfConfig, Llama32_3bTiedEmbeddingsAndExplicitHeadDim) {
    const TransformerConfig c = hf("llama-3.2-3b");
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(head_dim(c), 128u);
    // D 3072, 28 layers, 24 query / 8 KV heads of 128, ffn 8192, V 128,256, tied:
    //   attention 3072·(24 + 16)·128 + 24·128·3072 = 15,728,640 + 9,437,184 = 25,165,824
    //   MLP 3·3072·8192 = 75,497,472; norms 2·3072 = 6144 → 100,669,440 per layer · 28 = 2,818,744,320
    //   + embedding 128,256·3072 = 394,002,432 (no LM head) + final norm 3072 = 3,212,749,824 (model card 3.21 B)
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.lm_head.value(), 0u);
    EXPECT_EQ(p.total.value(), 3212749824u);
}

TEST(HfConfig, Qwen25_7bQkvBiasesMatchTheModelCard) {
    const TransformerConfig c = hf("qwen2.5-7b");
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_TRUE(c.local_layers.empty());  // "use_sliding_window": false: no window though "sliding_window" is given
    EXPECT_EQ(c.sliding_window, 0u);
    // D 3584, 28 layers, 28 / 4 heads of 128, ffn 18,944, V 152,064, untied:
    //   attention 3584·(28 + 8)·128 + 28·128·3584 = 16,515,072 + 12,845,056 = 29,360,128, + q, k, v biases 36·128 = 4608
    //   MLP 3·3584·18,944 = 203,685,888; norms 7168 → 233,057,792 · 28 = 6,525,618,176 (model card: 6.53 B non-embedding)
    //   + 2 · 152,064·3584 (544,997,376) + 3584 = 7,615,616,512 (model card 7.61 B)
    EXPECT_EQ(param_count(c).total.value(), 7615616512u);
}

TEST(HfConfig, Phi3MiniReadsAsLlamaWithItsSlidingWindow) {
    const TransformerConfig c = hf("phi-3-mini-4k");
    // Phi3ForCausalLM's fused qkv_proj / gate_up_proj hold Llama's matrices: D 3072, 32 layers, 32 heads (MHA), ffn 8192:
    //   attention 4·3072² = 37,748,736; MLP 3·3072·8192 = 75,497,472; norms 6144 → 113,252,352 · 32 = 3,624,075,264
    //   + 2 · 32,064·3072 (98,500,608) + 3072 = 3,821,079,552 (model card 3.8 B)
    EXPECT_EQ(param_count(c).total.value(), 3821079552u);
    // "sliding_window": 2047 on every layer, as transformers' Phi3Attention applies it
    EXPECT_EQ(c.sliding_window, 2047u);
    EXPECT_TRUE(is_local_layer(c, 0));
    EXPECT_TRUE(is_local_layer(c, 31));
}

TEST(HfConfig, Mixtral8x22bTotalAndActive) {
    const ParamCount p = param_count(hf("mixtral-8x22b"));
    // D 6144, 56 layers, 48 / 8 heads of 128, 8 experts of ffn 16,384, top-2, V 32,000:
    //   attention 6144·(48 + 16)·128 + 48·128·6144 = 50,331,648 + 37,748,736 = 88,080,384
    //   router 8·6144 = 49,152; expert 3·6144·16,384 = 301,989,888; norms 12,288
    //   layer = 88,080,384 + 49,152 + 8·301,989,888 + 12,288 = 2,504,060,928 · 56 = 140,227,411,968
    //   + 2 · 32,000·6144 (196,608,000) + 6144 = 140,620,634,112 (≈ 141 B)
    EXPECT_EQ(p.total.value(), 140620634112u);
    // active: − 56 · 6 · 301,989,888 (101,468,602,368) = 39,152,031,744 (≈ 39 B)
    EXPECT_EQ(p.active.value(), 39152031744u);
}

TEST(HfConfig, DeepSeekV2LiteMatchesItsTensorListAndIgnoresTheV5HeadDim) {
    // transformers 5 writes "head_dim": 64 (= qk_rope_head_dim) into DeepseekV2Config; MLA's head size is nope + rope.
    const TransformerConfig c = hf("deepseek-v2-lite-chat");
    ASSERT_TRUE(c.mla && c.moe);
    EXPECT_EQ(c.head_dim, 192u);
    EXPECT_EQ(c.mla->q_lora_rank, 0u);  // "q_lora_rank": null: Q projected directly
    const ParamCount p = param_count(c);
    // D 2048, 16 heads, no q LoRA, kv_lora 512, nope 128, rope 64, v 128:
    //   q 2048·16·192 = 6,291,456 + kv_a 2048·576 = 1,179,648 + kv_a_norm 512 + kv_b 512·16·256 = 2,097,152
    //   + o 16·128·2048 = 4,194,304 = 13,763,072
    EXPECT_EQ(p.attention.value(), 13763072u);
    // layer 0 dense: 13,763,072 + 3·2048·10,944 (67,239,936) + norms 4096 = 81,007,104
    // MoE layers: router 64·2048 = 131,072 + 64 · 3·2048·1408 (8,650,752) = 553,648,128 + shared 3·2048·2816 = 17,301,504
    //   = 571,080,704; layer 13,763,072 + 571,080,704 + 4096 = 584,847,872 · 26 = 15,206,044,672
    // + 2 · 102,400·2048 (209,715,200) + 2048 = 15,706,484,224: the parameters of the checkpoint's tensor list exactly
    EXPECT_EQ(p.total.value(), 15706484224u);
    // active: − 26 · 58 · 8,650,752 (13,045,334,016) = 2,661,150,208; the model card's 2.4 B leaves out the
    // embedding table (a lookup): 2,661,150,208 − 209,715,200 = 2,451,435,008
    EXPECT_EQ(p.active.value(), 2661150208u);
}

TEST(HfConfig, DeepSeekV2TotalAndActive) {
    const ParamCount p = param_count(hf("deepseek-v2"));
    // D 5120, 128 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128:
    //   q_a 5120·1536 = 7,864,320 + 1536 + q_b 1536·128·192 = 37,748,736 + kv_a 5120·576 = 2,949,120 + 512
    //   + kv_b 512·128·256 = 16,777,216 + o 128·128·5120 = 83,886,080 = 149,227,520
    EXPECT_EQ(p.attention.value(), 149227520u);
    // layer 0: 149,227,520 + 3·5120·12,288 (188,743,680) + 10,240 = 337,981,440
    // MoE: router 160·5120 = 819,200 + 160 · 23,592,960 (3·5120·1536) = 3,774,873,600 + 2 shared 47,185,920
    //   → layer 149,227,520 + 3,822,878,720 + 10,240 = 3,972,116,480 · 59 = 234,354,872,320
    // + 2 · 102,400·5120 (524,288,000) + 5120 = 235,741,434,880 (model card 236 B)
    EXPECT_EQ(p.total.value(), 235741434880u);
    // active: − 59 · 154 · 23,592,960 (214,365,634,560) = 21,375,800,320; less the embedding 524,288,000:
    // 20,851,512,320 (model card 21 B)
    EXPECT_EQ(p.active.value(), 21375800320u);
}

TEST(HfConfig, Qwen2MoeSharedExpertAsWholeExperts) {
    const TransformerConfig c = hf("qwen1.5-moe-a2.7b");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->experts, 60u);
    EXPECT_EQ(c.moe->top_k, 4u);
    EXPECT_EQ(c.moe->shared_experts, 4u);  // shared_expert_intermediate_size 5632 = 4 · moe_intermediate_size 1408
    EXPECT_TRUE(c.qkv_bias);
    const ParamCount p = param_count(c);
    // D 2048, 24 layers, 16 heads of 128 (MHA): attention 4·2048² = 16,777,216 + q, k, v biases 48·128 = 6144
    // MoE: router 60·2048 = 122,880 + 60 · 3·2048·1408 (8,650,752) = 519,045,120 + shared 3·2048·5632 = 34,603,008
    // layer = 16,783,360 + 553,771,008 + norms 4096 = 570,558,464 · 24 = 13,693,403,136
    // + 2 · 151,936·2048 (311,164,928) + 2048 = 14,315,735,040 (model card 14.3 B; the shared expert's gate,
    // 24·2048 = 49,152 parameters, is a stated limitation)
    EXPECT_EQ(p.total.value(), 14315735040u);
    // active: − 24 · 56 · 8,650,752 (11,626,610,688) = 2,689,124,352 (model card 2.7 B)
    EXPECT_EQ(p.active.value(), 2689124352u);
    bool gate_said = false;
    for (const std::string& l : c.limitations)
        gate_said = gate_said || l.find("shared expert's gate") != std::string::npos;
    EXPECT_TRUE(gate_said);
    // A shared expert that is no whole number of experts is refused naming both fields.
    const std::string e = error_of(
        R"({"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 64, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 16, "shared_expert_intermediate_size": 40})");
    EXPECT_NE(e.find("shared_expert_intermediate_size"), std::string::npos) << e;
    EXPECT_NE(e.find("moe_intermediate_size"), std::string::npos) << e;
}

TEST(HfConfig, Gemma3MultimodalWrapperReadsItsTextConfig) {
    const TransformerConfig c = hf("gemma-3-12b-it");
    EXPECT_EQ(c.hidden, 3840u);
    EXPECT_EQ(c.layers, 48u);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_TRUE(c.qk_norm);
    EXPECT_EQ(c.sliding_window, 1024u);
    EXPECT_TRUE(is_local_layer(c, 0));
    EXPECT_FALSE(is_local_layer(c, 5));  // "layer_types": every sixth layer global
    // D 3840, 16 / 8 heads of 256, ffn 15,360, V 262,208, tied:
    //   attention 3840·(16 + 16)·256 + 16·256·3840 = 31,457,280 + 15,728,640 = 47,185,920 + q/k norms 512
    //   MLP 3·3840·15,360 = 176,947,200; 4 norms 15,360 → 224,148,992 · 48 = 10,759,151,616
    //   + embedding 262,208·3840 = 1,006,878,720 + 3840 = 11,766,034,176; the Hub's 12.2 B adds the SigLIP
    //   vision tower and projector (≈ 0.42 B), which the report says are not counted
    EXPECT_EQ(param_count(c).total.value(), 11766034176u);
    ASSERT_FALSE(c.limitations.empty());
    EXPECT_NE(c.limitations.front().find("vision"), std::string::npos);
}

TEST(HfConfig, Gemma3TextConfigDefaultsFillWhatGooglesFilesLeaveOut) {
    // Google's gemma-3-4b-it config.json gives only these text_config fields; transformers fills the rest from
    // Gemma3TextConfig (vocab 262,208, 8 heads, 4 KV heads, head_dim 256).
    const TransformerConfig c = parse_hf_config(
        R"({"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3",
            "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
                            "num_hidden_layers": 34, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                            "sliding_window": 1024},
            "vision_config": {"model_type": "siglip_vision_model"}})",
        "x");
    EXPECT_EQ(c.vocab, 262208u);
    EXPECT_EQ(c.heads, 8u);
    EXPECT_EQ(c.kv_heads, 4u);
    EXPECT_EQ(head_dim(c), 256u);
    // attention 2560·(8 + 8)·256 + 8·256·2560 = 10,485,760 + 5,242,880 = 15,728,640 + 512; MLP 3·2560·10,240 = 78,643,200;
    // norms 4·2560 = 10,240 → 94,382,592 · 34 = 3,209,008,128 + 262,208·2560 (671,252,480) + 2560 = 3,880,263,168
    // (the model card's 4.3 B includes the 0.4 B vision tower)
    EXPECT_EQ(param_count(c).total.value(), 3880263168u);
    bool named = false;
    for (const std::string& l : c.limitations)
        named = named || (l.find("vocab_size = 262208") != std::string::npos && l.find("Gemma3TextConfig") != std::string::npos);
    EXPECT_TRUE(named);
    EXPECT_TRUE(is_local_layer(c, 4));
    EXPECT_FALSE(is_local_layer(c, 5));  // no layer_types, no pattern: every sixth layer global
    // transformers >= 4.53 writes the period as "_sliding_window_pattern": read like "sliding_window_pattern"
    const TransformerConfig g = parse_hf_config(
        R"({"architectures": ["Gemma3ForCausalLM"], "hidden_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4,
            "num_key_value_heads": 2, "head_dim": 8, "intermediate_size": 64, "vocab_size": 100, "sliding_window": 16,
            "_sliding_window_pattern": 2})",
        "x");
    EXPECT_TRUE(is_local_layer(g, 0));
    EXPECT_FALSE(is_local_layer(g, 1));
    EXPECT_TRUE(is_local_layer(g, 2));
}

TEST(HfConfig, MultimodalWrappersRefuseWhatTheyCannotRead) {
    // No text_config, or a language model of another kind: refused naming it.
    EXPECT_NE(error_of(R"({"architectures": ["Mistral3ForConditionalGeneration"], "hidden_size": 32})").find("text_config"),
              std::string::npos);
    const std::string e =
        error_of(R"({"architectures": ["Mistral3ForConditionalGeneration"], "text_config": {"model_type": "mistral4"}})");
    EXPECT_NE(e.find("mistral4"), std::string::npos) << e;
    // Mistral3: the text_config is Mistral's; tie_word_embeddings at the top level applies.
    const TransformerConfig m = parse_hf_config(
        R"({"architectures": ["Mistral3ForConditionalGeneration"], "tie_word_embeddings": true,
            "text_config": {"model_type": "mistral", "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
                            "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 64, "vocab_size": 100,
                            "sliding_window": null}})",
        "x");
    EXPECT_TRUE(m.tied_embeddings);
    EXPECT_EQ(head_dim(m), 16u);
    // A wrapper that is not one of the families: one line naming it and the list.
    const std::string l4 = error_of(R"({"architectures": ["Idefics3ForConditionalGeneration"], "text_config": {}})");
    EXPECT_NE(l4.find("Idefics3ForConditionalGeneration"), std::string::npos) << l4;
    EXPECT_NE(l4.find("Gemma3ForConditionalGeneration"), std::string::npos) << l4;
    EXPECT_NE(l4.find("x.json"), std::string::npos) << l4;
}

TEST(HfConfig, DiffusersWanTransformerReadsAsWanModel) {
    const TransformerConfig c = hf("wan2.1-t2v-1.3b-diffusers");
    ASSERT_TRUE(c.dit);
    EXPECT_EQ(c.hidden, 1536u);  // 12 heads · attention_head_dim 128
    EXPECT_EQ(c.heads, 12u);
    EXPECT_EQ(c.layers, 30u);
    // D 1536, F 8960, 30 blocks; Linear(i, o) = i·o + o:
    //   patch 16·4·1536 + 1536 = 99,840; text 4096·1536 + 1536 + 1536² + 1536 = 8,653,824;
    //   time 256·1536 + 1536 + 2,360,832 = 2,755,584; projection 1536·9216 + 9216 = 14,164,992 → 25,674,240
    //   block: attention 2 · (4·2,360,832 + 2·1536) = 18,892,800; ffn 13,771,520 + 13,764,096 = 27,535,616;
    //   norms 2·1536 + 6·1536 = 12,288 → 46,440,704 · 30 = 1,393,221,120
    //   head 1536·64 + 64 + 2·1536 = 101,440 → 1,418,996,800 (named "1.3B", as the 14,288,491,584 model is "14B")
    EXPECT_EQ(param_count(c).total.value(), 1418996800u);
    // image_dim without added_kv_proj_dim is refused (the image cross-attention needs both).
    const std::string e = error_of(
        R"({"_class_name": "WanTransformer3DModel", "num_attention_heads": 2, "attention_head_dim": 8, "num_layers": 1,
            "ffn_dim": 32, "image_dim": 1280})");
    EXPECT_NE(e.find("image_dim"), std::string::npos) << e;
}

TEST(HfConfig, FbgemmFp8IsFp8WithOneFp32ScalePerOutputChannel) {
    // Meta's Llama-3.1-405B-Instruct-FP8 ships "quantization_config": {"quant_method": "fbgemm_fp8", ...}
    // (transformers' FbgemmFp8Linear: fp8 e4m3 weight [N, K], fp32 weight_scale [N, 1]); it was refused before.
    const TransformerConfig c = parse_hf_config(
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 64, "vocab_size": 100,
            "quantization_config": {"quant_method": "fbgemm_fp8", "activation_scale_ub": 1200.0,
                                    "modules_to_not_convert": ["lm_head"]}})",
        "x");
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::fp8_e4m3);
    // a [4096, 1024] weight: 4096·1024 B of fp8 + 1024 fp32 scales (4096 B) = 4,198,400 B
    EXPECT_EQ(format_bytes(*c.weight_format, Exact(4096), Exact(1024)).value(), 4198400u);
    ASSERT_EQ(c.limitations.size(), 1u);  // activations quantised per token: said, not modelled
    EXPECT_NE(c.limitations.front().find("fbgemm_fp8"), std::string::npos);
}

namespace {
// Meta's Llama-3.1-8B config.json with a compressed-tensors quantization_config of the given weights scheme and
// format (llm-compressor's layout: one "group_0" targeting Linear, "ignore": ["lm_head"]).
std::string llama_ct(const std::string& weights, const std::string& format, const std::string& extra = "") {
    std::string text = read_input_file(model_file("llama-3.1-8b"), "test", "a config.json");
    const std::string q = fmt::format(
        R"("quantization_config": {{"quant_method": "compressed-tensors", "format": "{}", "quantization_status": "compressed",
            "config_groups": {{"group_0": {{"targets": ["Linear"], "weights": {},
              "input_activations": {{"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true, "symmetric": true}},
              "output_activations": null}}}},
            "ignore": ["lm_head"], "kv_cache_scheme": null, "sparsity_config": {{}}, "transform_config": {{}}{}}}, )",
        format, weights, extra);
    return text.insert(text.find('{') + 1, q);
}
Exact llama_ct_weight_bytes(const std::string& weights, const std::string& format) {
    LayerRun r = decode(1, 1);
    r.dtype = DType::bf16;
    return weight_bytes_per_rank(parse_hf_config(llama_ct(weights, format), "x"), r);
}
}  // namespace

TEST(HfConfig, CompressedTensorsFp8ChannelIsFp8WithA16BitScalePerOutputChannel) {
    // RedHatAI's "FP8-dynamic" checkpoints: fp8 e4m3 weights, one scale per output channel (stored in the model's
    // bf16), activations quantised per token at each GEMM; the LM head kept in bf16. Refused before.
    const TransformerConfig c = parse_hf_config(
        llama_ct(R"({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true, "dynamic": false})",
                 "float-quantized"),
        "x");
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::fp8_e4m3);
    EXPECT_EQ(param_count(c).total.value(), 8030261248u);  // unchanged: Meta's 8,030,261,248
    ASSERT_EQ(c.limitations.size(), 1u);                   // fp8 activations: said, not modelled
    EXPECT_NE(c.limitations.front().find("--act-dtype fp8"), std::string::npos) << c.limitations.front();
    // Per layer (D 4096, 32 heads + 2·8 KV heads of 128, F 14,336): payload qkv 4096·6144 + o 4096·4096 + 3·4096·14,336
    //   = 25,165,824 + 16,777,216 + 176,160,768 = 218,103,808 B; scales 2 B per output channel:
    //   2·(6144 + 4096 + 2·14,336 + 4096) = 86,016 B; norms 2·4096·2 = 16,384 B → 218,206,208 · 32 = 6,982,598,656
    // + embedding and LM head in bf16 2 · 128,256·4096·2 = 2,101,346,304 + final norm 8,192 = 9,083,953,152 B
    EXPECT_EQ(
        llama_ct_weight_bytes(R"({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true})", "float-quantized")
            .value(),
        9083953152u);
}

TEST(HfConfig, CompressedTensorsW4A16IsInt4PackedWithGroupScales) {
    // RedHatAI's "quantized.w4a16": int4 symmetric, group 128, packed eight to an int32 (pack-quantized).
    // Per layer: payload 218,103,808 / 2 = 109,051,904 B; one bf16 scale per 128 along K:
    //   qkv 32·6144·2 = 393,216, o 32·4096·2 = 262,144, gate and up 32·14,336·2 = 917,504 each, down 112·4096·2 = 917,504
    //   → 3,407,872 B; norms 16,384 → 112,476,160 · 32 = 3,599,237,120 + 2,101,354,496 (bf16 embedding, head, norm)
    //   = 5,700,591,616 B
    const std::string w4 = R"({"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": true})";
    EXPECT_EQ(llama_ct_weight_bytes(w4, "pack-quantized").value(), 5700591616u);
    // Asymmetric: a 4-bit zero point beside each scale: + 3,407,872 / 4 = 851,968 B per layer (· 32 = 27,262,976).
    EXPECT_EQ(
        llama_ct_weight_bytes(R"({"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": false})",
                              "pack-quantized")
            .value(),
        5700591616u + 27262976u);
    // W8A8 int8 per channel (int-quantized): payload 218,103,808 + scales 86,016 + norms 16,384, as the fp8 case.
    EXPECT_EQ(
        llama_ct_weight_bytes(R"({"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": true})", "int-quantized")
            .value(),
        9083953152u);
}

TEST(HfConfig, CompressedTensorsFp8BlockAndPerTensorScales) {
    const TransformerConfig blk = parse_hf_config(
        llama_ct(R"({"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128], "symmetric": true})",
                 "float-quantized"),
        "x");
    ASSERT_TRUE(blk.weight_format);
    EXPECT_EQ(blk.weight_format->block, 128u);
    // a [7168, 2048] weight: 14,680,064 B + ⌈7168/128⌉·⌈2048/128⌉ = 56·16 = 896 bf16 scales (1,792 B)
    EXPECT_EQ(format_bytes(*blk.weight_format, Exact(7168), Exact(2048)).value(), 14681856u);
    const TransformerConfig tensor = parse_hf_config(
        llama_ct(R"({"num_bits": 8, "type": "float", "strategy": "tensor", "symmetric": true, "scale_dtype": "float32"})",
                 "float-quantized"),
        "x");
    ASSERT_TRUE(tensor.weight_format);
    EXPECT_EQ(format_bytes(*tensor.weight_format, Exact(7168), Exact(2048)).value(), 14680064u + 4u);  // one fp32 scale
}

TEST(HfConfig, CompressedTensorsSchemesBwacctDoesNotModelAreRefusedByName) {
    const std::string fp8 = R"({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true})";
    EXPECT_NE(error_of(llama_ct(fp8, "marlin-24")).find("\"marlin-24\""), std::string::npos);
    EXPECT_NE(error_of(llama_ct(fp8, "mixed-precision")).find("quantization_config.format"), std::string::npos);
    // No top-level format: the groups' own (float-quantized here) is read.
    std::string per_group = llama_ct(fp8, "float-quantized");
    const std::string top = R"("format": "float-quantized", )", targets = R"("targets": ["Linear"],)";
    per_group.erase(per_group.find(top), top.size());
    per_group.insert(per_group.find(targets) + targets.size(), R"( "format": "float-quantized",)");
    EXPECT_EQ(error_of(per_group), "");
    // 2-bit weights, asymmetric fp8, int4 one per byte (int-quantized), a per-token weight strategy
    for (const auto& [w, f] : std::vector<std::pair<std::string, std::string>>{
             {R"({"num_bits": 2, "type": "int", "strategy": "group", "group_size": 128})", "pack-quantized"},
             {R"({"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": false})", "float-quantized"},
             {R"({"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128})", "int-quantized"},
             {R"({"num_bits": 8, "type": "float", "strategy": "token"})", "float-quantized"}}) {
        const std::string e = error_of(llama_ct(w, f));
        EXPECT_NE(e.find("is not modelled"), std::string::npos) << w << " " << e;
        EXPECT_NE(e.find("num_bits"), std::string::npos) << e;
    }
    // Two groups giving the weights two schemes; sparse weights; rotations.
    EXPECT_NE(error_of(llama_ct(fp8, "float-quantized",
                                R"(, "config_groups": {"a": {"weights": {"num_bits": 8, "type": "float"}},
                                      "b": {"weights": {"num_bits": 4, "type": "int"}}})"))
                  .find("more than one scheme"),
              std::string::npos);
    EXPECT_NE(error_of(llama_ct(fp8, "float-quantized", R"(, "sparsity_config": {"format": "sparse-24-bitmask"})"))
                  .find("sparsity_config"),
              std::string::npos);
    // An ignore entry naming every layer's attention keeps it in bf16 (TransformerConfig::kept), not said; one naming part
    // of a block (a layer's down_proj) is said (its bytes are not counted); routers are bf16 anyway.
    const TransformerConfig c =
        parse_hf_config(llama_ct(fp8, "float-quantized",
                                 R"(, "ignore": ["lm_head", "re:.*self_attn.*", "re:.*mlp.gate$", "re:.*block_sparse_moe.gate$",
                                 "model.layers.0.mlp.down_proj"])"),
                        "x");
    EXPECT_TRUE(c.kept.attention);
    EXPECT_FALSE(c.kept.dense_mlp);
    ASSERT_EQ(c.limitations.size(), 2u);
    EXPECT_NE(c.limitations.back().find("keeps model.layers.0.mlp.down_proj unquantized"), std::string::npos)
        << c.limitations.back();
    EXPECT_EQ(c.limitations.back().find("self_attn"), std::string::npos) << c.limitations.back();
    EXPECT_EQ(c.limitations.back().find(".gate"), std::string::npos) << c.limitations.back();
}
