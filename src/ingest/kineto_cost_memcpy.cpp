// Memcpy and memset activities, costed from their own event (docs/formulas.md, "Copies"): the
// direction from the name Kineto gives them ("Memcpy HtoD (Pinned -> Device)", "Memcpy DtoD (Device
// -> Device)", "Memset (Device)"; a ROCm blit copy kernel: its launch's, else none and no formula), the bytes from the event's
// "bytes" arg, else from the copy op that launched it (its destination's elements · bytes per element).
//   HtoD: HBM write of the bytes; link roof: the bytes over the host link (PCIe).
//   DtoH: HBM read of the bytes; link roof: the bytes over the host link.
//   DtoD: HBM read + HBM write of the bytes.
//   PtoP: HBM read here of the bytes; link roof: the bytes over the scale-up link.
//   memset: HBM write of the bytes.
// No FLOPs; one launch each.
#include <fmt/format.h>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"
#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

// Whether the op that launched a transfer is itself a copy (memcpy) or a fill (memset), so that its
// input 0 is the transfer's destination: by the op's base name (after "::"), a rule, not a list of one
// trace's ops. Anything else (a convolution zeroing its workspace, a library's staging copy) does not
// give the size.
bool op_sizes_transfer(Activity kind, std::string_view op_name) {
    const std::string_view base = detail::base_name(op_name);
    const auto has = [&](std::string_view w) { return base.find(w) != std::string_view::npos; };
    if (kind == Activity::memset)  // fill_, zero_, zeros, memset; not masked_fill_ or index_fill_ (a part)
        return base.starts_with("fill") || base.starts_with("zero") || has("memset");
    return has("copy") || has("clone") || has("contiguous") || base == "to" || base == "_local_scalar_dense";
}

// The bytes of input 0 of a copy or fill op (its destination; a 0-d tensor is one element), or 0.
std::uint64_t op_bytes(Activity kind, const CpuOp* op, std::string_view op_name) {
    return op != nullptr && op_sizes_transfer(kind, op_name) ? detail::tensor_bytes(*op, 0) : 0;
}

}  // namespace

std::optional<OpCost> cost_transfer(const GpuActivity& a, std::string_view name, const CpuOp* op, std::string_view op_name) {
    if (a.kind == Activity::kernel)
        return std::nullopt;
    const Category cat = activity_category(a.kind, name, {}, a.copy);
    if (cat == Category::memcpy && runtime_copy_kernel(name))
        return std::nullopt;  // a copy kernel whose launch gave no direction: HtoD, DtoH or DtoD alike
    const std::uint64_t bytes = a.bytes > 0 ? a.bytes : op_bytes(a.kind, op, op_name);
    if (bytes == 0)
        return std::nullopt;
    OpCost r;
    r.category = cat;
    r.op = std::string(category_name(cat));
    r.shape = fmt::format("{} B", bytes);
    r.dtype = "bytes";
    Cost& c = r.cost;
    c.op = r.op;
    c.unit = Unit::vector;
    c.launches = 1;
    const std::string b = fmt::format("{} B", bytes);
    const std::string source = a.bytes > 0 ? "the event's \"bytes\"" : "the copy op's destination";
    switch (cat) {
        case Category::memcpy_htod:
            c.bytes_written = bytes;
            c.transfer = TransferLink::host;
            c.transfer_bytes = bytes;
            c.terms.push_back({"write HBM", source, b, b});
            c.terms.push_back({"host link bytes", source, b, b});
            break;
        case Category::memcpy_dtoh:
            c.bytes_read = bytes;
            c.transfer = TransferLink::host;
            c.transfer_bytes = bytes;
            c.terms.push_back({"read HBM", source, b, b});
            c.terms.push_back({"host link bytes", source, b, b});
            break;
        case Category::memcpy_ptop:
            c.bytes_read = bytes;
            c.transfer = TransferLink::peer;
            c.transfer_bytes = bytes;
            c.terms.push_back({"read HBM", source, b, b});
            c.terms.push_back({"peer link bytes", source, b, b});
            break;
        case Category::memset:
            c.bytes_written = bytes;
            c.terms.push_back({"write HBM", source, b, b});
            break;
        default:  // DtoD, or a copy whose name gives no direction: read and write HBM
            c.bytes_read = bytes;
            c.bytes_written = bytes;
            c.terms.push_back({"read HBM", source, b, b});
            c.terms.push_back({"write HBM", source, b, b});
            break;
    }
    r.params = {{"bytes", bytes}};
    return r;
}

}  // namespace bwacct::kineto
