// The weights of Wan2.1's video diffusion transformer on one tensor-parallel rank. Each block parameter's sharding is
// stated once (dit_block_weights); the block's ops (dit_block.cpp) take their GEMM shapes from the same table, so the
// bytes a rank holds and the bytes its ops read cannot disagree. Formulas: docs/formulas.md ("Video diffusion
// transformers (DiT)", Tensor parallelism).
#include "bwacct/dit.h"
#include "bwacct/dtype.h"
#include "dit_builder.h"

namespace bwacct {

using namespace dit_detail;

namespace dit_detail {

DitBlockWeights dit_block_weights(const TransformerConfig& cfg, DitBlock kind) {
    const DitConfig dc = cfg.dit.value_or(DitConfig{});
    const u64 d = cfg.hidden, f = cfg.ffn;
    DitBlockWeights w;
    w.qkv = {d, 3 * d, Shard::column};
    w.out = {d, d, Shard::row};
    w.cross_q = {d, d, Shard::column};
    w.cross_kv = {d, 2 * d, Shard::column};
    w.cross_out = {d, d, Shard::row};
    if (dc.image_tokens != 0) {
        w.cross_kv_img = {d, 2 * d, Shard::column};
        w.k_img_norm = {d, Shard::column};
    }
    w.ffn_up = {d, f, Shard::column};
    w.ffn_down = {f, d, Shard::row};
    if (kind == DitBlock::vace)
        w.after_proj = {d, d, Shard::replicated};
    w.qk_norm = {4 * d, Shard::column};
    w.norm3 = {dc.cross_attn_norm ? 2 * d : 0, Shard::replicated};
    w.modulation = {6 * d, Shard::replicated};
    return w;
}

}  // namespace dit_detail

namespace {

// One block on one rank: the WanAttentionBlock's linears in the block weight format, their biases and the vectors in
// the activation dtype; VACE's after_proj in the activation dtype (as its other projections).
Exact block_bytes(const TransformerConfig& cfg, const LayerRun& run, DitBlock kind) {
    const DitBlockWeights w = dit_block_weights(cfg, kind);
    const StorageFormat mat = block_weight_format(cfg, run);
    const u64 tp = run.tp;
    auto act = [&](Exact elems) { return storage_bytes(run.dtype, elems); };
    Exact bytes;
    for (const DitLinear* l : {&w.qkv, &w.out, &w.cross_q, &w.cross_kv, &w.cross_out, &w.cross_kv_img, &w.ffn_up, &w.ffn_down})
        if (l->n != 0)
            bytes += format_bytes(mat, Exact(l->k_on(tp)), Exact(l->n_on(tp))) + act(Exact(l->n_on(tp)));
    if (w.after_proj.n != 0)
        bytes += act(Exact(w.after_proj.k_on(tp)) * Exact(w.after_proj.n_on(tp)) + Exact(w.after_proj.n_on(tp)));
    for (const DitVector* v : {&w.qk_norm, &w.k_img_norm, &w.norm3, &w.modulation})
        bytes += act(Exact(v->on(tp)));
    return bytes;
}

}  // namespace

RankWeights dit_rank_weights(const TransformerConfig& cfg, const LayerRun& run) {
    const ParamCount p = dit_param_count(cfg);
    auto act = [&](Exact elems) { return storage_bytes(run.dtype, elems); };
    RankWeights rw;
    rw.dense_layer = block_bytes(cfg, run, DitBlock::main);
    // The ops outside the blocks run whole on every rank (dit_edge_ops): the embeddings and the head are replicated.
    rw.embedding = act(p.embedding);
    rw.lm_head = act(p.lm_head);
    rw.final_norm = act(p.final_norm);
    return rw;
}

Exact dit_weight_bytes_per_rank(const TransformerConfig& cfg, const LayerRun& run) {
    const RankWeights w = dit_rank_weights(cfg, run);
    Exact bytes = Exact(cfg.layers) * w.dense_layer + w.embedding + w.lm_head + w.final_norm;
    if (cfg.dit && cfg.dit->vace_blocks != 0) {
        // VACE: the context blocks as the blocks (with their after_proj); before_proj and vace_patch_embedding
        // replicated (the ops outside the blocks), the rest of dit_vace.
        const ParamCount p = dit_param_count(cfg);
        const Exact n(cfg.dit->vace_blocks);
        const Exact after_proj = dit_block_weights(cfg, DitBlock::vace).after_proj.params();
        bytes +=
            n * block_bytes(cfg, run, DitBlock::vace) + storage_bytes(run.dtype, p.dit_vace - n * (p.per_layer + after_proj));
    }
    return bytes;
}

}  // namespace bwacct
