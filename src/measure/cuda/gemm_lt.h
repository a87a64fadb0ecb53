// cuBLASLt GEMM measurement (gemm_lt.cpp; cuBLASLt loaded with dlopen).
#pragma once
#include "../backend.h"
#include "bwacct/ops.h"

namespace bwacct::measure::cuda {

// Allocates A, B, C (and bias) on `device`, fills A and B with random values (never zeros), asks the
// cuBLASLt heuristic for up to 8 algorithms with a workspace, times each candidate with time_region
// and keeps the fastest (Timing::detail names it: "cuBLASLt heuristic candidate i of n"), then checks
// sampled entries of C against a float64 host reference (Timing::verification says how many and the
// tolerance). Supports bf16, fp16, tf32, fp32, fp8 e4m3/e5m2 (with scales, C in bf16) and batch.
// Throws MeasureError for an unsupported type combination, a cuBLASLt error (with its status name)
// or a failed verification — never a time.
Timing measure_gemm(const GemmDesc& d, const SamplePolicy& p, int device);

}  // namespace bwacct::measure::cuda
