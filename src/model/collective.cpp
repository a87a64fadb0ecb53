// Collective cost, nccl-tests conventions: algbw = size / time, busbw = algbw · factor, with the
// factors of nccl-tests' *GetBw functions. Wire bytes per rank and latency steps per algorithm:
// docs/formulas.md ("Collectives").
#include <fmt/format.h>

#include <array>
#include <bit>

#include "bwacct/choice.h"
#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "term.h"

namespace bwacct {

using detail::term;

namespace {

constexpr std::array<Choice<CollectiveKind>, 9> kKinds{{{"allreduce", CollectiveKind::allreduce},
                                                        {"allgather", CollectiveKind::allgather},
                                                        {"reducescatter", CollectiveKind::reducescatter},
                                                        {"broadcast", CollectiveKind::broadcast},
                                                        {"reduce", CollectiveKind::reduce},
                                                        {"alltoall", CollectiveKind::alltoall},
                                                        {"sendrecv", CollectiveKind::sendrecv},
                                                        {"gather", CollectiveKind::gather},
                                                        {"scatter", CollectiveKind::scatter}}};
constexpr std::array<Choice<CollectiveAlgo>, 3> kAlgos{
    {{"ring", CollectiveAlgo::ring}, {"tree", CollectiveAlgo::tree}, {"nvls", CollectiveAlgo::nvls}}};

bool divides_by_ranks(CollectiveKind k) {
    return k == CollectiveKind::allgather || k == CollectiveKind::reducescatter || k == CollectiveKind::alltoall ||
           k == CollectiveKind::gather || k == CollectiveKind::scatter;
}

std::uint64_t ceil_log2(std::uint64_t n) { return std::bit_width(n - 1); }

}  // namespace

std::string_view collective_name(CollectiveKind k) { return choice_name(k, kKinds); }
CollectiveKind parse_collective(std::string_view s) { return parse_choice(s, "collective", "collective", kKinds); }
std::optional<CollectiveKind> find_collective(std::string_view s) {
    for (const auto& c : kKinds)
        if (equal_ignoring_case(c.name, s))
            return c.value;
    return std::nullopt;
}
std::string_view algo_name(CollectiveAlgo a) { return choice_name(a, kAlgos); }
CollectiveAlgo parse_algo(std::string_view s) { return parse_choice(s, "--algo", "algorithm", kAlgos); }

double bus_factor(CollectiveKind k, std::uint64_t ranks) {
    const double n = static_cast<double>(ranks);
    switch (k) {
        case CollectiveKind::allreduce:
            return 2.0 * (n - 1) / n;
        case CollectiveKind::allgather:
        case CollectiveKind::reducescatter:
        case CollectiveKind::alltoall:
        case CollectiveKind::gather:
        case CollectiveKind::scatter:
            return (n - 1) / n;
        case CollectiveKind::broadcast:
        case CollectiveKind::reduce:
        case CollectiveKind::sendrecv:
            return 1.0;
    }
    return 1.0;
}

Cost collective_cost(const CollectiveDesc& d) {
    if (d.ranks < 2)
        throw InputError("--ranks", "a collective needs at least 2 ranks");
    if (d.size_bytes == 0)
        throw InputError("--bytes", "must be a positive size");
    const std::uint64_t elem_bits = dtype_bits(d.dtype);
    if (elem_bits < 8 || (d.size_bytes * 8) % elem_bits != 0)
        throw InputError("--bytes",
                         fmt::format("{} bytes is not a whole number of {} elements", d.size_bytes, dtype_name(d.dtype)));
    if (divides_by_ranks(d.kind) && d.size_bytes % d.ranks != 0)
        throw InputError("--bytes", fmt::format("{} size is the total across ranks and must divide by --ranks ({} % {} != 0)",
                                                collective_name(d.kind), d.size_bytes, d.ranks));
    const bool is_allreduce = d.kind == CollectiveKind::allreduce;
    if (d.algo == CollectiveAlgo::tree && !is_allreduce)
        throw InputError("--algo", "tree is an allreduce algorithm; use ring for " + std::string(collective_name(d.kind)));
    if (d.algo == CollectiveAlgo::nvls &&
        !(is_allreduce || d.kind == CollectiveKind::allgather || d.kind == CollectiveKind::reducescatter))
        throw InputError("--algo", "nvls applies to allreduce, allgather and reducescatter");

    const Exact s(d.size_bytes), n(d.ranks);
    CollectiveCost cc;
    cc.kind = d.kind;
    cc.algo = d.algo;
    cc.algo_seen = d.algo_seen;
    cc.ranks = d.ranks;
    cc.size_bytes = d.size_bytes;
    cc.bus_factor = bus_factor(d.kind, d.ranks);
    Cost c;
    c.op = std::string(collective_name(d.kind));
    c.unit = Unit::vector;
    c.compute_dtype = d.dtype;
    c.flops = 0;  // reduction arithmetic is not counted (docs/formulas.md)
    c.launches = 1;

    Exact wire;
    std::string wire_formula;
    switch (d.kind) {
        case CollectiveKind::allreduce:
            cc.bus_factor_formula = "2(n−1)/n";
            if (d.algo == CollectiveAlgo::nvls) {
                wire = ceil_div(s * (n + Exact(1)), n);  // S out for ld_reduce, S/n out for the multicast store
                wire_formula = "S·(n+1)/n";
                cc.steps = 2;
            } else {
                wire = ceil_div(Exact(2) * (n - Exact(1)) * s, n);
                wire_formula = "2(n−1)/n·S";
                cc.steps = d.algo == CollectiveAlgo::tree ? 2 * ceil_log2(d.ranks) : 2 * (d.ranks - 1);
            }
            break;
        case CollectiveKind::allgather:
        case CollectiveKind::reducescatter:
        case CollectiveKind::alltoall:
            cc.bus_factor_formula = "(n−1)/n";
            if (d.algo == CollectiveAlgo::nvls) {
                wire = s;
                wire_formula = "S";
                cc.steps = 1;
            } else {
                wire = (n - Exact(1)) * (s / n);
                wire_formula = "(n−1)/n·S";
                cc.steps = d.kind == CollectiveKind::alltoall ? 1 : d.ranks - 1;
            }
            break;
        case CollectiveKind::broadcast:
        case CollectiveKind::reduce:
            cc.bus_factor_formula = "1";
            wire = s;
            wire_formula = "S";
            cc.steps = d.ranks - 1;
            break;
        case CollectiveKind::sendrecv:
            cc.bus_factor_formula = "1";
            wire = s;
            wire_formula = "S";
            cc.steps = 1;
            break;
        case CollectiveKind::gather:
        case CollectiveKind::scatter:
            // The root receives (gather) or sends (scatter) the n − 1 other ranks' shards of S/n, one
            // point-to-point transfer each, issued together (NCCL's grouped send/recv): its link carries (n−1)/n·S.
            cc.bus_factor_formula = "(n−1)/n";
            wire = (n - Exact(1)) * (s / n);
            wire_formula = "(n−1)/n·S at the root";
            cc.steps = 1;
            break;
    }
    cc.wire_bytes_per_rank = wire.value();
    c.terms.push_back(term("size S", "nccl-tests size", fmt::format("{} B", d.size_bytes), s));
    c.terms.push_back(term("wire bytes per rank", wire_formula + std::string(" (") + std::string(algo_name(d.algo)) + ")",
                           fmt::format("n = {}, S = {}", d.ranks, d.size_bytes), wire));
    c.terms.push_back(
        term("latency steps", std::string(algo_name(d.algo)) + " steps", fmt::format("n = {}", d.ranks), Exact(cc.steps)));

    // HBM lower bound per rank: the rank's input read once, its output written once.
    const Exact shard = s / n;
    // gather and scatter: the root's, the busiest rank (gather reads its shard and writes S; scatter the reverse).
    const bool shard_in = d.kind == CollectiveKind::allgather || d.kind == CollectiveKind::gather;
    const bool shard_out = d.kind == CollectiveKind::reducescatter || d.kind == CollectiveKind::scatter;
    const Exact in = shard_in ? shard : s;
    const Exact out = shard_out ? shard : s;
    c.terms.push_back(term("HBM read per rank", shard_in ? "S/n" : "S", fmt::format("{}", d.size_bytes), in));
    c.terms.push_back(term("HBM written per rank", shard_out ? "S/n" : "S", fmt::format("{}", d.size_bytes), out));
    c.bytes_read = in.value();
    c.bytes_written = out.value();
    c.collective = cc;
    return c;
}

}  // namespace bwacct
