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

// The first rule that matches the name (a kernel's, or an op's: "aten::mm"), in the order of docs/ingest.md
// ("Categories"). Most rules look for a substring of the lower-cased name; some for a word of the name as
// written (a word starts at a non-letter or a camel-case step: "Sort" in "bitonicSortKVInPlace", "mm" but
// not "mmap"); some only in the function's own name (no namespace, template or argument list). An Inductor
// kernel's prefix (triton_poi_, triton_red_, ...) decides its kind first; then, roughly: collective, moe,
// serving-step indexing and top-k, attention (state-space scans too), conv, fft, gemm, softmax,
// random-number elementwise, vector norms (reduce), norm, optimizer, sampling and reduce, indexing,
// elementwise, serving bookkeeping (indexing); other when none does.
// Rules name families of kernels (libraries, code generators, serving engines), never one trace's kernels.
KernelCategory classify_kernel(std::string_view name);

// Does the name hold a state-space model's words (Mamba's selective_scan, mamba_mixer2, chunk_scan,
// chunk_state, state_passing)? Such kernels are filed as attention (they mix tokens over the sequence),
// but an op of that name is a whole layer whose kernels keep their own categories.
bool is_state_space_name(std::string_view name);

// "gemm", "conv", "attention", "moe", "norm", "softmax", "elementwise", "reduce", "indexing",
// "optimizer", "fft", "collective", "other".
const char* category_name(KernelCategory c);

// A short label for a long demangled name: the last two "::" components of the function name, without
// template arguments, argument list or return type ("internal::gemvx::kernel<...>(T13)" -> "gemvx::kernel").
std::string short_kernel_name(std::string_view name);

}  // namespace bwacct
