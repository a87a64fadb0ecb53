// Published config.json files found in the fourteenth session whose checkpoints' tensor lists (or model cards) give an
// independent count (tests/data/models/*.src.txt): Llama-2-7B AWQ, Qwen3-8B-FP8, GLM-4.5V, Qwen2-57B-A14B, and
// DeepSeek-V4-Pro (refused). With them the rules they exercised: GLM-4.5V's Glm4vMoe wrapper, GraniteMoeHybrid read
// when every layer is attention, fp8 block scales whose dtype config.json does not give. Every expected number is
// derived by hand in the comments.
#include <gtest/gtest.h>

#include <string>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/quant.h"
#include "bwacct/transformer.h"
#include "hf_test_util.h"

using namespace bwacct;
using bwacct_test::error_of;
using bwacct_test::file_error_of;
using bwacct_test::has_limitation;
using bwacct_test::hf;

TEST(HfTensorLists, Llama2AwqBytesMeetItsTensorList) {
    const TransformerConfig c = hf("llama-2-7b-awq");
    // Llama-2-7B: per layer attention 4·4096·4096 = 67,108,864, MLP 3·4096·11,008 = 135,266,304, norms 8192 →
    // 202,383,360 · 32 = 6,476,267,520 + embedding and head 2·32,000·4096 (262,144,000) + 4096 = 6,738,415,616.
    EXPECT_EQ(param_count(c).total.value(), 6738415616u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::int4);
    EXPECT_EQ(c.weight_format->group, 128u);
    EXPECT_EQ(c.weight_format->zero_bits, 4u);
    // The tensor list: a [K, N] weight stores qweight int32 [K, N/8] (K·N/2 B), qzeros int32 [K/128, N/8]
    // ((K/128)·(N/8)·4 B: 4 bits a group) and scales fp16 [K/128, N] ((K/128)·N·2 B).
    //   [4096, 4096]:  8,388,608 + 32·512·4 (65,536) + 32·4096·2 (262,144) = 8,716,288; four of them 34,865,152
    //   [4096, 11008]: 22,544,384 + 32·1376·4 (176,128) + 32·11,008·2 (704,512) = 23,425,024; gate and up 46,850,048
    //   [11008, 4096]: 22,544,384 + 86·512·4 (176,128) + 86·4096·2 (704,512) = 23,425,024
    //   norms 2·4096·2 = 16,384 → 105,156,608 a layer · 32 = 3,365,011,456
    // + embedding and lm_head fp16 2·32,000·4096·2 = 524,288,000 + final norm 8192 → 3,889,307,648 B.
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 3889307648u);
}

TEST(HfTensorLists, Qwen3Fp8BlockScalesAreFp32AndTheDifferenceIsStated) {
    const TransformerConfig c = hf("qwen3-8b-fp8");
    // Qwen3-8B: attention 4096·4096·2 + 4096·1024·2 + 2·128 = 41,943,296; MLP 3·4096·12,288 = 150,994,944; norms 8192
    // → 192,946,432 · 36 = 6,946,071,552 + 2·151,936·4096 (1,244,659,712) + 4096 = 8,190,735,360.
    EXPECT_EQ(param_count(c).total.value(), 8190735360u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::fp8_e4m3);
    EXPECT_EQ(c.weight_format->block, 128u);
    // Blocks per layer: q, o 32·32 = 1024 each, k, v 8·32 = 256 each, gate, up 96·32 = 3072 each, down 32·96 = 3072 →
    // 11,776 (· 36 = 423,936: the tensor list's 8,191,159,296 stored elements − 8,190,735,360 parameters). The tensor
    // list's bytes a layer: fp8 weights 41,943,040 + 150,994,944 = 192,937,984, bf16 norms (8192 + 256)·2 = 16,896,
    // bf16 scales 11,776·2 = 23,552 → 192,978,432 · 36 = 6,947,223,552 + vocab tables 2·151,936·4096·2
    // (2,489,319,424) + 8192 = 9,436,551,168 B. bwacct counts fp32 scales (DeepSeek-V3's), 2 B more a block.
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 9436551168u + 423936u * 2u);
    EXPECT_TRUE(has_limitation(c, "config.json does not give the scales' dtype"));
}

TEST(HfTensorLists, Glm45vIsGlm45AirsLanguageModel) {
    const TransformerConfig c = hf("glm-4.5v");
    // Its tensor list's language model: per layer attention q 12,288·4096 + 12,288, k and v 1024·4096 + 1024 each,
    // o 4096·12,288 → 109,066,240, norms 8192; layer 0's MLP 3·4096·10,944 = 134,479,872; layers 1-45: 128 experts of
    // 3·4096·1408 (2,214,592,512), router 128·4096 + 128 bias (524,416), one shared expert 17,301,504 → 2,232,418,432.
    // 46 · 109,074,432 = 5,017,423,872 + 134,479,872 + 45 · 2,232,418,432 (100,458,829,440) + embedding and head
    // 2·151,552·4096 (1,241,513,984) + 4096 = 106,852,251,264 (GLM-4.5-Air's count).
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.total.value(), 106852251264u);
    // Active: 8 of 128 experts, 8·17,301,504 = 138,412,032 in place of 2,214,592,512: 45 · 2,076,180,480 fewer.
    EXPECT_EQ(p.active.value(), 106852251264ull - 45ull * 2076180480ull);
    EXPECT_TRUE(has_limitation(c, "vision tower and projector (vision_config) are not counted"));
    // A nested text_config leaves out the fields equal to Glm4vMoeTextConfig's defaults: refused, not taken as 0.
    const std::string e = error_of(R"({"architectures": ["Glm4vMoeForConditionalGeneration"], "text_config": {
        "model_type": "glm4v_moe_text", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "moe_intermediate_size": 32,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "first_k_dense_replace": 1, "vocab_size": 100}})");
    EXPECT_NE(e.find("missing \"text_config.n_shared_experts\""), std::string::npos) << e;
}

TEST(HfTensorLists, Qwen2MoeA14BSharedExpertIsEightExperts) {
    const TransformerConfig c = hf("qwen2-57b-a14b");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->shared_experts, 8u);  // 20,480 / 2560
    // Per layer: attention q 3584·3584 + 3584, k and v 3584·512 + 512 each, o 3584·3584 → 29,364,736; norms 7168;
    // router 64·3584 = 229,376; 64 experts of 3·3584·2560 (27,525,120) = 1,761,607,680; shared 3·3584·20,480 =
    // 220,200,960 → 2,011,409,920 · 28 = 56,319,477,760 + 2·151,936·3584 (1,089,077,248) + 3584 = 57,408,558,592
    // (57.4B with the 28·3584 shared-expert gate weights, stated).
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.total.value(), 57408558592u);
    // Active: 8 experts, 220,200,960 in place of 1,761,607,680 → 470,003,200 · 28 + 1,089,080,832 = 14,249,170,432 (A14B).
    EXPECT_EQ(p.active.value(), 14249170432u);
    EXPECT_TRUE(has_limitation(c, "100352 in all"));
}

TEST(HfTensorLists, DeepSeekV4IsRefusedInOneLineByCompressRatios) {
    const std::string e = file_error_of("deepseek-v4-pro");
    EXPECT_NE(e.find("DeepseekV4ForCausalLM is not modelled: \"compress_ratios\""), std::string::npos) << e;
    EXPECT_NE(e.find("deepseek-v4-pro.config.json"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(HfTensorLists, AnUnlistedHybridWrapperIsRefusedByItsLayerKinds) {
    // Qwen3.6-27B (Qwen3_5ForConditionalGeneration): before, "unsupported architecture" and the supported list; its
    // text_config's layer_types show why (Gated DeltaNet), and the refusal says so in one line.
    const std::string e = file_error_of("qwen3.6-27b");
    EXPECT_NE(e.find("Qwen3_5ForConditionalGeneration is not modelled: \"layer_types\" lists \"linear_attention\" layers"),
              std::string::npos)
        << e;
    EXPECT_EQ(e.find("supported:"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    // The same rule on the top level: an unlisted class with Mamba fields.
    const std::string m = error_of(R"({"architectures": ["SomeHybridForCausalLM"], "mamba_d_state": 128})");
    EXPECT_NE(m.find("SomeHybridForCausalLM is not modelled: \"mamba_d_state\" describes state-space"), std::string::npos) << m;
    // An unlisted class with nothing that says why: the supported list, as before.
    EXPECT_NE(error_of(R"({"architectures": ["SomeForCausalLM"]})").find("supported:"), std::string::npos);
}

namespace {

// Granite-4.0-Micro's shape (hand-written, not a published file): 40 layers of 2560, 40 heads / 8 KV, a shared MLP of
// 8192, no routed experts, tied embeddings of 100,352, the Mamba fields GraniteMoeHybridConfig always writes.
std::string granite_hybrid(const std::string& layer_types,
                           const std::string& extra = R"("num_local_experts": 0, "num_experts_per_tok": 0,
                               "intermediate_size": 8192, "shared_intermediate_size": 8192)") {
    return R"({"architectures": ["GraniteMoeHybridForCausalLM"], "hidden_size": 2560, "num_hidden_layers": 40,
        "num_attention_heads": 40, "num_key_value_heads": 8, "vocab_size": 100352, "tie_word_embeddings": true,
        "position_embedding_type": "rope", "mamba_n_heads": 128, "mamba_d_state": 256, "mamba_d_conv": 4, )" +
           extra + (layer_types.empty() ? "" : R"(, "layer_types": )" + layer_types) + "}";
}

std::string repeat(const std::string& item, int n) {
    std::string s;
    for (int i = 0; i < n; ++i)
        s += (i ? ", " : "") + item;
    return s;
}

}  // namespace

TEST(HfTensorLists, GraniteMoeHybridAllAttentionIsReadMambaLayersAreNamed) {
    // Every layer attention, no routed experts: Granite's dense block with ffn = shared_intermediate_size. Per layer
    // attention 2·2560·2560 + 2·2560·512 = 15,728,640, MLP 3·2560·8192 = 62,914,560, norms 5120 → 78,648,320 · 40 =
    // 3,145,932,800 + tied embedding 100,352·2560 (256,901,120) + 2560 = 3,402,836,480.
    const TransformerConfig micro = parse_hf_config(granite_hybrid("[" + repeat(R"("attention")", 40) + "]"), "x");
    EXPECT_FALSE(micro.moe);
    EXPECT_EQ(micro.ffn, 8192u);
    EXPECT_EQ(param_count(micro).total.value(), 3402836480u);
    // With routed experts: GraniteMoeShared's block. 64 experts of 3·2560·512 (3,932,160) = 251,658,240, router
    // 64·2560 = 163,840, shared MLP 3·2560·1024 = 7,864,320 → 275,420,160 a layer (with attention and norms) · 40 =
    // 11,016,806,400 + 256,901,120 + 2560 = 11,273,710,080.
    const TransformerConfig moe =
        parse_hf_config(granite_hybrid("[" + repeat(R"("attention")", 40) + "]",
                                       R"("num_local_experts": 64, "num_experts_per_tok": 6, "intermediate_size": 512,
                          "shared_intermediate_size": 1024)"),
                        "x");
    ASSERT_TRUE(moe.moe);
    EXPECT_EQ(param_count(moe).total.value(), 11273710080u);
    // Granite-4.0-H-1B's layer_types: 36 Mamba-2 layers around 4 attention layers (5, 15, 25, 35): refused naming them.
    const std::string h =
        error_of(granite_hybrid("[" + repeat(R"("mamba")", 5) + R"(, "attention", )" + repeat(R"("mamba")", 9) +
                                R"(, "attention", )" + repeat(R"("mamba")", 9) + R"(, "attention", )" + repeat(R"("mamba")", 9) +
                                R"(, "attention", )" + repeat(R"("mamba")", 4) + "]"));
    EXPECT_NE(h.find("\"layer_types\" makes layers 0-4, 6-14, 16-24, 26-34, 36-39 (36 of 40) Mamba-2"), std::string::npos) << h;
    // Without layer_types GraniteMoeHybridConfig makes every layer Mamba.
    const std::string none = error_of(granite_hybrid(""));
    EXPECT_NE(none.find("without \"layer_types\""), std::string::npos) << none;
    // A list of the wrong length, or another kind of layer, is refused by name.
    EXPECT_NE(error_of(granite_hybrid(R"(["attention"])")).find("lists 1 layers"), std::string::npos);
    EXPECT_NE(error_of(granite_hybrid("[" + repeat(R"("attention")", 39) + R"(, "conv"])")).find("entry 39 is \"conv\""),
              std::string::npos);
}

TEST(HfTensorLists, ModelOptW4A16Nvfp4IsNvfp4WeightsWith16BitActivations) {
    const std::string llama = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "quantization_config": )";
    const TransformerConfig w4a16 = parse_hf_config(
        llama + R"({"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4", "group_size": 16, "ignore": ["lm_head"]}})", "x");
    ASSERT_TRUE(w4a16.weight_format);
    EXPECT_EQ(*w4a16.weight_format, weight_format(DType::fp4, 0));
    // Nothing to say about activations (before: refused as an unknown quant_algo).
    EXPECT_TRUE(w4a16.limitations.empty());
    // NVFP4 a [K, N] weight: K·N/2 + K·N/16 (an fp8 scale per 16) + 4 (fp32 global). Per layer q, k, v [64, 192]:
    // 6144 + 768 + 4 = 6916; o [64, 64]: 2048 + 256 + 4 = 2308; gate, up [64, 128]: 2 · 4612; down [128, 64]: 4612; norms
    // 2·64·2 = 256 → 23,316 · 2 = 46,632 + embedding and head 2·100·64·2 = 25,600 + 128 = 72,360 B.
    EXPECT_EQ(weight_bytes_per_rank(w4a16, LayerRun{}).value(), 72360u);
    const std::string e = error_of(llama + R"({"quant_method": "modelopt", "quant_algo": "W6A6"}})");
    EXPECT_NE(e.find("\"quantization_config.quant_algo\" = \"W6A6\" is not modelled (modelopt: NVFP4, W4A16_NVFP4 or FP8)"),
              std::string::npos)
        << e;
}

TEST(HfTensorLists, InternLM3IsLlamaWithItsTwoBiasSwitches) {
    const TransformerConfig c = hf("internlm3-8b-instruct");
    // Per layer: q 4096·4096, k and v 4096·256 each, o 4096·4096 → 35,651,584; MLP 3·4096·10,240 = 125,829,120; norms
    // 8192 → 161,488,896 · 48 = 7,751,467,008 + untied 2·128,512·4096 (1,052,770,304) + 4096 = 8,804,241,408 (8.8B).
    EXPECT_EQ(param_count(c).total.value(), 8804241408u);
    EXPECT_FALSE(c.qkv_bias);
    EXPECT_FALSE(c.o_bias);
    EXPECT_FALSE(c.mlp_bias);
    // qkv_bias: (32 + 2·2)·128 = 4608 a layer; bias: o 4096 + gate and up 2·10,240 + down 4096 = 28,672 a layer.
    const std::string fields = R"({"architectures": ["InternLM3ForCausalLM"], "head_dim": 128, "hidden_size": 4096,
        "intermediate_size": 10240, "num_attention_heads": 32, "num_hidden_layers": 48, "num_key_value_heads": 2,
        "vocab_size": 128512, )";
    const TransformerConfig both = parse_hf_config(fields + R"("qkv_bias": true, "bias": true})", "x");
    EXPECT_EQ(param_count(both).total.value(), 8804241408u + 48u * (4608u + 28672u));
    // The remote code's defaults are not assumed.
    EXPECT_NE(error_of(fields + R"("qkv_bias": false})").find("missing \"bias\""), std::string::npos);
    EXPECT_NE(error_of(fields + R"("bias": false})").find("missing \"qkv_bias\""), std::string::npos);
}

TEST(HfTensorLists, MiMoIsQwen2WithAnUncountedMtpLayer) {
    const TransformerConfig c = hf("mimo-7b-base");
    // Qwen2's block: q 4096·4096 + 4096 bias, k and v 4096·1024 + 1024 each, o 4096·4096 → 41,949,184; MLP
    // 3·4096·11,008 = 135,266,304; norms 8192 → 177,223,680 · 36 = 6,380,052,480 + untied 2·151,680·4096
    // (1,242,562,560) + 4096 = 7,622,619,136.
    EXPECT_EQ(param_count(c).total.value(), 7622619136u);
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.o_bias);
    // Its MTP layer is said once (DeepSeek-V3's own wording is kept there, not repeated).
    EXPECT_TRUE(has_limitation(c, "num_nextn_predict_layers = 1: the multi-token-prediction layer is not counted"));
    int mtp = 0;
    for (const std::string& l : hf("deepseek-v3").limitations)
        mtp += l.rfind("num_nextn_predict_layers", 0) == 0 ? 1 : 0;
    EXPECT_EQ(mtp, 1);
}

TEST(HfTensorLists, Dots1IsDeepSeekV3sMoeOnQwen3sAttention) {
    // dots.llm1's fields as an MLX test quotes them from dots.llm1.inst (no "architectures" there; the class added).
    const std::string dots = R"({"architectures": ["Dots1ForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 62,
        "intermediate_size": 10944, "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 152064,
        "first_k_dense_replace": 1, "moe_intermediate_size": 1408, "n_routed_experts": 128, "n_shared_experts": 2,
        "num_experts_per_tok": 6, "scoring_func": "sigmoid", "tie_word_embeddings": false, )";
    const TransformerConfig c = parse_hf_config(dots + R"("attention_bias": false})", "x");
    EXPECT_TRUE(c.qk_norm);
    // No window fields: Dots1Config's sliding_window 4096 from max_window_layers 62 on, so none of the 62 layers slides
    // (Dots1AppliesItsWindowFromMaxWindowLayers has a window that applies); said as taken, never "has no window".
    EXPECT_EQ(c.sliding_window, 4096u);
    EXPECT_EQ(c.local_layers, std::vector<bool>(62, false));
    EXPECT_TRUE(has_limitation(c, "max_window_layers = 62, sliding_window = 4096 (transformers' Dots1Config defaults"));
    EXPECT_FALSE(has_limitation(c, "has no window"));
    // Per layer attention 4·4096·4096 + q/k norms 2·128 = 67,109,120, norms 8192; layer 0 dense 3·4096·10,944 =
    // 134,479,872; layers 1-61: 128 experts of 3·4096·1408 (17,301,504) = 2,214,592,512, router 128·4096 + 128 bias =
    // 524,416, 2 shared 34,603,008 → 2,249,719,936. 62 · 67,117,312 = 4,161,273,344 + 134,479,872 + 61 · 2,249,719,936
    // (137,232,916,096) + untied 2·152,064·4096 (1,245,708,288) + 4096 = 142,774,381,696 (dots.llm1: 142B).
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.total.value(), 142774381696ull);
    // Active: 6 of 128 experts, 122 · 17,301,504 = 2,110,783,488 fewer a MoE layer → 14,016,588,928 (14B).
    EXPECT_EQ(p.active.value(), 142774381696ull - 61ull * 2110783488ull);
    // An o_proj bias the engines disagree on is refused.
    EXPECT_NE(error_of(dots + R"("attention_bias": true})").find("\"attention_bias\" = true is not modelled"), std::string::npos);
}

TEST(HfTensorLists, AwqGemvLayoutsAreCountedAsStored) {
    // The same Llama-2-7B AWQ fields with "version": "gemv": AutoAWQ's WQLinear_GEMV pads each output row's groups in
    // scales and qzeros to calculate_zeros_width(K, 128) · 8, a multiple of 8 (down_proj: 86 groups stored as 88,
    // 2 · 4096 · (2 + 0.5) = 20,480 B more a layer): 3,889,307,648 (GEMM, Llama2AwqBytesMeetItsTensorList) + 32 · 20,480
    // = 3,889,963,008 B.
    const std::string gemm = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 11008,
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "vocab_size": 32000,
        "torch_dtype": "float16", "quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq",
        "zero_point": true, "version": )";
    const TransformerConfig gemv = parse_hf_config(gemm + R"("gemv"}})", "x");
    EXPECT_EQ(weight_bytes_per_rank(gemv, LayerRun{}).value(), 3889963008u);
    // Tensor parallel: the stored tensors padded, then split (was padded per shard: down_proj's 5504 inputs a rank, 43
    // groups padded to 48, not 88 / 2 = 44: 4 · 4096 · 2.5 · 32 = 1,310,720 B a rank more, 1,946,558,464). Matrices
    // 3,889,963,008 − embedding and head 524,288,000 − norms 32 · 16,384 + 8192 = 3,365,142,528 B: tp 2 each rank
    // 1,682,571,264 + 262,144,000 (vocab-parallel) + 532,480 (norms, replicated) = 1,945,247,744; tp 8 (down 88 / 8 =
    // 11 groups, o 32 / 8 = 4) 420,642,816 + 65,536,000 + 532,480 = 486,711,296.
    LayerRun tp2;
    tp2.tp = 2;
    EXPECT_EQ(weight_bytes_per_rank(gemv, tp2).value(), 1945247744u);
    LayerRun tp8;
    tp8.tp = 8;
    EXPECT_EQ(weight_bytes_per_rank(gemv, tp8).value(), 486711296u);
    EXPECT_TRUE(parse_hf_config(gemm + R"("gemm"}})", "x").limitations.empty());
    // GEMV_FAST (WQLinear_GEMVFast): scales and scaled_zeros both fp16 [pad8(K/128) · ..., N]. A layer's groups: q, k, v,
    // o 4 · 32 · 4096 = 524,288, gate and up 2 · 32 · 11,008 = 704,512, down 88 · 4096 = 360,448 → 1,589,248 groups ·
    // 4 B = 6,356,992 B of scales and zeros, + 4-bit weights 101,187,584 + norms 16,384 = 107,560,960 · 32 =
    // 3,441,950,720 + embedding and head 524,288,000 + 8192 = 3,966,246,912 B (was 3,889,307,648: qzeros as 4 bits).
    for (const char* v : {R"("gemv_fast")", R"("GEMV_FAST")"}) {
        const TransformerConfig fast = parse_hf_config(gemm + v + "}}", "x");
        EXPECT_EQ(weight_bytes_per_rank(fast, LayerRun{}).value(), 3966246912u) << v;
        EXPECT_TRUE(fast.limitations.empty()) << v;
    }
    // Per channel (group_size -1: WQLinear_GEMV's group is K, one group padded to 8): 8 fp16 scales and 8 4-bit zeros per
    // output row, 8 · 2.5 = 20 B. Rows a layer: 4 · 4096 + 2 · 11,008 + 4096 = 42,496 → 849,920 B + weights 101,187,584 +
    // norms 16,384 = 102,053,888 · 32 = 3,265,724,416 + 524,288,000 + 8192 = 3,790,020,608 B.
    std::string per_channel = gemm + R"("gemv"}})";
    per_channel.replace(per_channel.find("\"group_size\": 128"), 17, "\"group_size\": -1");
    EXPECT_EQ(weight_bytes_per_rank(parse_hf_config(per_channel, "x"), LayerRun{}).value(), 3790020608u);
    // AutoAWQ's GEMV kernels take 4 bits only: 8 refused naming the field.
    std::string eight = gemm + R"("gemv"}})";
    eight.replace(eight.find("\"bits\": 4"), 9, "\"bits\": 8");
    EXPECT_NE(error_of(eight).find("\"quantization_config.bits\" = 8 is not modelled"), std::string::npos);
    // A version that is not a string is refused under its full name.
    const std::string e = error_of(gemm + "2}}");
    EXPECT_NE(e.find("\"quantization_config.version\" must be a string"), std::string::npos) << e;
}

TEST(HfTensorLists, GptqMarlinFormatStoresNoZerosOrGIdx) {
    // 1-layer Llama 4096/11008, sym 4-bit g128 in the Marlin checkpoint format: qweight 4 bits and fp16 scales only. A
    // layer: weights 202,375,168 / 2 = 101,187,584, scales (32 · 4 · 4096 + 32 · 2 · 11,008 + 86 · 4096) · 2 = 3,162,112,
    // norms 16,384 → 104,366,080 + embedding and head 2 · 32,000 · 4096 · 2 = 524,288,000 + 8192 = 628,662,272 B.
    const std::string llama = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 1,
        "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "torch_dtype": "float16",
        "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true, "desc_act": false, )";
    for (const char* marlin : {R"("checkpoint_format": "marlin"}})", R"("is_marlin_format": true}})"}) {
        const TransformerConfig c = parse_hf_config(llama + marlin, "x");
        EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 628662272u) << marlin;
        EXPECT_FALSE(has_limitation(c, "g_idx (an int32 per input row")) << marlin;
    }
    // The GPTQ format keeps its qzeros: 4 bits a group, 3,162,112 / 4 = 790,528 B more.
    const TransformerConfig gptq = parse_hf_config(llama + R"("checkpoint_format": "gptq"}})", "x");
    EXPECT_EQ(weight_bytes_per_rank(gptq, LayerRun{}).value(), 628662272u + 790528u);
    // Marlin stores no zero points: an asymmetric one is refused.
    const std::string e = error_of(llama + R"("checkpoint_format": "marlin", "sym": false}})");
    EXPECT_NE(e.find("\"quantization_config.sym\" = false with the Marlin checkpoint format"), std::string::npos) << e;
}

TEST(HfTensorLists, Glm45vTextConfigWithoutAttentionBiasTakesTrue) {
    // Glm4vMoeTextConfig defaults attention_bias to true (Glm4MoeConfig to false): a text_config that leaves it out keeps
    // q, k and v biases, 46 · (12,288 + 1024 + 1024) = 659,456 parameters, the count of
    // Glm45vIsGlm45AirsLanguageModel (106,852,251,264), not 659,456 fewer.
    const std::string text = R"({"architectures": ["Glm4vMoeForConditionalGeneration"], "text_config": {
        "model_type": "glm4v_moe_text", "hidden_size": 4096, "num_hidden_layers": 46, "num_attention_heads": 96,
        "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 10944, "moe_intermediate_size": 1408,
        "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 1,
        "vocab_size": 151552, "tie_word_embeddings": false)";
    const TransformerConfig c = parse_hf_config(text + "}}", "x");
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.o_bias);
    EXPECT_EQ(param_count(c).total.value(), 106852251264u);
    EXPECT_TRUE(has_limitation(c, "leaves out attention_bias = true (transformers' Glm4vMoeTextConfig defaults"));
    EXPECT_EQ(param_count(parse_hf_config(text + R"(, "attention_bias": false}})", "x")).total.value(), 106852251264u - 659456u);
}

TEST(HfTensorLists, MoeClassDefaultsAreTakenOrRefusedNeverZero) {
    // A 2-layer Glm4MoeForCausalLM (hidden 4096, 32 heads, dense MLP 1024, 8 experts of 128, vocab 1000). Per layer
    // attention 4 · 4096² = 67,108,864, norms 8192; a dense MLP 3 · 4096 · 1024 = 12,582,912; a MoE layer 8 experts of
    // 3 · 4096 · 128 (1,572,864) = 12,582,912, router 8 · 4096 + 8 bias = 32,776, one shared expert 1,572,864 →
    // 14,188,552; untied 2 · 1000 · 4096 = 8,192,000 + 4096. Glm4MoeConfig's defaults first_k_dense_replace 1 and
    // n_shared_experts 1: 2 · 67,117,056 + 12,582,912 + 14,188,552 + 8,196,096 = 169,201,672.
    const std::string glm = R"({"architectures": ["Glm4MoeForCausalLM"], "num_hidden_layers": 2, "intermediate_size": 1024,
        "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 1000, "moe_intermediate_size": 128,
        "n_routed_experts": 8, "num_experts_per_tok": 2, "hidden_size": 4096)";
    for (const char* extra : {"", R"(, "first_k_dense_replace": 1)", R"(, "n_shared_experts": 1)"}) {
        const TransformerConfig c = parse_hf_config(glm + extra + "}", "x");
        ASSERT_TRUE(c.moe);
        EXPECT_EQ(c.moe->shared_experts, 1u) << extra;
        EXPECT_EQ(c.moe->dense_layers, 1u) << extra;
        EXPECT_EQ(param_count(c).total.value(), 169201672u) << extra;
        EXPECT_TRUE(has_limitation(c, "transformers' Glm4MoeConfig defaults")) << extra;
    }
    EXPECT_NE(error_of(glm + R"(, "n_shared_experts": null})").find("\"n_shared_experts\" is null"), std::string::npos);
    // Dots1Config: first_k_dense_replace 0 (taken, said); n_shared_experts None, which Dots1MoE cannot build: refused.
    const std::string dots = R"({"architectures": ["Dots1ForCausalLM"], "num_hidden_layers": 2, "intermediate_size": 1024,
        "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 1000, "moe_intermediate_size": 128,
        "n_routed_experts": 8, "num_experts_per_tok": 2, "hidden_size": 4096)";
    const TransformerConfig d = parse_hf_config(dots + R"(, "n_shared_experts": 1})", "x");
    EXPECT_EQ(d.moe->dense_layers, 0u);
    EXPECT_TRUE(has_limitation(d, "first_k_dense_replace = 0"));
    EXPECT_NE(error_of(dots + "}").find("missing \"n_shared_experts\""), std::string::npos);
    EXPECT_NE(error_of(dots + R"(, "n_shared_experts": null})").find("\"n_shared_experts\" is null"), std::string::npos);
    // DeepSeek-V3 without n_shared_experts: transformers' DeepseekV3Config says 1, not 0: refused.
    const std::string v3 = error_of(R"({"architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "moe_intermediate_size": 32,
        "n_routed_experts": 4, "num_experts_per_tok": 2, "first_k_dense_replace": 1, "kv_lora_rank": 16,
        "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16})");
    EXPECT_NE(v3.find("missing \"n_shared_experts\""), std::string::npos) << v3;
    // Qwen2MoeConfig's shared expert is 5632 wide when left out.
    const TransformerConfig q = parse_hf_config(R"({"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
        "moe_intermediate_size": 1408, "num_experts": 4, "num_experts_per_tok": 2})",
                                                "x");
    EXPECT_EQ(q.moe->shared_experts, 4u);  // 5632 / 1408
    // With moe_intermediate_size 2560 (Qwen2-57B-A14B's) the default 5632 is 2.2 experts: refused, saying the number is
    // the class's default, not the file's (was quoted "(5632)" as if given).
    const std::string q57 = error_of(R"({"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
        "moe_intermediate_size": 2560, "num_experts": 4, "num_experts_per_tok": 2})");
    EXPECT_NE(q57.find("\"shared_expert_intermediate_size\" (left out: 5632, Qwen2MoeConfig's default)"), std::string::npos)
        << q57;
    // ERNIE 4.5 MoE without moe_num_shared_experts: transformers says 2, FastDeploy and mlx-lm 0: refused naming the key
    // (was 2 taken).
    const std::string er = error_of(R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
        "moe_intermediate_size": 32, "moe_num_experts": 4, "moe_k": 2})");
    EXPECT_NE(er.find("missing \"moe_num_shared_experts\""), std::string::npos) << er;
    // A null is no count either class can build with: refused naming it (was 0).
    const std::string qn = error_of(R"({"architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "moe_intermediate_size": 1408,
        "num_experts": 4, "num_experts_per_tok": 2, "shared_expert_intermediate_size": null})");
    EXPECT_NE(qn.find("\"shared_expert_intermediate_size\" is null"), std::string::npos) << qn;
    const std::string en = error_of(R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
        "moe_intermediate_size": 32, "moe_num_experts": 4, "moe_k": 2, "moe_num_shared_experts": null})");
    EXPECT_NE(en.find("\"moe_num_shared_experts\" is null"), std::string::npos) << en;
}

TEST(HfTensorLists, Dots1AppliesItsWindowFromMaxWindowLayers) {
    // Dots1Config: layer i is sliding when sliding_window is set and i >= max_window_layers (no use_sliding_window).
    const std::string dots = R"({"architectures": ["Dots1ForCausalLM"], "num_hidden_layers": 4, "intermediate_size": 1024,
        "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 1000, "moe_intermediate_size": 128,
        "n_routed_experts": 8, "num_experts_per_tok": 2, "hidden_size": 4096, "n_shared_experts": 1,
        "first_k_dense_replace": 1, "sliding_window": 1024)";
    const TransformerConfig c = parse_hf_config(dots + R"(, "max_window_layers": 2})", "x");
    EXPECT_EQ(c.sliding_window, 1024u);
    EXPECT_EQ(c.local_layers, (std::vector<bool>{false, false, true, true}));
    EXPECT_FALSE(has_limitation(c, "has no window"));
    // layer_types decides when given.
    const TransformerConfig t =
        parse_hf_config(dots + R"(, "layer_types": ["sliding_attention", "full_attention", "full_attention",
                        "sliding_attention"]})",
                        "x");
    EXPECT_EQ(t.local_layers, (std::vector<bool>{true, false, false, true}));
    // Left out: max_window_layers 62, so a 4-layer model has no sliding layer.
    const TransformerConfig d = parse_hf_config(dots + "}", "x");
    EXPECT_EQ(d.local_layers, (std::vector<bool>(4, false)));
    // "max_window_layers": null: the class's rule i >= None raises a TypeError; refused naming the key (was read as 0, a
    // window on all 4 layers). The same for Qwen2 with use_sliding_window true.
    const std::string e = error_of(dots + R"(, "max_window_layers": null})");
    EXPECT_NE(e.find("\"max_window_layers\" is null"), std::string::npos) << e;
    const std::string q = error_of(R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "sliding_window": 32,
        "use_sliding_window": true, "max_window_layers": null})");
    EXPECT_NE(q.find("\"max_window_layers\" is null"), std::string::npos) << q;
    // Without use_sliding_window the class never compares (sliding_window is None first): still read, no window.
    const TransformerConfig off = parse_hf_config(R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 64,
        "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
        "sliding_window": 32, "use_sliding_window": false, "max_window_layers": null})",
                                                  "x");
    EXPECT_EQ(off.sliding_window, 0u);
    // Left out with use_sliding_window true: Qwen2Config's default 28 (was read as 0, a window on every layer). 30
    // layers: 0-27 full, 28 and 29 sliding.
    const TransformerConfig left_out = parse_hf_config(R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 64,
        "num_hidden_layers": 30, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
        "sliding_window": 32, "use_sliding_window": true})",
                                                       "x");
    std::vector<bool> from28(30, false);
    from28[28] = from28[29] = true;
    EXPECT_EQ(left_out.local_layers, from28);
    EXPECT_TRUE(has_limitation(left_out, "max_window_layers: 28 taken"));
}

TEST(HfTensorLists, GraniteMoeHybridNullsAreRefusedAndLayersBlockTypeIsRead) {
    const std::string lt = "[" + repeat(R"("attention")", 40) + "]";
    for (const char* key : {"shared_intermediate_size", "num_local_experts"}) {
        const std::string e = error_of(granite_hybrid(lt, std::string(R"("intermediate_size": 8192, ")") + key + R"(": null)"));
        EXPECT_NE(e.find(std::string("\"") + key + "\" is null"), std::string::npos) << e;
    }
    // "attention_bias": null is no bias (nn.Linear(bias=None)): Granite-4.0-Micro's 3,402,836,480 as without the key
    // (was refused). "tie_word_embeddings": null ties nothing (transformers' tie_weights and vLLM test it for truth): the
    // LM head is counted, + 100,352 · 2560 = 256,901,120 → 3,659,737,600.
    EXPECT_EQ(param_count(parse_hf_config(granite_hybrid(lt, R"("num_local_experts": 0, "intermediate_size": 8192,
                              "shared_intermediate_size": 8192, "attention_bias": null)"),
                                          "x"))
                  .total.value(),
              3402836480u);
    std::string untied = granite_hybrid(lt);
    untied.replace(untied.find(R"("tie_word_embeddings": true)"), 27, R"("tie_word_embeddings": null)");
    EXPECT_EQ(param_count(parse_hf_config(untied, "x")).total.value(), 3659737600u);
    // layers_block_type (layer_types under GraniteMoeHybridConfig's attribute_map) is the same list: Granite-4.0-Micro's
    // 3,402,836,480 parameters (GraniteMoeHybridAllAttentionIsReadMambaLayersAreNamed).
    std::string alias = granite_hybrid("");
    alias.insert(alias.size() - 1, R"(, "layers_block_type": )" + lt);
    EXPECT_EQ(param_count(parse_hf_config(alias, "x")).total.value(), 3402836480u);
    std::string both = granite_hybrid(lt);
    both.insert(both.size() - 1, R"(, "layers_block_type": ["mamba"])");
    EXPECT_NE(error_of(both).find("disagree"), std::string::npos);
    // All three MoE fields left out: GraniteMoeHybridConfig's 8 experts of intermediate_size 512, top 2, a shared MLP of
    // 1024 = 2 experts of 512 (was refused as missing num_experts_per_tok).
    const TransformerConfig d = parse_hf_config(granite_hybrid(lt, R"("intermediate_size": 512)"), "x");
    ASSERT_TRUE(d.moe);
    EXPECT_EQ(d.moe->experts, 8u);
    EXPECT_EQ(d.moe->top_k, 2u);
    EXPECT_EQ(d.moe->expert_ffn, 512u);
    EXPECT_EQ(d.moe->shared_experts, 2u);
    EXPECT_TRUE(has_limitation(d, "num_local_experts = 8, shared_intermediate_size = 1024, num_experts_per_tok = 2"));
}
