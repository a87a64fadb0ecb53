// Custom ops of serving engines and kernel libraries (vLLM `_C::`, SGLang `sgl_kernel::`, AMD
// `aiter::`, ...), recognised by RULES on the op's base name (docs/ingest.md, "Serving and compiler
// kernels"), costed from their "Input Dims" (docs/formulas.md, "Serving ops"):
//   *rms_norm* / *rmsnorm*  engine rmsnorm of the largest input; "add" in the name: + read and write of the residual
//   *rotary* / *rope*       read q, k, the positions and one cache row per position; write q, k; 3 FLOPs per element
//   *_and_mul / swiglu      read [T, 2I], write [T, I]; activation FLOPs + 1 per output element
//   *quant*                 read the largest input, write its elements at the output's (input 0's) type; 2 FLOPs each
//   *cache* (reshape_and_cache, store_cache, set_kv_buffer)  read k, v and the slots; write k, v at the cache's type
//   *gemm* with A [M, K] and W [N, K]                        the engine's GEMM (x · Wᵀ)
//   *moe* / *experts* with expert weights [E, N, K] and integer top-k ids [T, k]: 2·T·k·N·K FLOPs per weight,
//       read the hidden states and the experts' weights touched, write the output [T, H]
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using namespace detail;

bool contains(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// Floating-point tensor inputs: (index, shape).
std::vector<std::pair<std::size_t, Shape>> float_inputs(const CpuOp& op) {
    std::vector<std::pair<std::size_t, Shape>> v;
    for (std::size_t i = 0; i < op.dims.size(); ++i)
        if (auto s = input_shape(op, i); s && input_dtype(op, i))
            v.emplace_back(i, *s);
    return v;
}

std::optional<std::size_t> largest(const std::vector<std::pair<std::size_t, Shape>>& v) {
    if (v.empty())
        return std::nullopt;
    std::size_t best = 0;
    for (std::size_t i = 1; i < v.size(); ++i)
        if (elems(v[i].second) > elems(v[best].second))
            best = i;
    return best;
}

std::optional<OpCost> rms_norm(const std::string& name, std::string_view base, const CpuOp& op) {
    const auto in = float_inputs(op);
    const auto big = largest(in);
    if (!big || in[*big].second.size() < 2)
        return std::nullopt;
    const Shape& x = in[*big].second;
    const DType t = *input_dtype(op, in[*big].first);
    NormDesc d;
    d.kind = NormKind::rmsnorm;
    d.shape = x;
    d.dtype = t;
    OpCost r;
    r.op = name;
    r.shape = shape_text(x);
    r.dtype = std::string(dtype_name(t));
    r.category = Category::norm;
    r.cost = norm_cost(d);
    if (contains(base, "add")) {  // fused residual add: read the residual, write the updated residual
        const std::uint64_t b = bytes_of(t, elems(x));
        r.cost.bytes_read += b;
        r.cost.bytes_written += b;
        r.cost.flops += elems(x);
        r.cost.terms.push_back({"fused residual add", "read residual + write residual, 1 FLOP per element",
                                fmt::format("{} + {} B", b, b), fmt::format("{} B", 2 * b)});
        r.shape += " +residual";
    }
    r.params = {{"shape", r.shape}};
    return r;
}

std::optional<OpCost> rotary(const std::string& name, const CpuOp& op) {
    // positions: the first 1-D integer input; rotated tensors: float inputs whose first dim is the
    // token count; cache: other float inputs, one row per token read.
    std::optional<std::uint64_t> tokens;
    std::size_t pos_i = 0;
    for (std::size_t i = 0; i < op.dims.size() && !tokens; ++i)
        if (auto s = input_shape(op, i); s && s->size() == 1 && index_input(op, i)) {
            tokens = (*s)[0];
            pos_i = i;
        }
    if (!tokens)
        return std::nullopt;
    std::uint64_t rotated = 0, read = input_bytes(op, pos_i), written = 0;
    std::optional<DType> t;
    for (const auto& [i, s] : float_inputs(op)) {
        const DType ti = *input_dtype(op, i);
        if (s[0] == *tokens) {
            rotated += elems(s);
            read += input_bytes(op, i);
            written += input_bytes(op, i);
            t = ti;
        } else if (s.size() == 2) {
            read += bytes_of(ti, *tokens * s[1]);  // one cos/sin row per token
        }
    }
    if (!t || rotated == 0)
        return std::nullopt;
    return traffic(name, fmt::format("T={} rotated={}", *tokens, rotated), *t, std::string(dtype_name(*t)), read, written,
                   3 * rotated, Category::elementwise,
                   "q, k, positions and one cache row per token read; q, k written; 3 FLOPs per rotated element");
}

std::optional<OpCost> act_and_mul(const std::string& name, std::string_view base, const CpuOp& op) {
    const auto in = float_inputs(op);
    const auto big = largest(in);
    if (!big || in[*big].second.back() % 2 != 0)
        return std::nullopt;
    const Shape& x = in[*big].second;
    const DType t = *input_dtype(op, in[*big].first);
    const std::uint64_t out = elems(x) / 2;
    const std::uint64_t act = contains(base, "gelu") ? 5 : 4;  // gelu 5, silu 4 (as the elementwise ops)
    return traffic(
        name, shape_text(x), t, std::string(dtype_name(t)), bytes_of(t, elems(x)), bytes_of(t, out), (act + 1) * out,
        Category::elementwise,
        fmt::format("[T, 2I] read, [T, I] written; {} FLOPs per output element (activation {} + mul 1)", act + 1, act));
}

std::optional<OpCost> quant(const std::string& name, const CpuOp& op) {
    const auto in = float_inputs(op);
    std::optional<std::size_t> src;
    for (std::size_t k = 0; k < in.size(); ++k)
        if (input_dtype(op, in[k].first) != DType::fp8_e4m3 && input_dtype(op, in[k].first) != DType::fp8_e5m2 &&
            (!src || elems(in[k].second) > elems(in[*src].second)))
            src = k;
    if (!src || op.types.empty())
        return std::nullopt;
    const auto out_t = storage_dtype(op.types[0]);
    const DType t = *input_dtype(op, in[*src].first);
    const std::uint64_t n = elems(in[*src].second);
    if (!out_t)
        return std::nullopt;
    return traffic(name, shape_text(in[*src].second), t, fmt::format("{}->{}", dtype_name(t), op.types[0]), bytes_of(t, n),
                   bytes_of(*out_t, n), 2 * n, Category::elementwise,
                   "input read, quantized output written; 2 FLOPs per element (scale, clamp)");
}

std::optional<OpCost> kv_cache_store(const std::string& name, const CpuOp& op) {
    // key, value: the first two tensor inputs; the cache: the next one (its type is the stored type).
    const auto k = input_shape(op, 0), v = input_shape(op, 1);
    if (!k || !v || op.types.size() < 3)
        return std::nullopt;
    const auto cache_t = storage_dtype(op.types[2]);
    if (!cache_t)
        return std::nullopt;
    std::uint64_t read = input_bytes(op, 0) + input_bytes(op, 1);
    for (std::size_t i = 3; i < op.dims.size(); ++i)  // slot mapping and scales
        if (const auto s = input_shape(op, i); s && elems(*s) <= elems(*k))
            read += input_bytes(op, i);
    const std::uint64_t n = elems(*k) + elems(*v);
    return traffic(name, fmt::format("{} + {}", shape_text(*k), shape_text(*v)), *cache_t, op.types[2], read,
                   bytes_of(*cache_t, n), 0, Category::indexing, "k, v and slot indices read; k, v written into the cache");
}

std::optional<OpCost> linear_gemm(const std::string& name, const CpuOp& op) {
    const auto a = input_shape(op, 0), w = input_shape(op, 1);
    const auto ta = input_dtype(op, 0), tw = input_dtype(op, 1);
    if (!a || !w || !ta || !tw || a->size() != 2 || w->size() != 2 || (*a)[1] != (*w)[1] || *ta != *tw)
        return std::nullopt;
    GemmDesc d;
    d.m = (*a)[0];
    d.n = (*w)[0];
    d.k = (*a)[1];
    d.a = d.b = d.c = *ta;
    if (const auto bias = input_shape(op, 2); bias && elems(*bias) == d.n)
        d.bias = true;
    OpCost r;
    r.op = name;
    r.shape = fmt::format("M={} N={} K={}{}", d.m, d.n, d.k, d.bias ? " bias" : "");
    r.dtype = std::string(dtype_name(*ta));
    r.category = Category::gemm;
    r.cost = gemm_cost(d);
    r.params = {{"m", d.m}, {"n", d.n}, {"k", d.k}, {"bias", d.bias}};
    return r;
}

// Fused MoE with its expert weights among the inputs: hidden [T, H], weights [E, N, K], integer top-k ids
// [T, k]. A floating [T, k] never gives k: top-k weights cannot be told by shape from router logits [T, E]
// or from AITER's per-token activation scales [T, 1] and block scales [T, H/128].
std::optional<OpCost> moe(const std::string& name, const CpuOp& op) {
    const auto h = input_shape(op, 0);
    const auto ht = input_dtype(op, 0);
    if (!h || !ht || h->size() != 2)
        return std::nullopt;
    const std::uint64_t tokens = (*h)[0];
    std::vector<std::size_t> weights;
    std::optional<std::uint64_t> topk;
    for (std::size_t i = 1; i < op.dims.size(); ++i) {
        const auto s = input_shape(op, i);
        if (!s)
            continue;
        if (s->size() == 3)
            weights.push_back(i);
        else if (s->size() == 2 && (*s)[0] == tokens && !topk && (*s)[1] < (*h)[1] && index_input(op, i))
            topk = (*s)[1];  // integer [T, k]: the routed expert ids
    }
    if (weights.empty() || !topk)
        return std::nullopt;
    OpCost r;
    r.op = name;
    r.dtype = std::string(dtype_name(*ht));
    r.category = Category::moe;
    Cost& c = r.cost;
    c.op = name;
    c.unit = matmul_unit(*ht);
    c.compute_dtype = *ht;
    const std::uint64_t routed = tokens * *topk;
    std::string shape = fmt::format("T={} topk={}", tokens, *topk);
    std::uint64_t flops = 0, read = input_bytes(op, 0);
    for (std::size_t i : weights) {
        const Shape w = *input_shape(op, i);
        const std::uint64_t experts = w[0];
        // Packed sub-byte weights (uint8 holding two fp4) keep their storage bytes; the GEMM's K is
        // the activation's when the last dim is packed.
        const std::uint64_t k = w[2] == (*h)[1] || w[2] * 2 == (*h)[1] ? (*h)[1] : w[2];
        const std::uint64_t n = w[1];
        flops += 2 * routed * n * k;
        const std::uint64_t touched = std::min(experts, routed);
        read += input_bytes(op, i) / experts * touched;
        shape += fmt::format(" W[{}]", shape_text(w));
        c.terms.push_back({fmt::format("expert GEMM {}", shape_text(w)), "2·T·topk·N·K FLOPs; weights of min(E, T·topk) experts",
                           fmt::format("2·{}·{}·{}·{}", tokens, *topk, n, k), fmt::format("{} FLOP", 2 * routed * n * k)});
    }
    c.flops = flops;
    c.bytes_read = read;
    c.bytes_written = bytes_of(*ht, elems(*h));
    c.launches = 1;
    r.shape = shape;
    r.params = {{"tokens", tokens}, {"topk", *topk}, {"weights", static_cast<std::uint64_t>(weights.size())}};
    return r;
}

}  // namespace

std::optional<OpCost> cost_serving_op(const std::string& name, const CpuOp& op) {
    std::string lower(base_name(name));
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (contains(lower, "backward"))
        return std::nullopt;
    if (moe_op_name(name))  // the one MoE name rule, shared with the --hf-config costing
        return moe(name, op);
    if (contains(lower, "rms_norm") || contains(lower, "rmsnorm"))
        return rms_norm(name, lower, op);
    if (contains(lower, "rotary") || contains(lower, "rope"))
        return rotary(name, op);
    if (contains(lower, "_and_mul") || contains(lower, "swiglu"))
        return act_and_mul(name, lower, op);
    if (contains(lower, "quant"))
        return quant(name, op);
    if (contains(lower, "cache") && (contains(lower, "reshape") || contains(lower, "store") || contains(lower, "set_kv")))
        return kv_cache_store(name, op);
    if (contains(lower, "gemm"))
        return linear_gemm(name, op);
    return std::nullopt;
}

}  // namespace bwacct::kineto
