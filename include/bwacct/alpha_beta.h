// The α–β (Hockney) model of a communication time, fitted to measured points: t(S) = α + S/β.
// Relative least squares (each point weighted 1/t², so an 8 B and an 8 GiB message count alike):
// minimise Σ ((t_i − α − b·S_i) / t_i)², b = 1/β. Derivation: docs/formulas.md, "α–β fit".
#pragma once
#include <cstddef>
#include <vector>

namespace bwacct {

struct AlphaBetaPoint {
    double bytes = 0;    // message size S (> 0)
    double time_us = 0;  // measured time (> 0)
};

struct AlphaBetaFit {
    std::size_t n = 0;
    double alpha_us = 0;       // fixed cost per call
    double us_per_byte = 0;    // b = 1/β
    double beta_GBps = 0;      // asymptotic bandwidth: 1e-3 / b (B/µs → GB/s); 0 when b ≤ 0
    double half_bytes = 0;     // n½ = α·β = α / b: the size that reaches half of β; 0 when b ≤ 0
    double max_rel_error = 0;  // largest |t_i − t̂_i| / t_i
};

// Needs at least two distinct sizes; throws std::invalid_argument otherwise (callers check first).
AlphaBetaFit fit_alpha_beta(const std::vector<AlphaBetaPoint>& points);

}  // namespace bwacct
