// Builds --explain lines inside the models (internal header).
#pragma once
#include <fmt/format.h>

#include <string>

#include "bwacct/cost.h"

namespace bwacct::detail {

inline Term term(std::string name, std::string formula, std::string substituted, Exact value) {
    return Term{std::move(name), std::move(formula), std::move(substituted), fmt::format("{}", value.value())};
}

}  // namespace bwacct::detail
