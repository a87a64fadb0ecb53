// TorchInductor kernels recorded as their own op (`triton_poi_*`, `triton_red_*`, ...): bytes from
// their tensor arguments, each once, the last as written; no FLOPs; GEMM templates left alone.
#include <gtest/gtest.h>

#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::kineto::test::bf;
using bwacct::kineto::test::op_of;

TEST(KinetoCompiled, PointwiseKernelFromTheVllmTrace) {
    // The op of kineto_b200_vllm_moe_eager_tracelens.json.gz: three [888] tensors (int, long int, bool)
    // and six Scalars. Read 888·4 + 888·8 = 3,552 + 7,104 = 10,656 B; written (the last) 888·1 = 888 B.
    const CpuOp op = op_of({{888}, {888}, {888}, {}, {}, {}, {}, {}, {}},
                           {"int", "long int", "bool", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"});
    const auto c = cost_cpu_op("triton_poi_fused_add_bitwise_and_bitwise_not_bitwise_or_ge_lt_mul_sub_0", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::elementwise);
    EXPECT_EQ(c->cost.bytes_read, 10656u);
    EXPECT_EQ(c->cost.bytes_written, 888u);
    EXPECT_EQ(c->cost.flops, 0u);
    EXPECT_EQ(c->shape, "888,888,888");
}

// Fused gathers, from the H100 traces of a compiled Llama (h100_bwacct_make_traces_llama_compiled_*): the
// kernel reads only the rows (or values) its integer argument picks.
TEST(KinetoCompiled, AFusedEmbeddingCountsThePickedRowsOfItsTable) {
    // ids long [4, 512] (n = 2048), table bf16 [32000, 2048], weight [2048], out [4, 512, 2048].
    // Read 2048·8 = 16,384 + 2048·2048·2 = 8,388,608 (the picked rows, not 32000·2048·2 = 131,072,000)
    // + 2048·2 = 4,096 → 8,409,088 B; written 4·512·2048·2 = 8,388,608 B.
    const CpuOp op =
        op_of({{4, 512}, {32000, 2048}, {2048}, {4, 512, 2048}, {}, {}}, {"long int", bf, bf, bf, "Scalar", "Scalar"});
    const auto c = cost_cpu_op("triton_red_fused__to_copy_add_embedding_mean_mul_pow_rsqrt_0", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 8409088u);
    EXPECT_EQ(c->cost.bytes_written, 8388608u);
    ASSERT_FALSE(c->cost.terms.empty());
    EXPECT_NE(c->cost.terms[0].formula.find("the [32000x2048] table counted as the 2048 rows"), std::string::npos)
        << c->cost.terms[0].formula;
    // Without an integer argument nothing is picked: the same kernel name, the table read whole.
    const auto whole = cost_cpu_op("triton_red_fused_embedding_0", op_of({{32000, 2048}, {2048}}, {bf, bf}));
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->cost.bytes_read, 131072000u);
}

TEST(KinetoCompiled, AFusedNllLossCountsOnePickedLogitPerRow) {
    // Args as the compiled training step's loss kernel: float 0-d, long targets [2, 1025] (n = 2050), float
    // logits [2048, 32000], float [2048, 1] ×2, float 0-d out. Logits: 2048·4 = 8,192 B (one per row, 2048 ≤ 2050),
    // not 262,144,000. Read 4 + 2050·8 = 16,400 + 8,192 + 8,192 + 8,192 = 40,980 B; written 4 B.
    const CpuOp op = op_of({{}, {2, 1025}, {2048, 32000}, {2048, 1}, {2048, 1}, {}},
                           {"float", "long int", "float", "float", "float", "float"});
    const auto c =
        cost_cpu_op("triton_red_fused__log_softmax__to_copy__unsafe_view_clone_nll_loss_forward_slice_sub_view_12", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 40980u);
    EXPECT_EQ(c->cost.bytes_written, 4u);
}

TEST(KinetoCompiled, ReductionKernelIsReduce) {
    // triton_red_ over a bf16 [4, 1024] input into a float [4] output: read 4·1024·2 = 8,192 B,
    // written 4·4 = 16 B.
    const CpuOp op = op_of({{4, 1024}, {4}, {}, {}}, {bf, "float", "Scalar", "Scalar"});
    const auto c = cost_cpu_op("triton_red_fused_sum_1", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::reduce);
    EXPECT_EQ(c->cost.bytes_read, 8192u);
    EXPECT_EQ(c->cost.bytes_written, 16u);
}

TEST(KinetoCompiled, GemmTemplatesTakeTheGemmFormula) {
    // triton_tem_fused_mm_0(arg_A bf16 [64, 128], arg_B bf16 [128, 256], out bf16 [64, 256]): M = 64, K = 128,
    // N = 256; FLOPs 2·64·256·128 = 4,194,304; read 64·128·2 + 128·256·2 = 16,384 + 65,536 = 81,920 B;
    // written 64·256·2 = 32,768 B.
    const auto mm = cost_cpu_op("triton_tem_fused_mm_0", op_of({{64, 128}, {128, 256}, {64, 256}}, {bf, bf, bf}));
    ASSERT_TRUE(mm);
    EXPECT_EQ(mm->category, Category::gemm);
    EXPECT_EQ(mm->cost.flops, 4194304u);
    EXPECT_EQ(mm->cost.bytes_read, 81920u);
    EXPECT_EQ(mm->cost.bytes_written, 32768u);
    // addmm's template takes the bias first (in_ptr0 [256]): read 81,920 + 256·2 = 82,432 B.
    const auto addmm =
        cost_cpu_op("triton_tem_fused_addmm_0", op_of({{256}, {64, 128}, {128, 256}, {64, 256}}, {bf, bf, bf, bf}));
    ASSERT_TRUE(addmm);
    EXPECT_EQ(addmm->cost.flops, 4194304u);
    EXPECT_EQ(addmm->cost.bytes_read, 82432u);
    // bmm [4, 64, 32] · [4, 32, 16] → [4, 64, 16] fp32: FLOPs 2·4·64·16·32 = 262,144.
    const auto bmm =
        cost_cpu_op("triton_tem_fused_bmm_0", op_of({{4, 64, 32}, {4, 32, 16}, {4, 64, 16}}, {"float", "float", "float"}));
    ASSERT_TRUE(bmm);
    EXPECT_EQ(bmm->cost.flops, 262144u);
}

TEST(KinetoCompiled, TemplatesScalarsAndOtherOpsAreNotCosted) {
    // K of A does not meet K of B, or the output is not M×N: no GEMM shown, no formula (bytes alone would mislead)
    EXPECT_FALSE(cost_cpu_op("triton_tem_fused_mm_0", op_of({{64, 128}, {64, 256}, {64, 256}}, {bf, bf, bf})));
    EXPECT_FALSE(cost_cpu_op("triton_tem_fused_mm_0", op_of({{64, 128}, {128, 256}, {32, 256}}, {bf, bf, bf})));
    // a convolution template
    EXPECT_FALSE(cost_cpu_op("triton_tem_fused_convolution_0",
                             op_of({{2, 3, 32, 32}, {16, 3, 3, 3}, {2, 16, 30, 30}}, {"float", "float", "float"})));
    const CpuOp scalars = op_of({{}, {}}, {"Scalar", "Scalar"});
    EXPECT_FALSE(cost_cpu_op("triton_poi_fused_0", scalars));
}

TEST(KinetoCompiled, MmPlusMmAddsEachPair) {
    // triton_tem_fused_mm_plus_mm_0(A bf16 [64, 128], B [128, 256], C [64, 512], D [512, 256], out [64, 256]):
    // A·B + C·D, K = 128 + 512 = 640; FLOPs 2·64·256·640 = 20,971,520; read 64·128·2 + 128·256·2 + 64·512·2 +
    // 512·256·2 = 16,384 + 65,536 + 65,536 + 262,144 = 409,600 B; written 64·256·2 = 32,768 B.
    const auto c = cost_cpu_op("triton_tem_fused_mm_plus_mm_0",
                               op_of({{64, 128}, {128, 256}, {64, 512}, {512, 256}, {64, 256}}, {bf, bf, bf, bf, bf}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 20971520u);
    EXPECT_EQ(c->cost.bytes_read, 409600u);
    EXPECT_EQ(c->cost.bytes_written, 32768u);
    EXPECT_EQ(c->shape, "M=64 N=256 K=128+512");
    // a second pair that could be an epilogue's [M, N] tensors (C [64, 256], D [256, 256]): ambiguous, no formula
    EXPECT_FALSE(cost_cpu_op("triton_tem_fused_mm_plus_mm_0",
                             op_of({{64, 128}, {128, 256}, {64, 256}, {256, 256}, {64, 256}}, {bf, bf, bf, bf, bf})));
}

TEST(KinetoCompiled, TemplateNamesByTheCategoryRules) {
    // "convert_element_type" is a cast, not a convolution: addmm with bias [256] and an fp32 output;
    // FLOPs 2·64·256·128 = 4,194,304; read 81,920 + 256·2 = 82,432 B; written 64·256·4 = 65,536 B.
    const auto c = cost_cpu_op("triton_tem_fused_addmm_convert_element_type_0",
                               op_of({{256}, {64, 128}, {128, 256}, {64, 256}}, {bf, bf, bf, "float"}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 4194304u);
    EXPECT_EQ(c->cost.bytes_read, 82432u);
    EXPECT_EQ(c->cost.bytes_written, 65536u);
    // a template whose name lists no op (flex attention's) is not called a GEMM
    EXPECT_FALSE(cost_cpu_op("triton_tem_fused_0", op_of({{64, 128}, {128, 256}, {64, 256}}, {bf, bf, bf})));
}

TEST(KinetoCompiled, TemplateEpilogueOutputs) {
    // mm(bf16 [64, 128], [128, 256]) then bf16 [64, 256] and fp32 [64, 256] outputs: read 81,920 B; written
    // 64·256·2 + 64·256·4 = 32,768 + 65,536 = 98,304 B; the product's type is bf16, not "->fp32".
    const auto two =
        cost_cpu_op("triton_tem_fused_mm_0", op_of({{64, 128}, {128, 256}, {64, 256}, {64, 256}}, {bf, bf, bf, "float"}));
    ASSERT_TRUE(two);
    EXPECT_EQ(two->cost.bytes_read, 81920u);
    EXPECT_EQ(two->cost.bytes_written, 98304u);
    EXPECT_EQ(two->dtype, "bf16");
    // addmm + relu with its bool mask: bias [256], A, B, out bf16 [64, 256], mask bool [64, 256]: read
    // 81,920 + 512 = 82,432 B; written 32,768 + 64·256·1 = 49,152 B.
    const auto mask = cost_cpu_op("triton_tem_fused_addmm_relu_threshold_backward_0",
                                  op_of({{256}, {64, 128}, {128, 256}, {64, 256}, {64, 256}}, {bf, bf, bf, bf, "bool"}));
    ASSERT_TRUE(mask);
    EXPECT_EQ(mask->cost.flops, 4194304u);
    EXPECT_EQ(mask->cost.bytes_read, 82432u);
    EXPECT_EQ(mask->cost.bytes_written, 49152u);
}

TEST(KinetoCompiled, CategoryFoundOnceAName) {
    // Two calls of one pointwise kernel with different shapes: one name classified, kept for the pass.
    NameCategories seen;
    ASSERT_TRUE(cost_cpu_op("triton_poi_fused_add_0", op_of({{8}, {8}}, {bf, bf}), "", &seen));
    ASSERT_TRUE(cost_cpu_op("triton_poi_fused_add_0", op_of({{16}, {16}}, {bf, bf}), "", &seen));
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen.begin()->first, "triton_poi_fused_add_0");
    EXPECT_EQ(seen.begin()->second, Category::elementwise);
    // the pass's category is the one used
    seen.begin()->second = Category::indexing;
    EXPECT_EQ(cost_cpu_op("triton_poi_fused_add_0", op_of({{4}, {4}}, {bf, bf}), "", &seen)->category, Category::indexing);
}

}  // namespace
