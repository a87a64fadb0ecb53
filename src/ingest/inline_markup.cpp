#include "inline_markup.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <vector>

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

// Whether a line opens inline markup: a role, or a single backtick (not a code fence).
bool opens_markup(std::string_view line) {
    const std::size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos)
        return false;
    const std::string_view s = line.substr(b);
    return role_prefix(s) > 0 || (s[0] == '`' && (s.size() == 1 || s[1] != '`'));
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
    std::vector<std::string_view> lines;
    for (std::size_t at = 0; at <= text.size();) {
        const std::size_t nl = text.find('\n', at);
        lines.push_back(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
        if (nl == std::string_view::npos)
            break;
        at = nl + 1;
    }
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        std::string_view line = lines[i];
        std::string cr;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
            cr = "\r";
        }
        if (!opens_markup(line)) {
            out.append(lines[i]);
        } else {
            std::string joined(line);
            std::size_t ticks = static_cast<std::size_t>(std::count(line.begin(), line.end(), '`'));
            std::size_t extra = 0;
            while (ticks % 2 == 1 && extra < 4 && i + 1 + extra < lines.size()) {
                std::string_view next = lines[i + 1 + extra];
                if (!next.empty() && next.back() == '\r')
                    next.remove_suffix(1);
                if (next.find_first_not_of(" \t") == std::string_view::npos)
                    break;  // a blank line ends the paragraph, and the role with it
                joined += ' ';
                joined.append(next);
                ticks += static_cast<std::size_t>(std::count(next.begin(), next.end(), '`'));
                ++extra;
            }
            out += unmarked(joined);
            out += cr;
            for (std::size_t k = 0; k < extra; ++k) {
                out += '\n';
                out += cr;  // the joined line, now empty
            }
            i += extra;
        }
        if (i + 1 < lines.size())
            out += '\n';
    }
    return out;
}

}  // namespace bwacct::ingest
