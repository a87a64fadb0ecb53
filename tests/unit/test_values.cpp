#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/values.h"

using namespace bwacct;

namespace {
std::vector<double> v(const char* text, ValueKind k = ValueKind::count) { return parse_values(text, "--m", k); }
}  // namespace

TEST(Values, SingleListAndRanges) {
    EXPECT_EQ(v("2160"), std::vector<double>{2160});
    EXPECT_EQ(v("1,2,3"), (std::vector<double>{1, 2, 3}));
    EXPECT_EQ(v("1024:16384:x2"), (std::vector<double>{1024, 2048, 4096, 8192, 16384}));
    EXPECT_EQ(v("10:40:+10"), (std::vector<double>{10, 20, 30, 40}));
    EXPECT_EQ(v("7e3"), std::vector<double>{7000});
    // x1.5 on integers rounds and drops duplicates: 1, 1.5→2, 2.25→2 (dup), 3.375→3, 5.06→5, 7.59→8
    EXPECT_EQ(v("1:8:x1.5"), (std::vector<double>{1, 2, 3, 5, 8}));
}

TEST(Values, SizesUsePowersOf1024) {
    EXPECT_EQ(v("64K", ValueKind::size), std::vector<double>{65536});
    EXPECT_EQ(v("8G", ValueKind::size), std::vector<double>{8589934592.0});
    // 8 B … 8 GiB by x2: 2^3 … 2^33 = 31 values
    EXPECT_EQ(v("8:8G:x2", ValueKind::size).size(), 31u);
    EXPECT_THROW(v("8Q", ValueKind::size), InputError);
}

TEST(Values, Reals) {
    EXPECT_EQ(v("113.5", ValueKind::real), std::vector<double>{113.5});
    EXPECT_EQ(v("0.5:1.5:+0.5", ValueKind::real), (std::vector<double>{0.5, 1.0, 1.5}));
    EXPECT_THROW(v("nan", ValueKind::real), InputError);
    EXPECT_THROW(v("inf", ValueKind::real), InputError);
}

TEST(Values, BadInputNamesTheOption) {
    for (const char* bad : {"0", "-5", "abc", "1:0:x2", "1:8:x1", "1:8", "1.5", "", "1,,2", "1:8:*2", "0:8:x2", "+5", "1e400"}) {
        try {
            v(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const InputError& e) {
            EXPECT_EQ(e.option(), "--m") << bad;
        }
    }
    EXPECT_EQ(v("0", ValueKind::whole), std::vector<double>{0});
    EXPECT_THROW(v("-1", ValueKind::whole), InputError);
}

TEST(Values, RefusesHugeSweepsAndInexactIntegers) {
    EXPECT_THROW(v("1:100000000:+1"), InputError);    // more than 10^7 values
    EXPECT_THROW(v("9007199254740993"), InputError);  // above 2^53: not exact in a double
    // Fuzzer finding: a factor this close to 1 rounds to the same integer for ~4·10^11 steps; it is
    // refused (more than 10^7 steps) instead of running for hours.
    EXPECT_THROW(v("1:1e15:x1.000000000001"), InputError);
    EXPECT_THROW(v("0x10"), InputError);  // strtod would read hexadecimal: decimal only
}

TEST(Values, Shapes) {
    EXPECT_EQ(parse_shape("32,2048,4096", "--shape"), (std::vector<std::uint64_t>{32, 2048, 4096}));
    EXPECT_THROW(parse_shape("32,0,4", "--shape"), InputError);
    EXPECT_THROW(parse_shape("1:4:x2", "--shape"), InputError);
}
