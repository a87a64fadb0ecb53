// The one quoting path of every CSV and Markdown writer in src/report: a cell's text goes through
// csv_quote or md_cell before it is joined into a row, whatever the writer.
#pragma once
#include <string>

namespace bwacct::detail {

// A CSV field as RFC 4180 wants it: quoted when it holds a comma, a double quote, a line break
// (CR or LF), each inner quote doubled ("" for ").
std::string csv_quote(const std::string& s);

// A Markdown (GFM) table cell: '|' and '\' escaped with a backslash, each line break (CRLF, CR or
// LF) written as <br>, so one record stays one table row with its columns where they belong.
std::string md_cell(const std::string& s);

}  // namespace bwacct::detail
