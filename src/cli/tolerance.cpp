#include "tolerance.h"

#include <cmath>
#include <cstdlib>

#include "bwacct/error.h"

namespace bwacct::cli {

double parse_tolerance(const std::string& text, const std::string& option) {
    std::string t = text;
    if (!t.empty() && t.back() == '%')
        t.pop_back();
    const char* begin = t.c_str();
    char* end = nullptr;
    const double v = t.empty() ? -1 : std::strtod(begin, &end);
    if (t.empty() || end != begin + t.size() || !std::isfinite(v) || v < 0 || v > 100 ||
        t.find_first_of("xXnN") != std::string::npos)
        throw InputError(option, "expected a percentage from 0 to 100, such as 5% or 2.5; got '" + text + "'");
    return v / 100;
}

}  // namespace bwacct::cli
