// --tolerance for baselines: "5%" or "5" (percent), from 0 to 100; returned as a fraction (0.05).
#pragma once
#include <string>

namespace bwacct::cli {

inline constexpr int kExitRegressed = 3;  // a baseline comparison found a regression beyond the tolerance

double parse_tolerance(const std::string& text, const std::string& option);

}  // namespace bwacct::cli
