// Collective inputs and checks on the device: every rank fills its send buffer with small integers
// that are a pure function of (rank, index), so each rank can compute the expected output of any
// collective on its own and count wrong elements (nccl-tests' "#wrong") without host copies.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "check_kernels.h"
#include "kernels.h"

namespace bwacct::measure::cuda::checks {
namespace {

__host__ __device__ inline long long coll_value(const CollValues& v, std::uint32_t q, std::uint64_t j) {
    if ((q + j % v.nranks) % v.nranks >= v.active)
        return 0;
    const std::uint64_t h = kernels::mix64(v.seed ^ kernels::mix64((static_cast<std::uint64_t>(q) << 40) ^ kernels::mix64(j)));
    const long long m = 1 + static_cast<long long>(h % v.magnitude);
    return (h >> 63) != 0 ? -m : m;
}

// Exact for the integers used here (|x| <= the format's largest exactly representable integer).
__device__ __forceinline__ void store(void* dst, std::uint64_t i, int fmt, long long x) {
    const float f = static_cast<float>(x);
    switch (fmt) {
        case static_cast<int>(Elem::bf16):
            static_cast<__nv_bfloat16*>(dst)[i] = __float2bfloat16_rn(f);
            break;
        case static_cast<int>(Elem::fp16):
            static_cast<__half*>(dst)[i] = __float2half_rn(f);
            break;
        case static_cast<int>(Elem::fp32):
            static_cast<float*>(dst)[i] = f;
            break;
        case static_cast<int>(Elem::fp64):
            static_cast<double*>(dst)[i] = static_cast<double>(x);
            break;
        case static_cast<int>(Elem::e4m3):
            static_cast<__nv_fp8_storage_t*>(dst)[i] = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
            break;
        case static_cast<int>(Elem::e5m2):
            static_cast<__nv_fp8_storage_t*>(dst)[i] = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
            break;
        default:
            static_cast<signed char*>(dst)[i] = static_cast<signed char>(x);
            break;
    }
}

__device__ __forceinline__ double load(const void* src, std::uint64_t i, int fmt) {
    switch (fmt) {
        case static_cast<int>(Elem::bf16):
            return static_cast<double>(__bfloat162float(static_cast<const __nv_bfloat16*>(src)[i]));
        case static_cast<int>(Elem::fp16):
            return static_cast<double>(__half2float(static_cast<const __half*>(src)[i]));
        case static_cast<int>(Elem::fp32):
            return static_cast<double>(static_cast<const float*>(src)[i]);
        case static_cast<int>(Elem::fp64):
            return static_cast<const double*>(src)[i];
        case static_cast<int>(Elem::e4m3):
        case static_cast<int>(Elem::e5m2): {
            const __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<const __nv_fp8_storage_t*>(src)[i],
                                                         fmt == static_cast<int>(Elem::e4m3) ? __NV_E4M3 : __NV_E5M2);
            return static_cast<double>(__half2float(__half(h)));
        }
        default:
            return static_cast<double>(static_cast<const signed char*>(src)[i]);
    }
}

// The expected output element i (see CollExpect).
__host__ __device__ inline long long coll_expected(const CollValues& v, const CollExpect& x, std::uint64_t i) {
    if (x.sum_all) {
        const std::uint64_t j = x.base + i;
        // Only ranks q with (q + j) mod n < active contribute: q = (a - j mod n) mod n for a < active.
        const std::uint64_t jm = j % v.nranks;
        long long sum = 0;
        for (std::uint32_t a = 0; a < v.active; ++a)
            sum += coll_value(v, static_cast<std::uint32_t>((a + v.nranks - jm) % v.nranks), j);
        return sum;
    }
    if (x.chunk != 0)
        return coll_value(v, static_cast<std::uint32_t>(i / x.chunk), x.base + i % x.chunk);
    return coll_value(v, x.src_rank, x.base + i);
}

__global__ void coll_fill_kernel(void* dst, int fmt, std::uint64_t count, std::uint32_t rank, CollValues v) {
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    for (std::uint64_t j = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += stride)
        store(dst, j, fmt, coll_value(v, rank, j));
}

__global__ void coll_check_kernel(const void* out, int fmt, std::uint64_t count, CollValues v, CollExpect x,
                                  unsigned long long* result) {
    const std::uint64_t checked = (count + x.step - 1) / x.step;  // i = 0, step, ...
    const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
    unsigned long long wrong = 0, first = ~0ull;
    for (std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t <= checked; t += stride) {
        if (t == checked && (count - 1) % x.step == 0)
            continue;                                                  // the last element was already among the strided ones
        const std::uint64_t i = t < checked ? t * x.step : count - 1;  // t == checked: the last element
        if (!(load(out, i, fmt) == static_cast<double>(coll_expected(v, x, i)))) {
            ++wrong;
            first = i < first ? i : first;
        }
    }
    if (wrong != 0) {
        atomicAdd(&result[0], wrong);
        atomicMin(&result[1], first);
    }
}

}  // namespace

cudaError_t coll_fill(void* dst, Elem e, std::uint64_t count, std::uint32_t rank, const CollValues& v, cudaStream_t s) {
    if (count == 0)
        return cudaSuccess;
    if (v.nranks == 0 || v.magnitude == 0 || v.active == 0 || v.active > v.nranks)
        return cudaErrorInvalidValue;
    coll_fill_kernel<<<grid_for(count), kThreads, 0, s>>>(dst, static_cast<int>(e), count, rank, v);
    return cudaGetLastError();
}

cudaError_t coll_count_wrong(const void* out, Elem e, std::uint64_t count, const CollValues& v, const CollExpect& x,
                             unsigned long long* d_result, cudaStream_t s) {
    if (count == 0)
        return cudaSuccess;
    if (v.nranks == 0 || v.magnitude == 0 || v.active == 0 || v.active > v.nranks || x.step == 0 ||
        (!x.sum_all && x.chunk == 0 && x.src_rank >= v.nranks))
        return cudaErrorInvalidValue;
    coll_check_kernel<<<grid_for(count / x.step + 1), kThreads, 0, s>>>(out, static_cast<int>(e), count, v, x, d_result);
    return cudaGetLastError();
}

}  // namespace bwacct::measure::cuda::checks
