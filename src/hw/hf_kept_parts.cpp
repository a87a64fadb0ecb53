// Quantised checkpoints' module lists read as the parts of the blocks they keep in 16 bits (hf_kept_parts.h).
#include "hf_kept_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "bwacct/text_file.h"

namespace bwacct::hf {

std::string entry_problem(const std::string& entry) {
    if (entry.size() > kMaxEntryChars)
        return fmt::format("an entry of {} characters (at most {})", entry.size(), kMaxEntryChars);
    if (entry.rfind("re:", 0) != 0)
        return "";
    // Each open group: whether it holds a repeat or an alternation (repeating such a group backtracks exponentially).
    std::vector<bool> groups{false};
    std::size_t repeats = 0;
    const std::string_view re = std::string_view(entry).substr(3);
    for (std::size_t i = 0; i < re.size(); ++i) {
        const char ch = re[i];
        if (ch == '\\') {
            ++i;
        } else if (ch == '[') {  // a class: up to its closing "]" (a leading "]" or "^]" is a member)
            std::size_t j = i + 1;
            if (j < re.size() && re[j] == '^')
                ++j;
            if (j < re.size() && re[j] == ']')
                ++j;
            for (; j < re.size() && re[j] != ']'; ++j)
                if (re[j] == '\\')
                    ++j;
            i = j;
        } else if (ch == '(') {
            groups.push_back(false);
            if (groups.size() - 1 > kMaxEntryNesting)
                return fmt::format("\"{}...\" nests groups deeper than {}", utf8_prefix(entry, 40), kMaxEntryNesting);
        } else if (ch == ')' && groups.size() > 1) {
            const bool inner = groups.back();
            groups.pop_back();
            const bool repeated = i + 1 < re.size() && (re[i + 1] == '*' || re[i + 1] == '+' || re[i + 1] == '{');
            if (repeated && inner)
                return fmt::format("\"{}\" repeats a group that repeats or alternates (exponential matching)", entry);
            groups.back() = groups.back() || inner;
        } else if (ch == '*' || ch == '+' || ch == '{' || ch == '|') {
            groups.back() = true;
            if (ch != '|' && ++repeats > kMaxEntryRepeats)
                return fmt::format("\"{}\" has more than {} repeats (\"*\", \"+\", \"{{\")", entry, kMaxEntryRepeats);
        }
    }
    return "";
}

bool glob_names(const std::string& pattern, const std::string& name) {
    // reach[i]: some start at a component boundary lets the pattern's prefix read so far match name[start, i).
    const std::size_t n = name.size();
    std::vector<char> reach(n + 1), next(n + 1);
    for (std::size_t i = 0; i <= n; ++i)
        reach[i] = i == 0 || name[i - 1] == '.';
    for (const char p : pattern) {
        for (std::size_t i = 0; i <= n; ++i)
            next[i] = p == '*' ? reach[i] || (i > 0 && next[i - 1]) : i > 0 && reach[i - 1] && name[i - 1] == p;
        reach.swap(next);
    }
    for (std::size_t i = 0; i <= n; ++i)
        if (reach[i] && (i == n || name[i] == '.'))
            return true;
    return false;
}

ModuleEntry::ModuleEntry(const std::string& entry)
    : is_re_(entry.rfind("re:", 0) == 0),
      has_digit_(entry.find_first_of("0123456789") != std::string::npos),
      language_model_(entry.find("language_model") != std::string::npos) {
    if (!entry_problem(entry).empty()) {
        valid_ = false;
        return;
    }
    if (is_re_) {
        re_blind_ = true;
        for (std::size_t i = 3; i < entry.size() && re_blind_; ++i) {
            const char ch = entry[i];
            if (ch == '\\')
                re_blind_ = i + 1 < entry.size() && entry[++i] == '.';
            else if (ch == '.')
                re_blind_ = i + 1 < entry.size() && entry[i + 1] == '*';
            else if (ch == '?')
                re_blind_ = entry[i - 1] == '(' || entry[i - 1] == '*';
            else
                re_blind_ = std::string_view("[{+").find(ch) == std::string_view::npos;
        }
        try {
            re_ = std::regex(entry.substr(3));
        } catch (const std::regex_error&) {
            valid_ = false;  // a pattern std::regex cannot read names nothing here (the entry stays stated)
        }
        return;
    }
    std::string e = entry;
    while (!e.empty() && (e.back() == '.' || e.back() == '$'))
        e.pop_back();
    valid_ = !e.empty();
    (e.find('*') == std::string::npos ? path_ : glob_) = e;
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
    if (is_re_)
        return std::regex_search(module, re_, std::regex_constants::match_continuous);
    if (!glob_.empty())
        return glob_names(glob_, module);
    for (std::size_t at = module.find(path_); at != std::string::npos; at = module.find(path_, at + 1)) {
        const std::size_t end = at + path_.size();
        if ((at == 0 || module[at - 1] == '.') && (end == module.size() || module[end] == '.'))
            return true;
    }
    return false;
}

namespace {

using Modules = std::vector<std::string>;

Modules attention_modules(const TransformerConfig& c, const std::string& layer) {
    const std::string p = layer + "self_attn.";
    if (c.mla)
        return c.mla->q_lora_rank > 0
                   ? Modules{p + "q_a_proj", p + "q_b_proj", p + "kv_a_proj_with_mqa", p + "kv_b_proj", p + "o_proj"}
                   : Modules{p + "q_proj", p + "kv_a_proj_with_mqa", p + "kv_b_proj", p + "o_proj"};
    return {p + "q_proj", p + "k_proj", p + "v_proj", p + "o_proj"};
}

Modules mlp_modules(const std::string& prefix) { return {prefix + "gate_proj", prefix + "up_proj", prefix + "down_proj"}; }

// One layer's linear modules by part: attention, dense MLP, shared experts, routed (one expert's names).
struct LayerModules {
    Modules parts[4];
};

LayerModules layer_modules(const TransformerConfig& c, const ModuleNames& names, std::uint64_t i) {
    LayerModules l;
    const std::string layer = fmt::format("model.layers.{}.", i);
    l.parts[0] = attention_modules(c, layer);
    const std::string mlp = layer + names.mlp + ".";
    if (is_dense_mlp_layer(c, i)) {
        l.parts[1] = mlp_modules(mlp);
    } else {
        l.parts[3] = mlp_modules(mlp + "experts.0.");
        if (c.moe->shared_experts > 0)
            l.parts[2] = mlp_modules(mlp + names.shared + ".");
    }
    return l;
}

}  // namespace

TransformerConfig::KeptParts kept_parts(const std::vector<std::string>& entries, const TransformerConfig& c,
                                        const ModuleNames& names, std::vector<std::string>& unexplained) {
    // Every block's linear modules by part. Routed experts (one expert's names per layer) are never kept: the engine
    // stores them in the checkpoint's format, so an entry naming them stays stated.
    TransformerConfig::KeptParts k;
    if (entries.empty())
        return k;
    std::vector<ModuleEntry> read;
    read.reserve(entries.size());
    for (const std::string& e : entries)
        read.emplace_back(e);
    // The layers that decide: with every entry layer-blind, the first layer of each kind (dense, MoE) stands for all of
    // its kind; else every layer (at most kMaxLayers: the reader refuses more).
    bool blind = true;
    for (const ModuleEntry& e : read)
        blind = blind && e.layer_blind();
    std::vector<std::uint64_t> layers;
    if (blind) {
        std::uint64_t first[2] = {c.layers, c.layers};  // the first dense layer, the first MoE layer
        for (std::uint64_t i = 0; i < c.layers && (first[0] == c.layers || first[1] == c.layers); ++i) {
            std::uint64_t& f = first[is_dense_mlp_layer(c, i) ? 0 : 1];
            if (f == c.layers)
                f = i;
        }
        for (const std::uint64_t i : first)
            if (i < c.layers)
                layers.push_back(i);
    } else {
        for (std::uint64_t i = 0; i < std::min(c.layers, kMaxLayers); ++i)
            layers.push_back(i);
    }
    // part_named[p]: every module of part p in the walked layers is named (and there is one); in_kept / elsewhere per
    // entry, resolved once the kept parts are known.
    bool all_named[4] = {true, true, true, true}, any[4] = {false, false, false, false};
    std::vector<std::array<bool, 4>> names_in(entries.size(), {false, false, false, false});
    for (const std::uint64_t i : layers) {
        const LayerModules l = layer_modules(c, names, i);
        for (int p = 0; p < 4; ++p)
            for (const std::string& m : l.parts[p]) {
                any[p] = true;
                bool named = false;
                for (std::size_t e = 0; e < read.size(); ++e)
                    if ((!names_in[e][p] || !named) && read[e].names(m))
                        named = names_in[e][p] = true;
                all_named[p] = all_named[p] && named;
            }
    }
    k.attention = any[0] && all_named[0];
    k.dense_mlp = any[1] && all_named[1];
    k.shared_experts = any[2] && all_named[2];
    const bool kept[4] = {k.attention, k.dense_mlp, k.shared_experts, false};
    // An entry is explained when every block module it names lies in a kept part (and it names one).
    for (std::size_t e = 0; e < entries.size(); ++e) {
        bool in_kept = false, elsewhere = false;
        for (int p = 0; p < 4; ++p)
            if (names_in[e][p])
                (kept[p] ? in_kept : elsewhere) = true;
        if (!in_kept || elsewhere)
            unexplained.push_back(entries[e]);
    }
    return k;
}

}  // namespace bwacct::hf
