// Re-indents compact JSON for a person to read (internal to src/report).
#pragma once
#include <string>
#include <string_view>

namespace bwacct::detail {

std::string pretty_json(std::string_view compact);

}  // namespace bwacct::detail
