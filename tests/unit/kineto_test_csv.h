// A small CSV reader for the TraceLens reports the Kineto acceptance tests compare with.
#pragma once
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace kineto_test {

// A CSV line split into fields (double-quoted fields may hold commas and "" escapes).
inline std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                out.back() += line[++i];
            else if (c == '"')
                quoted = false;
            else
                out.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

inline std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = csv_fields(line);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        const std::vector<std::string> f = csv_fields(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < header.size() && i < f.size(); ++i)
            row[header[i]] = f[i];
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace kineto_test
