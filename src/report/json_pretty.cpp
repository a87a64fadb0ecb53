#include "json_pretty.h"

#include <nlohmann/json.hpp>

namespace bwacct::detail {

// ordered_json keeps the writer's key order, which is the documented contract order.
std::string pretty_json(std::string_view compact) { return nlohmann::ordered_json::parse(compact).dump(2); }

}  // namespace bwacct::detail
