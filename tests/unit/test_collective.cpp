#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"

using namespace bwacct;

TEST(Collective, BusFactorsAreNcclTests) {
    // nccl-tests *GetBw: allreduce 2(n−1)/n; allgather, reducescatter, alltoall (n−1)/n; others 1.
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::allreduce, 8), 14.0 / 8);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::allreduce, 2), 1.0);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::allgather, 8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::reducescatter, 16), 15.0 / 16);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::alltoall, 4), 3.0 / 4);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::broadcast, 8), 1.0);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::reduce, 8), 1.0);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::sendrecv, 8), 1.0);
}

TEST(Collective, SeedZeroAllreduce) {
    CollectiveDesc d;
    d.size_bytes = 1ull * 2160 * 5120 * 2;  // [1,2160,5120] bf16 = 22,118,400 B
    d.ranks = 2;
    const Cost c = collective_cost(d);
    ASSERT_TRUE(c.collective);
    EXPECT_EQ(c.collective->size_bytes, 22118400u);
    // Ring: each rank sends 2(n−1)/n·S = S at n = 2, in 2(n−1) = 2 steps
    EXPECT_EQ(c.collective->wire_bytes_per_rank, 22118400u);
    EXPECT_EQ(c.collective->steps, 2u);
    EXPECT_EQ(c.flops, 0u);
}

TEST(Collective, SeedFourRingVolume) {
    // Seed 004 §4: 4 GPUs, M = 1 GB: each GPU transmits 2·(4−1)/4 · 1 GB = 1.5 GB.
    CollectiveDesc d;
    d.size_bytes = 1000000000;
    d.ranks = 4;
    const Cost c = collective_cost(d);
    EXPECT_EQ(c.collective->wire_bytes_per_rank, 1500000000u);
    EXPECT_EQ(c.collective->steps, 6u);  // 2(n−1)
}

TEST(Collective, AllgatherSizeIsTotal) {
    CollectiveDesc d;
    d.kind = CollectiveKind::allgather;
    d.size_bytes = 8 * 1024;  // total across 8 ranks: 1 KiB each
    d.ranks = 8;
    const Cost c = collective_cost(d);
    // (n−1)/n · S = 7 · 1024
    EXPECT_EQ(c.collective->wire_bytes_per_rank, 7168u);
    EXPECT_EQ(c.bytes_read, 1024u);     // own shard
    EXPECT_EQ(c.bytes_written, 8192u);  // whole output
    d.size_bytes = 1001;
    EXPECT_THROW(collective_cost(d), InputError);
}

TEST(Collective, TreeAndNvls) {
    CollectiveDesc d;
    d.size_bytes = 1 << 20;
    d.ranks = 8;
    d.algo = CollectiveAlgo::tree;
    EXPECT_EQ(collective_cost(d).collective->steps, 6u);  // 2·ceil(log2 8)
    d.algo = CollectiveAlgo::nvls;
    // NVLS allreduce: S·(n+1)/n = 1,048,576 · 9/8 = 1,179,648 B per direction, 2 steps
    EXPECT_EQ(collective_cost(d).collective->wire_bytes_per_rank, 1179648u);
    d.kind = CollectiveKind::broadcast;
    EXPECT_THROW(collective_cost(d), InputError);
    d.algo = CollectiveAlgo::tree;
    EXPECT_THROW(collective_cost(d), InputError);
}

TEST(Collective, BadInput) {
    CollectiveDesc d;
    d.size_bytes = 1024;
    d.ranks = 1;
    EXPECT_THROW(collective_cost(d), InputError);
    d.ranks = 2;
    d.size_bytes = 3;  // not a whole number of bf16 elements
    EXPECT_THROW(collective_cost(d), InputError);
}

// gather and scatter (nccl-tests' GatherGetBw / ScatterGetBw): S is the root's whole buffer, n shards of S/n;
// busbw factor (n−1)/n; the root's link carries the n − 1 other shards. S = 134,217,728 B over n = 2:
// wire (2 − 1) · 134217728 / 2 = 67,108,864 B; gather's root reads its shard (67,108,864 B) and writes S,
// scatter's reads S and writes its shard. S = 100 over 8 ranks does not divide: refused naming --bytes.
TEST(Collective, GatherAndScatterAtTheRoot) {
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::gather, 8), 7.0 / 8);
    EXPECT_DOUBLE_EQ(bus_factor(CollectiveKind::scatter, 2), 0.5);
    CollectiveDesc d;
    d.kind = CollectiveKind::gather;
    d.ranks = 2;
    d.size_bytes = 134217728;
    d.dtype = DType::fp32;
    const Cost g = collective_cost(d);
    ASSERT_TRUE(g.collective.has_value());
    EXPECT_EQ(g.collective->wire_bytes_per_rank, 67108864u);
    EXPECT_EQ(g.bytes_read, 67108864u);
    EXPECT_EQ(g.bytes_written, 134217728u);
    d.kind = CollectiveKind::scatter;
    const Cost s = collective_cost(d);
    EXPECT_EQ(s.collective->wire_bytes_per_rank, 67108864u);
    EXPECT_EQ(s.bytes_read, 134217728u);
    EXPECT_EQ(s.bytes_written, 67108864u);
    EXPECT_EQ(collective_name(CollectiveKind::scatter), "scatter");
    d.ranks = 8;
    d.size_bytes = 100;
    try {
        (void)collective_cost(d);
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--bytes");
    }
}
