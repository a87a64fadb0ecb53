// Issue 14, "ingest starts with the summary of the file": babelstream (the best kernel's bandwidth and
// its share of the GPU's HBM peak), nsys (the kernel time and the top categories) and ncu (kernels,
// time, the median kernel's share of the HBM peak) print their summary first, as nccl-tests does; the
// JSON carries the same lines under summary.lines. Expected lines worked out by hand.
#include <gtest/gtest.h>

#include "harness.h"

namespace {

using namespace bwacct_test;

const std::string kData = std::string(BWACCT_TEST_DATA);

// The first line of the table output and the JSON's summary.lines, which must hold the same lines.
std::string first_line(const std::vector<std::string>& args) {
    const RunResult r = run_bwacct(args);
    EXPECT_TRUE(succeeded(r)) << report(r);
    std::vector<std::string> json_args = args;
    json_args.insert(json_args.end(), {"--format", "json"});
    const RunResult j = run_bwacct(json_args);
    EXPECT_TRUE(succeeded(j)) << report(j);
    const json doc = parse_json(j.out, describe(json_args));
    const std::string line = lines_of(r.out).empty() ? "" : lines_of(r.out).front();
    EXPECT_EQ(doc.at("summary").at("lines").at(0).get<std::string>(), line);
    return line;
}

TEST(IngestSummary, BabelStreamBestKernelAndShareOfTheHbmPeak) {
    // The file's first run: Copy 1400256.415 MB/s (the largest of both runs' rows) = 1400.256 GB/s; the file names
    // an A100-SXM4-40GB: 1400.256 / 1555 = 90.05 %.
    EXPECT_EQ(
        first_line({"ingest", "babelstream", kData + "/babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt"}),
        "best kernel Copy (run 1) 1400.3 GB/s = 90.0 % of a100-sxm-40gb HBM peak 1555 GB/s");
    // gpu-stream: TRIAD double, device 1, block 256: 7414.04 GB/s (device 0's is 7414.01); 7414.04 / 8000 = 92.68 %.
    EXPECT_EQ(first_line({"ingest", "babelstream", kData + "/babelstream/gpu_stream_sm100_superbench.txt", "--gpu", "b200"}),
              "best kernel TRIAD double (device 1, block 256, 4294967296 B) 7414.0 GB/s = 92.7 % of b200 HBM peak 8000 GB/s");
}

// A file with a CUDA run on a V100-PCIE-16GB and a TBB run on the CPU (no device line; corpus file from
// kaanolgu/BabelStream's notes): the best kernel is run 1's Dot, 887385.537 MB/s = 887.4 GB/s = 98.6 % of
// the V100's 900 GB/s; run 2's rows carry no GPU (before: its Copy, 90.4 GB/s, read as 10.0 % of 900).
TEST(IngestSummary, BabelStreamRunWithoutDeviceIsNotOnTheOtherRunsGpu) {
    const std::string file =
        kData + "/corpus/babelstream/babelstream4_cuda_v100pcie_then_tbb_cpu_isambard_two_devices_relink_warning.txt";
    EXPECT_EQ(first_line({"ingest", "babelstream", file}),
              "best kernel Dot (run 1) 887.4 GB/s = 98.6 % of v100-pcie-16gb HBM peak 900 GB/s");
    const RunResult j = run_bwacct({"ingest", "babelstream", file, "--format", "json"});
    ASSERT_TRUE(succeeded(j)) << report(j);
    const json doc = parse_json(j.out, "two devices");
    for (const json& row : doc.at("sections").at("kernels").at("rows"))
        EXPECT_EQ(row.at("gpu").get<std::string>(), row.at("run").get<int>() == 1 ? "v100-pcie-16gb" : "-");
}

// A torch trace whose only kernel ran 0.020 µs (libkineto's own writer output, tests/data/corpus): the
// unaccounted line gives the time in two significant digits, not as "0.0 µs" beside 100 %.
TEST(IngestSummary, TorchUnaccountedTimeUnderATenthOfAMicrosecondIsNotZero) {
    const RunResult r =
        run_bwacct({"ingest", "torch-trace", kData + "/corpus/torch-trace/libkineto_test_h100_cuda_sync_events_after_fix.json",
                    "--gpu", "h100-sxm"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_NE(r.out.find("unaccounted (no formula): 100.0 % of the window's busy time (0.02 µs)"), std::string::npos) << r.out;
}

TEST(IngestSummary, NsysKernelTimeAndTopCategories) {
    TempDir tmp;
    write_text(tmp.file("kern_sum.csv"),
               "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
               "60.0,600000,100,6000,6000,6000,6000,0,\"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn\"\n"
               "25.0,250000,50,5000,5000,5000,5000,0,\"void flash_fwd_kernel<Flash_fwd_kernel_traits>(Flash_fwd_params)\"\n"
               "10.0,100000,200,500,500,500,500,0,\"void at::native::vectorized_elementwise_kernel<4, AddFunctor>(int)\"\n"
               "5.0,50000,50,1000,1000,1000,1000,0,\"void rms_norm_kernel<float>(float *, const float *, int)\"\n");
    // Total 600000 + 250000 + 100000 + 50000 ns = 1,000,000 ns = 1000.0 us; 100 + 50 + 200 + 50 = 400 launches;
    // gemm 600000 / 1e6 = 60.0 %, attention 25.0 %, elementwise 10.0 % (norm 5.0 % is fourth).
    EXPECT_EQ(first_line({"ingest", "nsys", tmp.file("kern_sum.csv")}),
              "kernel time 1000.0 us over 4 kernels (400 launches); top categories: gemm 60.0 %, attention 25.0 %, "
              "elementwise 10.0 %");
}

TEST(IngestSummary, NcuKernelsTimeAndMedianShareOfTheHbmPeak) {
    TempDir tmp;
    write_text(
        tmp.file("raw.csv"),
        "\"ID\",\"Kernel Name\",\"Device\",\"CC\",\"device__attribute_display_name\",\"dram__bytes_read.sum\","
        "\"dram__bytes_write.sum\",\"gpu__time_duration.sum\"\n"
        "\"\",\"\",\"\",\"\",\"\",\"Mbyte\",\"Mbyte\",\"msecond\"\n"
        "\"0\",\"copy_kernel(float *, const float *)\",\"0\",\"9.0\",\"NVIDIA H100 80GB HBM3\",\"1,000.00\",\"1,000.00\",\"1\"\n"
        "\"1\",\"read_kernel(const float *)\",\"0\",\"9.0\",\"NVIDIA H100 80GB HBM3\",\"335\",\"0\",\"1\"\n"
        "\"2\",\"scale_kernel(float *)\",\"0\",\"9.0\",\"NVIDIA H100 80GB HBM3\",\"1,000.00\",\"675\",\"1\"\n");
    // Each kernel 1 ms: 2000, 335 and 1675 GB/s; 3 ms = 3000.0 us in all. The median, 1675 GB/s, is 1675 / 3350 =
    // 50.0 % of the H100 SXM's HBM; the range 335 / 3350 = 10.0 % to 2000 / 3350 = 59.7 %.
    EXPECT_EQ(first_line({"ingest", "ncu", tmp.file("raw.csv")}),
              "3 kernels, 3000.0 us in all; median kernel 1675.0 GB/s = 50.0 % of h100-sxm HBM peak 3350 GB/s (range "
              "10.0-59.7 %)");
}

}  // namespace
