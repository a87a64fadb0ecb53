// Renders the machine-roof subcommands: `bwacct hbm`, `bwacct launch`, `bwacct device`.
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/gpu.h"
#include "bwacct/measurement.h"
#include "bwacct/report.h"

namespace bwacct {

// One HBM kernel's result. bytes_moved counts reads + writes (copy 2×, read 1×, write 1×, triad 3×
// the array size), as BabelStream does.
struct HbmRow {
    std::string kernel;
    std::uint64_t array_bytes = 0;
    std::uint64_t bytes_moved = 0;
    std::string traffic;  // "read a, write b (2× array)"
    Timing timing;
};

struct HbmReport {
    Measurement device;                  // backend, device, catalog match (timing unused)
    std::optional<double> catalog_GBps;  // the matched catalog entry's HBM peak
    std::vector<HbmRow> rows;
};

struct LaunchRow {
    std::string what;  // "host launch", "stream kernel", "graph kernel", "sync round trip"
    std::string meaning;
    Timing timing;
};

struct LaunchReport {
    Measurement device;
    std::optional<double> catalog_launch_us;
    std::vector<LaunchRow> rows;
};

void print_hbm(const HbmReport& r, Format f, std::FILE* out);
void print_launch(const LaunchReport& r, Format f, std::FILE* out);
void print_calibration(const Calibration& c, const GpuSpec* match, const std::string& path, Format f, std::FILE* out);
void print_device(const Measurement& m, const GpuSpec* match, const Clocks& now, const std::string& build, Format f,
                  std::FILE* out);

}  // namespace bwacct
