// Log lines wrapped in inline markup by a document converter: reStructuredText roles (pandoc's ":mark:`...`" for a
// highlighted line of a Word document) or markdown inline code ("`...`"), a role's text wrapped onto the next lines.
// Pure: text in, text out. Shared by the nccl-tests and BabelStream readers.
#pragma once
#include <string>
#include <string_view>

namespace bwacct::ingest {

// `text` with each line that starts (after blanks) with a role ":name:`" or one backtick unwrapped: the role
// markers and backticks of the line removed and, while its backticks are unbalanced (the role's text went on past
// the line's end), the next lines (at most 4) joined to it with a blank. A joined line is replaced by an empty
// line, so every line keeps its number. Other lines, and code fences ("```"), are kept as they are.
std::string unwrap_inline_markup(std::string_view text);

}  // namespace bwacct::ingest
