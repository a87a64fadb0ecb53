// End-to-end: mixed precision (--weight-dtype, --act-dtype, --kv-dtype, --group-size, quantization_config),
// sliding-window attention, --phase generate, --fit and --launch-us 0 on `bwacct layer`/`model` (issue 13).
// Every expected value is computed by hand in the comment beside it.
#include <cstdlib>

#include "harness.h"

using namespace bwacct_test;

namespace {

const json& op_named(const json& doc, const std::string& name, const std::string& scope = "layer") {
    for (const json& op : doc.at("ops"))
        if (op.at("name") == name && op.at("scope") == scope)
            return op;
    ADD_FAILURE() << "no op " << name << " in scope " << scope;
    static const json none = json::object();
    return none;
}

double gpu_field(const json& op, const char* key) { return op.at("gpus").at(0).at(key).get<double>(); }

double model_floor_us(const std::vector<std::string>& args) {
    const json doc = run_json(args);
    return doc.at("totals").at(0).at("model").at("floor_us").get<double>();
}

// A small Mistral-style config: 2 layers, D 256, 4 heads / 2 KV heads of 64, window 3.
std::string write_config(const TempDir& dir, const std::string& arch, const std::string& extra) {
    const std::string path = dir.file(arch + ".json");
    write_text(path, R"({"architectures": [")" + arch + R"("], "hidden_size": 256, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512,
        "vocab_size": 1000)" +
                         extra + "}");
    return path;
}

}  // namespace

// ---- Mixed precision

TEST(InferenceCli, Int4WeightsGroup128ReadPayloadPlusScalesAndRunBf16Math) {
    const json doc = run_json({"layer", "--preset", "llama3-8b", "--phase", "decode", "--batch", "1", "--context", "4096",
                               "--weight-dtype", "int4", "--group-size", "128", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    const json& qkv = op_named(doc, "qkv_proj");
    // W [4096, (32 + 2·8)·128 = 6144]: payload 4096·6144/2 = 12,582,912; groups 6144 · 4096/128 = 196,608,
    // (16-bit scale + 4-bit zero) → 196,608·20/8 = 491,520; weight 13,074,432; + A 1·4096·2 = 8,192 → 13,082,624
    EXPECT_EQ(num_u(qkv, "bytes_read"), 13082624u);
    // w4a16: the math is bf16 (dequantised): compute roof = 2·4096·6144 FLOPs / the bf16 peak
    expect_rel(gpu_field(qkv, "compute_us"), 2.0 * 4096 * 6144 / (tensor_tflops("h200", "bf16") * 1e6), 1e-9, "bf16 math");
    EXPECT_EQ(str_of(doc.at("run"), "weight_format"), "int4 (g128 fp16 scale + 4-bit zero)");
}

TEST(InferenceCli, Fp8WeightsAndActivationsRunOnTheFp8Peak) {
    const json doc = run_json({"layer", "--preset", "llama3-8b", "--phase", "prefill", "--tokens", "2048", "--weight-dtype",
                               "fp8", "--act-dtype", "fp8", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    const json& down = op_named(doc, "down_proj");
    // [2048, 14336] × [14336, 4096]: 2·2048·14336·4096 FLOPs on the fp8 peak
    expect_rel(gpu_field(down, "compute_us"), 2.0 * 2048 * 14336 * 4096 / (tensor_tflops("h200", "fp8") * 1e6), 1e-9, "fp8 math");
    // bytes: A 2048·14336·1 = 29,360,128 + W 14336·4096·1 + per-tensor fp32 scale 4 = 58,720,260 → read 88,080,388
    EXPECT_EQ(num_u(down, "bytes_read"), 88080388u);
}

TEST(InferenceCli, Fp8KvCacheHalvesTheCacheReadAndWrite) {
    const json doc = run_json({"layer", "--preset", "llama3-8b", "--phase", "decode", "--batch", "1", "--context", "4096",
                               "--kv-dtype", "fp8", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    const json& att = op_named(doc, "attention");
    // Q 1·32·1·128·2 = 8,192 + K and V in fp8: 2 · 1·8·4096·128·1 = 8,388,608 → 8,396,800; O 8,192
    EXPECT_EQ(num_u(att, "bytes_read"), 8396800u);
    EXPECT_EQ(num_u(att, "bytes_written"), 8192u);
    // qkv_proj writes Q in bf16 (4096·2 = 8,192) and this token's K, V in fp8 (2·1024·1 = 2,048) → 10,240
    EXPECT_EQ(num_u(op_named(doc, "qkv_proj"), "bytes_written"), 10240u);
    // per token per layer 2·8·128·1 = 2,048 B; the layer's cache 4096 · 2,048 = 8,388,608
    EXPECT_EQ(num_u(doc.at("memory"), "kv_cache_bytes_per_token_per_layer"), 2048u);
    EXPECT_EQ(num_u(doc.at("memory"), "kv_cache_bytes"), 8388608u);
}

TEST(InferenceCli, DeepSeekV3QuantizationConfigIsFp8With128BlockScales) {
    const std::string cfg = std::string(BWACCT_TEST_DATA) + "/models/deepseek-v3.config.json";
    const json doc = run_json({"layer", "--hf-config", cfg, "--phase", "decode", "--batch", "1", "--context", "4096", "--gpu",
                               "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(str_of(doc.at("run"), "weight_format"), "fp8_e4m3 (128×128 fp32 block scales)");
    // kv_a_proj W [7168, 512 + 64 = 576] in fp8: 4,128,768 + ⌈7168/128⌉·⌈576/128⌉ = 56·5 = 280 scales · 4 = 1,120
    // → 4,129,888; + A 1·7168·2 = 14,336 → 4,144,224
    EXPECT_EQ(num_u(op_named(doc, "kv_a_proj"), "bytes_read"), 4144224u);
}

TEST(InferenceCli, UnknownQuantMethodIsRefusedNamingTheField) {
    TempDir dir;
    const std::string path = write_config(dir, "LlamaForCausalLM", R"(, "quantization_config": {"quant_method": "hqq"})");
    const RunResult r = run_bwacct({"layer", "--hf-config", path, "--tokens", "16"});
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("quantization_config.quant_method"), std::string::npos) << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u);
}

TEST(InferenceCli, AwqConfigGivesInt4WithGroupAndZeroPoint) {
    TempDir dir;
    const std::string path =
        write_config(dir, "LlamaForCausalLM",
                     R"(, "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 64, "zero_point": true})");
    const json doc = run_json({"layer", "--hf-config", path, "--tokens", "16", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    // qkv W [256, (4 + 2·2)·64 = 512]: payload 256·512/2 = 65,536; groups 512 · 256/64 = 2,048 · 20 bits = 5,120 B
    // → 70,656; + A 16·256·2 = 8,192 → 78,848
    EXPECT_EQ(num_u(op_named(doc, "qkv_proj"), "bytes_read"), 78848u);
}

// ---- Sliding window

TEST(InferenceCli, SlidingWindowCapsDecodeContextOnEveryMistralLayer) {
    TempDir dir;
    const std::string path = write_config(dir, "MistralForCausalLM", R"(, "sliding_window": 3)");
    const json doc = run_json({"model", "--hf-config", path, "--phase", "decode", "--batch", "1", "--context", "100", "--gpu",
                               "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    const json& att = op_named(doc, "attention");
    // keys read: min(100, 3) = 3: Q 1·4·64·2 = 512 + K, V 2 · 1·2·3·64·2 = 1,536 → 2,048
    EXPECT_EQ(num_u(att, "bytes_read"), 2048u);
    // FLOPs 4 · B 1 · H 4 · pairs 3 · d 64 = 3,072
    EXPECT_EQ(num_u(att, "flops"), 3072u);
    // model KV: 2 layers · 3 tokens · 2·2·64·2 = 512 B per token → 3,072
    EXPECT_EQ(num_u(doc.at("memory").at("model"), "kv_cache_bytes"), 3072u);
}

TEST(InferenceCli, SlidingWindowPrefillPairsAreExact) {
    TempDir dir;
    const std::string path = write_config(dir, "MistralForCausalLM", R"(, "sliding_window": 3)");
    const json doc = run_json({"layer", "--hf-config", path, "--tokens", "8", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    // query j of 8 sees min(j + 1, 3) keys: 1 + 2 + 3·6 = 21 pairs; FLOPs 4·1·4·21·64 = 21,504
    EXPECT_EQ(num_u(op_named(doc, "attention"), "flops"), 21504u);
}

TEST(InferenceCli, Gemma2AlternatesLocalAndGlobalLayers) {
    TempDir dir;
    const std::string path = write_config(dir, "Gemma2ForCausalLM", R"(, "sliding_window": 3)");
    const json doc = run_json({"model", "--hf-config", path, "--phase", "decode", "--batch", "1", "--context", "100", "--gpu",
                               "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    // layer 0 local (3 tokens), layer 1 global (100 tokens): (3 + 100) · 512 B = 52,736
    EXPECT_EQ(num_u(doc.at("memory").at("model"), "kv_cache_bytes"), 52736u);
    ASSERT_EQ(doc.at("layer_kinds").size(), 2u);
    // the global layer's attention: Q 512 + K, V 2·1·2·100·64·2 = 51,200 → 51,712
    EXPECT_EQ(num_u(op_named(doc, "attention", "layer (full attention)"), "bytes_read"), 51712u);
}

// ---- Whole generations

TEST(InferenceCli, GenerateIsPrefillPlusEveryDecodeStep) {
    // Property: prompt P = 100, output N = 5 → prefill of 100 tokens + decode at contexts 101, 102, 103, 104.
    const std::vector<std::string> common{"--preset", "llama3-8b", "--batch", "2", "--gpu", "h200", "--format", "json"};
    auto with = [&](std::vector<std::string> a) {
        a.insert(a.begin(), "model");
        a.insert(a.end(), common.begin(), common.end());
        return a;
    };
    const json gen = run_json(with({"--phase", "generate", "--prompt", "100", "--output", "5"}));
    ASSERT_FALSE(gen.is_null());
    EXPECT_EQ(str_of(gen, "schema"), "bwacct.generate/1");
    const json& g = gen.at("totals").at(0);
    const double prefill = model_floor_us(with({"--phase", "prefill", "--seq", "100"}));
    double decode = 0;
    for (int c = 101; c <= 104; ++c)
        decode += model_floor_us(with({"--phase", "decode", "--context", std::to_string(c)}));
    expect_rel(num_d(g, "ttft_us"), prefill, 1e-12, "TTFT = prefill");
    expect_rel(num_d(g, "decode_us"), decode, 1e-12, "Σ decode steps");
    expect_rel(num_d(g, "total_us"), prefill + decode, 1e-12, "total");
    expect_rel(num_d(g, "tpot_us"), decode / 4, 1e-12, "TPOT = Σ decode / (N − 1)");
    // tokens/s per sequence = 5 / total; per GPU = batch 2 · 5 / total / tp 1
    expect_rel(num_d(g, "tokens_per_s_per_seq"), 5 / ((prefill + decode) * 1e-6), 1e-12, "tok/s per seq");
    expect_rel(num_d(g, "tokens_per_s_per_gpu"), 10 / ((prefill + decode) * 1e-6), 1e-12, "tok/s per GPU");
}

// ---- Fit

TEST(InferenceCli, Llama3_70bBf16DoesNotFitOneH100AndFitsTp2ForSmallBatches) {
    // TP 1: weights 70,553,706,496 params · 2 B = 141,107,412,992 B > 80 GiB = 85,899,345,920 B.
    const json one =
        run_json({"model", "--preset", "llama3-70b", "--fit", "--context", "4096", "--gpu", "h100-sxm", "--format", "json"});
    ASSERT_FALSE(one.is_null());
    EXPECT_EQ(num_u(one.at("per_gpu"), "weights_bytes"), 141107412992u);
    EXPECT_FALSE(one.at("gpus").at(0).at("fits").get<bool>());
    EXPECT_EQ(num_u(one.at("gpus").at(0), "max_batch"), 0u);

    const json two = run_json(
        {"model", "--preset", "llama3-70b", "--fit", "--context", "4096", "--tp", "2", "--gpu", "h100-sxm", "--format", "json"});
    ASSERT_FALSE(two.is_null());
    // Per rank at TP 2 (elements): per layer qkv [8192, (32 + 2·4)·128 = 5120] 41,943,040 + o [4096, 8192] 33,554,432
    // + gate/up 2·8192·14336 = 234,881,024 + down 14336·8192 = 117,440,512 = 427,819,008; · 80 = 34,225,520,640;
    // embedding + LM head 2·128256·8192 / 2 = 1,050,673,152; norms (replicated) 80·2·8192 + 8192 = 1,318,912
    // → 35,277,512,704 elements · 2 B = 70,555,025,408 B
    const json& pg = two.at("per_gpu");
    EXPECT_EQ(num_u(pg, "weights_bytes"), 70555025408u);
    // KV per sequence: 80 layers · 4096 tokens · 2·(8/2)·128·2 B = 671,088,640
    EXPECT_EQ(num_u(pg, "kv_cache_bytes_per_seq"), 671088640u);
    // activations per sequence (one layer, prefill of 4096 tokens, per rank): 4·T·D 134,217,728 + Q,K,V
    // T·(32 + 8)·128 20,971,520 + O T·32·128 16,777,216 + gate/up T·2·14336 117,440,512 + act T·14336 58,720,256
    // = 348,127,232 elements · 2 = 696,254,464 B
    EXPECT_EQ(num_u(pg, "activations_bytes_per_seq"), 696254464u);
    // free = 85,899,345,920 − 70,555,025,408 − workspace 1 GiB 1,073,741,824 = 14,270,578,688;
    // per sequence 671,088,640 + 696,254,464 = 1,367,343,104; 14,270,578,688 / 1,367,343,104 = 10.44 → 10
    const json& g = two.at("gpus").at(0);
    EXPECT_TRUE(g.at("fits").get<bool>());  // batch 1
    EXPECT_EQ(num_u(g, "max_batch"), 10u);
}

// ---- --launch-us 0

TEST(InferenceCli, LaunchUsZeroRemovesTheDispatchRoof) {
    // Issue 13: the docs said `--launch-us 0` gives the HBM roof (3.13 ms) but the CLI refused 0.
    const json doc = run_json({"model", "--preset", "llama3-8b", "--phase", "decode", "--batch", "1", "--context", "128", "--gpu",
                               "h200", "--launch-us", "0", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    const json& m = doc.at("totals").at(0).at("model");
    EXPECT_EQ(m.at("roof_sums_us").at("dispatch_us").get<double>(), 0.0);
    // every op is HBM-bound at batch 1 once launches cost nothing: floor = the HBM roof sum (3.13 ms)
    expect_rel(num_d(m, "floor_us"), m.at("roof_sums_us").at("hbm_us").get<double>(), 1e-9, "floor = HBM roof");
    EXPECT_NEAR(num_d(m, "floor_us") / 1000, 3.13, 0.01);
}

// ---- Sweeps

TEST(InferenceCli, ModelSweepGivesOneRowPerPointAndGpu) {
    // --batch 1:4:x2 = 1, 2, 4; --context 1K,2K = 1024, 2048; two GPUs → 3 · 2 · 2 = 12 rows
    const std::vector<std::string> base{"model",  "--preset",  "llama3-8b", "--phase", "decode",   "--batch",
                                        "1:4:x2", "--context", "1K,2K",     "--gpu",   "h200,b200"};
    auto with_format = [&](const char* f) {
        std::vector<std::string> a = base;
        a.push_back("--format");
        a.push_back(f);
        return a;
    };
    const RunResult jl = run_bwacct(with_format("jsonl"));
    ASSERT_TRUE(succeeded(jl)) << report(jl);
    const std::vector<std::string> lines = lines_of(jl.out);
    ASSERT_EQ(lines.size(), 12u);
    // rows vary the last axis fastest: batch 2, context 2048, b200 is row (1·2 + 1)·2 + 1 = 7
    const json row = parse_json(lines[7], "row 7");
    EXPECT_EQ(num_u(row, "batch"), 2u);
    EXPECT_EQ(num_u(row, "context"), 2048u);
    EXPECT_EQ(str_of(row, "gpu"), "b200");
    const json single = run_json({"model", "--preset", "llama3-8b", "--phase", "decode", "--batch", "2", "--context", "2048",
                                  "--gpu", "b200", "--format", "json"});
    EXPECT_DOUBLE_EQ(num_d(row, "model_floor_us"), single.at("totals").at(0).at("model").at("floor_us").get<double>());
    const RunResult csv = run_bwacct(with_format("csv"));
    ASSERT_TRUE(succeeded(csv)) << report(csv);
    EXPECT_EQ(lines_of(csv.out).size(), 13u);  // header + 12
    const RunResult md = run_bwacct(with_format("md"));
    ASSERT_TRUE(succeeded(md)) << report(md);
    EXPECT_EQ(lines_of(md.out).size(), 14u);  // header + separator + 12
}
