// Storage formats of quantised weights and KV caches, and the math path of mixed-precision products
// (src/model/quant.cpp). Expected bytes computed by hand.
#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/quant.h"

using namespace bwacct;

namespace {

std::uint64_t bytes_of(const StorageFormat& f, std::uint64_t k, std::uint64_t n) {
    return format_bytes(f, Exact(k), Exact(n)).value();
}

}  // namespace

TEST(Quant, Int4Group128CarriesAnFp16ScaleAndA4BitZeroPerGroup) {
    // [4096, 4096]: payload 4096·4096·4/8 = 8,388,608; groups 4096 columns · 4096/128 = 131,072;
    // (16 + 4) bits each = 131,072·20/8 = 327,680 → 8,716,288
    EXPECT_EQ(bytes_of(weight_format(DType::int4, 128), 4096, 4096), 8716288u);
    // group 64: 262,144 groups · 20 / 8 = 655,360 → 9,043,968
    EXPECT_EQ(bytes_of(weight_format(DType::int4, 64), 4096, 4096), 9043968u);
    // the default group is 128
    EXPECT_EQ(weight_format(DType::int4, 0).group, 128u);
}

TEST(Quant, Int8PerChannelByDefault) {
    // 4096·4096 = 16,777,216 + one fp16 scale per output column 4096·2 = 8,192 → 16,785,408
    EXPECT_EQ(bytes_of(weight_format(DType::int8, 0), 4096, 4096), 16785408u);
}

TEST(Quant, Nvfp4AndMxfp4BlockScales) {
    // NVFP4: 8,388,608 + fp8 scale per 16: 4096·256 = 1,048,576 B + fp32 tensor scale 4 → 9,437,188
    EXPECT_EQ(bytes_of(weight_format(DType::fp4, 0), 4096, 4096), 9437188u);
    // MXFP4: 8,388,608 + e8m0 per 32: 4096·128 = 524,288 → 8,912,896
    EXPECT_EQ(bytes_of(weight_format(DType::mxfp4, 0), 4096, 4096), 8912896u);
}

TEST(Quant, Fp8BlockScalesAreTwoDimensional) {
    StorageFormat f = plain_format(DType::fp8_e4m3);
    f.block = 128;
    f.scale_bits = 32;
    // 16,777,216 + ⌈4096/128⌉·⌈4096/128⌉ = 32·32 = 1,024 fp32 scales = 4,096 → 16,781,312
    EXPECT_EQ(bytes_of(f, 4096, 4096), 16781312u);
    // a ragged edge rounds the tiles up: [7168, 2112] → 56·17 = 952 tiles · 4 = 3,808; payload 15,138,816 → 15,142,624
    EXPECT_EQ(bytes_of(f, 7168, 2112), 15142624u);
    // per-tensor fp8 (the command line's fp8): one fp32 scale
    EXPECT_EQ(bytes_of(weight_format(DType::fp8_e4m3, 0), 4096, 4096), 16777220u);
}

TEST(Quant, GroupSizeAppliesToIntegerWeightsOnly) {
    EXPECT_THROW(weight_format(DType::fp4, 64), InputError);
    EXPECT_THROW(weight_format(DType::bf16, 128), InputError);
}

TEST(Quant, MathPath) {
    // w4a16 dequantises to bf16 math; fp8 × fp8 runs on fp8; bf16 weights with fp8 activations run in bf16.
    EXPECT_EQ(math_dtype(DType::int4, DType::bf16, "--weight-dtype"), DType::bf16);
    EXPECT_EQ(math_dtype(DType::fp8_e4m3, DType::fp8_e4m3, "--weight-dtype"), DType::fp8_e4m3);
    EXPECT_EQ(math_dtype(DType::fp4, DType::fp4, "--weight-dtype"), DType::fp4);
    EXPECT_EQ(math_dtype(DType::bf16, DType::fp8_e4m3, "--weight-dtype"), DType::bf16);
    // same width, different math types: no path
    EXPECT_THROW(math_dtype(DType::int8, DType::fp8_e4m3, "--weight-dtype"), InputError);
}

TEST(Quant, KvInt4GroupsPerHeadVector) {
    // 10 vectors of head_dim 128: payload 10·128/2 = 640 + 10 groups · 20 bits = 25 B → 665
    EXPECT_EQ(bytes_of(kv_format(DType::int4, 128), 128, 10), 665u);
    // fp8 KV: no scale bytes counted (a per-layer scalar)
    EXPECT_EQ(bytes_of(kv_format(DType::fp8_e4m3, 128), 128, 10), 1280u);
}
