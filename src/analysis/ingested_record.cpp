#include "bwacct/ingest.h"
#include "bwacct/projection.h"

namespace bwacct {

Record ingested_record(std::vector<Param> params, Cost cost, double time_us, const std::vector<const GpuSpec*>& gpus) {
    Record r;
    r.params = std::move(params);
    r.cost = std::move(cost);
    r.source = TimeSource::ingested;
    AnalysisOptions ao;
    ao.time_us = time_us;
    // The file's time is the first GPU's (the file's own, or the first --gpu); the others get it projected.
    r.verdicts = analyze_anchored(r.cost, gpus, 0, ao);
    return r;
}

}  // namespace bwacct
