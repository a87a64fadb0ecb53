// Reading a user's input file whole, with the one-line errors every command gives (exit 2).
#pragma once
#include <string>

namespace bwacct {

// Reads `path`. Throws InputError naming `who` (the option, or the path itself when who is empty)
// when the path does not exist, is a directory, cannot be opened or read, or is empty (blank);
// `expected` completes the message: "expected an nccl-tests log".
std::string read_input_file(const std::string& path, const std::string& who, const std::string& expected);

// True when the first 4 KiB of `text` hold a NUL byte or are not mostly printable text: a binary
// file given where text was expected.
bool looks_binary(const std::string& text);

}  // namespace bwacct
