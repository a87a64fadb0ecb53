// Device-side fill and check kernels for the cuBLASLt GEMM and NCCL collective measurements
// (gemm_check.cu, collective_check.cu). Plain declarations: the .cpp callers are built by the host
// compiler. Every launcher enqueues on `s` and returns cudaGetLastError() (the launch status).
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

namespace bwacct::measure::cuda::checks {

// Launch shape of the fill and check kernels: 256 threads, grid-stride loops over at most 16384 blocks.
constexpr unsigned kThreads = 256;
inline unsigned grid_for(std::uint64_t n) {
    const std::uint64_t blocks = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(std::min<std::uint64_t>(std::max<std::uint64_t>(blocks, 1), 16384));
}

// Storage formats the kernels read and write (tf32 is stored as fp32).
enum class Elem : int { bf16, fp16, fp32, fp64, e4m3, e5m2, int8 };

constexpr unsigned elem_bytes(Elem e) {
    switch (e) {
        case Elem::fp64:
            return 8;
        case Elem::fp32:
            return 4;
        case Elem::bf16:
        case Elem::fp16:
            return 2;
        case Elem::e4m3:
        case Elem::e5m2:
        case Elem::int8:
            return 1;
    }
    return 1;
}

// ---- GEMM

// dst[i] = hash(seed, i) mapped to a float in [-1, 1] with magnitude at least 1/64 (never zero, never
// subnormal in any format here), then rounded to nearest into `e` (fp8: saturating). Not int8.
cudaError_t fill_uniform(void* dst, Elem e, std::uint64_t n, std::uint64_t seed, cudaStream_t s);

// *d_count += number of NaN or infinite elements among n (int8: none). *d_count must be zeroed first.
cudaError_t count_nonfinite(const void* src, Elem e, std::uint64_t n, unsigned long long* d_count, cudaStream_t s);

// Copies bit patterns: dst[r*len + k] = src[d_offsets[r] + k*stride] for r < rows, k < len, in elements of
// elem_bytes (1, 2, 4 or 8). d_offsets is a device array of `rows` element offsets.
cudaError_t gather_strided(void* dst, const void* src, unsigned elem_bytes, std::uint64_t rows, std::uint64_t len,
                           const std::uint64_t* d_offsets, std::uint64_t stride, cudaStream_t s);

// ---- Collectives: small integer values, so that every partial sum in any order is exact.

// value(q, j) of rank q's send element j: 0 unless (q + j) mod nranks < active, else ±(1 + h mod magnitude)
// with h = hash(seed, q, j). At most `active` ranks contribute to each index and |value| <= magnitude,
// so every partial sum has magnitude <= active * magnitude, which the caller keeps exactly representable.
struct CollValues {
    std::uint64_t seed = 0;
    std::uint32_t nranks = 1, magnitude = 1, active = 1;
};

// dst[j] = value(rank, j) for j < count, in format `e`.
cudaError_t coll_fill(void* dst, Elem e, std::uint64_t count, std::uint32_t rank, const CollValues& v, cudaStream_t s);

// The expected output element i:
//   sum_all: sum over every rank q of value(q, base + i)                      (allreduce, reduce, reducescatter)
//   else:    value(q, base + i % chunk) with q = i / chunk, or q = src_rank and
//            index base + i when chunk == 0                                    (allgather, alltoall, broadcast, sendrecv)
// Elements i = 0, step, 2·step, ... and count-1 are compared by value (NaN never matches).
struct CollExpect {
    bool sum_all = true;
    std::uint32_t src_rank = 0;
    std::uint64_t chunk = 0, base = 0, step = 1;
};

// d_result[0] += wrong elements; d_result[1] = min(d_result[1], first wrong index). The caller sets
// d_result to {0, ~0ull} first.
cudaError_t coll_count_wrong(const void* out, Elem e, std::uint64_t count, const CollValues& v, const CollExpect& x,
                             unsigned long long* d_result, cudaStream_t s);

}  // namespace bwacct::measure::cuda::checks
