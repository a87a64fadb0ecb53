// --plot FILE.svg end to end: the op commands and the ingest commands write a chart that renders
// (rsvg-convert), bad paths are refused before anything is printed, and --plot does not change stdout.
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>

#include "harness.h"

using namespace bwacct_test;

namespace {

// Renders `svg` to PNG with rsvg-convert (librsvg2-bin) and checks that it worked.
void expect_renders(const std::string& svg, const std::string& png) {
    if (find_on_path("rsvg-convert").empty())
        GTEST_SKIP() << "rsvg-convert not installed (apt-get install librsvg2-bin): render check skipped";
    const RunResult r = run_program({"rsvg-convert", svg, "-o", png});
    ASSERT_EQ(r.status, 0) << report(r);
    ASSERT_TRUE(fs::exists(png));
    EXPECT_GT(fs::file_size(png), 1000u);
}

// A bad --plot: exit 2, one line on stderr naming --plot, nothing on stdout, no file written.
void expect_bad_plot(const std::vector<std::string>& args, const std::string& needle) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_NE(r.err.find("--plot"), std::string::npos) << report(r);
    EXPECT_NE(r.err.find(needle), std::string::npos) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
}

}  // namespace

TEST(PlotCli, GemmSweepRoofline) {
    TempDir dir;
    const std::string svg = dir.file("out.svg");
    const std::vector<std::string> args{"gemm", "--m", "256:16384:x2", "--k", "5120", "--n", "5120", "--gpu", "h200"};
    const RunResult plain = run_bwacct(args);
    const RunResult r = run_bwacct(with(args, {"--plot", svg}));
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_EQ(r.out, plain.out);  // the chart is extra; the output is the same
    const std::string text = read_text(svg);
    EXPECT_EQ(text.rfind("<?xml", 0), 0u);
    EXPECT_NE(text.find("Arithmetic intensity (FLOP per HBM byte)"), std::string::npos);
    EXPECT_NE(text.find("Performance (TFLOP/s)"), std::string::npos);
    // The roofs: h200's HBM bandwidth and its bf16 dense tensor peak from the catalog.
    EXPECT_NE(text.find(fmt::format("h200 HBM {:.0f} GB/s", hbm_GBps("h200"))), std::string::npos) << text;
    EXPECT_NE(text.find(fmt::format("h200 tensor bf16 dense {:.0f} TFLOP/s", tensor_tflops("h200", "bf16"))), std::string::npos)
        << text;
    // m = 256, 512, ..., 16384: 7 records, 7 modelled points (+1 legend marker); the first labelled.
    std::size_t circles = 0;
    for (std::size_t i = text.find("<circle"); i != std::string::npos; i = text.find("<circle", i + 1))
        ++circles;
    EXPECT_EQ(circles, 8u);
    EXPECT_NE(text.find(">m=256<"), std::string::npos);
    EXPECT_NE(text.find("gemm: n=5120, k=5120"), std::string::npos);  // the title: what every record shares
    expect_renders(svg, dir.file("out.png"));
}

TEST(PlotCli, SameCommandSameBytes) {
    TempDir dir;
    const std::vector<std::string> args{"gemm", "--m", "256:4096:x2", "--k", "5120", "--n", "5120", "--time-us", "100,200"};
    ASSERT_TRUE(succeeded(run_bwacct(with(args, {"--plot", dir.file("a.svg")}))));
    ASSERT_TRUE(succeeded(run_bwacct(with(args, {"--plot", dir.file("b.svg")}))));
    EXPECT_EQ(read_text(dir.file("a.svg")), read_text(dir.file("b.svg")));
    EXPECT_NE(read_text(dir.file("a.svg")).find("time given (--time-us)"), std::string::npos);
}

TEST(PlotCli, AllreduceSizeSweepTwoPanels) {
    TempDir dir;
    const std::string svg = dir.file("ar.svg");
    const RunResult r =
        run_bwacct({"allreduce", "--bytes", "1K,64K,1M,16M,256M,1G", "--ranks", "8", "--gpu", "h200", "--plot", svg});
    ASSERT_TRUE(succeeded(r)) << report(r);
    const std::string text = read_text(svg);
    EXPECT_NE(text.find("Time (µs)"), std::string::npos);
    EXPECT_NE(text.find("Bus bandwidth (GB/s)"), std::string::npos);
    EXPECT_NE(text.find("fit t = α + size/β"), std::string::npos);
    EXPECT_NE(text.find("h200 link peak"), std::string::npos);
    EXPECT_NE(text.find(">1 KiB<"), std::string::npos);
    EXPECT_NE(text.find(">1 GiB<"), std::string::npos);
    EXPECT_NE(text.find("modelled floor, h200"), std::string::npos);
    expect_renders(svg, dir.file("ar.png"));
}

// One size: a collective has no FLOPs, so the roofline lists it in a note instead of dropping it.
TEST(PlotCli, SingleCollectiveIsNamedInANote) {
    TempDir dir;
    const std::string svg = dir.file("one.svg");
    ASSERT_TRUE(succeeded(run_bwacct({"allreduce", "--bytes", "1G", "--gpu", "h200", "--plot", svg})));
    EXPECT_NE(read_text(svg).find("Not on the roofline (no FLOPs or no HBM bytes): allreduce ×1"), std::string::npos);
}

TEST(PlotCli, BadPathsAreRefusedBeforeAnyOutput) {
    TempDir dir;
    const std::vector<std::string> gemm{"gemm", "--m", "256", "--k", "256", "--n", "256", "--plot"};
    expect_bad_plot(with(gemm, {dir.file("chart.png")}), "not an SVG file name");
    expect_bad_plot(with(gemm, {dir.path()}), "not an SVG file name");
    fs::create_directory(dir.file("d.svg"));
    expect_bad_plot(with(gemm, {dir.file("d.svg")}), "is a directory");
    expect_bad_plot(with(gemm, {dir.file("missing/x.svg")}), "does not exist");
    expect_bad_plot({"allreduce", "--bytes", "1K,1M", "--plot", ".svg"}, "not an SVG file name");
    EXPECT_FALSE(fs::exists(dir.file("chart.png")));
    if (::geteuid() != 0) {  // root writes anywhere
        fs::create_directory(dir.file("ro"));
        fs::permissions(dir.file("ro"), fs::perms::owner_read | fs::perms::owner_exec);
        expect_bad_plot(with(gemm, {dir.file("ro/x.svg")}), "cannot create");
        fs::permissions(dir.file("ro"), fs::perms::owner_all);
    }
}

// Issue 11, defect 12: paths that pass a look at the folder but cannot take the chart. The old code
// printed the whole report and then exited 2; the file is now opened before any output.
TEST(PlotCli, UnwritableTargetsAreRefusedBeforeAnyOutput) {
    TempDir dir;
    const std::vector<std::string> gemm{"gemm", "--m", "256", "--k", "256", "--n", "256", "--plot"};
    expect_bad_plot(with(gemm, {"/proc/x.svg"}), "cannot create");  // root passes access(W_OK) on /proc
    fs::create_symlink("/dev/full", dir.file("full.svg"));
    expect_bad_plot(with(gemm, {dir.file("full.svg")}), "not a regular file");
    write_text(dir.file("plain"), "a file, not a folder");
    expect_bad_plot(with(gemm, {dir.file("plain/x.svg")}), "Not a directory");
    fs::create_symlink(dir.file("nowhere/x.svg"), dir.file("dangling.svg"));
    expect_bad_plot(with(gemm, {dir.file("dangling.svg")}), "cannot create");
    // The ingest commands check the same way (emit_ingest).
    expect_bad_plot({"ingest", "babelstream",
                     std::string(BWACCT_TEST_DATA) + "/babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt",
                     "--gpu", "h100-sxm", "--plot", "/proc/x.svg"},
                    "cannot create");
    // A good path is left as it was found: the probe removes the file it created.
    const RunResult ok = run_bwacct(with(gemm, {dir.file("ok.svg"), "--format", "json"}));
    ASSERT_TRUE(succeeded(ok)) << report(ok);
    EXPECT_GT(fs::file_size(dir.file("ok.svg")), 1000u);
}

TEST(PlotCli, TooManyPointsForAPlot) {
    TempDir dir;
    expect_bad_plot({"gemm", "--m", "1:200000:+1", "--k", "64", "--n", "64", "--plot", dir.file("x.svg")}, "at most 100000");
}

// A large sweep stays a small file: at most 2000 markers and about 30 labels, said on the chart.
TEST(PlotCli, LargeSweepIsThinned) {
    TempDir dir;
    const std::string svg = dir.file("big.svg");
    const RunResult r =
        run_bwacct({"gemm", "--m", "1:20000:+1", "--k", "64", "--n", "64", "--gpu", "h200", "--format", "jsonl", "--plot", svg},
                   RunOptions{{}, false, std::chrono::seconds(60)});
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_EQ(lines_of(r.out).size(), 20000u);
    const std::string text = read_text(svg);
    EXPECT_NE(text.find("20000 points: 1 in every 10 is drawn (2000 drawn; at most 2000)"), std::string::npos);
    EXPECT_LT(text.size(), 500'000u);
}

// The ingest commands take --plot too (emit_ingest): a BabelStream log.
TEST(PlotCli, IngestWritesAChart) {
    TempDir dir;
    const std::string svg = dir.file("bs.svg");
    const std::string log =
        std::string(BWACCT_TEST_DATA) + "/babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt";
    const RunResult r = run_bwacct({"ingest", "babelstream", log, "--gpu", "h100-sxm", "--plot", svg});
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_NE(read_text(svg).find("<svg"), std::string::npos);
    expect_renders(svg, dir.file("bs.png"));
}
