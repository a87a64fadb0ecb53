// The report boundary's one check that every number printed is finite. A figure derived from the
// inputs that overflows or underflows a double (bytes / 1e-307 µs, 1e308 TFLOP/s × 1e308 s) is bad
// input, never "inf", "nan" or "null" in output: every renderer checks its figures here before it
// prints the first byte, and the CLI turns NonFiniteFigure into exit 2 naming the real-valued
// options given (bwacct/values.h keeps them).
#pragma once
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "bwacct/error.h"
#include "bwacct/record.h"

namespace bwacct {

class NonFiniteFigure : public InputError {
public:
    explicit NonFiniteFigure(std::string figure);
    const std::string& figure() const { return figure_; }

private:
    std::string figure_;
};

// Throws NonFiniteFigure naming `figure` unless v is finite.
void require_finite(double v, std::string_view figure);
// Every number of a JSON document (the machine form of a report holds every figure its table shows).
void require_finite(const nlohmann::json& doc);
void require_finite(const nlohmann::ordered_json& doc);
// Every number of a record, as its JSON (bwacct.op/1) carries them; with `explain`, the formulas' too.
void require_finite(const Record& r, bool explain);

}  // namespace bwacct
