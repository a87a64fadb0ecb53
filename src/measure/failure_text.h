// The wording of measurement failures that more than one backend produces, so the simulated
// backend's injected failures read exactly like the CUDA backend's real ones (tests match on them).
#pragma once
#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace bwacct::measure {

// IEC size for messages: "1.50 GiB", "256.0 MiB", "4.0 KiB", "12 B".
inline std::string iec_size(std::uint64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (b >= 1024.0 * 1024 * 1024)
        return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
    if (b >= 1024.0 * 1024)
        return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
    if (b >= 1024.0)
        return fmt::format("{:.1f} KiB", b / 1024.0);
    return fmt::format("{} B", bytes);
}

// "NCCL error in ncclAllReduce: unhandled system error (run with NCCL_DEBUG=INFO for details) (detail)":
// the call, ncclGetErrorString of its result and, when there is one, ncclGetLastError's text.
inline std::string nccl_error_message(const std::string& call, const std::string& error_string, const std::string& detail) {
    std::string msg = fmt::format("NCCL error in {}: {}", call, error_string);
    if (!detail.empty())
        msg += fmt::format(" ({})", detail);
    return msg;
}

// Out of memory for an op whose buffers are fixed by what is measured (a GEMM shape, a tensor, a
// message size): no smaller size is tried, since it would measure another op.
inline std::string fixed_size_oom_message(const std::string& op, const std::string& cause) {
    return fmt::format(
        "out of GPU memory measuring {}: its buffers cannot shrink without measuring something else, so no smaller "
        "size was tried; free GPU memory or choose a smaller size ({})",
        op, cause);
}

// The note of a retried HBM measurement: what failed and what was measured instead.
inline std::string oom_retry_note(std::uint64_t requested_bytes, std::uint64_t measured_bytes) {
    return fmt::format("out of GPU memory at {} per array; measured at {} per array instead", iec_size(requested_bytes),
                       iec_size(measured_bytes));
}

}  // namespace bwacct::measure
