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

TEST(KinetoCompiled, TemplatesScalarsAndOtherOpsAreNotCosted) {
    const CpuOp mm = op_of({{64, 128}, {128, 256}, {64, 256}}, {bf, bf, bf});
    EXPECT_FALSE(cost_cpu_op("triton_tem_fused_mm_0", mm));  // a GEMM template: bytes alone would mislead
    const CpuOp scalars = op_of({{}, {}}, {"Scalar", "Scalar"});
    EXPECT_FALSE(cost_cpu_op("triton_poi_fused_0", scalars));
}

}  // namespace
