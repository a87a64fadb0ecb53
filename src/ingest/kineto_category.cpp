// The category of a GPU activity that no formula covered: its kind (memcpy, memset), then the name
// rules shared with `ingest nsys` (classify_kernel) on the kernel's name and the name of the op that
// launched it, in the order of docs/ingest.md ("Categories").
#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>

#include "bwacct/ingest_kineto.h"
#include "bwacct/kernel_category.h"

namespace bwacct::kineto {
namespace {

std::string lower(std::string_view s) {
    std::string l(s);
    std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return l;
}

bool has_any(const std::string& s, std::initializer_list<std::string_view> words) {
    return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return s.find(w) != std::string::npos; });
}

// One name (a kernel's or an op's) to a category: the kernel-name rules of `ingest nsys`
// (classify_kernel, src/ingest/kernel_category.cpp), one rule set for both.
Category name_category(const std::string& n) {
    switch (classify_kernel(n)) {
        case KernelCategory::gemm:
            return Category::gemm;
        case KernelCategory::conv:
            return Category::conv;
        case KernelCategory::attention:
            return Category::attention;
        case KernelCategory::moe:
            return Category::moe;
        case KernelCategory::norm:
            return Category::norm;
        case KernelCategory::softmax:
            return Category::softmax;
        case KernelCategory::elementwise:
            return Category::elementwise;
        case KernelCategory::reduce:
            return Category::reduce;
        case KernelCategory::indexing:
            return Category::indexing;
        case KernelCategory::optimizer:
            return Category::optimizer;
        case KernelCategory::fft:
            return Category::fft;
        case KernelCategory::collective:
            return Category::collective;
        case KernelCategory::other:
            return Category::other;
    }
    return Category::other;
}

// ROCclr's (the HIP runtime's) blit kernels: hipMemcpy*/hipMemset* run as kernels of these names
// (copyBuffer, copyBufferAligned, copyBufferRect, fillBufferAligned, fillBuffer, ...; ".kd" suffixed
// under rocprofiler).
constexpr std::string_view kRocclrCopy = "__amd_rocclr_copy", kRocclrFill = "__amd_rocclr_fill";

}  // namespace

Activity runtime_kernel_kind(std::string_view kernel_name) {
    if (kernel_name.starts_with(kRocclrCopy))
        return Activity::memcpy;
    if (kernel_name.starts_with(kRocclrFill))
        return Activity::memset;
    return Activity::kernel;
}

bool runtime_copy_kernel(std::string_view kernel_name) { return kernel_name.starts_with(kRocclrCopy); }

Category activity_category(Activity kind, std::string_view kernel_name, std::string_view op_name, CopyKind copy) {
    const std::string k = lower(kernel_name);
    if (kind == Activity::memset)
        return Category::memset;
    if (kind == Activity::memcpy) {
        // A copy kernel runs host<->device copies too (pinned host memory): its launch's direction, else none.
        if (runtime_copy_kernel(kernel_name))
            return copy == CopyKind::htod   ? Category::memcpy_htod
                   : copy == CopyKind::dtoh ? Category::memcpy_dtoh
                   : copy == CopyKind::dtod ? Category::memcpy_dtod
                                            : Category::memcpy;
        if (has_any(k, {"htod", "host -> device", "host to device"}))
            return Category::memcpy_htod;
        if (has_any(k, {"dtoh", "device -> host", "device to host"}))
            return Category::memcpy_dtoh;
        if (has_any(k, {"dtod", "device -> device", "device to device"}))
            return Category::memcpy_dtod;
        if (has_any(k, {"ptop", "peer"}))
            return Category::memcpy_ptop;
        return Category::memcpy;
    }
    // The op's family decides where the kernel name is a library's generic name (a MoE's grouped GEMM,
    // a convolution's transposes); the kernel's own name next; then the op's name alone. A state-space
    // layer's op (vLLM's mamba_mixer2) is no such family: its norm, causal conv1d and GEMM kernels keep
    // their own categories.
    // (the names as written: classify_kernel finds words at camel-case steps, "bitonicSortKVInPlace")
    const std::string kernel(kernel_name), op_as_written(op_name);
    const Category op_category = name_category(op_as_written);
    for (Category c : {Category::moe, Category::collective, Category::conv, Category::attention})
        if (op_category == c && !(c == Category::attention && is_state_space_name(op_name)))
            return c;
    if (const Category c = name_category(kernel); c != Category::other)
        return c;
    return op_category;
}

std::string kernel_operand_types(std::string_view kernel_name) {
    // Low-precision operand spellings in GEMM kernel names: cuBLAS/TRT-LLM "MxE4m3", "MxE2m1", "E4m3",
    // "E2m1", "Bfloat16", "Fp16"; the first two such tokens are the A and B operands.
    static constexpr std::array<std::string_view, 10> kTypes{"MxE4m3", "MxE5m2", "MxE2m1",   "MxInt4", "E4m3",
                                                             "E5m2",   "E2m1",   "Bfloat16", "Fp16",   "Fp32"};
    std::string out;
    int found = 0;
    for (std::size_t i = 0; i < kernel_name.size() && found < 2;) {
        bool hit = false;
        for (std::string_view t : kTypes)
            if (kernel_name.substr(i, t.size()) == t) {
                out += found == 0 ? std::string(t) : " x " + std::string(t);
                ++found;
                i += t.size();
                hit = true;
                break;
            }
        if (!hit)
            ++i;
    }
    const bool low_precision = out.find('E') != std::string::npos || out.find("Mx") != std::string::npos;
    return found == 2 && low_precision ? out : "";
}

}  // namespace bwacct::kineto
