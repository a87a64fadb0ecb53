// Helpers shared by the Hugging Face config tests (test_hf_config*.cpp): the shipped model files, the error text of
// a config, and whether the report states a limitation.
#pragma once
#include <string>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"

namespace bwacct_test {

// tests/data/models/<name>.config.json
inline std::string model_file(const std::string& name) {
    return std::string(BWACCT_TEST_DATA) + "/models/" + name + ".config.json";
}
inline bwacct::TransformerConfig hf(const std::string& name) { return bwacct::load_hf_config(model_file(name), "--hf-config"); }

// The error text of parsing `text` as a config.json (empty when it parses).
inline std::string error_of(const std::string& text) {
    try {
        (void)bwacct::parse_hf_config(text, "--hf-config x.json");
    } catch (const bwacct::InputError& e) {
        return e.what();
    }
    return "";
}

// The error text of loading tests/data/models/<name>.config.json (empty when it loads).
inline std::string file_error_of(const std::string& name) {
    try {
        (void)hf(name);
    } catch (const bwacct::InputError& e) {
        return e.what();
    }
    return "";
}

// Whether one of the config's stated limitations contains `part`.
inline bool has_limitation(const bwacct::TransformerConfig& c, const std::string& part) {
    for (const std::string& l : c.limitations)
        if (l.find(part) != std::string::npos)
            return true;
    return false;
}

}  // namespace bwacct_test
