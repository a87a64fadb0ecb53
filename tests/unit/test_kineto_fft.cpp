// Fast Fourier transforms in `ingest torch-trace` (docs/formulas.md, "Fast Fourier transforms"): the
// three aten ops every torch.fft call ends in, costed from Input Dims and Concrete Inputs. Expected
// numbers are computed by hand in the comments. Also: which traces count as profiled with shapes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bwacct/ingest_kineto.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;
using bwacct::DType;
using test::op_of;

// torch.fft.rfft(x) on float x[8, 1024]: aten::_fft_r2c(self, dim, normalization, onesided).
TEST(KinetoFft, RealToComplexOneSided) {
    const auto c =
        cost_cpu_op("aten::_fft_r2c",
                    op_of({{8, 1024}, {}, {}, {}}, {"float", "ScalarList", "Scalar", "Scalar"}, {"", "[1]", "0", "True"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::fft);
    EXPECT_EQ(c->dtype, "fp32");
    EXPECT_EQ(c->cost.compute_dtype, DType::fp32);
    EXPECT_EQ(c->cost.bytes_read, 8u * 1024 * 4);        // 32768: the real input once
    EXPECT_EQ(c->cost.bytes_written, 8u * 513 * 2 * 4);  // 32832: 1024/2 + 1 = 513 complex outputs per row
    EXPECT_EQ(c->cost.flops, 204800u);                   // 2.5 · 1024 · log2(1024) = 25600 per row, 8 rows
}

// torch.fft.irfft back to 1024 points, normalized ("backward" norm: code 2), from complex<float>[8, 513].
TEST(KinetoFft, ComplexToRealTakesItsLengthFromLastDimSize) {
    const auto c = cost_cpu_op(
        "aten::_fft_c2r",
        op_of({{8, 513}, {}, {}, {}}, {"c10::complex<float>", "ScalarList", "Scalar", "Scalar"}, {"", "[1]", "2", "1024"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 8u * 513 * 8);  // 32832: complex<float> is 8 bytes
    EXPECT_EQ(c->cost.bytes_written, 8u * 1024 * 4);
    EXPECT_EQ(c->cost.flops, 204800u);  // the same 1024-point real transform, 8 times
    EXPECT_EQ(c->dtype, "complex<fp32>");
    // Without last_dim_size the output length is unknown: no formula.
    EXPECT_FALSE(cost_cpu_op(
        "aten::_fft_c2r",
        op_of({{8, 513}, {}, {}, {}}, {"c10::complex<float>", "ScalarList", "Scalar", "Scalar"}, {"", "[1]", "2", ""}), ""));
}

// torch.fft.fft2 on complex<double>[4, 64, 64]: two transformed dims, N = 64 · 64 = 4096.
TEST(KinetoFft, ComplexToComplexOverTwoDims) {
    const auto c = cost_cpu_op(
        "aten::_fft_c2c",
        op_of({{4, 64, 64}, {}, {}, {}}, {"c10::complex<double>", "ScalarList", "Scalar", "Scalar"}, {"", "[1, 2]", "0", "True"}),
        "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.compute_dtype, DType::fp64);
    EXPECT_EQ(c->cost.bytes_read, 4u * 4096 * 16);  // 262144: complex<double> is 16 bytes
    EXPECT_EQ(c->cost.bytes_written, 4u * 4096 * 16);
    EXPECT_EQ(c->cost.flops, 983040u);  // 5 · 4096 · log2(4096) = 245760 per transform, batch 4
}

// A length that is no power of two, a negative dim and onesided=False (a full spectrum).
TEST(KinetoFft, NonPowerOfTwoLengthRoundsToAWholeFlop) {
    const auto c =
        cost_cpu_op("aten::_fft_r2c",
                    op_of({{3, 100}, {}, {}, {}}, {"float", "ScalarList", "Scalar", "Scalar"}, {"", "[-1]", "0", "False"}), "");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.bytes_read, 3u * 100 * 4);     // 1200
    EXPECT_EQ(c->cost.bytes_written, 3u * 100 * 8);  // 2400: all 100 bins, complex<float>
    EXPECT_EQ(c->cost.flops, 4983u);                 // 2.5 · 100 · log2(100) · 3 = 750 · 6.6438… = 4982.89
}

// Shapes torch would not run: a dim named twice, a complex type where r2c takes a real one, no dim list.
TEST(KinetoFft, ShapesTorchRefusesHaveNoFormula) {
    EXPECT_FALSE(cost_cpu_op(
        "aten::_fft_c2c",
        op_of({{4, 64}, {}, {}, {}}, {"c10::complex<float>", "ScalarList", "Scalar", "Scalar"}, {"", "[1, 1]", "0", "True"}),
        ""));
    EXPECT_FALSE(cost_cpu_op(
        "aten::_fft_r2c",
        op_of({{4, 64}, {}, {}, {}}, {"c10::complex<float>", "ScalarList", "Scalar", "Scalar"}, {"", "[1]", "0", "True"}), ""));
    EXPECT_FALSE(cost_cpu_op(
        "aten::_fft_r2c", op_of({{4, 64}, {}, {}, {}}, {"float", "ScalarList", "Scalar", "Scalar"}, {"", "", "0", "True"}), ""));
}

// The "no Input Dims" note of `ingest torch-trace` asks whether any op recorded a shape: ops whose Input
// Dims hold only scalars (aten::empty's `[[], [], []]`, written with record_shapes=True too) do not count.
TEST(KinetoShapes, ScalarOnlyInputDimsAreNoShapes) {
    Trace t;
    t.ops.push_back(op_of({{}, {}, {}}, {"ScalarList", "Scalar", "Scalar"}, {"[0]", "6", "0"}));
    t.ops.push_back(op_of({}, {}));  // no Input Dims at all
    EXPECT_FALSE(trace_has_shapes(t));
    t.ops.push_back(op_of({{8192, 512}, {}}, {"float", "ScalarList"}));
    EXPECT_TRUE(trace_has_shapes(t));
}

}  // namespace
