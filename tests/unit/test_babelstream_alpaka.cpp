// alpaka's Catch2 babelstream benchmark (tests/data/corpus/babelstream/, "# logs7"): "Key:value" context lines and a
// "Kernels Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB)" table. Before: refused ("no BabelStream
// result table ... found").
#include <gtest/gtest.h>

#include <string>

#include "bwacct/error.h"
#include "bwacct/ingest_babelstream.h"
#include "ingest_test_util.h"

namespace {

using namespace bwacct;
using bwacct_test::column;
using bwacct_test::section;

using bwacct_test::real;
using bwacct_test::text;

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

// Older alpaka (benchmarks/babelstream at b1cb527, babelStreamMainTest.cpp) prints its rows in run order with
// InitKernel's DataUsage as 2 arrays ({2, 2, 2, 3, 3, 2} for Init, Copy, Mult, Add, Triad, Dot); later alpaka counts it
// as 3. The array size never comes from Init: here from Copy, 536.87e6 / 2 = 268435000 B (+- 0.005e6 / 2 = 2500 B),
// and Init's count is its DataUsage / that size = 2. Before: the array came from Init's DataUsage / 3 = 178956667 B and
// every row "disagrees" (Copy 2 x 178956667 / 0.00038 s = 942 GB/s against a printed 1412.8).
const char* kOlderTable =
    "Kernels         Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB) \n"
    " InitKernel      1342.2          0.0004   0.00044  0.00042  536.87 \n"
    " CopyKernel      1412.8          0.00038  0.000418 0.000399 536.87 \n"
    " MultKernel      1412.8          0.00038  0.000418 0.000399 536.87 \n"
    " AddKernel       1438            0.00056  0.000616 0.000588 805.31 \n"
    " TriadKernel     1438            0.00056  0.000616 0.000588 805.31 \n"
    " DotKernel       1342.2          0.0004   0.00044  0.00042  536.87 \n";

TEST(BabelStreamAlpaka, OlderInitCountsTwoArraysAndNeverGivesTheSize) {
    const BabelStreamFile f = parse_babelstream(kOlderTable, "alpaka");
    ASSERT_EQ(f.rows.size(), 6u);
    ASSERT_TRUE(f.runs[0].array_bytes.has_value());
    EXPECT_NEAR(*f.runs[0].array_bytes, 268435000.0, 1e-6);
    EXPECT_NEAR(f.runs[0].array_bytes_halfwidth, 2500.0, 1e-9);
    ASSERT_TRUE(f.rows[0].arrays.has_value());
    EXPECT_EQ(*f.rows[0].arrays, 2);
    EXPECT_TRUE(f.warnings.empty());
    const IngestReport r = babelstream_report(f, "alpaka", {});
    const Section& s = section(r, "kernels");
    // Init: 2 x 268435000 = 536870000 B / 0.0004 s = 1342.2 GB/s, printed 1342.2: ok.
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536870000u);
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");
    // Copy: 536870000 B / 0.00038 s = 1412.8 GB/s: ok. Add: 3 x 268435000 = 805305000 B / 0.00056 s = 1438.0: ok.
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 536870000u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "ok");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[3][column(s, "bytes")]), 805305000u);
    EXPECT_EQ(text(s.rows[3][column(s, "check")]), "ok");
    EXPECT_TRUE(r.warnings.empty());
}

// With DataSize(items) 33554432 x 8 B (double) = 268435456 B exact: Init's 536.87 MB is within 0.005e6 B of
// 2 x 268435456 = 536870912 B (912 B off), so 2 arrays: 536870912 B / 0.0004 s = 1342.18 GB/s, printed 1342.2: ok.
// Before: 3 x 268435456 = 805306368 B, 2013.3 GB/s, "disagrees". A DataUsage of 4 arrays (1073.74 MB = 4.0000 x
// 268435456 B) fits neither 2 nor 3: Init's bytes are unknown, and a warning names the line.
TEST(BabelStreamAlpaka, InitArraysFromItsDataUsageOverTheExactSize) {
    const std::string context =
        "AcceleratorType:AccGpuCudaRt<1,unsigned int>\nPrecision:double\nDataSize(items):33554432\n"
        "Kernels         Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB) \n";
    const std::string copy = " CopyKernel      1412.8          0.00038  0.000418 0.000399 536.87 \n";
    const BabelStreamFile f = parse_babelstream(context + " InitKernel 1342.2 0.0004 0.00044 0.00042 536.87\n" + copy, "a");
    ASSERT_EQ(f.rows.size(), 2u);
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 268435456.0);
    const IngestReport r = babelstream_report(f, "a", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536870912u);
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");

    const BabelStreamFile g = parse_babelstream(context + " InitKernel 2684.4 0.0004 0.00044 0.00042 1073.74\n" + copy, "a");
    ASSERT_TRUE(g.rows[0].arrays.has_value());
    EXPECT_EQ(*g.rows[0].arrays, 0);
    ASSERT_EQ(g.warnings.size(), 1u);
    EXPECT_NE(g.warnings[0].find("line 5: alpaka InitKernel's DataUsage 1073.74 MB"), std::string::npos) << g.warnings[0];
    const IngestReport q = babelstream_report(g, "a", {});
    const Section& t = section(q, "kernels");
    EXPECT_EQ(text(t.rows[0][column(t, "bytes")]), "unknown");
    EXPECT_EQ(text(t.rows[0][column(t, "check")]), "arrays unknown");
    EXPECT_EQ(text(t.rows[1][column(t, "check")]), "ok");  // Copy still costed: 536870912 B / 0.00038 s = 1412.8
}

// A blank or stderr line inside the table (after MultKernel) does not end it: Add, Triad and Dot are read, and the
// headline is Add's 1438 GB/s, not Copy's 1412.8. Before: Init, Copy, Mul only, silently. A row of a kernel the table
// already had after such a line is not joined to it.
TEST(BabelStreamAlpaka, ForeignLineInsideTheTableDoesNotEndIt) {
    const std::string table = kOlderTable;
    const std::size_t add = table.find(" AddKernel");
    for (const std::string cut : {"\n", "WARNING: clock throttled\n", "\nstderr line\n\n"}) {
        const BabelStreamFile f = parse_babelstream(table.substr(0, add) + cut + table.substr(add), "alpaka");
        ASSERT_EQ(f.rows.size(), 6u) << cut;
        EXPECT_EQ(f.rows[3].function, "Add") << cut;
        EXPECT_EQ(f.rows[5].function, "Dot") << cut;
        EXPECT_EQ(f.warnings.size(), cut == "\n" ? 0u : 1u) << cut;  // the foreign line, by its number (line 5 or 6)
        const IngestReport r = babelstream_report(f, "alpaka", {});
        ASSERT_FALSE(r.summary.lines.empty());
        EXPECT_EQ(r.summary.lines[0].rfind("best kernel Add 1438.0 GB/s", 0), 0u) << r.summary.lines[0];
    }
    const std::string copy_again = " CopyKernel      1412.8          0.00038  0.000418 0.000399 536.87 \n";
    const std::size_t mult = table.find(" MultKernel");
    EXPECT_EQ(parse_babelstream(table.substr(0, mult) + "\n" + copy_again, "alpaka").rows.size(), 2u);
}

// A file of none of the accepted kinds is refused naming each, alpaka's table among them. Before: the list left it out.
TEST(BabelStreamAlpaka, RefusalListsAlpakasTable) {
    try {
        parse_babelstream("hello\n", "x.txt");
        FAIL() << "not refused";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("alpaka's babelstream table ('Kernels Bandwidths(GB/s) MinTime(s)"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
