// End-to-end: `bwacct layer` and `bwacct model` as a user runs them, and examples/seed004-byte-movement.sh.
#include <cstdlib>

#include "harness.h"

using namespace bwacct_test;

namespace {

double h200_floor_ms(const json& doc) {
    for (const json& t : doc.at("totals"))
        if (t.at("gpu") == "h200")
            return t.at("model").at("floor_us").get<double>() / 1000;
    return 0;
}

}  // namespace

TEST(LayerCli, Llama3_8bDecodeBatch1IsHbmBoundNearParamBytesOverBandwidth) {
    const json doc = run_json({"model", "--preset", "llama3-8b", "--phase", "decode", "--batch", "1", "--context", "128", "--gpu",
                               "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(str_of(doc, "schema"), "bwacct.layer/1");
    EXPECT_EQ(str_of(doc, "source"), "modelled");
    // 8,030,261,248 parameters (test_transformer.cpp shows the sum) · 2 B = 16,060,522,496 B; / 4.8 TB/s = 3.346 ms
    EXPECT_EQ(num_u(doc.at("params"), "total"), 8030261248u);
    const double param_ms = 16060522496.0 / (hbm_GBps("h200") * 1e6);
    expect_rel(param_ms, 3.346, 0.001, "params / HBM");
    const json& model = doc.at("totals").at(0).at("model");
    EXPECT_EQ(str_of(model, "bound"), "hbm");
    // HBM alone: every weight but the embedding table (only 1 row is gathered) = 7,504,924,672 params
    // → 15,009,849,344 B, + KV 32 · 2·128·8·128·2 B and small activations: 3.127–3.14 ms, 6.5 % under params/BW.
    const double hbm_ms = model.at("roof_sums_us").at("hbm_us").get<double>() / 1000;
    EXPECT_GT(hbm_ms, 15009849344.0 / 4.8e9);
    EXPECT_LT(hbm_ms, 3.14);
    // The floor adds the launch-bound small ops (≈ 5 per layer · 2.5 µs): ≈ 3.3 ms within 10 %.
    EXPECT_NEAR(h200_floor_ms(doc), param_ms, 0.1 * param_ms);
}

// DeepSeek-V3's three dense-first layers keep their dense MLP's activations, not the MoE layer's.
TEST(LayerCli, DeepSeekDenseFirstLayersHoldTheirOwnActivations) {
    const json doc = run_json({"model", "--preset", "deepseek-v3", "--phase", "prefill", "--batch", "1", "--seq", "1024", "--gpu",
                               "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    // Per token, elements (tp 1, bf16 2 B): 4·d = 4·7168 = 28,672; MLA attention 128·(128 + 64) + (512 + 64)
    // + 128·512 = 24,576 + 576 + 65,536 = 90,688; MoE MLP: router 256 + 8 rows·(7168 + 2·2048 + 2048 + 7168)
    // + shared (2·2048 + 2048) = 256 + 163,840 + 6,144 = 170,240; dense MLP 3·18,432 = 55,296.
    // MoE layer 289,600 · 2 B = 579,200 B per token; dense layer 174,656 · 2 B = 349,312 B per token.
    const json& mem = doc.at("memory");
    EXPECT_EQ(num_u(mem, "activations_bytes"), 579200u * 1024u);  // the MoE layer's: 593,100,800
    // 3 dense + 58 MoE layers: 1024 · (3 · 349,312 + 58 · 579,200) = 1024 · 34,641,536 = 35,472,932,864
    // (61 · 579,200 · 1024 = 36,179,148,800 before, every layer taken as a MoE one).
    EXPECT_EQ(num_u(mem.at("model"), "activations_bytes"), 35472932864u);
    // With checkpointing: 61 layer inputs (7168 · 2 B · 1024 each) + the largest layer's (the MoE one):
    // 61 · 14,680,064 + 593,100,800 = 1,488,584,704
    EXPECT_EQ(num_u(mem.at("model"), "activations_checkpointed_bytes"), 1488584704u);
}

TEST(LayerCli, TpTwoLayerListsTwoAllReducesOf22118400Bytes) {
    const json doc = run_json({"layer", "--hidden", "5120", "--heads", "40", "--kv-heads", "40", "--ffn", "13824", "--tokens",
                               "2160", "--tp", "2", "--phase", "prefill", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    int allreduces = 0;
    for (const json& op : doc.at("ops"))
        if (op.contains("collective")) {
            ++allreduces;
            EXPECT_EQ(str_of(op.at("collective"), "kind"), "allreduce");
            EXPECT_EQ(num_u(op.at("collective"), "size_bytes"), 22118400u);  // 2160 · 5120 · 2
        }
    EXPECT_EQ(allreduces, 2);
    EXPECT_EQ(doc.at("totals").size(), 2u);  // h200, b200 by default
}

TEST(LayerCli, IssueCommandsRun) {
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"layer", "--preset", "llama3-8b", "--phase", "decode", "--batch", "8", "--context", "4096", "--tp", "1"},
             {"model", "--preset", "llama3-70b", "--phase", "decode", "--batch", "1", "--context", "8192", "--tp", "8", "--gpu",
              "h200,b200"},
             {"layer", "--preset", "llama3-8b", "--phase", "training", "--seq", "2048", "--tp", "2", "--sequence-parallel",
              "--recompute"}}) {
        const RunResult r = run_bwacct(args);
        EXPECT_TRUE(succeeded(r)) << report(r);
    }
}

TEST(LayerCli, BadInputIsOneLineOnStderrAndExit2) {
    for (const auto& [args, option] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"layer", "--preset", "no-such-model", "--phase", "decode", "--context", "8"}, "--preset"},
             {{"layer", "--hidden", "0", "--heads", "40", "--ffn", "13824", "--tokens", "8"}, "--hidden"},
             {{"layer", "--hidden", "5120", "--heads", "40", "--ffn", "13824", "--tokens", "8", "--tp", "3"}, "--tp"},
             {{"layer", "--hidden", "5120", "--heads", "40", "--kv-heads", "7", "--ffn", "13824", "--tokens", "8"}, "--kv-heads"},
             {{"layer", "--preset", "llama3-8b", "--phase", "decode"}, "--context"},
             // csv, jsonl and md are sweep rows since issue 13; an unknown format is still refused
             {{"model", "--preset", "llama3-8b", "--phase", "decode", "--context", "8", "--format", "xml"}, "--format"}}) {
        const RunResult r = run_bwacct(args);
        EXPECT_EQ(r.status, 2) << report(r);
        EXPECT_TRUE(r.out.empty()) << report(r);
        EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
        EXPECT_NE(r.err.find(option), std::string::npos) << report(r);
    }
}

TEST(LayerCli, Seed004ExampleReproducesTheSeedsNumbers) {
    const std::string bin_dir = fs::path(bwacct_bin()).parent_path().string();
    const std::string script = std::string(BWACCT_EXAMPLES) + "/seed004-byte-movement.sh";
    RunOptions opt;
    opt.env["PATH"] = bin_dir + ":" + std::string(std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin");
    opt.timeout = std::chrono::seconds(30);
    const RunResult r = run_program({"bash", script}, opt);
    ASSERT_EQ(r.status, 0) << report(r);
    for (const char* want : {
             "341.33 FLOP/B",     // §1: 2·1024 / (3·2)
             "85.33 FLOP/B",      // §1: 2·256 / (3·2)
             "96,665,600",        // §2 forward: (2160·5120 + 5120·5120 + 2160·5120) · 2
             "289,996,800",       // §2 fwd+bwd: (2·2160·5120·2 + 3·5120² + 2·2160·5120 + 5120²) · 2
             "1,500,000,000",     // §4: 2·(4−1)/4 · 1e9
             "1,140,850,688",     // §5 naive: Q,K,V,O 4·16,777,216 + 4 · 32·2048·2048·2
             "67,108,864",        // §5 flash: Q, K, V, O = 4 · 32·2048·128·2
             "44,236,800",        // §3: TP=2 all-reduce of 22,118,400 B: HBM read + write per rank
             "22,118,400 (21.1",  // §3: checkpointed layer input 2160·5120·2
         })
        EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
}
