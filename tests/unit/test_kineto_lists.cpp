// Tensor-list inputs of Kineto ops: the reader keeps a TensorList input's element shapes (nested
// "Input Dims"), bounded; the formulas of src/ingest/kineto_cost_lists.cpp cost cat/stack, _foreach_*,
// fused Adam and AMP's unscale from them, with the element type from the launched kernel's name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::DType;
using test::bf;

// Kernel names as PyTorch's CUDA/ROCm builds write them (the A100 DDP and MI300X ResNet traces).
const std::string kCat8 =
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<at::native::(anonymous "
    "namespace)::OpaqueType<8u>, unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::OpaqueType<8u>*)";
const std::string kCat2 =
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::(anonymous "
    "namespace)::OpaqueType<2u>, unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::OpaqueType<2u>*)";
const std::string kAddBf16 =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<c10::BFloat16, 2, 2, "
    "0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>)";
const std::string kMulFp32 =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, "
    "std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<1>)";
const std::string kAdamFp32 =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::FusedOptimizerTensorListMetadata<4>, "
    "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double, double>";

const ElementType kF32{DType::fp32, "fp32", std::nullopt};

// A trace with one CPU op (args given) and a kernel, so parse_kineto accepts it.
std::string trace_with(const std::string& name, const std::string& args) {
    return R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": ")" +
           name + R"(", "pid": 1, "tid": 1, "ts": 100, "dur": 20, "args": )" + args + R"(},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 110, "dur": 5, "args": {"device": 0, "stream": 7}}
  ]})";
}

CpuOp with_lists(std::vector<std::vector<std::int64_t>> dims, std::vector<TensorListDims> lists, std::vector<std::string> types,
                 std::vector<std::string> concrete = {}) {
    CpuOp o;
    o.dims = InputDims(std::move(dims), std::move(lists));
    o.types = std::move(types);
    o.concrete = std::move(concrete);
    return o;
}

TEST(KinetoLists, ReaderKeepsNestedInputDims) {
    const Trace t = parse_kineto(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 1, "dur": 2,
     "args": {"External id": 1, "Input Dims": [[[2, 3], [4, 3]], []], "Input type": ["TensorList", "Scalar"],
              "Concrete Inputs": ["", "0"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_add_", "pid": 1, "tid": 1, "ts": 4, "dur": 2,
     "args": {"External id": 2, "Input Dims": [[[64], [128, 64]], [[64], [128, 64]], []],
              "Input type": ["TensorList", "TensorList", "Scalar"], "Concrete Inputs": ["", "", "-0.001"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 7, "dur": 2,
     "args": {"External id": 3, "Input Dims": [[[2, 3], [4, 3]], []], "Input type": ["TensorList", "Scalar"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 10, "dur": 2,
     "args": {"External id": 4, "Input Dims": [[[5]], []], "Input type": ["TensorList", "Scalar"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_sqrt", "pid": 1, "tid": 1, "ts": 13, "dur": 2,
     "args": {"External id": 5, "Input Dims": [[[], []]], "Input type": ["TensorList"]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::_foreach_add_", "pid": 1, "tid": 1, "ts": 16, "dur": 2,
     "args": {"External id": 6, "Input Dims": [[], [], []], "Input type": ["TensorList", "TensorList", "Scalar"]}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 110, "dur": 5, "args": {"device": 0, "stream": 7}}
  ]})",
                                 "lists.json");
    ASSERT_EQ(t.ops.size(), 6u);
    const CpuOp& cat = t.ops[0];
    // One entry per input, as before (a list's entry empty, as any input that is not one tensor).
    ASSERT_EQ(cat.dims.size(), 2u);
    EXPECT_TRUE(cat.dims[0].empty());
    EXPECT_TRUE(cat.dims[1].empty());
    const TensorListDims* l = input_list(cat, 0);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->count, 2u);
    EXPECT_TRUE(l->complete());
    EXPECT_EQ(l->shape(0), (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(l->shape(1), (std::vector<std::int64_t>{4, 3}));
    EXPECT_EQ(input_list(cat, 1), nullptr);

    const CpuOp& add = t.ops[1];
    ASSERT_NE(input_list(add, 0), nullptr);
    ASSERT_NE(input_list(add, 1), nullptr);
    EXPECT_EQ(input_list(add, 1)->shape(1), (std::vector<std::int64_t>{128, 64}));
    EXPECT_EQ(input_list(add, 2), nullptr);

    // Interned with the lists: equal lists share one node; equal plain dims ([[], []]) with other lists do not.
    EXPECT_TRUE(t.ops[0].dims.same(t.ops[2].dims));
    EXPECT_FALSE(t.ops[0].dims.same(t.ops[3].dims));
    EXPECT_EQ(input_list(t.ops[3], 0)->shape(0), (std::vector<std::int64_t>{5}));

    // A list of two 0-dim tensors ([[], []] inside the input) is a list, each tensor of one element.
    const TensorListDims* scalars = input_list(t.ops[4], 0);
    ASSERT_NE(scalars, nullptr);
    EXPECT_EQ(scalars->count, 2u);
    EXPECT_TRUE(scalars->shape(1).empty());

    // Kineto's [] for a list of more than 30 tensors: no shapes, and the op says so.
    EXPECT_EQ(input_list(t.ops[5], 0), nullptr);
    EXPECT_EQ(list_gap_reason("aten::_foreach_add_", t.ops[5], kAddBf16),
              "tensor-list shapes of aten::_foreach_add_ not in trace (Kineto writes a list of more than 30 tensors as [])");
}

TEST(KinetoLists, OpsWithoutListsAreUnaffected) {
    // The op record stays one pointer per list: the tensor lists live in the interned Input Dims node
    // (64 bytes since Input Strides, one more interned pointer, were read).
    static_assert(sizeof(void*) != 8 || sizeof(CpuOp) == 64, "a CpuOp grew");
    const Trace t = parse_kineto(trace_with("aten::addmm", R"({"External id": 7,
        "Input Dims": [[512], [141, 512], [512, 512], [], []],
        "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"],
        "Concrete Inputs": ["", "", "", "1", "1"]})"),
                                 "addmm.json");
    const CpuOp& op = t.ops.at(0);
    EXPECT_TRUE(op.dims.extra().empty());
    EXPECT_EQ(op.dims[1], (std::vector<std::int64_t>{141, 512}));
    EXPECT_EQ(list_gap_reason("aten::addmm", op, ""), "");
    const auto c = cost_cpu_op("aten::addmm", op, kAddBf16);  // a kernel name changes nothing for a non-list op
    ASSERT_TRUE(c);
    // A 141·512·2 = 144384, B 512·512·2 = 524288, bias 512·2 = 1024; C 141·512·2 = 144384.
    EXPECT_EQ(c->cost.bytes_read, 144384u + 524288u + 1024u);
    EXPECT_EQ(c->cost.bytes_written, 144384u);
    EXPECT_FALSE(cost_list_op("aten::addmm", op, kF32));
}

TEST(KinetoLists, HugeOrOddListsAreCutWithACountNeverACrash) {
    // 5000 tensors: the first kMaxListTensors (1024) kept, all 5000 counted; no cost from a partial list.
    std::string dims = "[";
    for (int i = 0; i < 5000; ++i)
        dims += i ? ", [1]" : "[1]";
    dims += "]";
    const Trace t = parse_kineto(
        trace_with("aten::cat", R"({"Input Dims": [)" + dims + R"(, []], "Input type": ["TensorList", "Scalar"]})"), "huge.json");
    const TensorListDims* l = input_list(t.ops.at(0), 0);
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->count, 5000u);
    EXPECT_EQ(l->kept(), kMaxListTensors);
    EXPECT_FALSE(l->complete());
    EXPECT_FALSE(cost_cpu_op("aten::cat", t.ops.at(0), kCat8));
    EXPECT_EQ(list_gap_reason("aten::cat", t.ops.at(0), kCat8), "tensor list of aten::cat cut at 1024 of 5000 tensors");

    // Deeper nesting than a list of shapes: the inner arrays are not dims; the tensor is counted, not kept.
    const Trace deep =
        parse_kineto(trace_with("aten::cat", R"({"Input Dims": [[[[[[1]]]], [2]]], "Input type": ["TensorList"]})"), "deep.json");
    const TensorListDims* d = input_list(deep.ops.at(0), 0);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->count, 2u);
    EXPECT_EQ(d->kept(), 0u);
    EXPECT_FALSE(cost_cpu_op("aten::cat", deep.ops.at(0), kCat8));

    // A tensor of more than kMaxListRank (64) dims is not kept either.
    std::string rank65 = "[";
    for (int i = 0; i < 65; ++i)
        rank65 += i ? ", 1" : "1";
    rank65 += "]";
    const Trace wide = parse_kineto(
        trace_with("aten::stack", R"({"Input Dims": [[)" + rank65 + R"(, [3]]], "Input type": ["TensorList"]})"), "wide.json");
    EXPECT_EQ(input_list(wide.ops.at(0), 0)->kept(), 0u);

    // Nesting past simdjson's depth limit: refused as input, not a crash.
    const std::string nest(5000, '[');
    EXPECT_THROW(parse_kineto(trace_with("aten::cat", R"({"Input Dims": )" + nest + std::string(5000, ']') + "}"), "nest.json"),
                 bwacct::InputError);

    // A negative dim: no cost (the list's elements are unknown).
    const CpuOp neg = with_lists({{}}, {tensor_list_dims(0, {{2}, {-1}})}, {"TensorList"});
    EXPECT_FALSE(cost_list_op("aten::cat", neg, kF32));
    // tensor_list_dims (tests, fuzzers) applies the same bound.
    std::vector<std::vector<std::int64_t>> many(kMaxListTensors + 1, std::vector<std::int64_t>{1});
    const TensorListDims built = tensor_list_dims(0, many);
    EXPECT_EQ(built.count, kMaxListTensors + 1);
    EXPECT_EQ(built.kept(), kMaxListTensors);
}

TEST(KinetoLists, ElementTypeFromTheKernelName) {
    const auto cat8 = kernel_element_type(kCat8);
    ASSERT_TRUE(cat8);
    EXPECT_EQ(cat8->label, "8-byte");
    EXPECT_EQ(cat8->dtype, DType::fp64);
    EXPECT_EQ(kernel_element_type(kCat2)->label, "2-byte");
    EXPECT_EQ(kernel_element_type(kAddBf16)->dtype, DType::bf16);  // the functor's type, not the opmath float after it
    EXPECT_EQ(kernel_element_type(kAddBf16)->label, "bf16");
    EXPECT_EQ(kernel_element_type(kMulFp32)->dtype, DType::fp32);
    EXPECT_EQ(kernel_element_type(kAdamFp32)->dtype, DType::fp32);
    EXPECT_EQ(kernel_element_type("multi_tensor_apply_kernel<TensorListMetadata<1>, UnaryOpFunctor<long, 1, 1, 0>>")->label,
              "long");
    EXPECT_FALSE(kernel_element_type(""));
    EXPECT_FALSE(kernel_element_type("ampere_bf16_s16816gemm"));
    EXPECT_FALSE(kernel_element_type("CatArrayBatchedCopy<OpaqueType<16u>>"));  // no dtype of 16 bytes
    EXPECT_FALSE(kernel_element_type("x OpaqueType<"));
    EXPECT_FALSE(kernel_element_type("x Functor<"));
    EXPECT_FALSE(kernel_element_type("x Functor<SomeStruct, 1>"));
}

TEST(KinetoLists, CatAndStack) {
    // cat([x[2,3], y[4,3]], 0) with the kernel's OpaqueType<2u>: 6 + 12 = 18 elements · 2 B = 36 B read, 36 B written.
    const CpuOp cat = with_lists({{}, {}}, {tensor_list_dims(0, {{2, 3}, {4, 3}})}, {"TensorList", "Scalar"}, {"", "0"});
    EXPECT_FALSE(cost_cpu_op("aten::cat", cat));  // no kernel: the element type is not in the trace
    const auto c = cost_cpu_op("aten::cat", cat, kCat2);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::indexing);
    EXPECT_EQ(c->shape, "[2x3] [4x3]");
    EXPECT_EQ(c->dtype, "2-byte");
    EXPECT_EQ(c->cost.bytes_read, 36u);
    EXPECT_EQ(c->cost.bytes_written, 36u);
    EXPECT_EQ(c->cost.flops, 0u);
    EXPECT_EQ(list_gap_reason("aten::cat", cat, ""), "no element type for the tensor lists of aten::cat in its kernel's name");

    // stack([a[5], b[5], c[5]]) fp32: 15 elements · 4 B = 60 B read, 60 B written.
    const CpuOp st = with_lists({{}, {}}, {tensor_list_dims(0, {{5}, {5}, {5}})}, {"TensorList", "Scalar"});
    const auto s = cost_list_op("aten::stack", st, kF32);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->shape, "[5]×3");
    EXPECT_EQ(s->cost.bytes_read, 60u);
    EXPECT_EQ(s->cost.bytes_written, 60u);
}

TEST(KinetoLists, ChunkCat) {
    // _chunk_cat([g0 [6, 4], g1 [2, 4]], dim 0, num_chunks 2, out [2, 16]) bf16 → fp32 (chunk_cat_cuda_kernel<dst_t,
    // src_t>): the list's 24 + 8 = 32 elements read at 2 B = 64 B; the out tensor, 32 fp32 elements, written 128 B.
    const std::string kChunkCat =
        "void at::native::(anonymous namespace)::chunk_cat_cuda_kernel<float, c10::BFloat16>("
        "c10::BFloat16**, float*, long*, long*, long*, long*, long*, long*, long, long, long)";
    const auto et = kernel_element_type(kChunkCat);
    ASSERT_TRUE(et);
    EXPECT_EQ(et->dtype, DType::fp32);
    ASSERT_TRUE(et->source);
    EXPECT_EQ(*et->source, DType::bf16);
    const CpuOp cc = with_lists({{}, {}, {}, {2, 16}}, {tensor_list_dims(0, {{6, 4}, {2, 4}})},
                                {"TensorList", "Scalar", "Scalar", "float"}, {"", "0", "2", ""});
    const auto c = cost_cpu_op("aten::_chunk_cat", cc, kChunkCat);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::indexing);
    EXPECT_EQ(c->dtype, "bf16->fp32");
    EXPECT_EQ(c->cost.bytes_read, 64u);
    EXPECT_EQ(c->cost.bytes_written, 128u);
    EXPECT_EQ(c->cost.flops, 0u);
    // Without the out tensor: the list's 32 elements written at fp32, 128 B (the padding, if any, not counted).
    const CpuOp functional =
        with_lists({{}, {}, {}}, {tensor_list_dims(0, {{6, 4}, {2, 4}})}, {"TensorList", "Scalar", "Scalar"}, {"", "0", "2"});
    EXPECT_EQ(cost_cpu_op("aten::_chunk_cat", functional, kChunkCat)->cost.bytes_written, 128u);
    // A type the kernel name spells unreadably: no element type, no formula.
    EXPECT_FALSE(kernel_element_type("chunk_cat_cuda_kernel<float>"));
    EXPECT_FALSE(cost_cpu_op("aten::_chunk_cat", cc, "chunk_cat_cuda_kernel<float, Weird>(...)"));
}

TEST(KinetoLists, ChunkCatSameDtypeIsAByteCopyTypedByTheOutTensor) {
    // PyTorch's TensorShape.cu (_chunk_cat_out_cuda): when out has the inputs' dtype it launches
    // chunk_cat_cuda_kernel<char, char> (FSDP2's bf16 reduce path); the name as Kineto writes it (real traces show
    // "at::native::detail::chunk_cat_cuda_kernel<float, c10::BFloat16>(T2 **, T1 *, long *, ..."). The element type
    // comes from the out tensor's Input type (index 3): bf16.
    const std::string kCharChar =
        "void at::native::detail::chunk_cat_cuda_kernel<char, char>(T2 **, T1 *, long *, "
        "long *, long *, long *, long *, long *, long, long, long)";
    EXPECT_FALSE(kernel_element_type(kCharChar));  // the name alone: bytes, no element type
    // _chunk_cat([4096x4096, 1024x4096, 1024x4096, 4096x4096], 0, 8, out [41943040]) bf16:
    // 2·16777216 + 2·4194304 = 41,943,040 elements read at 2 B = 83,886,080 B; out 41,943,040 · 2 = 83,886,080 B.
    const CpuOp bf16op =
        with_lists({{}, {}, {}, {41943040}}, {tensor_list_dims(0, {{4096, 4096}, {1024, 4096}, {1024, 4096}, {4096, 4096}})},
                   {"TensorList", "Scalar", "Scalar", "c10::BFloat16"}, {"", "0", "8", ""});
    const auto et = kernel_element_type(kCharChar, bf16op);
    ASSERT_TRUE(et);
    EXPECT_EQ(et->dtype, DType::bf16);
    EXPECT_FALSE(et->source);
    const auto c = cost_cpu_op("aten::_chunk_cat", bf16op, kCharChar);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->dtype, "bf16");
    EXPECT_EQ(c->cost.bytes_read, 83886080u);
    EXPECT_EQ(c->cost.bytes_written, 83886080u);
    // fp32 FSDP2 (out float): [6,4] + [2,4] = 32 elements read at 4 B = 128 B; out [2, 20] padded = 40 · 4 = 160 B.
    const CpuOp f32 = with_lists({{}, {}, {}, {2, 20}}, {tensor_list_dims(0, {{6, 4}, {2, 4}})},
                                 {"TensorList", "Scalar", "Scalar", "float"}, {"", "0", "2", ""});
    const auto d = cost_cpu_op("aten::_chunk_cat", f32, kCharChar);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->cost.bytes_read, 128u);
    EXPECT_EQ(d->cost.bytes_written, 160u);
    // Functional _chunk_cat (no out, the list's type "TensorList"): no element type anywhere, no formula.
    const CpuOp functional =
        with_lists({{}, {}, {}}, {tensor_list_dims(0, {{6, 4}, {2, 4}})}, {"TensorList", "Scalar", "Scalar"}, {"", "0", "2"});
    EXPECT_FALSE(cost_cpu_op("aten::_chunk_cat", functional, kCharChar));
}

TEST(KinetoLists, ForeachOps) {
    const auto two = [](std::int64_t a, std::int64_t b) { return tensor_list_dims(0, {{a}, {b, a}}); };
    // _foreach_add_.List(self, other, alpha=-0.001) bf16 (the SGD step of the ResNet trace): per list
    // 64 + 128·64 = 8256 elements. Read 2 lists · 8256 · 2 B = 33024 B; write 8256 · 2 = 16512 B;
    // FLOPs 2 · 8256 = 16512 (a + alpha·b, alpha ≠ 1).
    TensorListDims other = two(64, 128);
    other.input = 1;
    const CpuOp add = with_lists({{}, {}, {}}, {two(64, 128), other}, {"TensorList", "TensorList", "Scalar"}, {"", "", "-0.001"});
    const auto a = cost_cpu_op("aten::_foreach_add_", add, kAddBf16);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->category, Category::optimizer);
    EXPECT_EQ(a->dtype, "bf16");
    EXPECT_EQ(a->shape, "2 lists of [64] [128x64]");
    EXPECT_EQ(a->cost.bytes_read, 33024u);
    EXPECT_EQ(a->cost.bytes_written, 16512u);
    EXPECT_EQ(a->cost.flops, 16512u);
    // alpha 1: one FLOP per element (8256).
    const CpuOp add1 = with_lists({{}, {}, {}}, {two(64, 128), other}, {"TensorList", "TensorList", "Scalar"}, {"", "", "1"});
    EXPECT_EQ(cost_list_op("aten::_foreach_add_", add1, kF32)->cost.flops, 8256u);

    // _foreach_mul_.Scalar(self[[10], [20]], 0.5) fp32: 30 elements · 4 B = 120 B read and written, 30 FLOPs.
    const CpuOp mul = with_lists({{}, {}}, {tensor_list_dims(0, {{10}, {20}})}, {"TensorList", "Scalar"}, {"", "0.5"});
    const auto m = cost_cpu_op("aten::_foreach_mul_", mul, kMulFp32);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->cost.bytes_read, 120u);
    EXPECT_EQ(m->cost.bytes_written, 120u);
    EXPECT_EQ(m->cost.flops, 30u);
    // Out of place (_foreach_sqrt): a new list of the same size written; the same counts.
    const auto sq = cost_list_op("aten::_foreach_sqrt", mul, kF32);
    ASSERT_TRUE(sq);
    EXPECT_EQ(sq->cost.bytes_read, 120u);
    EXPECT_EQ(sq->cost.bytes_written, 120u);
    EXPECT_EQ(sq->cost.flops, 30u);

    // _foreach_addcmul_.Scalar(self, t1, t2, value), each [[100]] fp32: read 3 · 100 · 4 = 1200 B, write
    // 100 · 4 = 400 B, FLOPs 3 · 100 = 300 (t1·t2, ·value, +self).
    const CpuOp addcmul =
        with_lists({{}, {}, {}, {}}, {tensor_list_dims(0, {{100}}), tensor_list_dims(1, {{100}}), tensor_list_dims(2, {{100}})},
                   {"TensorList", "TensorList", "TensorList", "Scalar"});
    const auto ac = cost_list_op("aten::_foreach_addcmul_", addcmul, kF32);
    ASSERT_TRUE(ac);
    EXPECT_EQ(ac->cost.bytes_read, 1200u);
    EXPECT_EQ(ac->cost.bytes_written, 400u);
    EXPECT_EQ(ac->cost.flops, 300u);

    // _foreach_zero_([[8], [8]]) fp32: nothing read, 16 · 4 = 64 B written, 0 FLOPs.
    const CpuOp zero = with_lists({{}}, {tensor_list_dims(0, {{8}, {8}})}, {"TensorList"});
    const auto z = cost_list_op("aten::_foreach_zero_", zero, kF32);
    ASSERT_TRUE(z);
    EXPECT_EQ(z->cost.bytes_read, 0u);
    EXPECT_EQ(z->cost.bytes_written, 64u);
    EXPECT_EQ(z->cost.flops, 0u);

    // _foreach_copy_(self[[8]], src[[8]], False) fp32: src read 32 B, self written 32 B, 0 FLOPs.
    const CpuOp copy = with_lists({{}, {}, {}}, {tensor_list_dims(0, {{8}}), tensor_list_dims(1, {{8}})},
                                  {"TensorList", "TensorList", "Scalar"});
    const auto cp = cost_list_op("aten::_foreach_copy_", copy, kF32);
    ASSERT_TRUE(cp);
    EXPECT_EQ(cp->cost.bytes_read, 32u);
    EXPECT_EQ(cp->cost.bytes_written, 32u);
    EXPECT_EQ(cp->cost.flops, 0u);

    // A converting copy (FSDP2's copy-in of fp32 shards into a bf16 all-gather buffer): the kernel names the
    // destination type, then the source's, CopyFunctor<c10::BFloat16, float, 2, 1, 1>. self [[4096, 512], [512]]
    // bf16, src the same shapes fp32: 4096·512 + 512 = 2,097,664 elements; read 2,097,664 · 4 = 8,390,656 B,
    // written 2,097,664 · 2 = 4,195,328 B (was: both lists at bf16, 4,195,328 B read). A copy: elementwise.
    const std::string kCopyF32ToBf16 =
        "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
        "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::CopyFunctor<c10::BFloat16, float, 2, 1, 1>, "
        "at::native::(anonymous namespace)::Copy<c10::BFloat16, float> >(at::native::(anonymous "
        "namespace)::TensorListMetadata<2>)";
    const auto et = kernel_element_type(kCopyF32ToBf16);
    ASSERT_TRUE(et);
    EXPECT_EQ(et->dtype, DType::bf16);
    ASSERT_TRUE(et->source);
    EXPECT_EQ(*et->source, DType::fp32);
    const CpuOp shards =
        with_lists({{}, {}, {}}, {tensor_list_dims(0, {{4096, 512}, {512}}), tensor_list_dims(1, {{4096, 512}, {512}})},
                   {"TensorList", "TensorList", "Scalar"}, {"", "", "False"});
    const auto cin = cost_cpu_op("aten::_foreach_copy_", shards, kCopyF32ToBf16);
    ASSERT_TRUE(cin);
    EXPECT_EQ(cin->category, Category::elementwise);
    EXPECT_EQ(cin->dtype, "fp32->bf16");
    EXPECT_EQ(cin->cost.bytes_read, 8390656u);
    EXPECT_EQ(cin->cost.bytes_written, 4195328u);
    EXPECT_EQ(cin->cost.flops, 0u);
    // The same types (UnaryOpFunctor with Copy<>): no source type; a source type the name spells unreadably: none.
    EXPECT_FALSE(kernel_element_type("multi_tensor_apply_kernel<TensorListMetadata<2>, UnaryOpFunctor<float, 2, 1, 1>, "
                                     "Copy<float, float> >")
                     ->source);
    EXPECT_FALSE(kernel_element_type("multi_tensor_apply_kernel<TensorListMetadata<2>, CopyFunctor<float, Weird, 2, 1, 1>>"));
    EXPECT_FALSE(kernel_element_type("x CopyFunctor<float>"));

    // _foreach_norm.Scalar([[1000], [24]], 2) fp32: read 1024 · 4 = 4096 B, one value per tensor
    // written 2 · 4 = 8 B, 1 FLOP per input element = 1024.
    const CpuOp norm = with_lists({{}, {}, {}}, {tensor_list_dims(0, {{1000}, {24}})}, {"TensorList", "Scalar", ""});
    const auto n = cost_list_op("aten::_foreach_norm", norm, kF32);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->category, Category::optimizer);
    EXPECT_EQ(n->cost.bytes_read, 4096u);
    EXPECT_EQ(n->cost.bytes_written, 8u);
    EXPECT_EQ(n->cost.flops, 1024u);

    // Lists of different lengths (not a foreach call PyTorch accepts) and a list without shapes: no cost.
    const CpuOp uneven =
        with_lists({{}, {}}, {tensor_list_dims(0, {{8}, {8}}), tensor_list_dims(1, {{8}})}, {"TensorList", "TensorList"});
    EXPECT_FALSE(cost_list_op("aten::_foreach_add_", uneven, kF32));
    const CpuOp half = with_lists({{}, {}}, {tensor_list_dims(0, {{8}})}, {"TensorList", "TensorList"});
    EXPECT_FALSE(cost_list_op("aten::_foreach_add_", half, kF32));
    EXPECT_EQ(list_gap_reason("aten::_foreach_add_", half, kMulFp32), "tensor-list shapes of aten::_foreach_add_ not in trace");
}

// _fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2,
// weight_decay, eps, amsgrad, maximize, grad_scale, found_inf) over params [256] and [256, 4]:
// E = 256 + 1024 = 1280 elements per list, and two 0-dim fp32 step counts.
CpuOp adam(bool amsgrad, const std::string& weight_decay, const std::string& grad_scale_type) {
    const std::vector<std::vector<std::int64_t>> p{{256}, {256, 4}};
    std::vector<TensorListDims> lists;
    for (std::uint32_t i = 0; i < 4; ++i)
        lists.push_back(tensor_list_dims(i, p));
    if (amsgrad)
        lists.push_back(tensor_list_dims(4, p));
    lists.push_back(tensor_list_dims(5, {{}, {}}));
    std::vector<std::vector<std::int64_t>> dims(15);
    return with_lists(
        dims, lists,
        {"TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "Scalar", "Scalar", "Scalar",
         "Scalar", "Scalar", "Scalar", "Scalar", grad_scale_type, ""},
        {"", "", "", "", "", "", "0.001", "0.9", "0.999", weight_decay, "1e-08", amsgrad ? "True" : "False", "False", "", ""});
}

TEST(KinetoLists, FusedAdam) {
    // AdamW fp32, weight decay 0.01, no grad_scale: read p, g, m, v = 4 · 1280 · 4 = 20480 B plus the
    // steps 2 · 4 = 8 B → 20488 B; write p, m, v = 3 · 1280 · 4 = 15360 B; FLOPs (13 + 2) · 1280 = 19200.
    const auto w = cost_cpu_op("aten::_fused_adamw_", adam(false, "0.01", ""), kAdamFp32);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->category, Category::optimizer);
    EXPECT_EQ(w->shape, "[256] [256x4] weight_decay");
    EXPECT_EQ(w->cost.bytes_read, 20488u);
    EXPECT_EQ(w->cost.bytes_written, 15360u);
    EXPECT_EQ(w->cost.flops, 19200u);

    // Adam bf16 without weight decay, with grad_scale (AMP: grads unscaled and written back): read
    // 4 · 1280 · 2 = 10240 + 8 = 10248 B; write (3 + 1) · 1280 · 2 = 10240 B; FLOPs (13 + 1) · 1280 = 17920.
    const ElementType bf16{DType::bf16, "bf16", std::nullopt};
    const auto s = cost_list_op("aten::_fused_adam_", adam(false, "0", "float"), bf16);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->cost.bytes_read, 10248u);
    EXPECT_EQ(s->cost.bytes_written, 10240u);
    EXPECT_EQ(s->cost.flops, 17920u);

    // AMSGrad fp32: max_exp_avg_sq read and written too: read 5 · 1280 · 4 + 8 = 25608 B, write
    // 4 · 1280 · 4 = 20480 B; FLOPs 13 · 1280 = 16640.
    const auto m = cost_list_op("aten::_fused_adam_", adam(true, "0", ""), kF32);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->cost.bytes_read, 25608u);
    EXPECT_EQ(m->cost.bytes_written, 20480u);
    EXPECT_EQ(m->cost.flops, 16640u);
}

TEST(KinetoLists, AmpUnscale) {
    // _amp_foreach_non_finite_check_and_unscale_(grads[[300], [12]], found_inf, inv_scale) fp32: 312
    // elements · 4 B = 1248 B read and 1248 B written back, 312 FLOPs (× inv_scale); the two 1-element
    // tensors are not counted.
    const CpuOp op = with_lists({{}, {}, {}}, {tensor_list_dims(0, {{300}, {12}})}, {"TensorList", "float", "float"});
    const auto c = cost_list_op("aten::_amp_foreach_non_finite_check_and_unscale_", op, kF32);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::optimizer);
    EXPECT_EQ(c->cost.bytes_read, 1248u);
    EXPECT_EQ(c->cost.bytes_written, 1248u);
    EXPECT_EQ(c->cost.flops, 312u);
}

}  // namespace

namespace {

// The whole path on a trace: the reader keeps the lists, the summary passes each op its kernel's name
// (the element type), and every activity is costed.
TEST(KinetoLists, SummaryCostsEveryListOpOfASyntheticTrace) {
    using namespace bwacct::kineto;
    const Summary s = summarize(read_kineto(std::string(BWACCT_TEST_DATA) + "/kineto/synthetic_tensor_lists.json"));
    EXPECT_EQ(s.activities, 3u);
    EXPECT_EQ(s.uncosted_kernels, 0u);
    const auto group = [&](const std::string& op) -> const Group* {
        for (const Group& g : s.groups)
            if (g.what.op == op)
                return &g;
        ADD_FAILURE() << "no group " << op;
        return nullptr;
    };
    // cat of [2, 3] and [4, 3] with 4-byte elements (OpaqueType<4u>): 18 elements, read 72 B, write 72 B.
    const Group* cat = group("aten::cat");
    ASSERT_NE(cat, nullptr);
    EXPECT_EQ(cat->what.cost.bytes_read, 72u);
    EXPECT_EQ(cat->what.cost.bytes_written, 72u);
    // _foreach_add_ of two bf16 lists of [64] and [128, 64]: 64 + 8,192 = 8,256 elements per list;
    // read both lists 2·8,256·2 = 33,024 B, write self 8,256·2 = 16,512 B.
    const Group* add = group("aten::_foreach_add_");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->what.cost.bytes_read, 33024u);
    EXPECT_EQ(add->what.cost.bytes_written, 16512u);
    // _fused_adamw_ over one fp32 [8] parameter: params, grads, exp_avg, exp_avg_sq read (4·8·4 =
    // 128 B) and the one 0-d step tensor (4 B): 132 B; params, exp_avg, exp_avg_sq written (3·8·4 =
    // 96 B); 13 FLOPs per parameter + 2 for the decoupled weight decay = 15·8 = 120.
    const Group* adam = group("aten::_fused_adamw_");
    ASSERT_NE(adam, nullptr);
    EXPECT_EQ(adam->what.cost.bytes_read, 132u);
    EXPECT_EQ(adam->what.cost.bytes_written, 96u);
    EXPECT_EQ(adam->what.cost.flops, 120u);
}

}  // namespace
