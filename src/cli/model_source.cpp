#include "model_source.h"

#include <fmt/format.h>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/model_preset.h"
#include "reader_hint.h"

namespace bwacct::cli {

std::optional<NamedModel> named_model(const Args& a, std::initializer_list<const char*> by_hand) {
    // An empty --hf-config path is given too: the reader refuses it ("no file named").
    const bool preset = !a.get("--preset").empty(), hf = a.given("--hf-config") || !a.get("--hf-config").empty();
    if (preset && hf)
        throw InputError("--hf-config", "give --preset (a bwacct preset) or --hf-config (a Hugging Face config.json), not both");
    // --wan-i2v (layer, model): whose an "i2v" WanModel config.json is; it names nothing else. Given at all (an
    // empty value too), it must be 2.1 or 2.2 and come with --hf-config: never silently ignored.
    const bool i2v_given = a.declared("--wan-i2v") && a.given("--wan-i2v");
    const std::string i2v = i2v_given ? a.get("--wan-i2v") : std::string();
    if (i2v_given && i2v != "2.1" && i2v != "2.2")
        throw InputError("--wan-i2v", fmt::format("expected 2.1 (Wan2.1: CLIP image cross-attention) or 2.2 (Wan2.2: none), got "
                                                  "\"{}\"",
                                                  i2v));
    constexpr const char* kI2vApplies =
        "(2.1 or 2.2) applies to a WanModel config.json with \"model_type\": \"i2v\" given by --hf-config only";
    if (i2v_given && !hf)
        throw InputError("--wan-i2v", kI2vApplies);
    if (!preset && !hf)
        return std::nullopt;
    const char* from = preset ? "--preset" : "--hf-config";
    for (const char* o : by_hand)
        if (!a.get(o).empty())
            throw InputError(o, fmt::format("comes from {} (the model's own count); give one or the other", from));
    NamedModel m;
    m.option = from;
    const WanI2v wan_i2v = i2v == "2.1" ? WanI2v::wan21 : i2v == "2.2" ? WanI2v::wan22 : WanI2v::unstated;
    try {
        m.config = preset ? load_model_preset(a.get("--preset"), "--preset")
                          : load_hf_config(a.get("--hf-config"), "--hf-config", wan_i2v);
    } catch (const InputError& e) {
        if (preset)
            throw;
        throw with_reader_hint(e, a.get("--hf-config"), FileKind::model_config);
    }
    if (i2v_given && m.config.name.rfind("WanModel (i2v", 0) != 0)
        throw InputError("--wan-i2v", kI2vApplies);
    m.source = fmt::format("{} {}", from, preset ? a.get("--preset") : a.get("--hf-config"));
    return m;
}

ParamCount named_param_count(const NamedModel& m) {
    try {
        return param_count(m.config);  // Exact arithmetic: throws past 64 bits
    } catch (const OverflowError&) {
        throw InputError(m.option, "the model's parameter count overflows 64 bits; check its sizes");
    }
}

}  // namespace bwacct::cli
