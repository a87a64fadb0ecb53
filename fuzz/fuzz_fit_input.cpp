// The input of `bwacct fit`: a CSV with a header row, or a bwacct sweep (JSONL or a JSON array):
// parse_fit_input, then fit_scaling on the points it accepted, as the command does.
#include <cmath>
#include <cstdint>
#include <string>

#include "bwacct/fit.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using bwacct::fuzz::check;
    using bwacct::fuzz::finite_non_negative;
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::FitData d = bwacct::parse_fit_input(text, "fuzz.csv", "", "");
        check(d.points.size() >= 2, "a fit input with fewer than 2 points was accepted");
        for (const bwacct::FitPoint& p : d.points)
            check(finite_non_negative(p.x) && finite_non_negative(p.y), "a point is negative, infinite or NaN");
        const bwacct::FitResult r = bwacct::fit_scaling(d.points, d.x_is_bytes, d.path);
        check(std::isfinite(r.intercept) && std::isfinite(r.slope) && std::isfinite(r.r2), "the fit is not finite");
        check(!r.bw_GBps || std::isfinite(*r.bw_GBps), "the fitted bandwidth is not finite");
    });
    return 0;
}
