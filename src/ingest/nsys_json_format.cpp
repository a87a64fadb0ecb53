// nsys stats --format json (nsys_parts.h): each report a JSON array of row objects keyed by the column titles
// ("Time (%)", "Total Time (ns)", ..., "Name"), rewritten as the CSV the table readers take.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <initializer_list>

#include "nsys_parts.h"

namespace bwacct {
namespace {

using ojson = nlohmann::ordered_json;

// The line holding the ']' that closes the '[' at lines[from][at] (strings and their escapes skipped), or npos.
std::size_t closing_line(const std::vector<std::string>& lines, std::size_t from, std::size_t at) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (std::size_t i = from; i < lines.size(); ++i) {
        for (std::size_t k = i == from ? at : 0; k < lines[i].size(); ++k) {
            const char c = lines[i][k];
            if (in_string) {
                if (escaped)
                    escaped = false;
                else if (c == '\\')
                    escaped = true;
                else if (c == '"')
                    in_string = false;
            } else if (c == '"') {
                in_string = true;
            } else if (c == '[' || c == '{') {
                ++depth;
            } else if ((c == ']' || c == '}') && --depth == 0) {
                return i;
            }
        }
    }
    return std::string::npos;
}

std::string csv_cell(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string out(1, '"');
    for (const char c : s) {
        out += c;
        if (c == '"')
            out += '"';
    }
    out += '"';
    return out;
}

// The CSV lines (header, then one per row) of an array of flat objects sharing one set of keys, the keys those of an
// nsys table (a name: "Name", "Operation", "Range"; a total or a start); none for anything else.
std::vector<std::string> as_csv(const ojson& a) {
    if (!a.is_array() || a.empty() || !a.front().is_object() || a.front().empty())
        return {};
    std::vector<std::string> keys;
    for (const auto& [k, v] : a.front().items())
        keys.push_back(k);
    const auto any = [&keys](std::initializer_list<const char*> prefixes) {
        return std::any_of(keys.begin(), keys.end(), [&prefixes](const std::string& t) {
            return std::any_of(prefixes.begin(), prefixes.end(), [&t](const char* p) { return t.rfind(p, 0) == 0; });
        });
    };
    if (!any({"Name", "Operation", "Range", "Kernel Name"}) || !any({"Total", "Start"}))
        return {};
    std::vector<std::string> out;
    std::string head;
    for (std::size_t k = 0; k < keys.size(); ++k) {
        if (k > 0)
            head += ',';
        head += csv_cell(keys[k]);
    }
    out.push_back(head);
    for (const ojson& row : a) {
        if (!row.is_object() || row.size() != keys.size())
            return {};
        std::string line;
        for (std::size_t k = 0; k < keys.size(); ++k) {
            const auto it = row.find(keys[k]);
            if (it == row.end())
                return {};
            std::string cell;
            if (it->is_string())
                cell = it->get<std::string>();
            else if (it->is_number())
                cell = it->dump();
            else if (!it->is_null())
                return {};
            if (k > 0)
                line += ',';
            line += csv_cell(cell);
        }
        out.push_back(line);
    }
    return out;
}

}  // namespace

std::vector<std::string> nsys_parts::mend_json_tables(std::vector<std::string> lines, std::vector<std::size_t>& line_of) {
    std::vector<std::string> out;
    out.reserve(lines.size());
    line_of.clear();
    line_of.reserve(lines.size());
    // One pass: each candidate array is scanned to its end once, and whatever it was (a table or not), the lines up to
    // its ']' are never looked into again (nsys prints its tables as top-level arrays), so no line is rescanned.
    bool unclosed = false;  // a '[' never closed: no later array is looked for (each look would run to the end)
    for (std::size_t i = 0; i < lines.size(); ++i) {
        // An array of objects: a line opening with '[' whose next character that is not blank ('{') opens an object,
        // on that line ("[{") or a later one (pretty-printed "[" alone).
        const std::size_t at = lines[i].find_first_not_of(" \t");
        bool opens = !unclosed && at != std::string::npos && lines[i][at] == '[';
        if (opens) {
            std::size_t k = i, c = at + 1;
            for (;; ++k, c = 0) {
                c = k < lines.size() ? lines[k].find_first_not_of(" \t\r", c) : std::string::npos;
                if (k >= lines.size() || c != std::string::npos)
                    break;
            }
            opens = k < lines.size() && lines[k][c] == '{';
        }
        const std::size_t end = opens ? closing_line(lines, i, at) : std::string::npos;
        unclosed = unclosed || (opens && end == std::string::npos);
        if (end == std::string::npos) {
            out.push_back(std::move(lines[i]));
            line_of.push_back(i + 1);
            continue;
        }
        std::string text = lines[i].substr(at);
        for (std::size_t k = i + 1; k <= end; ++k)
            text += "\n" + lines[k];
        text.erase(text.find_last_of(']') + 1);
        const ojson parsed = ojson::parse(text, nullptr, false);
        std::vector<std::string> csv = parsed.is_discarded() ? std::vector<std::string>{} : as_csv(parsed);
        if (csv.empty()) {  // not a table: its lines as they are
            for (std::size_t k = i; k <= end; ++k) {
                out.push_back(std::move(lines[k]));
                line_of.push_back(k + 1);
            }
            i = end;
            continue;
        }
        // The table in the block's lines (the rest blank, so that later lines keep their numbers), or more lines
        // where a compact array holds more rows than lines: those extra lines say the block's last line as theirs.
        const std::size_t block = end - i + 1;
        csv.push_back("");
        while (csv.size() < block)
            csv.push_back("");
        for (std::size_t k = 0; k < csv.size(); ++k)
            line_of.push_back(std::min(i + k, end) + 1);
        out.insert(out.end(), csv.begin(), csv.end());
        i = end;
    }
    return out;
}

}  // namespace bwacct
