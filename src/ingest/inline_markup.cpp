#include "inline_markup.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace bwacct::ingest {

namespace {

// Length of a role prefix ":name:`" at `s` (letters, digits, '-' and '_' in the name), or 0.
std::size_t role_prefix(std::string_view s) {
    if (s.size() < 4 || s[0] != ':')
        return 0;
    std::size_t i = 1;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '-' || s[i] == '_'))
        ++i;
    return i > 1 && i + 1 < s.size() && s[i] == ':' && s[i + 1] == '`' ? i + 2 : 0;
}

// How a line opens inline markup: a role ":name:`" (after blanks), a single backtick, or neither. A line of backticks
// alone ("`", "```") is a code fence or a converter's stray mark around a block: not markup.
enum class Opener { none, role, backtick };
Opener opens_markup(std::string_view line) {
    const std::size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos)
        return Opener::none;
    const std::string_view s = line.substr(b);
    if (role_prefix(s) > 0)
        return Opener::role;
    if (s.find_first_not_of("` \t") == std::string_view::npos)
        return Opener::none;
    return s[0] == '`' && s.size() > 1 && s[1] != '`' ? Opener::backtick : Opener::none;
}

// The line without role prefixes and backticks.
std::string unmarked(std::string_view line) {
    std::string out;
    out.reserve(line.size());
    for (std::size_t i = 0; i < line.size();) {
        if (const std::size_t n = role_prefix(line.substr(i)); n > 0) {
            i += n;
            continue;
        }
        if (line[i] != '`')
            out += line[i];
        ++i;
    }
    return out;
}

}  // namespace

std::string unwrap_inline_markup(std::string_view text) {
    if (text.find('`') == std::string_view::npos)
        return std::string(text);
    // One pass over the lines, no list of them (a log may hold millions): `at` is the start of the current line.
    const auto line_at = [&](std::size_t at) {
        const std::size_t nl = text.find('\n', at);
        return text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    };
    const auto without_cr = [](std::string_view l) {
        if (!l.empty() && l.back() == '\r')
            l.remove_suffix(1);
        return l;
    };
    std::string out;
    out.reserve(text.size());
    std::size_t at = 0;
    while (true) {
        const std::string_view raw = line_at(at);
        std::size_t next = at + raw.size();  // at the line's '\n', or the end
        const std::string_view line = without_cr(raw);
        const Opener opener = opens_markup(line);
        if (opener == Opener::none) {
            out.append(raw);
        } else {
            const std::string_view cr = raw.size() > line.size() ? "\r" : "";
            std::string joined(line);
            std::size_t ticks = static_cast<std::size_t>(std::count(line.begin(), line.end(), '`'));
            // Only a role's text is wrapped onto the next lines (a converter's line breaks inside ":mark:`...`"), and
            // only where its backticks close within the next 4 lines of the paragraph: markdown inline code, and
            // a role that does not close, leave the lines after them as they are.
            std::size_t extra = 0, end = next;
            std::string more;
            for (std::size_t k = 0; opener == Opener::role && ticks % 2 == 1 && k < 4 && end < text.size(); ++k) {
                const std::string_view following = without_cr(line_at(end + 1));
                if (following.find_first_not_of(" \t") == std::string_view::npos)
                    break;  // a blank line ends the paragraph, and the role with it
                more += ' ';
                more.append(following);
                ticks += static_cast<std::size_t>(std::count(following.begin(), following.end(), '`'));
                end = end + 1 + line_at(end + 1).size();
                if (ticks % 2 == 0) {
                    joined += more;
                    next = end;
                    extra = k + 1;
                }
            }
            out += unmarked(joined);
            out += cr;
            for (std::size_t k = 0; k < extra; ++k) {
                out += '\n';
                out += cr;  // the joined line, now empty
            }
        }
        if (next >= text.size())
            break;
        out += '\n';
        at = next + 1;
    }
    return out;
}

namespace {

// The length of the residue of an SGR sequence whose ESC was lost at text[i]: '[', up to 12 digits and
// semicolons, 'm' ("[32m", "[0m", "[1;31m", "[39m"), or the bare reset "[m" at the end of the text or before a blank,
// a line end or another '[' (so "[mlx5_0]" and "[m]" are kept); 0 when none starts there.
std::size_t sgr_residue(std::string_view text, std::size_t i) {
    if (i >= text.size() || text[i] != '[')
        return 0;
    std::size_t j = i + 1;
    while (j < text.size() && j - i <= 12 && (std::isdigit(static_cast<unsigned char>(text[j])) != 0 || text[j] == ';'))
        ++j;
    if (j >= text.size() || text[j] != 'm')
        return 0;
    if (j == i + 1 && j + 1 < text.size()) {
        const char next = text[j + 1];
        if (next != ' ' && next != '\t' && next != '\r' && next != '\n' && next != '[')
            return 0;
    }
    return j + 1 - i;
}

}  // namespace

bool has_terminal_escapes(std::string_view text) {
    if (text.find('\x1b') != std::string_view::npos)
        return true;
    for (std::size_t at = text.find('['); at != std::string_view::npos; at = text.find('[', at + 1))
        if (sgr_residue(text, at) > 0)
            return true;
    return false;
}

std::string strip_terminal_escapes(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const auto at = [&](std::size_t i) -> unsigned { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0U; };
    for (std::size_t i = 0; i < text.size();) {
        const unsigned c = at(i);
        if (c == 0x1b) {
            ++i;
            if (at(i) == '[') {  // CSI: parameter and intermediate bytes, then one final byte @..~
                ++i;
                while (i < text.size() && (at(i) < 0x40 || at(i) > 0x7e) && at(i) != '\n')
                    ++i;
                if (i < text.size() && at(i) != '\n')
                    ++i;
            } else if (at(i) == ']') {  // OSC: up to BEL or ESC backslash
                while (i < text.size() && at(i) != 0x07 && at(i) != '\n' && !(at(i) == 0x1b && at(i + 1) == '\\'))
                    ++i;
                i += at(i) == 0x07 ? 1 : at(i) == 0x1b ? 2 : 0;
            } else if (at(i) == '(' || at(i) == ')') {  // character set designation: ESC ( B
                i += 2;
            } else if (i < text.size() && at(i) != '\n') {
                ++i;  // a two-byte escape
            }
            continue;
        }
        // The residue of an SGR sequence whose ESC was lost.
        if (const std::size_t n = sgr_residue(text, i); n > 0) {
            i += n;
            continue;
        }
        out += text[i++];
    }
    return out;
}

}  // namespace bwacct::ingest
