// `bwacct conv` end to end: the formats, a sweep, --time-us, --explain, --plot and bad input, as for
// gemm. Every expected number is computed by hand (docs/formulas.md, "Convolution") with the
// arithmetic in a comment.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

// ResNet-50's first convolution: 32×3×224×224 → 64 channels, 7×7, stride 2, padding 3 (bf16).
const std::vector<std::string> kResNetConv1{
    "conv", "--input", "32,3,224,224", "--out-channels", "64", "--kernel", "7", "--stride", "2", "--padding", "3"};
// out = ⌊(224 + 6 − 6 − 1)/2⌋ + 1 = 112; FLOPs = 2·32·64·12544·3·49 = 7,552,892,928
constexpr u64 kConv1Flops = 7552892928ull;
// read X 32·3·224·224·2 B = 9,633,792 + W 64·3·49·2 B = 18,816 → 9,652,608; write Y 32·64·112·112·2 B = 51,380,224
constexpr u64 kConv1Read = 9652608ull, kConv1Written = 51380224ull;

// A video VAE decoder's 3D conv: 1×512×4×60×104 → 512, 3×3×3, padding 1.
const std::vector<std::string> kVae3d{"conv",      "--input", "1,512,4,60,104", "--out-channels", "512", "--kernel", "3",
                                      "--padding", "1"};
// FLOPs per sample = 2·512·24,960·512·27 = 353,328,168,960 (24,960 = 4·60·104)
constexpr u64 kVaeFlopsPerSample = 353328168960ull;

TEST(ConvCli, ResNetConv1Json) {
    const json j = run_json(with(kResNetConv1, {"--format", "json", "--gpu", "h200"}));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "op"), "conv");
    EXPECT_EQ(str_of(j, "source"), "modelled");
    const json& p = j.at("params");
    EXPECT_EQ(p.value("batch", u64{0}), 32u);
    EXPECT_EQ(p.value("in_channels", u64{0}), 3u);
    EXPECT_EQ(p.value("out_channels", u64{0}), 64u);
    EXPECT_EQ(p.value("groups", u64{0}), 1u);
    EXPECT_EQ(p.value("input", std::string()), "224x224");
    EXPECT_EQ(p.value("kernel", std::string()), "7x7");
    EXPECT_EQ(p.value("stride", std::string()), "2x2");
    EXPECT_EQ(p.value("padding", std::string()), "3x3");
    EXPECT_EQ(p.value("dilation", std::string()), "1x1");
    EXPECT_EQ(p.value("output", std::string()), "112x112");
    EXPECT_EQ(p.value("pass", std::string()), "fwd");
    EXPECT_EQ(p.value("dtype_input", std::string()), "bf16");
    // implicit GEMM: M = 32·112·112 = 401,408; N = 64; K = 3·7·7 = 147
    EXPECT_EQ(p.value("gemm_m", u64{0}), 401408u);
    EXPECT_EQ(p.value("gemm_n", u64{0}), 64u);
    EXPECT_EQ(p.value("gemm_k", u64{0}), 147u);
    EXPECT_EQ(num_u(j, "flops"), kConv1Flops);
    EXPECT_EQ(num_u(j, "bytes_read"), kConv1Read);
    EXPECT_EQ(num_u(j, "bytes_written"), kConv1Written);
    expect_finite_numbers(j, "conv");
}

TEST(ConvCli, GivenTimeGivesImpliedBandwidth) {
    const json j = run_json(with(kResNetConv1, {"--time-us", "100", "--format", "json", "--gpu", "h200"}));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "source"), "given");
    const json* g = gpu_entry(j, "h200");
    ASSERT_NE(g, nullptr);
    // implied bandwidth = (9,652,608 + 51,380,224) B / 100 µs = 61,032,832 / 1e-4 / 1e9 = 610.32832 GB/s
    expect_rel(num_d(*g, "implied_bw_GBps"), 610.32832, 1e-9, "implied_bw_GBps");
    // achieved = 7,552,892,928 / 1e-4 / 1e12 = 75.52892928 TFLOP/s
    expect_rel(num_d(*g, "tflops"), 75.52892928, 1e-9, "tflops");
    // utilization = achieved / peak
    expect_rel(num_d(g->at("util"), "hbm"), 610.32832 / hbm_GBps("h200"), 1e-9, "util.hbm");
    expect_rel(num_d(g->at("util"), "compute"), 75.52892928 / tensor_tflops("h200", "bf16"), 1e-9, "util.compute");
}

TEST(ConvCli, BatchSweepJsonl) {
    const RunResult r = run_bwacct(with(kVae3d, {"--batch", "1:8:x2", "--format", "jsonl", "--gpu", "h200"}));
    ASSERT_TRUE(succeeded(r));
    const std::vector<std::string> lines = lines_of(r.out);
    const std::vector<u64> batches{1, 2, 4, 8};  // 1·2^i ≤ 8
    ASSERT_EQ(lines.size(), batches.size()) << report(r);
    for (std::size_t i = 0; i < batches.size(); ++i) {
        SCOPED_TRACE(lines[i]);
        const json j = parse_json(lines[i], r.command);
        ASSERT_TRUE(j.is_object());
        EXPECT_EQ(j.at("params").value("batch", u64{0}), batches[i]);
        EXPECT_EQ(j.at("params").value("output", std::string()), "4x60x104");
        // FLOPs = batch · 353,328,168,960
        EXPECT_EQ(num_u(j, "flops"), batches[i] * kVaeFlopsPerSample);
        // M = batch·24,960; K = 512·27 = 13,824
        EXPECT_EQ(j.at("params").value("gemm_m", u64{0}), batches[i] * 24960);
        EXPECT_EQ(j.at("params").value("gemm_k", u64{0}), 13824u);
    }
}

TEST(ConvCli, GroupsSweepCsv) {
    // 8×256×56×56 → 256, 3×3, padding 1, groups 1, 16, 256 (depthwise)
    const RunResult r = run_bwacct({"conv", "--input", "8,256,56,56", "--out-channels", "256", "--kernel", "3,3", "--padding",
                                    "1", "--groups", "1,16,256", "--gpu", "h200", "--format", "csv"});
    ASSERT_TRUE(succeeded(r));
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1u + 3u) << report(r);  // header + 3 points × 1 GPU
    const std::vector<std::string> header = split(lines[0], ',');
    auto column = [&](const std::string& name) -> std::size_t {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return i;
        ADD_FAILURE() << "no CSV column " << name << " in " << lines[0];
        return 0;
    };
    const std::size_t cg = column("groups"), cf = column("flops"), ck = column("gemm_k"), cn = column("gemm_n");
    // FLOPs = 2·8·256·3136·(256/g)·9 = 29,595,009,024 / g: g=1 29,595,009,024; g=16 1,849,688,064;
    // g=256 115,605,504. Per group: N = 256/g, K = 9·256/g.
    const std::vector<u64> groups{1, 16, 256};
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const std::vector<std::string> cells = split(lines[i + 1], ',');
        ASSERT_EQ(cells.size(), header.size()) << lines[i + 1];
        EXPECT_EQ(cells[cg], std::to_string(groups[i]));
        EXPECT_EQ(cells[cf], std::to_string(29595009024ull / groups[i]));
        EXPECT_EQ(cells[cn], std::to_string(256 / groups[i]));
        EXPECT_EQ(cells[ck], std::to_string(9 * 256 / groups[i]));
    }
    EXPECT_EQ(split(lines[3], ',')[cf], "115605504");
}

TEST(ConvCli, JsonArrayForASweep) {
    const json j = run_json({"conv", "--input", "1,512,4,60,104", "--out-channels", "256,512", "--kernel", "3", "--padding", "1",
                             "--format", "json", "--gpu", "h200"});
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 2u);
    // FLOPs = 2·512·24,960·C_out·27: C_out 256 → 176,664,084,480; 512 → 353,328,168,960
    EXPECT_EQ(num_u(j[0], "flops"), 176664084480ull);
    EXPECT_EQ(num_u(j[1], "flops"), kVaeFlopsPerSample);
}

TEST(ConvCli, TableAndMarkdown) {
    const RunResult t = run_bwacct(with(kResNetConv1, {"--gpu", "h200"}));
    ASSERT_TRUE(succeeded(t));
    EXPECT_NE(t.out.find("conv"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("output=112x112"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("gemm_m=401408"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("7,552,892,928"), std::string::npos) << t.out;  // FLOPs, grouped by thousands

    const RunResult md = run_bwacct(with(kResNetConv1, {"--format", "md"}));
    ASSERT_TRUE(succeeded(md));
    const std::vector<std::string> lines = lines_of(md.out);
    ASSERT_EQ(lines.size(), 4u) << md.out;  // header, rule, h200, b200
    EXPECT_EQ(lines[0].rfind("| op |", 0), 0u) << lines[0];
    EXPECT_EQ(lines[2].rfind("| conv |", 0), 0u) << lines[2];
}

TEST(ConvCli, ExplainShowsTheFormulas) {
    const RunResult r = run_bwacct(with(kResNetConv1, {"--explain", "--gpu", "h200"}));
    ASSERT_TRUE(succeeded(r));
    EXPECT_NE(r.out.find("⌊(in + 2·padding − dilation·(k−1) − 1) / stride⌋ + 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("112×112"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fwd implicit GEMM"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("M = 401408, N = 64, K = 147"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2·N·C_out·spatial_out·(C_in/groups)·kernel_volume"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2·32·64·12544·3·49 · 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("7552892928"), std::string::npos) << r.out;

    // The backward passes name what they read and write, and the transposed formula is its own.
    const RunResult b = run_bwacct(with(kResNetConv1, {"--explain", "--pass", "bwd", "--gpu", "h200"}));
    ASSERT_TRUE(succeeded(b));
    for (const char* s : {"bwd-data read dY", "bwd-data read W", "bwd-data write dX", "bwd-weight read X", "bwd-weight read dY",
                          "bwd-weight write dW", "bwd-data implicit GEMM", "bwd-weight implicit GEMM"})
        EXPECT_NE(b.out.find(s), std::string::npos) << s;
    const RunResult t = run_bwacct({"conv", "--input", "2,512,32,32", "--out-channels", "256", "--kernel", "4", "--stride", "2",
                                    "--padding", "1", "--transposed", "--explain", "--gpu", "h200", "--format", "json"});
    ASSERT_TRUE(succeeded(t));
    const json j = parse_json(t.out, t.command);
    // out = (32−1)·2 − 2 + 3 + 0 + 1 = 64; FLOPs = 2·2·512·1024·256·16 = 8,589,934,592
    EXPECT_EQ(j.at("params").value("output", std::string()), "64x64");
    EXPECT_EQ(num_u(j, "flops"), 8589934592ull);
    EXPECT_NE(t.out.find("(in−1)·stride − 2·padding + dilation·(k−1) + output_padding + 1"), std::string::npos);
    EXPECT_NE(t.out.find("2·N·C_in·spatial_in·(C_out/groups)·kernel_volume"), std::string::npos);
}

TEST(ConvCli, PlotWritesARoofline) {
    TempDir dir;
    const std::string svg = dir.file("conv.svg");
    const std::vector<std::string> args = with(kVae3d, {"--batch", "1:8:x2", "--gpu", "h200"});
    const RunResult plain = run_bwacct(args);
    const RunResult r = run_bwacct(with(args, {"--plot", svg}));
    ASSERT_TRUE(succeeded(r)) << report(r);
    EXPECT_EQ(r.out, plain.out);  // the chart is extra
    const std::string text = read_text(svg);
    EXPECT_EQ(text.rfind("<?xml", 0), 0u);
    EXPECT_NE(text.find("Arithmetic intensity (FLOP per HBM byte)"), std::string::npos);
    EXPECT_NE(text.find("conv: "), std::string::npos);  // the title names the op
}

TEST(ConvCli, HelpHasAnExample) {
    const RunResult r = run_bwacct({"conv", "--help"});
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("bwacct conv --input"), std::string::npos) << r.out;
}

// ---------------------------------------------------------------------------------------------
// Bad input: exit 2, nothing on stdout, one line on stderr naming the option.

struct ConvBad {
    std::vector<std::string> args;
    std::string must_name;
};
void PrintTo(const ConvBad& c, std::ostream* os) { *os << describe(c.args); }

// An 8×256×56×56 → 256, 3×3 convolution with `more` added; an option in `more` replaces the base's
// --out-channels or --kernel (CLI11 refuses an option given twice, which would hide the case).
std::vector<std::string> conv_with(std::initializer_list<std::string> more) {
    std::vector<std::string> args{"conv", "--input", "8,256,56,56"};
    for (const char* base : {"--out-channels", "--kernel"})
        if (std::find(more.begin(), more.end(), base) == more.end())
            args.insert(args.end(), {base, std::string(base) == "--kernel" ? "3" : "256"});
    return with(args, more);
}

const std::vector<ConvBad> kConvBad{
    {{"conv", "--out-channels", "64", "--kernel", "3"}, "--input"},  // missing
    {{"conv", "--input", "32,3", "--out-channels", "64", "--kernel", "3"}, "--input"},
    {{"conv", "--input", "1,2,3,4,5,6", "--out-channels", "64", "--kernel", "3"}, "--input"},
    {{"conv", "--input", "32,3,abc", "--out-channels", "64", "--kernel", "3"}, "--input"},
    {{"conv", "--input", "32,0,224", "--out-channels", "64", "--kernel", "3"}, "--input"},
    {{"conv", "--input", "1:4:x2,3,224", "--out-channels", "64", "--kernel", "3"}, "--input"},
    {{"conv", "--input", "8,256,56,56", "--kernel", "3"}, "--out-channels"},  // missing
    {conv_with({"--out-channels", "0"}), "--out-channels"},
    {conv_with({"--out-channels", "-3"}), "--out-channels"},
    {conv_with({"--out-channels", "1.5"}), "--out-channels"},
    {{"conv", "--input", "8,256,56,56", "--out-channels", "256"}, "--kernel"},  // missing
    {conv_with({"--kernel", "3,3,3"}), "--kernel"},                             // three sizes for a 2D input
    {conv_with({"--kernel", "0"}), "--kernel"},
    {conv_with({"--kernel", "1:3:+1"}), "--kernel"},
    {{"conv", "--input", "1,4,3,3", "--out-channels", "4", "--kernel", "7"}, "--kernel"},  // output ≤ 0
    {conv_with({"--dilation", "40"}), "--kernel"},                                         // 40·2 + 1 = 81 > 56: output ≤ 0
    {conv_with({"--stride", "0"}), "--stride"},
    {conv_with({"--stride", "x"}), "--stride"},
    {conv_with({"--stride", "1,1,1"}), "--stride"},
    {conv_with({"--padding", "-1"}), "--padding"},
    {conv_with({"--padding", "1.5"}), "--padding"},
    {conv_with({"--dilation", "0"}), "--dilation"},
    {conv_with({"--groups", "3"}), "--groups"},  // 3 does not divide 256
    {conv_with({"--groups", "0"}), "--groups"},
    {conv_with({"--groups", "1,3"}), "--groups"},  // a later sweep point is impossible: nothing printed
    {conv_with({"--batch", "0"}), "--batch"},
    {conv_with({"--batch", "1:0:x2"}), "--batch"},
    {conv_with({"--output-padding", "1"}), "--output-padding"},                  // without --transposed
    {conv_with({"--transposed", "--output-padding", "1"}), "--output-padding"},  // not below stride 1 or dilation 1
    {{"conv", "--input", "1,4,1", "--out-channels", "4", "--kernel", "1", "--padding", "1", "--transposed"},
     "--padding"},  // (1−1)·1 − 2 + 0 + 0 + 1 = −1
    {conv_with({"--dtype", "fp7"}), "--dtype"},
    {conv_with({"--dtype-input", "nosuch"}), "--dtype-input"},
    {conv_with({"--dtype-weight", "nosuch"}), "--dtype-weight"},
    {conv_with({"--dtype-output", "nosuch"}), "--dtype-output"},
    {conv_with({"--dtype-input", "fp8_e4m3", "--dtype-weight", "bf16"}), "--dtype-weight"},  // no common math path
    {conv_with({"--pass", "sideways"}), "--pass"},
    {conv_with({"--format", "xml"}), "--format"},
    {conv_with({"--time-us", "0"}), "--time-us"},
    {conv_with({"--gpu", "nosuch"}), "--gpu"},
    {conv_with({"--measure"}), "--measure"},  // not offered: profile with cuDNN and ingest the trace
    // 2·2^21·2^21·2^21 = 2^64 FLOPs: one past the largest 64-bit count
    {{"conv", "--input", "1,2097152,2097152", "--out-channels", "2097152", "--kernel", "1"}, "--out-channels"},
};

class ConvBadInput : public ::testing::TestWithParam<ConvBad> {};

TEST_P(ConvBadInput, Rejected) {
    const RunResult r = run_bwacct(GetParam().args);
    EXPECT_TRUE(failed_cleanly(r, 2, GetParam().must_name));
    // refused for the value under test, not because the case gave an option twice
    EXPECT_EQ(r.err.find("At Most 1 required"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Cases, ConvBadInput, ::testing::ValuesIn(kConvBad));

}  // namespace
