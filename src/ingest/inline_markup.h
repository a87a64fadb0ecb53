// Log lines wrapped in inline markup by a document converter: reStructuredText roles (pandoc's ":mark:`...`" for a
// highlighted line of a Word document) or markdown inline code ("`...`"), a role's text wrapped onto the next lines.
// Pure: text in, text out. Shared by the nccl-tests and BabelStream readers.
#pragma once
#include <string>
#include <string_view>

namespace bwacct::ingest {

// `text` with each line that starts (after blanks) with a role ":name:`" or one backtick unwrapped: the role
// markers and backticks of the line removed and, for a role whose backticks close within the next 4 lines of its
// paragraph (the role's text went on past the line's end), those lines joined to it with a blank. A joined line is
// replaced by an empty line, so every line keeps its number. Other lines, a line of backticks alone ("`", "```":
// a fence), and the lines after markdown inline code or a role that does not close, are kept as they are.
std::string unwrap_inline_markup(std::string_view text);

// `text` without a terminal's escape sequences (a coloured launcher or CI log): CSI "ESC [ ... m" and the like (up
// to the final byte @..~), OSC "ESC ] ... BEL", two- and three-byte escapes, and the SGR residue a copy from a
// terminal or a web page leaves when it drops the ESC ("[32m", "[0m", "[1;31m", "[39m", a bare "[m" before a blank,
// a line end or '['). Newlines are kept, so every line
// keeps its number.
std::string strip_terminal_escapes(std::string_view text);

// True when `text` holds an ESC or an SGR residue that strip_terminal_escapes removes ("[32m", "[39m", "[0m", a
// bare "[m" before a blank, a line end or '['): whether a reader needs to strip them (one rule for both readers).
bool has_terminal_escapes(std::string_view text);

}  // namespace bwacct::ingest
