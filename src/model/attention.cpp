// Attention cost. FLOPs: 4·d per unmasked (query, key) pair per query head (QKᵀ and PV, 2·d each);
// softmax arithmetic is not counted (FlashAttention paper convention). Flash bytes: read Q, K, V,
// write O; K and V with the KV head count (GQA/MQA), each read once. Naive adds the S_q×S_k score
// matrix written and read and the probability matrix written and read (seed 004 section 5).
#include <fmt/format.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "tensor_bytes.h"
#include "term.h"

namespace bwacct {

using detail::tensor_bytes;
using detail::term;

Exact attention_pairs(const AttentionDesc& d) {
    const Exact sq(d.q_len), sk(d.kv_len);
    if (!d.causal)
        return sq * sk;
    // Query i (0-based) of S_q, aligned to the end of the S_k keys, sees S_k − S_q + 1 + i keys.
    return sq * sk - sq * (sq - Exact(1)) / Exact(2);
}

Cost attention_cost(const AttentionDesc& d) {
    const std::pair<std::uint64_t, const char*> positive[] = {{d.batch, "--batch"},       {d.heads, "--heads"},
                                                              {d.kv_heads, "--kv-heads"}, {d.q_len, "--q-len"},
                                                              {d.kv_len, "--kv-len"},     {d.head_dim, "--head-dim"}};
    for (const auto& [v, opt] : positive)
        if (v == 0)
            throw InputError(opt, "must be a positive integer");
    if (d.heads % d.kv_heads != 0)
        throw InputError("--kv-heads", fmt::format("must divide --heads ({} query heads, {} KV heads)", d.heads, d.kv_heads));
    if (d.causal && d.q_len > d.kv_len)
        throw InputError("--q-len", fmt::format("with --causal, queries are aligned to the end of the keys: need q-len "
                                                "<= kv-len (got {} > {})",
                                                d.q_len, d.kv_len));

    Cost c;
    c.op = "attention";
    c.unit = matmul_unit(d.dtype);
    c.compute_dtype = d.dtype;
    const Exact b(d.batch), hq(d.heads), hkv(d.kv_heads), sq(d.q_len), sk(d.kv_len), hd(d.head_dim);

    const Exact pairs = attention_pairs(d);
    c.terms.push_back(term("pairs per head", d.causal ? "S_q·S_k − S_q·(S_q−1)/2 (causal)" : "S_q·S_k",
                           d.causal ? fmt::format("{}·{} − {}·{}/2", d.q_len, d.kv_len, d.q_len, d.q_len - 1)
                                    : fmt::format("{}·{}", d.q_len, d.kv_len),
                           pairs));
    const Exact flops = Exact(4) * b * hq * pairs * hd;
    c.terms.push_back(
        term("flops", "4·B·H_q·pairs·d", fmt::format("4·{}·{}·{}·{}", d.batch, d.heads, pairs.value(), d.head_dim), flops));

    Exact read, written;
    const std::string q_dims = fmt::format("{}·{}·{}·{}", d.batch, d.heads, d.q_len, d.head_dim);
    const std::string kv_dims = fmt::format("{}·{}·{}·{}", d.batch, d.kv_heads, d.kv_len, d.head_dim);
    read += tensor_bytes(c.terms, "read Q", "B·H_q·S_q·d", q_dims, b * hq * sq * hd, d.dtype);
    read += tensor_bytes(c.terms, "read K", "B·H_kv·S_k·d", kv_dims, b * hkv * sk * hd, d.dtype);
    read += tensor_bytes(c.terms, "read V", "B·H_kv·S_k·d", kv_dims, b * hkv * sk * hd, d.dtype);
    written += tensor_bytes(c.terms, "write O", "B·H_q·S_q·d", q_dims, b * hq * sq * hd, d.dtype);
    c.launches = 1;
    if (d.impl == AttentionImpl::naive) {
        // The full S_q×S_k matrix is materialized (masking happens inside it): scores written by QKᵀ,
        // read by softmax, probabilities written by softmax, read by PV.
        const std::string s_dims = fmt::format("{}·{}·{}·{}", d.batch, d.heads, d.q_len, d.kv_len);
        const Exact s_elems = b * hq * sq * sk;
        const Exact s_bytes = tensor_bytes(c.terms, "score matrix S (one pass)", "B·H_q·S_q·S_k", s_dims, s_elems, d.dtype);
        c.terms.push_back(term("naive S/P traffic", "write S + read S + write P + read P = 4·|S|",
                               fmt::format("4·{}", s_bytes.value()), Exact(4) * s_bytes));
        written += Exact(2) * s_bytes;
        read += Exact(2) * s_bytes;
        c.launches = 3;  // QKᵀ GEMM, softmax, PV GEMM
    }
    c.flops = flops.value();
    c.bytes_read = read.value();
    c.bytes_written = written.value();
    return c;
}

}  // namespace bwacct
