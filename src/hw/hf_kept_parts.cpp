// Quantised checkpoints' module lists read as the parts of the blocks they keep in 16 bits (hf_kept_parts.h).
#include "hf_kept_parts.h"

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace bwacct::hf {

ModuleEntry::ModuleEntry(const std::string& entry) : language_model_(entry.find("language_model") != std::string::npos) {
    try {
        if (entry.rfind("re:", 0) == 0) {
            from_start_ = true;
            re_ = std::regex(entry.substr(3));
            return;
        }
        std::string e = entry;
        while (!e.empty() && (e.back() == '.' || e.back() == '$'))
            e.pop_back();
        valid_ = !e.empty();
        if (e.find('*') == std::string::npos) {
            path_ = e;
            return;
        }
        std::string pattern = "(^|\\.)";
        for (const char ch : e) {
            if (ch == '*')
                pattern += ".*";  // fnmatch's: any characters, dots included
            else if (std::string_view("\\^$.|?+()[]{}").find(ch) != std::string_view::npos)
                pattern += std::string("\\") + ch;
            else
                pattern += ch;
        }
        re_ = std::regex(pattern + "(\\.|$)");
    } catch (const std::regex_error&) {
        valid_ = false;  // a pattern std::regex cannot read names nothing here (the entry stays stated)
    }
}

bool ModuleEntry::names(const std::string& module) const {
    if (names_one(module))
        return true;
    if (!language_model_ || module.rfind("model.layers.", 0) != 0)
        return false;
    const std::string rest = module.substr(std::string_view("model.").size());
    return names_one("model.language_model." + rest) || names_one("language_model.model." + rest);
}

bool ModuleEntry::names_one(const std::string& module) const {
    if (!valid_)
        return false;
    if (!path_.empty()) {
        for (std::size_t at = module.find(path_); at != std::string::npos; at = module.find(path_, at + 1)) {
            const std::size_t end = at + path_.size();
            if ((at == 0 || module[at - 1] == '.') && (end == module.size() || module[end] == '.'))
                return true;
        }
        return false;
    }
    return from_start_ ? std::regex_search(module, re_, std::regex_constants::match_continuous) : std::regex_search(module, re_);
}

namespace {

using Modules = std::vector<std::string>;

Modules attention_modules(const TransformerConfig& c, const std::string& layer) {
    const std::string p = layer + "self_attn.";
    if (c.mla)
        return {p + (c.mla->q_lora_rank > 0 ? "q_a_proj" : "q_proj"), p + "kv_a_proj_with_mqa", p + "kv_b_proj", p + "o_proj"};
    return {p + "q_proj", p + "k_proj", p + "v_proj", p + "o_proj"};
}

Modules mlp_modules(const std::string& prefix) { return {prefix + "gate_proj", prefix + "up_proj", prefix + "down_proj"}; }

bool layer_dense(const TransformerConfig& c, std::uint64_t i) {
    if (!c.moe)
        return true;
    if (!c.moe->dense_pattern.empty())
        return c.moe->dense_pattern[i];
    return i < c.moe->dense_layers;
}

}  // namespace

TransformerConfig::KeptParts kept_parts(const std::vector<std::string>& entries, const TransformerConfig& c,
                                        const ModuleNames& names, std::vector<std::string>& unexplained) {
    // Every block's linear modules by part. Routed experts (one expert's names per layer) are never kept: the engine
    // stores them in the checkpoint's format, so an entry naming them stays stated.
    Modules attention, dense, shared, routed;
    for (std::uint64_t i = 0; i < c.layers; ++i) {
        const std::string layer = fmt::format("model.layers.{}.", i);
        for (std::string& m : attention_modules(c, layer))
            attention.push_back(std::move(m));
        const std::string mlp = layer + names.mlp + ".";
        Modules& into = layer_dense(c, i) ? dense : routed;
        for (std::string& m : mlp_modules(layer_dense(c, i) ? mlp : mlp + "experts.0."))
            into.push_back(std::move(m));
        if (!layer_dense(c, i) && c.moe->shared_experts > 0)
            for (std::string& m : mlp_modules(mlp + names.shared + "."))
                shared.push_back(std::move(m));
    }
    std::vector<ModuleEntry> read;
    read.reserve(entries.size());
    for (const std::string& e : entries)
        read.emplace_back(e);
    auto named = [&](const std::string& m) {
        for (const ModuleEntry& e : read)
            if (e.names(m))
                return true;
        return false;
    };
    auto all_named = [&](const Modules& mods) {
        for (const std::string& m : mods)
            if (!named(m))
                return false;
        return !mods.empty();
    };
    TransformerConfig::KeptParts k;
    k.attention = all_named(attention);
    k.dense_mlp = all_named(dense);
    k.shared_experts = all_named(shared);
    // An entry is explained when every block module it names lies in a kept part (and it names one).
    for (std::size_t i = 0; i < entries.size(); ++i) {
        bool in_kept = false, elsewhere = false;
        const std::pair<const Modules*, bool> parts[] = {
            {&attention, k.attention}, {&dense, k.dense_mlp}, {&shared, k.shared_experts}, {&routed, false}};
        for (const auto& [mods, kept] : parts)
            for (std::size_t j = 0; j < mods->size() && !elsewhere && !(kept && in_kept); ++j)
                if (read[i].names((*mods)[j]))
                    (kept ? in_kept : elsewhere) = true;
        if (!in_kept || elsewhere)
            unexplained.push_back(entries[i]);
    }
    return k;
}

}  // namespace bwacct::hf
