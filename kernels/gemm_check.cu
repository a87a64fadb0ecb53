// GEMM inputs and checks on the device: hash-based random fill, a count of non-finite outputs
// (after NaN poisoning: proves every element was written) and a strided gather of sampled rows and
// columns for the host reference.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "check_kernels.h"
#include "kernels.h"

namespace bwacct::measure::cuda::checks {
namespace {

// Uniform in [-1, 1], |x| >= 1/64: 1/64 = 2^-6 is e4m3's smallest normal, so no format here gets a
// zero or a subnormal.
__device__ __forceinline__ float uniform_value(std::uint64_t seed, std::uint64_t i) {
    const std::uint64_t h = kernels::mix64(seed ^ kernels::mix64(i));
    const double u = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
    float x = static_cast<float>(2.0 * u - 1.0);
    if (fabsf(x) < 0.015625f)
        x = x < 0.0f ? -0.015625f : 0.015625f;
    return x;
}

template <typename T>
__global__ void fill_kernel(T* dst, std::uint64_t n, std::uint64_t seed, int fmt) {
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float x = uniform_value(seed, i);
        if constexpr (sizeof(T) == 8) {
            dst[i] = static_cast<double>(x);
        } else if constexpr (sizeof(T) == 4) {
            dst[i] = x;
        } else if constexpr (sizeof(T) == 2) {
            if (fmt == static_cast<int>(Elem::bf16))
                dst[i] = __bfloat16_as_ushort(__float2bfloat16_rn(x));
            else
                dst[i] = __half_as_ushort(__float2half_rn(x));
        } else {
            dst[i] = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt == static_cast<int>(Elem::e4m3) ? __NV_E4M3 : __NV_E5M2);
        }
    }
}

__device__ __forceinline__ bool nonfinite_bits(std::uint64_t bits, int fmt) {
    switch (fmt) {
        case static_cast<int>(Elem::bf16):
            return (bits & 0x7F80u) == 0x7F80u;
        case static_cast<int>(Elem::fp16):
            return (bits & 0x7C00u) == 0x7C00u;
        case static_cast<int>(Elem::fp32):
            return (bits & 0x7F800000u) == 0x7F800000u;
        case static_cast<int>(Elem::fp64):
            return (bits & 0x7FF0000000000000ull) == 0x7FF0000000000000ull;
        case static_cast<int>(Elem::e4m3):  // no infinity; S.1111.111 is NaN
            return (bits & 0x7Fu) == 0x7Fu;
        case static_cast<int>(Elem::e5m2):  // S.11111.xx is infinity or NaN
            return (bits & 0x7Cu) == 0x7Cu;
        default:
            return false;
    }
}

template <typename T>
__global__ void nonfinite_kernel(const T* src, std::uint64_t n, int fmt, unsigned long long* count) {
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    unsigned long long local = 0;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        local += nonfinite_bits(static_cast<std::uint64_t>(src[i]), fmt) ? 1 : 0;
    if (local != 0)
        atomicAdd(count, local);
}

template <typename T>
__global__ void gather_kernel(T* dst, const T* src, std::uint64_t rows, std::uint64_t len, const std::uint64_t* offsets,
                              std::uint64_t stride) {
    const std::uint64_t total = rows * len;
    const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
        const std::uint64_t r = t / len, k = t % len;
        dst[t] = src[offsets[r] + k * stride];
    }
}

}  // namespace

cudaError_t fill_uniform(void* dst, Elem e, std::uint64_t n, std::uint64_t seed, cudaStream_t s) {
    if (n == 0)
        return cudaSuccess;
    const int fmt = static_cast<int>(e);
    switch (elem_bytes(e)) {
        case 8:
            fill_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<double*>(dst), n, seed, fmt);
            break;
        case 4:
            fill_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<float*>(dst), n, seed, fmt);
            break;
        case 2:
            fill_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<unsigned short*>(dst), n, seed, fmt);
            break;
        default:
            if (e == Elem::int8)
                return cudaErrorInvalidValue;
            fill_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<__nv_fp8_storage_t*>(dst), n, seed, fmt);
            break;
    }
    return cudaGetLastError();
}

cudaError_t count_nonfinite(const void* src, Elem e, std::uint64_t n, unsigned long long* d_count, cudaStream_t s) {
    if (n == 0)
        return cudaSuccess;
    const int fmt = static_cast<int>(e);
    switch (elem_bytes(e)) {
        case 8:
            nonfinite_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<const unsigned long long*>(src), n, fmt, d_count);
            break;
        case 4:
            nonfinite_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<const unsigned*>(src), n, fmt, d_count);
            break;
        case 2:
            nonfinite_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<const unsigned short*>(src), n, fmt, d_count);
            break;
        default:
            nonfinite_kernel<<<grid_for(n), kThreads, 0, s>>>(static_cast<const unsigned char*>(src), n, fmt, d_count);
            break;
    }
    return cudaGetLastError();
}

cudaError_t gather_strided(void* dst, const void* src, unsigned elem_bytes, std::uint64_t rows, std::uint64_t len,
                           const std::uint64_t* d_offsets, std::uint64_t stride, cudaStream_t s) {
    const std::uint64_t total = rows * len;
    if (total == 0)
        return cudaSuccess;
    switch (elem_bytes) {
        case 8:
            gather_kernel<<<grid_for(total), kThreads, 0, s>>>(
                static_cast<unsigned long long*>(dst), static_cast<const unsigned long long*>(src), rows, len, d_offsets, stride);
            break;
        case 4:
            gather_kernel<<<grid_for(total), kThreads, 0, s>>>(static_cast<unsigned*>(dst), static_cast<const unsigned*>(src),
                                                               rows, len, d_offsets, stride);
            break;
        case 2:
            gather_kernel<<<grid_for(total), kThreads, 0, s>>>(
                static_cast<unsigned short*>(dst), static_cast<const unsigned short*>(src), rows, len, d_offsets, stride);
            break;
        case 1:
            gather_kernel<<<grid_for(total), kThreads, 0, s>>>(
                static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), rows, len, d_offsets, stride);
            break;
        default:
            return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

}  // namespace bwacct::measure::cuda::checks
