// The streaming splitter of JSON text into complete values (src/ingest/json_elements.cpp), against a
// plain byte-by-byte reference, with strings, escapes and brackets placed across every offset of its
// 64-byte blocks and its refills.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../../src/ingest/json_elements.h"
#include "bwacct/ingest_kineto.h"

namespace {

using bwacct::ingest::JsonElements;

JsonElements over(const std::string& text, std::size_t block) {
    auto at = std::make_shared<std::size_t>(0);
    return JsonElements(
        [&text, at](char* dst, std::size_t n) {
            const std::size_t k = std::min(n, text.size() - *at);
            std::memcpy(dst, text.data() + *at, k);
            *at += k;
            return k;
        },
        block);
}

// The reference: the end of the object or array starting at text[i], one byte at a time.
std::size_t reference_end(const std::string& text, std::size_t i) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return std::string::npos;
}

// The elements of a top-level array, as the splitter hands them out.
std::vector<std::string> split(const std::string& text, std::size_t block) {
    JsonElements in = over(text, block);
    std::vector<std::string> out;
    EXPECT_EQ(in.peek(), '[');
    in.advance();
    for (;;) {
        const std::string_view v = in.value();
        if (v.empty())
            break;
        out.emplace_back(v);
        const int next = in.peek();
        if (next != ',')
            break;
        in.advance();
    }
    return out;
}

// Elements whose strings hold quotes, runs of backslashes (even: the quote after them closes the
// string; odd: it is escaped) and brackets, shifted by 0..70 bytes so that each falls on every
// position of a 64-byte block.
TEST(JsonElements, SplitsLikeTheByteByByteReferenceAtEveryOffset) {
    const std::vector<std::string> tricky = {
        R"({"name": "a \"quoted\" ]} name", "args": {"x": [1, [2, 3]], "y": "\\"}})",
        R"({"k": "\\\\", "v": "\\\"}]", "w": {}})",
        R"([[], {}, "]", "\\", [{"a": "}"}]])",
        R"({"long": "0123456789012345678901234567890123456789012345678901234567890123456789\\\\\\\"x"})",
    };
    for (std::size_t shift = 0; shift <= 70; ++shift) {
        std::string text(shift + 1, ' ');  // "[" then the shift
        text[0] = '[';
        std::vector<std::string> want;
        for (const std::string& e : tricky) {
            if (!want.empty())
                text += ",\n";
            want.push_back(e);
            text += e;
        }
        text += "]";
        // The reference agrees that each element ends where we put its end.
        std::size_t at = text.find_first_not_of(" [");
        for (const std::string& e : tricky) {
            ASSERT_EQ(reference_end(text, at), at + e.size()) << e;
            at = text.find_first_not_of(",\n", at + e.size());
        }
        for (const std::size_t block : {1u, 7u, 64u, 65u, 200u, 1u << 20})
            EXPECT_EQ(split(text, block), want) << "shift " << shift << ", block " << block;
    }
}

TEST(JsonElements, TokensStringsOffsetsAndTheEnd) {
    const std::string text = R"(  {"a": 1} "k\"ey" 12.5e3 true ,)";
    JsonElements in = over(text, 4);
    EXPECT_EQ(in.value(), R"({"a": 1})");
    EXPECT_EQ(in.value_offset(), 2u);
    EXPECT_EQ(in.value(), R"("k\"ey")");
    EXPECT_EQ(in.value(), "12.5e3");
    EXPECT_EQ(in.value(), "true");
    EXPECT_EQ(in.offset(), 30u);  // 2 blanks + 8 ({"a": 1}) + 1 + 7 ("k\"ey") + 1 + 6 (12.5e3) + 1 + 4 (true)
    EXPECT_EQ(in.value(), "");    // `,` starts no value
    EXPECT_EQ(in.peek(), ',');
    in.advance();
    EXPECT_EQ(in.peek(), -1);
    EXPECT_EQ(in.value(), "");
}

TEST(JsonElements, AnUnclosedValueIsEmpty) {
    for (const std::string text : {R"({"a": [1, 2})", R"({"a": "x})", R"("abc)", "[[[", R"({"a": "\"})"}) {
        JsonElements in = over(text, 3);
        EXPECT_EQ(in.value(), "") << text;
        EXPECT_TRUE(in.ended()) << text;  // the input ended inside it
        EXPECT_EQ(in.bytes_read(), text.size()) << text;
    }
    JsonElements closed = over(R"({"a": 1} ,)", 3);
    EXPECT_EQ(closed.value(), R"({"a": 1})");
    EXPECT_FALSE(closed.ended());
    EXPECT_EQ(closed.value(), "");  // `,` starts no value: not the end
    EXPECT_FALSE(closed.ended());
}

// The reader on the same kind of strings: names with escaped quotes, backslashes and brackets are
// read whole wherever they fall in the splitter's blocks.
TEST(JsonElements, TraceNamesWithEscapesAndBracketsAtEveryOffset) {
    for (std::size_t shift = 0; shift <= 70; ++shift) {
        const std::string text = R"({"traceEvents": [)" + std::string(shift, ' ') +
                                 R"({"ph": "X", "cat": "kernel", "name": "k<\"]}\\\\", "ts": 1, "dur": 2},
            {"ph": "X", "cat": "kernel", "name": "[{\\\"}", "ts": 3, "dur": 4}]})";
        const bwacct::kineto::Trace t = bwacct::kineto::parse_kineto(text, "t.json");
        ASSERT_EQ(t.activities.size(), 2u) << shift;
        EXPECT_EQ(t.names[t.activities[0].name], R"(k<"]}\\)") << shift;
        EXPECT_EQ(t.names[t.activities[1].name], R"([{\"})") << shift;
        EXPECT_DOUBLE_EQ(t.activities[1].dur, 4.0);
    }
}

}  // namespace
