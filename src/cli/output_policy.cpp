#include "output_policy.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace bwacct::cli {
namespace {

bool g_stdout_was_closed = false;

bool closed(int fd) { return ::fcntl(fd, F_GETFD) == -1 && errno == EBADF; }

}  // namespace

bool colour_wanted(bool stdout_is_tty, const char* no_color, const char* term, bool under_launcher) {
    if (!stdout_is_tty || under_launcher)
        return false;
    if (no_color != nullptr && *no_color != '\0')
        return false;
    return term != nullptr && *term != '\0' && std::string_view(term) != "dumb";
}

void prepare_standard_streams() {
    std::signal(SIGPIPE, SIG_IGN);
    for (int fd = 0; fd <= 2; ++fd) {
        if (!closed(fd))
            continue;
        if (fd == STDOUT_FILENO)
            g_stdout_was_closed = true;
        // open() returns the lowest free descriptor: fd itself, as the lower ones are open.
        const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got >= 0 && got != fd) {
            ::dup2(got, fd);
            ::close(got);
        }
    }
}

bool standard_output_failed() { return std::ferror(stdout) != 0; }

int finish_standard_output(int code, const std::string& who, int errno_hint) {
    int err = 0;
    errno = 0;
    if (std::fflush(stdout) != 0)
        err = errno != 0 ? errno : EIO;
    if (err == 0 && std::ferror(stdout) != 0)
        err = errno_hint != 0 ? errno_hint : EIO;
    if (err == 0 && g_stdout_was_closed && code == 0)
        err = EBADF;
    if (err == 0)
        return code;
    if (err == EPIPE) {
        // The reader has gone: end as a program that never ignored SIGPIPE would, without a word.
        std::signal(SIGPIPE, SIG_DFL);
        std::raise(SIGPIPE);
        return 141;  // not reached
    }
    fmt::print(stderr, "{}: cannot write the output to standard output: {}{}\n", who, std::strerror(err),
               g_stdout_was_closed ? " (stdout is closed)" : "");
    return code != 0 ? code : 1;
}

}  // namespace bwacct::cli
