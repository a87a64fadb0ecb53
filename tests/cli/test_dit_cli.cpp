// End-to-end: the video diffusion transformer (Wan2.1-T2V-14B, seed 000's workload) through
// `bwacct layer|model`: the TP all-reduces of the [1, 2160, 5120] activation, the whole-model
// parameter count, time per step, per chunk and FPS, and the bad-input cases of the diffusion
// options. Expected values derived by hand in the comments (and in tests/unit/test_dit.cpp).
#include <cmath>
#include <regex>

#include "harness.h"

using namespace bwacct_test;

namespace {

std::string wan_config() { return std::string(BWACCT_TEST_DATA) + "/models/wan2.1-t2v-14b.config.json"; }

void expect_bad(const std::vector<std::string>& args, const std::vector<std::string>& names) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    for (const std::string& n : names)
        EXPECT_NE(r.err.find(n), std::string::npos) << "stderr should name " << n << "\n" << report(r);
}

}  // namespace

TEST(DitCli, LayerTp2ListsAllReducesOfSeedZerosTensor) {
    const json doc = run_json({"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--tp", "2", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    int hidden = 0;
    for (const json& op : doc.at("ops")) {
        if (!op.contains("collective") || op.at("name").get<std::string>().find("Σx²") != std::string::npos)
            continue;
        ++hidden;
        EXPECT_EQ(op.at("collective").at("kind"), "allreduce");
        // [1, 2160, 5120] bf16 = 2160 · 5120 · 2 = 22,118,400 bytes
        EXPECT_EQ(num_u(op.at("collective"), "size_bytes"), 22118400u) << op.dump();
    }
    EXPECT_EQ(hidden, 3);  // after self-attention out, cross-attention out, MLP down
    // 14,288,491,584 parameters (tests/unit/test_dit.cpp derives each term)
    EXPECT_EQ(num_u(doc.at("params"), "total"), 14288491584ull);
}

TEST(DitCli, ModelStepIsTwoForwardsWithCfgAndFpsFollowsTheChunk) {
    const json doc = run_json({"model", "--hf-config", wan_config(), "--tokens", "2160", "--steps", "4", "--cfg",
                               "--frames-per-chunk", "4", "--gpu", "h200,b200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("params"), "total"), 14288491584ull);
    for (const json& t : doc.at("totals")) {
        const json& d = t.at("diffusion");
        const double forward = num_d(t.at("model"), "floor_us");
        EXPECT_DOUBLE_EQ(num_d(d, "forward_us"), forward);
        EXPECT_DOUBLE_EQ(num_d(d, "step_us"), 2 * forward);       // --cfg: conditional + unconditional forward
        EXPECT_DOUBLE_EQ(num_d(d, "chunk_us"), 4 * 2 * forward);  // 4 steps
        expect_rel(num_d(d, "fps"), 4 / (8 * forward * 1e-6), 1e-12, "fps = 4 frames / chunk");
    }
}

TEST(DitCli, DiffusionOptionsAreCheckedAndRefusedElsewhere) {
    const std::vector<std::string> wan{"model", "--preset", "wan2.1-t2v-14b", "--tokens", "2160"};
    expect_bad(with(wan, {"--steps", "0"}), {"--steps"});
    expect_bad(with(wan, {"--frames-per-chunk", "-1"}), {"--frames-per-chunk"});
    expect_bad(with(wan, {"--text-tokens", "abc"}), {"--text-tokens"});
    expect_bad(with(wan, {"--phase", "decode", "--context", "4096"}), {"--"});
    expect_bad(with(wan, {"--tp", "3"}), {"--tp"});
    // the step options belong to a whole forward
    expect_bad({"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--steps", "4"}, {"--steps", "bwacct model"});
    // on a decoder-only model
    for (const char* o : {"--cfg", "--steps", "--text-tokens", "--frames-per-chunk"}) {
        std::vector<std::string> args{"model", "--preset", "llama3-8b", "--tokens", "2048", o};
        if (std::string(o) != "--cfg")
            args.push_back("4");
        expect_bad(args, {o, "diffusion"});
    }
}

TEST(DitCli, Wan22Ti2v5bRunsWithItsParameterCount) {
    // Wan2.2-TI2V-5B's config.json (model_type "ti2v", refused before): 4,999,787,712 parameters, by hand in
    // tests/unit/test_dit.cpp (Wan22Ti2v5bParametersAndItsPerTokenTimestep).
    const json doc = run_json({"model", "--hf-config", std::string(BWACCT_TEST_DATA) + "/models/wan2.2-ti2v-5b.config.json",
                               "--tokens", "2160", "--steps", "2", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("params"), "total"), 4999787712ull);
    // bf16: 2 B per parameter
    EXPECT_EQ(num_u(doc.at("params"), "bytes"), 2ull * 4999787712ull);
}

TEST(DitCli, AnI2vWanModelRunsWithWanI2vAndIsRefusedWithout) {
    // An i2v WanModel config.json (in_dim 36): refused bare, naming --wan-i2v; with --wan-i2v 2.2 one Wan2.2-I2V-A14B
    // expert, Wan2.1-T2V-14B's 14,288,491,584 + (36 − 16)·4·5120 = 409,600 → 14,288,901,184 parameters (by hand in
    // tests/unit/test_dit.cpp, AnI2vWanModelReadsAsTheWanTheUserNames). The file is LingBot-World-Fast's, whose bytes
    // are Wan's own i2v config form: a test of that form; the count is Wan's, not LingBot's (its camera modules are not
    // in the file; see its .src.txt).
    const std::string i2v = std::string(BWACCT_TEST_DATA) + "/models/lingbot-world-fast-i2v.config.json";
    expect_bad({"model", "--hf-config", i2v, "--tokens", "2160"}, {"--wan-i2v", "lingbot-world-fast-i2v.config.json"});
    const json doc =
        run_json({"model", "--hf-config", i2v, "--wan-i2v", "2.2", "--tokens", "2160", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("params"), "total"), 14288901184ull);
    expect_bad({"model", "--hf-config", i2v, "--wan-i2v", "2.3", "--tokens", "2160"}, {"--wan-i2v", "2.3"});
    // it names an i2v WanModel only
    expect_bad({"model", "--hf-config", wan_config(), "--wan-i2v", "2.1", "--tokens", "2160"}, {"--wan-i2v", "i2v"});
    // never ignored: an empty value with a t2v config, or sizes by hand (no config at all), names the option and
    // the two values it takes
    expect_bad({"model", "--hf-config", wan_config(), "--wan-i2v", "", "--tokens", "2160"}, {"--wan-i2v", "2.1", "2.2"});
    expect_bad({"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--layers", "32", "--tokens", "16", "--wan-i2v",
                "bogus"},
               {"--wan-i2v", "2.1", "2.2", "bogus"});
    expect_bad(
        {"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--layers", "32", "--tokens", "16", "--wan-i2v", "2.2"},
        {"--wan-i2v", "2.1", "2.2", "--hf-config"});
}

TEST(DitCli, ALayerCountNoModelHasIsRefusedNotWalked) {
    // num_layers 2^63 (a config's, or --layers): the report walks the layers one by one and ran for hours; refused
    // past 100,000, naming the file or the option.
    TempDir dir;
    write_text(dir.file("deep.json"), R"({"_class_name": "WanModel", "dim": 1536, "num_heads": 12, "ffn_dim": 8960,
        "num_layers": 9223372036854775808})");
    expect_bad({"model", "--hf-config", dir.file("deep.json"), "--tokens", "2160"}, {"deep.json", "100000"});
    expect_bad({"layer", "--hidden", "4096", "--heads", "32", "--ffn", "14336", "--layers", "100001", "--tokens", "16"},
               {"--layers", "100001"});
    // a value of the wrong type where the class needs a number (eps "x" was read, exit 0), and a Wan-derived class
    // (DreamX-World's camera transformer: was the generic list of supported architectures): exit 2, one line, the
    // file and the key
    write_text(dir.file("eps.json"), R"({"_class_name": "WanModel", "dim": 1536, "num_heads": 12, "ffn_dim": 8960,
        "num_layers": 30, "eps": "x"})");
    expect_bad({"model", "--hf-config", dir.file("eps.json"), "--tokens", "2160"}, {"eps.json", "\"eps\""});
    expect_bad({"model", "--hf-config", std::string(BWACCT_TEST_DATA) + "/models/dreamx-world-wan2.2-ti2v-5b-camera.config.json",
                "--tokens", "2160"},
               {"dreamx-world-wan2.2-ti2v-5b-camera.config.json", "FSDPWan2_2Transformer3DModel", "add_control_adapter"});
    // a class name with a line break in it: the message stays one line, the break shown escaped (it cut the message
    // after "MyWan" before)
    write_text(dir.file("nl.json"), R"({"_class_name": "MyWan\nModel", "dim": 1536, "num_heads": 12, "num_layers": 30})");
    expect_bad({"model", "--hf-config", dir.file("nl.json"), "--tokens", "2160"}, {"nl.json", "MyWan\\nModel", "Wan-derived"});
    // --text-tokens has the bound of the config's text_len (2^24 = 16,777,216): 9,999,999,999 ran for an hour a forward
    expect_bad({"model", "--hf-config", std::string(BWACCT_TEST_DATA) + "/models/wan2.1-t2v-1.3b.config.json", "--tokens", "1",
                "--text-tokens", "9999999999"},
               {"--text-tokens", "16777216"});
}

TEST(DitCli, ASlowForwardPrintsItsRateNotZero) {
    // 16,777,216 text tokens, 1 video token: seconds per forward, so under 1 token/s; the verdict and totals printed
    // "0 tokens/s" (rounded to whole tokens); now a number in (0, 1) with 3 significant digits.
    const std::vector<std::string> args{
        "model",    "--hf-config", std::string(BWACCT_TEST_DATA) + "/models/wan2.1-t2v-1.3b.config.json",
        "--tokens", "1",           "--text-tokens",
        "16777216", "--gpu",       "h200"};
    const RunResult r = run_bwacct(args);
    ASSERT_TRUE(succeeded(r));
    EXPECT_EQ(r.out.find(" 0 tokens/s"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find(", 0 tokens/s"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(" 0\\.[0-9]*[1-9] tokens/s"))) << r.out;  // a rate in (0, 1)
}

TEST(DitCli, Wan21VaceRunsItsContextBlocksAsLayerKinds) {
    // Wan2.1-VACE-14B (VaceWanModel): 17,337,592,896 parameters, 3,049,101,312 of them VACE's, by hand in
    // tests/unit/test_dit.cpp (Wan21VaceContextBlocksProjectionsAndHints); 32 plain, 8 hinted and 8 context blocks.
    const json doc = run_json({"model", "--hf-config", std::string(BWACCT_TEST_DATA) + "/models/wan2.1-vace-14b.config.json",
                               "--tokens", "2160", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("params"), "total"), 17337592896ull);
    EXPECT_EQ(num_u(doc.at("params"), "dit_vace"), 3049101312ull);
    EXPECT_EQ(num_u(doc.at("params"), "bytes"), 2ull * 17337592896ull);
    ASSERT_EQ(doc.at("layer_kinds").size(), 3u);
    EXPECT_EQ(doc.at("layer_kinds")[0].at("layers"), 32);
    EXPECT_EQ(doc.at("layer_kinds")[1].at("block"), "block with a VACE hint");
    EXPECT_EQ(doc.at("layer_kinds")[2].at("layers"), 8);
    bool after_proj = false;
    for (const json& op : doc.at("ops"))
        after_proj = after_proj || (op.at("scope") == "layer (vace context block)" && op.at("name") == "vace_after_proj");
    EXPECT_TRUE(after_proj);
}

TEST(DitCli, VideoGivesTheTokensFromFramesAndResolutionLabelledDerived) {
    // 81x480x832 on Wan2.1-T2V-14B: latent 21 × 60 × 104, patch (1, 2, 2) → 21 · 30 · 52 = 32,760 tokens
    // (tests/unit/test_dit.cpp); the same forward as --tokens 32760, and a chunk yields the 81 frames.
    const json v = run_json({"model", "--hf-config", wan_config(), "--video", "81x480x832", "--gpu", "h200", "--format", "json"});
    const json t = run_json({"model", "--hf-config", wan_config(), "--tokens", "32760", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(v.is_null());
    ASSERT_FALSE(t.is_null());
    expect_finite_numbers(v, "");
    EXPECT_EQ(num_u(v.at("run"), "seq"), 32760u);
    const json& video = v.at("run").at("video");
    EXPECT_EQ(video.at("source"), "derived from --video");
    EXPECT_EQ(video.at("latent"), json::array({21, 60, 104}));
    EXPECT_EQ(video.at("vae_stride"), json::array({4, 8, 8}));
    EXPECT_EQ(num_u(video, "tokens"), 32760u);
    EXPECT_FALSE(t.at("run").contains("video"));
    EXPECT_DOUBLE_EQ(num_d(v.at("totals")[0].at("model"), "floor_us"), num_d(t.at("totals")[0].at("model"), "floor_us"));
    EXPECT_EQ(num_u(v.at("totals")[0].at("diffusion"), "frames_per_chunk"), 81u);
    // The table says where the tokens came from.
    const RunResult r = run_bwacct({"layer", "--preset", "wan2.1-t2v-14b", "--video", "81x480x832", "--gpu", "h200"});
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("derived from --video 81x480x832"), std::string::npos) << report(r);
    EXPECT_NE(r.out.find("21×60×104"), std::string::npos) << report(r);
}

TEST(DitCli, VideoIsRefusedWithTokensSeqBadFramesAndOnLanguageModels) {
    const std::vector<std::string> wan{"model", "--preset", "wan2.1-t2v-14b", "--video", "81x480x832"};
    expect_bad(with(wan, {"--tokens", "2160"}), {"--video", "--tokens"});
    expect_bad(with(wan, {"--seq", "2160"}), {"--video", "--seq"});
    expect_bad({"model", "--preset", "wan2.1-t2v-14b", "--video", "80x480x832"}, {"--video", "4n + 1"});
    expect_bad({"model", "--preset", "llama3-8b", "--video", "81x480x832"}, {"--video", "diffusion"});
    expect_bad({"model", "--preset", "llama3-8b", "--fit", "--context", "4096", "--video", "81x480x832"}, {"--video"});
}
