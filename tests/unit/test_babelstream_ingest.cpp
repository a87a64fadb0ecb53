// The BabelStream / gpu-stream reader as a pure function, and its report: values read from the
// fixtures by eye, arithmetic in the comments.
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <fstream>
#include <sstream>
#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_babelstream.h"

namespace {

using namespace bwacct;
using bwacct_test::column;
using bwacct_test::fixture;
using bwacct_test::section;

using bwacct_test::real;
using bwacct_test::text;

GpuSpec gpu(const std::string& id, double hbm) {
    GpuSpec g;
    g.id = id;
    g.hbm_bw_GBps.value = hbm;
    return g;
}

TEST(BabelStream, BytesPerKernel) {
    // BabelStream src/main.cpp sizes: Copy, Mul, Dot 2 arrays; Add, Triad 3; Nstream 4.
    EXPECT_EQ(babelstream_arrays("Copy"), 2);
    EXPECT_EQ(babelstream_arrays("Mul"), 2);
    EXPECT_EQ(babelstream_arrays("Add"), 3);
    EXPECT_EQ(babelstream_arrays("Triad"), 3);
    EXPECT_EQ(babelstream_arrays("Dot"), 2);
    EXPECT_EQ(babelstream_arrays("Nstream"), 4);
    EXPECT_EQ(babelstream_arrays("Scale"), 0);
    EXPECT_EQ(gpu_stream_arrays("COPY"), 2);
    EXPECT_EQ(gpu_stream_arrays("SCALE"), 2);
    EXPECT_EQ(gpu_stream_arrays("ADD"), 3);
    EXPECT_EQ(gpu_stream_arrays("TRIAD"), 3);
}

TEST(BabelStream, PolarisTextTwoRuns) {
    // tests/data/babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt: two runs of
    // BabelStream 5.0 CUDA, double, "Array size: 268.4 MB", device NVIDIA A100-SXM4-40GB; run 1:
    //   Copy        1400256.415 0.00038     0.00039     0.00039
    //   Add         1369584.958 0.00059     0.00060     0.00059
    const BabelStreamFile f =
        parse_babelstream(fixture("babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt"), "p");
    EXPECT_EQ(f.format, "BabelStream text");
    ASSERT_EQ(f.runs.size(), 2u);
    ASSERT_EQ(f.rows.size(), 10u);
    EXPECT_EQ(f.runs[0].version, "5.0");
    EXPECT_EQ(f.runs[0].implementation, "CUDA");
    EXPECT_EQ(f.runs[0].device, "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(*f.runs[0].sizeof_t, 8);
    EXPECT_FALSE(f.runs[0].mebibytes);
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 268.4e6);
    EXPECT_DOUBLE_EQ(f.runs[0].array_bytes_halfwidth, 0.05e6);  // printed to 0.1 MB
    EXPECT_EQ(babelstream_device_name(f), "NVIDIA A100-SXM4-40GB");
    EXPECT_EQ(f.rows[0].function, "Copy");
    EXPECT_EQ(f.rows[0].run, 1);
    EXPECT_DOUBLE_EQ(f.rows[0].bw_printed, 1400256.415);
    EXPECT_DOUBLE_EQ(f.rows[0].min_s, 0.00038);
    EXPECT_DOUBLE_EQ(f.rows[0].max_s, 0.00039);
    // Run 2, Dot: 1334752.718 0.00040 0.00041 0.00041
    EXPECT_EQ(f.rows[9].function, "Dot");
    EXPECT_EQ(f.rows[9].run, 2);
    EXPECT_DOUBLE_EQ(f.rows[9].bw_printed, 1334752.718);

    // On a 1555 GB/s A100 40GB: Copy 1400256.415 MB/s = 1400.256415 GB/s = 90.048 % of 1555.
    // Bytes per Copy = 2 x 268.4e6 = 536,800,000; / 0.00038 s = 1412.63 GB/s. Within the rounding:
    //   [2 x 268.35e6 / 0.000385, 2 x 268.45e6 / 0.000375] = [1394.03, 1431.73] GB/s holds 1400.256: ok.
    // Add: 3 x 268.4e6 = 805,200,000 B / 0.00059 s = 1364.75 GB/s (printed 1369.585): ok.
    const GpuSpec a100 = gpu("a100-sxm-40gb", 1555);
    const IngestReport r = babelstream_report(f, "p", {&a100});
    const Section& s = section(r, "kernels");
    ASSERT_EQ(s.rows.size(), 10u);
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_GBps")]), 1400.256415, 1e-9);
    EXPECT_NEAR(real(s.rows[0][column(s, "pct_of_hbm_peak")]), 100.0 * 1400.256415 / 1555.0, 1e-9);
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536800000u);
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_from_min_time_GBps")]), 536.8e6 / 0.00038 / 1e9, 1e-6);
    EXPECT_NEAR(real(s.rows[0][column(s, "min_us")]), 380.0, 1e-9);
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[2][column(s, "bytes")]), 805200000u);
    for (const auto& row : s.rows)
        EXPECT_EQ(text(row[column(s, "check")]), "ok");
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_TRUE(r.records.empty());
}

TEST(BabelStream, DisagreeingRowIsFlagged) {
    // Copy printed at 2,000,000 MB/s = 2000 GB/s, but 2 x 268.45e6 B / (0.00038 - 0.000005) s is at
    // most 1431.7 GB/s: the row disagrees.
    const std::string text_in =
        "BabelStream\nVersion: 5.0\nPrecision: double\nArray size: 268.4 MB (=0.3 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        2000000.000 0.00038     0.00039     0.00039     \n";
    const BabelStreamFile f = parse_babelstream(text_in, "t");
    const IngestReport r = babelstream_report(f, "t", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "disagrees");
    EXPECT_EQ(r.warnings.size(), 1u);
}

TEST(BabelStream, CsvOutputWithExactSize) {
    // BabelStream --csv: n_elements 33554432 (2^25) x sizeof 8 -> Copy moves 2 x 268,435,456 = 536,870,912 B.
    // 536,870,912 / 0.000383 s = 1401.75 GB/s; rounding of the 6-digit min time (+-5e-7 s) allows
    // [536870912/0.0003835, 536870912/0.0003825] = [1399.92, 1403.58] GB/s; printed 1.40026e+06 MB/s = 1400.26: ok.
    const std::string text_in =
        "phase,n_elements,sizeof,max_mbytes_per_sec,runtime\n"
        "Init,33554432,8,12341.9,0.06525\n"
        "Read,33554432,8,1.07703e+06,0.000748\n"
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n"
        "Copy,100,33554432,8,1.40026e+06,0.000383,0.000391,0.000387\n"
        "Triad,100,33554432,8,1.37752e+06,0.000584,0.000597,0.000589\n";
    const BabelStreamFile f = parse_babelstream(text_in, "c");
    EXPECT_EQ(f.format, "BabelStream CSV");
    ASSERT_EQ(f.rows.size(), 2u);
    EXPECT_EQ(*f.runs[0].n_elements, 33554432u);
    EXPECT_EQ(*f.rows[0].n_times, 100u);
    const IngestReport r = babelstream_report(f, "c", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536870912u);
    EXPECT_EQ(text(s.rows[0][column(s, "gpu")]), "-");
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_GBps")]), 1400.26, 1e-9);
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");
    // Triad: 3 x 268,435,456 = 805,306,368 B / 0.000584 s = 1378.95 GB/s; allowed
    // [805306368/0.0005845, 805306368/0.0005835] = [1377.76, 1380.13]; printed 1377.52 +- 0.005 is below: disagrees.
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 805306368u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "disagrees");
}

TEST(BabelStream, MebibytesText) {
    // --mibibytes: "Array size: 256.0 MiB" = 256 x 2^20 = 268,435,456 B; 1335416.8 MiB/s x 2^20 / 1e9 = 1400.288 GB/s.
    const BabelStreamFile f = parse_babelstream(
        "Precision: double\nArray size: 256.0 MiB (=0.2 GiB)\n"
        "Function    MiBytes/sec Min (sec)   Max         Average     \n"
        "Copy        1335416.800 0.00038     0.00039     0.00039     \n",
        "m");
    EXPECT_TRUE(f.runs[0].mebibytes);
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 268435456.0);
    const IngestReport r = babelstream_report(f, "m", {});
    const Section& s = section(r, "kernels");
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_GBps")]), 1335416.8 * 1048576.0 / 1e9, 1e-9);
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536870912u);
}

TEST(GpuStream, SuperBenchFixture) {
    // tests/data/babelstream/gpu_stream_sm100_superbench.txt: 2 devices x 16 rows; device 0 line
    // "Memory: 4000MHz x 8192-bit = 8192 GB/s PEAK"; first row
    //   STREAM_COPY_double_gpu_0_buffer_4294967296_block_128    6711.67 81.93
    const BabelStreamFile f = parse_babelstream(fixture("babelstream/gpu_stream_sm100_superbench.txt"), "g");
    EXPECT_EQ(f.format, "SuperBench gpu-stream");
    ASSERT_EQ(f.gs_devices.size(), 2u);
    EXPECT_EQ(f.gs_devices[0].name, "NVIDIA Graphics Device");
    EXPECT_DOUBLE_EQ(*f.gs_devices[0].peak_GBps, 8192.0);
    EXPECT_DOUBLE_EQ(*f.gs_devices[1].peak_GBps, 8192.0);  // "8192.00 GB/s PEAK"
    ASSERT_EQ(f.gs_rows.size(), 32u);
    const GpuStreamRow& r0 = f.gs_rows[0];
    EXPECT_EQ(r0.kernel, "COPY");
    EXPECT_EQ(r0.dtype, "double");
    EXPECT_EQ(r0.device, 0);
    EXPECT_EQ(r0.buffer_bytes, 4294967296u);
    EXPECT_EQ(r0.block, 128u);
    EXPECT_DOUBLE_EQ(r0.bw_GBps, 6711.67);
    EXPECT_DOUBLE_EQ(*r0.pct_printed, 81.93);
    EXPECT_EQ(f.gs_rows[16].device, 1);
    EXPECT_EQ(babelstream_device_name(f), "NVIDIA Graphics Device");

    // Against an 8000 GB/s B200: bytes per COPY iteration = 2 x 4,294,967,296 = 8,589,934,592;
    // time = 8,589,934,592 B / 6711.67e9 B/s = 1279.85 us; 6711.67 / 8000 = 83.896 %.
    // The printed % checks: 6711.67 / 8192 = 81.929 % (printed 81.93).
    const GpuSpec b200 = gpu("b200", 8000);
    const IngestReport r = babelstream_report(f, "g", {&b200});
    const Section& s = section(r, "gpu_stream");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 8589934592u);
    EXPECT_NEAR(real(s.rows[0][column(s, "time_us")]), 8589934592.0 / 6711.67e3, 1e-9);
    EXPECT_NEAR(real(s.rows[0][column(s, "pct_of_hbm_peak")]), 6711.67 / 80.0, 1e-9);
    // ADD (row 9): 3 x 4 GiB = 12,884,901,888 B per iteration.
    EXPECT_EQ(f.gs_rows[8].kernel, "ADD");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[8][column(s, "bytes")]), 12884901888u);
    EXPECT_TRUE(r.warnings.empty());  // every printed % agrees with bw / 8192
}

TEST(BabelStream, BadInput) {
    // Nothing recognisable; a truncated row; a table without rows; a zero time; triad-only output;
    // min above max; a malformed gpu-stream row.
    EXPECT_THROW(parse_babelstream("#  size  count  type  redop  root  time  algbw  busbw\n", "n"), InputError);
    const std::string head = "Function    MBytes/sec  Min (sec)   Max         Average     \n";
    EXPECT_THROW(parse_babelstream(head + "Copy        1400256.415 0.00038\n", "t"), InputError);
    EXPECT_THROW(parse_babelstream(head, "t"), InputError);
    EXPECT_THROW(parse_babelstream(head + "Copy        1400256.415 0.00000 0.00039 0.00039\n", "z"), InputError);
    EXPECT_THROW(parse_babelstream(head + "Copy        1400256.415 0.00040 0.00039 0.00039\n", "m"), InputError);
    EXPECT_THROW(parse_babelstream("Running triad 100 times\nNumber of elements: 33554432\nPrecision: double\n"
                                   "--------------------------------\nRuntime (seconds): 0.05800\n"
                                   "Bandwidth (GB/s):  1388.2\n",
                                   "tri"),
                 InputError);
    EXPECT_THROW(parse_babelstream("STREAM_COPY_double_gpu_0_buffer_4294967296_block_128    6711.67\n", "g"), InputError);
    try {
        parse_babelstream(head + "Copy        1400256.415 0.00038\n", "cut.txt");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "cut.txt");
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
}

}  // namespace

namespace {

using namespace bwacct;
using bwacct_test::column;
using bwacct_test::section;

std::string cell_text(const Cell& c) { return std::get<std::string>(c); }

// Defect 1: one line of 300 KB starting like a line the parser looks at used to overflow the stack in
// std::regex's recursion (exit 139). Now each is scanned once: no crash, and the line is either
// taken for what it is or refused with one InputError.
TEST(BabelStreamRobust, LongLinesDoNotOverflowTheStack) {
    const std::string a(300000, 'a');
    const std::string digits(300000, '7');
    const std::string table =
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        250000.000  0.00040     0.00041     0.00040     \n";
    // The device name is the rest of the "Using ... device " line, however long.
    const BabelStreamFile f = parse_babelstream("Using CUDA device " + a + "\n" + table, "u");
    EXPECT_EQ(f.runs[0].device, a);
    // 300,000 digits and no unit: not an array size (the table is still read).
    const BabelStreamFile g = parse_babelstream("Array size: " + digits + "\n" + table, "s");
    EXPECT_FALSE(g.runs[0].array_bytes.has_value());
    ASSERT_EQ(g.rows.size(), 1u);
    // A long "Function" line is not the header; a long STREAM_ name is not a gpu-stream row; an
    // unclosed "Device 0: \"" names no device.
    EXPECT_THROW(parse_babelstream("Function " + a + "\n", "f"), InputError);
    EXPECT_THROW(parse_babelstream("STREAM_" + std::string(300000, 'A') + "\n", "g"), InputError);
    EXPECT_THROW(parse_babelstream("Device 0: \"" + a + "\n", "d"), InputError);
    EXPECT_THROW(parse_babelstream(std::string(300000, ' ') + "Using device " + a + " \n", "w"), InputError);
}

// Defect 8: GPU-STREAM 1.0 prints a function today's BabelStream does not have (Add4) before Triad.
// Before, the table ended at Add4 and Triad was dropped silently.
TEST(BabelStreamRobust, UnknownFunctionRowIsKeptAndTheRowsAfterItRead) {
    // GPU-STREAM 1.x prints its array size in 2^20-byte "MB": 50.0 MB = 50 x 1048576 = 52428800 B
    // (+- 0.05 x 1048576). Copy: 2 x 52428800 B / 0.00040 s = 262.144 GB/s, printed 262144.000 MB/s: ok.
    // Triad: 3 x 52428800 / 0.00060 = 262.144 GB/s: ok. Add4 (GPU-STREAM 1.0 HIP: 5 arrays):
    // 5 x 52428800 / 0.00080 = 327.68 GB/s, printed 327680.000: ok. A name no variant defines stays
    // unknown. (Read as 10^6-byte MB, Copy would give 2 x 50e6 / 0.00040 = 250 GB/s: "disagrees".)
    const std::string in =
        "GPU-STREAM\nVersion: 1.0\nImplementation: CUDA\nPrecision: double\n\n"
        "Array size: 50.0 MB (=0.0 GB)\nUsing CUDA device GeForce GTX TITAN X\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        262144.000  0.00040     0.00041     0.00040     \n"
        "Add4        327680.000  0.00080     0.00081     0.00080     \n"
        "Add9        300000.000  0.00080     0.00081     0.00080     \n"
        "Triad       262144.000  0.00060     0.00061     0.00060     \n"
        "\nsome trailing line\n";
    const BabelStreamFile f = parse_babelstream(in, "gs1");
    ASSERT_EQ(f.rows.size(), 4u);
    EXPECT_EQ(f.rows[1].function, "Add4");
    EXPECT_EQ(f.rows[3].function, "Triad");
    EXPECT_EQ(f.runs[0].version, "1.0");
    ASSERT_TRUE(f.runs[0].array_bytes.has_value());
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 52428800.0);
    const IngestReport r = babelstream_report(f, "gs1", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(cell_text(s.rows[0][column(s, "check")]), "ok");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 262144000u);  // 5 x 52428800
    EXPECT_EQ(cell_text(s.rows[1][column(s, "check")]), "ok");
    EXPECT_NEAR(std::get<double>(s.rows[2][column(s, "bw_GBps")]), 300.0, 1e-9);
    EXPECT_EQ(cell_text(s.rows[2][column(s, "bytes")]), "unknown");
    EXPECT_EQ(cell_text(s.rows[2][column(s, "check")]), "unknown function");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[3][column(s, "bytes")]), 157286400u);  // 3 x 52428800
    EXPECT_EQ(cell_text(s.rows[3][column(s, "check")]), "ok");
    EXPECT_TRUE(r.warnings.empty());
    // A known function's row still has to be whole: cut where the file ends (a truncated file), it is not read,
    // and a warning says so (logs9: before, the whole file was refused); the rows before it are read.
    const BabelStreamFile cut = parse_babelstream(
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Add9        300000.000  0.00080     0.00081     0.00080\n"
        "Triad       250000.000  0.00060\n",
        "cut");
    ASSERT_EQ(cut.rows.size(), 1u);
    EXPECT_EQ(cut.rows[0].function, "Add9");
    ASSERT_EQ(cut.warnings.size(), 1u);
    EXPECT_NE(cut.warnings[0].find("line 3: Triad row cut short (3 of 5 fields) where the paste ends"), std::string::npos);
    // The CSV table also keeps an unknown function and reads on.
    const BabelStreamFile c = parse_babelstream(
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n"
        "Copy,100,33554432,8,1.40026e+06,0.000383,0.000391,0.000387\n"
        "Add9,100,33554432,8,1.5e+06,0.000700,0.000710,0.000705\n"
        "Triad,100,33554432,8,1.37752e+06,0.000584,0.000597,0.000589\n",
        "csv");
    ASSERT_EQ(c.rows.size(), 3u);
    EXPECT_EQ(c.rows[2].function, "Triad");
}

// GPU-STREAM 1.0 (HIP, ROCm issue 1399 in tests/data/corpus/babelstream/rocm_issue1399_*) prints its
// work items: "GridSize: 65536 work-items" x "Operations/Work-item: 400" = 26214400 doubles = 209715200 B
// per array, exactly; its "Array size: 200.0 MB" is 200 x 2^20 B, the same. Copy: 2 x 209715200 B /
// [0.001215, 0.001205] s = [345.2, 348.1] GB/s holds the printed 347.348; Add4: 5 x 209715200 /
// [0.003085, 0.003075] = [339.9, 341.0] holds 340.854. Before: the size read as 200e6 B gave Copy
// 400e6 / [0.001215, 0.001205] = [329.2, 332.0] GB/s, "disagrees" with a warning on every row.
TEST(BabelStreamRobust, GpuStream1WorkItemsGiveTheExactArraySize) {
    const std::string in =
        "GPU-STREAM\nVersion: 1.0\nImplementation: HIP\nGridSize: 65536 work-items\nGroupSize: 256 work-items\n"
        "Operations/Work-item: 400\nUsing looper kernels:\nPrecision: double\n\nRunning kernels 10 times\n"
        "Array size: 200.0 MB (=0.2 GB) 0 bytes padding\nTotal size: 1000.0 MB (=1.0 GB)\n"
        "Using HIP device Device 6868 (compute_units=56)\nDriver: 321200\nd_a=0x7f84a8e00000\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        347347.752  0.00121     0.00168     0.00147     \n"
        "Mul         366428.048  0.00114     0.00168     0.00140     \n"
        "Add4        340854.118  0.00308     0.00427     0.00360     \n"
        "Triad       333259.669  0.00189     0.00262     0.00222     \n"
        "GEOMEAN     346757.711  \n";
    const BabelStreamFile f = parse_babelstream(in, "gs1");
    ASSERT_EQ(f.runs.size(), 1u);
    EXPECT_EQ(f.runs[0].n_elements, 26214400u);  // 65536 x 400
    ASSERT_TRUE(f.runs[0].array_bytes.has_value());
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 209715200.0);
    EXPECT_EQ(f.runs[0].array_bytes_halfwidth, 0.0);
    ASSERT_EQ(f.rows.size(), 4u);  // the GEOMEAN line ends the table
    const IngestReport r = babelstream_report(f, "gs1", {});
    const Section& s = section(r, "kernels");
    for (const auto& row : s.rows)
        EXPECT_EQ(cell_text(row[column(s, "check")]), "ok") << cell_text(row[column(s, "function")]);
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 419430400u);   // 2 x 209715200
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[2][column(s, "bytes")]), 1048576000u);  // 5 x 209715200
    EXPECT_TRUE(r.warnings.empty());
}

// Defect 8: a run that printed "Validation failed" has every bandwidth reported as unverified (a
// column in every row of that run and a warning), never as a plain result; the other run is not.
TEST(BabelStreamRobust, ValidationFailureMarksItsRunUnverified) {
    const std::string table =
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        250000.000  0.00040     0.00041     0.00040     \n"
        "Triad       250000.000  0.00060     0.00061     0.00060     \n";
    const std::string in = "BabelStream\nArray size: 50.0 MB (=0.1 GB)\nValidation failed on a[]. Average error 0.5\n" + table +
                           "BabelStream\nArray size: 50.0 MB (=0.1 GB)\n" + table;
    const BabelStreamFile f = parse_babelstream(in, "v");
    ASSERT_EQ(f.runs.size(), 2u);
    EXPECT_EQ(f.runs[0].validation_failure, "Validation failed on a[]. Average error 0.5");
    EXPECT_EQ(f.runs[0].validation_line, 3u);
    EXPECT_TRUE(f.runs[1].validation_failure.empty());
    const IngestReport r = babelstream_report(f, "v", {});
    const Section& s = section(r, "kernels");
    ASSERT_EQ(s.rows.size(), 4u);
    EXPECT_EQ(cell_text(s.rows[0][column(s, "validation")]), "failed: unverified");
    EXPECT_EQ(cell_text(s.rows[1][column(s, "validation")]), "failed: unverified");
    EXPECT_EQ(cell_text(s.rows[2][column(s, "validation")]), "no failure printed");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("run 1: line 3"), std::string::npos) << r.warnings[0];
    EXPECT_NE(r.warnings[0].find("unverified"), std::string::npos) << r.warnings[0];

    // stderr interleaved inside the table (2>&1 on a terminal): the rows after it are still read; a
    // failure printed after the last table (stdout flushed first) belongs to the last run.
    const BabelStreamFile g = parse_babelstream(
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        250000.000  0.00040     0.00041     0.00040\n"
        "Validation failed on sum. Error 1.0e+00\n"
        "Triad       250000.000  0.00060     0.00061     0.00060\n",
        "i");
    ASSERT_EQ(g.rows.size(), 2u);
    EXPECT_EQ(g.runs[0].validation_line, 3u);
    const BabelStreamFile h = parse_babelstream(table + "Failed Validation on array c[]\n", "late");
    EXPECT_EQ(h.runs[0].validation_failure, "Failed Validation on array c[]");
    EXPECT_TRUE(is_validation_failure("  VALIDATION FAILED: x"));
    EXPECT_FALSE(is_validation_failure("Solution Validates: avg error less than 1.000000e-13"));
}

// Defect 16: a UTF-8 BOM and CRLF line ends read as the plain text does.
TEST(BabelStreamRobust, BomAndCrlf) {
    const std::string plain = bwacct_test::fixture("babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt");
    std::string crlf = "\xEF\xBB\xBF";
    for (const char c : plain) {
        if (c == '\n')
            crlf += '\r';
        crlf += c;
    }
    const BabelStreamFile a = parse_babelstream(plain, "p"), b = parse_babelstream(crlf, "p");
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        EXPECT_EQ(a.rows[i].function, b.rows[i].function);
        EXPECT_EQ(a.rows[i].bw_text, b.rows[i].bw_text);
    }
    EXPECT_EQ(b.runs[0].device, "NVIDIA A100-SXM4-40GB");
}

// Two runs on two devices in one file (a paste of an A100-PCIE-40GB run and a TITAN Xp run, as a
// Chinese porting log shows them). Before: every run was compared with the file's first device's GPU,
// so the TITAN Xp's 433.2 GB/s Copy read as 27.9 % of the A100's 1555 GB/s. Now a run given its own GPUs
// (run_gpus, set by the CLI from the run's device line) uses them, and an empty list means none.
TEST(BabelStream, EachRunOnItsOwnGpu) {
    const std::string in =
        "BabelStream\nPrecision: float\nArray size: 134.2 MB (=0.1 GB)\nUsing CUDA device NVIDIA A100-PCIE-40GB\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1272688.489 0.00021     0.00027     0.00026\n"
        "BabelStream\nPrecision: double\nArray size: 268.4 MB (=0.3 GB)\nUsing CUDA device TITAN Xp\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        433182.244  0.00124     0.00128     0.00125\n";
    const BabelStreamFile f = parse_babelstream(in, "two");
    ASSERT_EQ(f.runs.size(), 2u);
    EXPECT_EQ(f.runs[1].device, "TITAN Xp");
    const GpuSpec a100 = gpu("a100-pcie-40gb", 1555);
    const IngestReport r = babelstream_report(f, "two", {&a100}, {std::nullopt, std::vector<const GpuSpec*>{}});
    const Section& s = section(r, "kernels");
    ASSERT_EQ(s.rows.size(), 2u);
    // Run 1 on the A100: 1272.688489 GB/s / 1555 GB/s = 81.85 %.
    EXPECT_EQ(text(s.rows[0][column(s, "gpu")]), "a100-pcie-40gb");
    EXPECT_NEAR(real(s.rows[0][column(s, "pct_of_hbm_peak")]), 100 * 1272.688489 / 1555, 1e-9);
    // Run 2 on no GPU: no peak and no percentage.
    EXPECT_EQ(text(s.rows[1][column(s, "gpu")]), "-");
    EXPECT_TRUE(std::holds_alternative<std::monostate>(s.rows[1][column(s, "pct_of_hbm_peak")]));
}

}  // namespace
