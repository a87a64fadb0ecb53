// Traces of kinds no real file here shows, written in the event layout of the real ones
// (tests/data/kineto/make_layout_fixtures.py; each fixture's .src.txt says whose layout): torch.compile
// kernels launched op by op and then replayed as a CUDA graph, FSDP2's all-gather / reduce-scatter with
// their copy-in and copy-out, and a float8 _scaled_mm. Every value below is computed by hand from the
// fixture's shapes.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;

Summary summary_of(const std::string& name) { return summarize(read_kineto(std::string(BWACCT_TEST_DATA) + "/kineto/" + name)); }

const Group* group(const Summary& s, const std::string& torch_op) {
    for (const Group& g : s.groups)
        if (g.what.op == torch_op)
            return &g;
    ADD_FAILURE() << "no group " << torch_op;
    return nullptr;
}

const KernelRow* kernel(const Summary& s, const std::string& prefix) {
    for (const KernelRow& k : s.kernels)
        if (k.name.rfind(prefix, 0) == 0)
            return &k;
    ADD_FAILURE() << "no kernel " << prefix;
    return nullptr;
}

const CategoryTime& category(const Summary& s, Category c) {
    for (const CategoryTime& t : s.categories)
        if (t.category == c)
            return t;
    throw std::logic_error("no category row");
}

TEST(KinetoLayoutFixtures, CompiledKernelsCostedThenTheirCudaGraphReplayCategorisedWithoutShapes) {
    const Summary s = summary_of("synthetic_h100_torch_compile_then_cudagraph_replay.json");
    // five kernels launched op by op (step 1), the same five replayed by one cudaGraphLaunch (step 2)
    EXPECT_EQ(s.activities, 10u);
    EXPECT_EQ(s.uncosted_kernels, 5u);
    // M = 8192, H = 4096, F = 14336, bf16 (2 B).
    // RMSNorm triton_red_ (in [M, H], weight [H], out [M, H]): read 8192·4096·2 + 4096·2 = 67,117,056 B,
    // written 8192·4096·2 = 67,108,864 B, no FLOPs (the fused expression is not in the trace).
    const Group* norm = group(s, "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0");
    ASSERT_NE(norm, nullptr);
    EXPECT_EQ(norm->what.category, Category::norm);
    EXPECT_EQ(norm->what.cost.bytes_read, 67117056u);
    EXPECT_EQ(norm->what.cost.bytes_written, 67108864u);
    EXPECT_EQ(norm->what.cost.flops, 0u);
    // extern aten::mm [M, H] x [H, 2F]: 2·8192·28672·4096 = 1,924,145,348,608 FLOPs.
    const Group* mm = group(s, "aten::mm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->what.cost.flops, 1924145348608u);
    // SiLU-mul triton_poi_ (in [M, 2F], out [M, F]): read 8192·28672·2 = 469,762,048 B, written
    // 8192·14336·2 = 234,881,024 B.
    const Group* act = group(s, "triton_poi_fused_mul_silu_1");
    ASSERT_NE(act, nullptr);
    EXPECT_EQ(act->what.category, Category::elementwise);
    EXPECT_EQ(act->what.cost.bytes_read, 469762048u);
    EXPECT_EQ(act->what.cost.bytes_written, 234881024u);
    // GEMM template triton_tem_ A [M, F] x B [F, H] → [M, H]: 2·8192·4096·14336 = 962,072,674,304 FLOPs; read
    // 8192·14336·2 + 14336·4096·2 = 234,881,024 + 117,440,512 = 352,321,536 B, written 67,108,864 B.
    const Group* tem = group(s, "triton_tem_fused_mm_2");
    ASSERT_NE(tem, nullptr);
    EXPECT_EQ(tem->what.category, Category::gemm);
    EXPECT_EQ(tem->what.cost.flops, 962072674304u);
    EXPECT_EQ(tem->what.cost.bytes_read, 352321536u);
    EXPECT_EQ(tem->what.cost.bytes_written, 67108864u);
    // softmax triton_per_ over fp32 [8192, 32000]: 8192·32000·4 = 1,048,576,000 B read and written.
    const Group* sm = group(s, "triton_per_fused__softmax_3");
    ASSERT_NE(sm, nullptr);
    EXPECT_EQ(sm->what.category, Category::softmax);
    EXPECT_EQ(sm->what.cost.bytes_read, 1048576000u);
    EXPECT_EQ(sm->what.cost.bytes_written, 1048576000u);
    // Each group holds only its op-by-op call: the replayed kernel is not in it.
    EXPECT_EQ(tem->calls, 1u);
    EXPECT_DOUBLE_EQ(tem->kernel_us, 1100.0);
    // The replay: linked to "Torch-Compiled Region: 0/0" through cudaGraphLaunch's correlation id, which all five
    // kernels share; no shapes (record_shapes cannot give a graph's kernels any): each keeps its name's category and
    // says why it has no formula.
    const KernelRow* nvjet = kernel(s, "nvjet_tst_");
    ASSERT_NE(nvjet, nullptr);
    EXPECT_EQ(nvjet->category, Category::gemm);
    EXPECT_EQ(nvjet->reason, "no shapes in trace (a CUDA graph replay: its kernels share one launch)");
    // gemm: nvjet and triton_tem_ twice each, one of each costed; the replay's 2200 + 1100 µs without shapes.
    const CategoryTime& g = category(s, Category::gemm);
    EXPECT_EQ(g.kernels, 4u);
    EXPECT_EQ(g.costed, 2u);
    const std::string replay = "no shapes in trace (a CUDA graph replay: its kernels share one launch)";
    ASSERT_EQ(g.uncosted_reasons.count(replay), 1u);
    EXPECT_DOUBLE_EQ(g.uncosted_reasons.at(replay), 3300.0);
    EXPECT_EQ(category(s, Category::norm).kernels, 2u);
    EXPECT_EQ(category(s, Category::softmax).kernels, 2u);
    EXPECT_EQ(category(s, Category::elementwise).kernels, 2u);
    EXPECT_EQ(category(s, Category::other).kernels, 0u);
    // Launch delays, one per launch: the five op-by-op kernels start 1100 − 1040, 1160 − 1090, 3370 − 1140,
    // 3680 − 1180, 4790 − 1210 µs after their launch calls (60, 70, 2230, 2500, 3580); the replay counts once, its
    // first kernel at 5700 − 5620 = 80 µs (its later four waited on the graph's own kernels). Six delays, sorted
    // 60, 70, 80, 2230, 2500, 3580: median (3rd) 80, p90 (6th) 3580, max 3580.
    EXPECT_EQ(s.time.delay.count, 6u);
    EXPECT_DOUBLE_EQ(s.time.delay.median_us, 80.0);
    EXPECT_DOUBLE_EQ(s.time.delay.p90_us, 3580.0);
    EXPECT_DOUBLE_EQ(s.time.delay.max_us, 3580.0);
}

// A real Inductor kernel op, as TraceLens's test of its torch.compile perf model quotes it from a TransformerBlock
// trace (bf16, batch 8, seq 4096, dim 2048; AMD-AGI/TraceLens, TritonCompiledPerfModel tests): Input Dims
// [[8, 4096, 2048], [2048], [8, 4096, 2048], [], []], Concrete Inputs xnumel 32768, rnumel 2048. TraceLens counts
// 268,439,552 B; so does bwacct: read 8·4096·2048·2 + 2048·2 = 134,221,824 B, written 134,217,728 B.
TEST(KinetoLayoutFixtures, RealInductorRmsNormEventAgreesWithTraceLensBytes) {
    const CpuOp op = test::op_of({{8, 4096, 2048}, {2048}, {8, 4096, 2048}, {}, {}},
                                 {test::bf, test::bf, test::bf, "Scalar", "Scalar"}, {"", "", "", "32768", "2048"});
    const auto c = cost_cpu_op("triton_red_fused_add_mean_mul_pow_rsqrt_0", op);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::norm);
    EXPECT_EQ(c->cost.bytes_read, 134221824u);
    EXPECT_EQ(c->cost.bytes_written, 134217728u);
    EXPECT_EQ(c->cost.bytes_read + c->cost.bytes_written, 268439552u);
    EXPECT_EQ(c->cost.flops, 0u);  // the fused expression is not in the trace (TraceLens guesses 7 per element)
}

// An extern GEMM kernel whose launch carried an Inductor kernel op's External id (a layout seen in a compiled float8
// model's trace: nvjet linked to triton_poi_fused__scaled_mm_…) joined that op's group: 300 µs of GEMM costed as the
// pointwise kernel's arguments. It stays out of the group, a GEMM with its reason.
TEST(KinetoLayoutFixtures, ForeignKernelOfACompiledOpIsNotCostedAsIt) {
    const Trace t = parse_kineto(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused__scaled_mm_0", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
     "args": {"External id": 7, "Input Dims": [[16, 4096, 6144], [65536, 6144], [6144, 65536]],
              "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"], "kernel_backend": "triton"}},
    {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
     "args": {"External id": 7, "correlation": 5}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 120, "dur": 5,
     "args": {"External id": 7, "correlation": 6}},
    {"ph": "X", "cat": "kernel", "name": "triton_poi_fused__scaled_mm_0", "pid": 0, "tid": 7, "ts": 200, "dur": 50,
     "args": {"device": 0, "stream": 7, "correlation": 5, "External id": 7}},
    {"ph": "X", "cat": "kernel", "name": "nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN", "pid": 0, "tid": 7, "ts": 260,
     "dur": 300, "args": {"device": 0, "stream": 7, "correlation": 6, "External id": 7}}
  ]})",
                                 "foreign.json");
    const Summary s = summarize(t);
    // The Inductor kernel: read 16·4096·6144·2 + 65536·6144·2 = 1,610,612,736 B, written 6144·65536·2 = 805,306,368 B;
    // its own 50 µs only.
    const Group* g = group(s, "triton_poi_fused__scaled_mm_0");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->what.cost.bytes_read, 1610612736u);
    EXPECT_EQ(g->what.cost.bytes_written, 805306368u);
    EXPECT_EQ(g->kernels, 1u);
    EXPECT_DOUBLE_EQ(g->kernel_us, 50.0);
    const KernelRow* k = kernel(s, "nvjet_tst_");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->category, Category::gemm);
    EXPECT_EQ(k->reason.rfind("its op triton_poi_fused__scaled_mm_0 is a compiled (Inductor) kernel's", 0), 0u) << k->reason;
    EXPECT_EQ(s.uncosted_kernels, 1u);
}

TEST(KinetoLayoutFixtures, Fsdp2CollectivesAndTheirCopies) {
    const Summary s = summary_of("synthetic_h100x8_fsdp2_allgather_reducescatter_rank0.json");
    // A rank's shard: (512 + 128 + 128 + 512)·4096 = 5,242,880 elements; gathered over 8 ranks: 41,943,040.
    // All-gather, bf16: nccl-tests' size is the gathered output, 41,943,040·2 = 83,886,080 B.
    const Group* ag = group(s, "nccl:allgather");
    ASSERT_NE(ag, nullptr);
    EXPECT_EQ(ag->what.category, Category::collective);
    ASSERT_TRUE(ag->what.cost.collective);
    EXPECT_EQ(ag->what.cost.collective->size_bytes, 83886080u);
    EXPECT_EQ(ag->what.cost.collective->ranks, 8u);
    // Reduce-scatter of the fp32 gradients: the input, 41,943,040·4 = 167,772,160 B.
    const Group* rs = group(s, "nccl:reducescatter");
    ASSERT_NE(rs, nullptr);
    ASSERT_TRUE(rs->what.cost.collective);
    EXPECT_EQ(rs->what.cost.collective->size_bytes, 167772160u);
    // The copy-in, torch._foreach_copy_ of the fp32 shards into bf16 (CopyFunctor<c10::BFloat16, float, ...>):
    // read 5,242,880·4 = 20,971,520 B, written 5,242,880·2 = 10,485,760 B; a copy, elementwise (was: both
    // lists at bf16, 10,485,760 B read, and optimizer).
    const Group* copy_in = group(s, "aten::_foreach_copy_");
    ASSERT_NE(copy_in, nullptr);
    EXPECT_EQ(copy_in->what.category, Category::elementwise);
    EXPECT_EQ(copy_in->what.dtype, "fp32->bf16");
    EXPECT_EQ(copy_in->what.cost.bytes_read, 20971520u);
    EXPECT_EQ(copy_in->what.cost.bytes_written, 10485760u);
    // The copy-out, split_with_sizes_copy of the gathered bf16 [8, 5,242,880]: 41,943,040·2 = 83,886,080 B read and
    // as many written (the copies partition it; was: no formula).
    const Group* copy_out = group(s, "aten::split_with_sizes_copy");
    ASSERT_NE(copy_out, nullptr);
    EXPECT_EQ(copy_out->what.cost.bytes_read, 83886080u);
    EXPECT_EQ(copy_out->what.cost.bytes_written, 83886080u);
    // The reduce-scatter input, _chunk_cat of the bf16 gradients [4096|1024|1024|4096, 4096] (41,943,040 elements)
    // into the fp32 out [41,943,040] (chunk_cat_cuda_kernel<float, c10::BFloat16>: dst, src): read 41,943,040·2 =
    // 83,886,080 B, written 41,943,040·4 = 167,772,160 B (was: no formula).
    const Group* cc = group(s, "aten::_chunk_cat");
    ASSERT_NE(cc, nullptr);
    EXPECT_EQ(cc->what.category, Category::indexing);
    EXPECT_EQ(cc->what.dtype, "bf16->fp32");
    EXPECT_EQ(cc->what.cost.bytes_read, 83886080u);
    EXPECT_EQ(cc->what.cost.bytes_written, 167772160u);
    EXPECT_EQ(s.uncosted_kernels, 0u);
    const KernelRow* k = kernel(s, "void at::native::(anonymous namespace)::multi_tensor_apply_kernel");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->category, Category::elementwise);
    // Only the two NCCL kernels are communication: 400 + 1500 µs (the copies are compute).
    EXPECT_EQ(category(s, Category::collective).kernels, 2u);
    EXPECT_DOUBLE_EQ(category(s, Category::collective).kernel_us, 1900.0);
    EXPECT_EQ(category(s, Category::optimizer).kernels, 0u);
    // Every kernel has a formula or a reason.
    for (const KernelRow& r : s.kernels)
        EXPECT_TRUE(r.reason.empty() || r.category != Category::other) << r.name;
}

TEST(KinetoLayoutFixtures, Float8ScaledMmAndItsCast) {
    const Summary s = summary_of("synthetic_h100_float8_scaled_mm.json");
    EXPECT_EQ(s.uncosted_kernels, 0u);
    // _scaled_mm e4m3 [16384, 8192] x e4m3 [8192, 8192] → bf16: 2·16384·8192·8192 = 2,199,023,255,552 FLOPs;
    // read 16384·8192·1 + 8192·8192·1 = 134,217,728 + 67,108,864 = 201,326,592 B and the per-tensor scales
    // scale_a, scale_b (0-d fp32, 4 B each): 201,326,600 B; written 16384·8192·2 = 268,435,456 B.
    const Group* mm = group(s, "aten::_scaled_mm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->what.category, Category::gemm);
    EXPECT_EQ(mm->what.cost.flops, 2199023255552u);
    EXPECT_EQ(mm->what.cost.bytes_read, 201326600u);
    EXPECT_EQ(mm->what.cost.bytes_written, 268435456u);
    // The cast bf16 → e4m3 (aten::copy_): read 16384·8192·2 = 268,435,456 B, written 16384·8192·1 = 134,217,728 B.
    const Group* cast = group(s, "aten::copy_");
    ASSERT_NE(cast, nullptr);
    EXPECT_EQ(cast->what.cost.bytes_read, 268435456u);
    EXPECT_EQ(cast->what.cost.bytes_written, 134217728u);
}

}  // namespace
