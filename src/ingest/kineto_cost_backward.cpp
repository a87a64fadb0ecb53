// Batch norm (forward, as the engine's layernorm over [N·spatial, C]) and the backward ops of norms,
// activations, softmax, losses, embedding and pooling, from a Kineto op's "Input Dims" (docs/formulas.md,
// "Backward and training ops"). Bytes: each input read once, each output written once. FLOPs per
// element (each arithmetic step and each exp/erf 1):
//   norm backward 9 (x̂ 2, dy·x̂ 1, two row sums 2, dx = γ·invstd·(dy − mean dy − x̂·mean(dy·x̂)) 4);
//   threshold_backward 1; sigmoid_backward, tanh_backward 3; silu_backward 9 (sigmoid 4, then 5);
//   gelu_backward 11 (Φ 4, φ 4, x·φ 1, Φ + x·φ 1, ·dy 1); softmax backward 4 (y·dy, row sum, dy − s, ·y).
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using namespace detail;

struct BackwardOp {
    std::string_view base;  // op name without namespace
    std::uint64_t inputs;   // full-size tensors read (the first `inputs` inputs)
    std::uint64_t flops;    // per element
    Category category;
};

constexpr std::array<BackwardOp, 14> kBackward{{
    {"native_batch_norm_backward", 2, 9, Category::norm},
    {"cudnn_batch_norm_backward", 2, 9, Category::norm},
    {"miopen_batch_norm_backward", 2, 9, Category::norm},
    {"native_layer_norm_backward", 2, 9, Category::norm},
    {"native_group_norm_backward", 2, 9, Category::norm},
    {"_fused_rms_norm_backward", 2, 9, Category::norm},
    {"threshold_backward", 2, 1, Category::elementwise},
    {"sigmoid_backward", 2, 3, Category::elementwise},
    {"tanh_backward", 2, 3, Category::elementwise},
    {"silu_backward", 2, 9, Category::elementwise},
    {"gelu_backward", 2, 11, Category::elementwise},
    {"hardtanh_backward", 2, 1, Category::elementwise},
    {"_softmax_backward_data", 2, 4, Category::softmax},
    {"_log_softmax_backward_data", 2, 4, Category::softmax},
}};

// A positive integer Concrete Input; nullopt otherwise.
std::optional<std::uint64_t> concrete_int(const CpuOp& op, std::size_t i) {
    const auto v = detail::int_arg(op, i);
    if (!v || *v <= 0)
        return std::nullopt;
    return static_cast<std::uint64_t>(*v);
}

// dX from dY and the saved input/output (all of input 0's shape and dtype).
std::optional<OpCost> cost_elementwise_backward(const std::string& name, const BackwardOp& b, const CpuOp& op) {
    const auto dy = input_shape(op, 0);
    const auto t = input_dtype(op, 0);
    if (!dy || !t)
        return std::nullopt;
    for (std::size_t i = 1; i < b.inputs; ++i)
        if (const auto s = input_shape(op, i); !s || elems(*s) != elems(*dy))
            return std::nullopt;
    ElementwiseDesc d;
    d.shape = *dy;
    d.dtype = *t;
    d.inputs = b.inputs;
    d.outputs = 1;
    d.flops_per_elem = b.flops;
    OpCost r;
    r.op = name;
    r.shape = shape_text(*dy);
    r.dtype = std::string(dtype_name(*t));
    r.category = b.category;
    r.cost = elementwise_cost(d);
    r.params = {{"shape", r.shape}, {"inputs", b.inputs}};
    return r;
}

// Batch norm forward: per channel over N·spatial, the engine's layernorm cost of [N·spatial, C]
// (read x and the 2·C affine parameters, write y; 7 FLOPs per element).
std::optional<OpCost> cost_batch_norm(const std::string& name, const CpuOp& op) {
    const auto x = input_shape(op, 0);
    const auto t = input_dtype(op, 0);
    if (!x || !t || x->size() < 2)
        return std::nullopt;
    const std::uint64_t c = (*x)[1];
    NormDesc d;
    d.kind = NormKind::layernorm;
    d.shape = {elems(*x) / c, c};
    d.dtype = *t;
    OpCost r;
    r.op = name;
    r.shape = shape_text(*x);
    r.dtype = std::string(dtype_name(*t));
    r.category = Category::norm;
    r.cost = norm_cost(d);
    r.params = {{"shape", r.shape}};
    return r;
}

// Pointwise losses (input, target[, weights], reduction): FLOPs per element forward and backward, and
// where the forward's `reduction` sits in its schema (0 = none: a full output; 1 mean, 2 sum: one value).
//   mse: (x−y)², accumulate: 3; backward 2(x−y)/N·g: 3.   l1: |x−y|, accumulate: 3; backward sign·g: 3.
//   smooth_l1 / huber: x−y, |·|, compare, the branch (≤ 2), accumulate: 6; backward x−y, |·|, compare, d/β or sign, ·g: 5.
//   binary_cross_entropy: −(y·log x + (1−y)·log(1−x)): 2 logs, 2 subtractions, 2 multiplies, add, negate, accumulate: 9;
//       backward g·(x−y)/(x(1−x)): 5.
//   binary_cross_entropy_with_logits: (1−y)·x + log(1+e^−x): 8; backward (sigmoid(x)−y)·g: sigmoid 4 + 2 = 6.
struct LossOp {
    std::string_view base;
    std::uint64_t fwd_flops, bwd_flops;
    std::size_t reduction;  // index of `reduction` in the forward's inputs
};
constexpr std::array<LossOp, 6> kLosses{{
    {"mse_loss", 3, 3, 2},
    {"l1_loss", 3, 3, 2},
    {"smooth_l1_loss", 6, 5, 2},
    {"huber_loss", 6, 5, 2},
    {"binary_cross_entropy", 9, 5, 3},
    {"binary_cross_entropy_with_logits", 8, 6, 4},
}};

// Forward: input and target (and a weight of their size) read, the loss written (full, or one value
// when reduced). Backward (grad_output, input, target, ...): every tensor input read (grad_output is
// 0-d when the loss was reduced), grad_input of the input's shape written.
std::optional<OpCost> cost_loss(const std::string& name, const LossOp& l, bool backward, const CpuOp& op) {
    const std::size_t x = backward ? 1 : 0;
    const auto shape = input_shape(op, x);
    const auto t = input_dtype(op, x);
    if (!shape || !t)
        return std::nullopt;
    const std::uint64_t n = elems(*shape);
    // The tensors before `reduction` are read; one after it is an out= buffer (written, counted below).
    std::uint64_t read = 0;
    for (std::size_t i = 0; i < op.dims.size() && i < l.reduction + (backward ? 1 : 0); ++i)
        read += tensor_bytes(op, i);
    std::uint64_t written = bytes_of(*t, n);
    std::string how = "every tensor input read; grad_input written";
    if (!backward) {
        const bool reduced = !(l.reduction < op.concrete.size() && op.concrete[l.reduction] == "0");
        written = reduced ? bytes_of(*t, 1) : bytes_of(*t, n);
        how = reduced ? "input, target (and weights) read; the reduced loss written"
                      : "input, target (and weights) read; the loss written";
    }
    return traffic(name, shape_text(*shape), *t, std::string(dtype_name(*t)), read, written,
                   n * (backward ? l.bwd_flops : l.fwd_flops), backward ? Category::elementwise : Category::reduce,
                   fmt::format("{}; {} FLOPs per element", how, backward ? l.bwd_flops : l.fwd_flops));
}

}  // namespace

std::optional<OpCost> cost_backward_op(const std::string& name, const CpuOp& op) {
    const std::string_view base = base_name(name);
    for (const BackwardOp& b : kBackward)
        if (b.base == base)
            return cost_elementwise_backward(name, b, op);
    if (name == "aten::native_batch_norm" || name == "aten::cudnn_batch_norm" || name == "aten::miopen_batch_norm" ||
        name == "aten::_native_batch_norm_legit" || name == "aten::_native_batch_norm_legit_no_training" ||
        name == "aten::_batch_norm_with_update" || name == "aten::native_group_norm")
        return cost_batch_norm(name, op);
    for (const LossOp& l : kLosses) {
        if (base == l.base)
            return cost_loss(name, l, false, op);
        if (base.size() == l.base.size() + 9 && base.substr(0, l.base.size()) == l.base &&
            base.substr(l.base.size()) == "_backward")
            return cost_loss(name, l, true, op);
    }
    if (base == "nll_loss_forward" || base == "nll_loss2d_forward") {
        // self [N, C], target [N]: the N picked log-probabilities and the targets read, one value written.
        const auto self = input_shape(op, 0), target = input_shape(op, 1);
        const auto t = input_dtype(op, 0);
        if (!self || !target || !t)
            return std::nullopt;
        const std::uint64_t n = elems(*target);
        return traffic(name, shape_text(*self), *t, std::string(dtype_name(*t)), bytes_of(*t, n) + input_bytes(op, 1),
                       bytes_of(*t, 1), n, Category::reduce, "picked elements + targets read; 1 FLOP per target");
    }
    if (base == "nll_loss_backward" || base == "nll_loss2d_backward") {
        // (grad_output, self [N, C], target [N], weight?, reduction, ignore_index, total_weight). PyTorch zeroes
        // grad_input in a child aten::zero_ (its own fill kernel, costed there), then this kernel writes one
        // value per target: grad_output, targets, weights and total_weight read, N values written, 1 FLOP each.
        // (Counting the whole N×C grad_input here counted the zero fill twice: on an H100, 4096×32000 fp32
        // took 10.3 µs, 524 MB would need 156 µs.)
        const auto self = input_shape(op, 1), target = input_shape(op, 2);
        const auto t = input_dtype(op, 1);
        if (!self || !target || !t)
            return std::nullopt;
        const std::uint64_t n = elems(*target);
        return traffic(name, shape_text(*self), *t, std::string(dtype_name(*t)),
                       tensor_bytes(op, 0) + input_bytes(op, 2) + tensor_bytes(op, 3) + tensor_bytes(op, 6), bytes_of(*t, n), n,
                       Category::reduce,
                       "grad_output, targets, weights and total_weight read; one grad_input value per "
                       "target written (grad_input zeroed by its own child op); 1 FLOP per target");
    }
    if (base == "embedding_dense_backward" || base == "embedding_backward") {
        // grad_output [..., D] and indices read; the rows the indices pick written, at most num_weights of
        // them: the num_weights×D gradient is zeroed first by a child aten::zeros (its own fill kernel,
        // costed there), then only the picked rows are accumulated.
        const auto g = input_shape(op, 0), idx = input_shape(op, 1);
        const auto t = input_dtype(op, 0);
        const auto rows = concrete_int(op, 2);
        if (!g || !idx || !t || !rows)
            return std::nullopt;
        const std::uint64_t picked = std::min<std::uint64_t>(*rows, elems(*idx));
        return traffic(name, shape_text(*g), *t, std::string(dtype_name(*t)), input_bytes(op, 0) + input_bytes(op, 1),
                       bytes_of(*t, picked * g->back()), elems(*g), Category::indexing,
                       "grad_output + indices read; min(num_weights, indices)·D written (the gradient zeroed by its own "
                       "child op); 1 FLOP per accumulated element");
    }
    if (base == "avg_pool2d_backward" || base == "avg_pool3d_backward" || base == "adaptive_avg_pool2d_backward" ||
        base == "_adaptive_avg_pool2d_backward" || base == "adaptive_avg_pool3d_backward" ||
        base == "_adaptive_avg_pool3d_backward") {
        // (grad_output, self, ...): grad_output read, grad_input (self's shape) written; each grad_input
        // element the sum of its windows' shares: 1 FLOP per grad_input element.
        const auto gin = input_shape(op, 1);
        const auto t = input_dtype(op, 1);
        if (!gin || !t || !input_shape(op, 0))
            return std::nullopt;
        return traffic(name, shape_text(*gin), *t, std::string(dtype_name(*t)), input_bytes(op, 0), bytes_of(*t, elems(*gin)),
                       elems(*gin), Category::reduce, "grad_output read; grad_input written; 1 FLOP per grad_input element");
    }
    if (base == "native_dropout" || base == "_fused_dropout") {
        // (input, p, train): input read; output and its bool mask (1 B an element) written; 2 FLOPs per
        // element (the draw's compare, the 1/(1−p) scale).
        const auto x = input_shape(op, 0);
        const auto t = input_dtype(op, 0);
        if (!x || !t)
            return std::nullopt;
        const std::uint64_t n = elems(*x);
        return traffic(name, shape_text(*x), *t, std::string(dtype_name(*t)), input_bytes(op, 0), bytes_of(*t, n) + n, 2 * n,
                       Category::elementwise, "input read; output and bool mask written; 2 FLOPs per element");
    }
    // dropout(input, p, train) and its feature / alpha forms when they launch the kernels themselves (no
    // native_dropout below them: ATen's _dropout_impl). Its noise is a tensor of the input's type: x's shape,
    // or [N, C, 1, …] for the feature forms; drawn (1 FLOP an element) and scaled (1), then x · noise (1 FLOP
    // an element of x). The alpha forms also write b = (noise − 1)·αa + αap (3 FLOPs a noise element) and
    // add it to the product (1 FLOP an element of x). Only in training do they launch a kernel (in eval they
    // return their input), so a Concrete Input 2 of False refuses, and none (an older trace) is taken as training.
    const bool feature = base == "feature_dropout" || base == "feature_alpha_dropout";
    const bool alpha = base == "alpha_dropout" || base == "feature_alpha_dropout";
    if (base == "dropout" || feature || alpha) {
        const auto x = input_shape(op, 0);
        const auto t = input_dtype(op, 0);
        if (!x || !t || (op.concrete.size() >= 3 && op.concrete[2] == "False") || (feature && x->size() < 2))
            return std::nullopt;
        const std::uint64_t n = elems(*x);
        const std::uint64_t m = feature ? (*x)[0] * (*x)[1] : n;  // noise elements
        const std::uint64_t noises = alpha ? 2 : 1;               // the noise, and the alpha forms' b
        return traffic(name, shape_text(*x), *t, std::string(dtype_name(*t)), input_bytes(op, 0),
                       bytes_of(*t, n) + bytes_of(*t, noises * m), n + 2 * m + (alpha ? n + 3 * m : 0), Category::elementwise,
                       feature ? "input read; output and the [N, C] noise (in the input's type) written"
                               : "input read; output and the noise (in the input's type) written");
    }
    if (base == "native_dropout_backward" || base == "_masked_scale") {
        // (grad_output, mask, scale): grad_output and the bool mask read, grad_input written; 2 FLOPs per
        // element (mask · g · scale).
        const auto g = input_shape(op, 0);
        const auto t = input_dtype(op, 0);
        if (!g || !t)
            return std::nullopt;
        return traffic(name, shape_text(*g), *t, std::string(dtype_name(*t)), input_bytes(op, 0) + input_bytes(op, 1),
                       bytes_of(*t, elems(*g)), 2 * elems(*g), Category::elementwise,
                       "grad_output + mask read; grad_input written; 2 FLOPs per element");
    }
    if (base == "max_pool2d_with_indices_backward" || base == "max_pool3d_with_indices_backward") {
        // grad_output and indices (last input) read; grad_input (self's shape) written.
        const auto gin = input_shape(op, 1);
        const auto t = input_dtype(op, 1);
        if (!gin || !t || op.dims.empty())
            return std::nullopt;
        return traffic(name, shape_text(*gin), *t, std::string(dtype_name(*t)),
                       input_bytes(op, 0) + input_bytes(op, op.dims.size() - 1), bytes_of(*t, elems(*gin)), 0, Category::reduce,
                       "grad_output + indices read; grad_input written");
    }
    return std::nullopt;
}

}  // namespace bwacct::kineto
