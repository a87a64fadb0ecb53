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

struct NcclLog {
    std::string format;             // "nccl-tests text (2.x: redop, root, #wrong)", "nccl-tests -J JSON (version 1)", ...
    std::string program;            // "all_reduce_perf" when the file says (test name line, JSON args[0]); else empty
    std::set<std::uint64_t> ranks;  // from the "# Rank N" lines (JSON: devices[].rank)
    std::set<std::string> hosts;    // host names of the "# Rank" lines (JSON: devices[].hostname)
    std::string device_name;        // the first rank's device ("NVIDIA H100 80GB HBM3")
    std::optional<std::uint64_t> header_threads, header_gpus;  // "# nThread 1 nGpus 8"
    std::vector<NcclRow> rows;
    std::optional<double> avg_busbw_GBps;  // "# Avg bus bandwidth"
    std::vector<std::string> warnings;     // lines that look like rows but could not be read
};

// Parses nccl-tests text or -J JSON (recognised by its first character). Throws InputError naming
// `origin` when the text holds no nccl-tests result row, or is JSON of another shape.
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
struct NcclAccountingInput {
    CollectiveKind kind = CollectiveKind::allreduce;
    std::string kind_from;               // "the test name line", "--op", ...
    std::optional<std::uint64_t> ranks;  // --ranks; else the "# Rank" lines, else nThread × nGpus
};
IngestReport account_nccl(const NcclLog& log, const std::string& file, const NcclAccountingInput& in,
                          const std::vector<const GpuSpec*>& gpus);

// The result a printed (rounded) value stands for: [value − h, value + h], h = ½·10^−decimals.
double printed_half_unit(const PrintedNumber& p);

}  // namespace bwacct
