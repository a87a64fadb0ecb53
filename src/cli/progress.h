// A one-line progress indicator for long work (measured sweeps, calibration), on stderr and only
// when stderr is a terminal: never in pipes, files or CI logs. Redrawn at most every 100 ms; the line
// is erased when the work ends.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace bwacct::cli {

class Progress {
public:
    // `enabled`: normally progress_wanted(); `what`: "measuring gemm". total 0: work of unknown
    // length, shown as `what` alone until done() (calibrate).
    Progress(std::string what, std::uint64_t total, bool enabled, std::FILE* err = stderr);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    void show();  // draw now (total 0: the only draw)
    void step();  // one unit done
    void done();  // erase the line (also on destruction)
    std::uint64_t count() const { return done_; }

private:
    void draw();
    std::string what_;
    std::uint64_t total_ = 0, done_ = 0;
    bool enabled_ = false, drawn_ = false;
    std::FILE* err_;
    std::chrono::steady_clock::time_point last_{};
};

// stderr is a terminal (isatty(2)), and the environment does not ask for quiet (BWACCT_NO_PROGRESS).
bool progress_wanted();

}  // namespace bwacct::cli
