// The ncu reader on shapes met in real files (issue 11, third pass over public files): ncu's console
// output (no --csv), the Speed Of Light names of Nsight Compute 2019-2021. Expected numbers by hand; the
// arithmetic is in the comments.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

// ---- console output ----------------------------------------------------------------------------------

// Two kernels of ncu's console output, the newer heading (launch shape, Device, CC) and the older one (a
// date), tables with and without the "Metric Name / Metric Unit / Metric Value" header, a value ncu marks
// "(!) n/a", rule text between sections. Old code: "no ncu CSV header ("ID",...,"Kernel Name",...) found".
const std::string kConsole =
    "==PROF== Connected to process 4242 (/app/bench)\n"
    "[4242] bench@127.0.0.1\n"
    "  copy_kernel(const float *, float *, int) (4096, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
    "    Section: Command line profiler metrics\n"
    "    ----------------------------------------------------- ----------- ------------\n"
    "    Metric Name                                           Metric Unit Metric Value\n"
    "    ----------------------------------------------------- ----------- ------------\n"
    "    dram__bytes_read.sum                                        Mbyte        16.78\n"
    "    dram__bytes_write.sum                                       Mbyte        16.78\n"
    "    dram__throughput.avg.pct_of_peak_sustained_elapsed                   (!) n/a\n"
    "    gpu__time_duration.sum                                    usecond        12.50\n"
    "    ----------------------------------------------------- ----------- ------------\n"
    "\n"
    "    OPT   This kernel's grid is too small to fill the available resources.\n"
    "\n"
    "  scale_kernel(float *, float), 2021-Nov-08 19:56:53, Context 1, Stream 7\n"
    "    Section: GPU Speed Of Light Throughput\n"
    "    ----------------------- ------------- ------------\n"
    "    DRAM Throughput                     %        81.20\n"
    "    Duration                      nsecond        4,096\n"
    "    Compute (SM) Throughput             %        12.00\n"
    "    ----------------------- ------------- ------------\n";

TEST(NcuRealInputs, ConsoleOutputIsReadPerKernel) {
    const NcuProfile p = parse_ncu_csv(kConsole, "console.txt");
    ASSERT_EQ(p.kernels.size(), 2u);
    const NcuKernel& a = p.kernels[0];
    EXPECT_EQ(a.id, "0");
    EXPECT_EQ(a.name, "copy_kernel(const float *, float *, int)");  // the launch shape cut off
    EXPECT_EQ(a.cc, "9.0");
    EXPECT_DOUBLE_EQ(*a.dram_read_bytes, 16.78e6);  // 16.78 Mbyte, SI
    EXPECT_DOUBLE_EQ(*a.dram_write_bytes, 16.78e6);
    EXPECT_TRUE(a.rounded_bytes);
    EXPECT_DOUBLE_EQ(*a.time_us, 12.5);
    EXPECT_FALSE(a.dram_pct);  // "(!) n/a": no value
    const NcuKernel& b = p.kernels[1];
    EXPECT_EQ(b.id, "1");
    EXPECT_EQ(b.name, "scale_kernel(float *, float)");  // the date cut off
    EXPECT_TRUE(b.cc.empty());
    EXPECT_DOUBLE_EQ(*b.time_us, 4.096);  // 4,096 ns
    EXPECT_DOUBLE_EQ(*b.dram_pct, 81.2);
    EXPECT_DOUBLE_EQ(*b.sm_pct, 12.0);
    EXPECT_FALSE(b.dram_read_bytes);

    // Bandwidth of kernel 0: (16.78e6 + 16.78e6) B / 12.5 us = 33.56e6 / 12.5e-6 = 2.6848e12 B/s = 2684.8 GB/s.
    const IngestReport r = ncu_report(p, "console.txt", {});
    const Section& k = bwacct_test::section(r, "kernels");
    const std::size_t bw = bwacct_test::column(k, "bw_GBps");
    EXPECT_NEAR(std::get<double>(k.rows[0][bw]), 2684.8, 1e-9);
}

// ncu's console output naming kernels but no metric bwacct reads is refused in one line, not read as zero.
TEST(NcuRealInputs, ConsoleOutputWithoutBytesOrDurationIsRefused) {
    const std::string text =
        "  k(float *) (1, 1, 1)x(32, 1, 1), Context 1, Stream 7, Device 0, CC 12.0\n"
        "    Section: Command line profiler metrics\n"
        "    --------------------------------- ----------- ------------\n"
        "    sm__inst_executed_pipe_tensor.sum        inst            2\n"
        "    --------------------------------- ----------- ------------\n";
    try {
        parse_ncu_csv(text, "tensor.txt");
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("names 1 kernel but none has DRAM bytes or a Duration"), std::string::npos)
            << e.what();
    }
}

// The real files: an sgemm under the Speed Of Light sections on a CC 7.5 GPU, and the EinNet artifact's
// cuDNN winograd kernels with dated headings and read bytes only.
TEST(NcuRealInputs, ConsoleFixtures) {
    const NcuProfile s =
        parse_ncu_csv(fixture("corpus/ncu/ncu_console_text_sections_cc75_sgemm_1024_duration_msecond.txt"), "sgemm.txt");
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].name, "sgemm(int, int, int, float, float, const float *, const float *, float *)");
    EXPECT_EQ(s.kernels[0].cc, "7.5");
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_us, 96320.0);  // 96.32 msecond
    EXPECT_DOUBLE_EQ(*s.kernels[0].dram_pct, 0.47);
    EXPECT_DOUBLE_EQ(*s.kernels[0].sm_pct, 5.97);

    const NcuProfile w =
        parse_ncu_csv(fixture("corpus/ncu/ncu2023_console_text_metrics_dated_headings_cudnn_winograd_einnet.txt"), "w.txt");
    ASSERT_EQ(w.kernels.size(), 2u);
    EXPECT_EQ(w.kernels[0].name,
              "void cudnn::winograd::generateWinogradTilesKernel<(int)0, float, float>(cudnn::winograd::"
              "GenerateWinogradTilesParams<T2, T3>)");
    EXPECT_DOUBLE_EQ(*w.kernels[0].dram_read_bytes, 9.45e6);  // 9.45 Mbyte
    EXPECT_EQ(w.kernels[1].name, "ampere_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148n_nt_v1");
    EXPECT_DOUBLE_EQ(*w.kernels[1].dram_read_bytes, 16.91e6);  // 16.91 Mbyte
    EXPECT_FALSE(w.kernels[1].time_us);
}

// ---- old Speed Of Light names --------------------------------------------------------------------------

// Nsight Compute 2019.x/2020.1 (the Rodinia CFD log, a V100): "SOL FB" is the DRAM (frame buffer) share of
// peak and "SM [%]" the SM one; old code left ncu's dram % and sm % empty for such files.
TEST(NcuRealInputs, OldSpeedOfLightNames) {
    const NcuProfile p =
        parse_ncu_csv(fixture("corpus/ncu/ncu2020_details_csv_kernel_time_column_v100_rodinia_cfd_first_kernel.log"), "cfd.log");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.kernels[0].name, "cuda_compute_step_factor");
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 10.72);   // Duration 10720 nsecond
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_pct, 40.07);  // "SOL FB"
    EXPECT_DOUBLE_EQ(*p.kernels[0].sm_pct, 18.70);    // "SM [%]"
    // The raw metric still wins over the section's figure when both are there.
    const std::string both =
        "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"k\",\"GPU Speed Of Light\",\"SOL FB\",\"%\",\"40.00\"\n"
        "\"0\",\"k\",\"Command line profiler metrics\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"41.00\"\n"
        "\"0\",\"k\",\"GPU Speed Of Light\",\"Duration\",\"nsecond\",\"1000\"\n";
    EXPECT_DOUBLE_EQ(*parse_ncu_csv(both, "both.csv").kernels[0].dram_pct, 41.0);
    // A row of a Speed Of Light name in another unit is another figure (review: 612 Gbyte/second read as 612 %).
    const std::string rate =
        "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"k\",\"Memory Workload Analysis\",\"DRAM Throughput\",\"Gbyte/second\",\"612\"\n"
        "\"0\",\"k\",\"GPU Speed Of Light\",\"Duration\",\"nsecond\",\"1000\"\n";
    EXPECT_FALSE(parse_ncu_csv(rate, "rate.csv").kernels[0].dram_pct.has_value());
}

// A kernel name ending in half a UTF-8 character (0xE2 alone): U+FFFD and a warning, never an "internal
// error" from the JSON writer.
TEST(NcuRealInputs, NamesThatAreNotUtf8AreRepaired) {
    const std::string csv =
        "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"k\xe2\",\"gpu__time_duration.sum\",\"nsecond\",\"1000\"\n";
    const NcuProfile p = parse_ncu_csv(csv, "cut.csv");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.kernels[0].name, "k\xef\xbf\xbd");
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("1 byte of the kernel names, IDs or devices is not UTF-8"), std::string::npos) << p.warnings[0];
}

// `--metrics gpu__time_duration.avg` (one counter per launch: .avg = .sum) and ncu 2022+'s gpu__dram_throughput name.
// Old code: no duration ("no kernel has DRAM bytes or a duration" for a file without bytes), dram % empty.
TEST(NcuRealInputs, TimeDurationAvgAndGpuDramThroughput) {
    const NcuProfile p = parse_ncu_csv(
        "==PROF== connected\n"
        "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.avg\","
        "\"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\"\n"
        "\"\",\"\",\"byte\",\"byte\",\"ns\",\"%\"\n"
        "\"1\",\"nvjet_gemv\",\"1000\",\"500\",\"100\",\"12.5\"\n",
        "raw.csv");
    ASSERT_EQ(p.kernels.size(), 1u);
    ASSERT_TRUE(p.kernels[0].time_us.has_value());
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 0.1);  // 100 ns; bandwidth 1500 B / 100 ns = 15 GB/s in the report
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_pct, 12.5);
    // With both, .sum wins whatever the order.
    const NcuProfile q = parse_ncu_csv(
        "\"ID\",\"Kernel Name\",\"gpu__time_duration.avg\",\"gpu__time_duration.sum\"\n"
        "\"\",\"\",\"ns\",\"ns\"\n"
        "\"1\",\"k\",\"100\",\"200\"\n",
        "q.csv");
    EXPECT_DOUBLE_EQ(*q.kernels[0].time_us, 0.2);
}

// ncu's console `--print-summary per-kernel`: headings with "Invocations N" (no Context/Stream), five-column sections
// whose Average is read. The layout is the real file's (corpus/ncu/ncu_console_print_summary_per_kernel_...), which
// has no duration or bytes; these rows are made up in it. Old code: "no ncu CSV header found".
TEST(NcuRealInputs, ConsolePerKernelSummaryReadsTheAverage) {
    const std::string text =
        "  transposeNaive(const float *, float *, int) (32, 32, 1)x(32, 32, 1), Device 0, CC 11.0, Invocations 14\n"
        "    Section: GPU Speed Of Light Throughput\n"
        "    ----------------------- ----------- ------------ ------------ ------------\n"
        "    Metric Name             Metric Unit      Minimum      Maximum      Average\n"
        "    ----------------------- ----------- ------------ ------------ ------------\n"
        "    DRAM Throughput                   %        80.10        82.30        81.20\n"
        "    Duration                         us       100.50       104.70       102.90\n"
        "    ----------------------- ----------- ------------ ------------ ------------\n";
    const NcuProfile p = parse_ncu_csv(text, "pk.txt");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.kernels[0].name, "transposeNaive(const float *, float *, int)");
    EXPECT_EQ(p.kernels[0].invocations, 14u);
    EXPECT_EQ(p.kernels[0].cc, "11.0");
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 102.9);  // the Average column, not 100.50 or 104.70
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_pct, 81.2);
    EXPECT_NE(p.format.find("--print-summary per-kernel"), std::string::npos) << p.format;

    const std::string real =
        fixture("corpus/ncu/ncu_console_print_summary_per_kernel_cc110_transpose_no_duration_no_bytes_excerpt.txt");
    try {
        parse_ncu_csv(real, "r.txt");
        ADD_FAILURE() << "a summary without durations or bytes was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("names 3 kernels but none has DRAM bytes or a Duration"), std::string::npos)
            << e.what();
    }
}

}  // namespace
