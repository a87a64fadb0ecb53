// Nsight Systems and Nsight Compute exports, read for `bwacct ingest nsys` and `bwacct ingest ncu`.
// Parsers are pure (text in, rows out; `origin` names the file in errors); the report builders turn
// rows into an IngestReport (tables only: nsys gives times without bytes, ncu gives measured DRAM
// bytes that are not a formula's lower bound, so neither becomes an op Record).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/gpu.h"
#include "bwacct/ingest.h"
#include "bwacct/kernel_category.h"

namespace bwacct {

// ---- nsys stats --report cuda_gpu_kern_sum (CSV from --format csv, or the console text table), nsys GPU
// traces and nvprof's summary ----

struct NsysKernel {
    std::string name;  // as printed (demangled, may hold commas)
    KernelCategory category = KernelCategory::other;
    std::optional<double> time_pct;  // the file's "Time (%)"
    double total_us = 0;             // "Total Time"
    std::uint64_t instances = 0;     // "Instances"
    std::optional<double> avg_us, med_us, min_us, max_us, stddev_us;
};

// One memory operation kind of nsys's cuda_gpu_mem_time_sum / cuda_gpu_mem_size_sum (or nvprof's memory rows):
// "[CUDA memcpy Host-to-Device]", "[CUDA memset]".
struct NsysMemOp {
    std::string operation;
    std::uint64_t count = 0;
    double total_us = 0;
    std::optional<double> bytes;  // from the size table (MB = 10^6 B, KiB = 1024 B); none without one
};

struct NsysKernSum {
    std::string format;               // "nsys stats cuda_gpu_kern_sum CSV" or "... console table"
    std::vector<NsysKernel> kernels;  // in file order
    std::size_t table_line = 0;       // 1-based line of the header of the table read
    // 1-based lines of the headers of further kernel tables (a file holding several runs' output):
    // not read, and the report says so.
    std::vector<std::size_t> other_tables;
    // What the reader left out or could not vouch for (a table cut by an elision line, memory operations
    // of a GPU trace): the report prints each as a warning.
    std::vector<std::string> warnings;
    // The kernels were summed from a GPU trace's per-launch rows (time % computed here, not printed by nsys).
    bool from_trace = false;
    // The kernels are nvprof's summary rows ("GPU activities"): time % is nvprof's share of all GPU activities,
    // memory copies included.
    bool from_nvprof = false;
    // The kernels are AMD rocprof's kernel statistics (rocprof / rocprofv3 --stats): time % is its Percentage.
    bool from_rocprof = false;
    // The profiler that wrote the file when not nsys: "nvprof" (summary or --print-gpu-trace), "rocprof".
    std::string profiler;
    // Memory operations (memcpy, memset) of the same run, with their bytes where a size table gives them.
    std::vector<NsysMemOp> memory_ops;
};

// Finds the kernel-summary table (the header with "Total Time", "Instances" and "Name") in CSV or in
// nsys's console column format (thousands separators, a dashed rule under the header, a blank line
// after the last row), anywhere in the text (e.g. inside `nsys profile --stats=true` output). Times
// may be in ns, us, ms or s (the header's unit). Without a summary, a GPU trace (`nsys stats --report
// cuda_gpu_trace`, `nsys nvprof --print-gpu-trace`: one row per launch with Start, Duration, GrdX, ...,
// Name) is summed per kernel name instead; its memory operations are left out with a warning. Without
// either, nvprof's summary ("Type  Time(%)  Time  Calls  Avg  Min  Max  Name", console or --csv) is read:
// its GPU activities rows, memory operations left out with a warning; or AMD rocprof's kernel statistics CSV
// ("Name","Calls","TotalDurationNs","AverageNs","Percentage"). A row
// of dots or an ellipsis ("...", "…") ends a pasted table with a warning that rows were left out. Throws InputError(origin, ...)
// when there is no such table, a row is short or malformed, or the table has no rows.
NsysKernSum parse_nsys_kern_sum(const std::string& text, const std::string& origin);

// Sections "kernels" (per kernel: category, time %, total/avg/med/min/max µs, instances) and
// "by_category" (time per category, share of the summed kernel time), with notes saying that nsys
// records no bytes.
IngestReport nsys_report(const NsysKernSum& sum, const std::string& file);

// ---- ncu --csv (long "--page details" layout, wide "--page raw" layout, or --print-summary per-kernel) ----

struct NcuKernel {
    std::string id;           // the "ID" column
    std::string name;         // "Kernel Name"
    std::string device_name;  // device__attribute_display_name when exported; else empty
    std::string cc;           // "CC" (compute capability) when present
    std::optional<double> dram_read_bytes, dram_write_bytes, dram_bytes;  // dram__bytes_{read,write,}.sum
    std::optional<double> time_us;                                        // gpu__time_duration.sum, else "Duration"
    std::optional<double> dram_pct, sm_pct;                               // ncu's own % of peak (dram__/sm__throughput)
    bool rounded_bytes = false;  // a byte count came in a scaled unit (Kbyte, Mbyte, ...): 3 significant digits
    // --print-summary per-kernel: the launches the values average over (bytes and time are per launch);
    // 0 for the other pages (one row per launch).
    std::uint64_t invocations = 0;
    // nvprof --metrics: dram_read_throughput + dram_write_throughput, the kernel's measured DRAM rate in 10^9 B/s
    // (used when the file gives no bytes and time to divide).
    std::optional<double> dram_GBps;
    // ncu: dram__bytes_read.sum.per_second / dram__bytes_write.sum.per_second (10^9 B/s); their sum is dram_GBps when
    // dram__bytes.sum.per_second (dram_rate_total) is not in the file.
    std::optional<double> dram_read_GBps, dram_write_GBps;
    bool dram_rate_total = false;
    bool dram_metric = false;  // nvprof --metrics: the file gives the kernel at least one DRAM metric bwacct reads
};

struct NcuProfile {
    // "ncu --csv --page details (one row per metric)" / "ncu --csv --page raw (one row per kernel)" /
    // "ncu --csv --print-summary per-kernel (...)"
    std::string format;
    std::vector<NcuKernel> kernels;     // in order of first appearance
    std::vector<std::string> warnings;  // what the reader could not decide (the report prints them)
    bool nvprof = false;                // nvprof --metrics output: its metric names go in the messages
};

// Multiplier from an ncu unit to bytes ("byte" 1, "Kbyte" 1e3, "Mbyte" 1e6, "Gbyte" 1e9, "Tbyte" 1e12:
// SI, decimal) or microseconds ("ns"/"nsecond" 1e-3, "us"/"usecond" 1, "ms"/"msecond" 1e3,
// "s"/"second" 1e6); nullopt for a unit that is neither.
std::optional<double> ncu_byte_scale(const std::string& unit);
std::optional<double> ncu_time_scale_us(const std::string& unit);

// Without a CSV header, ncu's console output (per kernel "Section:" tables of metric name, unit and value)
// is read instead, kernels numbered "0", "1", ... in file order.
// Throws InputError(origin, ...) when there is no ncu CSV header ("ID", "Kernel Name", ...) nor console table, a value
// is not a number, a byte or time metric has an unknown unit, or no kernel has DRAM bytes or a duration.
NcuProfile parse_ncu_csv(const std::string& text, const std::string& origin);

// The first device name any kernel carries (for Catalog::match), or empty.
std::string ncu_device_name(const NcuProfile& p);

// Section "kernels": per kernel and GPU, DRAM read/write bytes, time, bandwidth = bytes / time and its
// share of the GPU's HBM peak, beside ncu's own dram/sm throughput %.
IngestReport ncu_report(const NcuProfile& p, const std::string& file, const std::vector<const GpuSpec*>& gpus);

}  // namespace bwacct
