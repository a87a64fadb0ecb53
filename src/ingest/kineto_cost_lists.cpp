// Ops over tensor lists from a Kineto op's nested "Input Dims" (docs/formulas.md, "Tensor-list ops"):
// cat/stack, the `_foreach_*` multi-tensor ops, fused Adam/AdamW, SGD and Adagrad, and AMP's unscale. Kineto gives a
// list's input type as "TensorList", never its element type: that comes from the name of a kernel the
// op launched (kernel_element_type), so these costs need one.
//
// Bytes: every tensor of every list read once, each result written once, at the element type's size.
// FLOPs: 0 for cat, stack, copy and zero; 1 per element for a unary or binary foreach op (2 for add/sub
// with an alpha other than 1: a multiply-add), 3 for addcmul/addcdiv/lerp, 4 for sigmoid; 1 per input
// element for the per-tensor reductions (norm, max); 13 per parameter for Adam (+2 with weight decay,
// +1 unscaling by grad_scale), counted from PyTorch's adam_math (aten/src/ATen/native/cuda/fused_adam_utils.cuh);
// fused SGD and Adagrad from sgd_math and adagrad_math (at sgd_op, adagrad_op).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "kineto_cost_util.h"
#include "kineto_param_inventory.h"

namespace bwacct::kineto {
namespace {

using namespace detail;

bool is_list_type(const CpuOp& op, std::size_t i) { return i < op.types.size() && op.types[i] == "TensorList"; }

// Elements of a complete list (tensor k: the product of its dims; a 0-dim tensor: 1); nullopt for a
// partial list or a negative dim.
std::optional<Exact> list_elements(const TensorListDims& l) {
    if (!l.complete())
        return std::nullopt;
    Exact total = 0;
    std::size_t b = 0;
    for (const std::uint32_t e : l.ends) {
        Exact n = 1;
        for (std::size_t j = b; j < e; ++j) {
            if (l.dims[j] < 0)
                return std::nullopt;
            n = n * Exact(static_cast<std::uint64_t>(l.dims[j]));
        }
        total += n;
        b = e;
    }
    return total;
}

// "[64]×2 [128x64]": runs of equal shapes, at most 8 runs, then the tensor and element counts.
std::string list_text(const TensorListDims& l, Exact elements) {
    std::string s;
    std::size_t runs = 0, k = 0;
    while (k < l.kept()) {
        const std::vector<std::int64_t> shape = l.shape(k);
        std::size_t same = 1;
        while (k + same < l.kept() && l.shape(k + same) == shape)
            ++same;
        if (++runs > 8) {
            s += fmt::format(" … {} tensors, {} elements", l.count, elements.value());
            return s;
        }
        std::string dims;
        for (const std::int64_t d : shape)
            dims += fmt::format("{}{}", dims.empty() ? "" : "x", d);
        s += fmt::format("{}[{}]{}", s.empty() ? "" : " ", dims, same > 1 ? fmt::format("×{}", same) : "");
        k += same;
    }
    return s;
}

// A number from Concrete Inputs ("0.01", "-0.001"); nullopt when absent or not one.
std::optional<double> number_arg(const CpuOp& op, std::size_t i) {
    if (i >= op.concrete.size() || op.concrete[i].empty())
        return std::nullopt;
    const std::string& s = op.concrete[i];
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size())
        return std::nullopt;
    return v;
}

struct List {
    const TensorListDims* dims;
    Exact elements;
};

// The op's TensorList inputs, in order; nullopt when one of them has no (or partial) shapes in the trace.
std::optional<std::vector<List>> lists_of(const CpuOp& op) {
    std::vector<List> out;
    const std::size_t inputs = std::max(op.dims.size(), op.types.size());
    for (std::size_t i = 0; i < inputs; ++i) {
        const TensorListDims* l = input_list(op, i);
        if (!l) {
            if (is_list_type(op, i))
                return std::nullopt;
            continue;
        }
        const auto n = list_elements(*l);
        if (!n)
            return std::nullopt;
        out.push_back({l, *n});
    }
    return out;
}

std::uint64_t bytes(const ElementType& e, Exact n) { return storage_bytes(e.dtype, n).value(); }

// An op that reads every tensor of its first list and writes as many bytes: `flops_per_element` FLOPs each.
std::optional<OpCost> read_write_list(const std::string& name, const CpuOp& op, const ElementType& e,
                                      std::uint64_t flops_per_element, Category category, const std::string& formula) {
    const TensorListDims* l = input_list(op, 0);
    if (!l)
        return std::nullopt;
    const auto n = list_elements(*l);
    if (!n)
        return std::nullopt;
    const std::uint64_t b = bytes(e, *n);
    return traffic(name, list_text(*l, *n), e.dtype, e.label, b, b, flops_per_element * n->value(), category, formula);
}

std::optional<OpCost> cat_op(const std::string& name, const CpuOp& op, const ElementType& e) {
    return read_write_list(name, op, e, 0, Category::indexing,
                           "every tensor of the list read, their concatenation written; 0 FLOPs");
}

// _chunk_cat(tensors, dim, num_chunks, *, out) (FSDP2's reduce-scatter input): every tensor of the list read in
// the source type, the out tensor written in its own (it holds the chunks padded to equal size); without an out
// tensor the list's elements written, the padding not counted (a lower bound).
std::optional<OpCost> chunk_cat_op(const std::string& name, const CpuOp& op, const ElementType& e) {
    const TensorListDims* l = input_list(op, 0);
    if (!l)
        return std::nullopt;
    const auto n = list_elements(*l);
    if (!n)
        return std::nullopt;
    const DType from = e.source.value_or(e.dtype);
    const std::uint64_t out = input_shape(op, 3) && input_dtype(op, 3) ? tensor_bytes(op, 3) : bytes(e, *n);
    std::string label = e.source ? fmt::format("{}->{}", dtype_name(*e.source), e.label) : e.label;
    return traffic(name, list_text(*l, *n), e.dtype, label, storage_bytes(from, *n).value(), out, 0, Category::indexing,
                   "every tensor of the list read, the padded chunks written (the out tensor); 0 FLOPs");
}

std::optional<OpCost> foreach_op(const std::string& name, std::string_view fn, const CpuOp& op, const ElementType& e) {
    const auto lists = lists_of(op);
    if (!lists || lists->empty())
        return std::nullopt;
    const List& self = lists->front();
    for (const List& l : *lists)
        if (l.dims->count != self.dims->count)
            return std::nullopt;  // foreach ops take lists of one length
    Exact read = 0;
    for (const List& l : *lists)
        read += l.elements;
    Exact written = self.elements, flops = self.elements;
    std::string how = "each list's tensors read, the results written; 1 FLOP per element";
    if (fn == "zero") {
        read = 0;
        flops = 0;
        how = "the list written; 0 FLOPs";
    } else if (fn == "copy") {
        if (lists->size() < 2)
            return std::nullopt;
        // a copy, not optimizer math: the source list read (in its own type where the kernel names one), the
        // destination list written
        const Exact source = read - self.elements;
        const DType from = e.source.value_or(e.dtype);
        std::string shape = fmt::format("{} lists of {}", lists->size(), list_text(*self.dims, self.elements));
        std::string label = e.source ? fmt::format("{}->{}", dtype_name(*e.source), e.label) : e.label;
        return traffic(name, shape, e.dtype, label, storage_bytes(from, source).value(), bytes(e, written), 0,
                       Category::elementwise,
                       e.source ? "the source list read in its type, the destination list written in its own; 0 FLOPs"
                                : "the source list read, the destination list written; 0 FLOPs");
    } else if (fn == "norm" || fn == "max") {
        if (lists->size() != 1)
            return std::nullopt;
        written = self.dims->count;
        how = "each tensor read, one value per tensor written; 1 FLOP per input element";
    } else if (fn == "addcmul" || fn == "addcdiv" || fn == "lerp") {
        flops = Exact(3) * self.elements;
        how = "each list's tensors read, the results written; 3 FLOPs per element";
    } else if (fn == "sigmoid") {
        flops = Exact(4) * self.elements;
        how = "each tensor read, the results written; 4 FLOPs per element";
    } else if ((fn == "add" || fn == "sub") && lists->size() == 2 && number_arg(op, 2).value_or(1.0) != 1.0) {
        flops = Exact(2) * self.elements;
        how = "both lists read, the results written; 2 FLOPs per element (a + alpha·b)";
    }
    std::string shape = list_text(*self.dims, self.elements);
    if (lists->size() > 1)
        shape = fmt::format("{} lists of {}", lists->size(), shape);
    return traffic(name, shape, e.dtype, e.label, bytes(e, read), bytes(e, written), flops.value(), Category::optimizer, how);
}

// _fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr, beta1, beta2,
// weight_decay, eps, amsgrad, maximize, grad_scale, found_inf): inputs 0–5 lists, weight_decay at 9,
// grad_scale at 13.
std::optional<OpCost> adam_op(const std::string& name, const CpuOp& op, const ElementType& e) {
    std::optional<Exact> n[5];
    const TensorListDims* params = input_list(op, 0);
    for (std::size_t i = 0; i < 5; ++i) {
        const TensorListDims* l = input_list(op, i);
        if (!l) {
            if (i == 4)  // max_exp_avg_sqs: empty (written []) without amsgrad
                n[i] = Exact(0);
            continue;
        }
        if (params && l->count != params->count)
            return std::nullopt;
        n[i] = list_elements(*l);
    }
    for (const auto& x : n)
        if (!x)
            return std::nullopt;
    const TensorListDims* steps = input_list(op, 5);
    if (steps && !steps->complete())
        return std::nullopt;
    const bool amsgrad = input_list(op, 4) != nullptr;
    const bool decay = number_arg(op, 9).value_or(0.0) != 0.0;
    const bool scaled = op.types.size() > 13 && storage_dtype(op.types[13]).has_value();
    // Read params, grads, exp_avg, exp_avg_sq (and max_exp_avg_sq) in the element type, and the fp32
    // step count of each parameter; write params, exp_avg, exp_avg_sq (and max_exp_avg_sq; grads when
    // grad_scale unscales them in place).
    const Exact read = bytes(e, *n[0] + *n[1] + *n[2] + *n[3] + *n[4]) + (steps ? Exact(4) * Exact(steps->count) : Exact(0));
    const Exact written = bytes(e, *n[0] + *n[2] + *n[3] + *n[4] + (scaled ? *n[1] : Exact(0)));
    const std::uint64_t per = 13 + (decay ? 2 : 0) + (scaled ? 1 : 0);
    std::string shape = list_text(*params, *n[0]);
    if (amsgrad)
        shape += " amsgrad";
    if (decay)
        shape += " weight_decay";
    if (scaled)
        shape += " grad_scale";
    return traffic(name, shape, e.dtype, e.label, read.value(), written.value(), (Exact(per) * *n[0]).value(),
                   Category::optimizer,
                   fmt::format("params, grads, exp_avg, exp_avg_sq read, params and both moments written; {} FLOPs per "
                               "parameter (PyTorch's adam_math)",
                               per));
}

// _fused_sgd_(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov,
// maximize, is_first_step, grad_scale, found_inf): lists at 0–2 (momentum buffers [] without momentum),
// weight_decay at 3, momentum at 4, nesterov at 7, is_first_step at 9, grad_scale at 10. FLOPs per
// parameter from PyTorch's sgd_math (aten/src/ATen/native/cuda/FusedSgdKernel.cu): p −= lr·g 2;
// + 1 unscaling by grad_scale; + 2 weight decay (g += wd·p); with momentum, buf = momentum·buf +
// (1 − dampening)·g 3 (0 on the first step, where buf = g), + 2 nesterov (g + momentum·buf).
std::optional<OpCost> sgd_op(const std::string& name, const CpuOp& op, const ElementType& e) {
    const TensorListDims* params = input_list(op, 0);
    const TensorListDims* grads = input_list(op, 1);
    const TensorListDims* bufs = input_list(op, 2);
    if (!params || !grads || grads->count != params->count || (bufs && bufs->count != params->count))
        return std::nullopt;
    const auto np = list_elements(*params), ng = list_elements(*grads);
    const auto nb = bufs ? list_elements(*bufs) : std::optional<Exact>(Exact(0));
    if (!np || !ng || !nb)
        return std::nullopt;
    const bool momentum = bufs != nullptr && number_arg(op, 4).value_or(0.0) != 0.0;
    const bool decay = number_arg(op, 3).value_or(0.0) != 0.0;
    const bool nesterov = momentum && op.concrete.size() > 7 && op.concrete[7] == "True";
    const bool first = op.concrete.size() > 9 && op.concrete[9] == "True";
    const bool scaled = op.types.size() > 10 && storage_dtype(op.types[10]).has_value();
    // Read params, grads (and the momentum buffers); write params (the buffers; grads when grad_scale
    // unscales them in place).
    const Exact bn = momentum ? *nb : Exact(0);
    const Exact read = bytes(e, *np + *ng + bn);
    const Exact written = bytes(e, *np + bn + (scaled ? *ng : Exact(0)));
    const std::uint64_t per = 2 + (scaled ? 1 : 0) + (decay ? 2 : 0) + (momentum && !first ? 3 : 0) + (nesterov ? 2 : 0);
    std::string shape = list_text(*params, *np);
    if (momentum)
        shape += first ? " momentum (first step)" : " momentum";
    if (nesterov)
        shape += " nesterov";
    if (decay)
        shape += " weight_decay";
    if (scaled)
        shape += " grad_scale";
    return traffic(name, shape, e.dtype, e.label, read.value(), written.value(), (Exact(per) * *np).value(), Category::optimizer,
                   fmt::format("params, grads{} read, params{} written; {} FLOPs per parameter (PyTorch's sgd_math)",
                               momentum ? ", momentum buffers" : "", momentum ? " and momentum buffers" : "", per));
}

// _fused_adagrad_(params, grads, state_sums, state_steps, *, lr, lr_decay, weight_decay, eps, maximize,
// grad_scale, found_inf): lists at 0–3, weight_decay at 6, maximize at 8, grad_scale at 9. FLOPs per
// parameter from PyTorch's adagrad_math (aten/src/ATen/native/cpu/FusedAdagradKernel.cpp): sum += g·g 2,
// sqrt(sum) + eps 2, p −= clr·g / std 3, so 7; + 1 unscaling by grad_scale, + 1 maximize (−g), + 2
// weight decay (g += wd·p). The step count is read once per tensor (fp32).
std::optional<OpCost> adagrad_op(const std::string& name, const CpuOp& op, const ElementType& e) {
    const TensorListDims* l[3] = {input_list(op, 0), input_list(op, 1), input_list(op, 2)};
    Exact n[3];
    for (std::size_t i = 0; i < 3; ++i) {
        if (!l[i] || l[i]->count != l[0]->count)
            return std::nullopt;
        const auto x = list_elements(*l[i]);
        if (!x)
            return std::nullopt;
        n[i] = *x;
    }
    const TensorListDims* steps = input_list(op, 3);
    if (steps && !steps->complete())
        return std::nullopt;
    const bool decay = number_arg(op, 6).value_or(0.0) != 0.0;
    const bool maximize = op.concrete.size() > 8 && op.concrete[8] == "True";
    const bool scaled = op.types.size() > 9 && storage_dtype(op.types[9]).has_value();
    const Exact read = bytes(e, n[0] + n[1] + n[2]) + (steps ? Exact(4) * Exact(steps->count) : Exact(0));
    const Exact written = bytes(e, n[0] + n[2] + (scaled ? n[1] : Exact(0)));
    const std::uint64_t per = 7 + (scaled ? 1 : 0) + (maximize ? 1 : 0) + (decay ? 2 : 0);
    std::string shape = list_text(*l[0], n[0]);
    if (decay)
        shape += " weight_decay";
    if (maximize)
        shape += " maximize";
    if (scaled)
        shape += " grad_scale";
    return traffic(name, shape, e.dtype, e.label, read.value(), written.value(), (Exact(per) * n[0]).value(), Category::optimizer,
                   fmt::format("params, grads, state_sums read, params and state_sums written; {} FLOPs per parameter "
                               "(PyTorch's adagrad_math)",
                               per));
}

std::optional<OpCost> unscale_op(const std::string& name, const CpuOp& op, const ElementType& e) {
    return read_write_list(name, op, e, 1, Category::optimizer,
                           "each gradient read, checked and written back unscaled; 1 FLOP per element");
}

enum class ListOp { none, cat, chunk_cat, foreach, adam, sgd, adagrad, unscale };

ListOp list_op_kind(std::string_view name, std::string_view& fn) {
    if (name.rfind("aten::", 0) != 0)
        return ListOp::none;
    std::string_view base = name.substr(6);
    if (base == "cat" || base == "stack" || base == "concat" || base == "concatenate" || base == "_cat")
        return ListOp::cat;
    if (base == "_chunk_cat" || base == "chunk_cat")
        return ListOp::chunk_cat;
    if (base == "_fused_adam_" || base == "_fused_adamw_" || base == "_fused_adam" || base == "_fused_adamw")
        return ListOp::adam;
    if (base == "_fused_sgd_" || base == "_fused_sgd")
        return ListOp::sgd;
    if (base == "_fused_adagrad_" || base == "_fused_adagrad")
        return ListOp::adagrad;
    if (base == "_amp_foreach_non_finite_check_and_unscale_")
        return ListOp::unscale;
    if (base.rfind("_foreach_", 0) == 0 && base.size() > 9) {
        fn = base.substr(9);
        if (fn.back() == '_')
            fn.remove_suffix(1);
        return fn.empty() ? ListOp::none : ListOp::foreach;
    }
    return ListOp::none;
}

}  // namespace

const TensorListDims* input_list(const CpuOp& op, std::size_t input) {
    for (const TensorListDims& l : op.dims.extra())
        if (l.input == input)
            return l.kept() > 0 || l.count > 0 ? &l : nullptr;
    return nullptr;
}

std::optional<ElementType> kernel_element_type(std::string_view k) {
    if (const std::size_t p = k.find("OpaqueType<"); p != std::string_view::npos) {
        unsigned width = 0;
        const char* first = k.data() + p + 11;
        const auto [end, ec] = std::from_chars(first, k.data() + k.size(), width);
        if (ec != std::errc() || end == first)
            return std::nullopt;
        const DType t = width == 1 ? DType::int8 : width == 2 ? DType::bf16 : width == 4 ? DType::fp32 : DType::fp64;
        if (width != 1 && width != 2 && width != 4 && width != 8)
            return std::nullopt;
        return ElementType{t, fmt::format("{}-byte", width), std::nullopt};
    }
    // PyTorch's chunk_cat_cuda_kernel<dst_t, src_t> (aten/src/ATen/native/cuda/TensorShape.cu): the out tensor's type,
    // then the list's.
    if (const std::size_t p = k.find("chunk_cat_cuda_kernel<"); p != std::string_view::npos) {
        std::string_view args = k.substr(p + 22);
        args = args.substr(0, args.find('>'));
        const std::size_t comma = args.find(',');
        if (comma == std::string_view::npos)
            return std::nullopt;
        const auto type = [](std::string_view a) {
            while (!a.empty() && a.front() == ' ')
                a.remove_prefix(1);
            while (!a.empty() && a.back() == ' ')
                a.remove_suffix(1);
            return torch_dtype(a) ? torch_dtype(a) : storage_dtype(a);
        };
        const auto dst = type(args.substr(0, comma)), src = type(args.substr(comma + 1));
        if (!dst || !src)
            return std::nullopt;
        return ElementType{*dst, std::string(dtype_name(*dst)), *src != *dst ? std::optional<DType>(*src) : std::nullopt};
    }
    for (const std::string_view marker : {std::string_view("Functor<"), std::string_view("lpnorm_cleanup<")}) {
        const std::size_t p = k.find(marker);
        if (p == std::string_view::npos)
            continue;
        std::string_view arg = k.substr(p + marker.size());
        arg = arg.substr(0, std::min(arg.find(','), arg.find('>')));
        while (!arg.empty() && arg.front() == ' ')
            arg.remove_prefix(1);
        while (!arg.empty() && arg.back() == ' ')
            arg.remove_suffix(1);
        std::optional<ElementType> e;
        if (const auto t = torch_dtype(arg))
            e = ElementType{*t, std::string(dtype_name(*t)), std::nullopt};
        else if (const auto u = storage_dtype(arg))
            e = ElementType{*u, std::string(arg), std::nullopt};
        // CopyFunctor<T, src_t, depth, ...> (PyTorch's ForeachBinaryOpList.cu): the destination's type, then the
        // source's; a source type not read leaves the copy without one (no formula), never the destination's.
        if (e && marker == "Functor<" && k.substr(0, p).ends_with("Copy")) {
            std::string_view src = k.substr(p + marker.size());
            src = src.substr(std::min(src.find(','), src.size()));
            if (src.empty())
                return std::nullopt;
            src.remove_prefix(1);
            src = src.substr(0, std::min(src.find(','), src.find('>')));
            while (!src.empty() && src.front() == ' ')
                src.remove_prefix(1);
            while (!src.empty() && src.back() == ' ')
                src.remove_suffix(1);
            const auto s = torch_dtype(src) ? torch_dtype(src) : storage_dtype(src);
            if (!s)
                return std::nullopt;
            if (*s != e->dtype)
                e->source = *s;
        }
        return e;
    }
    return std::nullopt;
}

std::optional<ElementType> kernel_element_type(std::string_view k, const CpuOp& op) {
    // chunk_cat_cuda_kernel<char, char>: a byte copy (TensorShape.cu's same-dtype path); the op's types name the
    // element type
    if (const std::size_t p = k.find("chunk_cat_cuda_kernel<"); p != std::string_view::npos) {
        std::string_view args = k.substr(p + 22);
        args = args.substr(0, args.find('>'));
        std::string bare;
        for (const char c : args)
            if (c != ' ')
                bare += c;
        if (bare == "char,char") {
            // (only the out tensor's: the list's own Input type is "TensorList", no element type)
            const std::optional<DType> t = input_dtype(op, 3);
            if (!t)
                return std::nullopt;
            return ElementType{*t, std::string(dtype_name(*t)), std::nullopt};
        }
    }
    return kernel_element_type(k);
}

std::optional<OpCost> cost_list_op(const std::string& name, const CpuOp& op, const std::optional<ElementType>& element) {
    std::string_view fn;
    const ListOp kind = list_op_kind(name, fn);
    if (kind == ListOp::none || !element)
        return std::nullopt;
    switch (kind) {
        case ListOp::cat:
            return cat_op(name, op, *element);
        case ListOp::chunk_cat:
            return chunk_cat_op(name, op, *element);
        case ListOp::foreach:
            return foreach_op(name, fn, op, *element);
        case ListOp::adam:
            return adam_op(name, op, *element);
        case ListOp::sgd:
            return sgd_op(name, op, *element);
        case ListOp::adagrad:
            return adagrad_op(name, op, *element);
        case ListOp::unscale:
            return unscale_op(name, op, *element);
        case ListOp::none:
            break;
    }
    return std::nullopt;
}

bool optimizer_list_op(std::string_view name) {
    std::string_view fn;
    const ListOp kind = list_op_kind(name, fn);
    return kind != ListOp::none && kind != ListOp::cat && kind != ListOp::chunk_cat;
}

bool shapeless_lists(const CpuOp& op) {
    if (!op.dims.extra().empty())
        return false;
    for (std::size_t i = 0; i < op.types.size(); ++i)
        if (is_list_type(op, i))
            return true;
    return false;
}

std::optional<CpuOp> with_parameter_lists(const std::string& name, const CpuOp& op,
                                          const std::vector<std::vector<std::int64_t>>& params) {
    std::string_view fn;
    const ListOp kind = list_op_kind(name, fn);
    if (kind == ListOp::none || kind == ListOp::cat || kind == ListOp::chunk_cat || params.size() > UINT32_MAX)
        return std::nullopt;
    const auto flag = [&](std::size_t i) { return op.concrete.size() > i && op.concrete[i] == "True"; };
    const std::vector<std::vector<std::int64_t>> scalars(params.size());  // one 0-dim step count per parameter
    std::vector<TensorListDims> lists;
    for (std::uint32_t i = 0; i < op.types.size(); ++i) {
        if (!is_list_type(op, i))
            continue;
        const std::vector<std::vector<std::int64_t>>* fill = &params;
        if (kind == ListOp::adam && i == 4 && !flag(11))  // max_exp_avg_sqs: empty without amsgrad
            fill = nullptr;
        else if ((kind == ListOp::adam && i == 5) || (kind == ListOp::adagrad && i == 3))  // state_steps
            fill = &scalars;
        else if (kind == ListOp::sgd && i == 2 && number_arg(op, 4).value_or(0.0) == 0.0)  // no momentum buffers
            fill = nullptr;
        else if ((kind == ListOp::adam && i > 5) || (kind == ListOp::sgd && i > 2) || (kind == ListOp::adagrad && i > 3) ||
                 (kind == ListOp::unscale && i > 0))
            return std::nullopt;  // a list where the schema has none
        TensorListDims l;         // built here, unbounded: the shapes come from the trace's own AccumulateGrad ops
        l.input = i;
        if (fill) {
            for (const auto& s : *fill) {
                l.dims.insert(l.dims.end(), s.begin(), s.end());
                l.ends.push_back(static_cast<std::uint32_t>(l.dims.size()));
            }
            l.count = static_cast<std::uint32_t>(fill->size());
        }
        lists.push_back(std::move(l));
    }
    CpuOp o = op;
    o.dims = InputDims(std::vector<std::vector<std::int64_t>>(op.dims.begin(), op.dims.end()), std::move(lists));
    return o;
}

std::string list_gap_reason(const std::string& name, const CpuOp& op, std::string_view kernel_name) {
    bool typed = false, shaped = false;
    for (std::size_t i = 0; i < op.types.size(); ++i)
        typed = typed || is_list_type(op, i);
    for (const TensorListDims& l : op.dims.extra()) {
        shaped = true;
        if (!l.complete())
            return fmt::format("tensor list of {} cut at {} of {} tensors", name, l.kept(), l.count);
    }
    if (!typed && !shaped)
        return "";
    if (!shaped)
        return fmt::format("tensor-list shapes of {} not in trace (Kineto writes a list of more than 30 tensors as [])", name);
    std::string_view fn;
    if (list_op_kind(name, fn) == ListOp::none)
        return fmt::format("no formula for {}", name);
    if (!kernel_element_type(kernel_name, op))
        return fmt::format("no element type for the tensor lists of {} in its kernel's name", name);
    if (!cost_list_op(name, op, kernel_element_type(kernel_name, op)))
        return fmt::format("tensor-list shapes of {} not in trace", name);
    return "";
}

}  // namespace bwacct::kineto
