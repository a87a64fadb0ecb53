// Video diffusion transformer (Wan2.1's WanModel, wan/modules/model.py) as ops. A block, per the
// reference forward:
//   e = modulation + e_t                                  (6 rows of D: shift/scale/gate × 2)
//   x = x + self_attn(norm1(x)·(1 + scale1) + shift1) · gate1
//   x = x + cross_attn(norm3(x), text)
//   x = x + ffn(norm2(x)·(1 + scale2) + shift2) · gate2
// with q/k RMSNorm over the whole hidden size, RoPE on q and k, full (non-causal) attention, and a
// GELU (tanh) MLP. Megatron tensor parallelism: q/k/v and the MLP's first linear column-parallel,
// o and the MLP's second linear row-parallel, one all-reduce of [tokens, hidden] after each of the
// three row-parallel projections. Wan2.1's i2v and flf2v add an image cross-attention to the
// cross_attn (WanI2VCrossAttention); VACE adds block kinds (context blocks with after_proj, main
// blocks adding a hint). The image embedding and VACE's ops outside the blocks: dit_conditioning.cpp.
// Formulas and choices: docs/formulas.md ("Video diffusion transformers (DiT)").
#include "bwacct/dit.h"

#include <fmt/format.h>

#include "bwacct/dtype.h"
#include "bwacct/error.h"
#include "dit_builder.h"
#include "term.h"

namespace bwacct {

using namespace dit_detail;

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
    // The block's GEMMs and the rolling cache are in --dtype; a weight or KV format of their own is not modelled
    // (the weight bytes would follow it and the ops' bytes would not).
    if (run.weight && !(*run.weight == plain_format(run.dtype)))
        throw InputError("--weight-dtype",
                         "is not modelled for a diffusion transformer (its GEMMs read weights in --dtype): give --dtype");
    if (run.kv && *run.kv != run.dtype)
        throw InputError("--kv-dtype",
                         "is not modelled for a diffusion transformer (its rolling cache is held in --dtype): give --dtype");
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
    // The GEMMs' weight shapes on this rank: the weight table (dit_weights.cpp), as the rank's weight bytes.
    const DitBlockWeights w = dit_block_weights(cfg, kind);
    const u64 t = run.tokens(), d = cfg.hidden, dl = cfg.hidden / run.tp, f = w.ffn_up.n_on(run.tp);
    const u64 text_rows = (Exact(run.batch) * Exact(dit_text_tokens(cfg, run))).value();
    const u64 image_rows = (Exact(run.batch) * Exact(dc.image_tokens)).value();

    b.modulation("modulation", 6);
    // Self-attention branch.
    b.norm("norm1", NormKind::layernorm, t, d, 0);  // WanLayerNorm(elementwise_affine=False)
    b.modulated("modulate1", OpPart::norm, "x̂·(1 + scale) + shift", 1, 2, kModulateFlops);
    b.linear("qkv_proj", OpPart::attention, t, w.qkv);
    b.qk_norm("qk_norm", 2 * t, dl, 2);  // norm_q, norm_k
    b.elementwise("rope", OpPart::attention, "rotary q, k", 2 * t, dl, 1, kRopeFlops);
    b.attention("self_attention", run.context);
    b.linear("out_proj", OpPart::attention, t, w.out);
    b.reduce_out("self_attn_out");
    b.modulated("gate_residual1", OpPart::residual, "x + y·gate", 2, 1, kGateFlops);
    // Cross-attention to the text: q from the video tokens, k and v from the text embedding.
    if (cfg.dit && cfg.dit->cross_attn_norm)
        b.norm("norm3", NormKind::layernorm, t, d);
    b.linear("cross_q_proj", OpPart::attention, t, w.cross_q);
    b.linear("cross_kv_proj", OpPart::attention, text_rows, w.cross_kv);
    b.qk_norm("cross_qk_norm", t + text_rows, dl, 2);
    // Image cross-attention (Wan2.1 i2v, flf2v: WanI2VCrossAttention): the same q over the CLIP tokens' keys and
    // values (k_img, v_img; k_img RMSNorm), the two attention outputs added before o.
    if (image_rows != 0) {
        b.linear("cross_kv_img_proj", OpPart::attention, image_rows, w.cross_kv_img);
        b.qk_norm("cross_k_img_norm", image_rows, dl, 1);
        b.attention("image_attention", dc.image_tokens);
    }
    b.attention("cross_attention", dit_text_tokens(cfg, run));
    if (image_rows != 0)
        b.elementwise("cross_img_add", OpPart::attention, "x + img_x", t, dl, 2, 1);
    b.linear("cross_out_proj", OpPart::attention, t, w.cross_out);
    b.reduce_out("cross_attn_out");
    b.elementwise("cross_residual", OpPart::residual, "x + branch", t, d, 2, 1);
    // MLP branch.
    b.norm("norm2", NormKind::layernorm, t, d, 0);
    b.modulated("modulate2", OpPart::norm, "x̂·(1 + scale) + shift", 1, 2, kModulateFlops);
    b.linear("ffn_up", OpPart::mlp, t, w.ffn_up);
    b.elementwise("gelu", OpPart::mlp, "gelu_tanh(up)", t, f, 1, kGeluFlops);
    b.linear("ffn_down", OpPart::mlp, t, w.ffn_down);
    b.reduce_out("mlp_out");
    b.modulated("gate_residual2", OpPart::residual, "x + y·gate", 2, 1, kGateFlops);
    // VACE: a context block's after_proj (its hint; [T, D] replicated on every TP rank, as the block's output is),
    // or a main block's x + hint · context_scale (BaseWanAttentionBlock).
    if (kind == DitBlock::vace)
        b.linear("vace_after_proj", OpPart::residual, t, w.after_proj);
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
    image_embedding_ops(b, text_rows);  // i2v, flf2v: img_emb and the context concatenation
    // Timestep: sinusoid (freq_dim) → Linear, SiLU, Linear → e_t; SiLU, Linear(D, 6D) → the six rows.
    // Once per sample (Wan2.1), or per token (Wan2.2: E = T rows).
    const u64 e = b.e_rows();
    b.gemm("time_embedding_fc1", OpPart::embedding, e, dc.freq_dim, d);
    b.elementwise("time_silu", OpPart::embedding, "silu", e, d, 1, kSiluFlops);
    b.gemm("time_embedding_fc2", OpPart::embedding, e, d, d);
    b.elementwise("time_proj_silu", OpPart::embedding, "silu", e, d, 1, kSiluFlops);
    b.gemm("time_projection", OpPart::embedding, e, d, 6 * d);
    vace_edge_ops(b, conv);  // VACE: vace_patch_embedding, before_proj, the hint stack
    // Head: modulation (2 rows), LayerNorm, modulate, Linear(D, prod(patch)·out).
    b.modulation("head_modulation", 2);
    b.norm("head_norm", NormKind::layernorm, t, d, 0);  // Head: WanLayerNorm(dim, eps)
    b.modulated("head_modulate", OpPart::head, "x̂·(1 + scale) + shift", 1, 2, kModulateFlops);
    b.gemm("head_proj", OpPart::head, t, d, patch_volume * dc.out_channels);
    return std::move(b.ops);
}

ParamCount dit_param_count(const TransformerConfig& cfg) {
    const DitConfig dc = cfg.dit.value_or(DitConfig{});
    const Exact d(cfg.hidden);
    const Exact patch_volume = Exact(dc.patch[0]) * Exact(dc.patch[1]) * Exact(dc.patch[2]);
    auto linear = [](Exact in, Exact out) { return in * out + out; };  // weight + bias
    ParamCount p;
    p.embedding = Exact(dc.in_channels) * patch_volume * d + d    // patch_embedding (Conv3d + bias)
                  + linear(Exact(dc.text_dim), d) + linear(d, d)  // text_embedding
                  + linear(Exact(dc.freq_dim), d) + linear(d, d)  // time_embedding
                  + linear(d, Exact(6) * d);                      // time_projection
    // The block's parameters from its weight table (dit_weights.cpp), the one the ops and the rank's bytes read.
    const DitBlockWeights w = dit_block_weights(cfg, DitBlock::main);
    p.attention = w.qkv.params() + w.out.params() + Exact(w.qk_norm.n)               // self (+ all q/k norms)
                  + w.cross_q.params() + w.cross_kv.params() + w.cross_out.params()  // cross
                  + (w.cross_kv_img.n != 0 ? w.cross_kv_img.params() : Exact(0)) + Exact(w.k_img_norm.n);  // image
    p.mlp = w.ffn_up.params() + w.ffn_down.params();
    p.norms = Exact(w.norm3.n) + Exact(w.modulation.n);  // norm3 (γ, β) + modulation
    p.embedding += image_embedding_params(dc, d);
    p.per_layer = p.attention + p.mlp + p.norms;
    p.final_norm = Exact(0);                                                      // the head's LayerNorm has no affine
    p.lm_head = linear(d, patch_volume * Exact(dc.out_channels)) + Exact(2) * d;  // head Linear + its modulation
    p.dense_layers = cfg.layers;
    p.dit_vace = vace_params(dc, d, p.per_layer, patch_volume);
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
