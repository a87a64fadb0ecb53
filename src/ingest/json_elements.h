// A bounded, streaming splitter of JSON text into complete values, for readers that parse one value
// at a time (the Kineto reader: each element of "traceEvents" parsed alone by simdjson). It reads the
// input in blocks into one buffer and hands out each value as a view of that buffer, so memory is one
// block plus the largest single value, whatever the size of the input.
//
// The splitter knows strings (with their escapes) and nesting, nothing more: it finds where a value
// ends, it does not check it. The caller parses (and so validates) every value it is handed.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace bwacct::ingest {

class JsonElements {
public:
    // Fills `dst` with up to `n` bytes; 0 at the end of the input. May throw (the caller's exceptions
    // pass through).
    using Read = std::function<std::size_t(char* dst, std::size_t n)>;
    // Bytes readable after the end of every view value() returns (simdjson's SIMDJSON_PADDING).
    static constexpr std::size_t kPadding = 64;

    explicit JsonElements(Read read, std::size_t block = std::size_t{1} << 20);

    // Skips whitespace; the next byte (not consumed), or -1 at the end of the input.
    int peek();
    // Consumes the byte peek() returned.
    void advance() { ++pos_; }
    // The complete value starting at the next byte after whitespace: an object or array up to its
    // matching bracket, a string up to its closing quote, any other token up to the next `,` `]` `}`
    // `:` or whitespace. Empty at the end of the input, when the next byte ends no value (`,` `]` `}`
    // `:`), or when the input ends inside an object, array or string. The view stays valid until the next call; kPadding bytes
    // after it are readable.
    std::string_view value();
    // Offset in the input of the next byte (of the value value() returned last, right after it).
    std::uint64_t offset() const { return base_ + pos_; }
    // Offset of the first byte of the value value() returned last.
    std::uint64_t value_offset() const { return value_offset_; }
    // Up to `n` bytes at the next byte, for error messages.
    std::string_view ahead(std::size_t n);
    // True once value() returned empty because the input ended inside an object, array or string, or
    // peek() found the input's end: a file cut short, for error messages.
    bool ended() const { return ended_; }
    // Bytes of input read so far (all of it once ended()).
    std::uint64_t bytes_read() const { return base_ + end_; }

private:
    // Moves [keep, end_) to the front of the buffer (doubling it when that span fills it) and reads
    // more after it; false when nothing more came. `keep` and `cur` (indices into the buffer) follow
    // the bytes they point at.
    bool refill(std::size_t& keep, std::size_t& cur);

    Read read_;
    std::vector<char> buf_;   // capacity + kPadding bytes
    std::size_t cap_;         // bytes of buf_ that hold input
    std::size_t pos_ = 0;     // next byte
    std::size_t end_ = 0;     // end of the input read so far
    std::uint64_t base_ = 0;  // input offset of buf_[0]
    std::uint64_t value_offset_ = 0;
    bool eof_ = false;
    bool ended_ = false;
};

}  // namespace bwacct::ingest
