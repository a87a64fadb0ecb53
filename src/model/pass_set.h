// Which passes of a linear operator a GemmPass asks for (forward, data gradient, weight gradient):
// shared by the GEMM and convolution cost models, whose backward passes have the same shape.
#pragma once
#include "bwacct/ops.h"

namespace bwacct::detail {

struct PassSet {
    bool fwd = false, bwd_data = false, bwd_weight = false;
    unsigned count() const { return unsigned(fwd) + unsigned(bwd_data) + unsigned(bwd_weight); }
};

inline PassSet passes(GemmPass p) {
    switch (p) {
        case GemmPass::fwd:
            return {true, false, false};
        case GemmPass::bwd_data:
            return {false, true, false};
        case GemmPass::bwd_weight:
            return {false, false, true};
        case GemmPass::bwd:
            return {false, true, true};
        case GemmPass::fwd_bwd:
            return {true, true, true};
    }
    return {};
}

}  // namespace bwacct::detail
