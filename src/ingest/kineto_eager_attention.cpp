// Eager attention chains (matmul → softmax → matmul) found by the shapes flowing through a thread's
// ops; see include/bwacct/kineto_eager_attention.h.
#include "bwacct/kineto_eager_attention.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "bwacct/exact.h"

namespace bwacct::kineto {
namespace {

using Dims = std::vector<std::int64_t>;

enum class Role { none, matmul, softmax };

Role role_of(std::string_view name) {
    if (name == "aten::matmul" || name == "aten::bmm" || name == "aten::baddbmm")
        return Role::matmul;
    if (name == "aten::softmax" || name == "aten::_softmax" || name == "aten::_safe_softmax" || name == "aten::special_softmax")
        return Role::softmax;
    return Role::none;
}

// The two operands of a matmul-family op (baddbmm: inputs 1 and 2; its input 0 is the addend).
std::pair<std::size_t, std::size_t> operands(std::string_view name) {
    return name == "aten::baddbmm" ? std::pair<std::size_t, std::size_t>{1, 2} : std::pair<std::size_t, std::size_t>{0, 1};
}

// [..., M, K] × [..., K, N] with the same leading dims (at least one: batch·heads) → [..., M, N].
std::optional<Dims> product_dims(const CpuOp& op, std::string_view name) {
    const auto [ia, ib] = operands(name);
    if (ib >= op.dims.size())
        return std::nullopt;
    const Dims& a = op.dims[ia];
    const Dims& b = op.dims[ib];
    if (a.size() < 3 || a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin()) ||
        a[a.size() - 1] != b[b.size() - 2])
        return std::nullopt;
    if (std::any_of(a.begin(), a.end(), [](std::int64_t d) { return d <= 0; }) || b.back() <= 0)
        return std::nullopt;
    Dims out(a.begin(), a.end() - 1);
    out.push_back(b.back());
    return out;
}

// A chain in progress on one thread.
struct Chain {
    std::size_t first = 0;  // position (in the thread's time order) of the scores matmul
    Dims scores;            // [..., Sq, Sk]
    bool softmax = false;
    std::string softmax_name;
    std::size_t between = 0;
};

}  // namespace

std::vector<EagerAttention> eager_attention(const Trace& t, const Links& links) {
    // The ops of each thread in time order (an enclosing op before the ops it contains).
    std::map<std::uint32_t, std::vector<std::size_t>> by_thread;
    for (std::size_t i = 0; i < t.ops.size(); ++i)
        by_thread[t.ops[i].thread].push_back(i);
    // An op inside a matmul or softmax (aten::matmul's aten::bmm, aten::softmax's aten::_softmax) is
    // part of it, not a step of the chain.
    auto inside_family = [&](std::size_t i) {
        for (std::int64_t p = links.parent[i]; p >= 0; p = links.parent[static_cast<std::size_t>(p)])
            if (role_of(t.names[t.ops[static_cast<std::size_t>(p)].name]) != Role::none)
                return true;
        return false;
    };

    std::vector<std::int64_t> op_group(t.ops.size(), -1);  // op → index into `out`
    std::vector<EagerAttention> out;
    std::map<std::string, std::size_t> index;
    for (auto& [thread, ops] : by_thread) {
        std::stable_sort(ops.begin(), ops.end(), [&](std::size_t a, std::size_t b) {
            return t.ops[a].ts < t.ops[b].ts || (t.ops[a].ts == t.ops[b].ts && t.ops[a].dur > t.ops[b].dur);
        });
        std::optional<Chain> chain;
        for (std::size_t pos = 0; pos < ops.size(); ++pos) {
            const std::size_t i = ops[pos];
            const CpuOp& op = t.ops[i];
            const std::string& name = t.names[op.name];
            const Role role = role_of(name);
            if (inside_family(i))
                continue;
            if (role == Role::none) {
                if (chain && ++chain->between > kMaxBetween)
                    chain.reset();
                continue;
            }
            if (role == Role::softmax) {
                if (chain && !chain->softmax && !op.dims.empty() && !op.dims[0].empty() && op.dims[0] == chain->scores) {
                    chain->softmax = true;
                    chain->softmax_name = name;
                    chain->between = 0;
                } else {
                    chain.reset();
                }
                continue;
            }
            // A matmul: the chain's second one when it takes the probabilities times [..., Sk, Dv].
            const auto [ia, ib] = operands(name);
            if (chain && chain->softmax && ib < op.dims.size() && op.dims[ia] == chain->scores) {
                const Dims& s = chain->scores;
                const Dims& v = op.dims[ib];
                const CpuOp& first = t.ops[ops[chain->first]];
                const std::string& first_name = t.names[first.name];
                const std::size_t qa = operands(first_name).first;
                const Dims& q = first.dims[qa];
                const auto dtype = input_dtype(first, qa);
                const bool lead_ok = v.size() == s.size() && std::equal(s.begin(), s.end() - 2, v.begin());
                if (lead_ok && dtype && v[v.size() - 2] == s.back() && v.back() == q.back()) {
                    try {  // shapes the engine refuses (a count past 64 bits): no group
                        AttentionDesc d;
                        // Leading dims: [B, H, ...] (4-D and up) or [B·H] (bmm).
                        d.batch = static_cast<std::uint64_t>(s[0]);
                        Exact heads = 1;
                        for (auto x = s.begin() + 1; x != s.end() - 2; ++x)
                            heads = heads * Exact(static_cast<std::uint64_t>(*x));
                        d.heads = d.kv_heads = heads.value();
                        d.q_len = static_cast<std::uint64_t>(s[s.size() - 2]);
                        d.kv_len = static_cast<std::uint64_t>(s.back());
                        d.head_dim = static_cast<std::uint64_t>(q.back());
                        d.dtype = *dtype;
                        d.impl = AttentionImpl::naive;
                        EagerAttention e;
                        e.ops = fmt::format("{} → {} → {}", first_name, chain->softmax_name, name);
                        std::string lead_text;
                        for (auto x = s.begin(); x != s.end() - 2; ++x)
                            lead_text += fmt::format("{}{}", lead_text.empty() ? "" : "x", *x);
                        e.shape = fmt::format("batch={} Sq={} Sk={} D={}", lead_text, d.q_len, d.kv_len, d.head_dim);
                        e.dtype = std::string(dtype_name(d.dtype));
                        e.desc = d;
                        e.eager = attention_cost(d);
                        AttentionDesc fused = d;
                        fused.impl = AttentionImpl::flash;
                        e.flash = attention_cost(fused);
                        const std::string key = e.ops + "|" + e.shape + "|" + e.dtype;
                        auto [it, fresh] = index.emplace(key, out.size());
                        if (fresh)
                            out.push_back(std::move(e));
                        ++out[it->second].calls;
                        // Every op of the thread from the scores matmul to this one belongs to the chain.
                        const double end = op.ts + op.dur;
                        for (std::size_t p = chain->first; p < ops.size() && t.ops[ops[p]].ts <= end; ++p)
                            op_group[ops[p]] = static_cast<std::int64_t>(it->second);
                        chain.reset();
                        continue;
                    } catch (const std::exception&) {
                    }
                }
            }
            // Else a new chain may start here.
            chain.reset();
            if (auto scores = product_dims(op, name))
                chain = Chain{pos, std::move(*scores), false, {}, 0};
        }
    }
    for (std::size_t a = 0; a < t.activities.size(); ++a) {
        const std::int64_t op = links.op[a];
        if (op < 0 || links.how[a] == LinkHow::inferred || op_group[static_cast<std::size_t>(op)] < 0)  // chains counted: linked
            continue;
        EagerAttention& e = out[static_cast<std::size_t>(op_group[static_cast<std::size_t>(op)])];
        ++e.kernels;
        e.kernel_us += t.activities[a].dur;
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const EagerAttention& x, const EagerAttention& y) { return x.kernel_us > y.kernel_us; });
    return out;
}

}  // namespace bwacct::kineto
