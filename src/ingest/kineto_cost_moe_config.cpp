// MoE ops whose inputs lack the expert weights (vLLM's `moe_forward`: hidden states [T, H'] and router logits
// [T, E] only), costed from a model config the user gives (`ingest torch-trace --hf-config FILE`): T and E from
// the trace, top-k, hidden H, expert FFN I and the weights' format from the config, the model-parallel degree d
// from the trace's attention ops (else --tp). Per rank (docs/formulas.md, "MoE from a model config"):
//   FLOPs   2·T·k·(3 gated | 2 plain)·H·I / d
//   weights round(E·(1 − (1 − k/E)^T) · bytes of one expert in the weights' format / d)   (engine: experts touched)
//   acts    hidden states [T, H'] and router logits [T, E] read, output [T, H'] written, at the trace's dims
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/quant.h"
#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using namespace detail;

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return out;
}

bool has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

// Query heads per rank of an attention op whose head size is the config's: a packed query [T, H, D] at
// input 0 (vLLM, SGLang), else the heads the attention costing reads from the op (flash / SDPA layouts).
std::optional<std::uint64_t> query_heads(const std::string& name, const CpuOp& op, std::uint64_t head_size) {
    if (const auto q = input_shape(op, 0); q && q->size() == 3 && (*q)[2] == head_size)
        return (*q)[1];
    const auto c = cost_attention_op(name, op);
    if (!c)
        return std::nullopt;
    std::optional<std::uint64_t> heads, dim;
    for (const Param& p : c->params)
        if (const auto* v = std::get_if<std::uint64_t>(&p.value)) {
            if (p.name == "heads")
                heads = *v;
            else if (p.name == "head_dim")
                dim = *v;
        }
    return dim == head_size ? heads : std::nullopt;
}

}  // namespace

bool moe_op_name(std::string_view name) {
    const std::string l = lower(detail::base_name(name));
    return (has(l, "moe") || has(l, "experts")) && !has(l, "backward");
}

ModelParallel model_parallel_degree(const Trace& t, const TransformerConfig& cfg, std::uint64_t tp) {
    const std::uint64_t head_size = head_dim(cfg);
    std::unordered_map<std::uint32_t, bool> attention_name;                  // per interned name: an attention op's?
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::uint64_t> calls;  // (op name, heads per rank) → calls
    for (const CpuOp& op : t.ops) {
        if (op.dims.empty())
            continue;
        auto [it, fresh] = attention_name.emplace(op.name, false);
        if (fresh) {
            const std::string l = lower(t.names[op.name]);
            it->second = (has(l, "attention") || has(l, "attn")) && !has(l, "backward");
        }
        if (!it->second)
            continue;
        const auto heads = query_heads(t.names[op.name], op, head_size);
        if (heads && *heads > 0 && *heads <= cfg.heads && cfg.heads % *heads == 0)
            ++calls[{op.name, *heads}];
    }
    const auto best =
        std::max_element(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (best == calls.end()) {
        if (tp > 0)
            return {tp, "--tp (no attention op in the trace shows its query heads per rank)"};
        return {1, "none: no attention op in the trace shows its query heads per rank and no --tp given; 1 assumed"};
    }
    const auto [name, heads] = best->first;
    const std::uint64_t degree = cfg.heads / heads;
    if (tp > 0 && tp != degree)
        throw InputError("--tp", fmt::format("{} disagrees with the trace: its attention op {} holds {} of the config's {} "
                                             "query heads per rank (degree {}); give --tp {} or leave it out",
                                             tp, t.names[name], heads, cfg.heads, degree, degree));
    return {degree, fmt::format("attention heads: {} holds {} of the config's {} query heads per rank ({} calls){}",
                                t.names[name], heads, cfg.heads, best->second, tp > 0 ? "; --tp agrees" : "")};
}

std::optional<OpCost> cost_moe_from_config(const std::string& name, const CpuOp& op, const TransformerConfig& cfg,
                                           const ModelParallel& mp, const std::string& origin, std::string& why) {
    why.clear();
    if (!cfg.moe) {
        why = fmt::format("{} has no routed experts", origin);
        return std::nullopt;
    }
    const MoeConfig& m = *cfg.moe;
    const auto h = input_shape(op, 0);
    const auto ht = input_dtype(op, 0);
    if (!h || !ht || h->size() != 2) {
        why = fmt::format("no hidden-state input [T, H] (input 0) of {} to cost from {}", name, origin);
        return std::nullopt;
    }
    const std::uint64_t tokens = (*h)[0], hidden_in = (*h)[1];
    std::optional<std::size_t> logits;  // the router logits: the next 2-D floating-point input of T rows
    for (std::size_t i = 1; i < op.dims.size() && !logits; ++i)
        if (const auto s = input_shape(op, i); s && s->size() == 2 && (*s)[0] == tokens && input_dtype(op, i))
            logits = i;
    if (!logits) {
        why = fmt::format("no router-logits input [T, E] among the inputs of {} to check against {}", name, origin);
        return std::nullopt;
    }
    const Shape lg = *input_shape(op, *logits);
    const std::uint64_t experts = lg[1];
    if (experts != m.experts) {
        why = fmt::format("the router logits of {} give {} experts, {} has {} routed experts: not costed from it", name, experts,
                          origin, m.experts);
        return std::nullopt;
    }
    if (hidden_in < cfg.hidden) {
        why = fmt::format("the hidden states of {} are {} wide, narrower than the hidden size {} of {}: not costed from it", name,
                          hidden_in, cfg.hidden, origin);
        return std::nullopt;
    }
    const std::uint64_t d = mp.degree, k = m.top_k, hid = cfg.hidden, ffn = m.expert_ffn;
    const bool gated = cfg.mlp == MlpKind::gated;
    const std::uint64_t mats = gated ? 3 : 2;

    // FLOPs of every routed row through every projection, split over d ranks (rounded to the nearest FLOP when
    // d does not divide it: experts split by EP, the rows per rank are an expectation).
    const Exact all_flops = Exact(2) * Exact(tokens) * Exact(k) * Exact(mats) * Exact(hid) * Exact(ffn);
    const Exact flops = (all_flops + Exact(d / 2)) / Exact(d);

    // Expert weights: the engine's expected distinct experts touched by T·k routed choices, each expert's
    // projections in the weights' storage format (the config's quantization_config, else the hidden states' type).
    LayerRun run;
    run.dtype = *ht;
    const StorageFormat w = block_weight_format(cfg, run);
    const Exact one = gated ? format_bytes(w, Exact(hid), Exact(2) * Exact(ffn)) + format_bytes(w, Exact(ffn), Exact(hid))
                            : format_bytes(w, Exact(hid), Exact(ffn)) + format_bytes(w, Exact(ffn), Exact(hid));
    const double touched = expected_experts_touched(experts, k, tokens);
    const auto weights =
        static_cast<std::uint64_t>(std::llround(touched * static_cast<double>(one.value()) / static_cast<double>(d)));
    // Activations at the trace's dims (the engine may pad H: vLLM's MXFP4 path pads 2880 to 3072).
    const std::uint64_t hidden_bytes = input_bytes(op, 0), logit_bytes = input_bytes(op, *logits);
    const std::uint64_t out_bytes = bytes_of(*ht, tokens * hidden_in);

    OpCost r;
    r.op = name;
    r.shape = fmt::format("T={} E={} k={} H={} I={} d={}", tokens, experts, k, hid, ffn, d);
    r.dtype = std::string(dtype_name(*ht));
    r.category = Category::moe;
    Cost& c = r.cost;
    c.op = name;
    c.compute_dtype = w == plain_format(*ht) ? *ht : math_dtype(w.dtype, *ht, "--hf-config");
    c.unit = matmul_unit(c.compute_dtype);
    c.flops = flops.value();
    c.bytes_read = (Exact(weights) + Exact(hidden_bytes) + Exact(logit_bytes)).value();
    c.bytes_written = out_bytes;
    c.launches = 1;
    const std::string per = gated ? "3 (gate, up, down)" : "2 (up, down)";
    c.terms.push_back({"expert FLOPs", fmt::format("2·T·k·{}·H·I / d", mats),
                       fmt::format("2·{}·{}·{}·{}·{} / {}", tokens, k, mats, hid, ffn, d), fmt::format("{} FLOP", c.flops)});
    c.terms.push_back({"experts touched", "E·(1 − (1 − k/E)^T), uniform routing",
                       fmt::format("{}·(1 − (1 − {}/{})^{})", experts, k, experts, tokens), fmt::format("{:.4f}", touched)});
    c.terms.push_back({"expert weights",
                       fmt::format("round(touched · bytes of one expert's {} projections in {} / d)", per, format_name(w)),
                       fmt::format("round({:.4f}·{} / {})", touched, one.value(), d), fmt::format("{} B", weights)});
    c.terms.push_back({"activations", "hidden states [T, H'] and router logits [T, E] read, output [T, H'] written",
                       fmt::format("read {} + {} B, write {} B", hidden_bytes, logit_bytes, out_bytes),
                       fmt::format("{} B", hidden_bytes + logit_bytes + out_bytes)});
    r.params = {{"tokens", tokens},
                {"experts", experts},
                {"topk", k},
                {"hidden", hid},
                {"expert_ffn", ffn},
                {"hidden_in_trace", hidden_in},
                {"degree", d},
                {"degree_from", mp.clue},
                {"weight_format", format_name(w)},
                {"experts_touched", std::round(touched * 1e4) / 1e4},
                {"shapes_from", std::string("--hf-config")}};
    if (m.shared_experts > 0)
        r.params.push_back({"shared_experts", std::string("not included (routed experts only)")});
    return r;
}

}  // namespace bwacct::kineto
