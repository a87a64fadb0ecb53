// Memcpy and memset activities, costed from their own event (docs/formulas.md, "Copies"): the
// direction from the name Kineto gives them ("Memcpy HtoD (Pinned -> Device)", "Memcpy DtoD (Device
// -> Device)", "Memset (Device)"), the bytes from the event's "bytes" arg, else from the copy op that
// launched it (its destination's elements · bytes per element).
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

namespace bwacct::kineto {
namespace {

// The bytes of input 0 of a copy or fill op (its destination), or 0.
std::uint64_t op_bytes(const CpuOp* op) {
    if (op == nullptr)
        return 0;
    const auto shape = input_shape(*op, 0);
    const auto dtype = op->types.empty() ? std::nullopt : storage_dtype(op->types[0]);
    if (!shape || !dtype)
        return 0;
    return storage_bytes(*dtype, element_count(*shape)).value();
}

}  // namespace

std::optional<OpCost> cost_transfer(const GpuActivity& a, std::string_view name, const CpuOp* op) {
    if (a.kind == Activity::kernel)
        return std::nullopt;
    const std::uint64_t bytes = a.bytes > 0 ? a.bytes : op_bytes(op);
    if (bytes == 0)
        return std::nullopt;
    const Category cat = activity_category(a.kind, name);
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
