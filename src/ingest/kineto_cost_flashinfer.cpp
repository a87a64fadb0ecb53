// FlashInfer's attention ops (docs/formulas.md, "Attention of serving engines", FlashInfer), keyed on the
// schemas FlashInfer registers them with (flashinfer/prefill.py, flashinfer/decode.py: register_custom_op
// f"flashinfer::{uri}_paged_run" / "_ragged_run" / "_run", the uri naming the kind):
//   batch_prefill…_paged_run(float_ws, int_ws, plan_info, q [Σq, H, d], paged_k_cache, paged_v_cache,
//       qo_indptr [B+1], paged_kv_indptr [B+1], paged_kv_indices [P], paged_kv_last_page_len [B], o, lse,
//       mask_mode, layout, window_left, …)
//   batch_prefill…_ragged_run(float_ws, int_ws, plan_info, q [Σq, H, d], k [Σk, H_kv, d], v, qo_indptr,
//       kv_indptr, o, lse, mask_mode, layout, window_left, …)
//   batch_decode…_run(float_ws, int_ws, plan_info, q [B, H, d], paged_k_cache, paged_v_cache,
//       paged_kv_indptr [B+1], paged_kv_indices [P], paged_kv_last_page_len [B], o, lse, kv_layout, window_left, …)
//   single_prefill…_run(q [S_q, H, d], k [S_k, H_kv, d], v, tmp, o, lse, mask_mode, layout, window_left, …)
//   single_decode…_run(q [H, d], k [S_k, H_kv, d], v, tmp, o, lse, alibi, kv_layout, window_left, …)
// A paged cache is [pages, page, H_kv, d] (layout 0, NHD) or [pages, H_kv, page, d] (layout 1, HND).
// The per-sequence lengths are the VALUES of the indptr tensors; the trace gives their shapes, so the
// lengths are forced only where:
//   Σq = B (a decode: every sequence has ≥ 1 query, so each has exactly 1): one query sees all its keys
//       (a causal mask aligns queries to the end of the keys), so FLOPs 4·H·d·Σkv and bytes Q + O +
//       Σkv·H_kv·d for K and for V depend on the total Σkv alone;
//   B = 1: q = Σq, kv = Σkv;
//   Σkv: ragged K's first dim; a paged cache with page size 1: the pages used, len(paged_kv_indices)
//       (with larger pages the last page's fill is a value: refused).
// A custom or multi-item mask, or a sliding window (window_left ≥ 0), is refused.
#include <fmt/format.h>

#include "kineto_attention.h"
#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using detail::int_arg;

enum class Kind { none, paged, ragged, batch_decode, single_prefill, single_decode };

Kind kind_of(std::string_view name) {
    if (name.rfind("flashinfer::", 0) != 0)
        return Kind::none;
    const auto ends = [&](std::string_view s) { return name.size() >= s.size() && name.substr(name.size() - s.size()) == s; };
    const auto has = [&](std::string_view s) { return name.find(s) != std::string_view::npos; };
    if (has("batch_prefill") && ends("_paged_run"))
        return Kind::paged;
    if (has("batch_prefill") && ends("_ragged_run"))
        return Kind::ragged;
    if (has("batch_decode") && ends("_run"))
        return Kind::batch_decode;
    if (has("single_prefill") && ends("_run"))
        return Kind::single_prefill;
    if (has("single_decode") && ends("_run"))
        return Kind::single_decode;
    return Kind::none;
}

// Positions of the schema's arguments by kind.
struct Args {
    std::size_t q, k, v, qo_indptr, kv_indptr, indices, mask, layout, window;
};
constexpr std::size_t kNo = static_cast<std::size_t>(-1);
Args args_of(Kind k) {
    switch (k) {
        case Kind::paged:
            return {3, 4, 5, 6, 7, 8, 12, 13, 14};
        case Kind::ragged:
            return {3, 4, 5, 6, 7, kNo, 10, 11, 12};
        case Kind::batch_decode:
            return {3, 4, 5, kNo, 6, 7, kNo, 11, 12};
        case Kind::single_prefill:
            return {0, 1, 2, kNo, kNo, kNo, 6, 7, 8};
        case Kind::single_decode:
            return {0, 1, 2, kNo, kNo, kNo, kNo, 7, 8};
        case Kind::none:
            break;
    }
    return {};
}

VarlenAttention refuse(std::string why) {
    VarlenAttention v;
    v.recognised = true;
    v.why = std::move(why);
    return v;
}

// Sequences of a [B + 1] indptr input, else 0.
std::uint64_t sequences(const CpuOp& op, std::size_t i) {
    const auto s = i == kNo ? std::nullopt : input_shape(op, i);
    return s && s->size() == 1 && (*s)[0] >= 2 ? (*s)[0] - 1 : 0;
}

Cost add(Cost a, const Cost& b) {
    a.flops += b.flops;
    a.bytes_read += b.bytes_read;
    a.bytes_written += b.bytes_written;
    return a;
}

}  // namespace

VarlenAttention flashinfer_attention(const std::string& name, const CpuOp& op) {
    const Kind kind = kind_of(name);
    if (kind == Kind::none)
        return {};
    const Args a = args_of(kind);
    const auto q = input_shape(op, a.q), k = input_shape(op, a.k), v = input_shape(op, a.v);
    const auto dtype = input_dtype(op, a.q);
    const bool paged = kind == Kind::paged || kind == Kind::batch_decode;
    const std::size_t q_rank = kind == Kind::single_decode ? 2 : 3;  // [H, d], else [tokens, H, d]
    if (!q || !k || !v || !dtype || q->size() != q_rank || k->size() != (paged ? 4u : 3u) || v->size() != k->size())
        return refuse(fmt::format("no Q, K, V shapes of FlashInfer's schema in trace for {}", name));
    const auto layout = int_arg(op, a.layout);
    if (!layout || (*layout != 0 && *layout != 1))
        return refuse(fmt::format("no KV layout (0 NHD, 1 HND) among the Concrete Inputs of {}", name));
    const bool hnd = *layout == 1;
    const std::uint64_t heads = (*q)[q->size() - 2], head_dim = q->back();
    // K: paged [pages, page, H_kv, d] (NHD) or [pages, H_kv, page, d]; packed [S, H_kv, d] or [H_kv, S, d].
    const std::uint64_t kv_heads = paged ? (*k)[hnd ? 1 : 2] : (*k)[hnd ? 0 : 1];
    const std::uint64_t page = paged ? (*k)[hnd ? 2 : 1] : 1;
    if (k->back() != head_dim || v->back() != head_dim)
        return refuse(fmt::format("K/V head dims ({}, {}) of {} differ from Q's {}", k->back(), v->back(), name, head_dim));
    if (kv_heads == 0 || heads % kv_heads != 0)
        return refuse(fmt::format("KV heads {} of {} do not divide its {} query heads", kv_heads, name, heads));
    if (input_dtype(op, a.k) != dtype || input_dtype(op, a.v) != dtype)
        return refuse(fmt::format("K/V dtypes of {} differ from Q's {} (mixed-precision attention has no formula)", name,
                                  dtype_name(*dtype)));
    bool causal = false;
    if (a.mask != kNo) {
        const auto mask = int_arg(op, a.mask);
        if (!mask || *mask < 0 || *mask > 3)
            return refuse(fmt::format("no mask mode among the Concrete Inputs of {}", name));
        if (*mask >= 2)
            return refuse(fmt::format("{} mask of {}: which keys each query sees is tensor values, not in trace",
                                      *mask == 2 ? "custom" : "multi-item", name));
        causal = *mask == 1;
    }
    if (const auto w = int_arg(op, a.window); !w || *w >= 0)
        return refuse(w ? fmt::format("sliding window {} of {}: its pairs per sequence are tensor values", *w, name)
                        : fmt::format("no window_left among the Concrete Inputs of {}", name));

    // Sequences and lengths.
    std::uint64_t batch = 0, total_q = 0, total_kv = 0;
    std::string how;
    if (kind == Kind::single_prefill || kind == Kind::single_decode) {
        batch = 1;
        total_q = kind == Kind::single_decode ? 1 : (*q)[0];
        total_kv = (*k)[hnd ? 1 : 0];
        how = fmt::format("one sequence: q = {}, kv = K's length {}", total_q, total_kv);
    } else {
        total_q = (*q)[0];
        batch = kind == Kind::batch_decode ? total_q : sequences(op, a.qo_indptr);
        if (batch == 0 || sequences(op, a.kv_indptr) != batch)
            return refuse(fmt::format("no qo_indptr / kv_indptr [B + 1] shapes in trace for {}", name));
        if (paged) {
            if (page != 1)
                return refuse(
                    fmt::format("page size {} of {}: each sequence's KV length depends on paged_kv_last_page_len "
                                "values, not in trace",
                                page, name));
            const auto idx = input_shape(op, a.indices);
            if (!idx || idx->size() != 1)
                return refuse(fmt::format("no paged_kv_indices shape in trace for {}", name));
            total_kv = (*idx)[0];
            how = fmt::format("page size 1: Σkv = len(paged_kv_indices) = {}", total_kv);
        } else {
            total_kv = (*k)[hnd ? 1 : 0];
            how = fmt::format("Σkv = K's length {}", total_kv);
        }
        if (batch != 1 && total_q != batch)
            return refuse(fmt::format("per-sequence query lengths of {} are qo_indptr values: {} query tokens in {} sequences",
                                      name, total_q, batch));
        how += batch == 1 ? fmt::format("; B = 1: q = Σq = {}", total_q)
                          : fmt::format("; Σq = B = {}: one query per sequence (a decode), each seeing all its keys", batch);
    }
    if (total_kv == 0 || total_q == 0)
        return refuse(fmt::format("no keys or no queries in {}", name));

    AttentionDesc d;
    d.heads = heads;
    d.kv_heads = kv_heads;
    d.head_dim = head_dim;
    d.dtype = *dtype;
    d.impl = AttentionImpl::flash;
    Cost c;
    if (batch == 1) {
        d.batch = 1;
        d.q_len = total_q;
        d.kv_len = total_kv;
        d.causal = causal && total_q > 1;
        if (d.causal && total_q > total_kv)
            return refuse(fmt::format("causal {} with more queries ({}) than keys ({})", name, total_q, total_kv));
        c = attention_cost(d);
    } else {
        // A decode of B sequences, Σkv keys: cost and bytes are linear in each kv, so B − r sequences of
        // ⌊Σkv/B⌋ keys and r of one more give the exact totals.
        if (total_kv < batch)
            return refuse(fmt::format("fewer keys ({}) than sequences ({}) in {}", total_kv, batch, name));
        d.q_len = 1;
        d.kv_len = total_kv / batch;
        const std::uint64_t r = total_kv % batch;
        d.batch = batch - r;
        c = attention_cost(d);
        if (r > 0) {
            AttentionDesc e = d;
            e.batch = r;
            e.kv_len = d.kv_len + 1;
            c = add(std::move(c), attention_cost(e));
            c.terms.push_back({"uneven split", "r sequences with one more key (totals are linear in each kv)",
                               fmt::format("{} of {} keys, {} of {}", batch - r, d.kv_len, r, d.kv_len + 1),
                               fmt::format("{} keys", total_kv)});
        }
        d.batch = batch;
    }
    c.terms.insert(c.terms.begin(), Term{"sequence lengths", how, fmt::format("B={} Σq={} Σkv={}", batch, total_q, total_kv),
                                         fmt::format("{} sequences, {} queries, {} keys", batch, total_q, total_kv)});
    OpCost rec = detail::attention_record(name, d, std::move(c));
    if (batch > 1)
        rec.shape = fmt::format("B={} H={} Hkv={} Sq=1 Σkv={} D={}", batch, heads, kv_heads, total_kv, head_dim);
    rec.shape += paged ? " paged" : kind == Kind::ragged ? " varlen" : "";
    rec.params.push_back({"lengths", std::string(batch == 1 ? "one sequence: from Q's and K's (or the pages') lengths"
                                                            : "a decode: Σq = B, Σkv from K or the pages")});
    VarlenAttention out;
    out.recognised = true;
    out.cost = std::move(rec);
    return out;
}

}  // namespace bwacct::kineto
