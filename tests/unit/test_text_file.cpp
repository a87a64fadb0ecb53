// The one reader of text inputs (src/hw/text_file.cpp): bounds, binary data, "-" and pipes, BOM.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "bwacct/error.h"
#include "bwacct/text_file.h"

namespace {

using bwacct::read_input_file;

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const bwacct::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

std::string temp_file(const std::string& name, const std::string& text) {
    const std::string path = (std::filesystem::temp_directory_path() / ("bwacct_text_" + name)).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// A pipe from `command`, read through /dev/fd/N (what `<(command)` gives a program).
struct Pipe {
    explicit Pipe(const std::string& command) : p(::popen(command.c_str(), "r")) {}
    ~Pipe() {
        if (p != nullptr)
            ::pclose(p);
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    std::string path() const { return "/dev/fd/" + std::to_string(::fileno(p)); }
    FILE* p;
};

TEST(TextFile, BomIsDroppedCrlfKept) {
    const std::string p = temp_file("bom.csv", "\xEF\xBB\xBFx,y\r\n1,2\r\n");
    EXPECT_EQ(read_input_file(p, "", "expected CSV"), "x,y\r\n1,2\r\n");
    std::filesystem::remove(p);
}

// Defect 2: an endless stream is cut at the bound (here 1 MiB for speed; kMaxTextBytes = 256 MiB in use),
// whether it comes from a pipe (counted as read) or a regular file (its size, before reading).
TEST(TextFile, ByteAndLineBounds) {
    EXPECT_EQ(bwacct::kMaxTextBytes, 268435456u);  // 256 x 2^20
    EXPECT_EQ(bwacct::kMaxTextLines, 16777216u);   // 2^24
    {
        const Pipe yes("yes 0123456789012345678901234567890123456789");
        EXPECT_NE(error_of([&] {
                      read_input_file(yes.path(), "", "expected a log", 1u << 20);
                  }).find("is larger than 1 MiB, the limit for a text input"),
                  std::string::npos);
    }
    const std::string big = temp_file("big.txt", std::string(3000, 'x'));
    EXPECT_NE(error_of([&] {
                  read_input_file(big, "--gpu-file", "expected JSON", 2048);
              }).find("--gpu-file: '" + big + "' is larger than 2048 bytes"),
              std::string::npos);
    std::filesystem::remove(big);
    const Pipe lines("yes");  // 2-byte lines: 2^24 lines come at 32 MiB, under the byte bound
    EXPECT_NE(error_of([&] { read_input_file(lines.path(), "", "expected a log"); }).find("more than 16777216 lines"),
              std::string::npos);
}

// Binary data stops on the first 64 KiB chunk, at its offset; text followed by zeros at the chunk
// where the zeros start (a file pasted together with a core dump). A stray NUL later is tolerated.
TEST(TextFile, BinaryDataIsRefusedAtOnce) {
    EXPECT_NE(error_of([] {
                  read_input_file("/dev/zero", "", "expected nccl-tests output");
              }).find("/dev/zero: is binary data, not text (at byte 0); expected nccl-tests output"),
              std::string::npos);
    EXPECT_NE(error_of([] { read_input_file("/dev/urandom", "", "x"); }).find("binary data"), std::string::npos);
    {
        const Pipe p("(yes '# a line of text' | head -c 70000; head -c 200000 /dev/zero)");
        EXPECT_NE(error_of([&] { read_input_file(p.path(), "", "x"); }).find("(at byte 65536)"), std::string::npos);
    }
    std::string stray(100000, 'a');
    stray[70000] = '\0';
    const std::string f = temp_file("stray.txt", stray);
    EXPECT_EQ(read_input_file(f, "", "x").size(), 100000u);
    std::filesystem::remove(f);
    const std::string u16 = temp_file("u16.txt", std::string("\xFF\xFE#\0 \0", 6));
    EXPECT_NE(error_of([&] { read_input_file(u16, "", "x"); }).find("UTF-16"), std::string::npos);
    std::filesystem::remove(u16);
}

TEST(TextFile, DashIsStandardInput) {
    const std::string p = temp_file("stdin.txt", "hello\n");
    FILE* saved = std::freopen(p.c_str(), "r", stdin);
    ASSERT_NE(saved, nullptr);
    EXPECT_EQ(read_input_file("-", "", "x"), "hello\n");
    // Standard input is now at its end: named as such.
    EXPECT_NE(
        error_of([] { read_input_file("-", "--gpu-file", "expected JSON"); }).find("--gpu-file: 'standard input (-)' is empty"),
        std::string::npos);
    std::filesystem::remove(p);
}

}  // namespace
