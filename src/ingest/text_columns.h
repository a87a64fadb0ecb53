// Column text a copy changed on its way into a file: Unicode blanks a web page or a word processor put where the
// program printed ASCII ones, and two logs pasted side by side. Pure: text in, text out. Shared by the nccl-tests
// and BabelStream readers.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bwacct::ingest {

// What ascii_blanks changed.
struct BlankReport {
    std::size_t blanks = 0;      // Unicode blanks read as ASCII blanks
    std::size_t thousands = 0;   // Unicode blanks read as thousands separators (removed)
    std::size_t first_line = 0;  // line (1-based) of the first thousands separator, 0 when none
    std::string first_text;      // that number as written (UTF-8, up to 40 bytes)
    std::string first_read;      // and as read
};

// True when `text` holds a Unicode blank: no-break space U+00A0, the spaces U+2000..U+200A (figure, thin, ...),
// narrow no-break space U+202F, ideographic space U+3000.
bool has_unicode_blanks(std::string_view text);

// `text` with each Unicode blank an ASCII blank, except one that stands alone between a digit and a group of exactly
// three digits (followed by no further digit) on a line whose columns are otherwise apart by ASCII blanks (two in a
// row, or a tab): a locale's thousands separator ("1 709 360.800"), removed. A line whose gaps are all Unicode
// blanks (a web page's &nbsp;) has them all read as blanks. Every line keeps its number.
std::string ascii_blanks(std::string_view text, BlankReport& report);

// Two logs pasted side by side (`paste`, `pr -m`, an editor's split view: "<left line>  |  <right line>"): when at
// least two lines split at a '|' with a blank on each side into a left and a right part that each start like a log
// line ('#' or a digit, after blanks) and at least one of them has a digit-led part on both sides, the text with
// each such line's left part in its place and the right parts after the last line, one per line, after an empty
// line; `first`/`last` the 1-based lines that were split. Otherwise nullopt (a markdown table's "| a | b |" starts
// with '|' and is not split).
struct SideBySide {
    std::string text;
    std::size_t first = 0;
    std::size_t last = 0;
    std::size_t lines = 0;
};
std::optional<SideBySide> split_side_by_side(std::string_view text);

// Result rows pasted as a markdown table (a rich-text editor's: "1024 | 512 | half | sum | -1 | 5.39 | ...", leading and
// trailing '|' optional, a "-- | -- | ..." separator row, the log's '#' escaped as "\#"): when a line of at least 8
// cells, each one token, the first a number, is found, the text with each such line's cells apart by blanks, the
// separator rows empty and "\#" lines unescaped; else nullopt. Every line keeps its number.
struct MarkdownTable {
    std::string text;
    std::size_t rows = 0, separators = 0, escaped = 0;
    std::size_t first_line = 0;  // 1-based line of the first table row
};
std::optional<MarkdownTable> markdown_table_rows(std::string_view text);

}  // namespace bwacct::ingest
