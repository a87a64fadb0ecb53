// More op formulas of `ingest torch-trace` (issue 12): pointwise ops of mixed types at PyTorch's promoted
// result type; fused SGD and Adagrad from PyTorch's kernel math; aten::index / index_put from their
// index list (a specific reason without it); arange; FlashInfer's attention run ops where their inputs
// force the lengths. Expected numbers are computed by hand in the comments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../src/ingest/kineto_attention.h"
#include "../../src/ingest/kineto_cost_reasons.h"
#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::DType;
using test::bf;
using test::op_of;

CpuOp with_lists(std::vector<std::vector<std::int64_t>> dims, std::vector<TensorListDims> lists, std::vector<std::string> types,
                 std::vector<std::string> concrete = {}) {
    CpuOp o;
    o.dims = InputDims(std::move(dims), std::move(lists));
    o.types = std::move(types);
    o.concrete = std::move(concrete);
    return o;
}

const ElementType kF32{DType::fp32, "fp32", std::nullopt};

// ---- Pointwise ops of mixed types (PyTorch's type promotion).

TEST(KinetoOpsMore, LongMinusIntIsWrittenAsLong) {
    // The SGLang trace's aten::sub(long [15], int [15], alpha 1): int64 − int32 → int64.
    // read 15·8 + 15·4 = 180 B, write 15·8 = 120 B, integer: 0 FLOPs.
    const auto c = cost_cpu_op("aten::sub", op_of({{15}, {15}, {}}, {"long int", "int", "Scalar"}, {"", "", "1"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 180u);
    EXPECT_EQ(c->cost.bytes_written, 120u);
    EXPECT_EQ(c->cost.flops, 0u);
    EXPECT_EQ(c->dtype, "int64,int32->int64");
}

TEST(KinetoOpsMore, IntTensorWithFloatScalarIsFp32) {
    // add(int32 [4, 8], 0.5, alpha 1): a float Scalar over an integer tensor → the default fp32.
    // read 32·4 = 128 B, write 32·4 = 128 B, 32 FLOPs (1 per element).
    const auto c = cost_cpu_op("aten::add", op_of({{4, 8}, {}, {}}, {"int", "Scalar", "Scalar"}, {"", "0.5", "1"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 128u);
    EXPECT_EQ(c->cost.bytes_written, 128u);
    EXPECT_EQ(c->cost.flops, 32u);
    EXPECT_EQ(c->dtype, "int32->fp32");
    // An integer Scalar keeps the integer type: read 128 B, write 128 B, 0 FLOPs.
    const auto i = cost_cpu_op("aten::add", op_of({{4, 8}, {}, {}}, {"int", "Scalar", "Scalar"}, {"", "3", "1"}), "");
    ASSERT_TRUE(i);
    EXPECT_EQ(i->cost.bytes_written, 128u);
    EXPECT_EQ(i->cost.flops, 0u);
}

TEST(KinetoOpsMore, Bf16TimesFp32IsFp32) {
    // mul(bf16 [4, 8], fp32 [4, 8]) → fp32: read 32·2 + 32·4 = 192 B, write 32·4 = 128 B, 32 FLOPs.
    const auto c = cost_cpu_op("aten::mul", op_of({{4, 8}, {4, 8}}, {bf, "float"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 192u);
    EXPECT_EQ(c->cost.bytes_written, 128u);
    EXPECT_EQ(c->cost.flops, 32u);
    // In place, the result is self's type: add_(bf16 [10], fp32 [10]) reads 10·2 + 10·4 = 60 B, writes 10·2 = 20 B.
    const auto ip = cost_cpu_op("aten::add_", op_of({{10}, {10}, {}}, {bf, "float", "Scalar"}, {"", "", "1"}), "");
    ASSERT_TRUE(ip);
    EXPECT_EQ(ip->cost.bytes_read, 60u);
    EXPECT_EQ(ip->cost.bytes_written, 20u);
}

TEST(KinetoOpsMore, ZeroDimOperandOfTheSameCategoryDoesNotPromote) {
    // The vLLM trace's sub(int32 [1], 0-d int64, 1): a 0-d tensor of the same category does not take
    // part → int32. read 1·4 + 8 (the 0-d operand) = 12 B, write 1·4 = 4 B.
    const auto c = cost_cpu_op("aten::sub", op_of({{1}, {}, {}}, {"int", "long int", "Scalar"}, {"", "", "1"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 12u);
    EXPECT_EQ(c->cost.bytes_written, 4u);
}

TEST(KinetoOpsMore, TrueDivisionOfIntegersIsFloat) {
    // div(int64 [10], int64 [10]) without a rounding mode → fp32: read 2·10·8 = 160 B, write 10·4 = 40 B,
    // 10 FLOPs; with rounding_mode "floor" → int64: write 80 B, 0 FLOPs.
    const auto c = cost_cpu_op("aten::div", op_of({{10}, {10}}, {"long int", "long int"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 160u);
    EXPECT_EQ(c->cost.bytes_written, 40u);
    EXPECT_EQ(c->cost.flops, 10u);
    const auto f = cost_cpu_op("aten::div", op_of({{10}, {10}, {}}, {"long int", "long int", "str"}, {"", "", "floor"}), "");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.bytes_written, 80u);
    EXPECT_EQ(f->cost.flops, 0u);
}

TEST(KinetoOpsMore, SameTypeOperandsAreCostedAsBefore) {
    // add(bf16 [4, 8], bf16 [4, 8]): read 2·32·2 = 128 B, write 64 B, 32 FLOPs; label bf16.
    const auto c = cost_cpu_op("aten::add", op_of({{4, 8}, {4, 8}, {}}, {bf, bf, "Scalar"}, {"", "", "1"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 128u);
    EXPECT_EQ(c->cost.bytes_written, 64u);
    EXPECT_EQ(c->cost.flops, 32u);
    EXPECT_EQ(c->dtype, "bf16");
    // fp8 with another float type: PyTorch refuses the promotion; so does the formula.
    EXPECT_FALSE(cost_cpu_op("aten::add", op_of({{4}, {4}}, {"c10::Float8_e4m3fn", bf}), ""));
}

// ---- Fused SGD and Adagrad.

const std::string kSgdFp32 =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<3>, at::native::(anonymous namespace)::FusedSgdMathFunctor<float, 3>, double, double>";

// _fused_sgd_(params, grads, momentum_buffer_list, weight_decay, momentum, lr, dampening, nesterov,
// maximize, is_first_step, grad_scale, found_inf) over fp32 [4, 8] and [16]: 48 parameters.
CpuOp sgd(bool momentum, const std::string& wd, const std::string& nesterov, const std::string& first,
          const std::string& grad_scale) {
    const std::vector<std::vector<std::int64_t>> shapes{{4, 8}, {16}};
    std::vector<TensorListDims> lists{tensor_list_dims(0, shapes), tensor_list_dims(1, shapes)};
    if (momentum)
        lists.push_back(tensor_list_dims(2, shapes));
    return with_lists({{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}, std::move(lists),
                      {"TensorList", "TensorList", "TensorList", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar",
                       "Scalar", grad_scale, ""},
                      {"", "", "", wd, momentum ? "0.9" : "0", "0.1", "0", nesterov, "False", first, "", ""});
}

TEST(KinetoOpsMore, FusedSgdWithMomentum) {
    // weight decay and momentum, not the first step: 2 (p −= lr·g) + 2 (wd) + 3 (buf) = 7 FLOPs per
    // parameter → 7·48 = 336. Read params, grads, buffers 3·48·4 = 576 B; write params, buffers 2·48·4 = 384 B.
    const auto c = cost_cpu_op("aten::_fused_sgd_", sgd(true, "0.0001", "False", "False", ""), kSgdFp32);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::optimizer);
    EXPECT_EQ(c->cost.flops, 336u);
    EXPECT_EQ(c->cost.bytes_read, 576u);
    EXPECT_EQ(c->cost.bytes_written, 384u);
    // Nesterov, grad_scale, no weight decay: 2 + 1 + 3 + 2 = 8 per parameter → 384 FLOPs; grads written
    // back unscaled: write 3·48·4 = 576 B.
    const auto n = cost_list_op("aten::_fused_sgd_", sgd(true, "0", "True", "False", "float"), kF32);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->cost.flops, 384u);
    EXPECT_EQ(n->cost.bytes_written, 576u);
    // The first step copies g into the buffer: 2 + 2 = 4 per parameter → 192 FLOPs (the buffer still read and written).
    const auto f = cost_list_op("aten::_fused_sgd_", sgd(true, "0.0001", "False", "True", ""), kF32);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.flops, 192u);
    EXPECT_EQ(f->cost.bytes_read, 576u);
}

TEST(KinetoOpsMore, FusedSgdWithoutMomentum) {
    // momentum 0, buffers []: 2 FLOPs per parameter → 96; read params + grads 2·48·4 = 384 B, write 192 B.
    const auto c = cost_list_op("aten::_fused_sgd_", sgd(false, "0", "False", "False", ""), kF32);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 96u);
    EXPECT_EQ(c->cost.bytes_read, 384u);
    EXPECT_EQ(c->cost.bytes_written, 192u);
}

TEST(KinetoOpsMore, FusedAdagrad) {
    // _fused_adagrad_(params, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps, maximize,
    // grad_scale, found_inf) over one fp32 [10] parameter: 7 FLOPs per parameter → 70; read params,
    // grads, state_sums 3·10·4 + the fp32 step 4 = 124 B; write params, state_sums 2·10·4 = 80 B.
    const std::vector<std::vector<std::int64_t>> p{{10}};
    const auto op = [&](const std::string& wd, const std::string& maximize) {
        return with_lists(
            {{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}},
            {tensor_list_dims(0, p), tensor_list_dims(1, p), tensor_list_dims(2, p),
             tensor_list_dims(3, std::vector<std::vector<std::int64_t>>{std::vector<std::int64_t>{}})},
            {"TensorList", "TensorList", "TensorList", "TensorList", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", ""},
            {"", "", "", "", "0.01", "0", wd, "1e-10", maximize, "", ""});
    };
    const auto c = cost_list_op("aten::_fused_adagrad_", op("0", "False"), kF32);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 70u);
    EXPECT_EQ(c->cost.bytes_read, 124u);
    EXPECT_EQ(c->cost.bytes_written, 80u);
    // Weight decay (+2) and maximize (+1): 10 per parameter → 100 FLOPs.
    const auto w = cost_list_op("aten::_fused_adagrad_", op("0.01", "True"), kF32);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->cost.flops, 100u);
}

// ---- aten::index / index_put.

TEST(KinetoOpsMore, IndexFromItsIndexList) {
    // index(bf16 [100, 64], [int64 [15]]): 15·64 = 960 elements gathered. Read 960·2 + 15·8 = 2040 B,
    // write 960·2 = 1920 B.
    const auto one = with_lists({{100, 64}, {}}, {tensor_list_dims(1, {{15}})}, {bf, "TensorList"});
    const auto c = cost_cpu_op("aten::index", one, "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::indexing);
    EXPECT_EQ(c->cost.bytes_read, 2040u);
    EXPECT_EQ(c->cost.bytes_written, 1920u);
    // Two index tensors [5] and [5] over [10, 20, 64]: 5·64 = 320 elements; read 640 + 2·5·8 = 720 B, write 640 B.
    const auto two = with_lists({{10, 20, 64}, {}}, {tensor_list_dims(1, {{5}, {5}})}, {bf, "TensorList"});
    const auto t = cost_cpu_op("aten::index", two, "");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->cost.bytes_read, 720u);
    EXPECT_EQ(t->cost.bytes_written, 640u);
}

TEST(KinetoOpsMore, SplitWithSizesCopyReadsSelfAndWritesItsParts) {
    // split_with_sizes_copy(bf16 [8, 96], [32, 64], dim 1, out=[[8, 32], [8, 64]]) (FSDP2's copy-out): 768 elements
    // read, 768·2 = 1536 B, and as many written; the out list spelled out or not ([] past 30 tensors).
    const auto spelled = with_lists({{8, 96}, {}, {}, {}}, {tensor_list_dims(3, {{8, 32}, {8, 64}})},
                                    {bf, "ScalarList", "Scalar", "TensorList"}, {"", "[32, 64]", "1", ""});
    const auto c = cost_cpu_op("aten::split_with_sizes_copy", spelled, "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::elementwise);
    EXPECT_EQ(c->cost.bytes_read, 1536u);
    EXPECT_EQ(c->cost.bytes_written, 1536u);
    EXPECT_EQ(c->cost.flops, 0u);
    const auto unspelled =
        with_lists({{8, 96}, {}, {}, {}}, {}, {bf, "ScalarList", "Scalar", "TensorList"}, {"", "[32, 64]", "1", ""});
    EXPECT_EQ(cost_cpu_op("aten::split_with_sizes_copy", unspelled, "")->cost.bytes_written, 1536u);
    // self without shapes: no formula.
    EXPECT_FALSE(cost_cpu_op("aten::split_with_sizes_copy",
                             with_lists({{}, {}, {}, {}}, {}, {bf, "ScalarList", "Scalar", "TensorList"}), ""));
}

TEST(KinetoOpsMore, IndexPutFromItsIndexList) {
    // index_put_(bf16 [100, 64], [int64 [15]], values bf16 [15, 64], accumulate): 960 positions written
    // (1920 B); read values 1920 + indices 120 = 2040 B; with accumulate also the 1920 B written to,
    // 960 FLOPs.
    const auto op = [](const std::string& acc) {
        return with_lists({{100, 64}, {}, {15, 64}, {}}, {tensor_list_dims(1, {{15}})}, {bf, "TensorList", bf, "Scalar"},
                          {"", "", "", acc});
    };
    const auto c = cost_cpu_op("aten::index_put_", op("False"), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 2040u);
    EXPECT_EQ(c->cost.bytes_written, 1920u);
    EXPECT_EQ(c->cost.flops, 0u);
    const auto a = cost_cpu_op("aten::_index_put_impl_", op("True"), "");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->cost.bytes_read, 3960u);
    EXPECT_EQ(a->cost.flops, 960u);
}

TEST(KinetoOpsMore, IndexWithoutItsListSaysWhy) {
    // The SGLang and vLLM traces: Kineto writes the Tensor?[] indices as "" with [].
    const auto op = op_of({{15360, 4096}, {}}, {bf, ""}, {"", ""});
    EXPECT_FALSE(cost_cpu_op("aten::index", op, ""));
    EXPECT_EQ(indexing_uncosted_reason("aten::index", op),
              "indexed shape of aten::index not in trace: its Tensor?[] index list is written without shapes in the trace");
    // An index shaped like self's leading dims may be a bool mask: refused, with the reason.
    const auto mask = with_lists({{100, 64}, {}}, {tensor_list_dims(1, {{100}})}, {bf, "TensorList"});
    EXPECT_FALSE(cost_cpu_op("aten::index", mask, ""));
    EXPECT_NE(indexing_uncosted_reason("aten::index", mask).find("bool mask"), std::string::npos);
    EXPECT_EQ(indexing_uncosted_reason("aten::index_select", op), "");
}

// ---- arange.

TEST(KinetoOpsMore, Arange) {
    // arange.start(223, 238, dtype 4 = int64, layout, device, pin_memory): 238 − 223 = 15 elements, 15·8 = 120 B.
    const auto s = cost_cpu_op(
        "aten::arange",
        op_of({{}, {}, {}, {}, {}, {}}, {"Scalar", "Scalar", "Scalar", "", "", "Scalar"}, {"223", "238", "4", "", "", "False"}),
        "");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->cost.bytes_written, 120u);
    EXPECT_EQ(s->cost.bytes_read, 0u);
    // arange.start_out(223, 238, 1, out int64): 15·8 = 120 B.
    const auto o = cost_cpu_op("aten::arange",
                               op_of({{}, {}, {}, {0}}, {"Scalar", "Scalar", "Scalar", "long int"}, {"223", "238", "1", ""}), "");
    ASSERT_TRUE(o);
    EXPECT_EQ(o->cost.bytes_written, 120u);
    // arange(10.5) with dtype None: a float bound → fp32, ceil(10.5) = 11 elements, 44 B.
    const auto f =
        cost_cpu_op("aten::arange", op_of({{}, {}, {}, {}, {}}, {"Scalar", "", "", "", ""}, {"10.5", "", "", "", ""}), "");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.bytes_written, 44u);
}

// ---- FlashInfer.

const std::string kPaged = "flashinfer::batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16_head_dim_qk_128_paged_run";
const std::string kRagged = "flashinfer::batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16_head_dim_qk_128_ragged_run";

// paged_run(float_ws, int_ws, plan_info, q, k_cache, v_cache, qo_indptr, kv_indptr, kv_indices,
// last_page_len, o, lse, mask_mode, layout, window_left, …)
CpuOp paged(std::int64_t tokens, std::int64_t seqs, std::int64_t page, std::int64_t pages_used, const std::string& mask) {
    return op_of({{1 << 20},
                  {1 << 16},
                  {},
                  {tokens, 32, 128},
                  {1000, page, 8, 128},
                  {1000, page, 8, 128},
                  {seqs + 1},
                  {seqs + 1},
                  {pages_used},
                  {seqs},
                  {tokens, 32, 128},
                  {},
                  {},
                  {},
                  {}},
                 {"unsigned char", "unsigned char", "GenericList", bf, bf, bf, "int", "int", "int", "int", bf, "", "Scalar",
                  "Scalar", "Scalar"},
                 {"", "", "", "", "", "", "", "", "", "", "", "", mask, "0", "-1"});
}

TEST(KinetoOpsMore, FlashInferPagedDecodeWithPageSizeOne) {
    // 8 sequences, 8 queries (a decode), page size 1, 2052 pages used: Σkv = 2052. FLOPs 4·H·d·Σkv =
    // 4·32·128·2052 = 33,619,968. Bytes: Q 8·32·128·2 = 65,536 and K, V 2052·8·128·2 = 4,202,496 each
    // read (8,470,528); O 65,536 written.
    const VarlenAttention v = varlen_attention(kPaged, paged(8, 8, 1, 2052, "1"));
    ASSERT_TRUE(v.recognised);
    ASSERT_TRUE(v.cost) << v.why;
    EXPECT_EQ(v.cost->category, Category::attention);
    EXPECT_EQ(v.cost->cost.flops, 33619968u);
    EXPECT_EQ(v.cost->cost.bytes_read, 8470528u);
    EXPECT_EQ(v.cost->cost.bytes_written, 65536u);
    // The same through the op dispatcher.
    const auto c = cost_cpu_op(kPaged, paged(8, 8, 1, 2052, "1"), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 33619968u);
}

TEST(KinetoOpsMore, FlashInferRefusesWhatTheTraceLacks) {
    // A prefill of 64 tokens in 4 sequences: the split is qo_indptr's values.
    EXPECT_EQ(attention_uncosted_reason(kPaged, paged(64, 4, 1, 300, "1")),
              "per-sequence query lengths of " + kPaged + " are qo_indptr values: 64 query tokens in 4 sequences");
    // Page size 16: the last page's fill is a value.
    EXPECT_NE(attention_uncosted_reason(kPaged, paged(8, 8, 16, 200, "1")).find("page size 16"), std::string::npos);
    // A custom mask.
    EXPECT_NE(attention_uncosted_reason(kPaged, paged(8, 8, 1, 2052, "2")).find("custom mask"), std::string::npos);
}

TEST(KinetoOpsMore, FlashInferRaggedOneSequence) {
    // ragged_run(float_ws, int_ws, plan_info, q [512, 32, 128], k [512, 8, 128], v, qo_indptr [2],
    // kv_indptr [2], o, lse, mask_mode 1, layout 0, window_left -1): one causal sequence of 512.
    // pairs 512·512 − 512·511/2 = 131,328; FLOPs 4·32·131,328·128 = 2,151,677,952.
    const auto op =
        op_of({{1 << 20}, {1 << 16}, {}, {512, 32, 128}, {512, 8, 128}, {512, 8, 128}, {2}, {2}, {512, 32, 128}, {}, {}, {}, {}},
              {"unsigned char", "unsigned char", "GenericList", bf, bf, bf, "int", "int", bf, "", "Scalar", "Scalar", "Scalar"},
              {"", "", "", "", "", "", "", "", "", "", "1", "0", "-1"});
    const auto c = cost_cpu_op(kRagged, op, "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 2151677952u);
    // A sliding window: refused.
    auto w = op;
    w.concrete = std::vector<std::string>{"", "", "", "", "", "", "", "", "", "", "1", "0", "127"};
    EXPECT_NE(attention_uncosted_reason(kRagged, w).find("sliding window 127"), std::string::npos);
}

// ---- Training and vision ops.

TEST(KinetoOpsMore, DropoutForwardAndBackward) {
    // native_dropout(bf16 [8, 128], 0.1, True): read 1024·2 = 2048 B; write output 2048 + bool mask 1024
    // = 3072 B; 2 FLOPs per element = 2048.
    const auto f =
        cost_cpu_op("aten::native_dropout", op_of({{8, 128}, {}, {}}, {bf, "Scalar", "Scalar"}, {"", "0.1", "True"}), "");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.bytes_read, 2048u);
    EXPECT_EQ(f->cost.bytes_written, 3072u);
    EXPECT_EQ(f->cost.flops, 2048u);
    // native_dropout_backward(grad bf16 [8, 128], mask bool [8, 128], scale): read 2048 + 1024 = 3072 B, write 2048 B.
    const auto b = cost_cpu_op("aten::native_dropout_backward",
                               op_of({{8, 128}, {8, 128}, {}}, {bf, "bool", "Scalar"}, {"", "", "1.11"}), "");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->cost.bytes_read, 3072u);
    EXPECT_EQ(b->cost.bytes_written, 2048u);
    EXPECT_EQ(b->cost.flops, 2048u);
}

TEST(KinetoOpsMore, AdaptiveAvgPoolBackward) {
    // (grad_output fp32 [10, 512, 1, 1], self fp32 [10, 512, 7, 7]): read 5120·4 = 20,480 B; write
    // 10·512·49 = 250,880 elements · 4 = 1,003,520 B; 250,880 FLOPs.
    const auto c =
        cost_cpu_op("aten::_adaptive_avg_pool2d_backward", op_of({{10, 512, 1, 1}, {10, 512, 7, 7}}, {"float", "float"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 20480u);
    EXPECT_EQ(c->cost.bytes_written, 1003520u);
    EXPECT_EQ(c->cost.flops, 250880u);
}

TEST(KinetoOpsMore, PadRepeatUpsampleFlip) {
    // constant_pad_nd(bf16 [2, 3, 8, 8], [1, 1, 2, 2]): last dim 8+1+1 = 10, the one before 8+2+2 = 12 →
    // [2, 3, 12, 10] = 720 elements: read 384·2 = 768 B, write 1440 B.
    const auto p = cost_cpu_op("aten::constant_pad_nd",
                               op_of({{2, 3, 8, 8}, {}, {}}, {bf, "ScalarList", "Scalar"}, {"", "[1, 1, 2, 2]", "0"}), "");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->cost.bytes_read, 768u);
    EXPECT_EQ(p->cost.bytes_written, 1440u);
    // repeat(fp32 [3, 4], [2, 1, 2]) → [2, 3, 8] = 48 elements: read 48 B, write 192 B.
    const auto r = cost_cpu_op("aten::repeat", op_of({{3, 4}, {}}, {"float", "ScalarList"}, {"", "[2, 1, 2]"}), "");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->cost.bytes_read, 48u);
    EXPECT_EQ(r->cost.bytes_written, 192u);
    // upsample_bilinear2d(bf16 [1, 4, 8, 8], [16, 16], False): 4·256 = 1024 outputs, 2048 B written,
    // 9 FLOPs each = 9216; read 256·2 = 512 B. Nearest: 0 FLOPs.
    const auto u = cost_cpu_op("aten::upsample_bilinear2d",
                               op_of({{1, 4, 8, 8}, {}, {}}, {bf, "ScalarList", "Scalar"}, {"", "[16, 16]", "False"}), "");
    ASSERT_TRUE(u);
    EXPECT_EQ(u->cost.bytes_read, 512u);
    EXPECT_EQ(u->cost.bytes_written, 2048u);
    EXPECT_EQ(u->cost.flops, 9216u);
    const auto n = cost_cpu_op("aten::upsample_nearest2d", op_of({{1, 4, 8, 8}, {}}, {bf, "ScalarList"}, {"", "[16, 16]"}), "");
    ASSERT_TRUE(n);
    EXPECT_EQ(n->cost.flops, 0u);
    // upsample_nearest2d_backward(grad bf16 [1, 4, 16, 16], output_size, input_size [1, 4, 8, 8]):
    // read 1024·2 = 2048 B, write 256·2 = 512 B, 1 FLOP per grad_output element = 1024.
    const auto nb =
        cost_cpu_op("aten::upsample_nearest2d_backward",
                    op_of({{1, 4, 16, 16}, {}, {}}, {bf, "ScalarList", "ScalarList"}, {"", "[16, 16]", "[1, 4, 8, 8]"}), "");
    ASSERT_TRUE(nb);
    EXPECT_EQ(nb->cost.bytes_read, 2048u);
    EXPECT_EQ(nb->cost.bytes_written, 512u);
    EXPECT_EQ(nb->cost.flops, 1024u);
    // flip(bf16 [4, 8], [0]): read and write 64 B.
    const auto f = cost_cpu_op("aten::flip", op_of({{4, 8}, {}}, {bf, "ScalarList"}, {"", "[0]"}), "");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.bytes_written, 64u);
}

TEST(KinetoOpsMore, MoreActivationsAndDataDependentOutputs) {
    // hardswish(bf16 [100]): read 200 B, write 200 B, 5 FLOPs per element = 500.
    const auto h = cost_cpu_op("aten::hardswish", op_of({{100}}, {bf}), "");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->cost.flops, 500u);
    EXPECT_EQ(h->cost.bytes_read + h->cost.bytes_written, 400u);
    // nonzero: its output size is a count of values.
    const auto nz = op_of({{100}}, {"bool"});
    EXPECT_FALSE(cost_cpu_op("aten::nonzero", nz, ""));
    EXPECT_EQ(indexing_uncosted_reason("aten::nonzero", nz),
              "output size of aten::nonzero is a count of its input's values, not in trace");
}

// ---- GEMM variants and fills.

TEST(KinetoOpsMore, ScaledMmAndMv) {
    // _scaled_mm(fp8 [128, 64], fp8 [64, 256], scale_a 0-d fp32, scale_b 0-d fp32, bias None, scale_result
    // None, out_dtype 15 = bf16, use_fast_accum): FLOPs 2·128·256·64 = 4,194,304; read A 128·64 = 8,192 B
    // + B 64·256 = 16,384 B + scales 2·4 = 8 B = 24,584 B; write C 128·256·2 = 65,536 B.
    const auto c = cost_cpu_op("aten::_scaled_mm",
                               op_of({{128, 64}, {64, 256}, {}, {}, {}, {}, {}, {}},
                                     {"c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "Scalar", "Scalar"},
                                     {"", "", "", "", "", "", "15", "False"}),
                               "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::gemm);
    EXPECT_EQ(c->cost.flops, 4194304u);
    EXPECT_EQ(c->cost.bytes_read, 24584u);
    EXPECT_EQ(c->cost.bytes_written, 65536u);
    // mv(bf16 [1024, 512], bf16 [512]): FLOPs 2·1024·512 = 1,048,576; read 1024·512·2 + 512·2 = 1,049,600 B,
    // write 1024·2 = 2,048 B.
    const auto v = cost_cpu_op("aten::mv", op_of({{1024, 512}, {512}}, {bf, bf}), "");
    ASSERT_TRUE(v);
    EXPECT_EQ(v->cost.flops, 1048576u);
    EXPECT_EQ(v->cost.bytes_read, 1049600u);
    EXPECT_EQ(v->cost.bytes_written, 2048u);
}

TEST(KinetoOpsMore, GroupedMmOfMoe) {
    // _grouped_mm(bf16 [512, 256] tokens, bf16 [8, 256, 128] expert weights, offs int32 [8]): FLOPs
    // 2·512·256·128 = 33,554,432; read tokens 512·256·2 = 262,144 + weights 8·256·128·2 = 524,288 + offs
    // 8·4 = 32 → 786,464 B; write 512·128·2 = 131,072 B.
    const auto c = cost_cpu_op("aten::_grouped_mm", op_of({{512, 256}, {8, 256, 128}, {8}, {}, {}}, {bf, bf, "int", "", ""}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 33554432u);
    EXPECT_EQ(c->cost.bytes_read, 786464u);
    EXPECT_EQ(c->cost.bytes_written, 131072u);
    // The weight gradient form: [128, 512] · [512, 256] with offs [8]: FLOPs 2·128·256·512 = 33,554,432;
    // read 128·512·2 + 512·256·2 + 32 = 131,072 + 262,144 + 32 = 393,248 B; write 8·128·256·2 = 524,288 B.
    const auto w = cost_cpu_op("aten::_grouped_mm", op_of({{128, 512}, {512, 256}, {8}, {}, {}}, {bf, bf, "int", "", ""}), "");
    ASSERT_TRUE(w);
    EXPECT_EQ(w->cost.flops, 33554432u);
    EXPECT_EQ(w->cost.bytes_read, 393248u);
    EXPECT_EQ(w->cost.bytes_written, 524288u);
    // _scaled_grouped_mm(fp8 [512, 256], fp8 [8, 256, 128] (its transpose's layout is the same bytes),
    // scale_a fp32 [512], scale_b fp32 [8, 128], offs int32 [8], bias None, scale_result None, out_dtype 15 bf16):
    // FLOPs 33,554,432; read 512·256 + 8·256·128 + scales (512 + 1024)·4 + offs 32 = 131,072 + 262,144 + 6,144 + 32
    // = 399,392 B; write 512·128·2 = 131,072 B.
    const auto f =
        cost_cpu_op("aten::_scaled_grouped_mm",
                    op_of({{512, 256}, {8, 256, 128}, {512}, {8, 128}, {8}, {}, {}, {}, {}},
                          {"c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "int", "", "", "Scalar", "Scalar"},
                          {"", "", "", "", "", "", "", "15", "True"}),
                    "");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.flops, 33554432u);
    EXPECT_EQ(f->cost.bytes_read, 399392u);
    EXPECT_EQ(f->cost.bytes_written, 131072u);
}

TEST(KinetoOpsMore, FillOfAZeroDimTensorAndRandomFills) {
    // The ResNet trace's fill_(bf16 0-d, 1): one element written, 2 B.
    const auto f = cost_cpu_op("aten::fill_", op_of({{}, {}}, {bf, "Scalar"}, {"", "1"}), "");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.bytes_written, 2u);
    EXPECT_EQ(f->cost.bytes_read, 0u);
    // exponential_(fp32 [32, 1000]) (a sampler's draw): 32,000·4 = 128,000 B written.
    const auto e = cost_cpu_op("aten::exponential_", op_of({{32, 1000}, {}, {}}, {"float", "Scalar", ""}, {"", "1", ""}), "");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->cost.bytes_written, 128000u);
}

// ---- A previously uncosted real op is costed now (the shipped SGLang trace).

TEST(KinetoOpsMore, SglangSubAndArangeAreCostedIndexSaysWhy) {
    const Trace t =
        read_kineto(std::string(BWACCT_TEST_DATA) + "/kineto/kineto_mi300x_sglang_qwen3_8b_prefilldecode_tracelens.json.gz");
    const Summary s = summarize(t);
    bool index_reason = false;
    for (const CategoryTime& c : s.categories)
        for (const auto& [why, us] : c.uncosted_reasons) {
            EXPECT_EQ(why.find("aten::sub"), std::string::npos) << why;
            EXPECT_EQ(why.find("aten::arange"), std::string::npos) << why;
            EXPECT_EQ(why, why.find("aten::index") == std::string::npos
                               ? why
                               : std::string("indexed shape of aten::index not in trace: its Tensor?[] index list is written "
                                             "without shapes in the trace"));
            index_reason = index_reason || why.find("aten::index") != std::string::npos;
        }
    EXPECT_TRUE(index_reason);
}

// DLRM-style recommendation traces: embedding_bag (docs/formulas.md, "Data movement, indexing and
// reductions"). weight fp32 [1000, 64], indices int64 [512], offsets int64 [8], mode 0 (sum), no
// per-sample weights, include_last_offset False: B = 8 bags.
//   read  512·64·4 (gathered rows) + 512·8 (indices) + 8·8 (offsets) = 131072 + 4096 + 64 = 135232 B
//   write 8·64·4 = 2048 B; FLOPs 512·64 = 32768 (one add per gathered element)
TEST(KinetoOpsMore, EmbeddingBagFromItsIndicesAndOffsets) {
    const std::vector<std::string> types{"float", "long int", "long int", "Scalar", "Scalar", "Scalar", "", "Scalar", "Scalar"};
    const auto sum = cost_cpu_op(
        "aten::_embedding_bag",
        op_of({{1000, 64}, {512}, {8}, {}, {}, {}, {}, {}, {}}, types, {"", "", "", "False", "0", "False", "", "False", "-1"}),
        "");
    ASSERT_TRUE(sum);
    EXPECT_EQ(sum->cost.bytes_read, 135232u);
    EXPECT_EQ(sum->cost.bytes_written, 2048u);
    EXPECT_EQ(sum->cost.flops, 32768u);
    EXPECT_EQ(sum->category, Category::indexing);
    // mean, include_last_offset True (offsets [9] → 8 bags), per-sample weights fp32 [512]:
    //   read 135232 + 8 (the 9th offset) + 512·4 = 137288 B; write 2048 B
    //   FLOPs 512·64·2 (multiply + add) + 8·64 (divides) = 65536 + 512 = 66048
    const std::vector<std::string> wtypes{"float",  "long int", "long int", "Scalar", "Scalar",
                                          "Scalar", "float",    "Scalar",   "Scalar"};
    const auto mean = cost_cpu_op(
        "aten::_embedding_bag",
        op_of({{1000, 64}, {512}, {9}, {}, {}, {}, {512}, {}, {}}, wtypes, {"", "", "", "False", "1", "False", "", "True", "-1"}),
        "");
    ASSERT_TRUE(mean);
    EXPECT_EQ(mean->cost.bytes_read, 137288u);
    EXPECT_EQ(mean->cost.bytes_written, 2048u);
    EXPECT_EQ(mean->cost.flops, 66048u);
    // 2-D indices [4, 16] without offsets: 4 bags of 16, max mode. read 64·64·4 + 64·8 = 16384 + 512 = 16896 B,
    // write 4·64·4 = 1024 B, FLOPs 64·64 = 4096 compares.
    const auto max = cost_cpu_op(
        "aten::embedding_bag",
        op_of({{1000, 64}, {4, 16}, {}, {}, {}, {}, {}, {}, {}}, types, {"", "", "", "False", "2", "False", "", "False", "-1"}),
        "");
    ASSERT_TRUE(max);
    EXPECT_EQ(max->cost.bytes_read, 16896u);
    EXPECT_EQ(max->cost.bytes_written, 1024u);
    EXPECT_EQ(max->cost.flops, 4096u);
}

// Outputs sized by the data: repeat_interleave with a repeats tensor, bincount. The int-repeats form
// (repeats a number) gets no such reason.
TEST(KinetoOpsMore, RepeatInterleaveAndBincountSayTheirOutputIsData) {
    const auto ri = op_of({{8}, {}}, {"long int", ""});
    EXPECT_EQ(indexing_uncosted_reason("aten::repeat_interleave", ri),
              "output size of aten::repeat_interleave is the sum of its repeats' values, not in trace");
    EXPECT_EQ(indexing_uncosted_reason("aten::repeat_interleave", op_of({{8, 4}, {}, {}, {}}, {"float", "Scalar", "Scalar", ""})),
              "");
    EXPECT_EQ(indexing_uncosted_reason("aten::bincount", op_of({{8192}, {}, {}}, {"long int", "", "Scalar"})),
              "output size of aten::bincount is its input's largest value + 1, not in trace");
}

// grid_sampler_2d(fp32 input [2, 3, 32, 32], grid [2, 16, 16, 2], bilinear, zeros, align_corners False):
//   output 2·3·16·16 = 1536 elements; read 2·3·32·32·4 + 2·16·16·2·4 = 24576 + 4096 = 28672 B,
//   write 1536·4 = 6144 B, FLOPs 1536·9 = 13824 (bilinear interpolation, as upsample_bilinear2d).
// im2col(fp32 [1, 3, 8, 8], k [3, 3], dilation [1, 1], padding [1, 1], stride [1, 1]):
//   Ho = Wo = (8 + 2 − 2 − 1)/1 + 1 = 8, L = 64, output 1·27·64 = 1728 elements: read 192·4 = 768 B,
//   write 1728·4 = 6912 B, 0 FLOPs. col2im of those columns back to [8, 8]: read 6912 B, write 768 B,
//   1728 FLOPs (one add per column element).
TEST(KinetoOpsMore, GridSamplerAndIm2col) {
    const auto gs = cost_cpu_op("aten::grid_sampler_2d",
                                op_of({{2, 3, 32, 32}, {2, 16, 16, 2}, {}, {}, {}},
                                      {"float", "float", "Scalar", "Scalar", "Scalar"}, {"", "", "0", "0", "False"}),
                                "");
    ASSERT_TRUE(gs);
    EXPECT_EQ(gs->cost.bytes_read, 28672u);
    EXPECT_EQ(gs->cost.bytes_written, 6144u);
    EXPECT_EQ(gs->cost.flops, 13824u);
    EXPECT_EQ(gs->category, Category::indexing);
    const std::vector<std::string> lists{"ScalarList", "ScalarList", "ScalarList", "ScalarList"};
    const auto i2c = cost_cpu_op("aten::im2col",
                                 op_of({{1, 3, 8, 8}, {}, {}, {}, {}}, {"float", lists[0], lists[1], lists[2], lists[3]},
                                       {"", "[3, 3]", "[1, 1]", "[1, 1]", "[1, 1]"}),
                                 "");
    ASSERT_TRUE(i2c);
    EXPECT_EQ(i2c->cost.bytes_read, 768u);
    EXPECT_EQ(i2c->cost.bytes_written, 6912u);
    EXPECT_EQ(i2c->cost.flops, 0u);
    const auto c2i =
        cost_cpu_op("aten::col2im",
                    op_of({{1, 27, 64}, {}, {}, {}, {}, {}}, {"float", "ScalarList", lists[0], lists[1], lists[2], lists[3]},
                          {"", "[8, 8]", "[3, 3]", "[1, 1]", "[1, 1]", "[1, 1]"}),
                    "");
    ASSERT_TRUE(c2i);
    EXPECT_EQ(c2i->cost.bytes_read, 6912u);
    EXPECT_EQ(c2i->cost.bytes_written, 768u);
    EXPECT_EQ(c2i->cost.flops, 1728u);
    EXPECT_EQ(c2i->category, Category::conv);
}

// Ops that launch kernels and had no formula: composite dropout in training, glu, dot, multinomial,
// searchsorted / bucketize, pixel and channel shuffles, repeat_interleave by an int.
TEST(KinetoOpsMore, DropoutGluDotSamplingSearchAndShuffles) {
    // dropout(bf16 [8, 128], 0.1, True) launching its kernels itself (ATen's _dropout_impl): n = 1024, its
    // noise 1024 bf16 elements; read 2048 B, write 2048 (output) + 2048 (noise) = 4096 B; FLOPs n + 2·n =
    // 3072; in eval (False) no formula (it launches nothing).
    const auto d = cost_cpu_op("aten::dropout", op_of({{8, 128}, {}, {}}, {bf, "Scalar", "Scalar"}, {"", "0.1", "True"}), "");
    ASSERT_TRUE(d);
    EXPECT_EQ(d->cost.bytes_read, 2048u);
    EXPECT_EQ(d->cost.bytes_written, 4096u);
    EXPECT_EQ(d->cost.flops, 3072u);
    EXPECT_FALSE(cost_cpu_op("aten::dropout", op_of({{8, 128}, {}, {}}, {bf, "Scalar", "Scalar"}, {"", "0.1", "False"}), ""));
    // an older trace without Concrete Inputs: a dropout that launched a kernel was training
    EXPECT_TRUE(cost_cpu_op("aten::dropout", op_of({{8, 128}, {}, {}}, {bf, "Scalar", "Scalar"}), ""));
    // glu(fp32 [8, 1024], -1): read 8192·4 = 32,768 B; write 4096·4 = 16,384 B; 5·4096 = 20,480 FLOPs.
    const auto g = cost_cpu_op("aten::glu", op_of({{8, 1024}, {}}, {"float", "Scalar"}, {"", "-1"}), "");
    ASSERT_TRUE(g);
    EXPECT_EQ(g->cost.bytes_read, 32768u);
    EXPECT_EQ(g->cost.bytes_written, 16384u);
    EXPECT_EQ(g->cost.flops, 20480u);
    // glu over dim 0 of [3, 4]: an odd length cannot be halved: no formula.
    EXPECT_FALSE(cost_cpu_op("aten::glu", op_of({{3, 4}, {}}, {"float", "Scalar"}, {"", "0"}), ""));
    // dot(fp32 [1024], fp32 [1024]): read 2·4096 = 8,192 B; write 4 B; 2·1024 = 2,048 FLOPs.
    const auto dt = cost_cpu_op("aten::dot", op_of({{1024}, {1024}}, {"float", "float"}), "");
    ASSERT_TRUE(dt);
    EXPECT_EQ(dt->cost.bytes_read, 8192u);
    EXPECT_EQ(dt->cost.bytes_written, 4u);
    EXPECT_EQ(dt->cost.flops, 2048u);
    // multinomial(fp32 [8, 1024], 2, False): read 32,768 B; write 8·2 int64 = 128 B; 8192 FLOPs (the scan).
    const auto m = cost_cpu_op("aten::multinomial",
                               op_of({{8, 1024}, {}, {}, {}}, {"float", "Scalar", "Scalar", ""}, {"", "2", "False", ""}), "");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->cost.bytes_read, 32768u);
    EXPECT_EQ(m->cost.bytes_written, 128u);
    EXPECT_EQ(m->cost.flops, 8192u);
    // searchsorted(sorted fp32 [1024], values fp32 [64], out_int32 False, right False): read 4096 + 256 =
    // 4,352 B; write 64 int64 = 512 B; with out_int32 True 64·4 = 256 B.
    const auto ss = cost_cpu_op(
        "aten::searchsorted",
        op_of({{1024}, {64}, {}, {}, {}, {}}, {"float", "float", "Scalar", "Scalar", "", ""}, {"", "", "False", "False", "", ""}),
        "");
    ASSERT_TRUE(ss);
    EXPECT_EQ(ss->cost.bytes_read, 4352u);
    EXPECT_EQ(ss->cost.bytes_written, 512u);
    EXPECT_EQ(ss->cost.flops, 0u);
    // bucketize(values fp32 [64], boundaries fp32 [1024], out_int32 True, right False): write 64·4 = 256 B.
    const auto bk = cost_cpu_op(
        "aten::bucketize", op_of({{64}, {1024}, {}, {}}, {"float", "float", "Scalar", "Scalar"}, {"", "", "True", "False"}), "");
    ASSERT_TRUE(bk);
    EXPECT_EQ(bk->cost.bytes_read, 4352u);
    EXPECT_EQ(bk->cost.bytes_written, 256u);
    // pixel_shuffle(fp32 [2, 16, 8, 8], 2): read and write 2048·4 = 8,192 B, 0 FLOPs.
    const auto ps = cost_cpu_op("aten::pixel_shuffle", op_of({{2, 16, 8, 8}, {}}, {"float", "Scalar"}, {"", "2"}), "");
    ASSERT_TRUE(ps);
    EXPECT_EQ(ps->cost.bytes_read, 8192u);
    EXPECT_EQ(ps->cost.bytes_written, 8192u);
    EXPECT_EQ(ps->category, Category::indexing);
    // repeat_interleave(bf16 [8, 128], 3, 0): read 2048 B, write 3·2048 = 6,144 B; a tensor of repeats: no formula.
    const auto ri = cost_cpu_op("aten::repeat_interleave",
                                op_of({{8, 128}, {}, {}, {}}, {bf, "Scalar", "Scalar", ""}, {"", "3", "0", ""}), "");
    ASSERT_TRUE(ri);
    EXPECT_EQ(ri->cost.bytes_read, 2048u);
    EXPECT_EQ(ri->cost.bytes_written, 6144u);
    EXPECT_FALSE(cost_cpu_op("aten::repeat_interleave",
                             op_of({{8, 128}, {8}, {}, {}}, {bf, "long int", "Scalar", ""}, {"", "", "0", ""}), ""));
}

// histc as the Qwen3-MoE prefill trace records it (tests/data/corpus/torch-trace/h100_bwacct_make_traces_qwen3moe_*):
// histc(int [8192], bins 32, min 0, max 31): read 8192·4 = 32,768 B, write 32·4 = 128 B (the input's type), 8192
// FLOPs; bins 0 or not a number: no formula.
TEST(KinetoOpsMore, HistcReadsItsInputAndWritesItsBins) {
    const auto h =
        cost_cpu_op("aten::histc", op_of({{8192}, {}, {}, {}}, {"int", "Scalar", "Scalar", "Scalar"}, {"", "32", "0", "31"}), "");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->cost.bytes_read, 32768u);
    EXPECT_EQ(h->cost.bytes_written, 128u);
    EXPECT_EQ(h->cost.flops, 8192u);
    EXPECT_EQ(h->category, Category::reduce);
    EXPECT_FALSE(
        cost_cpu_op("aten::histc", op_of({{8192}, {}, {}, {}}, {"int", "Scalar", "Scalar", "Scalar"}, {"", "0", "0", "31"}), ""));
    EXPECT_FALSE(
        cost_cpu_op("aten::histc", op_of({{8192}, {}, {}, {}}, {"int", "Scalar", "Scalar", "Scalar"}, {"", "", "0", "31"}), ""));
}

// aten::conv2d.padding (PyTorch's padding="valid" / "same"): "valid" is 0; "same" (stride 1) pads d·(k−1)/2 on
// each side, so the output keeps the input's size. x float [8, 64, 32, 32], w [64, 64, 3, 3]:
//   same:  out 32·32; 2·8·64·1024·64·9 = 603,979,776 FLOPs
//   valid: out 30·30; 2·8·64·900·64·9 = 530,841,600 FLOPs
// (the old code refused both: "padding of aten::conv2d not understood").
// A 4x4 kernel under "same" pads 3 in all, 1 before and 2 after: no symmetric padding says it, refused.
TEST(KinetoOpsMore, Conv2dPaddingValidAndSame) {
    const auto conv = [](std::int64_t k, const std::string& padding, const std::string& stride) {
        return op_of({{8, 64, 32, 32}, {64, 64, k, k}, {64}, {}, {}, {}, {}}, {"float", "float", "float", "", "", "", ""},
                     {"", "", "", stride, padding, "[1, 1]", "1"});
    };
    const auto same = cost_cpu_op("aten::conv2d", conv(3, "same", "[1, 1]"));
    ASSERT_TRUE(same);
    EXPECT_EQ(same->cost.flops, 603979776u);
    const auto valid = cost_cpu_op("aten::conv2d", conv(3, "valid", "[1, 1]"));
    ASSERT_TRUE(valid);
    EXPECT_EQ(valid->cost.flops, 530841600u);
    EXPECT_EQ(conv_uncosted_reason("aten::conv2d", conv(3, "same", "[1, 1]")), "");
    for (const auto& [k, stride] : std::vector<std::pair<std::int64_t, std::string>>{{4, "[1, 1]"}, {3, "[2, 2]"}}) {
        EXPECT_FALSE(cost_cpu_op("aten::conv2d", conv(k, "same", stride))) << k << stride;
        EXPECT_TRUE(
            conv_uncosted_reason("aten::conv2d", conv(k, "same", stride)).starts_with("padding of aten::conv2d not understood"))
            << k << stride;
    }
}

}  // namespace

// The composite dropouts' noise is a tensor of the input's type (ATen's _dropout_impl), [N, C, 1, 1] for
// the feature forms; the alpha forms also write its offset b.
TEST(KinetoOpsMore, CompositeDropoutNoiseInTheInputType) {
    // feature_dropout(bf16 [8, 64, 32, 32], 0.1, True): n = 8·64·32·32 = 524,288, noise m = 8·64 = 512.
    // Read 524,288·2 = 1,048,576 B; write 1,048,576 + 512·2 = 1,049,600 B; FLOPs n + 2m = 525,312.
    const auto f =
        cost_cpu_op("aten::feature_dropout", op_of({{8, 64, 32, 32}, {}, {}}, {bf, "Scalar", "Scalar"}, {"", "0.1", "True"}), "");
    ASSERT_TRUE(f);
    EXPECT_EQ(f->cost.bytes_read, 1048576u);
    EXPECT_EQ(f->cost.bytes_written, 1049600u);
    EXPECT_EQ(f->cost.flops, 525312u);
    // alpha_dropout(fp32 [4, 256], 0.2, True): n = m = 1024. Read 4096 B; write 4096 (output) + 2·4096 (noise
    // and b) = 12,288 B; FLOPs n + 2m + n + 3m = 1024 + 2048 + 1024 + 3072 = 7,168.
    const auto a =
        cost_cpu_op("aten::alpha_dropout", op_of({{4, 256}, {}, {}}, {"float", "Scalar", "Scalar"}, {"", "0.2", "True"}), "");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->cost.bytes_read, 4096u);
    EXPECT_EQ(a->cost.bytes_written, 12288u);
    EXPECT_EQ(a->cost.flops, 7168u);
    // feature_alpha_dropout(fp32 [2, 3, 4, 4]): n = 96, m = 6. Write 96·4 + 2·6·4 = 384 + 48 = 432 B;
    // FLOPs 96 + 12 + 96 + 18 = 222. A 1-D input has no channels: no formula (PyTorch refuses it).
    const auto fa = cost_cpu_op("aten::feature_alpha_dropout",
                                op_of({{2, 3, 4, 4}, {}, {}}, {"float", "Scalar", "Scalar"}, {"", "0.5", "True"}), "");
    ASSERT_TRUE(fa);
    EXPECT_EQ(fa->cost.bytes_written, 432u);
    EXPECT_EQ(fa->cost.flops, 222u);
    EXPECT_FALSE(
        cost_cpu_op("aten::feature_dropout", op_of({{16}, {}, {}}, {"float", "Scalar", "Scalar"}, {"", "0.5", "True"}), ""));
}
