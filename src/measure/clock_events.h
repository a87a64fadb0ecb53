// NVML's clock-event reasons (nvmlDeviceGetCurrentClocksEventReasons, formerly ...ThrottleReasons):
// why the GPU's clocks are below their maximum right now. timing.cu samples them after every timed
// sample and ORs them together, so a run that throttled at any point says so (comparing clocks read
// at idle before the run with clocks after it almost never showed anything).
#pragma once
#include <cstdint>
#include <string>

namespace bwacct::measure {

// The bits, as nvml.h defines them (nvmlClocksEventReason*).
namespace clock_event {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;
}  // namespace clock_event

// One note naming the reasons that lowered clocks during the samples, or "" when none did. Idle is
// not a reason (the GPU idles between samples); the others are named as NVML documents them.
std::string clock_event_note(std::uint64_t reasons);

}  // namespace bwacct::measure
