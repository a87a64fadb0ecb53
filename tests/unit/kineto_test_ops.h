// A CPU op of a PyTorch profiler trace built from its Input Dims, Input type and Concrete Inputs lists,
// as the cost tests of the torch-trace reader need one (tests/unit/test_kineto_*.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto::test {

inline CpuOp op_of(std::vector<std::vector<std::int64_t>> dims, std::vector<std::string> types,
                   std::vector<std::string> concrete = {}) {
    CpuOp o;
    o.dims = std::move(dims);
    o.types = std::move(types);
    o.concrete = std::move(concrete);
    return o;
}

inline const std::string bf = "c10::BFloat16";  // the Input type PyTorch writes for bf16 tensors

}  // namespace bwacct::kineto::test
