// read_kineto: a trace file, plain JSON or gzip, streamed through zlib (gzread reads plain files
// as they are) into the SAX reader: the file is never held whole in memory.
#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>

#include <streambuf>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {
namespace {

constexpr const char* kExpected = "expected a PyTorch profiler (Kineto) Chrome trace (.json or .json.gz)";

// A read-only streambuf over a gzFile; remembers a zlib error (truncated or corrupt data).
class GzStreamBuf : public std::streambuf {
public:
    GzStreamBuf(gzFile f, std::string path) : f_(f), path_(std::move(path)), buf_(1 << 18) {}
    std::string error;
    std::uint64_t bytes = 0;

protected:
    int_type underflow() override {
        if (gptr() < egptr())
            return traits_type::to_int_type(*gptr());
        if (!error.empty())
            return traits_type::eof();
        const int n = gzread(f_, buf_.data(), static_cast<unsigned>(buf_.size()));
        int code = Z_OK;
        const char* msg = gzerror(f_, &code);
        if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
            error = msg != nullptr && *msg != '\0' ? msg : "read error";
            if (error.rfind(path_ + ": ", 0) == 0)  // zlib prefixes the path
                error.erase(0, path_.size() + 2);
            if (n <= 0)
                return traits_type::eof();
        }
        if (n <= 0)
            return traits_type::eof();
        bytes += static_cast<std::uint64_t>(n);
        setg(buf_.data(), buf_.data(), buf_.data() + n);
        return traits_type::to_int_type(*gptr());
    }

private:
    gzFile f_;
    std::string path_;
    std::vector<char> buf_;
};

struct GzCloser {
    gzFile f;
    ~GzCloser() {
        if (f != nullptr)
            gzclose(f);
    }
};

}  // namespace

Trace read_kineto(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
        throw InputError(path, fmt::format("no such file: {}", kExpected));
    if (S_ISDIR(st.st_mode))
        throw InputError(path, fmt::format("is a directory: {}", kExpected));
    if (st.st_size == 0)
        throw InputError(path, fmt::format("is empty: {}", kExpected));
    GzCloser file{gzopen(path.c_str(), "rb")};
    if (file.f == nullptr)
        throw InputError(path, fmt::format("cannot be opened: {}", kExpected));
    gzbuffer(file.f, 1 << 18);
    GzStreamBuf buf(file.f, path);
    std::istream in(&buf);
    try {
        Trace t = parse_kineto_stream(in, path);
        if (!buf.error.empty())
            throw InputError(path, fmt::format("truncated or corrupt gzip data ({}): {}", buf.error, kExpected));
        return t;
    } catch (const InputError&) {
        if (!buf.error.empty())
            throw InputError(
                path, fmt::format("truncated or corrupt gzip data ({}) after {} bytes: {}", buf.error, buf.bytes, kExpected));
        if (buf.bytes == 0)
            throw InputError(path, fmt::format("is empty: {}", kExpected));
        throw;
    }
}

}  // namespace bwacct::kineto
