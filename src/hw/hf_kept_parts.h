// Which parts of every block a quantised checkpoint keeps out of its format (quantization_config's module lists),
// decided by matching each entry against the block's linear modules as transformers names them. Mapping:
// docs/formulas.md ("Hugging Face config.json").
#pragma once
#include <regex>
#include <string>
#include <vector>

#include "bwacct/transformer.h"

namespace bwacct::hf {

// The module names' conventions of a family: the MLP's container ("mlp"; Llama 4 "feed_forward") and its shared
// experts' ("shared_experts"; Qwen2-MoE and Llama 4 "shared_expert").
struct ModuleNames {
    std::string mlp = "mlp";
    std::string shared = "shared_experts";
};

// An entry's bounds: an entry longer than kMaxEntryChars; a "re:" entry with more than kMaxEntryRepeats repeats, nested deeper
// than kMaxEntryNesting, or repeating a group that itself repeats or alternates ("(.*)*", "(a|ab)+": std::regex backtracks
// exponentially on them, and deep nesting overflows its stack) is refused. entry_problem: what is wrong with `entry`, or "" when
// it can be read.
inline constexpr std::size_t kMaxEntryChars = 512;
inline constexpr std::size_t kMaxEntryNesting = 16;
inline constexpr std::size_t kMaxEntryRepeats = 4;
std::string entry_problem(const std::string& entry);

// A glob `pattern` ("*": any characters, dots included, as fnmatch) matched against a run of whole dotted components of
// `name`, in O(|pattern| · |name|) (no backtracking).
bool glob_names(const std::string& pattern, const std::string& name);

// A module-list entry, read once: "re:" entries are regular expressions matched from the start of a module's name
// (compressed-tensors), others a dotted path ("*": any characters, as fnmatch) found at component boundaries anywhere in the name
// (transformers' modules_to_not_convert; a trailing "." or "$" dropped). names(m): the entry names m or a module above it.
// An entry refused by entry_problem names nothing.
class ModuleEntry {
public:
    explicit ModuleEntry(const std::string& entry);
    bool names(const std::string& module) const;
    // The entry names a module of every layer or of none alike, so one layer of each kind decides for all: a path or glob
    // with no digit cannot tell layer numbers apart (only "*" can match them, whatever their digits), nor can a "re:"
    // entry with no digit, class, count, "+", "?" or escape but "\." whose every "." is a ".*" (re_blind).
    bool layer_blind() const { return !has_digit_ && (!is_re_ || re_blind_); }

private:
    std::string path_;  // a path without "*": found by string search (module lists may hold thousands)
    std::string glob_;  // a path with "*": glob_names
    std::regex re_;
    bool is_re_ = false;
    bool has_digit_ = false;
    bool re_blind_ = false;
    bool valid_ = true;
    // The entry names the language model of a multimodal wrapper: the modules are also tried under its prefixes
    // ("model.language_model.layers." since transformers 4.52, "language_model.model.layers." before).
    bool language_model_ = false;
    bool names_one(const std::string& module) const;
};

// The parts of `c` whose every linear module, in every layer that has the part, is named by some entry of `entries`;
// `unexplained` gets the entries that name some block module outside those parts, or none of them.
TransformerConfig::KeptParts kept_parts(const std::vector<std::string>& entries, const TransformerConfig& c,
                                        const ModuleNames& names, std::vector<std::string>& unexplained);

}  // namespace bwacct::hf
