// Eager attention chains (matmul → softmax → matmul) grouped as one attention record beside the
// per-op costs (src/ingest/kineto_eager_attention.cpp), on tests/data/kineto/synthetic_eager_attention.json
// (see its .src.txt). Expected values by hand, arithmetic in the comments.
#include <gtest/gtest.h>

#include <algorithm>

#include "bwacct/ingest_kineto.h"
#include "bwacct/kineto_eager_attention.h"
#include "ingest_test_util.h"

namespace {

using namespace bwacct::kineto;

TEST(KinetoEagerAttention, ChainsOfTheSyntheticTrace) {
    const Trace t = parse_kineto(bwacct_test::fixture("kineto/synthetic_eager_attention.json"), "synthetic");
    const std::vector<EagerAttention> g = eager_attention(t, link_activities(t));
    // Two groups: the bf16 matmul chain (2 calls) and the fp32 bmm chain; the matmul → softmax over
    // [1,2,8,4] → matmul is not one (the softmax's input is not the scores [1,2,8,8]).
    ASSERT_EQ(g.size(), 2u);

    // bf16: scores [2,4,128,128] from Q [2,4,128,64] · Kᵀ [2,4,64,128]; batch 2, heads 4, S 128, D 64.
    const EagerAttention& a = g[0];  // 60 µs of kernels, the larger
    EXPECT_EQ(a.ops, "aten::matmul → aten::softmax → aten::matmul");
    EXPECT_EQ(a.shape, "batch=2x4 Sq=128 Sk=128 D=64");
    EXPECT_EQ(a.dtype, "bf16");
    EXPECT_EQ(a.calls, 2u);
    // Per call: the two bmm kernels (10 + 11 µs), the div's (4 µs) and the softmax's (5 µs): 4 kernels, 30 µs.
    EXPECT_EQ(a.kernels, 8u);
    EXPECT_DOUBLE_EQ(a.kernel_us, 60.0);
    // FLOPs 4·B·H·Sq·Sk·D = 4·2·4·128·128·64 = 33554432 (the two bmms' 2·8·128·128·64 each).
    EXPECT_EQ(a.eager.flops, 33554432u);
    // Q, K, V: 2·4·128·64·2 B = 131072 B each; S = 2·4·128·128·2 B = 262144 B.
    // Read Q + K + V + S + P = 3·131072 + 2·262144 = 917504; written O + S + P = 131072 + 2·262144 = 655360.
    EXPECT_EQ(a.eager.bytes_read, 917504u);
    EXPECT_EQ(a.eager.bytes_written, 655360u);
    // Fused: Q, K, V read and O written only: 4·131072 = 524288.
    EXPECT_EQ(a.flash.bytes_read + a.flash.bytes_written, 524288u);

    // fp32 bmm chain with a dropout between softmax and the second bmm: batch·heads 6, S 32, D 16.
    const EagerAttention& b = g[1];
    EXPECT_EQ(b.ops, "aten::bmm → aten::softmax → aten::bmm");
    EXPECT_EQ(b.shape, "batch=6 Sq=32 Sk=32 D=16");
    EXPECT_EQ(b.dtype, "fp32");
    EXPECT_EQ(b.calls, 1u);
    // Kernels: bmm 2 + softmax 1.5 + dropout 1 + bmm 2.5 = 7 µs, 4 kernels.
    EXPECT_EQ(b.kernels, 4u);
    EXPECT_DOUBLE_EQ(b.kernel_us, 7.0);
    // FLOPs 4·6·32·32·16 = 393216. Q, K, V 6·32·16·4 B = 12288 B each; S = 6·32·32·4 B = 24576 B.
    // Read 3·12288 + 2·24576 = 86016; written 12288 + 2·24576 = 61440.
    EXPECT_EQ(b.eager.flops, 393216u);
    EXPECT_EQ(b.eager.bytes_read, 86016u);
    EXPECT_EQ(b.eager.bytes_written, 61440u);
}

TEST(KinetoEagerAttention, KernelsKeepTheirOwnRows) {
    // The group is a view: the bmm kernels stay costed as GEMMs, the softmax as softmax.
    const Trace t = parse_kineto(bwacct_test::fixture("kineto/synthetic_eager_attention.json"), "synthetic");
    const Summary s = summarize(t);
    const auto bmm =
        std::find_if(s.groups.begin(), s.groups.end(), [](const Group& g) { return g.what.shape == "B=8 M=128 N=128 K=64"; });
    ASSERT_NE(bmm, s.groups.end());
    EXPECT_EQ(bmm->what.category, Category::gemm);
    EXPECT_EQ(bmm->calls, 2u);
}

TEST(KinetoEagerAttention, NoShapesNoGroups) {
    // Without "Input Dims" nothing can be matched by shape.
    const Trace t = parse_kineto(R"({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {"External id": 1}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::softmax", "pid": 1, "tid": 1, "ts": 6, "dur": 5, "args": {"External id": 2}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::bmm", "pid": 1, "tid": 1, "ts": 12, "dur": 5, "args": {"External id": 3}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"External id": 1, "device": 0, "stream": 7}}]})",
                                 "no-shapes");
    EXPECT_TRUE(eager_attention(t, link_activities(t)).empty());
}

TEST(KinetoEagerAttention, CountsPast64BitsGiveNoGroup) {
    // batch·heads = 2^40 · 2^40 = 2^80 does not fit 64 bits: no group, no wrapped number, no crash.
    const Trace t = parse_kineto(R"({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::matmul", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
         "args": {"External id": 1, "Input Dims": [[1099511627776, 1099511627776, 4, 2], [1099511627776, 1099511627776, 2, 4]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::softmax", "pid": 1, "tid": 1, "ts": 6, "dur": 5,
         "args": {"External id": 2, "Input Dims": [[1099511627776, 1099511627776, 4, 4], [], []], "Input type": ["float", "Scalar", ""]}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::matmul", "pid": 1, "tid": 1, "ts": 12, "dur": 5,
         "args": {"External id": 3, "Input Dims": [[1099511627776, 1099511627776, 4, 4], [1099511627776, 1099511627776, 4, 2]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"External id": 1, "device": 0, "stream": 7}}]})",
                                 "huge");
    EXPECT_TRUE(eager_attention(t, link_activities(t)).empty());
}

}  // namespace
