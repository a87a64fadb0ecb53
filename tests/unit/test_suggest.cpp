// "Did you mean" (include/bwacct/suggest.h): prefix matches first, else the nearest by edit distance.
#include <gtest/gtest.h>

#include "bwacct/suggest.h"

namespace {

using bwacct::did_you_mean;
using bwacct::nearest_names;
using V = std::vector<std::string>;

TEST(Suggest, PrefixMatchesComeFirstInTheCandidatesOrder) {
    const V gpus{"h100-sxm", "h100-pcie", "h100-nvl", "h200", "b200"};
    EXPECT_EQ(nearest_names("h100", gpus), (V{"h100-sxm", "h100-pcie", "h100-nvl"}));
    EXPECT_EQ(nearest_names("--time", V{"--m", "--time-us", "--tp"}), V{"--time-us"});
    EXPECT_EQ(nearest_names("nccl", V{"nccl-tests", "torch-trace", "nsys", "ncu"}), V{"nccl-tests"});
}

TEST(Suggest, NearestByEditDistanceWithinALimitThatGrowsWithTheName) {
    // gemn -> gemm: one replacement (distance 1; names up to 4 characters allow 1).
    EXPECT_EQ(nearest_names("gemn", V{"gemm", "conv", "attention"}), V{"gemm"});
    // --dtyp is a prefix of --dtype, --dtype-a ... (prefix rule); --dtpye is one swap from --dtype.
    EXPECT_EQ(nearest_names("--dtpye", V{"--dtype", "--dtype-a", "--m"}), V{"--dtype"});
    // Case-insensitive: "H20" is a prefix of h200.
    EXPECT_EQ(nearest_names("H20", V{"h200", "b200"}), V{"h200"});
    // "zzzz" is 4 edits from "gemm": nothing is near.
    EXPECT_TRUE(nearest_names("zzzz", V{"gemm"}).empty());
    EXPECT_EQ(did_you_mean("zzzz", V{"gemm"}), "");
    EXPECT_EQ(did_you_mean("jsn", V{"table", "json", "jsonl"}), " (did you mean json?)");
    // Leading dashes do not count towards the limit: "--hot" (3 letters, limit 1) is 2 edits from --plot.
    EXPECT_TRUE(nearest_names("--hot", V{"--plot", "--gpu"}).empty());
}

}  // namespace
