// What every `bwacct ingest TOOL FILE` command shares: its options, the GPU the file's times are
// analysed on, the analysis of one ingested time, and the output (report, then --plot).
#pragma once
#include <string>
#include <vector>

#include "bwacct/catalog.h"
#include "bwacct/ingest.h"
#include "command.h"

namespace bwacct::cli {

// FILE (positional), --gpu, --gpu-file, --format, --top, --plot.
std::vector<OptionSpec> ingest_options(const std::string& file_help, const std::string& default_gpu);

// The file as text: read_input_file's errors, and a binary file refused with `expected` (exit 2).
std::string read_text_input(const std::string& path, const std::string& expected);

// The GPUs to analyse on: --gpu when given; else the catalog entry matching `device_name` (from the
// file, may be empty); else `fallback` (a comma list, may be empty: then InputError asking for --gpu).
std::vector<const GpuSpec*> ingest_gpus(const Args& args, const Catalog& catalog, const std::string& device_name,
                                        const std::string& fallback);

// For files whose numbers stand without a GPU (nccl-tests, BabelStream, ncu re-derive what they printed):
// as ingest_gpus, but when --gpu is not given and the file names no GPU the catalog knows, no GPU at all
// (an empty list) and `note` says what is left out (% of peak, roofs) and how to add it.
std::vector<const GpuSpec*> ingest_gpus_or_none(const Args& args, const Catalog& catalog, const std::string& device_name,
                                                std::string& note);

// ingested_record (a Record for an ingested time) is in include/bwacct/ingest.h.

// Prints the report in --format (at most --top records), then writes --plot when given.
int emit_ingest(const IngestReport& report, const std::vector<const GpuSpec*>& gpus, const Args& args, const Env& env);

// As emit_ingest, with a baseline comparison first (`--baseline`): its summary lines lead the report's,
// its section leads the sections. Returns kExitRegressed (3) when `regressed` > 0 and printing succeeded.
int emit_ingest_with_baseline(IngestReport& report, const std::vector<std::string>& lines, Section section, std::size_t regressed,
                              const std::vector<const GpuSpec*>& gpus, const Args& args, const Env& env);

}  // namespace bwacct::cli
