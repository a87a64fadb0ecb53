// The category of a GPU activity that no formula covered: rules on the (lower-cased) kernel name and
// the name of the op that launched it, in the order of docs/ingest.md ("Categories"). Rules name
// families of kernels (libraries, code generators, serving engines), never one trace's kernels.
#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>

#include "bwacct/ingest_kineto.h"

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

bool starts(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// Communication: NCCL/RCCL, PyTorch symmetric memory, vLLM/SGLang custom all-reduce.
bool is_collective(const std::string& n) {
    return has_any(
        n, {"nccl", "rccl", "multimem_", "symm_mem", "cross_device_reduce", "custom_ar", "all_reduce", "allreduce", "all_gather",
            "allgather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all", "record_param_comms", "c10d::"});
}

// One name (a kernel's or an op's) to a category; `other` when no rule matches.
Category name_category(const std::string& n) {
    if (n.empty())
        return Category::other;
    if (is_collective(n))
        return Category::collective;
    if (has_any(n, {"moe", "expert"}))
        return Category::moe;
    if (has_any(n, {"flash", "fmha", "attention", "attn", "sdpa", "mha_", "paged", "flashinfer", "mla_", "decode_kernel"}))
        return Category::attention;
    if (has_any(n, {"conv_", "convolution", "conv1d", "conv2d", "conv3d", "igemm_", "implicit_gemm", "dgrad", "wgrad", "fprop",
                    "winograd", "im2col", "col2im"}))
        return Category::conv;
    if (starts(n, "triton_tem") || starts(n, "triton_mm") || starts(n, "triton_bmm"))
        return Category::gemm;
    if (has_any(n, {"gemm", "gemv", "cutlass", "cublas", "matmul", "xmma", "nvjet", "wgmma", "_mma", "hipblaslt", "rocblas",
                    "tensile", "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear"}) ||
        starts(n, "cijk_") || starts(n, "bmm_"))
        return Category::gemm;
    if (has_any(n, {"softmax"}))
        return Category::softmax;
    if (has_any(n, {"norm", "bn_fw", "bn_bw"}))
        return Category::norm;
    // ("lamb_", not "lamb": every lambda in a templated kernel name would match)
    if (has_any(n, {"adam", "sgd", "lamb_", "foreach", "multi_tensor_apply", "optimizer"}))
        return Category::optimizer;
    if (starts(n, "triton_per") || starts(n, "triton_red"))
        return Category::reduce;
    if (has_any(n, {"reduce",    "reduction",  "argmax",     "argmin",    "topk",      "sort",      "scan",         "cumsum",
                    "cumprod",   "radix",      "histogram",  "cub::",     "rocprim",   "aten::sum", "aten::mean",   "aten::max",
                    "aten::min", "aten::amax", "aten::norm", "aten::any", "aten::all", "nll_loss",  "cross_entropy"}))
        return Category::reduce;
    if (has_any(n, {"index",       "gather",    "scatter", "embedding", "catarray", "cat_",          "aten::cat",
                    "aten::stack", "transpose", "permute", "cache",     "page",     "masked_select", "nonzero",
                    "unique",      "pad",       "roll",    "flip",      "repeat",   "upsample",      "pool"}))
        return Category::indexing;
    if (starts(n, "triton_"))
        return Category::elementwise;  // triton_poi_* and other generated pointwise kernels
    if (has_any(n, {"elementwise", "vectorized", "unrolled", "pointwise", "fused_",      "activation",   "silu",
                    "gelu",        "relu",       "sigmoid",  "tanh",      "add_kernel",  "mul_kernel",   "rotary",
                    "rope",        "quant",      "fill",     "copy",      "act_and_mul", "cast",         "convert",
                    "where",       "clamp",      "dropout",  "aten::",    "_c::",        "sgl_kernel::", "aiter::"}))
        return Category::elementwise;
    return Category::other;
}

}  // namespace

Category activity_category(Activity kind, std::string_view kernel_name, std::string_view op_name) {
    const std::string k = lower(kernel_name), op = lower(op_name);
    if (kind == Activity::memset)
        return Category::memset;
    if (kind == Activity::memcpy) {
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
    // a convolution's transposes); the kernel's own name next; then the op's name alone.
    for (Category c : {Category::moe, Category::collective, Category::conv, Category::attention})
        if (name_category(op) == c)
            return c;
    if (const Category c = name_category(k); c != Category::other)
        return c;
    return name_category(op);
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
