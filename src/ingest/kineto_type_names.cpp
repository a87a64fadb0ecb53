// Torch tensor type names in the GCC spelling (kineto_type_names.h).
#include "kineto_type_names.h"

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
    return type;
}

}  // namespace bwacct::kineto
