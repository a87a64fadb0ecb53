#include "bwacct/text_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bwacct/error.h"

namespace bwacct {

std::string read_input_file(const std::string& path, const std::string& who, const std::string& expected) {
    namespace fs = std::filesystem;
    const std::string name = who.empty() ? path : who;
    const std::string quoted = who.empty() ? std::string() : fmt::format("'{}' ", path);
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw InputError(name, fmt::format("{}no such file; {}", quoted, expected));
    if (fs::is_directory(path, ec))
        throw InputError(name, fmt::format("{}is a directory; {}", quoted, expected));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(name, fmt::format("{}cannot be opened (permissions?); {}", quoted, expected));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad())
        throw InputError(name, fmt::format("{}cannot be read; {}", quoted, expected));
    std::string text = ss.str();
    if (std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }))
        throw InputError(name, fmt::format("{}is empty; {}", quoted, expected));
    return text;
}

bool looks_binary(const std::string& text) {
    const std::size_t n = std::min<std::size_t>(text.size(), 4096);
    std::size_t odd = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0)
            return true;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f')
            ++odd;
    }
    return n > 0 && odd * 10 > n;  // more than 10 % control characters
}

}  // namespace bwacct
