#include "bwacct/cost.h"

namespace bwacct {

std::string_view unit_name(Unit u) { return u == Unit::tensor ? "tensor" : "vector"; }

Unit matmul_unit(DType t) { return t == DType::fp32 ? Unit::vector : Unit::tensor; }

}  // namespace bwacct
