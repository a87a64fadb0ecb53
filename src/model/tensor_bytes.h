// Bytes of a named tensor, with its --explain line (internal header).
#pragma once
#include <fmt/format.h>

#include <string>
#include <vector>

#include "bwacct/cost.h"
#include "term.h"

namespace bwacct::detail {

// Bytes to move `elems` elements of `t`, and an explain line "name: formula = dims in dtype".
inline Exact tensor_bytes(std::vector<Term>& terms, const std::string& name, const std::string& formula, const std::string& dims,
                          Exact elems, DType t) {
    Exact b = storage_bytes(t, elems);
    terms.push_back(term(name, formula + " · size(" + std::string(dtype_name(t)) + ")",
                         fmt::format("{} = {} elements of {}", dims, elems.value(), dtype_name(t)), b));
    return b;
}

}  // namespace bwacct::detail
