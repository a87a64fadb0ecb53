// A probe for Nsight Compute exports (tests/data/corpus/ncu/*nsight11*): three 64 MiB float buffers, an
// NVTX range around the setup copies and one around copy (3×), triad (2×) and scale kernels. Built and run
// on the H100 lent on 2026-11-25 (nvcc -O2 -arch=sm_90, then ncu with the flags each
// file's .src.txt names). Not part of the build.
#include <nvtx3/nvToolsExt.h>
#include <cstdio>
#define L for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
__global__ void copy_kernel(const float* a, float* c, size_t n) { L c[i] = a[i]; }
__global__ void triad_kernel(const float* a, const float* b, float* c, float s, size_t n) { L c[i] = a[i] + s * b[i]; }
__global__ void scale_kernel(float* c, float s, size_t n) { L c[i] *= s; }
int main() {
    size_t n = 1 << 24, B = n * 4;
    float *h, *a, *b, *c;
    cudaMallocHost(&h, B);
    for (size_t i = 0; i < n; i++)
        h[i] = i % 1000 * .001f;
    cudaMalloc(&a, B);
    cudaMalloc(&b, B);
    cudaMalloc(&c, B);
    nvtxRangePushA("setup");
    cudaMemcpy(a, h, B, cudaMemcpyHostToDevice);
    cudaMemset(b, 0, B);
    cudaMemcpy(b, a, B, cudaMemcpyDeviceToDevice);
    nvtxRangePop();
    nvtxRangePushA("compute");
    for (int r = 0; r < 3; r++)
        copy_kernel<<<1056, 256>>>(a, c, n);
    for (int r = 0; r < 2; r++)
        triad_kernel<<<1056, 256>>>(a, b, c, 3.f, n);
    scale_kernel<<<1056, 256>>>(c, .5f, n);
    cudaDeviceSynchronize();
    nvtxRangePop();
    cudaMemcpy(h, c, B, cudaMemcpyDeviceToHost);
    printf("c[1]=%g\n", h[1]);
    return 0;
}
