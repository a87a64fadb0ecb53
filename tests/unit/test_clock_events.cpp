// The throttle note (issue 15 item 7): NVML clock-event reasons ORed over the timed samples.
#include <gtest/gtest.h>

#include <string>

#include "clock_events.h"

namespace bwacct::measure {
namespace {

TEST(ClockEvents, IdleAloneIsNotThrottling) {
    EXPECT_EQ(clock_event_note(0), "");
    EXPECT_EQ(clock_event_note(clock_event::gpu_idle), "") << "the GPU idles between samples";
}

TEST(ClockEvents, EachSlowdownIsNamed) {
    const std::string n = clock_event_note(clock_event::gpu_idle | clock_event::sw_power_cap | clock_event::hw_thermal_slowdown);
    EXPECT_NE(n.find("software power cap, hardware thermal slowdown"), std::string::npos) << n;
    EXPECT_EQ(n.find("idle"), std::string::npos) << n;
    EXPECT_NE(clock_event_note(0x8).find("hardware slowdown"), std::string::npos);
    EXPECT_NE(clock_event_note(0x80).find("hardware power brake"), std::string::npos);
    EXPECT_NE(clock_event_note(0x2).find("application clocks"), std::string::npos);
}

// The bit values are nvml.h's (nvmlClocksEventReason*), which NVML returns.
TEST(ClockEvents, BitsAreNvmls) {
    EXPECT_EQ(clock_event::sw_power_cap, 0x4u);
    EXPECT_EQ(clock_event::hw_slowdown, 0x8u);
    EXPECT_EQ(clock_event::sw_thermal_slowdown, 0x20u);
    EXPECT_EQ(clock_event::hw_thermal_slowdown, 0x40u);
    EXPECT_EQ(clock_event::hw_power_brake_slowdown, 0x80u);
}

}  // namespace
}  // namespace bwacct::measure
