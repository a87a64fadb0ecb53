#include "gate_policy.h"

#include <cstdlib>
#include <string>

namespace bwacct::measure {

GatePolicy gate_policy(const std::function<const char*(const char*)>& env) {
    auto set = [&](const char* name) {
        const char* v = env(name);
        return v != nullptr && *v != '\0';
    };
    if (set("BWACCT_NO_GATE") && std::string(env("BWACCT_NO_GATE")) != "0")
        return {false, "BWACCT_NO_GATE is set: batches are not held behind the spin gate"};
    if (set("CUDA_INJECTION64_PATH"))
        return {false, std::string("a profiler or checker is attached (CUDA_INJECTION64_PATH=") + env("CUDA_INJECTION64_PATH") +
                           "): batches run without the spin gate, and times under a tool that serialises launches are "
                           "not representative"};
    if (set("NSYS_PROFILING_SESSION_ID"))
        return {false, "running under Nsight Systems (NSYS_PROFILING_SESSION_ID): batches run without the spin gate"};
    return {};
}

GatePolicy gate_policy() {
    return gate_policy([](const char* name) -> const char* { return std::getenv(name); });
}

}  // namespace bwacct::measure
