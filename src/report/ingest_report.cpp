// Renders an IngestReport (include/bwacct/ingest.h): table, JSON (bwacct.ingest/1), JSONL, CSV, Markdown.
#include "bwacct/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

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
    if (std::holds_alternative<double>(c))
        return fixed(std::get<double>(c), decimals);
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

void print_human(const IngestReport& r, Format format, std::FILE* out, std::size_t top) {
    const bool md = format == Format::md;
    auto heading = [&](const std::string& title) { fmt::print(out, fmt::runtime(md ? "\n### {}\n\n" : "\n{}\n"), title); };
    fmt::print(out, fmt::runtime(md ? "## {}: {}\n\n" : "{}: {}\n"), r.tool, r.file);
    fmt::print(out, "{}format: {}; times ingested: measured by {}, read from the file\n", md ? "" : "  ", r.format, r.tool);
    // The answer first: the summary's lines before the detailed sections.
    if (!r.summary.lines.empty()) {
        heading("summary");
        for (const std::string& line : r.summary.lines)
            fmt::print(out, fmt::runtime(md ? "- {}\n" : "  {}\n"), line);
    }
    // Records carry one row per GPU they are analysed on: with no GPU (the file's is not in the
    // catalog and --gpu was not given) there is nothing to tabulate; the note says so.
    if (!r.records.empty() && !r.gpus.empty()) {
        const std::size_t shown = top > 0 ? std::min(top, r.records.size()) : r.records.size();
        heading(shown < r.records.size() ? fmt::format("{} of {} records (--top)", shown, r.records.size())
                                         : fmt::format("{} records", r.records.size()));
        if (md)
            print_markdown_table(out, kRecordHeader, record_rows(r, top));
        else
            print_table(out, kRecordHeader, record_rows(r, top), 3);
    }
    const auto sections = [&](const std::vector<Section>& list) {
        for (const Section& s : list) {
            heading(s.title);
            if (md)
                print_markdown_table(out, section_headers(s), section_text_rows(s, false));
            else
                print_table(out, section_headers(s), section_text_rows(s, true), 1);
            for (const std::string& n : s.notes)
                fmt::print(out, fmt::runtime(md ? "\n- {}\n" : "  note: {}\n"), n);
        }
    };
    sections(r.sections);
    // Several runs: each under its own heading, with its own notes.
    if (r.runs.size() > 1)
        for (const IngestRun& run : r.runs) {
            fmt::print(out, fmt::runtime(md ? "\n## {}\n" : "\n== {} ==\n"), run.title);
            sections(run.sections);
            if (!run.notes.empty())
                fmt::print(out, "\n");
            for (const std::string& n : run.notes)
                fmt::print(out, fmt::runtime(md ? "- {}\n" : "note: {}\n"), n);
        }
    if (!r.notes.empty())
        fmt::print(out, "\n");
    for (const std::string& n : r.notes)
        fmt::print(out, fmt::runtime(md ? "- {}\n" : "note: {}\n"), n);
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
    doc["file"] = r.file;
    doc["format"] = r.format;
    doc["gpus"] = r.gpus;
    if (!r.summary.fields.empty() || !r.summary.lists.empty()) {
        json summary = json::object();
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
    fmt::print(out, "{}\n", doc.dump(2));
}

// Sections-only reports (BabelStream, nsys, ncu) in the machine views: JSONL, one object per section
// row with its section's key under "section"; CSV, one block per section (header "section,...").
void print_sections_flat(const IngestReport& r, Format format, std::FILE* out) {
    bool first_block = true;
    for (const Section& s : r.sections) {
        if (format == Format::csv) {
            std::string head = "section";
            for (const Column& c : s.columns)
                head = fmt::format("{},{}", head, csv_quote(c.key));
            fmt::print(out, "{}{}\n", first_block ? "" : "\n", head);
            first_block = false;
        }
        for (const auto& row : s.rows) {
            if (format == Format::jsonl) {
                json o = json::object();
                o["section"] = s.key;
                for (std::size_t i = 0; i < s.columns.size(); ++i)
                    o[s.columns[i].key] = i < row.size() ? cell_json(row[i]) : json(nullptr);
                fmt::print(out, "{}\n", o.dump());
            } else {
                std::string line = csv_quote(s.key);
                for (std::size_t i = 0; i < s.columns.size(); ++i) {
                    const Cell c = i < row.size() ? row[i] : Cell();
                    const std::string v = std::holds_alternative<double>(c)           ? fmt::format("{}", std::get<double>(c))
                                          : std::holds_alternative<std::monostate>(c) ? std::string()
                                                                                      : csv_quote(cell_text(c, 0));
                    line = fmt::format("{},{}", line, v);
                }
                fmt::print(out, "{}\n", line);
            }
        }
    }
    for (const std::string& w : r.warnings)
        fmt::print(stderr, "bwacct ingest {}: warning: {}\n", r.tool, w);
}

}  // namespace

void print_ingest(const IngestReport& r, Format format, std::FILE* out, std::size_t top) {
    switch (format) {
        case Format::table:
        case Format::md:
            print_human(r, format, out, top);
            return;
        case Format::json:
            print_json(r, out, top);
            return;
        case Format::jsonl:
        case Format::csv: {
            if (r.records.empty()) {
                print_sections_flat(r, format, out);
                return;
            }
            SinkOptions opt;
            opt.sweep = true;
            const std::size_t n = top > 0 ? std::min(top, r.records.size()) : r.records.size();
            if (format == Format::jsonl) {
                auto sink = make_sink(format, out, opt);
                for (std::size_t i = 0; i < n; ++i)
                    sink->emit(r.records[i]);
                sink->finish();
            } else {
                // CSV has one header per op: records of different ops (gemm, attention) have different
                // parameters, so each op gets its own block, in the order the ops first appear.
                std::vector<std::string> ops;
                for (std::size_t i = 0; i < n; ++i)
                    if (std::find(ops.begin(), ops.end(), r.records[i].cost.op) == ops.end())
                        ops.push_back(r.records[i].cost.op);
                for (std::size_t k = 0; k < ops.size(); ++k) {
                    if (k > 0)
                        fmt::print(out, "\n");
                    auto sink = make_sink(format, out, opt);
                    for (std::size_t i = 0; i < n; ++i)
                        if (r.records[i].cost.op == ops[k])
                            sink->emit(r.records[i]);
                    sink->finish();
                }
            }
            for (const std::string& w : r.warnings)
                fmt::print(stderr, "bwacct ingest {}: warning: {}\n", r.tool, w);
            return;
        }
    }
}

}  // namespace bwacct
