// Streaming kernels: BabelStream's copy, read (its dot, with one array), write and triad over f64 or
// f32 arrays, and the elementwise op of ElementwiseDesc. Every thread moves 16 bytes per access
// (double2 / float4 / uint4) in a grid-stride loop over a grid that fills the device; the elements
// after the last whole vector (n not a multiple of the vector width) go one per thread.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

#include "kernels.h"

namespace bwacct::kernels {
namespace {

__device__ __forceinline__ std::size_t first_index() { return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::size_t grid_stride() { return static_cast<std::size_t>(gridDim.x) * blockDim.x; }

// ---- HBM kernels

template <class T>
struct Vec;
template <>
struct Vec<double> {
    using V = double2;
    static constexpr int kWidth = 2;
};
template <>
struct Vec<float> {
    using V = float4;
    static constexpr int kWidth = 4;
};

__device__ __forceinline__ double2 splat(double x, double2) { return make_double2(x, x); }
__device__ __forceinline__ float4 splat(float x, float4) { return make_float4(x, x, x, x); }
// Sums in double: exact for the random values (kernels.h), whatever the order.
__device__ __forceinline__ double sum(double2 v) { return v.x + v.y; }
__device__ __forceinline__ double sum(float4 v) {
    return static_cast<double>(v.x) + static_cast<double>(v.y) + static_cast<double>(v.z) + static_cast<double>(v.w);
}
__device__ __forceinline__ double triad(double s, double b, double c) { return triad_f64(s, c, b); }
__device__ __forceinline__ float triad(float s, float b, float c) { return triad_f32(s, c, b); }
__device__ __forceinline__ double2 triad(double s, double2 b, double2 c) {
    return make_double2(triad_f64(s, c.x, b.x), triad_f64(s, c.y, b.y));
}
__device__ __forceinline__ float4 triad(float s, float4 b, float4 c) {
    return make_float4(triad_f32(s, c.x, b.x), triad_f32(s, c.y, b.y), triad_f32(s, c.z, b.z), triad_f32(s, c.w, b.w));
}

template <class T>
__global__ void __launch_bounds__(kBlock) copy_kernel(const T* __restrict__ a, T* __restrict__ b, std::size_t n) {
    using V = typename Vec<T>::V;
    constexpr int kW = Vec<T>::kWidth;
    const std::size_t nv = n / kW;
    const V* __restrict__ av = reinterpret_cast<const V*>(a);
    V* __restrict__ bv = reinterpret_cast<V*>(b);
#pragma unroll 4
    for (std::size_t i = first_index(); i < nv; i += grid_stride())
        bv[i] = av[i];
    if (const std::size_t t = nv * kW + first_index(); t < n)
        b[t] = a[t];
}

// Sum of one warp's values, then of the block's warps; the result is valid in thread 0.
__device__ __forceinline__ double block_sum(double v) {
    __shared__ double warp_sums[kBlock / 32];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kBlock / 32 ? warp_sums[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_down_sync(0xFFFFFFFFu, v, o);
    }
    return v;
}

// Each block writes its partial sum, so no load can be dropped; the host adds the partials.
template <class T>
__global__ void __launch_bounds__(kBlock) read_kernel(const T* __restrict__ a, std::size_t n, double* __restrict__ partial) {
    using V = typename Vec<T>::V;
    constexpr int kW = Vec<T>::kWidth;
    const std::size_t nv = n / kW;
    const V* __restrict__ av = reinterpret_cast<const V*>(a);
    double acc = 0;
#pragma unroll 4
    for (std::size_t i = first_index(); i < nv; i += grid_stride())
        acc += sum(av[i]);
    if (const std::size_t t = nv * kW + first_index(); t < n)
        acc += static_cast<double>(a[t]);
    acc = block_sum(acc);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = acc;
}

template <class T>
__global__ void __launch_bounds__(kBlock) write_kernel(T* __restrict__ a, std::size_t n, T value) {
    using V = typename Vec<T>::V;
    constexpr int kW = Vec<T>::kWidth;
    const std::size_t nv = n / kW;
    V* __restrict__ av = reinterpret_cast<V*>(a);
    const V v = splat(value, V{});
#pragma unroll 4
    for (std::size_t i = first_index(); i < nv; i += grid_stride())
        av[i] = v;
    if (const std::size_t t = nv * kW + first_index(); t < n)
        a[t] = value;
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    triad_kernel(T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, std::size_t n, T scalar) {
    using V = typename Vec<T>::V;
    constexpr int kW = Vec<T>::kWidth;
    const std::size_t nv = n / kW;
    V* __restrict__ av = reinterpret_cast<V*>(a);
    const V* __restrict__ bv = reinterpret_cast<const V*>(b);
    const V* __restrict__ cv = reinterpret_cast<const V*>(c);
#pragma unroll 4
    for (std::size_t i = first_index(); i < nv; i += grid_stride())
        av[i] = triad(scalar, bv[i], cv[i]);
    if (const std::size_t t = nv * kW + first_index(); t < n)
        a[t] = triad(scalar, b[t], c[t]);
}

template <class T>
const void* hbm_kernel(HbmOp op) {
    switch (op) {
        case HbmOp::copy:
            return reinterpret_cast<const void*>(&copy_kernel<T>);
        case HbmOp::read:
            return reinterpret_cast<const void*>(&read_kernel<T>);
        case HbmOp::write:
            return reinterpret_cast<const void*>(&write_kernel<T>);
        case HbmOp::triad:
            break;
    }
    return reinterpret_cast<const void*>(&triad_kernel<T>);
}

template <class T>
cudaError_t launch_hbm_t(HbmOp op, const HbmArgs& a, int grid, cudaStream_t s) {
    switch (op) {
        case HbmOp::copy:
            copy_kernel<T><<<grid, kBlock, 0, s>>>(static_cast<const T*>(a.a), static_cast<T*>(a.b), a.n);
            break;
        case HbmOp::read:
            read_kernel<T><<<grid, kBlock, 0, s>>>(static_cast<const T*>(a.a), a.n, a.partial);
            break;
        case HbmOp::write:
            write_kernel<T><<<grid, kBlock, 0, s>>>(static_cast<T*>(a.a), a.n, static_cast<T>(a.value));
            break;
        case HbmOp::triad:
            triad_kernel<T><<<grid, kBlock, 0, s>>>(static_cast<T*>(a.a), static_cast<const T*>(a.b), static_cast<const T*>(a.c),
                                                    a.n, static_cast<T>(a.scalar));
            break;
    }
    return cudaGetLastError();
}

// ---- elementwise kernel

// Arithmetic on one packed value (P) or one element (S), with explicit rounding so that nothing is
// contracted or reassociated.
struct F32Ops {
    using X = float;
    static __device__ __forceinline__ X add(X a, X b) { return __fadd_rn(a, b); }
    static __device__ __forceinline__ X fma(X a, X b, X c) { return __fmaf_rn(a, b, c); }
    static __device__ __forceinline__ X make(float f) { return f; }
};
struct H2Ops {
    using X = __half2;
    static __device__ __forceinline__ X add(X a, X b) { return __hadd2(a, b); }
    static __device__ __forceinline__ X fma(X a, X b, X c) { return __hfma2(a, b, c); }
    static __device__ __forceinline__ X make(float f) { return __float2half2_rn(f); }
};
struct HOps {
    using X = __half;
    static __device__ __forceinline__ X add(X a, X b) { return __hadd(a, b); }
    static __device__ __forceinline__ X fma(X a, X b, X c) { return __hfma(a, b, c); }
    static __device__ __forceinline__ X make(float f) { return __float2half_rn(f); }
};
// bf16 fused multiply-add is an sm_80 instruction; before it (a T4's sm_75) the fma runs in fp32 and is rounded once
// to bf16: the same value for the chain below, whose every step is exact.
struct B2Ops {
    using X = __nv_bfloat162;
    static __device__ __forceinline__ X add(X a, X b) { return __hadd2(a, b); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    static __device__ __forceinline__ X fma(X a, X b, X c) {
        return __floats2bfloat162_rn(__fmaf_rn(__low2float(a), __low2float(b), __low2float(c)),
                                     __fmaf_rn(__high2float(a), __high2float(b), __high2float(c)));
    }
#else
    static __device__ __forceinline__ X fma(X a, X b, X c) { return __hfma2(a, b, c); }
#endif
    static __device__ __forceinline__ X make(float f) { return __float2bfloat162_rn(f); }
};
struct BOps {
    using X = __nv_bfloat16;
    static __device__ __forceinline__ X add(X a, X b) { return __hadd(a, b); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    static __device__ __forceinline__ X fma(X a, X b, X c) {
        return __float2bfloat16_rn(__fmaf_rn(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
    }
#else
    static __device__ __forceinline__ X fma(X a, X b, X c) { return __hfma(a, b, c); }
#endif
    static __device__ __forceinline__ X make(float f) { return __float2bfloat16_rn(f); }
};

// Storage element S, packed value P (4 of them per 16-byte vector), kPerP elements per P.
struct EwF32 {
    using S = float;
    using SO = F32Ops;
    using PO = F32Ops;
    static constexpr int kPerP = 1;
};
struct EwF16 {
    using S = __half;
    using SO = HOps;
    using PO = H2Ops;
    static constexpr int kPerP = 2;
};
struct EwBF16 {
    using S = __nv_bfloat16;
    using SO = BOps;
    using PO = B2Ops;
    static constexpr int kPerP = 2;
};

template <class X>
__device__ __forceinline__ X from_word(unsigned w) {
    X x;
    static_assert(sizeof(X) == sizeof(w));
    memcpy(&x, &w, sizeof(w));
    return x;
}
template <class X>
__device__ __forceinline__ unsigned to_word(X x) {
    unsigned w = 0;
    static_assert(sizeof(X) == sizeof(w));
    memcpy(&w, &x, sizeof(w));
    return w;
}

struct EwParams {
    const void* in[kMaxEwArrays];
    void* out[kMaxEwArrays];
    int inputs, outputs;
    std::size_t n;
    int pairs, rem;
    // The chain's constants, as arguments so that the compiler knows none of them.
    float two, minus_one, half, one, zero;
};

template <class Ops>
struct Chain {
    using X = typename Ops::X;
    X two, minus_one, half, one, zero;
    __device__ __forceinline__ explicit Chain(const EwParams& p)
        : two(Ops::make(p.two)),
          minus_one(Ops::make(p.minus_one)),
          half(Ops::make(p.half)),
          one(Ops::make(p.one)),
          zero(Ops::make(p.zero)) {}
    __device__ __forceinline__ X run(X x, int pairs, int rem) const {
        for (int k = 0; k < pairs; ++k) {
            x = Ops::fma(x, two, minus_one);  // 2x − 1: exact for x in [0.5, 128)
            x = Ops::fma(x, half, half);      // back to x, exactly
        }
        if ((rem & 2) != 0)
            x = Ops::fma(x, one, zero);
        if ((rem & 1) != 0)
            x = Ops::add(x, zero);
        return x;
    }
};

template <class Tr>
__global__ void __launch_bounds__(kBlock) ew_kernel(const EwParams p) {
    using P = typename Tr::PO::X;
    using S = typename Tr::S;
    constexpr int kPerVec = 4 * Tr::kPerP;
    const std::size_t nv = p.n / kPerVec;
    const Chain<typename Tr::PO> chain(p);
    for (std::size_t v = first_index(); v < nv; v += grid_stride()) {
        P x[4];
        const uint4 w0 = static_cast<const uint4*>(p.in[0])[v];
        x[0] = from_word<P>(w0.x);
        x[1] = from_word<P>(w0.y);
        x[2] = from_word<P>(w0.z);
        x[3] = from_word<P>(w0.w);
        for (int j = 1; j < p.inputs; ++j) {
            const uint4 w = static_cast<const uint4*>(p.in[j])[v];
            x[0] = Tr::PO::add(x[0], from_word<P>(w.x));
            x[1] = Tr::PO::add(x[1], from_word<P>(w.y));
            x[2] = Tr::PO::add(x[2], from_word<P>(w.z));
            x[3] = Tr::PO::add(x[3], from_word<P>(w.w));
        }
#pragma unroll
        for (int q = 0; q < 4; ++q)
            x[q] = chain.run(x[q], p.pairs, p.rem);
        const uint4 o = make_uint4(to_word(x[0]), to_word(x[1]), to_word(x[2]), to_word(x[3]));
        for (int k = 0; k < p.outputs; ++k)
            static_cast<uint4*>(p.out[k])[v] = o;
    }
    if (const std::size_t t = nv * kPerVec + first_index(); t < p.n) {
        const Chain<typename Tr::SO> scalar_chain(p);
        S x = static_cast<const S*>(p.in[0])[t];
        for (int j = 1; j < p.inputs; ++j)
            x = Tr::SO::add(x, static_cast<const S*>(p.in[j])[t]);
        x = scalar_chain.run(x, p.pairs, p.rem);
        for (int k = 0; k < p.outputs; ++k)
            static_cast<S*>(p.out[k])[t] = x;
    }
}

const void* ew_kernel_for(Elem e) {
    switch (e) {
        case Elem::f16:
            return reinterpret_cast<const void*>(&ew_kernel<EwF16>);
        case Elem::bf16:
            return reinterpret_cast<const void*>(&ew_kernel<EwBF16>);
        case Elem::f32:
        case Elem::f64:
            break;
    }
    return reinterpret_cast<const void*>(&ew_kernel<EwF32>);
}

}  // namespace

cudaError_t hbm_grid(HbmOp op, Elem e, int* grid) {
    if (e != Elem::f64 && e != Elem::f32)
        return cudaErrorInvalidValue;
    return full_grid(e == Elem::f64 ? hbm_kernel<double>(op) : hbm_kernel<float>(op), grid);
}

cudaError_t launch_hbm(HbmOp op, Elem e, const HbmArgs& a, int grid, cudaStream_t s) {
    if (e == Elem::f64)
        return launch_hbm_t<double>(op, a, grid, s);
    if (e == Elem::f32)
        return launch_hbm_t<float>(op, a, grid, s);
    return cudaErrorInvalidValue;
}

cudaError_t ew_grid(Elem e, int* grid) {
    if (e == Elem::f64)
        return cudaErrorInvalidValue;
    return full_grid(ew_kernel_for(e), grid);
}

cudaError_t launch_elementwise(Elem e, const EwArgs& a, int grid, cudaStream_t s) {
    if (e == Elem::f64 || a.inputs < 1 || a.inputs > kMaxEwArrays || a.outputs < 1 || a.outputs > kMaxEwArrays || a.pairs < 0 ||
        a.rem < 0 || a.rem > 3)
        return cudaErrorInvalidValue;
    EwParams p{};
    for (int j = 0; j < kMaxEwArrays; ++j) {
        p.in[j] = a.in[j];
        p.out[j] = a.out[j];
    }
    p.inputs = a.inputs;
    p.outputs = a.outputs;
    p.n = a.n;
    p.pairs = a.pairs;
    p.rem = a.rem;
    p.two = 2.0f;
    p.minus_one = -1.0f;
    p.half = 0.5f;
    p.one = 1.0f;
    p.zero = 0.0f;
    switch (e) {
        case Elem::f16:
            ew_kernel<EwF16><<<grid, kBlock, 0, s>>>(p);
            break;
        case Elem::bf16:
            ew_kernel<EwBF16><<<grid, kBlock, 0, s>>>(p);
            break;
        case Elem::f32:
        case Elem::f64:
            ew_kernel<EwF32><<<grid, kBlock, 0, s>>>(p);
            break;
    }
    return cudaGetLastError();
}

}  // namespace bwacct::kernels
