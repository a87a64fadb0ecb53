// The video tokens of a DiT forward from the video's frames and resolution (--video FxHxW): Wan's VAE
// (temporal stride 4 keeping the first frame, spatial stride 8 or 16) and the patch embedding.
// Pure functions (src/model/video_tokens.cpp). Formula: docs/formulas.md ("Video tokens from frames and
// resolution").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "bwacct/dit_config.h"

namespace bwacct {

// The largest frame count, height or width --video takes (65,536: far past any video model's 1280 × 720 × 121).
inline constexpr std::uint64_t kVideoMaxSide = std::uint64_t{1} << 16;

// "81x480x832" → frames 81, height 480, width 832 (three positive decimal integers joined by 'x', each at most
// kVideoMaxSide). Anything else is an InputError naming `option` and the accepted form.
VideoLatent parse_video_size(std::string_view text, const std::string& option);

// Fills the latent shape and the tokens of `video` (frames, height, width set) for the DiT `dit`: the VAE is
// known by the config's out channels (16: Wan2.1's, stride 4 × 8 × 8; 48: Wan2.2's, 4 × 16 × 16). Refuses,
// naming `option`: frames not ≡ 1 (mod 4), a height or width not a multiple of stride × patch, a latent frame
// count not a multiple of the temporal patch, an unknown VAE, more than kDitMaxSize tokens.
VideoLatent video_latent(VideoLatent video, const DitConfig& dit, const std::string& option);

}  // namespace bwacct
