// Convolution cost (1D/2D/3D, grouped, dilated, transposed), docs/formulas.md "Convolution".
// Output size: PyTorch's Conv*d / ConvTranspose*d formulas. FLOPs: 2 per multiply-add of the
// implicit GEMM each pass maps to (the same count for fwd, bwd-data and bwd-weight); bytes: each
// tensor a pass reads once and each one it writes once.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "math_path.h"
#include "pass_set.h"
#include "tensor_bytes.h"
#include "term.h"

namespace bwacct {
namespace {

using detail::tensor_bytes;
using detail::term;
using u64 = std::uint64_t;

void require_positive(u64 v, const char* option) {
    if (v == 0)
        throw InputError(option, "must be a positive integer");
}

// One value per spatial dimension: `v` as given, one value broadcast, or the default when empty.
std::vector<u64> per_dim(const std::vector<u64>& v, std::size_t dims, u64 fallback, const char* option, bool zero_allowed) {
    std::vector<u64> out;
    if (v.empty())
        out.assign(dims, fallback);
    else if (v.size() == 1)
        out.assign(dims, v.front());
    else if (v.size() == dims)
        out = v;
    else
        throw InputError(option, fmt::format("gives {} values for a {}D convolution; give one per spatial dimension or one "
                                             "for all (e.g. 3 or {})",
                                             v.size(), dims, fmt::join(std::vector<u64>(dims, 3), ",")));
    if (!zero_allowed)
        for (u64 x : out)
            require_positive(x, option);
    return out;
}

std::string dims_text(const std::vector<u64>& v) { return fmt::format("{}", fmt::join(v, "×")); }

Exact product(const std::vector<u64>& v) {
    Exact p(1);
    for (u64 x : v)
        p = p * Exact(x);
    return p;
}

using detail::passes;
using detail::PassSet;

}  // namespace

ConvGeometry conv_geometry(const ConvDesc& d) {
    const std::size_t dims = d.spatial.size();
    if (dims < 1 || dims > 3)
        throw InputError("--input", fmt::format("a convolution has 1 to 3 spatial dimensions (N,C,H[,W[,D]]); got {}", dims));
    require_positive(d.batch, "--batch");
    require_positive(d.in_channels, "--input");
    require_positive(d.out_channels, "--out-channels");
    require_positive(d.groups, "--groups");
    for (u64 x : d.spatial)
        require_positive(x, "--input");
    if (d.in_channels % d.groups != 0 || d.out_channels % d.groups != 0)
        throw InputError("--groups", fmt::format("{} groups must divide both the {} input and the {} output channels", d.groups,
                                                 d.in_channels, d.out_channels));
    ConvGeometry g;
    g.in = d.spatial;
    if (d.kernel.empty())
        throw InputError("--kernel", "is required (e.g. --kernel 3,3)");
    g.kernel = per_dim(d.kernel, dims, 0, "--kernel", false);
    g.stride = per_dim(d.stride, dims, 1, "--stride", false);
    g.padding = per_dim(d.padding, dims, 0, "--padding", true);
    g.dilation = per_dim(d.dilation, dims, 1, "--dilation", false);
    g.output_padding = per_dim(d.output_padding, dims, 0, "--output-padding", true);
    for (std::size_t i = 0; i < dims; ++i) {
        const Exact in(g.in[i]), k(g.kernel[i]), s(g.stride[i]), p(g.padding[i]), dil(g.dilation[i]), op(g.output_padding[i]);
        const Exact extent = dil * (k - Exact(1)) + Exact(1);  // the dilated kernel's span
        if (!d.transposed) {
            if (g.output_padding[i] != 0)
                throw InputError("--output-padding", "applies to transposed convolutions only (add --transposed)");
            // PyTorch Conv*d: out = ⌊(in + 2·pad − dil·(k−1) − 1) / stride⌋ + 1
            const Exact padded = in + Exact(2) * p;
            if (extent.value() > padded.value())
                throw InputError("--kernel", fmt::format("the kernel spans dilation·(k−1)+1 = {} but the padded input "
                                                         "in+2·padding is {} in spatial dimension {}: the output would be empty",
                                                         extent.value(), padded.value(), i + 1));
            g.out.push_back(((padded - extent) / s + Exact(1)).value());
        } else {
            // PyTorch ConvTranspose*d: out = (in−1)·stride − 2·pad + dil·(k−1) + output_padding + 1
            if (g.output_padding[i] >= g.stride[i] && g.output_padding[i] >= g.dilation[i])
                throw InputError("--output-padding", fmt::format("{} must be smaller than the stride ({}) or the dilation ({}) "
                                                                 "in spatial dimension {}",
                                                                 g.output_padding[i], g.stride[i], g.dilation[i], i + 1));
            const Exact full = (in - Exact(1)) * s + extent + op;
            const Exact cropped = Exact(2) * p;
            if (cropped.value() >= full.value())
                throw InputError("--padding", fmt::format("the output size (in−1)·stride − 2·padding + dilation·(k−1) + "
                                                          "output_padding + 1 = {} − {} is not positive in spatial dimension {}",
                                                          full.value(), cropped.value(), i + 1));
            g.out.push_back((full - cropped).value());
        }
    }
    g.spatial_in = product(g.in).value();
    g.spatial_out = product(g.out).value();
    g.kernel_volume = product(g.kernel).value();

    // The implicit GEMMs, per group (docs/formulas.md). P: the pixels the GEMM rows run over (the
    // output's for a convolution, the input's for a transposed one); A: the channels whose kernel
    // window is unrolled (im2col); B: the other side's channels.
    const Exact batch(d.batch), kvol(g.kernel_volume);
    const Exact cin_g = Exact(d.in_channels) / Exact(d.groups), cout_g = Exact(d.out_channels) / Exact(d.groups);
    const u64 pixels = (batch * Exact(d.transposed ? g.spatial_in : g.spatial_out)).value();
    const u64 a_kvol = ((d.transposed ? cout_g : cin_g) * kvol).value();
    const u64 b = (d.transposed ? cin_g : cout_g).value();
    const ConvGemm gather{pixels, b, a_kvol};   // Y[P,B] = im2col(X)[P, A·kvol] · W[A·kvol, B]
    const ConvGemm scatter{pixels, a_kvol, b};  // cols[P, A·kvol] = X[P,B] · Wᵀ[B, A·kvol], then col2im
    g.fwd = d.transposed ? scatter : gather;
    g.bwd_data = d.transposed ? gather : scatter;
    g.bwd_weight = ConvGemm{b, a_kvol, pixels};  // dW[B, A·kvol] = dYᵀ/Xᵀ[B,P] · cols[P, A·kvol]
    return g;
}

Cost conv_cost(const ConvDesc& d) {
    const ConvGeometry g = conv_geometry(d);
    detail::require_common_math_path(d.input_dtype, d.weight_dtype, "--dtype-weight", "input and weight");
    Cost c;
    c.op = "conv";
    c.compute_dtype = d.input_dtype;
    c.unit = matmul_unit(d.input_dtype);
    const PassSet ps = passes(d.pass);

    c.terms.push_back(Term{"output size",
                           d.transposed ? "(in−1)·stride − 2·padding + dilation·(k−1) + output_padding + 1, per dimension"
                                        : "⌊(in + 2·padding − dilation·(k−1) − 1) / stride⌋ + 1, per dimension",
                           fmt::format("in {}, kernel {}, stride {}, padding {}, dilation {}{}", dims_text(g.in),
                                       dims_text(g.kernel), dims_text(g.stride), dims_text(g.padding), dims_text(g.dilation),
                                       d.transposed ? ", output_padding " + dims_text(g.output_padding) : ""),
                           dims_text(g.out)});
    auto gemm_term = [&](const char* pass, const char* formula, const ConvGemm& m) {
        c.terms.push_back(Term{fmt::format("{} implicit GEMM", pass), formula,
                               fmt::format("M = {}, N = {}, K = {}", m.m, m.n, m.k),
                               fmt::format("{} GEMM{} of {}×{}×{}", d.groups, d.groups == 1 ? "" : "s", m.m, m.n, m.k)});
    };
    if (!d.transposed) {
        gemm_term("fwd", "M = N·spatial_out, N = C_out/groups, K = C_in/groups·kernel_volume (per group)", g.fwd);
        if (ps.bwd_data)
            gemm_term("bwd-data", "M = N·spatial_out, N = C_in/groups·kernel_volume, K = C_out/groups (then col2im)", g.bwd_data);
        if (ps.bwd_weight)
            gemm_term("bwd-weight", "M = C_out/groups, N = C_in/groups·kernel_volume, K = N·spatial_out", g.bwd_weight);
    } else {
        gemm_term("fwd", "M = N·spatial_in, N = C_out/groups·kernel_volume, K = C_in/groups (then col2im)", g.fwd);
        if (ps.bwd_data)
            gemm_term("bwd-data", "M = N·spatial_in, N = C_in/groups, K = C_out/groups·kernel_volume", g.bwd_data);
        if (ps.bwd_weight)
            gemm_term("bwd-weight", "M = C_in/groups, N = C_out/groups·kernel_volume, K = N·spatial_in", g.bwd_weight);
    }

    const Exact batch(d.batch), cin(d.in_channels), cout(d.out_channels), groups(d.groups);
    const Exact sp_in(g.spatial_in), sp_out(g.spatial_out), kvol(g.kernel_volume);
    // Every pass does the forward's multiply-adds: 2·groups·M·N·K of the forward GEMM.
    const Exact per_pass = Exact(2) * groups * Exact(g.fwd.m) * Exact(g.fwd.n) * Exact(g.fwd.k);
    const Exact flops = per_pass * Exact(ps.count());
    if (!d.transposed)
        c.terms.push_back(term("flops", "2·N·C_out·spatial_out·(C_in/groups)·kernel_volume · passes",
                               fmt::format("2·{}·{}·{}·{}·{} · {}", d.batch, d.out_channels, g.spatial_out,
                                           d.in_channels / d.groups, g.kernel_volume, ps.count()),
                               flops));
    else
        c.terms.push_back(term("flops", "2·N·C_in·spatial_in·(C_out/groups)·kernel_volume · passes",
                               fmt::format("2·{}·{}·{}·{}·{} · {}", d.batch, d.in_channels, g.spatial_in,
                                           d.out_channels / d.groups, g.kernel_volume, ps.count()),
                               flops));

    const Exact x_elems = batch * cin * sp_in, y_elems = batch * cout * sp_out;
    // Conv weight C_out×(C_in/groups)×kernel; transposed C_in×(C_out/groups)×kernel.
    const Exact w_elems = d.transposed ? cin * (cout / groups) * kvol : cout * (cin / groups) * kvol;
    const std::string x_dims = fmt::format("{}·{}·{}", d.batch, d.in_channels, g.spatial_in);
    const std::string y_dims = fmt::format("{}·{}·{}", d.batch, d.out_channels, g.spatial_out);
    const std::string w_dims = d.transposed ? fmt::format("{}·{}·{}", d.in_channels, d.out_channels / d.groups, g.kernel_volume)
                                            : fmt::format("{}·{}·{}", d.out_channels, d.in_channels / d.groups, g.kernel_volume);
    const char* x_f = "N·C_in·spatial_in";
    const char* y_f = "N·C_out·spatial_out";
    const char* w_f = d.transposed ? "C_in·(C_out/groups)·kernel_volume" : "C_out·(C_in/groups)·kernel_volume";
    const std::string b_dims = fmt::format("{}", d.out_channels);
    Exact read, written;
    auto bytes = [&](const char* name, const char* formula, const std::string& dims, Exact elems, DType t) {
        return tensor_bytes(c.terms, name, formula, dims, elems, t);
    };
    if (ps.fwd) {
        read += bytes("fwd read X", x_f, x_dims, x_elems, d.input_dtype);
        read += bytes("fwd read W", w_f, w_dims, w_elems, d.weight_dtype);
        if (d.bias)
            read += bytes("fwd read bias", "C_out", b_dims, cout, d.output_dtype);
        written += bytes("fwd write Y", y_f, y_dims, y_elems, d.output_dtype);
    }
    if (ps.bwd_data) {
        read += bytes("bwd-data read dY", y_f, y_dims, y_elems, d.output_dtype);
        read += bytes("bwd-data read W", w_f, w_dims, w_elems, d.weight_dtype);
        written += bytes("bwd-data write dX", x_f, x_dims, x_elems, d.input_dtype);
    }
    if (ps.bwd_weight) {
        read += bytes("bwd-weight read X", x_f, x_dims, x_elems, d.input_dtype);
        read += bytes("bwd-weight read dY", y_f, y_dims, y_elems, d.output_dtype);
        written += bytes("bwd-weight write dW", w_f, w_dims, w_elems, d.weight_dtype);
        if (d.bias)
            written += bytes("bwd-weight write dbias", "C_out", b_dims, cout, d.output_dtype);
    }
    c.flops = flops.value();
    c.bytes_read = read.value();
    c.bytes_written = written.value();
    c.launches = ps.count();
    return c;
}

}  // namespace bwacct
