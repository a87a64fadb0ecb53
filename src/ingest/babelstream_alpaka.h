// alpaka's Catch2 babelstream benchmark (alpaka/benchmarks/babelstream since 2024): "Key:value" context lines and a
// "Kernels Bandwidths(GB/s) MinTime(s) MaxTime(s) AvgTime(s) DataUsage(MB)" table, read into BabelStream's rows.
#pragma once

#include <string>
#include <vector>

#include "bwacct/ingest_babelstream.h"

namespace bwacct::detail {

// "AcceleratorType:AccGpuCudaRt<1,unsigned int>" (starts a run: `run` is reset), "Precision:single|double",
// "DataSize(items):33554432", "DeviceName:NVIDIA RTX A500 Laptop GPU": read into `run`; false for another line.
bool alpaka_context(const std::string& trimmed, BabelStreamRun& run);

// The table's header line (trimmed).
bool alpaka_table_header(const std::string& trimmed);

// The rows after the header at lines[i] (i is left on the last row): "AddKernel 77.046 8.1658e-05 8.1658e-05
// 8.1658e-05 6.2915" -> function Add, bandwidth in GB/s, times in s; DataUsage (10^6 B moved per call) gives the array
// size when DataSize(items) and Precision did not. Appends `run` (numbered) to out.runs and its rows to out.rows.
void parse_alpaka_table(const std::vector<std::string>& lines, std::size_t& i, BabelStreamRun run, BabelStreamFile& out,
                        const std::string& origin);

}  // namespace bwacct::detail
