// Reads the input of `bwacct fit`: a CSV with a header row, or a bwacct sweep (JSONL or a JSON array).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bwacct/error.h"
#include "bwacct/fit.h"
#include "bwacct/text_file.h"

namespace bwacct {
namespace {

using json = nlohmann::json;

const std::vector<std::string> kDefaultX{"bytes", "size_bytes", "size", "area", "pixels", "tokens", "x"};
const std::vector<std::string> kDefaultY{"time_us",   "time_ms", "time_s",   "time_ns", "period_us",
                                         "period_ms", "time",    "period_s", "y"};

std::string trim(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    std::string out(s.substr(b, e - b));
    if (out.size() >= 2 && out.front() == '"' && out.back() == '"')
        out = out.substr(1, out.size() - 2);
    return out;
}

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lower(std::string s) {
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The factor that turns the y column into µs, from its name's unit suffix; no suffix means µs.
double y_scale_of(const std::string& name) {
    const std::string n = lower(name);
    if (ends_with(n, "_ms") || ends_with(n, "(ms)"))
        return 1e3;
    if (ends_with(n, "_ns") || ends_with(n, "(ns)"))
        return 1e-3;
    if (ends_with(n, "_s") || ends_with(n, "(s)"))
        return 1e6;
    return 1;
}

bool is_bytes_name(const std::string& name) { return ends_with(lower(name), "bytes"); }

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    while (true) {
        const auto comma = line.find(',', start);
        cells.push_back(
            trim(std::string_view(line).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos)
            return cells;
        start = comma + 1;
    }
}

double parse_number(const std::string& cell, const std::string& path, std::size_t line, const std::string& column) {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    if (cell.empty() || end != cell.c_str() + cell.size() || errno == ERANGE || !std::isfinite(v))
        throw InputError(path, fmt::format("line {}, column '{}': '{}' is not a number", line, column, cell));
    if (v < 0)
        throw InputError(
            path, fmt::format("line {}, column '{}': {} is negative; sizes and times must be positive", line, column, cell));
    return v;
}

std::string pick(const std::string& given, const std::vector<std::string>& defaults, const std::vector<std::string>& have,
                 const std::string& option, const std::string& path) {
    if (!given.empty()) {
        if (std::find(have.begin(), have.end(), given) == have.end())
            throw InputError(option, fmt::format("column '{}' is not in {} (columns: {})", given, path, join(have)));
        return given;
    }
    for (const auto& d : defaults)
        if (std::find(have.begin(), have.end(), d) != have.end())
            return d;
    throw InputError(option, fmt::format("{} has none of the default columns ({}); name one with {} (columns: {})", path,
                                         join(defaults), option, join(have)));
}

FitData read_csv(const std::string& path, const std::string& text, const std::string& x, const std::string& y) {
    FitData d;
    d.path = path;
    d.format = "csv";
    std::istringstream in(text);
    std::string line;
    std::size_t lineno = 0;
    std::vector<std::string> header;
    std::size_t xi = 0, yi = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        std::vector<std::string> cells = split_csv(line);
        if (header.empty()) {
            header = std::move(cells);
            d.x_name = pick(x, kDefaultX, header, "--x", path);
            d.y_name = pick(y, kDefaultY, header, "--y", path);
            xi = static_cast<std::size_t>(std::find(header.begin(), header.end(), d.x_name) - header.begin());
            yi = static_cast<std::size_t>(std::find(header.begin(), header.end(), d.y_name) - header.begin());
            d.y_scale = y_scale_of(d.y_name);
            d.x_is_bytes = is_bytes_name(d.x_name);
            continue;
        }
        if (cells.size() != header.size())
            throw InputError(path, fmt::format("line {} has {} cells; the header has {}", lineno, cells.size(), header.size()));
        const double xv = parse_number(cells[xi], path, lineno, d.x_name);
        const double yv = parse_number(cells[yi], path, lineno, d.y_name);
        d.points.push_back({xv, yv * d.y_scale});
    }
    return d;
}

const json* find_number(const json& rec, const std::string& key, bool y) {
    // y: the first GPU's value (gpus[0].time_us), else the record's; x: the record's, else its params.
    if (y && rec.contains("gpus") && rec["gpus"].is_array() && !rec["gpus"].empty() && rec["gpus"][0].is_object() &&
        rec["gpus"][0].contains(key))
        return &rec["gpus"][0][key];
    if (rec.contains(key))
        return &rec[key];
    if (rec.contains("params") && rec["params"].is_object() && rec["params"].contains(key))
        return &rec["params"][key];
    return nullptr;
}

FitData read_records(const std::string& path, const std::string& text, const std::string& x, const std::string& y) {
    FitData d;
    d.path = path;
    d.format = "jsonl";
    std::vector<std::pair<std::size_t, json>> records;
    const std::string t = trim(text);
    if (!t.empty() && t[0] == '[') {
        json arr;
        try {
            arr = json::parse(text);
        } catch (const json::parse_error& e) {
            throw InputError(path, fmt::format("not valid JSON (at byte {})", e.byte));
        } catch (const json::out_of_range&) {  // a number beyond a double's range (1e999)
            throw InputError(path, "a number is too large for a double");
        }
        std::size_t i = 0;
        for (auto& r : arr)
            records.emplace_back(++i, std::move(r));
    } else {
        std::istringstream in(text);
        std::string line;
        std::size_t lineno = 0;
        while (std::getline(in, line)) {
            ++lineno;
            if (trim(line).empty())
                continue;
            try {
                records.emplace_back(lineno, json::parse(line));
            } catch (const json::parse_error&) {
                throw InputError(path, fmt::format("line {} is not a JSON object (expected one bwacct record per line)", lineno));
            } catch (const json::out_of_range&) {  // a number beyond a double's range (1e999)
                throw InputError(path, fmt::format("line {}: a number is too large for a double", lineno));
            }
        }
    }
    d.x_name = x.empty() ? "bytes" : x;
    d.y_name = y.empty() ? "time_us" : y;
    d.y_scale = y_scale_of(d.y_name);
    d.x_is_bytes = is_bytes_name(d.x_name);
    for (const auto& [n, rec] : records) {
        if (!rec.is_object())
            throw InputError(path, fmt::format("record {} is not a JSON object", n));
        const json* xv = find_number(rec, d.x_name, false);
        if (xv == nullptr)
            throw InputError("--x", fmt::format("record {} of {} has no '{}' (top level or params)", n, path, d.x_name));
        const json* yv = find_number(rec, d.y_name, true);
        if (yv == nullptr)
            throw InputError(
                "--y", fmt::format("record {} of {} has no '{}'{}", n, path, d.y_name,
                                   d.y_name == "time_us" ? " (a modelled sweep: give --time-us, or fit --y floor_us)" : ""));
        if (!xv->is_number() || !yv->is_number())
            throw InputError(path, fmt::format("record {}: '{}' is not a number", n, !xv->is_number() ? d.x_name : d.y_name));
        const double xd = xv->get<double>(), yd = yv->get<double>();
        if (xd < 0 || yd < 0)
            throw InputError(path, fmt::format("record {}: '{}' is negative; sizes and times must be positive", n,
                                               xd < 0 ? d.x_name : d.y_name));
        d.points.push_back({xd, yd * d.y_scale});
    }
    return d;
}

}  // namespace

FitData read_fit_input(const std::string& path, const std::string& x, const std::string& y) {
    return parse_fit_input(read_input_file(path, "", "expected a CSV with a header row, or a bwacct sweep's JSONL"), path, x, y);
}

FitData parse_fit_input(const std::string& input, const std::string& origin, const std::string& x, const std::string& y) {
    const std::string& path = origin;
    // A UTF-8 byte-order mark (Excel's "CSV UTF-8") is not part of the first column's name.
    const std::string text = input.compare(0, 3, "\xEF\xBB\xBF") == 0 ? input.substr(3) : input;
    const std::string t = trim(text);
    if (t.empty())
        throw InputError(path, "is empty; expected a CSV with a header row, or a bwacct sweep's JSONL");
    const bool records = t[0] == '{' || t[0] == '[' || ends_with(lower(path), ".jsonl") || ends_with(lower(path), ".json");
    FitData d = records ? read_records(path, text, x, y) : read_csv(path, text, x, y);
    if (d.points.size() < 2)
        throw InputError(path, fmt::format("a fit needs at least 2 points; the file has {}", d.points.size()));
    return d;
}

}  // namespace bwacct
