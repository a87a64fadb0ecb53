// The parameter inventory of a training trace (its AccumulateGrad ops) and the tensor-list shapes of optimizer ops
// inferred from it when Kineto wrote their lists as [] (src/ingest/kineto_param_inventory.cpp; docs/formulas.md,
// "Tensor-list ops"): small hand-made ops for the rules, the H100 traces recorded here for the whole path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../src/ingest/kineto_param_inventory.h"
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

CpuOp grad(double ts, std::vector<std::int64_t> shape, const std::string& type = bf) {
    CpuOp o = test::op_of({std::move(shape)}, {type});
    o.ts = ts;
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

// A backward pass ends where two AccumulateGrad ops lie more than 5 µs apart (the trace's rule is another thread's
// op between them; these ops are one µs apart within a pass).
const PassBreak kGap = [](const CpuOp& a, const CpuOp& b) { return b.ts - a.ts > 5; };

ListInference infer_list_shapes_(std::vector<ListCall> calls, std::vector<const CpuOp*> grads,
                                 const std::optional<HbmRoof>& hbm) {
    return infer_list_shapes(std::move(calls), std::move(grads), kGap, hbm);
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
    // faster than HBM allows: 0.1 µs < 0.164 µs (a list of step counts, not of parameters)
    EXPECT_NE(refusal(infer_list_shapes_({call(7, op, 0.1)}, ptrs(g), kRoof), 7).find("faster than that peak allows"),
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

}  // namespace
