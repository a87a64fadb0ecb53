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

using namespace bwacct;

namespace {

std::string model_file(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/models/" + name + ".config.json"; }
TransformerConfig hf(const std::string& name) { return load_hf_config(model_file(name), "--hf-config"); }

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

// The error text of parsing `text` (empty when it parses).
std::string error_of(const std::string& text) {
    try {
        (void)parse_hf_config(text, "--hf-config x.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
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
    // Read and said, not modelled: the MTP module and the fp8 checkpoint.
    ASSERT_EQ(c.limitations.size(), 2u);
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
    // Said, not modelled: the clamped GLU, attention sinks, expert biases, bf16 attention of an mxfp4 checkpoint.
    ASSERT_EQ(c.limitations.size(), 4u);
    std::string all;
    for (const std::string& l : c.limitations)
        all += l + "\n";
    for (const char* what : {"swiglu_limit", "attention sinks", "expert biases", "1105920 parameters per layer", "self_attn"})
        EXPECT_NE(all.find(what), std::string::npos) << what << " in:\n" << all;
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
    EXPECT_NE(arch("LlamaForCausalLM", R"(, "mlp_bias": true)").find("mlp_bias"), std::string::npos);
    EXPECT_NE(arch("LlamaForCausalLM", R"(, "hidden_act": "relu")").find("hidden_act"), std::string::npos);
    EXPECT_NE(arch("Qwen3MoeForCausalLM", R"(, "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 16, )"
                                          R"("decoder_sparse_step": 2)")
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
