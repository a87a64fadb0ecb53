// The two short-number formats (the verdict lines' and the charts' labels) share one trailing-zero
// trim (human.h fixed_trimmed) and one significant-digit rule below 10; their other rules differ on
// purpose (a verdict keeps a decimal above 100, a chart label does not, and switches to an exponent).
#include <gtest/gtest.h>

#include "../../src/report/human.h"
#include "../../src/report/svg.h"
#include "../../src/report/verdict_line.h"

namespace {

using bwacct::detail::fixed_trimmed;
using bwacct::detail::significant_decimals;

TEST(ShortNumber, FixedTrimmedDropsTrailingZerosAndThePoint) {
    EXPECT_EQ(fixed_trimmed(140.0, 1), "140");   // "140.0" → "140"
    EXPECT_EQ(fixed_trimmed(0.25, 3), "0.25");   // "0.250" → "0.25"
    EXPECT_EQ(fixed_trimmed(1200, 0), "1200");   // no point: the zeros of an integer stay
    EXPECT_EQ(fixed_trimmed(1.2049, 2), "1.2");  // "1.20" → "1.2"
}

TEST(ShortNumber, SignificantDecimals) {
    EXPECT_EQ(significant_decimals(0.01234, 3), 4);  // log10 = −1.9 → floor −2; 3 − 1 + 2 = 4: "0.0123"
    EXPECT_EQ(significant_decimals(5.5, 3), 2);      // floor(log10 5.5) = 0: 2 decimals
    EXPECT_EQ(significant_decimals(989.4, 3), 0);    // floor 2: 3 − 1 − 2 = 0
    EXPECT_EQ(significant_decimals(12345, 3), 0);    // never negative
}

TEST(ShortNumber, VerdictAndChartAgreeBelowTenAndDifferAbove) {
    using bwacct::detail::short_number;
    // Below 10 both show 3 significant digits, trimmed.
    for (const double v : {0.01234, 0.5, 1.2231, 9.5})
        EXPECT_EQ(short_number(v), bwacct::plot::short_number(v)) << v;
    EXPECT_EQ(short_number(1.2231), "1.22");
    EXPECT_EQ(short_number(0.01234), "0.0123");
    // Above 100 a verdict keeps one decimal (114.46 → "114.5"), a chart label rounds to 3 digits ("114").
    EXPECT_EQ(short_number(114.46), "114.5");
    EXPECT_EQ(bwacct::plot::short_number(114.46), "114");
    EXPECT_EQ(short_number(140), "140");  // "140.0" trimmed
    EXPECT_EQ(short_number(0), "0");
}

TEST(ShortNumber, RatesNeverRoundToAFalseZero) {
    using bwacct::detail::rate;
    // tokens/s and FPS: whole from 100 up, else 3 significant digits; a rate below 0.5 printed "0" before.
    EXPECT_EQ(rate(731000.4), "731000");
    EXPECT_EQ(rate(100), "100");
    EXPECT_EQ(rate(33.3333), "33.3");    // 20 · 8000 / 4800
    EXPECT_EQ(rate(0.156107), "0.156");  // 1 token / 6.4058 s
    EXPECT_EQ(rate(0.0004), "0.0004");   // 3 significant digits of 0.000400, trimmed
    EXPECT_EQ(rate(0), "0");
}

}  // namespace
