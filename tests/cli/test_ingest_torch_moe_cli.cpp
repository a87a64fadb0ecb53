// End-to-end: `bwacct ingest torch-trace --hf-config FILE` on the real vLLM trace (gpt-oss-120b on 8×B200, TP 8),
// whose vllm::moe_forward ops hold only the hidden states [888, 3072] and the router logits [888, 128]: the
// expert GEMMs are costed from the real gpt-oss-120b config.json (tests/data/models/), hand-computed below.
#include <gtest/gtest.h>

#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::string kTrace = std::string(BWACCT_TEST_DATA) + "/kineto/kineto_b200_vllm_moe_eager_tracelens.json.gz";
std::string model(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/models/" + name + ".config.json"; }

json ingest(std::initializer_list<std::string> more) {
    return run_json(with({"ingest", "torch-trace", kTrace, "--gpu", "b200", "--format", "json"}, more));
}

const json& category_row(const json& doc, const std::string& category) {
    for (const json& row : doc["sections"]["by_category"]["rows"])
        if (row["category"] == category)
            return row;
    ADD_FAILURE() << "no category " << category;
    static const json none;
    return none;
}

double unaccounted_share(const json& doc) {
    double busy = 0, unaccounted = 0;
    for (const json& row : doc["sections"]["gpu_time"]["rows"]) {
        if (row["what"] == "busy")
            busy = row["us"].get<double>();
        if (row["what"] == "busy_unaccounted")
            unaccounted = row["us"].get<double>();
    }
    return unaccounted / busy;
}

const json* moe_record(const json& doc) {
    for (const json& r : doc["records"])
        if (r["params"]["torch_op"] == "vllm::moe_forward")
            return &r;
    return nullptr;
}

bool has_note(const json& doc, const char* key, const std::string& what) {
    for (const json& n : doc[key])
        if (n.get<std::string>().find(what) != std::string::npos)
            return true;
    return false;
}

TEST(IngestTorchMoeCli, GptOssExpertsCostedFromTheConfig) {
    const json before = ingest({});
    const json after = ingest({"--hf-config", model("gpt-oss-120b")});
    // Without the config the MoE kernels (51.8 % of busy time) have no formula; with it none is left.
    EXPECT_GT(category_row(before, "moe")["uncosted_busy_us"].get<double>(), 0.0);
    EXPECT_EQ(moe_record(before), nullptr);
    EXPECT_EQ(category_row(after, "moe")["uncosted_busy_us"].get<double>(), 0.0);
    EXPECT_EQ(category_row(after, "moe")["costed"], category_row(after, "moe")["kernels"]);
    EXPECT_LT(unaccounted_share(after), unaccounted_share(before) - 0.5);  // measured: 56.1 % → 4.3 %

    const json* r = moe_record(after);
    ASSERT_NE(r, nullptr);
    const json& p = (*r)["params"];
    EXPECT_EQ(p["shapes_from"], "--hf-config");
    EXPECT_EQ(p["calls"], 36);
    EXPECT_EQ(p["kernels"], 252);  // 7 kernels a call: quantize, 3 routing, 2 grouped GEMMs, finalize
    EXPECT_EQ(p["degree"], 8);     // the attention op's q [888, 8, 64]: 64 query heads / 8 per rank
    EXPECT_NE(p["degree_from"].get<std::string>().find("holds 8 of the config's 64 query heads"), std::string::npos);
    // FLOPs per call per rank: 2·T·k·3·H·I / d = 2·888·4·3·2880·2880 / 8 = 176,770,252,800 / 8 = 22,096,281,600
    EXPECT_EQ(num_u(*r, "flops"), 22096281600u);
    // Weights: one expert in MXFP4 = gate_up 2880·5760·4/8 + 5760·90 scales (8,812,800)
    //                               + down 2880·2880·4/8 + 2880·90 scales (4,406,400) = 13,219,200 B;
    // experts touched 128·(1 − (124/128)^888) = 128 − 7e-11 → round(128·13,219,200 / 8) = 211,507,200 B per rank.
    // Activations at the trace's dims: hidden [888, 3072] bf16 = 5,455,872 B and logits [888, 128] = 227,328 B read,
    // output [888, 3072] = 5,455,872 B written.
    EXPECT_EQ(num_u(*r, "bytes_read"), 211507200u + 5455872u + 227328u);
    EXPECT_EQ(num_u(*r, "bytes_written"), 5455872u);
    EXPECT_TRUE(has_note(after, "notes", "36 MoE ops costed from --hf-config"));
    EXPECT_TRUE(has_note(after, "notes", "limitation: attention sinks"));
    // Nothing else moved: the other categories keep their costed kernels.
    EXPECT_EQ(category_row(after, "gemm")["costed"], category_row(before, "gemm")["costed"]);
}

TEST(IngestTorchMoeCli, DenseConfigCostsNothingAndSaysSo) {
    const json doc = ingest({"--hf-config", model("llama-3-8b")});
    EXPECT_TRUE(has_note(doc, "notes", "has no routed experts; no op costed from it"));
    EXPECT_GT(category_row(doc, "moe")["uncosted_busy_us"].get<double>(), 0.0);
    EXPECT_EQ(moe_record(doc), nullptr);
}

TEST(IngestTorchMoeCli, ExpertCountThatDoesNotMatchTheTraceNamesBoth) {
    // Mixtral 8x7B routes over 8 experts; the trace's router logits are [888, 128].
    const json doc = ingest({"--hf-config", model("mixtral-8x7b")});
    const std::string reason = category_row(doc, "moe")["reason"].get<std::string>();
    EXPECT_NE(reason.find("give 128 experts"), std::string::npos) << reason;
    EXPECT_NE(reason.find("has 8 routed experts"), std::string::npos) << reason;
    EXPECT_TRUE(has_note(doc, "warnings", "36 MoE ops not costed from --hf-config"));
    EXPECT_EQ(moe_record(doc), nullptr);
}

TEST(IngestTorchMoeCli, TpThatAgreesWithTheTraceIsAccepted) {
    const json doc = ingest({"--hf-config", model("gpt-oss-120b"), "--tp", "8"});
    const json* r = moe_record(doc);
    ASSERT_NE(r, nullptr);
    EXPECT_NE((*r)["params"]["degree_from"].get<std::string>().find("--tp agrees"), std::string::npos);
}

}  // namespace
