// "Did you mean": the valid names nearest to a name that is not one (a subcommand, ingest tool,
// option, GPU id, dtype, format or any other named choice). One helper for every such message.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace bwacct {

// ASCII lower case: names (GPU ids, dtypes, formats, choices) are matched case-insensitively.
std::string lower_ascii(std::string_view s);
bool equal_ignoring_case(std::string_view a, std::string_view b);

// The candidates nearest to `given`, compared case-insensitively, in the candidates' order:
// - every candidate that starts with `given` ("h100" -> h100-sxm, h100-pcie; "--time" -> --time-us),
//   when there is one;
// - else those at the smallest edit distance (insert, delete, replace, swap two neighbours), when it
//   is at most 1 for names up to 4 letters (leading dashes not counted), 2 up to 8, else 3
//   ("gemn" -> gemm, "--dtpye" -> --dtype; "--hot" suggests nothing among --plot, --gpu);
// - else none. At most `max` names.
std::vector<std::string> nearest_names(std::string_view given, const std::vector<std::string>& candidates, std::size_t max = 5);

// " (did you mean a, b?)" (empty when nothing is near): follows the name in an "unknown ..." message.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates);

}  // namespace bwacct
