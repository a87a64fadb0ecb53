// Row-wise norms (layer_norm, rms_norm, softmax: NormDesc) and elementwise ops (activations,
// arithmetic, copies: ElementwiseDesc) from a Kineto op's input shapes and types.
//
// FLOPs per element of the activations count each arithmetic step and each exp/erf/tanh as 1:
// relu, clamp, threshold, hardtanh 1 (a compare-select); leaky_relu 2; mish 5; pow, rsqrt, sqrt, log, sin,
// cos, erf, abs, reciprocal, rsub 1; sigmoid 4 (neg, exp, +1, reciprocal); silu 4 (x/(1+exp(−x)): neg, exp, +1, div);
// gelu 5 (x/√2, erf, +1, ·x, ·½); tanh, exp 1; softplus 5 (·β, exp, +1, log, /β); hardswish 5 (+3, max,
// min, ·x, /6); hardsigmoid 4; elu 4 (compare, exp, −1, ·α); exp2, expm1, log1p, log2, log10, tan, sinh,
// cosh, asin, acos, atan, atan2, square, floor, ceil, round, trunc, frac, sign, sgn, remainder, fmod,
// floor_divide, nan_to_num, bitwise ops 1 (0 on integer types, as all integer arithmetic); tril, triu 0
// (a masked copy). Binary arithmetic 1; copies 0; comparisons and logical
// ops (eq, ne, lt, le, gt, ge, logical_*, isnan, isinf, isfinite) 1, writing bool (1 byte per element).
// Broadcast operands smaller than the output are read once at their own size (added to the reads).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"
#include "kineto_cost_util.h"

namespace bwacct::kineto {
namespace {

using Shape = std::vector<std::uint64_t>;

struct NormOp {
    std::string_view name;
    NormKind kind;
};
constexpr std::array<NormOp, 8> kNorms{{{"aten::native_layer_norm", NormKind::layernorm},
                                        {"aten::layer_norm", NormKind::layernorm},
                                        {"aten::rms_norm", NormKind::rmsnorm},
                                        {"aten::_fused_rms_norm", NormKind::rmsnorm},
                                        {"aten::softmax", NormKind::softmax},
                                        {"aten::_softmax", NormKind::softmax},
                                        {"aten::_safe_softmax", NormKind::softmax},
                                        {"aten::_log_softmax", NormKind::softmax}}};

struct PointwiseOp {
    std::string_view name;  // without the aten:: prefix; a trailing '_' (in place) is accepted too
    std::uint64_t flops;
    bool bool_out = false;  // a comparison or logical op: the output is bool, 1 byte per element
};
constexpr PointwiseOp kPointwise[]{{"relu", 1},
                                   {"pow", 1},
                                   {"rsqrt", 1},
                                   {"sqrt", 1},
                                   {"reciprocal", 1},
                                   {"abs", 1},
                                   {"log", 1},
                                   {"sin", 1},
                                   {"cos", 1},
                                   {"erf", 1},
                                   {"rsub", 1},
                                   {"clamp", 1},
                                   {"clamp_min", 1},
                                   {"clamp_max", 1},
                                   {"hardtanh", 1},
                                   {"threshold", 1},
                                   {"leaky_relu", 2},
                                   {"mish", 5},
                                   {"gelu", 5},
                                   {"silu", 4},
                                   {"sigmoid", 4},
                                   {"tanh", 1},
                                   {"exp", 1},
                                   {"neg", 1},
                                   {"add", 1},
                                   {"sub", 1},
                                   {"mul", 1},
                                   {"div", 1},
                                   {"maximum", 1},
                                   {"minimum", 1},
                                   {"softplus", 5},
                                   {"hardswish", 5},
                                   {"hardsigmoid", 4},
                                   {"elu", 4},
                                   {"exp2", 1},
                                   {"expm1", 1},
                                   {"log1p", 1},
                                   {"log2", 1},
                                   {"log10", 1},
                                   {"tan", 1},
                                   {"sinh", 1},
                                   {"cosh", 1},
                                   {"asin", 1},
                                   {"acos", 1},
                                   {"atan", 1},
                                   {"atan2", 1},
                                   {"square", 1},
                                   {"floor", 1},
                                   {"ceil", 1},
                                   {"round", 1},
                                   {"trunc", 1},
                                   {"frac", 1},
                                   {"sign", 1},
                                   {"sgn", 1},
                                   {"remainder", 1},
                                   {"fmod", 1},
                                   {"floor_divide", 1},
                                   {"nan_to_num", 1},
                                   {"bitwise_and", 1},
                                   {"bitwise_or", 1},
                                   {"bitwise_xor", 1},
                                   {"bitwise_not", 1},
                                   {"tril", 0},
                                   {"triu", 0},
                                   {"copy", 0},
                                   {"clone", 0},
                                   // Comparisons and logical ops: one compare per element, a bool written.
                                   {"eq", 1, true},
                                   {"ne", 1, true},
                                   {"lt", 1, true},
                                   {"le", 1, true},
                                   {"gt", 1, true},
                                   {"ge", 1, true},
                                   {"logical_and", 1, true},
                                   {"logical_or", 1, true},
                                   {"logical_xor", 1, true},
                                   {"logical_not", 1, true},
                                   {"isnan", 1, true},
                                   {"isinf", 1, true},
                                   {"isfinite", 1, true}};

std::uint64_t elems(const Shape& s) {
    std::uint64_t n = 1;
    for (std::uint64_t d : s)
        if (__builtin_mul_overflow(n, d, &n))
            throw OverflowError("a product of the input dims does not fit in 64 bits");
    return n;
}

std::optional<OpCost> cost_norm(const NormOp& n, const CpuOp& op) {
    const auto x = input_shape(op, 0);
    const auto dtype = input_dtype(op, 0);
    if (!x || !dtype)
        return std::nullopt;
    NormDesc d;
    d.kind = n.kind;
    d.shape = *x;
    d.dtype = *dtype;
    OpCost r;
    r.op = std::string(n.name);
    r.shape = shape_text(d.shape);
    r.dtype = std::string(dtype_name(d.dtype));
    r.category = n.kind == NormKind::softmax ? Category::softmax : Category::norm;
    r.cost = norm_cost(d);
    r.params = {{"shape", r.shape}};
    return r;
}

// The label of an integer or bool tensor type ("long int" → "int64", GCC's "long unsigned int" → "uint64"), or
// of a scale or packed-fp4 type ("e8m0", "fp4x2"); the type itself when unknown.
std::string integer_type_label(const std::string& t) {
    if (t == "long int" || t == "long")
        return "int64";
    if (t == "unsigned long" || t == "long unsigned int")
        return "uint64";
    if (t == "int")
        return "int32";
    if (t == "unsigned int")
        return "uint32";
    if (t == "short" || t == "short int")
        return "int16";
    if (t == "unsigned short" || t == "short unsigned int")
        return "uint16";
    if (t == "unsigned char")
        return "uint8";
    if (t == "c10::Float8_e8m0fnu")
        return "e8m0";
    if (t == "c10::Float4_e2m1fn_x2")
        return "fp4x2";
    return t;
}

// A type PyTorch stores and copies but computes nothing on (no arithmetic kernels): MX scales, packed fp4.
bool storage_only_type(const std::string& t) { return t == "c10::Float8_e8m0fnu" || t == "c10::Float4_e2m1fn_x2"; }

// A tensor type's label: "int64" for "long int", "bf16" for "c10::BFloat16", the type itself when unknown.
std::string type_label(const std::string& t) {
    if (const auto d = torch_dtype(t))
        return std::string(dtype_name(*d));
    return integer_type_label(t);
}

// PyTorch's scalar-type lattice (c10/core/ScalarType.h, promoteTypes) for the types a trace names:
// category bool < integer < floating; within integers the wider (uint8 with int8: int16; an unsigned
// type wider than 8 bits with a signed one: refused, as PyTorch refuses it); within floats the wider,
// fp16 with bf16 fp32, an fp8 type only with itself.
struct TypeRank {
    int category = 0;  // 0 bool, 1 integer, 2 floating
    unsigned bytes = 0;
    bool is_unsigned = false;
};
std::optional<TypeRank> rank_of(const std::string& t) {
    if (t == "bool")
        return TypeRank{0, 1, false};
    if (t == "unsigned char")
        return TypeRank{1, 1, true};
    if (t == "signed char")
        return TypeRank{1, 1, false};
    if (t == "short" || t == "short int")
        return TypeRank{1, 2, false};
    if (t == "int")
        return TypeRank{1, 4, false};
    if (t == "long int" || t == "long")
        return TypeRank{1, 8, false};
    if (t == "unsigned short" || t == "short unsigned int")
        return TypeRank{1, 2, true};
    if (t == "unsigned int")
        return TypeRank{1, 4, true};
    if (t == "unsigned long" || t == "long unsigned int")
        return TypeRank{1, 8, true};
    if (t == "c10::Half" || t == "c10::BFloat16")
        return TypeRank{2, 2, false};
    if (t == "float")
        return TypeRank{2, 4, false};
    if (t == "double")
        return TypeRank{2, 8, false};
    if (torch_dtype(t))  // fp8 kinds
        return TypeRank{2, 1, false};
    return std::nullopt;
}

std::optional<std::string> promote_types(const std::string& a, const std::string& b) {
    if (a.empty() || a == b)
        return b;
    if (b.empty())
        return a;
    const auto ra = rank_of(a), rb = rank_of(b);
    if (!ra || !rb)
        return std::nullopt;
    if (ra->category != rb->category)
        return ra->category > rb->category ? a : b;
    if (ra->category == 2) {
        if (ra->bytes == 1 || rb->bytes == 1)
            return std::nullopt;  // fp8 with another type: PyTorch refuses the promotion
        if (ra->bytes == rb->bytes)
            return std::string("float");  // fp16 with bf16
        return ra->bytes > rb->bytes ? a : b;
    }
    if (ra->is_unsigned == rb->is_unsigned)
        return ra->bytes >= rb->bytes ? a : b;
    const TypeRank& u = ra->is_unsigned ? *ra : *rb;
    const TypeRank& si = ra->is_unsigned ? *rb : *ra;
    if (u.bytes > 1)
        return std::nullopt;
    return si.bytes > 1 ? (ra->is_unsigned ? b : a) : std::string("short");  // uint8 with int8: int16
}

// The type of a Scalar operand from its Concrete Input ("True": bool, "3": int64, "0.5"/"1e-05"/"inf":
// the default floating type fp32), "" when it is not a number.
std::string wrapped_number_type(const std::string& v) {
    if (v == "True" || v == "False")
        return "bool";
    if (v.empty())
        return "";
    std::size_t i = v[0] == '-' ? 1 : 0;
    bool digits = i < v.size();
    for (std::size_t j = i; j < v.size(); ++j)
        digits = digits && v[j] >= '0' && v[j] <= '9';
    if (digits)
        return "long int";
    char* end = nullptr;
    (void)std::strtod(v.c_str(), &end);
    return end == v.c_str() + v.size() ? "float" : "";
}

// The result type of an elementwise op, as PyTorch's TensorIterator computes it (aten/src/ATen/native/
// TypeProperties.cpp, update_result_type_state / result_type): the promotion of the dimensioned
// tensors, else of the 0-d tensors, else of the Scalar operands; a lower-priority group counts only
// where its category is higher (an int tensor times 0.5 is fp32; long − a 0-d int stays long; int − a
// 0-d long stays int). The Scalar operand is input 1 (add/sub's alpha, input 2, is a factor, not an
// operand). True division (div without a rounding mode) of integers gives the default float type. In
// place (add_, mul_), the result is self's type.
std::optional<std::string> promoted_type(const std::string& name, const CpuOp& op, const std::vector<std::string>& dimmed,
                                         const std::vector<std::string>& zero_dim) {
    std::optional<std::string> dim_t = std::string(), zero_t = std::string(), wrapped_t = std::string();
    for (const std::string& t : dimmed)
        if (dim_t)
            dim_t = promote_types(*dim_t, t);
    for (const std::string& t : zero_dim)
        if (zero_t)
            zero_t = promote_types(*zero_t, t);
    if (op.types.size() > 1 && op.types[1] == "Scalar" && op.concrete.size() > 1)
        wrapped_t = wrapped_number_type(op.concrete[1]);
    if (!dim_t || !zero_t || !wrapped_t)
        return std::nullopt;
    // combine_categories(higher, lower): a lower-priority type counts only when its category is higher.
    const auto combine = [](const std::string& higher, const std::string& lower) -> std::optional<std::string> {
        if (higher.empty())
            return lower;
        if (lower.empty())
            return higher;
        const auto rh = rank_of(higher), rl = rank_of(lower);
        if (!rh || !rl)
            return std::nullopt;
        if (rl->category > rh->category)
            return rl->category == 2 ? lower : promote_types(higher, lower);
        return higher;
    };
    const auto low = combine(*zero_t, *wrapped_t);
    if (!low)
        return std::nullopt;
    auto out = combine(*dim_t, *low);
    if (!out || out->empty())
        return std::nullopt;
    const std::string_view base = detail::base_name(name);
    if (base.size() > 1 && base.back() == '_' && !op.types.empty() && storage_dtype(op.types[0]))
        return op.types[0];  // in place: the result is written into self, at self's type
    if (base == "div" && rank_of(*out)->category < 2 &&
        (op.concrete.size() < 3 || op.concrete[2].empty() || op.concrete[2] == "None"))
        out = std::string("float");
    return out;
}

// copy_(self, src): read src (its dtype), write self (its dtype).
std::optional<OpCost> cost_copy(const std::string& name, const CpuOp& op) {
    const auto dst = input_shape(op, 0), src = input_shape(op, 1);
    const auto dst_t = input_dtype(op, 0), src_t = input_dtype(op, 1);
    if (!dst || !src || !dst_t || !src_t || elems(*dst) != elems(*src))
        return std::nullopt;
    ElementwiseDesc d;
    d.shape = *dst;
    d.dtype = *dst_t;
    d.inputs = 1;
    d.outputs = 1;
    d.flops_per_elem = 0;
    OpCost r;
    r.op = name;
    r.shape = shape_text(d.shape);
    r.dtype = *src_t == *dst_t ? std::string(dtype_name(*dst_t)) : fmt::format("{}->{}", dtype_name(*src_t), dtype_name(*dst_t));
    r.category = Category::elementwise;
    r.cost = elementwise_cost(d);
    if (*src_t != *dst_t) {
        r.cost.bytes_read = storage_bytes(*src_t, Exact(elems(*src))).value();
        r.cost.terms.push_back({"read src", "elements · src bytes per element",
                                fmt::format("{}·{}/8", elems(*src), dtype_bits(*src_t)), fmt::format("{} B", r.cost.bytes_read)});
    }
    r.params = {{"shape", r.shape}};
    return r;
}

}  // namespace

std::optional<OpCost> cost_pointwise_op(const std::string& name, const CpuOp& op) {
    for (const NormOp& n : kNorms)
        if (n.name == name)
            return cost_norm(n, op);
    if (name.rfind("aten::", 0) != 0)
        return std::nullopt;
    std::string_view base = std::string_view(name).substr(6);
    if (base.size() > 1 && base.back() == '_')
        base.remove_suffix(1);
    const PointwiseOp* p = nullptr;
    for (const PointwiseOp& c : kPointwise)
        if (c.name == base)
            p = &c;
    if (p == nullptr)
        return std::nullopt;
    if (base == "copy")
        return cost_copy(name, op);

    // Tensor inputs: the inputs with a shape and a known dtype. A 0-d tensor (Input Dims [] with a tensor
    // type) is one element and, as in PyTorch's type promotion, a scalar operand: beside full tensors it
    // is a broadcast read of its own storage bytes; an op of 0-d tensors only is costed as one element.
    // Integer tensors (an optimizer's step count, batch norm's num_batches_tracked) move bytes at their
    // storage size and do no floating-point work. Operands of different types (long − int, bf16 + fp32,
    // an int tensor times a float Scalar) are each read at their own size and the output written at
    // PyTorch's result type (promoted_type below).
    std::vector<Shape> tensors;
    std::vector<std::string> tensor_types;  // the type of each of `tensors`
    std::vector<std::size_t> zero_d;        // inputs that are 0-d tensors
    for (std::size_t i = 0; i < op.dims.size() && i < op.types.size(); ++i) {
        const auto storage = storage_dtype(op.types[i]);
        if (op.dims[i].empty() && storage) {
            zero_d.push_back(i);
            continue;
        }
        const auto s = input_shape(op, i);
        if (!s)
            continue;
        if (!storage)
            return std::nullopt;
        tensors.push_back(*s);
        tensor_types.push_back(op.types[i]);
    }
    std::vector<std::string> zero_d_types;
    for (const std::size_t i : zero_d)
        zero_d_types.push_back(op.types[i]);
    const auto result = promoted_type(name, op, tensor_types, zero_d_types);
    if (!result)
        return std::nullopt;
    const std::string& type_name = *result;
    const std::optional<DType> dtype = storage_dtype(type_name);
    bool mixed = false;  // operands of more than one type, or a result type other than theirs
    for (const std::string& ty : tensor_types)
        mixed = mixed || ty != type_name;
    std::uint64_t scalar_bytes = 0;  // 0-d operands beside full tensors
    const bool only_zero_d = tensors.empty();
    if (only_zero_d) {
        for (const std::string& ty : zero_d_types) {
            mixed = mixed || ty != type_name;
            tensors.push_back(Shape{1});
            tensor_types.push_back(ty);
        }
    } else {
        for (const std::size_t i : zero_d)
            scalar_bytes += detail::tensor_bytes(op, i);
    }
    const bool storage_only = storage_only_type(type_name);
    if (tensors.empty() || (storage_only && p->flops > 0))
        return std::nullopt;  // arithmetic on a scale or packed-fp4 type: PyTorch has none, no formula here
    const bool integer = dtype && !torch_dtype(type_name) && !storage_only;
    Shape out = tensors.front();
    for (const Shape& s : tensors)
        if (auto b = detail::broadcast(out, s))
            out = *b;
        else
            return std::nullopt;
    std::uint64_t full = 0, small_elems = 0;
    for (const Shape& s : tensors)
        if (elems(s) == elems(out))
            ++full;
        else if (__builtin_add_overflow(small_elems, elems(s), &small_elems))
            throw OverflowError("the broadcast operands' elements do not fit in 64 bits");
    if (full == 0)
        return std::nullopt;  // an outer broadcast: the output is larger than every input
    ElementwiseDesc d;
    d.shape = out;
    d.dtype = *dtype;
    d.inputs = full;
    d.outputs = 1;
    d.flops_per_elem = integer ? 0 : p->flops;
    OpCost r;
    r.op = name;
    r.shape = only_zero_d ? "0-d" : shape_text(out);
    r.dtype = integer || storage_only ? integer_type_label(type_name) : std::string(dtype_name(d.dtype));
    r.category = Category::elementwise;
    r.cost = elementwise_cost(d);
    if (mixed) {  // each operand at its own type: replaces the reads at the result's size
        Exact read = 0;
        std::string what;
        for (std::size_t k = 0; k < tensors.size(); ++k) {
            const DType t = *storage_dtype(tensor_types[k]);
            read += storage_bytes(t, Exact(elems(tensors[k])));
            what += fmt::format("{}{}·{}/8", what.empty() ? "" : " + ", elems(tensors[k]), dtype_bits(t));
        }
        r.cost.bytes_read = read.value();
        r.cost.terms.push_back({"read operands", "each operand's elements · its own bytes per element (mixed types)", what,
                                fmt::format("{} B", r.cost.bytes_read)});
        std::string types;
        for (const std::string& ty : tensor_types)
            types += fmt::format("{}{}", types.empty() ? "" : ",", type_label(ty));
        r.dtype = p->bool_out ? types : fmt::format("{}->{}", types, type_label(type_name));
        if (small_elems > 0)
            r.shape += fmt::format(" +{} broadcast", small_elems);
        small_elems = 0;  // counted above
    }
    if (small_elems > 0) {
        const std::uint64_t bytes = storage_bytes(d.dtype, Exact(small_elems)).value();
        r.cost.bytes_read += bytes;
        r.shape += fmt::format(" +{} broadcast", small_elems);
        r.cost.terms.push_back({"read broadcast operands", "their elements · bytes per element",
                                fmt::format("{}·{}/8", small_elems, dtype_bits(d.dtype)), fmt::format("{} B", bytes)});
    }
    if (p->bool_out) {
        const std::uint64_t written = elems(out);  // bool: 1 byte per element
        r.cost.terms.push_back({"write bool output", "elements · 1 B (replaces the output at the input's size)",
                                fmt::format("{}·1", written), fmt::format("{} B", written)});
        r.cost.bytes_written = written;
        r.dtype += "->bool";
    }
    if (scalar_bytes > 0) {
        r.cost.bytes_read += scalar_bytes;
        r.cost.terms.push_back({"read 0-d tensor operands", "one element each at its own size", fmt::format("{} B", scalar_bytes),
                                fmt::format("{} B", scalar_bytes)});
    }
    if (integer)
        r.cost.terms.push_back({"flops", "integer arithmetic: no floating-point operations", "0", "0 FLOP"});
    r.params = {{"shape", r.shape}, {"inputs", full}};
    return r;
}

}  // namespace bwacct::kineto
