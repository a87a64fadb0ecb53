// NCCL collective measurement (nccl_collective.cpp; NCCL loaded with dlopen).
#pragma once
#include "../backend.h"
#include "bwacct/ops.h"

namespace bwacct::measure::cuda {

// Without MPI (or with one rank): one process drives every visible GPU with ncclCommInitAll; d.ranks
// must not exceed the GPU count. Under MPI (MpiContext active): one GPU per rank (local rank),
// ncclCommInitRank with the unique id broadcast from rank 0; d.ranks must equal the MPI size.
// Buffers follow nccl-tests' size convention; inputs are small integers that depend only on
// (rank, index), so every sum is exact and each rank can compute the expected output. After timing,
// one run is checked element by element (nccl-tests' #wrong). Each rank returns its own samples
// (ranks sample in lockstep); the CLI averages the ranks' medians, with min and max in a note.
// Throws MeasureError with the NCCL error string on failure — never a time.
Timing measure_collective(const CollectiveDesc& d, const SamplePolicy& p, int device);

}  // namespace bwacct::measure::cuda
