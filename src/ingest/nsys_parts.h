// Pieces shared by the nsys-family readers (nsys_kern_sum.cpp: nsys's summaries and GPU traces;
// nvprof_summary.cpp: nvprof's summary mode).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bwacct/ingest_nsight.h"

namespace bwacct::nsys_parts {

// A time in a unit of `to_us` microseconds, as microseconds rounded to 10^-6 us (72,047.7 ns is 72.0477 us, not
// the 72.04769999999999 of a bare product).
double in_us(double value, double to_us);

// A time unit as a factor to microseconds: none (nsys's default) and "ns"/"nsec" 1e-3, "us"/"µs"/"usec" 1,
// "ms"/"msec" 1e3, "s"/"sec" 1e6; nullopt for another unit.
std::optional<double> unit_to_us(const std::string& unit);

// A column title in lower case without spaces or quotes, split at its unit: "Total Time (ns)" -> {"totaltime", "ns"},
// "Bytes (MB)" -> {"bytes", "mb"}, "Name" -> {"name", ""}.
struct Title {
    std::string base, unit;
};
Title split_title(const std::string& title);

std::string trim(const std::string& s);
// A name cell without a note its reader appended after two blanks ("[CUDA memcpy Host-to-Device]  # H2D, 1.15 ms",
// a pasted table annotated line by line): nsys's names never hold "  #".
std::string without_note(const std::string& name);
bool blank(const std::string& s);
// A markdown code fence ("```", "~~~"): a table pasted into a README or an issue ends there.
bool is_fence(const std::string& line);
// A line standing for rows left out of a pasted table: three dots or more alone ("...", "| ... |"), one alone (".", a line of a
// vertical ellipsis) or an ellipsis ("…", "⋮").
bool is_elision(const std::string& line);
// The text (one "\n" per line) of the CSV table whose header is lines[h], to a blank line, a code fence or an elision
// line; `end`: the line it stopped at (parse with first line h + 1 for the file's line numbers).
std::string csv_table_text(const std::vector<std::string>& lines, std::size_t h, std::size_t& end);
// The words of that warning that say rows were left out (other checks look for them).
inline constexpr const char* kElided = "whoever pasted it left rows out";
// The warning for a table that a paste cut short with an elision line.
std::string elision_warning(std::size_t header_line, std::size_t line, const std::string& text, std::size_t rows);

// `lines` with two things a terminal or a paste does to nsys's console tables undone: numbers of a decimal-comma
// locale ("33,0" %, "12.373.190" ns, "2.176,0") get '.' and ',' swapped in the numeric cells of each console table
// whose own cells fail the C reading and hold the swapped one (a table that reads both ways takes the locale of the
// nearest decided table of its own run: the same report named above it; names are never touched; a warning into
// `warnings` says so), and a header whose last titles wrapped onto lines of their own, or with blank lines between it
// and its dashed rule, is joined onto the line right above the rule (the lines it left blanked: rows keep their line
// numbers). `swapped`: per line, whether it was read so.
// `lines` with each JSON array of row objects keyed by nsys column titles (`nsys stats --format json`: a name and a total
// or start column) rewritten as CSV lines (header, rows, then blanks for the block's other lines; more lines where a
// compact array holds more rows than lines). `line_of`: per line returned, the 1-based line of `lines` it stands for.
// One linear pass. mend_console_paste expects its result.
std::vector<std::string> mend_json_tables(std::vector<std::string> lines, std::vector<std::size_t>& line_of);

std::vector<std::string> mend_console_paste(std::vector<std::string> lines, std::vector<std::string>& warnings,
                                            std::vector<bool>& swapped);

// The reports a line names (".sqlite", ".nsys-rep", ".qdrep" words), each once, without folder or extension:
// "Processing [run_a.sqlite] with [...]" -> {"run_a"}; a command line naming two reports -> both.
std::vector<std::string> reports_named(const std::string& line);

// The header titles and the cells of every row of the table whose header is lines[h], with their 1-based lines, in
// the header's format (CSV, '|' table, or console columns cut at the dashed rule's extents); the rows end at a
// blank line, a code fence or an elision line (with a warning into `out`).
std::vector<std::pair<std::size_t, std::vector<std::string>>> table_rows(const std::vector<std::string>& lines, std::size_t h,
                                                                         std::vector<std::string>& headers,
                                                                         const std::string& origin, NsysKernSum& out);

// The header of cuda_gpu_mem_time_sum (its 2020-2022 form "CUDA Memory Operation Statistics (by time)" too): a
// total time, a count ("Count", "Operations"), no "Instances" or "Calls". And of cuda_gpu_mem_size_sum: a total
// size ("Total (MB)", "Total (KiB)", or a bare "Total" under the 2020-2022 "(by size in KiB)" title), a count and
// an operation, no time.
bool is_time_header(const std::string& line);
bool is_size_header(const std::string& line);

// nsys's memory-operation summaries of the run whose lines are [from, to): cuda_gpu_mem_time_sum (2020-2022:
// "CUDA Memory Operation Statistics (by time)") and cuda_gpu_mem_size_sum ("(by size)"), joined by operation into
// out.memory_ops. Returns whether a time table was found. Throws InputError on a malformed row. `swapped` (per line,
// from mend_console_paste): a size table read in a decimal-comma locale is said to give lower bounds.
bool read_memory_tables(const std::vector<std::string>& lines, std::size_t from, std::size_t to, const std::string& origin,
                        NsysKernSum& out, const std::vector<bool>& swapped = {});

// nvprof's summary mode (`nvprof ./app`, `--print-gpu-summary`; console or `--csv`) when `lines` hold its table
// header ("Type  Time(%)  Time  Calls  Avg  Min  Max  Name", or without Type before CUDA 9): its GPU
// activities, the kernels as kernels and the memory operations ([CUDA memcpy HtoD], [CUDA memset]) left
// out with a warning. nullopt when there is no such header. Throws InputError naming `origin` for a row
// that does not fit its header, or a table without a kernel.
// With `require_kernels` false, a summary without a kernel row is returned empty rather than refused (a GPU trace
// in the same file may hold the kernels).
std::optional<NsysKernSum> parse_nvprof_summary(const std::vector<std::string>& lines, const std::string& origin,
                                                bool require_kernels = true);

// A time as nvprof prints it, a number with its unit ("8.6348ms", "512ns", "1.22693s", "3.2us"), in microseconds; a
// bare number is in `bare_to_us` microseconds per unit, else not a time.
std::optional<double> suffixed_time_us(const std::string& text, std::optional<double> bare_to_us);

// Kernel launches of a trace, per name in file order (durations in a unit of `to_us` microseconds), summed into
// out.kernels: instances, total, avg, median, min, max, sample standard deviation, time % of all launches; the
// kernel with the most time first. Throws InputError when the durations add up to more than a double holds.
void sum_launches(const std::vector<std::pair<std::string, std::vector<double>>>& launches, double to_us,
                  const std::string& origin, NsysKernSum& out);

// AMD rocprof's kernel statistics CSV ("Name","Calls","TotalDurationNs","AverageNs","Percentage", rocprofv3 adding
// "MinNs","MaxNs","StdDev") when `lines` hold its header: one kernel per row, times in ns. nullopt without that
// header. Tables of the same header holding HIP/HSA API calls (hip_stats, hsa_stats), rocprof v1's memory copies
// (copy_stats) or rocprofv3 domains (domain_stats, memory_copy_stats) are passed over for a later kernel table. Without a kernel
// table, rocprofv3's kernel trace (kernel_trace.csv: "Kernel_Name", "Start_Timestamp", "End_Timestamp" per dispatch, in ns) is
// summed per kernel name. Throws InputError for a malformed row, or when the only tables are API or domain statistics.
std::optional<NsysKernSum> parse_rocprof_stats(const std::vector<std::string>& lines, const std::string& origin);

// ROCm 7's `rocpd summary` console output when `lines` hold its table header ("Name  Calls  DURATION (nsec)  AVERAGE
// (nsec)  PERCENT (INC)  MIN (nsec)  MAX (nsec)  STD_DEV"): the table titled "KERNELS_SUMMARY:", one kernel per row
// (names hold blanks: the numbers are a row's last tokens). Per-rank ("KERNELS_SUMMARY_BY_RANK:"), API and copy
// summaries are not read (warned). nullopt without such a header; throws InputError for a row that does not line up
// (AVERAGE x Calls != DURATION) or a file whose only summaries are not KERNELS_SUMMARY.
std::optional<NsysKernSum> parse_rocpd_summary(const std::vector<std::string>& lines, const std::string& origin);

// rocprofv3's own summary (`rocprofv3 --summary`, per domain with `-D`) when `lines` hold its table header ("| NAME | DOMAIN
// | CALLS | DURATION (nsec) | ..."): the first table's KERNEL_DISPATCH rows are the kernels (a later table with the same
// rows, the combined ROCPROFV3 SUMMARY, is the same run; other kernel rows are another run's, not read), the first
// MEMORY_COPY rows the memory operations (no bytes), API and allocation rows are not read. nullopt without such a
// header; throws InputError for a row that does not line up or a summary without KERNEL_DISPATCH rows.
std::optional<NsysKernSum> parse_rocprofv3_summary(const std::vector<std::string>& lines, const std::string& origin);

}  // namespace bwacct::nsys_parts
