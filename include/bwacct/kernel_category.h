// What a GPU kernel does, guessed from its (demangled) name: the buckets a profile's time is summed
// into (`bwacct ingest nsys`, and `ingest torch-trace` for kernels no formula covers). A name match
// only: it says nothing about the kernel's bytes or FLOPs.
#pragma once
#include <string>
#include <string_view>

namespace bwacct {

// The kernel categories of `bwacct ingest nsys` and of `bwacct ingest torch-trace` (whose Category adds
// the memcpy/memset activity kinds): ONE rule set on names, used by both.
enum class KernelCategory {
    gemm,
    conv,
    attention,
    moe,
    norm,
    softmax,
    elementwise,
    reduce,
    indexing,
    optimizer,
    fft,
    collective,
    other
};

// The first rule that matches the lower-cased name (a kernel's, or an op's: "aten::mm"), in the order
// of docs/ingest.md ("Categories"): collective (nccl, rccl, symm_mem, custom all-reduce, ...), moe,
// attention, conv, fft, gemm, softmax, norm, optimizer, reduce, indexing, elementwise; other when none does.
// Rules name families of kernels (libraries, code generators, serving engines), never one trace's kernels.
KernelCategory classify_kernel(std::string_view name);

// "gemm", "conv", "attention", "moe", "norm", "softmax", "elementwise", "reduce", "indexing",
// "optimizer", "fft", "collective", "other".
const char* category_name(KernelCategory c);

// A short label for a long demangled name: the last two "::" components of the function name, without
// template arguments, argument list or return type ("internal::gemvx::kernel<...>(T13)" -> "gemvx::kernel").
std::string short_kernel_name(std::string_view name);

}  // namespace bwacct
