// Where a time comes from. Every output carries this label.
#pragma once
#include <string_view>

namespace bwacct {

enum class TimeSource { modelled, given, measured, simulated };
std::string_view time_source_name(TimeSource s);

}  // namespace bwacct
