// Renders `bwacct project` (schema bwacct.projection/1) and `bwacct fit` (schema bwacct.fit/1):
// table for people, json (pretty) or jsonl (one line) for machines.
#pragma once
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/fit.h"
#include "bwacct/projection.h"
#include "bwacct/report.h"

namespace bwacct {

// `rate_unit` names the unit of a rate ("fps", "tokens/s"); times are always µs.
void print_projections(const std::vector<Projection>& projections, const std::string& rate_unit, Format format, std::FILE* out);

// The HBM peak the effective bandwidth is compared with (`bwacct fit --gpu`).
struct FitPeak {
    std::string gpu;
    double hbm_GBps = 0;
};

void print_fit(const FitData& data, const FitResult& fit, const std::optional<FitPeak>& peak, Format format, std::FILE* out);

// Throws InputError naming --format unless it is table, json or jsonl.
void require_table_or_json(Format format);

}  // namespace bwacct
