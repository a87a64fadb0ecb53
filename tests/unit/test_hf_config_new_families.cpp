// Real config.json files of families added after the first 27 (tests/data/models/*.src.txt): Kimi K2, MiniMax-M2,
// Qwen3-VL-MoE, Gemma 2, Qwen2, a bitsandbytes 4-bit checkpoint, diffusers' Wan 2.2, Granite, GraniteMoE, OLMo 2/3,
// Falcon3, Seed-OSS, SmolLM3, DBRX, EXAONE 4.0, StableLM, InternLM2, Gemma 1, Ministral 3, and the hybrids,
// sparse-attention, MM-DiT and other blocks that are refused naming the field. Every expected count is derived by hand in the
// comments and, where the source lists the checkpoint's tensors, cross-checked against that list.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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
using bwacct_test::model_file;

TEST(HfNewFamilies, KimiK2IsDeepSeekV3ShapedWith384ExpertsAndMatchesItsTensorList) {
    const TransformerConfig c = hf("kimi-k2-instruct");
    ASSERT_TRUE(c.moe && c.mla);
    EXPECT_EQ(c.moe->experts, 384u);
    EXPECT_EQ(c.moe->top_k, 8u);
    const ParamCount p = param_count(c);
    // MLA per layer (D 7168, H 64, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128):
    //   q_a 7168·1536 = 11,010,048 + 1536 + q_b 1536·64·192 = 18,874,368 + kv_a 7168·576 = 4,128,768 + 512
    //   + kv_b 512·64·256 = 8,388,608 + o 64·128·7168 = 58,720,256                      = 101,124,096
    EXPECT_EQ(p.attention.value(), 101124096u);
    // dense layer 0: 101,124,096 + 3·7168·18,432 (396,361,728) + norms 14,336 = 497,500,160
    // MoE layers 1–60: router 384·7168 + 384 = 2,752,896; 384 experts · 3·7168·2048 (44,040,192) = 16,911,433,728;
    //   shared 44,040,192 → 16,958,226,816; + 101,124,096 + 14,336 = 17,059,365,248 · 60 = 1,023,561,914,880
    // + embedding and LM head 2·163,840·7168 = 2,348,810,240 + final norm 7168 → 1,026,408,232,448.
    // The checkpoint's tensor list (Kimi-K2-Instruct, .src.txt) totals 1,026,470,731,056 elements: these parameters
    // + 62,495,192 fp32 weight_scale_inv (per layer 280 + 512 + 3584 + 672 + 1152 = 6200 · 61 = 378,200; layer 0's MLP
    // 3·56·144 = 24,192; experts 3·56·16 = 2688 · 384 · 60 = 61,931,520; shared 2688 · 60 = 161,280)
    // + 61·56 = 3,416 rotary inv_freq buffers. Exact.
    EXPECT_EQ(p.total.value(), 1026408232448u);
    // active: 1,026,408,232,448 − 60·376·44,040,192 (993,546,731,520) = 32,861,500,928 (model card: 32B activated)
    EXPECT_EQ(p.active.value(), 32861500928u);
    // MLA latent cache: kv_lora_rank + qk_rope_head_dim = 576 elements per token and layer
    EXPECT_EQ(kv_elems_per_token(c, 1), 576u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::fp8_e4m3);
    EXPECT_EQ(c.weight_format->block, 128u);
}

TEST(HfNewFamilies, MiniMaxM2ReadsItsTorchFp8NameRoutingBiasAndWholeQkNorms) {
    // Refused before on two counts: MiniMaxM2ForCausalLM was not an architecture, and its quantization_config's
    // "fmt": "float8_e4m3fn" (the torch dtype's name) was "not an fp8 format".
    const TransformerConfig c = hf("minimax-m2.7");
    ASSERT_TRUE(c.moe);
    EXPECT_FALSE(c.mla);
    EXPECT_EQ(c.moe->experts, 256u);
    EXPECT_EQ(c.moe->top_k, 8u);
    EXPECT_EQ(c.moe->expert_ffn, 1536u);
    EXPECT_TRUE(c.moe->router_bias);  // use_routing_bias: e_score_correction_bias [256] per layer
    EXPECT_EQ(c.moe->dense_layers, 0u);
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::fp8_e4m3);
    EXPECT_EQ(c.weight_format->block, 128u);
    const ParamCount p = param_count(c);
    // attention (D 3072, 48 heads / 8 KV heads of 128): 3072·(48 + 16)·128 + 48·128·3072 = 44,040,192
    //   + the engine's per-head q/k norm 2·128 = 256                                       = 44,040,448
    EXPECT_EQ(p.attention.value(), 44040448u);
    // MoE: router 256·3072 + 256 = 786,688; 256 experts · 3·3072·1536 (14,155,776) = 3,623,878,656 → 3,624,665,344
    EXPECT_EQ(p.moe_mlp.value(), 3624665344u);
    // layer 44,040,448 + 3,624,665,344 + norms 6144 = 3,668,711,936 · 62 = 227,460,140,032
    // + embedding and LM head 2·200,064·3072 = 1,229,193,216 + final norm 3072 = 228,689,336,320
    EXPECT_EQ(p.total.value(), 228689336320u);
    // The checkpoint's tensor list totals 228,703,644,928 elements = 228,689,764,864 parameters + 13,880,064 fp32
    // weight_scale_inv (per layer experts 256·3·12·24 = 221,184 + attention 2·8·24 + 2·24·48 = 2688 → 223,872 · 62).
    // The difference from bwacct's count, 428,544 = 62·(6144 + 1024 − 256), is the whole-Q/K norm weights the
    // per-head norm does not count; a limitation says so with that number.
    EXPECT_EQ(228689764864u - p.total.value(), 428544u);
    EXPECT_TRUE(has_limitation(c, "428544 parameters in all are not counted"));
    EXPECT_TRUE(has_limitation(c, "num_mtp_modules = 3"));
    // active: − 62·248·14,155,776 (217,659,211,776) = 11,030,124,544 (model card: 10B active, embeddings aside:
    // 11,030,124,544 − 1,229,193,216 = 9.8 B)
    EXPECT_EQ(p.active.value(), 11030124544u);
}

TEST(HfNewFamilies, MiniMaxLightningAttentionAndASharedExpertAreRefusedByName) {
    const std::string base =
        R"({"architectures": ["MiniMaxM2ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 32, "vocab_size": 100, "num_local_experts": 4,
            "num_experts_per_tok": 2)";
    EXPECT_EQ(error_of(base + "}"), "");
    const std::string lightning = error_of(base + R"(, "attn_type_list": [0, 1]})");
    EXPECT_NE(lightning.find("attn_type_list"), std::string::npos) << lightning;
    const std::string shared = error_of(base + R"(, "shared_intermediate_size": 32})");
    EXPECT_NE(shared.find("shared_intermediate_size"), std::string::npos) << shared;
    const std::string norm = error_of(base + R"(, "use_qk_norm": true, "qk_norm_type": "per_token"})");
    EXPECT_NE(norm.find("qk_norm_type"), std::string::npos) << norm;
    // The reference builds its q/k norms over all of Q and K whatever qk_norm_type says: a per-head type is refused,
    // not guessed (it was read as the per-head norm).
    const std::string per_head = error_of(base + R"(, "use_qk_norm": true, "qk_norm_type": "per_head"})");
    EXPECT_NE(per_head.find("qk_norm_type"), std::string::npos) << per_head;
    // use_mtp without num_mtp_modules: stated without a count (it printed "num_mtp_modules = ?").
    const TransformerConfig mtp = parse_hf_config(base + R"(, "use_mtp": true})", "x");
    EXPECT_TRUE(has_limitation(mtp, "use_mtp = true: the multi-token-prediction modules are not counted"));
    for (const std::string& l : mtp.limitations)
        EXPECT_EQ(l.find('?'), std::string::npos) << l;
}

TEST(HfNewFamilies, Qwen3VlMoeTextConfigWithTheWrappersUntiedHead) {
    // text_config gives no tie_word_embeddings; the top level's false applies (the checkpoint has lm_head.weight).
    const TransformerConfig c = hf("qwen3-vl-30b-a3b-instruct");
    ASSERT_TRUE(c.moe);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_TRUE(c.qk_norm);
    const ParamCount p = param_count(c);
    // attention (D 2048, 32 / 4 heads of 128): 2048·40·128 + 4096·2048 = 18,874,368 + q/k norms 256 = 18,874,624
    // MoE: router 128·2048 = 262,144 + 128 · 3·2048·768 (4,718,592) = 603,979,776; norms 4096
    //   → 623,120,640 per layer · 48 = 29,909,790,720
    // + embedding and LM head 2·151,936·2048 = 622,329,856 + final norm 2048 = 30,532,122,624: the tensor list's
    // language-model tensors exactly (its 31,070,754,032 total adds the vision tower, not modelled and said so).
    EXPECT_EQ(p.total.value(), 30532122624u);
    // active: − 48·120·4,718,592 = 27,179,089,920 → 3,353,032,704 ("A3B")
    EXPECT_EQ(p.active.value(), 3353032704u);
}

TEST(HfNewFamilies, Gemma2_9bMatchesTheHubCountWithAlternatingWindows) {
    const TransformerConfig c = hf("gemma-2-9b");
    EXPECT_TRUE(c.tied_embeddings);  // Gemma2Config's default
    EXPECT_EQ(c.block_norms, 4u);
    EXPECT_EQ(c.sliding_window, 4096u);
    ASSERT_EQ(c.local_layers.size(), 42u);
    EXPECT_TRUE(c.local_layers[0]);  // Gemma2: layer_idx % 2 == 0 is local
    EXPECT_FALSE(c.local_layers[1]);
    // attention 3584·(16 + 16)·256 + 16·256·3584 = 44,040,192; MLP 3·3584·14,336 = 154,140,672; norms 4·3584
    //   → 198,195,200 · 42 = 8,324,198,400 + tied embedding 256,000·3584 = 917,504,000 + 3584 = 9,241,705,984
    // (the Hub page for google/gemma-2-9b: 9.24B parameters)
    EXPECT_EQ(param_count(c).total.value(), 9241705984u);
    // Decode at context 8192: local layers read min(8192, 4096) keys, global layers all 8192.
    EXPECT_EQ(layer_context(c, 0, 8192), 4096u);
    EXPECT_EQ(layer_context(c, 1, 8192), 8192u);
    EXPECT_TRUE(has_limitation(c, "final_logit_softcapping"));
}

TEST(HfNewFamilies, Qwen2_7bWithoutItsWindowMatchesItsTensorList) {
    const TransformerConfig c = hf("qwen2-7b-instruct");
    EXPECT_EQ(c.sliding_window, 0u);  // sliding_window 131072 but use_sliding_window false
    // attention 3584·(28 + 8)·128 + 3584² = 29,360,128 + q/k/v biases 36·128 = 4,608 → 29,364,736;
    // MLP 3·3584·18,944 = 203,685,888; norms 7168 → 233,057,792 · 28 = 6,525,618,176
    // + 2·152,064·3584 = 1,089,994,752 + 3584 = 7,615,616,512 (the tensor list's total exactly)
    EXPECT_EQ(param_count(c).total.value(), 7615616512u);
}

TEST(HfNewFamilies, BitsAndBytes4BitIsInt4InBlocksOf64WithAbsmaxScales) {
    // Refused before ("quant_method" = "bitsandbytes" not modelled).
    const TransformerConfig c = hf("llama-3-8b-instruct-bnb-4bit");
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::int4);
    EXPECT_EQ(c.weight_format->group, 64u);
    EXPECT_EQ(c.weight_format->scale_bits, 8u);  // double quant: an 8-bit absmax code per 64 weights
    EXPECT_EQ(c.weight_format->zero_bits, 0u);
    // up_proj [K 4096, N 14,336]: 4-bit payload 4096·14,336/2 = 29,360,128 B + 14,336·4096/64 = 917,504 one-byte
    // absmax codes + the fp32 offset 4 B = 30,277,636 B
    EXPECT_EQ(format_bytes(*c.weight_format, Exact(4096), Exact(14336)).value(), 30277636u);
    EXPECT_EQ(param_count(c).total.value(), 8030261248u);  // storage does not change the count (Llama-3-8B)
    EXPECT_TRUE(has_limitation(c, "bnb_4bit_compute_dtype = float32"));
    // Without double quant: one fp32 absmax per 64: 29,360,128 + 917,504·4 = 33,030,144 B. 8-bit: int8 + one fp32 per row.
    const std::string llama =
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "bitsandbytes", )";
    const TransformerConfig plain = parse_hf_config(
        llama + R"("load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_compute_dtype": "bfloat16"}})", "x");
    EXPECT_EQ(format_bytes(*plain.weight_format, Exact(4096), Exact(14336)).value(), 33030144u);
    const TransformerConfig eight = parse_hf_config(llama + R"("load_in_8bit": true}})", "x");
    EXPECT_EQ(eight.weight_format->dtype, DType::int8);
    // 4096·14,336 B + 14,336 fp32 row scales (57,344 B) = 58,777,600 B
    EXPECT_EQ(format_bytes(*eight.weight_format, Exact(4096), Exact(14336)).value(), 58777600u);
    const std::string neither = error_of(llama + R"("load_in_4bit": false}})");
    EXPECT_NE(neither.find("load_in_4bit"), std::string::npos) << neither;
    const std::string type = error_of(llama + R"("load_in_4bit": true, "bnb_4bit_quant_type": "int4"}})");
    EXPECT_NE(type.find("bnb_4bit_quant_type"), std::string::npos) << type;
    // llm_int8_has_fp16_weight keeps the weights in fp16 (it was costed as int8): refused naming the field.
    const std::string fp16 = error_of(llama + R"("load_in_8bit": true, "llm_int8_has_fp16_weight": true}})");
    EXPECT_NE(fp16.find("llm_int8_has_fp16_weight"), std::string::npos) << fp16;
    // No quant_method, load_in_4bit true (older BitsAndBytesConfig): transformers' AutoHfQuantizer reads it as bitsandbytes
    // (refused before): the same 33,030,144 B as `plain`.
    const std::string bare = R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 1,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"load_in_4bit": true,
        "bnb_4bit_quant_type": "nf4", "bnb_4bit_compute_dtype": "bfloat16"}})";
    EXPECT_EQ(format_bytes(*parse_hf_config(bare, "x").weight_format, Exact(4096), Exact(14336)).value(), 33030144u);
}

TEST(HfNewFamilies, EveryMethodsModuleListsKeepingBlockWeightsIn16BitsAreStated) {
    // modules_to_not_convert was stated only for entries naming self_attn, llm_int8_skip_modules and ignore each by
    // their own method: now every method's lists are read the same way. An entry inside the blocks (here down_proj)
    // is stated; what the engine keeps in the activation dtype anyway (LM head, embedding, router, its bias) is not.
    const std::string llama =
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "fp8", )";
    const TransformerConfig down =
        parse_hf_config(llama + R"("modules_to_not_convert": ["lm_head", "model.layers.1.mlp.down_proj"]}})", "x");
    EXPECT_TRUE(has_limitation(down, "modules_to_not_convert keeps model.layers.1.mlp.down_proj unquantized"));
    const TransformerConfig outside = parse_hf_config(
        llama + R"("modules_to_not_convert": ["gate", "e_score_correction_bias", "lm_head", "model.embed_tokens"]}})", "x");
    EXPECT_FALSE(has_limitation(outside, "unquantized"));
    // gpt-oss keeps its attention in bf16 (the router, embedding and head are outside the blocks' format anyway): modelled
    // (TransformerConfig::kept), no longer said.
    const TransformerConfig oss = hf("gpt-oss-120b");
    EXPECT_TRUE(oss.kept.attention);
    EXPECT_FALSE(has_limitation(oss, "unquantized"));
    EXPECT_FALSE(has_limitation(hf("minimax-m2.7"), "unquantized"));
}

TEST(HfNewFamilies, Wan22DiffusersTransformerReadsAsWan14b) {
    const TransformerConfig c = hf("wan2.2-t2v-a14b-diffusers-transformer");
    ASSERT_TRUE(c.dit);
    EXPECT_EQ(c.hidden, 5120u);  // 40 heads · 128
    EXPECT_EQ(c.layers, 40u);
    // D 5120, F 13,824, 40 blocks, text 4096, freq 256, patch 1·2·2, 16 channels in and out; Linear(i, o) = i·o + o:
    //   patch 16·4·5120 + 5120 = 332,800; text 4096·5120 + 5120 + 5120² + 5120 = 47,196,160;
    //   time 256·5120 + 5120 + 5120² + 5120 = 27,535,360; projection 5120·30,720 + 30,720 = 157,317,120
    //   block: self and cross attention 2·(4·(5120² + 5120) + 2·5120 q/k norms) = 209,776,640;
    //          ffn 5120·13,824 + 13,824 + 13,824·5120 + 5120 = 141,576,704; norms 2·5120 + 6·5120 = 40,960
    //          → 351,394,304 · 40 = 14,055,772,160
    //   head 5120·64 + 64 + 2·5120 = 337,984                                  → 14,288,491,584 (one "A14B" expert)
    EXPECT_EQ(param_count(c).total.value(), 14288491584u);
}

TEST(HfNewFamilies, HybridSparseAndMmDitModelsAreRefusedNamingTheField) {
    // Each was "unsupported architecture/class" before, with no reason; now the field that decides it and why.
    const std::pair<const char*, const char*> cases[] = {
        {"qwen3-next-80b-a3b-instruct", "full_attention_interval"},
        {"kimi-linear-48b-a3b-instruct", "linear_attn_config"},
        {"deepseek-v3.2", "index_topk"},
        {"glm-5.1", "index_topk"},
        {"flux.1-dev-transformer", "num_single_layers"},
    };
    for (const auto& [file, field] : cases) {
        const std::string e = file_error_of(file);
        EXPECT_NE(e.find(field), std::string::npos) << file << ": " << e;
        EXPECT_NE(e.find("not modelled"), std::string::npos) << file << ": " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
}

TEST(HfNewFamilies, LayersTheEngineDoesNotModelAreRefusedWhateverTheClass) {
    // A supported class whose fields describe linear-attention, state-space or indexer layers is refused by field.
    const std::string llama =
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100)";
    const std::string linear = error_of(llama + R"(, "layer_types": ["linear_attention", "full_attention"]})");
    EXPECT_NE(linear.find("layer_types"), std::string::npos) << linear;
    EXPECT_NE(linear.find("linear_attention"), std::string::npos) << linear;
    const std::string mamba = error_of(llama + R"(, "mamba_d_state": 16})");
    EXPECT_NE(mamba.find("mamba_d_state"), std::string::npos) << mamba;
    const std::string indexer = error_of(llama + R"(, "index_topk": 2048})");
    EXPECT_NE(indexer.find("index_topk"), std::string::npos) << indexer;
    // Full, sliding and chunked attention layers stay accepted; null SSM fields are not a claim.
    EXPECT_EQ(error_of(llama + R"(, "layer_types": ["full_attention", "full_attention"], "mamba_d_state": null})"), "");
}

TEST(HfNewFamilies, ModelOptCheckpointsStateTheirFp8KvCacheUnquantizedAttentionAndActivations) {
    // NVIDIA's ModelOpt checkpoints (nvidia/DeepSeek-R1-FP4 and the like) write a quantised KV cache and the modules they
    // keep in 16 bits beside quant_algo; both were dropped silently before (the KV cache costed in --dtype without a word).
    const TransformerConfig c = parse_hf_config(
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100,
            "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4",
              "config_groups": {"group_0": {"weights": {"dynamic": false, "num_bits": 4, "type": "float", "group_size": 16},
                                            "input_activations": {"dynamic": false, "num_bits": 4, "type": "float",
                                                                  "group_size": 16}, "targets": ["Linear"]}},
              "ignore": ["lm_head", "model.layers.0.self_attn*"],
              "kv_cache_scheme": {"dynamic": false, "num_bits": 8, "type": "float"},
              "producer": {"name": "modelopt", "version": "0.29.0"}}})",
        "x");
    ASSERT_TRUE(c.weight_format);
    EXPECT_EQ(c.weight_format->dtype, DType::fp4);
    EXPECT_TRUE(has_limitation(c, "kv_cache_scheme quantises the KV cache"));
    EXPECT_TRUE(has_limitation(c, "model.layers.0.self_attn*"));
    EXPECT_TRUE(has_limitation(c, "--act-dtype nvfp4"));
    // The older hf_quant_config spelling: "kv_cache_quant_algo": "FP8", "exclude_modules".
    const TransformerConfig old = parse_hf_config(
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100,
            "quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8",
                                    "exclude_modules": ["lm_head"]}})",
        "x");
    EXPECT_EQ(old.weight_format->dtype, DType::fp8_e4m3);
    EXPECT_TRUE(has_limitation(old, "kv_cache_quant_algo = FP8"));
    EXPECT_FALSE(has_limitation(old, "exclude_modules"));  // the LM head stays in --dtype anyway
}

TEST(HfNewFamilies, Fp8FmtGivenAsTheTorchDtypeNameIsRead) {
    // MiniMax-M2's quantization_config says "fmt": "float8_e4m3fn"; it was refused as "not an fp8 format".
    const std::string llama =
        R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100, "quantization_config": {"quant_method": "fp8", "fmt": )";
    EXPECT_EQ(parse_hf_config(llama + R"("float8_e4m3fn", "weight_block_size": [128, 128]}})", "x").weight_format->dtype,
              DType::fp8_e4m3);
    EXPECT_EQ(parse_hf_config(llama + R"("float8_e5m2"}})", "x").weight_format->dtype, DType::fp8_e5m2);
    const std::string e = error_of(llama + R"("float16"}})");
    EXPECT_NE(e.find("quantization_config.fmt"), std::string::npos) << e;
}

TEST(HfNewFamilies, MistralSmall32WrapperReadsItsTextConfigUntied) {
    const TransformerConfig c = hf("mistral-small-3.2-24b");
    EXPECT_FALSE(c.tied_embeddings);  // no tie_word_embeddings anywhere: MistralConfig's default
    EXPECT_EQ(c.sliding_window, 0u);  // "sliding_window": null
    EXPECT_TRUE(has_limitation(c, "vision tower"));
    // attention 5120·(32 + 16)·128 + 32·128·5120 = 52,428,800; MLP 3·5120·32,768 = 503,316,480; norms 10,240
    //   → 555,755,520 · 40 = 22,230,220,800 + 2·131,072·5120 = 1,342,177,280 + 5120 = 23,572,403,200
    // (model card "24B" with the Pixtral vision tower, not counted)
    EXPECT_EQ(param_count(c).total.value(), 23572403200u);
}

TEST(HfNewFamilies, Ernie45MoeReadsItsOwnExpertKeysAndLayerRange) {
    // ERNIE-4.5-21B-A3B's fields as baidu/ERNIE-4.5-21B-A3B-PT's config.json gives them (the values agree in three
    // independent copies found in the code index; inline, not a byte-exact file). Refused before (unsupported
    // architecture).
    const std::string ernie =
        R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "hidden_act": "silu",
            "hidden_size": 2560, "intermediate_size": 12288, "max_position_embeddings": 131072, "num_attention_heads": 20,
            "num_key_value_heads": 4, "num_hidden_layers": 28, "rms_norm_eps": 1e-05, "vocab_size": 103424,
            "rope_theta": 500000, "use_bias": false, "moe_num_experts": 64, "moe_num_shared_experts": 2,
            "moe_layer_start_index": 1, "moe_layer_end_index": 27, "moe_intermediate_size": 1536, "moe_capacity": [64, 64, 64],
            "moe_gate": "topk", "moe_k": 6, "moe_layer_interval": 1, "moe_use_aux_free": true, "tie_word_embeddings": true)";
    const TransformerConfig c = parse_hf_config(ernie + "}", "x");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->experts, 64u);
    EXPECT_EQ(c.moe->top_k, 6u);
    EXPECT_EQ(c.moe->shared_experts, 2u);
    EXPECT_EQ(c.moe->dense_layers, 1u);  // layer 0 (below moe_layer_start_index)
    EXPECT_TRUE(c.tied_embeddings);
    const ParamCount p = param_count(c);
    // attention 2560·(20 + 8)·128 + 2560² = 15,728,640; norms 5120
    // layer 0: + 3·2560·12,288 = 94,371,840
    // layers 1–27: router 64·2560 + 64 (e_score_correction_bias) = 163,904; 64 experts · 3·2560·1536 (11,796,480)
    //   = 754,974,720; shared 2·11,796,480 = 23,592,960 → 778,731,584 + 15,733,760 = 794,465,344 · 27 = 21,450,564,288
    // total = 110,105,600 (layer 0) + 21,450,564,288 + tied embedding 103,424·2560 (264,765,440) + 2560
    //       = 21,825,437,888 (model card: 21B total, the Hub: 21.8B)
    EXPECT_EQ(p.total.value(), 21825437888u);
    // active: − 27·58·11,796,480 (18,473,287,680) = 3,352,150,208 ("A3B")
    EXPECT_EQ(p.active.value(), 3352150208u);
    // An interval of 2 from layer 1 to 26: sparse where (i + 1) % 2 == 0, i.e. layers 1, 3, …, 25: 13 MoE layers.
    const TransformerConfig every2 = parse_hf_config(
        R"({"architectures": ["Ernie4_5_MoeForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
            "num_attention_heads": 4, "num_hidden_layers": 28, "vocab_size": 100, "moe_num_experts": 4, "moe_k": 2,
            "moe_intermediate_size": 32, "moe_layer_start_index": 1, "moe_layer_end_index": 26, "moe_layer_interval": 2,
            "moe_num_shared_experts": 0})",
        "x");
    EXPECT_EQ(moe_layer_count(every2), 13u);
    EXPECT_FALSE(is_dense_mlp_layer(every2, 1));
    EXPECT_TRUE(is_dense_mlp_layer(every2, 2));
    EXPECT_TRUE(is_dense_mlp_layer(every2, 27));
    std::string biased = ernie + "}";
    biased.replace(biased.find(R"("use_bias": false)"), 17, R"("use_bias": true)");
    const std::string bias = error_of(biased);
    EXPECT_NE(bias.find("use_bias"), std::string::npos) << bias;
}

TEST(HfNewFamilies, Granite33_8bIsLlamasBlockWithItsMultipliersStated) {
    // Refused before (unsupported architecture GraniteForCausalLM).
    const TransformerConfig c = hf("granite-3.3-8b-instruct");
    EXPECT_FALSE(c.moe);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_FALSE(c.qk_norm);
    const ParamCount p = param_count(c);
    // attention 2·4096² + 2·1024·4096 = 41,943,040; MLP 3·4096·12,800 = 157,286,400; norms 8192 → 199,237,632 · 40
    // = 7,969,505,280 + tied embedding 49,159·4096 (201,355,264) + final norm 4096 = 8,170,864,640 (Hub: 8.17B)
    EXPECT_EQ(p.attention.value(), 41943040u);
    EXPECT_EQ(p.total.value(), 8170864640u);
    EXPECT_TRUE(has_limitation(c, "embedding_multiplier = 12.0, residual_multiplier = 0.22, logits_scaling = 16.0"));
    // Neutral multipliers are not stated; Granite's attention_bias puts biases on q, k, v and o, mlp_bias on gate, up, down.
    const std::string granite =
        R"({"architectures": ["GraniteForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
            "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "embedding_multiplier": 1.0,
            "residual_multiplier": 1, "logits_scaling": 1.0)";
    const TransformerConfig plain = parse_hf_config(granite + "}", "x");
    EXPECT_TRUE(plain.limitations.empty());
    const TransformerConfig biased = parse_hf_config(granite + R"(, "attention_bias": true})", "x");
    EXPECT_TRUE(biased.qkv_bias && biased.o_bias);
    // Refused before. GraniteMLP: 3·64·128 = 24,576 + gate and up biases 2·128 + down bias 64 = 24,896.
    EXPECT_EQ(param_count(parse_hf_config(granite + R"(, "mlp_bias": true})", "x")).mlp.value(), 24896u);
}

TEST(HfNewFamilies, GraniteMoe1bA400mCountsItsRouterAndExperts) {
    const TransformerConfig c = hf("granite-3.1-1b-a400m-instruct");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->experts, 32u);
    EXPECT_EQ(c.moe->top_k, 8u);
    EXPECT_EQ(c.moe->shared_experts, 0u);
    EXPECT_EQ(c.moe->dense_layers, 0u);
    const ParamCount p = param_count(c);
    // attention 2·1024² + 2·512·1024 = 3,145,728; router 32·1024 = 32,768 (no bias); experts 32 · 3·1024·512
    // (1,572,864) = 50,331,648; norms 2048 → 53,512,192 · 24 = 1,284,292,608 + tied embedding 49,155·1024 (50,334,720)
    // + final norm 1024 = 1,334,628,352 (model card: 1.3B total)
    EXPECT_EQ(p.total.value(), 1334628352u);
    // active: − 24 · 24 unused experts · 1,572,864 (905,969,664) = 428,658,688 (model card: 400M active)
    EXPECT_EQ(p.active.value(), 428658688u);
}

TEST(HfNewFamilies, GraniteMoeSharedReadsItsSharedMlpAsWholeExperts) {
    const std::string shared =
        R"({"architectures": ["GraniteMoeSharedForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "intermediate_size": 32, "vocab_size": 100, "num_local_experts": 8,
            "num_experts_per_tok": 2, "shared_intermediate_size": )";
    const TransformerConfig c = parse_hf_config(shared + "64}", "x");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.moe->shared_experts, 2u);  // GraniteMoeSharedMLP: a gated MLP of 64 = 2 experts of 32
    const ParamCount p = param_count(c);
    // per layer: attention 4·64² = 16,384; router 8·64 = 512; experts 8 · 3·64·32 (6144) = 49,152; shared 3·64·64
    // = 12,288; norms 128 → 78,464 · 2 = 156,928 + embedding and LM head 2·100·64 (12,800) + 64 = 169,792
    EXPECT_EQ(p.total.value(), 169792u);
    EXPECT_EQ(parse_hf_config(shared + "0}", "x").moe->shared_experts, 0u);  // 0: no shared MLP
    const std::string odd = error_of(shared + "48}");
    EXPECT_NE(odd.find("shared_intermediate_size"), std::string::npos) << odd;
}

TEST(HfNewFamilies, Olmo2_7bStatesItsWholeQkNormWeights) {
    const TransformerConfig c = hf("olmo-2-1124-7b-instruct");
    EXPECT_TRUE(c.qk_norm);
    EXPECT_FALSE(c.tied_embeddings);
    EXPECT_EQ(c.kv_heads, 32u);
    const ParamCount p = param_count(c);
    // attention 4·4096² = 67,108,864 + per-head q/k norm 2·128 = 67,109,120; MLP 3·4096·11,008 = 135,266,304;
    // norms 8192 → 202,383,616 · 32 = 6,476,275,712 + embedding and LM head 2·100,352·4096 (822,083,584) + 4096
    // = 7,298,363,392. The checkpoint's q_norm and k_norm hold 4096 + 4096 weights, not 256: 32·7936 = 253,952 more,
    // stated: 7,298,617,344 (Hub: 7.3B).
    EXPECT_EQ(p.attention.value(), 67109120u);
    EXPECT_EQ(p.total.value(), 7298363392u);
    EXPECT_TRUE(has_limitation(c, "253952 parameters in all are not counted"));
}

TEST(HfNewFamilies, Falcon3_7bGivesHeadDimExplicitly) {
    const TransformerConfig c = hf("falcon3-7b-instruct");
    EXPECT_EQ(c.head_dim, 256u);
    const ParamCount p = param_count(c);
    // attention 2·3072² + 2·1024·3072 = 25,165,824; MLP 3·3072·23,040 = 212,336,640; norms 6144 → 237,508,608 · 28
    // = 6,650,241,024 + embedding and LM head 2·131,072·3072 (805,306,368) + 3072 = 7,455,550,464 (Hub: 7.46B)
    EXPECT_EQ(p.total.value(), 7455550464u);
}

TEST(HfNewFamilies, SeedOss36bHasQkvBiasesAndNoOBias) {
    // Seed-OSS-36B's fields as a trimmed copy of its config.json gives them (code index; inline, not a byte-exact file).
    // Refused before (unsupported architecture SeedOssForCausalLM).
    const std::string seed =
        R"({"architectures": ["SeedOssForCausalLM"], "model_type": "seed_oss", "attention_bias": true,
            "attention_out_bias": false, "head_dim": 128, "hidden_size": 5120, "intermediate_size": 27648,
            "mlp_bias": false, "num_attention_heads": 80, "num_hidden_layers": 64, "num_key_value_heads": 8,
            "rms_norm_eps": 1e-06, "rope_theta": 10000000.0, "tie_word_embeddings": false, "vocab_size": 155136)";
    const TransformerConfig c = parse_hf_config(seed + "}", "x");
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.o_bias);
    const ParamCount p = param_count(c);
    // attention q 5120·10,240 + k, v 2·5120·1024 + o 10,240·5120 = 115,343,360 + q, k, v biases 10,240 + 2·1024
    // = 115,355,648; MLP 3·5120·27,648 = 424,673,280; norms 10,240 → 540,039,168 · 64 = 34,562,506,752
    // + embedding and LM head 2·155,136·5120 (1,588,592,640) + 5120 = 36,151,104,512 (model card: 36B; Hub 36.2B)
    EXPECT_EQ(p.attention.value(), 115355648u);
    EXPECT_EQ(p.total.value(), 36151104512u);
    // SeedOssConfig's defaults: biases on q, k, v unless attention_bias is false; head_dim 128 when left out (stated).
    const TransformerConfig bare = parse_hf_config(
        R"({"architectures": ["SeedOssForCausalLM"], "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 100})",
        "x");
    EXPECT_TRUE(bare.qkv_bias);
    EXPECT_EQ(bare.head_dim, 128u);  // not 512 / 8 = 64
    EXPECT_TRUE(has_limitation(bare, "head_dim = 128 (transformers' SeedOssConfig defaults"));
    // An explicit null is None, as in transformers: head_dim = hidden / heads = 512 / 8 = 64, no default stated.
    const TransformerConfig null_dim = parse_hf_config(
        R"({"architectures": ["SeedOssForCausalLM"], "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 100, "head_dim": null})",
        "x");
    EXPECT_NE(null_dim.head_dim, 128u);
    EXPECT_EQ(head_dim(null_dim), 64u);
    EXPECT_FALSE(has_limitation(null_dim, "head_dim = 128 (transformers' SeedOssConfig defaults"));
    // "attention_bias": null is no bias (SeedOssAttention's nn.Linear(bias=None)), not the default true (was true).
    const TransformerConfig null_bias = parse_hf_config(
        R"({"architectures": ["SeedOssForCausalLM"], "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 100, "attention_bias": null})",
        "x");
    EXPECT_FALSE(null_bias.qkv_bias);
}

TEST(HfNewFamilies, SmolLM3IsTiedLlamaWithWindowsOnlyOnItsNoPeLayers) {
    // SmolLM3-3B's shapes (transformers' SmolLM3Config defaults are its checkpoint's): refused before.
    const std::string smol =
        R"({"architectures": ["SmolLM3ForCausalLM"], "model_type": "smollm3", "hidden_size": 2048,
            "intermediate_size": 11008, "num_hidden_layers": 36, "num_attention_heads": 16, "num_key_value_heads": 4,
            "vocab_size": 128256, "sliding_window": 4096)";
    const TransformerConfig c = parse_hf_config(smol + R"(, "use_sliding_window": false})", "x");
    EXPECT_TRUE(c.tied_embeddings);   // SmolLM3Config: tie_word_embeddings defaults to true
    EXPECT_EQ(c.sliding_window, 0u);  // use_sliding_window false: no window although sliding_window is given
    const ParamCount p = param_count(c);
    // attention 2·2048² + 2·512·2048 = 10,485,760; MLP 3·2048·11,008 = 67,633,152; norms 4096 → 78,123,008 · 36
    // = 2,812,428,288 + tied embedding 128,256·2048 (262,668,288) + 2048 = 3,075,098,624 (Hub: 3.08B)
    EXPECT_EQ(p.total.value(), 3075098624u);
    // use_sliding_window true: the window sits on the NoPE layers, every 4th by default (layers 3, 7, …).
    const TransformerConfig w = parse_hf_config(smol + R"(, "use_sliding_window": true})", "x");
    EXPECT_EQ(w.sliding_window, 4096u);
    ASSERT_EQ(w.local_layers.size(), 36u);
    EXPECT_FALSE(w.local_layers[0]);
    EXPECT_TRUE(w.local_layers[3]);
    EXPECT_TRUE(w.local_layers[35]);
    const std::string bad = error_of(smol + R"(, "use_sliding_window": true, "no_rope_layers": [1, 0]})");
    EXPECT_NE(bad.find("no_rope_layers"), std::string::npos) << bad;
    // "no_rope_layer_interval": null without no_rope_layers: SmolLM3Config's (i + 1) % None fails; refused naming the key
    // (was read as 4).
    const std::string null_every = error_of(smol + R"(, "use_sliding_window": true, "no_rope_layer_interval": null})");
    EXPECT_NE(null_every.find("\"no_rope_layer_interval\" is null"), std::string::npos) << null_every;
}

TEST(HfNewFamilies, Olmo3WindowsThreeLayersOfFourAndNormsWholeQk) {
    const std::string olmo3 =
        R"({"architectures": ["Olmo3ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 8, "num_attention_heads": 4,
            "intermediate_size": 128, "vocab_size": 100)";
    // Olmo3Config: sliding_window 4096 when left out (stated), all layers but every 4th local.
    const TransformerConfig c = parse_hf_config(olmo3 + "}", "x");
    EXPECT_TRUE(c.qk_norm);
    EXPECT_EQ(c.sliding_window, 4096u);
    EXPECT_EQ(c.local_layers, (std::vector<bool>{true, true, true, false, true, true, true, false}));
    EXPECT_TRUE(has_limitation(c, "sliding_window = 4096 (transformers' Olmo3Config defaults"));
    // whole-Q/K norms: 8 layers · (64 + 64 − 2·16) = 768 weights stated
    EXPECT_TRUE(has_limitation(c, "768 parameters in all are not counted"));
    const TransformerConfig typed = parse_hf_config(
        olmo3 + R"(, "sliding_window": 512, "layer_types": ["full_attention", "sliding_attention", "full_attention",
            "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention"]})",
        "x");
    EXPECT_EQ(typed.sliding_window, 512u);
    EXPECT_FALSE(typed.local_layers[0]);
    EXPECT_TRUE(typed.local_layers[1]);
    // "sliding_window": null is None in Olmo3Config: no window on any layer, and no default stated.
    const TransformerConfig no_window = parse_hf_config(olmo3 + R"(, "sliding_window": null})", "x");
    EXPECT_EQ(no_window.sliding_window, 0u);
    EXPECT_FALSE(has_limitation(no_window, "sliding_window = 4096 (transformers' Olmo3Config defaults"));
}

TEST(HfNewFamilies, DbrxNestedFieldsReadAsMixtralsBlock) {
    // Refused before (unsupported architecture DbrxForCausalLM); its attention and MoE fields sit in attn_config and
    // ffn_config.
    const TransformerConfig c = hf("dbrx-instruct");
    ASSERT_TRUE(c.moe);
    EXPECT_EQ(c.kv_heads, 8u);
    EXPECT_EQ(c.moe->experts, 16u);
    EXPECT_EQ(c.moe->top_k, 4u);
    EXPECT_EQ(c.moe->expert_ffn, 10752u);
    EXPECT_FALSE(c.tied_embeddings);
    const ParamCount p = param_count(c);
    // attention Wqkv 6144·(6144 + 2·1024) = 50,331,648 + out_proj 6144² = 37,748,736 → 88,080,384; router 16·6144
    // = 98,304; experts 16 · 3·6144·10,752 (198,180,864) = 3,170,893,824; norms 2·6144 → 3,259,084,800 · 40
    // = 130,363,392,000 + embedding and LM head 2·100,352·6144 (1,233,125,376) + 6144 = 131,596,523,520
    // (model card: 132B total)
    EXPECT_EQ(p.total.value(), 131596523520u);
    // active: − 40 · 12 unused experts · 198,180,864 (95,126,814,720) = 36,469,708,800 (model card: 36B active)
    EXPECT_EQ(p.active.value(), 36469708800u);
    EXPECT_TRUE(has_limitation(c, "attn_config.clip_qkv = 8"));
    EXPECT_TRUE(has_limitation(c, "LayerNorms have no bias"));
    // A missing nested field is named with its object; another activation is refused by name.
    const std::string dbrx =
        R"({"architectures": ["DbrxForCausalLM"], "d_model": 64, "n_heads": 4, "n_layers": 2, "vocab_size": 100,
            "attn_config": {"kv_n_heads": 2}, "ffn_config": {"ffn_hidden_size": 32, "moe_top_k": 2)";
    const std::string missing = error_of(dbrx + "}}");
    EXPECT_NE(missing.find("ffn_config"), std::string::npos) << missing;
    EXPECT_NE(missing.find("moe_num_experts"), std::string::npos) << missing;
    EXPECT_EQ(error_of(dbrx + R"(, "moe_num_experts": 4, "ffn_act_fn": {"name": "silu"}}})"), "");
    const std::string gelu = error_of(dbrx + R"(, "moe_num_experts": 4, "ffn_act_fn": {"name": "gelu"}}})");
    EXPECT_NE(gelu.find("ffn_act_fn.name"), std::string::npos) << gelu;
    const std::string flat =
        error_of(R"({"architectures": ["DbrxForCausalLM"], "d_model": 64, "n_heads": 4, "n_layers": 2, "vocab_size": 100})");
    EXPECT_NE(flat.find("attn_config"), std::string::npos) << flat;
    // kv_n_heads 3 does not divide n_heads 4: named as DBRX spells it, in attn_config.
    const std::string kv = error_of(
        R"({"architectures": ["DbrxForCausalLM"], "d_model": 64, "n_heads": 4, "n_layers": 2, "vocab_size": 100,
            "attn_config": {"kv_n_heads": 3}, "ffn_config": {"ffn_hidden_size": 32, "moe_top_k": 2, "moe_num_experts": 4}})");
    EXPECT_NE(kv.find("attn_config: \"kv_n_heads\" (3) must divide the top level's \"n_heads\" (4)"), std::string::npos) << kv;
}

TEST(HfNewFamilies, Exaone4HasPerHeadQkNormsAndItsWindowPattern) {
    const std::string exaone =
        R"({"architectures": ["Exaone4ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 8, "num_attention_heads": 4,
            "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100)";
    // Exaone4Config: sliding_window 4096 when left out (stated), local on all layers but every 4th.
    const TransformerConfig c = parse_hf_config(exaone + "}", "x");
    EXPECT_TRUE(c.qk_norm);
    EXPECT_FALSE(c.qkv_bias);
    EXPECT_EQ(c.sliding_window, 4096u);
    EXPECT_EQ(c.local_layers, (std::vector<bool>{true, true, true, false, true, true, true, false}));
    const ParamCount p = param_count(c);
    // per layer: q, o 2·64² = 8192 + k, v 2·32·64 = 4096 + per-head q/k norms 2·16 = 32 (exact: Exaone4's q_norm and
    // k_norm have head_dim weights); MLP 3·64·128 = 24,576; norms 128 → 37,024 · 8 = 296,192 + 2·100·64 + 64 = 309,056
    EXPECT_EQ(p.total.value(), 309056u);
    // A null window: none. "LLLG" without layer_types: refused (transformers' config cannot expand it either).
    EXPECT_EQ(parse_hf_config(exaone + R"(, "sliding_window": null})", "x").sliding_window, 0u);
    const std::string lllg = error_of(exaone + R"(, "sliding_window": 4096, "sliding_window_pattern": "LLLG"})");
    EXPECT_NE(lllg.find("sliding_window_pattern"), std::string::npos) << lllg;
    const TransformerConfig typed = parse_hf_config(
        exaone + R"(, "sliding_window": 4096, "sliding_window_pattern": "LLLG", "layer_types": ["sliding_attention",
            "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
            "sliding_attention", "full_attention"]})",
        "x");
    EXPECT_TRUE(typed.local_layers[0]);
    EXPECT_FALSE(typed.local_layers[3]);
}

TEST(HfNewFamilies, StableLm2HasLayerNormsAndQkvBiasesAndRefusesItsParallelBlock) {
    // StableLM 2 1.6B's shapes (stabilityai/stablelm-2-1_6b: hidden 2048, 24 layers, 32 heads, MLP 5632, vocab 100,352,
    // use_qkv_bias, sequential block); inline, not a byte-exact file. Refused before (unsupported architecture).
    const std::string stablelm =
        R"({"architectures": ["StableLmForCausalLM"], "hidden_act": "silu", "hidden_size": 2048, "intermediate_size": 5632,
            "layer_norm_eps": 1e-05, "num_attention_heads": 32, "num_hidden_layers": 24, "num_key_value_heads": 32,
            "partial_rotary_factor": 0.25, "tie_word_embeddings": false, "use_qkv_bias": true, "vocab_size": 100352)";
    const TransformerConfig c = parse_hf_config(stablelm + R"(, "use_parallel_residual": false, "qk_layernorm": false})", "x");
    EXPECT_EQ(c.norm, NormKind::layernorm);
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.o_bias);
    const ParamCount p = param_count(c);
    // attention 4·2048² = 16,777,216 + q, k, v biases 3·2048 = 16,783,360; MLP 3·2048·5632 = 34,603,008; two LayerNorms
    // 4·2048 = 8192 → 51,394,560 · 24 = 1,233,469,440 + embedding and LM head 2·100,352·2048 (411,041,792) + final
    // LayerNorm 4096 = 1,644,515,328 (model card: 1.6B; Hub 1.64B)
    EXPECT_EQ(p.total.value(), 1644515328u);
    const std::string parallel = error_of(stablelm + R"(, "use_parallel_residual": true})");
    EXPECT_NE(parallel.find("use_parallel_residual"), std::string::npos) << parallel;
    const std::string qk = error_of(stablelm + R"(, "qk_layernorm": true})");
    EXPECT_NE(qk.find("qk_layernorm"), std::string::npos) << qk;
}

TEST(HfNewFamilies, InternLM2ReadsItsBiasFlagAndRefusesItsAbsence) {
    // InternLM2-7B's shapes (hidden 4096, 32 layers, 32 query / 8 KV heads, MLP 14,336, vocab 92,544, "bias": false);
    // inline, not a byte-exact file. Refused before (unsupported architecture).
    const std::string internlm =
        R"({"architectures": ["InternLM2ForCausalLM"], "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 14336,
            "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
            "tie_word_embeddings": false, "vocab_size": 92544)";
    const TransformerConfig c = parse_hf_config(internlm + R"(, "bias": false})", "x");
    EXPECT_FALSE(c.qkv_bias || c.o_bias);
    const ParamCount p = param_count(c);
    // attention 2·4096² + 2·1024·4096 = 41,943,040; MLP 3·4096·14,336 = 176,160,768; norms 8192 → 218,112,000 · 32
    // = 6,979,584,000 + embedding and LM head 2·92,544·4096 (758,120,448) + 4096 = 7,737,708,544 (Hub: 7.74B)
    EXPECT_EQ(p.total.value(), 7737708544u);
    const TransformerConfig biased = parse_hf_config(internlm + R"(, "bias": true})", "x");
    EXPECT_TRUE(biased.qkv_bias && biased.o_bias);
    // + 32 · ((32 + 16)·128 + 4096) = 32 · 10,240 = 327,680
    EXPECT_EQ(param_count(biased).total.value(), 7737708544u + 327680u);
    const std::string missing = error_of(internlm + "}");
    EXPECT_NE(missing.find("\"bias\""), std::string::npos) << missing;
}

TEST(HfNewFamilies, AWindowIsAppliedOnlyWhereTheReferenceAttentionHasOne) {
    // LlamaAttention (and Granite, OLMo 2, Seed-OSS, StableLM, InternLM2 built like it) passes no sliding_window and
    // masks causally: a sliding_window in a LlamaForCausalLM file is stated, not applied (it was applied to every
    // layer, as Mistral's is). MistralForCausalLM keeps it.
    const std::string fields = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "intermediate_size": 128, "vocab_size": 100, "sliding_window": 4096})";
    const TransformerConfig llama = parse_hf_config(R"({"architectures": ["LlamaForCausalLM"], )" + fields, "x");
    EXPECT_EQ(llama.sliding_window, 0u);
    EXPECT_TRUE(has_limitation(llama, "sliding_window = 4096 is not applied: LlamaForCausalLM's attention"));
    const TransformerConfig olmo2 = parse_hf_config(R"({"architectures": ["Olmo2ForCausalLM"], )" + fields, "x");
    EXPECT_EQ(olmo2.sliding_window, 0u);
    const TransformerConfig mistral = parse_hf_config(R"({"architectures": ["MistralForCausalLM"], )" + fields, "x");
    EXPECT_EQ(mistral.sliding_window, 4096u);
    EXPECT_TRUE(mistral.local_layers.empty());  // every layer
}

TEST(HfNewFamilies, Gemma1IsGeluGatedAndTiedWithTwoNormsPerBlock) {
    // Gemma 7B's shapes (google/gemma-7b: hidden 3072, 28 layers, 16 heads of 256, MLP 24,576, vocab 256,000); inline,
    // not a byte-exact file. Refused before (unsupported architecture GemmaForCausalLM).
    const std::string gemma =
        R"({"architectures": ["GemmaForCausalLM"], "head_dim": 256, "hidden_size": 3072, "intermediate_size": 24576,
            "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 16, "vocab_size": 256000, )";
    const TransformerConfig c = parse_hf_config(gemma + R"("hidden_activation": "gelu_pytorch_tanh"})", "x");
    EXPECT_TRUE(c.gelu_gate);
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.block_norms, 2u);
    EXPECT_FALSE(c.qk_norm);
    EXPECT_TRUE(c.limitations.empty());
    const ParamCount p = param_count(c);
    // attention 4 · 3072·4096 = 50,331,648; MLP 3·3072·24,576 = 226,492,416; norms 6144 → 276,830,208 · 28
    // = 7,751,245,824 + tied embedding 256,000·3072 (786,432,000) + 3072 = 8,537,680,896 (Gemma 7B: 8.54B)
    EXPECT_EQ(p.total.value(), 8537680896u);
    // Its first file said "hidden_act": "gelu" with no hidden_activation: vLLM and transformers 4.40-4.47 run the tanh
    // form, transformers >= 4.48 the erf form (stated); another hidden_activation is refused.
    const TransformerConfig erf = parse_hf_config(gemma + R"("hidden_act": "gelu"})", "x");
    EXPECT_TRUE(has_limitation(erf, "hidden_act = \"gelu\" with hidden_activation null"));
    const std::string relu = error_of(gemma + R"("hidden_activation": "relu"})");
    EXPECT_NE(relu.find("hidden_activation"), std::string::npos) << relu;
}

TEST(HfNewFamilies, Ministral3TextConfigIsMistralWithItsQScaleStated) {
    // Ministral 3's wrapper: Mistral3ForConditionalGeneration whose text_config has model_type "ministral3" (refused
    // before: "expected mistral"). Its language model is Mistral's; the Q scale by position is stated.
    const std::string text = R"("hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 32, "intermediate_size": 128, "vocab_size": 100, "sliding_window": null,
        "rope_parameters": {"rope_type": "yarn", "llama_4_scaling_beta": 0.1, "original_max_position_embeddings": 16384})";
    const TransformerConfig c = parse_hf_config(
        R"({"architectures": ["Mistral3ForConditionalGeneration"], "text_config": {"model_type": "ministral3", )" + text + "}}",
        "x");
    const TransformerConfig mistral = parse_hf_config(R"({"architectures": ["MistralForCausalLM"], )" + text + "}", "x");
    // per layer: q, o 2·64·128 = 16,384 + k, v 2·64·64 = 8192; MLP 3·64·128 = 24,576; norms 128 → 49,280 · 2 = 98,560
    // + untied 2·100·64 (12,800) + 64 = 111,424, as Mistral's
    EXPECT_EQ(param_count(c).total.value(), 111424u);
    EXPECT_EQ(param_count(mistral).total.value(), 111424u);
    EXPECT_TRUE(has_limitation(c, "llama_4_scaling_beta = 0.1"));
    EXPECT_TRUE(has_limitation(c, "read as Ministral3ForCausalLM"));
    // Another text model type is still refused by name.
    const std::string other = error_of(
        R"({"architectures": ["Mistral3ForConditionalGeneration"], "text_config": {"model_type": "llama", )" + text + "}}");
    EXPECT_NE(other.find("text_config.model_type"), std::string::npos) << other;
}

TEST(HfNewFamilies, BlocksTheEngineDoesNotDescribeAreRefusedNamingTheField) {
    // Refused before as an unsupported architecture with the supported list only; now with the deciding field and why.
    const std::pair<const char*, const char*> cases[] = {
        {"GPTNeoXForCausalLM", "use_parallel_residual"},
        {"FalconForCausalLM", "parallel_attn"},
        {"Starcoder2ForCausalLM", "use_bias"},
        {"HunYuanMoEV1ForCausalLM", "moe_intermediate_size"},
        {"Gemma3nForConditionalGeneration", "altup_num_inputs"},
    };
    for (const auto& [cls, field] : cases) {
        const std::string e = error_of(fmt::format(
            R"({{"architectures": ["{}"], "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4}})", cls));
        EXPECT_NE(e.find(field), std::string::npos) << cls << ": " << e;
        EXPECT_NE(e.find("not modelled"), std::string::npos) << cls << ": " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
}

TEST(HfNewFamilies, Glm4DenseHasQkvBiasesNoOBiasAndFourNormsPerBlock) {
    // GLM-4-9B-0414's shapes (transformers' Glm4Config defaults are its checkpoint's: hidden 4096, 40 layers, 32 query /
    // 2 KV heads of 128, MLP 13,696, vocab 151,552, attention_bias); refused before (unsupported architecture).
    const std::string fields = R"("hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32,
        "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 13696, "vocab_size": 151552,
        "attention_bias": true, "partial_rotary_factor": 0.5, "tie_word_embeddings": false})";
    const TransformerConfig c = parse_hf_config(R"({"architectures": ["Glm4ForCausalLM"], )" + fields, "x");
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_FALSE(c.o_bias);
    EXPECT_EQ(c.block_norms, 4u);
    // attention 2·4096² + 2·256·4096 = 35,651,584 + q, k, v biases 4096 + 2·256 = 35,656,192; MLP 3·4096·13,696
    // = 168,296,448; four norms 16,384 → 203,969,024 · 40 = 8,158,760,960 + embedding and LM head 2·151,552·4096
    // (1,241,513,984) + 4096 = 9,400,279,040 (Hub: 9.4B)
    EXPECT_EQ(param_count(c).total.value(), 9400279040u);
    // GlmForCausalLM (glm-4-9b-chat-hf): the same block with two norms: − 40 · 8192 = 9,399,951,360
    const TransformerConfig glm = parse_hf_config(R"({"architectures": ["GlmForCausalLM"], )" + fields, "x");
    EXPECT_EQ(glm.block_norms, 2u);
    EXPECT_EQ(param_count(glm).total.value(), 9399951360u);
    // GlmConfig's defaults when left out: head_dim 128, attention_bias true (stated).
    const TransformerConfig bare = parse_hf_config(
        R"({"architectures": ["GlmForCausalLM"], "hidden_size": 512, "num_hidden_layers": 2, "num_attention_heads": 8,
            "intermediate_size": 128, "vocab_size": 100})",
        "x");
    EXPECT_EQ(bare.head_dim, 128u);
    EXPECT_TRUE(bare.qkv_bias);
    EXPECT_TRUE(has_limitation(bare, "transformers' GlmConfig defaults"));
}

TEST(HfNewFamilies, Qwen2VlReadsItsTopLevelLanguageModelAsQwen2) {
    // Qwen2-VL-7B-Instruct's language-model fields at the top level (as Qwen2.5-VL's before transformers 4.53); inline,
    // not a byte-exact file. Refused before (unsupported architecture).
    const TransformerConfig c = parse_hf_config(
        R"({"architectures": ["Qwen2VLForConditionalGeneration"], "model_type": "qwen2_vl", "hidden_act": "silu",
            "hidden_size": 3584, "intermediate_size": 18944, "num_attention_heads": 28, "num_hidden_layers": 28,
            "num_key_value_heads": 4, "vocab_size": 152064, "tie_word_embeddings": false, "sliding_window": 32768,
            "use_sliding_window": false, "max_window_layers": 28,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}, "vision_config": {"depth": 32}})",
        "x");
    EXPECT_TRUE(c.qkv_bias);
    EXPECT_EQ(c.sliding_window, 0u);
    EXPECT_TRUE(has_limitation(c, "vision tower"));
    // Qwen2-7B's language model: 7,615,616,512 (as qwen2-7b-instruct's tensor list; the card's 8.29B adds the vision
    // tower, not counted)
    EXPECT_EQ(param_count(c).total.value(), 7615616512u);
}
