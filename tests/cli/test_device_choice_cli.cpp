// The device a run measures on, end to end on the simulated backend: BWACCT_SIMULATE_GPUS says how
// many GPUs the process sees, BWACCT_DEVICE picks one, and `device --format json` reports both the
// index and the visible count (gpu-check.sh counts GPUs from it, not from nvidia-smi -L).
#include <gtest/gtest.h>

#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

TEST(DeviceChoiceCli, BwacctDevicePicksTheSimulatedGpu) {
    TempDir dir;
    RunOptions opt = sim(dir);
    opt.env["BWACCT_SIMULATE_GPUS"] = std::string("4");
    opt.env["BWACCT_DEVICE"] = std::string("3");
    const json d = run_json({"device", "--format", "json"}, opt);
    EXPECT_EQ(d["device"]["index"], 3);
    EXPECT_EQ(d["device"]["visible_devices"], 4);
}

TEST(DeviceChoiceCli, ADeviceBeyondTheVisibleOnesIsOneLine) {
    TempDir dir;
    RunOptions opt = sim(dir);
    opt.env["BWACCT_SIMULATE_GPUS"] = std::string("2");
    opt.env["BWACCT_DEVICE"] = std::string("2");
    EXPECT_TRUE(failed_cleanly(run_bwacct({"device", "--format", "json"}, opt), 1, "BWACCT_DEVICE='2'"));
}

TEST(DeviceChoiceCli, TheVisibleCountIsReported) {
    TempDir dir;
    RunOptions opt = sim(dir);
    opt.env["BWACCT_SIMULATE_GPUS"] = std::string("1");
    const json d = run_json({"device", "--format", "json"}, opt);
    EXPECT_EQ(d["device"]["visible_devices"], 1);
    EXPECT_EQ(d["device"]["index"], 0);
}

}  // namespace
