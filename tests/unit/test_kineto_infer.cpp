// Kernels with no CPU launch record at all (queued before the profiler started) linked to the op of the
// kernel in the same place of a repeated kernel sequence (src/ingest/kineto_infer.cpp). Synthetic
// traces built here: a "step" is twelve kernels k0..k11, one µs each, kernel i launched by aten::mm of
// M = 16·(i+1), N = 32, K = 64 (float), so each place has its own cost group; and a check on the real
// ResNet trace with the links of its first kernels removed.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>

#include "bwacct/ingest_kineto.h"

namespace {

using namespace bwacct::kineto;

constexpr std::size_t kStep = 12;

struct Builder {
    Trace t;
    std::int64_t id = 0;

    std::uint32_t name(const std::string& s) {
        for (std::size_t i = 0; i < t.names.size(); ++i)
            if (t.names[i] == s)
                return static_cast<std::uint32_t>(i);
        t.names.push_back(s);
        return static_cast<std::uint32_t>(t.names.size() - 1);
    }
    GpuActivity kernel(std::size_t i, double ts) {
        GpuActivity g;
        g.name = name("k" + std::to_string(i));
        g.ts = ts;
        g.dur = 1;
        g.stream = 7;
        return g;
    }
    // Kernel i at `ts`, launched 1 µs before by aten::mm of M = m (External id and correlation id).
    void linked(std::size_t i, double ts, std::int64_t m) {
        ++id;
        CpuOp o;
        o.name = name("aten::mm");
        o.ts = ts - 1.5;
        o.dur = 1;
        o.external_id = id;
        o.dims = std::vector<std::vector<std::int64_t>>{{m, 64}, {64, 32}};
        o.types = std::vector<std::string>{"float", "float"};
        t.ops.push_back(o);
        t.launches.push_back({0, ts - 1, 0.5, id, id});
        GpuActivity g = kernel(i, ts);
        g.external_id = id;
        g.correlation = id;
        t.activities.push_back(g);
    }
    // Kernel i at `ts` with a correlation id no launch record has (queued before the profiler started).
    void unlinked(std::size_t i, double ts) {
        GpuActivity g = kernel(i, ts);
        g.correlation = 100000 + static_cast<std::int64_t>(t.activities.size());
        t.activities.push_back(g);
    }
    // Step s: kernels at 100·s + 2·i; `m_of(i)` the M of kernel i's op; unlinked steps have no op.
    template <class F>
    void step(std::size_t s, bool with_ops, F m_of) {
        for (std::size_t i = 0; i < kStep; ++i) {
            const double ts = 100.0 * static_cast<double>(s) + 2.0 * static_cast<double>(i);
            if (with_ops)
                linked(i, ts, m_of(i));
            else
                unlinked(i, ts);
        }
    }
    void step(std::size_t s, bool with_ops) {
        step(s, with_ops, [](std::size_t i) { return static_cast<std::int64_t>(16 * (i + 1)); });
    }
};

std::int64_t m_of(const Trace& t, const Links& l, std::size_t a) { return t.ops[static_cast<std::size_t>(l.op[a])].dims[0][0]; }

// Steps 0 (unlinked), 1 and 2 (linked), 36 kernels on one stream. Kernel i of step 0 sits at position i:
// k0..k7 have fewer than 8 kernels before them (the stream's start) and take the context after them
// (themselves and the 8 after, found at positions 12 + i of step 1); k8..k11 take the whole context of
// 17 names (positions i − 8 .. i + 8, found at 12 + i). Every one of them gets the op of kernel i of
// step 1: M = 16·(i+1).
TEST(KinetoInfer, HeadOfARepeatedSequenceGetsTheOpOfItsTwin) {
    Builder b;
    b.step(0, false);
    b.step(1, true);
    b.step(2, true);
    const Links l = link_activities(b.t);
    for (std::size_t i = 0; i < kStep; ++i) {
        ASSERT_EQ(l.how[i], LinkHow::inferred) << "k" << i;
        EXPECT_EQ(m_of(b.t, l, i), static_cast<std::int64_t>(16 * (i + 1))) << "k" << i;
    }
    // The summary: 24 linked by External id, 12 inferred. Group M=16 N=32 K=64: the ops of steps 1 and 2
    // (2 calls, 2 kernels) and the inferred k0 of step 0 (1 kernel per call among the linked: 1 more
    // call): 3 calls, 3 kernels, 3 µs; a time per call of 1 µs, as measured.
    const Summary s = summarize(b.t, l);
    EXPECT_EQ(s.linked[static_cast<std::size_t>(LinkHow::external_id)], 24u);
    EXPECT_EQ(s.linked[static_cast<std::size_t>(LinkHow::inferred)], 12u);
    EXPECT_EQ(s.linked[static_cast<std::size_t>(LinkHow::none)], 0u);
    EXPECT_EQ(s.uncosted_kernels, 0u);
    bool seen = false;
    for (const Group& g : s.groups)
        if (g.what.shape == "M=16 N=32 K=64") {
            seen = true;
            EXPECT_EQ(g.calls, 3u);
            EXPECT_EQ(g.kernels, 3u);
            EXPECT_DOUBLE_EQ(g.kernel_us, 3.0);
        }
    EXPECT_TRUE(seen);
}

// Steps 0 (unlinked), 1, 2, 3 (linked); kernel k5 of step 2 runs for an op of M = 999, not 96: the
// linked kernels with k5's context (the same names in every step, at every width up to the trace's
// length) disagree on its op's shapes, so k5 of step 0 stays unlinked; the eleven others agree.
TEST(KinetoInfer, AmbiguousContextStaysUnlinked) {
    Builder b;
    b.step(0, false);
    b.step(1, true);
    b.step(2, true, [](std::size_t i) { return i == 5 ? std::int64_t{999} : static_cast<std::int64_t>(16 * (i + 1)); });
    b.step(3, true);
    const Links l = link_activities(b.t);
    for (std::size_t i = 0; i < kStep; ++i) {
        if (i == 5) {
            EXPECT_EQ(l.how[i], LinkHow::none);
            EXPECT_EQ(l.op[i], -1);
        } else {
            EXPECT_EQ(l.how[i], LinkHow::inferred) << "k" << i;
        }
    }
    const Summary s = summarize(b.t, l);
    EXPECT_EQ(s.linked[static_cast<std::size_t>(LinkHow::inferred)], 11u);
    EXPECT_EQ(s.linked[static_cast<std::size_t>(LinkHow::none)], 1u);
}

// The same names at other shapes in another place: step 1 runs k0..k11 at M = 16·(i+1), step 2 the
// same kernels at M = 1000 + i, and a tail z0..z19 follows step 2 only; step 0 (unlinked) is followed by
// step 1. k4..k11 of step 0: their context at K = 8 (after, or whole) runs into the next step's k0..,
// found after step 1 only (step 2 is followed by z0..): step 1's op. k0..k3: their context after
// (k_i..k_{i+8}) lies inside a step, found in steps 1 and 2, which disagree; at K = 16 it runs into the
// next step (k_i..k11, k0..k_{i+4}): step 1's alone, step 2 having z0.. there. All twelve: M = 16·(i+1).
TEST(KinetoInfer, WiderContextTellsPlacesApart) {
    Builder b;
    b.step(0, false);
    b.step(1, true);
    b.step(2, true, [](std::size_t i) { return static_cast<std::int64_t>(1000 + i); });
    for (std::size_t z = 0; z < 20; ++z) {
        b.linked(0, 300 + 2.0 * static_cast<double>(z), 7);
        b.t.activities.back().name = b.name("z" + std::to_string(z));
    }
    const Links l = link_activities(b.t);
    for (std::size_t i = 0; i < kStep; ++i) {
        ASSERT_EQ(l.how[i], LinkHow::inferred) << "k" << i;
        EXPECT_EQ(m_of(b.t, l, i), static_cast<std::int64_t>(16 * (i + 1))) << "k" << i;
    }
}

// The same without the tail: step 2 (M = 1000 + i) ends the stream (positions 24..35). k0..k3 of step 0
// are ambiguous at K = 8 (after-contexts k_i..k_{i+8} in steps 1 and 2); at K = 16 their context
// (k_i..k_{i+16}) is found after step 1 only because step 2's runs past the stream's end (24 + i + 16 >
// 35), while step 2's narrower context there matches and disagrees: running out of neighbours is no
// evidence, they stay unlinked (and at K = 32 the same, at K = 64 they have no context left). k4..k11:
// at K = 8 step 2's context after them already runs past the end (24 + i + 8 > 35), so only step 1 has
// it (the edge of what K = 8 can see, docs/ingest.md): step 1's op, M = 16·(i+1).
TEST(KinetoInfer, AStreamEdgeDoesNotResolveAmbiguity) {
    Builder b;
    b.step(0, false);
    b.step(1, true);
    b.step(2, true, [](std::size_t i) { return static_cast<std::int64_t>(1000 + i); });
    const Links l = link_activities(b.t);
    for (std::size_t i = 0; i < kStep; ++i) {
        if (i < 4) {
            EXPECT_EQ(l.how[i], LinkHow::none) << "k" << i;
        } else {
            ASSERT_EQ(l.how[i], LinkHow::inferred) << "k" << i;
            EXPECT_EQ(m_of(b.t, l, i), static_cast<std::int64_t>(16 * (i + 1))) << "k" << i;
        }
    }
}

// An NCCL kernel queued before the profiler started carries no collective metadata, while its linked
// twins do (and are costed from it, not from their op): it takes its twins' metadata when they all
// carry the same. Here k3 of steps 1 and 2 carry allreduce metadata (1000 floats, 2 ranks), k3 of step
// 0 none: it is inferred to k3 of step 1 and costed as that allreduce. The group: message 1000 · 4 B =
// 4000 B (nccl-tests' allreduce size: the input), 2 ranks; 3 kernels (2 linked, 1 inferred), one call
// each, 3 µs.
TEST(KinetoInfer, CollectiveWithoutMetadataTakesItsTwinsMetadata) {
    Builder b;
    b.step(0, false);
    b.step(1, true);
    b.step(2, true);
    const CollectiveArgs meta{"allreduce", 1000, 1000, 2, "Float"};
    for (std::size_t s : {1u, 2u})
        b.t.activities[s * kStep + 3].collective = meta;
    const Links l = link_activities(b.t);
    for (std::size_t i = 0; i < kStep; ++i)
        EXPECT_EQ(l.how[i], LinkHow::inferred) << "k" << i;
    const CollectiveArgs* got = collective_of(b.t, l, 3);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(*got, meta);
    EXPECT_EQ(collective_of(b.t, l, 2), nullptr);  // k2 has none, nor have its twins
    const Summary s = summarize(b.t, l);
    EXPECT_EQ(s.uncosted_kernels, 0u);
    bool seen = false;
    for (const Group& g : s.groups)
        if (g.what.op == "nccl:allreduce") {
            seen = true;
            ASSERT_TRUE(g.what.cost.collective);
            EXPECT_EQ(g.what.cost.collective->size_bytes, 4000u);
            EXPECT_EQ(g.what.cost.collective->ranks, 2u);
            EXPECT_EQ(g.kernels, 3u);
            EXPECT_EQ(g.calls, 3u);
            EXPECT_DOUBLE_EQ(g.kernel_us, 3.0);
        }
    EXPECT_TRUE(seen);
    EXPECT_TRUE(std::any_of(s.notes.begin(), s.notes.end(),
                            [](const std::string& n) { return n.rfind("1 collective kernels without metadata", 0) == 0; }));
}

// Negative: k3 of step 1 carries 1000 floats, k3 of step 2 2000. The name context finds both twins,
// which disagree, at every width; on the stream's repeated sequence (names with period 12, the
// metadata with none) the twins of k3 at positions 15 and 27 disagree too: no guess, a reason. The
// eleven others are inferred as before.
TEST(KinetoInfer, CollectiveTwinsThatDisagreeGiveAReason) {
    Builder b;
    b.step(0, false);
    b.step(1, true);
    b.step(2, true);
    b.t.activities[kStep + 3].collective = CollectiveArgs{"allreduce", 1000, 1000, 2, "Float"};
    b.t.activities[2 * kStep + 3].collective = CollectiveArgs{"allreduce", 2000, 2000, 2, "Float"};
    const Links l = link_activities(b.t);
    EXPECT_EQ(l.how[3], LinkHow::none);
    EXPECT_EQ(collective_of(b.t, l, 3), nullptr);
    const std::string why =
        "no collective metadata (queued before the profiler started); its twins in the repeated kernel sequence disagree "
        "on message size";
    EXPECT_EQ(collective_why(l, 3), why);
    for (std::size_t i = 0; i < kStep; ++i)
        if (i != 3) {
            EXPECT_EQ(l.how[i], LinkHow::inferred) << "k" << i;
        }
    const Summary s = summarize(b.t, l);
    EXPECT_EQ(s.uncosted_kernels, 1u);
    bool seen = false;
    for (const KernelRow& k : s.kernels)
        if (k.name == "k3") {
            seen = true;
            EXPECT_EQ(k.reason, why);
        }
    EXPECT_TRUE(seen);
}

// A communicator's stream (ResNet's RCCL stream in miniature): every collective is the one kernel
// ncclDevKernel_Generic, so names cannot place it; a step runs broadcast 9600 bf16, broadcast 20 int64,
// allreduce 1000 bf16, allreduce 3000 bf16 (8 ranks). Steps 1..3 are linked (12 kernels, the tail); five
// kernels queued before the profiler precede them: the last of a step, then a whole step. The tokens
// (name and metadata) of the tail repeat with period 4 (two repetitions fit in 12), the names of the
// whole stream too: the five take, in order, the metadata of positions 5 + 4·m − 1 ... : allreduce 3000,
// broadcast 9600, broadcast 20, allreduce 1000, allreduce 3000. Message sizes (nccl-tests' convention,
// the input): 3000 · 2 B = 6000 B; 9600 · 2 = 19200 B; 20 · 8 = 160 B; 1000 · 2 = 2000 B.
TEST(KinetoInfer, CollectivesOfOneKernelNameArePlacedByTheirStreamsPeriod) {
    Trace t;
    t.names = {"ncclDevKernel_Generic", "record_param_comms"};
    const std::array<CollectiveArgs, 4> phase{{{"broadcast", 9600, 9600, 8, "BFloat16"},
                                               {"broadcast", 20, 20, 8, "Long"},
                                               {"allreduce", 1000, 1000, 8, "BFloat16"},
                                               {"allreduce", 3000, 3000, 8, "BFloat16"}}};
    auto kernel = [&](double ts, std::int64_t correlation) {
        GpuActivity g;
        g.name = 0;
        g.ts = ts;
        g.dur = 2;
        g.stream = 4;
        g.correlation = correlation;
        t.activities.push_back(g);
    };
    for (std::size_t i = 0; i < 5; ++i)  // queued before the profiler: no launch record
        kernel(10.0 * static_cast<double>(i), 100000 + static_cast<std::int64_t>(i));
    for (std::int64_t id = 1; id <= 12; ++id) {
        const double ts = 100.0 + 10.0 * static_cast<double>(id);
        CpuOp o;
        o.name = 1;
        o.ts = ts - 3;
        o.dur = 1;
        o.external_id = id;
        t.ops.push_back(o);
        t.launches.push_back({0, ts - 2.5, 0.5, id, id});
        kernel(ts, id);
        t.activities.back().external_id = id;
        t.activities.back().collective = phase[static_cast<std::size_t>(id - 1) % 4];
    }
    const Links l = link_activities(t);
    const std::array<std::size_t, 5> want{3, 0, 1, 2, 3};
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(l.how[i], LinkHow::inferred) << i;
        const CollectiveArgs* got = collective_of(t, l, i);
        ASSERT_NE(got, nullptr) << i;
        EXPECT_EQ(*got, phase[want[i]]) << i;
    }
    const Summary s = summarize(t, l);
    EXPECT_EQ(s.uncosted_kernels, 0u);
    std::map<std::uint64_t, std::uint64_t> kernels_by_size;  // message bytes → kernels
    for (const Group& g : s.groups)
        kernels_by_size[g.what.cost.collective->size_bytes] += g.kernels;
    // Linked 3 of each; inferred: allreduce 3000 twice, the others once.
    EXPECT_EQ(kernels_by_size, (std::map<std::uint64_t, std::uint64_t>{{160, 4}, {2000, 4}, {6000, 5}, {19200, 4}}));
}

// Negative, the same stream: step 2's allreduce 1000 is 1500 instead (dynamic shapes). The tail's tokens
// repeat with no period that fits twice in 12; the names repeat with period 1, so every tail kernel is a
// twin of every queued one, and they disagree (the first two: broadcast 9600 bf16 and 20 int64).
TEST(KinetoInfer, CollectivesWhoseStepsDifferAreNotGuessed) {
    Trace t;
    t.names = {"ncclDevKernel_Generic", "record_param_comms"};
    auto kernel = [&](double ts, std::int64_t correlation) {
        GpuActivity g;
        g.name = 0;
        g.ts = ts;
        g.dur = 2;
        g.stream = 4;
        g.correlation = correlation;
        t.activities.push_back(g);
    };
    kernel(0, 100000);
    for (std::int64_t id = 1; id <= 12; ++id) {
        const double ts = 100.0 + 10.0 * static_cast<double>(id);
        CpuOp o;
        o.name = 1;
        o.ts = ts - 3;
        o.dur = 1;
        o.external_id = id;
        t.ops.push_back(o);
        t.launches.push_back({0, ts - 2.5, 0.5, id, id});
        kernel(ts, id);
        t.activities.back().external_id = id;
        const std::array<CollectiveArgs, 4> phase{{{"broadcast", 9600, 9600, 8, "BFloat16"},
                                                   {"broadcast", 20, 20, 8, "Long"},
                                                   {"allreduce", id == 7 ? 1500u : 1000u, id == 7 ? 1500u : 1000u, 8, "BFloat16"},
                                                   {"allreduce", 3000, 3000, 8, "BFloat16"}}};
        t.activities.back().collective = phase[static_cast<std::size_t>(id - 1) % 4];
    }
    const Links l = link_activities(t);
    EXPECT_EQ(l.how[0], LinkHow::none);
    EXPECT_EQ(collective_of(t, l, 0), nullptr);
    EXPECT_EQ(collective_why(l, 0),
              "no collective metadata (queued before the profiler started); its twins in the repeated kernel sequence "
              "disagree on message size, dtype");
}

// Negative, no sequence at all: one queued ncclDevKernel_Generic before a single linked allreduce. A
// tail of one kernel holds no two repetitions of any period: a reason, no guess (one linked call says
// nothing of an unlinked one).
TEST(KinetoInfer, CollectiveWithoutARepeatedSequenceGivesAReason) {
    Trace t;
    t.names = {"ncclDevKernel_Generic", "record_param_comms"};
    GpuActivity queued;
    queued.stream = 4;
    queued.dur = 2;
    queued.correlation = 100000;
    t.activities.push_back(queued);
    CpuOp o;
    o.name = 1;
    o.ts = 7;
    o.dur = 1;
    o.external_id = 1;
    t.ops.push_back(o);
    t.launches.push_back({0, 8, 0.5, 1, 1});
    GpuActivity linked = queued;
    linked.ts = 10;
    linked.correlation = 1;
    linked.external_id = 1;
    linked.collective = CollectiveArgs{"allreduce", 1000, 1000, 8, "BFloat16"};
    t.activities.push_back(linked);
    const Links l = link_activities(t);
    EXPECT_EQ(l.how[0], LinkHow::none);
    EXPECT_EQ(collective_of(t, l, 0), nullptr);
    EXPECT_EQ(collective_why(l, 0),
              "no collective metadata (queued before the profiler started); no repeated kernel sequence on its stream "
              "places it among linked twins");
}

// Kernels whose correlation id has a CPU launch record (a cudaGraphLaunch replaying a CUDA graph, outside
// every op) are never inferred, though their names repeat a linked sequence: a graph's shapes may differ
// from the eager run's.
TEST(KinetoInfer, KernelsWithALaunchRecordAreLeftAlone) {
    Builder b;
    b.step(0, false);
    for (std::size_t i = 0; i < kStep; ++i) {
        const std::int64_t c = b.t.activities[i].correlation;
        b.t.launches.push_back({0, b.t.activities[i].ts - 50, 0.5, -1, c});  // no External id, no op around it
    }
    b.step(1, true);
    b.step(2, true);
    Links l = link_activities(b.t);
    for (std::size_t i = 0; i < kStep; ++i)
        EXPECT_EQ(l.how[i], LinkHow::none) << "k" << i;
    EXPECT_EQ(infer_unlinked(b.t, l), 0u);
}

// The profiled window: ProfilerStep#1 [90, 190] and #2 [190, 290] hold the launches of steps 1 and 2
// (at 100·s + 2·i − 1); step 0's kernels (0..23 µs) have no launch. Inferred to the ops of step 1 (at
// 98.5 and after, inside ProfilerStep#1), they must stay outside the window: 12 left out for having no
// launch record; the window holds the 24 launched kernels, 24 µs busy; the whole trace 36 µs busy.
TEST(KinetoInfer, InferredKernelsStayOutsideTheProfiledWindow) {
    Builder b;
    b.step(0, false);
    b.step(1, true);
    b.step(2, true);
    b.t.steps = {{"ProfilerStep#1", 90, 100}, {"ProfilerStep#2", 190, 100}};
    const Summary s = summarize(b.t);
    EXPECT_EQ(s.linked[static_cast<std::size_t>(LinkHow::inferred)], 12u);
    EXPECT_EQ(s.time.window_basis, "ProfilerStep");
    EXPECT_EQ(s.time.outside_no_launch, 12u);
    EXPECT_EQ(s.time.window.activities, 24u);
    EXPECT_DOUBLE_EQ(s.time.window.busy_us, 24.0);
    EXPECT_DOUBLE_EQ(s.busy_us, 36.0);
}

// Held out: the ResNet trace's kernels are linked by External id after its first 968 (queued before
// the profiler started). Remove the links of the first 900 linked activities (about one training step:
// their External and correlation ids, as if they too had run before the profiler) and infer them from
// the two steps left: every inferred one must get an op of the same name, Input Dims, Input type and
// Concrete Inputs as its own (measured: all of them), and most must be inferred (measured: 897 of the
// 900; the bound leaves room for a stricter rule, not for losing the repeated steps).
TEST(KinetoInfer, HeldOutResnetLinksAreInferredToTheSameShapes) {
    const Trace full =
        read_kineto(std::string(BWACCT_TEST_DATA) + "/kineto/kineto_mi300x_resnet_act_checkpoint_tracelens.json.gz");
    const Links truth = link_activities(full);
    std::vector<std::size_t> linked;
    for (std::size_t a = 0; a < full.activities.size(); ++a)
        if (truth.how[a] == LinkHow::external_id)
            linked.push_back(a);
    std::stable_sort(linked.begin(), linked.end(),
                     [&](std::size_t x, std::size_t y) { return full.activities[x].ts < full.activities[y].ts; });
    ASSERT_GE(linked.size(), 900u);
    Trace t = full;
    for (std::size_t i = 0; i < 900; ++i) {
        t.activities[linked[i]].external_id = -1;
        t.activities[linked[i]].correlation = -1;
    }
    const Links l = link_activities(t);
    std::size_t inferred = 0;
    for (std::size_t i = 0; i < 900; ++i) {
        const std::size_t a = linked[i];
        if (l.how[a] != LinkHow::inferred)
            continue;
        ++inferred;
        const CpuOp& want = full.ops[static_cast<std::size_t>(truth.op[a])];
        const CpuOp& got = t.ops[static_cast<std::size_t>(l.op[a])];
        EXPECT_EQ(t.names[got.name], full.names[want.name]) << full.names[full.activities[a].name];
        EXPECT_EQ(got.dims.items(), want.dims.items()) << full.names[full.activities[a].name];
        EXPECT_EQ(got.types.items(), want.types.items());
        EXPECT_EQ(got.concrete.items(), want.concrete.items());
    }
    EXPECT_GE(inferred, 850u);
}

}  // namespace
