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

// ---- Expert parallelism in training: Mixtral-8x7B (D 4096, 8 experts of ffn 14336, top-2), one sequence of
// 4096 tokens, bf16.

namespace {

std::vector<std::string> op_names(const json& doc, const std::string& prefix) {
    std::vector<std::string> out;
    for (const json& op : doc.at("ops"))
        if (op.at("scope") == "layer" && op.at("name").get<std::string>().rfind(prefix, 0) == 0)
            out.push_back(op.at("name"));
    return out;
}

u64 size_of(const json& op) { return num_u(op.at("collective"), "size_bytes"); }

const json& layer_op(const json& doc, const std::string& name) {
    for (const json& op : doc.at("ops"))
        if (op.at("scope") == "layer" && op.at("name") == name)
            return op;
    ADD_FAILURE() << "no op " << name;
    static const json none = json::object();
    return none;
}

}  // namespace

TEST(StageParallelCli, MixtralTrainingEp2Tp2SendsEveryAllToAllBothWays) {
    const json doc = run_json({"layer", "--preset", "mixtral-8x7b", "--phase", "training", "--seq", "4096", "--tp", "2", "--ep",
                               "2", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    // dispatch and combine, each forward and backward (the gradients of the same rows, the other way)
    const std::vector<std::string> a2a = op_names(doc, "alltoall experts");
    const std::vector<std::string> want{"alltoall experts dispatch (fwd)", "alltoall experts dispatch (bwd)",
                                        "alltoall experts combine (fwd)", "alltoall experts combine (bwd)"};
    EXPECT_EQ(a2a, want);
    // each TP rank routes 4096 / 2 = 2048 tokens · k 2 = 4096 rows of 4096 bf16: 4096 · 4096 · 2 = 33,554,432 B
    for (const std::string& n : a2a)
        EXPECT_EQ(size_of(layer_op(doc, n)), 33554432u) << n;
    // the TP share of the tokens is gathered back in the forward, and dX in the backward: [4096, 4096] bf16
    EXPECT_EQ(size_of(layer_op(doc, "allgather mlp_out (ep) (fwd)")), 33554432u);
    EXPECT_EQ(size_of(layer_op(doc, "allgather mlp_in grad (ep) (bwd)")), 33554432u);
    // and no Megatron `f` all-reduce before the MoE layer (its tokens are sliced, not its weights)
    EXPECT_TRUE(op_names(doc, "allreduce mlp_in").empty());
    // grouped gate/up GEMM per rank, forward + two backward GEMMs: 3 · 2 · 4096 rows · 4096 · 2·14336
    // = 6 · 4096 · 4096 · 28672 = 2,886,218,022,912 FLOPs
    EXPECT_EQ(num_u(layer_op(doc, "experts_gate_up"), "flops"), 2886218022912u);
}

TEST(StageParallelCli, MixtralTrainingEp2RecomputeRepeatsTheForwardAllToAlls) {
    const json doc = run_json({"layer", "--preset", "mixtral-8x7b", "--phase", "training", "--seq", "4096", "--ep", "2",
                               "--recompute", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    const std::vector<std::string> a2a = op_names(doc, "alltoall experts");
    ASSERT_EQ(a2a.size(), 6u);  // dispatch and combine × (fwd, recompute, bwd)
    // tp 1: all 4096 tokens · 2 = 8192 rows · 4096 · 2 B = 67,108,864 B
    EXPECT_EQ(size_of(layer_op(doc, "alltoall experts combine (recompute)")), 67108864u);
    EXPECT_TRUE(op_names(doc, "allgather").empty());  // tp 1: nothing to gather
}
