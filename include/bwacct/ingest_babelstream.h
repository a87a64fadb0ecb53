// BabelStream output (text and --csv) and SuperBench's gpu-stream output, read for
// `bwacct ingest babelstream`. Pure parser (text in, rows out; `origin` names the file in errors) and
// a report builder (tables only: BabelStream already times its own kernels).
//
// BabelStream (UoB-HPC/BabelStream src/main.cpp) counts bytes per kernel as Copy 2N, Mul 2N, Add 3N,
// Triad 3N, Dot 2N, Nstream 4N elements x sizeof(T), and prints bandwidth = bytes / min time in
// MBytes/sec (10^6) or, with --mibibytes, MiBytes/sec (2^20). SuperBench gpu-stream
// (microsoft/superbenchmark gpu_stream.cu) prints GB/s (10^9) = factor x buffer x loops / time with
// factor 2 for COPY and SCALE, 3 for ADD and TRIAD, and the % of a peak it derives from the memory clock.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/gpu.h"
#include "bwacct/ingest.h"

namespace bwacct {

struct BabelStreamRow {
    int run = 1;            // 1-based: a file may hold several runs (tables)
    std::string function;   // Copy, Mul, Add, Triad, Dot, Nstream, Add4 (GPU-STREAM 1.0 HIP); another name is
                            // kept as printed, its bytes per call unknown (babelstream_arrays 0)
    double bw_printed = 0;  // as printed, in MB/s or MiB/s (see BabelStreamRun::mebibytes)
    std::string bw_text;    // the printed token (its decimals give its precision)
    double min_s = 0, max_s = 0, avg_s = 0;
    std::string min_text;                  // the printed min time token
    std::optional<std::uint64_t> n_times;  // CSV: num_times
    // The arrays one call moves when the row itself says so, overriding babelstream_arrays(function): alpaka's
    // InitKernel, whose DataUsage is 2 arrays in older alpaka and 3 in later; 0 when its DataUsage fits neither.
    std::optional<int> arrays;
};

struct BabelStreamRun {
    int run = 1;
    std::string version, implementation, device;  // "5.0", "CUDA", "NVIDIA A100-SXM4-40GB" (when printed)
    std::optional<int> sizeof_t;                  // 8 for "Precision: double", 4 for float; CSV: sizeof
    bool mebibytes = false;                       // MiBytes/sec (2^20) instead of MBytes/sec (10^6)
    bool gigabytes = false;                       // alpaka's Catch2 benchmark table: GB/s (10^9)
    // Array size: exact from CSV n_elements x sizeof; from the text's "Array size: 268.4 MB" line
    // only to its printed precision (half a unit of its last digit).
    std::optional<std::uint64_t> n_elements;
    std::optional<std::uint64_t> work_items;  // GPU-STREAM 1.0 "GridSize: N work-items" (× "Operations/Work-item: K")
    std::optional<double> array_bytes;        // best value
    double array_bytes_halfwidth = 0;         // 0 when exact
    // The run printed a validation failure ("Validation failed on a[]. Average error ...", on stderr
    // when captured with 2>&1): its kernels computed wrong results, so every bandwidth is unverified.
    std::string validation_failure;   // the first such line, trimmed; empty when none was printed
    std::size_t validation_line = 0;  // its 1-based line
    // BabelStream 5's Init and Read timings ("Init: 0.078539 s (=10253.531921 MBytes/sec)", or --csv's
    // "phase,n_elements,sizeof,max_mbytes_per_sec,runtime" table): their 1-based line, 0 when not printed. Not read as
    // rows: each is one host-timed call, not the repeated device-memory kernels the table accounts (the report says so).
    std::size_t phase_line = 0;
};

struct GpuStreamRow {
    int device = 0;      // "Device N" / _gpu_N
    std::string kernel;  // COPY, SCALE, ADD, TRIAD
    std::string dtype;   // float, double
    std::uint64_t buffer_bytes = 0;
    std::uint64_t block = 0;
    double bw_GBps = 0;
    std::optional<double> pct_printed;  // "-1" when the tool had no peak: nullopt
};

struct GpuStreamDevice {
    int device = 0;
    std::string name;                 // "NVIDIA Graphics Device"
    std::optional<double> peak_GBps;  // the peak the tool printed (from the memory clock)
};

struct BabelStreamFile {
    std::string format;  // "BabelStream text", "BabelStream CSV", "SuperBench gpu-stream"
    std::vector<BabelStreamRun> runs;
    std::vector<BabelStreamRow> rows;
    std::vector<GpuStreamDevice> gs_devices;
    std::vector<GpuStreamRow> gs_rows;
    std::string gs_validation_failure;  // gpu-stream: a validation failure line anywhere in the file
    std::size_t gs_validation_line = 0;
    std::vector<std::string> warnings;  // what was read around the tables (a run after the last one with no table)
};

// True when `line` reports a failed validation of a benchmark's results: it holds "validation
// failed", "validation failure" or "failed validation" (any case), as BabelStream ("Validation failed
// on a[]. Average error ..."), GPU-STREAM and McCalpin's STREAM ("Failed Validation on array a[]") print it.
bool is_validation_failure(std::string_view line);

// Bytes BabelStream counts for one call of `function`, in elements (Copy 2, Mul 2, Add 3, Triad 3,
// Dot 2, Nstream 4; BabelStream 5's Init and Read 3); 0 for an unknown name. SuperBench: COPY 2, SCALE 2, ADD 3, TRIAD 3.
int babelstream_arrays(const std::string& function);
int gpu_stream_arrays(const std::string& kernel);

// Throws InputError(origin, ...) when the text holds no BabelStream result table, no gpu-stream rows,
// or a row is malformed (truncated, not a number, negative or zero time), or it is BabelStream's
// triad-only output (not supported). A table runs from its header to the first line that is not a
// row: a known function's row must have 5 fields; a row of another name with 4 numbers after it is
// kept (bytes unknown). No regular expression: every line is scanned once, whatever its length.
BabelStreamFile parse_babelstream(const std::string& text, const std::string& origin);

// The device name the file prints (first run / device), or empty.
std::string babelstream_device_name(const BabelStreamFile& f);

// Sections: "kernels" (BabelStream: per run, kernel and GPU: printed bandwidth in GB/s, % of HBM
// peak, min/max/avg time, bytes per call and the bandwidth re-derived from bytes and the printed min
// time, with a check that the two agree to the printed precision) or "gpu_stream" (SuperBench).
// `run_gpus[i]`, when set, are the GPUs of run i + 1 (a run on another device than the file's first);
// other runs are analysed on `gpus`.
IngestReport babelstream_report(const BabelStreamFile& f, const std::string& file, const std::vector<const GpuSpec*>& gpus,
                                const std::vector<std::optional<std::vector<const GpuSpec*>>>& run_gpus = {});

}  // namespace bwacct
