// End-to-end: kernels queued before the profiler started (no CPU launch record) get the op of the
// kernel in the same place of a repeated, linked kernel sequence (src/ingest/kineto_infer.cpp), on the
// real ResNet trace of tests/data/kineto/ (MI300X, activation checkpointing, RCCL).
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::string kResnet = std::string(BWACCT_TEST_DATA) + "/kineto/kineto_mi300x_resnet_act_checkpoint_tracelens.json.gz";

// Measured with `bwacct ingest torch-trace kineto_mi300x_resnet_act_checkpoint_tracelens.json.gz --gpu
// mi300x`: before inference 968 kernels had no CPU op (queued before the profiler started: 31,834 µs of
// kernel time) and "unaccounted (no formula)" held 28,376.93 µs of the 84,002.07 µs busy = 33.8 %;
// inferring ops from the kernel sequence linked 963 (21,262.44 / 84,002.07 = 25.3 % left); the 5 RCCL
// kernels left (no collective metadata of their own: 20,342.08 µs of busy time) now take their linked
// twins' metadata, and the share is 370.51 / 84,002.07 = 0.4 %. The bounds: all 968 inferred, at most
// 5 % (the issue's bound for this trace, far below the 24.7 % without the collectives, so this fails on
// the old code). Inferred kernels stay outside the profiled window: it holds the 2,685 kernels linked
// by External id, as before.
TEST(IngestTorchInferCli, ResnetKernelsQueuedBeforeTheProfilerGetTheirTwinsOp) {
    const json doc = run_json({"ingest", "torch-trace", kResnet, "--gpu", "mi300x", "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    long inferred = -1, unlinked = -1;
    bool collectives = false;
    const std::regex note(R"((\d+) inferred from the same place of a repeated kernel sequence, (\d+) not linked)");
    for (const json& n : doc["notes"]) {
        std::smatch m;
        const std::string text = n.get<std::string>();
        if (std::regex_search(text, m, note)) {
            inferred = std::stol(m[1]);
            unlinked = std::stol(m[2]);
        }
        collectives = collectives || text.rfind("5 collective kernels without metadata of their own", 0) == 0;
    }
    EXPECT_TRUE(collectives);  // the RCCL kernels are labelled: costed from their twins' metadata, inferred
    EXPECT_EQ(inferred, 968);
    EXPECT_EQ(unlinked, 0);
    double share = -1;
    for (const json& row : doc["sections"]["by_roof"]["rows"])
        if (row["roof"] == "unaccounted (no formula)")
            share = row["busy_share"].get<double>();
    EXPECT_GE(share, 0.0);
    EXPECT_LE(share, 5.0);
    bool window = false;
    for (const json& row : doc["sections"]["window"]["rows"])
        if (row["window"] == "profiled window") {
            window = true;
            EXPECT_EQ(row["activities"], 2685);
        }
    EXPECT_TRUE(window);
}

}  // namespace
