#include "bwacct/suggest.h"

#include <algorithm>
#include <cctype>

namespace bwacct {

std::string lower_ascii(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && lower_ascii(a) == lower_ascii(b);
}

namespace {

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring).
std::size_t edit_distance(const std::string& a, const std::string& b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

}  // namespace

std::vector<std::string> nearest_names(std::string_view given, const std::vector<std::string>& candidates, std::size_t max) {
    std::vector<std::string> out;
    const std::string g = lower_ascii(given);
    if (g.empty() || g == "-" || g == "--")
        return out;
    for (const std::string& c : candidates)
        if (const std::string lc = lower_ascii(c); lc.size() > g.size() && lc.compare(0, g.size(), g) == 0 && out.size() < max)
            out.push_back(c);
    if (!out.empty())
        return out;
    const std::size_t letters = g.size() - std::min(g.find_first_not_of('-'), g.size());  // "--hot": 3
    const std::size_t limit = letters <= 4 ? 1 : letters <= 8 ? 2 : 3;
    std::size_t best = limit + 1;
    for (const std::string& c : candidates)
        best = std::min(best, edit_distance(g, lower_ascii(c)));
    if (best > limit)
        return out;
    for (const std::string& c : candidates)
        if (edit_distance(g, lower_ascii(c)) == best && out.size() < max)
            out.push_back(c);
    return out;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& candidates) {
    const std::vector<std::string> near = nearest_names(given, candidates);
    if (near.empty())
        return "";
    std::string out = " (did you mean ";
    for (std::size_t i = 0; i < near.size(); ++i)
        out += (i == 0 ? "" : ", ") + near[i];
    return out + "?)";
}

}  // namespace bwacct
