// read_kineto: a trace file or pipe ("-": standard input), plain JSON or gzip (told apart by the gzip
// magic bytes 1f 8b, so nothing seeks and a pipe works), streamed into the SAX reader: the file is
// never held whole in memory. The decompressed stream is bounded by kMaxTraceBytes.
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <streambuf>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/text_file.h"

namespace bwacct::kineto {
namespace {

constexpr const char* kExpected = "expected a PyTorch profiler (Kineto) Chrome trace (.json or .json.gz)";

// Thrown from inside the stream (the SAX parser lets them through): the JSON passes kMaxTraceBytes;
// the first block is binary data (/dev/urandom, an executable), not text.
struct TooLarge {};
struct Binary {};

// A read-only streambuf over a file descriptor: raw bytes, or gzip members inflated one after the
// other (concatenated members, as gzip and zlib write them, are one stream). Remembers an I/O or
// zlib error (truncated or corrupt data).
class TraceStreamBuf : public std::streambuf {
public:
    TraceStreamBuf(int fd, std::uint64_t max_bytes) : fd_(fd), max_bytes_(max_bytes), in_(1 << 18), out_(1 << 18) {
        // The first bytes decide gzip or plain: read until 2 bytes or the end.
        while (have_ < 2 && fill())
            ;
        gzip_ = have_ >= 2 && static_cast<unsigned char>(in_[0]) == 0x1f && static_cast<unsigned char>(in_[1]) == 0x8b;
        if (gzip_) {
            zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
            zs_.avail_in = static_cast<uInt>(have_);
            if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK)
                error = "zlib initialisation failed";
            zinit_ = error.empty();
        }
    }
    ~TraceStreamBuf() override {
        if (zinit_)
            inflateEnd(&zs_);
    }
    TraceStreamBuf(const TraceStreamBuf&) = delete;
    TraceStreamBuf& operator=(const TraceStreamBuf&) = delete;

    std::string error;        // I/O or zlib error
    std::uint64_t bytes = 0;  // JSON bytes delivered (decompressed)
    std::uint64_t raw = 0;    // bytes read from the file
    bool gzip() const { return gzip_; }

protected:
    int_type underflow() override {
        if (gptr() < egptr())
            return traits_type::to_int_type(*gptr());
        if (!error.empty())
            return traits_type::eof();
        const std::size_t n = gzip_ ? inflate_some(out_.data(), out_.size()) : plain_some();
        if (n == 0)
            return traits_type::eof();
        char* base = gzip_ ? out_.data() : in_.data();
        delivered(base, n);
        setg(base, base, base + n);
        return traits_type::to_int_type(*gptr());
    }
    // Bulk reads (the trace reader asks for 1 MiB at a time): what the get area holds, then bytes read
    // or inflated straight into the caller's buffer, without the copy through this buffer.
    std::streamsize xsgetn(char* dst, std::streamsize n) override {
        std::streamsize done = 0;
        while (done < n) {
            if (gptr() < egptr()) {
                const std::streamsize k = std::min<std::streamsize>(n - done, egptr() - gptr());
                std::memcpy(dst + done, gptr(), static_cast<std::size_t>(k));
                gbump(static_cast<int>(k));
                done += k;
                continue;
            }
            if (!error.empty())
                break;
            if (!gzip_ && first_) {  // the bytes read to look for the magic number: through the get area
                if (traits_type::eq_int_type(underflow(), traits_type::eof()))
                    break;
                continue;
            }
            char* at = dst + done;
            const auto want = static_cast<std::size_t>(n - done);
            const std::size_t got = gzip_ ? inflate_some(at, want) : plain_into(at, want);
            if (got == 0)
                break;
            delivered(at, got);
            done += static_cast<std::streamsize>(got);
        }
        return done;
    }

private:
    // Appends what one read() gives to in_[have_..]; false at the end or on an error.
    bool fill() {
        for (;;) {
            const ssize_t got = ::read(fd_, in_.data() + have_, in_.size() - have_);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                error = std::strerror(errno);
                return false;
            }
            raw += static_cast<std::uint64_t>(got);
            have_ += static_cast<std::size_t>(got);
            return got > 0;
        }
    }
    std::size_t plain_some() {
        if (first_) {  // the bytes read to look for the magic number
            first_ = false;
            if (have_ > 0)
                return have_;
        }
        have_ = 0;
        return fill() ? have_ : 0;
    }
    // The first block decides binary data; the total is bounded.
    void delivered(const char* data, std::size_t n) {
        if (bytes == 0 && looks_binary(data, std::min<std::size_t>(n, 4096), true))
            throw Binary{};
        bytes += n;
        if (bytes > max_bytes_)
            throw TooLarge{};
    }
    // Plain bytes straight into `dst` (after the first block); 0 at the end or on an error.
    std::size_t plain_into(char* dst, std::size_t n) {
        for (;;) {
            const ssize_t got = ::read(fd_, dst, n);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0) {
                error = std::strerror(errno);
                return 0;
            }
            raw += static_cast<std::uint64_t>(got);
            return static_cast<std::size_t>(got);
        }
    }
    std::size_t inflate_some(char* out, std::size_t cap) {
        for (;;) {
            if (zs_.avail_in == 0) {
                if (ended_ && eof_)
                    return 0;
                have_ = 0;
                if (!fill()) {
                    eof_ = true;
                    if (!ended_ && error.empty())
                        error = "unexpected end of file";
                    return 0;
                }
                zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
                zs_.avail_in = static_cast<uInt>(have_);
            }
            if (ended_) {  // another gzip member after the end of one
                if (inflateReset(&zs_) != Z_OK) {
                    error = "zlib reset failed";
                    return 0;
                }
                ended_ = false;
            }
            const std::size_t room = std::min<std::size_t>(cap, 1u << 30);
            zs_.next_out = reinterpret_cast<Bytef*>(out);
            zs_.avail_out = static_cast<uInt>(room);
            const int rc = inflate(&zs_, Z_NO_FLUSH);
            const std::size_t n = room - zs_.avail_out;
            if (rc == Z_STREAM_END)
                ended_ = true;
            else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                error = zs_.msg != nullptr ? zs_.msg : "corrupt data";
                return n;
            }
            if (n > 0)
                return n;
        }
    }

    int fd_;
    std::uint64_t max_bytes_;
    std::vector<char> in_, out_;
    std::size_t have_ = 0;
    bool gzip_ = false, zinit_ = false, first_ = true, ended_ = false, eof_ = false;
    z_stream zs_{};
};

}  // namespace

Trace read_kineto(const std::string& path, std::uint64_t max_bytes) {
    const int fd = open_input(path, "", kExpected);
    const InputFdCloser closer(fd, path != "-");
    // A plain file that can be read again from its start is read twice (ReadPasses::two: only the CPU ops
    // that launch work are kept); a pipe, standard input or a gzip file once (inflating twice took 1.7
    // times the CPU of one read: docs/ingest.md, "Performance").
    const bool seekable = path != "-" && lseek(fd, 0, SEEK_CUR) == 0;
    std::optional<TraceStreamBuf> buf;
    std::optional<std::istream> in;
    bool first = true;
    const auto corrupt = [&] {
        return InputError(path,
                          fmt::format("{} ({}) after {} bytes: {}", buf->gzip() ? "truncated or corrupt gzip data" : "read error",
                                      buf->error, buf->gzip() ? buf->bytes : buf->raw, kExpected));
    };
    const auto open = [&]() -> std::istream& {
        if (first) {  // made below, before the read
            first = false;
            return *in;
        }
        if (!buf->error.empty())  // the first read's I/O or zlib error
            throw corrupt();
        if (lseek(fd, 0, SEEK_SET) != 0)
            throw InputError(path,
                             fmt::format("could not be read again from its start ({}): {}", std::strerror(errno), kExpected));
        in.reset();
        buf.emplace(fd, max_bytes);
        in.emplace(&*buf);
        return *in;
    };
    try {
        buf.emplace(fd, max_bytes);
        in.emplace(&*buf);
        Trace t = parse_kineto_streams(open, path, seekable && !buf->gzip() ? ReadPasses::two : ReadPasses::one);
        if (!buf->error.empty())
            throw corrupt();
        return t;
    } catch (const Binary&) {
        throw InputError(path,
                         fmt::format("binary data, not JSON{}: {}", buf->gzip() ? " (after gzip decompression)" : "", kExpected));
    } catch (const TooLarge&) {
        throw InputError(
            path,
            fmt::format("{} more than {} of JSON, the limit for a trace: {}", buf->gzip() ? "decompresses to" : "holds",
                        max_bytes % (1u << 30) == 0 ? fmt::format("{} GiB", max_bytes >> 30) : fmt::format("{} bytes", max_bytes),
                        kExpected));
    } catch (const InputError&) {
        if (buf && !buf->error.empty())
            throw corrupt();
        if (buf && buf->bytes == 0)
            throw InputError(path, fmt::format("is empty: {}", kExpected));
        throw;
    }
}

}  // namespace bwacct::kineto
