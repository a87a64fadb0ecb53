// MoE ops whose inputs lack the expert weights, costed from a model config (`ingest torch-trace --hf-config`):
// hand-computed FLOPs and bytes of a synthetic vLLM-style moe_forward, the degree from the attention op's
// query heads, and the refusals (expert count, dense config, --tp contradicting the trace).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/quant.h"
#include "kineto_test_ops.h"

using namespace bwacct;
using namespace bwacct::kineto;
using bwacct::kineto::test::bf;
using bwacct::kineto::test::op_of;

namespace {

// A small gated MoE: hidden 48, 4 query heads of 12, 8 experts of FFN 32, top-2, MXFP4 expert weights.
TransformerConfig small_moe() {
    TransformerConfig c;
    c.name = "small-moe";
    c.hidden = 48;
    c.layers = 2;
    c.heads = 4;
    c.kv_heads = 2;
    c.head_dim = 12;
    c.ffn = 32;
    c.vocab = 100;
    MoeConfig m;
    m.experts = 8;
    m.top_k = 2;
    m.expert_ffn = 32;
    c.moe = m;
    c.weight_format = weight_format(DType::mxfp4, 0);
    return c;
}

// vLLM's shapes: hidden states padded to 64 wide (the config says 48), router logits [16, 8].
CpuOp moe_forward(std::int64_t experts = 8) { return op_of({{16, 64}, {16, experts}, {}}, {bf, bf, ""}); }

const char* kTrace = R"({"traceEvents": [
  {"ph":"X","cat":"cpu_op","name":"vllm::unified_attention_with_output","pid":1,"tid":1,"ts":0,"dur":5,
   "args":{"External id":1,"Input Dims":[[16,2,12],[16,1,12],[16,1,12],[16,2,12]],
           "Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16"]}},
  {"ph":"X","cat":"kernel","name":"fmhaSm100PagedKv","ts":0,"dur":4,"args":{"External id":1}},
  {"ph":"X","cat":"cpu_op","name":"vllm::moe_forward","pid":1,"tid":1,"ts":10,"dur":20,
   "args":{"External id":2,"Input Dims":[[16,64],[16,8],[]],"Input type":["c10::BFloat16","c10::BFloat16",""]}},
  {"ph":"X","cat":"kernel","name":"routingIndicesHistogramKernel","ts":10,"dur":2,"args":{"External id":2}},
  {"ph":"X","cat":"kernel","name":"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_swiGlu","ts":12,"dur":6,"args":{"External id":2}},
  {"ph":"X","cat":"kernel","name":"bmm_Bfloat16_MxE2m1MxE4m3_Fp32","ts":18,"dur":4,"args":{"External id":2}}
]})";

TraceHints hints_of(TransformerConfig c, std::uint64_t tp = 0) {
    TraceHints h;
    h.model = std::move(c);
    h.model_origin = "--hf-config small.json";
    h.tp = tp;
    return h;
}

const CategoryTime& moe_time(const Summary& s) { return s.categories[static_cast<std::size_t>(Category::moe)]; }

bool has_text(const std::vector<std::string>& lines, const std::string& what) {
    for (const std::string& l : lines)
        if (l.find(what) != std::string::npos)
            return true;
    return false;
}

}  // namespace

TEST(KinetoMoeConfig, FlopsAndBytesPerRankByHand) {
    const TransformerConfig c = small_moe();
    std::string why;
    const auto r = cost_moe_from_config("vllm::moe_forward", moe_forward(), c, {2, "test"}, "--hf-config small.json", why);
    ASSERT_TRUE(r) << why;
    EXPECT_EQ(r->shape, "T=16 E=8 k=2 H=48 I=32 d=2");
    EXPECT_EQ(r->category, Category::moe);
    EXPECT_EQ(r->dtype, "bf16");
    // FLOPs: 2·T·k·3·H·I / d = 2·16·2·3·48·32 / 2 = 294,912 / 2 = 147,456
    EXPECT_EQ(r->cost.flops, 147456u);
    // One expert in MXFP4 (4-bit + one 8-bit scale per 32 along K):
    //   gate_up [K=48, N=64]: 48·64·4/8 = 1536 + 64·⌈48/32⌉ = 128 scale bytes = 1664
    //   down    [K=32, N=48]: 32·48·4/8 =  768 + 48·⌈32/32⌉ =  48 scale bytes =  816  → 2480 B
    // touched: 8·(1 − (1 − 2/8)^16) = 8·(1 − 0.75^16) = 8·0.98997740424 = 7.919819234
    // weights per rank: round(7.919819234·2480 / 2) = round(9820.5759) = 9821
    // activations: hidden [16, 64] bf16 = 2048 B and logits [16, 8] = 256 B read, output [16, 64] = 2048 B written
    EXPECT_EQ(r->cost.bytes_read, 9821u + 2048u + 256u);
    EXPECT_EQ(r->cost.bytes_written, 2048u);
    EXPECT_EQ(r->cost.unit, Unit::tensor);
    EXPECT_EQ(r->cost.compute_dtype, DType::bf16);  // mxfp4 weights × bf16 activations: bf16 math (the engine's rule)
    bool labelled = false;
    for (const Param& p : r->params)
        if (p.name == "shapes_from")
            labelled = std::get<std::string>(p.value) == "--hf-config";
    EXPECT_TRUE(labelled);
}

TEST(KinetoMoeConfig, PlainMlpAndBf16WeightsWithoutAQuantizationConfig) {
    TransformerConfig c = small_moe();
    c.mlp = MlpKind::plain;
    c.weight_format.reset();
    std::string why;
    const auto r = cost_moe_from_config("vllm::moe_forward", moe_forward(), c, {1, "test"}, "--hf-config small.json", why);
    ASSERT_TRUE(r) << why;
    // FLOPs 2·16·2·2·48·32 / 1 = 196,608 (up and down only)
    EXPECT_EQ(r->cost.flops, 196608u);
    // one expert in bf16: (48·32 + 32·48)·2 = 6144 B; round(7.919819234·6144) = round(48659.37) = 48659
    EXPECT_EQ(r->cost.bytes_read, 48659u + 2048u + 256u);
}

TEST(KinetoMoeConfig, ExpertCountThatDoesNotMatchIsRefusedNamingBoth) {
    std::string why;
    EXPECT_FALSE(
        cost_moe_from_config("vllm::moe_forward", moe_forward(32), small_moe(), {1, "t"}, "--hf-config small.json", why));
    EXPECT_NE(why.find("give 32 experts"), std::string::npos) << why;
    EXPECT_NE(why.find("has 8 routed experts"), std::string::npos) << why;
    TransformerConfig dense = small_moe();
    dense.moe.reset();
    EXPECT_FALSE(cost_moe_from_config("vllm::moe_forward", moe_forward(), dense, {1, "t"}, "--hf-config d.json", why));
    EXPECT_NE(why.find("no routed experts"), std::string::npos) << why;
}

TEST(KinetoMoeConfig, DegreeFromTheAttentionOpsQueryHeadsElseTpElseOne) {
    const Trace t = parse_kineto(kTrace, "moe.json");
    const TransformerConfig c = small_moe();
    // 4 query heads in the config, 2 per rank in the trace: d = 2
    const ModelParallel mp = model_parallel_degree(t, c, 0);
    EXPECT_EQ(mp.degree, 2u);
    EXPECT_NE(mp.clue.find("vllm::unified_attention_with_output holds 2 of the config's 4"), std::string::npos) << mp.clue;
    EXPECT_EQ(model_parallel_degree(t, c, 2).degree, 2u);
    try {
        model_parallel_degree(t, c, 4);
        ADD_FAILURE() << "--tp 4 against a trace showing degree 2";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--tp"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("degree 2"), std::string::npos) << e.what();
    }
    // Head size 16 in the config: the trace's attention (head size 12) is not this model's; --tp, else 1.
    TransformerConfig other = c;
    other.head_dim = 16;
    EXPECT_EQ(model_parallel_degree(t, other, 4).degree, 4u);
    EXPECT_EQ(model_parallel_degree(t, other, 4).clue.rfind("--tp", 0), 0u);
    EXPECT_EQ(model_parallel_degree(t, other, 0).degree, 1u);
}

// Without the hints nothing changes; with them every kernel under moe_forward lands in its group.
TEST(KinetoMoeConfig, SummaryCostsTheOpsKernelsAndSaysHow) {
    const Trace t = parse_kineto(kTrace, "moe.json");
    const Links links = link_activities(t);
    const Summary before = summarize(t, links);
    EXPECT_EQ(moe_time(before).costed, 0u);
    EXPECT_EQ(moe_time(before).kernels, 3u);
    EXPECT_TRUE(before.notes.empty());

    const Summary s = summarize(t, links, hints_of(small_moe()));
    EXPECT_EQ(moe_time(s).kernels, 3u);
    EXPECT_EQ(moe_time(s).costed, 3u);
    EXPECT_DOUBLE_EQ(moe_time(s).uncosted_busy_us, 0.0);
    const Group* g = nullptr;
    for (const Group& x : s.groups)
        if (x.what.op == "vllm::moe_forward")
            g = &x;
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->what.shape, "T=16 E=8 k=2 H=48 I=32 d=2");  // d from the attention op: 4 / 2
    EXPECT_EQ(g->calls, 1u);
    EXPECT_EQ(g->kernels, 3u);
    EXPECT_DOUBLE_EQ(g->kernel_us, 12.0);  // 2 + 6 + 4
    EXPECT_EQ(g->what.cost.flops, 147456u);
    EXPECT_TRUE(has_text(s.notes, "1 MoE ops costed from --hf-config small.json")) << s.notes.front();
    EXPECT_TRUE(has_text(s.notes, "d = 2 ranks (attention heads"));
}

TEST(KinetoMoeConfig, SummaryWithAMismatchedOrDenseConfigCostsNothingAndSaysWhy) {
    const Trace t = parse_kineto(kTrace, "moe.json");
    const Links links = link_activities(t);
    TransformerConfig wrong = small_moe();
    wrong.moe->experts = 32;
    const Summary s = summarize(t, links, hints_of(wrong));
    EXPECT_EQ(moe_time(s).costed, 0u);
    bool named = false;
    for (const KernelRow& k : s.kernels)
        if (k.category == Category::moe)
            named = k.reason.find("give 8 experts, --hf-config small.json has 32") != std::string::npos;
    EXPECT_TRUE(named);
    EXPECT_TRUE(has_text(s.warnings, "1 MoE ops not costed from --hf-config small.json"));

    TransformerConfig dense = small_moe();
    dense.moe.reset();
    const Summary d = summarize(t, links, hints_of(dense));
    EXPECT_EQ(moe_time(d).costed, 0u);
    EXPECT_TRUE(has_text(d.notes, "small-moe has no routed experts; no op costed from it"));
}

// Without a config, a MoE op's reason says what its inputs lack: expert weights (hidden states and router
// logits only, vLLM's moe_forward), or, with 3-D expert weights there, the integer [T, k] top-k ids (a
// floating [T, k] may be top-k weights, router logits or per-token scales).
TEST(KinetoMoeConfig, ReasonNamesWhatTheMoeOpsInputsLack) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "vllm::rocm_aiter_fused_moe", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
       "args": {"External id": 1, "Input Dims": [[16, 64], [4, 128, 64], [4, 64, 64], [16, 2]],
                "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float"]}},
      {"ph": "X", "cat": "kernel", "name": "aiter_fused_moe_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 20,
       "args": {"External id": 1, "device": 0, "stream": 7}},
      {"ph": "X", "cat": "cpu_op", "name": "vllm::moe_forward", "pid": 1, "tid": 1, "ts": 200, "dur": 50,
       "args": {"External id": 2, "Input Dims": [[16, 64], [16, 4]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
      {"ph": "X", "cat": "kernel", "name": "fused_moe_kernel", "pid": 0, "tid": 7, "ts": 210, "dur": 20,
       "args": {"External id": 2, "device": 0, "stream": 7}}
    ]})",
                                 "moe_reasons.json");
    const Summary s = summarize(t);
    std::map<std::string, std::string> reason;
    for (const KernelRow& k : s.kernels)
        reason[k.name] = k.reason;
    EXPECT_EQ(reason["aiter_fused_moe_kernel"],
              "no top-k expert ids (an integer [T, k] input) among the inputs of vllm::rocm_aiter_fused_moe");
    EXPECT_EQ(reason["fused_moe_kernel"], "no expert-weight shapes among the inputs of vllm::moe_forward");
}

// A floating [T, k] never gives k: AITER's fused MoE ops pass their routing as 1-D sorted ids and weights
// and topk as an int, beside a per-token activation scale fp32 [T, 1] (fmoe_g1u1) or a block scale
// [T, H/128] (fmoe_fp8_blockscale_g1u1), which read as k = 1 or k = H/128 would cost 1/k or H/128/k of the
// FLOPs (here T = 16, H = 256, E = 8 experts of I = 32, k = 8 as an int scalar; pad = T·k + E·32 − k = 376).
TEST(KinetoMoeConfig, PerTokenScalesAreNotTopKWeights) {
    const CpuOp per_token = op_of({{16, 256}, {16, 256}, {8, 64, 256}, {8, 256, 32}, {376}, {376}, {11}, {2}, {}, {16, 1}},
                                  {"c10::BFloat16", "c10::Float8_e4m3fnuz", "c10::Float8_e4m3fnuz", "c10::Float8_e4m3fnuz", "int",
                                   "float", "int", "int", "Scalar", "float"});
    EXPECT_FALSE(cost_cpu_op("aiter::fmoe_g1u1", per_token));
    const CpuOp block = op_of({{16, 256}, {16, 256}, {8, 64, 256}, {8, 256, 32}, {376}, {376}, {11}, {2}, {}, {16, 2}},
                              {"c10::BFloat16", "c10::Float8_e4m3fnuz", "c10::Float8_e4m3fnuz", "c10::Float8_e4m3fnuz", "int",
                               "float", "int", "int", "Scalar", "float"});
    EXPECT_FALSE(cost_cpu_op("aiter::fmoe_fp8_blockscale_g1u1", block));
    // top-k weights [16, 2] beside no ids: as uncosted as the scales (k = 2 < E = 4 would look the same)
    EXPECT_FALSE(cost_cpu_op("vllm::rocm_aiter_fused_moe", op_of({{16, 64}, {4, 128, 64}, {4, 64, 64}, {16, 2}},
                                                                 {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float"})));
}

// AITER's fmoe_g1u1 with MXFP4 activations packed two to a byte (uint8 [T, H/2]) and e8m0 scales [T, H/32]:
// neither is a top-k id tensor (the old rule, "any non-float type", read k = 3584 from [512, 3584] and
// k = 224 from the scales). Ids are int32/int64 only; here the op is uncosted.
TEST(KinetoMoeConfig, PackedFp4ActivationsAndE8m0ScalesAreNotTopKIds) {
    const std::vector<std::vector<std::int64_t>> dims{
        {512, 7168}, {512, 3584}, {256, 4096, 3584}, {256, 7168, 1024}, {8192}, {8192}, {64}, {1}, {}, {512, 224}};
    EXPECT_FALSE(cost_cpu_op("aiter::fmoe_g1u1", op_of(dims, {"c10::BFloat16", "unsigned char", "unsigned char", "unsigned char",
                                                              "int", "float", "int", "int", "Scalar", "unsigned char"})));
    EXPECT_FALSE(cost_cpu_op("aiter::fmoe_g1u1", op_of(dims, {"c10::BFloat16", "c10::Float4_e2m1fn_x2", "c10::Float4_e2m1fn_x2",
                                                              "c10::Float4_e2m1fn_x2", "int", "float", "int", "int", "Scalar",
                                                              "c10::Float8_e8m0fnu"})));
    for (const char* bad : {"bool", "unsigned char", "c10::Float8_e8m0fnu", "short int"})
        EXPECT_FALSE(cost_cpu_op("vllm::rocm_aiter_fused_moe", op_of({{16, 64}, {4, 128, 64}, {4, 64, 64}, {16, 2}},
                                                                     {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", bad})))
            << bad;
    // int32 and int64 ids [16, 2] are read: k = 2; W1 [4, 128, 64]: 2·16·2·128·64 = 524288, W2 [4, 64, 64]:
    // 2·16·2·64·64 = 262144, total 786432 FLOPs.
    for (const char* ok : {"int", "long int"}) {
        const auto c = cost_cpu_op("vllm::rocm_aiter_fused_moe", op_of({{16, 64}, {4, 128, 64}, {4, 64, 64}, {16, 2}},
                                                                       {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", ok}));
        ASSERT_TRUE(c) << ok;
        EXPECT_EQ(c->cost.flops, 786432u) << ok;
    }
}
