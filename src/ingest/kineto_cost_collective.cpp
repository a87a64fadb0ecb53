// NCCL kernels with PyTorch's collective metadata ("Collective name", "In msg nelems", "Out msg
// nelems", "Group size", "dtype") as the engine's CollectiveDesc, in nccl-tests' size convention:
// allreduce, broadcast, reduce, alltoall, sendrecv: the input message; allgather: the gathered output;
// reducescatter: the input (both totals across ranks). The dtype gives the element size only
// (collectives count no FLOPs): integer types stand in as the float type of the same width.
#include <fmt/format.h>

#include <array>

#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"

namespace bwacct::kineto {
namespace {

// ProcessGroupNCCL's names for its collectives ("allreduce", "_allgather_base", "all_gather",
// "allgather_into_tensor_coalesced", "reduce_scatter_tensor_coalesced", "_broadcast_oop", "all_to_allv",
// "alltoall_base", "send", ...): the kind is the name with its leading "_", the suffixes that say how the
// tensors are passed ("_coalesced", "_oop", "_base", "_into_tensor", "_tensor") and the other "_" removed.
// A coalesced call's metadata counts the elements of all its tensors, so it is one collective of that size.
// "barrier" is an all-reduce of one element (ProcessGroupNCCL::barrier); gather and scatter are not modelled.
std::optional<CollectiveKind> collective_kind(std::string_view n) {
    while (n.starts_with("_"))
        n.remove_prefix(1);
    for (bool cut = true; cut;) {
        cut = false;
        for (std::string_view suffix : {"_coalesced", "_oop", "_base", "_into_tensor", "_tensor"})
            if (n.ends_with(suffix)) {
                n.remove_suffix(suffix.size());
                cut = true;
            }
    }
    std::string base;
    for (char c : n)
        if (c != '_')
            base += c;
    // Names beside the canonical ones (find_collective: allreduce, allgather, reducescatter, broadcast,
    // reduce, alltoall, sendrecv).
    if (base == "barrier")
        return CollectiveKind::allreduce;
    if (base == "alltoallv")
        return CollectiveKind::alltoall;
    if (base == "send" || base == "recv")
        return CollectiveKind::sendrecv;
    // ProcessGroupNCCL's gather and scatter: their metadata's message sizes differ by rank (the root's list
    // holds every shard); not costed from a trace.
    if (base == "gather" || base == "scatter")
        return std::nullopt;
    return find_collective(base);
}

// torch's dtype name in the NCCL metadata (c10::toString of the ScalarType) → an engine dtype of the same
// element size. Every ScalarType by its width, so that no dtype a trace can carry leaves a collective
// uncosted: the float8 types of either convention (NVIDIA's "fn", AMD MI300's "fnuz", the e8m0 scale),
// the packed fp4 pair ("Float4_e2m1fn_x2": one byte holds the element PyTorch counts), the unsigned and
// complex types (ComplexHalf is 2·2 bytes, ComplexFloat 2·4), the quantized and bits types.
// ComplexDouble (16 bytes) has no engine dtype of its width: not costed.
std::optional<DType> element_type(std::string_view t) {
    struct Width {
        std::string_view name;
        DType dtype;
    };
    static constexpr std::array<Width, 31> kTypes{{{"Double", DType::fp64},
                                                   {"Long", DType::fp64},
                                                   {"UInt64", DType::fp64},
                                                   {"ComplexFloat", DType::fp64},
                                                   {"Float", DType::fp32},
                                                   {"Int", DType::fp32},
                                                   {"UInt32", DType::fp32},
                                                   {"ComplexHalf", DType::fp32},
                                                   {"QInt32", DType::fp32},
                                                   {"BFloat16", DType::bf16},
                                                   {"Half", DType::fp16},
                                                   {"Short", DType::fp16},
                                                   {"UInt16", DType::fp16},
                                                   {"Bits16", DType::fp16},
                                                   {"Float8_e4m3fn", DType::fp8_e4m3},
                                                   {"Float8_e4m3fnuz", DType::fp8_e4m3},
                                                   {"Float8_e5m2", DType::fp8_e5m2},
                                                   {"Float8_e5m2fnuz", DType::fp8_e5m2},
                                                   {"Float8_e8m0fnu", DType::int8},
                                                   {"Float4_e2m1fn_x2", DType::int8},
                                                   {"Byte", DType::int8},
                                                   {"Char", DType::int8},
                                                   {"Bool", DType::int8},
                                                   {"QInt8", DType::int8},
                                                   {"QUInt8", DType::int8},
                                                   {"QUInt4x2", DType::int8},
                                                   {"QUInt2x4", DType::int8},
                                                   {"Bits1x8", DType::int8},
                                                   {"Bits2x4", DType::int8},
                                                   {"Bits4x2", DType::int8},
                                                   {"Bits8", DType::int8}}};
    for (const Width& w : kTypes)
        if (w.name == t)
            return w.dtype;
    return std::nullopt;
}

// The algorithm a kernel's name shows: NCCL writes it as an upper-case word of its kernel names
// (ncclDevKernel_AllReduce_Sum_bf16_NVLS_SIMPLE, ncclKernel_AllReduce_TREE_LL_Sum_float; NVLS_TREE runs
// NVLS inside the node), PyTorch's symmetric memory as "multimem" (NVSwitch multicast and in-switch
// reduction: NVLS). Ring otherwise, and for kinds the algorithm does not apply to. `seen`: the name
// named one.
CollectiveAlgo algo_of(std::string_view name, CollectiveKind kind, bool& seen) {
    const bool nvls_kind =
        kind == CollectiveKind::allreduce || kind == CollectiveKind::allgather || kind == CollectiveKind::reducescatter;
    const auto word = [&](std::string_view w) {
        for (std::size_t at = name.find(w); at != std::string_view::npos; at = name.find(w, at + 1)) {
            const bool starts = at == 0 || name[at - 1] == '_';
            const std::size_t end = at + w.size();
            if (starts && (end == name.size() || name[end] == '_' || name[end] == '<' || name[end] == '('))
                return true;
        }
        return false;
    };
    seen = true;
    if (nvls_kind && (word("NVLS") || name.find("multimem") != std::string_view::npos))
        return CollectiveAlgo::nvls;
    if (kind == CollectiveKind::allreduce && word("TREE"))
        return CollectiveAlgo::tree;
    seen = false;
    return CollectiveAlgo::ring;
}

// " NVLS" / " TREE" after a shape, so that calls of one size run by two algorithms stay two records.
std::string algo_suffix(const CollectiveDesc& d) {
    return d.algo_seen ? fmt::format(" {}", d.algo == CollectiveAlgo::nvls ? "NVLS" : "TREE") : std::string();
}

}  // namespace

std::optional<OpCost> cost_collective_kernel(const GpuActivity& a) {
    return a.collective ? cost_collective_kernel(*a.collective) : std::nullopt;
}

std::optional<OpCost> cost_collective_kernel(const CollectiveArgs& m, std::string_view kernel_name) {
    const auto kind = collective_kind(m.name);
    const auto dtype = element_type(m.dtype);
    if (!kind || !dtype || m.group_size < 2)
        return std::nullopt;
    const std::uint64_t nelems = *kind == CollectiveKind::allgather ? m.out_nelems : m.in_nelems;
    if (nelems == 0)
        return std::nullopt;
    CollectiveDesc d;
    d.kind = *kind;
    d.ranks = m.group_size;
    d.dtype = *dtype;
    d.size_bytes = storage_bytes(*dtype, Exact(nelems)).value();
    d.algo = algo_of(kernel_name, d.kind, d.algo_seen);
    OpCost r;
    r.op = fmt::format("nccl:{}", collective_name(d.kind));
    r.shape = fmt::format("in={} out={} ranks={}{}", m.in_nelems, m.out_nelems, m.group_size, algo_suffix(d));
    r.dtype = m.dtype;
    r.category = Category::collective;
    r.cost = collective_cost(d);
    r.params = {{"in_nelems", m.in_nelems}, {"out_nelems", m.out_nelems}, {"ranks", m.group_size}, {"size_bytes", d.size_bytes}};
    return r;
}

std::optional<OpCost> cost_symmetric_collective(const std::string& name, const CpuOp& op, std::uint64_t ranks) {
    // Collectives outside NCCL (PyTorch symmetric memory `symm_mem::`, vLLM/SGLang custom all-reduce):
    // the kind from the op's name, the message from its largest floating-point input.
    const bool family = name.find("symm_mem") != std::string::npos || name.find("custom_ar") != std::string::npos ||
                        name.find("cross_device") != std::string::npos || name.find("all_reduce") != std::string::npos ||
                        name.find("all_gather") != std::string::npos || name.find("reduce_scatter") != std::string::npos;
    if (!family || name == "record_param_comms" || name.rfind("c10d::", 0) == 0 || ranks < 2)
        return std::nullopt;
    CollectiveDesc d;
    if (name.find("all_gather") != std::string::npos)
        d.kind = CollectiveKind::allgather;
    else if (name.find("reduce_scatter") != std::string::npos)
        d.kind = CollectiveKind::reducescatter;
    else if (name.find("reduce") != std::string::npos)
        d.kind = CollectiveKind::allreduce;
    else
        return std::nullopt;
    std::optional<std::size_t> big;
    std::uint64_t elems = 0;
    for (std::size_t i = 0; i < op.dims.size(); ++i) {
        const auto s = input_shape(op, i);
        if (!s || !input_dtype(op, i))
            continue;
        const std::uint64_t n = element_count(*s).value();
        if (n > elems) {
            elems = n;
            big = i;
        }
    }
    if (!big)
        return std::nullopt;
    d.dtype = *input_dtype(op, *big);
    d.ranks = ranks;
    // nccl-tests' size: allgather the gathered output (input · ranks), else the input.
    const std::uint64_t nelems = d.kind == CollectiveKind::allgather ? elems * ranks : elems;
    d.size_bytes = storage_bytes(d.dtype, Exact(nelems)).value();
    d.algo = algo_of(name, d.kind, d.algo_seen);
    OpCost r;
    r.op = fmt::format("{}:{}", name, collective_name(d.kind));
    r.shape = fmt::format("in={} ranks={} (the trace's NCCL group size){}", elems, ranks, algo_suffix(d));
    r.dtype = std::string(dtype_name(d.dtype));
    r.category = Category::collective;
    r.cost = collective_cost(d);
    r.params = {{"in_nelems", elems}, {"ranks", ranks}, {"size_bytes", d.size_bytes}};
    return r;
}

}  // namespace bwacct::kineto
