// Parses --efficiency: which roofs to scale and by how much.
#include "bwacct/efficiency.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "bwacct/error.h"

namespace bwacct {

Efficiency parse_efficiency(const std::string& text, const std::string& option) {
    const std::string form = "expected key=value pairs, e.g. hbm=0.9,compute=0.7 (keys hbm, compute, link; values in (0, 1])";
    if (text.empty())
        throw InputError(option, form);
    Efficiency e;
    e.source = option + " " + text;
    bool seen[3] = {false, false, false};
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, end - start);
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw InputError(option, fmt::format("'{}': {}", item, form));
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        int slot = key == "hbm" ? 0 : key == "compute" ? 1 : key == "link" ? 2 : -1;
        if (slot < 0)
            throw InputError(option, fmt::format("unknown key '{}': {}", key, form));
        if (seen[slot])
            throw InputError(option, fmt::format("'{}' given twice: {}", key, form));
        seen[slot] = true;
        char* stop = nullptr;
        const double v = std::strtod(value.c_str(), &stop);
        if (stop == value.c_str() || *stop != '\0' || !std::isfinite(v) || v <= 0 || v > 1)
            throw InputError(option, fmt::format("{}={} is not a fraction in (0, 1]: {}", key, value, form));
        (slot == 0 ? e.hbm : slot == 1 ? e.compute : e.link) = v;
        start = end + 1;
    }
    return e;
}

}  // namespace bwacct
