// End-to-end: `bwacct layer|model --hf-config FILE` on the published config.json files
// (tests/data/models/), MoE expert traffic, the MLA cache, and the bad-input cases of --hf-config
// and --experts-touched. Expected values derived by hand in the comments (and in
// tests/unit/test_hf_config.cpp).
#include <cmath>

#include "harness.h"

using namespace bwacct_test;

namespace {

std::string model_file(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/models/" + name + ".config.json"; }

const json& op_named(const json& doc, const std::string& name, const std::string& scope = "layer") {
    for (const json& op : doc.at("ops"))
        if (op.at("name") == name && op.at("scope") == scope)
            return op;
    ADD_FAILURE() << "no op " << name;
    static const json none = json::object();
    return none;
}

// Exit 2, nothing on stdout, one line on stderr containing each of `names`.
void expect_bad(const std::vector<std::string>& args, const std::vector<std::string>& names) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    for (const std::string& n : names)
        EXPECT_NE(r.err.find(n), std::string::npos) << "stderr should name " << n << "\n" << report(r);
}

}  // namespace

TEST(HfConfigCli, MixtralDecodeBatch16ReadsTheExpectedTouchedExperts) {
    const json doc = run_json({"model", "--hf-config", model_file("mixtral-8x7b"), "--phase", "decode", "--batch", "16",
                               "--context", "4096", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    // 46,702,792,704 total; 12,879,925,248 active (test_hf_config.cpp: HfConfig.Mixtral8x7bTotalAndActiveParameters)
    EXPECT_EQ(num_u(doc.at("params"), "total"), 46702792704u);
    EXPECT_EQ(num_u(doc.at("params"), "active"), 12879925248u);
    const json& moe = doc.at("model").at("moe");
    EXPECT_EQ(num_u(moe, "experts"), 8u);
    EXPECT_EQ(num_u(moe, "top_k"), 2u);
    // 8·(1 − (6/8)^16) = 7.920 experts per layer
    EXPECT_NEAR(num_d(moe, "experts_touched_per_layer"), 7.920, 0.0005);
    // gate+up: 32 rows (16 tokens · 2) · 4096 · 2 B = 262,144 B + round(7.919819… · 4096·28,672·2 = 234,881,024) = 1,860,215,252
    const json& gu = op_named(doc, "experts_gate_up");
    EXPECT_EQ(num_u(gu, "bytes_read"), 262144u + 1860215252u);
    EXPECT_EQ(num_u(gu, "flops"), 7516192768u);  // 2·32·4096·28,672
    // KV cache: 32 layers · 16 · 4096 · 2·8·128 · 2 B = 32 · 16 · 4096 · 4096 = 8,589,934,592
    EXPECT_EQ(num_u(doc.at("memory").at("model"), "kv_cache_bytes"), 8589934592u);
    ASSERT_EQ(doc.at("totals").size(), 2u);
    EXPECT_GT(doc.at("totals").at(0).at("model").at("floor_us").get<double>(), 0);
}

TEST(HfConfigCli, MixtralDecodeBatch1ReadsTwoExperts) {
    const json doc = run_json({"model", "--hf-config", model_file("mixtral-8x7b"), "--phase", "decode", "--batch", "1",
                               "--context", "4096", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    EXPECT_DOUBLE_EQ(num_d(doc.at("model").at("moe"), "experts_touched_per_layer"), 2.0);  // 8·(1 − 6/8)
    // 2·4096·2 = 16,384 B + 2 · 234,881,024 B
    EXPECT_EQ(num_u(op_named(doc, "experts_gate_up"), "bytes_read"), 16384u + 2u * 234881024u);
    // the preset says the same
    const json p = run_json({"model", "--preset", "mixtral-8x7b", "--phase", "decode", "--batch", "1", "--context", "4096",
                             "--gpu", "h200", "--format", "json"});
    EXPECT_EQ(num_u(op_named(p, "experts_gate_up"), "bytes_read"), 16384u + 2u * 234881024u);
    // --experts-touched 8: one token touches exactly k = 2 experts, so 8 is refused at batch 1 and accepted
    // at batch 4 (4 tokens · 2 = 8 assignments): 4·2·4096·2 = 65,536 B + 8 · 234,881,024 B
    expect_bad(
        {"model", "--preset", "mixtral-8x7b", "--phase", "decode", "--batch", "1", "--context", "4096", "--experts-touched", "8"},
        {"--experts-touched"});
    const json all = run_json({"model", "--preset", "mixtral-8x7b", "--phase", "decode", "--batch", "4", "--context", "4096",
                               "--experts-touched", "8", "--gpu", "h200", "--format", "json"});
    EXPECT_EQ(num_u(op_named(all, "experts_gate_up"), "bytes_read"), 4u * 2 * 4096 * 2 + 8u * 234881024u);
}

TEST(HfConfigCli, DeepSeekV3LatentCacheParametersAndStatedLimitations) {
    const json doc = run_json({"model", "--hf-config", model_file("deepseek-v3"), "--phase", "decode", "--batch", "1",
                               "--context", "4096", "--tp", "8", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("params"), "total"), 671026419200u);
    EXPECT_EQ(num_u(doc.at("params"), "active"), 37552297472u);
    // 61 · (512 + 64) · 2 B = 70,272 B per token, on every TP rank
    EXPECT_EQ(num_u(doc.at("memory").at("model"), "kv_cache_bytes_per_token"), 61u * (512 + 64) * 2);
    // 61 layers · 4096 tokens · 576 · 2 B = 287,834,112
    EXPECT_EQ(num_u(doc.at("memory").at("model"), "kv_cache_bytes"), 61u * 4096 * 576 * 2);
    // the dense-first layers are listed (scope dense_layer), the MoE layer carries the router
    (void)op_named(doc, "gate_up_proj", "dense_layer");
    (void)op_named(doc, "router");
    EXPECT_EQ(str_of(doc.at("model").at("mla"), "attention"), "absorbed");
    // the MTP module, the fp8 checkpoint's dynamic activation scheme and its block scales' dtype are said, not silently
    // dropped
    EXPECT_EQ(doc.at("model").at("limitations").size(), 3u);
    std::string notes;
    for (const json& n : doc.at("notes"))
        notes += n.get<std::string>() + "\n";
    EXPECT_NE(notes.find("num_nextn_predict_layers"), std::string::npos) << notes;
    EXPECT_NE(notes.find("quantization_config"), std::string::npos) << notes;
}

TEST(HfConfigCli, LlamaFromItsConfigEqualsThePreset) {
    const std::vector<std::string> run{"--phase", "decode", "--batch", "8",        "--context",
                                       "4096",    "--gpu",  "h200",    "--format", "json"};
    std::vector<std::string> a{"model", "--hf-config", model_file("llama-3-8b")}, b{"model", "--preset", "llama3-8b"};
    a.insert(a.end(), run.begin(), run.end());
    b.insert(b.end(), run.begin(), run.end());
    const json x = run_json(a), y = run_json(b);
    ASSERT_FALSE(x.is_null());
    ASSERT_FALSE(y.is_null());
    EXPECT_EQ(num_u(x.at("params"), "total"), 8030261248u);
    EXPECT_EQ(x.at("ops").size(), y.at("ops").size());
    EXPECT_DOUBLE_EQ(x.at("totals").at(0).at("model").at("floor_us").get<double>(),
                     y.at("totals").at(0).at("model").at("floor_us").get<double>());
}

TEST(HfConfigCli, TablesRunAndSayWhatIsNotModelled) {
    for (const char* name : {"mixtral-8x7b", "deepseek-v3"}) {
        const RunResult r = run_bwacct(
            {"model", "--hf-config", model_file(name), "--phase", "prefill", "--seq", "512", "--batch", "2", "--tp", "8"});
        EXPECT_TRUE(succeeded(r)) << report(r);
        EXPECT_NE(r.out.find("experts touched"), std::string::npos) << report(r);
    }
    const RunResult d = run_bwacct({"layer", "--hf-config", model_file("deepseek-v3"), "--phase", "decode", "--context", "128"});
    EXPECT_TRUE(succeeded(d)) << report(d);
    EXPECT_NE(d.out.find("limitation: num_nextn_predict_layers"), std::string::npos) << report(d);
}

TEST(HfConfigCli, UnsupportedArchitectureExits2NamingIt) {
    TempDir dir;
    write_text(dir.file("falcon.json"), R"({"architectures": ["FalconForCausalLM"], "hidden_size": 4544})");
    expect_bad({"model", "--hf-config", dir.file("falcon.json"), "--phase", "decode", "--context", "128"},
               {"FalconForCausalLM", "falcon.json", "--hf-config"});
    // A diffusers class other than WanModel (Wan's own config is read: tests/cli/test_dit_cli.cpp)
    write_text(dir.file("flux.json"), R"({"_class_name": "FluxTransformer2DModel", "num_layers": 19})");
    expect_bad({"layer", "--hf-config", dir.file("flux.json"), "--tokens", "2160"}, {"FluxTransformer2DModel", "flux.json"});
}

TEST(HfConfigCli, MalformedOrMissingFieldExits2NamingFieldAndFile) {
    TempDir dir;
    write_text(
        dir.file("nohidden.json"),
        R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 100})");
    expect_bad({"model", "--hf-config", dir.file("nohidden.json"), "--phase", "decode", "--context", "8"},
               {"hidden_size", "nohidden.json"});
    write_text(
        dir.file("badk.json"),
        R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 100, "num_local_experts": 8, "num_experts_per_tok": "two"})");
    expect_bad({"model", "--hf-config", dir.file("badk.json"), "--phase", "decode", "--context", "8"},
               {"num_experts_per_tok", "badk.json"});
    write_text(
        dir.file("bias.json"),
        R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 100, "mlp_bias": true})");
    expect_bad({"layer", "--hf-config", dir.file("bias.json"), "--phase", "decode", "--context", "8"}, {"mlp_bias", "bias.json"});
    write_text(dir.file("broken.json"), R"({"architectures": ["LlamaForCausalLM"], )");
    expect_bad({"layer", "--hf-config", dir.file("broken.json"), "--tokens", "8"}, {"broken.json", "not valid JSON"});
}

TEST(HfConfigCli, BadInputForHfConfig) {
    TempDir dir;
    const std::vector<std::string> run{"--phase", "decode", "--context", "128"};
    auto with = [&](std::vector<std::string> head) {
        head.insert(head.end(), run.begin(), run.end());
        return head;
    };
    expect_bad(with({"model", "--hf-config", dir.file("nosuch.json")}), {"--hf-config"});  // missing file
    expect_bad(with({"model", "--hf-config", dir.path()}), {"--hf-config"});               // a directory
    write_text(dir.file("empty.json"), "");
    expect_bad(with({"model", "--hf-config", dir.file("empty.json")}), {"--hf-config"});  // empty file
    expect_bad(with({"model", "--hf-config", ""}), {"--hf-config"});                      // empty value
    expect_bad(with({"model", "--hf-config", model_file("llama-3-8b"), "--preset", "llama3-8b"}), {"--hf-config"});
    write_text(dir.file("array.json"), "[1, 2, 3]");
    expect_bad(with({"layer", "--hf-config", dir.file("array.json")}), {"--hf-config", "array.json"});
}

TEST(HfConfigCli, BadInputForExpertsTouched) {
    const std::vector<std::string> head{"model",   "--preset", "mixtral-8x7b", "--phase", "decode",
                                        "--batch", "64",       "--context",    "128",     "--experts-touched"};
    for (const char* bad : {"0", "-1", "abc", "1e30", "1:4:x2", "2,3", "9" /* > 8 experts */, "1" /* < top-k 2 */}) {
        std::vector<std::string> args = head;
        args.push_back(bad);
        expect_bad(args, {"--experts-touched"});
    }
    // a dense model has no experts to touch
    expect_bad({"model", "--preset", "llama3-8b", "--phase", "decode", "--context", "128", "--experts-touched", "2"},
               {"--experts-touched"});
}

TEST(HfConfigCli, MlaRefusesWhatItDoesNotModel) {
    expect_bad({"layer", "--preset", "deepseek-v3", "--phase", "training", "--seq", "128"}, {"--phase"});
    expect_bad({"layer", "--preset", "deepseek-v3", "--phase", "decode", "--context", "128", "--attention", "naive"},
               {"--attention"});
}

TEST(HfConfigCli, EveryPublishedConfigRunsWithTheModelCardsParameterCount) {
    // tests/data/models/<name>.config.json (provenance and the model card's figure in each .src.txt), decode at batch 1
    // over a 4096-token cache on an H200: exit 0, finite numbers, and the parameter counts derived by hand
    // (the MoE, MLA, multimodal and Phi-3 rows in tests/unit/test_hf_config.cpp; dense rows here:
    // L · [D·(h + 2·kv)·d + h·d·D (+ (h + 2·kv)·d Qwen2 q/k/v biases) (+ 2·d Qwen3 q/k norms) + 3·D·F + 2·D]
    // + V·D (·2 untied) + D).
    struct Row {
        const char* name;
        std::uint64_t total, active;
    };
    const Row rows[] = {
        // 32 · (41,943,040 + 176,160,768 + 8192) + 2 · 128,256·4096 + 4096 (8.03 B)
        {"llama-3.1-8b", 8030261248u, 8030261248u},
        {"llama-3.2-3b", 3212749824u, 3212749824u},
        // 36 · (9,439,744 + 67,633,152 + 4096) + 151,936·2048 (tied) + 2048 (3.09 B)
        {"qwen2.5-3b", 3085938688u, 3085938688u},
        {"qwen2.5-7b", 7615616512u, 7615616512u},
        // 48 · (62,921,728 + 212,336,640 + 10,240) + 2 · 152,064·5120 + 5120 (14.7 B)
        {"qwen2.5-14b", 14770033664u, 14770033664u},
        // 64 · (62,921,728 + 424,673,280 + 10,240) + 2 · 152,064·5120 + 5120: 32.76 B, the Hub's 32.8 B (the card's
        // "32.5 B" and "31.0 B non-embedding" are 0.8 % and 0.7 % under the 31,206,735,872 non-embedding count)
        {"qwen2.5-32b", 32763876352u, 32763876352u},
        // 36 · (26,214,656 + 74,711,040 + 5120) + 151,936·2560 (tied) + 2560 (4.0 B)
        {"qwen3-4b", 4022468096u, 4022468096u},
        // 36 · (41,943,296 + 150,994,944 + 8192) + 2 · 151,936·4096 + 4096 (8.2 B)
        {"qwen3-8b", 8190735360u, 8190735360u},
        // 40 · (62,914,816 + 267,386,880 + 10,240) + 2 · 151,936·5120 + 5120 (14.8 B)
        {"qwen3-14b", 14768307200u, 14768307200u},
        // 64 · (94,372,096 + 393,216,000 + 10,240) + 2 · 151,936·5120 + 5120 (32.8 B)
        {"qwen3-32b", 32762123264u, 32762123264u},
        {"qwen3-30b-a3b", 30532122624u, 3353032704u},
        {"phi-3-mini-4k", 3821079552u, 3821079552u},
        {"mixtral-8x22b", 140620634112u, 39152031744u},
        {"deepseek-v2-lite-chat", 15706484224u, 2661150208u},
        {"deepseek-v2", 235741434880u, 21375800320u},
        {"qwen1.5-moe-a2.7b", 14315735040u, 2689124352u},
        {"gemma-3-12b-it", 11766034176u, 11766034176u},
        // Derived in tests/unit/test_hf_config_published_files.cpp: MLA without a query LoRA (Moonlight), GLM-4.7-Flash's
        // class read as DeepSeek-V3, and a transformers-5 Qwen3-MoE FP8 file ("num_local_experts").
        {"moonlight-16b-a3b-instruct", 15960110208u, 2914776192u},
        {"glm-4.7-flash", 29943393920u, 3896766080u},
        {"qwen3-30b-a3b-thinking-2507-fp8", 30532122624u, 3353032704u},
    };
    for (const Row& row : rows) {
        const json doc = run_json({"model", "--hf-config", model_file(row.name), "--phase", "decode", "--batch", "1", "--context",
                                   "4096", "--gpu", "h200", "--format", "json"});
        ASSERT_FALSE(doc.is_null()) << row.name;
        expect_finite_numbers(doc, row.name);
        EXPECT_EQ(num_u(doc.at("params"), "total"), row.total) << row.name;
        EXPECT_EQ(num_u(doc.at("params"), "active"), row.active) << row.name;
        EXPECT_GT(doc.at("totals").at(0).at("model").at("floor_us").get<double>(), 0) << row.name;
    }
}

TEST(HfConfigCli, MultimodalWrapperSaysTheVisionTowerIsNotCountedAndAnUnknownWrapperIsRefused) {
    const json doc = run_json(
        {"model", "--hf-config", model_file("gemma-3-12b-it"), "--phase", "decode", "--context", "4096", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    bool said = false;
    for (const json& l : doc.at("model").at("limitations"))
        said = said || l.get<std::string>().find("vision tower") != std::string::npos;
    EXPECT_TRUE(said) << doc.at("model").dump();
    TempDir dir;
    write_text(dir.file("idefics3.json"),
               R"({"architectures": ["Idefics3ForConditionalGeneration"], "text_config": {"hidden_size": 5120}})");
    expect_bad({"model", "--hf-config", dir.file("idefics3.json"), "--phase", "decode", "--context", "128"},
               {"Idefics3ForConditionalGeneration", "idefics3.json", "--hf-config", "LlamaForCausalLM", "Qwen2MoeForCausalLM"});
}

TEST(HfConfigCli, CompressedTensorsCheckpointsRunAndUnmodelledSchemesExit2) {
    // Llama-3.1-8B's config.json with RedHatAI's W4A16 quantization_config (compressed-tensors, pack-quantized int4
    // symmetric, group 128, the LM head ignored): refused before, now int4 g128 weights. Bytes by hand in
    // tests/unit/test_hf_config.cpp (CompressedTensorsW4A16IsInt4PackedWithGroupScales): 5,700,591,616.
    const TempDir dir;
    std::string text = read_text(model_file("llama-3.1-8b"));
    const std::string w4a16 =
        R"("quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
           "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": null, "output_activations": null,
             "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": true,
                         "dynamic": false, "actorder": null, "observer": "minmax"}}},
           "ignore": ["lm_head"], "kv_cache_scheme": null, "quantization_status": "compressed"}, )";
    write_text(dir.file("w4a16.json"), std::string(text).insert(text.find('{') + 1, w4a16));
    const json doc = run_json({"model", "--hf-config", dir.file("w4a16.json"), "--phase", "decode", "--batch", "1", "--context",
                               "4096", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("params"), "total"), 8030261248u);
    EXPECT_EQ(num_u(doc.at("params"), "bytes"), 5700591616u);
    // A scheme outside the engine's formats (2-bit weights): exit 2, one line naming the field and the file.
    std::string two_bit = w4a16;
    two_bit.replace(two_bit.find("\"num_bits\": 4"), 13, "\"num_bits\": 2");
    write_text(dir.file("w2.json"), std::string(text).insert(text.find('{') + 1, two_bit));
    expect_bad({"model", "--hf-config", dir.file("w2.json"), "--phase", "decode", "--gpu", "h200"},
               {"--hf-config", "w2.json", "num_bits 2"});
}

// Llama 4 Maverick: the dense MLP on the even layers (interleave_moe_layer_step 2: moe_layers 1, 3, …, 47) and full
// attention on every fourth layer (3, 7, …, 47: no_rope_layers 0), so every full-attention layer is a MoE layer. The
// report's layer kinds follow the positions: 24 dense + chunked, 12 MoE + chunked, 12 MoE + full (a dense-first
// reading of the same counts would put 6 full-attention layers among the dense ones).
TEST(HfConfigCli, Llama4MaverickLayerKindsFollowThePerLayerPattern) {
    const json doc = run_json({"model", "--hf-config", model_file("llama-4-maverick-17b-128e"), "--phase", "decode", "--batch",
                               "1", "--context", "32768", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("params"), "total"), 400711848960u);  // test_hf_config_moe_layers.cpp
    EXPECT_EQ(num_u(doc.at("model").at("moe"), "dense_layers"), 24u);
    EXPECT_EQ(num_u(doc.at("model").at("moe"), "moe_layers"), 24u);
    std::uint64_t dense_chunked = 0, moe_chunked = 0, moe_full = 0, other = 0;
    for (const json& k : doc.at("layer_kinds")) {
        const bool dense = k.at("dense_mlp").get<bool>(), full = k.at("window").is_null();
        const std::uint64_t n = k.at("layers").get<std::uint64_t>();
        if (dense && !full && k.at("window") == 8192)
            dense_chunked += n;
        else if (!dense && !full && k.at("window") == 8192)
            moe_chunked += n;
        else if (!dense && full)
            moe_full += n;
        else
            other += n;
    }
    EXPECT_EQ(dense_chunked, 24u);
    EXPECT_EQ(moe_chunked, 12u);
    EXPECT_EQ(moe_full, 12u);
    EXPECT_EQ(other, 0u);
}

TEST(HfConfigCli, Llama4ScoutAndGlm45AirRunAndMalformedPatternsAreRefused) {
    for (const char* name : {"llama-4-scout-17b-16e", "glm-4.5-air"}) {
        const RunResult r = run_bwacct({"model", "--hf-config", model_file(name), "--phase", "prefill", "--seq", "4096"});
        EXPECT_EQ(r.status, 0) << report(r);
        EXPECT_FALSE(r.out.empty()) << report(r);
    }
    TempDir dir;
    const std::string bad = dir.file("bad_mlp_only_layers.json");
    write_text(bad, R"({"architectures": ["Qwen3MoeForCausalLM"], "num_hidden_layers": 4, "num_attention_heads": 4,
        "hidden_size": 32, "intermediate_size": 64, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
        "moe_intermediate_size": 16, "mlp_only_layers": [7]})");
    expect_bad({"model", "--hf-config", bad, "--phase", "decode", "--context", "128"}, {"mlp_only_layers", "--hf-config"});
}

TEST(HfConfigCli, NewRealConfigsRunWithTheirDerivedParameterCounts) {
    // The configs added with tests/unit/test_hf_config_new_families.cpp (counts derived there, each cross-checked with
    // the checkpoint's tensor list or the Hub's count), decode at batch 1 over a 4096-token cache on an H200.
    struct Row {
        const char* name;
        std::uint64_t total, active;
    };
    const Row rows[] = {
        {"kimi-k2-instruct", 1026408232448u, 32861500928u},
        {"minimax-m2.7", 228689336320u, 11030124544u},
        {"qwen3-vl-30b-a3b-instruct", 30532122624u, 3353032704u},
        {"gemma-2-9b", 9241705984u, 9241705984u},
        {"qwen2-7b-instruct", 7615616512u, 7615616512u},
        {"llama-3-8b-instruct-bnb-4bit", 8030261248u, 8030261248u},
        // Granite, GraniteMoE, OLMo 2, Falcon3 (Llama) and DBRX (nested fields): derived in test_hf_config_new_families.cpp
        {"granite-3.3-8b-instruct", 8170864640u, 8170864640u},
        {"granite-3.1-1b-a400m-instruct", 1334628352u, 428658688u},
        {"olmo-2-1124-7b-instruct", 7298363392u, 7298363392u},
        {"falcon3-7b-instruct", 7455550464u, 7455550464u},
        {"dbrx-instruct", 131596523520u, 36469708800u},
    };
    for (const Row& row : rows) {
        const json doc = run_json({"model", "--hf-config", model_file(row.name), "--phase", "decode", "--batch", "1", "--context",
                                   "4096", "--gpu", "h200", "--format", "json"});
        ASSERT_FALSE(doc.is_null()) << row.name;
        expect_finite_numbers(doc, row.name);
        EXPECT_EQ(num_u(doc.at("params"), "total"), row.total) << row.name;
        EXPECT_EQ(num_u(doc.at("params"), "active"), row.active) << row.name;
    }
    // The bitsandbytes checkpoint's blocks are stored 4-bit: up_proj's weight [4096, 14,336] reads 4096·14,336/2 =
    // 29,360,128 B + 917,504 one-byte absmax codes + 4 B = 30,277,636 B, and the 1 × 4096 bf16 input 8,192 B.
    const json bnb = run_json({"layer", "--hf-config", model_file("llama-3-8b-instruct-bnb-4bit"), "--phase", "decode", "--batch",
                               "1", "--context", "4096", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(bnb.is_null());
    EXPECT_EQ(str_of(bnb.at("run"), "weight_format").rfind("int4", 0), 0u) << bnb.at("run").dump();
    const RunResult wan = run_bwacct({"layer", "--hf-config", model_file("wan2.2-t2v-a14b-diffusers-transformer"), "--tokens",
                                      "2160", "--tp", "2", "--format", "json"});
    EXPECT_TRUE(succeeded(wan)) << report(wan);
}

TEST(HfConfigCli, HybridSparseAndMmDitConfigsExit2NamingTheField) {
    const std::pair<const char*, const char*> cases[] = {
        {"qwen3-next-80b-a3b-instruct", "full_attention_interval"},
        {"kimi-linear-48b-a3b-instruct", "linear_attn_config"},
        {"deepseek-v3.2", "index_topk"},
        {"glm-5.1", "index_topk"},
    };
    for (const auto& [name, field] : cases)
        expect_bad({"model", "--hf-config", model_file(name), "--phase", "decode", "--context", "128"},
                   {field, "--hf-config", name});
    expect_bad({"layer", "--hf-config", model_file("flux.1-dev-transformer"), "--tokens", "4096"},
               {"FluxTransformer2DModel", "num_single_layers"});
}

TEST(HfConfigCli, APartTheCheckpointKeepsIn16BitsIsNamedAndReadIn16Bits) {
    // gpt-oss-20b keeps its attention in bf16 (modules_to_not_convert "model.layers.*.self_attn"): the report names the
    // part, and qkv_proj reads [2880, 64·64 + 2·8·64 = 5120] bf16 weights: 2880·5120·2 = 29,491,200 B + the [1, 2880]
    // input and [1, 5120] output (5760 + 10,240) = 29,507,200 B at batch 1.
    const json doc = run_json({"model", "--hf-config", model_file("gpt-oss-20b"), "--phase", "decode", "--batch", "1",
                               "--context", "4096", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc.at("model").at("checkpoint_kept_16bit"), "attention");
    bool found = false;
    for (const json& op : doc.at("ops"))
        if (op.at("name") == "qkv_proj") {
            found = true;
            EXPECT_EQ(op.at("bytes").get<std::uint64_t>(), 29507200u);
        }
    EXPECT_TRUE(found);
}
