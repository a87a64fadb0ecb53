#include <fmt/format.h>

#include "sinks.h"

namespace bwacct::detail {

void RowSink::line(const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (style_ == Style::csv) {
            if (i > 0)
                out += ',';
            out += csv_quote(cells[i]);
        } else {
            out += fmt::format("| {} ", md_cell(cells[i]));
        }
    }
    fmt::print(out_, "{}{}\n", out, style_ == Style::markdown ? "|" : "");
}

void RowSink::emit(const Record& r) {
    for (const Row& row : flatten(r)) {
        if (!header_done_) {
            std::vector<std::string> names;
            for (const Cell& c : row)
                names.push_back(c.name);
            line(names);
            if (style_ == Style::markdown)
                line(std::vector<std::string>(names.size(), "---"));
            header_done_ = true;
        }
        std::vector<std::string> cells;
        for (const Cell& c : row)
            cells.push_back(style_ == Style::csv ? c.exact : c.human);
        line(cells);
    }
}

}  // namespace bwacct::detail
