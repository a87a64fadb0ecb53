// nsys console tables as a terminal or a paste left them, set right before the readers see them (nsys_parts.h):
// numbers printed in a decimal-comma locale, and a header whose last title wrapped onto a line of its own.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>

#include "csv.h"
#include "nsys_parts.h"

namespace bwacct {
namespace {

using ingest::split_words;

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

// The numeric cells of a console row: its tokens up to the first that is not a number (the name, a Style or a
// device column; digits inside a name, "lr 0,01", "<128, 64>", "2.1.0", are never cells).
std::size_t leading_numbers(const std::vector<std::string>& toks) {
    std::size_t n = 0;
    while (n < toks.size() && numeric_token(toks[n]))
        ++n;
    return n;
}

// A console row: at least three numeric cells leading it.
bool console_row(const std::vector<std::string>& toks) { return leading_numbers(toks) >= 3; }

// A dashed rule under a console header: runs of dashes separated by blanks, at least two runs.
bool dashed_rule(const std::string& line) {
    const std::string t = nsys_parts::trim(line);
    return t.size() >= 3 && t.front() == '-' &&
           std::all_of(t.begin(), t.end(), [](unsigned char c) { return c == '-' || c == ' ' || c == '\t'; }) &&
           t.find(' ') != std::string::npos;
}

std::string swapped(std::string t) {
    for (char& c : t)
        c = c == '.' ? ',' : c == ',' ? '.' : c;
    return t;
}

// The rows of one console table (the rows under a dashed rule, to a line that is neither a row nor blank) and how
// its numeric cells read: in the C locale, and with '.' and ',' swapped.
struct Group {
    std::vector<std::size_t> rows;
    bool c_ok = true, swap_ok = true;
    std::string comma;  // the first cell only a decimal-comma locale prints ("33,0", "12.373.190")
    std::size_t comma_line = 0;
    std::size_t rule = 0;  // the dashed rule's line + 1; 0: rows without one
    // Its own cells decide: a decimal comma where the C reading fails and the swapped one holds (undecided where
    // both hold: "19,000  5  3,000").
    bool decimal_comma() const { return !comma.empty() && !c_ok && swap_ok; }
};

std::vector<Group> console_tables(const std::vector<std::string>& lines) {
    std::vector<Group> groups;
    bool open = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (dashed_rule(lines[i])) {
            groups.push_back({});
            groups.back().rule = i + 1;
            open = true;
            continue;
        }
        if (nsys_parts::blank(lines[i]))
            continue;
        const std::vector<std::string> toks = split_words(lines[i]);
        if (!console_row(toks)) {
            open = false;
            continue;
        }
        if (!open) {
            groups.push_back({});
            open = true;
        }
        Group& g = groups.back();
        g.rows.push_back(i);
        for (std::size_t k = 0; k < leading_numbers(toks); ++k) {
            g.c_ok = g.c_ok && ingest::parse_number_text(toks[k]).has_value();
            g.swap_ok = g.swap_ok && ingest::parse_number_text(swapped(toks[k])).has_value();
            if (g.comma.empty() && decimal_comma_token(toks[k]) && !ingest::parse_number_text(toks[k])) {
                g.comma = toks[k];
                g.comma_line = i + 1;
            }
        }
    }
    return groups;
}

std::vector<std::string> tab_fields(const std::string& line) {
    std::vector<std::string> out;
    std::size_t a = 0;
    for (std::size_t b = line.find('\t');; b = line.find('\t', a)) {
        out.push_back(nsys_parts::trim(line.substr(a, b == std::string::npos ? std::string::npos : b - a)));
        if (b == std::string::npos)
            break;
        a = b + 1;
    }
    if (!out.empty() && !out.back().empty() && out.back().back() == '\r')
        out.back().pop_back();
    return out;
}

// nsys --format tsv: a header of titles split by single tabs (at least four, one a name: "Name", "Operation", "Range"; one a
// total or a start: "Total Time (ns)", "Total (MB)", "Start (ns)") with no dashed rule under it (a console table copied
// from a terminal has one), its rows to a blank line. Rewritten in place as CSV (cells holding ',' or '"' quoted), which
// the CSV readers then take: the line numbers stay.
void mend_tsv(std::vector<std::string>& lines) {
    for (std::size_t h = 0; h + 1 < lines.size(); ++h) {
        const std::string& next = lines[h + 1];
        const bool ruled = next.find('-') != std::string::npos && std::all_of(next.begin(), next.end(), [](char c) {
                               return c == '-' || c == ' ' || c == '\t' || c == '\r';
                           });
        if (std::count(lines[h].begin(), lines[h].end(), '\t') < 3 || ruled)
            continue;
        const std::vector<std::string> head = tab_fields(lines[h]);
        const auto any = [&head](std::initializer_list<const char*> prefixes) {
            return std::any_of(head.begin(), head.end(), [&prefixes](const std::string& t) {
                return std::any_of(prefixes.begin(), prefixes.end(), [&t](const char* p) { return t.rfind(p, 0) == 0; });
            });
        };
        if (std::any_of(head.begin(), head.end(), [](const std::string& t) { return t.empty(); }) ||
            !any({"Name", "Operation", "Range", "Kernel Name"}) || !any({"Total", "Start"}))
            continue;
        std::size_t i = h;
        for (; i < lines.size() && !nsys_parts::blank(lines[i]) && lines[i].find('\t') != std::string::npos; ++i) {
            std::string csv;
            const std::vector<std::string> fields = tab_fields(lines[i]);
            for (std::size_t k = 0; k < fields.size(); ++k) {
                const std::string& f = fields[k];
                if (k > 0)
                    csv += ',';
                if (f.find_first_of(",\"") == std::string::npos) {
                    csv += f;
                } else {
                    csv += '"';
                    for (const char c : f)
                        csv += c == '"' ? std::string("\"\"") : std::string(1, c);
                    csv += '"';
                }
            }
            lines[i] = csv;
        }
        h = i;
    }
}

// The cells of a CSV line as [begin, end) offsets of their text (inside the quotes of a quoted cell: "a, b" -> a, b).
std::vector<std::pair<std::size_t, std::size_t>> csv_cells(const std::string& line) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t p = 0;
    for (;;) {
        std::size_t a = p, b = 0, next = 0;
        if (p < line.size() && line[p] == '"') {
            std::size_t q = p + 1;
            while (q < line.size() && (line[q] != '"' || (q + 1 < line.size() && line[q + 1] == '"')))
                q += line[q] == '"' ? 2 : 1;  // "" inside quotes is one quote
            a = p + 1;
            b = std::min(q, line.size());
            next = line.find(',', b);
        } else {
            next = line.find(',', p);
            b = next == std::string::npos ? line.size() : next;
            while (b > a && line[b - 1] == '\r')
                --b;
        }
        out.emplace_back(a, b);
        if (next == std::string::npos)
            return out;
        p = next + 1;
    }
}

// The quoted numeric cells of a CSV line ("482,333": nsys's --format csv quotes a cell holding the separator) as
// [begin, end) offsets of their text inside the quotes; only cells of the columns `numeric` marks (a name "1,000" is
// text).
std::vector<std::pair<std::size_t, std::size_t>> quoted_numbers(const std::string& line, const std::vector<bool>& numeric) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    const std::vector<std::pair<std::size_t, std::size_t>> cells = csv_cells(line);
    for (std::size_t c = 0; c < cells.size() && c < numeric.size(); ++c) {
        const auto [a, b] = cells[c];
        const bool quoted = a > 0 && line[a - 1] == '"' && b < line.size() && line[b] == '"';
        const std::string cell = line.substr(a, b - a);
        if (numeric[c] && quoted && numeric_token(cell) && cell.find(',') != std::string::npos)
            out.emplace_back(a, b);
    }
    return out;
}

// Per column of the CSV table lines[h, end) (header at h): whether it holds numbers. A text column by its title
// (nsys's Name, Operation, Range, Style; rocprof's Kind, Direction, ...) or by a cell that is no number either way
// ("kB", "PushPop").
std::vector<bool> numeric_columns(const std::vector<std::string>& lines, std::size_t h, std::size_t end) {
    std::vector<bool> numeric;
    const std::string& head = lines[h];
    for (const auto& [a, b] : csv_cells(head)) {
        const std::string t = nsys_parts::trim(head.substr(a, b - a));
        static const char* const kText[] = {"Name",   "Operation", "Range",       "Style",      "Kind",     "Direction",
                                            "Domain", "Category",  "Kernel_Name", "KernelName", "Function", "Type"};
        numeric.push_back(std::none_of(std::begin(kText), std::end(kText), [&t](const char* x) { return t == x; }));
    }
    for (std::size_t i = h + 1; i < end; ++i) {
        const std::vector<std::pair<std::size_t, std::size_t>> cells = csv_cells(lines[i]);
        for (std::size_t c = 0; c < cells.size() && c < numeric.size(); ++c) {
            const std::string cell = nsys_parts::trim(lines[i].substr(cells[c].first, cells[c].second - cells[c].first));
            if (!cell.empty() && !numeric_token(cell) && !ingest::parse_number_text(cell))
                numeric[c] = false;
        }
    }
    return numeric;
}

// nsys's CSV (--format csv) in a decimal-comma locale: numbers quoted with their comma ("60,0", "482,333", "0,000"),
// integers bare. A table (lines from a header with a comma to a blank line) is shown decimal-comma by its own quoted
// numbers: one of them only a decimal-comma locale's ("60,0"; "0,000": no thousands grouping leads with a 0 group) and
// all read swapped. The C locale never quotes a number (nsys's CSV quotes only a cell holding the separator), so once
// one table of the file is shown so (or `console_comma`: one of its console tables), every table whose quoted numbers
// all read swapped is read so, those with three decimals only ("400,000") too; those cells get '.' and ',' swapped
// in place. Without such evidence in the file, quoted numbers that read both ways are read with ',' between
// thousands, warned.
void mend_csv_decimal_comma(std::vector<std::string>& lines, std::vector<std::string>& warnings, bool console_comma) {
    struct Table {
        std::size_t h = 0, end = 0, decided_line = 0;
        std::string decided, undecided;
        std::vector<bool> numeric;  // per column: numbers (only these cells are evidence, only these swapped)
        bool all_swap = true, any = false;
        bool shown() const { return any && all_swap && !decided.empty(); }
    };
    std::vector<Table> tables;
    for (std::size_t h = 0; h < lines.size(); ++h) {
        if (lines[h].find(',') == std::string::npos || nsys_parts::blank(lines[h]))
            continue;
        Table t;
        t.h = h;
        t.end = h + 1;
        while (t.end < lines.size() && !nsys_parts::blank(lines[t.end]) && lines[t.end].find(',') != std::string::npos)
            ++t.end;
        t.numeric = numeric_columns(lines, h, t.end);
        for (std::size_t i = h + 1; i < t.end; ++i)
            for (const auto& [a, b] : quoted_numbers(lines[i], t.numeric)) {
                const std::string cell = lines[i].substr(a, b - a);
                t.any = true;
                t.all_swap = t.all_swap && ingest::parse_number_text(swapped(cell)).has_value();
                const bool only_decimal =
                    (decimal_comma_token(cell) && !ingest::parse_number_text(cell)) || cell.rfind("0,", 0) == 0;
                if (only_decimal && t.decided.empty()) {
                    t.decided = cell;
                    t.decided_line = i + 1;
                } else if (!only_decimal && t.undecided.empty()) {
                    t.undecided = cell;
                }
            }
        h = t.end - 1;
        if (t.any)
            tables.push_back(std::move(t));
    }
    const auto evidence = std::find_if(tables.begin(), tables.end(), [](const Table& t) { return t.shown(); });
    const bool file_comma = console_comma || evidence != tables.end();
    for (const Table& t : tables) {
        if (t.all_swap && (t.shown() || file_comma)) {
            for (std::size_t i = t.h + 1; i < t.end; ++i)
                for (const auto& [a, b] : quoted_numbers(lines[i], t.numeric))
                    for (std::size_t c = a; c < b; ++c)
                        lines[i][c] = lines[i][c] == '.' ? ',' : lines[i][c] == ',' ? '.' : lines[i][c];
            if (t.shown())
                warnings.push_back(
                    fmt::format("line {}: '{}' is a number of a decimal-comma locale: the quoted numbers of the "
                                "CSV table at line {} read with ',' as the decimal point",
                                t.decided_line, t.decided, t.h + 1));
            else
                warnings.push_back(fmt::format(
                    "the CSV table at line {} quotes '{}', read with ',' as the decimal point: {} of the same file is "
                    "in a decimal-comma locale (the C locale quotes no number)",
                    t.h + 1, t.undecided,
                    evidence != tables.end() ? fmt::format("the CSV table at line {}", evidence->h + 1) : "a console table"));
        } else if (!file_comma && t.decided.empty() && !t.undecided.empty()) {
            warnings.push_back(
                fmt::format("the CSV table at line {} quotes '{}', which reads as a number with thousands "
                            "or, in a decimal-comma locale, with 3 decimals: read with ',' between thousands",
                            t.h + 1, t.undecided));
        }
    }
}

}  // namespace

std::vector<std::string> nsys_parts::mend_console_paste(std::vector<std::string> lines, std::vector<std::string>& warnings,
                                                        std::vector<bool>& swapped) {
    mend_tsv(lines);
    // A header whose last titles wrapped onto lines of their own, blank lines between it and its rule (nsys 2021 in
    // a narrow terminal: "... StdDev", "      Name", "", " -----"): the titles joined and moved onto the line right
    // above the rule, the lines they left blanked (every row keeps its line number).
    for (std::size_t r = 2; r < lines.size(); ++r) {
        if (!dashed_rule(lines[r]) || dashed_rule(lines[r - 1]))
            continue;
        std::size_t h = r - 1;
        std::string wrapped;
        while (h + 3 >= r && h > 0 && (blank(lines[h]) || split_words(lines[h]).size() == 1)) {
            if (!blank(lines[h]))
                wrapped = trim(lines[h]) + (wrapped.empty() ? "" : "  " + wrapped);
            --h;
        }
        const std::string t = trim(lines[h]);
        if (h + 1 == r || t.find("  ") == std::string::npos || dashed_rule(lines[h]) || console_row(split_words(lines[h])))
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
    // A decimal-comma locale (nsys 2021 formatted by the user's locale: "33,0" %, "12.373.190" ns, "2.176,0" ns): each
    // console table is told by its own numeric cells, never by digits in a name. A table whose cells read both ways
    // (integers with three-digit groups: "19,000  5  3,000") takes the locale of the nearest table told of its
    // own run (the one before it at equal distance), an output being in one locale; '.' and ',' are then swapped in its numeric
    // cells only, which keeps the columns where they were.
    std::vector<Group> groups = console_tables(lines);
    const auto told = [&groups](std::size_t g) -> int {  // 1: decimal comma, -1: undecided, 0: left as it is
        return groups[g].decimal_comma() ? 1 : groups[g].c_ok && groups[g].swap_ok ? -1 : 0;
    };
    // Each table's run: the report named last above it ("Running [.../gpukernsum.py report3.sqlite]"), "" for none.
    std::vector<std::string> run(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::size_t i = groups[g].rule > 0 ? groups[g].rule - 1 : groups[g].rows.front(); i-- > 0;)
            if (const std::vector<std::string> r = reports_named(lines[i]); r.size() == 1) {
                run[g] = r.front();
                break;
            }
    swapped.assign(lines.size(), false);
    std::size_t tables = 0;
    const Group* first = nullptr;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        int locale = told(g);
        // Undecided: the nearest decided table of the same run, the one before it first at equal distance.
        for (std::size_t d = 1; locale < 0 && d < groups.size(); ++d) {
            if (g >= d && run[g - d] == run[g] && told(g - d) >= 0)
                locale = told(g - d);
            else if (g + d < groups.size() && run[g + d] == run[g] && told(g + d) >= 0)
                locale = told(g + d);
        }
        if (locale != 1)
            continue;
        for (const std::size_t i : groups[g].rows) {
            std::string& line = lines[i];
            swapped[i] = true;
            std::size_t cell = 0, n = leading_numbers(split_words(line));
            for (std::size_t at = 0; cell < n; ++cell) {
                const std::size_t a = line.find_first_not_of(" \t", at), b = std::min(line.find_first_of(" \t", a), line.size());
                for (std::size_t c = a; c < b; ++c)
                    line[c] = line[c] == '.' ? ',' : line[c] == ',' ? '.' : line[c];
                at = b;
            }
        }
        ++tables;
        if (!first && groups[g].decimal_comma())
            first = &groups[g];
    }
    if (first)
        warnings.push_back(
            fmt::format("line {}: '{}' is a number of a decimal-comma locale: the numbers of {} table{} read "
                        "with ',' as the decimal point and '.' between thousands",
                        first->comma_line, first->comma, tables, tables == 1 ? "" : "s"));
    mend_csv_decimal_comma(lines, warnings, first != nullptr);
    return lines;
}

}  // namespace bwacct
