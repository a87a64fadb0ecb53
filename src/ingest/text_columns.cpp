#include "text_columns.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace bwacct::ingest {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// Bytes of the Unicode blank at `s[i]` (UTF-8), or 0.
std::size_t unicode_blank_at(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    if (i + 1 < s.size() && b(0) == 0xC2 && b(1) == 0xA0)
        return 2;  // U+00A0 no-break space
    if (i + 2 < s.size() && b(0) == 0xE2 && b(1) == 0x80 && ((b(2) >= 0x80 && b(2) <= 0x8A) || b(2) == 0xAF))
        return 3;  // U+2000..U+200A, U+202F narrow no-break space
    if (i + 2 < s.size() && b(0) == 0xE3 && b(1) == 0x80 && b(2) == 0x80)
        return 3;  // U+3000 ideographic space
    return 0;
}

bool blank_at(std::string_view s, std::size_t i) {
    return i < s.size() && (s[i] == ' ' || s[i] == '\t' || unicode_blank_at(s, i) > 0);
}

// The line's columns are apart by ASCII blanks somewhere: a blank or a tab between two words after the line's
// indentation (a markdown code block's indentation is no gap between columns; "    Copy 1 709 360.800 0.00031" is).
bool ascii_gaps(std::string_view line) {
    const std::size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos)
        return false;
    line = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
    return line.find_first_of(" \t") != std::string_view::npos;
}

// A Unicode blank of `n` bytes at `i` shaped like a thousands separator: alone, after a digit, before exactly three
// digits (no further digit).
bool thousands_shaped(std::string_view line, std::size_t i, std::size_t n) {
    const std::size_t after = i + n;
    return i > 0 && digit(line[i - 1]) && !blank_at(line, i - 1) && after + 3 <= line.size() && digit(line[after]) &&
           digit(line[after + 1]) && digit(line[after + 2]) && (after + 3 == line.size() || !digit(line[after + 3]));
}

// A number ends right before `i`: a digit, or a decimal point after one.
bool number_ends_at(std::string_view line, std::size_t i) {
    return i > 0 && (digit(line[i - 1]) || (line[i - 1] == '.' && i > 1 && digit(line[i - 2])));
}

// A number starts at `i`: a digit, or a sign or decimal point before one.
bool number_starts_at(std::string_view line, std::size_t i) {
    if (i >= line.size())
        return false;
    if (digit(line[i]))
        return true;
    return (line[i] == '-' || line[i] == '+' || line[i] == '.') && i + 1 < line.size() && digit(line[i + 1]);
}

std::string_view trim(std::string_view s) {
    const std::size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool log_led(std::string_view part) {
    const std::string_view t = trim(part);
    return !t.empty() && (t.front() == '#' || digit(t.front()));
}

}  // namespace

bool has_unicode_blanks(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i)
        if (static_cast<unsigned char>(text[i]) >= 0xC2 && unicode_blank_at(text, i) > 0)
            return true;
    return false;
}

namespace {

// Calls f(line, 1-based number) for each line of `text`.
template <typename F>
void each_line(std::string_view text, F&& f) {
    std::size_t k = 0;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t nl = text.find('\n', at);
        f(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at), ++k);
        if (nl == std::string_view::npos)
            break;
        at = nl + 1;
    }
}

std::size_t unicode_blank(std::string_view s, std::size_t i) {
    return static_cast<unsigned char>(s[i]) >= 0xC2 ? unicode_blank_at(s, i) : 0;
}

}  // namespace

std::string ascii_blanks(std::string_view text, BlankReport& report) {
    // Decided once for the file, so that one number is not read two ways on two lines: a lone Unicode blank between a
    // digit and three digits is a thousands separator when some line of ASCII column gaps holds one (a locale-aware
    // tool wrote the numbers) and no line has its columns apart by Unicode blanks alone (a web page's &nbsp;, where
    // "8192 256" are two columns). Where both are seen, every Unicode blank is a blank (said: BlankReport::gap_line).
    std::size_t grouped_line = 0, gap_line = 0;
    each_line(text, [&](std::string_view line, std::size_t line_no) {
        const bool gaps = ascii_gaps(line);
        bool prev_text = false;  // the character before is not a blank (nor the line's indentation)
        for (std::size_t i = 0; i < line.size(); ++i) {
            const std::size_t n = unicode_blank(line, i);
            if (n == 0) {
                prev_text = line[i] != ' ' && line[i] != '\t';
                continue;
            }
            if (gaps && thousands_shaped(line, i, n) && grouped_line == 0)
                grouped_line = line_no;
            // A single Unicode blank between two numbers that is not a separator's shape: a column gap ("1024 32",
            // "-1 28.15"). Words are no evidence ("NVIDIA A100", "nGpus 8").
            if (!gaps && prev_text && !thousands_shaped(line, i, n) && number_ends_at(line, i) && number_starts_at(line, i + n) &&
                gap_line == 0)
                gap_line = line_no;
            prev_text = false;
            i += n - 1;
        }
    });
    const bool thousands = grouped_line > 0 && gap_line == 0;
    if (grouped_line > 0 && gap_line > 0) {
        report.grouped_line = grouped_line;
        report.gap_line = gap_line;
    }
    std::string out;
    out.reserve(text.size());
    each_line(text, [&](std::string_view line, std::size_t line_no) {
        if (line_no > 1)
            out += '\n';
        for (std::size_t i = 0; i < line.size();) {
            const std::size_t n = unicode_blank(line, i);
            if (n == 0) {
                out += line[i++];
                continue;
            }
            if (!thousands || !thousands_shaped(line, i, n)) {
                ++report.blanks;
                out += ' ';
                i += n;
                continue;
            }
            if (report.thousands++ == 0) {
                // The number as written: digits, '.', ',' and its separators, cut at any other blank.
                const auto in_number = [&](std::size_t k, std::size_t m) {
                    return m > 0 ? thousands_shaped(line, k, m) : digit(line[k]) || line[k] == '.' || line[k] == ',';
                };
                std::size_t s = i;
                while (s > 0) {
                    std::size_t k = s - 1;
                    while (k > 0 && (static_cast<unsigned char>(line[k]) & 0xC0) == 0x80)
                        --k;  // the start of a UTF-8 sequence
                    if (!in_number(k, unicode_blank(line, k)))
                        break;
                    s = k;
                }
                std::size_t e = i;
                while (e < line.size()) {
                    const std::size_t m = unicode_blank(line, e);
                    if (!in_number(e, m))
                        break;
                    e += m > 0 ? m : 1;
                }
                report.first_line = line_no;
                std::size_t len = std::min<std::size_t>(e - s, 40);
                while (len > 0 && s + len < line.size() && (static_cast<unsigned char>(line[s + len]) & 0xC0) == 0x80)
                    --len;  // not inside a UTF-8 sequence
                report.first_text = std::string(line.substr(s, len));
                std::string read;
                for (std::size_t k = s; k < e && read.size() < 40;) {
                    const std::size_t m = unicode_blank(line, k);
                    if (m > 0) {
                        k += m;
                        continue;
                    }
                    read += line[k++];
                }
                report.first_read = read;
            }
            i += n;
        }
    });
    return out;
}

std::string blank_conflict_warning(const BlankReport& report) {
    if (report.grouped_line == 0 || report.gap_line == 0)
        return {};
    return "line " + std::to_string(report.grouped_line) +
           ": a no-break space between a digit and three digits, which could be a thousands separator, read as a blank: "
           "line " +
           std::to_string(report.gap_line) + " has its columns apart by no-break spaces alone (a web page's)";
}

namespace {

// A part that holds a log's result row or column header: at least 8 words, the first two whole numbers and the third
// a word ("1048576  262144  float ..."), or after '#' "size count type ..." ("bytes N type ..." before 2018). A
// logger's time stamp ("2024-05-01 12:00:01,234") or a note after a row ("1.1x faster") is not.
bool row_shaped(std::string_view part) {
    std::vector<std::string_view> w;
    for (std::size_t i = 0; i < part.size() && w.size() < 8;) {
        while (i < part.size() && (part[i] == ' ' || part[i] == '\t' || part[i] == '\r'))
            ++i;
        const std::size_t b = i;
        while (i < part.size() && part[i] != ' ' && part[i] != '\t' && part[i] != '\r')
            ++i;
        if (i > b)
            w.push_back(part.substr(b, i - b));
    }
    if (w.size() < 8)
        return false;
    const auto number = [](std::string_view t) { return std::all_of(t.begin(), t.end(), digit); };
    if (number(w[0]) && number(w[1]))
        return std::isalpha(static_cast<unsigned char>(w[2].front())) != 0;
    if (w[0].find_first_not_of('#') == std::string_view::npos)
        w.erase(w.begin());
    return (w[0] == "size" && w[1] == "count" && w[2] == "type") || (w[0] == "bytes" && w[1] == "N" && w[2] == "type");
}

// Where a line splits into two logs' lines: its only '|', with a blank on each side (or the line's end after it), both
// sides log-led; npos when it does not.
std::size_t side_by_side_cut(std::string_view l) {
    if (std::count(l.begin(), l.end(), '|') != 1)
        return std::string_view::npos;  // a markdown table's row has many: its cells are not two logs
    const std::size_t p = l.find('|');
    if (p == 0 || (l[p - 1] != ' ' && l[p - 1] != '\t') || (p + 1 < l.size() && l[p + 1] != ' ' && l[p + 1] != '\t'))
        return std::string_view::npos;
    return log_led(l.substr(0, p)) && log_led(l.substr(p + 1)) ? p : std::string_view::npos;
}

// Calls f(line, 0-based index) for each line of `text` (no list of them: a log may hold millions).
template <typename F>
void for_each_line(std::string_view text, F&& f) {
    std::size_t k = 0;
    for (std::size_t at = 0; at <= text.size(); ++k) {
        const std::size_t nl = text.find('\n', at);
        f(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at), k);
        if (nl == std::string_view::npos)
            break;
        at = nl + 1;
    }
}

}  // namespace

std::optional<SideBySide> split_side_by_side(std::string_view text) {
    if (text.find('|') == std::string_view::npos)
        return std::nullopt;
    SideBySide sbs;
    std::size_t rows_both = 0;
    for_each_line(text, [&](std::string_view l, std::size_t k) {
        const std::size_t p = side_by_side_cut(l);
        if (p == std::string_view::npos)
            return;
        ++sbs.lines;
        if (sbs.first == 0)
            sbs.first = k + 1;
        sbs.last = k + 1;
        if (row_shaped(l.substr(0, p)) && row_shaped(l.substr(p + 1)))
            ++rows_both;
    });
    if (sbs.lines < 2 || rows_both == 0)
        return std::nullopt;
    std::string right_block;
    for_each_line(text, [&](std::string_view l, std::size_t k) {
        if (k > 0)
            sbs.text += '\n';
        sbs.left_lines = k + 1;
        const std::size_t p = side_by_side_cut(l);
        if (p == std::string_view::npos) {
            sbs.text += l;
            return;
        }
        const std::string_view left = l.substr(0, p);
        sbs.text += left.substr(0, left.find_last_not_of(" \t") + 1);
        sbs.right_lines.push_back(k + 1);
        right_block += '\n';
        right_block += l.substr(p + 1);
    });
    sbs.text += '\n';
    sbs.text += right_block;
    sbs.text += '\n';
    return sbs;
}

namespace {

// The parts before " | " at the start of `line` that are a logger's (each shorter than 8 words, no '#'), and where the
// text after them starts.
std::pair<std::size_t, std::size_t> logger_parts(std::string_view line) {
    std::size_t parts = 0, from = 0;
    if (trim(line).substr(0, 1) == "|")
        return {0, 0};  // a markdown table's row
    while (parts < 3) {
        std::size_t bar = line.find(" | ", from);
        const std::string_view right = line.substr(0, line.find_last_not_of(" \t\r") + 1);
        if (bar == std::string_view::npos && right.size() >= from + 2 && right.substr(right.size() - 2) == " |")
            bar = right.size() - 2;  // an empty message: "<time> |" and nothing after
        if (bar == std::string_view::npos || bar > 200)
            break;
        const std::string_view part = line.substr(from, bar - from);
        std::size_t words = 0;
        for (std::size_t i = 0; i < part.size(); ++i)
            words += part[i] != ' ' && part[i] != '\t' && (i == 0 || part[i - 1] == ' ' || part[i - 1] == '\t');
        if (words == 0 || words >= 8 || part.find('#') != std::string_view::npos)
            break;
        ++parts;
        from = std::min(bar + 3, line.size());
    }
    return {parts, from};
}

}  // namespace

std::optional<std::string> cut_logger_prefix(std::string_view text) {
    if (text.find(" | ") == std::string_view::npos)
        return std::nullopt;
    std::size_t parts = 0, lines = 0;
    bool common = true;
    for_each_line(text, [&](std::string_view l, std::size_t) {
        if (!common || trim(l).empty())
            return;
        const std::size_t n = logger_parts(l).first;
        common = n > 0 && (lines++ == 0 || n == parts);
        parts = n;
    });
    if (!common || lines < 2)
        return std::nullopt;
    std::string out;
    out.reserve(text.size());
    for_each_line(text, [&](std::string_view l, std::size_t k) {
        if (k > 0)
            out += '\n';
        out += trim(l).empty() ? l : l.substr(logger_parts(l).second);
    });
    return out;
}

}  // namespace bwacct::ingest

namespace bwacct::ingest {

std::optional<MarkdownTable> markdown_table_rows(std::string_view text) {
    if (text.find('|') == std::string_view::npos && text.find("\\#") == std::string_view::npos)
        return std::nullopt;
    MarkdownTable t;
    std::size_t line_no = 0;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t nl = text.find('\n', at);
        std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
        ++line_no;
        const std::string_view body = trim(line);
        std::string out;
        if (body.size() >= 2 && body[0] == '\\' && body[1] == '#') {
            // A rich-text editor escaped the log's '#' ("\#  size  count ..."): the log's own line.
            out = std::string(body.substr(1));
            ++t.escaped;
        } else if (const auto bars = std::count(body.begin(), body.end(), '|'); bars >= 7 || (t.rows > 0 && bars >= 1)) {
            // A table row, or after one a shorter line of the table (a row cut where the paste ends).
            std::string_view cells = body;
            if (!cells.empty() && cells.front() == '|')
                cells.remove_prefix(1);
            if (!cells.empty() && cells.back() == '|')
                cells.remove_suffix(1);
            std::vector<std::string_view> parts;
            for (std::size_t b = 0; b <= cells.size();) {
                const std::size_t e = cells.find('|', b);
                parts.push_back(trim(cells.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b)));
                if (e == std::string_view::npos)
                    break;
                b = e + 1;
            }
            const bool separator = std::all_of(parts.begin(), parts.end(), [](std::string_view c) {
                return !c.empty() && c.find_first_not_of("-:") == std::string_view::npos;
            });
            const bool one_token_each = std::all_of(parts.begin(), parts.end(), [](std::string_view c) {
                return !c.empty() && c.find_first_of(" \t") == std::string_view::npos;
            });
            if (separator) {
                ++t.separators;  // "-- | -- | ..." under the table's first row: no line of the log
            } else if (one_token_each && (parts.size() >= 8 || t.rows > 0) && digit(parts.front().front())) {
                for (std::size_t k = 0; k < parts.size(); ++k)
                    out += (k ? "  " : "") + std::string(parts[k]);
                if (t.rows++ == 0)
                    t.first_line = line_no;
            } else {
                out = std::string(line);
            }
        } else {
            out = std::string(line);
        }
        t.text += out;
        if (nl == std::string_view::npos)
            break;
        t.text += '\n';
        at = nl + 1;
    }
    if (t.rows == 0)
        return std::nullopt;
    return t;
}

}  // namespace bwacct::ingest
