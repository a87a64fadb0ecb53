// The video diffusion transformer (Wan2.1-T2V-14B, seed 000's workload): parameters term by term,
// the block's ops and its tensor-parallel collectives, the patch embedding through the conv op, and
// the WanModel config.json reader. Every expected value is computed by hand in the comments.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <functional>
#include <utility>

#include "bwacct/dit.h"
#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/model_preset.h"
#include "bwacct/video_tokens.h"

using namespace bwacct;

namespace {

TransformerConfig wan() {
    return load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/wan2.1-t2v-14b.config.json", "--hf-config");
}

LayerRun chunk(std::uint64_t tokens, std::uint64_t tp) {
    LayerRun r;
    r.phase = Phase::prefill;
    r.seq = tokens;
    r.context = tokens;
    r.tp = tp;
    return r;
}

const LayerOp& find(const std::vector<LayerOp>& ops, const std::string& name) {
    for (const LayerOp& o : ops)
        if (o.name == name)
            return o;
    throw std::runtime_error("no op " + name);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.option() + ": " + e.what();
    }
    return "";
}

}  // namespace

TEST(Dit, Wan14bParameterCountTermByTerm) {
    const ParamCount p = param_count(wan());
    // D = 5120, F = 13,824, 40 blocks; Linear(i, o) = i·o + o (weight + bias).
    // patch_embedding Conv3d(16, 5120, k = (1, 2, 2)) = 16·1·2·2·5120 + 5120 = 327,680 + 5120 = 332,800
    // text_embedding Linear(4096, 5120) + Linear(5120, 5120) = 20,976,640 + 26,219,520 = 47,196,160
    // time_embedding Linear(256, 5120) + Linear(5120, 5120) = 1,315,840 + 26,219,520 = 27,535,360
    // time_projection Linear(5120, 30,720) = 157,286,400 + 30,720 = 157,317,120
    // embedding = 332,800 + 47,196,160 + 27,535,360 + 157,317,120 = 232,381,440
    EXPECT_EQ(p.embedding.value(), 232381440u);
    // one attention: q, k, v, o = 4·26,219,520 = 104,878,080, + norm_q, norm_k 2·5120 = 104,888,320;
    // self + cross = 209,776,640
    EXPECT_EQ(p.attention.value(), 209776640u);
    // ffn Linear(5120, 13,824) + Linear(13,824, 5120) = (70,778,880 + 13,824) + (70,778,880 + 5120)
    //     = 70,792,704 + 70,784,000 = 141,576,704
    EXPECT_EQ(p.mlp.value(), 141576704u);
    // norm3 (affine γ, β) 2·5120 + modulation 6·5120 = 10,240 + 30,720 = 40,960
    EXPECT_EQ(p.norms.value(), 40960u);
    // per block = 209,776,640 + 141,576,704 + 40,960 = 351,394,304
    EXPECT_EQ(p.per_layer.value(), 351394304u);
    // head Linear(5120, 1·2·2·16 = 64) = 327,680 + 64 = 327,744, + modulation 2·5120 = 337,984
    EXPECT_EQ(p.lm_head.value(), 337984u);
    // total = 232,381,440 + 40·351,394,304 (14,055,772,160) + 337,984 = 14,288,491,584 (≈ 14.3 B; "14B")
    EXPECT_EQ(p.total.value(), 14288491584ull);
    EXPECT_EQ(p.active.value(), p.total.value());
}

TEST(Dit, PresetMatchesTheConfigJson) {
    const TransformerConfig preset = load_model_preset("wan2.1-t2v-14b", "--preset");
    ASSERT_TRUE(preset.dit.has_value());
    EXPECT_EQ(param_count(preset).total.value(), 14288491584ull);  // as above
    EXPECT_EQ(preset.hidden, 5120u);
    EXPECT_EQ(preset.vocab, 0u);
}

TEST(Dit, TpTwoBlockAllReducesTheActivationAfterEachRowParallelProjection) {
    const auto ops = dit_block_ops(wan(), chunk(2160, 2));
    std::vector<const LayerOp*> hidden, stats;
    for (const LayerOp& o : ops)
        if (o.cost.collective) {
            EXPECT_EQ(o.cost.collective->kind, CollectiveKind::allreduce) << o.name;
            EXPECT_EQ(o.cost.collective->ranks, 2u);
            (o.name.find("Σx²") == std::string::npos ? hidden : stats).push_back(&o);
        }
    // self-attention out, cross-attention out, MLP down: [1, 2160, 5120] bf16 = 2160·5120·2 = 22,118,400 B
    ASSERT_EQ(hidden.size(), 3u);
    EXPECT_EQ(hidden[0]->name, "allreduce self_attn_out (fwd)");
    EXPECT_EQ(hidden[1]->name, "allreduce cross_attn_out (fwd)");
    EXPECT_EQ(hidden[2]->name, "allreduce mlp_out (fwd)");
    for (const LayerOp* o : hidden)
        EXPECT_EQ(o->cost.collective->size_bytes, 22118400u);
    // q/k RMSNorm over the sharded hidden size: one fp32 Σx² per row; self: q and k rows 2·2160 = 4320 → 17,280 B;
    // cross: 2160 query rows + 512 text key rows = 2672 → 10,688 B
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[0]->cost.collective->size_bytes, 17280u);
    EXPECT_EQ(stats[1]->cost.collective->size_bytes, 10688u);
}

TEST(Dit, BlockFlopsByHand) {
    const auto ops = dit_block_ops(wan(), chunk(2160, 2));
    // qkv per rank: 2·2160·5120·(3·2560) = 169,869,312,000
    EXPECT_EQ(find(ops, "qkv_proj").cost.flops, 169869312000ull);
    // self-attention, 20 heads per rank, bidirectional: 4·B·H·Sq·Sk·d = 4·20·2160·2160·128 = 47,775,744,000
    EXPECT_EQ(find(ops, "self_attention").cost.flops, 47775744000ull);
    // cross-attention against 512 text tokens: 4·20·2160·512·128 = 11,324,620,800
    EXPECT_EQ(find(ops, "cross_attention").cost.flops, 11324620800ull);
    // text K/V: 2·512·5120·(2·2560) = 26,843,545,600
    EXPECT_EQ(find(ops, "cross_kv_proj").cost.flops, 26843545600ull);
    // ffn up per rank: 2·2160·5120·6912 = 152,882,380,800
    EXPECT_EQ(find(ops, "ffn_up").cost.flops, 152882380800ull);
    // gelu: 9 FLOPs on [2160, 6912] = 134,369,280
    EXPECT_EQ(find(ops, "gelu").cost.flops, 134369280u);
    // modulate1 reads x̂ [2160, 5120] and shift, scale [1, 5120] each, writes [2160, 5120]: bf16
    // read 2·(11,059,200 + 10,240) = 22,138,880, written 2·11,059,200 = 22,118,400
    EXPECT_EQ(find(ops, "modulate1").cost.bytes_read, 22138880u);
    EXPECT_EQ(find(ops, "modulate1").cost.bytes_written, 22118400u);
    // --text-tokens 77: cross K/V rows follow
    LayerRun r = chunk(2160, 2);
    r.dit.text_tokens = 77;
    EXPECT_EQ(find(dit_block_ops(wan(), r), "cross_kv_proj").cost.flops, 2ull * 77 * 5120 * 5120);  // 4,037,017,600
}

TEST(Dit, PatchEmbeddingIsTheConvOp) {
    const auto ops = dit_edge_ops(wan(), chunk(2160, 1));
    const Cost& c = find(ops, "patch_embedding").cost;
    // Conv3d 16 → 5120, kernel = stride = 1×2×2: an implicit GEMM M = 2160 positions, K = 16·4 = 64, N = 5120:
    // 2·2160·64·5120 = 1,415,577,600 FLOPs
    EXPECT_EQ(c.flops, 1415577600u);
    // read input 2160·64 = 138,240 + weight 64·5120 = 327,680 + bias 5120 elements = 471,040 · 2 B = 942,080;
    // written 2160·5120·2 = 22,118,400
    EXPECT_EQ(c.bytes_read, 942080u);
    EXPECT_EQ(c.bytes_written, 22118400u);
    // head: [2160, 5120] × [5120, 64]
    EXPECT_EQ(find(ops, "head_proj").cost.flops, 2ull * 2160 * 5120 * 64);  // 1,415,577,600
}

TEST(Dit, RefusesWhatItDoesNotModel) {
    LayerRun d = chunk(2160, 1);
    d.phase = Phase::decode;
    EXPECT_NE(error_of([&] { (void)dit_block_ops(wan(), d); }).find("--phase"), std::string::npos);
    EXPECT_NE(error_of([&] { (void)dit_block_ops(wan(), chunk(2160, 3)); }).find("--tp"), std::string::npos);
    LayerRun s = chunk(2160, 1);
    s.dit.steps = 0;
    EXPECT_NE(error_of([&] { (void)dit_block_ops(wan(), s); }).find("--steps"), std::string::npos);
    // WanModel fields that change the arithmetic are named
    for (
        const auto& [text, field] : std::vector<std::pair<std::string, std::string>>{
            {R"({"_class_name": "WanModel", "dim": 1536, "num_layers": 30, "num_heads": 12, "ffn_dim": 8960, "model_type": "i2v"})",
             "model_type"},
            {R"({"_class_name": "WanModel", "dim": 1536, "num_layers": 30, "num_heads": 12, "ffn_dim": 8960, "window_size": [256, 256]})",
             "window_size"},
            {R"({"_class_name": "WanModel", "dim": 1536, "num_layers": 30, "num_heads": 12})", "ffn_dim"},
            {R"({"_class_name": "WanModel", "dim": 1536, "num_layers": 30, "num_heads": 12, "ffn_dim": 8960, "patch_size": [1, 2]})",
             "patch_size"}})
        EXPECT_NE(error_of([&, &config = text] { (void)parse_hf_config(config, "--hf-config x.json"); }).find(field),
                  std::string::npos)
            << text;
    // Wan2.1-T2V-1.3B (dim 1536, 12 heads, 30 layers, ffn 8960) reads
    EXPECT_EQ(error_of([&] {
                  (void)parse_hf_config(
                      R"({"_class_name": "WanModel", "dim": 1536, "num_layers": 30, "num_heads": 12, "ffn_dim": 8960})", "x");
              }),
              "");
}

TEST(Dit, Wan22Ti2v5bParametersAndItsPerTokenTimestep) {
    // Wan2.2-TI2V-5B (model_type "ti2v"; refused before): D 3072, F 14,336, 24 heads, 30 blocks, in/out 48.
    // (Independently: a public weight-load record of the released checkpoint sums its 825 tensors' shapes to
    // 4,999,787,712, 19,999,150,848 B in fp32; stored code index, file id 66048150697.)
    const TransformerConfig c =
        load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/wan2.2-ti2v-5b.config.json", "--hf-config");
    ASSERT_TRUE(c.dit);
    EXPECT_TRUE(c.dit->timestep_per_token);
    EXPECT_EQ(c.name, "WanModel (ti2v)");
    // Linear(i, o) = i·o + o:
    //   patch 48·4·3072 + 3072 = 592,896; text 4096·3072 + 3072 + 3072² + 3072 = 22,026,240;
    //   time 256·3072 + 3072 + 3072² + 3072 = 10,229,760; projection 3072·18,432 + 18,432 = 56,641,536 → 89,490,432
    //   block: attention 2 · (4 · (3072² + 3072) + 2·3072) = 75,534,336; ffn 3072·14,336 + 14,336 + 14,336·3072 + 3072
    //   = 88,097,792; norm3 2·3072 + modulation 6·3072 = 24,576 → 163,656,704 · 30 = 4,909,701,120
    //   head 3072·(4·48) + 192 + 2·3072 = 596,160 → 4,999,787,712 (the model card's "5B")
    EXPECT_EQ(param_count(c).total.value(), 4999787712u);
    // The timestep is embedded per token (the image's first latent frame is at t = 0): T = 1000 tokens, B = 1.
    const LayerRun r = chunk(1000, 1);
    // time_projection [1000, 3072] × [3072, 18,432]: 2·1000·3072·18,432 = 113,246,208,000 FLOPs
    EXPECT_EQ(find(dit_edge_ops(c, r), "time_projection").cost.flops, 113246208000ull);
    const auto ops = dit_block_ops(c, r);
    // modulation + e_t [1000, 6, 3072]: read 6·3072 + 1000·18,432, write 1000·18,432 → 2·(18,432 + 2·18,432,000)
    //   = 73,764,864 B
    EXPECT_EQ(find(ops, "modulation").cost.bytes(), 73764864u);
    // modulate1 reads x̂ [1000, 3072] and per-token shift, scale [1000, 3072]: 2·3·3,072,000 = 18,432,000 B
    EXPECT_EQ(find(ops, "modulate1").cost.bytes_read, 18432000u);
    // Wan2.1's t2v reads one row each: 2·(3,072,000 + 2·3072) = 6,156,288 B
    TransformerConfig t2v = c;
    t2v.dit->timestep_per_token = false;
    EXPECT_EQ(find(dit_block_ops(t2v, r), "modulate1").cost.bytes_read, 6156288u);
}

TEST(Dit, AnI2vWanModelIsRefusedItsConfigDoesNotSayWhichWan) {
    // Wan2.1-I2V's WanModel (CLIP image cross-attention) and Wan2.2-I2V-A14B's (channel concatenation only) write the
    // same config.json keys: refused, naming --wan-i2v and the diffusers config that tells them apart.
    const std::string e = error_of([&] {
        (void)parse_hf_config(
            R"({"_class_name": "WanModel", "dim": 5120, "num_layers": 40, "num_heads": 40, "ffn_dim": 13824, "in_dim": 36,
                "model_type": "i2v"})",
            "x");
    });
    EXPECT_NE(e.find("\"i2v\""), std::string::npos) << e;
    EXPECT_NE(e.find("--wan-i2v 2.1"), std::string::npos) << e;
    EXPECT_NE(e.find("WanTransformer3DModel"), std::string::npos) << e;
}

TEST(Dit, AnI2vWanModelReadsAsTheWanTheUserNames) {
    // A real i2v WanModel config.json (tests/data/models/lingbot-world-fast-i2v.config.json: D 5120, F 13,824, 40 heads,
    // 40 blocks, in_dim 36), refused bare (above). Its bytes are Wan's own i2v config form, so the counts below are
    // Wan's; they are NOT LingBot-World's, whose WanModel adds camera-control modules the file does not declare
    // (four Linear(5120, 5120) per block alone: 40·4·(5120² + 5120) = 4,195,123,200; see its .src.txt).
    const std::string path = std::string(BWACCT_TEST_DATA) + "/models/lingbot-world-fast-i2v.config.json";
    EXPECT_NE(error_of([&] { (void)load_hf_config(path, "--hf-config"); }).find("--wan-i2v"), std::string::npos);
    // --wan-i2v 2.1: Wan2.1-I2V-14B's network, the diffusers form's count (Wan21I2v14bImageCrossAttentionAndImageEmbedding):
    //   T2V-14B 14,288,491,584 + patch (36 − 16)·4·5120 = 409,600 + 40 · (k_img, v_img 2·(5120² + 5120) + norm_k_img
    //   5120 = 52,444,160) = 2,097,766,400 + img_emb 2560 + 1,639,680 + 6,558,720 + 10,240 = 8,211,200 → 16,394,878,784
    const TransformerConfig w21 = load_hf_config(path, "--hf-config", WanI2v::wan21);
    EXPECT_EQ(w21.name, "WanModel (i2v, Wan2.1)");
    EXPECT_EQ(w21.dit->image_tokens, 257u);
    EXPECT_FALSE(w21.dit->image_pos_emb);
    EXPECT_EQ(param_count(w21).total.value(), 16394878784ull);
    // --wan-i2v 2.2: one Wan2.2-I2V-A14B expert, t2v's network with in_dim 36: 14,288,491,584 + 409,600 = 14,288,901,184
    const TransformerConfig w22 = load_hf_config(path, "--hf-config", WanI2v::wan22);
    EXPECT_EQ(w22.name, "WanModel (i2v, Wan2.2)");
    EXPECT_EQ(w22.dit->image_tokens, 0u);
    EXPECT_FALSE(w22.dit->timestep_per_token);
    EXPECT_EQ(param_count(w22).total.value(), 14288901184ull);
    // The option changes nothing else: a t2v config reads the same with it
    EXPECT_EQ(param_count(load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/wan2.1-t2v-14b.config.json", "--hf-config",
                                         WanI2v::wan21))
                  .total.value(),
              14288491584ull);
}

TEST(Dit, AWanDerivedModelsExtraKeysAreRefusedNotDropped) {
    // A key the WanModel / WanTransformer3DModel constructor does not take is a fork's module bwacct does not count:
    // refused naming it (before, it was ignored and the count was Wan's).
    const std::string base = R"("dim": 1536, "num_layers": 30, "num_heads": 12, "ffn_dim": 8960)";
    for (const std::string key : {R"("inject_sample_info": true)", R"("add_control_adapter": true)",
                                  R"("num_frame_per_block": 3)", R"("local_attn_size": 12)"}) {
        const std::string e =
            error_of([&] { (void)parse_hf_config(R"({"_class_name": "WanModel", )" + base + ", " + key + "}", "x"); });
        EXPECT_NE(e.find(key.substr(0, key.find(':'))), std::string::npos) << e;
        EXPECT_NE(e.find("WanModel constructor argument"), std::string::npos) << e;
    }
    // SkyReels-V2's plain WanModel writes "inject_sample_info": false (no fps embedding): Wan2.1-T2V-1.3B's count,
    //   patch 16·4·1536 + 1536 = 99,840; text 4096·1536 + 1536 + 1536² + 1536 = 8,653,824; time 256·1536 + 1536 +
    //   1536² + 1536 = 2,755,584; projection 1536·9216 + 9216 = 14,164,992 → 25,674,240;
    //   block 2·(4·(1536² + 1536) + 2·1536) + 1536·8960 + 8960 + 8960·1536 + 1536 + 2·1536 + 6·1536
    //   = 18,892,800 + 27,535,616 + 12,288 = 46,440,704 · 30 = 1,393,221,120; head 1536·64 + 64 + 2·1536 = 101,440
    //   → 1,418,996,800
    EXPECT_EQ(param_count(parse_hf_config(R"({"_class_name": "WanModel", )" + base + R"(, "inject_sample_info": false})", "x"))
                  .total.value(),
              1418996800ull);
    // diffusers: the class's own keys only
    const std::string d = error_of([&] {
        (void)parse_hf_config(
            R"({"_class_name": "WanTransformer3DModel", "num_attention_heads": 12, "attention_head_dim": 128,
                "num_layers": 30, "ffn_dim": 8960, "inject_sample_info": true})",
            "x");
    });
    EXPECT_NE(d.find("inject_sample_info"), std::string::npos) << d;
    // SkyReels-V2's own diffusers class (tests/data/models/skyreels-v2-df-1.3b-540p-diffusers-transformer.config.json)
    const std::string k = error_of([&] {
        (void)load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/skyreels-v2-df-1.3b-540p-diffusers-transformer.config.json",
                             "--hf-config");
    });
    EXPECT_NE(k.find("SkyReelsV2Transformer3DModel"), std::string::npos) << k;
    EXPECT_NE(k.find("inject_sample_info"), std::string::npos) << k;
    // Wan2.2-Animate's (tests/data/models/wan2.2-animate-14b-diffusers-transformer.config.json) and Wan2.2-S2V's classes
    const std::string a = error_of([&] {
        (void)load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/wan2.2-animate-14b-diffusers-transformer.config.json",
                             "--hf-config");
    });
    EXPECT_NE(a.find("WanAnimateTransformer3DModel"), std::string::npos) << a;
    EXPECT_NE(a.find("motion_encoder_dim"), std::string::npos) << a;
    const std::string s2v = error_of(
        [&] { (void)parse_hf_config(R"({"_class_name": "WanModel_S2V", "model_type": "s2v", "audio_dim": 1024})", "x"); });
    EXPECT_NE(s2v.find("WanModel_S2V"), std::string::npos) << s2v;
    EXPECT_NE(s2v.find("audio_dim"), std::string::npos) << s2v;
}

TEST(Dit, WeightBytesCountTheHead) {
    // Every parameter in bf16, the head included (before, the head was costed as an LLM's vocab · D LM head, 0 for a
    // DiT): Wan2.1-T2V-14B 2 · 14,288,491,584 = 28,576,983,168 B (head 327,744 + 2·5120 = 337,984 parameters);
    // the head is replicated under TP.
    LayerRun r = chunk(2160, 1);
    r.dtype = DType::bf16;
    EXPECT_EQ(weight_bytes_per_rank(wan(), r).value(), 28576983168ull);
    EXPECT_EQ(rank_weights(wan(), chunk(2160, 2)).lm_head.value(), 2u * 337984u);
}

TEST(Dit, Wan22A14bExpertIsOneWan14bWanModelPerStep) {
    // Wan2.2-I2V-A14B in diffusers (transformer/ and transformer_2/, the high- and low-noise experts, one run per
    // step): no image cross-attention (image_dim, added_kv_proj_dim null), the image latent concatenated on the
    // channels (in_channels 36). One expert: Wan2.1-T2V-14B's 14,288,491,584 + (36 − 16)·4·5120 = 409,600 in the patch
    // embedding = 14,288,901,184; both experts held: 28,577,802,368.
    const TransformerConfig c = parse_hf_config(
        R"({"_class_name": "WanTransformer3DModel", "added_kv_proj_dim": null, "attention_head_dim": 128,
            "cross_attn_norm": true, "eps": 1e-06, "ffn_dim": 13824, "freq_dim": 256, "image_dim": null, "in_channels": 36,
            "num_attention_heads": 40, "num_layers": 40, "out_channels": 16, "patch_size": [1, 2, 2],
            "qk_norm": "rms_norm_across_heads", "rope_max_seq_len": 1024, "text_dim": 4096})",
        "x");
    EXPECT_EQ(param_count(c).total.value(), 14288901184ull);
    EXPECT_EQ(2 * param_count(c).total.value(), 28577802368ull);
}

namespace {

TransformerConfig model_file(const std::string& name) {
    return load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/" + name, "--hf-config");
}

LayerRun bf16_chunk(std::uint64_t tokens) {
    LayerRun r = chunk(tokens, 1);
    r.dtype = DType::bf16;
    return r;
}

}  // namespace

TEST(Dit, Wan21I2v14bImageCrossAttentionAndImageEmbedding) {
    // Wan2.1-I2V-14B-480P in diffusers: image_dim 1280, added_kv_proj_dim 5120, in_channels 36; 257 CLIP tokens.
    const TransformerConfig c = model_file("wan2.1-i2v-14b-480p-diffusers-transformer.config.json");
    ASSERT_TRUE(c.dit);
    EXPECT_EQ(c.name, "WanTransformer3DModel (i2v)");
    EXPECT_EQ(c.dit->image_tokens, 257u);
    // Parameters: Wan2.1-T2V-14B's 14,288,491,584
    //   + patch embedding (36 − 16)·1·2·2·5120 = 409,600
    //   + per block k_img, v_img 2·(5120² + 5120) = 52,439,040 and norm_k_img 5120 → 52,444,160 · 40 = 2,097,766,400
    //   + img_emb: LayerNorm(1280) 2·1280 = 2560; Linear(1280, 1280) 1,638,400 + 1280 = 1,639,680;
    //     Linear(1280, 5120) 6,553,600 + 5120 = 6,558,720; LayerNorm(5120) 10,240 → 8,211,200
    //   = 16,394,878,784
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.total.value(), 16394878784ull);
    EXPECT_EQ(p.attention.value(), 209776640u + 52444160u);
    // bf16 weights: 2 B each = 32,789,757,568 B
    EXPECT_EQ(weight_bytes_per_rank(c, bf16_chunk(2160)).value(), 32789757568ull);
    const LayerRun r = bf16_chunk(2160);
    const auto ops = dit_block_ops(c, r);
    // k_img, v_img over [257, 5120] × [5120, 10,240]: 2·257·5120·10,240 = 26,948,403,200 FLOPs
    EXPECT_EQ(find(ops, "cross_kv_img_proj").cost.flops, 26948403200ull);
    // image attention, q = 2160, kv = 257, 40 heads of 128: 4·40·2160·257·128 = 11,368,857,600 FLOPs
    EXPECT_EQ(find(ops, "image_attention").cost.flops, 11368857600ull);
    // x + img_x over [2160, 5120]: read 2, write 1, bf16: 3·2·11,059,200 = 66,355,200 B; 11,059,200 FLOPs
    EXPECT_EQ(find(ops, "cross_img_add").cost.bytes(), 66355200u);
    EXPECT_EQ(find(ops, "cross_img_add").cost.flops, 11059200u);
    (void)find(ops, "cross_k_img_norm");
    const auto edges = dit_edge_ops(c, r);
    // img_emb Linear(1280, 5120) over 257 rows: 2·257·1280·5120 = 3,368,550,400 FLOPs
    EXPECT_EQ(find(edges, "img_emb_fc2").cost.flops, 3368550400ull);
    // context concat [257 + 512, 5120], read and written in bf16: 2·2·769·5120 = 15,749,120 B
    EXPECT_EQ(find(edges, "context_concat").cost.bytes(), 15749120u);
    EXPECT_THROW((void)find(edges, "img_emb_pos"), std::runtime_error);  // i2v has no position embedding
    // Wan2.2-I2V-A14B's diffusers config (image_dim null) keeps no image branch.
    EXPECT_EQ(model_file("wan2.2-t2v-a14b-diffusers-transformer.config.json").dit->image_tokens, 0u);
}

TEST(Dit, Wan21Flf2vTwoImagesWithTheirPositionEmbedding) {
    // FLF2V: pos_embed_seq_len 514 = 2 · 257 CLIP tokens (first and last frame), emb_pos [514, 1280].
    const TransformerConfig c = model_file("wan2.1-flf2v-14b-720p-diffusers-transformer.config.json");
    EXPECT_EQ(c.name, "WanTransformer3DModel (flf2v)");
    EXPECT_EQ(c.dit->image_tokens, 514u);
    // I2V's 16,394,878,784 + emb_pos 514·1280 = 657,920 → 16,395,536,704
    EXPECT_EQ(param_count(c).total.value(), 16395536704ull);
    // Wan's own WanModel config.json (model_type "flf2v") reads the same
    const TransformerConfig w = parse_hf_config(
        R"({"_class_name": "WanModel", "dim": 5120, "eps": 1e-06, "ffn_dim": 13824, "freq_dim": 256, "in_dim": 36,
            "model_type": "flf2v", "num_heads": 40, "num_layers": 40, "out_dim": 16, "text_len": 512})",
        "x");
    EXPECT_EQ(w.name, "WanModel (flf2v)");
    EXPECT_EQ(param_count(w).total.value(), 16395536704ull);
    const LayerRun r = bf16_chunk(2160);
    // image attention over 514 keys: 4·40·2160·514·128 = 22,737,715,200 FLOPs
    EXPECT_EQ(find(dit_block_ops(c, r), "image_attention").cost.flops, 22737715200ull);
    // emb_pos add [514, 1280] + [514, 1280]: read 2·657,920, write 657,920, bf16 → 2·3·657,920 = 3,947,520 B
    EXPECT_EQ(find(dit_edge_ops(c, r), "img_emb_pos").cost.bytes(), 3947520u);
}

TEST(Dit, Wan21VaceContextBlocksProjectionsAndHints) {
    // Wan2.1-VACE-14B (VaceWanModel): vace_layers [0, 5, ..., 35] → 8 context blocks, vace_in_dim 96.
    const TransformerConfig c = model_file("wan2.1-vace-14b.config.json");
    EXPECT_EQ(c.name, "VaceWanModel (vace)");
    EXPECT_EQ(c.dit->vace_blocks, 8u);
    EXPECT_EQ(dit_block_count(c, DitBlock::main), 32u);
    EXPECT_EQ(dit_block_count(c, DitBlock::hinted), 8u);
    EXPECT_EQ(dit_block_count(c, DitBlock::vace), 8u);
    // VACE parameters: 8 · (block 351,394,304 + after_proj 5120² + 5120 = 26,219,520) = 3,020,910,592
    //   + before_proj 26,219,520 + vace_patch_embedding 96·1·2·2·5120 + 5120 = 1,971,200 → 3,049,101,312;
    //   total 14,288,491,584 + 3,049,101,312 = 17,337,592,896
    const ParamCount p = param_count(c);
    EXPECT_EQ(p.dit_vace.value(), 3049101312ull);
    EXPECT_EQ(p.total.value(), 17337592896ull);
    const LayerRun r = bf16_chunk(2160);
    // after_proj [2160, 5120] × [5120, 5120]: 2·2160·5120·5120 = 113,246,208,000 FLOPs
    EXPECT_EQ(find(dit_block_ops(c, r, DitBlock::vace), "vace_after_proj").cost.flops, 113246208000ull);
    // a hinted block's x + hint·scale: 2 FLOPs per element, 2·11,059,200 = 22,118,400; read 2, write 1 → 66,355,200 B
    const auto hinted = dit_block_ops(c, r, DitBlock::hinted);
    EXPECT_EQ(find(hinted, "vace_hint_add").cost.flops, 22118400u);
    EXPECT_EQ(find(hinted, "vace_hint_add").cost.bytes(), 66355200u);
    EXPECT_THROW((void)find(dit_block_ops(c, r), "vace_hint_add"), std::runtime_error);
    const auto edges = dit_edge_ops(c, r);
    EXPECT_EQ(find(edges, "vace_before_proj").cost.flops, 113246208000ull);
    // hints stacked: block i copies i + 2 tensors of [2160, 5120]: Σ_{i=0..7} (i + 2) = 44 copies,
    //   read and written in bf16: 2·2·44·11,059,200 = 1,946,419,200 B
    EXPECT_EQ(find(edges, "vace_hint_stack").cost.bytes(), 1946419200ull);
    // PP is refused: the context blocks feed blocks on every stage
    LayerRun pp = r;
    pp.pp = 2;
    EXPECT_NE(error_of([&] { (void)dit_block_ops(c, pp); }).find("--pp"), std::string::npos);
}

TEST(Dit, Wan21Vace13bDiffusersConfig) {
    // WanVACETransformer3DModel, Wan2.1-VACE-1.3B: D 1536, F 8960, 30 blocks, vace_layers 0, 2, ..., 28 (15).
    const TransformerConfig c = model_file("wan2.1-vace-1.3b-diffusers-transformer.config.json");
    EXPECT_EQ(c.name, "WanVACETransformer3DModel (vace)");
    EXPECT_EQ(c.dit->vace_blocks, 15u);
    // block: attention 2·(4·(1536² + 1536) + 2·1536) = 18,892,800; ffn 1536·8960 + 8960 + 8960·1536 + 1536
    //   = 27,535,616; norm3 + modulation 8·1536 = 12,288 → 46,440,704; after_proj 1536² + 1536 = 2,360,832
    // VACE: 15 · 48,801,536 = 732,023,040 + before_proj 2,360,832 + patch 96·4·1536 + 1536 = 591,360 → 734,975,232
    // total: Wan2.1-T2V-1.3B's 1,418,996,800 + 734,975,232 = 2,153,972,032
    EXPECT_EQ(param_count(c).dit_vace.value(), 734975232ull);
    EXPECT_EQ(param_count(c).total.value(), 2153972032ull);
    // diffusers keeps the hints in a list: no torch.stack copies (Wan's VaceWanModel has them, above)
    EXPECT_THROW((void)find(dit_edge_ops(c, bf16_chunk(2160)), "vace_hint_stack"), std::runtime_error);
    // vace_layers without block 0 is refused (the reference asserts 0 ∈ vace_layers)
    EXPECT_NE(error_of([&] {
                  (void)parse_hf_config(R"({"_class_name": "VaceWanModel", "dim": 1536, "num_layers": 30, "num_heads": 12,
                                           "ffn_dim": 8960, "vace_layers": [2, 4]})",
                                        "x");
              }).find("vace_layers"),
              std::string::npos);
}

// A WanVACETransformer3DModel config that leaves out vace_layers and vace_in_channels takes diffusers' defaults
// ([0, 5, ..., 35] and 96), not WanModel's (range(0, L, 2), in_dim): with Wan2.1-14B's dimensions that is exactly
// Wan2.1-VACE-14B (8 context blocks over 96 channels), 17,337,592,896 parameters (hand count in the test above); with
// WanModel's defaults it read as 20 context blocks over 16 channels.
TEST(Dit, DiffusersVaceDefaultsAreDiffusers) {
    const TransformerConfig c = parse_hf_config(
        R"({"_class_name": "WanVACETransformer3DModel", "attention_head_dim": 128, "num_attention_heads": 40,
            "num_layers": 40, "ffn_dim": 13824, "in_channels": 16, "out_channels": 16, "text_dim": 4096,
            "freq_dim": 256, "patch_size": [1, 2, 2], "cross_attn_norm": true, "eps": 1e-06})",
        "x");
    EXPECT_EQ(c.dit->vace_blocks, 8u);
    EXPECT_EQ(c.dit->vace_in_channels, 96u);
    EXPECT_EQ(param_count(c).total.value(), 17337592896ull);
    // diffusers raises for a VACE layer past the last block: so does bwacct (30 layers, default list up to 35)
    EXPECT_NE(error_of([] {
                  (void)parse_hf_config(R"({"_class_name": "WanVACETransformer3DModel", "attention_head_dim": 128,
                                           "num_attention_heads": 12, "num_layers": 30, "ffn_dim": 8960})",
                                        "x");
              }).find("vace_layers"),
              std::string::npos);
}

TEST(Dit, ImageAndVaceFieldsBwacctDoesNotModelAreNamed) {
    const std::string base = R"("attention_head_dim": 128, "ffn_dim": 13824, "num_attention_heads": 40, "num_layers": 40)";
    for (const auto& [extra, field] : std::vector<std::pair<std::string, std::string>>{
             {R"("image_dim": 1280, "added_kv_proj_dim": 1280)", "added_kv_proj_dim"},  // not the hidden size (5120)
             {R"("added_kv_proj_dim": 5120)", "image_dim"},                             // one without the other
             {R"("pos_embed_seq_len": 514)", "pos_embed_seq_len"},                      // no image embedding to add it to
             {R"("image_dim": 1280, "added_kv_proj_dim": 5120, "vace_layers": [0, 5])", "VACE"},
             {R"("vace_in_channels": 96)", "WanVACETransformer3DModel"}})  // a VACE key on the plain class
        EXPECT_NE(error_of([&, &e = extra] {
                      (void)parse_hf_config(R"({"_class_name": "WanTransformer3DModel", )" + base + ", " + e + "}", "x");
                  }).find(field),
                  std::string::npos)
            << extra;
    // VaceWanModel's model_type "vace" reads as "t2v"; vace_layers defaults to every other block from 0 (30 → 15)
    const TransformerConfig v = parse_hf_config(
        R"({"_class_name": "VaceWanModel", "dim": 1536, "num_layers": 30, "num_heads": 12, "ffn_dim": 8960,
            "model_type": "vace"})",
        "x");
    EXPECT_EQ(v.dit->vace_blocks, 15u);
    EXPECT_EQ(v.dit->vace_in_channels, 16u);  // vace_in_dim defaults to in_dim
    EXPECT_EQ(v.dit->image_tokens, 0u);
}

// A quantized DiT is not modelled: a "quantization_config" (a bitsandbytes nf4 diffusers Wan, or one on WanModel's own
// form) is refused naming quantization and its method, not as a Wan-derived model's foreign key.
TEST(Dit, AQuantizedWanIsRefusedNamingQuantization) {
    const std::string q = R"("quantization_config": {"load_in_4bit": true, "bnb_4bit_quant_type": "nf4",
                                                     "quant_method": "bitsandbytes"})";
    for (const std::string& text :
         {R"({"_class_name": "WanTransformer3DModel", "attention_head_dim": 128, "num_attention_heads": 12,
              "num_layers": 30, "ffn_dim": 8960, )" +
              q + "}",
          R"({"_class_name": "WanModel", "dim": 1536, "num_heads": 12, "num_layers": 30, "ffn_dim": 8960, )" + q + "}"}) {
        const std::string e = error_of([&] { (void)parse_hf_config(text, "x"); });
        EXPECT_NE(e.find("quantization_config"), std::string::npos) << e;
        EXPECT_NE(e.find("\"bitsandbytes\""), std::string::npos) << e;
        EXPECT_NE(e.find("quantized"), std::string::npos) << e;
        EXPECT_EQ(e.find("Wan-derived"), std::string::npos) << e;
    }
    // no quant_method: still named as quantization
    const std::string e = error_of([] {
        (void)parse_hf_config(R"({"_class_name": "WanTransformer3DModel", "attention_head_dim": 128,
                                  "num_attention_heads": 12, "num_layers": 30, "ffn_dim": 8960, "quantization_config": {}})",
                              "x");
    });
    EXPECT_NE(e.find("quantized WanTransformer3DModel"), std::string::npos) << e;
}

// "quantization_config": null is no quantization (diffusers' ModelMixin.from_pretrained quantizes only when the
// config's value is not None; transformers reads null the same): read as unquantized in either form, not refused.
// Wan2.1-T2V-1.3B's fields (1,418,996,800 parameters: AWanDerivedModelsExtraKeysAreRefusedNotDropped).
TEST(Dit, AWanWithNullQuantizationConfigIsUnquantized) {
    for (const std::string& text :
         {std::string(R"({"_class_name": "WanTransformer3DModel", "attention_head_dim": 128, "num_attention_heads": 12,
                          "num_layers": 30, "ffn_dim": 8960, "quantization_config": null})"),
          std::string(R"({"_class_name": "WanModel", "dim": 1536, "num_heads": 12, "num_layers": 30, "ffn_dim": 8960,
                          "quantization_config": null})")}) {
        const TransformerConfig c = parse_hf_config(text, "x");
        EXPECT_EQ(param_count(c).total.value(), 1418996800ull) << text;
        EXPECT_FALSE(c.weight_format) << text;
    }
}

TEST(Dit, WeightBytesPerRankShardAsTheOps) {
    // Each weight on a rank as the block's ops use it (Megatron TP): q, k, v, cross q, cross k, v and ffn_up
    // column-parallel ([K, N/tp], bias N/tp); o, cross o and ffn_down row-parallel ([K/tp, N], bias N replicated);
    // norm_q, norm_k (self and cross, 4·D) split by head; norm3 (2·D) and the modulation (6·D) replicated; the
    // embeddings and the head replicated (the ops outside the blocks run whole on every rank). bf16, 2 B each.
    // Before: the cross-attention's q, k, v, o counted whole on every rank (the ops shard them) and the embeddings
    // divided by tp (the ops replicate them): 18,487,987,328 B at --tp 2.
    const TransformerConfig c = wan();
    LayerRun r1 = bf16_chunk(2160), r2 = r1;
    r2.tp = 2;
    // --tp 1: every parameter once, 2 · 14,288,491,584 = 28,576,983,168 B; a block 2 · 351,394,304 = 702,788,608 B.
    EXPECT_EQ(weight_bytes_per_rank(c, r1).value(), 28576983168ull);
    EXPECT_EQ(rank_weights(c, r1).dense_layer.value(), 702788608u);
    // --tp 2, D = 5120, F = 13,824, one block:
    //   weights: qkv 5120·15,360/2 = 39,321,600; o 5120/2·5120 = 13,107,200; cross q 13,107,200;
    //            cross kv 5120·10,240/2 = 26,214,400; cross o 13,107,200; ffn_up 5120·13,824/2 = 35,389,440;
    //            ffn_down 13,824/2·5120 = 35,389,440 → 175,636,480 (= (4·5120² · 2 + 2·5120·13,824)/2)
    //   biases: column (15,360 + 5120 + 10,240 + 13,824)/2 = 22,272; row 3·5120 = 15,360 → 37,632
    //   vectors: q/k norms 4·5120/2 = 10,240; norm3 10,240; modulation 30,720 → 51,200
    //   = 175,725,312 parameters, 351,450,624 B
    EXPECT_EQ(rank_weights(c, r2).dense_layer.value(), 351450624u);
    // embeddings 232,381,440 and head 337,984 whole: 464,762,880 B and 675,968 B
    EXPECT_EQ(rank_weights(c, r2).embedding.value(), 464762880u);
    EXPECT_EQ(rank_weights(c, r2).lm_head.value(), 675968u);
    // 40 · 351,450,624 = 14,058,024,960 + 464,762,880 + 675,968 = 14,523,463,808 B
    EXPECT_EQ(weight_bytes_per_rank(c, r2).value(), 14523463808ull);
    // The ops read the same share: cross_kv_proj at --tp 2 is [512, 5120] × [5120, 5120]:
    // 2·(512·5120 + 5120·5120 + 512·5120) = 62,914,560 B, of which the weight 2·26,214,400.
    EXPECT_EQ(find(dit_block_ops(c, r2), "cross_kv_proj").cost.bytes(), 62914560u);
}

TEST(Dit, WeightBytesPerRankImageAndVaceBranches) {
    LayerRun r = bf16_chunk(2160);
    r.tp = 2;
    // Wan2.1-I2V-14B at --tp 2: a block = T2V's 175,725,312 + k_img, v_img 5120·10,240/2 + 10,240/2 = 26,219,520
    // + norm_k_img 5120/2 = 2560 → 201,947,392 parameters, 403,894,784 B; × 40 = 16,155,791,360 B.
    // Replicated: embeddings 232,381,440 + patch (36 − 16)·4·5120 = 409,600 + img_emb 8,211,200 = 241,002,240, head
    // 337,984 → 241,340,224 · 2 = 482,680,448 B. Total 16,638,471,808 B.
    const TransformerConfig i2v = model_file("wan2.1-i2v-14b-480p-diffusers-transformer.config.json");
    EXPECT_EQ(rank_weights(i2v, r).dense_layer.value(), 403894784u);
    EXPECT_EQ(weight_bytes_per_rank(i2v, r).value(), 16638471808ull);
    // Wan2.1-VACE-14B at --tp 2: T2V's 14,523,463,808 B + 8 context blocks (351,450,624 B + after_proj replicated
    // 2·26,219,520 = 52,439,040 B → 403,889,664 B) = 3,231,117,312 B + before_proj 26,219,520 and vace_patch_embedding
    // 1,971,200 replicated, 56,381,440 B → 17,810,962,560 B; --tp 1: 2 · 17,337,592,896 = 34,675,185,792 B.
    const TransformerConfig vace = model_file("wan2.1-vace-14b.config.json");
    EXPECT_EQ(weight_bytes_per_rank(vace, r).value(), 17810962560ull);
    EXPECT_EQ(weight_bytes_per_rank(vace, bf16_chunk(2160)).value(), 34675185792ull);
}

TEST(Dit, WeightAndKvFormatsOtherThanTheDtypeAreRefused) {
    // The block's GEMMs read their weights in --dtype: an int4 weight format would shrink the weight bytes (13.0 GiB
    // for T2V-14B) while every op still read bf16 weights. Refused, naming the option; the same dtype is accepted.
    LayerRun r = chunk(2160, 1);
    r.dtype = DType::bf16;
    r.weight = weight_format(DType::int4, 128);
    EXPECT_NE(error_of([&] { (void)dit_block_ops(wan(), r); }).find("--weight-dtype"), std::string::npos);
    r.weight = plain_format(DType::bf16);
    EXPECT_NO_THROW((void)dit_block_ops(wan(), r));
    r.kv = DType::fp8_e4m3;
    EXPECT_NE(error_of([&] { (void)dit_block_ops(wan(), r); }).find("--kv-dtype"), std::string::npos);
}

namespace {

// Wan's norm1, norm2 and the head's norm are LayerNorms without γ, β (WanLayerNorm, elementwise_affine=False): they
// read x only. norm_q and norm_k are two RMSNorms with a γ each: the one qk_norm op reads both. They were charged
// 2·D bytes of γ, β each, and one γ for q and k together (dit7's notes).
TEST(Dit, NormsReadTheParametersTheModelHas) {
    const TransformerConfig c = wan();
    const LayerRun r = bf16_chunk(2160);
    const auto ops = dit_block_ops(c, r);
    // norm1: x [2160, 5120] bf16 read and y written: 2160·5120·2 = 22,118,400 B each way, no parameters
    EXPECT_EQ(find(ops, "norm1").cost.bytes_read, 22118400u);
    EXPECT_EQ(find(ops, "norm2").cost.bytes_read, 22118400u);
    // norm3 (cross_attn_norm): LayerNorm with γ, β: 22,118,400 + 2·5120·2 = 22,138,880 B read
    EXPECT_EQ(find(ops, "norm3").cost.bytes_read, 22138880u);
    // qk_norm over q and k, [2·2160, 5120]: 4320·5120·2 = 44,236,800 B + γ_q and γ_k 2·5120·2 = 20,480 → 44,257,280
    EXPECT_EQ(find(ops, "qk_norm").cost.bytes_read, 44257280u);
    EXPECT_EQ(find(ops, "qk_norm").cost.bytes_written, 44236800u);
}

}  // namespace

TEST(Dit, MoreRealWanConfigsCountAsTheirNetworks) {
    // Wan2.1-T2V-14B in diffusers form: the WanModel count (Wan14bParameterCountTermByTerm) 14,288,491,584
    // (independently: Wan2.2-T2V-A14B-Diffusers' transformer index, total_size 57,153,966,336 B in fp32 over 1095
    // tensors, is 4 × 14,288,491,584; stored code index, file id 68917165595)
    const TransformerConfig t2v14 = model_file("wan2.1-t2v-14b-diffusers-transformer.config.json");
    EXPECT_EQ(t2v14.name, "WanTransformer3DModel (t2v)");
    EXPECT_EQ(param_count(t2v14).total.value(), 14288491584ull);
    // Wan2.2-I2V-A14B, one expert in diffusers form: in_channels 36, no image_dim (no CLIP image cross-attention):
    //   14,288,491,584 + patch (36 − 16)·1·2·2·5120 = 409,600 → 14,288,901,184
    const TransformerConfig i2v22 = model_file("wan2.2-i2v-a14b-diffusers-transformer.config.json");
    EXPECT_EQ(i2v22.dit->image_tokens, 0u);
    // labelled by what the file says (36 in, 16 out: conditioning concatenated on channels), not t2v
    EXPECT_EQ(i2v22.name, "WanTransformer3DModel (channel-concat conditioning: in_channels 36, out_channels 16)");
    EXPECT_EQ(param_count(i2v22).total.value(), 14288901184ull);
    // Wan2.2-VACE-Fun-A14B, one expert: Wan2.1-VACE-14B's shape (Wan21VaceContextBlocksProjectionsAndHints):
    //   14,288,491,584 + 8·(351,394,304 + 26,219,520) + 26,219,520 + 96·4·5120 + 5120 = 17,337,592,896
    const TransformerConfig vace = model_file("wan2.2-vace-fun-a14b-diffusers-transformer.config.json");
    EXPECT_EQ(vace.dit->vace_blocks, 8u);
    EXPECT_EQ(param_count(vace).total.value(), 17337592896ull);
    // Wan2.1-T2V-1.3B's own WanModel config.json: 25,674,240 + 30 · 46,440,704 + 101,440 = 1,418,996,800
    const TransformerConfig t2v13 = model_file("wan2.1-t2v-1.3b.config.json");
    EXPECT_EQ(t2v13.name, "WanModel (t2v)");
    EXPECT_EQ(param_count(t2v13).total.value(), 1418996800ull);
}

TEST(Dit, ADiffusersWanTransformerSaysItsTimestepIsPerSample) {
    // Wan2.2-TI2V-5B-Diffusers' transformer: Wan's TI2V-5B network (Wan22Ti2v5bParametersAndItsPerTokenTimestep:
    // 4,999,787,712), but the per-token timestep is the pipeline's switch (expand_timesteps), not in this file: read
    // once per sample, and the output says so.
    const TransformerConfig c = model_file("wan2.2-ti2v-5b-diffusers-transformer.config.json");
    EXPECT_EQ(param_count(c).total.value(), 4999787712ull);
    EXPECT_FALSE(c.dit->timestep_per_token);
    const auto said = [](const TransformerConfig& t) {
        for (const std::string& l : t.limitations)
            if (l.find("expand_timesteps") != std::string::npos)
                return true;
        return false;
    };
    EXPECT_TRUE(said(c));
    // the evidence is in the line: the file's out_channels 48 (the Wan2.2 VAE latent)
    bool named = false;
    for (const std::string& l : c.limitations)
        named = named || (l.find("expand_timesteps") != std::string::npos && l.find("out_channels 48") != std::string::npos);
    EXPECT_TRUE(named);
    // Wan's own config.json says ti2v itself; the image-conditioned (Wan2.1 I2V) and VACE classes have no such switch
    EXPECT_FALSE(said(load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/wan2.2-ti2v-5b.config.json", "--hf-config")));
    EXPECT_FALSE(said(model_file("wan2.1-i2v-14b-480p-diffusers-transformer.config.json")));
    EXPECT_FALSE(said(model_file("wan2.2-vace-fun-a14b-diffusers-transformer.config.json")));
    // 16-channel latents (Wan2.1, the A14B experts: out_channels 16): their pipelines pass one timestep per sample, so
    // E = B is exact and nothing is said
    EXPECT_FALSE(said(model_file("wan2.1-t2v-14b-diffusers-transformer.config.json")));
    EXPECT_FALSE(said(model_file("wan2.2-i2v-a14b-diffusers-transformer.config.json")));
    EXPECT_FALSE(said(model_file("wan2.2-t2v-a14b-diffusers-transformer.config.json")));
    // out_channels null is in_channels 48: said
    EXPECT_TRUE(said(parse_hf_config(R"({"_class_name": "WanTransformer3DModel", "num_attention_heads": 24,
        "attention_head_dim": 128, "num_layers": 30, "ffn_dim": 14336, "in_channels": 48, "out_channels": null})",
                                     "x")));
}

TEST(Dit, ACausalWanIsRefusedByClass) {
    // Matrix-Game-2.0's foundation model (CausalWanModel: block-causal, rolling KV cache, action modules in every block)
    // and its three distilled models (local_attn_size 6 or 4, action modules in blocks 0..14; templerun without the
    // mouse): the repository's own bytes
    for (const char* name :
         {"matrix-game-2-foundation-causal-wan.config.json", "matrix-game-2-distilled-universal-causal-wan.config.json",
          "matrix-game-2-distilled-gta-drive-causal-wan.config.json",
          "matrix-game-2-distilled-templerun-causal-wan.config.json"}) {
        const std::string file = name;
        const std::string e = error_of([&] { (void)model_file(file); });
        EXPECT_NE(e.find("CausalWanModel is not modelled"), std::string::npos) << e;
        EXPECT_NE(e.find("local_attn_size"), std::string::npos) << e;
        EXPECT_NE(e.find(file), std::string::npos) << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;  // one line
    }
}

TEST(Dit, DiffusersWanSizesAreCheckedUnderTheirOwnNames) {
    const std::string base = R"("_class_name": "WanTransformer3DModel", "num_attention_heads": 24, "num_layers": 30,
                                "ffn_dim": 14336, "in_channels": 48)";
    // out_channels null is in_channels (diffusers: out_channels = out_channels or in_channels): TI2V-5B's head
    //   Linear(3072, 48·1·2·2 = 192) = 589,824 + 192 and its norm 2·3072 → 596,160 (Wan22Ti2v5bParametersAndItsPerTokenTimestep),
    //   not Linear(3072, 16·4 = 64) = 196,608 + 64 + 6144 = 202,816
    EXPECT_EQ(
        param_count(parse_hf_config("{" + base + R"(, "attention_head_dim": 128, "out_channels": null})", "x")).total.value(),
        4999787712ull);
    // an odd head size and a bad in_channels are named by the diffusers key, not WanModel's dim / in_dim
    const std::string odd = error_of([&] { (void)parse_hf_config("{" + base + R"(, "attention_head_dim": 127})", "x"); });
    EXPECT_NE(odd.find("\"attention_head_dim\" must be even"), std::string::npos) << odd;
    const std::string neg = error_of([&] {
        (void)parse_hf_config(R"({"_class_name": "WanTransformer3DModel", "num_attention_heads": 24, "num_layers": 30,
                                  "ffn_dim": 14336, "attention_head_dim": 128, "in_channels": -1})",
                              "x");
    });
    EXPECT_NE(neg.find("\"in_channels\" must be a positive integer"), std::string::npos) << neg;
}

TEST(Dit, AConfigNamingNoClassSaysBothWaysToNameOne) {
    // Wan2.1-T2V-1.3B's keys without "_class_name" (nor "architectures"): the refusal names both keys and Wan's classes
    const std::string e = error_of([&] {
        (void)parse_hf_config(R"({"dim": 1536, "ffn_dim": 8960, "model_type": "t2v", "num_heads": 12, "num_layers": 30})", "x");
    });
    EXPECT_NE(e.find("\"architectures\""), std::string::npos) << e;
    EXPECT_NE(e.find("\"_class_name\""), std::string::npos) << e;
    EXPECT_NE(e.find("WanModel"), std::string::npos) << e;
}

namespace {

// Wan2.1-T2V-14B in diffusers form (wan2.1-t2v-14b-diffusers-transformer.config.json's sizes) with `extra` keys.
std::string t2v14_diffusers(const std::string& extra) {
    return R"({"_class_name": "WanTransformer3DModel", "num_attention_heads": 40, "attention_head_dim": 128,
               "num_layers": 40, "ffn_dim": 13824, "out_channels": 16)" +
           extra + "}";
}

}  // namespace

TEST(Dit, ANullTheClassCannotBuildWithIsRefusedNamingIt) {
    // diffusers passes None on: nn.Conv3d(None, ...), PixArtAlphaTextProjection(None, ...), TimestepEmbedding(None,
    // ...); was read as absent (the defaults 16, 4096, 256) and gave 14,288,491,584
    for (const char* key : {"in_channels", "text_dim", "freq_dim", "patch_size", "rope_max_seq_len"}) {
        const std::string e = error_of([&] { (void)parse_hf_config(t2v14_diffusers(fmt::format(R"(, "{}": null)", key)), "x"); });
        EXPECT_NE(e.find(fmt::format("\"{}\" is null", key)), std::string::npos) << e;
    }
    const std::string vace = error_of([&] {
        (void)parse_hf_config(R"({"_class_name": "WanVACETransformer3DModel", "num_attention_heads": 40,
            "attention_head_dim": 128, "num_layers": 40, "ffn_dim": 13824, "vace_in_channels": null})",
                              "x");
    });
    EXPECT_NE(vace.find("\"vace_in_channels\" is null"), std::string::npos) << vace;
    // WanModel's own keys alike (Wan2.1-T2V-1.3B's config with in_dim null); its vace_in_dim null is in_dim (the class)
    const std::string w = error_of([&] {
        (void)parse_hf_config(
            R"({"_class_name": "WanModel", "dim": 1536, "ffn_dim": 8960, "num_heads": 12, "num_layers": 30, "in_dim": null})",
            "x");
    });
    EXPECT_NE(w.find("\"in_dim\" must be a positive integer, got null"), std::string::npos) << w;
    const std::string t = error_of([&] {
        (void)parse_hf_config(
            R"({"_class_name": "WanModel", "dim": 1536, "ffn_dim": 8960, "num_heads": 12, "num_layers": 30, "model_type": null})",
            "x");
    });
    EXPECT_NE(t.find("\"model_type\" = null is not modelled"), std::string::npos) << t;
}

TEST(Dit, ANullCrossAttnNormIsNoNormAndANullQkNormIsRefused) {
    // `if cross_attn_norm` (diffusers' WanTransformerBlock, Wan's WanAttentionBlock): null is false, no norm3.
    //   14,288,491,584 − 40 blocks · norm3 γ, β 2·5120 = 409,600 → 14,288,081,984 (was counted with norm3)
    EXPECT_EQ(param_count(parse_hf_config(t2v14_diffusers(R"(, "cross_attn_norm": null)"), "x")).total.value(), 14288081984ull);
    // Wan2.1-T2V-14B's WanModel keys (dim 5120, 40 heads, ffn 13824, 40 layers) alike
    EXPECT_EQ(param_count(parse_hf_config(R"({"_class_name": "WanModel", "dim": 5120, "ffn_dim": 13824, "num_heads": 40,
                                              "num_layers": 40, "cross_attn_norm": null})",
                                          "x"))
                  .total.value(),
              14288081984ull);
    // qk_norm null: diffusers up to 0.34 built no q/k norm (Attention(qk_norm=None)), later versions ignore qk_norm and
    // build RMSNorm across heads; the file cannot say which, so it is refused saying so (before: "the DiT block is
    // modelled with ...", as if every diffusers built none). WanModel's `if qk_norm` builds none: refused as false is.
    const std::string d = error_of([&] { (void)parse_hf_config(t2v14_diffusers(R"(, "qk_norm": null)"), "x"); });
    EXPECT_NE(d.find("\"qk_norm\" = null is not modelled: diffusers up to 0.34 built no q/k norm for it, later diffusers "
                     "ignore qk_norm and build q/k RMSNorm across heads, and the file does not say which"),
              std::string::npos)
        << d;
    const std::string w = error_of([&] {
        (void)parse_hf_config(
            R"({"_class_name": "WanModel", "dim": 5120, "ffn_dim": 13824, "num_heads": 40, "num_layers": 40, "qk_norm": null})",
            "x");
    });
    EXPECT_NE(w.find("\"qk_norm\" = null is not modelled: WanModel builds no q/k norm for it"), std::string::npos) << w;
    // eps null: WanRMSNorm / WanLayerNorm (and diffusers' norms) fail on it when run. No count depends on eps; WanModel's
    // was read (14,288,491,584) while diffusers' was refused: now both refused alike.
    const std::string we = error_of([&] {
        (void)parse_hf_config(
            R"({"_class_name": "WanModel", "dim": 5120, "ffn_dim": 13824, "num_heads": 40, "num_layers": 40, "eps": null})", "x");
    });
    EXPECT_NE(we.find("\"eps\" is null, which WanModel cannot be run with"), std::string::npos) << we;
    const std::string de = error_of([&] { (void)parse_hf_config(t2v14_diffusers(R"(, "eps": null)"), "x"); });
    EXPECT_NE(de.find("\"eps\" is null, which WanTransformer3DModel cannot be run with"), std::string::npos) << de;
}

TEST(Dit, DiffusersErrorsNameTheFilesOwnKeys) {
    // vace_in_channels 0 (was named as WanModel's "vace_in_dim")
    const std::string v = error_of([&] {
        (void)parse_hf_config(R"({"_class_name": "WanVACETransformer3DModel", "num_attention_heads": 40,
            "attention_head_dim": 128, "num_layers": 40, "ffn_dim": 13824, "vace_in_channels": 0})",
                              "x");
    });
    EXPECT_NE(v.find("\"vace_in_channels\" must be a positive integer"), std::string::npos) << v;
    // heads = head_dim = 2^32 = 4294967296: the product 2^64 wraps to 0 (was "\"dim\" must be a positive integer, got 0");
    // heads 2^62 + 1 = 4611686018427387905 with head_dim 4: 2^64 + 4 wraps to 4 (was named as "num_heads"/"dim")
    for (const auto& sizes :
         std::array<std::pair<const char*, const char*>, 2>{{{"4294967296", "4294967296"}, {"4611686018427387905", "4"}}}) {
        const char* heads = sizes.first;  // named copies: clang does not capture structured bindings (C++20 P1091)
        const char* head_dim = sizes.second;
        const std::string e = error_of([&] {
            (void)parse_hf_config(fmt::format(R"({{"_class_name": "WanTransformer3DModel", "num_attention_heads": {},
                "attention_head_dim": {}, "num_layers": 40, "ffn_dim": 13824}})",
                                              heads, head_dim),
                                  "x");
        });
        EXPECT_NE(e.find("\"num_attention_heads\""), std::string::npos) << e;
        EXPECT_NE(e.find("\"attention_head_dim\""), std::string::npos) << e;
        EXPECT_NE(e.find("overflows"), std::string::npos) << e;
    }
}

TEST(Dit, AWanModelWithEmptyArchitecturesIsReadByItsClassName) {
    // Wan2.1-T2V-1.3B's WanModel keys with "architectures" null or []: 1,418,996,800 (MoreRealWanConfigsCountAsTheirNetworks)
    // (was refused as 'missing "architectures"')
    for (const char* arch : {"null", "[]"})
        EXPECT_EQ(param_count(parse_hf_config(fmt::format(R"({{"_class_name": "WanModel", "architectures": {}, "dim": 1536,
            "ffn_dim": 8960, "model_type": "t2v", "num_heads": 12, "num_layers": 30}})",
                                                          arch),
                                              "x"))
                      .total.value(),
                  1418996800ull);
    // and the diffusers class alike: Wan2.1-T2V-14B's 14,288,491,584 (MoreRealWanConfigsCountAsTheirNetworks)
    for (const char* arch : {"null", "[]"})
        EXPECT_EQ(param_count(parse_hf_config(t2v14_diffusers(fmt::format(R"(, "architectures": {})", arch)), "x")).total.value(),
                  14288491584ull);
    // a string where the list belongs is named as such (was "missing")
    const std::string e = error_of([] { (void)parse_hf_config(R"({"architectures": "LlamaForCausalLM"})", "x"); });
    EXPECT_NE(e.find("\"architectures\" must be a list"), std::string::npos) << e;
}

TEST(Dit, MoreWanDerivedFilesAreRefusedNamingClassOrKey) {
    // Wan2.2-S2V-14B (WanModel_S2V: audio injection, frame packing), SkyReels-V2-I2V-14B-720P in diffusers form (its
    // class also runs diffusion forcing), LingBot-VA's transformer (diffusers' class name WanTransformer3DModel, but
    // with action_embedder/action_proj_out and a second condition embedder that diffusers' class does not have)
    const std::array<std::array<std::string, 3>, 4> cases{{
        {"wan2.2-s2v-14b.config.json", "WanModel_S2V is not modelled", "audio_dim"},
        {"skyreels-v2-i2v-14b-720p-diffusers-transformer.config.json", "SkyReelsV2Transformer3DModel is not modelled",
         "inject_sample_info"},
        {"lingbot-va-base-diffusers-transformer.config.json", "not a WanTransformer3DModel constructor argument",
         "\"action_dim\""},
        // DreamX-World's Wan2.2-TI2V-5B camera transformer (a VideoX-Fun class): was the generic "unsupported diffusers
        // class" and its list of 50 architectures
        {"dreamx-world-wan2.2-ti2v-5b-camera.config.json", "FSDPWan2_2Transformer3DModel is not modelled: a Wan-derived class",
         "\"add_control_adapter\""},
    }};
    for (const auto& c : cases) {
        const std::string file = c[0], what = c[1], key = c[2];
        const std::string e = error_of([&] { (void)model_file(file); });
        EXPECT_NE(e.find(file), std::string::npos) << e;
        EXPECT_NE(e.find(what), std::string::npos) << e;
        EXPECT_NE(e.find(key), std::string::npos) << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
    // recognised by what it is, a class named for Wan with Wan's sizes; a name alone keeps the generic answer
    const std::string bare = error_of(
        [] { (void)parse_hf_config(R"({"_class_name": "MyWanModel", "dim": 1536, "num_heads": 12, "num_layers": 30})", "x"); });
    EXPECT_NE(bare.find("MyWanModel is not modelled: a Wan-derived class; only"), std::string::npos) << bare;
    const std::string named = error_of([] { (void)parse_hf_config(R"({"_class_name": "WanVAE", "z_dim": 16})", "x"); });
    EXPECT_NE(named.find("unsupported diffusers class"), std::string::npos) << named;
}

TEST(Dit, AnEpsOrRopeTableSizeOfTheWrongTypeIsRefusedNamingIt) {
    // eps: the norms' epsilon, a non-negative number; a string, boolean or list (torch's layer_norm rejects them) or a
    // negative value was read without a word (exit 0); rope_max_seq_len (diffusers' RoPE table) alike
    const std::string wan = R"({"_class_name": "WanModel", "dim": 1536, "ffn_dim": 8960, "num_heads": 12, "num_layers": 30)";
    for (const char* eps : {"\"x\"", "true", "[1e-06]", "-1"}) {
        const std::string e = error_of([&] { (void)parse_hf_config(wan + ", \"eps\": " + eps + "}", "--hf-config x.json"); });
        EXPECT_NE(e.find("\"eps\" must be a non-negative number"), std::string::npos) << e;
        const std::string d = error_of([&] { (void)parse_hf_config(t2v14_diffusers(std::string(", \"eps\": ") + eps), "x"); });
        EXPECT_NE(d.find("\"eps\" must be a non-negative number"), std::string::npos) << d;
    }
    // window_size null: WanSelfAttention passes it to flash attention, which indexes it (was read as global)
    const std::string w = error_of([&] { (void)parse_hf_config(wan + R"(, "window_size": null})", "x"); });
    EXPECT_NE(w.find("\"window_size\" is null"), std::string::npos) << w;
    EXPECT_EQ(error_of([&] { (void)parse_hf_config(wan + R"(, "window_size": [-1, -1]})", "x"); }), "");
    for (const char* len : {"\"x\"", "-5", "0", "1.5"}) {
        const std::string e =
            error_of([&] { (void)parse_hf_config(t2v14_diffusers(std::string(", \"rope_max_seq_len\": ") + len), "x"); });
        EXPECT_NE(e.find("\"rope_max_seq_len\" must be a positive integer"), std::string::npos) << e;
    }
    // the values the published files carry still read: eps 1e-06 (Wan2.1-T2V-14B: 14,288,491,584), 0 runs too;
    // rope_max_seq_len 1024 (Wan2.2-T2V-A14B's diffusers file, MoreRealWanConfigsCountAsTheirNetworks)
    EXPECT_EQ(param_count(parse_hf_config(t2v14_diffusers(R"(, "eps": 1e-06, "rope_max_seq_len": 1024)"), "x")).total.value(),
              14288491584ull);
    EXPECT_EQ(error_of([&] { (void)parse_hf_config(wan + R"(, "eps": 0})", "x"); }), "");
}

TEST(Dit, WhatTheCountCoversIsSaid) {
    // MultiTalk and InfiniteTalk keep Wan2.1-I2V-14B's config.json (the lingbot-world-fast-i2v file's keys and values)
    // and add per-block audio cross-attention in their checkpoint: the count, 16,394,878,784 with --wan-i2v 2.1, is
    // Wan's; the output says so, in both forms
    const auto said = [](const TransformerConfig& t) {
        for (const std::string& l : t.limitations)
            if (l.find("the modules this config.json declares") != std::string::npos && l.find("MultiTalk") != std::string::npos)
                return true;
        return false;
    };
    const TransformerConfig i2v = load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/lingbot-world-fast-i2v.config.json",
                                                 "--hf-config", WanI2v::wan21);
    EXPECT_EQ(param_count(i2v).total.value(), 16394878784ull);
    EXPECT_TRUE(said(i2v));
    EXPECT_TRUE(said(model_file("wan2.1-i2v-14b-480p-diffusers-transformer.config.json")));
    EXPECT_TRUE(said(model_file("wan2.1-t2v-1.3b.config.json")));
}

TEST(Dit, EveryOpOfA480pClipByHand) {
    // Wan2.1-T2V-1.3B (D = 1536, 12 heads of d = 128, F = 8960, 30 blocks, text_len L = 512), 81 frames at 480×832, one
    // sample (B = E = 1), bf16 (b = 2). The Wan2.1 VAE compresses 4× in time (the first frame alone) and 8× in space,
    // 16 channels: latent [16, (81 − 1)/4 + 1 = 21, 480/8 = 60, 832/8 = 104]; patch (1, 2, 2) →
    // T = 21 · 30 · 52 = 32,760 tokens. TD = 50,319,360 (b·TD = 100,638,720); TF = 293,529,600 (b·TF = 587,059,200).
    const TransformerConfig c = model_file("wan2.1-t2v-1.3b.config.json");
    const LayerRun r = bf16_chunk(32760);
    struct Expected {
        const char* op;
        std::uint64_t flops, read, written;
    };
    const std::vector<Expected> block{
        // modulation: table 6D + e_t E·6D, 6D·E adds; read b·(9216 + 9216), write b·9216
        {"modulation", 9216, 36864, 18432},
        // LayerNorm, no affine: 7 FLOPs per element, 7·TD; read and write b·TD
        {"norm1", 352235520, 100638720, 100638720},
        // x̂·(1 + scale) + shift: 2·TD; read b·(TD + 2D) = 2·(50,319,360 + 3072)
        {"modulate1", 100638720, 100644864, 100638720},
        // [T, D] × [D, 3D]: 2·32,760·1536·4608; read b·(TD + 3D²) = 100,638,720 + 14,155,776; write b·3TD
        {"qkv_proj", 463743221760ull, 114794496, 301916160},
        // RMSNorm of q and k over D: 4·2TD; read b·(2TD + 2D γ) = 2·(100,638,720 + 3072); write b·2TD
        {"qk_norm", 402554880, 201283584, 201277440},
        // 3 FLOPs per element of q and k: 3·2TD; read and write b·2TD
        {"rope", 301916160, 201277440, 201277440},
        // bidirectional flash: 4·H·T²·d = 4·12·32,760²·128; read q, k, v 3·b·TD, write o b·TD
        {"self_attention", 6593848934400ull, 301916160, 100638720},
        // [T, D] × [D, D]: 2·T·D²; read b·(TD + D²) = 100,638,720 + 4,718,592
        {"out_proj", 154581073920ull, 105357312, 100638720},
        // x + y·gate: 2·TD; read b·(2TD + D) = 2·(100,638,720 + 1536)
        {"gate_residual1", 100638720, 201280512, 100638720},
        // LayerNorm with γ, β: 7·TD; read b·(TD + 2D)
        {"norm3", 352235520, 100644864, 100638720},
        {"cross_q_proj", 154581073920ull, 105357312, 100638720},
        // text [L, D] × [D, 2D]: 2·512·1536·3072; read b·(L·D + 2D²) = 2·(786,432 + 4,718,592); write b·2LD
        {"cross_kv_proj", 4831838208ull, 11010048, 3145728},
        // RMSNorm of q (T rows) and k (L rows): 4·33,272·1536; read b·(33,272·1536 + 2D γ); write b·33,272·1536
        {"cross_qk_norm", 204423168, 102217728, 102211584},
        // 4·H·T·L·d = 4·12·32,760·512·128; read b·(TD + 2·L·D) = 2·(50,319,360 + 1,572,864); write b·TD
        {"cross_attention", 103054049280ull, 103784448, 100638720},
        {"cross_out_proj", 154581073920ull, 105357312, 100638720},
        // x + branch: TD; read 2·b·TD
        {"cross_residual", 50319360, 201277440, 100638720},
        {"norm2", 352235520, 100638720, 100638720},
        {"modulate2", 100638720, 100644864, 100638720},
        // [T, D] × [D, F]: 2·T·D·F; read b·(TD + D·F) = 100,638,720 + 27,525,120; write b·TF
        {"ffn_up", 901722931200ull, 128163840, 587059200},
        // GELU tanh, 9 FLOPs per element: 9·TF; read and write b·TF
        {"gelu", 2641766400ull, 587059200, 587059200},
        // [T, F] × [F, D]; read b·(TF + F·D) = 587,059,200 + 27,525,120
        {"ffn_down", 901722931200ull, 614584320, 100638720},
        {"gate_residual2", 100638720, 201280512, 100638720},
    };
    const std::vector<Expected> edge{
        // Conv3d(16 → D, k = s = (1, 2, 2)) = [T, 64] × [64, D]: 2·T·64·D; read b·(T·64 + 64·D + D bias)
        //   = 2·(2,096,640 + 98,304 + 1536)
        {"patch_embedding", 6440878080ull, 4392960, 100638720},
        // text Linear(4096, D) over L rows: 2·512·4096·1536; read b·(L·4096 + 4096·D) = 2·(2,097,152 + 6,291,456)
        {"text_embedding_fc1", 6442450944ull, 16777216, 1572864},
        {"text_gelu", 7077888, 1572864, 1572864},  // 9·L·D
        // Linear(D, D) over L rows: 2·L·D²; read b·(L·D + D²) = 2·(786,432 + 2,359,296)
        {"text_embedding_fc2", 2415919104ull, 6291456, 1572864},
        // timestep: Linear(256, D) over E = 1 row: 2·256·D; read b·(256 + 256·D); write b·D
        {"time_embedding_fc1", 786432, 786944, 3072},
        {"time_silu", 6144, 3072, 3072},                 // 4 FLOPs per element: 4·D
        {"time_embedding_fc2", 4718592, 4721664, 3072},  // 2·D²; read b·(D + D²)
        {"time_proj_silu", 6144, 3072, 3072},
        // Linear(D, 6D): 2·D·6D; read b·(D + 6D²) = 2·(1536 + 14,155,776); write b·6D
        {"time_projection", 28311552, 28314624, 18432},
        // head table 2D + e 2D·E: 2D adds; read b·(2D + 2D), write b·2D
        {"head_modulation", 3072, 12288, 6144},
        {"head_norm", 352235520, 100638720, 100638720},
        {"head_modulate", 100638720, 100644864, 100638720},
        // Linear(D, 1·2·2·16 = 64): 2·T·D·64; read b·(TD + 64·D); write b·T·64
        {"head_proj", 6440878080ull, 100835328, 4193280},
    };
    const auto check = [](const std::vector<LayerOp>& ops, const std::vector<Expected>& want) {
        ASSERT_EQ(ops.size(), want.size());  // every op printed has its hand count here
        for (const Expected& w : want) {
            const Cost& got = find(ops, w.op).cost;
            EXPECT_EQ(got.flops, w.flops) << w.op;
            EXPECT_EQ(got.bytes_read, w.read) << w.op;
            EXPECT_EQ(got.bytes_written, w.written) << w.op;
        }
    };
    const std::vector<LayerOp> block_ops = dit_block_ops(c, r), edge_ops = dit_edge_ops(c, r);
    check(block_ops, block);
    check(edge_ops, edge);
    // one forward: 30 blocks of 9,437,727,378,432 FLOPs + 22,233,910,272 outside them = 283,154,055,263,232
    std::uint64_t forward = 0;
    for (const LayerOp& o : block_ops)
        forward += 30 * o.cost.flops;
    for (const LayerOp& o : edge_ops)
        forward += o.cost.flops;
    EXPECT_EQ(forward, 283154055263232ull);
}

TEST(Dit, Wan21Vace13bOwnConfigJsonAt480p) {
    // Wan2.1-VACE-1.3B's own config.json (VaceWanModel, model_type "vace": text cross-attention as t2v): vace_layers
    // [0, 2, ..., 28] → n = 15 context blocks, vace_in_dim 96. Parameters: 15 · (block 46,440,704 + after_proj
    // 1536² + 1536 = 2,360,832) + before_proj 2,360,832 + vace_patch_embedding 96·1·2·2·1536 + 1536 = 591,360
    //   = 734,975,232; total 1,418,996,800 + 734,975,232 = 2,153,972,032 (the diffusers form's, Wan21Vace13bDiffusersConfig)
    const TransformerConfig c = model_file("wan2.1-vace-1.3b.config.json");
    EXPECT_EQ(c.name, "VaceWanModel (vace)");
    EXPECT_EQ(dit_block_count(c, DitBlock::main), 15u);
    EXPECT_EQ(dit_block_count(c, DitBlock::hinted), 15u);
    EXPECT_EQ(dit_block_count(c, DitBlock::vace), 15u);
    EXPECT_EQ(param_count(c).dit_vace.value(), 734975232ull);
    EXPECT_EQ(param_count(c).total.value(), 2153972032ull);
    // 81 frames at 480×832: T = 21·30·52 = 32,760 (EveryOpOfA480pClipByHand), b·TD = 2·32,760·1536 = 100,638,720
    const LayerRun r = bf16_chunk(32760);
    const auto edges = dit_edge_ops(c, r);
    // Conv3d(96 → 1536, k = s = (1, 2, 2)) = [T, 384] × [384, D]: 2·32,760·384·1536 = 38,645,268,480;
    //   read b·(T·384 + 384·D + D) = 2·(12,579,840 + 589,824 + 1536) = 26,342,400; write b·TD
    const Cost& patch = find(edges, "vace_patch_embedding").cost;
    EXPECT_EQ(patch.flops, 38645268480ull);
    EXPECT_EQ(patch.bytes_read, 26342400u);
    EXPECT_EQ(patch.bytes_written, 100638720u);
    // before_proj Linear(D, D) over T rows: 2·T·D² = 154,581,073,920; then c + x: TD = 50,319,360, read 2·b·TD
    EXPECT_EQ(find(edges, "vace_before_proj").cost.flops, 154581073920ull);
    EXPECT_EQ(find(edges, "vace_before_add").cost.flops, 50319360u);
    EXPECT_EQ(find(edges, "vace_before_add").cost.bytes_read, 201277440u);
    // torch.stack of the hints: block i copies i + 2 tensors of [T, D]: 15·18/2 = 135 copies, each read and written:
    //   135 · 100,638,720 = 13,586,227,200 B each way
    EXPECT_EQ(find(edges, "vace_hint_stack").cost.bytes_read, 13586227200ull);
    EXPECT_EQ(find(edges, "vace_hint_stack").cost.bytes_written, 13586227200ull);
    // a hinted block adds hint·scale: 2·TD = 100,638,720 FLOPs; read x and hint 2·b·TD, write b·TD
    const Cost& add = find(dit_block_ops(c, r, DitBlock::hinted), "vace_hint_add").cost;
    EXPECT_EQ(add.flops, 100638720u);
    EXPECT_EQ(add.bytes_read, 201277440u);
    EXPECT_EQ(add.bytes_written, 100638720u);
    // a context block's after_proj Linear(D, D): 154,581,073,920 FLOPs; read b·(TD + D²) = 100,638,720 + 4,718,592
    const Cost& after = find(dit_block_ops(c, r, DitBlock::vace), "vace_after_proj").cost;
    EXPECT_EQ(after.flops, 154581073920ull);
    EXPECT_EQ(after.bytes_read, 105357312u);
}

TEST(Dit, Wan21I2vImageOpsAt480pByHand) {
    // Wan2.1-I2V-14B-480P in diffusers form (D = 5120, 40 heads of 128, CLIP image tokens N = 257, image_dim 1280,
    // in_channels 36), 81 frames at 480×832: T = 21·30·52 = 32,760 (EveryOpOfA480pClipByHand), bf16 (b = 2)
    const TransformerConfig c = model_file("wan2.1-i2v-14b-480p-diffusers-transformer.config.json");
    const LayerRun r = bf16_chunk(32760);
    struct Expected {
        const char* op;
        std::uint64_t flops, read, written;
    };
    const auto check = [](const std::vector<LayerOp>& ops, const std::vector<Expected>& want) {
        for (const Expected& w : want) {
            const Cost& got = find(ops, w.op).cost;
            EXPECT_EQ(got.flops, w.flops) << w.op;
            EXPECT_EQ(got.bytes_read, w.read) << w.op;
            EXPECT_EQ(got.bytes_written, w.written) << w.op;
        }
    };
    check(dit_block_ops(c, r),
          {
              // k_img, v_img: [257, 5120] × [5120, 10,240]: 2·257·5120·10,240 = 26,948,403,200;
              //   read b·(257·5120 + 5120·10,240) = 2·(1,315,840 + 52,428,800); write b·257·10,240
              {"cross_kv_img_proj", 26948403200ull, 107489280, 5263360},
              // RMSNorm of k_img: 4·257·5120; read b·(257·5120 + 5120 γ); write b·257·5120
              {"cross_k_img_norm", 5263360, 2641920, 2631680},
              // q = T against 257 keys: 4·40·32,760·257·128 = 172,427,673,600; read b·(TD + 2·257·D); write b·TD
              {"image_attention", 172427673600ull, 340725760, 335462400},
              // x + img_x: TD = 167,731,200; read 2·b·TD, write b·TD
              {"cross_img_add", 167731200, 670924800, 335462400},
          });
    check(dit_edge_ops(c, r), {
                                  // Conv3d(36 → D, (1, 2, 2)) = [T, 144] × [144, D]: 2·T·144·5120 = 48,306,585,600;
                                  //   read b·(T·144 + 144·D + D) = 2·(4,717,440 + 737,280 + 5120)
                                  {"patch_embedding", 48306585600ull, 10919680, 335462400},
                                  // img_emb over the 257 CLIP tokens: LayerNorm(1280) 7·257·1280, read b·(257·1280 + 2·1280)
                                  {"img_emb_norm1", 2302720, 663040, 657920},
                                  // Linear(1280, 1280): 2·257·1280²; read b·(257·1280 + 1280²)
                                  {"img_emb_fc1", 842137600, 3934720, 657920},
                                  // GELU, erf form: 5 FLOPs per element
                                  {"img_emb_gelu", 1644800, 657920, 657920},
                                  // Linear(1280, D): 2·257·1280·5120; read b·(257·1280 + 1280·5120); write b·257·5120
                                  {"img_emb_fc2", 3368550400ull, 13765120, 2631680},
                                  // LayerNorm(D) with γ, β: 7·257·5120; read b·(257·5120 + 2·5120)
                                  {"img_emb_norm2", 9210880, 2652160, 2631680},
                                  // [CLIP 257 ; text 512] tokens copied: b·769·5120 each way
                                  {"context_concat", 0, 7874560, 7874560},
                              });
}

TEST(Dit, AnAbsurdSizeIsRefusedNamingItsKey) {
    // Past 2^24 = 16,777,216 (dim 5120 and text_len 512 are Wan's largest): was a run of 63,393 s per forward printed
    // as "0 tokens/s" (text_len 99,999,999,999), or "the FLOP or byte count overflows 64 bits" naming no key
    const std::string wan = R"({"_class_name": "WanModel", "dim": 1536, "ffn_dim": 8960, "num_heads": 12, "num_layers": 30)";
    for (const char* key : {"text_len", "freq_dim", "text_dim", "in_dim", "out_dim"}) {
        const std::string e =
            error_of([&] { (void)parse_hf_config(wan + ", \"" + key + "\": 99999999999}", "--hf-config x.json"); });
        EXPECT_NE(e.find(fmt::format("\"{}\" = 99999999999 is more than bwacct models for a DiT (at most 16777216)", key)),
                  std::string::npos)
            << e;
    }
    // dim 2^32 (with 2^31 heads of 2: an even head size) and a patch of 10^9
    EXPECT_NE(error_of([] {
                  (void)parse_hf_config(R"({"_class_name": "WanModel", "dim": 4294967296, "ffn_dim": 8960,
                      "num_heads": 2147483648, "num_layers": 30})",
                                        "x");
              }).find("\"dim\" = 4294967296 is more than"),
              std::string::npos);
    EXPECT_NE(error_of([&] {
                  (void)parse_hf_config(wan + R"(, "patch_size": [1, 2, 1000000000]})", "x");
              }).find("\"patch_size\" = 1000000000 is more than"),
              std::string::npos);
    // the diffusers class names its own keys: 4096 × 8192 = 2^25 heads × width, and ffn_dim
    EXPECT_NE(error_of([] {
                  (void)parse_hf_config(R"({"_class_name": "WanTransformer3DModel", "num_attention_heads": 4096,
                      "attention_head_dim": 8192, "num_layers": 30, "ffn_dim": 8960})",
                                        "x");
              }).find("\"num_attention_heads\" (4096) × \"attention_head_dim\" (8192), the hidden size, is more than"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  (void)parse_hf_config(t2v14_diffusers(R"(, "ffn_dim": 89600000000)"), "x");
              }).find("\"ffn_dim\" = 89600000000 is more than"),
              std::string::npos);
    // 2^24 itself reads (text_len 16,777,216: the cross-attention keys, no parameter)
    EXPECT_EQ(error_of([&] { (void)parse_hf_config(wan + R"(, "text_len": 16777216})", "x"); }), "");
}

// --video FxHxW → the DiT's video tokens (docs/formulas.md, "Video tokens from frames and resolution"):
// latent frames 1 + (F − 1)/4, latent H, W = H/s, W/s (s = 8 for the 16-channel Wan2.1 VAE, 16 for the
// 48-channel Wan2.2 VAE), then / patch_size.
TEST(VideoTokens, Wan21T2v14bAt480p) {
    const VideoLatent v = video_latent(parse_video_size("81x480x832", "--video"), *wan().dit, "--video");
    // 1 + 80/4 = 21 latent frames; 480/8 = 60; 832/8 = 104
    EXPECT_EQ(v.latent, (std::array<std::uint64_t, 3>{21, 60, 104}));
    EXPECT_EQ(v.vae_stride, (std::array<std::uint64_t, 3>{4, 8, 8}));
    EXPECT_EQ(v.vae_channels, 16u);
    // patch (1, 2, 2): 21 · 30 · 52 = 21 · 1560 = 32,760
    EXPECT_EQ(v.grid, (std::array<std::uint64_t, 3>{21, 30, 52}));
    EXPECT_EQ(v.tokens, 32760u);
    // 720p: 21 · (720/16) · (1280/16) = 21 · 45 · 80 = 75,600; one frame (an image): 1 · 30 · 52 = 1560
    EXPECT_EQ(video_latent(parse_video_size("81x720x1280", "--video"), *wan().dit, "--video").tokens, 75600u);
    EXPECT_EQ(video_latent(parse_video_size("1X480X832", "--video"), *wan().dit, "--video").tokens, 1560u);
}

TEST(VideoTokens, Wan22Ti2v5bUsesThe48ChannelVaeInBothForms) {
    for (const char* file : {"wan2.2-ti2v-5b.config.json", "wan2.2-ti2v-5b-diffusers-transformer.config.json"}) {
        const TransformerConfig c = load_hf_config(std::string(BWACCT_TEST_DATA) + "/models/" + file, "--hf-config");
        const VideoLatent v = video_latent(parse_video_size("121x704x1280", "--video"), *c.dit, "--video");
        // out channels 48 → stride 4 × 16 × 16: 1 + 120/4 = 31; 704/16 = 44; 1280/16 = 80
        EXPECT_EQ(v.vae_channels, 48u) << file;
        EXPECT_EQ(v.latent, (std::array<std::uint64_t, 3>{31, 44, 80})) << file;
        // 31 · 22 · 40 = 31 · 880 = 27,280
        EXPECT_EQ(v.tokens, 27280u) << file;
        // 720 is not a multiple of 16 · 2 = 32 (Wan2.2's 5B runs 704 × 1280): refused, not rounded
        const std::string e = error_of([&] { video_latent(parse_video_size("121x720x1280", "--video"), *c.dit, "--video"); });
        EXPECT_NE(e.find("--video"), std::string::npos) << e;
        EXPECT_NE(e.find("32"), std::string::npos) << e;
    }
}

TEST(VideoTokens, AnI2vConfigsLatentIsItsOutChannelsNotItsInput) {
    // Wan2.1-I2V-14B: in_channels 36 (16 noise + 4 mask + 16 image latent), out_channels 16 → the Wan2.1 VAE
    const TransformerConfig c = load_hf_config(
        std::string(BWACCT_TEST_DATA) + "/models/wan2.1-i2v-14b-480p-diffusers-transformer.config.json", "--hf-config");
    EXPECT_EQ(video_latent(parse_video_size("81x480x832", "--video"), *c.dit, "--video").tokens, 32760u);
}

TEST(VideoTokens, RefusesWhatWanCannotEncodeNamingTheOption) {
    const DitConfig d = *wan().dit;
    const auto refused = [&](const std::string& text, const std::string& word) {
        const std::string e = error_of([&] { video_latent(parse_video_size(text, "--video"), d, "--video"); });
        EXPECT_EQ(e.rfind("--video: ", 0), 0u) << text << " → " << e;
        EXPECT_NE(e.find(word), std::string::npos) << text << " → " << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    };
    for (const char* form : {"", "81x480", "81x480x832x2", "x480x832", "81x480x", "+81x480x832", "81 x480x832", "81x480x832K",
                             "81x-480x832", "81×480×832", "81.0x480x832", "99999999999999999999x480x832"})
        refused(form, "FRAMESxHEIGHTxWIDTH");
    refused("0x480x832", "positive");
    refused("81x0x832", "positive");
    refused("65537x480x832", "at most 65536");     // 4 · 16384 + 1: past the bound
    refused("80x480x832", "4n + 1");               // (80 − 1) mod 4 = 3
    refused("81x480x840", "multiples");            // 840 / (8 · 2) = 52.5
    refused("81x484x832", "multiples");            // 484 / 16 = 30.25
    refused("65533x65536x65536", "video tokens");  // 16,384 · 4096 · 4096 = 2^38 tokens > 2^24
    DitConfig other = d;
    other.out_channels = 32;  // no Wan VAE has a 32-channel latent
    EXPECT_NE(error_of([&] { video_latent(parse_video_size("81x480x832", "--video"), other, "--video"); }).find("out_dim"),
              std::string::npos);
    DitConfig patch_t2 = d;
    patch_t2.patch = {2, 2, 2};
    // 81 frames → 21 latent frames, odd: not a multiple of the temporal patch 2; 85 → 22 → 11 · 30 · 52 = 17,160
    EXPECT_NE(error_of([&] { video_latent(parse_video_size("81x480x832", "--video"), patch_t2, "--video"); }).find("temporal"),
              std::string::npos);
    EXPECT_EQ(video_latent(parse_video_size("85x480x832", "--video"), patch_t2, "--video").tokens, 17160u);
}
