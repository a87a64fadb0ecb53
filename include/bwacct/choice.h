// Named choices of an option (--pass, --algo, --format, ...): one table per enum gives both the
// parser, with its "accepted: ..." error, and the name printed in output. Names are matched
// case-insensitively (--format JSON); an unknown one gets the nearest names ("did you mean").
#pragma once
#include <array>
#include <string>
#include <string_view>

#include "bwacct/error.h"
#include "bwacct/suggest.h"

namespace bwacct {

template <typename T>
struct Choice {
    std::string_view name;
    T value;
};

template <typename T, std::size_t N>
T parse_choice(std::string_view text, const std::string& option, std::string_view what, const std::array<Choice<T>, N>& choices) {
    for (const auto& c : choices)
        if (equal_ignoring_case(c.name, text))
            return c.value;
    std::string accepted;
    std::vector<std::string> names;
    for (const auto& c : choices) {
        if (!accepted.empty())
            accepted += ", ";
        accepted += c.name;
        names.emplace_back(c.name);
    }
    throw InputError(option, "unknown " + std::string(what) + " '" + std::string(text) + "'" + did_you_mean(text, names) +
                                 "; accepted: " + accepted);
}

template <typename T, std::size_t N>
std::string_view choice_name(T value, const std::array<Choice<T>, N>& choices) {
    for (const auto& c : choices)
        if (c.value == value)
            return c.name;
    return "?";
}

}  // namespace bwacct
