// Attention ops beyond the fused forward (src/ingest/kineto_cost_attention.cpp): backward ops, FLOPs
// 2.5× the forward's (FlashAttention-2's convention), bytes dO, Q, K, V, O, logsumexp read and dQ, dK,
// dV written; and varlen (packed) forward attention where the lengths are known. Expected values by
// hand, arithmetic in the comments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;

using bwacct::kineto::test::bf;
using bwacct::kineto::test::op_of;

TEST(KinetoAttentionBackward, SdpaFlashBackwardCausalGqa) {
    // _scaled_dot_product_flash_attention_backward(grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k,
    // max_q, max_k, dropout_p, is_causal=True, ...): [B, H, S, D] = [2, 8, 256, 64], K and V with 2 heads.
    const CpuOp op = op_of({{2, 8, 256, 64},
                            {2, 8, 256, 64},
                            {2, 2, 256, 64},
                            {2, 2, 256, 64},
                            {2, 8, 256, 64},
                            {2, 8, 256},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {}},
                           {bf, bf, bf, bf, bf, "float", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "", ""},
                           {"", "", "", "", "", "", "", "", "256", "256", "0.", "True", "", ""});
    const auto c = cost_cpu_op("aten::_scaled_dot_product_flash_attention_backward", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::attention);
    EXPECT_EQ(c->shape, "B=2 H=8 Hkv=2 Sq=256 Sk=256 D=64 causal bwd");
    // Causal pairs 256·256 − 256·255/2 = 65536 − 32640 = 32896; forward 4·2·8·32896·64 = 134742016;
    // backward 2.5 · 134742016 = 336855040.
    EXPECT_EQ(c->cost.flops, 336855040u);
    // Q-shaped 2·8·256·64·2 B = 524288; K-shaped 2·2·256·64·2 B = 131072; logsumexp 2·8·256·4 B = 16384.
    // Read dO + Q + O + K + V + lse = 3·524288 + 2·131072 + 16384 = 1851392; written dQ + dK + dV = 524288 + 2·131072 = 786432.
    EXPECT_EQ(c->cost.bytes_read, 1851392u);
    EXPECT_EQ(c->cost.bytes_written, 786432u);
}

TEST(KinetoAttentionBackward, FlashBackwardBshdNotCausal) {
    // _flash_attention_backward: [B, S, H, D] = [1, 128, 4, 32] fp16, is_causal (input 11) False.
    const std::string h = "c10::Half";
    const CpuOp op = op_of({{1, 128, 4, 32},
                            {1, 128, 4, 32},
                            {1, 128, 4, 32},
                            {1, 128, 4, 32},
                            {1, 128, 4, 32},
                            {1, 4, 128},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {},
                            {}},
                           {h, h, h, h, h, "float", "", "", "Scalar", "Scalar", "Scalar", "Scalar", "", ""},
                           {"", "", "", "", "", "", "", "", "128", "128", "0.", "False", "", ""});
    const auto c = cost_cpu_op("aten::_flash_attention_backward", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "B=1 H=4 Hkv=4 Sq=128 Sk=128 D=32 bwd");
    // Pairs 128·128 = 16384; forward 4·1·4·16384·32 = 8388608; backward 2.5× = 20971520.
    EXPECT_EQ(c->cost.flops, 20971520u);
    // Each of dO, Q, K, V, O: 128·4·32·2 B = 32768; lse 4·128·4 B = 2048. Read 5·32768 + 2048 = 165888; written 3·32768 = 98304.
    EXPECT_EQ(c->cost.bytes_read, 165888u);
    EXPECT_EQ(c->cost.bytes_written, 98304u);
    // The forward op of the same shape keeps its own formula: 4·1·4·16384·32 = 8388608 FLOPs.
    const auto fwd = cost_cpu_op(
        "aten::_flash_attention_forward",
        op_of({{1, 128, 4, 32}, {1, 128, 4, 32}, {1, 128, 4, 32}, {}, {}, {}, {}, {}, {}},
              {h, h, h, "", "", "Scalar", "Scalar", "Scalar", "Scalar"}, {"", "", "", "", "", "128", "128", "0.", "False"}));
    ASSERT_TRUE(fwd);
    EXPECT_EQ(fwd->cost.flops, 8388608u);
    EXPECT_EQ(c->cost.flops * 2, fwd->cost.flops * 5);
}

TEST(KinetoAttentionBackward, WithoutFourDimShapesNotCosted) {
    EXPECT_FALSE(cost_cpu_op("aten::_scaled_dot_product_efficient_attention_backward",
                             op_of({{8, 256, 64}, {8, 256, 64}, {8, 256, 64}, {8, 256, 64}}, {bf, bf, bf, bf}, {})));
}

TEST(KinetoAttentionVarlen, EqualLengthsCostedUnequalNot) {
    // flash_attn::_flash_attn_varlen_forward(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
    // dropout_p, softmax_scale, causal, ...): q [1024, 16, 64], k, v [1024, 4, 64] bf16, cu_seqlens [5]
    // (4 sequences), max 256: 4 · 256 = 1024 = total, so every sequence is 256 long.
    const CpuOp op = op_of({{1024, 16, 64}, {1024, 4, 64}, {1024, 4, 64}, {5}, {5}, {}, {}, {}, {}, {}},
                           {bf, bf, bf, "int", "int", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"},
                           {"", "", "", "", "", "256", "256", "0.", "0.125", "True"});
    const auto c = cost_cpu_op("flash_attn::_flash_attn_varlen_forward", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::attention);
    EXPECT_EQ(c->shape, "B=4 H=16 Hkv=4 Sq=256 Sk=256 D=64 causal varlen");
    // Causal pairs 256·256 − 256·255/2 = 32896; FLOPs 4·4·16·32896·64 = 538968064.
    EXPECT_EQ(c->cost.flops, 538968064u);
    // Q 1024·16·64·2 B = 2097152; K, V 1024·4·64·2 B = 524288 each: read 2097152 + 2·524288 = 3145728; O written 2097152.
    EXPECT_EQ(c->cost.bytes_read, 3145728u);
    EXPECT_EQ(c->cost.bytes_written, 2097152u);
    // 1000 tokens in 4 sequences of at most 256: the per-sequence lengths are values the trace lacks.
    const CpuOp uneven = op_of({{1000, 16, 64}, {1000, 4, 64}, {1000, 4, 64}, {5}, {5}, {}, {}, {}, {}, {}},
                               {bf, bf, bf, "int", "int", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"},
                               {"", "", "", "", "", "256", "256", "0.", "0.125", "True"});
    EXPECT_FALSE(cost_cpu_op("flash_attn::_flash_attn_varlen_forward", uneven));
}

}  // namespace
