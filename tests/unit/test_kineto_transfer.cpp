// Memcpy and memset activities of a torch trace without a "bytes" arg: sized from the op that launched
// them only when that op is a copy or a fill (its input 0 is the destination), never from another op's
// inputs (a convolution zeroing its workspace).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <map>
#include <string>

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
// launched them; any other ROCclr kernel (a stream operation) stays a kernel. A copy kernel's direction is
// its launching runtime call's ("kind" 1 HtoD, 2 DtoH, 3 DtoD, or the call's name); without one the
// copy has no formula: a blit kernel copies host<->device as well as device<->device.
TEST(KinetoTransfer, RocclrBlitKernelsAreCopiesAndFills) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 100, "dur": 20,
       "args": {"External id": 5, "Input Dims": [[1024, 1024], [1024, 1024], []],
                "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 102, "dur": 5,
       "args": {"External id": 5, "correlation": 51, "bytes": "2097152", "kind": "1"}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBuffer", "pid": 0, "tid": 1, "ts": 110, "dur": 8,
       "args": {"correlation": 51, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::_local_scalar_dense", "pid": 1, "tid": 1, "ts": 130, "dur": 20,
       "args": {"External id": 7, "Input Dims": [[]], "Input type": ["float"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 132, "dur": 5,
       "args": {"External id": 7, "correlation": 71, "bytes": "4", "kind": 2}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBufferAligned", "pid": 0, "tid": 1, "ts": 140, "dur": 3,
       "args": {"correlation": 71, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 160, "dur": 20,
       "args": {"External id": 8, "Input Dims": [[64], [64], []], "Input type": ["float", "float", "Scalar"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyDtoDAsync", "pid": 1, "tid": 1, "ts": 162, "dur": 5,
       "args": {"External id": 8, "correlation": 81}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBuffer", "pid": 0, "tid": 1, "ts": 170, "dur": 2,
       "args": {"correlation": 81, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 185, "dur": 10,
       "args": {"External id": 9, "Input Dims": [[32], [32], []], "Input type": ["float", "float", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBuffer", "pid": 0, "tid": 1, "ts": 190, "dur": 2,
       "args": {"External id": 9, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::fill_", "pid": 1, "tid": 1, "ts": 200, "dur": 20,
       "args": {"External id": 6, "Input Dims": [[256, 64], []], "Input type": ["float", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_fillBufferAligned.kd", "pid": 0, "tid": 1, "ts": 210,
       "dur": 2, "args": {"External id": 6, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::masked_fill_", "pid": 1, "tid": 1, "ts": 230, "dur": 20,
       "args": {"External id": 10, "Input Dims": [[4096, 4096], [4096, 4096], []],
                "Input type": ["float", "bool", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_fillBufferAligned", "pid": 0, "tid": 1, "ts": 240,
       "dur": 2, "args": {"External id": 10, "device": 0, "stream": 1}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_streamOpsWrite", "pid": 0, "tid": 1, "ts": 300, "dur": 1,
       "args": {"device": 0, "stream": 1}}
    ]})",
                                 "rocclr.json");
    ASSERT_EQ(t.activities.size(), 7u);
    EXPECT_EQ(t.activities[0].kind, Activity::memcpy);
    EXPECT_EQ(t.activities[0].copy, CopyKind::htod);
    EXPECT_EQ(t.activities[1].copy, CopyKind::dtoh);
    EXPECT_EQ(t.activities[2].copy, CopyKind::dtod);
    EXPECT_EQ(t.activities[3].copy, CopyKind::unknown);
    EXPECT_EQ(t.activities[4].kind, Activity::memset);
    EXPECT_EQ(t.activities[6].kind, Activity::kernel);
    const Summary s = summarize(t);
    const auto cat = [&s](Category c) { return s.categories[static_cast<std::size_t>(c)]; };
    EXPECT_EQ(cat(Category::memcpy_htod).costed, 1u);
    EXPECT_EQ(cat(Category::memcpy_dtoh).costed, 1u);
    EXPECT_EQ(cat(Category::memcpy_dtod).costed, 1u);
    // the copy launched by no runtime call: memcpy, direction unknown, no formula
    EXPECT_EQ(cat(Category::memcpy).kernels, 1u);
    EXPECT_EQ(cat(Category::memcpy).costed, 0u);
    // fill_ sizes its memset; masked_fill_ does not (it fills a part): 2 memsets, 1 costed
    EXPECT_EQ(cat(Category::memset).kernels, 2u);
    EXPECT_EQ(cat(Category::memset).costed, 1u);
    int seen = 0;
    for (const Group& g : s.groups) {
        const bwacct::Cost& c = g.what.cost;
        switch (g.what.category) {
            case Category::memcpy_htod:  // bf16 [1024, 1024]: 1024·1024·2 = 2,097,152 B written, over the host link
                ++seen;
                EXPECT_EQ(c.bytes_read, 0u);
                EXPECT_EQ(c.bytes_written, 2097152u);
                EXPECT_EQ(c.transfer_bytes, 2097152u);
                break;
            case Category::memcpy_dtoh:  // item() of a 0-d float: 4 B read, 4 B over the host link
                ++seen;
                EXPECT_EQ(c.bytes_read, 4u);
                EXPECT_EQ(c.bytes_written, 0u);
                EXPECT_EQ(c.transfer_bytes, 4u);
                break;
            case Category::memcpy_dtod:  // float [64]: 256 B read and 256 B written
                ++seen;
                EXPECT_EQ(c.bytes_read, 256u);
                EXPECT_EQ(c.bytes_written, 256u);
                break;
            case Category::memset:  // fill_ of a float [256, 64] tensor: 256·64·4 = 65,536 B written
                ++seen;
                EXPECT_EQ(c.bytes_read, 0u);
                EXPECT_EQ(c.bytes_written, 65536u);
                break;
            default:
                break;
        }
    }
    EXPECT_EQ(seen, 4);
    const auto& unknown = cat(Category::memcpy).uncosted_reasons;
    ASSERT_EQ(unknown.size(), 1u);
    // activity 3 has an op (External id 9) but no runtime call: no call to blame
    EXPECT_EQ(unknown.begin()->first,
              "copy direction unknown (a runtime copy kernel; no launching runtime call gives its "
              "\"kind\": HtoD, DtoH and DtoD run alike)");
    const auto& masked = cat(Category::memset).uncosted_reasons;
    ASSERT_EQ(masked.size(), 1u);
    EXPECT_EQ(masked.begin()->first,
              "no byte count in trace (no \"bytes\" arg; the launching op aten::masked_fill_ does not give the size)");
}

// Three copies, each an aten::copy_ with a runtime call and a blit kernel, given `kinds` and an id key: "correlation"
// (all three sharing correlation 5, as ranks merged into one file reuse ids) or "External id" (no correlation
// anywhere: each call and its kernel carry their own External id 1, 2, 3, the ops 1001..1003).
Trace three_blit_copies(const std::array<const char*, 3>& kinds, bool shared_correlation) {
    std::string events;
    for (int i = 0; i < 3; ++i) {
        const int ts = 100 * (i + 1);
        const std::string id = shared_correlation ? "\"correlation\": 5" : fmt::format("\"External id\": {}", i + 1);
        events += fmt::format(
            R"({}{{"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": {}, "dur": 80,
                "args": {{"External id": {}, "Input Dims": [[1024, 1024], [1024, 1024], []],
                          "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"]}}}},
               {{"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": {}, "dur": 5,
                "args": {{{}, "kind": "{}"}}}},
               {{"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBuffer", "pid": 0, "tid": 7, "ts": {}, "dur": 20,
                "args": {{{}, "device": 0, "stream": 7}}}})",
            i ? "," : "", ts, shared_correlation ? 5 : 1001 + i, ts + 5, id, kinds[static_cast<std::size_t>(i)], ts + 10, id);
    }
    return parse_kineto("{\"traceEvents\": [" + events + "]}", "blits.json");
}

// Launches sharing a correlation id give their kernels a direction only if all of them agree: kinds 1, 1, 2
// leave all three unknown (the old code compared the first two only and gave htod); 1, 1, 1 give htod.
TEST(KinetoTransfer, BlitLaunchesSharingACorrelationIdMustAllAgree) {
    const Trace mixed = three_blit_copies({"1", "1", "2"}, true);
    ASSERT_EQ(mixed.activities.size(), 3u);
    for (const GpuActivity& a : mixed.activities)
        EXPECT_EQ(a.copy, CopyKind::unknown);
    const Trace same = three_blit_copies({"1", "1", "1"}, true);
    ASSERT_EQ(same.activities.size(), 3u);
    for (const GpuActivity& a : same.activities)
        EXPECT_EQ(a.copy, CopyKind::htod);
}

// No correlation ids: the External-id fallback pairs each call with its kernel, kinds 1, 2, 3 → htod, dtoh, dtod.
TEST(KinetoTransfer, BlitKernelsTakeTheirDirectionUnderTheExternalIdFallback) {
    const Trace t = three_blit_copies({"1", "2", "3"}, false);
    ASSERT_EQ(t.activities.size(), 3u);
    EXPECT_EQ(t.correlated_by_external_id, 3u);
    EXPECT_EQ(t.activities[0].copy, CopyKind::htod);
    EXPECT_EQ(t.activities[1].copy, CopyKind::dtoh);
    EXPECT_EQ(t.activities[2].copy, CopyKind::dtod);
}

// A blit copy kernel no op holds says so first, as a kernel does; one whose call gives no kind blames the call.
TEST(KinetoTransfer, BlitKernelWithoutAnOpSaysSoFirst) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBuffer", "pid": 0, "tid": 7, "ts": 10, "dur": 20,
       "args": {"device": 0, "stream": 7}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 100, "dur": 80,
       "args": {"External id": 1, "Input Dims": [[64], [64], []], "Input type": ["float", "float", "Scalar"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 105, "dur": 5,
       "args": {"External id": 1, "correlation": 3}},
      {"ph": "X", "cat": "kernel", "name": "__amd_rocclr_copyBuffer", "pid": 0, "tid": 7, "ts": 110, "dur": 20,
       "args": {"External id": 1, "device": 0, "stream": 7, "correlation": 3}}
    ]})",
                                 "blit_unlinked.json");
    const Summary s = summarize(t);
    // each 20 µs kernel under its own reason
    EXPECT_EQ(s.categories[static_cast<std::size_t>(Category::memcpy)].uncosted_reasons,
              (std::map<std::string, double>{
                  {"no CPU op linked (no launch record: queued before the profiler started); copy direction unknown "
                   "(a runtime copy kernel; no launching runtime call gives its \"kind\": HtoD, DtoH and DtoD run alike)",
                   20.0},
                  {"copy direction unknown (a runtime copy kernel; its launching runtime call gives no \"kind\": HtoD, "
                   "DtoH and DtoD run alike)",
                   20.0},
              }));
}

}  // namespace
