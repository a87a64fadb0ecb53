// The ncu reader on shapes met in real files (issue 11, third pass over public files): ncu's console
// output (no --csv), the Speed Of Light names of Nsight Compute 2019-2021. Expected numbers by hand; the
// arithmetic is in the comments.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest.h"
#include "bwacct/ingest_nsight.h"

namespace {

using namespace bwacct;
using bwacct_test::fixture;

bool has_text(const std::vector<std::string>& lines, const std::string& what) {
    for (const std::string& l : lines)
        if (l.find(what) != std::string::npos)
            return true;
    return false;
}

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
        EXPECT_NE(std::string(e.what()).find(
                      "names 1 kernel but none has DRAM bytes, a DRAM rate (Memory Throughput in Gbyte/s) or a Duration"),
                  std::string::npos)
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
        EXPECT_NE(std::string(e.what()).find(
                      "names 3 kernels but none has DRAM bytes, a DRAM rate (Memory Throughput in Gbyte/s) or a Duration"),
                  std::string::npos)
            << e.what();
    }
}

// ncu 2025's console `--print-summary per-gpu` (recorded on an H100, corpus/ncu/ncu2025_console_print_summary_per_gpu_*):
// a "  Device 0, CC 9.0" line of its own above the kernels, whose headings end "(1056, 1, 1)x(256, 1, 1), Invocations 3"
// with no ", Device". Old code: "no ncu CSV header found". Averages as printed, by hand:
//   copy_kernel  read 67.12 Mbyte + write 49.98 Mbyte = 117,100,000 B over 53.87 us: 117.1e6 / 53.87e-6 = 2173.8 GB/s
//   triad_kernel read 134.23 + write 56.00 Mbyte = 190,230,000 B over 71.60 us, 2 invocations
TEST(NcuRealInputs, ConsolePerGpuSummaryDeviceLineAboveKernels) {
    const NcuProfile p = parse_ncu_csv(
        fixture("corpus/ncu/ncu2025_console_print_summary_per_gpu_device_line_above_kernels_h100_probe.txt"), "pg.txt");
    ASSERT_EQ(p.kernels.size(), 3u);
    EXPECT_EQ(p.kernels[0].name, "copy_kernel(const float *, float *, unsigned long)");  // shape and Invocations cut off
    EXPECT_EQ(p.kernels[0].invocations, 3u);
    EXPECT_EQ(p.kernels[1].invocations, 1u);
    EXPECT_EQ(p.kernels[2].invocations, 2u);
    EXPECT_EQ(p.kernels[0].cc, "9.0");  // from the device line above
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_read_bytes, 67.12e6);
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_write_bytes, 49.98e6);
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 53.87);
    EXPECT_NEAR((*p.kernels[0].dram_read_bytes + *p.kernels[0].dram_write_bytes) / (*p.kernels[0].time_us * 1e3), 2173.8, 0.05);
    EXPECT_DOUBLE_EQ(*p.kernels[2].dram_read_bytes + *p.kernels[2].dram_write_bytes, 190.23e6);
    EXPECT_DOUBLE_EQ(*p.kernels[2].time_us, 71.6);
    EXPECT_NE(p.format.find("--print-summary per-gpu"), std::string::npos) << p.format;
}

// A CUDA graph profiled as one workload (`ncu --graph-profiling graph`, recorded on an H100): its console heading
// "graph (16384, 1, 1)x(256, 1, 1), Context 1, Device 0, CC 9.0" has no Stream. Old code: the heading was not seen and
// the graph's rows overwrote the fill kernel above it (shown with 379.63 MB over 293.25 us). By hand:
//   kernel 2 (the fill):  8.96 Kbyte read + 0 written over 189.63 us
//   graph:  201.39 + 178.24 Mbyte = 379,630,000 B over 293.25 us = 379.63e6 / 293.25e-6 = 1294.6 GB/s
TEST(NcuRealInputs, ConsoleGraphWorkloadHeadingWithoutStream) {
    const NcuProfile p = parse_ncu_csv(
        fixture("corpus/ncu/ncu2025_console_graph_profiling_graph_heading_without_stream_h100_torch_cuda_graph.txt"), "g.txt");
    ASSERT_EQ(p.kernels.size(), 4u);
    EXPECT_DOUBLE_EQ(*p.kernels[2].dram_read_bytes, 8960.0);
    EXPECT_DOUBLE_EQ(*p.kernels[2].time_us, 189.63);
    EXPECT_EQ(p.kernels[3].name, "graph");
    EXPECT_EQ(p.kernels[3].cc, "9.0");
    EXPECT_DOUBLE_EQ(*p.kernels[3].dram_read_bytes + *p.kernels[3].dram_write_bytes, 379.63e6);
    EXPECT_DOUBLE_EQ(*p.kernels[3].time_us, 293.25);
    EXPECT_NEAR((*p.kernels[3].dram_read_bytes + *p.kernels[3].dram_write_bytes) / (*p.kernels[3].time_us * 1e3), 1294.6, 0.05);
}

// A heading of a shape bwacct does not know (here the graph's, cut to "graph, Context 1"): the next kernel's section
// appears a second time under the kernel above, whose values it would overwrite. Refused in one line, never merged.
TEST(NcuRealInputs, ConsoleSectionTwiceUnderOneHeadingIsRefused) {
    const std::string section =
        "    Section: Command line profiler metrics\n"
        "    ---------------------- ----------- ------------\n"
        "    Metric Name            Metric Unit Metric Value\n"
        "    ---------------------- ----------- ------------\n"
        "    gpu__time_duration.sum          us       189.63\n"
        "    ---------------------- ----------- ------------\n\n";
    const std::string text =
        "  fill (1, 1, 1)x(128, 1, 1), Context 1, Stream 13, Device 0, CC 9.0\n" + section + "  graph, Context 1\n" + section;
    try {
        parse_ncu_csv(text, "twice.txt");
        ADD_FAILURE() << "two kernels' sections were merged into one";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("line 10: 'Section: Command line profiler metrics' appears twice under the kernel heading at line 1"),
                  std::string::npos)
            << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
}

// `--page session` (recorded on an H100) holds attribute tables and no kernel: refused naming the pages that have them.
// Old code: "no ncu CSV header found".
TEST(NcuRealInputs, SessionPageIsRefusedNamingTheKernelPages) {
    try {
        parse_ncu_csv(fixture("corpus/ncu/ncu2025_csv_page_session_attributes_only_no_kernels_h100_probe.csv"), "s.csv");
        ADD_FAILURE() << "the session page was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--page session export"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--page details or --page raw"), std::string::npos) << e.what();
    }
}

// `ncu -o rep` writes its results to rep.ncu-rep and prints only its ==PROF== lines (recorded on an H100): one line
// naming the report and the export that reads it. Old code: "no ncu CSV header found".
TEST(NcuRealInputs, OutputToAReportFileNamesTheReportAndItsExport) {
    try {
        parse_ncu_csv(fixture("corpus/ncu/ncu2025_output_to_report_file_only_prof_lines_h100_probe.txt"), "o.txt");
        ADD_FAILURE() << "ncu's progress lines were read as a profile";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("results went to the report '/tmp/rep.ncu-rep'"), std::string::npos) << m;
        EXPECT_NE(m.find("ncu -i /tmp/rep.ncu-rep --csv --page raw"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
}

// The Memory Workload Analysis tables (--print-details all, recorded on an H100) give DRAM bytes and each direction's
// rate but no duration. Old code: "no duration; bandwidth not computed". By hand:
//   rate = 1,274,191,980,558.93 + 850,211,421,628.19 B/s = 2,124,403,402,187.12 B/s = 2124.4034 GB/s
//   (the bytes agree: 67,114,240 / 1,274.19e9 = 52.672 us and 44,782,336 / 850.21e9 = 52.672 us)
TEST(NcuRealInputs, DirectionRatesMakeTheDramRateWhenNoDuration) {
    const NcuProfile p = parse_ncu_csv(
        fixture("corpus/ncu/ncu2025_csv_details_print_details_all_mwa_tables_bytes_no_duration_h100_probe_scale.csv"), "mwa.csv");
    ASSERT_EQ(p.kernels.size(), 1u);
    const NcuKernel& k = p.kernels[0];
    EXPECT_DOUBLE_EQ(*k.dram_read_bytes, 67114240.0);
    EXPECT_DOUBLE_EQ(*k.dram_write_bytes, 44782336.0);
    EXPECT_FALSE(k.time_us.has_value());
    ASSERT_TRUE(k.dram_GBps.has_value());
    EXPECT_NEAR(*k.dram_GBps, 2124.4034, 1e-4);
    // dram__bytes.sum.per_second, where the file has it, is the rate itself (not overwritten by the directions).
    const NcuProfile q = parse_ncu_csv(
        "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"k\",\"dram__bytes.sum.per_second\",\"Gbyte/s\",\"100\"\n"
        "\"0\",\"k\",\"dram__bytes_read.sum.per_second\",\"Gbyte/s\",\"70\"\n"
        "\"0\",\"k\",\"dram__bytes_write.sum.per_second\",\"Gbyte/s\",\"20\"\n",
        "q.csv");
    EXPECT_DOUBLE_EQ(*q.kernels[0].dram_GBps, 100.0);
}

// ---- nvprof --metrics (ncu's predecessor) -------------------------------------------------------------------

// nvprof's console metric table: 'Device "NAME (N)"' and "Kernel: NAME" headings, rows of invocations, metric name,
// description, Min, Max, Avg (the Avg is read). Values with blanks ("Low (2)") are skipped. Old code: "no ncu CSV
// header found". The numbers are made up; the layout is the corpus files' (corpus/ncu/nvprof_metrics_*).
TEST(NcuRealInputs, NvprofMetricsConsoleBytesTransactionsAndBinaryRates) {
    const std::string text =
        "==1== Metric result:\n"
        "Invocations                               Metric Name                        Metric Description         Min         "
        "Max         Avg\n"
        "Device \"Tesla V100-SXM2-16GB (0)\"\n"
        "    Kernel: copy(float*, float*)\n"
        "          4                           dram_read_bytes    Total bytes read from DRAM to L2 cache     1000000     "
        "1000000     1000000\n"
        "          4                          dram_write_bytes Total bytes written from L2 cache to DRAM      500000      "
        "500000      500000\n"
        "          4                      dram_read_throughput             Device Memory Read Throughput  100.00GB/s  "
        "100.00GB/s  100.00GB/s\n"
        "          4                     dram_write_throughput            Device Memory Write Throughput  50.000GB/s  "
        "50.000GB/s  50.000GB/s\n"
        "          4                          dram_utilization                 Device Memory Utilization     Low (2)     "
        "Low (2)     Low (2)\n"
        "    Kernel: scale(float*)\n"
        "          1                    dram_read_transactions           Device Memory Read Transactions         100         "
        "100         100\n"
        "          1                   dram_write_transactions          Device Memory Write Transactions          50          "
        "50          50\n"
        "\n"
        "          1                    dram_read_transactions           after the table: not read         999         999"
        "         999\n";
    const NcuProfile p = parse_ncu_csv(text, "m.txt");
    ASSERT_EQ(p.kernels.size(), 2u);
    EXPECT_TRUE(p.nvprof);
    const NcuKernel& a = p.kernels[0];
    EXPECT_EQ(a.name, "copy(float*, float*)");
    EXPECT_EQ(a.device_name, "Tesla V100-SXM2-16GB");  // nvprof's " (0)" device index cut
    EXPECT_EQ(a.invocations, 4u);
    EXPECT_DOUBLE_EQ(*a.dram_read_bytes, 1e6);
    EXPECT_DOUBLE_EQ(*a.dram_write_bytes, 5e5);
    // GB/s = 2^30 B/s: (100 + 50) x 1.073741824 = 161.0612736 (10^9 B/s)
    EXPECT_NEAR(*a.dram_GBps, 161.0612736, 1e-9);
    // time = 1,500,000 B / 161.0612736e9 B/s = 9.313225746 us, rounded to 10^-6 us
    EXPECT_DOUBLE_EQ(*a.time_us, 9.313226);
    const NcuKernel& b = p.kernels[1];
    EXPECT_DOUBLE_EQ(*b.dram_read_bytes, 3200.0);   // 100 transactions x 32 B
    EXPECT_DOUBLE_EQ(*b.dram_write_bytes, 1600.0);  // 50 x 32 B; the row after the blank line is not read
    EXPECT_FALSE(b.dram_GBps.has_value());
    EXPECT_FALSE(b.time_us.has_value());

    const IngestReport r = ncu_report(p, "m.txt", {});
    EXPECT_EQ(r.measured_by, "nvprof");
    const Section& k = r.sections[0];
    const auto col = [&k](const char* key) {
        for (std::size_t i = 0; i < k.columns.size(); ++i)
            if (k.columns[i].key == key)
                return i;
        return k.columns.size();
    };
    // bytes / time = 1.5e6 B / 9.313226 us = 161.06126 GB/s: the rate the file printed, within the time's rounding
    EXPECT_NEAR(std::get<double>(k.rows[0][col("bw_GBps")]), 161.0612736, 1e-4);
    EXPECT_TRUE(has_text(r.warnings, "kernel 1 (scale): no dram_read_throughput and dram_write_throughput"));
}

// The --csv form: the kernel name holds commas (quoted), rates in KB/s and MB/s (2^10, 2^20 B/s).
TEST(NcuRealInputs, NvprofMetricsCsv) {
    const std::string csv =
        "==7== Metric result:\n"
        "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n"
        "\"Tesla K20c (0)\",\"k(float*, int)\",3,\"dram_read_throughput\",\"Device Memory Read Throughput\",1.0MB/s,2.0MB/s,"
        "1.5MB/s\n"
        "\"Tesla K20c (0)\",\"k(float*, int)\",3,\"dram_write_throughput\",\"Device Memory Write Throughput\",512.00KB/s,"
        "512.00KB/s,512.00KB/s\n";
    const NcuProfile p = parse_ncu_csv(csv, "m.csv");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.kernels[0].name, "k(float*, int)");
    EXPECT_EQ(p.kernels[0].device_name, "Tesla K20c");
    EXPECT_EQ(p.kernels[0].invocations, 3u);
    // 1.5 x 2^20 + 512 x 2^10 = 1,572,864 + 524,288 = 2,097,152 B/s = 0.002097152 GB/s
    EXPECT_NEAR(*p.kernels[0].dram_GBps, 0.002097152, 1e-15);
    EXPECT_FALSE(p.kernels[0].dram_read_bytes.has_value());
    // Invocations 0 is no count of launches; bytes of 1e308 each add up past a double: refused, never inf in the output.
    EXPECT_THROW(parse_ncu_csv("\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\","
                               "\"Avg\"\n\"D (0)\",\"k\",0,\"dram_read_bytes\",\"d\",1,1,1\n",
                               "zero.csv"),
                 InputError);
    EXPECT_THROW(parse_ncu_csv("\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\","
                               "\"Avg\"\n\"D (0)\",\"k\",1,\"dram_read_bytes\",\"d\",1e308,1e308,1e308\n\"D (0)\",\"k\",1,"
                               "\"dram_write_bytes\",\"d\",1e308,1e308,1e308\n",
                               "big.csv"),
                 InputError);
}

// The real files: the V100 blog excerpt (throughput only) and the GTX 1070 `--metrics all` excerpt (both bytes and
// rates: the units are binary, or the two directions would not give one duration).
TEST(NcuRealInputs, NvprofMetricsFixtures) {
    const NcuProfile v = parse_ncu_csv(
        fixture("corpus/ncu/nvprof_metrics_console_v100_transpose_dram_read_write_throughput_only_blog_excerpt.txt"), "v.txt");
    ASSERT_EQ(v.kernels.size(), 6u);
    EXPECT_EQ(v.kernels[0].name, "copyGmem(float*, float*, int, int)");
    EXPECT_NEAR(*v.kernels[0].dram_GBps, 380.7488508, 1e-6);  // (161.18 + 193.42) x 1.073741824
    EXPECT_FALSE(v.kernels[0].time_us.has_value());
    EXPECT_EQ(ncu_device_name(v), "Tesla V100-SXM2-16GB");

    const NcuProfile g = parse_ncu_csv(
        fixture("corpus/ncu/nvprof_metrics_all_console_gtx1070_windows_dram_bytes_and_throughput_excerpt.md"), "g.md");
    ASSERT_EQ(g.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(*g.kernels[0].dram_read_bytes, 960.0);  // dram_read_bytes, = 30 transactions x 32
    EXPECT_DOUBLE_EQ(*g.kernels[0].dram_write_bytes, 504608.0);
    // 231.66 x 2^20 / 1e9 + 118.92 x 2^30 / 1e9 = 0.242913116 + 127.689377710 = 127.932290826 GB/s
    EXPECT_NEAR(*g.kernels[0].dram_GBps, 127.932290826, 1e-8);
    // 505,568 B / 127.932290826e9 B/s = 3.951840 us
    EXPECT_DOUBLE_EQ(*g.kernels[0].time_us, 3.95184);

    try {
        parse_ncu_csv(fixture("corpus/ncu/nvprof_metrics_console_gtx1070_thrust2d_affine_read_throughput_only.profile"), "a");
        ADD_FAILURE() << "a read throughput alone was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("names 1 kernel but none has both directions"), std::string::npos) << e.what();
    }
    // An Event result table before the Metric result one (eBay/maxDNN's README): the metrics are what is refused.
    try {
        parse_ncu_csv(fixture("corpus/ncu/nvprof_events_and_metrics_console_gtx980_maxdnn_tab_indented_kernel_no_dram_readme.md"),
                      "maxdnn.md");
        ADD_FAILURE() << "metrics without DRAM counters were read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("nvprof --metrics output names 1 kernel"), std::string::npos) << e.what();
    }
    // 'Device "NAME (0)"    Kernel: NAME' on one line (an OpenMP offload kernel of a GT 1030 class's notes).
    const NcuProfile same = parse_ncu_csv(
        "==9592== Metric result:\n"
        "Invocations                               Metric Name                        Metric Description         Min         "
        "Max         Avg\n"
        "Device \"GeForce GT 1030 (0)\"    Kernel: mm$_omp_fn$0\n"
        "          1                      dram_read_throughput             Device Memory Read Throughput  1.0GB/s  1.0GB/s  "
        "1.0GB/s\n"
        "          1                     dram_write_throughput            Device Memory Write Throughput  1.0GB/s  1.0GB/s  "
        "1.0GB/s\n",
        "same.txt");
    ASSERT_EQ(same.kernels.size(), 1u);
    EXPECT_EQ(same.kernels[0].name, "mm$_omp_fn$0");
    EXPECT_EQ(same.kernels[0].device_name, "GeForce GT 1030");
    EXPECT_NEAR(*same.kernels[0].dram_GBps, 2.147483648, 1e-12);  // (1 + 1) x 2^30 B/s = 2.147483648e9 B/s
    try {
        parse_ncu_csv(
            "==1== Event result:\nInvocations                                Event Name         Min         Max         "
            "Avg       Total\nDevice \"Tesla K80 (0)\"\n    Kernel: k\n          1   fb_subp0_read_sectors   8   8   8   8\n",
            "e");
        ADD_FAILURE() << "an events table was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("holds nvprof --events output"), std::string::npos) << e.what();
    }
}

// The report printed in a view, as text.
std::string printed(const IngestReport& r, Format f) {
    std::FILE* out = std::tmpfile();
    print_ingest(r, f, out);
    std::rewind(out);
    std::string text;
    for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out))
        text += static_cast<char>(c);
    std::fclose(out);
    return text;
}

std::size_t column(const Section& s, const char* key) {
    for (std::size_t i = 0; i < s.columns.size(); ++i)
        if (s.columns[i].key == key)
            return i;
    return s.columns.size();
}

const char* kNvprofHeader =
    "Invocations                               Metric Name                        Metric Description         Min         "
    "Max         Avg\n"
    "Device \"Tesla V100-SXM2-16GB (0)\"\n";

// nvprof --metrics prints no duration: the time is bytes / rate, and the report says "derived", never "measured by
// nvprof, read from the file" (old code). 100 + 100 B at (1 + 1) x 2^30 B/s = 2.147483648e9 B/s:
// 200 / 2147.483648 B/us = 0.0931322575 us -> 0.093132 us.
TEST(NcuRealInputs, NvprofMetricsTimeIsLabelledDerived) {
    const NcuProfile p = parse_ncu_csv(std::string(kNvprofHeader) +
                                           "    Kernel: k1\n"
                                           "          1  dram_read_bytes  Desc  100  100  100\n"
                                           "          1  dram_write_bytes  Desc  100  100  100\n"
                                           "          1  dram_read_throughput  Desc  1.0GB/s  1.0GB/s  1.0GB/s\n"
                                           "          1  dram_write_throughput  Desc  1.0GB/s  1.0GB/s  1.0GB/s\n",
                                       "t.txt");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 0.093132);
    const IngestReport r = ncu_report(p, "t.txt", {});
    EXPECT_EQ(r.time_derivation, "DRAM bytes / nvprof's DRAM throughput");
    const std::string table = printed(r, Format::table);
    EXPECT_NE(table.find("times derived: DRAM bytes / nvprof's DRAM throughput"), std::string::npos) << table;
    EXPECT_EQ(table.find("measured by nvprof"), std::string::npos) << table;
    const std::string json = printed(r, Format::json);
    EXPECT_NE(json.find("\"time_derived\": true"), std::string::npos) << json;
    EXPECT_EQ(std::get<std::string>(r.sections[0].rows[0][column(r.sections[0], "time_source")]), "derived");
    EXPECT_TRUE(r.warnings.empty());  // read 100 B / 1 GiB/s = write 100 B / 1 GiB/s: one duration, no warning
    // ncu's own durations stay "measured".
    NcuProfile n;
    n.format = "ncu";
    NcuKernel k;
    k.id = "0", k.name = "k", k.dram_read_bytes = 1000, k.dram_write_bytes = 1000, k.time_us = 1.0;
    n.kernels.push_back(k);
    const std::string ncu_table = printed(ncu_report(n, "n.csv", {}), Format::table);
    EXPECT_NE(ncu_table.find("times ingested: measured by ncu"), std::string::npos) << ncu_table;
    EXPECT_EQ(printed(ncu_report(n, "n.csv", {}), Format::json).find("time_derived"), std::string::npos);
}

// Bytes at a throughput of 0 B/s (a rate nvprof could not measure): no GB/s and no time, with a warning; old code
// showed 0.0 GB/s and 0.0 % of peak. Bytes 2 x 2^30 = 2,147,483,648.
TEST(NcuRealInputs, NvprofBytesAtZeroRateGiveNoBandwidth) {
    const std::string csv =
        "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n"
        "\"Tesla V100-SXM2-16GB (0)\",\"k(float*)\",2,\"dram_read_throughput\",\"R\",0.00000B/s,0.00000B/s,0.00000B/s\n"
        "\"Tesla V100-SXM2-16GB (0)\",\"k(float*)\",2,\"dram_write_throughput\",\"W\",0.00000B/s,0.00000B/s,0.00000B/s\n"
        "\"Tesla V100-SXM2-16GB (0)\",\"k(float*)\",2,\"dram_read_bytes\",\"R\",1073741824,1073741824,1073741824\n"
        "\"Tesla V100-SXM2-16GB (0)\",\"k(float*)\",2,\"dram_write_bytes\",\"W\",1073741824,1073741824,1073741824\n";
    const NcuProfile p = parse_ncu_csv(csv, "c2.csv");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_FALSE(p.kernels[0].time_us.has_value());
    const IngestReport r = ncu_report(p, "c2.csv", {});
    const Section& s = r.sections[0];
    EXPECT_TRUE(std::holds_alternative<std::monostate>(s.rows[0][column(s, "bw_GBps")]));
    EXPECT_TRUE(std::holds_alternative<std::monostate>(s.rows[0][column(s, "time_us")]));
    EXPECT_TRUE(has_text(r.warnings, "kernel 0 (k): 2147483648 DRAM bytes but nvprof's DRAM throughput is 0 B/s"));
    EXPECT_FALSE(has_text(r.warnings, "no dram_read_throughput"));
    EXPECT_TRUE(has_text(r.summary.lines, "no bandwidth"));
}

// Read 1e9 B at 1 GB/s and write 1e9 B at 100 GB/s (2^30 B/s) are not one kernel's duration: warned, naming both.
// read: 1e9 / 1.073741824e3 B/us = 931,322.575 us; write: 1e9 / 107.3741824e3 = 9,313.22575 us (100x apart).
TEST(NcuRealInputs, NvprofDirectionsThatDisagreeAreWarned) {
    const NcuProfile p = parse_ncu_csv(std::string(kNvprofHeader) +
                                           "    Kernel: k1\n"
                                           "          1  dram_read_bytes  Desc  1000000000  1000000000  1000000000\n"
                                           "          1  dram_write_bytes  Desc  1000000000  1000000000  1000000000\n"
                                           "          1  dram_read_throughput  Desc  1.0GB/s  1.0GB/s  1.0GB/s\n"
                                           "          1  dram_write_throughput  Desc  100.0GB/s  100.0GB/s  100.0GB/s\n",
                                       "inc.txt");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_TRUE(has_text(p.warnings,
                         "kernel 0 (k1): read bytes / read rate = 931323 us but write bytes / write rate = "
                         "9313.23 us"))
        << (p.warnings.empty() ? "" : p.warnings[0]);
    EXPECT_TRUE(has_text(ncu_report(p, "inc.txt", {}).warnings, "do not give one duration"));
}

// Rows above the first "Kernel:" heading (a paste cut there) belong to a kernel the file does not name: not read,
// counted in a warning (old code: dropped silently). Lines 3 and 4 are the two rows.
TEST(NcuRealInputs, NvprofRowsBeforeAnyKernelHeadingAreWarned) {
    const NcuProfile p = parse_ncu_csv(std::string(kNvprofHeader) +
                                           "          5  dram_read_throughput  Desc  100GB/s  100GB/s  100GB/s\n"
                                           "          5  dram_write_throughput  Desc  100GB/s  100GB/s  100GB/s\n"
                                           "    Kernel: k2\n"
                                           "          1  dram_read_throughput  Desc  1.0GB/s  1.0GB/s  1.0GB/s\n"
                                           "          1  dram_write_throughput  Desc  1.0GB/s  1.0GB/s  1.0GB/s\n",
                                       "cut.txt");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.kernels[0].name, "k2");
    EXPECT_TRUE(has_text(p.warnings, "2 metric rows from line 3 come before any \"Kernel:\" heading"));
    EXPECT_TRUE(has_text(ncu_report(p, "cut.txt", {}).warnings, "before any \"Kernel:\" heading"));
}

// Messages say what the file holds: nvprof's own --devices for nvprof input; "no DRAM metric" for a file without
// one (old code: "none has both directions"), with the transaction metrics offered for GPUs without dram_*_bytes.
TEST(NcuRealInputs, NvprofMessagesNameNvprof) {
    const std::string head =
        "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\"\n";
    const NcuProfile two = parse_ncu_csv(head +
                                             "\"Tesla K80 (0)\",\"k\",1,\"dram_read_throughput\",\"R\",1GB/s,1GB/s,1GB/s\n"
                                             "\"Tesla K80 (0)\",\"k\",1,\"dram_write_throughput\",\"W\",1GB/s,1GB/s,1GB/s\n"
                                             "\"Tesla V100 (1)\",\"k\",1,\"dram_read_throughput\",\"R\",1GB/s,1GB/s,1GB/s\n"
                                             "\"Tesla V100 (1)\",\"k\",1,\"dram_write_throughput\",\"W\",1GB/s,1GB/s,1GB/s\n",
                                         "two.csv");
    const IngestReport r = ncu_report(two, "two.csv", {});
    EXPECT_TRUE(has_text(r.warnings, "(nvprof --devices N)"));
    EXPECT_FALSE(has_text(r.warnings, "ncu --devices"));
    try {
        parse_ncu_csv(head + "\"Tesla K80 (0)\",\"k\",1,\"achieved_occupancy\",\"O\",0.5,0.5,0.5\n", "occ.csv");
        ADD_FAILURE() << "a file without a DRAM metric was read";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("names 1 kernel but no DRAM metric"), std::string::npos) << m;
        EXPECT_NE(m.find("dram_read_transactions,dram_write_transactions"), std::string::npos) << m;
    }
    try {
        parse_ncu_csv(head + "\"Tesla K80 (0)\",\"k\",1,\"dram_read_throughput\",\"R\",1GB/s,1GB/s,1GB/s\n", "half.csv");
        ADD_FAILURE() << "one direction alone was read";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("none has both directions"), std::string::npos) << e.what();
    }
}

// A pasted console output cut after a kernel's heading (flashinfer issue #188: '...' then the next heading and its
// section title, no rows): that kernel is left out with a warning, not listed with every cell empty. Old code: 2
// kernels, the second all n/a.
TEST(NcuRealInputs, ConsoleHeadingWithoutRowsIsLeftOut) {
    const NcuProfile p = parse_ncu_csv(
        fixture("corpus/ncu/ncu_console_sol_two_kernels_elided_second_heading_only_rtx4090_vllm_paged_attention_flashinfer_"
                "issue188.txt"),
        "fi.txt");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_EQ(p.kernels[0].id, "0");
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 272.16);  // Duration 272.16 usecond
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_pct, 94.59);  // DRAM Throughput %
    EXPECT_TRUE(has_text(p.warnings, "kernel 1 (vllm::paged_attention_v2_reduce_kernel) at line 14 has no metric row"));
}

// Old code ignored the Memory Workload Analysis section's "Memory Throughput" in Gbyte/s: "no DRAM byte counts;
// bandwidth not computed". It is ncu's DRAM rate (dram__bytes.sum.per_second): on this CC 8.6 part (128-bit GDDR6 at
// 5.99 GHz: 5.99e9 x 2 x 16 B = 191.68 GB/s), 57.47 / 191.68 = 29.98 % and 187.33 / 191.68 = 97.73 %, the SOL
// section's DRAM Throughput 29.99 % and 97.75 %.
TEST(NcuRealInputs, MemoryWorkloadThroughputIsTheDramRate) {
    const NcuProfile p = parse_ncu_csv(
        fixture("corpus/ncu/"
                "ncu_console_sol_and_memory_workload_gbyte_per_s_two_kernels_then_l1tex_rerun_cc86_row_col_sums_cu_comment.txt"),
        "rc.txt");
    // Two kernels, then the same two in an l1tex-only run: those hold nothing bwacct reads and are left out.
    ASSERT_EQ(p.kernels.size(), 2u);
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("2 kernels (2 (row_sums), 3 (column_sums)) hold no DRAM bytes, DRAM rate or duration"),
              std::string::npos)
        << p.warnings[0];
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_GBps, 57.47);  // 57.47 Gbyte/s x 1e9 / 1e9
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 22570.0);  // 22.57 ms
    EXPECT_DOUBLE_EQ(*p.kernels[1].dram_GBps, 187.33);
    EXPECT_DOUBLE_EQ(*p.kernels[1].dram_pct, 97.75);  // the SOL's %, not the "Memory Throughput" of SOL (also 97.75 %)
    EXPECT_FALSE(p.kernels[1].dram_bytes);            // a rate, never bytes
    const IngestReport r = ncu_report(p, "rc.txt", {});
    const Section& k = bwacct_test::section(r, "kernels");
    const std::size_t bw = bwacct_test::column(k, "bw_GBps");
    EXPECT_DOUBLE_EQ(std::get<double>(k.rows[1][bw]), 187.33);
    bool said = false;
    for (const std::string& w : r.warnings)
        said = said || w.find("2 kernels have ncu's measured DRAM rate (Memory Throughput") != std::string::npos;
    EXPECT_TRUE(said);
    // The rate's unit decides: Mbyte/second scales by 1e6 (2,500 Mbyte/second = 2.5 GB/s); a "Memory Throughput" in %
    // (the SOL section's) is not a rate.
    const std::string csv =
        "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"k\",\"Memory Workload Analysis\",\"Memory Throughput\",\"Mbyte/second\",\"2,500\"\n"
        "\"0\",\"k\",\"GPU Speed Of Light Throughput\",\"Memory Throughput\",\"%\",\"40\"\n"
        "\"0\",\"k\",\"GPU Speed Of Light Throughput\",\"DRAM Throughput\",\"%\",\"35\"\n"
        "\"0\",\"k\",\"GPU Speed Of Light Throughput\",\"Duration\",\"usecond\",\"10\"\n";
    const NcuProfile c = parse_ncu_csv(csv, "c.csv");
    ASSERT_EQ(c.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(*c.kernels[0].dram_GBps, 2.5);
    // The SOL's "DRAM Throughput" 35 % is the DRAM share, not its "Memory Throughput" 40 % (the busiest memory unit).
    ASSERT_TRUE(c.kernels[0].dram_pct.has_value());
    EXPECT_DOUBLE_EQ(*c.kernels[0].dram_pct, 35.0);
}

// The same rule on a T4 (CC 7.5: 256-bit GDDR6 at 5.00 GHz = 320 GB/s): 2.98 / 320 = 0.93 % and 28.25 / 320 = 8.83 %,
// ncu's own DRAM Throughput 0.93 % and 8.84 %. The first Duration is in s, the second in ms.
TEST(NcuRealInputs, MemoryWorkloadThroughputOnAT4) {
    const NcuProfile p = parse_ncu_csv(
        fixture("corpus/ncu/ncu_console_sol_mwa_t4_colab_sgemm_naive_duration_seconds_warning_mid_progress_two_runs_excerpt.md"),
        "t4.md");
    ASSERT_EQ(p.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 6070000.0);  // 6.07 s
    EXPECT_DOUBLE_EQ(*p.kernels[1].time_us, 472840.0);   // 472.84 ms
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_GBps, 2.98);
    EXPECT_DOUBLE_EQ(*p.kernels[1].dram_GBps, 28.25);
    EXPECT_NEAR(100.0 * *p.kernels[1].dram_GBps / 320.0, *p.kernels[1].dram_pct, 0.02);  // 8.828 vs 8.84
}

}  // namespace
