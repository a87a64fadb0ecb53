// BabelStream output bwacct had not seen (tests/data/corpus/babelstream/, "# logs3"): the table header of
// BabelStream after 5.0 ("MB/s"), its "Number of elements" line, and bandwidths far below 1 GB/s (a
// Raspberry Pi's VideoCore through OpenCL). Each test fails on the reader before the fix.
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

// BabelStream after 5.0 (the "Classic kernels ... in Classic order" layout) heads its table "MB/s"
// ("MiB/s" with --mibibytes) instead of "MBytes/sec", and prints the exact element count. Text from
// the corpus file babelstream5x_openmp_i9_classic_order_mbs_header_single_spaced_slide_text.txt
// (single blanks: a PDF's text). Before: "no BabelStream result table ... found", exit 2.
TEST(BabelStreamLater, MbPerSecHeaderAndNumberOfElements) {
    const std::string in =
        "BabelStream\n"
        "Version: 5.0\n"
        "Implementation: OpenMP\n"
        "Running Classic kernels 100 times in Classic order\n"
        "Number of elements: 33554432\n"
        "Precision: double\n"
        "Array size: 268.4 MB\n"
        "Total size: 805.3 MB\n"
        "Function MB/s Min (sec) Max Average\n"
        "Copy 30049.964 0.01787 0.02117 0.01976\n"
        "Triad 30571.905 0.02634 0.03046 0.02825\n";
    const BabelStreamFile f = parse_babelstream(in, "slide");
    ASSERT_EQ(f.rows.size(), 2u);
    ASSERT_EQ(f.runs.size(), 1u);
    ASSERT_TRUE(f.runs[0].n_elements.has_value());
    EXPECT_EQ(*f.runs[0].n_elements, 33554432u);
    EXPECT_FALSE(f.runs[0].mebibytes);
    // The exact count outranks the rounded "268.4 MB": 33554432 x 8 B = 268435456 B, not 268.4e6.
    ASSERT_TRUE(f.runs[0].array_bytes.has_value());
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 268435456.0);
    EXPECT_DOUBLE_EQ(f.runs[0].array_bytes_halfwidth, 0.0);

    const IngestReport r = babelstream_report(f, "slide", {});
    const Section& s = section(r, "kernels");
    ASSERT_EQ(s.rows.size(), 2u);
    // Copy: 2 arrays x 268435456 B = 536870912 B; printed min 0.01787 s stands for [0.017865, 0.017875):
    // 536870912 / 0.017875 = 30.0347e9 .. 536870912 / 0.017865 = 30.0516e9 B/s, and the printed
    // 30049.964 MB/s = 30.049964 GB/s lies inside: "ok".
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536870912u);
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_GBps")]), 30.049964, 1e-9);
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");
    // Triad: 3 x 268435456 = 805306368 B / 0.02634 s = 30.5735e9 B/s (printed 30571.905 MB/s): "ok".
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 805306368u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "ok");

    // --mibibytes: "MiB/s", 2^20 bytes per printed unit (1000 MiB/s = 1.048576 GB/s).
    const BabelStreamFile m = parse_babelstream(
        "Function    MiB/s       Min (sec)   Max         Average\n"
        "Copy        1000.000    0.00100     0.00100     0.00100\n",
        "mib");
    ASSERT_EQ(m.rows.size(), 1u);
    EXPECT_TRUE(m.runs[0].mebibytes);
}

// A bandwidth far below 1 GB/s keeps its digits: VC4CL#82's table (OpenCL on a VideoCore IV) printed
// Copy 14.707 and Dot 79.948 MBytes/sec, i.e. 0.014707 and 0.079948 GB/s, which one decimal shows as
// "0.0" and "0.1". Before: the GB/s column had 1 decimal and the summary said "Dot 0.1 GB/s".
TEST(BabelStreamLater, SmallBandwidthKeepsThreeSignificantDigits) {
    const std::string in =
        "Validation failed on sum. Error 75.5013\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        14.707      0.03481     0.03481     0.03481     \n"
        "Dot         79.948      0.00640     0.00640     0.00640\n";
    const BabelStreamFile f = parse_babelstream(in, "vc4cl");
    const IngestReport r = babelstream_report(f, "vc4cl", {});
    const Section& s = section(r, "kernels");
    // Decimals for 3 significant digits of the smallest, 0.014707: its leading digit is at 10^-2
    // (floor(log10 0.014707) = -2), so 2 - (-2) = 4 decimals: "0.0147".
    EXPECT_EQ(s.columns[column(s, "bw_GBps")].decimals, 4);
    EXPECT_EQ(s.columns[column(s, "bw_from_min_time_GBps")].decimals, 4);
    // The summary: Dot 0.079948 GB/s, leading digit at 10^-2: 4 decimals, "0.0799".
    ASSERT_FALSE(r.summary.lines.empty());
    EXPECT_NE(r.summary.lines[0].find("best kernel Dot 0.0799 GB/s"), std::string::npos) << r.summary.lines[0];
    EXPECT_NE(r.summary.lines[0].find("unverified"), std::string::npos) << r.summary.lines[0];

    // A GPU's hundreds of GB/s keep one decimal (floor(log10 396.1) = 2: 2 - 2 = 0, at least 1).
    const BabelStreamFile g = parse_babelstream(
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        396111.209  0.00136     0.00136     0.00136\n",
        "gpu");
    const IngestReport rg = babelstream_report(g, "gpu", {});
    EXPECT_EQ(section(rg, "kernels").columns[column(section(rg, "kernels"), "bw_GBps")].decimals, 1);
    EXPECT_NE(rg.summary.lines[0].find("best kernel Copy 396.1 GB/s"), std::string::npos) << rg.summary.lines[0];
}

// BabelStream captured through a launcher: every line behind srun -l's "0: ", mpirun --tag-output's
// "[1,0]<stdout>:" (no blank after it), or a logger's time stamp and host. Before: "no BabelStream result
// table ... found" (exit 2), since the banner, header and rows no longer start their lines. The prefix is
// removed by its shape, and only where a BabelStream line follows it ("Precision: double" is not a prefix).
TEST(BabelStreamLater, LauncherPrefixesAreRemoved) {
    const std::string plain =
        "BabelStream\n"
        "Version: 5.0\n"
        "Implementation: CUDA\n"
        "Precision: double\n"
        "Array size: 268.4 MB (=0.3 GB)\n"
        "Using CUDA device NVIDIA A100-SXM4-80GB\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        1709360.800 0.00031     0.00032     0.00032     \n"
        "Triad       1724827.354 0.00047     0.00047     0.00047     \n";
    for (const std::string prefix : {"0: ", "[1,0]<stdout>:", "2024-05-01T12:34:56.789Z node-1.x: ", "[default0]:"}) {
        std::string in;
        std::size_t start = 0;
        for (std::size_t nl = plain.find('\n'); nl != std::string::npos; start = nl + 1, nl = plain.find('\n', start))
            in += prefix + plain.substr(start, nl - start + 1);
        const BabelStreamFile f = parse_babelstream(in, prefix);
        ASSERT_EQ(f.rows.size(), 2u) << prefix;
        EXPECT_EQ(f.runs[0].device, "NVIDIA A100-SXM4-80GB") << prefix;
        EXPECT_EQ(f.runs[0].implementation, "CUDA") << prefix;
        ASSERT_TRUE(f.runs[0].sizeof_t.has_value()) << prefix;
        EXPECT_EQ(*f.runs[0].sizeof_t, 8) << prefix;
        // 268.4 MB printed to 0.1 MB: 268.4e6 B, half a unit 0.05e6 B.
        ASSERT_TRUE(f.runs[0].array_bytes.has_value()) << prefix;
        EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 268.4e6) << prefix;
        // Copy: 2 x 268.4e6 B / 0.00031 s = 1731.6 GB/s; with the rounding of both, 2 x (268.4 +- 0.05)e6 B
        // over [0.000305, 0.000315) s spans 1703.9 .. 1760.3 GB/s, which holds the printed 1709.3608: "ok".
        const IngestReport r = babelstream_report(f, prefix, {});
        const Section& s = section(r, "kernels");
        EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok") << prefix;
        EXPECT_EQ(f.rows[0].bw_text, "1709360.800") << prefix;
    }
}

// Prefixes no element rule knows, anchored on the file's own banner and table header (logs7): docker compose
// "stream-1  | ", a container runtime's "<time> stdout F ", journald's "May 01 12:00:00 host unit[pid]: " (a
// different time on every line), and a coloured terminal's escapes with or without their ESC. Before: "no
// BabelStream result table ... found". Same text and hand values as LauncherPrefixesAreRemoved: Copy re-derived
// from 2 x 268.4e6 B over 0.00031 s within rounding, "ok".
TEST(BabelStreamLater, PrefixWordsBeforeTheBannerAndTerminalEscapesAreRemoved) {
    const std::string plain =
        "BabelStream\n"
        "Version: 5.0\n"
        "Implementation: CUDA\n"
        "Precision: double\n"
        "Array size: 268.4 MB (=0.3 GB)\n"
        "Using CUDA device NVIDIA A100-SXM4-80GB\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        1709360.800 0.00031     0.00032     0.00032     \n"
        "Triad       1724827.354 0.00047     0.00047     0.00047     \n";
    for (const std::string prefix : {"stream-1  | ", "2024-05-01T12:00:00.123456789Z stdout F ",
                                     "May 01 12:00:0S host1 slurmstepd[123]: ", "\x1b[1;32m", "[32m"}) {
        std::string in;
        std::size_t start = 0;
        int n = 0;
        for (std::size_t nl = plain.find('\n'); nl != std::string::npos; start = nl + 1, nl = plain.find('\n', start)) {
            std::string p = prefix;
            if (const std::size_t at = p.find("0S"); at != std::string::npos)
                p.replace(at, 2, std::to_string(10 + n++));  // journald: each line its own second
            in += p + plain.substr(start, nl - start) + (prefix.find('m') == prefix.size() - 1 ? "\x1b[0m\n" : "\n");
        }
        const BabelStreamFile f = parse_babelstream(in, prefix);
        ASSERT_EQ(f.rows.size(), 2u) << prefix;
        EXPECT_EQ(f.runs[0].device, "NVIDIA A100-SXM4-80GB") << prefix;
        EXPECT_EQ(f.runs[0].implementation, "CUDA") << prefix;
        ASSERT_TRUE(f.runs[0].array_bytes.has_value()) << prefix;
        EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 268.4e6) << prefix;
        EXPECT_EQ(f.rows[0].bw_text, "1709360.800") << prefix;
        const IngestReport r = babelstream_report(f, prefix, {});
        const Section& s = section(r, "kernels");
        EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok") << prefix;
    }
}

// --csv prints no banner: its function header anchors the prefix. Copy: 2 x 33554432 x 8 = 536870912 B / 0.000383 s =
// 1401.75 GB/s, within the 6-digit rounding of the printed 1.40026e+06 MB/s (BabelStream.CsvOutputWithExactSize).
TEST(BabelStreamLater, CsvUnderAPrefixNoRuleKnows) {
    std::string in;
    for (const char* l : {"function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime",
                          "Copy,100,33554432,8,1.40026e+06,0.000383,0.000391,0.000387"})
        in += std::string("stream-1  | ") + l + "\n";
    const BabelStreamFile f = parse_babelstream(in, "csv");
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_EQ(f.format, "BabelStream CSV");
    const IngestReport r = babelstream_report(f, "csv", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536870912u);
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");
}

// BabelStream's Thrust model prints "Using CUDA device: NAME" (a colon after "device"); the name was not read, so
// the Isambard V100 file (corpus babelstream5_thrust_v100pcie_isambard.txt) ran without a GPU although it names one.
// The colon-less form and a "device" inside the name itself keep working.
TEST(BabelStreamLater, ThrustsUsingDeviceColonNamesTheGpu) {
    const std::string head = "BabelStream\nVersion: 5.0\nImplementation: Thrust\nPrecision: double\n";
    const std::string table =
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        1709360.800 0.00031     0.00032     0.00032     \n";
    EXPECT_EQ(parse_babelstream(head + "Using CUDA device: Tesla V100-PCIE-16GB\n" + table, "t").runs[0].device,
              "Tesla V100-PCIE-16GB");
    EXPECT_EQ(parse_babelstream(head + "Using CUDA device NVIDIA A100-SXM4-80GB\n" + table, "t").runs[0].device,
              "NVIDIA A100-SXM4-80GB");
    EXPECT_EQ(parse_babelstream(head + "Using device:\n" + table, "t").runs[0].device, "");
}

// A double-spaced paste (ALCF's ThetaGPU guide, corpus file
// babelstream34_cuda_a100sxm4_40gb_thetagpu_double_spaced_markdown.md: a blank line after every line):
// the blank lines between the header and the rows do not end the table. Before: "result table without
// rows", exit 2. A blank line before a function the table already has still ends it (two runs).
TEST(BabelStreamLater, DoubleSpacedTableIsOneTable) {
    const std::string in =
        "Array size: 268.4 MB (=0.3 GB)\n\n"
        "Precision: double\n\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n\n"
        "Copy        1381210.283 0.00039     0.00040     0.00039     \n\n"
        "Add         1357739.235 0.00059     0.00061     0.00060     \n\n"
        "Processing events...\n";
    const BabelStreamFile f = parse_babelstream(in, "theta");
    ASSERT_EQ(f.rows.size(), 2u);
    EXPECT_EQ(f.rows[1].function, "Add");
    const IngestReport r = babelstream_report(f, "theta", {});
    const Section& s = section(r, "kernels");
    // Copy: 2 x 268.4e6 B = 536.8e6 B; min 0.00039 s stands for [0.000385, 0.000395): 1359.0 .. 1394.3
    // GB/s, and the printed 1381.210283 GB/s lies inside: "ok". Add: 3 x 268.4e6 = 805.2e6 B over
    // [0.000585, 0.000595): 1353.3 .. 1376.4 GB/s, printed 1357.739235: "ok".
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "bytes")]), 536800000u);
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 805200000u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "ok");

    const std::string two =
        "Precision: double\nArray size: 268.4 MB (=0.3 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1381210.283 0.00039     0.00040     0.00039\n\n"
        "Copy        1381210.283 0.00039     0.00040     0.00039\n";
    EXPECT_EQ(parse_babelstream(two, "two").rows.size(), 1u);
}

// BabelStream Fortran (kaanolgu/BabelStream docs, corpus file
// babelstream_fortran4_doconcurrent_oneapi_xeon_real64_dot_glued_columns_sum_validation_failed.txt):
// "Precision: REAL64", "Array size:    1073.7MB ", and cells of 12 characters, so a 12-character
// bandwidth touches the min time. Before: exit 2, "Dot row with 4 fields where 5 are expected".
TEST(BabelStreamLater, FortranPrecisionAndGluedBandwidth) {
    const std::string in =
        "BabelStream Fortran\n"
        "Version:  4.0\n"
        "Precision: REAL64\n"
        "Array size:    1073.7MB \n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        247036.539  0.00869     0.01750     0.01277     \n"
        "Dot         51177268.4930.00004     0.00235     0.00074\n";
    const BabelStreamFile f = parse_babelstream(in, "fortran");
    ASSERT_EQ(f.runs.size(), 1u);
    ASSERT_TRUE(f.runs[0].sizeof_t.has_value());
    EXPECT_EQ(*f.runs[0].sizeof_t, 8);
    ASSERT_EQ(f.rows.size(), 2u);
    // The bandwidth keeps its 3 decimals, the rest is the min time.
    EXPECT_EQ(f.rows[1].bw_text, "51177268.493");
    EXPECT_EQ(f.rows[1].min_text, "0.00004");
    EXPECT_DOUBLE_EQ(f.rows[1].max_s, 0.00235);
    const IngestReport r = babelstream_report(f, "fortran", {});
    const Section& s = section(r, "kernels");
    // Dot: 2 x 1073.7e6 B = 2147.4e6 B; min 0.00004 s stands for [0.000035, 0.000045): 47720 .. 61354 GB/s,
    // and the printed 51177.268493 GB/s lies inside: "ok". Copy: 2147.4e6 / [0.008685, 0.008695) s =
    // 246.97 .. 247.25 GB/s, printed 247.036539: "ok".
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 2147400000u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "ok");
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");
}

// The same rows double-spaced (a blank line after each): the glued Dot row after a blank line is split as
// it is in a single-spaced table, not taken for the table's end (2 rows, Dot's bandwidth 51177268.493).
TEST(BabelStreamLater, GluedBandwidthAfterABlankLine) {
    const std::string in =
        "BabelStream Fortran\n\nVersion:  4.0\n\nPrecision: REAL64\n\nArray size:    1073.7MB \n\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n\n"
        "Copy        247036.539  0.00869     0.01750     0.01277     \n\n"
        "Dot         51177268.4930.00004     0.00235     0.00074\n\n";
    const BabelStreamFile f = parse_babelstream(in, "fortran-double-spaced");
    ASSERT_EQ(f.rows.size(), 2u);
    EXPECT_EQ(f.rows[1].function, "Dot");
    EXPECT_EQ(f.rows[1].bw_text, "51177268.493");
    EXPECT_EQ(f.rows[1].min_text, "0.00004");
}

// A foreign line between two rows (a warning on stderr) does not end the text table: Triad is read and the skipped line
// is warned about by number. Before: Copy only, Triad dropped silently. Triad: 3 x 268.4e6 = 805.2e6 B over min
// 0.00047 s (+- 0.000005): 1695.2 .. 1731.2 GB/s, printed 1724.827354: ok.
TEST(BabelStreamLater, ForeignLineInsideTheTextTableIsSkippedAndWarned) {
    const std::string in =
        "BabelStream\nVersion: 5.0\nPrecision: double\nArray size: 268.4 MB (=0.3 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average     \n"
        "Copy        1709360.800 0.00031     0.00032     0.00032     \n"
        "WARNING: clock throttled\n"
        "Triad       1724827.354 0.00047     0.00047     0.00047     \n";
    const BabelStreamFile f = parse_babelstream(in, "w");
    ASSERT_EQ(f.rows.size(), 2u);
    EXPECT_EQ(f.rows[1].function, "Triad");
    ASSERT_EQ(f.warnings.size(), 1u);
    EXPECT_EQ(f.warnings[0], "line 7: 'WARNING: clock throttled' inside run 1's table was skipped (not a row)");
    const IngestReport r = babelstream_report(f, "w", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 805200000u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "ok");
}

// A markdown heading "## BabelStream" above a docker compose paste ("stream-1  | " before every line) does not set the
// prefix to one word: the lines after it do not share a one-word prefix, the banner's line does share its two words.
// Before: exit 2, "the run's banner is on line 1 but no ... table follows". Copy: 2 x 268.4e6 = 536.8e6 B over
// 0.00031 s (+- 0.000005) = 1704.1 .. 1760.3 GB/s, printed 1709.3608: ok.
TEST(BabelStreamLater, MarkdownHeadingDoesNotSetThePrefix) {
    const std::string in =
        "## BabelStream\n\n```\n"
        "stream-1  | BabelStream\n"
        "stream-1  | Version: 5.0\n"
        "stream-1  | Implementation: CUDA\n"
        "stream-1  | Precision: double\n"
        "stream-1  | Array size: 268.4 MB (=0.3 GB)\n"
        "stream-1  | Function    MBytes/sec  Min (sec)   Max         Average\n"
        "stream-1  | Copy        1709360.800 0.00031     0.00032     0.00032\n"
        "```\n";
    const BabelStreamFile f = parse_babelstream(in, "md");
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_EQ(f.runs[0].implementation, "CUDA");
    EXPECT_DOUBLE_EQ(*f.runs[0].array_bytes, 268.4e6);
    const IngestReport r = babelstream_report(f, "md", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");
}

// BabelStream 5 counts its Read phase (a, b and c copied back to the host) as 3 arrays, like Init (main.cpp:
// fmt_bw(3, initElapsedS), fmt_bw(3, readElapsedS)). Read: 3 x 33554432 x 8 = 805306368 B / 0.0402653 s = 20000.009
// MB/s, printed 20000: ok. Before: Read "unknown function".
TEST(BabelStreamLater, CsvReadRowCountsThreeArrays) {
    const std::string in =
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n"
        "Init,1,33554432,8,10000,0.0805306,0.0805306,0.0805306\n"
        "Read,1,33554432,8,20000,0.0402653,0.0402653,0.0402653\n";
    const BabelStreamFile f = parse_babelstream(in, "csv");
    ASSERT_EQ(f.rows.size(), 2u);
    const IngestReport r = babelstream_report(f, "csv", {});
    const Section& s = section(r, "kernels");
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[1][column(s, "bytes")]), 805306368u);
    EXPECT_EQ(text(s.rows[1][column(s, "check")]), "ok");
    EXPECT_EQ(text(s.rows[0][column(s, "check")]), "ok");  // Init: 805306368 B / 0.0805306 s = 10000.0 MB/s
}

}  // namespace

namespace {

using namespace bwacct;

// UoB-HPC/BabelStream issue 137: two runs on an A100-SXM4-80GB, the paste cut inside the second run's Dot row
// ("Dot         1745025.034 0.0098", 3 of 5 fields, its min time itself cut). Before: the whole file was refused
// ("Dot row with 3 fields where 5 are expected"). Now the cut row alone is left out, with a warning, and the rows
// before it are read: run 1's five, run 2's four.
TEST(BabelStreamLater, RowCutWhereTheFileEndsIsLeftOut) {
    const std::string run =
        "BabelStream\n"
        "Version: 4.0\n"
        "Implementation: CUDA\n"
        "Precision: double\n"
        "Array size: 8589.9 MB (=8.6 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1748027.292 0.00983     0.01096     0.00986\n"
        "Mul         1745605.363 0.00984     0.01100     0.00987\n"
        "Add         1772532.835 0.01454     0.01552     0.01456\n"
        "Triad       1773862.890 0.01453     0.01547     0.01455\n";
    const BabelStreamFile f = parse_babelstream(run + "Dot         1555399.880 0.01105     0.01369     0.01113\n```\n\n```\n" +
                                                    run + "Dot         1745025.034 0.0098\n```\n\n",
                                                "i137.md");
    ASSERT_EQ(f.runs.size(), 2u);
    ASSERT_EQ(f.rows.size(), 9u);
    EXPECT_EQ(f.rows[8].function, "Triad");
    EXPECT_EQ(f.rows[8].run, 2);
    ASSERT_EQ(f.warnings.size(), 1u);
    EXPECT_NE(f.warnings[0].find("line 25: Dot row cut short (3 of 5 fields) where the paste ends"), std::string::npos)
        << f.warnings[0];
    // The same cut row with a further line of the log after it is not a truncated file: refused as before.
    EXPECT_THROW(parse_babelstream(run + "Dot         1745025.034 0.0098\nDriver: 11040\n", "mid.md"), InputError);
}

// Where the paste ends is not only the file's end: a closing fence and the author's prose or a "</details>" after it.
// A later run's table that ends before its first whole row drops that run, not the file (run 1's 5 rows are read). A
// row cut inside its name ("Do" of "Dot") is said. A row whose average "0.009" is below its minimum 0.00985 (and has 3
// decimals where min and max have 5) was cut inside its average: not read. Before: each of these refused the file
// (exit 2), or read silently (the name cut; the average as 9000 us).
TEST(BabelStreamLater, PasteEndsBeforeAFenceOrInsideARun) {
    const std::string head =
        "```\nBabelStream\nVersion: 4.0\nImplementation: CUDA\nPrecision: double\nArray size: 8589.9 MB (=8.6 GB)\n"
        "Function    MBytes/sec  Min (sec)   Max         Average\n"
        "Copy        1748027.292 0.00983     0.01096     0.00986\n"
        "Mul         1745605.363 0.00984     0.01100     0.00987\n"
        "Add         1772532.835 0.01454     0.01552     0.01456\n"
        "Triad       1773862.890 0.01453     0.01547     0.01455\n";
    const std::string run1 = head + "Dot         1555399.880 0.01105     0.01369     0.01113\n```\n\n";
    const auto rows_and_warning = [](const std::string& text, std::size_t rows, const std::string& part) {
        const BabelStreamFile f = parse_babelstream(text, "t.md");
        EXPECT_EQ(f.rows.size(), rows) << text;
        bool said = false;
        for (const std::string& w : f.warnings)
            said = said || w.find(part) != std::string::npos;
        EXPECT_TRUE(said) << part;
    };
    rows_and_warning(head + "Dot         1745025.034 0.0098\n```\n\nAny idea why?\n", 4, "where the paste ends");
    rows_and_warning(head + "Dot         1745025.034 0.0098\n```\n</details>\n", 4, "where the paste ends");
    rows_and_warning(head + "Do\n", 4, "cut inside its function's name ('Do')");
    rows_and_warning(head + "Dot         1745025.034 0.00985     0.01100     0.009\n", 4, "its average below its minimum");
    rows_and_warning(run1 + head.substr(0, head.find("Copy")) + "Copy        1747717.694 0.0098\n", 5,
                     "run 2's table has no whole row");
    rows_and_warning(run1 + head.substr(0, head.find("Copy")), 5, "run 2's table has no whole row");
    const BabelStreamFile one = parse_babelstream(run1 + head.substr(0, head.find("Copy")), "t.md");
    EXPECT_EQ(one.runs.size(), 1u);
}

// The --csv table cut inside its Add row (5 of 8 fields): the rows before it are read, and the cut row is said.
// Before: it ended the table unseen (Copy and Mul read, no warning).
TEST(BabelStreamLater, CsvRowCutShortIsSaid) {
    const BabelStreamFile f = parse_babelstream(
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n"
        "Copy,100,33554432,8,1.40026e+06,0.000383,0.000391,0.000387\n"
        "Mul,100,33554432,8,1.38e+06,0.000389,0.0004,0.000395\n"
        "Add,100,33554432,8,1.4\n",
        "cut.csv");
    ASSERT_EQ(f.rows.size(), 2u);
    ASSERT_EQ(f.warnings.size(), 1u);
    EXPECT_NE(f.warnings[0].find("line 4: Add row cut short (5 of 8 fields"), std::string::npos) << f.warnings[0];
}

// A whole Triad row after the cut Add row is read (before: dropped without a word). The table's last row where the file
// ends with an avg_runtime 0.0003 below its min_runtime 0.000389 was cut inside its average: not read, said (before: read
// with an average of 300 us, below its 389 us minimum).
TEST(BabelStreamLater, CsvRowsAfterACutRowAndACutAverage) {
    const std::string head =
        "function,num_times,n_elements,sizeof,max_mbytes_per_sec,min_runtime,max_runtime,avg_runtime\n"
        "Copy,100,33554432,8,1.40026e+06,0.000383,0.000391,0.000387\n";
    const BabelStreamFile mid =
        parse_babelstream(head + "Add,100,33554432,8,1.4\nTriad,100,33554432,8,2.07e+06,0.000389,0.0004,0.000395\n", "mid.csv");
    ASSERT_EQ(mid.rows.size(), 2u);
    EXPECT_EQ(mid.rows[1].function, "Triad");
    ASSERT_EQ(mid.warnings.size(), 1u);
    EXPECT_NE(mid.warnings[0].find("line 3: Add row cut short"), std::string::npos) << mid.warnings[0];
    const BabelStreamFile avg = parse_babelstream(head + "Mul,100,33554432,8,1.38e+06,0.000389,0.0004,0.0003\n", "avg.csv");
    ASSERT_EQ(avg.rows.size(), 1u);
    ASSERT_EQ(avg.warnings.size(), 1u);
    EXPECT_NE(avg.warnings[0].find("line 3: Mul row cut short (its avg_runtime 0.0003 below its min_runtime 0.000389)"),
              std::string::npos)
        << avg.warnings[0];
}

}  // namespace
