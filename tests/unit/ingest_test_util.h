// Helpers shared by the ingest unit tests: a fixture's text, a report section and a column by key.
#pragma once
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "bwacct/ingest.h"

namespace bwacct_test {

// The text of tests/data/<rel> ("nccl/x.txt"); empty when it cannot be read (the test then fails on it).
inline std::string fixture(const std::string& rel) {
    std::ifstream in(std::string(BWACCT_TEST_DATA) + "/" + rel, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline const bwacct::Section& section(const bwacct::IngestReport& r, const std::string& key) {
    for (const bwacct::Section& s : r.sections)
        if (s.key == key)
            return s;
    throw std::runtime_error("no section " + key);
}

inline std::size_t column(const bwacct::Section& s, const std::string& key) {
    for (std::size_t i = 0; i < s.columns.size(); ++i)
        if (s.columns[i].key == key)
            return i;
    throw std::runtime_error("no column " + key);
}

// A report cell read as text or as a number (the test fails with std::bad_variant_access otherwise).
inline std::string text(const bwacct::Cell& c) { return std::get<std::string>(c); }
inline double real(const bwacct::Cell& c) { return std::get<double>(c); }

}  // namespace bwacct_test
