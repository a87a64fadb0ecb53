// Published config.json files found in the thirteenth session, vendored in public GitHub copies of their Hub
// repositories (tests/data/models/*.src.txt), two of them beside their model.safetensors.index.json, whose total_size the
// counts below meet exactly; and MLX's "quantization", which left alone had the weights pass for 16-bit.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/text_file.h"
#include "bwacct/transformer.h"
#include "hf_test_util.h"

using namespace bwacct;
using bwacct_test::error_of;
using bwacct_test::file_error_of;
using bwacct_test::has_limitation;
using bwacct_test::hf;

namespace {

// tests/data/models/<name>.config.json, parsed.
nlohmann::json model_json(const std::string& name) {
    std::ifstream in(bwacct_test::model_file(name));
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

}  // namespace

TEST(HfVendoredFiles, CogitoQwen14bMeetsItsIndexTotalSize) {
    // Qwen2ForCausalLM with a vocabulary of 151,665. Attention 5120·5120·2 (q, o) + 5120·1024·2 (k, v) = 62,914,560 + q, k,
    // v biases 5120 + 2·1024 = 62,921,728; MLP 3·5120·13,824 = 212,336,640; norms 10,240 → 275,268,608 · 48 =
    // 13,212,893,184 + 2·151,665·5120 (1,553,049,600) + 5120 = 14,765,947,904: the index's total_size 29,531,895,808 B / 2.
    const TransformerConfig c = hf("cogito-v1-preview-qwen-14b");
    EXPECT_TRUE(c.local_layers.empty());  // sliding_window 131072, use_sliding_window false: no window
    EXPECT_EQ(param_count(c).total.value(), 14765947904u);
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 29531895808u);
}

TEST(HfVendoredFiles, SmolLM3WithoutTieWordEmbeddingsIsTied) {
    // No tie_word_embeddings key: SmolLM3Config's default (tied). Attention 2048·2048·2 + 2048·512·2 = 10,485,760; MLP
    // 3·2048·11,008 = 67,633,152; norms 4096 → 78,123,008 · 36 = 2,812,428,288 + one 128,256·2048 table (262,668,288) + 2048
    // = 3,075,098,624 (3.08B). layer_types all full_attention, sliding_window null: no window.
    const TransformerConfig c = hf("smollm3-3b");
    EXPECT_TRUE(c.tied_embeddings);
    EXPECT_EQ(c.sliding_window, 0u);
    EXPECT_EQ(param_count(c).total.value(), 3075098624u);
}

TEST(HfVendoredFiles, MedGemma27bLanguageModelIsTheIndexLessItsVisionTower) {
    // Gemma 3 27B: q 5376·4096 + k, v 5376·2048·2 + o 4096·5376 = 66,060,288 + q/k norms 256; MLP 3·5376·21,504 =
    // 346,816,512; four norms 21,504 → 412,898,560 · 62 = 25,599,710,720 + the tied 262,208·5376 table (1,409,630,208) +
    // 5376 = 27,009,346,304. The index's total_size 54,864,813,280 B / 2 = 27,432,406,640 holds the SigLIP tower and
    // projector too (423,060,336, stated as not counted).
    const TransformerConfig c = hf("medgemma-27b-it");
    EXPECT_EQ(param_count(c).total.value(), 27009346304u);
    EXPECT_EQ(c.sliding_window, 1024u);
    ASSERT_EQ(c.local_layers.size(), 62u);
    EXPECT_TRUE(c.local_layers[0]);
    EXPECT_FALSE(c.local_layers[5]);  // layer_types: every 6th full
    EXPECT_TRUE(has_limitation(c, "vision tower"));
}

TEST(HfVendoredFiles, LlamaMlpBiasesAreCounted) {
    // Refused before ("mlp_bias" = true is not modelled). LlamaMLP's gate, up and down biases: 2·10,240 + 2560 = 23,040 per
    // layer. Attention 4·2560² = 26,214,400 + q, k, v biases 3·2560 + o bias 2560 = 26,224,640; MLP 3·2560·10,240 =
    // 78,643,200 + 23,040 = 78,666,240; norms 5120 → 104,896,000 · 32 = 3,356,672,000 + the tied 49,152·2560 table
    // (125,829,120) + 2560 = 3,482,503,680 (Hub 3.48B).
    const TransformerConfig c = hf("granite-3b-code-instruct-128k");
    EXPECT_TRUE(c.mlp_bias);
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.mlp.value(), 78666240u);
    EXPECT_EQ(p.total.value(), 3482503680u);
    // Bytes: every parameter in bf16. 2 · 3,482,503,680 = 6,965,007,360, the index's total_size (ashishn-08's copy).
    EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 6965007360u);
    // tp 8: gate and up biases split with their columns, the down bias replicated (vLLM's MergedColumnParallelLinear,
    // RowParallelLinear). Per layer per rank: q, k, v 2560 · 12 · 80 = 2,457,600 + o 320 · 2560 = 819,200 + q, k, v
    // biases 960; MLP 3 · 2560 · 1280 = 9,830,400 + gate/up biases 2 · 1280 = 2560; replicated norms 5120, o bias 2560,
    // down bias 2560 → 13,120,960 · 2 B · 32 = 839,741,440 + the tied table 49,152 · 2560 / 8 · 2 B = 31,457,280 + final
    // norm 5120 = 871,203,840 B. Before, the gate/up biases were replicated: 2 · 10,240 − 2560 = 17,920 more parameters
    // per layer, 872,350,720 B.
    LayerRun tp8;
    tp8.tp = 8;
    EXPECT_EQ(weight_bytes_per_rank(c, tp8).value(), 871203840u);
    // Families whose MLP has no bias field keep refusing it (MistralMLP, Qwen2MLP: transformers ignores the key).
    const std::string e = error_of(R"({"architectures": ["MistralForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
        "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100, "mlp_bias": true})");
    EXPECT_NE(e.find("\"mlp_bias\" = true is not modelled"), std::string::npos) << e;
}

TEST(HfVendoredFiles, MlxQuantizationIsRefusedWithOrWithoutAQuantizationConfig) {
    // The vendored MLX file writes both keys (no quant_method): refused, naming MLX.
    const std::string both = file_error_of("qwen3-14b-mlx-4bit");
    EXPECT_NE(both.find("MLX's group_size and bits"), std::string::npos) << both;
    // "quantization" alone (older mlx-lm conversions) was read as a 16-bit checkpoint: 7,248,023,552 parameters at 2 B each
    // for Mistral-7B-v0.3's shape, where MLX stores 4-bit codes with a 16-bit scale and bias per 64. Now refused.
    const std::string base = R"({"architectures": ["MistralForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100, )";
    const std::string alone = error_of(base + R"("quantization": {"group_size": 64, "bits": 4}})");
    EXPECT_NE(alone.find("\"quantization\" (group_size 64, bits 4) is not modelled: MLX's group-quantized format"),
              std::string::npos)
        << alone;
    EXPECT_EQ(alone.find('\n'), std::string::npos);
    // mlx-lm's mixed-precision files add one entry per overridden layer (thousands in a large model): counted, not printed
    // (the whole object was before).
    const std::string mixed = error_of(base + R"("quantization": {"group_size": 64, "bits": 4,
        "model.layers.0.mlp.gate_proj": {"group_size": 64, "bits": 8}, "model.layers.1.mlp.gate_proj": false}})");
    EXPECT_NE(mixed.find("(group_size 64, bits 4, 2 per-layer entries)"), std::string::npos) << mixed;
    EXPECT_EQ(mixed.find("model.layers"), std::string::npos) << mixed;
    // Not MLX's object: refused, saying what MLX writes there.
    const std::string text = error_of(base + R"("quantization": "int4"})");
    EXPECT_NE(text.find("\"quantization\" = \"int4\" is not modelled: MLX writes {\"group_size\", \"bits\"} there"),
              std::string::npos)
        << text;
    // false and {} give no group_size or bits (mlx-lm's load_model fails on them; transformers ignores the key): read as
    // unquantized, and said. Attention 64·64·2 + 64·32·2 = 12,288, MLP 3·64·128 = 24,576, norms 128 → 36,992 · 2 layers +
    // two 100·64 tables + 64 = 86,848 parameters, 2 B each = 173,696 B. Before, both were refused as MLX's format.
    for (const char* none : {"false", "{}"}) {
        const TransformerConfig c = parse_hf_config(base + "\"quantization\": " + none + "}", "--hf-config x.json");
        EXPECT_FALSE(c.weight_format);
        EXPECT_EQ(weight_bytes_per_rank(c, LayerRun{}).value(), 173696u);
        EXPECT_TRUE(has_limitation(c, "gives no group_size or bits: read as unquantized"));
    }
    // Also when it sits at the top level of a multimodal wrapper whose text_config has no quantization of its own.
    const std::string wrapped = error_of(R"({"architectures": ["Mistral3ForConditionalGeneration"],
        "quantization": {"group_size": 64, "bits": 4}, "text_config": {"model_type": "mistral", "hidden_size": 64,
        "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
        "vocab_size": 100, "sliding_window": null}})");
    EXPECT_NE(wrapped.find("MLX's group-quantized format"), std::string::npos) << wrapped;
    // A null "quantization" is no format: read as before.
    EXPECT_EQ(error_of(base + R"("quantization": null})"), "");
    // The cut falls between UTF-8 characters. "é" is 2 bytes (C3 A9): 30 of them dump as '"' + 60 B + '"'; 40 bytes would
    // end on the first byte of the 20th é (the quote + 19 é = 39 B), so the cut keeps 39. In an object field (20 B): the
    // quote + 9 é = 19 B. Before, the message ended in a lone C3 byte (invalid UTF-8).
    auto e_times = [](int n) {
        std::string out;
        for (int i = 0; i < n; ++i)
            out += "\xC3\xA9";  // é
        return out;
    };
    const std::string cut = error_of(base + "\"quantization\": \"" + e_times(30) + "\"}");
    EXPECT_NE(cut.find("\"quantization\" = \"" + e_times(19) + "... is not modelled"), std::string::npos) << cut;
    const std::string field = error_of(base + "\"quantization\": {\"group_size\": \"" + e_times(30) + "\", \"bits\": 4}}");
    EXPECT_NE(field.find("(group_size \"" + e_times(9) + "..., bits 4)"), std::string::npos) << field;
    for (const std::string& message : {cut, field}) {
        std::size_t repaired = 0;
        (void)valid_utf8(message, repaired);
        EXPECT_EQ(repaired, 0u) << message;
    }
}

TEST(HfVendoredFiles, KimiVlIsReadAsMoonlightsLanguageModel) {
    // Refused before (unsupported architecture KimiVLForConditionalGeneration). Its text_config is Moonlight's shape
    // (DeepseekV3Config, q_lora_rank null): attention 13,763,072; dense layer 0 82,973,184; MoE layers 584,847,936 · 26 =
    // 15,206,046,336; two vocab tables 671,088,640 and the final norm 2048 → 15,960,110,208 (the same arithmetic as
    // HfPublishedFiles.MoonlightIsDeepSeekV3sMlaWithoutAQueryLora); the MoonViT tower is stated as not counted.
    const TransformerConfig c = parse_hf_config(R"({"architectures": ["KimiVLForConditionalGeneration"],
        "model_type": "kimi_vl", "text_config": {"vocab_size": 163840, "hidden_size": 2048, "intermediate_size": 11264,
        "moe_intermediate_size": 1408, "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
        "n_shared_experts": 2, "n_routed_experts": 64, "kv_lora_rank": 512, "q_lora_rank": null, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "qk_nope_head_dim": 128, "topk_method": "noaux_tc", "num_experts_per_tok": 6,
        "moe_layer_freq": 1, "first_k_dense_replace": 1, "tie_word_embeddings": false, "model_type": "deepseek_v3"},
        "vision_config": {"model_type": "moonvit"}})",
                                                "--hf-config kimi-vl.json");
    ASSERT_TRUE(c.mla);
    EXPECT_EQ(param_count(c).total.value(), 15960110208u);
    EXPECT_TRUE(has_limitation(c, "KimiVLForConditionalGeneration is multimodal"));
    // Another text_config.model_type is refused, as for every wrapper.
    const std::string e = error_of(R"({"architectures": ["KimiVLForConditionalGeneration"],
        "text_config": {"model_type": "llama", "hidden_size": 64}})");
    EXPECT_NE(e.find("\"text_config.model_type\" = \"llama\" is not modelled"), std::string::npos) << e;
}

TEST(HfVendoredFiles, KimiTextConfigsWithoutTheirClassDefaultsAreNotReadAsZero) {
    // transformers' save_pretrained (to_diff_dict) leaves out of a nested text_config every field equal to its class's
    // default. Kimi-K2.5's class is transformers' DeepseekV3Config: hidden 7168, intermediate 18,432, expert 2048, 61 layers,
    // 1 shared expert, kv_lora_rank 512, q_lora_rank 1536, head dims 64/128/128, top-8 are all its defaults. Kimi-K2.5's
    // file with them left out is the same model: 1,026,408,232,448 parameters (HfPublishedFiles.KimiK25IsKimiK2...).
    // Before, hidden_size was refused as missing; with only q_lora_rank and n_shared_experts left out they were read as
    // 0 (q as one 7168 → 64 · 192 matrix, no shared expert): another model, silently.
    nlohmann::json k25 = model_json("kimi-k2.5");
    nlohmann::json& t = k25["text_config"];
    nlohmann::json two = k25;
    two["text_config"].erase("q_lora_rank");
    two["text_config"].erase("n_shared_experts");
    for (const char* key :
         {"hidden_size", "intermediate_size", "moe_intermediate_size", "num_hidden_layers", "n_shared_experts", "kv_lora_rank",
          "q_lora_rank", "qk_rope_head_dim", "v_head_dim", "qk_nope_head_dim", "num_experts_per_tok"})
        t.erase(key);
    const TransformerConfig c = parse_hf_config(k25.dump(), "--hf-config k25.json");
    EXPECT_EQ(param_count(c).total.value(), 1026408232448u);
    EXPECT_TRUE(has_limitation(c, "(transformers' DeepseekV3Config defaults, taken here)"));
    EXPECT_EQ(param_count(parse_hf_config(two.dump(), "--hf-config k25.json")).total.value(), 1026408232448u);

    // Kimi-VL's text_config class differs by copy: its remote code's (DeepSeek-V3's configuration_deepseek.py: q_lora_rank
    // 1536, 1 shared expert, 3 dense layers) and NVIDIA NeMo's (null, 2, 1). Left out, those three are refused, saying
    // why; before they were read as 0 (no shared expert: 15,960,110,208 − 26 MoE layers · 2 · 3 · 2048 · 1408
    // (449,839,104) = 15,510,271,104, silently).
    const std::string vl_base = R"({"architectures": ["KimiVLForConditionalGeneration"], "text_config": {"vocab_size": 163840,
        "hidden_size": 2048, "intermediate_size": 11264, "moe_intermediate_size": 1408, "num_hidden_layers": 27,
        "num_attention_heads": 16, "num_key_value_heads": 16, "n_routed_experts": 64, "num_experts_per_tok": 6,
        "model_type": "deepseek_v3", )";
    const std::string no_shared = error_of(vl_base + R"("q_lora_rank": null, "first_k_dense_replace": 1}})");
    EXPECT_NE(no_shared.find("missing \"text_config.n_shared_experts\": transformers leaves out of a nested text_config the "
                             "fields equal to its class's defaults"),
              std::string::npos)
        << no_shared;
    EXPECT_NE(no_shared.find("1 in Kimi-VL's remote code but 2 in NVIDIA NeMo's copy"), std::string::npos) << no_shared;
    EXPECT_NE(error_of(vl_base + R"("n_shared_experts": 2, "first_k_dense_replace": 1}})").find("text_config.q_lora_rank"),
              std::string::npos);
    EXPECT_NE(error_of(vl_base + R"("n_shared_experts": 2, "q_lora_rank": null}})").find("text_config.first_k_dense_replace"),
              std::string::npos);
    // The fields every copy defaults alike (kv_lora_rank 512, head dims 64/128/128, moe_layer_freq 1, topk_method
    // noaux_tc: the router's 64-expert bias) are taken: the same 15,960,110,208 as the full file above. Before, a
    // left-out kv_lora_rank was refused without the reason, and a left-out topk_method dropped the router bias
    // (26 MoE layers · 64 = 1664 parameters).
    const TransformerConfig vl =
        parse_hf_config(vl_base + R"("n_shared_experts": 2, "q_lora_rank": null, "first_k_dense_replace": 1}})", "--hf-config x");
    EXPECT_EQ(param_count(vl).total.value(), 15960110208u);
    EXPECT_TRUE(has_limitation(vl, "topk_method = \"noaux_tc\""));
}

TEST(HfVendoredFiles, DeepseekV3WithoutTopkMethodKeepsTheRouterBias) {
    // transformers' DeepseekV3Config has no topk_method, and its DeepseekV3TopkRouter always registers
    // e_score_correction_bias (E parameters per MoE layer); DeepSeek-V3's remote configuration_deepseek.py defaults to
    // noaux_tc. Before, a DeepseekV3ForCausalLM without the key lost that bias.
    // Kimi-K2.5 with an empty text_config is DeepSeek-V3 (every field its class's default): 671,026,419,200 as
    // tests/unit/test_hf_config.cpp's deepseek-v3; before 671,026,419,200 − 58 MoE layers · 256 (14,848) = 671,026,404,352.
    const TransformerConfig empty =
        parse_hf_config(R"({"architectures": ["KimiK25ForConditionalGeneration"], "text_config": {"model_type": "deepseek_v3"}})",
                        "--hf-config k25.json");
    EXPECT_EQ(param_count(empty).total.value(), 671026419200u);
    // The real Kimi-K2.5 without topk_method: 1,026,408,232,448 (the full file); before − 60 · 384 (23,040) =
    // 1,026,408,209,408.
    nlohmann::json k25 = model_json("kimi-k2.5");
    k25["text_config"].erase("topk_method");
    EXPECT_EQ(param_count(parse_hf_config(k25.dump(), "--hf-config k25.json")).total.value(), 1026408232448u);
    // A top-level DeepseekV3ForCausalLM file without it: DeepSeek-V3's 671,026,419,200 (before 671,026,404,352).
    nlohmann::json v3 = model_json("deepseek-v3");
    v3.erase("topk_method");
    EXPECT_EQ(param_count(parse_hf_config(v3.dump(), "--hf-config v3.json")).total.value(), 671026419200u);
}

TEST(HfVendoredFiles, Llama1UnderItsPreReleaseClassNameIsLlama) {
    // "LLaMAForCausalLM" (refused before). Attention 4·8192² = 268,435,456 (MHA: no num_key_value_heads); MLP
    // 3·8192·22,016 = 541,065,216; norms 16,384 → 809,517,056 · 80 = 64,761,364,480 + 2·32,000·8192 (524,288,000) + 8192 =
    // 65,285,660,672 (LLaMA-65B: 65.2B).
    const TransformerConfig c = hf("llama-65b-hf");
    EXPECT_EQ(c.kv_heads, 64u);
    EXPECT_EQ(param_count(c).total.value(), 65285660672u);
    EXPECT_FALSE(c.tied_embeddings);
}
