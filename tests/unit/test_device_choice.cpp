// The GPU a process measures on (issue 15 item 5): MPI local rank modulo the visible devices, so a
// launcher that gives each rank one GPU of its own (Slurm --gpus-per-task=1: every rank sees device 0)
// works; BWACCT_DEVICE overrides.
#include <gtest/gtest.h>

#include "backend.h"
#include "device_choice.h"

namespace bwacct::measure {
namespace {

TEST(DeviceChoice, LocalRankPicksTheDeviceModuloTheVisibleCount) {
    EXPECT_EQ(choose_device(0, 8, nullptr), 0);
    EXPECT_EQ(choose_device(5, 8, nullptr), 5);
    // Slurm --gpus-per-task=1: 4 ranks on a node, each sees one GPU (its own), index 0. Before the fix
    // local rank 3 asked for device 3 and failed.
    for (int rank = 0; rank < 4; ++rank)
        EXPECT_EQ(choose_device(rank, 1, nullptr), 0) << "local rank " << rank;
    // 8 ranks on a node that shows each rank 4 GPUs (two per socket): 6 % 4 = 2.
    EXPECT_EQ(choose_device(6, 4, nullptr), 2);
    EXPECT_EQ(choose_device(3, 8, ""), 3) << "an empty BWACCT_DEVICE is not set";
}

TEST(DeviceChoice, BwacctDeviceOverrides) {
    EXPECT_EQ(choose_device(5, 8, "2"), 2);
    EXPECT_EQ(choose_device(0, 8, "7"), 7);
    EXPECT_THROW(choose_device(0, 8, "8"), MeasureError) << "index 8 of 8 visible";
    EXPECT_THROW(choose_device(0, 8, "-1"), MeasureError);
    EXPECT_THROW(choose_device(0, 8, "gpu1"), MeasureError);
    EXPECT_THROW(choose_device(0, 8, "99999999999"), MeasureError);
    try {
        choose_device(0, 2, "3");
        FAIL() << "BWACCT_DEVICE=3 with 2 visible must be refused";
    } catch (const MeasureError& e) {
        EXPECT_NE(std::string(e.what()).find("expected a GPU index from 0 to 1"), std::string::npos) << e.what();
    }
}

TEST(DeviceChoice, NoVisibleGpuIsAFailure) { EXPECT_THROW(choose_device(0, 0, nullptr), MeasureError); }

}  // namespace
}  // namespace bwacct::measure
