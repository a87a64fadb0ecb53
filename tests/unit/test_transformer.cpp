#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/model_preset.h"
#include "bwacct/transformer.h"

using namespace bwacct;

namespace {

// Llama 3 8B from Meta's config.json (configs/models/llama3-8b.json).
TransformerConfig llama3_8b() {
    TransformerConfig c;
    c.hidden = 4096;
    c.layers = 32;
    c.heads = 32;
    c.kv_heads = 8;
    c.ffn = 14336;
    c.vocab = 128256;
    return c;
}

// The seed-000 block: hidden 5120, 40 heads (MHA), ffn 13824, [1, 2160, 5120] bf16.
TransformerConfig seed_block() {
    TransformerConfig c;
    c.hidden = 5120;
    c.heads = 40;
    c.kv_heads = 40;
    c.ffn = 13824;
    return c;
}

LayerRun prefill(std::uint64_t tokens, std::uint64_t tp) {
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

std::vector<const LayerOp*> collectives(const std::vector<LayerOp>& ops) {
    std::vector<const LayerOp*> out;
    for (const LayerOp& o : ops)
        if (o.cost.collective)
            out.push_back(&o);
    return out;
}

}  // namespace

TEST(Transformer, Llama3_8bParameterCountByHand) {
    const ParamCount p = param_count(llama3_8b());
    // embedding 128,256 · 4096 = 525,336,576
    EXPECT_EQ(p.embedding.value(), 525336576u);
    // attention: q 4096·4096 + k 4096·1024 + v 4096·1024 + o 4096·4096 = 16,777,216·2 + 4,194,304·2 = 41,943,040
    EXPECT_EQ(p.attention.value(), 41943040u);
    // mlp: gate, up, down 3 · 4096 · 14,336 = 176,160,768; norms 2 · 4096 = 8192
    EXPECT_EQ(p.mlp.value(), 176160768u);
    EXPECT_EQ(p.norms.value(), 8192u);
    EXPECT_EQ(p.per_layer.value(), 218112000u);
    // total = 525,336,576 (embedding) + 32 · 218,112,000 (6,979,584,000) + 4096 (final norm) + 525,336,576 (LM head)
    //       = 8,030,261,248 (Meta: "8B")
    EXPECT_EQ(p.total.value(), 8030261248u);
}

TEST(Transformer, TpTwoLayerListsTwoAllReducesOfTheActivation) {
    const auto ops = transformer_layer_ops(seed_block(), prefill(2160, 2));
    const auto coll = collectives(ops);
    ASSERT_EQ(coll.size(), 2u);
    for (const LayerOp* o : coll) {
        EXPECT_EQ(o->cost.collective->kind, CollectiveKind::allreduce);
        // [1, 2160, 5120] bf16 = 2160 · 5120 · 2 = 22,118,400 bytes, over 2 ranks
        EXPECT_EQ(o->cost.collective->size_bytes, 22118400u);
        EXPECT_EQ(o->cost.collective->ranks, 2u);
    }
    EXPECT_EQ(coll[0]->name, "allreduce attn_out (fwd)");
    EXPECT_EQ(coll[1]->name, "allreduce mlp_out (fwd)");
    // QKV per rank: 2 · 2160 · 5120 · (20 + 2·20)·128 = 2 · 2160 · 5120 · 7680 = 169,869,312,000
    EXPECT_EQ(find(ops, "qkv_proj").cost.flops, 169869312000ull);
    // out_proj per rank: K = 20·128 = 2560 → 2 · 2160 · 2560 · 5120 = 56,623,104,000
    EXPECT_EQ(find(ops, "out_proj").cost.flops, 56623104000ull);
    // gate+up per rank: N = 2 · 13,824/2 = 13,824 → 2 · 2160 · 5120 · 13,824 = 305,764,761,600
    EXPECT_EQ(find(ops, "gate_up_proj").cost.flops, 305764761600ull);
    EXPECT_EQ(ops.size(), 12u);  // 10 compute ops + 2 all-reduces
}

TEST(Transformer, SequenceParallelReplacesEachAllReduceWithReduceScatterAndAllGather) {
    LayerRun r = prefill(2160, 2);
    r.sequence_parallel = true;
    const auto ops = transformer_layer_ops(seed_block(), r);
    const auto coll = collectives(ops);
    ASSERT_EQ(coll.size(), 4u);
    int ag = 0, rs = 0;
    for (const LayerOp* o : coll) {
        EXPECT_EQ(o->cost.collective->size_bytes, 22118400u);  // the total across ranks, nccl-tests' size
        ag += o->cost.collective->kind == CollectiveKind::allgather;
        rs += o->cost.collective->kind == CollectiveKind::reducescatter;
    }
    EXPECT_EQ(ag, 2);
    EXPECT_EQ(rs, 2);
    // Norms on the sequence shard: 1080 rows · 5120 · 2 B read + γ 5120 · 2 = 11,059,200 + 10,240
    EXPECT_EQ(find(ops, "attn_norm").cost.bytes_read, 11059200u + 10240u);
}

TEST(Transformer, DecodeReadsTheKvCacheOnceAndWritesOneTokensKvInTheQkvOp) {
    LayerRun r;
    r.phase = Phase::decode;
    r.batch = 8;
    r.context = 4096;
    const auto ops = transformer_layer_ops(llama3_8b(), r);
    const Cost& attn = find(ops, "attention").cost;
    // K and V: 2 · 8 seq · 8 KV heads · 4096 · 128 · 2 B = 134,217,728; Q: 8 · 32 · 128 · 2 = 65,536
    EXPECT_EQ(attn.bytes_read, 134217728u + 65536u);
    EXPECT_EQ(attn.bytes_written, 65536u);  // O
    // The KV cache the layer holds is exactly what attention reads: charged once.
    EXPECT_EQ(layer_memory(llama3_8b(), r).kv_cache.value(), 134217728u);
    // QKV writes [8, (32 + 2·8)·128] · 2 B = 98,304 B, of which this step's K and V: 8 · 2 · 1024 · 2 = 32,768
    EXPECT_EQ(find(ops, "qkv_proj").cost.bytes_written, 98304u);
    // No other op touches the cache: everything else is the weights (218,112,000 parameters · 2 B =
    // 436,224,000 B, γ included) plus activations of 8 tokens (under 3 MiB).
    std::uint64_t rest = 0;
    for (const LayerOp& o : ops)
        if (o.name != "attention")
            rest += o.cost.bytes();
    EXPECT_GT(rest, 436224000u);
    EXPECT_LT(rest, 436224000u + 3145728u);
}

TEST(Transformer, TrainingIsForwardPlusBackwardAndRecomputeAddsAForward) {
    LayerRun r = prefill(2048, 1);
    r.phase = Phase::training;
    const auto cfg = llama3_8b();
    const auto fwd = transformer_layer_ops(cfg, prefill(2048, 1));
    const auto train = transformer_layer_ops(cfg, r);
    // GEMMs: forward + data + weight gradients = 3 × forward FLOPs
    EXPECT_EQ(find(train, "qkv_proj").cost.flops, 3 * find(fwd, "qkv_proj").cost.flops);
    // Attention: forward + 2.5 × forward (FlashAttention-2 backward, 5 matmuls vs 2) = 3.5 ×
    EXPECT_EQ(2 * find(train, "attention").cost.flops, 7 * find(fwd, "attention").cost.flops);
    r.recompute = true;
    const auto rec = transformer_layer_ops(cfg, r);
    EXPECT_EQ(find(rec, "qkv_proj").cost.flops, 4 * find(fwd, "qkv_proj").cost.flops);
    EXPECT_EQ(2 * find(rec, "attention").cost.flops, 9 * find(fwd, "attention").cost.flops);
}

TEST(Transformer, TrainingUnderTpHasTheConjugateCollectives) {
    LayerRun r = prefill(2160, 2);
    r.phase = Phase::training;
    // Forward: all-reduce after out_proj and down_proj; backward: all-reduce of the input gradient of
    // the QKV and gate/up projections (Megatron's f and g operators).
    EXPECT_EQ(collectives(transformer_layer_ops(seed_block(), r)).size(), 4u);
    r.recompute = true;  // the recomputed forward repeats its two all-reduces
    EXPECT_EQ(collectives(transformer_layer_ops(seed_block(), r)).size(), 6u);
}

TEST(Transformer, ActivationMemoryWithAndWithoutCheckpointing) {
    LayerRun r = prefill(2048, 1);
    r.phase = Phase::training;
    const LayerMemory m = layer_memory(llama3_8b(), r);
    // 2 B · [4·2048·4096 (x, norm1, x2, norm2) + 2048·48·128 (Q,K,V) + 2048·32·128 (O)
    //        + 2048·2·14,336 (gate, up) + 2048·14,336 (silu·up)]
    //   = 2 · [33,554,432 + 12,582,912 + 8,388,608 + 58,720,256 + 29,360,128] = 2 · 142,606,336 = 285,212,672
    EXPECT_EQ(m.activations.value(), 285212672u);
    EXPECT_EQ(m.activations_checkpointed.value(), 16777216u);  // the layer input: 2048 · 4096 · 2
    EXPECT_EQ(m.kv_cache.value(), 0u);
    r.attention = AttentionImpl::naive;  // seed 004 §3: B·H·S·S scores, 32 · 2048 · 2048 · 2 = 268,435,456
    EXPECT_EQ(layer_memory(llama3_8b(), r).attention_scores.value(), 268435456u);
}

// tp above the KV heads: each rank holds one KV head, replicated tp/kv_heads times (vLLM's QKVParallelLinear).
// Llama-3-8B (32 query heads, 8 KV heads, head_dim 128) at tp 16, decode of 8 sequences at 4096:
// per rank 32/16 = 2 query heads and 1 KV head; K and V read 2 · 8 · 1 · 4096 · 128 · 2 B = 16,777,216 B,
// Q 8 · 2 · 128 · 2 = 4,096 B; the KV cache per token and layer 2 · 1 · 128 = 256 elements (as at tp 8).
// tp 3 neither divides nor is a multiple of 8 KV heads (nor divides 32 heads); tp 64 does not divide 32 heads.
TEST(Transformer, TpAboveTheKvHeadsReplicatesOneKvHeadPerRank) {
    LayerRun r;
    r.phase = Phase::decode;
    r.batch = 8;
    r.context = 4096;
    r.tp = 16;
    const auto ops = transformer_layer_ops(llama3_8b(), r);
    const Cost& attn = find(ops, "attention").cost;
    EXPECT_EQ(attn.bytes_read, 16777216u + 4096u);
    EXPECT_EQ(kv_heads_per_rank(llama3_8b(), 16), 1u);
    EXPECT_EQ(kv_heads_per_rank(llama3_8b(), 4), 2u);
    EXPECT_EQ(kv_elems_per_token(llama3_8b(), 16), 256u);
    EXPECT_EQ(kv_elems_per_token(llama3_8b(), 8), 256u);
    r.tp = 64;
    EXPECT_THROW(transformer_layer_ops(llama3_8b(), r), InputError);
    TransformerConfig c = llama3_8b();
    c.heads = 48;  // 48 heads on 12 ranks divide; 12 is neither a divisor nor a multiple of 8 KV heads
    r.tp = 12;
    EXPECT_THROW(transformer_layer_ops(c, r), InputError);
}

TEST(Transformer, BadInputNamesTheOption) {
    auto option_of = [](const TransformerConfig& c, const LayerRun& r) {
        try {
            transformer_layer_ops(c, r);
        } catch (const InputError& e) {
            return e.option();
        }
        return std::string("none");
    };
    EXPECT_EQ(option_of(seed_block(), prefill(2160, 3)), "--tp");  // 40 heads on 3 ranks
    TransformerConfig c = seed_block();
    c.kv_heads = 7;
    EXPECT_EQ(option_of(c, prefill(2160, 1)), "--kv-heads");
    c = seed_block();
    c.hidden = 0;
    EXPECT_EQ(option_of(c, prefill(2160, 1)), "--hidden");
    LayerRun d;
    d.phase = Phase::decode;
    EXPECT_EQ(option_of(seed_block(), d), "--context");
}

TEST(Transformer, PresetParsesAndRequiresASource) {
    const TransformerConfig c = parse_model_preset(
        R"({"schema": "bwacct.model/1", "name": "t", "source": "s", "hidden": 64, "layers": 2, "heads": 4,
            "kv_heads": 2, "ffn": 128, "vocab": 1000})",
        "t.json");
    EXPECT_EQ(c.hidden, 64u);
    EXPECT_EQ(head_dim(c), 16u);
    EXPECT_THROW(parse_model_preset(R"({"schema": "bwacct.model/1", "name": "t", "hidden": 64})", "t.json"), InputError);
    EXPECT_THROW(parse_model_preset(
                     R"({"schema": "bwacct.model/1", "name": "t", "source": "s", "hidden": -1, "layers": 2, "heads": 4,
                         "kv_heads": 2, "ffn": 128, "vocab": 1000})",
                     "t.json"),
                 InputError);
}

TEST(Transformer, PresetMlpBiasIsADenseMlpsAndRefusedWithMoe) {
    const std::string base = R"({"schema": "bwacct.model/1", "name": "t", "source": "s", "hidden": 64, "layers": 2, "heads": 4,
        "kv_heads": 2, "ffn": 128, "vocab": 1000, "mlp_bias": true)";
    // Dense, gated: 2·128 + 64 = 320 bias parameters per layer on 3·64·128 = 24,576 → mlp 24,896.
    EXPECT_EQ(param_count(parse_model_preset(base + "}", "t.json")).mlp.value(), 24896u);
    // With "moe" the experts got no bias and the flag was silently ignored (Mixtral's counts unchanged): refused.
    try {
        (void)parse_model_preset(base + R"(, "moe": {"experts": 8, "top_k": 2, "expert_ffn": 128}})", "t.json");
        ADD_FAILURE() << "mlp_bias with moe accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("\"mlp_bias\": true with \"moe\" is not modelled"), std::string::npos) << e.what();
    }
}

TEST(Transformer, ShippedPresetsMatchMetasConfigs) {
    const TransformerConfig a = load_model_preset(std::string(BWACCT_CONFIG_DIR) + "/models/llama3-8b.json", "--preset");
    EXPECT_EQ(param_count(a).total.value(), 8030261248u);
    const TransformerConfig b = load_model_preset(std::string(BWACCT_CONFIG_DIR) + "/models/llama3-70b.json", "--preset");
    // 70B: embedding 128,256·8192 = 1,050,673,152 (×2 with the LM head); per layer attention
    // 8192·(64+16)·128 + 64·128·8192 = 83,886,080 + 67,108,864 = 150,994,944; mlp 3·8192·28,672 = 704,643,072;
    // norms 16,384 → 855,654,400 per layer; total 2·1,050,673,152 + 80·855,654,400 + 8192 = 70,553,706,496
    EXPECT_EQ(param_count(b).total.value(), 70553706496ull);
    EXPECT_THROW(load_model_preset("no-such-model", "--preset"), InputError);
}

TEST(Transformer, QkvBiasesAreShardedWithTheirHeadsAndTheOBiasIsReplicated) {
    // Qwen2-7B's block (q, k, v biases; no o bias): D 3584, 28 heads, 4 KV heads, head_dim 128, ffn 18944.
    TransformerConfig c;
    c.hidden = 3584;
    c.layers = 28;
    c.heads = 28;
    c.kv_heads = 4;
    c.ffn = 18944;
    c.vocab = 152064;
    c.qkv_bias = true;
    // --tp 2, bf16: QKV [3584, (14 + 2·2)·128] = 3584·2304·2 B = 16,515,072; o [14·128, 3584] = 12,845,056;
    // gate, up and down 3·3584·9472·2 = 203,685,888; the rank's q, k, v biases (14 + 4)·128·2 = 4,608;
    // two RMSNorms 2·3584·2 = 14,336 (replicated). Sum 233,064,960 (the biases whole would be 9,216).
    EXPECT_EQ(rank_weights(c, prefill(128, 2)).dense_layer.value(), 233064960u);
    // An o bias is added after the all-reduce, so every rank holds all D of it: + 3584·2 = 7,168.
    c.o_bias = true;
    EXPECT_EQ(rank_weights(c, prefill(128, 2)).dense_layer.value(), 233064960u + 7168u);
    // At --tp 1 the layer is every parameter once in bf16: (3584·(28 + 8)·128 + 28·128·3584 + 3·3584·18944
    // + (28 + 8)·128 + 3584 + 2·3584)·2 = (16,515,072 + 12,845,056 + 203,685,888 + 4,608 + 3,584 + 7,168)·2.
    EXPECT_EQ(rank_weights(c, prefill(128, 1)).dense_layer.value(), 2u * param_count(c).per_layer.value());
    EXPECT_EQ(param_count(c).per_layer.value(), 16515072u + 12845056u + 203685888u + 4608u + 3584u + 7168u);
}
