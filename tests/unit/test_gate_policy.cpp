// When timed batches wait behind the spin gate (issue 15 item 8): not under a tool that serialises
// launches (Nsight Compute, compute-sanitizer, Nsight Systems: their gate would time out on every
// sample), and not when BWACCT_NO_GATE is set.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "gate_policy.h"

namespace bwacct::measure {
namespace {

GatePolicy with_env(const std::map<std::string, std::string>& vars) {
    return gate_policy([&](const char* name) -> const char* {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
}

TEST(GatePolicy, GatedByDefault) {
    const GatePolicy p = with_env({});
    EXPECT_TRUE(p.gated);
    EXPECT_TRUE(p.why_not.empty());
}

TEST(GatePolicy, BwacctNoGateTurnsItOff) {
    const GatePolicy p = with_env({{"BWACCT_NO_GATE", "1"}});
    EXPECT_FALSE(p.gated);
    EXPECT_NE(p.why_not.find("BWACCT_NO_GATE"), std::string::npos);
    EXPECT_TRUE(with_env({{"BWACCT_NO_GATE", "0"}}).gated) << "0 means no";
    EXPECT_TRUE(with_env({{"BWACCT_NO_GATE", ""}}).gated) << "empty means unset";
}

TEST(GatePolicy, AnInjectedProfilerTurnsItOff) {
    const GatePolicy p = with_env({{"CUDA_INJECTION64_PATH", "/opt/nvidia/nsight-compute/target/libInjection.so"}});
    EXPECT_FALSE(p.gated);
    EXPECT_NE(p.why_not.find("libInjection.so"), std::string::npos) << "names what is attached";
    EXPECT_FALSE(with_env({{"NSYS_PROFILING_SESSION_ID", "7"}}).gated);
}

// The variables Nsight Compute 2025.3.1 and compute-sanitizer (CUDA 13.0) set in the target's environment
// on an H100, read with `ncu env` and `compute-sanitizer env` (2026-11-25): neither sets
// CUDA_INJECTION64_PATH, and before this the gate timed out under ncu ("the spin gate timed out (1 s)").
TEST(GatePolicy, NsightComputeAndComputeSanitizerAsSeenOnAnH100TurnItOff) {
    const GatePolicy ncu = with_env({{"NV_NSIGHT_INJECTION_TRANSPORT_TYPE", "uds"},
                                     {"NV_COMPUTE_PROFILER_PERFWORKS_DIR", "/opt/nvidia/nsight-compute/2025.3.1/target/x"}});
    EXPECT_FALSE(ncu.gated);
    EXPECT_NE(ncu.why_not.find("Nsight Compute"), std::string::npos) << ncu.why_not;
    const GatePolicy san = with_env({{"NV_SANITIZER_INJECTION_TRANSPORT_TYPE", "uds"}});
    EXPECT_FALSE(san.gated);
    EXPECT_NE(san.why_not.find("compute-sanitizer"), std::string::npos) << san.why_not;
    EXPECT_TRUE(with_env({{"NV_NSIGHT_INJECTION_TRANSPORT_TYPE", ""}}).gated) << "empty means unset";
}

}  // namespace
}  // namespace bwacct::measure
