// Why an op the cost families recognise has no cost, beside the attention reasons of
// kineto_attention.h: one line naming what the trace lacks, for kineto_summary.cpp's reason().
#pragma once

#include <string>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {

// aten::index / index_put_ / _index_put_impl_ without the shapes of their Tensor?[] index list (or with
// a possible bool mask among them): "indexed shape of OP not in trace: …"; nonzero, unique, masked_select,
// argwhere: "output size of OP is a count of its input's values, not in trace"; "" for other ops or when costed.
std::string indexing_uncosted_reason(const std::string& name, const CpuOp& op);
// A convolution whose stride, padding, dilation, output_padding or groups is in the trace but not an int
// list ("(a,b)", "(2.0,2.0)", "(-1,-1)", "()", an overflow, groups 0): "stride of OP not understood (…)";
// "" otherwise.
std::string conv_uncosted_reason(const std::string& name, const CpuOp& op);

}  // namespace bwacct::kineto
