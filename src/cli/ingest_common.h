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

// ingested_record (a Record for an ingested time) is in include/bwacct/ingest.h.

// Prints the report in --format (at most --top records), then writes --plot when given.
int emit_ingest(const IngestReport& report, const std::vector<const GpuSpec*>& gpus, const Args& args, const Env& env);

}  // namespace bwacct::cli
