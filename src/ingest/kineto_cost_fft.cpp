// Fast Fourier transforms from a Kineto op's "Input Dims" (docs/formulas.md, "Fast Fourier transforms"):
// the ops every torch.fft / torch.stft call ends in, aten::_fft_r2c(self, dim, normalization, onesided),
// aten::_fft_c2r(self, dim, normalization, last_dim_size) and aten::_fft_c2c(self, dim, normalization,
// forward). Bytes: the input read once and the output written once (a complex element is two reals);
// FLOPs: the nominal 5·N·log2(N) of a complex N-point transform (N = the product of the transformed
// lengths), half of it for a real one, once per batch (the elements outside the transformed dims), on
// the vector units. cuFFT / rocFFT make several passes and the scaling of a normalized transform is one
// more; neither is counted (a lower bound, as every formula here).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using namespace detail;

// The real element type of a (complex) torch type: "c10::complex<float>" → fp32, "float" → fp32.
std::optional<DType> real_type(std::string_view t, bool complex) {
    const std::string_view prefix = "c10::complex<";
    if (complex) {
        if (t.substr(0, prefix.size()) != prefix || t.empty() || t.back() != '>')
            return std::nullopt;
        t = t.substr(prefix.size(), t.size() - prefix.size() - 1);
    }
    return torch_dtype(t);
}

}  // namespace

std::optional<OpCost> cost_fft_op(const std::string& name, const CpuOp& op) {
    const std::string_view base = base_name(name);
    const bool r2c = base == "_fft_r2c", c2r = base == "_fft_c2r", c2c = base == "_fft_c2c";
    if (!r2c && !c2r && !c2c)
        return std::nullopt;
    const auto in = input_shape(op, 0);
    if (!in || op.types.empty())
        return std::nullopt;
    const auto dims = dims_arg(op, 1, in->size());
    if (!dims || dims->empty())
        return std::nullopt;
    const auto real = real_type(op.types[0], !r2c);
    if (!real)
        return std::nullopt;
    // The real-side (r2c's input, c2r's output) or complex shape the transform's lengths are read from.
    Shape signal = *in, out = *in;
    const std::size_t last = dims->back();
    if (r2c) {
        const auto onesided = op.concrete.size() > 3 ? op.concrete[3] : std::string();
        out[last] = onesided == "False" ? (*in)[last] : (*in)[last] / 2 + 1;
    } else if (c2r) {
        const auto n = int_arg(op, 3);
        if (!n || *n <= 0)
            return std::nullopt;
        out[last] = static_cast<std::uint64_t>(*n);
        signal = out;
    }
    for (std::size_t i = 0; i + 1 < dims->size(); ++i)
        if (std::find(dims->begin() + static_cast<std::ptrdiff_t>(i) + 1, dims->end(), (*dims)[i]) != dims->end())
            return std::nullopt;                // a dim named twice: not a transform torch runs
    const std::uint64_t total = elems(signal);  // checked: every sub-product below fits too
    std::uint64_t length = 1;                   // N
    for (std::size_t d : *dims)
        length *= signal[d];
    const std::uint64_t batch = total / length;
    const std::uint64_t read = (Exact(bytes_of(*real, elems(*in))) * Exact(r2c ? 1 : 2)).value();
    const std::uint64_t written = (Exact(bytes_of(*real, elems(out))) * Exact(c2r ? 1 : 2)).value();
    // 5·N·log2(N) per complex transform; a real one (r2c, c2r) is half. Rounded to a whole FLOP.
    const double flops_d =
        (c2c ? 5.0 : 2.5) * static_cast<double>(length) * std::log2(static_cast<double>(length)) * static_cast<double>(batch);
    if (!(flops_d < 9.0e18))
        throw OverflowError(fmt::format("{}: {:.3g} FLOPs do not fit 64 bits", name, flops_d));
    const auto flops = static_cast<std::uint64_t>(std::llround(flops_d));
    std::string shape = shape_text(*in);
    std::string dims_text;
    for (std::size_t d : *dims)
        dims_text += fmt::format("{}{}", dims_text.empty() ? "" : ",", d);
    shape += fmt::format(" dim={} N={}", dims_text, length);
    const std::string label = r2c ? std::string(dtype_name(*real)) : fmt::format("complex<{}>", dtype_name(*real));
    OpCost r = traffic(name, shape, *real, label, read, written, flops, Category::fft,
                       fmt::format("FFT {}: input read once, output {} written once; {} x {} x N log2 N, N = {}, batch {}",
                                   r2c ? "real to complex" : (c2r ? "complex to real" : "complex to complex"), shape_text(out),
                                   batch, c2c ? "5" : "2.5", length, batch));
    return r;
}

}  // namespace bwacct::kineto
