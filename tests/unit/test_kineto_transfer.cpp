// Memcpy and memset activities of a torch trace without a "bytes" arg: sized from the op that launched
// them only when that op is a copy or a fill (its input 0 is the destination), never from another op's
// inputs (a convolution zeroing its workspace).
#include <gtest/gtest.h>

#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::kineto::test::op_of;

GpuActivity transfer(Activity kind) {
    GpuActivity a;
    a.kind = kind;
    a.dur = 2;
    return a;  // bytes = 0: no "bytes" arg
}

TEST(KinetoTransfer, FillOpSizesAMemset) {
    // aten::zero_ of a float [4, 8] tensor: 4·8 elements · 4 B = 128 B written.
    const CpuOp zero = op_of({{4, 8}}, {"float"});
    const auto c = cost_transfer(transfer(Activity::memset), "Memset (Device)", &zero, "aten::zero_");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::memset);
    EXPECT_EQ(c->cost.bytes_written, 128u);
    EXPECT_EQ(c->cost.bytes_read, 0u);
}

TEST(KinetoTransfer, ConvolutionDoesNotSizeItsWorkspaceMemset) {
    // A memset launched inside aten::miopen_convolution: input 0 is the convolution's input
    // [10, 64, 56, 56], not what the memset clears.
    const CpuOp conv = op_of({{10, 64, 56, 56}, {64, 64, 3, 3}}, {"c10::BFloat16", "c10::BFloat16"});
    EXPECT_FALSE(cost_transfer(transfer(Activity::memset), "Memset (Device)", &conv, "aten::miopen_convolution"));
    EXPECT_FALSE(cost_transfer(transfer(Activity::memcpy), "Memcpy DtoD (Device -> Device)", &conv, "aten::miopen_convolution"));
}

TEST(KinetoTransfer, ZeroDimTensorCopyIsOneElement) {
    // aten::copy_ of 0-d float tensors (Input Dims [[], [], []]): one element, 4 B read and 4 B written.
    const CpuOp copy = op_of({{}, {}, {}}, {"float", "float", "Scalar"});
    const auto c = cost_transfer(transfer(Activity::memcpy), "Memcpy DtoD (Device -> Device)", &copy, "aten::copy_");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::memcpy_dtod);
    EXPECT_EQ(c->cost.bytes_read, 4u);
    EXPECT_EQ(c->cost.bytes_written, 4u);
    // A Scalar in input 0 has no storage: no size.
    const CpuOp scalar = op_of({{}}, {"Scalar"});
    EXPECT_FALSE(cost_transfer(transfer(Activity::memcpy), "Memcpy DtoD (Device -> Device)", &scalar, "aten::copy_"));
}

TEST(KinetoTransfer, BytesArgWinsOverTheOp) {
    GpuActivity a = transfer(Activity::memset);
    a.bytes = 4096;
    const CpuOp conv = op_of({{10, 64, 56, 56}}, {"c10::BFloat16"});
    const auto c = cost_transfer(a, "Memset (Device)", &conv, "aten::miopen_convolution");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_written, 4096u);
}

}  // namespace
