#include "bwacct/finite_guard.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "json_record.h"

namespace bwacct {
namespace {

template <typename Json>
void walk(const Json& j, const std::string& path) {
    if (j.is_number_float()) {
        require_finite(j.template get<double>(), path.empty() ? "(value)" : path);
    } else if (j.is_object()) {
        for (const auto& [k, v] : j.items())
            walk(v, path.empty() ? k : path + "." + k);
    } else if (j.is_array()) {
        std::size_t i = 0;
        for (const auto& v : j)
            walk(v, fmt::format("{}[{}]", path, i++));
    }
}

}  // namespace

NonFiniteFigure::NonFiniteFigure(std::string figure)
    : InputError("", fmt::format("the derived figure {} is not a finite number (it overflows or underflows a double); "
                                 "give inputs in a plausible range",
                                 figure)),
      figure_(std::move(figure)) {}

void require_finite(double v, std::string_view figure) {
    if (!std::isfinite(v))
        throw NonFiniteFigure(std::string(figure));
}

void require_finite(const nlohmann::json& doc) { walk(doc, ""); }
void require_finite(const nlohmann::ordered_json& doc) { walk(doc, ""); }

// The record's JSON writer checks every number it writes (detail::JsonWriter::value throws
// NonFiniteFigure naming the key), so writing it once is the check; the text is discarded.
void require_finite(const Record& r, bool explain) { (void)detail::record_json(r, explain); }

}  // namespace bwacct
