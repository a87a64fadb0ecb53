#include <array>

#include "bwacct/choice.h"
#include "sinks.h"

namespace bwacct {

Format parse_format(std::string_view s) {
    static constexpr std::array<Choice<Format>, 5> kFormats{
        {{"table", Format::table}, {"json", Format::json}, {"jsonl", Format::jsonl}, {"csv", Format::csv}, {"md", Format::md}}};
    return parse_choice(s, "--format", "format", kFormats);
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
            return std::make_unique<RowSink>(out, RowSink::Style::csv, opt.header);
        case Format::md:
            return std::make_unique<RowSink>(out, RowSink::Style::markdown, opt.header);
    }
    return nullptr;
}

}  // namespace bwacct
