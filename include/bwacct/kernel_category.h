// What a GPU kernel does, guessed from its (demangled) name: the buckets a profile's time is summed
// into (`bwacct ingest nsys`). A name match only: it says nothing about the kernel's bytes or FLOPs.
#pragma once
#include <string>
#include <string_view>

namespace bwacct {

enum class KernelCategory { gemm, attention, norm, elementwise, reduce, memcpy, nccl, other };

// The first rule that matches the lower-cased name, in this order (so "fmha_cutlass" is attention and
// "ncclDevKernel_AllReduce" is nccl):
//   nccl        "nccl"
//   attention   "flash", "fmha", "attention", "attn", "sdpa", "mha_"
//   gemm        "gemm", "gemv", "cutlass", "cublas", "matmul", "xmma", "nvjet", "wgmma"
//   norm        "layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm", "batchnorm", "group_norm", "groupnorm"
//   memcpy      "memcpy", "memset", "copy", "catarray", "transpose"
//   reduce      "reduce", "reduction", "softmax", "argmax", "argmin", "topk", "dot_kernel", "cub::"
//   elementwise "elementwise", "vectorized", "unrolled", "pointwise", "fused_", "activation", "silu", "gelu",
//               "relu", "add_kernel", "mul_kernel", "triad_kernel", "rotary", "rope"
//   other       anything else
KernelCategory classify_kernel(std::string_view name);

// "gemm", "attention", "norm", "elementwise", "reduce", "memcpy", "nccl", "other".
const char* category_name(KernelCategory c);

// A short label for a long demangled name: the last two "::" components of the function name, without
// template arguments, argument list or return type ("internal::gemvx::kernel<...>(T13)" -> "gemvx::kernel").
std::string short_kernel_name(std::string_view name);

}  // namespace bwacct
