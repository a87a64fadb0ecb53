// sniff_file_kinds (src/ingest/file_kind.cpp): the hint a refused file gets about which reader takes it.
// Checked over the real files of tests/data: each shipped file is recognised as its own kind, and no
// corpus file is taken for another kind only (a wrong hint would send the user to the wrong reader).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "bwacct/file_kind.h"

namespace {

using bwacct::FileKind;
namespace fs = std::filesystem;
const std::string kData = BWACCT_TEST_DATA;

std::vector<FileKind> kinds(const std::string& relative) { return bwacct::sniff_file_kinds_at(kData + "/" + relative); }

TEST(FileKind, ShippedFilesAreTheirOwnKind) {
    using V = std::vector<FileKind>;
    EXPECT_EQ(kinds("kineto/kineto_h100_gaunernst_bert-small-uncased__1016001.redacted.json"), V{FileKind::kineto_trace});
    // gzip first, then what the decompressed head holds.
    EXPECT_EQ(kinds("kineto/kineto_a100_ddp2gpu_nccl_collectives_hta.json.gz"), (V{FileKind::gzip, FileKind::kineto_trace}));
    EXPECT_EQ(kinds("nccl/nccl_allreduce_h100_1node8gpu_bitdeer.txt"), V{FileKind::nccl_tests});
    EXPECT_EQ(kinds("nccl/nccl_allreduce_h100_json_synthetic.json"), V{FileKind::nccl_tests});  // -J JSON
    EXPECT_EQ(kinds("nsight/nsys_cuda_gpu_kern_sum_rtx5090_deepseekocr_decode.csv"), V{FileKind::nsys_stats});
    EXPECT_EQ(kinds("nsight/ncu_metrics_rtx5090_cublas_gemv_bf16_kernel0001.csv"), V{FileKind::ncu_export});
    EXPECT_EQ(kinds("models/wan2.1-t2v-14b.config.json"), V{FileKind::model_config});
    EXPECT_EQ(kinds("models/qwen3-8b.config.json"), V{FileKind::model_config});
    // Polaris's log pastes BabelStream's table and nsys's stats: both are named.
    EXPECT_EQ(kinds("babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt"),
              (V{FileKind::babelstream, FileKind::nsys_stats}));
    // No marker: nothing (a CSV of another tool, a catalog JSON, a missing file).
    EXPECT_TRUE(kinds("kineto/kineto_h100_gaunernst_bert-small-uncased__1016001_TraceLens_GEMM.csv").empty());
    EXPECT_TRUE(kinds("nsight/rtx5090_catalog.json").empty());
    EXPECT_TRUE(kinds("no/such/file").empty());
}

TEST(FileKind, NoCorpusFileIsTakenForAnotherKindOnly) {
    const std::vector<std::pair<std::string, FileKind>> dirs = {{"nccl-tests", FileKind::nccl_tests},
                                                                {"babelstream", FileKind::babelstream},
                                                                {"nsys", FileKind::nsys_stats},
                                                                {"ncu", FileKind::ncu_export},
                                                                {"torch-trace", FileKind::kineto_trace}};
    std::size_t recognised = 0, files = 0;
    for (const auto& [dir, own] : dirs)
        for (const fs::directory_entry& e : fs::directory_iterator(kData + "/corpus/" + dir)) {
            if (!e.is_regular_file() || e.path().string().ends_with(".src.txt"))
                continue;
            ++files;
            std::vector<FileKind> k = bwacct::sniff_file_kinds_at(e.path().string());
            std::erase(k, FileKind::gzip);
            if (k.empty())
                continue;  // no hint at all: harmless
            ++recognised;
            EXPECT_NE(std::find(k.begin(), k.end(), own), k.end()) << e.path();
        }
    // Most real files carry their tool's markers (126 of the 151 files when this test was written; the
    // others are excerpts that cut the header or footer a marker sits in).
    EXPECT_GT(recognised * 10, files * 8) << recognised << " of " << files;
}

}  // namespace
