// Utility kernels: the spin gate, the L2 flush, random fills and the verification reductions.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels.h"

namespace bwacct::kernels {
namespace {

// ---- spin gate

__device__ __forceinline__ std::uint64_t global_ns() {
    std::uint64_t t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// `release` is host memory mapped into the device: the volatile load is not cached (PTX: a volatile
// load is a relaxed load at system scope on sm_70+), so the host's store is seen within a poll.
// Two clocks bound the wait: %globaltimer (nanoseconds) and, should it not advance on some
// platform, clock64() (SM cycles; timeout_cycles is 1 s at the peak clock, longer at a lower one).
__global__ void spin_gate_kernel(const volatile int* release, volatile int* timed_out, int ticket, std::uint64_t timeout_ns,
                                 std::uint64_t timeout_cycles) {
    const std::uint64_t t0 = global_ns();
    const long long c0 = clock64();
    // Wrap-safe "release < ticket": the host hands out increasing tickets.
    while (static_cast<int>(static_cast<unsigned>(*release) - static_cast<unsigned>(ticket)) < 0) {
        const bool ns_over = global_ns() - t0 > timeout_ns;
        const bool cycles_over = static_cast<std::uint64_t>(clock64() - c0) > timeout_cycles;
        if (ns_over || cycles_over) {
            *timed_out = ticket;
            return;
        }
        __nanosleep(200);  // fewer polls over the bus; the release latency is outside the timed events
    }
}

// ---- L2 flush

__global__ void __launch_bounds__(kBlock) l2_write_kernel(uint4* buf, std::size_t n16) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) {
        const auto w = static_cast<unsigned>(i);
        buf[i] = make_uint4(w, w ^ 0x5BD1E995u, ~w, 0x9E3779B9u);
    }
}

__global__ void __launch_bounds__(kBlock) l2_read_kernel(const uint4* buf, std::size_t n16, unsigned magic, unsigned* sink) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    unsigned acc = 0;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n16; i += stride) {
        const uint4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == magic)  // `magic` is a run-time argument: the compiler cannot drop the loads
        *sink = acc;
}

// ---- element conversions

template <class T>
__device__ __forceinline__ T from_double(double v);
template <>
__device__ __forceinline__ double from_double<double>(double v) {
    return v;
}
template <>
__device__ __forceinline__ float from_double<float>(double v) {
    return static_cast<float>(v);
}
// The random values are exact in float and in the 16-bit type (random_bits), so this is exact.
template <>
__device__ __forceinline__ __half from_double<__half>(double v) {
    return __float2half_rn(static_cast<float>(v));
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
    return __float2bfloat16_rn(static_cast<float>(v));
}

__device__ __forceinline__ double to_double(float v) { return v; }
__device__ __forceinline__ double to_double(__half v) { return __half2float(v); }
__device__ __forceinline__ double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ __forceinline__ unsigned long long bits_of(double v) {
    return static_cast<unsigned long long>(__double_as_longlong(v));
}
__device__ __forceinline__ unsigned long long bits_of(float v) { return __float_as_uint(v); }

// ---- fill and checks

template <class T>
__global__ void __launch_bounds__(kBlock) fill_random_kernel(T* p, std::size_t n, Elem e, std::uint64_t seed) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = from_double<T>(random_value(seed, i, e));
}

__device__ __forceinline__ void count_mismatch(unsigned long long* counters, std::size_t i) {
    atomicAdd(&counters[0], 1ull);
    atomicMin(&counters[1], static_cast<unsigned long long>(i));
}

template <class T>
__device__ __forceinline__ T hbm_expected(const HbmExpect& x, std::size_t i, Elem e);
template <>
__device__ __forceinline__ double hbm_expected<double>(const HbmExpect& x, std::size_t i, Elem e) {
    switch (x.kind) {
        case HbmExpect::Kind::random:
            return random_value(x.seed, i, e);
        case HbmExpect::Kind::constant:
            return x.value;
        case HbmExpect::Kind::triad:
            break;
    }
    return triad_f64(x.scalar, random_value(x.seed_c, i, e), random_value(x.seed_b, i, e));
}
template <>
__device__ __forceinline__ float hbm_expected<float>(const HbmExpect& x, std::size_t i, Elem e) {
    switch (x.kind) {
        case HbmExpect::Kind::random:
            return static_cast<float>(random_value(x.seed, i, e));
        case HbmExpect::Kind::constant:
            return static_cast<float>(x.value);
        case HbmExpect::Kind::triad:
            break;
    }
    return triad_f32(static_cast<float>(x.scalar), static_cast<float>(random_value(x.seed_c, i, e)),
                     static_cast<float>(random_value(x.seed_b, i, e)));
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    check_hbm_kernel(const T* got, std::size_t n, Elem e, HbmExpect x, unsigned long long* counters) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        if (bits_of(got[i]) != bits_of(hbm_expected<T>(x, i, e)))
            count_mismatch(counters, i);
}

template <class T>
__global__ void __launch_bounds__(kBlock) check_ew_kernel(const T* got, std::size_t n, Elem e, int inputs, std::uint64_t seed0,
                                                          double tol_rel, unsigned long long* counters) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        double s = 0;  // exact: at most 8 values on a 2^-20 grid
        for (int j = 0; j < inputs; ++j)
            s += random_value(seed0 + static_cast<std::uint64_t>(j), i, e);
        const double g = to_double(got[i]);
        if (!(fabs(g - s) <= tol_rel * s))  // NaN (an unwritten, poisoned element) fails too
            count_mismatch(counters, i);
    }
}

cudaError_t reset_counters(unsigned long long* counters, cudaStream_t s) {
    cudaError_t e = cudaMemsetAsync(counters, 0, sizeof(unsigned long long), s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(counters + 1, 0xFF, sizeof(unsigned long long), s);
    return e;
}

}  // namespace

cudaError_t full_grid(const void* kernel, int* grid) {
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0);
    if (e != cudaSuccess)
        return e;
    *grid = (sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    return cudaSuccess;
}

cudaError_t preload_util_kernels() {
    const void* all[] = {
        reinterpret_cast<const void*>(&spin_gate_kernel),
        reinterpret_cast<const void*>(&l2_write_kernel),
        reinterpret_cast<const void*>(&l2_read_kernel),
        reinterpret_cast<const void*>(&fill_random_kernel<double>),
        reinterpret_cast<const void*>(&fill_random_kernel<float>),
        reinterpret_cast<const void*>(&fill_random_kernel<__half>),
        reinterpret_cast<const void*>(&fill_random_kernel<__nv_bfloat16>),
    };
    for (const void* k : all) {
        cudaFuncAttributes attr{};
        if (const cudaError_t e = cudaFuncGetAttributes(&attr, k); e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

cudaError_t launch_spin_gate(const int* release, int* timed_out, int ticket, std::uint64_t timeout_ns,
                             std::uint64_t timeout_cycles, cudaStream_t s) {
    spin_gate_kernel<<<1, 1, 0, s>>>(release, timed_out, ticket, timeout_ns, timeout_cycles);
    return cudaGetLastError();
}

cudaError_t launch_l2_flush(void* buf, std::size_t bytes, unsigned* sink, cudaStream_t s) {
    const std::size_t n16 = bytes / sizeof(uint4);
    int grid = 0;
    cudaError_t e = full_grid(reinterpret_cast<const void*>(&l2_write_kernel), &grid);
    if (e != cudaSuccess)
        return e;
    l2_write_kernel<<<grid, kBlock, 0, s>>>(static_cast<uint4*>(buf), n16);
    if ((e = cudaGetLastError()) != cudaSuccess)
        return e;
    l2_read_kernel<<<grid, kBlock, 0, s>>>(static_cast<const uint4*>(buf), n16, 0x2545F491u, sink);
    return cudaGetLastError();
}

cudaError_t fill_random(void* p, std::size_t n, Elem e, std::uint64_t seed, cudaStream_t s) {
    int grid = 0;
    cudaError_t err = full_grid(reinterpret_cast<const void*>(&fill_random_kernel<float>), &grid);
    if (err != cudaSuccess)
        return err;
    switch (e) {
        case Elem::f64:
            fill_random_kernel<<<grid, kBlock, 0, s>>>(static_cast<double*>(p), n, e, seed);
            break;
        case Elem::f32:
            fill_random_kernel<<<grid, kBlock, 0, s>>>(static_cast<float*>(p), n, e, seed);
            break;
        case Elem::f16:
            fill_random_kernel<<<grid, kBlock, 0, s>>>(static_cast<__half*>(p), n, e, seed);
            break;
        case Elem::bf16:
            fill_random_kernel<<<grid, kBlock, 0, s>>>(static_cast<__nv_bfloat16*>(p), n, e, seed);
            break;
    }
    return cudaGetLastError();
}

cudaError_t check_hbm_result(const void* got, std::size_t n, Elem e, const HbmExpect& x, unsigned long long* counters,
                             cudaStream_t s) {
    if (e != Elem::f64 && e != Elem::f32)
        return cudaErrorInvalidValue;
    int grid = 0;
    cudaError_t err = full_grid(reinterpret_cast<const void*>(&check_hbm_kernel<double>), &grid);
    if (err == cudaSuccess)
        err = reset_counters(counters, s);
    if (err != cudaSuccess)
        return err;
    if (e == Elem::f64)
        check_hbm_kernel<<<grid, kBlock, 0, s>>>(static_cast<const double*>(got), n, e, x, counters);
    else
        check_hbm_kernel<<<grid, kBlock, 0, s>>>(static_cast<const float*>(got), n, e, x, counters);
    return cudaGetLastError();
}

cudaError_t check_elementwise_result(const void* got, std::size_t n, Elem e, int inputs, std::uint64_t seed0, double tol_rel,
                                     unsigned long long* counters, cudaStream_t s) {
    if (e == Elem::f64 || inputs < 1 || inputs > kMaxEwArrays)
        return cudaErrorInvalidValue;
    int grid = 0;
    cudaError_t err = full_grid(reinterpret_cast<const void*>(&check_ew_kernel<float>), &grid);
    if (err == cudaSuccess)
        err = reset_counters(counters, s);
    if (err != cudaSuccess)
        return err;
    switch (e) {
        case Elem::f32:
            check_ew_kernel<<<grid, kBlock, 0, s>>>(static_cast<const float*>(got), n, e, inputs, seed0, tol_rel, counters);
            break;
        case Elem::f16:
            check_ew_kernel<<<grid, kBlock, 0, s>>>(static_cast<const __half*>(got), n, e, inputs, seed0, tol_rel, counters);
            break;
        case Elem::bf16:
            check_ew_kernel<<<grid, kBlock, 0, s>>>(static_cast<const __nv_bfloat16*>(got), n, e, inputs, seed0, tol_rel,
                                                    counters);
            break;
        case Elem::f64:
            break;
    }
    return cudaGetLastError();
}

}  // namespace bwacct::kernels
