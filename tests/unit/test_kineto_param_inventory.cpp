// The parameter inventory of a training trace (its AccumulateGrad ops) and the tensor-list shapes of optimizer ops
// inferred from it when Kineto wrote their lists as [] (src/ingest/kineto_param_inventory.cpp; docs/formulas.md,
// "Tensor-list ops"): small hand-made ops for the rules, the H100 traces recorded here for the whole path.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../../src/cli/inventory_hbm.h"
#include "../../src/ingest/kineto_param_inventory.h"
#include "bwacct/catalog.h"
#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::DType;
using test::bf;

const std::string kMulBf16 =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<c10::BFloat16, 1, 1, 0>, "
    "std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<1>)";
const std::string kMulFp32 =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
    "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, "
    "std::multiplies<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<1>)";

// An AccumulateGrad op on thread 1 (the autograd engine's device thread; the optimizer calls run on thread 0, the
// training loop's).
CpuOp grad(double ts, std::vector<std::int64_t> shape, const std::string& type = bf) {
    CpuOp o = test::op_of({std::move(shape)}, {type});
    o.ts = ts;
    o.thread = 1;
    return o;
}

// `n` AccumulateGrad ops of [256, 4] bf16 from ts `from`, one µs apart.
std::vector<CpuOp> grads(std::size_t n, double from) {
    std::vector<CpuOp> g;
    for (std::size_t i = 0; i < n; ++i)
        g.push_back(grad(from + static_cast<double>(i), {256, 4}));
    return g;
}

std::vector<const CpuOp*> ptrs(const std::vector<CpuOp>& v) {
    std::vector<const CpuOp*> p;
    for (const CpuOp& o : v)
        p.push_back(&o);
    return p;
}

// _foreach_mul_(list, 0.9) with its list written [] (more than 30 tensors).
CpuOp shapeless_mul(double ts) {
    CpuOp o = test::op_of({{}, {}}, {"TensorList", "Scalar"}, {"", "0.9"});
    o.ts = ts;
    return o;
}

// The same with its list spelled out: `n` tensors of [256, 4].
CpuOp shaped_mul(double ts, std::size_t n) {
    CpuOp o;
    o.dims = InputDims({{}, {}}, {tensor_list_dims(0, std::vector<std::vector<std::int64_t>>(n, {256, 4}))});
    o.types = {"TensorList", "Scalar"};
    o.concrete = {"", "0.9"};
    o.ts = ts;
    return o;
}

ListCall call(std::size_t op, const CpuOp& cpu, double kernel_us, const std::string& kernel = kMulBf16) {
    return ListCall{op, &cpu, "aten::_foreach_mul_", kernel, kernel_us};
}

const HbmRoof kRoof{"test-gpu", 1000};  // 1000 GB/s: 1e6 B per µs

// The launches the rule sees (ThreadClues): thread 0 (the training loop's, which calls the optimizer and runs the
// forward) launches GPU work 0.5 µs before the first AccumulateGrad op and before each one more than 5 µs after the
// previous (a new backward pass; these ops are one µs apart within a pass); the AccumulateGrad ops run on thread 1.
ThreadClues forward_before(const std::vector<const CpuOp*>& grads) {
    ThreadClues c;
    for (std::size_t i = 0; i < grads.size(); ++i)
        if (i == 0 || grads[i]->ts - grads[i - 1]->ts > 5)
            c.launches.emplace_back(grads[i]->ts - 0.5, 0);
    std::sort(c.launches.begin(), c.launches.end());
    return c;
}

ListInference infer_list_shapes_(std::vector<ListCall> calls, std::vector<const CpuOp*> grads,
                                 const std::optional<HbmRoof>& hbm) {
    std::vector<const CpuOp*> sorted = grads;
    std::sort(sorted.begin(), sorted.end(), [](const CpuOp* a, const CpuOp* b) { return a->ts < b->ts; });
    const ThreadClues clues = forward_before(sorted);
    return infer_list_shapes(std::move(calls), std::move(grads), clues, hbm);
}

std::string param(const OpCost& c, const std::string& name) {
    for (const auto& p : c.params)
        if (p.name == name)
            return std::get<std::string>(p.value);
    return "";
}

TEST(KinetoParamInventory, OnePeriodOfTheAccumulateGradSequence) {
    const CpuOp a = grad(1, {4, 8}), b = grad(2, {8}), c = grad(3, {16, 4}, "float"), a32 = grad(4, {4, 8}, "float");
    std::string why;
    const auto at = [](std::size_t n, std::vector<std::size_t> breaks) {
        std::vector<bool> v(n, false);
        for (const std::size_t i : breaks)
            v[i] = true;
        return v;
    };
    // A, B, C twice (gradient accumulation: two backward passes, a forward between them): period 3
    auto inv = parameter_inventory({&a, &b, &c, &a, &b, &c}, at(6, {3}), why);
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->shapes, (std::vector<std::vector<std::int64_t>>{{4, 8}, {8}, {16, 4}}));
    EXPECT_EQ(inv->dtypes, (std::vector<DType>{DType::bf16, DType::bf16, DType::fp32}));
    EXPECT_EQ(inv->passes, 2u);
    EXPECT_EQ(inv->grads, 6u);
    // the same without the break: one backward pass of six parameters
    inv = parameter_inventory({&a, &b, &c, &a, &b, &c}, at(6, {}), why);
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->shapes.size(), 6u);
    EXPECT_EQ(inv->passes, 1u);
    // one pass of four identical shapes is not folded to one; two passes of two are, with the break between
    inv = parameter_inventory({&a, &a, &a, &a}, at(4, {}), why);
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->shapes.size(), 4u);
    inv = parameter_inventory({&a, &a, &a, &a}, at(4, {2}), why);
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->shapes.size(), 2u);
    EXPECT_EQ(inv->passes, 2u);
    // A, B, A: no period dividing 3 but 3 itself
    inv = parameter_inventory({&a, &b, &a}, at(3, {1, 2}), why);
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->shapes.size(), 3u);
    EXPECT_EQ(inv->passes, 1u);
    // A, A, B, A, A, B: period 3 (1 and 2 fail at B)
    inv = parameter_inventory({&a, &a, &b, &a, &a, &b}, at(6, {1, 2, 3, 4, 5}), why);
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->shapes.size(), 3u);
    EXPECT_EQ(inv->passes, 2u);
    // the same shape in two dtypes is two parameters: period 2, not 1
    inv = parameter_inventory({&a, &a32}, at(2, {1}), why);
    ASSERT_TRUE(inv);
    EXPECT_EQ(inv->shapes.size(), 2u);
    // an AccumulateGrad op without a shape (record_shapes off) or a floating type: none
    const CpuOp bare = test::op_of({}, {});
    EXPECT_FALSE(parameter_inventory({&a, &bare}, at(2, {}), why));
    EXPECT_NE(why.find("without a parameter shape"), std::string::npos);
    EXPECT_FALSE(parameter_inventory({}, {}, why));
}

TEST(KinetoParamInventory, AShapelessCallIsCostedFromTheParametersOfItsType) {
    // 40 bf16 parameters [256, 4] (40 · 1024 = 40,960 elements) before one _foreach_mul_ on bf16 (the kernel's
    // functor): read 2 · 40,960 = 81,920 B, written 81,920 B, 40,960 FLOPs. Floor at 1000 GB/s: 163,840 B /
    // 1e6 B/µs = 0.164 µs ≤ 1 µs ran.
    const std::vector<CpuOp> g = grads(40, 1);
    const CpuOp op = shapeless_mul(100);
    const ListInference r = infer_list_shapes_({call(7, op, 1.0)}, ptrs(g), kRoof);
    ASSERT_EQ(r.costs.count(7), 1u) << (r.refusals.empty() ? "" : r.refusals.begin()->second);
    const OpCost& c = r.costs.at(7);
    EXPECT_EQ(c.cost.bytes_read, 81920u);
    EXPECT_EQ(c.cost.bytes_written, 81920u);
    EXPECT_EQ(c.cost.flops, 40960u);
    EXPECT_NE(c.shape.find("inferred"), std::string::npos);
    EXPECT_EQ(param(c, "shapes_from"), "inferred");
    EXPECT_EQ(param(c, "inferred_from"), "list shapes inferred from the trace's 40 AccumulateGrad parameters (40960 elements)");

    // Two backward passes (80 AccumulateGrad ops) before the step: the same 40 parameters, not 80.
    std::vector<CpuOp> twice = grads(40, 1), second = grads(40, 50);
    twice.insert(twice.end(), second.begin(), second.end());
    const ListInference r2 = infer_list_shapes_({call(7, op, 1.0)}, ptrs(twice), kRoof);
    ASSERT_EQ(r2.costs.count(7), 1u);
    EXPECT_EQ(r2.costs.at(7).cost.bytes_read, 81920u);
    EXPECT_NE(param(r2.costs.at(7), "inferred_from").find("one of 2 backward passes: 80 AccumulateGrad ops"), std::string::npos);
}

TEST(KinetoParamInventory, RefusalsSayWhy) {
    const std::vector<CpuOp> g = grads(40, 1);
    const CpuOp op = shapeless_mul(100);
    const auto refusal = [](const ListInference& r, std::size_t i) {
        EXPECT_TRUE(r.costs.empty());
        return r.refusals.count(i) ? r.refusals.at(i) : std::string("(none)");
    };
    // faster than HBM allows: 0.1 µs < 0.164 µs (not these lists, or one list passed twice and read once)
    EXPECT_NE(refusal(infer_list_shapes_({call(7, op, 0.1)}, ptrs(g), kRoof), 7)
                  .find("faster than that peak allows: its lists may not be these, or an input list may be passed twice "
                        "(read once)"),
              std::string::npos);
    // no GPU: nothing inferred
    EXPECT_NE(refusal(infer_list_shapes_({call(7, op, 1.0)}, ptrs(g), std::nullopt), 7).find("give --gpu"), std::string::npos);
    // an fp32 kernel: the inventory holds no fp32 tensor
    EXPECT_NE(refusal(infer_list_shapes_({call(7, op, 1.0, kMulFp32)}, ptrs(g), kRoof), 7).find("hold 0 fp32 tensors"),
              std::string::npos);
    // 30 parameters: Kineto would have spelled the list out
    EXPECT_NE(refusal(infer_list_shapes_({call(7, op, 1.0)}, ptrs(grads(30, 1)), kRoof), 7).find("hold 30 bf16 tensors"),
              std::string::npos);
    // two shapeless calls of the same op and type between two backward passes (two parameter groups): neither
    const CpuOp op2 = shapeless_mul(101);
    const ListInference two = infer_list_shapes_({call(7, op, 1.0), call(8, op2, 1.0)}, ptrs(g), kRoof);
    EXPECT_TRUE(two.costs.empty());
    ASSERT_EQ(two.refusals.size(), 2u);
    EXPECT_NE(two.refusals.at(8).find("2 calls of aten::_foreach_mul_ (bf16)"), std::string::npos);
    EXPECT_NE(two.refusals.at(8).find("the trace does not show which of its 40 AccumulateGrad parameters each of the 2 calls "
                                      "covers"),
              std::string::npos);
    // no AccumulateGrad op before the call
    EXPECT_NE(refusal(infer_list_shapes_({call(7, op, 1.0)}, ptrs(grads(40, 200)), kRoof), 7).find("no AccumulateGrad op"),
              std::string::npos);
}

TEST(KinetoParamInventory, EachIntervalHasItsOwnBackwardPass) {
    // backward, step, backward, step: one call per interval, each costed from its own 40 parameters
    std::vector<CpuOp> g = grads(40, 1), later = grads(40, 200);
    g.insert(g.end(), later.begin(), later.end());
    const CpuOp first = shapeless_mul(100), second = shapeless_mul(300);
    const ListInference r = infer_list_shapes_({call(8, second, 1.0), call(7, first, 1.0)}, ptrs(g), kRoof);
    ASSERT_EQ(r.costs.size(), 2u);
    EXPECT_EQ(r.costs.at(7).cost.bytes_read, 81920u);
    EXPECT_EQ(r.costs.at(8).cost.bytes_read, 81920u);
    EXPECT_EQ(param(r.costs.at(8), "inferred_from").find("backward passes"), std::string::npos);
}

TEST(KinetoParamInventory, ABackwardPassWithoutItsForwardIsRefused) {
    // A trace starting mid-backward holds only the AccumulateGrad ops after its start: 34 of 39 parameters would be
    // costed as all of them. The rule asks for a launch by the optimizer's thread (the forward) before the run: none here.
    const std::vector<CpuOp> g = grads(40, 1);
    const CpuOp op = shapeless_mul(100);
    ListInference r = infer_list_shapes({call(7, op, 1.0)}, ptrs(g), ThreadClues{}, kRoof);
    EXPECT_TRUE(r.costs.empty());
    ASSERT_EQ(r.refusals.count(7), 1u);
    EXPECT_NE(r.refusals.at(7).find("the optimizer's thread launched no GPU work between the trace's start and the first "
                                    "of its 40 AccumulateGrad ops"),
              std::string::npos)
        << r.refusals.at(7);
    // launches of the AccumulateGrad ops' own thread (1: the backward's) are no forward, nor a side thread's (5: a
    // prefetch copy or a metrics read in the same process)
    r = infer_list_shapes({call(7, op, 1.0)}, ptrs(g), ThreadClues{{{0.5, 1}, {0.6, 5}}, {}}, kRoof);
    EXPECT_TRUE(r.costs.empty());
    // the forward's launch (thread 0, the optimizer's) at 0.5 µs, before the first at 1 µs: costed (81,920 B read)
    r = infer_list_shapes({call(7, op, 1.0)}, ptrs(g), ThreadClues{{{0.5, 0}}, {}}, kRoof);
    ASSERT_EQ(r.costs.count(7), 1u);
    EXPECT_EQ(r.costs.at(7).cost.bytes_read, 81920u);
    // a second step whose run (from 200 µs) has no launch of the optimizer's thread after the first step's call (100 µs)
    std::vector<CpuOp> two = grads(40, 1), later = grads(40, 200);
    two.insert(two.end(), later.begin(), later.end());
    const CpuOp next = shapeless_mul(300);
    r = infer_list_shapes({call(7, op, 1.0), call(8, next, 1.0)}, ptrs(two), ThreadClues{{{0.5, 0}, {99, 0}}, {}}, kRoof);
    EXPECT_EQ(r.costs.count(7), 1u);
    ASSERT_EQ(r.refusals.count(8), 1u);
    EXPECT_NE(r.refusals.at(8).find("between the previous optimizer ops and the first"), std::string::npos);
}

TEST(KinetoParamInventory, OnlyTheTrainingLoopsLaunchesSplitBackwardPasses) {
    // 80 AccumulateGrad ops [256, 4] one µs apart (1 to 80 µs), the forward's launch (thread 0) at 0.5 µs. A side
    // thread's launch (5: a prefetch copy) between ops 40 and 41 is no new forward: one pass of 80 parameters, read
    // 2 · 80 · 1024 = 163,840 B. The loop's own launch there is the next micro-batch's forward: two passes of 40,
    // read 2 · 40 · 1024 = 81,920 B.
    const std::vector<CpuOp> g = grads(80, 1);
    const CpuOp op = shapeless_mul(100);
    ListInference r = infer_list_shapes({call(7, op, 1.0)}, ptrs(g), ThreadClues{{{0.5, 0}, {40.5, 5}}, {}}, kRoof);
    ASSERT_EQ(r.costs.count(7), 1u);
    EXPECT_EQ(r.costs.at(7).cost.bytes_read, 163840u);
    r = infer_list_shapes({call(7, op, 1.0)}, ptrs(g), ThreadClues{{{0.5, 0}, {40.5, 0}}, {}}, kRoof);
    ASSERT_EQ(r.costs.count(7), 1u);
    EXPECT_EQ(r.costs.at(7).cost.bytes_read, 81920u);
    // AccumulateGrad ops on the optimizer's own thread: its launches cannot tell a forward from the backward: refused
    std::vector<CpuOp> same = grads(40, 1);
    for (CpuOp& o : same)
        o.thread = 0;
    r = infer_list_shapes({call(7, op, 1.0)}, ptrs(same), ThreadClues{{{0.5, 0}}, {}}, kRoof);
    ASSERT_EQ(r.refusals.count(7), 1u);
    EXPECT_NE(r.refusals.at(7).find("run on the optimizer's own thread"), std::string::npos) << r.refusals.at(7);
}

TEST(KinetoParamInventory, EachProcessTakesItsOwnAccumulateGradOps) {
    // A merged two-rank trace: process "100" (threads 0, 1) has 40 bf16 parameters [256, 4], process "200" (threads
    // 2, 3) 35 of [128, 4], their AccumulateGrad ops interleaved in time (thread 0 and 2: the backward threads; 1
    // and 3: the forwards'). Each _foreach_mul_ (bf16) takes its own process's: 100: read 2 · 40 · 1024 = 81,920 B;
    // 200: 2 · 35 · 512 = 35,840 B. Mixed, both runs would make one interval with two calls (refused).
    std::vector<CpuOp> g;
    for (std::size_t i = 0; i < 40; ++i) {
        g.push_back(grad(1 + static_cast<double>(i), {256, 4}));
        g.back().thread = 0;
        if (i < 35) {
            g.push_back(grad(1.5 + static_cast<double>(i), {128, 4}));
            g.back().thread = 2;
        }
    }
    CpuOp a = shapeless_mul(100), b = shapeless_mul(101);
    a.thread = 1;
    b.thread = 3;
    const ThreadClues clues{{{0.5, 1}, {0.7, 3}}, {"100", "100", "200", "200"}};
    const ListInference r = infer_list_shapes({call(7, a, 1.0), call(8, b, 1.0)}, ptrs(g), clues, kRoof);
    ASSERT_EQ(r.costs.size(), 2u) << (r.refusals.empty() ? "" : r.refusals.begin()->second);
    EXPECT_EQ(r.costs.at(7).cost.bytes_read, 81920u);
    EXPECT_EQ(r.costs.at(8).cost.bytes_read, 35840u);
    EXPECT_NE(param(r.costs.at(8), "inferred_from").find("35 AccumulateGrad parameters (17920 elements)"), std::string::npos);
    // another process's launch is not this one's forward: process 200 without its own launch is refused
    const ThreadClues only_100{{{0.5, 1}}, {"100", "100", "200", "200"}};
    const ListInference r2 = infer_list_shapes({call(7, a, 1.0), call(8, b, 1.0)}, ptrs(g), only_100, kRoof);
    EXPECT_EQ(r2.costs.count(7), 1u);
    EXPECT_EQ(r2.refusals.count(8), 1u);
}

TEST(KinetoParamInventory, AStepCounterIncrementIsNeverTheParameters) {
    // 40 fp32 parameters [256, 4]: _foreach_add_(list, 1) on fp32 as those would read and write 4 · 40,960 =
    // 163,840 B each, 0.33 µs at 1000 GB/s, under the 1 µs it ran: the floor passes, but one list and the Scalar 1
    // is a step-counter increment (one 0-dim step count per parameter): refused. _foreach_add_(list, 1e-08)
    // (foreach Adam's eps) is not: costed, read 163,840 B.
    std::vector<CpuOp> g;
    for (std::size_t i = 0; i < 40; ++i)
        g.push_back(grad(1 + static_cast<double>(i), {256, 4}, "float"));
    const auto add = [](double ts, const std::string& scalar) {
        CpuOp o = test::op_of({{}, {}}, {"TensorList", "Scalar"}, {"", scalar});
        o.ts = ts;
        return o;
    };
    const CpuOp steps = add(100, "1"), eps = add(100, "1e-08");
    const auto add_call = [](std::size_t i, const CpuOp& cpu) { return ListCall{i, &cpu, "aten::_foreach_add_", kMulFp32, 1.0}; };
    ListInference r = infer_list_shapes_({add_call(7, steps)}, ptrs(g), kRoof);
    EXPECT_TRUE(r.costs.empty());
    ASSERT_EQ(r.refusals.count(7), 1u);
    EXPECT_NE(r.refusals.at(7).find("and the Scalar 1 may be an optimizer's step-counter increment"), std::string::npos)
        << r.refusals.at(7);
    // a Scalar the trace does not record (Concrete Inputs ""): refused too, saying the value is unknown
    const CpuOp unknown = add(100, "");
    r = infer_list_shapes_({add_call(7, unknown)}, ptrs(g), kRoof);
    ASSERT_EQ(r.refusals.count(7), 1u);
    EXPECT_NE(r.refusals.at(7).find("a Scalar the trace does not record"), std::string::npos) << r.refusals.at(7);
    r = infer_list_shapes_({add_call(7, eps)}, ptrs(g), kRoof);
    ASSERT_EQ(r.costs.count(7), 1u);
    EXPECT_EQ(r.costs.at(7).cost.bytes_read, 163840u);
}

TEST(KinetoParamInventory, SizesPastSixtyFourBitsAreARefusalNotAnError) {
    // 40 AccumulateGrad ops of [2^31, 2^31] (2^62 elements each): their sum overflows 64 bits. The call is refused;
    // nothing escapes the trace.
    std::vector<CpuOp> g;
    for (std::size_t i = 0; i < 40; ++i)
        g.push_back(grad(1 + static_cast<double>(i), {2147483648, 2147483648}));
    const CpuOp op = shapeless_mul(100);
    ListInference r;
    EXPECT_NO_THROW(r = infer_list_shapes_({call(7, op, 1.0)}, ptrs(g), kRoof));
    EXPECT_TRUE(r.costs.empty());
    ASSERT_EQ(r.refusals.count(7), 1u);
    EXPECT_NE(r.refusals.at(7).find("overflow 64-bit counts"), std::string::npos) << r.refusals.at(7);
}

TEST(KinetoParamInventory, ShapedCallsOfTheSameOpLeaveTheirTensorsOut) {
    const std::vector<CpuOp> g = grads(40, 1);
    const CpuOp op = shapeless_mul(100);
    // a group of 5 shaped tensors beside the [] list: 40 − 5 = 35 > 30 remain; read 2 · 35 · 1024 = 71,680 B
    const CpuOp five = shaped_mul(99, 5);
    ListInference r = infer_list_shapes_({call(6, five, 1.0), call(7, op, 1.0)}, ptrs(g), kRoof);
    ASSERT_EQ(r.costs.count(7), 1u);
    EXPECT_EQ(r.costs.at(7).cost.bytes_read, 71680u);
    EXPECT_NE(param(r.costs.at(7), "inferred_from").find("35 AccumulateGrad parameters (35840 elements) less the 5 tensors"),
              std::string::npos);
    // a group of 10: 30 remain, and a list of 30 would have been spelled out
    const CpuOp ten = shaped_mul(99, 10);
    r = infer_list_shapes_({call(6, ten, 1.0), call(7, op, 1.0)}, ptrs(g), kRoof);
    EXPECT_TRUE(r.costs.empty());
    EXPECT_NE(r.refusals.at(7).find("hold 30 bf16 tensors less the 10 tensors"), std::string::npos);
    // a shaped tensor that is no parameter: refused
    CpuOp odd = shaped_mul(99, 1);
    odd.dims = InputDims({{}, {}}, {tensor_list_dims(0, {{3, 3}})});
    r = infer_list_shapes_({call(6, odd, 1.0), call(7, op, 1.0)}, ptrs(g), kRoof);
    EXPECT_NE(r.refusals.at(7).find("[3x3]"), std::string::npos);
}

TEST(KinetoParamInventory, ParameterListsFollowTheOpSchema) {
    // _fused_adamw_ fp32, weight decay 0.01, amsgrad False, over the docs' worked example's parameters [256] and
    // [256, 4] (E = 1,280): read 4 · 1,280 · 4 + 2 · 4 (step counts) = 20,488 B, write 3 · 1,280 · 4 = 15,360 B,
    // 15 · 1,280 = 19,200 FLOPs (docs/formulas.md, "Tensor-list ops").
    const CpuOp adam = test::op_of({{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}},
                                   {"TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "TensorList", "Scalar",
                                    "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"},
                                   {"", "", "", "", "", "", "0.001", "0.9", "0.999", "0.01", "1e-08", "False", "False"});
    const auto filled = with_parameter_lists("aten::_fused_adamw_", adam, {{256}, {256, 4}});
    ASSERT_TRUE(filled);
    const auto c = cost_list_op("aten::_fused_adamw_", *filled, ElementType{DType::fp32, "fp32", std::nullopt});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 20488u);
    EXPECT_EQ(c->cost.bytes_written, 15360u);
    EXPECT_EQ(c->cost.flops, 19200u);
    // SGD without momentum (0): params and grads only; read 2 · 1,280 · 4 = 10,240 B, write 5,120 B, 2 · 1,280 FLOPs
    const CpuOp sgd = test::op_of(
        {{}, {}, {}, {}, {}, {}, {}, {}, {}, {}},
        {"TensorList", "TensorList", "TensorList", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"},
        {"", "", "", "0", "0", "0.1", "0", "False", "False", "False"});
    const auto s = cost_list_op("aten::_fused_sgd_", *with_parameter_lists("aten::_fused_sgd_", sgd, {{256}, {256, 4}}),
                                ElementType{DType::fp32, "fp32", std::nullopt});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->cost.bytes_read, 10240u);
    EXPECT_EQ(s->cost.bytes_written, 5120u);
    EXPECT_EQ(s->cost.flops, 2560u);
    // cat is no optimizer list: not filled
    EXPECT_FALSE(with_parameter_lists("aten::cat", test::op_of({{}, {}}, {"TensorList", "Scalar"}), {{256}}));
}

// The HBM peak the inferred bytes are checked against (src/cli/inventory_hbm.cpp): the trace's own GPU, else the
// highest among the --gpu given whatever their order; a --baseline trace's by its own GPU the same way.
TEST(KinetoParamInventory, TheHbmPeakIsTheTracesOwnElseTheHighestGiven) {
    const bwacct::Catalog c = bwacct::Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    const bwacct::GpuSpec* a100 = &c.get("a100-sxm-80gb", "test");
    const bwacct::GpuSpec* h100 = &c.get("h100-sxm", "test");
    // no GPU in the trace: configs/gpus.json's H100 SXM 3350 GB/s > A100 SXM 80GB 2039 GB/s, in either order
    for (const auto& given : {std::vector<const bwacct::GpuSpec*>{a100, h100}, std::vector<const bwacct::GpuSpec*>{h100, a100}}) {
        const auto roof = bwacct::cli::inventory_hbm("", c, given);
        ASSERT_TRUE(roof);
        EXPECT_EQ(roof->gpu, "h100-sxm");
        EXPECT_EQ(roof->GBps, 3350);
    }
    // a trace (or baseline) recorded on an A100 keeps its own 2039 GB/s whatever --gpu says
    const auto own = bwacct::cli::inventory_hbm("NVIDIA A100-SXM4-80GB", c, {h100});
    ASSERT_TRUE(own);
    EXPECT_EQ(own->gpu, "a100-sxm-80gb");
    EXPECT_EQ(own->GBps, 2039);
    // neither: nothing to check against
    EXPECT_FALSE(bwacct::cli::inventory_hbm("", c, {}));
}

// ---- The H100 traces recorded here (tests/data/corpus/torch-trace/h100_bwacct_make_traces_*, with their .src.txt).

const HbmRoof kH100{"h100-sxm", 3350};  // configs/gpus.json's H100 SXM HBM3 peak, 3.35 TB/s

Summary h100_summary(const std::string& workload, std::optional<HbmRoof> hbm = kH100) {
    Trace t = read_kineto(std::string(BWACCT_TEST_DATA) + "/corpus/torch-trace/h100_bwacct_make_traces_" + workload + ".json.gz");
    drop_idle_ops(t);
    TraceHints h;
    h.hbm = std::move(hbm);
    return summarize(t, link_activities(t), h);
}

const Group* inferred_group(const Summary& s, const std::string& op) {
    for (const Group& g : s.groups)
        if (g.what.op == op && param(g.what, "shapes_from") == "inferred")
            return &g;
    return nullptr;
}

std::string reason_of(const Summary& s, const std::string& op) {
    for (const KernelRow& k : s.kernels)
        if (k.op == op && !k.reason.empty())
            return k.reason;
    return "(costed)";
}

// Llama (hidden 2048, 4 layers, intermediate 5632, 4 KV heads of 128, vocab 32000, untied): 39 parameters, P =
// 2·32000·2048 (embedding, lm_head) + 4·(2·2048² (q, o) + 2·512·2048 (k, v) + 3·5632·2048 (MLP) + 2·2048 (norms))
// + 2048 (final norm) = 131,072,000 + 4·45,092,864 + 2048 = 311,445,504 bf16 elements.
// Fused AdamW, weight decay 0.01, no amsgrad, no grad_scale: read p, g, m, v 4·2·P = 2,491,564,032 B + 39 fp32
// step counts 156 B = 2,491,564,188 B; write p, m, v 3·2·P = 1,868,673,024 B; 15·P = 4,671,682,560 FLOPs.
TEST(KinetoParamInventory, LlamaTrainFusedAdamwFromItsAccumulateGradOps) {
    for (const std::string w : {"llama_train_bf16", "llama_train_accum2_bf16"}) {
        const Summary s = h100_summary(w);
        const Group* g = inferred_group(s, "aten::_fused_adamw_");
        ASSERT_TRUE(g) << w;
        EXPECT_EQ(g->calls, 1u);
        EXPECT_EQ(g->what.cost.bytes_read, 2491564188u) << w;
        EXPECT_EQ(g->what.cost.bytes_written, 1868673024u) << w;
        EXPECT_EQ(g->what.cost.flops, 4671682560u) << w;
        EXPECT_NE(param(g->what, "inferred_from").find("39 AccumulateGrad parameters (311445504 elements)"), std::string::npos);
        // the 39 step counts' _foreach_add_(state_steps, 1) on fp32: a step-counter increment (1.6 to 1.8 µs left)
        EXPECT_NE(reason_of(s, "aten::_foreach_add_").find("step-counter increment"), std::string::npos) << w;
        EXPECT_LT(s.uncosted_busy_us, 2.0) << w;
    }
    // gradient accumulation: 78 AccumulateGrad ops, two backward passes of the same 39 (not 78 parameters)
    EXPECT_NE(param(inferred_group(h100_summary("llama_train_accum2_bf16"), "aten::_fused_adamw_")->what, "inferred_from")
                  .find("one of 2 backward passes: 78 AccumulateGrad ops"),
              std::string::npos);
    // without a GPU to check the bytes against, nothing is inferred
    const Summary bare = h100_summary("llama_train_bf16", std::nullopt);
    EXPECT_FALSE(inferred_group(bare, "aten::_fused_adamw_"));
    EXPECT_NE(reason_of(bare, "aten::_fused_adamw_").find("give --gpu"), std::string::npos);
}

TEST(KinetoParamInventory, TwoShapedParameterGroupsStayAsTheyWere) {
    // groups of 30 and 9 tensors: both lists spelled out, nothing inferred, nothing unaccounted
    const Summary s = h100_summary("llama_train_2groups_bf16");
    for (const Group& g : s.groups)
        EXPECT_NE(param(g.what, "shapes_from"), "inferred") << g.what.op;
    EXPECT_EQ(s.uncosted_busy_us, 0.0);
}

// Foreach AdamW over the same 39 bf16 parameters (P = 311,445,504): one call each of lerp_, addcmul_, sqrt, div_,
// add_(eps), addcdiv_ on bf16; mul_ twice (params by 1 − lr·wd, exp_avg_sq by β2); the step counts' add_ runs on
// the CPU (no kernel).
TEST(KinetoParamInventory, ForeachAdamwCostsEveryListOp) {
    const Summary s = h100_summary("llama_train_foreach_adamw_bf16");
    // lerp_(exp_avgs, grads, 1 − β1): two lists read 2·2·P = 1,245,782,016 B, one written 622,891,008 B, 3·P FLOPs
    const Group* lerp = inferred_group(s, "aten::_foreach_lerp_");
    ASSERT_TRUE(lerp);
    EXPECT_EQ(lerp->what.cost.bytes_read, 1245782016u);
    EXPECT_EQ(lerp->what.cost.bytes_written, 622891008u);
    EXPECT_EQ(lerp->what.cost.flops, 934336512u);
    // addcdiv_(params, exp_avgs, sqrt, step sizes): three lists read 3·2·P = 1,868,673,024 B
    const Group* addcdiv = inferred_group(s, "aten::_foreach_addcdiv_");
    ASSERT_TRUE(addcdiv);
    EXPECT_EQ(addcdiv->what.cost.bytes_read, 1868673024u);
    for (const char* op : {"aten::_foreach_sqrt", "aten::_foreach_div_", "aten::_foreach_add_"})
        EXPECT_TRUE(inferred_group(s, op)) << op;
    // mul_ twice between the backward pass and the next, while lerp_ and the others are called once (one parameter
    // group): each call over the whole list, read and written 2·P = 622,891,008 B per call
    const Group* mul = inferred_group(s, "aten::_foreach_mul_");
    ASSERT_TRUE(mul);
    EXPECT_EQ(mul->what.cost.bytes_read, 622891008u);
    EXPECT_EQ(mul->what.cost.bytes_written, 622891008u);
    EXPECT_NE(param(mul->what, "inferred_from").find("one of 2 calls of aten::_foreach_mul_"), std::string::npos);
    // addcmul_(exp_avg_sqs, grads, grads): three distinct lists and the write, 4·2·P = 2,491,564,032 B, would need
    // 743.8 µs at 3.35 TB/s, but its kernels ran 695.9 µs; less one list, 3·2·P = 1,868,673,024 B, 557.8 µs: the same
    // list passed twice, read once. Read 2·2·P = 1,245,782,016 B, written 622,891,008 B.
    const Group* addcmul = inferred_group(s, "aten::_foreach_addcmul_");
    ASSERT_TRUE(addcmul);
    EXPECT_EQ(addcmul->what.cost.bytes_read, 1245782016u);
    EXPECT_EQ(addcmul->what.cost.bytes_written, 622891008u);
    EXPECT_NE(param(addcmul->what, "inferred_from").find("one of its input lists counted once"), std::string::npos);
    EXPECT_EQ(s.uncosted_busy_us, 0.0);
}

// ViT-B/16 (torchvision, 1000 classes), fp32 parameters: 152 tensors, P = 589,824 + 768 (patch conv) + 768 (class
// token) + 197·768 (positions) + 12·(2·768 + 3·768² + 3·768 + 768² + 768 + 2·768 + 2·768·3072 + 3072 + 768) + 2·768
// (final norm) + 768·1000 + 1000 (head) = 1,513,192 + 12·7,087,872 = 86,567,656.
TEST(KinetoParamInventory, VitFusedAdamwCostedItsStepCounterIncrementNot) {
    const Summary s = h100_summary("vitb16_train_bf16");
    const Group* g = inferred_group(s, "aten::_fused_adamw_");
    ASSERT_TRUE(g);
    // read 4·4·P + 152·4 = 1,385,082,496 + 608 B; write 3·4·P = 1,038,811,872 B; 15·P = 1,298,514,840 FLOPs
    EXPECT_EQ(g->what.cost.bytes_read, 1385083104u);
    EXPECT_EQ(g->what.cost.bytes_written, 1038811872u);
    EXPECT_EQ(g->what.cost.flops, 1298514840u);
    // _foreach_add_(state_steps, 1) on fp32 (fp32 parameters too): a step-counter increment, not inferred (as the
    // parameters it would move 2·4·P = 692,541,248 B, 206.7 µs at 3.35 TB/s; it ran 3.5)
    EXPECT_NE(reason_of(s, "aten::_foreach_add_").find("step-counter increment"), std::string::npos);
}

// ResNet-50 (torchvision), fp32, SGD momentum foreach: 161 tensors, P = 25,557,032. mul_(bufs, momentum) once:
// read and write 4·P = 102,228,128 B, P FLOPs; add_ twice (bufs += grads, params += −lr·bufs), mul_ once (one
// parameter group): each add_ over the whole lists, two read 2·4·P = 204,456,256 B, one written 102,228,128 B.
TEST(KinetoParamInventory, ResnetSgdForeachMomentumCosted) {
    const Summary s = h100_summary("resnet50_train_bf16");
    const Group* g = inferred_group(s, "aten::_foreach_mul_");
    ASSERT_TRUE(g);
    EXPECT_EQ(g->what.cost.bytes_read, 102228128u);
    EXPECT_EQ(g->what.cost.bytes_written, 102228128u);
    EXPECT_EQ(g->what.cost.flops, 25557032u);
    const Group* add = inferred_group(s, "aten::_foreach_add_");
    ASSERT_TRUE(add);
    EXPECT_EQ(add->what.cost.bytes_read, 204456256u);
    EXPECT_EQ(add->what.cost.bytes_written, 102228128u);
}

// Several calls of one op in an interval: each over the whole list when another op of the interval is called once
// (one parameter group); refused when every op is called more than once (the calls may split the parameters among
// groups). 40 bf16 parameters [256, 4] (P = 40,960, 81,920 B per list): mul_ twice and lerp_ once: each mul_ reads
// 81,920 B.
TEST(KinetoParamInventory, RepeatedCallsAreWholeListsWhenAnotherOpIsCalledOnce) {
    const std::vector<CpuOp> g = grads(40, 1);
    const CpuOp m1 = shapeless_mul(100), m2 = shapeless_mul(101);
    CpuOp lerp = test::op_of({{}, {}, {}}, {"TensorList", "TensorList", "Scalar"}, {"", "", "0.1"});
    lerp.ts = 102;
    const ListCall lerp_call{9, &lerp, "aten::_foreach_lerp_", kMulBf16, 1.0};
    ListInference r = infer_list_shapes_({call(7, m1, 1.0), call(8, m2, 1.0), lerp_call}, ptrs(g), kRoof);
    ASSERT_EQ(r.costs.count(7), 1u) << (r.refusals.count(7) ? r.refusals.at(7) : "");
    ASSERT_EQ(r.costs.count(8), 1u);
    EXPECT_EQ(r.costs.at(8).cost.bytes_read, 81920u);
    // the same two mul_ without the lerp_: two groups cannot be ruled out
    r = infer_list_shapes_({call(7, m1, 1.0), call(8, m2, 1.0)}, ptrs(g), kRoof);
    EXPECT_TRUE(r.costs.empty());
}

}  // namespace
