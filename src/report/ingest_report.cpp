// Renders an IngestReport (include/bwacct/ingest.h): table, JSON (bwacct.ingest/1), JSONL, CSV, Markdown.
#include "bwacct/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "bwacct/error.h"
#include "bwacct/json_text.h"
#include "flatten.h"
#include "human.h"
#include "json_record.h"
#include "sinks.h"

namespace bwacct {
namespace {

using json = nlohmann::ordered_json;
using detail::csv_quote;
using detail::fixed;
using detail::percent;

std::string cell_text(const Cell& c, int decimals) {
    if (std::holds_alternative<std::uint64_t>(c))
        return fmt::format("{}", std::get<std::uint64_t>(c));
    if (std::holds_alternative<double>(c)) {
        // A whole-number column (a count) holding a small fraction, such as an older nccl-tests log's "error" column
        // (2e-07, the largest deviation) under #wrong, is shown as it is, not rounded to a 0 that reads as a count.
        const double v = std::get<double>(c);
        if (decimals == 0 && v != 0 && std::abs(v) < 0.5)
            return fmt::format("{:g}", v);
        return fixed(v, decimals);
    }
    if (std::holds_alternative<std::string>(c))
        return std::get<std::string>(c);
    return "-";
}

json cell_json(const Cell& c) {
    if (std::holds_alternative<std::uint64_t>(c))
        return std::get<std::uint64_t>(c);
    if (std::holds_alternative<double>(c))
        return std::get<double>(c);
    if (std::holds_alternative<std::string>(c))
        return std::get<std::string>(c);
    return nullptr;
}

std::string param_text(const ParamValue& v) {
    if (std::holds_alternative<std::uint64_t>(v))
        return fmt::format("{}", std::get<std::uint64_t>(v));
    if (std::holds_alternative<double>(v))
        return fmt::format("{}", std::get<double>(v));
    if (std::holds_alternative<bool>(v))
        return std::get<bool>(v) ? "yes" : "no";
    return std::get<std::string>(v);
}

// The compact row of one record on one GPU: what was costed, its time and where it sits.
std::vector<std::string> record_row(const Record& r, const Verdict& v) {
    std::string params;
    for (const Param& p : r.params)
        params += fmt::format("{}{}={}", params.empty() ? "" : " ", p.name, param_text(p.value));
    std::vector<std::string> row{r.cost.op, params, v.gpu};
    if (v.timed) {
        const TimedAnalysis& t = *v.timed;
        row.insert(row.end(),
                   {fixed(t.time_us, 2), detail::human_si(static_cast<double>(r.cost.bytes()), "B"),
                    detail::human_si(static_cast<double>(r.cost.flops), "FLOP"), fixed(t.implied_bw_GBps, 1), fixed(t.tflops, 2),
                    std::string(roof_name(t.bound)), percent(t.util_hbm), v.peaks.compute_tflops ? percent(t.util_compute) : "-",
                    t.util_link ? percent(*t.util_link) : "-"});
    } else {
        row.insert(row.end(), {"-", detail::human_si(static_cast<double>(r.cost.bytes()), "B"),
                               detail::human_si(static_cast<double>(r.cost.flops), "FLOP"), "-", "-",
                               std::string(roof_name(v.bound)), "-", "-", "-"});
    }
    return row;
}

const std::vector<std::string> kRecordHeader{"op",   "params",  "gpu",   "time µs", "bytes",     "FLOPs",
                                             "GB/s", "TFLOP/s", "bound", "% hbm",   "% compute", "% link"};

// Fixed-width table: widths from the longest cell of each column (rows are in memory already).
void print_table(std::FILE* out, const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                 std::size_t left_aligned) {
    std::vector<std::size_t> w(header.size());
    for (std::size_t i = 0; i < header.size(); ++i)
        w[i] = header[i].size();
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < w.size(); ++i)
            w[i] = std::max(w[i], row[i].size());
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s = " ";
        for (std::size_t i = 0; i < cells.size(); ++i)
            s += i < left_aligned ? fmt::format(" {:<{}}", cells[i], w[i]) : fmt::format(" {:>{}}", cells[i], w[i]);
        fmt::print(out, "{}\n", s);
    };
    line(header);
    for (const auto& row : rows)
        line(row);
}

// `table`: the table view, where a column's `shorten` (when set) shortens its texts for display.
std::vector<std::vector<std::string>> section_text_rows(const Section& s, bool table) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& row : s.rows) {
        std::vector<std::string> cells;
        for (std::size_t i = 0; i < s.columns.size(); ++i) {
            const bool shorten =
                table && s.columns[i].shorten != nullptr && i < row.size() && std::holds_alternative<std::string>(row[i]);
            cells.push_back(shorten          ? s.columns[i].shorten(std::get<std::string>(row[i]))
                            : i < row.size() ? cell_text(row[i], s.columns[i].decimals)
                                             : "-");
        }
        rows.push_back(std::move(cells));
    }
    return rows;
}

std::vector<std::string> section_headers(const Section& s) {
    std::vector<std::string> h;
    for (const Column& c : s.columns)
        h.push_back(c.header);
    return h;
}

void print_markdown_table(std::FILE* out, const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows) {
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s = "|";
        for (const std::string& c : cells)
            s += fmt::format(" {} |", detail::md_cell(c));
        fmt::print(out, "{}\n", s);
    };
    line(header);
    std::string rule = "|";
    for (std::size_t i = 0; i < header.size(); ++i)
        rule += "---|";
    fmt::print(out, "{}\n", rule);
    for (const auto& row : rows)
        line(row);
}

std::vector<std::vector<std::string>> record_rows(const IngestReport& r, std::size_t top) {
    std::vector<std::vector<std::string>> rows;
    const std::size_t n = top > 0 ? std::min(top, r.records.size()) : r.records.size();
    for (std::size_t i = 0; i < n; ++i)
        for (const Verdict& v : r.records[i].verdicts)
            rows.push_back(record_row(r.records[i], v));
    return rows;
}

// Collective records have no FLOP roof worth a column: their only FLOPs are the reduction's.
void drop_flop_columns(std::vector<std::string>& header, std::vector<std::vector<std::string>>& rows) {
    for (const char* name : {"% compute", "TFLOP/s", "FLOPs"}) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
            continue;
        const auto i = static_cast<std::size_t>(it - header.begin());
        header.erase(it);
        for (auto& row : rows)
            if (i < row.size())
                row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

// The answer first: the summary, the file, its notes; then the sections, the short ones (fits,
// peaks, verdicts) before the long listings; the records last.
void print_human(const IngestReport& r, Format format, std::FILE* out, std::size_t top) {
    const bool md = format == Format::md;
    auto heading = [&](const std::string& title) { fmt::print(out, fmt::runtime(md ? "\n### {}\n\n" : "\n{}\n"), title); };
    for (const std::string& line : r.summary.lines)
        fmt::print(out, fmt::runtime(md ? "**{}**\n\n" : "{}\n"), line);
    if (!r.summary.lines.empty() && !md)
        fmt::print(out, "\n");
    fmt::print(out, fmt::runtime(md ? "## {}: {}\n\n" : "{}: {}\n"), r.tool, r.file);
    if (r.time_derivation.empty())
        fmt::print(out, "{}format: {}; times ingested: measured by {}, read from the file\n", md ? "" : "  ", r.format,
                   r.measured_by.empty() ? r.tool : r.measured_by);
    else
        fmt::print(out, "{}format: {}; times derived: {} (the file prints no duration)\n", md ? "" : "  ", r.format,
                   r.time_derivation);
    if (!r.notes.empty())
        fmt::print(out, "\n");
    for (const std::string& n : r.notes)
        fmt::print(out, fmt::runtime(md ? "- {}\n" : "note: {}\n"), n);
    const auto sections = [&](const std::vector<Section>& list) {
        std::vector<const Section*> order;
        for (const Section& s : list)
            order.push_back(&s);
        std::stable_sort(order.begin(), order.end(),
                         [](const Section* a, const Section* b) { return a->rows.size() < b->rows.size(); });
        for (const Section* s : order) {
            heading(s->title);
            for (const std::string& n : s->notes)
                fmt::print(out, fmt::runtime(md ? "- {}\n" : "  note: {}\n"), n);
            if (!s->notes.empty())
                fmt::print(out, "\n");
            if (md)
                print_markdown_table(out, section_headers(*s), section_text_rows(*s, false));
            else
                print_table(out, section_headers(*s), section_text_rows(*s, true), 1);
        }
    };
    sections(r.sections);
    // Several runs: each under its own heading, with its own notes.
    if (r.runs.size() > 1)
        for (const IngestRun& run : r.runs) {
            fmt::print(out, fmt::runtime(md ? "\n## {}\n" : "\n== {} ==\n"), run.title);
            for (const std::string& n : run.notes)
                fmt::print(out, fmt::runtime(md ? "- {}\n" : "note: {}\n"), n);
            sections(run.sections);
        }
    // Records carry one row per GPU they are analysed on: with no GPU (the file's is not in the
    // catalog and --gpu was not given) there is nothing to tabulate; the note says so.
    if (!r.records.empty() && !r.gpus.empty()) {
        const std::size_t shown = top > 0 ? std::min(top, r.records.size()) : r.records.size();
        heading(shown < r.records.size() ? fmt::format("{} of {} records (--top)", shown, r.records.size())
                                         : fmt::format("{} records", r.records.size()));
        std::vector<std::string> header = kRecordHeader;
        std::vector<std::vector<std::string>> rows = record_rows(r, top);
        if (std::all_of(r.records.begin(), r.records.end(), [](const Record& x) { return x.cost.collective.has_value(); }))
            drop_flop_columns(header, rows);
        if (md)
            print_markdown_table(out, header, rows);
        else
            print_table(out, header, rows, 3);
    }
    for (const std::string& w : r.warnings)
        fmt::print(stderr, "bwacct ingest {}: warning: {}\n", r.tool, w);
}

// A section's rows as an array of {column key: cell} objects.
json rows_json(const Section& s) {
    json rows = json::array();
    for (const auto& row : s.rows) {
        json o = json::object();
        for (std::size_t i = 0; i < s.columns.size(); ++i)
            o[s.columns[i].key] = i < row.size() ? cell_json(row[i]) : json(nullptr);
        rows.push_back(std::move(o));
    }
    return rows;
}

json sections_json(const std::vector<Section>& list) {
    json sections = json::object();
    for (const Section& s : list)
        sections[s.key] = {{"title", s.title}, {"rows", rows_json(s)}, {"notes", s.notes}};
    return sections;
}

void print_json(const IngestReport& r, std::FILE* out, std::size_t top) {
    json doc;
    doc["schema"] = "bwacct.ingest/1";
    doc["tool"] = r.tool;
    if (!r.measured_by.empty())
        doc["measured_by"] = r.measured_by;
    doc["file"] = r.file;
    doc["format"] = r.format;
    if (!r.time_derivation.empty()) {
        doc["time_derived"] = true;
        doc["time_derivation"] = r.time_derivation;
    }
    doc["gpus"] = r.gpus;
    if (!r.summary.lines.empty() || !r.summary.fields.empty() || !r.summary.lists.empty()) {
        json summary = json::object();
        if (!r.summary.lines.empty())
            summary["lines"] = r.summary.lines;
        for (const auto& [key, value] : r.summary.fields)
            summary[key] = cell_json(value);
        for (const Section& list : r.summary.lists)
            summary[list.key] = rows_json(list);
        doc["summary"] = std::move(summary);
    }
    doc["records"] = json::array();
    const std::size_t n = top > 0 ? std::min(top, r.records.size()) : r.records.size();
    for (std::size_t i = 0; i < n; ++i)
        doc["records"].push_back(json::parse(detail::record_json(r.records[i], false)));
    doc["records_total"] = r.records.size();
    doc["sections"] = sections_json(r.sections);
    doc["notes"] = r.notes;
    doc["warnings"] = r.warnings;
    if (!r.runs.empty()) {
        json runs = json::array();
        for (const IngestRun& run : r.runs) {
            json o = json::object();
            for (const auto& [key, value] : run.fields)
                o[key] = cell_json(value);
            o["records_total"] = run.records_end - run.records_begin;
            o["sections"] = sections_json(run.sections);
            o["notes"] = run.notes;
            runs.push_back(std::move(o));
        }
        doc["runs"] = std::move(runs);
    }
    fmt::print(out, "{}\n", detail::json_text(doc, 2));
}

}  // namespace

void print_ingest(const IngestReport& r, Format format, std::FILE* out, std::size_t top) {
    IngestView view;
    view.top = top;
    print_ingest(r, format, out, view);
}

namespace {

// Every section of the report with the run it belongs to (0: the file's own sections).
std::vector<std::pair<std::size_t, const Section*>> all_sections(const IngestReport& r) {
    std::vector<std::pair<std::size_t, const Section*>> out;
    for (const Section& s : r.sections)
        out.push_back({0, &s});
    if (r.runs.size() > 1)
        for (std::size_t i = 0; i < r.runs.size(); ++i)
            for (const Section& s : r.runs[i].sections)
                out.push_back({i + 1, &s});
    return out;
}

std::string section_names(const IngestReport& r) {
    std::vector<std::string> names;
    if (!r.records.empty())
        names.push_back("records");
    for (const auto& [run, s] : all_sections(r))
        if (std::find(names.begin(), names.end(), s->key) == names.end())
            names.push_back(s->key);
    std::string out;
    for (const std::string& n : names)
        out += fmt::format("{}{}", out.empty() ? "" : ", ", n);
    return out;
}

std::string csv_value(const Cell& c) {
    if (std::holds_alternative<double>(c))
        return fmt::format("{}", std::get<double>(c));
    if (std::holds_alternative<std::monostate>(c))
        return {};
    return csv_quote(cell_text(c, 0));
}

// One section (its rows in every run) as one table: CSV or Markdown, or JSONL objects.
void print_section(const IngestReport& r, const std::string& key, Format format, std::FILE* out, bool header) {
    const bool several = r.runs.size() > 1;
    bool headed = !header;
    for (const auto& [run, s] : all_sections(r)) {
        if (s->key != key)
            continue;
        if (!headed) {
            std::vector<std::string> names;
            if (several)
                names.push_back("run");
            for (const Column& c : s->columns)
                names.push_back(format == Format::md ? c.header : c.key);
            if (format == Format::csv) {
                std::string line;
                for (const std::string& n : names)
                    line += fmt::format("{}{}", line.empty() ? "" : ",", csv_quote(n));
                fmt::print(out, "{}\n", line);
            } else if (format == Format::md) {
                print_markdown_table(out, names, {});
            }
            headed = true;
        }
        for (const auto& row : s->rows) {
            if (format == Format::jsonl) {
                json o = json::object();
                o["section"] = s->key;
                if (several)
                    o["run"] = run;
                for (std::size_t i = 0; i < s->columns.size(); ++i)
                    o[s->columns[i].key] = i < row.size() ? cell_json(row[i]) : json(nullptr);
                fmt::print(out, "{}\n", detail::json_text(o));
                continue;
            }
            std::vector<std::string> cells;
            if (several)
                cells.push_back(fmt::format("{}", run));
            for (std::size_t i = 0; i < s->columns.size(); ++i) {
                const Cell c = i < row.size() ? row[i] : Cell();
                cells.push_back(format == Format::csv ? csv_value(c) : detail::md_cell(cell_text(c, s->columns[i].decimals)));
            }
            std::string line;
            for (const std::string& c : cells)
                line += format == Format::csv ? fmt::format("{}{}", line.empty() ? "" : ",", c) : fmt::format("| {} ", c);
            fmt::print(out, "{}{}\n", line, format == Format::md ? "|" : "");
        }
    }
}

// The records as one table whose columns are every op's, in order of first appearance (a torch trace
// holds gemm and attention records: their parameters differ); a record lacking a column leaves it empty.
void print_records_table(const std::vector<Record>& records, std::size_t n, Format format, std::FILE* out, bool header) {
    std::vector<std::string> names;
    std::vector<std::vector<detail::Row>> flat;
    for (std::size_t i = 0; i < n; ++i) {
        flat.push_back(detail::flatten(records[i]));
        for (const detail::Row& row : flat.back())
            for (const detail::Cell& c : row)
                if (std::find(names.begin(), names.end(), c.name) == names.end())
                    names.push_back(c.name);
    }
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s;
        for (std::size_t i = 0; i < cells.size(); ++i)
            s += format == Format::csv ? fmt::format("{}{}", i > 0 ? "," : "", csv_quote(cells[i]))
                                       : fmt::format("| {} ", detail::md_cell(cells[i]));
        fmt::print(out, "{}{}\n", s, format == Format::md ? "|" : "");
    };
    if (header) {
        line(names);
        if (format == Format::md)
            line(std::vector<std::string>(names.size(), "---"));
    }
    for (const auto& rows : flat)
        for (const detail::Row& row : rows) {
            std::vector<std::string> cells(names.size());
            for (const detail::Cell& c : row) {
                const auto at = static_cast<std::size_t>(std::find(names.begin(), names.end(), c.name) - names.begin());
                cells[at] = format == Format::csv ? c.exact : c.human;
            }
            line(cells);
        }
}

// A record's JSON with "section":"records" in front.
std::string record_line(const Record& rec) {
    const json parsed = json::parse(detail::record_json(rec, false));
    json o = json::object();
    o["section"] = "records";
    for (const auto& [k, v] : parsed.items())
        o[k] = v;
    return detail::json_text(o);
}

}  // namespace

void print_ingest(const IngestReport& r, Format format, std::FILE* out, const IngestView& view) {
    const std::size_t n = view.top > 0 ? std::min(view.top, r.records.size()) : r.records.size();
    // --section names a table the report has; checked before anything is printed.
    if (!view.section.empty()) {
        const bool known =
            (view.section == "records" && !r.records.empty()) ||
            std::any_of(r.sections.begin(), r.sections.end(), [&](const Section& s) { return s.key == view.section; }) ||
            std::any_of(r.runs.begin(), r.runs.end(), [&](const IngestRun& run) {
                return std::any_of(run.sections.begin(), run.sections.end(),
                                   [&](const Section& s) { return s.key == view.section; });
            });
        if (!known)
            throw InputError("--section",
                             fmt::format("'{}' is not a table of this report; it has: {}", view.section, section_names(r)));
    }
    switch (format) {
        case Format::table:
            print_human(r, format, out, view.top);
            return;
        case Format::json:
            print_json(r, out, view.top);
            return;
        case Format::md:
            if (view.section.empty()) {
                print_human(r, format, out, view.top);
                return;
            }
            [[fallthrough]];
        case Format::jsonl:
        case Format::csv: {
            // The default table: the records when there are any, else (BabelStream, nsys, ncu) the
            // first section for CSV; JSONL carries everything.
            std::string section = view.section;
            if (section.empty() && format == Format::csv)
                section = !r.records.empty() ? "records" : !r.sections.empty() ? r.sections.front().key : "";
            if (section.empty() || section == "records") {
                if (format == Format::jsonl) {
                    for (std::size_t i = 0; i < n; ++i)
                        fmt::print(out, "{}\n", record_line(r.records[i]));
                } else if (n > 0) {
                    print_records_table(r.records, n, format, out, view.header);
                }
            }
            if (format == Format::jsonl && section.empty()) {
                std::vector<std::string> keys;
                for (const auto& [run, s] : all_sections(r))
                    if (std::find(keys.begin(), keys.end(), s->key) == keys.end())
                        keys.push_back(s->key);
                for (const std::string& k : keys)
                    print_section(r, k, format, out, false);
            } else if (!section.empty() && section != "records") {
                print_section(r, section, format, out, view.header);
            }
            for (const std::string& w : r.warnings)
                fmt::print(stderr, "bwacct ingest {}: warning: {}\n", r.tool, w);
            return;
        }
    }
}

}  // namespace bwacct
