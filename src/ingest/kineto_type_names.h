// Torch tensor type names as the trace spells them ("Input type"), in one spelling whatever compiler
// built PyTorch.
#pragma once

#include <string_view>

namespace bwacct::kineto {

// PyTorch writes a tensor's type as its C++ type name (caffe2::TypeMeta::name), which each compiler
// spells its own way: GCC "long int", "c10::BFloat16"; MSVC (Windows builds) "__int64",
// "struct c10::BFloat16", "struct c10::complex<float>". Returns the GCC spelling, which the costing
// reads ("long int", "unsigned long", "c10::BFloat16", ...); c10 ScalarType names ("Float", "BFloat16",
// "Long") likewise, but for the four that are also IValue tag names; any other name unchanged.
std::string_view gcc_type_spelling(std::string_view type);

// The four c10 ScalarType names that PyTorch 1.9-1.12 also writes, as IValue tag names, for a Python
// scalar arg ("Int", "Double", "Bool", "ComplexDouble", with Input Dims []): their GCC spelling, to be
// used only for an input whose dims are not empty (a tensor); any other name unchanged.
std::string_view tensor_scalar_spelling(std::string_view type);

}  // namespace bwacct::kineto
