// Video diffusion transformer (Wan2.1's WanModel, wan/modules/model.py) as ops. A block, per the
// reference forward:
//   e = modulation + e_t                                  (6 rows of D: shift/scale/gate × 2)
//   x = x + self_attn(norm1(x)·(1 + scale1) + shift1) · gate1
//   x = x + cross_attn(norm3(x), text)
//   x = x + ffn(norm2(x)·(1 + scale2) + shift2) · gate2
// with q/k RMSNorm over the whole hidden size, RoPE on q and k, full (non-causal) attention, and a
// GELU (tanh) MLP. Megatron tensor parallelism: q/k/v and the MLP's first linear column-parallel,
// o and the MLP's second linear row-parallel, one all-reduce of [tokens, hidden] after each of the
// three row-parallel projections. Formulas and choices: docs/formulas.md ("Video diffusion
// transformers (DiT)").
#include "bwacct/dit.h"

#include <fmt/format.h>

#include "bwacct/dtype.h"
#include "bwacct/error.h"
#include "term.h"

namespace bwacct {
namespace {

using u64 = std::uint64_t;

// Per-element FLOPs (docs/formulas.md, "Video diffusion transformers"): GELU tanh form 9 (as the
// decoder MLP); SiLU x/(1 + exp(−x)) 4 (negate, exp, add, divide); modulate x̂·(1 + s) + b 2 (the
// 1 + s is on the [B, D] row); gated residual x + y·g 2; RoPE 3 (a complex multiply, 6 FLOPs, per
// pair of elements).
constexpr u64 kGeluFlops = 9;
// GELU erf form 0.5·x·(1 + erf(x/√2)), counted as the tanh form is: ·(1/√2), erf, + 1, ·x, ·0.5 = 5.
constexpr u64 kGeluErfFlops = 5;
constexpr u64 kSiluFlops = 4;
constexpr u64 kModulateFlops = 2;
constexpr u64 kGateFlops = 2;
constexpr u64 kRopeFlops = 3;

struct DitBuilder {
    const TransformerConfig& cfg;
    const LayerRun& run;
    std::vector<LayerOp> ops;

    Exact bytes(Exact elems) const { return storage_bytes(run.dtype, elems); }
    // E: the rows of the timestep embedding, once per sample (B), or per token (T) when the model embeds the
    // timestep per token (Wan2.2).
    u64 e_rows() const { return cfg.dit && cfg.dit->timestep_per_token ? run.tokens() : run.batch; }

    void add(std::string name, OpPart part, std::string detail, Cost c) {
        c.op = name;
        ops.push_back(LayerOp{std::move(name), part, std::move(detail), std::move(c)});
    }

    void gemm(const std::string& name, OpPart part, u64 m, u64 k, u64 n) {
        GemmDesc d;
        d.m = m, d.k = k, d.n = n;
        d.a = d.b = d.c = run.dtype;
        add(name, part, fmt::format("[{}, {}] × [{}, {}]", m, k, k, n), gemm_cost(d));
    }

    void norm(const std::string& name, NormKind kind, u64 rows, u64 cols) {
        NormDesc d;
        d.kind = kind;
        d.shape = {rows, cols};
        d.dtype = run.dtype;
        add(name, OpPart::norm, fmt::format("{} [{}, {}]", norm_name(kind), rows, cols), norm_cost(d));
    }

    void elementwise(const std::string& name, OpPart part, const std::string& what, u64 rows, u64 cols, u64 inputs,
                     u64 flops_per_elem) {
        ElementwiseDesc d;
        d.shape = {rows, cols};
        d.dtype = run.dtype;
        d.inputs = inputs;
        d.outputs = 1;
        d.flops_per_elem = flops_per_elem;
        add(name, part, fmt::format("{} [{}, {}]", what, rows, cols), elementwise_cost(d));
    }

    // A copy of [rows, cols] (torch.cat / torch.stack): read once, written once, no FLOPs.
    void copy(const std::string& name, u64 rows, u64 cols, u64 launches = 1) {
        const Exact n = Exact(rows) * Exact(cols);
        Cost c;
        c.unit = Unit::vector;
        c.compute_dtype = run.dtype;
        c.bytes_read = bytes(n).value();
        c.bytes_written = bytes(n).value();
        c.launches = launches;
        c.terms.push_back(detail::term("bytes", "2·b·rows·cols", fmt::format("2·b·{}·{}", rows, cols), Exact(c.bytes())));
        add(name, OpPart::embedding, fmt::format("copy [{}, {}]", rows, cols), c);
    }

    // x + p over [rows, cols] with a parameter p of [param_rows, cols] broadcast over the batch: 1 FLOP per element.
    void broadcast_add(const std::string& name, u64 rows, u64 cols, u64 param_rows) {
        const Exact n = Exact(rows) * Exact(cols), p = Exact(param_rows) * Exact(cols);
        Cost c;
        c.unit = Unit::vector;
        c.compute_dtype = run.dtype;
        c.flops = n.value();
        c.bytes_read = bytes(n + p).value();
        c.bytes_written = bytes(n).value();
        c.terms.push_back(detail::term("bytes", "b·(2·rows·cols + param_rows·cols)",
                                       fmt::format("b·(2·{}·{} + {}·{})", rows, cols, param_rows, cols), Exact(c.bytes())));
        add(name, OpPart::embedding, fmt::format("[{}, {}] + [{}, {}]", rows, cols, param_rows, cols), c);
    }

    // An elementwise op over [T, D] that also reads `row_vectors` rows of [B, D] (shift, scale, gate).
    void modulated(const std::string& name, OpPart part, const std::string& what, u64 big_inputs, u64 row_vectors,
                   u64 flops_per_elem) {
        const Exact td = Exact(run.tokens()) * Exact(cfg.hidden), bd = Exact(e_rows()) * Exact(cfg.hidden);
        Cost c;
        c.unit = Unit::vector;
        c.compute_dtype = run.dtype;
        c.flops = (Exact(flops_per_elem) * td).value();
        c.bytes_read = bytes(Exact(big_inputs) * td + Exact(row_vectors) * bd).value();
        c.bytes_written = bytes(td).value();
        c.launches = 1;
        c.terms.push_back(detail::term("flops", "per element · T·D",
                                       fmt::format("{}·{}·{}", flops_per_elem, run.tokens(), cfg.hidden), Exact(c.flops)));
        c.terms.push_back(detail::term(
            "bytes read", "b·(inputs·T·D + rows·E·D)",
            fmt::format("b·({}·{}·{} + {}·{}·{})", big_inputs, run.tokens(), cfg.hidden, row_vectors, e_rows(), cfg.hidden),
            Exact(c.bytes_read)));
        c.terms.push_back(
            detail::term("bytes written", "b·T·D", fmt::format("b·{}·{}", run.tokens(), cfg.hidden), Exact(c.bytes_written)));
        add(name, part,
            fmt::format("{} [{}, {}] with {} [{}, {}] rows", what, run.tokens(), cfg.hidden, row_vectors, e_rows(), cfg.hidden),
            c);
    }

    // e = modulation + e_t over [E, rows·D]: the parameter (rows·D) and the timestep rows read, one write.
    void modulation(const std::string& name, u64 rows) {
        const Exact n = Exact(rows) * Exact(cfg.hidden), bn = Exact(e_rows()) * n;
        Cost c;
        c.unit = Unit::vector;
        c.compute_dtype = run.dtype;
        c.flops = bn.value();
        c.bytes_read = bytes(n + bn).value();
        c.bytes_written = bytes(bn).value();
        c.launches = 1;
        c.terms.push_back(detail::term("bytes", "b·(rows·D + 2·E·rows·D)", fmt::format("b·({} + 2·{})", n.value(), bn.value()),
                                       Exact(c.bytes())));
        add(name, OpPart::norm,
            fmt::format("modulation [{}, {}] + e_t [{}, {}, {}]", rows, cfg.hidden, e_rows(), rows, cfg.hidden), c);
    }

    void collective(CollectiveKind kind, const std::string& what, u64 rows, u64 cols, DType dtype) {
        CollectiveDesc d;
        d.kind = kind;
        d.size_bytes = storage_bytes(dtype, Exact(rows) * Exact(cols)).value();
        d.ranks = run.tp;
        d.dtype = dtype;
        add(fmt::format("{} {} (fwd)", collective_name(kind), what), OpPart::tp_comm,
            fmt::format("[{}, {}] {} = {} B over {} ranks", rows, cols, dtype_name(dtype), d.size_bytes, run.tp),
            collective_cost(d));
    }

    // The Megatron `g` after a row-parallel projection: one all-reduce of [T, D].
    void reduce_out(const std::string& what) {
        if (run.tp > 1)
            collective(CollectiveKind::allreduce, what, run.tokens(), cfg.hidden, run.dtype);
    }

    // RMSNorm over the whole hidden size of q and k, sharded by head: each rank holds D/tp columns, so
    // the sum of squares of each row is all-reduced (fp32, one value per row) before scaling.
    void qk_norm(const std::string& name, u64 rows, u64 cols) {
        norm(name, NormKind::rmsnorm, rows, cols);
        if (run.tp > 1)
            collective(CollectiveKind::allreduce, name + " Σx² per row", rows, 1, DType::fp32);
    }

    void attention(const std::string& name, u64 kv_len) {
        AttentionDesc d;
        d.batch = run.batch;
        d.heads = d.kv_heads = cfg.heads / run.tp;
        d.q_len = run.q_len();
        d.kv_len = kv_len;
        d.head_dim = head_dim(cfg);
        d.causal = false;
        d.impl = run.attention;
        d.dtype = run.dtype;
        add(name, OpPart::attention,
            fmt::format("{} B={} H={} q={} kv={} d={} bidirectional", run.attention == AttentionImpl::flash ? "flash" : "naive",
                        d.batch, d.heads, d.q_len, d.kv_len, d.head_dim),
            attention_cost(d));
    }
};

}  // namespace

std::uint64_t dit_text_tokens(const TransformerConfig& cfg, const LayerRun& run) {
    return run.dit.text_tokens != 0 ? run.dit.text_tokens : (cfg.dit ? cfg.dit->text_len : 0);
}

std::uint64_t dit_forwards_per_step(const LayerRun& run) { return run.dit.cfg ? 2 : 1; }

void validate_dit(const TransformerConfig& cfg, const LayerRun& run) {
    const std::pair<u64, const char*> positive[] = {
        {cfg.hidden, "--hidden"}, {cfg.heads, "--heads"}, {cfg.ffn, "--ffn"}, {run.batch, "--batch"}, {run.tp, "--tp"}};
    for (const auto& [v, opt] : positive)
        if (v == 0)
            throw InputError(opt, "must be a positive integer");
    if (run.phase != Phase::prefill)
        throw InputError("--phase",
                         "a diffusion transformer runs whole forwards over the video tokens: use prefill (the default)");
    if (cfg.hidden % cfg.heads != 0 || (cfg.head_dim != 0 && cfg.head_dim != cfg.hidden / cfg.heads))
        throw InputError("--heads",
                         fmt::format("must divide --hidden ({} % {}) with head_dim = hidden / heads", cfg.hidden, cfg.heads));
    if (cfg.kv_heads != 0 && cfg.kv_heads != cfg.heads)
        throw InputError("--kv-heads", "a diffusion transformer has one K and V head per query head (kv-heads = heads)");
    if (cfg.heads % run.tp != 0 || cfg.ffn % run.tp != 0)
        throw InputError("--tp",
                         fmt::format("must divide the heads ({}) and the MLP size ({}); got {}", cfg.heads, cfg.ffn, run.tp));
    if (run.seq == 0)
        throw InputError("--tokens",
                         "a diffusion transformer needs the video tokens per sequence (--tokens, or --seq with --batch)");
    if (run.context < run.seq)
        throw InputError("--context", fmt::format("must be at least the video tokens ({} < {}): the keys include the queries",
                                                  run.context, run.seq));
    if (run.sequence_parallel)
        throw InputError("--sequence-parallel", "is not modelled for diffusion transformers; leave it out");
    if (run.recompute)
        throw InputError("--recompute", "applies to --phase training only");
    if (run.ep > 1)
        throw InputError("--ep", "applies to mixture-of-experts models only (a diffusion transformer has no experts)");
    if (dit_text_tokens(cfg, run) == 0)
        throw InputError("--text-tokens", "must be a positive integer (the text tokens of the cross-attention)");
    if (cfg.dit && cfg.dit->vace_blocks != 0 && run.pp > 1)
        throw InputError("--pp", "is not modelled for a VACE model (its context blocks feed hints to blocks on every stage)");
    if (run.dit.steps == 0)
        throw InputError("--steps", "must be a positive integer (denoising steps per chunk)");
    (void)(Exact(run.batch) * Exact(run.seq) * Exact(cfg.ffn));  // throws OverflowError when the sizes overflow
}

std::uint64_t dit_block_count(const TransformerConfig& cfg, DitBlock kind) {
    const u64 vace = cfg.dit ? cfg.dit->vace_blocks : 0;
    return kind == DitBlock::main ? cfg.layers - vace : vace;
}

std::vector<LayerOp> dit_block_ops(const TransformerConfig& cfg, const LayerRun& run, DitBlock kind) {
    validate_dit(cfg, run);
    DitBuilder b{cfg, run, {}};
    const DitConfig dc = cfg.dit.value_or(DitConfig{});
    const u64 t = run.tokens(), d = cfg.hidden, dl = cfg.hidden / run.tp, f = cfg.ffn / run.tp;
    const u64 text_rows = (Exact(run.batch) * Exact(dit_text_tokens(cfg, run))).value();
    const u64 image_rows = (Exact(run.batch) * Exact(dc.image_tokens)).value();

    b.modulation("modulation", 6);
    // Self-attention branch.
    b.norm("norm1", NormKind::layernorm, t, d);
    b.modulated("modulate1", OpPart::norm, "x̂·(1 + scale) + shift", 1, 2, kModulateFlops);
    b.gemm("qkv_proj", OpPart::attention, t, d, 3 * dl);
    b.qk_norm("qk_norm", 2 * t, dl);
    b.elementwise("rope", OpPart::attention, "rotary q, k", 2 * t, dl, 1, kRopeFlops);
    b.attention("self_attention", run.context);
    b.gemm("out_proj", OpPart::attention, t, dl, d);
    b.reduce_out("self_attn_out");
    b.modulated("gate_residual1", OpPart::residual, "x + y·gate", 2, 1, kGateFlops);
    // Cross-attention to the text: q from the video tokens, k and v from the text embedding.
    if (cfg.dit && cfg.dit->cross_attn_norm)
        b.norm("norm3", NormKind::layernorm, t, d);
    b.gemm("cross_q_proj", OpPart::attention, t, d, dl);
    b.gemm("cross_kv_proj", OpPart::attention, text_rows, d, 2 * dl);
    b.qk_norm("cross_qk_norm", t + text_rows, dl);
    // Image cross-attention (Wan2.1 i2v, flf2v: WanI2VCrossAttention): the same q over the CLIP tokens' keys and
    // values (k_img, v_img; k_img RMSNorm), the two attention outputs added before o.
    if (image_rows != 0) {
        b.gemm("cross_kv_img_proj", OpPart::attention, image_rows, d, 2 * dl);
        b.qk_norm("cross_k_img_norm", image_rows, dl);
        b.attention("image_attention", dc.image_tokens);
    }
    b.attention("cross_attention", dit_text_tokens(cfg, run));
    if (image_rows != 0)
        b.elementwise("cross_img_add", OpPart::attention, "x + img_x", t, dl, 2, 1);
    b.gemm("cross_out_proj", OpPart::attention, t, dl, d);
    b.reduce_out("cross_attn_out");
    b.elementwise("cross_residual", OpPart::residual, "x + branch", t, d, 2, 1);
    // MLP branch.
    b.norm("norm2", NormKind::layernorm, t, d);
    b.modulated("modulate2", OpPart::norm, "x̂·(1 + scale) + shift", 1, 2, kModulateFlops);
    b.gemm("ffn_up", OpPart::mlp, t, d, f);
    b.elementwise("gelu", OpPart::mlp, "gelu_tanh(up)", t, f, 1, kGeluFlops);
    b.gemm("ffn_down", OpPart::mlp, t, f, d);
    b.reduce_out("mlp_out");
    b.modulated("gate_residual2", OpPart::residual, "x + y·gate", 2, 1, kGateFlops);
    // VACE: a context block's after_proj (its hint; [T, D] replicated on every TP rank, as the block's output is),
    // or a main block's x + hint · context_scale (BaseWanAttentionBlock).
    if (kind == DitBlock::vace)
        b.gemm("vace_after_proj", OpPart::residual, t, d, d);
    if (kind == DitBlock::hinted)
        b.elementwise("vace_hint_add", OpPart::residual, "x + hint·scale", t, d, 2, kGateFlops);
    return std::move(b.ops);
}

std::vector<LayerOp> dit_edge_ops(const TransformerConfig& cfg, const LayerRun& run) {
    validate_dit(cfg, run);
    const DitConfig dc = cfg.dit.value_or(DitConfig{});
    DitBuilder b{cfg, run, {}};
    const u64 t = run.tokens(), d = cfg.hidden;
    const u64 text_rows = (Exact(run.batch) * Exact(dit_text_tokens(cfg, run))).value();
    const u64 patch_volume = dc.patch[0] * dc.patch[1] * dc.patch[2];

    // Patch embedding: Conv3d(in, D, kernel = stride = patch). Its windows do not overlap, so the cost
    // depends only on the output positions: the input is described as [B, C_in, seq·p_t, p_h, p_w]
    // (one window per token), which the conv op resolves to seq output positions per sequence.
    ConvDesc conv;
    conv.batch = run.batch;
    conv.in_channels = dc.in_channels;
    conv.out_channels = d;
    conv.spatial = {(Exact(run.seq) * Exact(dc.patch[0])).value(), dc.patch[1], dc.patch[2]};
    conv.kernel = {dc.patch[0], dc.patch[1], dc.patch[2]};
    conv.stride = conv.kernel;
    conv.bias = true;
    conv.input_dtype = conv.weight_dtype = conv.output_dtype = run.dtype;
    b.add("patch_embedding", OpPart::embedding,
          fmt::format("conv3d {}→{} kernel = stride = {}×{}×{} over [{}, {}, {}·{}, {}, {}] → {} tokens", dc.in_channels, d,
                      dc.patch[0], dc.patch[1], dc.patch[2], run.batch, dc.in_channels, run.seq, dc.patch[0], dc.patch[1],
                      dc.patch[2], t),
          conv_cost(conv));
    // Text embedding (Linear, GELU tanh, Linear), recomputed every forward as the reference does.
    b.gemm("text_embedding_fc1", OpPart::embedding, text_rows, dc.text_dim, d);
    b.elementwise("text_gelu", OpPart::embedding, "gelu_tanh", text_rows, d, 1, kGeluFlops);
    b.gemm("text_embedding_fc2", OpPart::embedding, text_rows, d, d);
    // Image embedding (i2v, flf2v: img_emb = MLPProj(image_dim, D)): flf2v first adds emb_pos to both images'
    // tokens; LayerNorm (γ, β), Linear(C, C), GELU (erf form), Linear(C, D), LayerNorm (γ, β); then the context
    // [B, N_img + L, D] is concatenated (a copy of both parts).
    const u64 image_rows = (Exact(run.batch) * Exact(dc.image_tokens)).value();
    if (image_rows != 0) {
        const u64 c = dc.image_dim;
        if (dc.image_pos_emb)
            b.broadcast_add("img_emb_pos", image_rows, c, dc.image_tokens);
        b.norm("img_emb_norm1", NormKind::layernorm, image_rows, c);
        b.gemm("img_emb_fc1", OpPart::embedding, image_rows, c, c);
        b.elementwise("img_emb_gelu", OpPart::embedding, "gelu (erf)", image_rows, c, 1, kGeluErfFlops);
        b.gemm("img_emb_fc2", OpPart::embedding, image_rows, c, d);
        b.norm("img_emb_norm2", NormKind::layernorm, image_rows, d);
        b.copy("context_concat", image_rows + text_rows, d);
    }
    // Timestep: sinusoid (freq_dim) → Linear, SiLU, Linear → e_t; SiLU, Linear(D, 6D) → the six rows.
    // Once per sample (Wan2.1), or per token (Wan2.2: E = T rows).
    const u64 e = b.e_rows();
    b.gemm("time_embedding_fc1", OpPart::embedding, e, dc.freq_dim, d);
    b.elementwise("time_silu", OpPart::embedding, "silu", e, d, 1, kSiluFlops);
    b.gemm("time_embedding_fc2", OpPart::embedding, e, d, d);
    b.elementwise("time_proj_silu", OpPart::embedding, "silu", e, d, 1, kSiluFlops);
    b.gemm("time_projection", OpPart::embedding, e, d, 6 * d);
    // VACE (VaceWanModel.forward_vace): vace_patch_embedding (Conv3d(vace_in_dim → D), as the patch embedding),
    // block 0's before_proj(c) + x, and (Wan's reference) the hints: each context block i (0-based) torch.stacks its
    // i earlier hints, its own and c ((i + 2) copies of [T, D]): Σ over n blocks = n(n + 3)/2 copies, read and
    // written (diffusers keeps them in a list: no copies).
    if (dc.vace_blocks != 0) {
        ConvDesc vc = conv;
        vc.in_channels = dc.vace_in_channels;
        b.add("vace_patch_embedding", OpPart::embedding,
              fmt::format("conv3d {}→{} kernel = stride = {}×{}×{} → {} tokens", dc.vace_in_channels, d, dc.patch[0], dc.patch[1],
                          dc.patch[2], t),
              conv_cost(vc));
        b.gemm("vace_before_proj", OpPart::embedding, t, d, d);
        b.elementwise("vace_before_add", OpPart::embedding, "before_proj(c) + x", t, d, 2, 1);
        const u64 n = dc.vace_blocks;
        if (dc.vace_stacked_hints)
            b.copy("vace_hint_stack", (Exact(n) * (Exact(n) + Exact(3)) / Exact(2) * Exact(t)).value(), d, n);
    }
    // Head: modulation (2 rows), LayerNorm, modulate, Linear(D, prod(patch)·out).
    b.modulation("head_modulation", 2);
    b.norm("head_norm", NormKind::layernorm, t, d);
    b.modulated("head_modulate", OpPart::head, "x̂·(1 + scale) + shift", 1, 2, kModulateFlops);
    b.gemm("head_proj", OpPart::head, t, d, patch_volume * dc.out_channels);
    return std::move(b.ops);
}

ParamCount dit_param_count(const TransformerConfig& cfg) {
    const DitConfig dc = cfg.dit.value_or(DitConfig{});
    const Exact d(cfg.hidden), f(cfg.ffn);
    const Exact patch_volume = Exact(dc.patch[0]) * Exact(dc.patch[1]) * Exact(dc.patch[2]);
    auto linear = [](Exact in, Exact out) { return in * out + out; };  // weight + bias
    ParamCount p;
    p.embedding = Exact(dc.in_channels) * patch_volume * d + d                // patch_embedding (Conv3d + bias)
                  + linear(Exact(dc.text_dim), d) + linear(d, d)              // text_embedding
                  + linear(Exact(dc.freq_dim), d) + linear(d, d)              // time_embedding
                  + linear(d, Exact(6) * d);                                  // time_projection
    const Exact one_attention = Exact(4) * linear(d, d) + Exact(2) * d;       // q, k, v, o + norm_q, norm_k
    p.attention = Exact(2) * one_attention;                                   // self + cross
    p.mlp = linear(d, f) + linear(f, d);                                      // ffn
    p.norms = (dc.cross_attn_norm ? Exact(2) * d : Exact(0)) + Exact(6) * d;  // norm3 (γ, β) + modulation
    if (dc.image_tokens != 0) {
        const Exact c(dc.image_dim);
        p.attention += Exact(2) * linear(d, d) + d;  // k_img, v_img + norm_k_img
        // img_emb: LayerNorm(C), Linear(C, C), Linear(C, D), LayerNorm(D) (+ flf2v's emb_pos [N_img, C]).
        p.embedding += Exact(2) * c + linear(c, c) + linear(c, d) + Exact(2) * d +
                       (dc.image_pos_emb ? Exact(dc.image_tokens) * c : Exact(0));
    }
    p.per_layer = p.attention + p.mlp + p.norms;
    p.final_norm = Exact(0);                                                      // the head's LayerNorm has no affine
    p.lm_head = linear(d, patch_volume * Exact(dc.out_channels)) + Exact(2) * d;  // head Linear + its modulation
    p.dense_layers = cfg.layers;
    // VACE: n context blocks (a block + after_proj each), block 0's before_proj, vace_patch_embedding.
    if (dc.vace_blocks != 0)
        p.dit_vace = Exact(dc.vace_blocks) * (p.per_layer + linear(d, d)) + linear(d, d) +
                     Exact(dc.vace_in_channels) * patch_volume * d + d;
    p.total = p.embedding + Exact(cfg.layers) * p.per_layer + p.lm_head + p.dit_vace;
    p.active = p.total;
    return p;
}

LayerMemory dit_layer_memory(const TransformerConfig& cfg, const LayerRun& run) {
    validate_dit(cfg, run);
    LayerMemory m;
    if (run.context > run.seq)  // a rolling cache of earlier chunks' keys and values
        m.kv_cache =
            storage_bytes(run.dtype, Exact(2) * Exact(run.batch) * Exact(run.context - run.seq) * Exact(cfg.hidden / run.tp));
    if (run.attention == AttentionImpl::naive)
        m.attention_scores =
            storage_bytes(run.dtype, Exact(run.batch) * Exact(cfg.heads / run.tp) * Exact(run.seq) * Exact(run.context));
    return m;
}

}  // namespace bwacct
