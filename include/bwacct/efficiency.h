// Efficiency factors that scale the catalog roofs (`--efficiency hbm=0.9,compute=0.7`): a modelled
// time then assumes that fraction of each peak is reachable. Formulas: docs/formulas.md ("Efficiency
// factors").
#pragma once
#include <string>

namespace bwacct {

struct Efficiency {
    double hbm = 1, compute = 1, link = 1;  // each in (0, 1]
    std::string source;                     // "--efficiency hbm=0.9,compute=0.7"
    bool scaled() const { return hbm != 1 || compute != 1 || link != 1; }
};

// Parses "key=value[,key=value...]" with keys hbm, compute, link, each value in (0, 1], each key at
// most once. Throws InputError naming `option` and the accepted form.
Efficiency parse_efficiency(const std::string& text, const std::string& option);

}  // namespace bwacct
