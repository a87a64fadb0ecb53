// The measurement seam (issue 3 builds the backends). One abstract Backend, one implementation per
// folder: cuda/ (CUDA events, cuBLASLt, NCCL, CUPTI) and sim/ (deterministic, for tests only, never
// the default), the way BabelStream puts one programming model behind its Stream<T>.
// Nothing implements this interface yet: every time bwacct prints today is modelled or given.
#pragma once
#include <string>
#include <vector>

#include "bwacct/ops.h"
#include "bwacct/record.h"

namespace bwacct::measure {

// Times of one measured op: per-sample kernel times and how they were taken.
struct Timing {
    std::vector<double> samples_us;
    double median_us = 0, min_us = 0, max_us = 0, cv = 0;
    bool cold = true;       // L2 flushed (or buffers rotated) before each sample
    bool verified = false;  // the result was checked; a failed check is an error, never a time
    TimeSource source = TimeSource::measured;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    virtual Timing gemm(const GemmDesc& d) = 0;
    virtual Timing elementwise(const ElementwiseDesc& d) = 0;
    virtual Timing collective(const CollectiveDesc& d) = 0;
};

}  // namespace bwacct::measure
