// Variable-length (packed) and paged-KV attention of serving engines (docs/formulas.md, "Attention of
// serving engines"): the per-sequence lengths are tensor VALUES (cu_seqlens, kv_indptr, seqused_k) that
// a profiler trace does not hold; it holds their shapes ([B + 1], [B]) and the max lengths as Concrete
// Inputs. The pairs each query sees are fixed only where those force every length:
//   queries: Σq = B · max_seqlen_q (Q's first dim) ⇒ every q_i = max_seqlen_q, as q_i ≤ max and
//            Σ q_i = B·max leave no room; one sequence (B = 1) ⇒ q_1 = Σq;
//   packed keys [Σk, H_kv, d]: the same with Σk = B · max_seqlen_k;
//   a KV cache (paged, or a batch cache with seqused_k): its first dim is the cache's capacity, never a
//            length. A serving engine writes each sequence's new tokens into the cache before attention
//            (store_cache / reshape_and_cache), so q_i ≤ kv_i ≤ max_seqlen_k: when max_seqlen_k equals
//            the common query length every kv_i equals it (a whole-prompt prefill); otherwise (a
//            decode, a prefix hit) the KV lengths are values and the op is not costed, with the reason.
// The argument layouts are the ops' registered schemas (aiter csrc/include/torch/mha_batch_prefill.h,
// mha_varlen_fwd.h; vllm-project/flash-attention csrc/flash_attn/flash_api_torch_lib.cpp (varlen_fwd)
// and hopper/flash_api_torch_lib.cpp (fwd); sgl-kernel csrc/flash_extension.cc (fwd, the FA3 schema);
// flash-attn's flash_attn::_flash_attn_varlen_forward; ATen's _flash_attention_forward), keyed on
// positions that are stable across their versions; the flags that moved between versions (is_causal)
// are found as the n-th boolean Concrete Input from a stable position.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <exception>
#include <optional>
#include <string_view>

#include "kineto_attention.h"

namespace bwacct::kineto {
namespace {

constexpr std::size_t kNo = static_cast<std::size_t>(-1);
constexpr std::size_t kAfterCausal = kNo - 1;  // window_size_left sits just after is_causal

// An optional input that, given, changes which keys each query sees by values the trace lacks.
struct Refused {
    std::size_t at = kNo;
    std::string_view what;
};

// One argument layout (an op schema), shared by the ops named with it.
struct Layout {
    std::array<std::string_view, 3> names;
    std::size_t cu_q, cu_k;    // cumulative query / key lengths [B + 1] (values: not in the trace)
    std::size_t seqused_k;     // KV lengths used per sequence [B] (values)
    std::size_t table;         // block / page table [B, max_pages]: K and V are the paged cache
    std::size_t max_q, max_k;  // max_seqlen_q / max_seqlen_k (Concrete Inputs)
    std::size_t causal_from;   // is_causal: the causal_nth boolean Concrete Input at or after causal_from
    int causal_nth;            //   (aiter: zero_tensors is the first boolean after the scale)
    std::size_t window;        // window_size_left (right: the next input), kAfterCausal, or kNo
    bool always_paged;         // K and V are the KV cache whatever their rank (aiter batch prefill)
    std::array<Refused, 6> refused;
};

constexpr std::array<Layout, 6> kLayouts{{
    // ATen: _flash_attention_forward(query, key, value, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p,
    // is_causal, return_debug_mask, scale, window_size_left, window_size_right, seqused_k, alibi_slopes)
    {{"aten::_flash_attention_forward"}, 3, 4, 13, kNo, 5, 6, 8, 1, 11, false, {}},
    // flash-attn ≥ 2.6: (q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
    // softmax_scale, causal, window_size_left, window_size_right, softcap, alibi_slopes, return_softmax,
    // block_table, leftpad_k, seqused_k, zero_tensors)
    {{"flash_attn::_flash_attn_varlen_forward"}, 3, 4, 17, 15, 5, 6, 9, 1, 10, false, {{{16, "leftpad_k"}}}},
    // vLLM's flash-attention 2: varlen_fwd(q, k, v, out, cu_seqlens_q, cu_seqlens_k, seqused_k, leftpad_k,
    // block_table, alibi_slopes, max_seqlen_q, max_seqlen_k, p_dropout, softmax_scale, zero_tensors,
    // is_causal, window_size_left, window_size_right, softcap, return_softmax, num_splits)
    {{"_vllm_fa2_C::varlen_fwd", "vllm_flash_attn_c::varlen_fwd"}, 4, 5, 6, 8, 10, 11, 15, 1, 16, false, {{{7, "leftpad_k"}}}},
    // FlashAttention-3 (vLLM's, sgl-kernel's, flash-attn's hopper build): fwd(q, k, v, k_new, v_new, q_v,
    // out, cu_seqlens_q, cu_seqlens_k, cu_seqlens_k_new, seqused_q, seqused_k, max_seqlen_q, max_seqlen_k,
    // page_table, kv_batch_idx, leftpad_k, rotary_cos, rotary_sin, seqlens_rotary, q/k/v_descale,
    // [o_scale,] softmax_scale, is_causal, window_size_left, window_size_right, ...)
    {{"_vllm_fa3_C::fwd", "sgl_kernel::fwd", "flash_attn_3::fwd"},
     7,
     8,
     11,
     14,
     12,
     13,
     17,
     1,
     kAfterCausal,
     false,
     {{{3, "k_new"}, {5, "q_v"}, {9, "cu_seqlens_k_new"}, {10, "seqused_q"}, {15, "kv_batch_idx"}, {16, "leftpad_k"}}}},
    // aiter: mha_batch_prefill(q [Σq, H, d], k, v (paged cache: [slots, H_kv, d] with page size 1,
    // [pages, page, H_kv, d], or vectorized [pages, H_kv, d/x, page, x]), cu_seqlens_q [B+1], kv_indptr
    // [B+1], kv_page_indices, max_seqlen_q, max_seqlen_k, p_dropout, softmax_scale, [logits_soft_cap,]
    // zero_tensors, is_causal, window_size_left, window_size_right, ...)
    {{"aiter::mha_batch_prefill"}, 3, kNo, kNo, kNo, 6, 7, 8, 2, kAfterCausal, true, {}},
    // aiter: mha_varlen_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
    // [min_seqlen_q,] p_dropout, softmax_scale, [logits_soft_cap,] zero_tensors, is_causal, window_size_left,
    // window_size_right, ..., block_table, ...); paged when K is 4-D or 5-D
    {{"aiter::mha_varlen_fwd"}, 3, 4, kNo, kNo, 5, 6, 7, 2, kAfterCausal, false, {}},
}};

const Layout* layout_of(std::string_view name) {
    for (const Layout& l : kLayouts)
        for (std::string_view n : l.names)
            if (!n.empty() && n == name)
                return &l;
    return nullptr;
}

bool given(const CpuOp& op, std::size_t i) { return i != kNo && i < op.dims.size() && !op.dims[i].empty(); }

std::optional<std::int64_t> concrete_signed(const CpuOp& op, std::size_t i) {
    if (i >= op.concrete.size() || op.concrete[i].empty())
        return std::nullopt;
    std::string_view s = op.concrete[i];
    const bool negative = s.front() == '-';
    if (negative)
        s.remove_prefix(1);
    if (s.empty() || s.size() > 18)
        return std::nullopt;
    std::int64_t v = 0;
    for (const char ch : s) {
        if (ch < '0' || ch > '9')
            return std::nullopt;
        v = v * 10 + (ch - '0');
    }
    return negative ? -v : v;
}

std::optional<std::uint64_t> concrete_count(const CpuOp& op, std::size_t i) {
    const auto v = concrete_signed(op, i);
    return v && *v > 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*v)) : std::nullopt;
}

// The index of the n-th boolean ("True"/"False") Concrete Input at or after `from`, or kNo.
std::size_t nth_bool(const CpuOp& op, std::size_t from, int n) {
    for (std::size_t i = from; i < op.concrete.size(); ++i)
        if (op.concrete[i] == "True" || op.concrete[i] == "False")
            if (--n == 0)
                return i;
    return kNo;
}

// Sequences from a [B + 1] cumulative-length input (B ≥ 1), else 0.
std::uint64_t sequences(const CpuOp& op, std::size_t i) {
    const auto s = i == kNo ? std::nullopt : input_shape(op, i);
    return s && s->size() == 1 && (*s)[0] >= 2 ? (*s)[0] - 1 : 0;
}

// total = parts · each, without overflow.
bool equal_split(std::uint64_t total, std::uint64_t parts, std::uint64_t each) {
    return total % parts == 0 && total / parts == each;
}

VarlenAttention refuse(std::string why) {
    VarlenAttention v;
    v.recognised = true;
    v.why = std::move(why);
    return v;
}

// A KV cache's head count and head dim by its rank: [slots, H_kv, d] (page size 1), [pages, page,
// H_kv, d] (vLLM, FlashAttention, aiter linear), [pages, H_kv, d/x, page, x] (aiter vectorized K;
// its V is [pages, H_kv, page/x, d, x]).
struct CacheDims {
    std::uint64_t heads = 0, k_dim = 0, v_dim = 0;
};
std::optional<CacheDims> cache_dims(const std::vector<std::uint64_t>& k, const std::vector<std::uint64_t>& v) {
    if (k.size() != v.size())
        return std::nullopt;
    switch (k.size()) {
        case 3:
            return CacheDims{k[1], k[2], v[2]};
        case 4:
            return CacheDims{k[2], k[3], v[3]};
        case 5:
            return CacheDims{k[1], k[2] * k[4], v[3]};
        default:
            return std::nullopt;
    }
}

VarlenAttention verdict(const std::string& name, const Layout& L, const CpuOp& op) {
    const auto q = input_shape(op, 0), k = input_shape(op, 1), v = input_shape(op, 2);
    const auto dtype = input_dtype(op, 0);
    if (!q || !k || !v || !dtype || (q->size() != 3 && q->size() != 4))
        return refuse(fmt::format("no Q [tokens, heads, dim], K, V shapes in trace for {}", name));
    for (const Refused& r : L.refused)
        if (given(op, r.at))
            return refuse(fmt::format("{} given to {}: which keys each query sees are its values, not in trace", r.what, name));
    const bool packed_q = q->size() == 3;
    if (!packed_q && given(op, L.cu_q))
        return refuse(fmt::format("Q of {} is [B, S, H, d] but cu_seqlens_q is given", name));
    const std::uint64_t heads = (*q)[q->size() - 2], head_dim = q->back();

    // Queries.
    std::uint64_t batch = 0, q_len = 0;
    std::string how;
    if (packed_q) {
        batch = sequences(op, L.cu_q);
        if (batch == 0)
            return refuse(fmt::format("no cu_seqlens_q [B + 1] shape in trace for {}", name));
        const std::uint64_t total = (*q)[0];
        if (batch == 1) {
            q_len = total;
            how = fmt::format("B = len(cu_seqlens_q) − 1 = 1 ⇒ q = Σq = {}", total);
        } else {
            const auto mq = concrete_count(op, L.max_q);
            if (!mq)
                return refuse(
                    fmt::format("no max_seqlen_q in trace for {} ({} query tokens in {} sequences)", name, total, batch));
            if (!equal_split(total, batch, *mq))
                return refuse(
                    fmt::format("unequal query lengths in {}: {} tokens in {} sequences of at most {} (the lengths are "
                                "cu_seqlens_q values, not in trace)",
                                name, total, batch, *mq));
            q_len = *mq;
            how = fmt::format("B = len(cu_seqlens_q) − 1 = {}; Σq = {} = B·max_seqlen_q ⇒ every q = {}", batch, total, q_len);
        }
    } else {  // FlashAttention-3's batch mode: Q [B, S_q, H, d]
        batch = (*q)[0];
        q_len = (*q)[1];
        how = fmt::format("Q [B, S_q, H, d] ⇒ B = {}, every q = {}", batch, q_len);
    }

    // Keys: packed sequences, or a cache whose first dim is capacity.
    const bool cache = L.always_paged || given(op, L.table) || k->size() != (packed_q ? 3u : 4u) || given(op, L.seqused_k);
    std::uint64_t kv_heads = 0, k_dim = 0, v_dim = 0, kv_len = 0;
    const auto mk = concrete_count(op, L.max_k);
    if (!cache && packed_q) {  // K [Σk, H_kv, d]
        kv_heads = (*k)[1];
        k_dim = (*k)[2];
        v_dim = v->size() == 3 ? (*v)[2] : 0;
        const std::uint64_t total = (*k)[0];
        const std::uint64_t kb = sequences(op, L.cu_k);
        if (kb != batch)
            return refuse(fmt::format("no cu_seqlens_k [B + 1] shape matching cu_seqlens_q in trace for {}", name));
        if (batch == 1) {
            kv_len = total;
            how += fmt::format("; kv = Σk = {}", total);
        } else if (!mk || !equal_split(total, batch, *mk)) {
            return refuse(mk ? fmt::format("unequal key lengths in {}: {} keys in {} sequences of at most {} (the lengths are "
                                           "cu_seqlens_k values, not in trace)",
                                           name, total, batch, *mk)
                             : fmt::format("no max_seqlen_k in trace for {}", name));
        } else {
            kv_len = *mk;
            how += fmt::format("; Σk = {} = B·max_seqlen_k ⇒ every kv = {}", total, kv_len);
        }
    } else if (!cache) {  // FlashAttention-3 batch mode, K [B, S_k, H_kv, d], every key used
        if ((*k)[0] != batch)
            return refuse(fmt::format("K's batch {} differs from Q's {} in {}", (*k)[0], batch, name));
        kv_heads = (*k)[2];
        k_dim = (*k)[3];
        v_dim = v->size() == 4 ? (*v)[3] : 0;
        kv_len = (*k)[1];
        how += fmt::format("; K [B, S_k, H_kv, d] ⇒ every kv = {}", kv_len);
    } else {
        const auto dims = cache_dims(*k, *v);
        if (!dims)
            return refuse(fmt::format("KV cache layout of {} not understood (K {}, V {})", name, shape_text(*k), shape_text(*v)));
        kv_heads = dims->heads;
        k_dim = dims->k_dim;
        v_dim = dims->v_dim;
        // q_i ≤ kv_i (the cache holds each sequence's new tokens) and kv_i ≤ max_seqlen_k.
        std::optional<std::uint64_t> upper = mk;
        if (!packed_q && !given(op, L.table) && k->size() == 4)  // a batch cache [B, S_k, H_kv, d]: kv ≤ S_k
            upper = upper ? std::min(*upper, (*k)[1]) : (*k)[1];
        if (!upper)
            return refuse(
                fmt::format("no max_seqlen_k in trace for {} ({} query tokens; per-sequence KV lengths are tensor "
                            "values, the KV cache's first dim {} is its capacity)",
                            name, batch * q_len, (*k)[0]));
        if (*upper != q_len)
            return refuse(
                fmt::format("per-sequence KV lengths of {} are tensor values (KV cache): each between q = {} and "
                            "max_seqlen_k = {}",
                            name, q_len, *upper));
        kv_len = q_len;
        how += fmt::format(
            "; the KV cache holds each sequence's new tokens (kv ≥ q) and kv ≤ max_seqlen_k = {} ⇒ every "
            "kv = {}",
            *upper, kv_len);
    }
    if (kv_heads == 0 || heads % kv_heads != 0)
        return refuse(fmt::format("KV heads {} of {} do not divide its {} query heads", kv_heads, name, heads));
    if (k_dim != head_dim || v_dim != head_dim)
        return refuse(fmt::format("K/V head dims ({}, {}) of {} differ from Q's {}", k_dim, v_dim, name, head_dim));
    if (input_dtype(op, 1) != dtype || input_dtype(op, 2) != dtype)
        return refuse(fmt::format("K/V dtypes of {} differ from Q's {} (mixed-precision attention has no formula)", name,
                                  dtype_name(*dtype)));

    const std::size_t causal_at = nth_bool(op, L.causal_from, L.causal_nth);
    if (causal_at == kNo)
        return refuse(fmt::format("no is_causal flag in the Concrete Inputs of {}", name));
    AttentionDesc d;
    d.batch = batch;
    d.heads = heads;
    d.kv_heads = kv_heads;
    d.q_len = q_len;
    d.kv_len = kv_len;
    d.head_dim = head_dim;
    d.dtype = *dtype;
    d.impl = AttentionImpl::flash;
    d.causal = op.concrete[causal_at] == "True";
    if (d.causal && q_len > kv_len)
        return refuse(fmt::format("causal {} with more queries ({}) than keys ({})", name, q_len, kv_len));
    // A window narrower than the keys changes the pairs: window_size_left < kv − 1 (or, without the
    // causal mask, window_size_right < kv − 1). -1 is no window.
    const std::size_t wl = L.window == kAfterCausal ? causal_at + 1 : L.window;
    if (wl != kNo) {
        const auto left = concrete_signed(op, wl), right = concrete_signed(op, wl + 1);
        const auto narrow = [&](const std::optional<std::int64_t>& w) {
            return w && *w >= 0 && static_cast<std::uint64_t>(*w) + 1 < kv_len;
        };
        if (narrow(left) || (!d.causal && narrow(right)))
            return refuse(fmt::format("sliding window ({}, {}) of {} over {} keys: its pairs have no formula", left.value_or(-1),
                                      right.value_or(-1), name, kv_len));
    }

    Cost c = attention_cost(d);
    c.terms.insert(c.terms.begin(), Term{"sequence lengths", how, fmt::format("B={} S_q={} S_k={}", batch, q_len, kv_len),
                                         fmt::format("{} sequences of {} queries, {} keys", batch, q_len, kv_len)});
    OpCost r = detail::attention_record(name, d, std::move(c));
    r.shape += cache ? " paged" : packed_q ? " varlen" : "";
    r.params.push_back(
        {"lengths", std::string(cache ? "from cu_seqlens_q and max_seqlen_q/k (KV cache: q ≤ kv ≤ max_seqlen_k): all equal"
                                : packed_q ? "from cu_seqlens and max_seqlen: all equal"
                                           : "from Q's and K's dims")});
    VarlenAttention out;
    out.recognised = true;
    out.cost = std::move(r);
    return out;
}

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return out;
}

// An op name that reads as attention: serving engines' paged / varlen / decode attention ops
// (unified_attention, FlashInfer's `…prefill…paged_run` / `…decode…_run`, aiter's `pa_fwd_asm`,
// `mla_decode_fwd`, `mha_*`), never a cache store (`reshape_and_cache_flash`, `store_cache`).
bool attention_name(std::string_view name) {
    const std::string n = lower(name);
    const auto has = [&](std::string_view s) { return n.find(s) != std::string::npos; };
    if (has("attention") || has("attn") || has("mha") || has("prefill") || has("decode") || has("pa_fwd"))
        return !(has("cache") && !has("attention") && !has("attn") && !has("prefill") && !has("decode"));
    return false;
}

}  // namespace

VarlenAttention varlen_attention(const std::string& name, const CpuOp& op) {
    if (VarlenAttention f = flashinfer_attention(name, op); f.recognised)
        return f;
    const Layout* l = layout_of(name);
    if (l == nullptr)
        return {};
    // ATen's _flash_attention_forward is varlen only with packed Q [Σq, H, d] (cum_seq_q given);
    // its [B, S, H, d] form is the fixed-shape attention of kineto_cost_attention.cpp.
    if (l->names[0] == "aten::_flash_attention_forward" && (!input_shape(op, 0) || input_shape(op, 0)->size() != 3))
        return {};
    return verdict(name, *l, op);
}

std::string attention_uncosted_reason(const std::string& op_name, const CpuOp& op) {
    try {  // the engine refuses shapes by throwing (InputError, OverflowError): a reason, never an escape
        if (const VarlenAttention v = varlen_attention(op_name, op); v.recognised)
            return v.cost ? std::string() : v.why;
        if (!attention_name(op_name) || cost_attention_op(op_name, op))
            return "";
    } catch (const std::exception& e) {
        return fmt::format("shapes of {} refused by the engine: {}", op_name, e.what());
    }
    // Query tokens: the first floating-point input's leading dims ([tokens, H, d], [B, S, H, d], [tokens, H·d]).
    std::uint64_t tokens = 0;
    for (std::size_t i = 0; i < op.dims.size() && tokens == 0; ++i)
        if (const auto s = input_shape(op, i); s && s->size() >= 2 && input_dtype(op, i)) {
            tokens = 1;
            for (std::size_t j = 0; j + (s->size() >= 3 ? 2 : 1) < s->size(); ++j)
                tokens *= (*s)[j];
        }
    return tokens == 0
               ? fmt::format("no sequence lengths in trace for {} (per-sequence KV lengths are tensor values)", op_name)
               : fmt::format("no sequence lengths in trace for {} ({} query tokens; per-sequence KV lengths are tensor values)",
                             op_name, tokens);
}

}  // namespace bwacct::kineto
