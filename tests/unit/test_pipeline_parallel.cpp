// Pipeline parallelism (--pp, --micro-batches): stage assignment, bytes between stages, the bubble.
// Expected values computed by hand in the comments.
#include <gtest/gtest.h>

#include <functional>

#include "bwacct/dit.h"
#include "bwacct/error.h"
#include "bwacct/model_preset.h"
#include "bwacct/pipeline_parallel.h"

using namespace bwacct;

namespace {

std::string option_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.option();
    }
    return "";
}

}  // namespace

TEST(PipelineParallel, StagesSplitTheLayersInOrder) {
    // Llama 3 70B: 80 layers over 3 stages = 27, 27, 26 (80 = 3·26 + 2: the first two get one more)
    const auto llama = pipeline_stages(load_model_preset("llama3-70b", "--preset"), 3);
    ASSERT_EQ(llama.size(), 3u);
    EXPECT_EQ(llama[0].dense, 27u);
    EXPECT_EQ(llama[1].dense, 27u);
    EXPECT_EQ(llama[2].dense, 26u);
    EXPECT_TRUE(llama[0].first && !llama[0].last && llama[2].last);
    // DeepSeek-V3: 61 layers over 4 = 16, 15, 15, 15; its 3 dense-first layers are on stage 0
    const auto ds = pipeline_stages(load_model_preset("deepseek-v3", "--preset"), 4);
    EXPECT_EQ(ds[0].dense, 3u);
    EXPECT_EQ(ds[0].moe, 13u);
    EXPECT_EQ(ds[1].dense + ds[1].moe, 15u);
    EXPECT_EQ(ds[3].moe, 15u);
}

TEST(PipelineParallel, BubbleAndSendBytes) {
    // GPipe / 1F1B: (N − 1)/(M + N − 1); 4 stages, 8 micro-batches: 3/11
    EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(4, 8), 3.0 / 11.0);
    EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(2, 1), 0.5);
    LayerRun r;
    r.phase = Phase::prefill;
    r.seq = r.context = 4096;
    r.pp = 4;
    // [4096, 8192] bf16 = 4096·8192·2 = 67,108,864 B per micro-batch per boundary
    const TransformerConfig llama = load_model_preset("llama3-70b", "--preset");
    EXPECT_EQ(stage_send_bytes(llama, r).value(), 67108864u);
    const auto ops = stage_sendrecv_ops(llama, r);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0].cost.collective->kind, CollectiveKind::sendrecv);
    EXPECT_EQ(ops[0].cost.collective->wire_bytes_per_rank, 67108864u);
    // training sends the gradient back too
    r.phase = Phase::training;
    EXPECT_EQ(stage_sendrecv_ops(llama, r).size(), 2u);
    // a DiT sends the [tokens, hidden] state only (each stage computes the text context and the modulation
    // rows from the given inputs): 2160·5120·2 = 22,118,400 B
    LayerRun d;
    d.seq = d.context = 2160;
    EXPECT_EQ(stage_send_bytes(load_model_preset("wan2.1-t2v-14b", "--preset"), d).value(), 22118400u);
}

TEST(PipelineParallel, RefusesImpossibleSplits) {
    const TransformerConfig llama = load_model_preset("llama3-8b", "--preset");
    LayerRun r;
    r.pp = 33;  // 32 layers
    EXPECT_EQ(option_of([&] { validate_pp(llama, r); }), "--pp");
    r.pp = 1;
    r.micro_batches = 4;
    EXPECT_EQ(option_of([&] { validate_pp(llama, r); }), "--micro-batches");
    TransformerConfig no_layers = llama;
    no_layers.layers = 0;
    r.pp = 2;
    r.micro_batches = 1;
    EXPECT_EQ(option_of([&] { validate_pp(no_layers, r); }), "--pp");
}
