// Torch tensor type names in the GCC spelling (kineto_type_names.h).
#include "kineto_type_names.h"

#include <array>
#include <utility>

namespace bwacct::kineto {

std::string_view gcc_type_spelling(std::string_view type) {
    // MSVC names a class type with its class-key ("struct c10::Half", "class ..."), its 64-bit integers
    // "__int64" and "unsigned __int64" (GCC on LP64: "long int", "unsigned long").
    for (std::string_view key : {"struct ", "class "})
        if (type.starts_with(key)) {
            type.remove_prefix(key.size());
            break;
        }
    if (type == "__int64")
        return "long int";
    if (type == "unsigned __int64")
        return "unsigned long";
    // c10's ScalarType names (c10/core/ScalarType.h), as TraceLens's hand-written eval traces spell the
    // types ("Float", "BFloat16"); each is one TypeMeta name. Not "Int", "Double", "Bool" and
    // "ComplexDouble": PyTorch 1.9-1.12 writes those IValue tag names for Python scalar args
    // (tensor_scalar_spelling).
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 17> kScalarTypes{{
        {"Float", "float"},
        {"UInt16", "short unsigned int"},
        {"UInt32", "unsigned int"},
        {"UInt64", "long unsigned int"},
        {"Float8_e8m0fnu", "c10::Float8_e8m0fnu"},
        {"Float4_e2m1fn_x2", "c10::Float4_e2m1fn_x2"},
        {"Half", "c10::Half"},
        {"BFloat16", "c10::BFloat16"},
        {"Long", "long int"},
        {"Short", "short"},
        {"Char", "signed char"},
        {"Byte", "unsigned char"},
        {"ComplexFloat", "c10::complex<float>"},
        {"Float8_e4m3fn", "c10::Float8_e4m3fn"},
        {"Float8_e4m3fnuz", "c10::Float8_e4m3fnuz"},
        {"Float8_e5m2", "c10::Float8_e5m2"},
        {"Float8_e5m2fnuz", "c10::Float8_e5m2fnuz"},
    }};
    for (const auto& [scalar_type, gcc] : kScalarTypes)
        if (type == scalar_type)
            return gcc;
    return type;
}

std::string_view tensor_scalar_spelling(std::string_view type) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kShared{{
        {"Int", "int"},
        {"Double", "double"},
        {"Bool", "bool"},
        {"ComplexDouble", "c10::complex<double>"},
    }};
    for (const auto& [name, gcc] : kShared)
        if (type == name)
            return gcc;
    return type;
}

}  // namespace bwacct::kineto
