// conv_cost and conv_geometry: every expected number computed by hand from docs/formulas.md
// ("Convolution"), with the arithmetic in a comment.
#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"

using namespace bwacct;

namespace {

using u64 = std::uint64_t;
using Dims = std::vector<u64>;

ConvDesc conv(u64 n, u64 cin, Dims spatial, u64 cout, Dims kernel) {
    ConvDesc d;
    d.batch = n;
    d.in_channels = cin;
    d.spatial = std::move(spatial);
    d.out_channels = cout;
    d.kernel = std::move(kernel);
    return d;
}

// ResNet-50's first convolution: 32×3×224×224 → 64 channels, 7×7, stride 2, padding 3, bf16.
ConvDesc resnet_conv1() {
    ConvDesc d = conv(32, 3, {224, 224}, 64, {7});
    d.stride = {2};
    d.padding = {3};
    return d;
}

// A 3×3 "same" convolution of a ResNet stage: 8×256×56×56 → 256 channels, padding 1, fp16.
ConvDesc same3x3() {
    ConvDesc d = conv(8, 256, {56, 56}, 256, {3, 3});
    d.padding = {1, 1};
    d.input_dtype = d.weight_dtype = d.output_dtype = DType::fp16;
    return d;
}

std::string error_option(const ConvDesc& d) {
    try {
        (void)conv_cost(d);
    } catch (const InputError& e) {
        return e.option();
    }
    return "(no error)";
}

}  // namespace

TEST(Conv, ResNet50FirstConv) {
    const ConvDesc d = resnet_conv1();
    const ConvGeometry g = conv_geometry(d);
    // out = ⌊(224 + 2·3 − 1·(7−1) − 1) / 2⌋ + 1 = ⌊223/2⌋ + 1 = 111 + 1 = 112 per dimension
    EXPECT_EQ(g.out, (Dims{112, 112}));
    EXPECT_EQ(g.kernel, (Dims{7, 7}));  // one value broadcast to both dimensions
    EXPECT_EQ(g.stride, (Dims{2, 2}));
    EXPECT_EQ(g.spatial_out, 12544u);  // 112·112
    EXPECT_EQ(g.kernel_volume, 49u);   // 7·7
    // implicit GEMM: M = N·spatial_out = 32·12544 = 401,408; N = C_out = 64; K = C_in·49 = 147
    EXPECT_EQ(g.fwd.m, 401408u);
    EXPECT_EQ(g.fwd.n, 64u);
    EXPECT_EQ(g.fwd.k, 147u);

    const Cost c = conv_cost(d);
    EXPECT_EQ(c.op, "conv");
    // FLOPs = 2·N·C_out·spatial_out·C_in·49 = 2·32·64·12544·3·49 = 4096·12544·147
    //       = 51,380,224·147 = 7,552,892,928
    EXPECT_EQ(c.flops, 7552892928ull);
    EXPECT_EQ(c.flops, 2 * g.fwd.m * g.fwd.n * g.fwd.k);  // the same as the implicit GEMM's 2·M·N·K
    // read X = 32·3·224·224 = 4,816,896 elements · 2 B = 9,633,792; W = 64·3·49 = 9,408 · 2 = 18,816
    // → 9,652,608. write Y = 32·64·112·112 = 25,690,112 · 2 = 51,380,224
    EXPECT_EQ(c.bytes_read, 9652608ull);
    EXPECT_EQ(c.bytes_written, 51380224ull);
    EXPECT_EQ(c.unit, Unit::tensor);
    EXPECT_EQ(c.launches, 1u);
}

TEST(Conv, SameThreeByThree) {
    const ConvDesc d = same3x3();
    const ConvGeometry g = conv_geometry(d);
    // out = (56 + 2 − 2 − 1)/1 + 1 = 56
    EXPECT_EQ(g.out, (Dims{56, 56}));
    const Cost c = conv_cost(d);
    // FLOPs = 2·8·256·3136·256·9 = 4096·3136·2304 = 12,845,056·2304 = 29,595,009,024
    EXPECT_EQ(c.flops, 29595009024ull);
    // X = 8·256·3136 = 6,422,528 elements · 2 B = 12,845,056; W = 256·256·9 = 589,824 · 2 = 1,179,648
    // read = 12,845,056 + 1,179,648 = 14,024,704; write Y = 12,845,056
    EXPECT_EQ(c.bytes_read, 14024704ull);
    EXPECT_EQ(c.bytes_written, 12845056ull);
    // M = 8·3136 = 25,088; N = 256; K = 256·9 = 2304
    EXPECT_EQ(g.fwd.m, 25088u);
    EXPECT_EQ(g.fwd.n, 256u);
    EXPECT_EQ(g.fwd.k, 2304u);
}

TEST(Conv, Depthwise) {
    ConvDesc d = same3x3();
    d.groups = 256;  // groups = C_in = C_out: depthwise
    const ConvGeometry g = conv_geometry(d);
    // per group: M = 8·3136 = 25,088; N = C_out/groups = 1; K = C_in/groups·9 = 9
    EXPECT_EQ(g.fwd.m, 25088u);
    EXPECT_EQ(g.fwd.n, 1u);
    EXPECT_EQ(g.fwd.k, 9u);
    const Cost c = conv_cost(d);
    // FLOPs = 2·8·256·3136·(256/256)·9 = 4096·3136·9 = 12,845,056·9 = 115,605,504
    EXPECT_EQ(c.flops, 115605504ull);
    // W = 256·1·9 = 2304 elements · 2 B = 4608; read = 12,845,056 + 4608 = 12,849,664; write 12,845,056
    EXPECT_EQ(c.bytes_read, 12849664ull);
    EXPECT_EQ(c.bytes_written, 12845056ull);
}

TEST(Conv, OneDimensionalWithBias) {
    // Whisper's first conv: 4×80×3000 (mel frames) → 384 channels, kernel 3, padding 1, fp16, bias.
    ConvDesc d = conv(4, 80, {3000}, 384, {3});
    d.padding = {1};
    d.bias = true;
    d.input_dtype = d.weight_dtype = d.output_dtype = DType::fp16;
    const ConvGeometry g = conv_geometry(d);
    EXPECT_EQ(g.out, (Dims{3000}));  // (3000 + 2 − 2 − 1)/1 + 1
    const Cost c = conv_cost(d);
    // FLOPs = 2·4·384·3000·80·3 = 3072·3000·240 = 9,216,000·240 = 2,211,840,000
    EXPECT_EQ(c.flops, 2211840000ull);
    // read X = 4·80·3000 = 960,000 · 2 = 1,920,000; W = 384·80·3 = 92,160 · 2 = 184,320;
    // bias = 384 · 2 = 768 → 2,105,088. write Y = 4·384·3000 = 4,608,000 · 2 = 9,216,000
    EXPECT_EQ(c.bytes_read, 2105088ull);
    EXPECT_EQ(c.bytes_written, 9216000ull);

    // Whisper's second conv: stride 2 → out = ⌊(3000 + 2 − 2 − 1)/2⌋ + 1 = 1499 + 1 = 1500
    d.in_channels = 384;
    d.stride = {2};
    EXPECT_EQ(conv_geometry(d).out, (Dims{1500}));
    // FLOPs = 2·4·384·1500·384·3 = 3072·1500·1152 = 4,608,000·1152 = 5,308,416,000
    EXPECT_EQ(conv_cost(d).flops, 5308416000ull);
}

TEST(Conv, ThreeDimensionalVideoVaeDecoder) {
    // A video VAE decoder's 3D conv: 1×512×(4×60×104) → 512 channels, 3×3×3, padding 1, bf16.
    ConvDesc d = conv(1, 512, {4, 60, 104}, 512, {3, 3, 3});
    d.padding = {1};
    const ConvGeometry g = conv_geometry(d);
    EXPECT_EQ(g.out, (Dims{4, 60, 104}));
    EXPECT_EQ(g.spatial_out, 24960u);  // 4·60·104 = 240·104 = 24,960
    EXPECT_EQ(g.kernel_volume, 27u);
    // M = 24,960; N = 512; K = 512·27 = 13,824
    EXPECT_EQ(g.fwd.m, 24960u);
    EXPECT_EQ(g.fwd.n, 512u);
    EXPECT_EQ(g.fwd.k, 13824u);
    const Cost c = conv_cost(d);
    // FLOPs = 2·1·512·24,960·512·27 = 2·24,960·7,077,888 (= 512·512·27)
    //       = 2·176,664,084,480 (7,077,888·25,000 − 7,077,888·40 = 176,947,200,000 − 283,115,520)
    //       = 353,328,168,960
    EXPECT_EQ(c.flops, 353328168960ull);
    // X = Y = 512·24,960 = 12,779,520 elements · 2 B = 25,559,040; W = 7,077,888 · 2 = 14,155,776
    // read = 25,559,040 + 14,155,776 = 39,714,816; write = 25,559,040
    EXPECT_EQ(c.bytes_read, 39714816ull);
    EXPECT_EQ(c.bytes_written, 25559040ull);
}

TEST(Conv, Transposed) {
    // A 2× upsampling ConvTranspose2d: 2×512×32×32 → 256 channels, kernel 4, stride 2, padding 1, bf16.
    ConvDesc d = conv(2, 512, {32, 32}, 256, {4});
    d.stride = {2};
    d.padding = {1};
    d.transposed = true;
    const ConvGeometry g = conv_geometry(d);
    // out = (32 − 1)·2 − 2·1 + 1·(4 − 1) + 0 + 1 = 62 − 2 + 3 + 1 = 64
    EXPECT_EQ(g.out, (Dims{64, 64}));
    // forward = scatter GEMM over the input pixels: M = N·spatial_in = 2·1024 = 2048;
    // N = C_out·16 = 4096; K = C_in = 512
    EXPECT_EQ(g.fwd.m, 2048u);
    EXPECT_EQ(g.fwd.n, 4096u);
    EXPECT_EQ(g.fwd.k, 512u);
    const Cost c = conv_cost(d);
    // FLOPs = 2·N·C_in·spatial_in·C_out·16 = 2·2·512·1024·256·16 = 2,097,152·4096 = 8,589,934,592
    EXPECT_EQ(c.flops, 8589934592ull);
    // read X = 2·512·1024 = 1,048,576 · 2 B = 2,097,152; W = 512·256·16 = 2,097,152 · 2 = 4,194,304
    // → 6,291,456. write Y = 2·256·4096 = 2,097,152 · 2 = 4,194,304
    EXPECT_EQ(c.bytes_read, 6291456ull);
    EXPECT_EQ(c.bytes_written, 4194304ull);

    // The transposed conv is the bwd-data of the conv that maps its output back to its input
    // (64×64×256 → 32×32×512, same kernel, stride, padding): same FLOPs, same bytes.
    ConvDesc fwd = conv(2, 256, {64, 64}, 512, {4});
    fwd.stride = {2};
    fwd.padding = {1};
    EXPECT_EQ(conv_geometry(fwd).out, (Dims{32, 32}));  // ⌊(64 + 2 − 3 − 1)/2⌋ + 1 = 31 + 1
    fwd.pass = GemmPass::bwd_data;
    const Cost dgrad = conv_cost(fwd);
    EXPECT_EQ(dgrad.flops, c.flops);
    EXPECT_EQ(dgrad.bytes_read, c.bytes_read);
    EXPECT_EQ(dgrad.bytes_written, c.bytes_written);
    EXPECT_EQ(conv_geometry(fwd).bwd_data.m, g.fwd.m);
    EXPECT_EQ(conv_geometry(fwd).bwd_data.n, g.fwd.n);
    EXPECT_EQ(conv_geometry(fwd).bwd_data.k, g.fwd.k);
}

TEST(Conv, TransposedOutputPaddingAndDilation) {
    // kernel 3, stride 2, padding 1, output_padding 1: (32−1)·2 − 2 + 1·2 + 1 + 1 = 64
    ConvDesc d = conv(1, 64, {32}, 64, {3});
    d.stride = {2};
    d.padding = {1};
    d.output_padding = {1};
    d.transposed = true;
    EXPECT_EQ(conv_geometry(d).out, (Dims{64}));
    // dilation 2 (conv): extent 2·(3−1)+1 = 5; padding 2 → out = ⌊(56 + 4 − 5)/1⌋ + 1 = 56
    ConvDesc dil = conv(1, 8, {56, 56}, 8, {3});
    dil.dilation = {2};
    dil.padding = {2};
    EXPECT_EQ(conv_geometry(dil).out, (Dims{56, 56}));
    // per-dimension values: stride 1,2 on 56×56 with kernel 3, padding 1: 56 and ⌊55/2⌋ + 1 = 28
    ConvDesc mixed = conv(1, 8, {56, 56}, 8, {3});
    mixed.stride = {1, 2};
    mixed.padding = {1};
    EXPECT_EQ(conv_geometry(mixed).out, (Dims{56, 28}));
}

TEST(Conv, BackwardPasses) {
    ConvDesc d = same3x3();
    // bwd-data: reads dY (12,845,056 B) and W (1,179,648), writes dX (12,845,056); FLOPs as forward
    d.pass = GemmPass::bwd_data;
    Cost c = conv_cost(d);
    EXPECT_EQ(c.flops, 29595009024ull);
    EXPECT_EQ(c.bytes_read, 14024704ull);  // 12,845,056 + 1,179,648
    EXPECT_EQ(c.bytes_written, 12845056ull);
    const ConvGeometry g = conv_geometry(d);
    // dX columns [N·spatial_out, C_in·9] = dY [25,088, 256] · Wᵀ: M = 25,088, N = 2304, K = 256
    EXPECT_EQ(g.bwd_data.m, 25088u);
    EXPECT_EQ(g.bwd_data.n, 2304u);
    EXPECT_EQ(g.bwd_data.k, 256u);
    // dW [C_out, C_in·9] = dYᵀ [256, 25,088] · columns: M = 256, N = 2304, K = 25,088
    EXPECT_EQ(g.bwd_weight.m, 256u);
    EXPECT_EQ(g.bwd_weight.n, 2304u);
    EXPECT_EQ(g.bwd_weight.k, 25088u);

    // bwd-weight: reads X and dY (2·12,845,056 = 25,690,112), writes dW (1,179,648)
    d.pass = GemmPass::bwd_weight;
    c = conv_cost(d);
    EXPECT_EQ(c.flops, 29595009024ull);
    EXPECT_EQ(c.bytes_read, 25690112ull);
    EXPECT_EQ(c.bytes_written, 1179648ull);
    // with a bias, dbias (256 · 2 B = 512) is written too: 1,179,648 + 512 = 1,180,160
    d.bias = true;
    EXPECT_EQ(conv_cost(d).bytes_written, 1180160ull);
    d.bias = false;

    // bwd = data + weight: FLOPs 2 · 29,595,009,024 = 59,190,018,048; read 14,024,704 + 25,690,112
    // = 39,714,816; write 12,845,056 + 1,179,648 = 14,024,704; two kernels
    d.pass = GemmPass::bwd;
    c = conv_cost(d);
    EXPECT_EQ(c.flops, 59190018048ull);
    EXPECT_EQ(c.bytes_read, 39714816ull);
    EXPECT_EQ(c.bytes_written, 14024704ull);
    EXPECT_EQ(c.launches, 2u);

    // fwd+bwd: FLOPs 3 · 29,595,009,024 = 88,785,027,072; read 14,024,704 + 39,714,816 = 53,739,520;
    // write 12,845,056 + 14,024,704 = 26,869,760; three kernels
    d.pass = GemmPass::fwd_bwd;
    c = conv_cost(d);
    EXPECT_EQ(c.flops, 88785027072ull);
    EXPECT_EQ(c.bytes_read, 53739520ull);
    EXPECT_EQ(c.bytes_written, 26869760ull);
    EXPECT_EQ(c.launches, 3u);
}

TEST(Conv, DtypesPerTensor) {
    // fp8 input and weight, bf16 output: X 1 B, W 1 B, Y 2 B per element (ResNet conv1 shape):
    // read 4,816,896 + 9,408 = 4,826,304; write 25,690,112 · 2 = 51,380,224
    ConvDesc d = resnet_conv1();
    d.input_dtype = d.weight_dtype = DType::fp8_e4m3;
    d.output_dtype = DType::bf16;
    const Cost c = conv_cost(d);
    EXPECT_EQ(c.bytes_read, 4826304ull);
    EXPECT_EQ(c.bytes_written, 51380224ull);
    EXPECT_EQ(c.compute_dtype, DType::fp8_e4m3);
    d.weight_dtype = DType::bf16;  // no common math path
    EXPECT_EQ(error_option(d), "--dtype-weight");
}

TEST(Conv, ImpossibleShapesNameTheOption) {
    ConvDesc d = same3x3();
    d.groups = 3;  // 256 is not a multiple of 3
    EXPECT_EQ(error_option(d), "--groups");
    d = same3x3();
    d.out_channels = 100;
    d.groups = 8;  // 256 is, 100 is not
    EXPECT_EQ(error_option(d), "--groups");

    // kernel 7 on a 3×3 input without padding: extent 7 > padded 3 → empty output
    EXPECT_EQ(error_option(conv(1, 4, {3, 3}, 4, {7})), "--kernel");
    // dilation 4 makes a 3-tap kernel span 4·2 + 1 = 9 > 8
    ConvDesc dil = conv(1, 4, {8}, 4, {3});
    dil.dilation = {4};
    EXPECT_EQ(error_option(dil), "--kernel");
    // transposed: (1−1)·1 − 2·1 + 1·0 + 0 + 1 = −1 ≤ 0
    ConvDesc t = conv(1, 4, {1}, 4, {1});
    t.transposed = true;
    t.padding = {1};
    EXPECT_EQ(error_option(t), "--padding");
    // output_padding needs --transposed, and must be below stride or dilation
    ConvDesc op = conv(1, 4, {8}, 4, {3});
    op.output_padding = {1};
    EXPECT_EQ(error_option(op), "--output-padding");
    op.transposed = true;  // stride 1, dilation 1: 1 is not smaller than either
    EXPECT_EQ(error_option(op), "--output-padding");
    op.stride = {2};
    EXPECT_NO_THROW((void)conv_cost(op));

    // two kernel sizes for a 3D input; zero sizes; no kernel; four spatial dimensions
    EXPECT_EQ(error_option(conv(1, 4, {8, 8, 8}, 4, {3, 3})), "--kernel");
    EXPECT_EQ(error_option(conv(1, 4, {8, 8}, 4, {0})), "--kernel");
    EXPECT_EQ(error_option(conv(1, 4, {8, 8}, 4, {})), "--kernel");
    EXPECT_EQ(error_option(conv(1, 4, {8, 8}, 0, {3})), "--out-channels");
    EXPECT_EQ(error_option(conv(1, 4, {8, 0}, 4, {3})), "--input");
    EXPECT_EQ(error_option(conv(1, 4, {8, 8, 8, 8}, 4, {3})), "--input");
    EXPECT_EQ(error_option(conv(1, 4, {}, 4, {3})), "--input");
    ConvDesc s = conv(1, 4, {8, 8}, 4, {3});
    s.stride = {0};
    EXPECT_EQ(error_option(s), "--stride");
}

TEST(Conv, OverflowThrowsInsteadOfWrapping) {
    // 2^21 input and output channels, 2^21 pixels, kernel 1: FLOPs = 2·2^21·2^21·2^21 = 2^64, one past
    // the largest 64-bit count
    ConvDesc d = conv(1, u64{1} << 21, {u64{1} << 21}, u64{1} << 21, {1});
    EXPECT_THROW((void)conv_cost(d), OverflowError);
}

TEST(Conv, ResNet18TraceShapes) {
    // The eleven aten::convolution shapes of kineto_mi300x_resnet_act_checkpoint_tracelens.json.gz
    // (ResNet-18, batch 10; Input Dims [x, w], Concrete Inputs stride, padding; dilation 1, groups 1,
    // not transposed, no bias), with how often each runs in the trace. For the ingest cross-check.
    struct Row {
        u64 count, cin, size, cout, k, stride, pad, out, flops;
    };
    const Row rows[] = {
        // conv1: ⌊(224 + 6 − 7)/2⌋ + 1 = 112; 2·10·64·12,544·3·49 = 16,056,320·147 = 2,360,279,040
        {3, 3, 224, 64, 7, 2, 3, 112, 2360279040ull},
        // 3×3 same, 56: 2·10·64·3136·64·9 = 4,014,080·576 = 2,312,110,080
        {24, 64, 56, 64, 3, 1, 1, 56, 2312110080ull},
        // 3×3 stride 2: ⌊(56 + 2 − 3)/2⌋ + 1 = 28; 2·10·128·784·64·9 = 2,007,040·576 = 1,156,055,040
        {6, 64, 56, 128, 3, 2, 1, 28, 1156055040ull},
        // 1×1 stride 2 downsample: ⌊(56 − 1)/2⌋ + 1 = 28; 2,007,040·64 = 128,450,560
        {6, 64, 56, 128, 1, 2, 0, 28, 128450560ull},
        // 3×3 same, 28: 2·10·128·784·128·9 = 2,007,040·1152 = 2,312,110,080
        {18, 128, 28, 128, 3, 1, 1, 28, 2312110080ull},
        // ⌊(28 + 2 − 3)/2⌋ + 1 = 14; 2·10·256·196·128·9 = 1,003,520·1152 = 1,156,055,040
        {6, 128, 28, 256, 3, 2, 1, 14, 1156055040ull},
        // ⌊27/2⌋ + 1 = 14; 1,003,520·128 = 128,450,560
        {6, 128, 28, 256, 1, 2, 0, 14, 128450560ull},
        // 3×3 same, 14: 1,003,520·2304 = 2,312,110,080
        {18, 256, 14, 256, 3, 1, 1, 14, 2312110080ull},
        // ⌊(14 + 2 − 3)/2⌋ + 1 = 7; 2·10·512·49·256·9 = 501,760·2304 = 1,156,055,040
        {6, 256, 14, 512, 3, 2, 1, 7, 1156055040ull},
        // ⌊13/2⌋ + 1 = 7; 501,760·256 = 128,450,560
        {6, 256, 14, 512, 1, 2, 0, 7, 128450560ull},
        // 3×3 same, 7: 501,760·4608 = 2,312,110,080
        {18, 512, 7, 512, 3, 1, 1, 7, 2312110080ull},
    };
    u64 total = 0;
    for (const Row& r : rows) {
        ConvDesc d = conv(10, r.cin, {r.size, r.size}, r.cout, {r.k, r.k});
        d.stride = {r.stride, r.stride};
        d.padding = {r.pad, r.pad};
        SCOPED_TRACE(testing::Message() << r.cin << "→" << r.cout << " k" << r.k << " s" << r.stride << " on " << r.size);
        EXPECT_EQ(conv_geometry(d).out, (Dims{r.out, r.out}));
        const u64 flops = conv_cost(d).flops;
        EXPECT_EQ(flops, r.flops);
        total += r.count * flops;
    }
    // forward FLOPs of the trace's convolutions: 3·2,360,279,040 = 7,080,837,120
    // + (24 + 18 + 18 + 18)·2,312,110,080 = 78·… = 180,344,586,240
    // + (6 + 6 + 6)·1,156,055,040 = 20,808,990,720 + (6 + 6 + 6)·128,450,560 = 2,312,110,080
    // = 210,546,524,160
    EXPECT_EQ(total, 210546524160ull);
}
