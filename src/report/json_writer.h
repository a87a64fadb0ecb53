// A small streaming JSON writer (compact output) for the hot path of sweeps: records are written
// straight into a buffer, without building a DOM. Pretty output re-indents this text.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/finite_guard.h"
#include "bwacct/text_file.h"

namespace bwacct::detail {

class JsonWriter {
public:
    JsonWriter& begin_object() { return open('{'); }
    JsonWriter& end_object() { return close('}'); }
    JsonWriter& begin_array() { return open('['); }
    JsonWriter& end_array() { return close(']'); }

    JsonWriter& key(std::string_view k) {
        key_.assign(k.data(), k.size());
        separate();
        string(k);
        out_.push_back(':');
        after_key_ = true;
        return *this;
    }
    JsonWriter& value(std::uint64_t v) {
        fmt::format_to(fmt::appender(scratch()), "{}", v);
        return *this;
    }
    JsonWriter& value(double v) {
        // A NaN or infinity never reaches output: it came from inputs out of range (exit 2).
        require_finite(v, key_);
        fmt::format_to(fmt::appender(scratch()), "{}", v);
        return *this;
    }
    JsonWriter& value(bool v) { return raw_text(v ? "true" : "false"); }
    JsonWriter& value(std::string_view s) {
        separate();
        string(s);
        return *this;
    }
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    JsonWriter& null() { return raw_text("null"); }

    template <typename T>
    JsonWriter& field(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }

    std::string_view text() const { return {out_.data(), out_.size()}; }

private:
    JsonWriter& open(char c) {
        separate();
        out_.push_back(c);
        first_.push_back(true);
        return *this;
    }
    JsonWriter& close(char c) {
        first_.pop_back();
        out_.push_back(c);
        return *this;
    }
    // A comma before every element but the first of its container; none right after a key.
    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (!first_.empty()) {
            if (!first_.back())
                out_.push_back(',');
            first_.back() = false;
        }
    }
    fmt::memory_buffer& scratch() {
        separate();
        return out_;
    }
    JsonWriter& raw_text(std::string_view s) {
        separate();
        put(s);
        return *this;
    }
    void put(std::string_view s) { out_.append(s.data(), s.data() + s.size()); }
    static bool plain(std::string_view s) {
        for (char c : s)
            if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x80)
                return false;
        return true;
    }
    void string(std::string_view s) {
        out_.push_back('"');
        if (plain(s)) {  // the common case: nothing to escape
            put(s);
            out_.push_back('"');
            return;
        }
        // Bytes that are not UTF-8 (a name from a file in another encoding) are written as U+FFFD: the output
        // stays valid JSON.
        std::string repaired_text;
        if (std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
            std::size_t repaired = 0;
            repaired_text = valid_utf8(s, repaired);
            s = repaired_text;
        }
        for (char c : s) {
            switch (c) {
                case '"':
                    put("\\\"");
                    break;
                case '\\':
                    put("\\\\");
                    break;
                case '\n':
                    put("\\n");
                    break;
                case '\t':
                    put("\\t");
                    break;
                case '\r':
                    put("\\r");
                    break;
                default:
                    if (static_cast<unsigned char>(c) < 0x20)
                        fmt::format_to(fmt::appender(out_), "\\u{:04x}", static_cast<unsigned>(c));
                    else
                        out_.push_back(c);
            }
        }
        out_.push_back('"');
    }

    fmt::memory_buffer out_;
    std::vector<bool> first_;
    bool after_key_ = false;
    std::string key_;  // the last key, named when its number is not finite
};

}  // namespace bwacct::detail
