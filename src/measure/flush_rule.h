// When a cold measurement flushes the L2 before each sample: one rule for every op (GEMM, HBM,
// elementwise, norms, attention). A working set of at least kNoFlushFactor × L2 cannot stay in the L2
// between iterations, so it needs no flush; a smaller one is flushed.
#pragma once
#include <cstdint>

namespace bwacct::measure {

inline constexpr std::uint64_t kNoFlushFactor = 4;

inline bool wants_l2_flush(bool cold, std::uint64_t working_set, std::uint64_t l2_bytes) {
    return cold && l2_bytes > 0 && working_set < kNoFlushFactor * l2_bytes;
}

}  // namespace bwacct::measure
