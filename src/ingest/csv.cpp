#include "csv.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

#include "bwacct/error.h"

namespace bwacct::ingest {

std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& origin, char separator, std::size_t first_line) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3);
    std::vector<CsvRecord> out;
    CsvRecord record;
    std::string field;
    std::size_t line = first_line;
    bool in_record = false;  // something (a field or separator) seen on this record
    const auto end_field = [&] {
        record.fields.push_back(std::move(field));
        field.clear();
    };
    const auto end_record = [&] {
        if (in_record) {
            end_field();
            out.push_back(std::move(record));
        }
        record = CsvRecord{};
        in_record = false;
    };
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (!in_record) {
            record.line = line;
        }
        if (c == '"' && field.empty()) {
            // A quoted field: up to the closing quote; "" is a literal quote.
            const std::size_t start_line = line;
            in_record = true;
            ++i;
            bool closed = false;
            while (i < text.size()) {
                const char q = text[i];
                if (q == '"') {
                    if (i + 1 < text.size() && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    closed = true;
                    ++i;
                    break;
                }
                if (q == '\n')
                    ++line;
                field += q;
                ++i;
            }
            if (!closed)
                throw InputError(origin, fmt::format("line {}: quoted field never closed (file truncated?); expected CSV "
                                                     "with each quote closed",
                                                     start_line));
            // After the closing quote: blanks (a console copy's trailing blank), then separator, line end or end of text.
            while (i < text.size() && (text[i] == ' ' || text[i] == '\t') && text[i] != separator)
                ++i;
            if (i < text.size() && text[i] != separator && text[i] != '\n' && text[i] != '\r')
                throw InputError(origin, fmt::format("line {}: text after a closing quote; expected CSV (a quote "
                                                     "inside a quoted field is written \"\")",
                                                     line));
            continue;
        }
        if (c == separator) {
            in_record = true;
            end_field();
            ++i;
            continue;
        }
        if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            ++i;  // CRLF: the \n ends the record
            continue;
        }
        if (c == '\n' || c == '\r') {
            end_record();
            ++line;
            ++i;
            continue;
        }
        in_record = true;
        field += c;
        ++i;
    }
    end_record();
    return out;
}

std::optional<double> parse_number_text(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    if (text.empty())
        return std::nullopt;
    // Thousands separators: only between digits, and only in the integer part, in groups of three.
    std::string plain;
    plain.reserve(text.size());
    std::size_t int_end = text.find_first_of(".eE");
    if (int_end == std::string_view::npos)
        int_end = text.size();
    std::size_t group = 0;  // digits since the last comma
    bool saw_comma = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ',') {
            if (i >= int_end || i == 0 || !std::isdigit(static_cast<unsigned char>(text[i - 1])) || (saw_comma && group != 3) ||
                (!saw_comma && group > 3))
                return std::nullopt;
            saw_comma = true;
            group = 0;
            continue;
        }
        if (i < int_end && std::isdigit(static_cast<unsigned char>(c)))
            ++group;
        plain += c;
    }
    if (saw_comma && group != 3)
        return std::nullopt;
    const char* first = plain.data();
    const char* last = plain.data() + plain.size();
    if (*first == '+')
        ++first;
    double value = 0;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? text.substr(3) : text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

std::vector<std::string> split_words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

// The [start, end) extents of the runs of dashes of a console table's rule line.
std::vector<std::pair<std::size_t, std::size_t>> dash_spans(const std::string& rule) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t i = 0; i < rule.size();) {
        if (rule[i] != '-') {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < rule.size() && rule[i] == '-')
            ++i;
        spans.emplace_back(start, i);
    }
    return spans;
}

}  // namespace bwacct::ingest
