// Elementwise ops of a torch trace with 0-d tensors, integer tensors and bool outputs: a 0-d tensor is
// one element (a scalar operand beside full tensors, as in PyTorch's type promotion), integer
// arithmetic does no floating-point work, comparisons write bool.
#include <gtest/gtest.h>

#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::kineto::test::bf;
using bwacct::kineto::test::op_of;

TEST(KinetoScalarTensors, ZeroDimIntegerAddInPlace) {
    // Batch norm's num_batches_tracked += 1 (the ResNet trace): aten::add_ of two 0-d long tensors and
    // a Scalar alpha. One element: read 2·8 = 16 B, write 8 B, 0 FLOPs (integer arithmetic).
    const auto c = cost_cpu_op("aten::add_", op_of({{}, {}, {}}, {"long int", "long int", "Scalar"}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "0-d");
    EXPECT_EQ(c->dtype, "int64");
    EXPECT_EQ(c->cost.bytes_read, 16u);
    EXPECT_EQ(c->cost.bytes_written, 8u);
    EXPECT_EQ(c->cost.flops, 0u);
}

TEST(KinetoScalarTensors, ZeroDimOperandBesideATensorIsABroadcastRead) {
    // aten::mul of a bf16 [4, 8] tensor by a 0-d float tensor: the output is bf16 [4, 8];
    // read 32·2 = 64 B + the 0-d float's 4 B = 68 B, write 64 B, 32 FLOPs.
    const auto c = cost_cpu_op("aten::mul", op_of({{4, 8}, {}}, {bf, "float"}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "4x8");
    EXPECT_EQ(c->dtype, "bf16");
    EXPECT_EQ(c->cost.bytes_read, 68u);
    EXPECT_EQ(c->cost.bytes_written, 64u);
    EXPECT_EQ(c->cost.flops, 32u);
}

TEST(KinetoScalarTensors, ComparisonsWriteBool) {
    // aten::eq of a long [1, 141] tensor with a Scalar (the BERT trace): read 141·8 = 1,128 B,
    // write 141·1 = 141 B (bool), 0 FLOPs (an integer compare).
    const auto eq = cost_cpu_op("aten::eq", op_of({{1, 141}, {}}, {"long int", "Scalar"}));
    ASSERT_TRUE(eq);
    EXPECT_EQ(eq->dtype, "int64->bool");
    EXPECT_EQ(eq->cost.bytes_read, 1128u);
    EXPECT_EQ(eq->cost.bytes_written, 141u);
    EXPECT_EQ(eq->cost.flops, 0u);
    // aten::lt of two bf16 [10] tensors: read 2·10·2 = 40 B, write 10 B, 10 FLOPs (one compare each).
    const auto lt = cost_cpu_op("aten::lt", op_of({{10}, {10}}, {bf, bf}));
    ASSERT_TRUE(lt);
    EXPECT_EQ(lt->cost.bytes_read, 40u);
    EXPECT_EQ(lt->cost.bytes_written, 10u);
    EXPECT_EQ(lt->cost.flops, 10u);
}

TEST(KinetoScalarTensors, MixedDtypesOfFullTensorsArePromoted) {
    // A bf16 tensor and a float tensor of the same shape: PyTorch's result type fp32; each operand
    // read at its own size. read 4·2 + 4·4 = 24 B, write 4·4 = 16 B, 4 FLOPs.
    const auto c = cost_cpu_op("aten::add", op_of({{4}, {4}}, {bf, "float"}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 24u);
    EXPECT_EQ(c->cost.bytes_written, 16u);
    EXPECT_EQ(c->cost.flops, 4u);
}

}  // namespace

namespace {

using namespace bwacct::kineto;
using bwacct::kineto::test::bf;
using bwacct::kineto::test::op_of;

TEST(KinetoLosses, MseLossForwardAndBackwardOfTheResnetTrace) {
    // aten::mse_loss(self [10, 1000] bf16, target [10, 1000] bf16, reduction = 1 (mean)):
    // read 2·10,000·2 = 40,000 B, write one bf16 = 2 B, FLOPs 3·10,000 = 30,000 (sub, square, accumulate).
    const auto f = cost_cpu_op("aten::mse_loss", op_of({{10, 1000}, {10, 1000}, {}}, {bf, bf, "Scalar"}, {"", "", "1"}));
    ASSERT_TRUE(f);
    EXPECT_EQ(f->category, Category::reduce);
    EXPECT_EQ(f->cost.bytes_read, 40000u);
    EXPECT_EQ(f->cost.bytes_written, 2u);
    EXPECT_EQ(f->cost.flops, 30000u);
    // reduction = 0 (none): the loss is written in full, 10,000·2 = 20,000 B.
    const auto none = cost_cpu_op("aten::mse_loss", op_of({{10, 1000}, {10, 1000}, {}}, {bf, bf, "Scalar"}, {"", "", "0"}));
    ASSERT_TRUE(none);
    EXPECT_EQ(none->cost.bytes_written, 20000u);
    // aten::mse_loss_backward(grad_output 0-d bf16, self, target, reduction, grad_input out=): read
    // 2 + 20,000 + 20,000 = 40,002 B (the out= buffer is written, not read), write 20,000 B,
    // FLOPs 3·10,000 = 30,000 (sub, ·2/N, ·grad).
    const auto b = cost_cpu_op("aten::mse_loss_backward", op_of({{}, {10, 1000}, {10, 1000}, {}, {10, 1000}},
                                                                {bf, bf, bf, "Scalar", bf}, {"", "", "", "1", ""}));
    ASSERT_TRUE(b);
    EXPECT_EQ(b->category, Category::elementwise);
    EXPECT_EQ(b->cost.bytes_read, 40002u);
    EXPECT_EQ(b->cost.bytes_written, 20000u);
    EXPECT_EQ(b->cost.flops, 30000u);
}

}  // namespace
