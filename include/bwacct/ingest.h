// What `bwacct ingest` makes of another tool's measurements: every row, kernel or op it could
// attach a byte/FLOP formula to becomes a Record (source `ingested`, analysed on the selected GPUs
// with the file's time as the time), and the tool-specific summaries are tables (Section) of plain
// cells. One renderer (src/report/ingest_report.cpp) prints any IngestReport as a table, JSON
// (schema bwacct.ingest/1), JSONL, CSV or Markdown. Parsers live in src/ingest/, one per tool.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bwacct/gpu.h"
#include "bwacct/record.h"
#include "bwacct/report.h"

namespace bwacct {

// A table cell: empty (n/a, null in JSON), an integer, a real or a text.
using Cell = std::variant<std::monostate, std::uint64_t, double, std::string>;

struct Column {
    std::string key;     // JSON key and CSV header: "busbw_GBps"
    std::string header;  // table header: "busbw GB/s"
    int decimals = 2;    // for reals in the table and Markdown views (JSON keeps full precision)
    // The table view only: shortens a text cell for display (a kernel's demangled name); every other
    // view (JSON, JSONL, CSV, Markdown) carries the text whole. nullptr: shown as it is.
    std::string (*shorten)(const std::string&) = nullptr;
};

struct Section {
    std::string key;    // JSON key: "rows", "by_category"
    std::string title;  // table view heading
    std::vector<Column> columns;
    std::vector<std::vector<Cell>> rows;  // each row has one cell per column
    std::vector<std::string> notes;       // printed under the table; a JSON array
};

// One part of a file analysed on its own (nccl-tests: one run of a file pasting several): its own
// fields (JSON only), sections and notes, and the slice [records_begin, records_end) of the records.
struct IngestRun {
    std::string title;                                 // table heading: "run 2 of 3: alltoall, 8 ranks (lines 40–80)"
    std::vector<std::pair<std::string, Cell>> fields;  // JSON: "collective", "ranks", ...
    std::vector<Section> sections;
    std::vector<std::string> notes;
    std::size_t records_begin = 0, records_end = 0;
};

// The answer first: a few lines printed before everything else in the table and Markdown views; in
// JSON the object "summary": each field as key: value, then each list as key: [row objects].
struct IngestSummary {
    std::vector<std::string> lines;
    std::vector<std::pair<std::string, Cell>> fields;
    std::vector<Section> lists;  // Section::key names the array; title and notes are not printed
};

struct IngestReport {
    std::string tool;         // "nccl-tests", "torch-trace", "nsys", "ncu", "babelstream"
    std::string measured_by;  // the profiler that wrote the file when it is not `tool` ("nvprof", "rocprof")
    std::string file;         // the path as given
    // Non-empty when the file's times are not durations it printed but computed from its other numbers (nvprof
    // --metrics: "DRAM bytes / nvprof's DRAM throughput"): the views say "times derived: ..." and JSON
    // "time_derived": true.
    std::string time_derivation;
    std::string format;                 // what was recognised: "nccl-tests text (2.x, in-place columns)", ...
    std::vector<std::string> gpus;      // catalog ids the records were analysed on
    std::vector<Record> records;        // per row / kernel / op; may be empty (BabelStream: sections only)
    std::vector<Section> sections;      // summaries
    std::vector<std::string> notes;     // one-line findings for the whole file
    std::vector<std::string> warnings;  // lines skipped or distrusted, printed on stderr in table view
    // Parts analysed on their own. With one run its sections are also `sections` (so readers of the
    // single-run layout keep working); with several, `sections` is empty and each run carries its own.
    std::vector<IngestRun> runs;
    IngestSummary summary;  // empty: no summary (JSON has no "summary" key)
};

// A record for a time another tool measured: `cost` analysed on every GPU with `time_us` as the
// time (source `ingested`). Throws InputError when a GPU lacks a peak the op needs.
Record ingested_record(std::vector<Param> params, Cost cost, double time_us, const std::vector<const GpuSpec*>& gpus);

// Table: the summary, the file, its notes, each section (short ones first), then a compact row per
// record (at most `top` of them when top > 0). JSON:
// {"schema":"bwacct.ingest/1","tool","file","format","gpus","records":[bwacct.op/1
// objects],"sections":{key:{"title","rows":[{column key: cell}],"notes"}},"notes","warnings"}, and
// when the report has runs, "runs":[{field: value, ..., "records_total", "sections", "notes"}]; the
// table and Markdown views print each run's sections under its own heading.
// JSONL, CSV and Markdown with a --section: see IngestView.
void print_ingest(const IngestReport& r, Format format, std::FILE* out, std::size_t top = 0);

// What to print of a report in the machine views. CSV is one table with one header: the records
// (columns of every op they hold, in order of first appearance) unless `section` names another
// table (a section key; "records" is the records); `header` false leaves the header row out. JSONL
// carries the records ("section":"records") and then every section's rows, each object with its
// section's key under "section" (only `section` when set). Markdown honours `section` as CSV does.
struct IngestView {
    std::size_t top = 0;
    std::string section;  // empty: the default (all for JSONL, the records for CSV)
    bool header = true;
};
void print_ingest(const IngestReport& r, Format format, std::FILE* out, const IngestView& view);

}  // namespace bwacct
