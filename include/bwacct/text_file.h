// Reading a user's input file, with the one-line errors every command gives (exit 2). Every file a
// user names goes through here: `bwacct ingest nccl-tests|nsys|ncu|babelstream`, `fit`, --gpu-file,
// BWACCT_CATALOG and model preset files (as text), and `ingest torch-trace` (as a byte stream).
//
// - "-" is standard input; pipes (`<(cmd)`, /dev/stdin) are read like files (nothing seeks).
// - A text input is read in 64 KiB chunks and refused as soon as it passes kMaxTextBytes (256 MiB)
//   or kMaxTextLines (16 Mi lines), or a chunk is binary data: /dev/zero or /dev/urandom stop on
//   their first chunk, an endless text stream after 256 MiB.
// - A UTF-8 byte-order mark is dropped; a UTF-16 file is refused with the command that converts it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bwacct {

// The bound on a text input: far above any real log or export (nccl-tests logs and nsys/ncu CSVs
// are kilobytes to a few tens of megabytes).
constexpr std::uint64_t kMaxTextBytes = 256ull << 20;  // 256 MiB
constexpr std::uint64_t kMaxTextLines = 1ull << 24;    // 16,777,216 lines

// Reads `path` ("-": standard input) as text. Throws InputError naming `who` (the option, or the path
// itself when who is empty) when the path does not exist, is a directory, cannot be opened or read,
// is empty (blank), is binary data or UTF-16, or exceeds kMaxTextBytes / kMaxTextLines; `expected`
// completes the message: "expected an nccl-tests log". A leading UTF-8 BOM is removed. `max_bytes`
// is for tests.
std::string read_input_file(const std::string& path, const std::string& who, const std::string& expected,
                            std::uint64_t max_bytes = kMaxTextBytes);

// Opens `path` for reading ("-": standard input, returned as fd 0, not to be closed) with the same
// errors as read_input_file (no such file, a directory, permissions). Returns a file descriptor.
int open_input(const std::string& path, const std::string& who, const std::string& expected);

// Closes a descriptor from open_input at scope end, unless it is standard input (path "-").
class InputFdCloser {
public:
    InputFdCloser(int fd, bool owned) : fd_(fd), owned_(owned) {}
    ~InputFdCloser();
    InputFdCloser(const InputFdCloser&) = delete;
    InputFdCloser& operator=(const InputFdCloser&) = delete;

private:
    int fd_;
    bool owned_;
};

// True when `size` bytes at `data` are binary rather than text: a NUL byte in the first 4 KiB
// when `first` (the start of the file), or more than 10 % control characters (other than tab, LF,
// CR, FF) in the whole block.
bool looks_binary(const char* data, std::size_t size, bool first = true);

// True when the first 4 KiB of `text` hold a NUL byte or are not mostly printable text: a binary
// file given where text was expected.
bool looks_binary(const std::string& text);

// `text` as valid UTF-8: each byte that does not start or continue a well-formed UTF-8 sequence (a Latin-1
// copy of a log, a name cut inside a character) becomes U+FFFD. `repaired` counts the bytes replaced. Readers
// that warn about it call it on names; the JSON output (report/json_text.h, JsonWriter) applies it to every string.
std::string valid_utf8(std::string_view text, std::size_t& repaired);

// At most `max` bytes of `s`, cut before a UTF-8 character's continuation bytes (never inside a character).
std::string utf8_prefix(std::string_view s, std::size_t max);

}  // namespace bwacct
