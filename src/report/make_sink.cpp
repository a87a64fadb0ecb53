#include "bwacct/error.h"
#include "sinks.h"

namespace bwacct {

Format parse_format(std::string_view s) {
    if (s == "table")
        return Format::table;
    if (s == "json")
        return Format::json;
    if (s == "jsonl")
        return Format::jsonl;
    if (s == "csv")
        return Format::csv;
    if (s == "md")
        return Format::md;
    throw InputError("--format", "unknown format '" + std::string(s) + "'; accepted: table, json, jsonl, csv, md");
}

std::unique_ptr<Sink> make_sink(Format f, std::FILE* out, const SinkOptions& opt) {
    using namespace detail;
    switch (f) {
        case Format::table:
            return std::make_unique<TableSink>(out, opt);
        case Format::json:
            return std::make_unique<JsonSink>(out, opt);
        case Format::jsonl:
            return std::make_unique<JsonlSink>(out, opt);
        case Format::csv:
            return std::make_unique<RowSink>(out, RowSink::Style::csv);
        case Format::md:
            return std::make_unique<RowSink>(out, RowSink::Style::markdown);
    }
    return nullptr;
}

}  // namespace bwacct
