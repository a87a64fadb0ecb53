// Convolutions from a Kineto op's inputs, costed by the engine's conv_cost (src/model/conv.cpp):
// input N×C_in×spatial and weight from "Input Dims", stride / padding / dilation / transposed /
// output_padding / groups from "Concrete Inputs" (lists as "[2, 2]"), at the positions of each op's
// schema. convolution_backward: the bwd-data and bwd-weight passes its output_mask asks for.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

#include "bwacct/ingest_kineto.h"
#include "bwacct/ops.h"
#include "bwacct/text_file.h"
#include "kineto_cost_reasons.h"

namespace bwacct::kineto {
namespace {

constexpr int kNone = -1;

// Positions of the arguments in each op's schema (kNone: the op has no such argument).
struct ConvSchema {
    std::string_view name;
    int input, weight, bias, stride, padding, dilation, transposed, output_padding, groups;
    bool always_transposed;
};

constexpr std::array<ConvSchema, 15> kSchemas{{
    // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    {"aten::convolution", 0, 1, 2, 3, 4, 5, 6, 7, 8, false},
    {"aten::_convolution", 0, 1, 2, 3, 4, 5, 6, 7, 8, false},
    // conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups)
    {"aten::conv1d", 0, 1, 2, 3, 4, 5, kNone, kNone, 6, false},
    {"aten::conv2d", 0, 1, 2, 3, 4, 5, kNone, kNone, 6, false},
    {"aten::conv3d", 0, 1, 2, 3, 4, 5, kNone, kNone, 6, false},
    // conv_transpose{1,2,3}d(input, weight, bias, stride, padding, output_padding, groups, dilation)
    {"aten::conv_transpose1d", 0, 1, 2, 3, 4, 7, kNone, 5, 6, true},
    {"aten::conv_transpose2d", 0, 1, 2, 3, 4, 7, kNone, 5, 6, true},
    {"aten::conv_transpose3d", 0, 1, 2, 3, 4, 7, kNone, 5, 6, true},
    // cudnn_convolution(self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
    {"aten::cudnn_convolution", 0, 1, kNone, 3, 2, 4, kNone, kNone, 5, false},
    // cudnn_convolution_transpose(self, weight, padding, output_padding, stride, dilation, groups, ...)
    {"aten::cudnn_convolution_transpose", 0, 1, kNone, 4, 2, 5, kNone, 3, 6, true},
    // miopen_convolution(self, weight, bias, padding, stride, dilation, groups, benchmark, deterministic)
    {"aten::miopen_convolution", 0, 1, 2, 4, 3, 5, kNone, kNone, 6, false},
    {"aten::miopen_depthwise_convolution", 0, 1, 2, 4, 3, 5, kNone, kNone, 6, false},
    // miopen_convolution_transpose(self, weight, bias, padding, output_padding, stride, dilation, groups, ...)
    {"aten::miopen_convolution_transpose", 0, 1, 2, 5, 3, 6, kNone, 4, 7, true},
    // cudnn_convolution_relu(self, weight, bias, stride, padding, dilation, groups);
    // cudnn_convolution_add_relu(self, weight, z, alpha, bias, stride, padding, dilation, groups)
    {"aten::cudnn_convolution_relu", 0, 1, 2, 3, 4, 5, kNone, kNone, 6, false},
    {"aten::cudnn_convolution_add_relu", 0, 1, 4, 5, 6, 7, kNone, kNone, 8, false},
}};

// The backward ops' positions: convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
// dilation, transposed, output_padding, groups, output_mask).
constexpr ConvSchema kBackward{"aten::convolution_backward", 1, 2, kNone, 4, 5, 6, 7, 8, 9, false};

// "[2, 2]", "(2,2)" (a Python tuple) or "2" → {2, 2} / {2}; nullopt for anything else.
std::optional<std::vector<std::uint64_t>> int_list(const CpuOp& op, int i) {
    if (i < 0 || static_cast<std::size_t>(i) >= op.concrete.size())
        return std::nullopt;
    const std::string& s = op.concrete[static_cast<std::size_t>(i)];
    std::vector<std::uint64_t> out;
    const char* p = s.data();
    const char* end = s.data() + s.size();
    while (p < end) {
        if (*p == '[' || *p == ']' || *p == '(' || *p == ')' || *p == ',' || *p == ' ') {
            ++p;
            continue;
        }
        std::uint64_t v = 0;
        const auto [next, ec] = std::from_chars(p, end, v);
        if (ec != std::errc())
            return std::nullopt;
        out.push_back(v);
        p = next;
    }
    if (out.empty())
        return std::nullopt;
    return out;
}

// Whether argument i is in the trace (a non-empty Concrete Input): then a list int_list cannot read
// (letters, "2.0", "-1", an overflow, "()") refuses the op rather than take the default.
bool given(const CpuOp& op, int i) {
    return i >= 0 && static_cast<std::size_t>(i) < op.concrete.size() && !op.concrete[static_cast<std::size_t>(i)].empty();
}

// The padding: a list as int_list reads it, or the string of the conv{1,2,3}d.padding overloads: "valid" is 0,
// "same" (stride 1, not transposed) d·(k−1)/2 on each side of each dimension of kernel k and dilation d, as
// PyTorch pads it when d·(k−1) is even (odd: PyTorch pads one side more, which ConvDesc cannot say: nullopt).
// Not given: {} (the default 0).
std::optional<std::vector<std::uint64_t>> padding_list(const CpuOp& op, int weight, int stride, int padding, int dilation,
                                                       bool transposed) {
    if (!given(op, padding))
        return std::vector<std::uint64_t>{};
    const std::string& s = op.concrete[static_cast<std::size_t>(padding)];
    if (s == "valid")
        return std::vector<std::uint64_t>{0};
    if (s != "same")
        return int_list(op, padding);
    const auto w = input_shape(op, static_cast<std::size_t>(weight));
    const auto st = given(op, stride) ? int_list(op, stride) : std::vector<std::uint64_t>{1};
    const auto dil = given(op, dilation) ? int_list(op, dilation) : std::vector<std::uint64_t>{1};
    if (transposed || !w || w->size() < 3 || !st || !dil ||
        std::any_of(st->begin(), st->end(), [](std::uint64_t v) { return v != 1; }))
        return std::nullopt;
    std::vector<std::uint64_t> out;
    for (std::size_t i = 2; i < w->size(); ++i) {
        const std::uint64_t di = dil->size() == 1 ? dil->front() : i - 2 < dil->size() ? (*dil)[i - 2] : 1;
        const std::uint64_t total = di * ((*w)[i] - 1);
        if (total % 2 != 0 || (di != 0 && total / di != (*w)[i] - 1))
            return std::nullopt;
        out.push_back(total / 2);
    }
    return out;
}

// The first per-dimension argument given but not understood (groups also when 0): its name and text;
// nullopt when every given one reads.
std::optional<std::pair<std::string_view, std::string_view>> unread_arg(const CpuOp& op, int weight, int stride, int padding,
                                                                        int dilation, int output_padding, int groups,
                                                                        bool transposed) {
    const std::array<std::pair<std::string_view, int>, 5> args{{{"stride", stride},
                                                                {"padding", padding},
                                                                {"dilation", dilation},
                                                                {"output_padding", transposed ? output_padding : kNone},
                                                                {"groups", groups}}};
    for (const auto& [what, i] : args) {
        if (!given(op, i))
            continue;
        const auto v = i == padding ? padding_list(op, weight, stride, padding, dilation, transposed) : int_list(op, i);
        if (!v || (what == "groups" && v->front() == 0))
            return std::pair{what, std::string_view(op.concrete[static_cast<std::size_t>(i)])};
    }
    return std::nullopt;
}

std::optional<bool> flag(const CpuOp& op, int i) {
    if (i < 0 || static_cast<std::size_t>(i) >= op.concrete.size())
        return std::nullopt;
    const std::string& s = op.concrete[static_cast<std::size_t>(i)];
    if (s == "True" || s == "1")
        return true;
    if (s == "False" || s == "0")
        return false;
    return std::nullopt;
}

std::string list_text(const std::vector<std::uint64_t>& v) {
    std::string s;
    for (std::uint64_t x : v)
        s += fmt::format("{}{}", s.empty() ? "" : ",", x);
    return s;
}

// The forward description from input and weight shapes and the per-dimension arguments.
std::optional<ConvDesc> describe(const CpuOp& op, int input, int weight, int stride, int padding, int dilation,
                                 int output_padding, int groups, bool transposed) {
    const auto x = input_shape(op, static_cast<std::size_t>(input)), w = input_shape(op, static_cast<std::size_t>(weight));
    const auto xt = input_dtype(op, static_cast<std::size_t>(input)), wt = input_dtype(op, static_cast<std::size_t>(weight));
    if (!x || !w || !xt || !wt || x->size() < 3 || x->size() > 5 || w->size() != x->size())
        return std::nullopt;
    if (unread_arg(op, weight, stride, padding, dilation, output_padding, groups, transposed))
        return std::nullopt;  // conv_uncosted_reason says which
    ConvDesc d;
    d.batch = (*x)[0];
    d.in_channels = (*x)[1];
    d.spatial.assign(x->begin() + 2, x->end());
    d.kernel.assign(w->begin() + 2, w->end());
    d.groups = groups >= 0 ? int_list(op, groups).value_or(std::vector<std::uint64_t>{1}).front() : 1;
    if (d.groups == 0)
        return std::nullopt;
    d.transposed = transposed;
    // Weight C_out×(C_in/groups)×k, transposed C_in×(C_out/groups)×k.
    d.out_channels = transposed ? (*w)[1] * d.groups : (*w)[0];
    d.stride = int_list(op, stride).value_or(std::vector<std::uint64_t>{});
    d.padding = padding_list(op, weight, stride, padding, dilation, transposed).value_or(std::vector<std::uint64_t>{});
    d.dilation = int_list(op, dilation).value_or(std::vector<std::uint64_t>{});
    if (transposed)
        d.output_padding = int_list(op, output_padding).value_or(std::vector<std::uint64_t>{});
    d.input_dtype = *xt;
    d.weight_dtype = *wt;
    d.output_dtype = *xt;
    return d;
}

OpCost make(const std::string& name, const ConvDesc& d) {
    OpCost r;
    r.op = name;
    r.shape = fmt::format("N={} C_in={} in={} C_out={} k={} stride={} pad={} dil={} groups={}{}{}{}", d.batch, d.in_channels,
                          list_text(d.spatial), d.out_channels, list_text(d.kernel), list_text(d.stride), list_text(d.padding),
                          list_text(d.dilation), d.groups, d.transposed ? " transposed" : "", d.bias ? " bias" : "",
                          d.pass == GemmPass::fwd ? "" : fmt::format(" {}", gemm_pass_name(d.pass)));
    r.dtype = std::string(dtype_name(d.input_dtype));
    r.category = Category::conv;
    r.cost = conv_cost(d);
    r.params = {{"batch", d.batch},
                {"in_channels", d.in_channels},
                {"spatial", list_text(d.spatial)},
                {"out_channels", d.out_channels},
                {"kernel", list_text(d.kernel)},
                {"stride", list_text(d.stride)},
                {"padding", list_text(d.padding)},
                {"dilation", list_text(d.dilation)},
                {"groups", d.groups},
                {"transposed", d.transposed},
                {"pass", std::string(gemm_pass_name(d.pass))}};
    return r;
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
// output_padding, groups, output_mask); the miopen/cudnn backward ops follow the same first positions.
std::optional<OpCost> cost_backward(const std::string& name, const CpuOp& op) {
    auto d = describe(op, kBackward.input, kBackward.weight, kBackward.stride, kBackward.padding, kBackward.dilation,
                      kBackward.output_padding, kBackward.groups, flag(op, kBackward.transposed).value_or(false));
    if (!d)
        return std::nullopt;
    bool data = true, weight = true, bias = false;
    if (10 < op.concrete.size()) {  // output_mask "[True, True, False]": dX, dW, dbias
        const std::string& s = op.concrete[10];
        std::vector<bool> m;
        for (std::size_t p = 0; (p = s.find_first_of("TF", p)) != std::string::npos; ++p)
            m.push_back(s[p] == 'T');
        if (m.size() == 3) {
            data = m[0];
            weight = m[1];
            bias = m[2];
        }
    }
    if (!data && !weight)
        return std::nullopt;
    d->bias = bias && weight;
    d->pass = data && weight ? GemmPass::bwd : data ? GemmPass::bwd_data : GemmPass::bwd_weight;
    return make(name, *d);
}

}  // namespace

std::string conv_uncosted_reason(const std::string& name, const CpuOp& op) {
    const ConvSchema* at =
        name == "aten::convolution_backward" || name == "aten::convolution_backward_overrideable" ? &kBackward : nullptr;
    for (const ConvSchema& s : kSchemas)
        if (s.name == name)
            at = &s;
    if (at == nullptr)
        return {};
    const bool transposed = at->always_transposed || flag(op, at->transposed).value_or(false);
    const auto bad =
        unread_arg(op, at->weight, at->stride, at->padding, at->dilation, at->output_padding, at->groups, transposed);
    if (!bad)
        return {};
    const std::string text = utf8_prefix(bad->second, 40);  // never inside a character
    return fmt::format(
        "{} of {} not understood (\"{}{}\"; expected non-negative integers as \"[2, 2]\", \"(2,2)\" or "
        "\"2\"{})",
        bad->first, name, text, text.size() < bad->second.size() ? "…" : "", bad->first == "groups" ? ", groups at least 1" : "");
}

std::optional<OpCost> cost_conv_op(const std::string& name, const CpuOp& op) {
    if (name == "aten::convolution_backward" || name == "aten::convolution_backward_overrideable")
        return cost_backward(name, op);
    for (const ConvSchema& s : kSchemas) {
        if (s.name != name)
            continue;
        const bool transposed = s.always_transposed || flag(op, s.transposed).value_or(false);
        auto d = describe(op, s.input, s.weight, s.stride, s.padding, s.dilation, s.output_padding, s.groups, transposed);
        if (!d)
            return std::nullopt;
        d->bias = s.bias >= 0 && input_shape(op, static_cast<std::size_t>(s.bias)).has_value();
        return make(name, *d);
    }
    return std::nullopt;
}

}  // namespace bwacct::kineto
