// An RFC 4180 CSV reader: comma-separated fields, double-quoted fields that may hold commas, quotes
// ("" inside quotes is one ") and line breaks; LF or CRLF line ends; a UTF-8 byte-order mark is
// skipped. Pure: text in, records out. Shared by the ingest parsers (nsys, ncu, BabelStream).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bwacct/text_file.h"

namespace bwacct::ingest {

struct CsvRecord {
    std::size_t line = 0;  // 1-based line of the text where the record starts (for messages)
    std::vector<std::string> fields;
};

// All records of `text`; empty lines are skipped. Throws InputError naming `origin` on an unterminated
// quoted field or text after a closing quote ("a"b), with the line number.
// `first_line`: the line number of the text's first line in its file (a table cut out of a larger file).
std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& origin, char separator = ',',
                                 std::size_t first_line = 1);

// The lines of `text`, without their line ends (LF or CRLF) and without a leading UTF-8 byte-order mark.
std::vector<std::string> split_lines(const std::string& text);

// The blank-separated words of a line (blanks: space, tab, and the other std::isspace characters).
std::vector<std::string> split_words(const std::string& line);

// A number as the profilers print it: optional sign, digits with optional thousands separators
// ("1,234,567.8"), optional fraction and exponent, surrounding blanks ignored. nullopt when the text
// is not such a number (empty, "n/a", "1.2.3", "12abc", NaN or infinity).
std::optional<double> parse_number_text(std::string_view text);

// Names read from a file go through bwacct::valid_utf8 (text_file.h) before any output, with a warning.
using bwacct::valid_utf8;

// The [start, end) extents of the runs of dashes of a console table's rule line ("----  -------"): the columns of
// nsys's and ncu's console tables.
std::vector<std::pair<std::size_t, std::size_t>> dash_spans(const std::string& rule);

}  // namespace bwacct::ingest
