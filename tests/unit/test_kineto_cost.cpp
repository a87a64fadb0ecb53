// Costing Kineto ops with the engine's formulas (src/ingest/kineto_cost*.cpp) and the busy/idle
// accounting (kineto_summary.cpp). Expected values by hand, arithmetic in the comments.
#include <gtest/gtest.h>

#include <string>

#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::Param;

using bwacct::kineto::test::bf;
using bwacct::kineto::test::op_of;

TEST(KinetoCost, AddmmWithBias) {
    // BERT's attention projection: addmm(bias[512], x[141,512], W[512,512]), bf16.
    const auto c = cost_cpu_op("aten::addmm", op_of({{512}, {141, 512}, {512, 512}, {}, {}}, {bf, bf, bf, "Scalar", "Scalar"}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::gemm);
    EXPECT_EQ(c->shape, "M=141 N=512 K=512 bias");
    EXPECT_EQ(c->dtype, "bf16");
    // A 141·512·2 = 144384, B 512·512·2 = 524288, bias 512·2 = 1024; C 141·512·2 = 144384.
    EXPECT_EQ(c->cost.bytes_read, 144384u + 524288u + 1024u);
    EXPECT_EQ(c->cost.bytes_written, 144384u);
    EXPECT_EQ(c->cost.flops, 2ull * 141 * 512 * 512);  // 73924608
}

// nll_loss_backward as the H100 Llama training trace records it (h100_bwacct_make_traces_llama_train_bf16):
// Input Dims [[], [4096, 32000], [4096], [], [], [], []], grad_output and total_weight 0-d fp32, no weight.
// PyTorch zeroes grad_input in a child aten::zero_ (its own 159 µs fill kernel); this op's kernel took 10.3 µs,
// so it cannot have written the 4096·32000·4 = 524,288,000 B that were counted before.
TEST(KinetoCost, NllLossBackwardWritesOneValuePerTargetNotTheZeroedGradInput) {
    const auto c = cost_cpu_op("aten::nll_loss_backward", op_of({{}, {4096, 32000}, {4096}, {}, {}, {}, {}},
                                                                {"float", "float", "long int", "", "Scalar", "Scalar", "float"}));
    ASSERT_TRUE(c);
    // read: grad_output 4 + targets 4096·8 = 32768 + total_weight 4 = 32776 B; written: 4096·4 = 16384 B.
    EXPECT_EQ(c->cost.bytes_read, 32776u);
    EXPECT_EQ(c->cost.bytes_written, 16384u);
    EXPECT_EQ(c->cost.flops, 4096u);
    EXPECT_EQ(c->shape, "4096x32000");
}

// embedding_dense_backward from the same trace: Input Dims [[4, 1024, 2048], [4, 1024], [], [], []], Concrete
// Inputs num_weights "32000". Its child aten::zeros fills the 32000×2048 gradient (costed as that fill);
// the op's own kernels accumulate the rows the 4·1024 = 4096 indices pick.
TEST(KinetoCost, EmbeddingDenseBackwardWritesThePickedRows) {
    const auto op_with = [](const char* rows) {
        return op_of({{4, 1024, 2048}, {4, 1024}, {}, {}, {}}, {bf, "long int", "Scalar", "Scalar", "Scalar"},
                     {"", "", rows, "-1", "False"});
    };
    const auto c = cost_cpu_op("aten::embedding_dense_backward", op_with("32000"));
    ASSERT_TRUE(c);
    // read: dY 4·1024·2048·2 = 16,777,216 + indices 4096·8 = 32,768 → 16,809,984 B;
    // written: min(32000, 4096)·2048·2 = 16,777,216 B (was 32000·2048·2 = 131,072,000).
    EXPECT_EQ(c->cost.bytes_read, 16809984u);
    EXPECT_EQ(c->cost.bytes_written, 16777216u);
    // Fewer rows than indices (a tiny vocabulary): all num_weights rows, 10·2048·2 = 40,960 B.
    const auto small = cost_cpu_op("aten::embedding_dense_backward", op_with("10"));
    ASSERT_TRUE(small);
    EXPECT_EQ(small->cost.bytes_written, 40960u);
}

// An input whose Input Strides hold a 0 is a broadcast view: its stored elements are read once. gather(self
// [32000, 2048] bf16, dim 0, index [4096, 2048] long with strides [1, 0]) reads 4096·2048·2 = 16,777,216 picked
// + 4096·8 = 32,768 index bytes; without strides the index counts 4096·2048·8 = 67,108,864.
TEST(KinetoCost, ABroadcastInputCountsItsStoredElements) {
    CpuOp op = op_of({{32000, 2048}, {}, {4096, 2048}, {}}, {bf, "Scalar", "long int", "Scalar"}, {"", "0", "", "False"});
    const auto whole = cost_cpu_op("aten::gather", op);
    ASSERT_TRUE(whole);
    EXPECT_EQ(whole->cost.bytes_read, 16777216u + 67108864u);
    op.strides = std::vector<std::vector<std::int64_t>>{{2048, 1}, {}, {1, 0}, {}};
    const auto viewed = cost_cpu_op("aten::gather", op);
    ASSERT_TRUE(viewed);
    EXPECT_EQ(viewed->cost.bytes_read, 16777216u + 32768u);
    EXPECT_EQ(viewed->cost.bytes_written, 16777216u);
    // Strides of another rank than the dims (a damaged trace) are ignored: every element.
    op.strides = std::vector<std::vector<std::int64_t>>{{2048, 1}, {}, {0}, {}};
    EXPECT_EQ(cost_cpu_op("aten::gather", op)->cost.bytes_read, 16777216u + 67108864u);
}

TEST(KinetoCost, LinearBmmAndAFullAddend) {
    // linear(x[2,3,8], W[4,8], b[4]) fp32: M = 2·3 = 6, N = 4, K = 8.
    const auto lin = cost_cpu_op("aten::linear", op_of({{2, 3, 8}, {4, 8}, {4}}, {"float", "float", "float"}));
    ASSERT_TRUE(lin);
    EXPECT_EQ(lin->shape, "M=6 N=4 K=8 bias");
    // reads (6·8 + 8·4 + 4)·4 = 336, writes 6·4·4 = 96, FLOPs 2·6·4·8 = 384.
    EXPECT_EQ(lin->cost.bytes_read, 336u);
    EXPECT_EQ(lin->cost.bytes_written, 96u);
    EXPECT_EQ(lin->cost.flops, 384u);
    // bmm([3,4,5], [3,5,6]) fp16: reads (3·4·5 + 3·5·6)·2 = 300, writes 3·4·6·2 = 144, FLOPs 2·3·4·6·5 = 720.
    const auto bmm = cost_cpu_op("aten::bmm", op_of({{3, 4, 5}, {3, 5, 6}}, {"c10::Half", "c10::Half"}));
    ASSERT_TRUE(bmm);
    EXPECT_EQ(bmm->shape, "B=3 M=4 N=6 K=5");
    EXPECT_EQ(bmm->cost.bytes_read, 300u);
    EXPECT_EQ(bmm->cost.bytes_written, 144u);
    EXPECT_EQ(bmm->cost.flops, 720u);
    // baddbmm(C[3,4,6], [3,4,5], [3,5,6]) fp16: the addend is read in full: 300 + 3·4·6·2 = 444.
    const auto badd =
        cost_cpu_op("aten::baddbmm", op_of({{3, 4, 6}, {3, 4, 5}, {3, 5, 6}}, {"c10::Half", "c10::Half", "c10::Half"}));
    ASSERT_TRUE(badd);
    EXPECT_EQ(badd->cost.bytes_read, 444u);
    // Mismatched inner dims or unknown dtypes are not costed.
    EXPECT_FALSE(cost_cpu_op("aten::mm", op_of({{4, 5}, {6, 7}}, {bf, bf})));
    EXPECT_FALSE(cost_cpu_op("aten::mm", op_of({{4, 5}, {5, 7}}, {"long int", "long int"})));
}

TEST(KinetoCost, FlashAttentionFromTheForwardKernelsDims) {
    // _flash_attention_forward q,k,v [B=1, S=141, H=8, D=64] bf16, is_causal (input 8) False.
    const auto c = cost_cpu_op(
        "aten::_flash_attention_forward",
        op_of({{1, 141, 8, 64}, {1, 141, 8, 64}, {1, 141, 8, 64}, {}, {}, {}, {}, {}, {}},
              {bf, bf, bf, "", "", "Scalar", "Scalar", "Scalar", "Scalar"}, {"", "", "", "", "", "141", "141", "0.", "False"}));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::attention);
    // FLOPs 4·B·H·S·S·D = 4·1·8·141·141·64 = 40716288; bytes Q,K,V,O = 4·(1·8·141·64·2) = 577536.
    EXPECT_EQ(c->cost.flops, 40716288u);
    EXPECT_EQ(c->cost.bytes(), 577536u);
    // SDPA layout [B, H, S, D], causal (input 4) True: pairs 141·141 − 141·140/2 = 19881 − 9870 = 10011.
    const auto causal = cost_cpu_op("aten::_scaled_dot_product_flash_attention",
                                    op_of({{1, 8, 141, 64}, {1, 8, 141, 64}, {1, 8, 141, 64}, {}, {}},
                                          {bf, bf, bf, "Scalar", "Scalar"}, {"", "", "", "0.", "True"}));
    ASSERT_TRUE(causal);
    EXPECT_EQ(causal->cost.flops, 4ull * 8 * 10011 * 64);
}

TEST(KinetoCost, NormsAndElementwise) {
    // native_layer_norm x[1,141,512] bf16: read x 144384 + γ,β 2·512·2 = 2048, write 144384.
    const auto ln = cost_cpu_op("aten::native_layer_norm",
                                op_of({{1, 141, 512}, {}, {512}, {512}, {}}, {bf, "ScalarList", bf, bf, "Scalar"}));
    ASSERT_TRUE(ln);
    EXPECT_EQ(ln->category, Category::norm);
    EXPECT_EQ(ln->cost.bytes_read, 146432u);
    EXPECT_EQ(ln->cost.bytes_written, 144384u);
    // add(x[4,8], y[8]) fp32 (+ alpha Scalar): x read 128, broadcast y read 32, write 128; FLOPs 32.
    const auto add = cost_cpu_op("aten::add", op_of({{4, 8}, {8}, {}}, {"float", "float", "Scalar"}));
    ASSERT_TRUE(add);
    EXPECT_EQ(add->category, Category::elementwise);
    EXPECT_EQ(add->cost.bytes_read, 160u);
    EXPECT_EQ(add->cost.bytes_written, 128u);
    EXPECT_EQ(add->cost.flops, 32u);
    // gelu x[1,141,2048] bf16: read and write 141·2048·2 = 577536 each; FLOPs 5 per element.
    const auto gelu = cost_cpu_op("aten::gelu", op_of({{1, 141, 2048}, {}}, {bf, ""}));
    ASSERT_TRUE(gelu);
    EXPECT_EQ(gelu->cost.bytes_read, 577536u);
    EXPECT_EQ(gelu->cost.flops, 5u * 141 * 2048);
    // copy_(dst bf16 [10], src fp32 [10]): read 10·4 = 40, write 10·2 = 20.
    const auto cp = cost_cpu_op("aten::copy_", op_of({{10}, {10}, {}}, {bf, "float", "Scalar"}));
    ASSERT_TRUE(cp);
    EXPECT_EQ(cp->dtype, "fp32->bf16");
    EXPECT_EQ(cp->cost.bytes_read, 40u);
    EXPECT_EQ(cp->cost.bytes_written, 20u);
    // No shapes recorded, or an op without a formula: not costed.
    EXPECT_FALSE(cost_cpu_op("aten::add", op_of({}, {})));
    EXPECT_FALSE(cost_cpu_op("aten::index_select", op_of({{30522, 512}, {}, {141}}, {bf, "Scalar", "long int"})));
}

TEST(KinetoCost, NcclKernelFromItsMetadata) {
    GpuActivity k;
    k.collective = CollectiveArgs{"allreduce", 6637568, 6637568, 2, "Float"};
    const auto c = cost_collective_kernel(k);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->op, "nccl:allreduce");
    EXPECT_EQ(c->category, Category::collective);
    ASSERT_TRUE(c->cost.collective);
    EXPECT_EQ(c->cost.collective->size_bytes, 6637568ull * 4);  // 26550272
    EXPECT_EQ(c->cost.collective->ranks, 2u);
    // allgather: nccl-tests' size is the gathered output.
    k.collective = CollectiveArgs{"all_gather", 1024, 4096, 4, "BFloat16"};
    const auto ag = cost_collective_kernel(k);
    ASSERT_TRUE(ag);
    EXPECT_EQ(ag->cost.collective->size_bytes, 4096u * 2);
    k.collective = CollectiveArgs{"allreduce", 10, 10, 1, "Float"};  // one rank: nothing to cost
    EXPECT_FALSE(cost_collective_kernel(k));
}

// The algorithm from the kernel's name: NCCL's upper-case NVLS / TREE words, symmetric memory's multimem.
// Wire bytes per rank (docs/formulas.md, Collectives), allreduce of S = 1,048,576 fp32 elements · 4 B =
// 4,194,304 B over 8 ranks: ring 2·7/8·S = 7,340,032 in 14 steps; NVLS S·9/8 = 4,718,592 in 2 steps;
// tree 2·7/8·S in 2·⌈log2 8⌉ = 6 steps.
TEST(KinetoCost, CollectiveAlgorithmFromTheKernelName) {
    const CollectiveArgs m{"allreduce", 1048576, 1048576, 8, "Float"};
    const auto algo = [&](std::string_view kernel) { return *cost_collective_kernel(m, kernel); };
    const OpCost ring = algo("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
    EXPECT_EQ(ring.cost.collective->algo, bwacct::CollectiveAlgo::ring);
    EXPECT_EQ(ring.cost.collective->wire_bytes_per_rank, 7340032u);
    EXPECT_EQ(ring.cost.collective->steps, 14u);
    EXPECT_EQ(ring.shape, "in=1048576 out=1048576 ranks=8");
    const OpCost nvls = algo("ncclDevKernel_AllReduce_Sum_f32_NVLS_SIMPLE(ncclDevKernelArgsStorage<4096ul>)");
    EXPECT_EQ(nvls.cost.collective->algo, bwacct::CollectiveAlgo::nvls);
    EXPECT_TRUE(nvls.cost.collective->algo_seen);
    EXPECT_EQ(nvls.cost.collective->wire_bytes_per_rank, 4718592u);
    EXPECT_EQ(nvls.cost.collective->steps, 2u);
    EXPECT_EQ(nvls.shape, "in=1048576 out=1048576 ranks=8 NVLS");  // its own record beside ring calls
    const OpCost tree = algo("ncclKernel_AllReduce_TREE_LL_Sum_float(ncclWorkElem)");
    EXPECT_EQ(tree.cost.collective->algo, bwacct::CollectiveAlgo::tree);
    EXPECT_EQ(tree.cost.collective->steps, 6u);
    // Words only: "NVLSX" or a lower-case "tree" inside another word are no algorithm.
    EXPECT_EQ(algo("ncclDevKernel_AllReduce_NVLSX").cost.collective->algo, bwacct::CollectiveAlgo::ring);
    EXPECT_EQ(algo("street_kernel").cost.collective->algo, bwacct::CollectiveAlgo::ring);
    // TREE is an allreduce algorithm: an allgather kernel saying TREE stays ring.
    const CollectiveArgs ag{"all_gather", 1024, 8192, 8, "Float"};
    EXPECT_EQ(cost_collective_kernel(ag, "ncclDevKernel_AllGather_TREE_LL")->cost.collective->algo, bwacct::CollectiveAlgo::ring);
    // Symmetric memory's multimem all-reduce (NVSwitch multicast and in-switch reduction) is NVLS:
    // bf16 [2557440] over 8 ranks, S = 5,114,880 B, wire S·9/8 = 5,754,240 B.
    const auto mm = cost_symmetric_collective("symm_mem::multimem_all_reduce_", op_of({{2557440}, {}, {}}, {bf, "", ""}), 8);
    ASSERT_TRUE(mm);
    EXPECT_EQ(mm->cost.collective->algo, bwacct::CollectiveAlgo::nvls);
    EXPECT_EQ(mm->cost.collective->wire_bytes_per_rank, 5754240u);
}

// ProcessGroupNCCL's spellings of one kind name the same collective: the leading "_", the suffixes that say
// how tensors are passed (_coalesced, _oop, _base, _into_tensor, _tensor) and the other "_" do not matter.
TEST(KinetoCost, NcclCollectiveNamesInEveryProcessGroupSpelling) {
    auto kind_of = [](const char* name, std::uint64_t in, std::uint64_t out) {
        GpuActivity k;
        k.collective = CollectiveArgs{name, in, out, 8, "BFloat16"};
        const auto c = cost_collective_kernel(k);
        return c ? c->op : std::string("none");
    };
    EXPECT_EQ(kind_of("allreduce_coalesced", 100, 100), "nccl:allreduce");
    EXPECT_EQ(kind_of("_all_reduce", 100, 100), "nccl:allreduce");
    EXPECT_EQ(kind_of("allgather_into_tensor_coalesced", 100, 800), "nccl:allgather");
    EXPECT_EQ(kind_of("all_gather_into_tensor", 100, 800), "nccl:allgather");
    EXPECT_EQ(kind_of("reduce_scatter_tensor_coalesced", 800, 100), "nccl:reducescatter");
    EXPECT_EQ(kind_of("_broadcast_oop", 100, 100), "nccl:broadcast");
    EXPECT_EQ(kind_of("_reduce_oop", 100, 100), "nccl:reduce");
    EXPECT_EQ(kind_of("all_to_allv", 100, 100), "nccl:alltoall");
    EXPECT_EQ(kind_of("alltoall_base", 100, 100), "nccl:alltoall");
    EXPECT_EQ(kind_of("gather", 100, 800), "none");  // not modelled
    // A coalesced all-gather's metadata counts every tensor: out 800 bf16 elements = 1600 B, the gathered size.
    GpuActivity k;
    k.collective = CollectiveArgs{"allgather_into_tensor_coalesced", 100, 800, 8, "BFloat16"};
    EXPECT_EQ(cost_collective_kernel(k)->cost.collective->size_bytes, 1600u);
}

// Kernels [0,10] and [5,20] overlap on two streams of device 0; [30,35] follows. Busy = union
// = 20 + 5 = 25 µs, span 35, idle 10. The addmm kernel is costed, the others are not. Both kernels
// are compute: their overlap [5,10) is shared equally (kineto_timeline.cpp), so sgemm gets
// 5 + 2.5 = 7.5 and "other" 2.5 + 10 = 12.5.
TEST(KinetoSummary, BusyTimeIsTheUnionAndThePartsAddUp) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5,
       "args":{"External id":1,"Input Dims":[[4,8],[8,2]],"Input type":["float","float"]}},
      {"ph":"X","cat":"kernel","name":"sgemm","ts":0,"dur":10,"args":{"External id":1,"stream":7}},
      {"ph":"X","cat":"kernel","name":"other","ts":5,"dur":15,"args":{"stream":8}},
      {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","ts":30,"dur":5,"args":{"stream":7}}
    ]})";
    const Summary s = summarize(parse_kineto(text, "s.json"));
    EXPECT_DOUBLE_EQ(s.busy_us, 25.0);
    EXPECT_DOUBLE_EQ(s.span_us, 35.0);
    EXPECT_DOUBLE_EQ(s.idle_us, 10.0);
    EXPECT_DOUBLE_EQ(s.kernel_us, 30.0);
    ASSERT_EQ(s.groups.size(), 1u);
    EXPECT_EQ(s.groups[0].what.shape, "M=4 N=2 K=8");
    EXPECT_EQ(s.groups[0].calls, 1u);
    EXPECT_DOUBLE_EQ(s.groups[0].busy_us, 7.5);
    EXPECT_DOUBLE_EQ(s.uncosted_busy_us, 17.5);  // "other" 12.5, memcpy 5
    double parts = 0;
    for (const CategoryTime& c : s.categories)
        parts += c.busy_us;
    EXPECT_DOUBLE_EQ(parts, s.busy_us);
    // "Memcpy HtoD" names its direction (no "bytes" arg: not costed, and says why).
    EXPECT_DOUBLE_EQ(s.categories[static_cast<std::size_t>(Category::memcpy_htod)].busy_us, 5.0);
}

// Shapes whose counts overflow 64 bits are refused with a warning, the kernel left unaccounted.
TEST(KinetoSummary, ShapesTooLargeToCountAreWarnedAboutNotWrapped) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":5,
       "args":{"External id":1,"Input Dims":[[4294967296,4294967296],[4294967296,2]],"Input type":["float","float"]}},
      {"ph":"X","cat":"kernel","name":"sgemm","ts":0,"dur":10,"args":{"External id":1}}
    ]})";
    const Summary s = summarize(parse_kineto(text, "big.json"));
    EXPECT_TRUE(s.groups.empty());
    EXPECT_EQ(s.uncosted_kernels, 1u);
    ASSERT_EQ(s.warnings.size(), 1u);
    EXPECT_NE(s.warnings[0].find("aten::mm"), std::string::npos) << s.warnings[0];
}

}  // namespace
