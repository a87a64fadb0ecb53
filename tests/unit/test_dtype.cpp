#include <gtest/gtest.h>

#include "bwacct/dtype.h"
#include "bwacct/error.h"

using namespace bwacct;

TEST(DType, ParsesNamesAndAliases) {
    EXPECT_EQ(parse_dtype("bf16", "--dtype"), DType::bf16);
    EXPECT_EQ(parse_dtype("fp8", "--dtype"), DType::fp8_e4m3);
    EXPECT_EQ(parse_dtype("e5m2", "--dtype"), DType::fp8_e5m2);
    EXPECT_EQ(parse_dtype("fp4", "--dtype"), DType::fp4);
    EXPECT_EQ(parse_dtype("float", "--dtype"), DType::fp32);
}

TEST(DType, UnknownNameNamesTheOption) {
    try {
        parse_dtype("fp7", "--dtype-b");
        FAIL() << "fp7 accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--dtype-b");
        EXPECT_NE(std::string(e.what()).find("fp7"), std::string::npos);
    }
}

TEST(DType, StorageBytes) {
    EXPECT_EQ(storage_bytes(DType::bf16, 1000).value(), 2000u);  // 1000 · 2 B
    EXPECT_EQ(storage_bytes(DType::tf32, 1000).value(), 4000u);  // tf32 is stored as fp32
    EXPECT_EQ(storage_bytes(DType::fp8_e5m2, 1000).value(), 1000u);
    // NVFP4: 4 bits per element plus one 1-byte scale per 16 elements:
    // 1024 elements → 512 B payload + 64 B scales = 576 B.
    EXPECT_EQ(storage_bytes(DType::fp4, 1024).value(), 576u);
    // MXFP4: one scale per 32 elements: 512 + 32 = 544 B.
    EXPECT_EQ(storage_bytes(DType::mxfp4, 1024).value(), 544u);
    // Partial blocks round up: 17 NVFP4 elements → ceil(68/8) = 9 B + ceil(17/16) = 2 scales = 11 B.
    EXPECT_EQ(storage_bytes(DType::fp4, 17).value(), 11u);
}

TEST(DType, PeakKeys) {
    EXPECT_EQ(peak_key(DType::fp8_e4m3), "fp8");
    EXPECT_EQ(peak_key(DType::fp8_e5m2), "fp8");
    EXPECT_EQ(peak_key(DType::mxfp4), "fp4");
    EXPECT_EQ(peak_key(DType::tf32), "tf32");
}

TEST(Exact, OverflowThrows) {
    const Exact big(1ull << 32);
    EXPECT_THROW((void)(big * big), OverflowError);  // 2^64 does not fit
    EXPECT_EQ((big * Exact(2)).value(), 1ull << 33);
    EXPECT_THROW((void)(Exact(1) - Exact(2)), OverflowError);
}
