// Expert parallelism (--ep): the all-to-all bytes per rank, the experts a rank holds and reads, and
// the refusals. Expected values computed by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "bwacct/error.h"
#include "bwacct/expert_parallel.h"
#include "bwacct/model_preset.h"

using namespace bwacct;

namespace {

LayerRun decode(std::uint64_t batch, std::uint64_t tp, std::uint64_t ep) {
    LayerRun r;
    r.phase = Phase::decode;
    r.batch = batch;
    r.seq = 1;
    r.context = 4096;
    r.tp = tp;
    r.ep = ep;
    return r;
}

std::vector<const LayerOp*> named(const std::vector<LayerOp>& ops, const std::string& prefix) {
    std::vector<const LayerOp*> out;
    for (const LayerOp& o : ops)
        if (o.name.rfind(prefix, 0) == 0)
            out.push_back(&o);
    return out;
}

std::string option_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.option();
    }
    return "";
}

}  // namespace

TEST(ExpertParallel, MixtralDecodeBatch16OnFourRanks) {
    const TransformerConfig mixtral = load_model_preset("mixtral-8x7b", "--preset");
    const LayerRun run = decode(16, 1, 4);
    const ExpertParallel e = expert_parallel(mixtral, run);
    EXPECT_EQ(e.local_experts, 2u);     // 8 experts / 4 ranks
    EXPECT_EQ(e.tokens_per_rank, 16u);  // tp 1: the rank's own 16 tokens
    EXPECT_EQ(e.rows_per_rank, 32u);    // 16 tokens · top-2
    // send buffer 32 rows · 4096 · 2 B = 262,144 B; (4 − 1)/4 of it leaves the rank: 196,608 B per direction
    EXPECT_EQ(e.a2a_bytes, 262144u);
    EXPECT_EQ(e.wire_bytes, 196608u);
    // the group routes 4 · 16 = 64 tokens: each local expert untouched with probability (1 − 2/8)^64
    EXPECT_NEAR(e.touched_per_rank, 2 * (1 - std::pow(0.75, 64)), 1e-12);
    const auto ops = transformer_layer_ops(mixtral, run);
    const auto a2a = named(ops, "alltoall experts");
    ASSERT_EQ(a2a.size(), 2u);  // dispatch and combine
    for (const LayerOp* o : a2a) {
        EXPECT_EQ(o->cost.collective->kind, CollectiveKind::alltoall);
        EXPECT_EQ(o->cost.collective->size_bytes, 262144u);
        EXPECT_EQ(o->cost.collective->wire_bytes_per_rank, 196608u);
        EXPECT_EQ(o->cost.collective->ranks, 4u);
    }
    // whole experts: gate+up 2 · 32 · 4096 · 2 · 14,336 = 7,516,192,768 FLOPs
    EXPECT_EQ(named(ops, "experts_gate_up").front()->cost.flops, 7516192768ull);
    // no all-reduce after the MoE at tp 1
    EXPECT_TRUE(named(ops, "allreduce mlp_out").empty());
    // weights per rank: 32 layers · 2 experts · 3 · 4096 · 14,336 · 2 B = 22,548,578,304 B
    EXPECT_EQ(routed_expert_bytes_per_rank(mixtral, run).value(), 22548578304ull);
}

TEST(ExpertParallel, UnderTpEachRankDispatchesItsShareAndGathersBack) {
    const TransformerConfig mixtral = load_model_preset("mixtral-8x7b", "--preset");
    const auto ops = transformer_layer_ops(mixtral, decode(16, 2, 2));
    // 16 tokens / tp 2 = 8 per rank, 16 rows: 16 · 4096 · 2 = 131,072 B, half of it leaves: 65,536 B
    const auto a2a = named(ops, "alltoall experts");
    ASSERT_EQ(a2a.size(), 2u);
    EXPECT_EQ(a2a[0]->cost.collective->size_bytes, 131072u);
    EXPECT_EQ(a2a[0]->cost.collective->wire_bytes_per_rank, 65536u);
    // the all-gather of [16, 4096] bf16 = 131,072 B replaces the MLP's all-reduce
    const auto gather = named(ops, "allgather mlp_out (ep)");
    ASSERT_EQ(gather.size(), 1u);
    EXPECT_EQ(gather[0]->cost.collective->size_bytes, 131072u);
    EXPECT_TRUE(named(ops, "allreduce mlp_out").empty());
    EXPECT_EQ(named(ops, "allreduce attn_out").size(), 1u);  // attention stays tensor-parallel
}

TEST(ExpertParallel, RefusesWhatItCannotSplit) {
    const TransformerConfig mixtral = load_model_preset("mixtral-8x7b", "--preset");
    const TransformerConfig llama = load_model_preset("llama3-8b", "--preset");
    EXPECT_EQ(option_of([&] { (void)transformer_layer_ops(mixtral, decode(16, 1, 3)); }), "--ep");  // 8 % 3
    EXPECT_EQ(option_of([&] { (void)transformer_layer_ops(llama, decode(16, 1, 2)); }), "--ep");    // no experts
    EXPECT_EQ(option_of([&] { (void)transformer_layer_ops(mixtral, decode(3, 2, 2)); }), "--ep");   // 3 tokens, tp 2
    // training is modelled (it was refused): dispatch and combine, forward and backward
    LayerRun t = decode(16, 1, 2);
    t.phase = Phase::training;
    t.seq = t.context = 128;
    EXPECT_EQ(option_of([&] { (void)transformer_layer_ops(mixtral, t); }), "");
    EXPECT_EQ(named(transformer_layer_ops(mixtral, t), "alltoall experts").size(), 4u);
    LayerRun many = decode(16, 1, 4);
    many.experts_touched = 3;  // a rank holds 2
    EXPECT_EQ(option_of([&] { (void)transformer_layer_ops(mixtral, many); }), "--experts-touched");
}
