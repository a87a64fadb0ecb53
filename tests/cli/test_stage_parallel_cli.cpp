// End-to-end: pipeline parallelism of a video diffusion transformer and expert parallelism in training
// (issue 13; both were refused). Expected values are computed by hand beside them.
#include <algorithm>

#include "harness.h"

using namespace bwacct_test;

namespace {

double floor_of(const json& op) { return op.at("gpus").at(0).at("floor_us").get<double>(); }

}  // namespace

// ---- DiT pipeline: Wan2.1-T2V-14B, 40 blocks, D 5120, 2160 video tokens, bf16.

TEST(StageParallelCli, WanPp2SplitsTheBlocksAndSendsTokensTimesHidden) {
    const json doc = run_json({"model", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--pp", "2", "--micro-batches", "4",
                               "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    const json& p = doc.at("totals").at(0).at("pipeline");
    EXPECT_EQ(num_u(p, "stages"), 2u);
    // one micro-batch's [2160, 5120] hidden state in bf16: 2160 · 5120 · 2 = 22,118,400 B (seed 000's tensor)
    EXPECT_EQ(num_u(p, "send_bytes_per_micro_batch"), 22118400u);
    // stage = 40 / 2 = 20 blocks + the text and timestep embeddings (every stage) + the patch embedding (first)
    // or the head (last): the slower of the two decides
    const double block = doc.at("totals").at(0).at("layer").at("floor_us").get<double>();
    double patch = 0, every = 0, head = 0;
    for (const json& op : doc.at("ops")) {
        if (op.at("scope") != "model")
            continue;
        const std::string name = op.at("name");
        if (name == "patch_embedding")
            patch += floor_of(op);
        else if (name.rfind("text_", 0) == 0 || name.rfind("time_", 0) == 0)
            every += floor_of(op);
        else
            head += floor_of(op);  // head_modulation, head_norm, head_modulate, head_proj
    }
    EXPECT_GT(patch, 0);
    EXPECT_GT(every, 0);
    EXPECT_GT(head, 0);
    expect_rel(num_d(p, "slowest_stage_us"), 20 * block + every + std::max(patch, head), 1e-9, "slowest stage");
    // bubble (N − 1)/(M + N − 1) = 1/5; step = (M + N − 1) = 5 slots
    EXPECT_DOUBLE_EQ(num_d(p, "bubble_fraction"), 0.2);
    expect_rel(num_d(p, "step_us"), 5 * num_d(p, "slot_us"), 1e-12, "step");
    // the layer command takes it too, and a stage cannot hold less than one block
    const RunResult layer = run_bwacct({"layer", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--pp", "2", "--gpu", "h200"});
    EXPECT_TRUE(succeeded(layer)) << report(layer);
    const RunResult many = run_bwacct({"model", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--pp", "41", "--gpu", "h200"});
    EXPECT_TRUE(failed_cleanly(many, 2, "--pp")) << report(many);
}
