// Column text a copy changed on its way into a file: Unicode blanks a web page or a word processor put where the
// program printed ASCII ones, and two logs pasted side by side. Pure: text in, text out. Shared by the nccl-tests
// and BabelStream readers.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bwacct::ingest {

// What ascii_blanks changed.
struct BlankReport {
    std::size_t blanks = 0;      // Unicode blanks read as ASCII blanks
    std::size_t thousands = 0;   // Unicode blanks read as thousands separators (removed)
    std::size_t first_line = 0;  // line (1-based) of the first thousands separator, 0 when none
    std::string first_text;      // that number as written (UTF-8, up to 40 bytes)
    std::string first_read;      // and as read
    // Lines that disagree on what a lone Unicode blank between digits is, both set when the file holds both: a
    // thousands separator on a line of ASCII column gaps (grouped_line), a column gap on a line of Unicode gaps alone
    // (gap_line). Every Unicode blank is then read as a blank.
    std::size_t grouped_line = 0, gap_line = 0;
};

// True when `text` holds a Unicode blank: no-break space U+00A0, the spaces U+2000..U+200A (figure, thin, ...),
// narrow no-break space U+202F, ideographic space U+3000.
bool has_unicode_blanks(std::string_view text);

// `text` with each Unicode blank an ASCII blank, except, in a file that writes its numbers with a locale's thousands
// separators, one that stands alone between a digit and a group of exactly three digits (followed by no further
// digit): removed ("1 709 360.800"), on every line of the file. The file does when some line whose columns are apart by
// ASCII blanks (a blank or tab between words after the line's indentation) holds such a separator and no line has its
// columns apart by Unicode blanks alone (a web page's &nbsp;: a lone one between two numbers, not a separator's shape:
// "1024 32", "-1 28.15"; one between words, "NVIDIA A100", is no evidence). Decided once per file so
// that a number is read one way on every line. Every line keeps its number.
std::string ascii_blanks(std::string_view text, BlankReport& report);

// The warning for a file whose lone Unicode blanks between digits are read both ways (BlankReport's grouped_line and
// gap_line), prefixed "line N: "; empty when they are not.
std::string blank_conflict_warning(const BlankReport& report);

// Two logs pasted side by side (`paste`, `pr -m`, an editor's split view: "<left line>  |  <right line>"): when at
// least two lines split at a '|' with a blank on each side into a left and a right part that each start like a log
// line ('#' or a digit, after blanks) and at least one of them holds a result row or column header on both sides (at
// least 8 words, row-shaped: not a logger's time stamp before a row, nor a note after one), the text with
// each such line's left part in its place and the right parts after the last line, one per line, after an empty
// line; `first`/`last` the 1-based lines that were split. Otherwise nullopt (a markdown table's "| a | b |" starts
// with '|' and is not split).
struct SideBySide {
    std::string text;
    std::size_t first = 0;
    std::size_t last = 0;
    std::size_t lines = 0;
    std::size_t left_lines = 0;            // lines of `text` before the empty line and the right parts
    std::vector<std::size_t> right_lines;  // the 1-based file line of each right part, in order
};
std::optional<SideBySide> split_side_by_side(std::string_view text);

// A logger's prefix before " | " on every line that has text ("2024-05-01 12:00:01,234 | ", "ts | INFO | "): on each
// line, the same number of parts before " | ", each shorter than 8 words and without '#', cut; the text with every
// such prefix cut (each line keeps its number), or nullopt when some line has none (a note after some rows, two logs
// side by side) or fewer than two lines have text.
std::optional<std::string> cut_logger_prefix(std::string_view text);

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
