// JSON: one pretty object for one record, an array for a sweep (streamed element by element);
// JSONL: one compact object per line.
#include "sinks.h"

#include <fmt/format.h>

#include "json_pretty.h"
#include "json_record.h"

namespace bwacct::detail {

void JsonSink::emit(const Record& r) {
    const std::string j = record_json(r, opt_.explain);
    if (!opt_.sweep) {
        // One record is for reading: re-indent (ordered_json keeps the contract's key order).
        fmt::print(out_, "{}\n", pretty_json(j));
        return;
    }
    fmt::print(out_, "{}{}", count_++ == 0 ? "[\n" : ",\n", j);
}

void JsonSink::finish() {
    if (opt_.sweep)
        fmt::print(out_, "{}]\n", count_ == 0 ? "[" : "\n");
}

void JsonlSink::emit(const Record& r) { fmt::print(out_, "{}\n", record_json(r, opt_.explain)); }

}  // namespace bwacct::detail
