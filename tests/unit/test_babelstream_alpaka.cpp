// alpaka's Catch2 babelstream benchmark (tests/data/corpus/babelstream/, "# logs7"): "Key:value" context lines and a
// "Kernels Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB)" table. Before: refused ("no BabelStream
// result table ... found").
#include <gtest/gtest.h>

#include <string>

#include "bwacct/ingest_babelstream.h"
#include "ingest_test_util.h"

namespace {

using namespace bwacct;
using bwacct_test::column;
using bwacct_test::section;

std::string text(const Cell& c) { return std::get<std::string>(c); }
double real(const Cell& c) { return std::get<double>(c); }

const char* kTable =
    "Kernels         Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB) \n"
    " AddKernel       77.046          8.1658e-05 8.1658e-05 8.1658e-05 6.2915 \n"
    " CopyKernel      65.102          6.4427e-05 6.4427e-05 6.4427e-05 4.1943 \n"
    " DotKernel       33.015          0.00012704 0.00012704 0.00012704 4.1943 \n"
    " InitKernel      64.109          9.8137e-05 9.8137e-05 9.8137e-05 6.2915 \n"
    " MultKernel      74.419          5.6361e-05 5.6361e-05 5.6361e-05 4.1943 \n"
    " TriadKernel     77.08           8.1622e-05 8.1622e-05 8.1622e-05 6.2915 \n"
    "\n"
    "All tests passed (16 assertions in 4 test cases)\n";

// The table of alpaka PR 2420's test run, whose context lines the paste cut: the array size comes from DataUsage,
// the first known kernel's (Add moves 3 arrays): 6.2915e6 / 3 = 2097166.67 B, +- 0.00005e6 / 3 = 16.67 B.
TEST(BabelStreamAlpaka, TableReadWithArraySizeFromDataUsage) {
    const BabelStreamFile f = parse_babelstream(kTable, "alpaka");
    ASSERT_EQ(f.runs.size(), 1u);
    ASSERT_EQ(f.rows.size(), 6u);
    EXPECT_TRUE(f.runs[0].gigabytes);
    ASSERT_TRUE(f.runs[0].array_bytes.has_value());
    EXPECT_NEAR(*f.runs[0].array_bytes, 6.2915e6 / 3, 1e-6);
    EXPECT_NEAR(f.runs[0].array_bytes_halfwidth, 50.0 / 3, 1e-9);
    EXPECT_EQ(f.rows[4].function, "Mul");  // alpaka's "MultKernel"
    EXPECT_EQ(f.rows[3].function, "Init");

    const IngestReport r = babelstream_report(f, "alpaka", {});
    const Section& s = section(r, "kernels");
    ASSERT_EQ(s.rows.size(), 6u);
    // Printed in GB/s: 77.046 GB/s, not 77.046 MB/s.
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_GBps")]), 77.046, 1e-9);
    // Copy: 2 x 2097166.67 = 4194333 B over min 6.4427e-05 s (+- 0.5e-9): 4194300 / 6.44275e-05 = 65.101e9 ..
    // 4194367 / 6.44265e-05 = 65.104e9 B/s; printed 65.102 GB/s (+- 0.0005) lies inside: ok.
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 4194333u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "ok");
    // Dot: 4194333 B / 0.00012704 s = 33.016e9 B/s, printed 33.015 (the intervals meet): ok.
    EXPECT_EQ(text(s.rows[2][column(s, "check")]), "ok");
    // Init writes 3 arrays (BabelStream 5's Init line; DataUsage 6.2915 MB): 3 x 2097166.67 = 6291500 B over
    // 9.8137e-05 s = 64.110e9 B/s, printed 64.109: ok.
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[3][column(s, "bytes")]), 6291500u);
    EXPECT_EQ(text(s.rows[3][column(s, "check")]), "ok");
}

// With its context lines the size is exact: DataSize(items) 524288 x 4 B (Precision:single) = 2097152 B; the
// device is named. A printed bandwidth that bytes / time cannot give is flagged: Copy at 2 x 2097152 B / 6.4427e-05 s
// = 65.10 GB/s, printed 99.000.
TEST(BabelStreamAlpaka, ContextLinesGiveExactSizeAndDevice) {
    const std::string in = std::string(
                               "AcceleratorType:AccGpuCudaRt<1,unsigned int>\n"
                               "NumberOfRuns:100\n"
                               "Precision:single\n"
                               "DataSize(items):524288\n"
                               "DeviceName:NVIDIA RTX A500 Laptop GPU\n") +
                           "Kernels         Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB) \n"
                           " CopyKernel      99.000          6.4427e-05 6.4427e-05 6.4427e-05 4.1943 \n";
    const BabelStreamFile f = parse_babelstream(in, "alpaka");
    ASSERT_EQ(f.runs.size(), 1u);
    EXPECT_EQ(f.runs[0].device, "NVIDIA RTX A500 Laptop GPU");
    EXPECT_EQ(f.runs[0].implementation, "alpaka AccGpuCudaRt<1,unsigned int>");
    ASSERT_TRUE(f.runs[0].array_bytes.has_value());
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 2097152.0);
    EXPECT_DOUBLE_EQ(f.runs[0].array_bytes_halfwidth, 0.0);
    const IngestReport r = babelstream_report(f, "alpaka", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 4194304u);
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "disagrees");
}

}  // namespace
