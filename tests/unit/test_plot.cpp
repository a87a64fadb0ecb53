// The SVG charts (include/bwacct/plot.h): roofs and points at hand-computed pixel positions, the
// legend, notes, escaping, thinning and determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../../src/report/svg.h"
#include "bwacct/ops.h"
#include "bwacct/plot.h"
#include "bwacct/roofline.h"

using namespace bwacct;

namespace {

// Round numbers: HBM 1000 GB/s, bf16 tensor 100 TFLOP/s (ridge 100 FLOP/B), a 450 GB/s link.
GpuSpec toy_gpu() {
    GpuSpec g;
    g.id = "toy";
    g.name = "Toy GPU";
    g.hbm_bw_GBps = {1000, "test", "", {}};
    g.tensor_tflops["bf16"] = {100, "test", "", {}};
    g.vector_tflops["fp32"] = {10, "test", "", {}};
    g.launch_overhead_us = {2, "test", "", {}};
    g.scaleup_link = Link{"toylink", {450, "test", "", {}}, false, Figure{1, "test", "", {}}};
    return g;
}

Record record(std::string op, std::uint64_t flops, std::uint64_t bytes, const GpuSpec& g, std::optional<double> time_us,
              std::uint64_t m = 0) {
    Record r;
    r.cost.op = std::move(op);
    r.cost.flops = flops;
    r.cost.bytes_read = bytes;
    r.params.push_back({"m", m});
    AnalysisOptions ao;
    ao.time_us = time_us;
    r.source = time_us ? TimeSource::given : TimeSource::modelled;
    r.verdicts.push_back(analyze(r.cost, g, ao));
    return r;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1))
        ++n;
    return n;
}

}  // namespace

// Layout of the roofline (plot_roofline.cpp): plot box x 90..690, y 64 (top)..504 (bottom).
// One record: 1e10 FLOP over 1e9 B → intensity 10 FLOP/B; attainable min(100, 10 · 1000/1000) = 10 TFLOP/s.
// x range: candidates 10 (point), ridge/10 = 10, ridge·2 = 200 → decades floor(log10(10/1.25)) = 0 to
//   ceil(log10(200·1.25)) = 3: 1..1000 FLOP/B, 600 px / 3 decades = 200 px per decade.
// y range: candidates 10 (point), 100 (peak), 100/20 = 5 → floor(log10(5/1.25)) = 0 to ceil(log10(125)) = 3:
//   1..1000 TFLOP/s, 440 px / 3 decades = 146.667 px per decade, upward from 504.
// Compute roof at 100 TFLOP/s: y = 504 − 2·146.667 = 210.67; from the ridge x = 90 + 2·200 = 490 to 690.
// HBM roof: enters at x = 1 FLOP/B (y = 1·1000/1000 = 1 TFLOP/s: 90, 504) and ends at the ridge (490, 210.7).
// The point: x = 90 + 1·200 = 290, y = 504 − 1·146.667 = 357.33.
TEST(Plot, RooflineRoofsAndModelledPointAtHandComputedPixels) {
    const GpuSpec g = toy_gpu();
    const std::string svg = plot_svg({record("gemm", 10'000'000'000, 1'000'000'000, g, std::nullopt)}, {&g}, {"T", {}});
    EXPECT_NE(svg.find(R"(<line x1="490.0" y1="210.7" x2="690.0" y2="210.7" stroke="#1f77b4")"), std::string::npos) << svg;
    EXPECT_NE(svg.find(R"(<line x1="90.0" y1="504.0" x2="490.0" y2="210.7" stroke="#1f77b4")"), std::string::npos) << svg;
    EXPECT_NE(svg.find(R"(<circle cx="290.0" cy="357.3" r="3.5" fill="#ffffff" stroke="#1f77b4")"), std::string::npos) << svg;
    // Axes: labels with units and decade ticks 1, 10, 100, 1k on both axes.
    EXPECT_NE(svg.find("Arithmetic intensity (FLOP per HBM byte)"), std::string::npos);
    EXPECT_NE(svg.find("Performance (TFLOP/s)"), std::string::npos);
    for (const char* tick : {">1<", ">10<", ">100<", ">1k<"})
        EXPECT_EQ(count(svg, tick), 2u) << tick;
    // Roof labels and the legend.
    EXPECT_NE(svg.find("toy tensor bf16 dense 100 TFLOP/s"), std::string::npos);
    EXPECT_NE(svg.find("toy HBM 1000 GB/s"), std::string::npos);
    EXPECT_NE(svg.find("Toy GPU (toy)"), std::string::npos);
    EXPECT_NE(svg.find("modelled: attainable, no time"), std::string::npos);
    EXPECT_NE(svg.find(">T</text>"), std::string::npos);            // the title
    EXPECT_NE(svg.find(R"(fill="#ffffff"/>)"), std::string::npos);  // white background
}

// A given time: 1e10 FLOP in 2000 µs = 1e10 / 2e-3 s = 5e12 FLOP/s = 5 TFLOP/s, a filled marker at
// x = 290 (intensity 10) and y = 504 − log10(5)·146.667 = 504 − 0.69897·146.667 = 401.48. The y range is
// unchanged: its smallest candidate is still 5 (and peak/20 = 5).
TEST(Plot, TimedPointAtItsTflopsLabelledBySource) {
    const GpuSpec g = toy_gpu();
    const std::string svg = plot_svg({record("gemm", 10'000'000'000, 1'000'000'000, g, 2000.0)}, {&g}, {"T", {}});
    EXPECT_NE(svg.find(R"(<circle cx="290.0" cy="401.5" r="3.5" fill="#222" stroke="#222")"), std::string::npos) << svg;
    EXPECT_NE(svg.find("time given (--time-us)"), std::string::npos);
    EXPECT_EQ(svg.find("modelled: attainable"), std::string::npos);
}

TEST(Plot, CalibratedRoofsAreDashed) {
    const GpuSpec g = toy_gpu();
    Calibration c;
    c.name = "Toy GPU";
    c.hbm_GBps = 900;
    c.bf16_tflops = 80;
    const std::string svg = plot_svg({record("gemm", 10'000'000'000, 1'000'000'000, g, std::nullopt)}, {&g}, {"T", {c}});
    EXPECT_GE(count(svg, R"(stroke-dasharray="6 4")"), 3u);  // HBM, compute, legend sample
    EXPECT_NE(svg.find("achievable, calibrated on Toy GPU"), std::string::npos);
    EXPECT_NE(svg.find("calibrated bf16 80 TFLOP/s, HBM 900 GB/s"), std::string::npos);
}

TEST(Plot, RecordsWithoutFlopsAreListedInANote) {
    const GpuSpec g = toy_gpu();
    const std::string svg =
        plot_svg({record("gemm", 10'000'000'000, 1'000'000'000, g, std::nullopt, 1),
                  record("copy", 0, 1'000'000, g, std::nullopt, 2), record("copy", 0, 2'000'000, g, std::nullopt, 3)},
                 {&g}, {"T", {}});
    EXPECT_NE(svg.find("Not on the roofline (no FLOPs or no HBM bytes): copy ×2"), std::string::npos) << svg;
    EXPECT_EQ(count(svg, "<circle"), 2u);  // the gemm point and the legend's "modelled" marker
}

TEST(Plot, LabelsNameTheParametersThatVary) {
    const GpuSpec g = toy_gpu();
    const std::string svg = plot_svg({record("gemm", 10'000'000'000, 1'000'000'000, g, std::nullopt, 256),
                                      record("gemm", 1'000'000'000'000, 1'000'000'000, g, std::nullopt, 512)},
                                     {&g}, {"T", {}});
    EXPECT_NE(svg.find(">m=256<"), std::string::npos);
    EXPECT_NE(svg.find(">m=512<"), std::string::npos);
}

TEST(Plot, EscapesXmlInLabels) {
    const GpuSpec g = toy_gpu();
    Record r = record("a<b>&\"c'", 10'000'000'000, 1'000'000'000, g, std::nullopt);
    const std::string svg = plot_svg({r}, {&g}, {"<title> & \"more\"", {}});
    EXPECT_NE(svg.find("&lt;title&gt; &amp; &quot;more&quot;"), std::string::npos);
    EXPECT_NE(svg.find("a&lt;b&gt;&amp;&quot;c&apos;"), std::string::npos);
    EXPECT_EQ(svg.find("<title>"), std::string::npos);
    EXPECT_EQ(plot::xml_escape("x\x01y"), "x y");  // control characters are not XML
}

TEST(Plot, SameInputSameBytes) {
    const GpuSpec g = toy_gpu();
    std::vector<Record> rs;
    for (std::uint64_t m = 1; m <= 20; ++m)
        rs.push_back(record("gemm", m * 1'000'000'000, 100'000'000, g, std::nullopt, m));
    EXPECT_EQ(plot_svg(rs, {&g}, {"T", {}}), plot_svg(rs, {&g}, {"T", {}}));
}

// 6000 records: at most 2000 markers (1 in every 3), at most about 30 labels, and a note saying so.
TEST(Plot, ManyPointsAreThinnedAndSaySo) {
    const GpuSpec g = toy_gpu();
    std::vector<Record> rs;
    for (std::uint64_t m = 1; m <= 6000; ++m)
        rs.push_back(record("gemm", m * 10'000'000, 100'000'000, g, std::nullopt, m));
    const std::string svg = plot_svg(rs, {&g}, {"T", {}});
    EXPECT_EQ(count(svg, "<circle"), 2000u + 1u);  // + the legend's marker
    EXPECT_NE(svg.find("6000 points: 1 in every 3 is drawn (2000 drawn; at most 2000)"), std::string::npos);
    EXPECT_LE(count(svg, R"(font-size="10.0")"), 30u);
    EXPECT_LT(svg.size(), 400'000u);
}

// No records (an ingested file with no costed rows): the GPU's HBM roof and a note, not an error after
// the command has printed its output.
TEST(Plot, NoRecordsGiveTheRoofsAndANote) {
    const GpuSpec g = toy_gpu();
    const std::string svg = plot_svg({}, {&g}, {"T", {}});
    EXPECT_NE(svg.find("Nothing to draw: the command produced no records"), std::string::npos);
    EXPECT_NE(svg.find("toy HBM 1000 GB/s"), std::string::npos);
    EXPECT_EQ(svg.find("<circle"), std::string::npos);
}

// Collective chart: allreduce over 8 ranks with given times t = 10 µs + size / (100 GB/s), i.e.
// t = 10 + size · 1e-5 µs: the fit recovers α = 10 µs and β = 1e-3 / 1e-5 = 100 GB/s.
// busbw panel: x 610..1030 (90 + 420 + 100), y 72 (top)..472. busbw = size/t × 2·7/8:
//   1 MiB: t = 10 + 10.48576 = 20.486 µs → algbw 51.18 GB/s → busbw 89.57;
//   16 MiB: t = 10 + 167.77 = 177.77 µs → algbw 94.37 → busbw 165.2; the link 450 GB/s.
// y decades: floor(log10(89.57/1.25)) = 1 to ceil(log10(450·1.25)) = 3: 10..1000 GB/s, 400 px / 2 decades =
// 200 px per decade; 450 GB/s at y = 472 − (log10(450) − 1)·200 = 472 − 1.65321·200 = 141.36.
TEST(Plot, CollectiveSweepTwoPanelsFitAndLinkRoof) {
    const GpuSpec g = toy_gpu();
    std::vector<Record> rs;
    for (std::uint64_t size : {1ull << 20, 1ull << 22, 1ull << 24}) {
        CollectiveDesc d;
        d.size_bytes = size;
        d.ranks = 8;
        Record r;
        r.cost = collective_cost(d);
        r.params.push_back({"size_bytes", size});
        r.source = TimeSource::given;
        AnalysisOptions ao;
        ao.time_us = 10 + static_cast<double>(size) * 1e-5;
        r.verdicts.push_back(analyze(r.cost, g, ao));
        rs.push_back(r);
    }
    const std::string svg = plot_svg(rs, {&g}, {"allreduce sweep", {}});
    EXPECT_NE(svg.find("Time (µs)"), std::string::npos);
    EXPECT_NE(svg.find("Bus bandwidth (GB/s)"), std::string::npos);
    EXPECT_NE(svg.find("fit t = α + size/β: α = 10 µs, β = 100 GB/s"), std::string::npos) << svg;
    EXPECT_NE(svg.find(R"(<line x1="610.0" y1="141.4" x2="1030.0" y2="141.4" stroke="#1f77b4")"), std::string::npos) << svg;
    EXPECT_NE(svg.find("toy link peak 450 GB/s per direction"), std::string::npos);
    EXPECT_NE(svg.find(">1 MiB<"), std::string::npos);
    EXPECT_NE(svg.find("given time"), std::string::npos);
}

TEST(Plot, AxisHelpers) {
    EXPECT_EQ(plot::decade_label(0), "1");
    EXPECT_EQ(plot::decade_label(3), "1k");
    EXPECT_EQ(plot::decade_label(-2), "0.01");
    EXPECT_EQ(plot::iec_label(10), "1 KiB");
    EXPECT_EQ(plot::iec_label(25), "32 MiB");
    EXPECT_EQ(plot::iec_label(30), "1 GiB");
    EXPECT_EQ(plot::short_number(989.4), "989");
    EXPECT_EQ(plot::short_number(4800), "4800");
    EXPECT_EQ(plot::short_number(0.25), "0.25");
    // 10^0..10^3 over pixels 504..64: 100 sits two thirds of the way up.
    const plot::LogAxis a{0, 3, 504, 64};
    EXPECT_NEAR(a.pos(100), 504 - 2 * 440.0 / 3, 1e-9);
}
