// The field reader of the Hugging Face config.json mapping (src/hw/hf_config.cpp and the family readers beside
// it): typed access to one JSON object, each error an InputError naming the field and `origin`.
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "bwacct/error.h"

namespace bwacct::hf {

using json = nlohmann::json;

struct Reader {
    const json& doc;
    const std::string& origin;

    [[noreturn]] void fail(const std::string& msg) const { throw InputError(origin, msg); }

    bool has(const char* key) const { return doc.contains(key) && !doc.at(key).is_null(); }

    std::uint64_t count(const char* key) const {
        if (!doc.contains(key))
            fail(fmt::format("missing \"{}\" (a positive integer)", key));
        return count_or(key, 0, false);
    }
    // A positive integer, or `fallback` when absent or null (when `optional`).
    std::uint64_t count_or(const char* key, std::uint64_t fallback, bool optional = true) const {
        if (!has(key)) {
            if (optional)
                return fallback;
            fail(fmt::format("\"{}\" must be a positive integer, got null", key));
        }
        const json& v = doc.at(key);
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0)
            fail(fmt::format("\"{}\" must be a positive integer, got {}", key, v.dump()));
        return v.get<std::uint64_t>();
    }
    // A non-negative integer (first_k_dense_replace may be 0), `fallback` when absent or null.
    std::uint64_t natural_or(const char* key, std::uint64_t fallback) const {
        if (!has(key))
            return fallback;
        const json& v = doc.at(key);
        if (!v.is_number_unsigned())
            fail(fmt::format("\"{}\" must be a non-negative integer, got {}", key, v.dump()));
        return v.get<std::uint64_t>();
    }
    // Refuses `key` given as null where `user` computes with it (transformers raises a TypeError on None): a null is
    // not the default the key's absence takes.
    void refuse_null(const char* key, const char* user) const {
        if (doc.contains(key) && doc.at(key).is_null())
            fail(
                fmt::format("\"{}\" is null, which {} cannot be built with: give a value, or leave the key out for the "
                            "class's default",
                            key, user));
    }
    bool flag_or(const char* key, bool fallback) const {
        if (!has(key))
            return fallback;
        if (!doc.at(key).is_boolean())
            fail(fmt::format("\"{}\" must be true or false, got {}", key, doc.at(key).dump()));
        return doc.at(key).get<bool>();
    }
    // A flag the model code tests for truth (nn.Linear(bias=flag), `if config.tie_word_embeddings:`): `fallback` when
    // absent, false when null (None builds no bias, ties nothing), else true or false.
    bool truth_or(const char* key, bool fallback) const {
        if (doc.contains(key) && doc.at(key).is_null())
            return false;
        return flag_or(key, fallback);
    }
    std::string text_or(const char* key, const std::string& fallback) const {
        if (!has(key))
            return fallback;
        if (!doc.at(key).is_string())
            fail(fmt::format("\"{}\" must be a string, got {}", key, doc.at(key).dump()));
        return doc.at(key).get<std::string>();
    }
    // Refuses a field that changes the arithmetic when it is set to anything but its neutral value.
    void refuse_unless(bool neutral, const char* key, const char* why) const {
        if (!neutral)
            fail(fmt::format("\"{}\" = {} is not modelled ({}); bwacct will not guess", key, doc.at(key).dump(), why));
    }
};

}  // namespace bwacct::hf
