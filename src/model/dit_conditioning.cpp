// The conditioning branches of Wan2.1's video diffusion transformer, outside the blocks: the image embedding of
// the i2v and flf2v models (WanModel.img_emb, wan/modules/model.py; diffusers' WanImageEmbedding) and VACE's
// context path (VaceWanModel, wan/modules/vace_model.py; diffusers' WanVACETransformer3DModel). The image
// cross-attention inside each block and the VACE block kinds are in dit_block.cpp. Formulas: docs/formulas.md
// ("Video diffusion transformers (DiT)").
#include <fmt/format.h>

#include "dit_builder.h"

namespace bwacct::dit_detail {

namespace {

Exact linear(Exact in, Exact out) { return in * out + out; }  // weight + bias

}  // namespace

void image_embedding_ops(DitBuilder& b, u64 text_rows) {
    const DitConfig dc = b.cfg.dit.value_or(DitConfig{});
    const u64 d = b.cfg.hidden;
    // img_emb = MLPProj(image_dim, D): flf2v first adds emb_pos to both images' tokens; LayerNorm (γ, β),
    // Linear(C, C), GELU (erf form), Linear(C, D), LayerNorm (γ, β); then the context [B, N_img + L, D] is
    // concatenated (a copy of both parts).
    const u64 image_rows = (Exact(b.run.batch) * Exact(dc.image_tokens)).value();
    if (image_rows == 0)
        return;
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

void vace_edge_ops(DitBuilder& b, const ConvDesc& patch_conv) {
    const DitConfig dc = b.cfg.dit.value_or(DitConfig{});
    if (dc.vace_blocks == 0)
        return;
    const u64 t = b.run.tokens(), d = b.cfg.hidden, n = dc.vace_blocks;
    // VaceWanModel.forward_vace: vace_patch_embedding (Conv3d(vace_in_dim → D), as the patch embedding), block 0's
    // before_proj(c) + x, and (Wan's reference) the hints: each context block i (0-based) torch.stacks its i earlier
    // hints, its own and c ((i + 2) copies of [T, D]): Σ over n blocks = n(n + 3)/2 copies, read and written
    // (diffusers keeps them in a list: no copies).
    ConvDesc vc = patch_conv;
    vc.in_channels = dc.vace_in_channels;
    b.add("vace_patch_embedding", OpPart::embedding,
          fmt::format("conv3d {}→{} kernel = stride = {}×{}×{} → {} tokens", dc.vace_in_channels, d, dc.patch[0], dc.patch[1],
                      dc.patch[2], t),
          conv_cost(vc));
    b.gemm("vace_before_proj", OpPart::embedding, t, d, d);
    b.elementwise("vace_before_add", OpPart::embedding, "before_proj(c) + x", t, d, 2, 1);
    if (dc.vace_stacked_hints)
        b.copy("vace_hint_stack", (Exact(n) * (Exact(n) + Exact(3)) / Exact(2) * Exact(t)).value(), d, n);
}

Exact image_embedding_params(const DitConfig& dc, Exact d) {
    if (dc.image_tokens == 0)
        return Exact(0);
    const Exact c(dc.image_dim);
    // LayerNorm(C), Linear(C, C), Linear(C, D), LayerNorm(D) (+ flf2v's emb_pos [N_img, C]).
    return Exact(2) * c + linear(c, c) + linear(c, d) + Exact(2) * d + (dc.image_pos_emb ? Exact(dc.image_tokens) * c : Exact(0));
}

Exact vace_params(const DitConfig& dc, Exact d, Exact per_layer, Exact patch_volume) {
    if (dc.vace_blocks == 0)
        return Exact(0);
    // n context blocks (a block + after_proj each), block 0's before_proj, vace_patch_embedding (Conv3d + bias).
    return Exact(dc.vace_blocks) * (per_layer + linear(d, d)) + linear(d, d) + Exact(dc.vace_in_channels) * patch_volume * d + d;
}

}  // namespace bwacct::dit_detail
