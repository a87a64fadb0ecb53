// The video tokens of a DiT forward from frames × height × width (--video): the VAE's latent shape, then
// the patch embedding's grid. Pure. Sources and the worked numbers: docs/formulas.md ("Video tokens from
// frames and resolution").
#include "bwacct/video_tokens.h"

#include <fmt/format.h>

#include "bwacct/error.h"

namespace bwacct {
namespace {

constexpr const char* kForm = "FRAMESxHEIGHTxWIDTH in pixels, e.g. 81x480x832 (frames 4n + 1)";

[[noreturn]] void bad_form(std::string_view text, const std::string& option, std::string_view why = {}) {
    throw InputError(option, fmt::format("{}expected {}; got '{}'", why.empty() ? "" : std::string(why) + "; ", kForm, text));
}

// One field: decimal digits only (no sign, suffix or space), 1 to kVideoMaxSide.
std::uint64_t field(std::string_view f, std::string_view text, const std::string& option, const char* name) {
    if (f.empty() || f.size() > 12)
        bad_form(text, option);
    std::uint64_t v = 0;
    for (const char ch : f) {
        if (ch < '0' || ch > '9')
            bad_form(text, option);
        v = v * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    if (v == 0)
        bad_form(text, option, fmt::format("the {} must be positive", name));
    if (v > kVideoMaxSide)
        bad_form(text, option, fmt::format("the {} {} is more than bwacct takes (at most {})", name, v, kVideoMaxSide));
    return v;
}

}  // namespace

VideoLatent parse_video_size(std::string_view text, const std::string& option) {
    const std::size_t a = text.find_first_of("xX");
    const std::size_t b = a == std::string_view::npos ? a : text.find_first_of("xX", a + 1);
    if (b == std::string_view::npos || text.find_first_of("xX", b + 1) != std::string_view::npos)
        bad_form(text, option);
    VideoLatent v;
    v.frames = field(text.substr(0, a), text, option, "frame count");
    v.height = field(text.substr(a + 1, b - a - 1), text, option, "height");
    v.width = field(text.substr(b + 1), text, option, "width");
    return v;
}

VideoLatent video_latent(VideoLatent v, const DitConfig& dit, const std::string& option) {
    const std::string given = fmt::format("{}x{}x{}", v.frames, v.height, v.width);
    // The VAE by its latent channels: the DiT's out_dim is the VAE's z_dim (in_dim may add conditioning channels).
    std::uint64_t spatial = 0;
    if (dit.out_channels == 16)
        spatial = 8;  // Wan2.1 VAE (also Wan2.2's A14B experts)
    else if (dit.out_channels == 48)
        spatial = 16;  // Wan2.2 VAE (TI2V-5B)
    else
        throw InputError(option, fmt::format("the model's latent has {} channels (out_dim), neither Wan2.1's VAE (16 "
                                             "channels, stride 4×8×8) nor Wan2.2's (48, 4×16×16): its stride is unknown; give "
                                             "--tokens (the video tokens) instead",
                                             dit.out_channels));
    v.vae_channels = dit.out_channels;
    v.vae_stride = {4, spatial, spatial};
    v.patch = dit.patch;
    if ((v.frames - 1) % v.vae_stride[0] != 0)
        throw InputError(option, fmt::format("{} frames is not 4n + 1 (the VAE keeps the first frame and folds every 4 "
                                             "after it: 1, 5, ..., 81, 121); expected {}",
                                             v.frames, kForm));
    const std::uint64_t mh = spatial * v.patch[1], mw = spatial * v.patch[2];
    if (v.height % mh != 0 || v.width % mw != 0)
        throw InputError(option, fmt::format("{}: height and width must be multiples of the VAE stride × patch ({} × {} = {} "
                                             "for height, {} × {} = {} for width); expected {}",
                                             given, spatial, v.patch[1], mh, spatial, v.patch[2], mw, kForm));
    v.latent = {1 + (v.frames - 1) / v.vae_stride[0], v.height / spatial, v.width / spatial};
    if (v.latent[0] % v.patch[0] != 0)
        throw InputError(option, fmt::format("{}: {} latent frames are not a multiple of the temporal patch {}; expected {}",
                                             given, v.latent[0], v.patch[0], kForm));
    v.grid = {v.latent[0] / v.patch[0], v.latent[1] / v.patch[1], v.latent[2] / v.patch[2]};
    // Each factor is at most 2^16, so the product fits in 64 bits before it is bounded.
    v.tokens = v.grid[0] * v.grid[1] * v.grid[2];
    if (v.tokens > kDitMaxSize)
        throw InputError(option, fmt::format("{} gives {} video tokens, more than bwacct models for a DiT (at most {}); check "
                                             "the frames and resolution",
                                             given, v.tokens, kDitMaxSize));
    return v;
}

}  // namespace bwacct
