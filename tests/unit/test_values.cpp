#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/values.h"

#include <climits>
#include <string>

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

namespace {
std::string message_of(const char* text, ValueKind k) {
    try {
        parse_values(text, "--m", k);
    } catch (const InputError& e) {
        return e.what();
    }
    return "accepted";
}
}  // namespace

// Issue 11 defect 11: a range whose ends are equal is one value, whatever the step.
TEST(Values, OneValueRanges) {
    // old: 1000 + i·1e-10 ≤ 1000·(1 + 1e-12) held for i = 0..10: 11 values past the end
    EXPECT_EQ(v("1000:1000:+1e-10", ValueKind::real), std::vector<double>{1000});
    // old: 1e20 + 1 == 1e20 in a double, so the loop never advanced and hit the 10^7 limit
    EXPECT_EQ(v("1e20:1e20:+1", ValueKind::real), std::vector<double>{1e20});
    EXPECT_EQ(v("1000:1000:x1.000000000001", ValueKind::real), std::vector<double>{1000});
    // (0.3 − 0.1) / 0.1 = 1.9999999999999998: the end is kept (floor(q + 1e-9) = 2), never passed
    const auto tenth = v("0.1:0.3:+0.1", ValueKind::real);
    ASSERT_EQ(tenth.size(), 3u);
    EXPECT_LE(tenth.back(), 0.3);
    // a step below the values' spacing (2^14 = 16384 at 1e20) adds no value twice
    const auto fine = v("1e20:1.0000000000001e20:+1000", ValueKind::real);
    for (std::size_t i = 1; i < fine.size(); ++i)
        EXPECT_LT(fine[i - 1], fine[i]);
    EXPECT_LE(fine.back(), 1.0000000000001e20);
}

// Issue 11 defect 21: size suffixes in steps, thousands separators, the integer kind in messages.
TEST(Values, SizeStepsTakeSuffixes) {
    EXPECT_EQ(v("1K:4K:+1K", ValueKind::size), (std::vector<double>{1024, 2048, 3072, 4096}));
    // (2^30 − 2^10) / 2^20 = 1024 − 1/1024 → 1023 steps, 1024 values: 1 KiB + i MiB, the last 1 KiB + 1023 MiB
    const auto s = v("1K:1G:+1M", ValueKind::size);
    ASSERT_EQ(s.size(), 1024u);
    EXPECT_EQ(s.back(), 1024.0 + 1023.0 * 1048576.0);
}

TEST(Values, MessagesSayWhatIsWrong) {
    EXPECT_NE(message_of("1,000", ValueKind::count).find("thousands separators are not accepted"), std::string::npos);
    EXPECT_NE(message_of("2,048", ValueKind::count).find("thousands separators"), std::string::npos);
    EXPECT_EQ(v("1,0", ValueKind::whole), (std::vector<double>{1, 0}));  // a plain 0 is still a value
    const std::string step = message_of("1:8:+0", ValueKind::count);
    EXPECT_NE(step.find("the step after + must be a positive integer"), std::string::npos) << step;
    EXPECT_EQ(step.find("113.5"), std::string::npos) << step;  // not the real kind's example
    EXPECT_NE(message_of("1K:1G:+1Q", ValueKind::size).find("the step after + must be a positive size"), std::string::npos);
}

// Issue 11 defect 3: an integer option read into a narrower type is range-checked against it.
TEST(Values, IntegerInTheConsumingTypesRange) {
    EXPECT_EQ(parse_int_in<int>("200", "--max-samples", ValueKind::count, 1), 200);
    EXPECT_EQ(parse_int_in<int>("2147483647", "--max-samples", ValueKind::count, 1), INT_MAX);
    // 2^31 = 2147483648 is INT_MAX + 1: refused, naming the range (old: static_cast<int> gave INT_MIN)
    try {
        parse_int_in<int>("2147483648", "--max-samples", ValueKind::count, 1);
        ADD_FAILURE() << "accepted 2^31 as an int";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "--max-samples");
        EXPECT_NE(std::string(e.what()).find("from 1 to 2147483647"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_int_in<std::uint8_t>("256", "--x", ValueKind::whole, 0), InputError);
    EXPECT_THROW(parse_int_in<int>("1,2", "--x", ValueKind::count, 1), InputError);  // one value only
}
