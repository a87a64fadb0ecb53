// End-to-end tests of `bwacct ingest nsys`, `bwacct ingest ncu` and `bwacct ingest babelstream` on the
// real fixtures (tests/data/nsight/, tests/data/babelstream/, each with its .src.txt) and on bad input:
// exit 2, one line on stderr naming the file and what was expected, nothing on stdout. Expected
// numbers by hand from the fixtures' printed values.
#include <gtest/gtest.h>

#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::string kData = std::string(BWACCT_TEST_DATA);
const std::string kNsysCsv = kData + "/nsight/nsys_cuda_gpu_kern_sum_rtx5090_deepseekocr_decode.csv";
const std::string kNcuCsv = kData + "/nsight/ncu_metrics_rtx5090_cublas_gemv_bf16_kernel0001.csv";
const std::string kRtx5090 = kData + "/nsight/rtx5090_catalog.json";
const std::string kPolaris = kData + "/babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt";
const std::string kGpuStream = kData + "/babelstream/gpu_stream_sm100_superbench.txt";
const std::string kNcclLog = kData + "/nccl/nccl_allreduce_h100_1node8gpu_bitdeer.txt";

void expect_bad_input(const std::vector<std::string>& args, const std::string& what) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find(what), std::string::npos) << "missing '" << what << "'\n" << report(r);
}

const json& rows_of(const json& j, const char* section) { return j.at("sections").at(section).at("rows"); }

// The same bad-input battery for every command: missing, directory, empty, binary, truncated, wrong format.
void bad_input_battery(const std::string& tool, const std::string& good_fixture, std::size_t cut_at,
                       const std::string& expected_word) {
    TempDir tmp;
    expect_bad_input({"ingest", tool, tmp.file("missing.txt")}, "missing.txt");
    expect_bad_input({"ingest", tool, tmp.path()}, "directory");
    write_text(tmp.file("empty.txt"), "");
    expect_bad_input({"ingest", tool, tmp.file("empty.txt")}, "empty");
    write_text(tmp.file("blank.txt"), "\n  \n");
    expect_bad_input({"ingest", tool, tmp.file("blank.txt")}, "blank.txt");
    write_text(tmp.file("binary.bin"), std::string("\x7f"
                                                   "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0",
                                                   18));
    expect_bad_input({"ingest", tool, tmp.file("binary.bin")}, "binary");
    write_text(tmp.file("cut.txt"), read_text(good_fixture).substr(0, cut_at));
    expect_bad_input({"ingest", tool, tmp.file("cut.txt")}, "cut.txt");
    expect_bad_input({"ingest", tool, kNcclLog}, "expected");
    const RunResult r = run_bwacct({"ingest", tool, kNcclLog});
    EXPECT_NE(r.err.find(expected_word), std::string::npos) << report(r);
    EXPECT_NE(r.err.find("nccl_allreduce_h100_1node8gpu_bitdeer.txt"), std::string::npos) << report(r);
}

// ---- nsys ---------------------------------------------------------------------------------------

TEST(IngestNsysCli, CsvFixtureJson) {
    const json j = run_json({"ingest", "nsys", kNsysCsv, "--format", "json"});
    EXPECT_EQ(str_of(j, "schema"), "bwacct.ingest/1");
    EXPECT_EQ(str_of(j, "tool"), "nsys");
    EXPECT_TRUE(j.at("records").empty());
    const json& rows = rows_of(j, "kernels");
    ASSERT_EQ(rows.size(), 46u);
    // Row 1: 34.4 %, 61602133 ns, 16448 instances, avg 3745.3 ns, gemvx kernel.
    EXPECT_EQ(str_of(rows[0], "kernel"), "gemvx::kernel");
    EXPECT_EQ(str_of(rows[0], "category"), "gemm");
    expect_rel(num_d(rows[0], "total_us"), 61602.133, 1e-12, "total_us");
    EXPECT_EQ(num_u(rows[0], "instances"), 16448u);
    expect_rel(num_d(rows[0], "avg_us"), 3.7453, 1e-12, "avg_us");
    EXPECT_EQ(rows_of(j, "kernel_names").size(), 46u);
    // gemm: the 5 gemm/gemv/cutlass/cublas rows 61602133 + 26427871 = 88030004; + 859767 = 88889771;
    // + 748846 = 89638617; + 91392 = 89730009 ns.
    const json& cats = rows_of(j, "by_category");
    ASSERT_GE(cats.size(), 1u);
    EXPECT_EQ(str_of(cats[0], "category"), "gemm");
    EXPECT_EQ(num_u(cats[0], "kernels"), 5u);
    expect_rel(num_d(cats[0], "total_us"), 89730.009, 1e-12, "gemm total_us");
    bool says_no_bytes = false;
    for (const auto& n : j.at("notes"))
        says_no_bytes = says_no_bytes || n.get<std::string>().find("no bytes") != std::string::npos;
    EXPECT_TRUE(says_no_bytes);
}

TEST(IngestNsysCli, ConsoleTableInNsysProfileOutputTable) {
    const RunResult r = run_bwacct({"ingest", "nsys", kPolaris});
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_NE(r.out.find("console table"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("add_kernel"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("elementwise"), std::string::npos) << r.out;
}

TEST(IngestNsysCli, BadInput) {
    // Cut inside row 2's quoted name ("...(int)6, (bool)0...").
    const std::size_t cut = read_text(kNsysCsv).find("(int)6") + 3;
    bad_input_battery("nsys", kNsysCsv, cut, "cuda_gpu_kern_sum");
    // A console table cut in the middle of a row (the polaris nsys output, in the dot_kernel row).
    TempDir tmp;
    const std::string text = read_text(kPolaris);
    write_text(tmp.file("cut_console.txt"), text.substr(0, text.find("38,722,376") + 5));
    expect_bad_input({"ingest", "nsys", tmp.file("cut_console.txt")}, "cut_console.txt");
}

// ---- ncu ----------------------------------------------------------------------------------------

TEST(IngestNcuCli, ReadWithoutAGpuWhenTheFileNamesNone) {
    // The long layout carries no device name: the kernel's measured bytes and bandwidth stand without a
    // GPU (2,330,000 B / 6.46 µs = 360.681 GB/s); the peak and % of peak are n/a, and a note asks for --gpu.
    const json j = run_json({"ingest", "ncu", kNcuCsv, "--format", "json"});
    EXPECT_TRUE(j.at("gpus").empty());
    const json& rows = rows_of(j, "kernels");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(str_of(rows[0], "gpu"), "-");
    EXPECT_EQ(num_u(rows[0], "dram_read_bytes"), 2330000u);
    expect_rel(num_d(rows[0], "bw_GBps"), 2330000.0 / 6460.0, 1e-12, "bw_GBps");
    EXPECT_TRUE(rows[0].at("pct_of_hbm_peak").is_null()) << "n/a without a GPU";
    bool noted = false;
    for (const auto& n : j.at("notes"))
        noted = noted || n.get<std::string>().find("does not say which GPU") != std::string::npos;
    EXPECT_TRUE(noted) << j.at("notes");
    expect_bad_input({"ingest", "ncu", kNcuCsv, "--gpu", "nosuchgpu"}, "--gpu");
}

TEST(IngestNcuCli, GpuFromGpuFile) {
    // 2.33 Mbyte read + 0 byte write = 2,330,000 B in 6.46 us: 2,330,000 / 6460 = 360.681 GB/s,
    // = 20.127 % of the RTX 5090's 1792 GB/s (tests/data/nsight/rtx5090_catalog.json).
    const json j = run_json({"ingest", "ncu", kNcuCsv, "--gpu-file", kRtx5090, "--gpu", "rtx5090", "--format", "json"});
    EXPECT_EQ(str_of(j, "tool"), "ncu");
    const json& rows = rows_of(j, "kernels");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(str_of(rows[0], "gpu"), "rtx5090");
    EXPECT_EQ(num_u(rows[0], "dram_read_bytes"), 2330000u);
    EXPECT_EQ(num_u(rows[0], "dram_write_bytes"), 0u);
    expect_rel(num_d(rows[0], "time_us"), 6.46, 1e-12, "time_us");
    expect_rel(num_d(rows[0], "bw_GBps"), 2330000.0 / 6460.0, 1e-12, "bw_GBps");
    expect_rel(num_d(rows[0], "pct_of_hbm_peak"), 100.0 * 2330000.0 / 6460.0 / 1792.0, 1e-12, "pct");
    expect_rel(num_d(rows[0], "ncu_dram_pct"), 20.52, 1e-12, "ncu dram %");
    bool rounding_note = false;
    for (const auto& n : j.at("notes"))
        rounding_note = rounding_note || n.get<std::string>().find("--print-units base") != std::string::npos;
    EXPECT_TRUE(rounding_note);
}

TEST(IngestNcuCli, RawLayoutMatchesTheDeviceName) {
    TempDir tmp;
    write_text(tmp.file("raw.csv"),
               "\"ID\",\"Kernel Name\",\"Device\",\"CC\",\"device__attribute_display_name\",\"dram__bytes_read.sum\","
               "\"dram__bytes_write.sum\",\"gpu__time_duration.sum\"\n"
               "\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"Mbyte\",\"msecond\"\n"
               "\"0\",\"copy_kernel(float *, const float *)\",\"0\",\"9.0\",\"NVIDIA H100 80GB HBM3\",\"1,000\",\"1,000\","
               "\"1\"\n");
    // (1,000 + 1,000) Mbyte = 2e9 B in 1 ms = 2000 GB/s = 59.70 % of the H100 SXM's 3350 GB/s.
    const json j = run_json({"ingest", "ncu", tmp.file("raw.csv"), "--format", "json"});
    const json& rows = rows_of(j, "kernels");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(str_of(rows[0], "gpu"), "h100-sxm");
    EXPECT_EQ(num_u(rows[0], "dram_bytes"), 2000000000u);
    expect_rel(num_d(rows[0], "bw_GBps"), 2000.0, 1e-12, "bw");
    expect_rel(num_d(rows[0], "pct_of_hbm_peak"), 100.0 * 2000.0 / hbm_GBps("h100-sxm"), 1e-12, "pct");
}

TEST(IngestNcuCli, BadInput) {
    // Cut inside row 2 (its quoted kernel name).
    bad_input_battery("ncu", kNcuCsv, read_text(kNcuCsv).find("cublasGemvParamsEx", 1000), "ncu --csv");
}

// ---- BabelStream ----------------------------------------------------------------------------------

TEST(IngestBabelStreamCli, PolarisDeviceMatchesTheCatalog) {
    // Device "NVIDIA A100-SXM4-40GB" matches the catalog's a100-sxm-40gb ("A100-SXM4-40GB").
    // Copy 1400256.415 MB/s = 1400.256415 GB/s; bytes 2 x 268.4 MB = 536,800,000.
    const json j = run_json({"ingest", "babelstream", kPolaris, "--format", "json"});
    EXPECT_EQ(str_of(j, "tool"), "babelstream");
    EXPECT_EQ(j.at("gpus"), json::array({"a100-sxm-40gb"}));
    const json& rows = rows_of(j, "kernels");
    ASSERT_EQ(rows.size(), 10u);  // two runs of 5 kernels
    EXPECT_EQ(str_of(rows[0], "function"), "Copy");
    expect_rel(num_d(rows[0], "bw_GBps"), 1400.256415, 1e-12, "bw");
    expect_rel(num_d(rows[0], "pct_of_hbm_peak"), 100.0 * 1400.256415 / hbm_GBps("a100-sxm-40gb"), 1e-12, "pct");
    EXPECT_EQ(num_u(rows[0], "bytes"), 536800000u);
    EXPECT_EQ(str_of(rows[0], "check"), "ok");
    EXPECT_EQ(num_u(rows[5], "run"), 2u);
    EXPECT_TRUE(j.at("warnings").empty());
    // --gpu overrides the file's device: 1400.256415 / 2039 (a100-sxm-80gb) of its peak.
    const json k = run_json({"ingest", "babelstream", kPolaris, "--gpu", "a100-sxm-80gb", "--format", "json"});
    expect_rel(num_d(rows_of(k, "kernels")[0], "pct_of_hbm_peak"), 100.0 * 1400.256415 / hbm_GBps("a100-sxm-80gb"), 1e-12,
               "pct 80gb");
}

TEST(IngestBabelStreamCli, SuperBenchGpuStreamWithGpu) {
    // "NVIDIA Graphics Device" (an unreleased board's name) matches no catalog entry: read without a
    // GPU, the bandwidth as printed and a note naming the device.
    const json bare = run_json({"ingest", "babelstream", kGpuStream, "--format", "json"});
    EXPECT_TRUE(bare.at("gpus").empty());
    bool noted = false;
    for (const auto& n : bare.at("notes"))
        noted = noted || n.get<std::string>().find("'NVIDIA Graphics Device' is not in the catalog") != std::string::npos;
    EXPECT_TRUE(noted) << bare.at("notes");
    // COPY block 128 on device 0: 6711.67 GB/s = 83.896 % of the B200's 8000 GB/s.
    const json j = run_json({"ingest", "babelstream", kGpuStream, "--gpu", "b200", "--format", "json"});
    EXPECT_EQ(str_of(j, "format"), "SuperBench gpu-stream");
    const json& rows = rows_of(j, "gpu_stream");
    ASSERT_EQ(rows.size(), 32u);
    expect_rel(num_d(rows[0], "bw_GBps"), 6711.67, 1e-12, "bw");
    expect_rel(num_d(rows[0], "pct_of_hbm_peak"), 100.0 * 6711.67 / hbm_GBps("b200"), 1e-12, "pct");
    EXPECT_EQ(num_u(rows[0], "bytes"), 8589934592u);
}

TEST(IngestBabelStreamCli, TableView) {
    const RunResult r = run_bwacct({"ingest", "babelstream", kPolaris});
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_NE(r.out.find("Triad"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("NVIDIA A100-SXM4-40GB"), std::string::npos) << r.out;
}

TEST(IngestBabelStreamCli, BadInput) {
    // Cut in the middle of run 1's Copy row: "Copy        1400256.415 0.00038" (its first 3 fields).
    const std::string text = read_text(kPolaris);
    const std::size_t cut = text.find("Copy        1400256.415 0.00038") + 31;
    bad_input_battery("babelstream", kPolaris, cut, "BabelStream");
}

// ---- real inputs, third pass (issue 11) -----------------------------------------------------------------

const std::string kCorpusDir = kData + "/corpus";

// A GPU trace end to end: JSON rows summed per kernel, the copy's warning on stderr in table view and in the
// JSON "warnings". clock_block: 8 launches, 80,410,644 ns (sum in test_nsys_real_inputs.cpp); share
// 80,410,644 / (80,410,644 + 1,014,454) = 80,410,644 / 81,425,098 = 98.754 %.
TEST(IngestNsysCli, GpuTraceReadmeIsSummedPerKernel) {
    const std::string file = kCorpusDir + "/nsys/nsys_nvprof_print_gpu_trace_console_rtx3060_concurrent_kernels_readme.md";
    const json j = run_json({"ingest", "nsys", file, "--format", "json"});
    const json& rows = rows_of(j, "kernels");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(num_u(rows[0], "instances"), 8u);
    expect_rel(num_d(rows[0], "total_us"), 80410.644, 1e-12, "total_us");
    expect_rel(num_d(rows[0], "time_pct"), 100.0 * 80410644.0 / 81425098.0, 1e-12, "time_pct");
    ASSERT_EQ(j.at("warnings").size(), 1u);
    EXPECT_NE(j.at("warnings")[0].get<std::string>().find("memory operation"), std::string::npos);
    const RunResult t = run_bwacct({"ingest", "nsys", file});
    ASSERT_EQ(t.status, 0) << report(t);
    EXPECT_NE(t.err.find("memory operation"), std::string::npos) << report(t);
    EXPECT_NE(t.out.find("GPU trace summed per kernel name"), std::string::npos) << t.out;
}

// A table cut by '...' is read with a warning, never refused whole (old code: exit 2, "1 columns where the
// header has 9").
TEST(IngestNsysCli, ElidedRowsAreReadWithAWarning) {
    const std::string file = kCorpusDir + "/nsys/nsys2025_stats_console_indented_admonition_elided_rows_vllm_h100_docs.md";
    const RunResult r = run_bwacct({"ingest", "nsys", file});
    ASSERT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.err.find("left rows out"), std::string::npos) << report(r);
    EXPECT_EQ(rows_of(run_json({"ingest", "nsys", file, "--format", "json"}), "kernels").size(), 9u);
}

// ncu's console output end to end (old code: exit 2 "no ncu CSV header"): 96.32 msecond = 96,320 us, ncu's
// DRAM % 0.47; no DRAM bytes: a warning names what is missing, bandwidth stays null.
TEST(IngestNcuCli, ConsoleOutputIsRead) {
    const std::string file = kCorpusDir + "/ncu/ncu_console_text_sections_cc75_sgemm_1024_duration_msecond.txt";
    const json j = run_json({"ingest", "ncu", file, "--format", "json"});
    const json& rows = rows_of(j, "kernels");
    ASSERT_EQ(rows.size(), 1u);
    expect_rel(num_d(rows[0], "time_us"), 96320.0, 1e-12, "time_us");
    expect_rel(num_d(rows[0], "ncu_dram_pct"), 0.47, 1e-12, "ncu_dram_pct");
    EXPECT_TRUE(rows[0].at("bw_GBps").is_null());
    EXPECT_NE(str_of(j, "format").find("console output"), std::string::npos);
}

// A kernel with read bytes and no duration: the warning names both missing pieces and the summary does not
// claim "0.0 us in all" (old code: "no DRAM byte counts" and "2 kernels, 0.0 us in all").
TEST(IngestNcuCli, MissingPiecesAreNamed) {
    const std::string file = kData + "/corpus/ncu/ncu2023_console_text_metrics_dated_headings_cudnn_winograd_einnet.txt";
    const RunResult r = run_bwacct({"ingest", "ncu", file});
    ASSERT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("2 kernels, none with a duration"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("0.0 us in all"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("no dram__bytes_write.sum (the read bytes alone are not the kernel's traffic) and no duration"),
              std::string::npos)
        << report(r);
}

}  // namespace
