#include "bwacct/text_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bwacct/error.h"

namespace bwacct {
namespace {

constexpr std::size_t kChunk = 64 * 1024;

struct Naming {
    std::string name, quoted;  // the error's subject, and the path quoted when the subject is an option
};

Naming naming(const std::string& path, const std::string& who) {
    const std::string shown = path == "-" ? std::string("standard input (-)") : path;
    if (who.empty())
        return {path == "-" ? std::string("-") : path, path == "-" ? std::string("standard input ") : std::string()};
    return {who, fmt::format("'{}' ", shown)};
}

}  // namespace

InputFdCloser::~InputFdCloser() {
    if (owned_ && fd_ >= 0)
        ::close(fd_);
}

int open_input(const std::string& path, const std::string& who, const std::string& expected) {
    const Naming n = naming(path, who);
    if (path.empty())
        throw InputError(n.name, fmt::format("no file named; {}", expected));
    int fd = 0;
    if (path != "-") {
        do
            fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        if (fd < 0) {
            const int e = errno;
            if (e == ENOENT || e == ENOTDIR)
                throw InputError(n.name, fmt::format("{}no such file; {}", n.quoted, expected));
            if (e == EACCES || e == EPERM)
                throw InputError(n.name, fmt::format("{}cannot be opened (permissions?); {}", n.quoted, expected));
            throw InputError(n.name, fmt::format("{}cannot be opened ({}); {}", n.quoted, std::strerror(e), expected));
        }
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (fd != 0)
            ::close(fd);
        throw InputError(n.name, fmt::format("{}is a directory; {}", n.quoted, expected));
    }
    return fd;
}

bool looks_binary(const char* data, std::size_t size, bool first) {
    std::size_t odd = 0;
    for (std::size_t i = 0; i < size; ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if (c == 0 && first && i < 4096)
            return true;
        // Control characters other than tab, LF, CR, FF and ESC (ANSI colours in a captured log).
        if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b) || c == 0x7f)
            ++odd;
    }
    return size > 0 && odd * 10 > size;  // more than 10 % control characters
}

bool looks_binary(const std::string& text) { return looks_binary(text.data(), std::min<std::size_t>(text.size(), 4096), true); }

std::string read_input_file(const std::string& path, const std::string& who, const std::string& expected,
                            std::uint64_t max_bytes) {
    const Naming n = naming(path, who);
    const int fd = open_input(path, who, expected);
    const InputFdCloser closer(fd, path != "-");
    const auto too_large = [&] {
        return InputError(n.name, fmt::format("{}is larger than {}, the limit for a text input (real logs are far "
                                              "smaller); {}",
                                              n.quoted,
                                              max_bytes % (1u << 20) == 0 ? fmt::format("{} MiB", max_bytes >> 20)
                                                                          : fmt::format("{} bytes", max_bytes),
                                              expected));
    };
    std::string text;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if (static_cast<std::uint64_t>(st.st_size) > max_bytes)  // a regular file: refused before reading
            throw too_large();
        text.reserve(static_cast<std::size_t>(st.st_size));
    }
    std::size_t checked = 0;  // bytes already checked for binary data, in whole chunks
    std::uint64_t lines = 0;
    const auto check = [&](std::size_t upto) {
        while (checked < upto) {
            const std::size_t len = std::min(kChunk, upto - checked);
            const char* block = text.data() + checked;
            if (checked == 0 && len >= 2 &&
                ((block[0] == '\xFF' && block[1] == '\xFE') || (block[0] == '\xFE' && block[1] == '\xFF')))
                throw InputError(n.name, fmt::format("{}is UTF-16 text; convert it to UTF-8 (iconv -f UTF-16 -t UTF-8 FILE) "
                                                     "and give that; {}",
                                                     n.quoted, expected));
            if (looks_binary(block, len, checked == 0))
                throw InputError(n.name, fmt::format("{}is binary data, not text (at byte {}); {}", n.quoted, checked, expected));
            lines += static_cast<std::uint64_t>(std::count(block, block + len, '\n'));
            if (lines > kMaxTextLines)
                throw InputError(n.name, fmt::format("{}has more than {} lines, the limit for a text input; {}", n.quoted,
                                                     kMaxTextLines, expected));
            checked += len;
        }
    };
    char buf[kChunk];
    for (;;) {
        const ssize_t got = ::read(fd, buf, sizeof buf);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            throw InputError(n.name, fmt::format("{}cannot be read ({}); {}", n.quoted, std::strerror(errno), expected));
        }
        if (got == 0)
            break;
        if (text.size() + static_cast<std::size_t>(got) > max_bytes)  // a pipe or a growing file
            throw too_large();
        text.append(buf, static_cast<std::size_t>(got));
        check(text.size() - text.size() % kChunk);  // whole chunks as they arrive: a binary stream stops at once
    }
    check(text.size());
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        text.erase(0, 3);
    if (std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }))
        throw InputError(n.name, fmt::format("{}is empty; {}", n.quoted, expected));
    return text;
}

std::string utf8_prefix(std::string_view s, std::size_t max) {
    if (s.size() <= max)
        return std::string(s);
    std::size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80)
        --n;
    return std::string(s.substr(0, n));
}

std::string valid_utf8(std::string_view text, std::size_t& repaired) {
    std::string out;
    out.reserve(text.size());
    const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
    for (std::size_t i = 0; i < text.size();) {
        const unsigned c = byte(i);
        // The length of the sequence starting at i and the range its second byte must lie in (RFC 3629).
        std::size_t n = 0;
        unsigned lo = 0x80, hi = 0xBF;
        if (c < 0x80)
            n = 1;
        else if (c >= 0xC2 && c <= 0xDF)
            n = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        }
        bool ok = n > 0 && i + n <= text.size();
        for (std::size_t k = 1; ok && k < n; ++k) {
            const unsigned b = byte(i + k);
            ok = k == 1 ? b >= lo && b <= hi : b >= 0x80 && b <= 0xBF;
        }
        if (ok) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
            ++repaired;
            ++i;
        }
    }
    return out;
}

}  // namespace bwacct
