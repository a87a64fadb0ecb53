// ncu's console output (no --csv): the form most READMEs and issues paste (see ncu_parts.h).
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "bwacct/error.h"
#include "bwacct/kernel_category.h"
#include "csv.h"
#include "ncu_parts.h"

namespace bwacct {
namespace {

using ingest::dash_spans;
using ncu_parts::trim;

// Whether `s` is all of `chars`, and not empty.
bool only(const std::string& s, const char* chars) { return !s.empty() && s.find_first_not_of(chars) == std::string::npos; }

// A kernel's heading: "NAME ..., Context C, Stream S[, Device D, CC X.Y]" (a whole CUDA graph: no Stream); under
// `--print-summary per-kernel` "NAME (GX, GY, GZ)x(BX, BY, BZ), Device D, CC X.Y, Invocations N"; under `--print-summary per-gpu`
// (ncu 2025) "NAME (GX, GY, GZ)x(BX, BY, BZ), Invocations N" below a "Device D, CC X.Y" line of its own.
bool is_kernel_line(const std::string& line) {
    if (line.rfind("==", 0) == 0)
        return false;
    if ((line.find(", Context ") != std::string::npos && line.find(", Stream ") != std::string::npos) ||
        (line.find(", Device ") != std::string::npos && line.find(", Invocations ") != std::string::npos))
        return true;
    // A CUDA graph profiled as one workload (--graph-profiling graph) has no stream: "graph (16384, 1, 1)x(256, 1, 1),
    // Context 1, Device 0, CC 9.0". The launch shape followed by its context or device makes the heading.
    const std::size_t shape = line.find(")x(");
    if (shape != std::string::npos) {
        const std::size_t after = line.find("), ", shape + 3);
        if (after != std::string::npos &&
            (line.compare(after, 11, "), Context ") == 0 || line.compare(after, 10, "), Device ") == 0))
            return true;
    }
    const std::size_t inv = line.rfind("), Invocations ");
    return inv != std::string::npos && line.find(")x(") < inv && only(trim(line.substr(inv + 15)), "0123456789");
}

// `--print-summary per-gpu`'s device line, "Device D, CC X.Y" alone: the compute capability, else "".
std::string device_line_cc(const std::string& line) {
    const std::string t = trim(line);
    const std::size_t cc = t.find(", CC ");
    if (t.rfind("Device ", 0) != 0 || cc == std::string::npos || !only(t.substr(7, cc - 7), "0123456789") ||
        !only(t.substr(cc + 5), "0123456789."))
        return "";
    return t.substr(cc + 5);
}

// A rule line: runs of dashes separated by blanks, nothing else.
bool is_rule(const std::string& line) {
    return line.find("--") != std::string::npos && line.find_first_not_of("- \t\r") == std::string::npos;
}

// The kernel's name and compute capability from its heading: the launch shape " (64, 1, 1)x(256, 1, 1)" or
// the date ", 2024-Aug-28 11:14:50" that ncu appends to the name are cut off.
void name_from_heading(const std::string& line, NcuKernel& k) {
    const std::string t = trim(line);
    std::string head = t.substr(0, std::min({t.find(", Context "), t.find(", Device "), t.rfind(", Invocations ")}));
    const std::size_t shape = head.rfind(")x(");
    const std::size_t open = shape == std::string::npos ? std::string::npos : head.rfind(" (", shape);
    if (open != std::string::npos && head.back() == ')' && only(head.substr(open + 1), "0123456789(), x")) {
        head.erase(open);
    } else {
        const std::size_t comma = head.rfind(", ");
        const std::string date = comma == std::string::npos ? "" : head.substr(comma + 2);
        if (date.size() == 20 && date[4] == '-' && date[8] == '-' && date[14] == ':' && date[17] == ':')
            head.erase(comma);
    }
    k.name = head;
    // --print-summary per-kernel: the launches its Minimum/Maximum/Average columns are over.
    const std::size_t inv = t.find(", Invocations ");
    if (inv != std::string::npos) {
        const std::string n = trim(t.substr(
            inv + 14, t.find(',', inv + 14) == std::string::npos ? std::string::npos : t.find(',', inv + 14) - inv - 14));
        if (only(n, "0123456789") && n.size() < 16)
            k.invocations = std::stoull(n);
    }
    const std::size_t cc = t.find(", CC ");
    if (cc != std::string::npos)
        k.cc =
            trim(t.substr(cc + 5, t.find(',', cc + 5) == std::string::npos ? std::string::npos : t.find(',', cc + 5) - cc - 5));
}

}  // namespace

NcuProfile ncu_parts::parse_ncu_text(const std::vector<std::string>& lines, const std::string& origin) {
    NcuProfile out;
    out.format = "ncu console output (no --csv: per kernel 'Section:' tables of metric name, unit and value)";
    bool have_kernel = false;
    std::vector<std::size_t> heading_line, rows_read;  // per kernel: its heading's line, the metric rows read under it
    std::vector<std::vector<std::string>> sections;    // per kernel: the "Section: ..." lines met under its heading
    bool per_gpu = false;
    std::string device_cc;  // the CC of a per-gpu summary's "Device D, CC X.Y" line above the kernels
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        if (const std::string cc = device_line_cc(lines[i]); !cc.empty()) {
            device_cc = cc;
            per_gpu = true;
            continue;
        }
        if (is_kernel_line(lines[i]) && t.rfind("Section:", 0) != 0) {
            NcuKernel k;
            k.id = std::to_string(out.kernels.size());
            name_from_heading(lines[i], k);
            if (k.cc.empty())
                k.cc = device_cc;
            out.kernels.push_back(std::move(k));
            heading_line.push_back(i + 1);
            rows_read.push_back(0);
            sections.emplace_back();
            have_kernel = true;
            continue;
        }
        if (t.rfind("Section:", 0) != 0 || !have_kernel || i + 1 >= lines.size() || !is_rule(lines[i + 1]))
            continue;
        // ncu prints each section once per kernel: the same section again under one heading means a kernel heading of a
        // shape not recognised lies between, whose rows would overwrite this kernel's. Refused, never merged.
        if (std::find(sections.back().begin(), sections.back().end(), t) != sections.back().end())
            throw InputError(origin,
                             fmt::format("line {}: '{}' appears twice under the kernel heading at line {} ({}): a "
                                         "heading between them is not one bwacct recognises, so the rows cannot be "
                                         "assigned to their kernel; expected ncu's console headings 'NAME (GRID)x(BLOCK), "
                                         "Context C, Stream S, Device D, CC X.Y'",
                                         i + 1, t, heading_line.back(), short_kernel_name(out.kernels.back().name)));
        sections.back().push_back(t);
        // A section's table: name, unit and value, each row cut at the rule's extents (the unit may be blank).
        const std::vector<std::pair<std::size_t, std::size_t>> spans = dash_spans(lines[i + 1]);
        // Name, unit, value; or under --print-summary per-kernel name, unit, Minimum, Maximum, Average (the Average
        // is read, as in the CSV summary).
        const bool summary = spans.size() == 5 && out.kernels.back().invocations > 0;
        if (spans.size() != 3 && !summary)
            continue;  // not a metric table (a source-counters or a rule's own table)
        bool rows = false;
        std::size_t j = i + 2;
        for (; j < lines.size(); ++j) {
            const std::string& row = lines[j];
            if (trim(row).empty() || is_kernel_line(row) || trim(row).rfind("Section:", 0) == 0)
                break;
            if (is_rule(row)) {
                if (rows)
                    break;  // the closing rule
                continue;   // the rule under "Metric Name  Metric Unit  Metric Value"
            }
            const std::string name = trim(row.substr(0, std::min(row.size(), spans[0].second)));
            const std::string unit =
                spans[0].second < row.size() ? trim(row.substr(spans[0].second, spans[1].second - spans[0].second)) : "";
            const std::size_t value_from = summary ? spans[3].second : spans[1].second;
            std::string value = value_from < row.size() ? trim(row.substr(value_from)) : "";
            if (name == "Metric Name" && (value == "Metric Value" || value == "Average"))
                continue;
            rows = true;
            ++rows_read.back();
            if (value.rfind("(!)", 0) == 0)  // ncu's mark of a value it doubts ("(!) n/a")
                value = trim(value.substr(3));
            store_metric(out.kernels.back(), name, unit, value, false, j + 1, origin);
        }
        i = j - 1;
    }
    // A heading with no metric row under it (a paste cut after it, or '...' in its place) holds nothing to
    // report: left out, with a warning, rather than listed as a kernel of empty cells. Kept when no kernel has rows
    // (the caller refuses such a file as a whole).
    if (std::any_of(rows_read.begin(), rows_read.end(), [](std::size_t n) { return n > 0; })) {
        std::vector<NcuKernel> kept;
        for (std::size_t k = 0; k < out.kernels.size(); ++k) {
            if (rows_read[k] > 0) {
                kept.push_back(std::move(out.kernels[k]));
                continue;
            }
            out.warnings.push_back(
                fmt::format("kernel {} ({}) at line {} has no metric row under its heading (the paste ends "
                            "or is cut there): left out",
                            out.kernels[k].id, short_kernel_name(out.kernels[k].name), heading_line[k]));
        }
        out.kernels = std::move(kept);
    }
    if (std::any_of(out.kernels.begin(), out.kernels.end(), [](const NcuKernel& k) { return k.invocations > 0; }))
        out.format = per_gpu ? "ncu console output, --print-summary per-gpu (the Average over each kernel's invocations)"
                             : "ncu console output, --print-summary per-kernel (the Average over each kernel's invocations)";
    return out;
}

}  // namespace bwacct
