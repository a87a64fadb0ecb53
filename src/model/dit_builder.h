// The builder the DiT op lists share (src/model/dit_block.cpp, dit_conditioning.cpp): one op per
// reference op, each from the engine's op models (GEMM, norms, elementwise, attention, collectives).
// Private to src/model. Formulas: docs/formulas.md ("Video diffusion transformers (DiT)").
#pragma once
#include <fmt/format.h>

#include <string>
#include <vector>

#include "bwacct/dit.h"
#include "bwacct/dtype.h"
#include "term.h"

namespace bwacct::dit_detail {

using u64 = std::uint64_t;

// Per-element FLOPs (docs/formulas.md, "Video diffusion transformers"): GELU tanh form 9 (as the
// decoder MLP); SiLU x/(1 + exp(−x)) 4 (negate, exp, add, divide); modulate x̂·(1 + s) + b 2 (the
// 1 + s is on the [B, D] row); gated residual x + y·g 2; RoPE 3 (a complex multiply, 6 FLOPs, per
// pair of elements).
inline constexpr u64 kGeluFlops = 9;
// GELU erf form 0.5·x·(1 + erf(x/√2)), counted as the tanh form is: ·(1/√2), erf, + 1, ·x, ·0.5 = 5.
inline constexpr u64 kGeluErfFlops = 5;
inline constexpr u64 kSiluFlops = 4;
inline constexpr u64 kModulateFlops = 2;
inline constexpr u64 kGateFlops = 2;
inline constexpr u64 kRopeFlops = 3;

// How a parameter lies on the tensor-parallel ranks (Megatron-LM): column-parallel (a weight [K, N/tp], its bias
// N/tp; a vector split by head, n/tp), row-parallel (a weight [K/tp, N]; its bias N is added after the all-reduce, so
// every rank holds it), or replicated (whole on every rank).
enum class Shard { column, row, replicated };

// A linear layer's weight [K, N] and bias [N] with its sharding. The block's ops take their GEMM shapes from it
// (DitBuilder::linear) and a rank's weight bytes sum it (dit_rank_weights): the two cannot disagree.
struct DitLinear {
    u64 k = 0, n = 0;  // n = 0: the block has no such layer
    Shard shard = Shard::replicated;
    u64 k_on(u64 tp) const { return shard == Shard::row ? k / tp : k; }
    u64 n_on(u64 tp) const { return shard == Shard::column ? n / tp : n; }
    Exact params() const { return Exact(k) * Exact(n) + Exact(n); }
};

// A parameter vector (norm γ, β; the modulation table) of n elements.
struct DitVector {
    u64 n = 0;
    Shard shard = Shard::replicated;
    u64 on(u64 tp) const { return shard == Shard::column ? n / tp : n; }
};

// One block's parameters (WanAttentionBlock; i2v/flf2v's WanI2VCrossAttention; a VACE context block's after_proj),
// each with its sharding, stated here once (dit_weights.cpp).
struct DitBlockWeights {
    DitLinear qkv, out;                      // self-attention: q, k, v column-parallel; o row-parallel
    DitLinear cross_q, cross_kv, cross_out;  // cross-attention to the text: q, k, v column-parallel; o row-parallel
    DitLinear cross_kv_img;                  // i2v, flf2v: k_img, v_img column-parallel (n = 0 without image conditioning)
    DitLinear ffn_up, ffn_down;              // column-, row-parallel
    DitLinear after_proj;                    // VACE context block: replicated, as the block's output is (n = 0 otherwise)
    DitVector qk_norm;                       // norm_q, norm_k of the self- and cross-attention (4·D): split by head
    DitVector k_img_norm;                    // norm_k_img (D): split by head
    DitVector norm3;                         // γ, β (2·D) of the cross-attention LayerNorm: replicated
    DitVector modulation;                    // the six rows (6·D): replicated
};
DitBlockWeights dit_block_weights(const TransformerConfig& cfg, DitBlock kind);

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

    // [rows, K] × the rank's share of a linear's weight (its bias: a parameter only, not read here).
    void linear(const std::string& name, OpPart part, u64 rows, const DitLinear& w) {
        gemm(name, part, rows, w.k_on(run.tp), w.n_on(run.tp));
    }

    // `parameter_sets`: 0 for Wan's LayerNorms without γ, β (norm1, norm2, the head's), 2 for q and k's own γ in one op.
    void norm(const std::string& name, NormKind kind, u64 rows, u64 cols, u64 parameter_sets = 1) {
        NormDesc d;
        d.kind = kind;
        d.shape = {rows, cols};
        d.dtype = run.dtype;
        d.parameter_sets = parameter_sets;
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
    void qk_norm(const std::string& name, u64 rows, u64 cols, u64 parameter_sets) {
        norm(name, NormKind::rmsnorm, rows, cols, parameter_sets);
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

// Image conditioning and VACE (dit_conditioning.cpp): the ops once per forward, and their parameters.
// img_emb (+ flf2v's emb_pos) and the context concatenation, after the text embedding.
void image_embedding_ops(DitBuilder& b, u64 text_rows);
// vace_patch_embedding (the patch embedding's conv with vace_in_channels), before_proj and its add, the hint stack.
void vace_edge_ops(DitBuilder& b, const ConvDesc& patch_conv);
// Once: img_emb (+ emb_pos). 0 without image conditioning (the block's k_img, v_img, norm_k_img: dit_block_weights).
Exact image_embedding_params(const DitConfig& dc, Exact d);
// The VACE branch: context blocks (a block of per_layer + after_proj each), before_proj, vace_patch_embedding.
Exact vace_params(const DitConfig& dc, Exact d, Exact per_layer, Exact patch_volume);

}  // namespace bwacct::dit_detail
