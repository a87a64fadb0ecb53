// Model presets (configs/models/<id>.json, --model FILE): parse_model_preset.
#include <cstdint>
#include <string>

#include "bwacct/model_preset.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::TransformerConfig c = bwacct::parse_model_preset(text, "--model fuzz.json");
        using bwacct::fuzz::check;
        check(c.hidden > 0 && c.layers > 0 && c.heads > 0 && c.kv_heads > 0 && c.ffn > 0, "a required size is 0");
        // A diffusion transformer ("dit") has no vocabulary; every other preset needs one.
        check(c.vocab > 0 || c.dit.has_value(), "no vocab and not a diffusion transformer");
        check(c.heads % c.kv_heads == 0, "kv_heads does not divide heads");
        check(c.head_dim != 0 || c.hidden % c.heads == 0, "heads does not divide hidden and no head_dim");
        check(!c.name.empty() && !c.source.empty(), "empty name or source");
    });
    return 0;
}
