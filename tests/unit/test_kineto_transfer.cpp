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

// The HIP runtime (ROCclr) runs hipMemcpy/hipMemset as kernels, "__amd_rocclr_copyBuffer…" and
// "__amd_rocclr_fillBuffer…": read as the memcpy and memset they are, sized by the copy or fill op that
// launched them; any other ROCclr kernel (a stream operation) stays a kernel.
TEST(KinetoTransfer, RocclrBlitKernelsAreCopiesAndFills) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 100, "dur": 20,
       "args": {"External id": 5, "Input Dims": [[1024, 1024], [1024, 1024], []],
                "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBuffer", "pid": 0, "tid": 1, "ts": 110, "dur": 8,
       "args": {"External id": 5, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 1, "tid": 1, "ts": 200, "dur": 20,
       "args": {"External id": 6, "Input Dims": [[256, 64], []], "Input type": ["float", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_fillBufferAligned.kd", "pid": 0, "tid": 1, "ts": 210,
       "dur": 2, "args": {"External id": 6, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_streamOpsWrite", "pid": 0, "tid": 1, "ts": 300, "dur": 1,
       "args": {"device": 0, "stream": 1}}
    ]})",
                                 "rocclr.json");
    ASSERT_EQ(t.activities.size(), 3u);
    EXPECT_EQ(t.activities[0].kind, Activity::memcpy);
    EXPECT_EQ(t.activities[1].kind, Activity::memset);
    EXPECT_EQ(t.activities[2].kind, Activity::kernel);
    const Summary s = summarize(t);
    // copy_ of a bf16 [1024, 1024] tensor: 1024·1024·2 = 2,097,152 B read and as many written (DtoD).
    const auto& dtod = s.categories[static_cast<std::size_t>(Category::memcpy_dtod)];
    EXPECT_EQ(dtod.kernels, 1u);
    EXPECT_EQ(dtod.costed, 1u);
    // fill_ of a float [256, 64] tensor: 256·64·4 = 65,536 B written.
    const auto& memset = s.categories[static_cast<std::size_t>(Category::memset)];
    EXPECT_EQ(memset.kernels, 1u);
    EXPECT_EQ(memset.costed, 1u);
    bool copy_seen = false, fill_seen = false;
    for (const Group& g : s.groups) {
        if (g.what.category == Category::memcpy_dtod) {
            copy_seen = true;
            EXPECT_EQ(g.what.cost.bytes_read, 2097152u);
            EXPECT_EQ(g.what.cost.bytes_written, 2097152u);
        }
        if (g.what.category == Category::memset) {
            fill_seen = true;
            EXPECT_EQ(g.what.cost.bytes_read, 0u);
            EXPECT_EQ(g.what.cost.bytes_written, 65536u);
        }
    }
    EXPECT_TRUE(copy_seen);
    EXPECT_TRUE(fill_seen);
}

}  // namespace
