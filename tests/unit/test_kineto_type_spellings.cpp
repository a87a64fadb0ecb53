// What real traces spell differently from the traces the costing was written against: tensor type
// names as a Windows (MSVC) build of PyTorch writes them, and NCCL metadata dtypes of every ScalarType.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;

// One aten::addmm (External id 7) with its kernel, and one 0-d in-place integer add with its kernel,
// "Input type" spelled by `bf16` and `int64`.
std::string two_op_trace(const std::string& bf16, const std::string& int64) {
    return R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 100, "dur": 20,
       "args": {"External id": 7, "Input Dims": [[512], [141, 512], [512, 512], [], []],
                "Input type": [")" +
           bf16 + R"(", ")" + bf16 + R"(", ")" + bf16 + R"(", "Scalar", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 5,
       "args": {"External id": 7, "device": 0, "stream": 7}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::add_", "pid": 1, "tid": 1, "ts": 200, "dur": 20,
       "args": {"External id": 8, "Input Dims": [[], [], []], "Input type": [")" +
           int64 + R"(", ")" + int64 + R"(", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 210, "dur": 2,
       "args": {"External id": 8, "device": 0, "stream": 7}}
    ]})";
}

const Group* group_of(const Summary& s, const std::string& op) {
    for (const Group& g : s.groups)
        if (g.what.op == op)
            return &g;
    return nullptr;
}

// PyTorch writes a tensor's type as its C++ type name, and MSVC spells the same types
// "struct c10::BFloat16" and "__int64" where GCC writes "c10::BFloat16" and "long int". A trace from a
// Windows build was read with every bf16/fp16 op and every int64 tensor unknown: no formula.
TEST(KinetoTypeSpellings, MsvcTypeNamesCostLikeGccNames) {
    const Trace msvc = parse_kineto(two_op_trace("struct c10::BFloat16", "__int64"), "msvc.json");
    ASSERT_EQ(msvc.ops.size(), 2u);
    EXPECT_EQ(msvc.ops[0].types[0], "c10::BFloat16");
    EXPECT_EQ(msvc.ops[1].types[0], "long int");
    const Summary s = summarize(msvc);
    // addmm M=141 N=512 K=512 bf16 with an N-element bias: read A 141·512·2 = 144,384 + B 512·512·2 =
    // 524,288 + bias 512·2 = 1,024; write C 141·512·2 = 144,384; 814,080 B in all (the BERT trace's row).
    const Group* mm = group_of(s, "aten::addmm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->what.dtype, "bf16");
    EXPECT_EQ(mm->what.cost.bytes_read + mm->what.cost.bytes_written, 814080u);
    // add_ of two 0-d int64 tensors: read 2·8 = 16 B, write 8 B, no FLOPs (integer arithmetic).
    const Group* add = group_of(s, "aten::add_");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->what.dtype, "int64");
    EXPECT_EQ(add->what.cost.bytes_read, 16u);
    EXPECT_EQ(add->what.cost.bytes_written, 8u);
    EXPECT_EQ(add->what.cost.flops, 0u);
    // The same trace in GCC's spelling gives the same costs, and every kernel has a formula.
    const Summary gcc = summarize(parse_kineto(two_op_trace("c10::BFloat16", "long int"), "gcc.json"));
    ASSERT_NE(group_of(gcc, "aten::addmm"), nullptr);
    EXPECT_EQ(group_of(gcc, "aten::addmm")->what.cost.flops, mm->what.cost.flops);
    EXPECT_DOUBLE_EQ(s.uncosted_busy_us, 0.0);
    EXPECT_DOUBLE_EQ(gcc.uncosted_busy_us, 0.0);
    // "class " is a class-key too; an unknown name passes unchanged.
    const Trace other = parse_kineto(two_op_trace("class c10::Half", "unsigned __int64"), "other.json");
    EXPECT_EQ(other.ops[0].types[0], "c10::Half");
    EXPECT_EQ(other.ops[1].types[0], "unsigned long");
    EXPECT_EQ(parse_kineto(two_op_trace("my_type", "x"), "x.json").ops[0].types[0], "my_type");
}

// The same tools write a convolution's int-list arguments as Python tuples, "(1,1)", where Kineto writes
// "[1, 1]": read alike. A depthwise 3x3 of fp32 [8, 1024, 32, 32], stride 1, padding 1, groups 1024.
TEST(KinetoTypeSpellings, ConvolutionTupleArgumentsReadLikeLists) {
    const Trace t = parse_kineto(R"json({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 100, "dur": 500,
       "args": {"External id": 3, "Input Dims": [[8, 1024, 32, 32], [1024, 1, 3, 3]], "Input type": ["Float", "Float"],
                "Concrete Inputs": ["", "", "", "(1,1)", "(1,1)", "(1,1)", "False", "(0,0)", "1024"]}},
      {"ph": "X", "cat": "kernel", "name": "depthwise_conv2d_fwd_fp32_kernel", "pid": 0, "tid": 7, "ts": 110,
       "dur": 350, "args": {"External id": 3, "device": 0, "stream": 7}}
    ]})json",
                                 "tuples.json");
    const Summary s = summarize(t);
    const Group* conv = group_of(s, "aten::convolution");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->what.category, Category::conv);
    // out ⌊(32 + 2 − 3)/1⌋ + 1 = 32; FLOPs 2·8·1024·(32·32)·(1024/1024)·9 = 16,777,216·9 = 150,994,944
    EXPECT_EQ(conv->what.cost.flops, 150994944u);
    // read x 8·1024·1024·4 = 33,554,432 + w 1024·1·9·4 = 36,864 = 33,591,296; write y 33,554,432
    EXPECT_EQ(conv->what.cost.bytes_read, 33591296u);
    EXPECT_EQ(conv->what.cost.bytes_written, 33554432u);
}

// A conv of fp32 x [8, 64, 32, 32] by w [64, 64, 3, 3], padding 1, with the stride `stride` (a JSON value).
std::string conv_with_stride(const std::string& stride) {
    return R"json({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 100, "dur": 500,
       "args": {"External id": 3, "Input Dims": [[8, 64, 32, 32], [64, 64, 3, 3]], "Input type": ["float", "float"],
                "Concrete Inputs": ["", "", "", )json" +
           stride + R"json(, "(1,1)", "(1,1)", "False", "(0,0)", "1"]}},
      {"ph": "X", "cat": "kernel", "name": "igemm_fwd_gtcx_nchw_fp32", "pid": 0, "tid": 7, "ts": 110,
       "dur": 350, "args": {"External id": 3, "device": 0, "stream": 7}}
    ]})json";
}

// A stride the trace gives is the conv's stride: "(2,2)" halves each output side; one that does not read
// ("(a,b)", "()", "(2.0,2.0)", "(-1,-1)", an overflow) refuses the conv, naming the value,
// where the default stride 1 would cost 4x the FLOPs.
TEST(KinetoTypeSpellings, ConvolutionStrideGivenIsReadOrRefused) {
    const Summary two = summarize(parse_kineto(conv_with_stride("\"(2,2)\""), "stride2.json"));
    const Group* conv = group_of(two, "aten::convolution");
    ASSERT_NE(conv, nullptr);
    // out ⌊(32 + 2 − 3)/2⌋ + 1 = 16; 2·8·64·(16·16)·64·9 = 150,994,944 FLOPs (stride 1: 32·32, 603,979,776)
    EXPECT_EQ(conv->what.cost.flops, 150994944u);
    // a JSON array where Kineto writes a string keeps its place among the Concrete Inputs and reads alike
    const Summary array = summarize(parse_kineto(conv_with_stride("[2, 2]"), "stride_array.json"));
    ASSERT_NE(group_of(array, "aten::convolution"), nullptr);
    EXPECT_EQ(group_of(array, "aten::convolution")->what.cost.flops, 150994944u);
    for (const auto& [json, text] : std::vector<std::pair<std::string, std::string>>{
             {"\"(a,b)\"", "(a,b)"},
             {"\"()\"", "()"},
             {"\"(2.0,2.0)\"", "(2.0,2.0)"},
             {"\"(-1,-1)\"", "(-1,-1)"},
             {"\"(99999999999999999999,2)\"", "(99999999999999999999,2)"},
         }) {
        const Summary s = summarize(parse_kineto(conv_with_stride(json), "stride_bad.json"));
        EXPECT_EQ(group_of(s, "aten::convolution"), nullptr) << text;
        ASSERT_EQ(s.kernels.size(), 1u);
        EXPECT_EQ(s.kernels[0].reason, "stride of aten::convolution not understood (\"" + text +
                                           "\"; expected non-negative integers as \"[2, 2]\", \"(2,2)\" or \"2\")");
    }
    // The value is cut at 40 bytes, never inside a character: "(2,2)" (5 B) + 34 'x' = 39 B, then 'é' (2 B,
    // bytes 39-40): the cut keeps 39 B (the old cut kept 40, a lone lead byte 0xC3) and adds "…".
    const std::string x34(34, 'x');
    const Summary cut = summarize(parse_kineto(conv_with_stride("\"(2,2)" + x34 + "\u00e9zz\""), "stride_utf8.json"));
    ASSERT_EQ(cut.kernels.size(), 1u);
    EXPECT_EQ(cut.kernels[0].reason, "stride of aten::convolution not understood (\"(2,2)" + x34 +
                                         "…\"; expected non-negative integers as \"[2, 2]\", \"(2,2)\" or \"2\")");
}

// Tools that re-write a trace (TraceLens's eval traces) spell the types by c10's ScalarType names,
// "BFloat16", "Float", "Long": the same ops, the same numbers as the GCC spelling above.
TEST(KinetoTypeSpellings, ScalarTypeNamesCostLikeGccNames) {
    const Trace named = parse_kineto(two_op_trace("BFloat16", "Long"), "scalar_types.json");
    ASSERT_EQ(named.ops.size(), 2u);
    EXPECT_EQ(named.ops[0].types[0], "c10::BFloat16");
    EXPECT_EQ(named.ops[1].types[0], "long int");
    const Summary s = summarize(named);
    // addmm M=141 N=512 K=512 bf16: 144,384 + 524,288 + 1,024 read + 144,384 written = 814,080 B.
    const Group* mm = group_of(s, "aten::addmm");
    ASSERT_NE(mm, nullptr);
    EXPECT_EQ(mm->what.dtype, "bf16");
    EXPECT_EQ(mm->what.cost.bytes_read + mm->what.cost.bytes_written, 814080u);
    // add_ of two 0-d int64 tensors: read 2·8 = 16 B, write 8 B.
    const Group* add = group_of(s, "aten::add_");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->what.dtype, "int64");
    EXPECT_EQ(add->what.cost.bytes_read, 16u);
    EXPECT_EQ(add->what.cost.bytes_written, 8u);
}

// "Int", "Double", "Bool", "ComplexDouble" are ScalarType names and also the IValue tag names PyTorch
// 1.9-1.12 writes for a Python scalar arg (Input Dims []): with dims [] they stay scalars, with dims
// they are tensors (a re-written trace's "Double" [1024]).
TEST(KinetoTypeSpellings, TagKindNamesOfScalarsAreNotTensors) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 1, "tid": 1, "ts": 100, "dur": 20,
       "args": {"External id": 1, "Input Dims": [[1024], []], "Input type": ["long int", "Double"]}},
      {"ph": "X", "cat": "kernel", "name": "div_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 5,
       "args": {"External id": 1, "device": 0, "stream": 7}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 200, "dur": 20,
       "args": {"External id": 2, "Input Dims": [[1024], [1024], []], "Input type": ["float", "float", "Int"]}},
      {"ph": "X", "cat": "kernel", "name": "add_kernel", "pid": 0, "tid": 7, "ts": 210, "dur": 5,
       "args": {"External id": 2, "device": 0, "stream": 7}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::sub", "pid": 1, "tid": 1, "ts": 300, "dur": 20,
       "args": {"External id": 3, "Input Dims": [[1024], [1024], []], "Input type": ["Double", "Double", "Scalar"]}},
      {"ph": "X", "cat": "kernel", "name": "sub_kernel", "pid": 0, "tid": 7, "ts": 310, "dur": 5,
       "args": {"External id": 3, "device": 0, "stream": 7}}
    ]})",
                                 "tag_kinds.json");
    ASSERT_EQ(t.ops.size(), 3u);
    EXPECT_EQ(t.ops[0].types[1], "Double");
    EXPECT_EQ(t.ops[1].types[2], "Int");
    EXPECT_EQ(t.ops[2].types[0], "double");
    const Summary s = summarize(t);
    // int64 [1024] / a Python float: 1024·8 = 8,192 B read; true division gives the default float:
    // 1024·4 = 4,096 B written (a 0-d fp64 divisor would read 8 B more and write fp64, 8,192 B).
    const Group* div = group_of(s, "aten::div");
    ASSERT_NE(div, nullptr);
    EXPECT_EQ(div->what.cost.bytes_read, 8192u);
    EXPECT_EQ(div->what.cost.bytes_written, 4096u);
    // float [1024] + float [1024], alpha an int: 2·4,096 = 8,192 B read, 4,096 B written
    const Group* add = group_of(s, "aten::add");
    ASSERT_NE(add, nullptr);
    EXPECT_EQ(add->what.cost.bytes_read, 8192u);
    EXPECT_EQ(add->what.cost.bytes_written, 4096u);
    // fp64 [1024] − fp64 [1024] (TraceLens's spelling, dims given): 2·1024·8 = 16,384 B read, 8,192 written
    const Group* sub = group_of(s, "aten::sub");
    ASSERT_NE(sub, nullptr);
    EXPECT_EQ(sub->what.cost.bytes_read, 16384u);
    EXPECT_EQ(sub->what.cost.bytes_written, 8192u);
}

// The unsigned, e8m0 and packed fp4 ScalarType names, and GCC's own names of the 16-bit and unsigned 64-bit
// integers, read at their element sizes: aten::clone of [1024] reads and writes 1024·size bytes
// (UInt16 2, UInt32 4, UInt64 8, Float8_e8m0fnu 1, Float4_e2m1fn_x2 1 a counted element, "short int" 2,
// "short unsigned int" 2, "long unsigned int" 8).
TEST(KinetoTypeSpellings, UnsignedAndScaleTypeNamesHaveTheirSizes) {
    for (const auto& [type, size] : std::vector<std::pair<std::string, std::uint64_t>>{{"UInt16", 2},
                                                                                       {"UInt32", 4},
                                                                                       {"UInt64", 8},
                                                                                       {"Float8_e8m0fnu", 1},
                                                                                       {"Float4_e2m1fn_x2", 1},
                                                                                       {"short int", 2},
                                                                                       {"short unsigned int", 2},
                                                                                       {"long unsigned int", 8}}) {
        const Summary s = summarize(parse_kineto(R"({"traceEvents": [
          {"ph": "X", "cat": "cpu_op", "name": "aten::clone", "pid": 1, "tid": 1, "ts": 100, "dur": 20,
           "args": {"External id": 1, "Input Dims": [[1024]], "Input type": [")" +
                                                     type + R"("]}},
          {"ph": "X", "cat": "kernel", "name": "clone_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 5,
           "args": {"External id": 1, "device": 0, "stream": 7}}]})",
                                                 "clone.json"));
        const Group* neg = group_of(s, "aten::clone");
        ASSERT_NE(neg, nullptr) << type;
        EXPECT_EQ(neg->what.cost.bytes_read, 1024 * size) << type;
        EXPECT_EQ(neg->what.cost.bytes_written, 1024 * size) << type;
    }
}

// GCC's names of int16 / uint16 / uint64 ("short int", "short unsigned int", "long unsigned int") label and
// promote as the other spellings of those types; e8m0 scales and packed fp4 are copied, never computed on.
TEST(KinetoTypeSpellings, GccIntegerNamesLabelAndPromote) {
    // int16 [1024] + int64 [1024]: PyTorch's result int64; read 1024·2 + 1024·8 = 10,240 B, write 1024·8 = 8,192 B
    // (the old code: no formula, "short int" had no rank)
    const auto add =
        cost_cpu_op("aten::add", test::op_of({{1024}, {1024}, {}}, {"short int", "long int", "Scalar"}, {"", "", "1"}));
    ASSERT_TRUE(add);
    EXPECT_EQ(add->cost.bytes_read, 10240u);
    EXPECT_EQ(add->cost.bytes_written, 8192u);
    EXPECT_EQ(add->dtype, "int16,int64->int64");
    // one label per dtype, whatever the spelling (the old label of "long unsigned int" was itself)
    for (const auto& [type, label] : std::vector<std::pair<std::string, std::string>>{{"long unsigned int", "uint64"},
                                                                                      {"unsigned long", "uint64"},
                                                                                      {"short int", "int16"},
                                                                                      {"short unsigned int", "uint16"}}) {
        const auto neg = cost_cpu_op("aten::neg", test::op_of({{1024}}, {type}));
        ASSERT_TRUE(neg) << type;
        EXPECT_EQ(neg->dtype, label) << type;
    }
    // neg of e8m0 [1024]: no formula (the old code costed it as integer arithmetic); clone: 1024 B each way,
    // labelled e8m0, no "integer arithmetic" term
    EXPECT_FALSE(cost_cpu_op("aten::neg", test::op_of({{1024}}, {"c10::Float8_e8m0fnu"})));
    EXPECT_FALSE(cost_cpu_op("aten::mul", test::op_of({{1024}, {1024}}, {"c10::Float4_e2m1fn_x2", "c10::Float4_e2m1fn_x2"})));
    const auto clone = cost_cpu_op("aten::clone", test::op_of({{1024}}, {"c10::Float8_e8m0fnu"}));
    ASSERT_TRUE(clone);
    EXPECT_EQ(clone->dtype, "e8m0");
    EXPECT_EQ(clone->cost.bytes_read, 1024u);
    EXPECT_EQ(clone->cost.bytes_written, 1024u);
    for (const auto& term : clone->cost.terms)
        EXPECT_EQ(term.formula.find("integer"), std::string::npos) << term.formula;
}

// TraceLens's hand-written eval fixtures (tests/data/corpus/torch-trace/tracelens_eval_*.json, ScalarType
// type names, tuple int lists), each read whole: the corpus only checks they read, these their numbers.
Summary corpus_trace(const std::string& name) {
    return summarize(read_kineto(std::string(BWACCT_TEST_DATA) + "/corpus/torch-trace/" + name));
}

TEST(KinetoTypeSpellings, TraceLensEvalFixturesCostByHand) {
    // The corpus trace's group of `op`: its FLOPs and bytes of one call.
    const auto expect_cost = [](const std::string& file, const std::string& op, std::uint64_t flops, std::uint64_t read,
                                std::uint64_t written) {
        const Summary s = corpus_trace(file);  // held: the group points into it
        const Group* g = group_of(s, op);
        ASSERT_NE(g, nullptr) << file;
        EXPECT_EQ(g->what.cost.flops, flops) << file;
        EXPECT_EQ(g->what.cost.bytes_read, read) << file;
        EXPECT_EQ(g->what.cost.bytes_written, written) << file;
    };
    // conv_01: fp32 x [1, 3, 2048, 2048] * w [64, 3, 7, 7], stride (2,2), padding (3,3): out
    // ⌊(2048 + 6 − 7)/2⌋ + 1 = 1024; 2·1·64·1024²·3·49 = 19,730,006,016 FLOPs; read x 3·2048²·4 =
    // 50,331,648 + w 64·3·49·4 = 37,632 = 50,369,280 B; write 64·1024²·4 = 268,435,456 B
    expect_cost("tracelens_eval_conv_igemm_fwd_2048px_tuple_args_scalar_type_names.json", "aten::convolution", 19730006016u,
                50369280u, 268435456u);
    // conv_04: depthwise 3x3, fp32 x [8, 1024, 32, 32], groups 1024, stride 1, padding 1: out 32x32;
    // 2·8·1024·1024·1·9 = 150,994,944 FLOPs; read 33,554,432 + 1024·9·4 = 33,591,296 B; write 33,554,432 B
    expect_cost("tracelens_eval_conv_depthwise_groups1024_tuple_args.json", "aten::convolution", 150994944u, 33591296u,
                33554432u);
    // conv_07: transposed, fp32 x [4, 512, 8, 8], w [512, 256, 4, 4], stride 2, padding 1: out
    // (8 − 1)·2 − 2 + 4 = 16; 2·4·512·64·256·16 = 1,073,741,824 FLOPs; read x 4·512·64·4 = 524,288 +
    // w 512·256·16·4 = 8,388,608 = 8,912,896 B; write 4·256·16·16·4 = 1,048,576 B
    expect_cost("tracelens_eval_conv_transposed_igemm_bwd_data.json", "aten::convolution", 1073741824u, 8912896u, 1048576u);
    // attn_01: bf16 q, k, v [1, 32, 32768, 128], non-causal: 4·1·32·32768²·128 = 2^44 =
    // 17,592,186,044,416 FLOPs; read 3·32·32768·128·2 = 805,306,368 B; write the output 268,435,456 B
    expect_cost("tracelens_eval_sdpa_flash_splitkv_bf16_s32768_scalar_type_names.json",
                "aten::_scaled_dot_product_flash_attention", 17592186044416u, 805306368u, 268435456u);
    // moe_02: expert weights but a float [8192, 1] and no integer top-k ids: uncosted, saying so; each
    // fp32 mul_ of [256, 1024] by [256, 1024]: read 2·256·1024·4 = 2,097,152 B, write 1,048,576 B
    const Summary m2 = corpus_trace("tracelens_eval_aiter_fused_moe_weights_without_topk_ids.json");
    EXPECT_EQ(group_of(m2, "vllm::rocm_aiter_fused_moe"), nullptr);
    const auto& moe = m2.categories[static_cast<std::size_t>(Category::moe)];
    EXPECT_EQ(moe.costed, 0u);
    ASSERT_EQ(moe.uncosted_reasons.size(), 1u);
    EXPECT_EQ(moe.uncosted_reasons.begin()->first,
              "no top-k expert ids (an integer [T, k] input) among the inputs of vllm::rocm_aiter_fused_moe");
    const Group* g = group_of(m2, "aten::mul_");
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->calls, 3u);
    EXPECT_EQ(g->what.cost.bytes_read, 2097152u);
    EXPECT_EQ(g->what.cost.bytes_written, 1048576u);
}

// ProcessGroupNCCL writes the dtype as c10::toString(ScalarType); only the element size matters to a
// collective. FP8 on MI300 is "fnuz", and unsigned, complex, packed fp4 and quantized types occur too:
// each was "collective metadata not understood", its kernel uncosted.
TEST(KinetoTypeSpellings, NcclDtypesOfEveryWidth) {
    auto size_of = [](const char* dtype, const char* name, std::uint64_t in, std::uint64_t out) -> std::uint64_t {
        GpuActivity k;
        k.collective = CollectiveArgs{name, in, out, 8, dtype};
        const auto c = cost_collective_kernel(k);
        return c && c->cost.collective ? c->cost.collective->size_bytes : 0;
    };
    // all_gather of 1,024 fp8 elements per rank over 8 ranks: the gathered 8,192 elements · 1 B.
    EXPECT_EQ(size_of("Float8_e4m3fnuz", "_allgather_base", 1024, 8192), 8192u);
    EXPECT_EQ(size_of("Float8_e5m2fnuz", "_allgather_base", 1024, 8192), 8192u);
    // allreduce of 100 elements: UInt16 2 B → 200 B; ComplexFloat 2·4 B → 800 B; ComplexHalf 2·2 → 400 B;
    // UInt64 8 B → 800 B; Float4_e2m1fn_x2 (two fp4 in the byte PyTorch counts as one element) → 100 B.
    EXPECT_EQ(size_of("UInt16", "allreduce", 100, 100), 200u);
    EXPECT_EQ(size_of("ComplexFloat", "allreduce", 100, 100), 800u);
    EXPECT_EQ(size_of("ComplexHalf", "allreduce", 100, 100), 400u);
    EXPECT_EQ(size_of("UInt64", "allreduce", 100, 100), 800u);
    EXPECT_EQ(size_of("Float4_e2m1fn_x2", "allreduce", 100, 100), 100u);
    // The widths already read stay: Float 4 B, BFloat16 2 B, Long 8 B, Byte 1 B.
    EXPECT_EQ(size_of("Float", "allreduce", 100, 100), 400u);
    EXPECT_EQ(size_of("BFloat16", "allreduce", 100, 100), 200u);
    EXPECT_EQ(size_of("Long", "allreduce", 100, 100), 800u);
    EXPECT_EQ(size_of("Byte", "allreduce", 100, 100), 100u);
    // ComplexDouble (16 B) has no engine dtype of its width, and a name no ScalarType has: not costed.
    EXPECT_EQ(size_of("ComplexDouble", "allreduce", 100, 100), 0u);
    EXPECT_EQ(size_of("float32", "allreduce", 100, 100), 0u);
}

// The canonical collective names behind parse_collective, without its error: the metadata reader's
// lookup (kineto_cost_collective.cpp), which no longer repeats the names.
TEST(KinetoTypeSpellings, FindCollectiveKnowsTheCanonicalNamesOnly) {
    using bwacct::CollectiveKind;
    using bwacct::find_collective;
    for (const CollectiveKind k : {CollectiveKind::allreduce, CollectiveKind::allgather, CollectiveKind::reducescatter,
                                   CollectiveKind::broadcast, CollectiveKind::reduce, CollectiveKind::alltoall,
                                   CollectiveKind::sendrecv, CollectiveKind::gather, CollectiveKind::scatter})
        EXPECT_EQ(find_collective(bwacct::collective_name(k)), k);
    EXPECT_EQ(find_collective("AllReduce"), CollectiveKind::allreduce);  // any case, as parse_collective
    EXPECT_FALSE(find_collective("hypercube"));
    EXPECT_FALSE(find_collective("all_reduce"));  // spellings are the trace reader's business
    EXPECT_FALSE(find_collective(""));
}

}  // namespace
