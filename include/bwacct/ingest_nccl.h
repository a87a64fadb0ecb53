// nccl-tests output, as printed (text, every version in tests/data/nccl/) or written with -J (JSON,
// nccl-tests' util.cu writer). Parsing is pure: text in, rows out (src/ingest/nccl_tests_*.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bwacct/cost.h"
#include "bwacct/gpu.h"
#include "bwacct/ingest.h"

namespace bwacct {

// A number as the file gave it. Text logs round: `decimals` digits after the point, or for
// nccl-tests' exponent form ("1.2e+07") the mantissa's decimals shifted by the exponent. JSON
// gives printf("%lf") values: 6 decimals.
struct PrintedNumber {
    double value = 0;
    int decimals = 0;  // the printed value stands for [value − ½·10^−decimals, value + ½·10^−decimals)
    std::string text;
};

// One out-of-place or in-place result.
struct NcclResult {
    PrintedNumber time_us, algbw_GBps, busbw_GBps;
    std::optional<double> wrong;  // #wrong / error column; absent when printed N/A (validation off)
    bool max_error = false;       // `wrong` is an older layout's "error" column (the largest deviation), not a count
    // nccl-tests -C 1 prints the host's launch-loop time ("cputime") where `time_us` would be; its algbw is still from
    // the GPU time. Then `cputime_us` holds the printed cputime and `time_us` is the GPU time size / algbw (0 with
    // decimals 2, not re-derivable, where algbw prints as 0 or the size is 0).
    std::optional<PrintedNumber> cputime_us;
};

struct NcclRow {
    std::uint64_t size = 0;   // bytes (nccl-tests "size")
    std::uint64_t count = 0;  // elements
    std::string type;         // "float", "half", "bfloat16", ...
    std::string redop;        // "sum", ...; empty in layouts without the column
    std::optional<long long> root;
    int line = 0;  // 1-based line in the text log; 0 in JSON
    std::optional<NcclResult> out_of_place, in_place;
};

// One run: the output of one nccl-tests invocation (a header block, its "# Rank" lines, its rows).
// A file may hold several (a README pasting all_reduce, then alltoall, then a 1-GPU reduce).
struct NcclRun {
    std::string program;  // "all_reduce_perf" when the run says (test name line, command line, JSON args[0])
    // The run names no test and was read as the same test as the run before it in the file (a second
    // table pasted under the first, whose first row fits that test's: data type, operation, root, elements per byte, bus factor).
    bool program_from_previous_run = false;
    // The run names no test and its program was read from the markdown heading just before it ("### All 2 All -
    // Single Node", a README's section per collective): that heading, else empty.
    std::string program_from_heading;
    // A markdown heading above the run named a collective whose rows are not these (elements per byte, busbw/algbw):
    // that heading, not used; else empty.
    std::string heading_not_fitting;
    std::set<std::uint64_t> ranks;    // rank ids of the "# Rank N" lines (JSON: devices[].rank); may be elided
    std::set<std::string> hosts;      // host names of the "# Rank" lines (JSON: devices[].hostname)
    std::set<std::string> processes;  // "host pid" of the "# Rank" lines: one per process
    // The most processes one rank id was listed by: > 1 when independent runs (each with its own
    // rank 0) wrote into the same file at once, their rows interleaved (two single-process srun tasks).
    std::uint64_t processes_per_rank_id = 1;
    std::string device_name;                                   // the first rank's device ("NVIDIA H100 80GB HBM3")
    std::optional<std::uint64_t> header_threads, header_gpus;  // "# nThread 1 nGpus 8": ranks per process = product
    bool per_process_from_command = false;            // no header line: the command line's -t/-g gave header_threads/gpus
    std::optional<std::uint64_t> launcher_processes;  // "-np 16" on the run's mpirun/srun command line
    // The communicator sizes NCCL's own init lines name ("NCCL INFO comm 0x... rank 7 nranks 16 ... Init
    // COMPLETE", NCCL_DEBUG=INFO): one value is the run's rank count.
    std::set<std::uint64_t> comm_nranks;
    std::vector<NcclRow> rows;
    std::optional<double> avg_busbw_GBps;  // "# Avg bus bandwidth"
    // Times in ms: nccl-tests before its 2018 rewrite, or NCCL 1's own tests ("bytes N type ..."), whose N is not
    // read as one rank's part (no rank count from it).
    bool times_ms = false;
    int first_line = 0, last_line = 0;  // 1-based lines of the text log the run spans; 0 in JSON
};

struct NcclLog {
    std::string format;                 // "nccl-tests text (2.x: redop, root, #wrong)", "nccl-tests -J JSON (version 1)", ...
    std::vector<NcclRun> runs;          // in file order; each has at least one row
    std::vector<std::string> warnings;  // lines that look like rows but could not be read
};

// Parses nccl-tests text or -J JSON (recognised by its first character). Text is split into runs at
// each new header block ("# nThread"), "# Collective test starting", repeated column header, "# Rank"
// list after rows, command line naming a *_perf program after rows, and row after "# Avg bus
// bandwidth". Launcher tags are removed wherever they stand in a line (src/ingest/nccl_tests_text.cpp,
// strip_launcher_tags). Throws InputError naming `origin` when the text holds no nccl-tests result
// row, or is JSON of another shape.
NcclLog parse_nccl_tests(const std::string& text, const std::string& origin);

// The collective a program or file name names: "all_reduce_perf", "allgather.log", ...
std::optional<CollectiveKind> collective_from_name(std::string_view name);

// What the log's numbers mean (src/analysis/nccl_accounting.cpp, pure):
//   - every result re-derived: algbw = size / time / 1e3, busbw = algbw · bus_factor(kind, ranks),
//     compared with the printed values to their printed precision (a printed time t with d decimals
//     stands for [t − ½·10^−d, t + ½·10^−d)); rows that disagree are flagged;
//   - each result with size > 0 becomes a Record (source `ingested`) on every GPU: % of the link's
//     one-way peak, bound, busbw-above-the-wire notes (NVLS);
//   - the α–β fit over the out-of-place times (include/bwacct/alpha_beta.h), n½ = α·β and the
//     regime of each row (latency below n½, bandwidth above);
//   - the mean of every printed busbw against the log's "Avg bus bandwidth".
//   - the rank count of each run from every clue it has (resolve_nccl_ranks below).
struct NcclAccountingInput {
    std::optional<CollectiveKind> kind;       // --op: every run; else each run's program, else `file_kind`
    std::optional<CollectiveKind> file_kind;  // the collective the file name names
    std::optional<std::uint64_t> ranks;       // --ranks: every run; else resolve_nccl_ranks
    // The GPUs of each run when they differ (a paste of an H100 run and an A100 run): nullopt (or no
    // entry) for `gpus`; an empty list when the run's GPU is not in the catalog (read without a GPU).
    std::vector<std::optional<std::vector<const GpuSpec*>>> run_gpus;
};
IngestReport account_nccl(const NcclLog& log, const std::string& file, const NcclAccountingInput& in,
                          const std::vector<const GpuSpec*>& gpus);

// The rank count of one run from every clue in it:
//   - the "# Rank" lines: n ≥ the highest rank id + 1 (lists are often elided: 0, 1, 62, 63 of 64);
//   - the header: n is a multiple of nThread × nGpus (ranks per process), equal to it × the launcher's
//     -np, or × the processes of a complete rank list;
//   - NCCL's init lines (NCCL_DEBUG=INFO): "comm 0x… rank R nranks N": n = N when every such line of
//     the run names the same N;
//   - the printed rows: busbw = algbw · f(n) with f = 2(n−1)/n (allreduce) or (n−1)/n (allgather,
//     reducescatter, alltoall), so every row bounds f by its rounding, (busbw ∓ h)/(algbw ± h), and the
//     intersection over rows bounds n (often to one value);
//   - the count column of allgather, reducescatter, alltoall, gather and scatter (one rank's part):
//     n = size / (count × element size), when every row gives the same whole n (not for pre-2018 ms layouts).
// The count is the one every clue allows, taken in the order rank lines, NCCL's init lines, row ratio,
// count column, header; `from`
// says which. Throws InputError naming `origin` when no count satisfies every clue.
struct NcclRanks {
    std::uint64_t n = 0;
    std::string from;  // "rank_lines", "nccl_init", "count_column", "highest_rank", "busbw_algbw_ratio", "header",
                       // "header_x_processes", "--ranks"
    std::string why;   // one line for the table: "16 from the 16 \"# Rank\" lines, ..."
    std::optional<std::uint64_t> rank_lines, highest_rank_plus_one, per_process, header_total;
    std::optional<std::uint64_t> comm_nranks;           // NCCL's init lines, when they agree on one size
    std::optional<std::uint64_t> count_ranks;           // size / (count × element size), for per-rank-count collectives
    std::optional<std::uint64_t> ratio_min, ratio_max;  // ratio_max absent: unbounded above
    std::vector<std::string> notes;                     // clues that disagree with a given --ranks, etc.
};
NcclRanks resolve_nccl_ranks(const NcclRun& run, CollectiveKind kind, std::optional<std::uint64_t> given,
                             const std::string& origin);

// A run that names no collective: nccl-tests' bus factors (src/*.cu *GetBw) are 2(n−1)/n for allreduce and at most
// 1 for every other test, so rows with an operation, root -1 and a busbw/algbw that every printed result bounds
// above 1 are an allreduce's. The factor's lower bound over all results (the greatest of theirs), else nullopt (no
// row bounds it, the rows disagree, or it is not above 1).
std::optional<double> nccl_rows_allreduce_factor(const NcclRun& run);
// A run that names no collective whose every row prints a reduction operation (not "none" or blank) and a root of 0
// or more, with busbw = algbw where the rows bound it: only reduce_perf prints both (broadcast, gather and scatter have
// a root and no operation; allreduce and reduce_scatter an operation and root -1 or no root column).
bool nccl_rows_reduce(const NcclRun& run);

// Bytes of one element of an nccl-tests type name ("float" 4, "bfloat16" 2, "f8e4m3" 1, "int64" 8); 0 when unknown.
std::uint64_t nccl_type_bytes(std::string_view type);

// The result a printed (rounded) value stands for: [value − h, value + h], h = ½·10^−decimals.
double printed_half_unit(const PrintedNumber& p);

// `bwacct ingest nccl-tests new.log --baseline old.log`: per run and size, the busbw of `now` against
// `base` (out-of-place, else in-place), the change and a verdict against `tolerance` (a fraction,
// 0.05 for 5 %): "regressed" when busbw fell by more than it, "improved" when it rose by more, else
// "same"; sizes in one log only are "new" or "vanished". Pure (src/analysis/nccl_baseline.cpp).
// Throws InputError naming --baseline when the logs hold different numbers of runs (several each).
struct NcclBaseline {
    Section section;                 // key "baseline"
    std::size_t compared = 0;        // sizes in both logs
    std::size_t regressed = 0;       // of them, fell beyond the tolerance
    std::vector<std::string> lines;  // the summary: what was compared and the worst change
};
NcclBaseline compare_nccl(const NcclLog& now, const NcclLog& base, double tolerance, const std::string& base_name);

}  // namespace bwacct
