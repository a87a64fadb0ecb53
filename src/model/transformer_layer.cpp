// A transformer block as a list of named ops, each costed by the engine's op models; Megatron-style
// tensor parallelism (column-parallel QKV and gate/up, row-parallel output and down projections,
// two all-reduces per layer forward, or reduce-scatter + all-gather with sequence parallelism).
// Formulas and choices: docs/formulas.md ("Transformer layers and models").
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "bwacct/choice.h"
#include "bwacct/dit.h"
#include "bwacct/dtype.h"
#include "bwacct/error.h"
#include "bwacct/expert_parallel.h"
#include "bwacct/transformer.h"
#include "term.h"

namespace bwacct {
namespace {

constexpr std::array<Choice<Phase>, 3> kPhases{
    {{"prefill", Phase::prefill}, {"decode", Phase::decode}, {"training", Phase::training}}};
constexpr std::array<Choice<MlpKind>, 4> kMlps{
    {{"gated", MlpKind::gated}, {"plain", MlpKind::plain}, {"swiglu", MlpKind::gated}, {"gelu", MlpKind::plain}}};

// Per-element FLOPs of the MLP activation (docs/formulas.md): SiLU(g)·u = g / (1 + exp(−g)) · u:
// exp, add, divide, two multiplies = 5; GELU (tanh form) 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))):
// 9 (x·x, ·x, ·0.044715, +x, ·√(2/π), tanh, +1, ·x, ·0.5).
constexpr std::uint64_t kSiluMulFlops = 5;
constexpr std::uint64_t kGeluFlops = 9;

// Unmasked (query, key) pairs per head under a sliding window of w keys. Decode (not causal, one query):
// q_len · min(kv_len, w). Causal, queries aligned to the end: query j sees x_j = kv_len − q_len + 1 + j keys
// before the window, so Σ_j min(x_j, w) over x = a … z (a = kv_len − q_len + 1, z = kv_len):
// z ≤ w: q_len·(a + z)/2; w ≤ a: q_len·w; else (a + w − 1)·(w − a)/2 + (z − w + 1)·w.
Exact windowed_pairs(std::uint64_t kv_len, std::uint64_t q_len, std::uint64_t w, bool causal) {
    if (!causal)
        return Exact(q_len) * Exact(std::min(kv_len, w));
    const std::uint64_t a = kv_len - q_len + 1, z = kv_len;
    if (z <= w)
        return Exact(q_len) * Exact(a + z) / Exact(2);
    if (w <= a)
        return Exact(q_len) * Exact(w);
    return Exact(a + w - 1) * Exact(w - a) / Exact(2) + Exact(z - w + 1) * Exact(w);
}

// Sums the costs of the passes of one op (forward, backward, recomputed forward) into one Cost.
Cost combine(const std::string& op, const std::vector<std::pair<std::string, Cost>>& passes) {
    Cost c = passes.front().second;
    c.op = op;
    c.terms.clear();
    Exact flops, read, written, launches;
    for (const auto& [label, p] : passes) {
        flops += Exact(p.flops);
        read += Exact(p.bytes_read);
        written += Exact(p.bytes_written);
        launches += Exact(p.launches);
        for (const Term& t : p.terms)
            c.terms.push_back(Term{label + ": " + t.name, t.formula, t.substituted, t.value});
        c.terms.push_back(detail::term(label + ": bytes", "read + written", fmt::format("{} + {}", p.bytes_read, p.bytes_written),
                                       Exact(p.bytes())));
    }
    c.flops = flops.value();
    c.bytes_read = read.value();
    c.bytes_written = written.value();
    c.launches = launches.value();
    return c;
}

struct Builder {
    const TransformerConfig& cfg;
    const LayerRun& run;
    std::vector<LayerOp> ops;

    bool training() const { return run.phase == Phase::training; }
    std::uint64_t dtype_bytes_of(std::uint64_t elems) const { return storage_bytes(run.dtype, Exact(elems)).value(); }
    // Rows of the ops outside the tensor-parallel region (norms, residual adds): sharded by
    // sequence under sequence parallelism.
    std::uint64_t outer_rows() const { return run.sequence_parallel ? run.tokens() / run.tp : run.tokens(); }

    void add(std::string name, OpPart part, std::string detail, Cost c) {
        c.op = name;
        ops.push_back(LayerOp{std::move(name), part, std::move(detail), std::move(c)});
    }

    // Forward (inference), or forward + backward (+ recomputed forward) in training.
    void add_passes(std::string name, OpPart part, std::string detail, const Cost& fwd, const std::optional<Cost>& bwd) {
        if (!training()) {
            add(std::move(name), part, std::move(detail), fwd);
            return;
        }
        std::vector<std::pair<std::string, Cost>> passes{{"fwd", fwd}};
        if (bwd)
            passes.emplace_back("bwd", *bwd);
        if (run.recompute)
            passes.emplace_back("recompute", fwd);
        detail += run.recompute ? ", fwd+bwd+recompute" : ", fwd+bwd";
        add(name, part, std::move(detail), combine(name, passes));
    }

    // A GEMM against a weight [K, N] (per batch problem), stored in `w`: a block weight's part_weight_format (by default
    // block_weight_format), or nullopt: the activation dtype (the router and LM head).
    void gemm(const std::string& name, OpPart part, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
        gemm(name, part, m, k, n, block_weight_format(cfg, run));
    }
    void gemm(const std::string& name, OpPart part, std::uint64_t m, std::uint64_t k, std::uint64_t n,
              const std::optional<StorageFormat>& w) {
        GemmDesc d;
        d.m = m, d.k = k, d.n = n;
        d.a = d.b = d.c = run.dtype;
        const std::string detail = fmt::format("[{}, {}] × [{}, {}]", m, k, k, n);
        if (!training()) {
            add(name, part, detail + weight_note(w), w ? weight_gemm(gemm_cost(d), d, 1, *w) : gemm_cost(d));
            return;
        }
        // Forward + backward (data and weight) as seed 004 §2 counts a linear layer.
        d.pass = GemmPass::fwd_bwd;
        std::vector<std::pair<std::string, Cost>> passes{{"fwd+bwd", gemm_cost(d)}};
        if (run.recompute) {
            d.pass = GemmPass::fwd;
            passes.emplace_back("recompute", gemm_cost(d));
        }
        add(name, part, detail + (run.recompute ? ", fwd+bwd+recompute" : ", fwd+bwd"), combine(name, passes));
    }

    // The weight format when it differs from the activations', for an op's detail.
    std::string weight_note(const std::optional<StorageFormat>& w) const {
        return w && !(*w == plain_format(run.dtype)) ? fmt::format(", W {}", format_name(*w)) : std::string();
    }

    // Inference: replaces gemm_cost's `reads` reads of B (charged in the activation dtype) by the weight's
    // bytes in its storage format `w`, and runs the math on the path the two types imply (math_dtype).
    Cost weight_gemm(Cost c, const GemmDesc& d, std::uint64_t reads, const StorageFormat& w) const {
        if (w == plain_format(run.dtype))
            return c;
        const Exact charged = storage_bytes(run.dtype, Exact(d.batch) * Exact(d.k) * Exact(d.n));
        const Exact stored = Exact(d.batch) * format_bytes(w, Exact(d.k), Exact(d.n));
        c.bytes_read = (Exact(c.bytes_read) - Exact(reads) * charged + Exact(reads) * stored).value();
        c.compute_dtype = math_dtype(w.dtype, run.dtype, "--weight-dtype");
        c.unit = matmul_unit(c.compute_dtype);
        c.terms.push_back(detail::term("weight bytes", "batch · (payload + scales) of [K, N] in " + format_name(w),
                                       fmt::format("{}·[{}, {}]", d.batch, d.k, d.n), stored));
        return c;
    }

    void norm(const std::string& name, OpPart part, std::uint64_t rows) {
        NormDesc d;
        d.kind = cfg.norm;
        d.shape = {rows, cfg.hidden};
        d.dtype = run.dtype;
        // Backward: read x and dy, write dx, 2× the forward FLOPs; γ's gradient (D elements) is left out.
        ElementwiseDesc b;
        b.shape = d.shape;
        b.dtype = run.dtype;
        b.inputs = 2;
        b.outputs = 1;
        b.flops_per_elem = 2 * norm_flops_per_elem(cfg.norm);
        add_passes(name, part, fmt::format("{} [{}, {}]", norm_name(cfg.norm), rows, cfg.hidden), norm_cost(d),
                   elementwise_cost(b));
    }

    void residual(const std::string& name) {
        ElementwiseDesc d;
        d.shape = {outer_rows(), cfg.hidden};
        d.dtype = run.dtype;
        d.inputs = 2;
        d.outputs = 1;
        d.flops_per_elem = 1;
        // Backward: the residual stream's gradient and the branch's gradient are added at the fork
        // (the same elementwise add).
        add_passes(name, OpPart::residual, fmt::format("x + branch [{}, {}]", outer_rows(), cfg.hidden), elementwise_cost(d),
                   elementwise_cost(d));
    }

    // The MLP activation on [rows, f]: SiLU·up (gated), GELU·up (gated, Gemma) or GELU (plain).
    void activation(const std::string& prefix, std::uint64_t rows, std::uint64_t f) {
        ElementwiseDesc d;
        d.shape = {rows, f};
        d.dtype = run.dtype;
        ElementwiseDesc b = d;
        const bool gated = cfg.mlp == MlpKind::gated;
        // GELU·up: the GELU's 9 FLOPs and the multiply by up.
        const std::uint64_t per = gated ? (cfg.gelu_gate ? kGeluFlops + 1 : kSiluMulFlops) : kGeluFlops;
        if (gated) {
            d.inputs = 2, d.outputs = 1, d.flops_per_elem = per;
            b.inputs = 3, b.outputs = 2, b.flops_per_elem = 2 * per;  // read g, u, dy; write dg, du
        } else {
            d.inputs = 1, d.outputs = 1, d.flops_per_elem = per;
            b.inputs = 2, b.outputs = 1, b.flops_per_elem = 2 * per;  // read x, dy; write dx
        }
        const char* name = gated ? (cfg.gelu_gate ? "gelu_mul" : "silu_mul") : "gelu";
        const char* what = gated ? (cfg.gelu_gate ? "gelu(gate)·up" : "silu(gate)·up") : "gelu(up)";
        add_passes(prefix + name, OpPart::mlp, fmt::format("{} [{}, {}]", what, rows, f), elementwise_cost(d),
                   elementwise_cost(b));
    }

    // A dense MLP of intermediate size `ffn` (sharded by tp): gate/up, activation, down.
    // Its weights in `w` (part_weight_format).
    void dense_mlp(const std::string& prefix, std::uint64_t ffn, const StorageFormat& w) {
        const std::uint64_t t = run.tokens(), f = ffn / run.tp;
        const bool gated = cfg.mlp == MlpKind::gated;
        gemm(prefix + (gated ? "gate_up_proj" : "up_proj"), OpPart::mlp, t, cfg.hidden, gated ? 2 * f : f, w);
        activation(prefix, t, f);
        gemm(prefix + "down_proj", OpPart::mlp, t, f, cfg.hidden, w);
    }
    StorageFormat attn_w() const { return part_weight_format(cfg, run, WeightPart::attention); }

    // A grouped GEMM over the routed experts: rows = tokens · k (each token's row goes to k experts),
    // weights read for the distinct experts touched (`touched`, an expectation, rounded to a byte).
    void expert_gemm(const std::string& name, std::uint64_t rows, std::uint64_t k, std::uint64_t n, double touched) {
        GemmDesc d;
        d.m = rows, d.k = k, d.n = n;
        d.a = d.b = d.c = run.dtype;
        // gemm_cost charges one expert's weights in the activation dtype per B read or dB write; a grouped
        // GEMM reads each touched expert's, in the weights' storage format.
        const StorageFormat w = block_weight_format(cfg, run);
        const std::uint64_t charged = storage_bytes(run.dtype, Exact(k) * Exact(n)).value();
        const std::uint64_t one = format_bytes(w, Exact(k), Exact(n)).value();
        const auto all = static_cast<std::uint64_t>(std::llround(touched * static_cast<double>(one)));
        auto patch = [&](Cost c, std::uint64_t weight_reads, std::uint64_t weight_writes) {
            c.bytes_read =
                (Exact(c.bytes_read) - Exact(weight_reads) * Exact(charged) + Exact(weight_reads) * Exact(all)).value();
            c.bytes_written =
                (Exact(c.bytes_written) - Exact(weight_writes) * Exact(charged) + Exact(weight_writes) * Exact(all)).value();
            c.terms.push_back(detail::term("expert weights", "round(experts touched · bytes of [K, N]) per weight read",
                                           fmt::format("round({:.4f}·{})", touched, one), Exact(all)));
            if (!(w == plain_format(run.dtype))) {
                c.compute_dtype = math_dtype(w.dtype, run.dtype, "--weight-dtype");
                c.unit = matmul_unit(c.compute_dtype);
            }
            return c;
        };
        const std::string detail =
            fmt::format("grouped [{}, {}] × {:.3f} experts touched of [{}, {}]{}", rows, k, touched, k, n, weight_note(w));
        if (!training()) {
            add(name, OpPart::mlp, detail, patch(gemm_cost(d), 1, 0));
            return;
        }
        d.pass = GemmPass::fwd_bwd;
        std::vector<std::pair<std::string, Cost>> passes{{"fwd+bwd", patch(gemm_cost(d), 2, 1)}};
        if (run.recompute) {
            d.pass = GemmPass::fwd;
            passes.emplace_back("recompute", patch(gemm_cost(d), 1, 0));
        }
        add(name, OpPart::mlp, detail + (run.recompute ? ", fwd+bwd+recompute" : ", fwd+bwd"), combine(name, passes));
    }

    // The MoE MLP: router GEMM, routed experts (grouped GEMMs over tokens · k rows), the weighted
    // combine of each token's k expert outputs, then the shared experts as one dense MLP.
    // Under expert parallelism (src/model/expert_parallel.cpp) each rank routes its share of the
    // tokens, dispatches their rows to the experts' ranks (all-to-all), runs its E/N whole experts
    // and gets the outputs back (all-to-all); the shared experts run unsharded on its share.
    void moe_mlp() {
        const MoeConfig& m = *cfg.moe;
        const bool ep = run.ep > 1;
        const ExpertParallel e = ep ? expert_parallel(cfg, run) : ExpertParallel{};
        const std::uint64_t t = ep ? e.tokens_per_rank : run.tokens(), rows = (Exact(t) * Exact(m.top_k)).value(),
                            f = ep ? m.expert_ffn : m.expert_ffn / run.tp;
        const double touched = experts_touched(cfg, run);
        gemm("router", OpPart::mlp, t, cfg.hidden, m.experts, std::nullopt);
        if (ep)
            ep_alltoall("dispatch", e);
        const bool gated = cfg.mlp == MlpKind::gated;
        expert_gemm(gated ? "experts_gate_up" : "experts_up", rows, cfg.hidden, gated ? 2 * f : f, touched);
        activation("experts_", rows, f);
        expert_gemm("experts_down", rows, f, cfg.hidden, touched);
        if (ep)
            ep_alltoall("combine", e);
        // Combine: out[t] = Σ_k w_k · y_k: read the [T·k, D] expert outputs, write [T, D]; a multiply
        // and an add per expert output element (2·k FLOPs per output element).
        ElementwiseDesc c;
        c.shape = {t, cfg.hidden};
        c.dtype = run.dtype;
        c.inputs = m.top_k;
        c.outputs = 1;
        c.flops_per_elem = 2 * m.top_k;
        add_passes("experts_combine", OpPart::mlp, fmt::format("Σ over {} experts [{}, {}]", m.top_k, t, cfg.hidden),
                   elementwise_cost(c), elementwise_cost(c));
        if (m.shared_experts > 0) {
            if (ep)
                ep_shared_mlp(t, m.shared_experts * m.expert_ffn);
            else
                dense_mlp("shared_", m.shared_experts * m.expert_ffn, part_weight_format(cfg, run, WeightPart::shared_experts));
        }
    }

    // One all-to-all over the EP group per pass: each rank's buffer of T_r · k rows of D. Training: the
    // backward sends the gradients of the same rows the other way (dispatch's backward returns dX to the
    // tokens' ranks, combine's sends dY to the experts' ranks), and recomputation repeats the forward.
    void ep_alltoall(const std::string& what, const ExpertParallel& e) {
        CollectiveDesc d;
        d.kind = CollectiveKind::alltoall;
        d.size_bytes = e.a2a_bytes;
        d.ranks = e.ranks;
        d.dtype = run.dtype;
        std::vector<const char*> passes{"fwd"};
        if (training() && run.recompute)
            passes.push_back("recompute");
        if (training())
            passes.push_back("bwd");
        for (const char* pass : passes)
            add(fmt::format("alltoall experts {} ({})", what, pass), OpPart::tp_comm,
                fmt::format("[{}, {}] {} = {} B per rank over {} EP ranks; {} B leave each rank", e.rows_per_rank, cfg.hidden,
                            dtype_name(run.dtype), e.a2a_bytes, e.ranks, e.wire_bytes),
                collective_cost(d));
    }

    // The shared experts under EP: a dense MLP of `ffn`, unsharded, on this rank's `t` tokens.
    void ep_shared_mlp(std::uint64_t t, std::uint64_t ffn) {
        const bool gated = cfg.mlp == MlpKind::gated;
        const StorageFormat q = part_weight_format(cfg, run, WeightPart::shared_experts);
        gemm(gated ? "shared_gate_up_proj" : "shared_up_proj", OpPart::mlp, t, cfg.hidden, gated ? 2 * ffn : ffn, q);
        activation("shared_", t, ffn);
        gemm("shared_down_proj", OpPart::mlp, t, ffn, cfg.hidden, q);
    }

    // Multi-head latent attention, absorbed-weight form (DeepSeek's inference `attn_impl = "absorb"`):
    // Q through its LoRA, the latent c_KV and the shared RoPE key written to the cache, W_UK absorbed
    // into the query and W_UV applied after attention, attention over the latent (one "KV head" of
    // kv_lora + rope for scores, kv_lora for values).
    void mla_attention() {
        const MlaConfig& a = *cfg.mla;
        const std::uint64_t t = run.tokens(), h = cfg.heads / run.tp, qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
        const std::uint64_t lat = a.kv_lora_rank + a.qk_rope_head_dim;
        if (a.q_lora_rank > 0) {
            gemm("q_a_proj", OpPart::attention, t, cfg.hidden, a.q_lora_rank, attn_w());
            rank_norm("q_a_norm", t, a.q_lora_rank);
            gemm("q_b_proj", OpPart::attention, t, a.q_lora_rank, h * qk, attn_w());
        } else {
            gemm("q_proj", OpPart::attention, t, cfg.hidden, h * qk, attn_w());
        }
        // Its output [T, kv_lora + rope] is this step's cache entry: the KV-cache write, counted here.
        gemm("kv_a_proj", OpPart::attention, t, cfg.hidden, lat, attn_w());
        kv_write_in_last_op(Exact(t) * Exact(lat), Exact(t));
        rank_norm("kv_a_norm", t, a.kv_lora_rank);
        batched_gemm("q_absorb", t, a.qk_nope_head_dim, a.kv_lora_rank, h, "q_nope · W_UK per head");
        AttentionDesc pd;  // the pair count only
        pd.batch = run.batch;
        pd.q_len = run.q_len();
        pd.kv_len = run.context;
        pd.causal = run.phase != Phase::decode;
        const Exact pairs = attention_pairs(pd);
        const Exact bh = Exact(run.batch) * Exact(h);
        Cost c;
        c.op = "attention";
        c.compute_dtype = run.dtype;
        c.unit = matmul_unit(run.dtype);
        const Exact flops = Exact(2) * bh * pairs * Exact(lat) + Exact(2) * bh * pairs * Exact(a.kv_lora_rank);
        c.terms.push_back(detail::term("flops", "2·B·H·pairs·(kv_lora + rope) + 2·B·H·pairs·kv_lora",
                                       fmt::format("2·{}·{}·{}·{} + 2·{}·{}·{}·{}", run.batch, h, pairs.value(), lat, run.batch,
                                                   h, pairs.value(), a.kv_lora_rank),
                                       flops));
        const Exact q = Exact(t) * Exact(h) * Exact(lat), o = Exact(t) * Exact(h) * Exact(a.kv_lora_rank);
        const StorageFormat kvf = kv_cache_format(cfg, run);
        c.bytes_read = (storage_bytes(run.dtype, q) + kv_bytes(cfg, run, Exact(run.batch) * Exact(run.context))).value();
        if (!(kvf == plain_format(run.dtype))) {
            c.compute_dtype = math_dtype(kvf.dtype, run.dtype, "--kv-dtype");
            c.unit = matmul_unit(c.compute_dtype);
        }
        c.bytes_written = storage_bytes(run.dtype, o).value();
        c.terms.push_back(detail::term("bytes read", "b·(T·H·(kv_lora + rope) + B·context·(kv_lora + rope))",
                                       fmt::format("{}·{} + {}·{}", t, h * lat, run.batch * run.context, lat),
                                       Exact(c.bytes_read)));
        c.terms.push_back(detail::term("bytes written", "b·T·H·kv_lora", fmt::format("{}·{}·{}", t, h, a.kv_lora_rank),
                                       Exact(c.bytes_written)));
        c.flops = flops.value();
        c.launches = 1;
        add("attention", OpPart::attention,
            fmt::format("mla absorbed B={} H={} q={} kv={} latent {}+{}{}", run.batch, h, run.q_len(), run.context,
                        a.kv_lora_rank, a.qk_rope_head_dim, pd.causal ? " causal" : ""),
            c);
        batched_gemm("v_absorb", t, a.kv_lora_rank, a.v_head_dim, h, "o_latent · W_UV per head");
        gemm("out_proj", OpPart::attention, t, h * a.v_head_dim, cfg.hidden, attn_w());
    }

    // One small GEMM per head (batch = heads): [T, k] × [k, n] with that head's weight.
    void batched_gemm(const std::string& name, std::uint64_t t, std::uint64_t k, std::uint64_t n, std::uint64_t heads,
                      const char* what) {
        GemmDesc d;
        d.m = t, d.k = k, d.n = n, d.batch = heads;
        d.a = d.b = d.c = run.dtype;
        const StorageFormat w = attn_w();
        add(name, OpPart::attention, fmt::format("{}: {} × [{}, {}] × [{}, {}]{}", what, heads, t, k, k, n, weight_note(w)),
            weight_gemm(gemm_cost(d), d, 1, w));
    }

    // An RMSNorm over `cols` (the LoRA ranks, per-head Q/K norms).
    void rank_norm(const std::string& name, std::uint64_t rows, std::uint64_t cols) {
        NormDesc d;
        d.kind = NormKind::rmsnorm;
        d.shape = {rows, cols};
        d.dtype = run.dtype;
        ElementwiseDesc b;
        b.shape = d.shape;
        b.dtype = run.dtype;
        b.inputs = 2;
        b.outputs = 1;
        b.flops_per_elem = 2 * norm_flops_per_elem(NormKind::rmsnorm);
        add_passes(name, OpPart::norm, fmt::format("rmsnorm [{}, {}]", rows, cols), norm_cost(d), elementwise_cost(b));
    }

    // The KV-cache write inside the last op's output (qkv_proj's K and V, MLA's kv_a_proj): `elems` elements
    // charged in the activation dtype become `tokens` tokens of cache in the KV format.
    void kv_write_in_last_op(Exact elems, Exact tokens) {
        if (training() || kv_cache_format(cfg, run) == plain_format(run.dtype))
            return;
        Cost& c = ops.back().cost;
        const Exact cache = kv_bytes(cfg, run, tokens);
        c.bytes_written = (Exact(c.bytes_written) - storage_bytes(run.dtype, elems) + cache).value();
        c.terms.push_back(detail::term("KV-cache write", "this step's K and V in " + format_name(kv_cache_format(cfg, run)),
                                       fmt::format("{} tokens", tokens.value()), cache));
        ops.back().detail += fmt::format(", K/V written in {}", dtype_name(kv_cache_format(cfg, run).dtype));
    }

    // Attention's cost with the cache in the KV format (K and V read in it; Q and O in the activation
    // dtype; the math on math_dtype(kv, act)) and a sliding window (run.window) applied exactly: the keys
    // read are those some query sees, the FLOPs scale with the windowed pairs.
    Cost attention_forward(AttentionDesc d) const {
        const std::uint64_t w = run.window;
        Exact pairs_w;
        if (w != 0 && w < d.kv_len) {
            pairs_w = windowed_pairs(d.kv_len, d.q_len, w, d.causal);
            // keys any query sees: the last q_len + w − 1 (causal, aligned to the end) or w (decode)
            d.kv_len = std::min<std::uint64_t>(d.kv_len, d.causal ? d.q_len + w - 1 : w);
        }
        Cost c = attention_cost(d);
        if (w != 0 && pairs_w.value() != 0) {
            const Exact full = attention_pairs(d), unwindowed(c.flops);
            c.flops = (unwindowed / full * pairs_w).value();  // FLOPs are a constant times the pairs
            c.terms.push_back(detail::term("windowed pairs", "Σ over queries of min(keys before it, window)",
                                           fmt::format("window {}", w), pairs_w));
            c.terms.push_back(detail::term("flops (windowed)", "flops · windowed pairs / pairs",
                                           fmt::format("{}/{}·{}", unwindowed.value(), full.value(), pairs_w.value()),
                                           Exact(c.flops)));
        }
        const StorageFormat kvf = kv_cache_format(cfg, run);
        if (!(kvf == plain_format(run.dtype)) && !training()) {
            const Exact elems = Exact(d.batch) * Exact(d.kv_heads) * Exact(d.kv_len) * Exact(d.head_dim);
            const Exact stored = kv_bytes(cfg, run, Exact(d.batch) * Exact(d.kv_len));
            c.bytes_read = (Exact(c.bytes_read) - Exact(2) * storage_bytes(run.dtype, elems) + stored).value();
            c.compute_dtype = math_dtype(kvf.dtype, run.dtype, "--kv-dtype");
            c.unit = matmul_unit(c.compute_dtype);
            c.terms.push_back(detail::term("K and V read", "cache of kv_len tokens in " + format_name(kvf),
                                           fmt::format("{}·{} tokens", d.batch, d.kv_len), stored));
        }
        return c;
    }

    void attention() {
        AttentionDesc d;
        d.batch = run.batch;
        d.heads = cfg.heads / run.tp;
        d.kv_heads = kv_heads_per_rank(cfg, run.tp);
        d.q_len = run.q_len();
        d.kv_len = run.context;
        d.head_dim = head_dim(cfg);
        d.causal = run.phase != Phase::decode;
        d.impl = run.attention;
        d.dtype = run.dtype;
        const Cost fwd = attention_forward(d);
        if (run.window != 0 && run.window < run.context)
            d.kv_len = std::min<std::uint64_t>(d.kv_len, d.causal ? d.q_len + run.window - 1 : run.window);
        std::optional<Cost> bwd;
        if (training()) {
            // FlashAttention-2 backward: 5 matmuls against the forward's 2 → 2.5× the FLOPs; reads
            // Q, K, V, O and dO, writes dQ, dK, dV. Naive adds the forward's S/P traffic once more.
            AttentionDesc flash = d;
            flash.impl = AttentionImpl::flash;
            const Cost f = attention_cost(flash);  // Q, K, V, O bytes over the keys the window leaves
            Cost b = fwd;
            b.terms.clear();
            b.flops = (Exact(fwd.flops) / Exact(2) * Exact(5)).value();
            b.bytes_read =
                (Exact(f.bytes_read) + Exact(2) * Exact(f.bytes_written) + (Exact(fwd.bytes_read) - Exact(f.bytes_read))).value();
            b.bytes_written = (Exact(f.bytes_read) + (Exact(fwd.bytes_written) - Exact(f.bytes_written))).value();
            b.launches = fwd.launches + 1;
            b.terms.push_back(
                detail::term("flops", "2.5 · forward flops (5 matmuls vs 2)", fmt::format("2.5·{}", fwd.flops), Exact(b.flops)));
            b.terms.push_back(detail::term("bytes read", "Q + K + V + O + dO (+ naive S/P reads)",
                                           fmt::format("{} + 2·{}", f.bytes_read, f.bytes_written), Exact(b.bytes_read)));
            b.terms.push_back(detail::term("bytes written", "dQ + dK + dV (+ naive S/P writes)", fmt::format("{}", f.bytes_read),
                                           Exact(b.bytes_written)));
            bwd = b;
        }
        add_passes(
            "attention", OpPart::attention,
            fmt::format("{} B={} H={} KV={} q={} kv={} d={}{}{}", run.attention == AttentionImpl::flash ? "flash" : "naive",
                        d.batch, d.heads, d.kv_heads, d.q_len, d.kv_len, d.head_dim, d.causal ? " causal" : "",
                        run.window != 0 ? fmt::format(" window {}", run.window) : std::string()),
            fwd, bwd);
    }

    void collective(CollectiveKind kind, const std::string& what, const std::string& pass, std::uint64_t rows,
                    std::uint64_t cols) {
        CollectiveDesc d;
        d.kind = kind;
        d.size_bytes = dtype_bytes_of(rows * cols);
        d.ranks = run.tp;
        d.dtype = run.dtype;
        const std::string name = fmt::format("{} {} ({})", collective_name(kind), what, pass);
        add(name, OpPart::tp_comm,
            fmt::format("[{}, {}] {} = {} B over {} ranks", rows, cols, dtype_name(run.dtype), d.size_bytes, run.tp),
            collective_cost(d));
    }

    // The Megatron `g` operator after a row-parallel projection: all-reduce (or reduce-scatter under
    // sequence parallelism) in the forward, identity (or all-gather) in the backward.
    void reduce_out(const std::string& what) {
        if (run.tp < 2)
            return;
        const std::uint64_t t = run.tokens();
        const CollectiveKind fwd = run.sequence_parallel ? CollectiveKind::reducescatter : CollectiveKind::allreduce;
        collective(fwd, what, "fwd", t, cfg.hidden);
        if (training() && run.recompute)
            collective(fwd, what, "recompute", t, cfg.hidden);
        if (training() && run.sequence_parallel)
            collective(CollectiveKind::allgather, what + " grad", "bwd", t, cfg.hidden);
    }

    // The Megatron `f` operator before a column-parallel projection: identity (or all-gather) in the
    // forward, all-reduce (or reduce-scatter) of the input's gradient in the backward.
    void gather_in(const std::string& what) {
        if (run.tp < 2)
            return;
        const std::uint64_t t = run.tokens();
        if (run.sequence_parallel) {
            collective(CollectiveKind::allgather, what, "fwd", t, cfg.hidden);
            if (training() && run.recompute)
                collective(CollectiveKind::allgather, what, "recompute", t, cfg.hidden);
        }
        if (training())
            collective(run.sequence_parallel ? CollectiveKind::reducescatter : CollectiveKind::allreduce, what + " grad", "bwd",
                       t, cfg.hidden);
    }
};

}  // namespace

std::string_view phase_name(Phase p) { return choice_name(p, kPhases); }
Phase parse_phase(std::string_view s) { return parse_choice(s, "--phase", "phase", kPhases); }
std::string_view mlp_name(MlpKind k) { return choice_name(k, kMlps); }
MlpKind parse_mlp(std::string_view s, const std::string& option) { return parse_choice(s, option, "MLP kind", kMlps); }

std::string_view op_part_name(OpPart p) {
    static constexpr std::array<std::string_view, 7> kNames{"attention", "mlp",       "norm", "residual",
                                                            "tp_comm",   "embedding", "head"};
    return kNames[static_cast<std::size_t>(p)];
}

std::uint64_t head_dim(const TransformerConfig& cfg) {
    if (cfg.head_dim != 0)
        return cfg.head_dim;
    return cfg.heads == 0 ? 0 : cfg.hidden / cfg.heads;
}

// Mixed precision: the formats apply to inference; the products must have a math path.
static void validate_precision(const TransformerConfig& cfg, const LayerRun& run) {
    const StorageFormat w = block_weight_format(cfg, run), kv = kv_cache_format(cfg, run);
    if (run.phase == Phase::training && !(w == plain_format(run.dtype)))
        throw InputError(run.weight ? "--weight-dtype" : "--phase",
                         fmt::format("training keeps the weights in --dtype ({}); weights stored as {} apply to prefill, "
                                     "decode and generate",
                                     dtype_name(run.dtype), format_name(w)));
    if (run.phase == Phase::training && !(kv == plain_format(run.dtype)))
        throw InputError("--kv-dtype", "training has no KV cache: give --kv-dtype with prefill, decode or generate");
    if (run.dtype == DType::int4)
        throw InputError("--act-dtype", "int4 activations are not modelled; int4 applies to --weight-dtype and --kv-dtype");
    (void)math_dtype(w.dtype, run.dtype, "--weight-dtype");
    (void)math_dtype(kv.dtype, run.dtype, "--kv-dtype");
    if (run.window != 0 && cfg.mla)
        throw InputError("--hf-config", "a sliding window with multi-head latent attention is not modelled");
}

void validate(const TransformerConfig& cfg, const LayerRun& run) {
    if (cfg.dit)
        return validate_dit(cfg, run);
    const std::pair<std::uint64_t, const char*> positive[] = {{cfg.hidden, "--hidden"},     {cfg.heads, "--heads"},
                                                              {cfg.kv_heads, "--kv-heads"}, {cfg.ffn, "--ffn"},
                                                              {run.batch, "--batch"},       {run.tp, "--tp"}};
    for (const auto& [v, opt] : positive)
        if (v == 0)
            throw InputError(opt, "must be a positive integer");
    if (cfg.head_dim == 0 && cfg.hidden % cfg.heads != 0)
        throw InputError("--heads",
                         fmt::format("must divide --hidden ({} % {} != 0), or give --head-dim", cfg.hidden, cfg.heads));
    if (cfg.heads % cfg.kv_heads != 0)
        throw InputError("--kv-heads", fmt::format("must divide --heads ({} query heads, {} KV heads)", cfg.heads, cfg.kv_heads));
    // A rank holds kv_heads/tp KV heads, or one replicated tp/kv_heads times when tp >= kv_heads (vLLM's
    // QKVParallelLinear, Megatron-LM): tp must divide the KV heads or be a multiple of them.
    if (cfg.heads % run.tp != 0 || (cfg.kv_heads % run.tp != 0 && run.tp % cfg.kv_heads != 0))
        throw InputError("--tp", fmt::format("must divide --heads ({}) and divide or be a multiple of --kv-heads ({}) "
                                             "(tp {}: a rank holds kv-heads/tp KV heads, or one replicated tp/kv-heads times)",
                                             cfg.heads, cfg.kv_heads, run.tp));
    if (cfg.ffn % run.tp != 0)
        throw InputError("--tp", fmt::format("must divide --ffn ({} % {} != 0)", cfg.ffn, run.tp));
    if (cfg.vocab != 0 && cfg.vocab % run.tp != 0)
        throw InputError("--tp", fmt::format("must divide --vocab ({} % {} != 0)", cfg.vocab, run.tp));
    if (run.phase == Phase::decode) {
        if (run.context == 0)
            throw InputError("--context", "decode needs the KV-cache length: a positive integer");
    } else {
        if (run.seq == 0)
            throw InputError("--seq", "prefill and training need the tokens per sequence (--seq, or --tokens)");
        if (run.context < run.seq)
            throw InputError("--context", fmt::format("must be at least the new tokens per sequence ({} < {}): the keys include "
                                                      "the queries",
                                                      run.context, run.seq));
    }
    if (run.sequence_parallel && run.tp < 2)
        throw InputError("--sequence-parallel", "needs --tp 2 or more");
    if (run.sequence_parallel && (Exact(run.batch) * Exact(run.q_len())).value() % run.tp != 0)
        throw InputError("--sequence-parallel", fmt::format("the tokens ({}) must divide by --tp ({})", run.tokens(), run.tp));
    if (run.recompute && run.phase != Phase::training)
        throw InputError("--recompute", "applies to --phase training only");
    (void)(Exact(run.batch) * Exact(run.q_len()));  // throws OverflowError when the token count overflows
    if (cfg.moe) {
        const MoeConfig& m = *cfg.moe;
        if (m.experts == 0 || m.top_k == 0 || m.expert_ffn == 0)
            throw InputError("--experts", "a MoE model needs positive experts, top-k and expert intermediate size");
        if (m.top_k > m.experts)
            throw InputError("--experts", fmt::format("top-k ({}) must not exceed the routed experts ({})", m.top_k, m.experts));
        if (m.expert_ffn % run.tp != 0)
            throw InputError("--tp",
                             fmt::format("must divide the expert intermediate size ({} % {} != 0)", m.expert_ffn, run.tp));
        if (run.experts_touched != 0) {
            const std::uint64_t most = std::min<std::uint64_t>(m.experts, (Exact(run.tokens()) * Exact(m.top_k)).value());
            if (run.experts_touched < m.top_k || run.experts_touched > most)
                throw InputError("--experts-touched",
                                 fmt::format("must lie between top-k ({}) and min(experts, tokens · top-k) ({}); got {}", m.top_k,
                                             most, run.experts_touched));
        }
    } else if (run.experts_touched != 0) {
        throw InputError("--experts-touched", "applies to mixture-of-experts models only (this one has no routed experts)");
    }
    validate_precision(cfg, run);
    validate_ep(cfg, run);
    if (cfg.mla) {
        const MlaConfig& a = *cfg.mla;
        if (a.kv_lora_rank == 0 || a.qk_rope_head_dim == 0 || a.qk_nope_head_dim == 0 || a.v_head_dim == 0)
            throw InputError("--hf-config",
                             "multi-head latent attention needs positive kv_lora_rank, qk_nope_head_dim, "
                             "qk_rope_head_dim and v_head_dim");
        if (run.phase == Phase::training)
            throw InputError("--phase", "training with multi-head latent attention is not modelled yet; use prefill or decode");
        if (run.attention == AttentionImpl::naive)
            throw InputError("--attention", "multi-head latent attention is modelled in its absorbed flash form only; use flash");
    }
}

std::vector<LayerOp> transformer_layer_ops(const TransformerConfig& cfg, const LayerRun& run, bool dense_mlp) {
    if (cfg.dit)
        return dit_block_ops(cfg, run);
    validate(cfg, run);
    Builder b{cfg, run, {}};
    const std::uint64_t t = run.tokens(), hd = head_dim(cfg), hq = cfg.heads / run.tp, hkv = kv_heads_per_rank(cfg, run.tp);

    b.norm("attn_norm", OpPart::norm, b.outer_rows());
    b.gather_in("attn_in");
    if (cfg.mla) {
        b.mla_attention();
    } else {
        // The QKV output holds this step's K and V: in decode and prefill that write is the KV-cache
        // write (the epilogue stores into the cache), counted here and nowhere else.
        b.gemm("qkv_proj", OpPart::attention, t, cfg.hidden, (hq + 2 * hkv) * hd, b.attn_w());
        b.kv_write_in_last_op(Exact(t) * Exact(2 * hkv) * Exact(hd), Exact(t));
        if (cfg.qk_norm)  // one RMSNorm per head of Q and of K, over head_dim
            b.rank_norm("qk_norm", (Exact(t) * Exact(hq + hkv)).value(), hd);
        b.attention();
        b.gemm("out_proj", OpPart::attention, t, hq * hd, cfg.hidden, b.attn_w());
    }
    if (cfg.block_norms == 4)
        b.norm("post_attn_norm", OpPart::norm, t);
    b.reduce_out("attn_out");
    b.residual("attn_residual");
    b.norm("mlp_norm", OpPart::norm, b.outer_rows());
    // An expert-parallel MoE layer takes its TP rank's share of the tokens from the replicated input: no
    // `f` operator (its backward is the all-gather of dX below).
    if (!(cfg.moe && !dense_mlp && run.ep > 1))
        b.gather_in("mlp_in");
    if (cfg.moe && !dense_mlp)
        b.moe_mlp();
    else
        b.dense_mlp("", cfg.ffn, part_weight_format(cfg, run, WeightPart::dense_mlp));
    if (cfg.block_norms == 4)
        b.norm("post_mlp_norm", OpPart::norm, t);
    if (cfg.moe && !dense_mlp && run.ep > 1) {
        // Each TP rank combined its own share of the tokens: gather them back (the all-reduce's place).
        // Training: the backward mirrors it: each rank's dX covers its share of the tokens, gathered for the
        // replicated input (the forward gather's gradient is a slice: no traffic).
        if (run.tp > 1) {
            b.collective(CollectiveKind::allgather, "mlp_out (ep)", "fwd", t, cfg.hidden);
            if (run.phase == Phase::training && run.recompute)
                b.collective(CollectiveKind::allgather, "mlp_out (ep)", "recompute", t, cfg.hidden);
            if (run.phase == Phase::training)
                b.collective(CollectiveKind::allgather, "mlp_in grad (ep)", "bwd", t, cfg.hidden);
        }
    } else {
        b.reduce_out("mlp_out");
    }
    b.residual("mlp_residual");
    return std::move(b.ops);
}

std::uint64_t moe_layer_count(const TransformerConfig& cfg) {
    return cfg.moe && cfg.layers > cfg.moe->dense_layers ? cfg.layers - cfg.moe->dense_layers : 0;
}
std::uint64_t dense_layer_count(const TransformerConfig& cfg) { return cfg.layers - moe_layer_count(cfg); }
bool is_dense_mlp_layer(const TransformerConfig& cfg, std::uint64_t layer) {
    if (!cfg.moe)
        return true;
    if (!cfg.moe->dense_pattern.empty())
        return layer < cfg.moe->dense_pattern.size() && cfg.moe->dense_pattern[layer];
    return layer < cfg.moe->dense_layers;
}

double expected_experts_touched(std::uint64_t experts, std::uint64_t top_k, std::uint64_t tokens) {
    const double e = static_cast<double>(experts);
    return e * (1 - std::pow(1 - static_cast<double>(top_k) / e, static_cast<double>(tokens)));
}

double experts_touched(const TransformerConfig& cfg, const LayerRun& run) {
    if (!cfg.moe)
        return 0;
    if (run.ep > 1)
        return expert_parallel(cfg, run).touched_per_rank;
    if (run.experts_touched != 0)
        return static_cast<double>(run.experts_touched);
    return expected_experts_touched(cfg.moe->experts, cfg.moe->top_k, run.tokens());
}

std::uint64_t kv_heads_per_rank(const TransformerConfig& cfg, std::uint64_t tp) {
    return tp >= cfg.kv_heads ? 1 : cfg.kv_heads / tp;
}

std::uint64_t kv_elems_per_token(const TransformerConfig& cfg, std::uint64_t tp) {
    if (cfg.mla)
        return cfg.mla->kv_lora_rank + cfg.mla->qk_rope_head_dim;
    return 2 * kv_heads_per_rank(cfg, tp) * head_dim(cfg);
}

bool kept_part(const TransformerConfig& cfg, WeightPart part) {
    switch (part) {
        case WeightPart::attention:
            return cfg.kept.attention;
        case WeightPart::dense_mlp:
            return cfg.kept.dense_mlp;
        case WeightPart::shared_experts:
            return cfg.kept.shared_experts;
    }
    return false;
}

bool weight_quantized(const TransformerConfig& cfg, const LayerRun& run, WeightPart part) {
    return run.weight || !kept_part(cfg, part);
}

StorageFormat part_weight_format(const TransformerConfig& cfg, const LayerRun& run, WeightPart part) {
    if (weight_quantized(cfg, run, part))
        return block_weight_format(cfg, run);
    return plain_format(dtype_bits(run.dtype) == 16 ? run.dtype : cfg.kept.dtype);
}

StorageFormat block_weight_format(const TransformerConfig& cfg, const LayerRun& run) {
    if (run.weight)
        return *run.weight;
    if (cfg.weight_format)
        return *cfg.weight_format;
    return plain_format(run.dtype);
}

StorageFormat kv_cache_format(const TransformerConfig& cfg, const LayerRun& run) {
    const DType t = run.kv.value_or(run.dtype);
    if (t == run.dtype)
        return plain_format(t);
    return kv_format(t, cfg.mla ? cfg.mla->kv_lora_rank + cfg.mla->qk_rope_head_dim : head_dim(cfg));
}

Exact kv_bytes(const TransformerConfig& cfg, const LayerRun& run, Exact tokens) {
    const StorageFormat f = kv_cache_format(cfg, run);
    if (cfg.mla)  // one latent + RoPE key vector per token
        return format_bytes(f, Exact(cfg.mla->kv_lora_rank + cfg.mla->qk_rope_head_dim), tokens);
    return Exact(2) * format_bytes(f, Exact(head_dim(cfg)), tokens * Exact(kv_heads_per_rank(cfg, run.tp)));
}

bool is_local_layer(const TransformerConfig& cfg, std::uint64_t layer) {
    if (cfg.sliding_window == 0)
        return false;
    return cfg.local_layers.empty() || (layer < cfg.local_layers.size() && cfg.local_layers[layer]);
}

std::uint64_t layer_context(const TransformerConfig& cfg, std::uint64_t layer, std::uint64_t context) {
    return is_local_layer(cfg, layer) ? std::min(context, cfg.sliding_window) : context;
}

RankWeights rank_weights(const TransformerConfig& cfg, const LayerRun& run) {
    if (cfg.dit)
        return dit_rank_weights(cfg, run);
    // Each matrix [K, N] on one rank (column-parallel: N/tp; row-parallel: K/tp), in the block weight
    // format; everything else (embedding and LM head vocab-parallel, q/k/v and MLP gate/up biases column-parallel,
    // norms, router, o and down biases, q/k norms replicated) in the activation dtype. Routed experts under ep > 1: E/ep whole
    // experts (not split by tp).
    const StorageFormat w = block_weight_format(cfg, run);
    const Exact d(cfg.hidden), hd(head_dim(cfg));
    const Exact h(cfg.heads / run.tp), kv(kv_heads_per_rank(cfg, run.tp));
    auto act = [&](Exact elems) { return storage_bytes(run.dtype, elems); };
    // Attention's matrices in the block format, or in its 16-bit dtype where the checkpoint keeps attention.
    const StorageFormat attn_format = part_weight_format(cfg, run, WeightPart::attention);
    auto mat = [&](Exact k, Exact n) { return format_bytes(attn_format, k, n); };
    // A row-parallel matrix: K/tp of the stored K on this rank (o_proj).
    auto row_mat = [&](Exact k, Exact n) { return format_bytes(attn_format, k, n, Exact(run.tp)); };
    const ParamCount p = param_count(cfg);
    Exact attn_mats, attn_mat_params;
    if (cfg.mla) {
        const MlaConfig& a = *cfg.mla;
        const Exact qk(a.qk_nope_head_dim + a.qk_rope_head_dim), r(a.kv_lora_rank), lat(a.kv_lora_rank + a.qk_rope_head_dim);
        if (a.q_lora_rank > 0) {
            attn_mats += mat(d, Exact(a.q_lora_rank)) + mat(Exact(a.q_lora_rank), h * qk);
            attn_mat_params += d * Exact(a.q_lora_rank) + Exact(a.q_lora_rank) * Exact(cfg.heads) * qk;
        } else {
            attn_mats += mat(d, h * qk);
            attn_mat_params += d * Exact(cfg.heads) * qk;
        }
        attn_mats += mat(d, lat) + mat(r, h * Exact(a.qk_nope_head_dim + a.v_head_dim)) + row_mat(h * Exact(a.v_head_dim), d);
        attn_mat_params += d * lat + r * Exact(cfg.heads) * Exact(a.qk_nope_head_dim + a.v_head_dim) +
                           Exact(cfg.heads) * Exact(a.v_head_dim) * d;
    } else {
        attn_mats = mat(d, (h + Exact(2) * kv) * hd) + row_mat(h * hd, d);
        attn_mat_params = d * Exact(cfg.heads + 2 * cfg.kv_heads) * hd + Exact(cfg.heads) * hd * d;
    }
    const bool gated = cfg.mlp == MlpKind::gated;
    // gate, up [D, F/split], down [F/split, D] in `fmt` (routed experts: always the block format w).
    auto mlp_mats = [&](std::uint64_t ffn, std::uint64_t split, const StorageFormat& fmt) {
        const Exact f(ffn / split);
        return (gated ? Exact(2) : Exact(1)) * format_bytes(fmt, d, f) + format_bytes(fmt, f, d, Exact(split));
    };
    auto mlp_params = [&](std::uint64_t ffn) { return (gated ? Exact(3) : Exact(2)) * d * Exact(ffn); };
    // The q, k, v biases are column-parallel like their matrix: each rank adds its own heads' (vLLM's
    // QKVParallelLinear, Megatron's ColumnParallelLinear shard the bias with the output columns).
    if (cfg.qkv_bias && !cfg.mla) {
        attn_mats += act((h + Exact(2) * kv) * hd);
        attn_mat_params += Exact(cfg.heads + 2 * cfg.kv_heads) * hd;
    }
    // mlp_bias: the gate and up biases are column-parallel too (vLLM's MergedColumnParallelLinear holds F/tp of each);
    // the down bias is replicated with the rest.
    const Exact mlp_col_bias = cfg.mlp_bias ? (gated ? Exact(2) : Exact(1)) * Exact(cfg.ffn) : Exact(0);
    RankWeights rw;
    // The rest of a layer (norms, the o bias, the down bias, q/k norms; a MoE layer's router) is replicated.
    rw.dense_layer = attn_mats + mlp_mats(cfg.ffn, run.tp, part_weight_format(cfg, run, WeightPart::dense_mlp)) +
                     act(mlp_col_bias / Exact(run.tp)) + act(p.per_layer - attn_mat_params - mlp_params(cfg.ffn) - mlp_col_bias);
    if (cfg.moe) {
        const MoeConfig& m = *cfg.moe;
        rw.routed = run.ep > 1 ? Exact(m.experts / run.ep) * mlp_mats(m.expert_ffn, 1, w)
                               : Exact(m.experts) * mlp_mats(m.expert_ffn, run.tp, w);
        Exact moe_mat_params = Exact(m.experts) * mlp_params(m.expert_ffn);
        Exact shared;
        if (m.shared_experts > 0) {
            shared = mlp_mats(m.shared_experts * m.expert_ffn, run.tp, part_weight_format(cfg, run, WeightPart::shared_experts));
            moe_mat_params += mlp_params(m.shared_experts * m.expert_ffn);
        }
        rw.moe_layer = attn_mats + rw.routed + shared + act(p.moe_per_layer - attn_mat_params - moe_mat_params);
    }
    // Embedding and LM head split by vocab over tp (Megatron's vocab-parallel tables).
    rw.embedding = act(p.embedding / Exact(run.tp));
    rw.lm_head = act(Exact(cfg.vocab) * d / Exact(run.tp));
    rw.final_norm = act(p.final_norm);
    return rw;
}

Exact weight_bytes_per_rank(const TransformerConfig& cfg, const LayerRun& run) {
    if (cfg.dit)
        return dit_weight_bytes_per_rank(cfg, run);
    const RankWeights w = rank_weights(cfg, run);
    return Exact(dense_layer_count(cfg)) * w.dense_layer + Exact(moe_layer_count(cfg)) * w.moe_layer + w.embedding +
           (cfg.tied_embeddings ? Exact(0) : w.lm_head) + w.final_norm;
}

std::vector<LayerOp> model_edge_ops(const TransformerConfig& cfg, const LayerRun& run) {
    if (cfg.dit)
        return dit_edge_ops(cfg, run);
    if (cfg.vocab == 0)
        throw InputError("--vocab", "must be a positive integer (the model's embedding and LM head need it)");
    validate(cfg, run);
    Builder b{cfg, run, {}};
    const std::uint64_t t = run.tokens();
    const bool training = run.phase == Phase::training;

    // Embedding lookup: each token's row read once, the [T, D] activation written once (vocab-parallel
    // under TP: each rank writes its partial rows, then an all-reduce, Megatron's VocabParallelEmbedding).
    ElementwiseDesc e;
    e.shape = {t, cfg.hidden};
    e.dtype = run.dtype;
    e.flops_per_elem = 0;
    ElementwiseDesc eb = e;  // backward: scatter-add dY into the table's rows
    eb.flops_per_elem = 1;
    b.add_passes("embedding", OpPart::embedding,
                 fmt::format("gather [{}, {}] from [{}, {}]", t, cfg.hidden, cfg.vocab, cfg.hidden), elementwise_cost(e),
                 elementwise_cost(eb));
    if (run.tp > 1)
        b.collective(run.sequence_parallel ? CollectiveKind::reducescatter : CollectiveKind::allreduce, "embedding", "fwd", t,
                     cfg.hidden);
    b.norm("final_norm", OpPart::norm, b.outer_rows());
    // Inference needs logits for the last position of each sequence only; training for every token.
    const std::uint64_t rows = training ? t : run.batch;
    if (run.tp > 1 && run.sequence_parallel)
        b.collective(CollectiveKind::allgather, "head_in", "fwd", rows, cfg.hidden);
    b.gemm("lm_head", OpPart::head, rows, cfg.hidden, cfg.vocab / run.tp, std::nullopt);
    if (training) {
        if (run.tp > 1)
            b.collective(run.sequence_parallel ? CollectiveKind::reducescatter : CollectiveKind::allreduce, "head_in grad", "bwd",
                         t, cfg.hidden);
        // Cross-entropy over the (vocab-parallel) logits: softmax forward, backward p − onehot.
        NormDesc s;
        s.kind = NormKind::softmax;
        s.shape = {t, cfg.vocab / run.tp};
        s.dtype = run.dtype;
        ElementwiseDesc sb;
        sb.shape = s.shape;
        sb.dtype = run.dtype;
        sb.flops_per_elem = 1;
        b.add_passes("cross_entropy", OpPart::head, fmt::format("softmax [{}, {}]", t, cfg.vocab / run.tp), norm_cost(s),
                     elementwise_cost(sb));
    } else if (run.tp > 1) {
        b.collective(CollectiveKind::allgather, "logits", "fwd", rows, cfg.vocab);
    }
    return std::move(b.ops);
}

ParamCount param_count(const TransformerConfig& cfg) {
    if (cfg.dit)
        return dit_param_count(cfg);
    ParamCount p;
    const Exact d(cfg.hidden), hd(head_dim(cfg)), h(cfg.heads), kv(cfg.kv_heads), f(cfg.ffn), v(cfg.vocab);
    const Exact norm_params = cfg.norm == NormKind::layernorm ? Exact(2) : Exact(1);
    const Exact mlp_mats = cfg.mlp == MlpKind::gated ? Exact(3) : Exact(2);
    p.embedding = v * d;
    if (cfg.mla) {
        // q_a (+ its norm) and q_b, or q directly; kv_a (latent + shared RoPE key) and its norm; kv_b
        // (W_UK and W_UV); out.
        const MlaConfig& a = *cfg.mla;
        const Exact qk(a.qk_nope_head_dim + a.qk_rope_head_dim), r(a.kv_lora_rank);
        const Exact q =
            a.q_lora_rank > 0 ? d * Exact(a.q_lora_rank) + Exact(a.q_lora_rank) + Exact(a.q_lora_rank) * h * qk : d * h * qk;
        p.attention = q + d * (r + Exact(a.qk_rope_head_dim)) + r + r * h * Exact(a.qk_nope_head_dim + a.v_head_dim) +
                      h * Exact(a.v_head_dim) * d;
    } else {
        p.attention = d * (h + Exact(2) * kv) * hd + h * hd * d;
        if (cfg.qkv_bias)
            p.attention += (h + Exact(2) * kv) * hd;
        if (cfg.o_bias)
            p.attention += d;
        if (cfg.qk_norm)
            p.attention += Exact(2) * hd;
    }
    p.mlp = mlp_mats * d * f;
    if (cfg.mlp_bias)  // gate and up: ffn each (gated), down: D
        p.mlp += (mlp_mats - Exact(1)) * f + d;
    p.norms = Exact(cfg.block_norms) * norm_params * d;
    p.per_layer = p.attention + p.mlp + p.norms;
    p.final_norm = norm_params * d;
    p.lm_head = cfg.tied_embeddings ? Exact(0) : v * d;
    p.dense_layers = dense_layer_count(cfg);
    p.moe_layers = moe_layer_count(cfg);
    const Exact edges = p.embedding + p.final_norm + p.lm_head;
    if (!cfg.moe) {
        p.total = edges + Exact(cfg.layers) * p.per_layer;
        p.active = p.total;
        return p;
    }
    const MoeConfig& m = *cfg.moe;
    const Exact e(m.experts);
    p.router = e * d + (m.router_bias ? e : Exact(0));
    p.expert = mlp_mats * d * Exact(m.expert_ffn);
    p.shared = mlp_mats * d * Exact(m.shared_experts) * Exact(m.expert_ffn);
    p.moe_mlp = p.router + e * p.expert + p.shared;
    p.moe_per_layer = p.attention + p.moe_mlp + p.norms;
    p.total = edges + Exact(p.dense_layers) * p.per_layer + Exact(p.moe_layers) * p.moe_per_layer;
    p.active = p.total - Exact(p.moe_layers) * Exact(m.experts - m.top_k) * p.expert;
    return p;
}

LayerMemory layer_memory(const TransformerConfig& cfg, const LayerRun& run, bool dense_mlp) {
    if (cfg.dit)
        return dit_layer_memory(cfg, run);
    validate(cfg, run);
    LayerMemory m;
    const Exact t(run.tokens()), d(cfg.hidden), hd(head_dim(cfg)), hq(cfg.heads / run.tp), hkv(kv_heads_per_rank(cfg, run.tp)),
        f(cfg.ffn / run.tp);
    const Exact outer(run.sequence_parallel ? run.tokens() / run.tp : run.tokens());
    auto bytes = [&](Exact elems) { return storage_bytes(run.dtype, elems); };
    if (run.phase != Phase::training)
        m.kv_cache =
            kv_bytes(cfg, run, Exact(run.batch) * Exact(run.window != 0 ? std::min(run.context, run.window) : run.context));
    if (run.attention == AttentionImpl::naive)
        m.attention_scores = bytes(Exact(run.batch) * hq * Exact(run.q_len()) * Exact(run.context));
    // Kept for the backward: x, attn_norm(x), x2 and mlp_norm(x2) (outer rows); Q, K, V; the attention
    // output O; the gate/up output; the activation output; (naive) the probabilities.
    const Exact gate = cfg.mlp == MlpKind::gated ? Exact(2) : Exact(1);
    Exact attn = t * (hq + Exact(2) * hkv) * hd + t * hq * hd;
    if (cfg.mla)  // Q, the latent and RoPE key, the latent attention output
        attn = t * hq * Exact(cfg.mla->qk_nope_head_dim + cfg.mla->qk_rope_head_dim) +
               t * Exact(cfg.mla->kv_lora_rank + cfg.mla->qk_rope_head_dim) + t * hq * Exact(cfg.mla->kv_lora_rank);
    Exact mlp = t * gate * f + t * f;
    if (cfg.moe && !dense_mlp) {  // router logits; per routed row: input, gate/up, activation, expert output; the shared experts
        const MoeConfig& e = *cfg.moe;
        // Under ep > 1 each rank dispatches tokens/tp (rounded up) and receives as many · k rows on average,
        // of whole experts (docs/formulas.md, "Expert parallelism").
        const Exact rows = run.ep > 1 ? Exact((run.tokens() + run.tp - 1) / run.tp) * Exact(e.top_k) : t * Exact(e.top_k);
        const Exact fe(run.ep > 1 ? e.expert_ffn : e.expert_ffn / run.tp), fs(e.shared_experts * e.expert_ffn / run.tp);
        mlp = t * Exact(e.experts) + rows * (d + gate * fe + fe + d) + t * (gate * fs + fs);
    }
    m.activations = bytes(Exact(4) * outer * d + attn + mlp) + m.attention_scores;
    m.activations_checkpointed = bytes(outer * d);
    return m;
}

}  // namespace bwacct
