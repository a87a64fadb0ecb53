// The time accounting of a trace (src/ingest/kineto_timeline.cpp): busy time by priority (compute >
// communication > memcpy), exposed time, the profiled window, idle time explained, launch delays.
// Small synthetic traces; every expected number is worked out by hand in the comments.
#include <gtest/gtest.h>

#include <string>

#include "bwacct/ingest_kineto.h"

namespace {

using namespace bwacct::kineto;

constexpr auto kCompute = static_cast<std::size_t>(TimeClass::compute);
constexpr auto kComm = static_cast<std::size_t>(TimeClass::communication);
constexpr auto kMemcpy = static_cast<std::size_t>(TimeClass::memcpy);

// The index of the activity named `name` (names are unique in these traces).
std::size_t activity(const Trace& t, const std::string& name) {
    for (std::size_t a = 0; a < t.activities.size(); ++a)
        if (t.names[t.activities[a].name] == name)
            return a;
    ADD_FAILURE() << "no activity " << name;
    return 0;
}

// Device 0, one activity per stream except C (stream 7 after A):
//   N  NCCL allreduce (communication)  [0,20]   stream 8, launched at -1
//   A  compute kernel                  [5,15]   stream 7, launched at 1
//   B  compute kernel                  [10,30]  stream 9, launched at 2
//   M  memcpy                          [25,40]  stream 10, launched at 3
//   C  compute kernel                  [50,60]  stream 7, launched at 45
// Segments, and who gets each (the highest class running, shared equally within it):
//   [0,5)   N alone             → comm 5      (N +5)
//   [5,10)  A, N                → compute 5   (A +5)
//   [10,15) A, B, N             → compute 5   (A +2.5, B +2.5)
//   [15,20) B, N                → compute 5   (B +5)
//   [20,25) B                   → compute 5   (B +5)
//   [25,30) B, M                → compute 5   (B +5)
//   [30,40) M                   → memcpy 10   (M +10)
//   [40,50) idle: C launched at 45 → 5 waiting for the host, 5 after launch
//   [50,60) C                   → compute 10  (C +10)
// busy 50 = 5+5+5+5+5+5+10+10; span 60; idle 10.
// Shares: N 5, A 7.5, B 17.5, M 10, C 10 (sum 50). The old rule (earliest start takes the overlap)
// gave N all of [0,20] = 20 and A nothing.
// Exposed: compute [5,30)+[50,60) = 35, comm [0,5) = 5, memcpy [30,40) = 10 (sum 50 = busy).
// All of a class: compute 35, comm [0,20) = 20, memcpy [25,40) = 15; comm hidden (20 − 5)/20 = 75 %.
// Launch delays (start − launch): N 1, A 4, B 8, M 22, C 5 → sorted 1 4 5 8 22: median = rank
// ceil(0.5·5) = 3 → 5, p90 = rank ceil(0.9·5) = 5 → 22, max 22.
const char* kOverlap = R"({"traceEvents": [
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":-1,"dur":0.5,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":0.5,"args":{"correlation":2}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":0.5,"args":{"correlation":3}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":3,"dur":0.5,"args":{"correlation":4}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":45,"dur":0.5,"args":{"correlation":5}},
  {"ph":"X","cat":"kernel","name":"N","ts":0,"dur":20,"args":{"device":0,"stream":8,"correlation":1,
    "Collective name":"allreduce","In msg nelems":1000,"Out msg nelems":1000,"Group size":2,"dtype":"Float"}},
  {"ph":"X","cat":"kernel","name":"A","ts":5,"dur":10,"args":{"device":0,"stream":7,"correlation":2}},
  {"ph":"X","cat":"kernel","name":"B","ts":10,"dur":20,"args":{"device":0,"stream":9,"correlation":3}},
  {"ph":"X","cat":"gpu_memcpy","name":"M","ts":25,"dur":15,"args":{"device":0,"stream":10,"correlation":4}},
  {"ph":"X","cat":"kernel","name":"C","ts":50,"dur":10,"args":{"device":0,"stream":7,"correlation":5}}
]})";

TEST(KinetoTimeline, ConcurrentStreamsGoToTheHighestClassAndAddUp) {
    const Trace t = parse_kineto(kOverlap, "overlap.json");
    const Summary s = summarize(t);
    EXPECT_DOUBLE_EQ(s.busy_us, 50.0);
    EXPECT_DOUBLE_EQ(s.span_us, 60.0);
    EXPECT_DOUBLE_EQ(s.idle_us, 10.0);
    EXPECT_DOUBLE_EQ(s.kernel_us, 75.0);  // 20 + 10 + 20 + 15 + 10: per-kernel times stay whole
    const auto& busy = s.time.activity_busy;
    EXPECT_DOUBLE_EQ(busy[activity(t, "N")], 5.0);
    EXPECT_DOUBLE_EQ(busy[activity(t, "A")], 7.5);
    EXPECT_DOUBLE_EQ(busy[activity(t, "B")], 17.5);
    EXPECT_DOUBLE_EQ(busy[activity(t, "M")], 10.0);
    EXPECT_DOUBLE_EQ(busy[activity(t, "C")], 10.0);
    // The categories' shares add up to the busy time, whatever the categories are.
    double parts = 0;
    for (const CategoryTime& c : s.categories)
        parts += c.busy_us;
    EXPECT_DOUBLE_EQ(parts, s.busy_us);
    // The NCCL kernel's category (collective, from its metadata) keeps only its exposed 5 µs.
    EXPECT_DOUBLE_EQ(s.categories[static_cast<std::size_t>(Category::collective)].busy_us, 5.0);
    EXPECT_DOUBLE_EQ(s.categories[static_cast<std::size_t>(Category::collective)].exposed_us, 5.0);

    const WindowTime& w = s.time.trace;
    EXPECT_DOUBLE_EQ(w.exposed_us[kCompute], 35.0);
    EXPECT_DOUBLE_EQ(w.exposed_us[kComm], 5.0);
    EXPECT_DOUBLE_EQ(w.exposed_us[kMemcpy], 10.0);
    EXPECT_DOUBLE_EQ(w.class_us[kCompute], 35.0);
    EXPECT_DOUBLE_EQ(w.class_us[kComm], 20.0);
    EXPECT_DOUBLE_EQ(w.class_us[kMemcpy], 15.0);
    EXPECT_DOUBLE_EQ(w.host_wait_us, 5.0);
    EXPECT_DOUBLE_EQ(w.after_launch_us, 5.0);
    EXPECT_DOUBLE_EQ(w.no_launch_us, 0.0);
    // Every activity has a launch record, no ProfilerStep: the window is the linked span = the trace.
    EXPECT_EQ(s.time.window_basis, "linked");
    EXPECT_DOUBLE_EQ(s.time.window.span_us, 60.0);
    EXPECT_DOUBLE_EQ(s.time.window.busy_us, 50.0);
    EXPECT_EQ(s.time.outside_no_launch + s.time.outside_other_launch + s.time.outside_ran_outside, 0u);
    EXPECT_EQ(s.time.delay.count, 5u);
    EXPECT_DOUBLE_EQ(s.time.delay.median_us, 5.0);
    EXPECT_DOUBLE_EQ(s.time.delay.p90_us, 22.0);
    EXPECT_DOUBLE_EQ(s.time.delay.max_us, 22.0);
}

// Stream 7 of the trace above: A [5,15], C [50,60]: span 55, busy 20, idle 35; the gap [15,50) split
// at C's launch (45): 30 waiting for the host, 5 after launch. Delays A 4, C 5: median rank 1 → 4.
TEST(KinetoTimeline, IdlePerStreamIsSplitAtTheNextLaunch) {
    const Summary s = summarize(parse_kineto(kOverlap, "overlap.json"));
    const StreamTime* st = nullptr;
    for (const StreamTime& x : s.time.streams)
        if (x.device == 0 && x.stream == 7)
            st = &x;
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->activities, 2u);
    EXPECT_DOUBLE_EQ(st->span_us, 55.0);
    EXPECT_DOUBLE_EQ(st->busy_us, 20.0);
    EXPECT_DOUBLE_EQ(st->idle_us, 35.0);
    EXPECT_DOUBLE_EQ(st->host_wait_us, 30.0);
    EXPECT_DOUBLE_EQ(st->after_launch_us, 5.0);
    EXPECT_EQ(st->delay.count, 2u);
    EXPECT_DOUBLE_EQ(st->delay.median_us, 4.0);
    EXPECT_DOUBLE_EQ(st->delay.max_us, 5.0);
    EXPECT_EQ(s.time.streams.size(), 4u);  // streams 7, 8, 9, 10
}

// Two ProfilerSteps (CPU [0,30) and [30,60)) and kernels queued before the profiler started:
//   P1 [0,10], P2 [12,20]  no launch record (queued before the profiler started)
//   K1 [25,35] launched at 5 (step 1)    K2 [40,45] launched at 10 (step 1)
//   K3 [50,60] launched at 32 (step 2)   K4 [58,70] stream 8, launched at 33 (step 2)
//   K5 [80,85] launched at 75 (after the last step)
// Step 1's window: its first start 25 to step 2's first start 50: busy 10 + 5 = 15, span 25, idle 10
//   ([35,40) before K2, launched at 10: after launch; [45,50) before K3, launched at 32: after launch).
// Step 2's window: 50 to its last end 70: busy [50,70) = 20, span 20, idle 0.
// Profiled window [25,70): span 45, busy 35, idle 10; mean step: span 22.5, busy 17.5, idle 5.
// Whole trace [0,85]: busy 10 + 8 + 10 + 5 + 20 + 5 = 58, span 85, idle 27 = [10,12) 2 before P2 (no
//   launch) + [20,25) 5 after launch + 5 + 5 + [70,80) before K5 launched at 75: 5 host + 5 after.
// Left out: P1, P2 (no launch record) and K5 (launched outside every step): 10 + 8 + 5 = 23 µs.
TEST(KinetoTimeline, TheProfiledWindowIsTheStepsGpuTime) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":30},
      {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":30,"dur":30},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":5,"dur":1,"args":{"correlation":11}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":1,"args":{"correlation":12}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":32,"dur":1,"args":{"correlation":13}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":33,"dur":1,"args":{"correlation":14}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":75,"dur":1,"args":{"correlation":15}},
      {"ph":"X","cat":"kernel","name":"P1","ts":0,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
      {"ph":"X","cat":"kernel","name":"P2","ts":12,"dur":8,"args":{"device":0,"stream":7,"correlation":2}},
      {"ph":"X","cat":"kernel","name":"K1","ts":25,"dur":10,"args":{"device":0,"stream":7,"correlation":11}},
      {"ph":"X","cat":"kernel","name":"K2","ts":40,"dur":5,"args":{"device":0,"stream":7,"correlation":12}},
      {"ph":"X","cat":"kernel","name":"K3","ts":50,"dur":10,"args":{"device":0,"stream":7,"correlation":13}},
      {"ph":"X","cat":"kernel","name":"K4","ts":58,"dur":12,"args":{"device":0,"stream":8,"correlation":14}},
      {"ph":"X","cat":"kernel","name":"K5","ts":80,"dur":5,"args":{"device":0,"stream":7,"correlation":15}}
    ]})",
                                 "steps.json");
    ASSERT_EQ(t.steps.size(), 2u);
    const Summary s = summarize(t);
    const Timeline& tl = s.time;
    EXPECT_EQ(tl.window_basis, "ProfilerStep");
    ASSERT_EQ(tl.steps.size(), 2u);
    EXPECT_EQ(tl.steps[0].name, "ProfilerStep#1");
    EXPECT_DOUBLE_EQ(tl.steps[0].span_us, 25.0);
    EXPECT_DOUBLE_EQ(tl.steps[0].busy_us, 15.0);
    EXPECT_DOUBLE_EQ(tl.steps[0].idle_us, 10.0);
    EXPECT_DOUBLE_EQ(tl.steps[0].after_launch_us, 10.0);
    EXPECT_DOUBLE_EQ(tl.steps[0].host_wait_us, 0.0);
    EXPECT_DOUBLE_EQ(tl.steps[1].span_us, 20.0);
    EXPECT_DOUBLE_EQ(tl.steps[1].busy_us, 20.0);
    EXPECT_DOUBLE_EQ(tl.steps[1].idle_us, 0.0);
    EXPECT_DOUBLE_EQ(tl.window.span_us, 45.0);
    EXPECT_DOUBLE_EQ(tl.window.busy_us, 35.0);
    EXPECT_DOUBLE_EQ(tl.window.idle_us, 10.0);
    EXPECT_DOUBLE_EQ(tl.trace.span_us, 85.0);
    EXPECT_DOUBLE_EQ(tl.trace.busy_us, 58.0);
    EXPECT_DOUBLE_EQ(tl.trace.idle_us, 27.0);
    EXPECT_DOUBLE_EQ(tl.trace.no_launch_us, 2.0);
    EXPECT_DOUBLE_EQ(tl.trace.host_wait_us, 5.0);
    EXPECT_DOUBLE_EQ(tl.trace.after_launch_us, 20.0);
    EXPECT_EQ(tl.outside_no_launch, 2u);
    EXPECT_EQ(tl.outside_other_launch, 1u);
    EXPECT_EQ(tl.outside_ran_outside, 0u);
    EXPECT_EQ(tl.cut, 0u);
    EXPECT_DOUBLE_EQ(tl.outside_kernel_us, 23.0);
    // The busy time of the whole trace is still every kernel's: 58.
    EXPECT_DOUBLE_EQ(s.busy_us, 58.0);
}

// No ProfilerStep: the window is the span of the activities with a CPU launch record. P [0,10] has
// none (queued before the profiler started); K [20,30] was launched at 15: window [20,30), span 10,
// busy 10; P left out (10 µs).
TEST(KinetoTimeline, WithoutStepsTheWindowIsTheLinkedKernels) {
    const Summary s = summarize(parse_kineto(R"({"traceEvents": [
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":15,"dur":1,"args":{"correlation":2}},
      {"ph":"X","cat":"kernel","name":"P","ts":0,"dur":10,"args":{"device":0,"stream":7,"correlation":1}},
      {"ph":"X","cat":"kernel","name":"K","ts":20,"dur":10,"args":{"device":0,"stream":7,"correlation":2}}
    ]})",
                                             "linked.json"));
    EXPECT_EQ(s.time.window_basis, "linked");
    EXPECT_TRUE(s.time.steps.empty());
    EXPECT_DOUBLE_EQ(s.time.window.span_us, 10.0);
    EXPECT_DOUBLE_EQ(s.time.window.busy_us, 10.0);
    EXPECT_DOUBLE_EQ(s.time.window.idle_us, 0.0);
    EXPECT_EQ(s.time.outside_no_launch, 1u);
    EXPECT_DOUBLE_EQ(s.time.outside_kernel_us, 10.0);
    EXPECT_DOUBLE_EQ(s.time.trace.span_us, 30.0);
    EXPECT_DOUBLE_EQ(s.time.trace.busy_us, 20.0);
    // The gap [10,20) before K (launched at 15): 5 waiting for the host, 5 after launch.
    EXPECT_DOUBLE_EQ(s.time.trace.host_wait_us, 5.0);
    EXPECT_DOUBLE_EQ(s.time.trace.after_launch_us, 5.0);
}

// An activity across the window's edge counts its part inside: P [0,25] (no launch record) on stream 8
// overlaps the linked K [20,30] (launched at 15): window [20,30), busy 10 (P's [20,25) and K overlap);
// P is cut, not left out. Whole trace: busy [0,30) = 30. Exposed compute in the window: 10.
TEST(KinetoTimeline, ActivitiesCutByTheWindowCountTheirPartInside) {
    const Summary s = summarize(parse_kineto(R"({"traceEvents": [
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":15,"dur":1,"args":{"correlation":2}},
      {"ph":"X","cat":"kernel","name":"P","ts":0,"dur":25,"args":{"device":0,"stream":8,"correlation":1}},
      {"ph":"X","cat":"kernel","name":"K","ts":20,"dur":10,"args":{"device":0,"stream":7,"correlation":2}}
    ]})",
                                             "cut.json"));
    EXPECT_DOUBLE_EQ(s.time.window.span_us, 10.0);
    EXPECT_DOUBLE_EQ(s.time.window.busy_us, 10.0);
    EXPECT_DOUBLE_EQ(s.time.window.exposed_us[kCompute], 10.0);
    EXPECT_EQ(s.time.cut, 1u);
    EXPECT_EQ(s.time.outside_no_launch, 0u);
    EXPECT_DOUBLE_EQ(s.time.trace.busy_us, 30.0);
}

// Two devices: each has its own window and timeline, summed. Device 0: [0,10]; device 1: [5,25]
// (same times would overlap on one device, not across devices): busy 10 + 20 = 30, span 30.
TEST(KinetoTimeline, DevicesAreAccountedApartAndSummed) {
    const Summary s = summarize(parse_kineto(R"({"traceEvents": [
      {"ph":"X","cat":"kernel","name":"a","ts":0,"dur":10,"args":{"device":0,"stream":7}},
      {"ph":"X","cat":"kernel","name":"b","ts":5,"dur":20,"args":{"device":1,"stream":7}}
    ]})",
                                             "two.json"));
    EXPECT_DOUBLE_EQ(s.busy_us, 30.0);
    EXPECT_DOUBLE_EQ(s.span_us, 30.0);
    EXPECT_EQ(s.time.window_basis, "whole trace");  // no launch record anywhere
    EXPECT_DOUBLE_EQ(s.time.window.busy_us, 30.0);
    EXPECT_EQ(s.time.streams.size(), 2u);
}

// Correlation ids are unique only within one process: a trace merging two processes' events (each its own device)
// reuses them. Process 1 launches mm at 2 (id 7), its kernel runs on device 0 at [10, 20]; process 2 launches at 2
// (id 7 again), its kernel runs on device 1 at [12, 22]. Neither is a CUDA graph replay: two launch delays, 10 − 2 = 8
// and 12 − 2 = 10 (sorted 8, 10: median rank ceil(0.5·2) = 1 → 8, max 10), and neither kernel's reason names a
// replay. (Keyed on the id alone, device 1's kernel was the "later kernel of one launch": 1 delay, and both were
// called a graph replay.)
TEST(KinetoTimeline, CorrelationIdsOfTwoProcessesAreNotOneLaunch) {
    const Summary s = summarize(parse_kineto(R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5,"args":{"External id":3}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":7}},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":2,"tid":1,"ts":1,"dur":5,"args":{"External id":3}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":2,"tid":1,"ts":2,"dur":1,"args":{"correlation":7}},
      {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":10,"dur":10,
       "args":{"device":0,"stream":7,"correlation":7}},
      {"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":1,"tid":7,"ts":12,"dur":10,
       "args":{"device":1,"stream":7,"correlation":7}}
    ]})",
                                             "merged.json"));
    EXPECT_EQ(s.time.delay.count, 2u);
    EXPECT_DOUBLE_EQ(s.time.delay.median_us, 8.0);
    EXPECT_DOUBLE_EQ(s.time.delay.max_us, 10.0);
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].reason.find("graph replay"), std::string::npos) << s.kernels[0].reason;
    EXPECT_FALSE(s.kernels[0].reason.empty());
}

}  // namespace
