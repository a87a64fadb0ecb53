#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

namespace bwacct::cli {

bool progress_wanted() { return ::isatty(STDERR_FILENO) != 0 && std::getenv("BWACCT_NO_PROGRESS") == nullptr; }

Progress::Progress(std::string what, std::uint64_t total, bool enabled, std::FILE* err)
    : what_(std::move(what)), total_(total), enabled_(enabled && total != 1), err_(err) {}

Progress::~Progress() { done(); }

void Progress::step() {
    ++done_;
    if (!enabled_)
        return;
    const auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done_ < total_)
        return;
    last_ = now;
    draw();
}

void Progress::show() {
    if (enabled_)
        draw();
}

void Progress::draw() {
    if (total_ == 0) {
        fmt::print(err_, "\r\x1b[K{} …", what_);
        std::fflush(err_);
        drawn_ = true;
        return;
    }
    fmt::print(err_, "\r\x1b[K{}: {} of {} ({:.0f} %)", what_, done_, total_,
               100.0 * static_cast<double>(done_) / static_cast<double>(total_));
    std::fflush(err_);
    drawn_ = true;
}

void Progress::done() {
    if (drawn_) {
        fmt::print(err_, "\r\x1b[K");
        std::fflush(err_);
        drawn_ = false;
    }
}

}  // namespace bwacct::cli
