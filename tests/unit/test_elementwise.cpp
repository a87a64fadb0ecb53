#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"

using namespace bwacct;

namespace {
ElementwiseDesc seed_one() {
    ElementwiseDesc d;
    d.shape = {32, 2048, 4096};
    d.dtype = DType::fp16;
    d.flops_per_elem = 10;
    return d;
}
}  // namespace

TEST(Elementwise, SeedOneIntensity) {
    const Cost c = elementwise_cost(seed_one());
    // 32·2048·4096 = 268,435,456 elements; 10 FLOPs each = 2,684,354,560
    EXPECT_EQ(c.flops, 2684354560ull);
    // read 2 B + write 2 B per element = 1,073,741,824 B → intensity 10 / 4 = 2.5 FLOP/B
    EXPECT_EQ(c.bytes(), 1073741824ull);
    EXPECT_DOUBLE_EQ(double(c.flops) / double(c.bytes()), 2.5);
    EXPECT_EQ(c.unit, Unit::vector);
}

TEST(Elementwise, FusedChainSavesIntermediates) {
    ElementwiseDesc d = seed_one();
    d.flops_per_elem = 1;
    const FusionCost f = fused_chain_cost(d, 3);
    // One tensor: 268,435,456 · 2 B = 536,870,912 B.
    // Unfused 3 ops: each reads and writes one tensor: 6 · 536,870,912 = 3,221,225,472 B
    EXPECT_EQ(f.unfused.bytes(), 3221225472ull);
    // Fused: read once, write once: 1,073,741,824 B; saved 2·(3−1)·536,870,912 = 2,147,483,648 B (2.15 GB)
    EXPECT_EQ(f.fused.bytes(), 1073741824ull);
    EXPECT_EQ(f.unfused.bytes() - f.fused.bytes(), 2147483648ull);
    EXPECT_EQ(f.unfused.launches, 3u);
    EXPECT_EQ(f.fused.launches, 1u);
    // Same arithmetic either way: 3 · 268,435,456
    EXPECT_EQ(f.fused.flops, 805306368ull);
    EXPECT_EQ(f.unfused.flops, f.fused.flops);
}

TEST(Elementwise, BinaryOpReadsTwoInputs) {
    ElementwiseDesc d;
    d.shape = {1000};
    d.dtype = DType::fp32;
    d.inputs = 2;  // c = a + b: BabelStream Add moves 3 arrays
    const Cost c = elementwise_cost(d);
    EXPECT_EQ(c.bytes_read, 8000u);
    EXPECT_EQ(c.bytes_written, 4000u);
}

TEST(Norm, PerElementConstantsAndParameters) {
    NormDesc d;
    d.shape = {4, 1024};
    d.dtype = DType::bf16;
    d.kind = NormKind::layernorm;
    Cost c = norm_cost(d);
    // 4096 elements · 7 = 28,672 FLOPs; read x 8,192 B + γ, β 2·1024·2 = 4,096 B; write 8,192 B
    EXPECT_EQ(c.flops, 28672u);
    EXPECT_EQ(c.bytes_read, 12288u);
    EXPECT_EQ(c.bytes_written, 8192u);
    d.kind = NormKind::rmsnorm;
    c = norm_cost(d);
    EXPECT_EQ(c.flops, 4096u * 4);
    EXPECT_EQ(c.bytes_read, 8192u + 2048u);  // γ only
    d.kind = NormKind::softmax;
    c = norm_cost(d);
    EXPECT_EQ(c.flops, 4096u * 5);
    EXPECT_EQ(c.bytes_read, 8192u);
}

TEST(Elementwise, BadShapes) {
    ElementwiseDesc d = seed_one();
    d.shape = {32, 0, 4};
    EXPECT_THROW(elementwise_cost(d), InputError);
    d.shape = {};
    EXPECT_THROW(elementwise_cost(d), InputError);
    d.shape = {1ull << 40, 1ull << 40};
    EXPECT_THROW(elementwise_cost(d), OverflowError);
    EXPECT_THROW(fused_chain_cost(seed_one(), 1), InputError);
}
