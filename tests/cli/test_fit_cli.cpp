// End-to-end: `bwacct model --fit` sharded by every parallelism the command takes (issue 13): tensor (--tp),
// expert (--ep: routed experts split over the ranks) and pipeline (--pp: layers split over stages, the
// largest stage decides) and their combination. Every expected value is computed by hand beside it.
// H100 SXM HBM capacity: 80 GiB = 85,899,345,920 B; workspace default 1 GiB = 1,073,741,824 B.
#include "harness.h"

using namespace bwacct_test;

namespace {

constexpr u64 kH100 = 85899345920u, kWorkspace = 1073741824u;

json fit(std::vector<std::string> more) {
    std::vector<std::string> args{"model", "--fit", "--context", "4096", "--gpu", "h100-sxm", "--format", "json"};
    args.insert(args.end(), more.begin(), more.end());
    return run_json(args);
}

// The largest batch b with fixed + b · slope ≤ capacity (memory is exactly linear in the batch here).
u64 largest(u64 fixed, u64 slope) { return (kH100 - fixed) / slope; }

}  // namespace

// ---- Expert parallelism: Mixtral-8x7B (32 layers, D 4096, 32 heads / 8 KV heads of 128, 8 experts of
// ffn 14336, top-2, vocab 32000), bf16, context 4096.
//   attention per layer 4096·(32 + 2·8)·128 + 32·128·4096 = 25,165,824 + 16,777,216 = 41,943,040
//   norms per layer 2·4096 = 8,192; router 8·4096 = 32,768; one expert 3·4096·14336 = 176,160,768
//   embedding = LM head = 32000·4096 = 131,072,000; final norm 4,096
//   KV per sequence: 32 layers · 4096 tokens · 2·8·128 · 2 B = 536,870,912
//   activations per sequence (one layer, prefill of 4096 tokens, tp 1; rows T·k = 2T of whole experts):
//     per token 4·4096 + (32 + 16)·128 + 32·128 + router 8 + 2·(4096 + 2·14336 + 14336 + 4096)
//     = 16,384 + 6,144 + 4,096 + 8 + 102,400 = 129,032 elements · 2 B = 258,064 B; · 4096 = 1,057,030,144
//   per-sequence slope 536,870,912 + 1,057,030,144 = 1,593,901,056

TEST(FitCli, MixtralEp2HoldsFourExpertsPerLayerPerGpu) {
    const json doc = fit({"--preset", "mixtral-8x7b", "--ep", "2"});
    ASSERT_FALSE(doc.is_null());
    const json& pg = doc.at("per_gpu");
    // a layer with 8/2 = 4 experts: 41,943,040 + 8,192 + 32,768 + 4·176,160,768 = 746,627,072;
    // · 32 = 23,892,066,304 + 2·131,072,000 + 4,096 = 24,154,214,400 elements · 2 B = 48,308,428,800 B
    // (= (46,702,792,704 − 32·4·176,160,768) · 2: the whole model less the other rank's experts)
    EXPECT_EQ(num_u(pg, "weights_bytes"), 48308428800u);
    EXPECT_EQ(num_u(pg, "kv_cache_bytes_per_seq"), 536870912u);
    EXPECT_EQ(num_u(pg, "activations_bytes_per_seq"), 1057030144u);
    // (85,899,345,920 − 48,308,428,800 − 1,073,741,824) / 1,593,901,056 = 36,517,175,296 / 1,593,901,056 = 22.9 → 22
    EXPECT_EQ(largest(48308428800u + kWorkspace, 1593901056u), 22u);
    const json& g = doc.at("gpus").at(0);
    EXPECT_TRUE(g.at("fits").get<bool>());
    EXPECT_EQ(num_u(g, "max_batch"), 22u);
}

TEST(FitCli, MixtralEp8HoldsOneExpertPerLayerPerGpu) {
    const json doc = fit({"--preset", "mixtral-8x7b", "--ep", "8"});
    ASSERT_FALSE(doc.is_null());
    // 46,702,792,704 − 32 layers · 7 experts · 176,160,768 = 46,702,792,704 − 39,460,012,032
    // = 7,242,780,672 elements · 2 B = 14,485,561,344 B
    EXPECT_EQ(num_u(doc.at("per_gpu"), "weights_bytes"), 14485561344u);
    // (85,899,345,920 − 14,485,561,344 − 1,073,741,824) / 1,593,901,056 = 70,340,042,752 / 1,593,901,056 = 44.1 → 44
    EXPECT_EQ(num_u(doc.at("gpus").at(0), "max_batch"), 44u);
    EXPECT_EQ(num_u(doc.at("run"), "ep"), 8u);
}

TEST(FitCli, MixtralWithoutEpDoesNotFitOneH100) {
    // all 8 experts: 46,702,792,704 · 2 B = 93,405,585,408 B > 85,899,345,920
    const json doc = fit({"--preset", "mixtral-8x7b"});
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(num_u(doc.at("per_gpu"), "weights_bytes"), 93405585408u);
    EXPECT_FALSE(doc.at("gpus").at(0).at("fits").get<bool>());
    EXPECT_EQ(num_u(doc.at("gpus").at(0), "max_batch"), 0u);
}

// ---- Pipeline parallelism: Llama-3-70B (80 layers, D 8192, 64 heads / 8 KV heads of 128, ffn 28672,
// vocab 128256), bf16, context 4096.
//   per layer: attention 8192·(64 + 16)·128 + 64·128·8192 = 150,994,944; MLP 3·8192·28672 = 704,643,072;
//   norms 2·8192 = 16,384 → 855,654,400; embedding = LM head = 128256·8192 = 1,050,673,152; final norm 8,192

TEST(FitCli, Llama70bPp4TheLastStageDecides) {
    const json doc = fit({"--preset", "llama3-70b", "--pp", "4"});
    ASSERT_FALSE(doc.is_null());
    const json& st = doc.at("stages");
    ASSERT_EQ(st.size(), 4u);
    // stage 0: 20 layers + embedding = 17,113,088,000 + 1,050,673,152 = 18,163,761,152 · 2 B = 36,327,522,304
    EXPECT_EQ(num_u(st.at(0), "weights_bytes"), 36327522304u);
    EXPECT_TRUE(st.at(0).at("embedding").get<bool>());
    // stages 1, 2: 20 layers = 17,113,088,000 · 2 B = 34,226,176,000
    EXPECT_EQ(num_u(st.at(1), "weights_bytes"), 34226176000u);
    EXPECT_EQ(num_u(st.at(2), "first_layer"), 40u);
    // stage 3: 20 layers + final norm + LM head = 18,163,769,344 · 2 B = 36,327,538,688: the largest
    EXPECT_EQ(num_u(st.at(3), "weights_bytes"), 36327538688u);
    EXPECT_TRUE(st.at(3).at("lm_head").get<bool>());
    const json& pg = doc.at("per_gpu");
    EXPECT_EQ(num_u(pg, "stage"), 3u);
    EXPECT_EQ(num_u(pg, "weights_bytes"), 36327538688u);
    // KV per sequence on a stage: 20 layers · 4096 · 2·8·128 · 2 B = 335,544,320
    EXPECT_EQ(num_u(pg, "kv_cache_bytes_per_seq"), 335544320u);
    // activations per sequence (tp 1): per token 4·8192 + 80·128 + 64·128 + 2·28672 + 28672
    // = 32,768 + 10,240 + 8,192 + 57,344 + 28,672 = 137,216 elements · 2 B · 4096 = 1,124,073,472
    EXPECT_EQ(num_u(pg, "activations_bytes_per_seq"), 1124073472u);
    // total at batch 1: 36,327,538,688 + 335,544,320 + 1,124,073,472 + 1,073,741,824 = 38,860,898,304
    EXPECT_EQ(num_u(pg, "total_bytes"), 38860898304u);
    // (85,899,345,920 − 36,327,538,688 − 1,073,741,824) / (335,544,320 + 1,124,073,472)
    // = 48,498,065,408 / 1,459,617,792 = 33.2 → 33 (stage 0, 16,384 B lighter, also gives 33)
    EXPECT_EQ(largest(36327538688u + kWorkspace, 1459617792u), 33u);
    const json& g = doc.at("gpus").at(0);
    EXPECT_EQ(num_u(g, "max_batch"), 33u);
    EXPECT_EQ(num_u(g, "limiting_stage"), 3u);
}

TEST(FitCli, Llama70bTp2Pp2) {
    const json doc = fit({"--preset", "llama3-70b", "--tp", "2", "--pp", "2"});
    ASSERT_FALSE(doc.is_null());
    // per layer per rank: matrices (150,994,944 + 704,643,072) / 2 = 427,819,008 + norms 16,384 (replicated)
    // = 427,835,392; 40 layers = 17,113,415,680; embedding / 2 = 525,336,576
    // stage 0: 17,638,752,256 · 2 B = 35,277,504,512; stage 1 (+ final norm 8,192): 17,638,760,448 · 2 B
    // = 35,277,520,896
    const json& st = doc.at("stages");
    ASSERT_EQ(st.size(), 2u);
    EXPECT_EQ(num_u(st.at(0), "weights_bytes"), 35277504512u);
    EXPECT_EQ(num_u(st.at(1), "weights_bytes"), 35277520896u);
    const json& pg = doc.at("per_gpu");
    EXPECT_EQ(num_u(pg, "weights_bytes"), 35277520896u);
    // KV per sequence: 40 layers · 4096 · 2·(8/2)·128 · 2 B = 335,544,320
    EXPECT_EQ(num_u(pg, "kv_cache_bytes_per_seq"), 335544320u);
    // activations per sequence at tp 2: 348,127,232 elements · 2 B = 696,254,464 (test_inference_cli)
    EXPECT_EQ(num_u(pg, "activations_bytes_per_seq"), 696254464u);
    // (85,899,345,920 − 35,277,520,896 − 1,073,741,824) / (335,544,320 + 696,254,464)
    // = 49,548,083,200 / 1,031,798,784 = 48.02 → 48
    EXPECT_EQ(largest(35277520896u + kWorkspace, 1031798784u), 48u);
    EXPECT_EQ(num_u(doc.at("gpus").at(0), "max_batch"), 48u);
}

TEST(FitCli, TiedEmbeddingsTheLastStageHoldsACopyOfTheTable) {
    TempDir dir;
    const std::string path = dir.file("tied.json");
    write_text(path, R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 256, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "intermediate_size": 512,
        "vocab_size": 1000, "tie_word_embeddings": true})");
    // per layer: 256·(4 + 4)·64 + 4·64·256 = 196,608 + MLP 3·256·512 = 393,216 + norms 512 = 590,336;
    // table 1000·256 = 256,000; final norm 256
    // pp 1: 2 layers + one table + final norm = 1,436,928 · 2 B = 2,873,856
    const json one = fit({"--hf-config", path});
    ASSERT_FALSE(one.is_null());
    EXPECT_EQ(num_u(one.at("per_gpu"), "weights_bytes"), 2873856u);
    // pp 2: stage 0 = layer + table = 846,336 · 2 B = 1,692,672; stage 1 = layer + final norm + its copy of the
    // table for the head = 846,592 · 2 B = 1,693,184
    const json two = fit({"--hf-config", path, "--pp", "2"});
    ASSERT_FALSE(two.is_null());
    EXPECT_EQ(num_u(two.at("stages").at(0), "weights_bytes"), 1692672u);
    EXPECT_EQ(num_u(two.at("stages").at(1), "weights_bytes"), 1693184u);
    EXPECT_TRUE(two.at("stages").at(1).at("lm_head").get<bool>());
}

TEST(FitCli, StatesItsAssumptions) {
    const RunResult r =
        run_bwacct({"model", "--preset", "llama3-8b", "--fit", "--context", "4096", "--gpu", "h100-sxm", "--workspace", "2G"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_NE(r.out.find("assumption: activations = one layer's forward tensors for a prefill of batch · context tokens"),
              std::string::npos);
    EXPECT_NE(r.out.find("assumption: workspace = 2.0 GiB per GPU as given by --workspace"), std::string::npos);
    const json doc = fit({"--preset", "llama3-8b"});
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc.at("assumptions").size(), 2u);
}

TEST(FitCli, RefusesWhatItCannotSplit) {
    const std::vector<std::string> base{"model", "--fit", "--context", "4096", "--gpu", "h100-sxm"};
    auto bad = [&](std::initializer_list<std::string> more, const std::string& name) {
        const RunResult r = run_bwacct(with(base, more));
        EXPECT_TRUE(failed_cleanly(r, 2, name)) << report(r);
    };
    bad({"--preset", "mixtral-8x7b", "--ep", "3"}, "--ep");  // 8 % 3 != 0
    bad({"--preset", "llama3-70b", "--ep", "2"}, "--ep");    // no routed experts
    bad({"--preset", "llama3-70b", "--pp", "81"}, "--pp");   // 80 layers
    bad({"--preset", "llama3-70b", "--pp", "0"}, "--pp");
    bad({"--preset", "llama3-70b", "--pp", "2", "--micro-batches", "4"}, "--micro-batches");
    bad({"--preset", "wan2.1-t2v-14b"}, "--fit");  // a diffusion transformer: no KV cache (it said "--vocab is required")
}

// --ep and --pp were read by the decode/prefill runs only: --phase generate ignored them silently.
TEST(FitCli, GenerateUsesEpAndRefusesPp) {
    const std::vector<std::string> gen{"model",    "--preset", "mixtral-8x7b", "--phase",  "generate",
                                       "--prompt", "16",       "--output",     "2",        "--ep",
                                       "2",        "--gpu",    "h200",         "--format", "json"};
    const json g = run_json(gen);
    ASSERT_FALSE(g.is_null());
    // TTFT = the prefill floor of 16 tokens at --ep 2; the one decode step = the decode floor at context 17, --ep 2
    const json pre = run_json({"model", "--preset", "mixtral-8x7b", "--phase", "prefill", "--seq", "16", "--ep", "2", "--gpu",
                               "h200", "--format", "json"});
    const json dec = run_json({"model", "--preset", "mixtral-8x7b", "--phase", "decode", "--context", "17", "--ep", "2", "--gpu",
                               "h200", "--format", "json"});
    ASSERT_FALSE(pre.is_null());
    ASSERT_FALSE(dec.is_null());
    const json& t = g.at("totals").at(0);
    expect_rel(num_d(t, "ttft_us"), pre.at("totals").at(0).at("model").at("floor_us").get<double>(), 1e-12, "TTFT at ep 2");
    expect_rel(num_d(t, "decode_us"), dec.at("totals").at(0).at("model").at("floor_us").get<double>(), 1e-12, "decode at ep 2");
    const RunResult pp = run_bwacct({"model", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "16", "--output", "2",
                                     "--pp", "2", "--gpu", "h200"});
    EXPECT_TRUE(failed_cleanly(pp, 2, "--pp")) << report(pp);
}

// One reading of the roof options for every run: --phase generate took --launch-us, --link-GBps and --alpha-us
// but ignored --efficiency; --fit (memory only) ignored all four.
TEST(FitCli, GenerateScalesItsRoofsAndFitRefusesTimeOptions) {
    const json g = run_json({"model", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "64", "--output", "1",
                             "--efficiency", "hbm=0.5,compute=0.5", "--gpu", "h200", "--format", "json"});
    const json p = run_json({"model", "--preset", "llama3-8b", "--phase", "prefill", "--seq", "64", "--efficiency",
                             "hbm=0.5,compute=0.5", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(g.is_null());
    ASSERT_FALSE(p.is_null());
    // output 1: the whole generation is the prefill, at the same scaled roofs
    expect_rel(num_d(g.at("totals").at(0), "ttft_us"), p.at("totals").at(0).at("model").at("floor_us").get<double>(), 1e-12,
               "TTFT with --efficiency");
    bool labelled = false;
    for (const json& n : g.at("notes"))
        labelled = labelled || n.get<std::string>().find("roofs scaled by efficiency: compute × 0.5, HBM × 0.5") == 0;
    EXPECT_TRUE(labelled) << g.at("notes").dump();
    for (const char* o : {"--efficiency", "--launch-us", "--link-GBps", "--alpha-us"}) {
        const RunResult r = run_bwacct({"model", "--preset", "llama3-8b", "--fit", "--context", "4096", "--gpu", "h200", o,
                                        std::string(o) == "--efficiency" ? "hbm=0.5" : "1"});
        EXPECT_TRUE(failed_cleanly(r, 2, o)) << report(r);
    }
}
