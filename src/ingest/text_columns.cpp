#include "text_columns.h"

#include <algorithm>
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

// The line's columns are apart by ASCII blanks somewhere: two blanks in a row or a tab.
bool ascii_gaps(std::string_view line) {
    return line.find("  ") != std::string_view::npos || line.find('\t') != std::string_view::npos;
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

std::string ascii_blanks(std::string_view text, BlankReport& report) {
    std::string out;
    out.reserve(text.size());
    std::size_t line_no = 0;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t nl = text.find('\n', at);
        const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
        const std::string_view line = text.substr(at, end - at);
        ++line_no;
        const bool gaps = ascii_gaps(line);
        for (std::size_t i = 0; i < line.size();) {
            const std::size_t n = static_cast<unsigned char>(line[i]) >= 0xC2 ? unicode_blank_at(line, i) : 0;
            if (n == 0) {
                out += line[i++];
                continue;
            }
            // A thousands separator: alone, after a digit, before exactly three digits.
            const std::size_t after = i + n;
            const bool three = after + 3 <= line.size() && digit(line[after]) && digit(line[after + 1]) &&
                               digit(line[after + 2]) && (after + 3 == line.size() || !digit(line[after + 3]));
            if (gaps && i > 0 && digit(line[i - 1]) && three && !blank_at(line, i - 1)) {
                if (report.thousands++ == 0) {
                    std::size_t b = line.rfind(' ', i);
                    b = b == std::string_view::npos ? 0 : b + 1;
                    std::size_t e = line.find_first_of(" \t\r", after);
                    e = e == std::string_view::npos ? line.size() : e;
                    report.first_line = line_no;
                    std::size_t len = std::min<std::size_t>(e - b, 40);
                    while (len > 0 && b + len < line.size() && (static_cast<unsigned char>(line[b + len]) & 0xC0) == 0x80)
                        --len;  // not inside a UTF-8 sequence
                    report.first_text = std::string(line.substr(b, len));
                    std::string read;
                    for (std::size_t k = b; k < e && read.size() < 40;) {
                        const std::size_t m = static_cast<unsigned char>(line[k]) >= 0xC2 ? unicode_blank_at(line, k) : 0;
                        if (m > 0) {
                            k += m;
                            continue;
                        }
                        read += line[k++];
                    }
                    report.first_read = read;
                }
                i = after;
                continue;
            }
            ++report.blanks;
            out += ' ';
            i = after;
        }
        if (nl == std::string_view::npos)
            break;
        out += '\n';
        at = nl + 1;
    }
    return out;
}

namespace {

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
        if (digit(trim(l.substr(0, p)).front()) && digit(trim(l.substr(p + 1)).front()))
            ++rows_both;
    });
    if (sbs.lines < 2 || rows_both == 0)
        return std::nullopt;
    std::string right_block;
    for_each_line(text, [&](std::string_view l, std::size_t k) {
        if (k > 0)
            sbs.text += '\n';
        const std::size_t p = side_by_side_cut(l);
        if (p == std::string_view::npos) {
            sbs.text += l;
            return;
        }
        const std::string_view left = l.substr(0, p);
        sbs.text += left.substr(0, left.find_last_not_of(" \t") + 1);
        right_block += '\n';
        right_block += l.substr(p + 1);
    });
    sbs.text += '\n';
    sbs.text += right_block;
    sbs.text += '\n';
    return sbs;
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
