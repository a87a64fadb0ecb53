// End-to-end: `bwacct ingest torch-trace` costs a serving engine's paged-KV attention where the trace
// fixes the sequence lengths: the SGLang trace's aiter::mha_batch_prefill (src/ingest/
// kineto_cost_paged_attention.cpp; the unit arithmetic in tests/unit/test_kineto_paged_attention.cpp).
#include <gtest/gtest.h>

#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

std::string data(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/kineto/" + name; }
const std::string kSglang = "kineto_mi300x_sglang_qwen3_8b_prefilldecode_tracelens.json.gz";

TEST(IngestTorchAttentionCli, SglangPagedPrefillCosted) {
    const json doc = run_json({"ingest", "torch-trace", data(kSglang), "--gpu", "mi300x", "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    const json* att = nullptr;
    for (const json& r : doc["records"])
        if (r["params"]["torch_op"] == "aiter::mha_batch_prefill")
            att = &r;
    ASSERT_NE(att, nullptr) << "no aiter::mha_batch_prefill record";
    EXPECT_EQ((*att)["op"], "attention");
    // cu_seqlens_q [16] ⇒ B = 15; Σq = 15360 = 15·1024 = B·max_seqlen_q ⇒ q = 1024; the cache holds the new
    // tokens (kv ≥ 1024) and kv ≤ max_seqlen_k = 1024 ⇒ kv = 1024; the cache's 835874 slots are capacity.
    EXPECT_EQ((*att)["params"]["batch"], 15);
    EXPECT_EQ((*att)["params"]["q_len"], 1024);
    EXPECT_EQ((*att)["params"]["kv_len"], 1024);
    EXPECT_EQ((*att)["params"]["kv_heads"], 8);
    EXPECT_EQ((*att)["params"]["causal"], true);
    EXPECT_EQ((*att)["params"]["calls"], 36);
    // FLOPs 4·15·32·(1024·1024 − 1024·1023/2)·128 = 4·15·32·524800·128 = 128,974,848,000;
    // bytes Q + O 2·15·32·1024·128·2 = 251,658,240 plus K + V 2·15·8·1024·128·2 = 62,914,560: 314,572,800.
    EXPECT_EQ(num_u(*att, "flops"), 128974848000u);
    EXPECT_EQ(num_u(*att, "bytes"), 314572800u);
    // Its kernels are costed: the attention category's only uncosted kernel is the one without a CPU op
    // (create_flashinfer_kv_indices_triton, 4.686 µs), and the busy time without a formula is under 0.1 %
    // (it was 4.1 %: 20121.28 µs of 492806.86 µs, the aiter kernels' 20075.16 µs among it).
    for (const json& row : doc["sections"]["by_category"]["rows"])
        if (row["category"] == "attention") {
            EXPECT_EQ(row["costed"], 36);
            EXPECT_LT(row["uncosted_busy_us"].get<double>(), 5.0);
        }
    for (const json& row : doc["sections"]["by_roof"]["rows"])
        if (row["roof"] == "unaccounted (no formula)") {
            EXPECT_LT(row["busy_share"].get<double>(), 0.1);
        }
}

}  // namespace
