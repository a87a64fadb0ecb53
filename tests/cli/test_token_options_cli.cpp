// End-to-end: the token-count options of `layer` and `model` (--seq, --tokens, --context, --prompt, --output,
// --text-tokens) name their kind when refused ("token count", not "size" or "integer") and take K/M
// suffixes as powers of 1024 (issue 13).
#include "harness.h"

using namespace bwacct_test;

TEST(TokenOptionsCli, BadTokenCountsNameTheKind) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
        {"--context", {"model", "--preset", "llama3-8b", "--phase", "decode", "--gpu", "h200", "--context"}},
        {"--context", {"model", "--preset", "llama3-8b", "--fit", "--gpu", "h200", "--context"}},
        {"--prompt", {"model", "--preset", "llama3-8b", "--phase", "generate", "--output", "4", "--gpu", "h200", "--prompt"}},
        {"--output", {"model", "--preset", "llama3-8b", "--phase", "generate", "--prompt", "16", "--gpu", "h200", "--output"}},
        {"--text-tokens", {"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--gpu", "h200", "--text-tokens"}},
        {"--seq", {"layer", "--preset", "llama3-8b", "--gpu", "h200", "--seq"}},
    };
    for (const auto& [option, args] : cases)
        for (const char* bad : {"12Q", "abc", "1.1K", "-4"}) {
            const RunResult r = run_bwacct(with(args, {bad}));
            EXPECT_TRUE(failed_cleanly(r, 2, option)) << report(r);
            EXPECT_NE(r.err.find("token count"), std::string::npos) << report(r);
            EXPECT_EQ(r.err.find("size"), std::string::npos) << report(r);
        }
}

TEST(TokenOptionsCli, SuffixesArePowersOf1024) {
    // --prompt 1K --output 1k = 1024 and 1024 tokens: the same report as the plain numbers (1,024 decode
    // steps: a longer generation only costs time under the sanitizers)
    const std::vector<std::string> gen{"model", "--preset", "llama3-8b", "--phase", "generate",
                                       "--gpu", "h200",     "--format",  "json"};
    const json a = run_json(with(gen, {"--prompt", "1K", "--output", "1k"}));
    ASSERT_FALSE(a.is_null());
    EXPECT_EQ(num_u(a.at("run"), "prompt"), 1024u);
    EXPECT_EQ(num_u(a.at("run"), "output"), 1024u);
    EXPECT_EQ(a, run_json(with(gen, {"--prompt", "1024", "--output", "1024"})));
    // --text-tokens 1K = 1024 text tokens; --context 32K = 32768
    const json t = run_json(
        {"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--text-tokens", "1K", "--gpu", "h200", "--format", "json"});
    EXPECT_EQ(t, run_json({"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--text-tokens", "1024", "--gpu", "h200",
                           "--format", "json"}));
    const json f = run_json({"model", "--preset", "llama3-8b", "--fit", "--context", "32K", "--gpu", "h200", "--format", "json"});
    EXPECT_EQ(num_u(f.at("run"), "context"), 32768u);
}
