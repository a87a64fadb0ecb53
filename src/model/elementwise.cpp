// Elementwise cost: each input read once, each output written once; FLOPs = elements × per-element.
#include <fmt/format.h>

#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "tensor_bytes.h"
#include "term.h"

namespace bwacct {

using detail::tensor_bytes;
using detail::term;

Exact element_count(const std::vector<std::uint64_t>& shape) {
    if (shape.empty())
        throw InputError("--shape", "needs at least one dimension, e.g. 32,2048,4096");
    Exact n(1);
    for (std::uint64_t dim : shape) {
        if (dim == 0)
            throw InputError("--shape", "every dimension must be a positive integer");
        n = n * Exact(dim);
    }
    return n;
}

namespace {

std::string shape_text(const std::vector<std::uint64_t>& shape) { return fmt::format("{}", fmt::join(shape, "·")); }

void check(const ElementwiseDesc& d) {
    if (d.inputs == 0)
        throw InputError("--inputs", "must be a positive integer");
    if (d.outputs == 0)
        throw InputError("--outputs", "must be a positive integer");
}

}  // namespace

Cost elementwise_cost(const ElementwiseDesc& d) {
    check(d);
    const Exact n = element_count(d.shape);
    Cost c;
    c.op = "elementwise";
    c.unit = d.unit;
    c.compute_dtype = d.dtype;
    c.terms.push_back(term("elements", "∏ shape", shape_text(d.shape), n));
    const Exact flops = n * Exact(d.flops_per_elem);
    c.terms.push_back(term("flops", "elements · flops_per_elem", fmt::format("{}·{}", n.value(), d.flops_per_elem), flops));
    const Exact one = tensor_bytes(c.terms, "one tensor", "elements", shape_text(d.shape), n, d.dtype);
    const Exact read = Exact(d.inputs) * one, written = Exact(d.outputs) * one;
    c.terms.push_back(term("bytes read", "inputs · tensor", fmt::format("{}·{}", d.inputs, one.value()), read));
    c.terms.push_back(term("bytes written", "outputs · tensor", fmt::format("{}·{}", d.outputs, one.value()), written));
    c.flops = flops.value();
    c.bytes_read = read.value();
    c.bytes_written = written.value();
    c.launches = 1;
    return c;
}

FusionCost fused_chain_cost(const ElementwiseDesc& d, std::uint64_t ops) {
    if (ops < 2)
        throw InputError("--chain", "a chain needs at least 2 ops");
    // The fused kernel does every op's arithmetic but reads the chain's inputs once and writes its
    // outputs once: an elementwise op with ops·flops_per_elem FLOPs per element.
    ElementwiseDesc fused = d;
    fused.flops_per_elem = (Exact(ops) * Exact(d.flops_per_elem)).value();
    FusionCost f;
    f.fused = elementwise_cost(fused);
    f.fused.op = "elementwise-fused";

    // Unfused: the first op reads the chain's inputs, each later op reads its predecessor's output;
    // each op but the last writes one intermediate, the last writes the chain's outputs.
    const Exact one = storage_bytes(d.dtype, element_count(d.shape));
    const Exact k(ops);
    const Exact read = Exact(d.inputs) * one + (k - Exact(1)) * one;
    const Exact written = (k - Exact(1)) * one + Exact(d.outputs) * one;
    f.unfused = f.fused;
    f.unfused.op = "elementwise-chain";
    f.unfused.terms.resize(3);  // elements, flops, one tensor: shared with the fused kernel
    f.unfused.terms.push_back(
        term("bytes read", "(inputs + ops − 1) · tensor", fmt::format("({} + {} − 1)·{}", d.inputs, ops, one.value()), read));
    f.unfused.terms.push_back(term("bytes written", "(ops − 1 + outputs) · tensor",
                                   fmt::format("({} − 1 + {})·{}", ops, d.outputs, one.value()), written));
    f.unfused.bytes_read = read.value();
    f.unfused.bytes_written = written.value();
    f.unfused.launches = ops;
    return f;
}

}  // namespace bwacct
