// A transformer block as a list of named ops, each costed by the engine's op models; Megatron-style
// tensor parallelism (column-parallel QKV and gate/up, row-parallel output and down projections,
// two all-reduces per layer forward, or reduce-scatter + all-gather with sequence parallelism).
// Formulas and choices: docs/formulas.md ("Transformer layers and models").
#include <fmt/format.h>

#include <array>

#include "bwacct/choice.h"
#include "bwacct/error.h"
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

    void gemm(const std::string& name, OpPart part, std::uint64_t m, std::uint64_t k, std::uint64_t n) {
        GemmDesc d;
        d.m = m, d.k = k, d.n = n;
        d.a = d.b = d.c = run.dtype;
        const std::string detail = fmt::format("[{}, {}] × [{}, {}]", m, k, k, n);
        if (!training()) {
            add(name, part, detail, gemm_cost(d));
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

    void activation() {
        const std::uint64_t f = cfg.ffn / run.tp;
        ElementwiseDesc d;
        d.shape = {run.tokens(), f};
        d.dtype = run.dtype;
        ElementwiseDesc b = d;
        if (cfg.mlp == MlpKind::gated) {
            d.inputs = 2, d.outputs = 1, d.flops_per_elem = kSiluMulFlops;
            b.inputs = 3, b.outputs = 2, b.flops_per_elem = 2 * kSiluMulFlops;  // read g, u, dy; write dg, du
        } else {
            d.inputs = 1, d.outputs = 1, d.flops_per_elem = kGeluFlops;
            b.inputs = 2, b.outputs = 1, b.flops_per_elem = 2 * kGeluFlops;  // read x, dy; write dx
        }
        add_passes(cfg.mlp == MlpKind::gated ? "silu_mul" : "gelu", OpPart::mlp,
                   fmt::format("{} [{}, {}]", cfg.mlp == MlpKind::gated ? "silu(gate)·up" : "gelu(up)", run.tokens(), f),
                   elementwise_cost(d), elementwise_cost(b));
    }

    void attention() {
        AttentionDesc d;
        d.batch = run.batch;
        d.heads = cfg.heads / run.tp;
        d.kv_heads = cfg.kv_heads / run.tp;
        d.q_len = run.q_len();
        d.kv_len = run.context;
        d.head_dim = head_dim(cfg);
        d.causal = run.phase != Phase::decode;
        d.impl = run.attention;
        d.dtype = run.dtype;
        const Cost fwd = attention_cost(d);
        std::optional<Cost> bwd;
        if (training()) {
            // FlashAttention-2 backward: 5 matmuls against the forward's 2 → 2.5× the FLOPs; reads
            // Q, K, V, O and dO, writes dQ, dK, dV. Naive adds the forward's S/P traffic once more.
            AttentionDesc flash = d;
            flash.impl = AttentionImpl::flash;
            const Cost f = attention_cost(flash);
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
        add_passes("attention", OpPart::attention,
                   fmt::format("{} B={} H={} KV={} q={} kv={} d={}{}", run.attention == AttentionImpl::flash ? "flash" : "naive",
                               d.batch, d.heads, d.kv_heads, d.q_len, d.kv_len, d.head_dim, d.causal ? " causal" : ""),
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

void validate(const TransformerConfig& cfg, const LayerRun& run) {
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
    if (cfg.heads % run.tp != 0 || cfg.kv_heads % run.tp != 0)
        throw InputError("--tp",
                         fmt::format("must divide --heads and --kv-heads ({} and {}; tp {})", cfg.heads, cfg.kv_heads, run.tp));
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
}

std::vector<LayerOp> transformer_layer_ops(const TransformerConfig& cfg, const LayerRun& run) {
    validate(cfg, run);
    Builder b{cfg, run, {}};
    const std::uint64_t t = run.tokens(), hd = head_dim(cfg), hq = cfg.heads / run.tp, hkv = cfg.kv_heads / run.tp;
    const std::uint64_t f = cfg.ffn / run.tp;

    b.norm("attn_norm", OpPart::norm, b.outer_rows());
    b.gather_in("attn_in");
    // The QKV output holds this step's K and V: in decode and prefill that write is the KV-cache
    // write (the epilogue stores into the cache), counted here and nowhere else.
    b.gemm("qkv_proj", OpPart::attention, t, cfg.hidden, (hq + 2 * hkv) * hd);
    b.attention();
    b.gemm("out_proj", OpPart::attention, t, hq * hd, cfg.hidden);
    b.reduce_out("attn_out");
    b.residual("attn_residual");
    b.norm("mlp_norm", OpPart::norm, b.outer_rows());
    b.gather_in("mlp_in");
    b.gemm(cfg.mlp == MlpKind::gated ? "gate_up_proj" : "up_proj", OpPart::mlp, t, cfg.hidden,
           cfg.mlp == MlpKind::gated ? 2 * f : f);
    b.activation();
    b.gemm("down_proj", OpPart::mlp, t, f, cfg.hidden);
    b.reduce_out("mlp_out");
    b.residual("mlp_residual");
    return std::move(b.ops);
}

std::vector<LayerOp> model_edge_ops(const TransformerConfig& cfg, const LayerRun& run) {
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
    b.gemm("lm_head", OpPart::head, rows, cfg.hidden, cfg.vocab / run.tp);
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
    ParamCount p;
    const Exact d(cfg.hidden), hd(head_dim(cfg)), h(cfg.heads), kv(cfg.kv_heads), f(cfg.ffn), v(cfg.vocab);
    const Exact norm_params = cfg.norm == NormKind::layernorm ? Exact(2) : Exact(1);
    p.embedding = v * d;
    p.attention = d * (h + Exact(2) * kv) * hd + h * hd * d;
    p.mlp = (cfg.mlp == MlpKind::gated ? Exact(3) : Exact(2)) * d * f;
    p.norms = Exact(2) * norm_params * d;
    p.per_layer = p.attention + p.mlp + p.norms;
    p.final_norm = norm_params * d;
    p.lm_head = cfg.tied_embeddings ? Exact(0) : v * d;
    p.total = p.embedding + Exact(cfg.layers) * p.per_layer + p.final_norm + p.lm_head;
    return p;
}

LayerMemory layer_memory(const TransformerConfig& cfg, const LayerRun& run) {
    validate(cfg, run);
    LayerMemory m;
    const Exact t(run.tokens()), d(cfg.hidden), hd(head_dim(cfg)), hq(cfg.heads / run.tp), hkv(cfg.kv_heads / run.tp),
        f(cfg.ffn / run.tp);
    const Exact outer(run.sequence_parallel ? run.tokens() / run.tp : run.tokens());
    auto bytes = [&](Exact elems) { return storage_bytes(run.dtype, elems); };
    if (run.phase != Phase::training)
        m.kv_cache = bytes(Exact(2) * Exact(run.batch) * Exact(run.context) * hkv * hd);
    if (run.attention == AttentionImpl::naive)
        m.attention_scores = bytes(Exact(run.batch) * hq * Exact(run.q_len()) * Exact(run.context));
    // Kept for the backward: x, attn_norm(x), x2 and mlp_norm(x2) (outer rows); Q, K, V; the attention
    // output O; the gate/up output; the activation output; (naive) the probabilities.
    const Exact mlp_in = cfg.mlp == MlpKind::gated ? Exact(2) * f : f;
    m.activations =
        bytes(Exact(4) * outer * d + t * (hq + Exact(2) * hkv) * hd + t * hq * hd + t * mlp_in + t * f) + m.attention_scores;
    m.activations_checkpointed = bytes(outer * d);
    return m;
}

}  // namespace bwacct
