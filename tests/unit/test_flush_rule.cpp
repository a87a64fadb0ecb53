// One L2-flush rule for every measured op (issue 15: GEMM flushed only below 2×L2 while the other
// kernels flushed below 4×L2).
#include <gtest/gtest.h>

#include "flush_rule.h"

namespace bwacct::measure {
namespace {

TEST(FlushRule, ColdWorkingSetsBelowFourL2AreFlushed) {
    const std::uint64_t l2 = 50ull << 20;  // H100/H200: 50 MiB
    EXPECT_TRUE(wants_l2_flush(true, 1ull << 20, l2));
    // A GEMM 4096³ bf16: A + B + C = 3 × 32 MiB = 96 MiB < 200 MiB: flushed (the old GEMM rule, 2×L2 =
    // 100 MiB, flushed it too, but a 8192×8192×2048 GEMM, 32 + 32 + 128 MiB = 192 MiB, it did not).
    EXPECT_TRUE(wants_l2_flush(true, 96ull << 20, l2));
    EXPECT_TRUE(wants_l2_flush(true, 192ull << 20, l2));
    EXPECT_FALSE(wants_l2_flush(true, 200ull << 20, l2)) << "4 × 50 MiB: too large to stay in the L2";
    EXPECT_FALSE(wants_l2_flush(false, 1ull << 20, l2)) << "a hot policy never flushes";
    EXPECT_FALSE(wants_l2_flush(true, 1ull << 20, 0)) << "no L2 size reported: nothing to flush";
}

}  // namespace
}  // namespace bwacct::measure
