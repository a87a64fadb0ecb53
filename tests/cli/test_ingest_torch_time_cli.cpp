// End-to-end: where a trace's GPU time goes in `bwacct ingest torch-trace` — the answer-first summary,
// the profiled window, exposed communication, idle per stream — on a synthetic trace computed by hand
// and on the real A100 DDP trace (tests/data/kineto/).
#include <gtest/gtest.h>

#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

std::string data(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/kineto/" + name; }
const std::string kDdp = "kineto_a100_ddp2gpu_nccl_collectives_hta.json.gz";

const json& row_of(const json& doc, const std::string& section, const std::string& key_col, const std::string& key) {
    static const json none;
    for (const json& row : doc["sections"][section]["rows"])
        if (row[key_col] == key)
            return row;
    ADD_FAILURE() << section << " has no row " << key;
    return none;
}

// An NCCL all-reduce [0,20] on stream 8 under a compute kernel [5,15] on stream 7, one ProfilerStep
// (CPU [-2,10]) holding both launches (at -1 and 2), and a kernel [30,40] with no launch record.
//   window (the step: first start 0 to last end 20): span 20, busy 20, idle 0;
//   exposed compute [5,15) = 10, exposed communication [0,5) + [15,20) = 10, all communication 20,
//   hidden (20 − 10) / 20 = 50 %;
//   whole trace: span 40, busy 20 + 10 = 30; 1 activity left out (no launch record), 10 µs.
const char* kTrace = R"({"traceEvents": [
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":-2,"dur":12},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":-1,"dur":0.5,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":0.5,"args":{"correlation":2}},
  {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_Sum_f32_RING_LL","ts":0,"dur":20,
   "args":{"device":0,"stream":8,"correlation":1,"Collective name":"allreduce","In msg nelems":1000,
           "Out msg nelems":1000,"Group size":2,"dtype":"Float"}},
  {"ph":"X","cat":"kernel","name":"my_compute_kernel","ts":5,"dur":10,"args":{"device":0,"stream":7,"correlation":2}},
  {"ph":"X","cat":"kernel","name":"queued_kernel","ts":30,"dur":10,"args":{"device":0,"stream":7,"correlation":99}}
]})";

// Two processes' events merged into one trace, each numbering its launches from 1: the kernel on device 1 has the
// id pid 200 launched, but the lookup by id alone finds pid 100's launch first. One warning says so. Only one
// launch id is usable per kernel, so the delay line counts 1 launch (singular): kernel 0 at 5 − launch at 1 = 4.
const char* kMerged = R"({"traceEvents": [
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":1,"dur":0.5,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":200,"tid":1,"ts":2,"dur":0.5,"args":{"correlation":1}},
  {"ph":"X","cat":"kernel","name":"my_compute_kernel","ts":5,"dur":10,"args":{"device":0,"stream":7,"correlation":1}}
]})";

TEST(IngestTorchTimeCli, MergedProcessesWarnOnceAndOneLaunchIsSingular) {
    TempDir dir;
    const std::string trace = dir.file("merged.json");
    write_text(trace, kMerged);
    const json doc = run_json({"ingest", "torch-trace", trace, "--gpu", "h100-sxm", "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    int merged = 0;
    for (const json& w : doc["warnings"])
        merged += w.get<std::string>().find("several processes' events whose correlation ids repeat") != std::string::npos;
    EXPECT_EQ(merged, 1) << doc["warnings"];
    bool delay_line = false;
    for (const json& l : doc["summary"]["lines"])
        if (l.get<std::string>().rfind("launch delay", 0) == 0) {
            delay_line = true;
            EXPECT_NE(l.get<std::string>().find("(CPU launch to start, 1 launch)"), std::string::npos) << l;
        }
    EXPECT_TRUE(delay_line);
}

TEST(IngestTorchTimeCli, SummaryWindowAndExposedCommunication) {
    TempDir dir;
    const std::string trace = dir.file("overlap.json");
    write_text(trace, kTrace);
    const json doc = run_json({"ingest", "torch-trace", trace, "--gpu", "h100-sxm", "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    const json& s = doc["summary"];
    EXPECT_EQ(s["window_basis"], "ProfilerStep");
    EXPECT_EQ(s["window_steps"], 1);
    EXPECT_DOUBLE_EQ(s["window_span_us"].get<double>(), 20.0);
    EXPECT_DOUBLE_EQ(s["window_busy_us"].get<double>(), 20.0);
    EXPECT_DOUBLE_EQ(s["window_idle_us"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(s["exposed_compute_us"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ(s["exposed_communication_us"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ(s["communication_us"].get<double>(), 20.0);
    EXPECT_DOUBLE_EQ(s["communication_hidden_share"].get<double>(), 50.0);
    EXPECT_DOUBLE_EQ(s["trace_span_us"].get<double>(), 40.0);
    EXPECT_DOUBLE_EQ(s["trace_busy_us"].get<double>(), 30.0);
    EXPECT_EQ(s["left_out_activities"], 1);
    EXPECT_EQ(s["left_out_no_launch"], 1);
    EXPECT_DOUBLE_EQ(s["left_out_kernel_us"].get<double>(), 10.0);
    // Launch delays: all-reduce 0 − (−1) = 1, compute 5 − 2 = 3: median rank ceil(0.5·2) = 1 → 1, max 3.
    EXPECT_EQ(s["launch_delay_count"], 2);
    EXPECT_DOUBLE_EQ(s["launch_delay_median_us"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(s["launch_delay_max_us"].get<double>(), 3.0);
    // The summary line counts launches (a CUDA graph replay's kernels count once), and says so.
    bool delay_line = false;
    for (const json& l : s["lines"])
        if (l.get<std::string>().rfind("launch delay", 0) == 0) {
            delay_line = true;
            EXPECT_NE(l.get<std::string>().find("(CPU launch to start, 2 launches)"), std::string::npos) << l;
        }
    EXPECT_TRUE(delay_line);
    ASSERT_TRUE(s["top_categories"].is_array());
    EXPECT_LE(s["top_categories"].size(), 3u);
    // The collective category's busy share is its exposed time, 10 µs, not the 20 µs it ran.
    const json& coll = row_of(doc, "by_category", "category", "collective");
    EXPECT_DOUBLE_EQ(coll["busy_us"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ(coll["kernel_us"].get<double>(), 20.0);
    EXPECT_DOUBLE_EQ(coll["exposed_us"].get<double>(), 10.0);
    // Over the window [0,20]: the collective's share is again its exposed 10 µs, the compute kernel's
    // 10 µs; the queued kernel [30,40] has none. Neither kernel without a CPU op has a formula:
    //   window unaccounted = the compute kernel's 10 µs, 10 / 20 = 50 %;
    //   whole trace unaccounted = 10 + 10 = 20 µs of busy 30, 66.67 %.
    EXPECT_DOUBLE_EQ(coll["window_busy_us"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ(coll["window_busy_share"].get<double>(), 50.0);
    EXPECT_DOUBLE_EQ(s["window_unaccounted_us"].get<double>(), 10.0);
    EXPECT_DOUBLE_EQ(s["window_unaccounted_share"].get<double>(), 50.0);
    EXPECT_DOUBLE_EQ(s["trace_unaccounted_us"].get<double>(), 20.0);
    EXPECT_NEAR(s["trace_unaccounted_share"].get<double>(), 200.0 / 3, 1e-9);
    double window_rows = 0;
    for (const json& row : doc["sections"]["by_category"]["rows"])
        window_rows += row["window_busy_us"].get<double>();
    EXPECT_DOUBLE_EQ(window_rows, 20.0);
    const json& unaccounted = row_of(doc, "by_roof", "roof", "unaccounted (no formula)");
    EXPECT_DOUBLE_EQ(unaccounted["busy_us"].get<double>(), 20.0);
    EXPECT_DOUBLE_EQ(unaccounted["window_busy_us"].get<double>(), 10.0);
    expect_finite_json_text(run_bwacct({"ingest", "torch-trace", trace, "--gpu", "h100-sxm", "--format", "json"}).out, "json");

    // The table starts with the summary, before the records and the detailed sections.
    const RunResult table = run_bwacct({"ingest", "torch-trace", trace, "--gpu", "h100-sxm"});
    ASSERT_EQ(table.status, 0) << report(table);
    const auto at = [&](const std::string& what) { return table.out.find(what); };
    const std::size_t summary = at("GPU busy 20.0 µs of the 20.0 µs profiled window");
    ASSERT_NE(summary, std::string::npos) << table.out;
    EXPECT_NE(at("50.0 % of it hidden under compute"), std::string::npos) << table.out;
    EXPECT_NE(at("unaccounted (no formula): 50.0 % of the window's busy time (10.0 µs), 66.7 % of the whole trace's (20.0 µs)"),
              std::string::npos)
        << table.out;
    EXPECT_LT(summary, at("torch-trace: "));  // before the file's header line
    EXPECT_LT(summary, at("GPU time by category"));
    EXPECT_LT(summary, at("records"));
}

// The real DDP trace (rank 0 of 2, three ProfilerSteps): exposed communication ≤ all communication ≤
// the collective kernels' time; the exposed parts add up to the window's busy time; the window lies
// within the trace; the categories' busy shares add up to the busy time.
TEST(IngestTorchTimeCli, DdpTraceTimesAddUp) {
    const json doc = run_json({"ingest", "torch-trace", data(kDdp), "--gpu", "a100-sxm-80gb", "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    const json& s = doc["summary"];
    EXPECT_EQ(s["window_basis"], "ProfilerStep");
    EXPECT_EQ(s["window_steps"], 3);  // ProfilerStep#4, #5, #6
    const double coll_kernel_us = row_of(doc, "by_category", "category", "collective")["kernel_us"].get<double>();
    const double exposed_comm = s["exposed_communication_us"].get<double>(), comm = s["communication_us"].get<double>();
    EXPECT_GT(exposed_comm, 0);
    EXPECT_LE(exposed_comm, comm);
    EXPECT_LE(comm, coll_kernel_us + 1e-6);
    const double busy = s["window_busy_us"].get<double>(), span = s["window_span_us"].get<double>();
    EXPECT_NEAR(s["exposed_compute_us"].get<double>() + exposed_comm + s["exposed_memcpy_us"].get<double>(), busy, 1e-9 * busy);
    EXPECT_NEAR(busy + s["window_idle_us"].get<double>(), span, 1e-9 * span);
    EXPECT_NEAR(s["window_idle_host_wait_us"].get<double>() + s["window_idle_after_launch_us"].get<double>() +
                    s["window_idle_no_launch_us"].get<double>(),
                s["window_idle_us"].get<double>(), 1e-6 * span);
    EXPECT_LE(busy, s["trace_busy_us"].get<double>() + 1e-6);
    EXPECT_LE(span, s["trace_span_us"].get<double>() + 1e-6);
    // Steps partition the window: their spans and busy times add up to it.
    double steps_span = 0, steps_busy = 0;
    for (const json& row : doc["sections"]["window"]["rows"])
        if (row["window"].get<std::string>().rfind("ProfilerStep#", 0) == 0) {
            steps_span += row["span_us"].get<double>();
            steps_busy += row["busy_us"].get<double>();
        }
    EXPECT_NEAR(steps_span, span, 1e-6 * span);
    EXPECT_NEAR(steps_busy, busy, 1e-6 * span);
    double by_category = 0;
    for (const json& row : doc["sections"]["by_category"]["rows"])
        by_category += row["busy_us"].get<double>();
    const double trace_busy = s["trace_busy_us"].get<double>();
    EXPECT_NEAR(by_category, trace_busy, 1e-9 * trace_busy);
    EXPECT_EQ(s["farthest_below_roof"].size(), 3u);
    for (const json& r : s["farthest_below_roof"])
        EXPECT_GE(r["time_lost_us"].get<double>(), 0);
}

}  // namespace

// A copy's record is named by its bytes ("memcpy_dtod 1000000 B"), said once in the summary line: its
// dtype field is the word "bytes", which the line leaves out. Copy of 1,000,000 B in 10 µs, launched.
TEST(IngestTorchTimeCli, FarthestBelowRoofNamesACopyByItsBytesOnce) {
    TempDir dir;
    const std::string trace = dir.file("copy.json");
    write_text(trace, R"J({"traceEvents": [
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":0,"dur":1,"args":{"correlation":5}},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":7,"ts":2,"dur":10,
   "args":{"device":0,"stream":7,"correlation":5,"bytes":1000000}}
]})J");
    const RunResult r = run_bwacct({"ingest", "torch-trace", trace, "--gpu", "h100-sxm"});
    ASSERT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("farthest below their roof (whole trace): memcpy_dtod 1000000 B: "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("B bytes"), std::string::npos) << r.out;
}

// A top category's speed against its roofs: Σ calls · roof time per call / Σ kernel time. One aten::mm
// of 4096³ bf16 on h100-sxm: 2·4096³ = 137,438,953,472 FLOPs / 989.4 TFLOP/s = 138.911 µs at the compute
// roof (HBM 3·4096²·2 B / 3350 GB/s = 30.05 µs); its kernel runs 1000 µs: 13.89 % of the roof's speed,
// and below half of every roof, so overhead-bound.
TEST(IngestTorchTimeCli, TopCategoryGivesItsSpeedAgainstItsRoofs) {
    TempDir dir;
    const std::string trace = dir.file("mm.json");
    write_text(trace, R"({"traceEvents": [
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":20,
   "args":{"External id":1,"Input Dims":[[4096,4096],[4096,4096]],"Input type":["c10::BFloat16","c10::BFloat16"]}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":5,"dur":2,"args":{"correlation":7,"External id":1}},
  {"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16bf16_bf16f32","pid":0,"tid":7,"ts":10,"dur":1000,
   "args":{"device":0,"stream":7,"correlation":7,"External id":1}}
]})");
    const json doc = run_json({"ingest", "torch-trace", trace, "--gpu", "h100-sxm", "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    ASSERT_EQ(doc["summary"]["top_categories"].size(), 1u);
    const json& gemm = doc["summary"]["top_categories"][0];
    EXPECT_EQ(gemm["category"], "gemm");
    EXPECT_EQ(gemm["bound"], "overhead");
    EXPECT_NEAR(gemm["roof_speed_share"].get<double>(), 100 * 137438953472.0 / 989.4e6 / 1000, 1e-6);
    const RunResult table = run_bwacct({"ingest", "torch-trace", trace, "--gpu", "h100-sxm"});
    EXPECT_NE(table.out.find("gemm 100.0 % (overhead-bound for 100 % of it; at 14 % of its roofs' speed)"), std::string::npos)
        << table.out;
}
