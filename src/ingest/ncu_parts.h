// Pieces shared by the ncu readers (ncu_csv.cpp: the --csv pages; ncu_text.cpp: ncu's console output).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "bwacct/ingest_nsight.h"

namespace bwacct::ncu_parts {

// `s` without leading and trailing blanks, tabs and carriage returns (a CRLF file's lines).
inline std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos)
        return "";
    return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// Stores one metric value (text as printed, with its unit) into the kernel when bwacct reads that metric
// (DRAM bytes, durations, ncu's own % of peak, the device name); other metrics are ignored. Throws
// InputError naming `line` for a value that is not a non-negative number or a unit that does not fit.
void store_metric(NcuKernel& k, const std::string& metric, const std::string& unit, const std::string& value, bool decimal_comma,
                  std::size_t line, const std::string& origin);

// ncu's console output (no --csv) when `lines` hold it: per kernel a line "NAME (GX, GY, GZ)x(BX, BY, BZ),
// Context C, Stream S, Device D, CC X.Y" (older: "NAME, YYYY-Mon-DD HH:MM:SS, Context C, Stream S"), then
// per section "Section: TITLE", a dashed rule, an optional "Metric Name  Metric Unit  Metric Value"
// header, rows of metric name, unit and value at the rule's extents. Kernels get IDs "0", "1", ... in
// file order (ncu's own IDs). Returns an empty profile when `lines` hold no such section.
NcuProfile parse_ncu_text(const std::vector<std::string>& lines, const std::string& origin);

// nvprof's metric mode (`nvprof --metrics ...`, ncu's predecessor) when `lines` hold it: its console table
// ("Invocations  Metric Name  Metric Description  Min  Max  Avg" with 'Device "NAME (N)"' and "Kernel: NAME"
// headings) or its --csv form ("Device","Kernel","Invocations","Metric Name",...). The Avg of dram_read_bytes /
// dram_write_bytes (else dram_{read,write}_transactions x 32 B) and dram_{read,write}_throughput (binary units:
// GB/s = 2^30 B/s) is read per kernel; each "Metric result" table starts new kernels. Returns an empty profile
// when `lines` hold no metric table.
NcuProfile parse_nvprof_metrics(const std::vector<std::string>& lines, const std::string& origin);

}  // namespace bwacct::ncu_parts
