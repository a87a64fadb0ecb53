#include "bwacct/ingest.h"

namespace bwacct {

Record ingested_record(std::vector<Param> params, Cost cost, double time_us, const std::vector<const GpuSpec*>& gpus) {
    Record r;
    r.params = std::move(params);
    r.cost = std::move(cost);
    r.source = TimeSource::ingested;
    AnalysisOptions ao;
    ao.time_us = time_us;
    for (const GpuSpec* g : gpus)
        r.verdicts.push_back(analyze(r.cost, *g, ao));
    return r;
}

}  // namespace bwacct
