// Row-wise normalizations over the last dimension: layernorm, rmsnorm and softmax (kernels.h).
// One block of kBlock threads per row. Pass 1 reads the row and reduces its statistics in fp32
// (each thread over a strided slice, then warp shuffles, then shared memory across the warps);
// pass 2 reads the row again (normally from L1/L2) with γ and β and writes y. Rows that are a whole
// number of 16-byte vectors are read and written 16 bytes per access, others one element at a time.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>
#include <cstring>

#include "elem_convert.cuh"
#include "kernels.h"

namespace bwacct::kernels {
namespace {

constexpr int kWarps = kBlock / 32;

// kW consecutive elements starting at element v·kW of p, as floats (one 16-byte access when kW
// elements fill 16 bytes).
template <class S, int kW>
__device__ __forceinline__ void load(const S* __restrict__ p, std::size_t v, float (&out)[kW]) {
    S buf[kW];
    if constexpr (kW * sizeof(S) == 16) {
        const uint4 w = reinterpret_cast<const uint4*>(p)[v];
        memcpy(buf, &w, sizeof w);
    } else {
#pragma unroll
        for (int i = 0; i < kW; ++i)
            buf[i] = p[v * kW + i];
    }
#pragma unroll
    for (int i = 0; i < kW; ++i)
        out[i] = to_f32(buf[i]);
}

template <class S, int kW>
__device__ __forceinline__ void store(S* __restrict__ p, std::size_t v, const float (&in)[kW]) {
    S buf[kW];
#pragma unroll
    for (int i = 0; i < kW; ++i)
        buf[i] = from_f32<S>(in[i]);
    if constexpr (kW * sizeof(S) == 16) {
        uint4 w;
        memcpy(&w, buf, sizeof w);
        reinterpret_cast<uint4*>(p)[v] = w;
    } else {
#pragma unroll
        for (int i = 0; i < kW; ++i)
            p[v * kW + i] = buf[i];
    }
}

// The block-wide sum of each thread's a and b, returned to every thread.
__device__ __forceinline__ void block_sum(float& a, float& b) {
    __shared__ float sa[kWarps], sb[kWarps];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xFFFFFFFFu, a, o);
        b += __shfl_xor_sync(0xFFFFFFFFu, b, o);
    }
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    if (lane == 0) {
        sa[warp] = a;
        sb[warp] = b;
    }
    __syncthreads();
    a = 0;
    b = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
        a += sa[w];
        b += sb[w];
    }
}

// Online softmax state: running max m and Σ exp(x − m). Merging two states rescales both sums.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    const float mx = fmaxf(m, m2);
    if (mx == -INFINITY)
        return;  // both empty
    s = s * expf(m - mx) + s2 * expf(m2 - mx);
    m = mx;
}

// One more element into the state: one exp per element.
__device__ __forceinline__ void add_to(float& m, float& s, float v) {
    if (v > m) {
        s = fmaf(s, expf(m - v), 1.0f);  // m = −inf at first: s = 0 · 0 + 1
        m = v;
    } else {
        s += expf(v - m);
    }
}

__device__ __forceinline__ void block_max_sum(float& m, float& s) {
    __shared__ float sm[kWarps], ss[kWarps];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xFFFFFFFFu, m, o);
        const float s2 = __shfl_xor_sync(0xFFFFFFFFu, s, o);
        merge(m, s, m2, s2);
    }
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    if (lane == 0) {
        sm[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    m = -INFINITY;
    s = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
        merge(m, s, sm[w], ss[w]);
}

template <NormOp Op, class S, int kW>
__global__ void __launch_bounds__(kBlock) norm_kernel(const NormArgs a) {
    const std::size_t row = blockIdx.x;
    const S* __restrict__ x = static_cast<const S*>(a.x) + row * a.dim;
    S* __restrict__ y = static_cast<S*>(a.y) + row * a.dim;
    const S* __restrict__ gamma = static_cast<const S*>(a.gamma);
    const S* __restrict__ beta = static_cast<const S*>(a.beta);
    const std::size_t nv = a.dim / kW;
    const float dim = static_cast<float>(a.dim);

    // Pass 1: the row's statistics.
    float p = 0, q = 0;  // layernorm: Σ(x − x₀), Σ(x − x₀)²; rmsnorm: q = Σx²; softmax: p = max, q = Σ exp(x − max)
    float shift = 0;
    if constexpr (Op == NormOp::layernorm)
        shift = to_f32(x[0]);  // shifted sums: no cancellation when the mean is far from 0
    if constexpr (Op == NormOp::softmax)
        p = -INFINITY;
    for (std::size_t v = threadIdx.x; v < nv; v += kBlock) {
        float e[kW];
        load<S, kW>(x, v, e);
#pragma unroll
        for (int i = 0; i < kW; ++i) {
            if constexpr (Op == NormOp::layernorm) {
                const float d = e[i] - shift;
                p += d;
                q = fmaf(d, d, q);
            } else if constexpr (Op == NormOp::rmsnorm) {
                q = fmaf(e[i], e[i], q);
            } else {
                add_to(p, q, e[i]);
            }
        }
    }
    if constexpr (Op == NormOp::softmax)
        block_max_sum(p, q);
    else
        block_sum(p, q);

    // Pass 2: y.
    float scale = 0, center = 0;
    if constexpr (Op == NormOp::layernorm) {
        const float mean_d = p / dim;
        const float var = fmaxf(q / dim - mean_d * mean_d, 0.0f);
        center = shift + mean_d;
        scale = rsqrtf(var + a.eps);
    } else if constexpr (Op == NormOp::rmsnorm) {
        scale = rsqrtf(q / dim + a.eps);
    } else {
        center = p;
        scale = 1.0f / q;
    }
    for (std::size_t v = threadIdx.x; v < nv; v += kBlock) {
        float e[kW], out[kW];
        load<S, kW>(x, v, e);
        if constexpr (Op == NormOp::softmax) {
#pragma unroll
            for (int i = 0; i < kW; ++i)
                out[i] = expf(e[i] - center) * scale;
        } else {
            float g[kW];
            load<S, kW>(gamma, v, g);
            if constexpr (Op == NormOp::layernorm) {
                float b[kW];
                load<S, kW>(beta, v, b);
#pragma unroll
                for (int i = 0; i < kW; ++i)
                    out[i] = fmaf((e[i] - center) * scale, g[i], b[i]);
            } else {
#pragma unroll
                for (int i = 0; i < kW; ++i)
                    out[i] = e[i] * scale * g[i];
            }
        }
        store<S, kW>(y, v, out);
    }
}

template <NormOp Op, class S>
void launch_t(const NormArgs& a, cudaStream_t s) {
    constexpr int kVec = static_cast<int>(16 / sizeof(S));
    const unsigned grid = static_cast<unsigned>(a.rows);
    if (a.dim % kVec == 0)
        norm_kernel<Op, S, kVec><<<grid, kBlock, 0, s>>>(a);
    else
        norm_kernel<Op, S, 1><<<grid, kBlock, 0, s>>>(a);
}

template <class S>
void launch_op(NormOp op, const NormArgs& a, cudaStream_t s) {
    switch (op) {
        case NormOp::layernorm:
            launch_t<NormOp::layernorm, S>(a, s);
            break;
        case NormOp::rmsnorm:
            launch_t<NormOp::rmsnorm, S>(a, s);
            break;
        case NormOp::softmax:
            launch_t<NormOp::softmax, S>(a, s);
            break;
    }
}

}  // namespace

cudaError_t launch_norm(NormOp op, Elem e, const NormArgs& a, cudaStream_t s) {
    const bool needs_gamma = op != NormOp::softmax, needs_beta = op == NormOp::layernorm;
    if (e == Elem::f64 || a.rows == 0 || a.rows > static_cast<std::size_t>(INT_MAX) || a.dim == 0 || a.x == nullptr ||
        a.y == nullptr || (needs_gamma && a.gamma == nullptr) || (needs_beta && a.beta == nullptr))
        return cudaErrorInvalidValue;
    switch (e) {
        case Elem::f16:
            launch_op<__half>(op, a, s);
            break;
        case Elem::bf16:
            launch_op<__nv_bfloat16>(op, a, s);
            break;
        case Elem::f32:
        case Elem::f64:
            launch_op<float>(op, a, s);
            break;
    }
    return cudaGetLastError();
}

}  // namespace bwacct::kernels
