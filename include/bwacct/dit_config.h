// The parts of a video diffusion transformer (Wan2.1's WanModel) a decoder-only description lacks,
// and what a diffusion run adds (denoising steps, classifier-free guidance, frames per chunk).
// Only plain values: included by bwacct/transformer.h. Formulas: docs/formulas.md
// ("Video diffusion transformers (DiT)").
#pragma once
#include <array>
#include <cstdint>
#include <optional>

namespace bwacct {

// CLIP ViT-H/14 at 224 px (Wan2.1's clip_xlm_roberta_vit_h_14): (224 / 14)² patches + the class token.
inline constexpr std::uint64_t kClipTokensPerImage = 257;

// The largest size a DiT config.json may give one of its widths, channel counts, lengths or patch sizes (16,777,216 =
// 2^24, three orders of magnitude above any published Wan: dim 5120, text_len 512): past it the value is a typo or a
// fuzzed file, refused naming the key rather than multiplied into a 64-bit overflow (num_layers: the model's own bound).
inline constexpr std::uint64_t kDitMaxSize = std::uint64_t{1} << 24;

// An "i2v" WanModel config.json is Wan2.1's (a CLIP image cross-attention, img_emb) or Wan2.2's (the image latent
// concatenated to the input channels only): the file does not say which, the user does (--wan-i2v 2.1|2.2).
enum class WanI2v { unstated, wan21, wan22 };

// WanModel's constructor arguments beyond dim, ffn_dim, num_heads and num_layers (defaults: WanModel's).
struct DitConfig {
    std::uint64_t in_channels = 16;               // in_dim: latent channels into the patch embedding
    std::uint64_t out_channels = 16;              // out_dim: latent channels out of the head
    std::array<std::uint64_t, 3> patch{1, 2, 2};  // patch_size (t, h, w): the Conv3d kernel and stride
    std::uint64_t text_dim = 4096;                // text encoder (umT5) width into the text embedding
    std::uint64_t freq_dim = 256;                 // sinusoidal timestep embedding width
    std::uint64_t text_len = 512;                 // text tokens the context is padded to
    bool cross_attn_norm = true;                  // affine LayerNorm (norm3) before the cross-attention
    // Wan2.2's WanModel embeds the timestep per token (t expanded to [B, seq]): the time MLP, the projection and
    // the six modulation rows run over every token instead of once per sample (Wan2.1).
    bool timestep_per_token = false;
    // Image conditioning (Wan2.1's i2v and flf2v: WanI2VCrossAttention and img_emb): the CLIP ViT-H/14 tokens prepended
    // to the text context, 257 per image (224 px / 14 = 16², + the class token), two images for flf2v; 0 = none.
    std::uint64_t image_tokens = 0;
    std::uint64_t image_dim = 1280;  // CLIP width into img_emb (MLPProj(1280, dim))
    bool image_pos_emb = false;      // flf2v: img_emb.emb_pos, [image_tokens, image_dim] added to the CLIP tokens
    // VACE (VaceWanModel): one context block per entry of vace_layers, each a full DiT block plus after_proj; its
    // hint is added to the output of main block vace_layers[i]. 0 = no VACE.
    std::uint64_t vace_blocks = 0;
    std::uint64_t vace_in_channels = 0;  // vace_in_dim: channels into vace_patch_embedding
    // Wan's VaceWanAttentionBlock torch.stacks the hints so far with its own after every context block (copies);
    // diffusers' WanVACETransformer3DModel keeps them in a list (no copies).
    bool vace_stacked_hints = true;
};

// A video of F frames × H × W pixels through Wan's VAE and the DiT's patch embedding (--video FxHxW;
// src/model/video_tokens.cpp, docs/formulas.md "Video tokens from frames and resolution").
struct VideoLatent {
    std::uint64_t frames = 0, height = 0, width = 0;   // pixels, as given
    std::uint64_t vae_channels = 0;                    // the latent channels (the config's out_dim): 16 or 48
    std::array<std::uint64_t, 3> vae_stride{4, 8, 8};  // (t, h, w): 4 × 8 × 8 (Wan2.1 VAE) or 4 × 16 × 16 (Wan2.2)
    std::array<std::uint64_t, 3> latent{};             // (t, h, w): 1 + (F − 1)/4, H/s, W/s
    std::array<std::uint64_t, 3> patch{1, 2, 2};       // the config's patch_size
    std::array<std::uint64_t, 3> grid{};               // latent / patch: the token grid
    std::uint64_t tokens = 0;                          // grid t · grid h · grid w
};

// A diffusion run: the video tokens are LayerRun::seq (one forward over one chunk's latent tokens).
struct DitRun {
    std::uint64_t text_tokens = 0;       // keys of the cross-attention; 0 = the config's text_len
    std::uint64_t steps = 1;             // denoising steps per chunk
    bool cfg = false;                    // classifier-free guidance: two forwards per step
    std::uint64_t frames_per_chunk = 0;  // video frames one chunk yields; 0 = no FPS
    std::optional<VideoLatent> video;    // --video: where LayerRun::seq came from (derived)
};

}  // namespace bwacct
