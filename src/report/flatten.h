// A Record as flat rows, one per GPU: the columns of CSV, Markdown and sweep tables.
#pragma once
#include <string>
#include <vector>

#include "bwacct/record.h"

namespace bwacct::detail {

struct Cell {
    std::string name;   // column name (CSV header): unit in the name, as in JSON
    std::string exact;  // full precision (CSV)
    std::string human;  // rounded (tables)
};
using Row = std::vector<Cell>;

std::vector<Row> flatten(const Record& r);

}  // namespace bwacct::detail
