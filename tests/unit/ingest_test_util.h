// Helpers shared by the ingest unit tests: a fixture's text, a report section and a column by key.
#pragma once
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest.h"
#include "bwacct/ingest_nsight.h"

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

// Whether one of `lines` (a reader's warnings) contains `part`.
inline bool any_holds(const std::vector<std::string>& lines, const std::string& part) {
    for (const std::string& l : lines)
        if (l.find(part) != std::string::npos)
            return true;
    return false;
}

// The refusal of `text` by the nsys reader, as the file `origin` (empty when it reads).
inline std::string nsys_refusal(const std::string& text, const std::string& origin) {
    try {
        (void)bwacct::parse_nsys_kern_sum(text, origin);
    } catch (const bwacct::InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace bwacct_test
