// What an operation costs, independent of any GPU: FLOPs, HBM bytes, link bytes, launches.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bwacct/dtype.h"

namespace bwacct {

// Which arithmetic units do the FLOPs: tensor cores or the CUDA-core ("vector") pipes.
enum class Unit { tensor, vector };
std::string_view unit_name(Unit u);
// Where a matrix product in `t` runs: fp32 (SGEMM) on the CUDA cores, every other type on tensor
// cores (tf32, fp64 and the 16/8/4-bit types).
Unit matmul_unit(DType t);

// One line of --explain: a named quantity, its formula, the formula with numbers, and the result.
struct Term {
    std::string name;
    std::string formula;
    std::string substituted;
    std::string value;
};

// gather and scatter: read from nccl-tests logs (gather_perf, scatter_perf) and costed; not measured, not a command.
enum class CollectiveKind { allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, gather, scatter };
enum class CollectiveAlgo { ring, tree, nvls };

// The parts only collectives have (nccl-tests conventions).
struct CollectiveCost {
    CollectiveKind kind = CollectiveKind::allreduce;
    CollectiveAlgo algo = CollectiveAlgo::ring;
    bool algo_seen = false;  // CollectiveDesc::algo_seen
    std::uint64_t ranks = 2;
    std::uint64_t size_bytes = 0;           // nccl-tests "size" column
    double bus_factor = 1;                  // busbw = algbw * bus_factor (nccl-tests *GetBw)
    std::string bus_factor_formula;         // "2(n-1)/n"
    std::uint64_t wire_bytes_per_rank = 0;  // bytes each rank sends (one direction)
    std::uint64_t steps = 0;                // latency steps of the algorithm (alpha-beta model)
};

// A copy that crosses a link rather than staying in HBM: host (HtoD/DtoH over PCIe) or peer (PtoP
// over the scale-up link). Its bytes set the link roof: bytes / one-way link bandwidth.
enum class TransferLink { none, host, peer };

struct Cost {
    std::string op;
    std::uint64_t flops = 0;
    Unit unit = Unit::tensor;
    DType compute_dtype = DType::bf16;
    std::uint64_t bytes_read = 0;     // HBM lower bound: each input read once
    std::uint64_t bytes_written = 0;  // each output written once
    std::uint64_t launches = 1;       // kernels the op needs at minimum
    std::optional<CollectiveCost> collective;
    TransferLink transfer = TransferLink::none;
    std::uint64_t transfer_bytes = 0;  // bytes over that link (one direction)
    std::vector<Term> terms;           // the derivation, for --explain

    std::uint64_t bytes() const { return bytes_read + bytes_written; }
};

}  // namespace bwacct
