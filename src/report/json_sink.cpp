// JSON: one pretty object for one record, an array for a sweep (streamed element by element);
// JSONL: one compact object per line.
#include "sinks.h"

#include <fmt/format.h>

#include "json_record.h"

namespace bwacct::detail {

void JsonSink::emit(const Record& r) {
    const auto j = record_json(r, opt_.explain);
    if (!opt_.sweep) {
        fmt::print(out_, "{}\n", j.dump(2));
        return;
    }
    fmt::print(out_, "{}{}", count_++ == 0 ? "[\n" : ",\n", j.dump());
}

void JsonSink::finish() {
    if (opt_.sweep) fmt::print(out_, "{}]\n", count_ == 0 ? "[" : "\n");
}

void JsonlSink::emit(const Record& r) { fmt::print(out_, "{}\n", record_json(r, opt_.explain).dump()); }

}  // namespace bwacct::detail
