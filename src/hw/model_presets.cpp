// Finds and reads model presets: configs/models/<id>.json beside the binary, installed, or in the
// source tree (the same search as the GPU catalog).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "bwacct/error.h"
#include "bwacct/model_preset.h"
#include "bwacct/text_file.h"

namespace bwacct {
namespace {

namespace fs = std::filesystem;

std::string exe_dir() {
    std::error_code ec;
    auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.parent_path().string();
}

}  // namespace

std::string model_preset_dir() {
    if (const char* env = std::getenv("BWACCT_MODELS"); env != nullptr && *env != '\0')
        return env;
    const std::string dir = exe_dir();
    for (const std::string& candidate :
         {dir + "/configs/models", dir + "/../share/bwacct/models", std::string(BWACCT_SOURCE_CONFIG_DIR) + "/models"}) {
        std::error_code ec;
        if (fs::is_directory(candidate, ec))
            return candidate;
    }
    return std::string(BWACCT_SOURCE_CONFIG_DIR) + "/models";
}

std::vector<std::string> model_preset_ids() {
    std::vector<std::string> ids;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(model_preset_dir(), ec))
        if (entry.path().extension() == ".json")
            ids.push_back(entry.path().stem().string());
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
    const std::string path = model_preset_dir() + "/" + id_or_path + ".json";
    if (::access(path.c_str(), R_OK) != 0) {
        std::string known;
        for (const std::string& id : model_preset_ids())
            known += (known.empty() ? "" : ", ") + id;
        throw InputError(option, fmt::format("unknown preset '{}'; known: {} (or give a preset file path)", id_or_path,
                                             known.empty() ? "none found" : known));
    }
    return parse_model_preset(read_input_file(path, option, "expected a model preset JSON file"), option + " " + path);
}

}  // namespace bwacct
