// The two tests that decide which CPU ops a trace keeps, shared by the reader's second pass (OpFilter,
// kineto_reader.cpp) and the drop after one read (drop_idle_ops, kineto_drop_ops.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace bwacct::kineto {

// `ids` sorted, without repeats, for binary_search.
inline void sort_unique(std::vector<std::int64_t>& ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
}

// Whether one of the sorted starts lies in [ts, ts + dur]: the linking's containment test, bounds included
// (kineto_link.cpp).
inline bool holds_a_start(const std::vector<double>& sorted_starts, double ts, double dur) {
    const auto first = std::lower_bound(sorted_starts.begin(), sorted_starts.end(), ts);
    return first != sorted_starts.end() && *first <= ts + dur;
}

}  // namespace bwacct::kineto
