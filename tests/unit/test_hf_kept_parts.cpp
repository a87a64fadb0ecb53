// hf_kept_parts' matching of module-list entries: globs without backtracking, "re:" entries within bounds.
#include <gtest/gtest.h>

#include <string>

#include "../../src/hw/hf_kept_parts.h"

TEST(HfKeptParts, GlobEntriesMatchWholeComponentsWithoutBacktracking) {
    EXPECT_TRUE(bwacct::hf::glob_names("model.layers.*.self_attn", "model.layers.3.self_attn.q_proj"));
    EXPECT_TRUE(bwacct::hf::glob_names("*.self_attn", "model.layers.3.self_attn.q_proj"));
    EXPECT_TRUE(bwacct::hf::glob_names("layers.*_proj", "model.layers.3.self_attn.q_proj"));  // "*" spans dots, as fnmatch
    EXPECT_FALSE(bwacct::hf::glob_names("layers.*.mlp", "model.layers.3.self_attn.q_proj"));
    EXPECT_FALSE(bwacct::hf::glob_names("self*.q", "model.layers.3.self_attn.q_proj"));  // "q" is not a whole component
    EXPECT_FALSE(bwacct::hf::glob_names("ayers.*", "model.layers.3.self_attn.q_proj"));  // nor "ayers"
    // Eight stars then a letter the name lacks: was > 120 s with std::regex; O(|pattern|·|name|) here.
    EXPECT_FALSE(bwacct::hf::glob_names("********Z", "model.layers.12345.self_attn.kv_a_proj_with_mqa.weight.abcdefghijklmnop"));
    EXPECT_TRUE(bwacct::hf::glob_names("********j", "model.layers.12345.self_attn.kv_a_proj_with_mqa.weight.abcdefghij"));
}

TEST(HfKeptParts, ModuleListEntryBounds) {
    EXPECT_EQ(bwacct::hf::entry_problem("re:.*self_attn.*"), "");
    EXPECT_EQ(bwacct::hf::entry_problem(R"(re:.*mlp\.(gate|up|gate_up|down)_proj.*)"), "");
    EXPECT_EQ(bwacct::hf::entry_problem(R"(re:model\.layers\.\d+\.mlp\.experts\.\d+\.(gate|up)_proj$)"), "");
    EXPECT_NE(bwacct::hf::entry_problem("re:(.*)*Z"), "");       // exponential backtracking: ran for minutes
    EXPECT_NE(bwacct::hf::entry_problem("re:(a|ab)+Z"), "");     // so does a repeated alternation
    EXPECT_NE(bwacct::hf::entry_problem("re:.*.*.*.*.*Z"), "");  // five repeats: degree-5 backtracking
    EXPECT_NE(bwacct::hf::entry_problem("re:" + std::string(17, '(') + "a" + std::string(17, ')')), "");
    EXPECT_NE(bwacct::hf::entry_problem(std::string(513, 'a')), "");
    EXPECT_EQ(bwacct::hf::entry_problem(std::string(512, 'a')), "");
}

TEST(HfKeptParts, EntriesThatCannotTellLayersApartAreLayerBlind) {
    using bwacct::hf::ModuleEntry;
    EXPECT_TRUE(ModuleEntry("model.layers.*.self_attn").layer_blind());
    EXPECT_TRUE(ModuleEntry("re:.*self_attn.*").layer_blind());
    EXPECT_TRUE(ModuleEntry(R"(re:.*mlp\.(gate|up|gate_up|down)_proj.*)").layer_blind());
    EXPECT_FALSE(ModuleEntry("model.layers.0.self_attn").layer_blind());         // a digit
    EXPECT_FALSE(ModuleEntry(R"(re:.*layers\..\.self_attn)").layer_blind());     // "." matches one-digit layers only
    EXPECT_FALSE(ModuleEntry(R"(re:.*layers\.\d\.self_attn)").layer_blind());    // a class escape
    EXPECT_FALSE(ModuleEntry(R"(re:.*layers\.[^1]\.self_attn)").layer_blind());  // a class
    EXPECT_FALSE(ModuleEntry(R"(re:.*layers\..+.+\.self_attn)").layer_blind());  // "+": two digits at least
}
