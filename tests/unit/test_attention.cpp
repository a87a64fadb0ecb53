#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"

using namespace bwacct;

namespace {
AttentionDesc prefill() {
    AttentionDesc d;
    d.batch = 1;
    d.heads = 40;
    d.kv_heads = 8;
    d.q_len = 2160;
    d.kv_len = 2160;
    d.head_dim = 128;
    d.causal = true;
    return d;
}
// One query token against an 8192-token KV cache, 32 query heads sharing 8 KV heads.
AttentionDesc decode() {
    AttentionDesc d;
    d.heads = 32;
    d.kv_heads = 8;
    d.q_len = 1;
    d.kv_len = 8192;
    d.head_dim = 128;
    return d;
}
}  // namespace

TEST(Attention, CausalPairsCountExactlyTheUnmaskedOnes) {
    AttentionDesc d = prefill();
    // S·S − S(S−1)/2 = 4,665,600 − 2,331,720 = 2,333,880 = S(S+1)/2
    EXPECT_EQ(attention_pairs(d).value(), 2333880u);
    d.q_len = 3;
    d.kv_len = 5;
    // Queries aligned to the end: query 0 sees 3 keys, query 1 sees 4, query 2 sees 5 → 12 = 15 − 3
    EXPECT_EQ(attention_pairs(d).value(), 12u);
    d.causal = false;
    EXPECT_EQ(attention_pairs(d).value(), 15u);
}

TEST(Attention, FlashPrefillGqa) {
    const Cost c = attention_cost(prefill());
    // FLOPs = 4·B·H_q·pairs·d = 4·1·40·2,333,880·128 = 47,797,862,400
    EXPECT_EQ(c.flops, 47797862400ull);
    // Q and O: 1·40·2160·128·2 B = 22,118,400 each; K and V with 8 KV heads: 4,423,680 each
    EXPECT_EQ(c.bytes_read, 22118400ull + 2 * 4423680ull);
    EXPECT_EQ(c.bytes_written, 22118400ull);
    EXPECT_EQ(c.launches, 1u);
}

// Peer-tool bug: FlashAttention charged for an S×S output. Flash bytes must not grow with S².
TEST(Attention, RegressionFlashHasNoSquareTerm) {
    AttentionDesc d = prefill();
    const Cost a = attention_cost(d);
    d.q_len *= 2;
    d.kv_len *= 2;
    const Cost b = attention_cost(d);
    EXPECT_EQ(b.bytes(), 2 * a.bytes());  // linear in S: Q, K, V, O only
    // Exactly Q + K + V + O, nothing else: 2·22,118,400 + 2·4,423,680 = 53,084,160
    EXPECT_EQ(a.bytes(), 53084160ull);
}

// Peer-tool bug: GQA ignored (K and V read with the query head count).
TEST(Attention, RegressionGqaReadsKvWithKvHeads) {
    AttentionDesc d = prefill();
    const Cost gqa = attention_cost(d);
    d.kv_heads = 40;
    const Cost mha = attention_cost(d);
    // K+V shrink by 40/8: MHA K+V = 2·22,118,400; GQA K+V = 2·4,423,680
    EXPECT_EQ(mha.bytes_read - gqa.bytes_read, 2 * 22118400ull - 2 * 4423680ull);
    EXPECT_EQ(mha.flops, gqa.flops);  // FLOPs follow query heads
}

// Peer-tool bug: decode FLOPs that drop the context length.
TEST(Attention, RegressionDecodeFlopsScaleWithContext) {
    AttentionDesc d = decode();
    d.causal = true;
    const Cost c = attention_cost(d);
    // One query sees all 8192 keys: 4·32·8192·128 = 134,217,728
    EXPECT_EQ(c.flops, 134217728ull);
    d.kv_len = 16384;
    EXPECT_EQ(attention_cost(d).flops, 2 * c.flops);
}

// Peer-tool bug: KV cache charged twice. Each of K and V is read once.
TEST(Attention, RegressionKvCacheReadOnce) {
    const AttentionDesc d = decode();
    const Cost c = attention_cost(d);
    // K cache 8·8192·128·2 = 16,777,216 B, V the same; Q 32·128·2 = 8,192 B
    EXPECT_EQ(c.bytes_read, 2 * 16777216ull + 8192ull);
    EXPECT_EQ(c.bytes_written, 8192u);  // O: one token
}

TEST(Attention, NaiveAddsFourPassesOverTheScoreMatrix) {
    AttentionDesc d = prefill();
    const Cost flash = attention_cost(d);
    d.impl = AttentionImpl::naive;
    const Cost naive = attention_cost(d);
    // Seed 004 §5: 4·B·H·S·S·2 B = 4·40·2160·2160·2 = 1,492,992,000 extra bytes
    EXPECT_EQ(naive.bytes() - flash.bytes(), 1492992000ull);
    EXPECT_EQ(naive.launches, 3u);
}

TEST(Attention, BadShapes) {
    AttentionDesc d = prefill();
    d.kv_heads = 7;  // 40 % 7 != 0
    EXPECT_THROW(attention_cost(d), InputError);
    d = prefill();
    d.q_len = 4096;  // causal with more queries than keys
    d.kv_len = 2048;
    EXPECT_THROW(attention_cost(d), InputError);
    d = prefill();
    d.head_dim = 0;
    EXPECT_THROW(attention_cost(d), InputError);
}
