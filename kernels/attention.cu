// Fused attention in the decode regime (kernels.h, "attention.cu"): flash-decoding. Every K and V
// element is read from memory once per launch, by one lane; scores, probabilities and the running
// output stay in registers and shared memory. The split partials (fp32) are the only extra traffic.
//
// Online softmax in base 2: with s = (q·k)·log2(e)/√d, softmax(q·k/√d) = 2^(s − max) / Σ 2^(s − max).
// A state (m, l, acc) holds the running max m, l = Σ 2^(s − m) and acc = Σ 2^(s − m)·v; two states
// merge by rescaling each by 2^(m_i − max(m_1, m_2)). exp2f(−inf) = 0 handles empty states.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>

#include "elem_convert.cuh"
#include "kernels.h"

namespace bwacct::kernels {
namespace {

constexpr int kAttnWarps = kAttnThreads / 32;
constexpr int kTile = 32;  // keys per warp tile: one per lane
// Keys per split: a whole number of tiles for every warp, and at least this many.
constexpr long long kSplitQuantum = static_cast<long long>(kTile) * kAttnWarps;

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xFFFFFFFFu, x, o));
    return x;
}

__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xFFFFFFFFu, x, o);
    return x;
}

// 16 bytes of p (16-byte aligned) as floats.
template <class S>
__device__ __forceinline__ void load16(const S* __restrict__ p, float (&out)[16 / sizeof(S)]) {
    constexpr int kW = 16 / sizeof(S);
    S buf[kW];
    const uint4 w = *reinterpret_cast<const uint4*>(p);
    memcpy(buf, &w, sizeof w);
#pragma unroll
    for (int i = 0; i < kW; ++i)
        out[i] = to_f32(buf[i]);
}

// kC consecutive elements of p (aligned to their size, or to 16 bytes above it) as floats, in
// vector loads of up to 16 bytes.
template <class S, int kC>
__device__ __forceinline__ void load_cols(const S* __restrict__ p, float (&out)[kC]) {
    constexpr int kBytes = kC * static_cast<int>(sizeof(S));
    S buf[kC];
    if constexpr (kBytes >= 16) {
#pragma unroll
        for (int i = 0; i < kBytes / 16; ++i) {
            const uint4 w = reinterpret_cast<const uint4*>(p)[i];
            memcpy(reinterpret_cast<char*>(buf) + 16 * i, &w, sizeof w);
        }
    } else if constexpr (kBytes == 8) {
        const uint2 w = *reinterpret_cast<const uint2*>(p);
        memcpy(buf, &w, sizeof w);
    } else {
        static_assert(kBytes == 4, "2, 4 or 8 columns of 2- or 4-byte elements");
        const unsigned w = *reinterpret_cast<const unsigned*>(p);
        memcpy(buf, &w, sizeof w);
    }
#pragma unroll
    for (int i = 0; i < kC; ++i)
        out[i] = to_f32(buf[i]);
}

// Shared memory of the split kernel, in floats: Q (pre-scaled) [R][d]; the warps' probability tiles
// [warps][32][R]; the warps' final states [warps][R][d + 2] (acc, m, l).
__host__ __device__ constexpr std::size_t split_smem_floats(int rows, int dim) {
    return static_cast<std::size_t>(rows) * dim + static_cast<std::size_t>(kAttnWarps) * kTile * rows +
           static_cast<std::size_t>(kAttnWarps) * rows * (dim + 2);
}

// kCols output columns per lane: d ≤ 32·kCols.
// kRows: the most query rows per KV head this instantiation holds (R ≤ kRows): the running output of kRows
// rows lives in registers, so a kernel sized for 16 rows where 4 are used ran at 168–250 registers per
// thread and a quarter of the H100's HBM roof (docs/measurements/README.md).
template <class S, int kCols, int kRows>
__global__ void __launch_bounds__(kAttnThreads) attention_split_kernel(const AttnArgs a) {
    extern __shared__ float smem[];
    const int R = a.rows, D = a.dim;
    float* qs = smem;
    float* ps = qs + R * D;
    float* ws = ps + kAttnWarps * kTile * R;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const long long group = blockIdx.y;
    const int split = static_cast<int>(blockIdx.x);
    const S* __restrict__ q = static_cast<const S*>(a.q) + group * R * D;
    const S* __restrict__ kb = static_cast<const S*>(a.k) + group * a.kv_len * D;
    const S* __restrict__ vb = static_cast<const S*>(a.v) + group * a.kv_len * D;
    for (int i = static_cast<int>(threadIdx.x); i < R * D; i += kAttnThreads)
        qs[i] = to_f32(q[i]) * a.scale_log2;
    __syncthreads();

    float m[kRows], l[kRows], acc[kRows][kCols];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        m[r] = -INFINITY;
        l[r] = 0;
#pragma unroll
        for (int t = 0; t < kCols; ++t)
            acc[r][t] = 0;
    }

    const int col0 = lane * kCols;
    const bool owns_cols = col0 < D;
    const long long k0 = split * a.keys_per_split;
    const long long k1 = min(a.kv_len, k0 + a.keys_per_split);
    float* pw = ps + warp * kTile * R;
    constexpr int kW = 16 / sizeof(S);
    for (long long t0 = k0 + static_cast<long long>(warp) * kTile; t0 < k1; t0 += kSplitQuantum) {
        // Scores: lane `lane` takes key j.
        const long long j = t0 + lane;
        float s[kRows];
#pragma unroll
        for (int r = 0; r < kRows; ++r)
            s[r] = 0;
        if (j < k1) {
            const S* __restrict__ krow = kb + j * D;
            for (int c = 0; c < D; c += kW) {
                float kv[kW];
                load16(krow + c, kv);
#pragma unroll
                for (int r = 0; r < kRows; ++r)
                    if (r < R) {
                        const float* qr = qs + r * D + c;
#pragma unroll
                        for (int w = 0; w < kW; ++w)
                            s[r] = fmaf(qr[w], kv[w], s[r]);
                    }
            }
        }
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            const long long last = a.kv_len - a.q_len + r % a.q_len;  // the last key query row r sees (causal)
            if (j >= k1 || (a.causal && j > last))
                s[r] = -INFINITY;
        }

        // Online softmax per row over the tile; the probabilities go to shared memory.
#pragma unroll
        for (int r = 0; r < kRows; ++r)
            if (r < R) {
                const float mnew = fmaxf(m[r], warp_max(s[r]));
                float p = 0, alpha = 1;
                if (mnew != -INFINITY) {
                    p = exp2f(s[r] - mnew);  // s = −inf: 0
                    alpha = exp2f(m[r] - mnew);
                }
                l[r] = l[r] * alpha + warp_sum(p);
                m[r] = mnew;
#pragma unroll
                for (int t = 0; t < kCols; ++t)
                    acc[r][t] *= alpha;
                pw[r * kTile + lane] = p;
            }
        __syncwarp();

        // Output: lane `lane` owns the kCols contiguous columns from lane·kCols (d is a multiple of
        // kCols, so a lane has all of them or none); V rows read coalesced, one vector per lane.
        const int valid = static_cast<int>(min(static_cast<long long>(kTile), k1 - t0));
        if (owns_cols) {
#pragma unroll 4
            for (int jj = 0; jj < valid; ++jj) {
                float v[kCols];
                load_cols<S, kCols>(vb + (t0 + jj) * D + col0, v);
#pragma unroll
                for (int r = 0; r < kRows; ++r)
                    if (r < R) {
                        const float p = pw[r * kTile + jj];
#pragma unroll
                        for (int t = 0; t < kCols; ++t)
                            acc[r][t] = fmaf(p, v[t], acc[r][t]);
                    }
            }
        }
        __syncwarp();
    }

    // The warps' states to shared memory, then one merged partial per split.
    float* mine = ws + warp * R * (D + 2);
#pragma unroll
    for (int r = 0; r < kRows; ++r)
        if (r < R) {
            if (owns_cols)
#pragma unroll
                for (int t = 0; t < kCols; ++t)
                    mine[r * (D + 2) + col0 + t] = acc[r][t];
            if (lane == 0) {
                mine[r * (D + 2) + D] = m[r];
                mine[r * (D + 2) + D + 1] = l[r];
            }
        }
    __syncthreads();
    const long long part = (group * a.splits + split) * R;
    for (int i = static_cast<int>(threadIdx.x); i < R * D; i += kAttnThreads) {
        const int r = i / D, c = i % D;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < kAttnWarps; ++w)
            mx = fmaxf(mx, ws[(w * R + r) * (D + 2) + D]);
        float o = 0, sum = 0;
        if (mx != -INFINITY)
#pragma unroll
            for (int w = 0; w < kAttnWarps; ++w) {
                const float* x = ws + (w * R + r) * (D + 2);
                const float f = exp2f(x[D] - mx);
                o = fmaf(x[c], f, o);
                sum = fmaf(x[D + 1], f, sum);
            }
        a.part_o[part * D + i] = o;
        if (c == 0) {
            a.part_ml[(part + r) * 2] = mx;
            a.part_ml[(part + r) * 2 + 1] = sum;
        }
    }
}

// Merges the splits and writes O: one block per (query row, group). The splits' weights
// 2^(m_split − max) are computed once into shared memory (splits floats, dynamic), then each column
// is a weighted sum over the splits, read coalesced. A row no key reached (impossible for a valid
// shape) gets 0/0 = NaN, which the host's check catches.
template <class S>
__global__ void __launch_bounds__(kAttnThreads) attention_combine_kernel(const AttnArgs a) {
    extern __shared__ float weight[];
    __shared__ float red[kAttnWarps];
    const int r = static_cast<int>(blockIdx.x);
    const long long group = blockIdx.y;
    const int R = a.rows, D = a.dim;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const float* ml = a.part_ml + (group * a.splits * R + r) * 2;  // split sp at ml[sp·R·2]

    float mx = -INFINITY;
    for (int sp = static_cast<int>(threadIdx.x); sp < a.splits; sp += kAttnThreads)
        mx = fmaxf(mx, ml[static_cast<long long>(sp) * R * 2]);
    mx = warp_max(mx);
    if (lane == 0)
        red[warp] = mx;
    __syncthreads();
    mx = red[0];
#pragma unroll
    for (int w = 1; w < kAttnWarps; ++w)
        mx = fmaxf(mx, red[w]);
    __syncthreads();  // red is reused below

    float sum = 0;
    for (int sp = static_cast<int>(threadIdx.x); sp < a.splits; sp += kAttnThreads) {
        const float* x = ml + static_cast<long long>(sp) * R * 2;
        const float w = exp2f(x[0] - mx);
        weight[sp] = w;
        sum = fmaf(x[1], w, sum);
    }
    sum = warp_sum(sum);
    if (lane == 0)
        red[warp] = sum;
    __syncthreads();
    sum = 0;
#pragma unroll
    for (int w = 0; w < kAttnWarps; ++w)
        sum += red[w];

    const float* po = a.part_o + (group * a.splits * R + r) * D;  // split sp at po[sp·R·D]
    S* __restrict__ o = static_cast<S*>(a.o) + (group * R + r) * D;
    for (int c = static_cast<int>(threadIdx.x); c < D; c += kAttnThreads) {
        float acc = 0;
        for (int sp = 0; sp < a.splits; ++sp)
            acc = fmaf(po[static_cast<long long>(sp) * R * D + c], weight[sp], acc);
        o[c] = from_f32<S>(acc / sum);
    }
}

template <class S, int kRows>
const void* split_kernel_for(int dim) {
    if (dim <= 64)
        return reinterpret_cast<const void*>(&attention_split_kernel<S, 2, kRows>);
    if (dim <= 128)
        return reinterpret_cast<const void*>(&attention_split_kernel<S, 4, kRows>);
    return reinterpret_cast<const void*>(&attention_split_kernel<S, 8, kRows>);
}

// Rows per KV head in three sizes: up to 4 (multi-head attention, GQA with 4 query heads per KV head),
// up to 8, up to kAttnMaxRows (16).
template <class S>
const void* split_kernel_for(int dim, int rows) {
    if (rows <= 4)
        return split_kernel_for<S, 4>(dim);
    if (rows <= 8)
        return split_kernel_for<S, 8>(dim);
    return split_kernel_for<S, kAttnMaxRows>(dim);
}

const void* split_kernel(Elem e, int dim, int rows) {
    switch (e) {
        case Elem::f32:
            return split_kernel_for<float>(dim, rows);
        case Elem::f16:
            return split_kernel_for<__half>(dim, rows);
        case Elem::bf16:
            return split_kernel_for<__nv_bfloat16>(dim, rows);
        default:
            return nullptr;
    }
}

const void* combine_kernel(Elem e) {
    switch (e) {
        case Elem::f32:
            return reinterpret_cast<const void*>(&attention_combine_kernel<float>);
        case Elem::f16:
            return reinterpret_cast<const void*>(&attention_combine_kernel<__half>);
        case Elem::bf16:
            return reinterpret_cast<const void*>(&attention_combine_kernel<__nv_bfloat16>);
        default:
            return nullptr;
    }
}

}  // namespace

cudaError_t attention_plan(Elem e, AttnArgs& a) {
    if (a.rows < 1 || a.rows > kAttnMaxRows || a.dim < 1 || a.dim > kAttnMaxDim || a.dim % kAttnDimMultiple != 0 ||
        a.groups < 1 || static_cast<unsigned long long>(a.groups) > kAttnMaxGroups || a.q_len < 1 || a.rows % a.q_len != 0 ||
        a.kv_len < 1 || split_kernel(e, a.dim, a.rows) == nullptr)
        return cudaErrorInvalidValue;
    const void* kernel = split_kernel(e, a.dim, a.rows);
    a.smem_bytes = split_smem_floats(a.rows, a.dim) * sizeof(float);
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(a.smem_bytes));
    if (err != cudaSuccess)
        return err;
    int device = 0, sms = 0, per_sm = 0;
    if ((err = cudaGetDevice(&device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
        (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kAttnThreads, a.smem_bytes)) != cudaSuccess)
        return err;
    // Enough blocks to fill the GPU once, each split a whole number of warp tiles.
    const long long target = static_cast<long long>(sms) * std::max(per_sm, 1);
    const long long quanta = (a.kv_len + kSplitQuantum - 1) / kSplitQuantum;
    const long long want = std::clamp((target + a.groups - 1) / a.groups, 1LL, quanta);
    a.keys_per_split = (quanta + want - 1) / want * kSplitQuantum;
    a.splits = static_cast<int>((a.kv_len + a.keys_per_split - 1) / a.keys_per_split);
    // The combine kernel keeps one weight per split in shared memory (at most the default 48 KiB).
    if (static_cast<std::size_t>(a.splits) * sizeof(float) > 48 * 1024)
        return cudaErrorInvalidConfiguration;
    return cudaSuccess;
}

cudaError_t launch_attention(Elem e, const AttnArgs& a, cudaStream_t s) {
    const void* split = split_kernel(e, a.dim, a.rows);
    const void* combine = combine_kernel(e);
    if (split == nullptr || combine == nullptr || a.splits < 1)
        return cudaErrorInvalidValue;
    AttnArgs args = a;
    void* params[] = {&args};
    cudaError_t err = cudaLaunchKernel(split, dim3(static_cast<unsigned>(a.splits), static_cast<unsigned>(a.groups)),
                                       dim3(kAttnThreads), params, a.smem_bytes, s);
    if (err != cudaSuccess)
        return err;
    return cudaLaunchKernel(combine, dim3(static_cast<unsigned>(a.rows), static_cast<unsigned>(a.groups)), dim3(kAttnThreads),
                            params, static_cast<std::size_t>(a.splits) * sizeof(float), s);
}

}  // namespace bwacct::kernels
