// NCCL collective measurement (nccl_collective.cpp; NCCL loaded with dlopen).
#pragma once
#include "../backend.h"
#include "bwacct/ops.h"

namespace bwacct::measure::cuda {

// Without MPI (or with one rank): one process drives every visible GPU with ncclCommInitAll; d.ranks
// must not exceed the GPU count. Under MPI (MpiContext active): one GPU per rank (local rank),
// ncclCommInitRank with the unique id broadcast from rank 0; d.ranks must equal the MPI size.
// Buffers follow nccl-tests' size convention; inputs are random; after timing, the result of one
// run is checked (sum of the ranks' inputs for reductions, gathered shards for allgather, ...), and
// the per-rank times are reduced across ranks (average, with min and max in notes) as nccl-tests does.
// Throws MeasureError with the NCCL error string on failure — never a time.
Timing measure_collective(const CollectiveDesc& d, const SamplePolicy& p, int device);

}  // namespace bwacct::measure::cuda
