// Model presets by id: configs/models/<id>.json as compiled into the binary (shipped_configs.h), or
// the files of $BWACCT_MODELS when set; by path, any preset file.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "bwacct/error.h"
#include "bwacct/model_preset.h"
#include "bwacct/text_file.h"
#include "shipped_configs.h"

namespace bwacct {
namespace {

namespace fs = std::filesystem;

std::string models_env() {
    const char* env = std::getenv("BWACCT_MODELS");
    return env != nullptr ? env : "";
}

}  // namespace

std::vector<std::string> model_preset_ids() {
    std::vector<std::string> ids;
    if (const std::string dir = models_env(); !dir.empty()) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(dir, ec))
            if (entry.path().extension() == ".json")
                ids.push_back(entry.path().stem().string());
    } else {
        for (const shipped::Preset& p : shipped::model_presets())
            ids.push_back(p.id);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

TransformerConfig load_model_preset(const std::string& id_or_path, const std::string& option) {
    if (id_or_path.empty())
        throw InputError(option, "expected a preset id (e.g. llama3-8b) or a preset file path");
    const bool is_path = id_or_path == "-" || id_or_path.find('/') != std::string::npos ||
                         (id_or_path.size() > 5 && id_or_path.substr(id_or_path.size() - 5) == ".json");
    if (is_path)
        return parse_model_preset(read_input_file(id_or_path, option, "expected a model preset JSON file"),
                                  option + " " + id_or_path);
    auto unknown = [&] {
        std::string known;
        for (const std::string& id : model_preset_ids())
            known += (known.empty() ? "" : ", ") + id;
        return InputError(option, fmt::format("unknown preset '{}'; known: {} (or give a preset file path)", id_or_path,
                                              known.empty() ? "none found" : known));
    };
    if (const std::string dir = models_env(); !dir.empty()) {
        const std::string path = dir + "/" + id_or_path + ".json";
        if (::access(path.c_str(), R_OK) != 0)
            throw unknown();
        return parse_model_preset(read_input_file(path, option, "expected a model preset JSON file"), option + " " + path);
    }
    for (const shipped::Preset& p : shipped::model_presets())
        if (p.id == id_or_path)
            return parse_model_preset(p.text, option + " " + id_or_path);
    throw unknown();
}

}  // namespace bwacct
