// The shared RFC 4180 CSV reader of the ingest parsers (src/ingest/csv.h) and its number reader
// (thousands separators, as the profilers print numbers), on every field.
#include <cmath>
#include <cstdint>
#include <string>

#include "fuzz_common.h"
#include "ingest/csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using bwacct::fuzz::check;
    const std::string text = bwacct::fuzz::as_text(data, size);
    for (char separator : {',', ';'})
        bwacct::fuzz::accept_rejection([&] {
            for (const bwacct::ingest::CsvRecord& record : bwacct::ingest::parse_csv(text, "fuzz.csv", separator)) {
                check(record.line >= 1, "a record's line is 0");
                for (const std::string& field : record.fields)
                    if (const auto v = bwacct::ingest::parse_number_text(field))
                        check(std::isfinite(*v), "parse_number_text returned a non-finite number");
            }
        });
    if (const auto v = bwacct::ingest::parse_number_text(text))
        check(std::isfinite(*v), "parse_number_text returned a non-finite number");
    return 0;
}
