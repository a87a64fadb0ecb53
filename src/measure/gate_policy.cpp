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
    // What Nsight Compute 2025.3 and compute-sanitizer 2025 put in the target's environment, seen on an
    // H100 (CUDA 13.0): neither sets CUDA_INJECTION64_PATH there.
    if (set("NV_NSIGHT_INJECTION_TRANSPORT_TYPE") || set("NV_COMPUTE_PROFILER_PERFWORKS_DIR"))
        return {false,
                "running under Nsight Compute (NV_NSIGHT_INJECTION_TRANSPORT_TYPE or NV_COMPUTE_PROFILER_PERFWORKS_DIR "
                "is set): batches run without the spin gate, and times under a tool that serialises launches "
                "are not representative"};
    if (set("NV_SANITIZER_INJECTION_TRANSPORT_TYPE"))
        return {false,
                "running under compute-sanitizer (NV_SANITIZER_INJECTION_TRANSPORT_TYPE is set): batches run without "
                "the spin gate, and times under a checker are not representative"};
    if (set("NSYS_PROFILING_SESSION_ID"))
        return {false, "running under Nsight Systems (NSYS_PROFILING_SESSION_ID): batches run without the spin gate"};
    return {};
}

GatePolicy gate_policy() {
    return gate_policy([](const char* name) -> const char* { return std::getenv(name); });
}

}  // namespace bwacct::measure
