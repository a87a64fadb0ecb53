#include "json_pretty.h"
#include "bwacct/json_text.h"

#include <nlohmann/json.hpp>

namespace bwacct::detail {

// ordered_json keeps the writer's key order, which is the documented contract order.
std::string pretty_json(std::string_view compact) { return detail::json_text(nlohmann::ordered_json::parse(compact), 2); }

}  // namespace bwacct::detail
