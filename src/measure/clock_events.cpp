#include "clock_events.h"

#include <utility>

namespace bwacct::measure {

std::string clock_event_note(std::uint64_t reasons) {
    static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
        {clock_event::sw_power_cap, "software power cap"},
        {clock_event::hw_slowdown, "hardware slowdown"},
        {clock_event::sw_thermal_slowdown, "software thermal slowdown"},
        {clock_event::hw_thermal_slowdown, "hardware thermal slowdown"},
        {clock_event::hw_power_brake_slowdown, "hardware power brake"},
        {clock_event::applications_clocks_setting, "application clocks set below the maximum"},
        {clock_event::sync_boost, "sync boost (clocks held to another GPU's)"},
        {clock_event::display_clock_setting, "display clock setting"},
    };
    std::string names;
    for (const auto& [bit, name] : kNames)
        if ((reasons & bit) != 0)
            names += (names.empty() ? "" : ", ") + std::string(name);
    if (names.empty())
        return "";
    return "clocks were held below their maximum during the timed samples (NVML clock-event reasons: " + names +
           "): the times are those of a throttled GPU";
}

}  // namespace bwacct::measure
