#include "bwacct/cost.h"

namespace bwacct {

std::string_view unit_name(Unit u) { return u == Unit::tensor ? "tensor" : "vector"; }

}  // namespace bwacct
