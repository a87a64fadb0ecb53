// nsys console tables as a terminal or a paste left them, set right before the readers see them (nsys_parts.h):
// numbers printed in a decimal-comma locale, and a header whose last title wrapped onto a line of its own.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "nsys_parts.h"

namespace bwacct {
namespace {

bool numeric_token(const std::string& t) {
    return !t.empty() && std::isdigit(static_cast<unsigned char>(t.front())) &&
           std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c) || c == '.' || c == ','; });
}

// A number only a decimal-comma locale prints: a comma with one or two digits after it, at the end ("33,0",
// "2.176,0"; a thousands comma has three), or two dots ("12.373.190").
bool decimal_comma_token(const std::string& t) {
    if (!numeric_token(t))
        return false;
    const std::size_t comma = t.rfind(',');
    const bool short_fraction = comma != std::string::npos && t.find(',') == comma && t.size() - comma - 1 >= 1 &&
                                t.size() - comma - 1 <= 2 && t.find('.', comma) == std::string::npos;
    return short_fraction || std::count(t.begin(), t.end(), '.') >= 2;
}

std::vector<std::string> tokens(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string t; in >> t;)
        out.push_back(t);
    return out;
}

// A console row: its first token a number, at least three numbers among its tokens.
bool console_row(const std::vector<std::string>& toks) {
    return !toks.empty() && numeric_token(toks.front()) &&
           std::count_if(toks.begin(), toks.end(), [](const std::string& t) { return numeric_token(t); }) >= 3;
}

// A dashed rule under a console header: runs of dashes separated by blanks, at least two runs.
bool dashed_rule(const std::string& line) {
    const std::string t = nsys_parts::trim(line);
    return t.size() >= 3 && t.front() == '-' &&
           std::all_of(t.begin(), t.end(), [](unsigned char c) { return c == '-' || c == ' ' || c == '\t'; }) &&
           t.find(' ') != std::string::npos;
}

}  // namespace

std::vector<std::string> nsys_parts::mend_console_paste(std::vector<std::string> lines, std::vector<std::string>& warnings) {
    // A decimal-comma locale (nsys 2021 formatted by the user's locale: "33,0" %, "12.373.190" ns, "2.176,0"
    // ns): '.' and ',' swapped in every number of every console row, which keeps the columns where they were.
    std::string seen;
    std::size_t seen_line = 0;
    for (std::size_t i = 0; i < lines.size() && seen.empty(); ++i) {
        const std::vector<std::string> toks = tokens(lines[i]);
        if (console_row(toks))
            for (const std::string& t : toks)
                if (decimal_comma_token(t)) {
                    seen = t;
                    seen_line = i + 1;
                    break;
                }
    }
    if (!seen.empty()) {
        for (std::string& line : lines) {
            if (!console_row(tokens(line)))
                continue;
            for (std::size_t i = 0; i < line.size();) {
                const std::size_t a = line.find_first_not_of(" \t", i);
                if (a == std::string::npos)
                    break;
                std::size_t b = line.find_first_of(" \t", a);
                if (b == std::string::npos)
                    b = line.size();
                if (numeric_token(line.substr(a, b - a)))
                    for (std::size_t c = a; c < b; ++c)
                        line[c] = line[c] == '.' ? ',' : line[c] == ',' ? '.' : line[c];
                i = b;
            }
        }
        warnings.push_back(
            fmt::format("line {}: '{}' is a number of a decimal-comma locale: every table's numbers read with ',' as the decimal "
                        "point and '.' between thousands",
                        seen_line, seen));
    }
    // A header whose last titles wrapped onto lines of their own, blank lines between it and its rule (nsys 2021 in
    // a narrow terminal: "... StdDev", "      Name", "", " -----"): the titles joined and moved onto the line right
    // above the rule, the lines they left blanked (every row keeps its line number).
    for (std::size_t r = 2; r < lines.size(); ++r) {
        if (!dashed_rule(lines[r]) || dashed_rule(lines[r - 1]))
            continue;
        std::size_t h = r - 1;
        std::string wrapped;
        while (h + 3 >= r && h > 0 && (blank(lines[h]) || tokens(lines[h]).size() == 1)) {
            if (!blank(lines[h]))
                wrapped = trim(lines[h]) + (wrapped.empty() ? "" : "  " + wrapped);
            --h;
        }
        const std::string t = trim(lines[h]);
        if (h + 1 == r || t.find("  ") == std::string::npos || dashed_rule(lines[h]) || console_row(tokens(lines[h])))
            continue;  // not a header of columns (two blanks or more between titles) over wrapped titles
        std::string head = lines[h];
        while (!head.empty() && (head.back() == ' ' || head.back() == '\t'))
            head.pop_back();
        if (!wrapped.empty())
            head += "  " + wrapped;
        for (std::size_t i = h; i < r; ++i)
            lines[i].clear();
        lines[r - 1] = head;
    }
    return lines;
}

}  // namespace bwacct
