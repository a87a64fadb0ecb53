// Host-callable launchers for the microbenchmark kernels (kernels/*.cu), declared for plain C++.
// Every launcher enqueues on the given stream of the CURRENT device and returns the launch's
// cudaError_t (launch_empty: cudaLaunchKernel's; the others: cudaGetLastError after the launch);
// none synchronizes. The value functions at the end
// are shared by the kernels and the host-side verification, so both compute the same numbers.
#pragma once
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "attention_limits.h"

#if defined(__CUDACC__)
#define BWACCT_HD __host__ __device__
#else
#define BWACCT_HD
#endif

namespace bwacct::kernels {

// Threads per block of every grid-stride kernel here (the block reductions rely on it).
constexpr int kBlock = 256;

// Element types of the arrays the kernels read and write.
enum class Elem { f64, f32, f16, bf16 };
constexpr std::size_t elem_bytes(Elem e) { return e == Elem::f64 ? 8 : e == Elem::f32 ? 4 : 2; }

// ---- launch.cu

// The empty kernel, one block of one thread, through cudaLaunchKernel.
cudaError_t launch_empty(cudaStream_t s);
// cudaFuncGetAttributes on the empty kernel: cudaErrorNoKernelImageForDevice (or
// cudaErrorInvalidDeviceFunction) when this binary holds no code the current GPU can run. Also loads
// the module now rather than lazily at the first launch.
cudaError_t probe_kernel_image();

// ---- util.cu

// Blocks that fill the current device for `kernel` at kBlock threads: SMs × resident blocks per SM
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor), for grid-stride loops.
cudaError_t full_grid(const void* kernel, int* grid);

// Loads every utility kernel's module now (cudaFuncGetAttributes). With lazy loading (the default
// since CUDA 12.2) a kernel's first launch may need the device idle; a first launch queued behind a
// spinning gate would then wait for the gate's timeout.
cudaError_t preload_util_kernels();

// The spin gate: one thread that spins until release[0] has reached `ticket` (host-mapped memory the
// host writes; tickets increase, compared wrap-safely), or until timeout_ns of %globaltimer or
// timeout_cycles of clock64() have passed, whichever comes first — so it can never hang. On a
// timeout it writes `ticket` to *timed_out (host-mapped), so the host can discard the sample.
cudaError_t launch_spin_gate(const int* release, int* timed_out, int ticket, std::uint64_t timeout_ns,
                             std::uint64_t timeout_cycles, cudaStream_t s);

// Evicts the L2: a write pass over `bytes` of `buf` (the caller makes it 2× the L2 size; bytes a
// multiple of 16) evicts whatever the last sample left there (its dirty lines are written back now),
// then a read pass over the same buffer evicts the write pass's own dirty lines, so the timed op
// never pays for their write-back. `sink` (one device word) keeps the read pass alive.
cudaError_t launch_l2_flush(void* buf, std::size_t bytes, unsigned* sink, cudaStream_t s);

// p[i] = random_value(seed, i, e) for i < n.
cudaError_t fill_random(void* p, std::size_t n, Elem e, std::uint64_t seed, cudaStream_t s);

// What an HBM kernel's output must hold, element by element.
struct HbmExpect {
    enum class Kind { random, constant, triad } kind = Kind::random;
    std::uint64_t seed = 0;                // random: random_value(seed, i)
    double value = 0;                      // constant: value (converted to the element type)
    std::uint64_t seed_b = 0, seed_c = 0;  // triad: fma(scalar, c[i], b[i]), b and c random
    double scalar = 0;
};

// Counts the elements of `got` (f64 or f32) that differ in any bit from the expectation, and the
// smallest such index. counters: two device words {count, first}, which this sets to {0, ~0} first.
cudaError_t check_hbm_result(const void* got, std::size_t n, Elem e, const HbmExpect& x, unsigned long long* counters,
                             cudaStream_t s);

// Counts the elements of an elementwise output (f32, f16, bf16) farther than tol_rel·S from
// S = Σ_j random_value(seed0 + j, i) over the `inputs` inputs (NaN counts), and the first index.
cudaError_t check_elementwise_result(const void* got, std::size_t n, Elem e, int inputs, std::uint64_t seed0, double tol_rel,
                                     unsigned long long* counters, cudaStream_t s);

// ---- hbm.cu: BabelStream-style kernels over f64 or f32 arrays, 16-byte accesses, grid-stride loops.

enum class HbmOp { copy, read, write, triad };

struct HbmArgs {
    void* a = nullptr;  // copy: b = a; read: Σ a; write: a = value; triad: a = b + scalar·c
    void* b = nullptr;
    void* c = nullptr;
    double* partial = nullptr;  // read: one double per block (grid of them)
    std::size_t n = 0;          // elements per array
    double scalar = 0.375;      // triad
    double value = 0.8125;      // write
};

// Blocks for the kernel: SMs × resident blocks per SM at kBlock threads (occupancy API).
cudaError_t hbm_grid(HbmOp op, Elem e, int* grid);
cudaError_t launch_hbm(HbmOp op, Elem e, const HbmArgs& a, int grid, cudaStream_t s);

// ---- hbm.cu: the elementwise op of ElementwiseDesc (f32, f16, bf16).
// Per element: x = in_0 + in_1 + … (inputs − 1 adds, in the element type), then `pairs` pairs of
// dependent FMAs x = fma(x, 2, −1); x = fma(x, 0.5, 0.5) (exact identities for these values, with
// the constants as run-time arguments so nothing folds: 4 FLOPs per pair), then rem ∈ 0..3 more
// FLOPs (bit 1: x = fma(x, 1, 0); bit 0: x = x + 0); every output gets x. f16 and bf16 run as packed
// half2 / bfloat162 instructions.

constexpr int kMaxEwArrays = 8;

struct EwArgs {
    const void* in[kMaxEwArrays] = {};
    void* out[kMaxEwArrays] = {};
    int inputs = 1, outputs = 1;
    std::size_t n = 0;  // elements per array
    int pairs = 0, rem = 0;
};

cudaError_t ew_grid(Elem e, int* grid);
cudaError_t launch_elementwise(Elem e, const EwArgs& a, int grid, cudaStream_t s);

// ---- norm.cu: layernorm, rmsnorm and softmax over the last dimension (f32, f16, bf16 in and out).
// One block of kBlock threads per row; statistics in fp32 (warp shuffles, then shared memory across
// the block's warps). Two passes over the row: the statistics, then the output (the second read of
// the row normally hits L1/L2). 16-byte accesses when a row is a whole number of 16-byte vectors.
//   layernorm  y = (x − mean) · rsqrt(var + eps) · γ + β   (shifted sums: Σ(x − x₀), Σ(x − x₀)²)
//   rmsnorm    y = x · rsqrt(mean(x²) + eps) · γ
//   softmax    y = exp(x − max) / Σ exp(x − max)            (online max and sum, one pass)

enum class NormOp { layernorm, rmsnorm, softmax };

struct NormArgs {
    const void* x = nullptr;
    const void* gamma = nullptr;  // layernorm, rmsnorm: D elements
    const void* beta = nullptr;   // layernorm: D elements
    void* y = nullptr;
    std::size_t rows = 0;  // one block each: at most INT_MAX
    std::size_t dim = 0;   // D, the last dimension
    float eps = 1e-5f;
};

cudaError_t launch_norm(NormOp op, Elem e, const NormArgs& a, cudaStream_t s);

// ---- attention.cu: fused attention in the decode regime (flash-decoding), fp32 arithmetic on the
// CUDA cores over f32, f16 or bf16 storage. Layouts, row-major: Q and O [B, H_q, S_q, d], K and V
// [B, H_kv, S_k, d]; query head h reads KV head h / (H_q / H_kv), so the R = (H_q / H_kv)·S_q query
// rows of one KV head ("a group", B·H_kv of them) are contiguous in Q and O.
// Kernel 1, grid (splits, groups), kAttnThreads threads: the block's split of the keys; each warp
// takes 32-key tiles (one key per lane: the 16-byte loads of its K row, R dot products against Q in
// shared memory, scaled by scale_log2), updates R online-softmax states (max, sum) and, each lane
// owning d/32 contiguous output columns, the R accumulators (V rows read coalesced, one vector per
// lane); the warps' states are merged and written as the split's partial (fp32 O·sum, max, sum).
// Kernel 2, grid (R, groups): merges the splits and writes O. Causal: query i sees keys
// j ≤ S_k − S_q + i. Returns cudaLaunchKernel's status.

constexpr int kAttnThreads = 128;
using measure::kAttnDimMultiple;  // the limits the CLI and the backends check (attention_limits.h)
using measure::kAttnMaxDim;
using measure::kAttnMaxGroups;
using measure::kAttnMaxRows;

struct AttnArgs {
    const void* q = nullptr;
    const void* k = nullptr;
    const void* v = nullptr;
    void* o = nullptr;
    float* part_o = nullptr;   // [groups][splits][R][d]
    float* part_ml = nullptr;  // [groups][splits][R][2]: max (log2 units), sum
    int groups = 0;            // B·H_kv
    int rows = 0;              // R = (H_q / H_kv)·S_q, at most kAttnMaxRows
    int q_len = 0;             // S_q
    int dim = 0;               // d: a multiple of 8, at most kAttnMaxDim
    long long kv_len = 0;      // S_k
    bool causal = false;
    float scale_log2 = 0;          // the score scale in log2 units: log2(e)/√d for softmax(q·kᵀ/√d)
    int splits = 0;                // set by attention_plan
    long long keys_per_split = 0;  // set by attention_plan: a multiple of 32·warps
    std::size_t smem_bytes = 0;    // set by attention_plan
};

// Fills splits, keys_per_split and smem_bytes for this GPU (enough blocks to fill every SM,
// splits of at least 128 keys) and raises the kernel's dynamic shared-memory limit when needed.
cudaError_t attention_plan(Elem e, AttnArgs& a);
// Both kernels, on `s`.
cudaError_t launch_attention(Elem e, const AttnArgs& a, cudaStream_t s);

// ---- Values shared by the kernels and the host.

// splitmix64's finalizer (Steele, Lea, Flood 2014): a bijection with good avalanche.
BWACCT_HD inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Random fraction bits per element type: the values 0.5 + k·2^-bits (k < 2^bits) lie in [0.5, 1.5)
// and are exactly representable in the type (bf16: 8 significant bits, f16: 11, f32/f64: 20 of
// 24/53). They are never zero, and sums of up to 2^32 of them are exact in double.
BWACCT_HD constexpr int random_bits(Elem e) { return e == Elem::bf16 ? 7 : e == Elem::f16 ? 10 : 20; }

BWACCT_HD inline std::uint64_t random_k(std::uint64_t seed, std::uint64_t i, int bits) {
    return mix64(seed ^ (i * 0xD1B54A32D192ED03ull)) >> (64 - bits);
}

// The value of element i of an array filled with `seed` (exact in the element type).
BWACCT_HD inline double random_value(std::uint64_t seed, std::uint64_t i, Elem e) {
    const int bits = random_bits(e);
    return 0.5 + static_cast<double>(random_k(seed, i, bits)) / static_cast<double>(1ull << bits);
}

// Triad's expected element in f64 and f32: one correctly rounded fma on host and device alike.
BWACCT_HD inline double triad_f64(double scalar, double c, double b) { return fma(scalar, c, b); }
BWACCT_HD inline float triad_f32(float scalar, float c, float b) { return fmaf(scalar, c, b); }

// Host-side decoding of 16-bit storage (exact).
inline double f16_bits_to_double(std::uint16_t h) {
    const int sign = h >> 15, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    double v = 0;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(mant), -24);
    else if (exp == 31)
        v = mant == 0 ? HUGE_VAL : NAN;
    else
        v = std::ldexp(static_cast<double>(1024 + mant), exp - 25);
    return sign != 0 ? -v : v;
}
inline double bf16_bits_to_double(std::uint16_t h) {
    const int sign = h >> 15, exp = (h >> 7) & 0xFF, mant = h & 0x7F;
    double v = 0;
    if (exp == 0)
        v = std::ldexp(static_cast<double>(mant), -133);
    else if (exp == 255)
        v = mant == 0 ? HUGE_VAL : NAN;
    else
        v = std::ldexp(static_cast<double>(128 + mant), exp - 134);
    return sign != 0 ? -v : v;
}

}  // namespace bwacct::kernels
