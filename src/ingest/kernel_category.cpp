#include "bwacct/kernel_category.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <vector>

namespace bwacct {
namespace {

bool has_any(const std::string& lower, std::initializer_list<const char*> words) {
    return std::any_of(words.begin(), words.end(), [&](const char* w) { return lower.find(w) != std::string::npos; });
}

}  // namespace

KernelCategory classify_kernel(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (has_any(lower, {"nccl"}))
        return KernelCategory::nccl;
    if (has_any(lower, {"flash", "fmha", "attention", "attn", "sdpa", "mha_"}))
        return KernelCategory::attention;
    if (has_any(lower, {"gemm", "gemv", "cutlass", "cublas", "matmul", "xmma", "nvjet", "wgmma"}))
        return KernelCategory::gemm;
    if (has_any(lower, {"layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm", "batchnorm", "group_norm", "groupnorm"}))
        return KernelCategory::norm;
    if (has_any(lower, {"memcpy", "memset", "copy", "catarray", "transpose"}))
        return KernelCategory::memcpy;
    if (has_any(lower, {"reduce", "reduction", "softmax", "argmax", "argmin", "topk", "dot_kernel", "cub::"}))
        return KernelCategory::reduce;
    if (has_any(lower, {"elementwise", "vectorized", "unrolled", "pointwise", "fused_", "activation", "silu", "gelu", "relu",
                        "add_kernel", "mul_kernel", "triad_kernel", "rotary", "rope"}))
        return KernelCategory::elementwise;
    return KernelCategory::other;
}

const char* category_name(KernelCategory c) {
    switch (c) {
        case KernelCategory::gemm:
            return "gemm";
        case KernelCategory::attention:
            return "attention";
        case KernelCategory::norm:
            return "norm";
        case KernelCategory::elementwise:
            return "elementwise";
        case KernelCategory::reduce:
            return "reduce";
        case KernelCategory::memcpy:
            return "memcpy";
        case KernelCategory::nccl:
            return "nccl";
        case KernelCategory::other:
            return "other";
    }
    return "other";
}

std::string short_kernel_name(std::string_view name) {
    // Drop everything inside <...>, [...] and (...) at any depth, remembering where the first
    // top-level '(' (the argument list) starts.
    std::string flat;
    int angle = 0, paren = 0, square = 0;
    bool args_seen = false;
    for (std::size_t i = 0; i < name.size() && !args_seen; ++i) {
        const char c = name[i];
        if (c == '<') {
            ++angle;
        } else if (c == '>') {
            angle = std::max(0, angle - 1);
        } else if (c == '[') {
            ++square;
        } else if (c == ']') {
            square = std::max(0, square - 1);
        } else if (c == '(') {
            if (angle == 0 && square == 0 && paren == 0 && !flat.empty() && flat.back() != ' ' && flat.back() != ':')
                args_seen = true;  // the argument list of the function
            ++paren;
        } else if (c == ')') {
            paren = std::max(0, paren - 1);
        } else if (angle == 0 && paren == 0 && square == 0) {
            flat += c;
        }
    }
    // The function name is the last blank-separated word (before it: "void", a return type).
    while (!flat.empty() && flat.back() == ' ')
        flat.pop_back();
    const std::size_t blank = flat.rfind(' ');
    std::string fn = blank == std::string::npos ? flat : flat.substr(blank + 1);
    // Keep the last two non-empty "::" components.
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= fn.size()) {
        const std::size_t sep = fn.find("::", start);
        const std::string part = fn.substr(start, sep == std::string::npos ? std::string::npos : sep - start);
        if (!part.empty())
            parts.push_back(part);
        if (sep == std::string::npos)
            break;
        start = sep + 2;
    }
    if (parts.empty())
        return std::string(name.substr(0, 60));
    if (parts.size() == 1)
        return parts.back();
    return parts[parts.size() - 2] + "::" + parts.back();
}

}  // namespace bwacct
