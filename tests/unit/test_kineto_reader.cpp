// The Kineto trace reader (src/ingest/kineto_reader.cpp, kineto_gzip.cpp) and the linking of GPU
// activities to CPU ops (kineto_link.cpp), on small hand-written traces.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"

namespace {

using namespace bwacct::kineto;

// A cpu_op aten::addmm (External id 7) on thread 1/1 with its launch (correlation 100) and kernel.
const std::string kSmall = R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": 132}],
  "metadata": {"nested": [[{"traceEvents": 1}]]},
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 100.0, "dur": 20,
     "args": {"External id": 7, "Input Dims": [[512], [141, 512], [512, 512], [], []],
              "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"],
              "Concrete Inputs": ["", "", "", "1", "1"]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 105, "dur": 4,
     "args": {"External id": 7, "correlation": 100}},
    {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 110.5, "dur": 5.5,
     "args": {"External id": 7, "device": 0, "stream": 7, "correlation": 100}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "x", "pid": 1, "tid": 1, "ts": 1},
    {"ph": "M", "name": "process_name", "pid": "Spans", "tid": 0, "args": {"name": "x"}}
  ]
})";

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("bwacct_kineto_" + name)).string();
}

void write_gz(const std::string& path, const std::string& text) {
    gzFile f = gzopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(f);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const bwacct::InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// A trace whose deviceProperties list several GPUs: the GPU is the one the activities ran on
// (device 1 here: two kernels, against one on device 0), not the first entry.
TEST(KinetoReader, GpuIsTheOneTheKernelsRanOn) {
    const std::string text = R"({
  "deviceProperties": [{"id": 0, "name": "GPU zero", "numSms": 1, "nested": {"id": 5, "name": "not a device"}},
                       {"name": "GPU one", "id": 1}],
  "traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"device": 1, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 3, "dur": 1, "args": {"device": 1, "stream": 7}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 8, "ts": 5, "dur": 1, "args": {"device": 0, "stream": 8}}
  ]
})";
    const Trace t = parse_kineto(text, "two.json");
    ASSERT_EQ(t.devices.size(), 2u);
    EXPECT_EQ(t.devices[0].id, 0);
    EXPECT_EQ(t.devices[0].name, "GPU zero");
    EXPECT_EQ(t.devices[1].id, 1);
    EXPECT_EQ(t.devices[1].name, "GPU one");
    EXPECT_EQ(trace_gpu_name(t), "GPU one");
    // No entry with the kernels' device id: the first entry.
    std::string other = text;
    other.replace(other.find("\"id\": 1"), 7, "\"id\": 9");
    EXPECT_EQ(trace_gpu_name(parse_kineto(other, "two.json")), "GPU zero");
}

// Flat memory (docs/ingest.md, "Performance"): ops with equal "Input Dims", "Input type" and "Concrete
// Inputs" lists share one interned list each; a different list is its own; a key given twice in
// "args" appends (as the vectors did), and an empty list reads as empty.
TEST(KinetoReader, InternsTheInputListsOfOps) {
    const std::string ops = R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
       "args": {"Input Dims": [[2, 3], [2, 3], []], "Input type": ["float", "float", "Scalar"], "Concrete Inputs": ["", "", "1"]}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 3, "dur": 1,
       "args": {"Input Dims": [[2, 3], [2, 3], []], "Input type": ["float", "float", "Scalar"], "Concrete Inputs": ["", "", "1"]}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 1,
       "args": {"Input Dims": [[2, 4], [2, 4], []], "Input type": ["float", "float", "Scalar"], "Concrete Inputs": ["", "", "2"]}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::cat", "pid": 1, "tid": 1, "ts": 7, "dur": 1,
       "args": {"Input Dims": [[5]], "Input type": [], "External id": 3},
       "args": {"Input Dims": [[6], []], "Input type": ["long int"]}},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 9, "dur": 1, "args": {"device": 0, "stream": 7}}
    ]})";
    const Trace t = parse_kineto(ops, "lists.json");
    ASSERT_EQ(t.ops.size(), 4u);
    const CpuOp &a = t.ops[0], &b = t.ops[1], &c = t.ops[2], &d = t.ops[3];
    EXPECT_TRUE(a.dims.same(b.dims));
    EXPECT_TRUE(a.types.same(b.types));
    EXPECT_TRUE(a.concrete.same(b.concrete));
    EXPECT_FALSE(a.dims.same(c.dims));
    EXPECT_TRUE(a.types.same(c.types));
    EXPECT_FALSE(a.concrete.same(c.concrete));
    EXPECT_EQ(c.dims[0], (std::vector<std::int64_t>{2, 4}));
    EXPECT_EQ(c.concrete[2], "2");
    ASSERT_EQ(d.dims.size(), 3u);  // [[5]] then [[6], []]
    EXPECT_EQ(d.dims[0], (std::vector<std::int64_t>{5}));
    EXPECT_EQ(d.dims[1], (std::vector<std::int64_t>{6}));
    EXPECT_TRUE(d.dims[2].empty());
    ASSERT_EQ(d.types.size(), 1u);
    EXPECT_EQ(d.types[0], "long int");
    EXPECT_TRUE(d.concrete.empty());
    EXPECT_EQ(d.concrete.begin(), d.concrete.end());
}

// "displayTimeUnit" ("ms", or "ns" with libkineto's option) is a viewer setting: Kineto writes ts and dur in
// µs either way (its ns-granular builds as µs with three decimals), so the times read are the same.
TEST(KinetoReader, DisplayTimeUnitDoesNotScaleTimes) {
    std::string ns = kSmall;
    const std::string schema = "\"schemaVersion\": 1,";
    ns.replace(ns.find(schema), schema.size(), schema + " \"displayTimeUnit\": \"ns\",");
    const Trace t = parse_kineto(ns, "ns.json");
    ASSERT_EQ(t.ops.size(), 1u);
    EXPECT_DOUBLE_EQ(t.ops[0].dur, 20.0);
    ASSERT_EQ(t.activities.size(), 1u);
    EXPECT_DOUBLE_EQ(t.activities[0].ts, 110.5);
    EXPECT_DOUBLE_EQ(t.activities[0].dur, 5.5);
}

TEST(KinetoReader, KeepsWhatTheAccountingNeeds) {
    const Trace t = parse_kineto(kSmall, "small.json");
    EXPECT_EQ(t.events, 5u);
    ASSERT_EQ(t.devices.size(), 1u);
    EXPECT_EQ(t.devices[0].id, 0);
    EXPECT_EQ(t.devices[0].name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(trace_gpu_name(t), "NVIDIA H100 80GB HBM3");
    ASSERT_EQ(t.ops.size(), 1u);
    const CpuOp& op = t.ops[0];
    EXPECT_EQ(t.names[op.name], "aten::addmm");
    EXPECT_EQ(op.external_id, 7);
    EXPECT_DOUBLE_EQ(op.ts, 100.0);
    EXPECT_DOUBLE_EQ(op.dur, 20.0);
    ASSERT_EQ(op.dims.size(), 5u);
    EXPECT_EQ(op.dims[1], (std::vector<std::int64_t>{141, 512}));
    EXPECT_TRUE(op.dims[3].empty());
    ASSERT_EQ(op.types.size(), 5u);
    EXPECT_EQ(op.types[0], "c10::BFloat16");
    EXPECT_EQ(op.concrete[3], "1");
    ASSERT_EQ(t.launches.size(), 1u);
    EXPECT_EQ(t.launches[0].correlation, 100);
    ASSERT_EQ(t.activities.size(), 1u);
    const GpuActivity& k = t.activities[0];
    EXPECT_EQ(t.names[k.name], "gemm_kernel");
    EXPECT_EQ(k.kind, Activity::kernel);
    EXPECT_DOUBLE_EQ(k.dur, 5.5);
    EXPECT_EQ(k.stream, 7);
    EXPECT_FALSE(k.collective.has_value());
}

TEST(KinetoReader, AcceptsTheBareArrayFormat) {
    const Trace t = parse_kineto(R"([{"ph":"X","cat":"gpu_memset","name":"Memset","ts":1,"dur":2,"args":{}}])", "a.json");
    ASSERT_EQ(t.activities.size(), 1u);
    EXPECT_EQ(t.activities[0].kind, Activity::memset);
}

TEST(KinetoReader, RejectsWhatIsNotATrace) {
    EXPECT_NE(error_of([] { parse_kineto("name,count\na,1\n", "x.csv"); }).find("x.csv: not valid JSON"), std::string::npos);
    // A file cut short is said to be: 17 bytes with the array unclosed; or ending inside the event that
    // starts at byte 17 (`{"traceEvents": [` is 17 bytes). A wrong byte inside is a syntax error.
    EXPECT_NE(error_of([] {
                  parse_kineto(R"({"traceEvents": [)", "t.json");
              }).find("t.json: the JSON is cut short: the input ends after 17 bytes, before the brackets that close the trace"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_kineto(R"({"traceEvents": [{"ph":"X","name":"k)", "t.json");
              }).find("the input ends after 36 bytes, inside the value that starts at byte 17"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_kineto(R"({"traceEvents": [}]})", "t.json"); }).find("t.json: not valid JSON (at byte 17"),
              std::string::npos);
    EXPECT_NE(error_of([] { parse_kineto(R"({"events": []})", "t.json"); }).find("no \"traceEvents\" array"), std::string::npos);
    EXPECT_NE(error_of([] { parse_kineto(R"({"traceEvents": []})", "t.json"); }).find("no GPU kernel"), std::string::npos);
    EXPECT_NE(error_of([] { parse_kineto("", "e.json"); }).find("e.json"), std::string::npos);
    // A duration of 1e300 µs would make the busy time infinite: refused, naming the event.
    EXPECT_NE(error_of([] {
                  parse_kineto(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k\nx","ts":1,"dur":1e300}]})", "t.json");
              }).find("traceEvents[0] ('k?x') has ts 1 and dur 1e+300 µs, out of range"),
              std::string::npos);
}

TEST(KinetoReader, ReadsGzipAndPlainFilesAlike) {
    const std::string gz = temp_path("small.json.gz"), plain = temp_path("small.json");
    write_gz(gz, kSmall);
    std::ofstream(plain) << kSmall;
    const Trace a = read_kineto(gz), b = read_kineto(plain);
    EXPECT_EQ(a.events, 5u);
    EXPECT_EQ(b.events, 5u);
    EXPECT_EQ(a.ops.size(), 1u);
    EXPECT_EQ(a.activities.size(), 1u);
    std::filesystem::remove(gz);
    std::filesystem::remove(plain);
}

TEST(KinetoReader, NamesTruncatedGzipEmptyAndMissingFiles) {
    const std::string gz = temp_path("trunc.json.gz");
    std::string big = kSmall;
    for (int i = 0; i < 2000; ++i)  // enough compressed bytes that half a file is a truncated stream
        big.insert(big.size() - 3, R"(,{"ph":"X","cat":"kernel","name":"k)" + std::to_string(i) + R"(","ts":1,"dur":1})");
    write_gz(gz, big);
    const auto full = std::filesystem::file_size(gz);
    std::filesystem::resize_file(gz, full / 2);
    const std::string err = error_of([&] { read_kineto(gz); });
    EXPECT_NE(err.find(gz), std::string::npos) << err;
    EXPECT_NE(err.find("truncated"), std::string::npos) << err;
    std::filesystem::resize_file(gz, 0);
    EXPECT_NE(error_of([&] { read_kineto(gz); }).find("is empty"), std::string::npos);
    std::filesystem::remove(gz);
    EXPECT_NE(error_of([&] { read_kineto(gz); }).find("no such file"), std::string::npos);
}

// Defect 9: GPU activities without a usable "ts" or "dur" were dropped silently. Now each is counted by
// its reason; a string holding a plain number ("ts": "120.5") is read as that number and counted.
TEST(KinetoReader, EventsWithoutUsableTimesAreCountedByReason) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "good", "ts": 100, "dur": 5, "args": {"device": 0}},
      {"ph": "X", "cat": "kernel", "name": "as_string", "ts": "120.5", "dur": " 4.5 ", "args": {"device": 0}},
      {"ph": "X", "cat": "kernel", "name": "no_ts", "dur": 5},
      {"ph": "X", "cat": "kernel", "name": "word_ts", "ts": "soon", "dur": 5},
      {"ph": "X", "cat": "gpu_memcpy", "name": "null_dur", "ts": 130, "dur": null},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 90},
      {"ph": "B", "cat": "kernel", "name": "begin_only", "ts": 140},
      {"ph": "X", "cat": "user_annotation", "name": "ignored_kind", "ts": 1}
    ]})",
                                 "s.json");
    ASSERT_EQ(t.activities.size(), 2u);
    EXPECT_DOUBLE_EQ(t.activities[1].ts, 120.5);
    EXPECT_DOUBLE_EQ(t.activities[1].dur, 4.5);
    EXPECT_EQ(t.string_times, 1u);
    const std::map<std::string, std::uint64_t> want{{"GPU activity without \"ts\"", 1},
                                                    {"GPU activity with a non-numeric \"ts\"", 1},
                                                    {"GPU activity with a non-numeric \"dur\"", 1},
                                                    {"CPU op without \"dur\"", 1},
                                                    {"GPU activity with phase \"B\" instead of \"X\"", 1}};
    EXPECT_EQ(t.skipped, want);
}

// Defect 2: a pipe and "-" (standard input) are read like files, gzip told apart by its magic bytes;
// before, a pipe was "is empty" (its size is 0). /dev/zero and /dev/urandom stop at the first bytes.
TEST(KinetoReader, ReadsPipesAndRefusesEndlessBinaryStreams) {
    const std::string gz = temp_path("pipe.json.gz");
    write_gz(gz, kSmall);
    for (const std::string& file : {gz}) {
        FILE* p = ::popen(("cat '" + file + "'").c_str(), "r");
        ASSERT_NE(p, nullptr);
        const Trace t = read_kineto("/dev/fd/" + std::to_string(::fileno(p)));
        EXPECT_EQ(t.events, 5u);
        ::pclose(p);
    }
    std::filesystem::remove(gz);
    EXPECT_NE(error_of([] { read_kineto("/dev/zero"); }).find("/dev/zero: binary data, not JSON"), std::string::npos);
    // The decompressed size is bounded (kMaxTraceBytes = 8 GiB; 1 MiB here): a gzip bomb of blanks stops.
    EXPECT_EQ(kMaxTraceBytes, 8589934592u);  // 8 x 2^30
    const std::string bomb = temp_path("bomb.json.gz");
    write_gz(bomb, "{\"traceEvents\": [" + std::string(4u << 20, ' '));
    EXPECT_LT(std::filesystem::file_size(bomb), 100000u);
    EXPECT_NE(error_of([&] { read_kineto(bomb, 1u << 20); }).find("decompresses to more than 1048576 bytes of JSON"),
              std::string::npos);
    std::filesystem::remove(bomb);
    const std::string r = error_of([] { read_kineto("/dev/urandom"); });
    EXPECT_TRUE(r.find("binary data, not JSON") != std::string::npos || r.find("gzip") != std::string::npos ||
                r.find("not valid JSON") != std::string::npos)
        << r;
}

// Three kernels, one per linking path: External id; correlation → launch with an External id;
// correlation → launch without one, inside an op on the same thread (the innermost one wins).
TEST(KinetoLink, ExternalIdThenCorrelationThenContainment) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"outer","pid":1,"tid":1,"ts":0,"dur":100,"args":{"External id":1}},
      {"ph":"X","cat":"cpu_op","name":"inner","pid":1,"tid":1,"ts":10,"dur":30,"args":{"External id":2}},
      {"ph":"X","cat":"cpu_op","name":"other_thread","pid":1,"tid":2,"ts":0,"dur":100,"args":{"External id":3}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":50,"dur":1,"args":{"External id":1,"correlation":11}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":1,"args":{"correlation":12}},
      {"ph":"X","cat":"kernel","name":"k_ext","ts":200,"dur":1,"args":{"External id":2}},
      {"ph":"X","cat":"kernel","name":"k_corr","ts":210,"dur":1,"args":{"correlation":11}},
      {"ph":"X","cat":"kernel","name":"k_contained","ts":220,"dur":1,"args":{"correlation":12}},
      {"ph":"X","cat":"kernel","name":"k_orphan","ts":230,"dur":1,"args":{"correlation":99}}
    ]})";
    const Trace t = parse_kineto(text, "link.json");
    const Links l = link_activities(t);
    ASSERT_EQ(l.op.size(), 4u);
    EXPECT_EQ(l.op[0], 1);  // inner
    EXPECT_EQ(l.how[0], LinkHow::external_id);
    EXPECT_EQ(l.op[1], 0);  // outer, named by the launch's External id
    EXPECT_EQ(l.how[1], LinkHow::correlation);
    EXPECT_EQ(l.op[2], 1);  // the launch at ts 20 lies in outer [0,100] and inner [10,40]: inner
    EXPECT_EQ(l.how[2], LinkHow::containment);
    EXPECT_EQ(l.op[3], -1);
    EXPECT_EQ(l.how[3], LinkHow::none);
    EXPECT_EQ(l.parent[1], 0);   // inner inside outer
    EXPECT_EQ(l.parent[2], -1);  // another thread
}

// A ROCm profiler path writes no correlation id: each launch and its kernel share an External id of the
// runtime's own numbering (30, 31 here), not the op's (7). Read as correlation ids, they pair each kernel
// with its launch, and the launch lies in the op in time. With one correlation id anywhere, or a launch id
// given twice, the trace is left as it is.
TEST(KinetoLink, SharedExternalIdsStandForMissingCorrelationIds) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":5,"dur":90,"args":{"External id":7}},
      {"ph":"X","cat":"cpu_op","name":"aten::ones","pid":1,"tid":1,"ts":200,"dur":10,"args":{"External id":30}},
      {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":2,"ts":0,"dur":100,"args":{"External id":31}},
      {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":100,"args":{"External id":30}},
      {"ph":"X","cat":"cuda_runtime","name":"hipExtModuleLaunchKernel","pid":1,"tid":1,"ts":10,"dur":1,"args":{"External id":30}},
      {"ph":"X","cat":"cuda_runtime","name":"hipExtModuleLaunchKernel","pid":1,"tid":1,"ts":20,"dur":1,"args":{"External id":31}},
      {"ph":"X","cat":"kernel","name":"Cijk_GSU2","pid":2,"tid":0,"ts":300,"dur":5,"args":{"External id":30}},
      {"ph":"X","cat":"kernel","name":"Cijk_B_PostGSU2","pid":2,"tid":0,"ts":306,"dur":1,"args":{"External id":31}}
    ]})";
    for (const ReadPasses passes : {ReadPasses::one, ReadPasses::two}) {
        Trace t = parse_kineto(text, "rocm.json", passes);
        EXPECT_EQ(t.correlated_by_external_id, 2u);
        drop_idle_ops(t);
        const Links l = link_activities(t);
        ASSERT_EQ(l.op.size(), 2u);
        // Both kernels belong to aten::mm, the innermost op of the launches' thread holding them in time. The ids
        // 30 and 31 also number ops (aten::ones later, aten::linear around aten::mm, aten::item spanning the launch
        // on another thread): the runtime's numbers name none of them (review: the kernel went to aten::item).
        for (std::size_t i = 0; i < 2; ++i) {
            ASSERT_GE(l.op[i], 0);
            EXPECT_EQ(t.names[t.ops[static_cast<std::size_t>(l.op[i])].name], "aten::mm");
        }
    }
    // The second launch's args, edited below.
    const std::string launch = R"("ts":20,"dur":1,"args":{"External id":31})";
    const auto with_launch_args = [&](const std::string& args) {
        std::string edited = text;
        return edited.replace(edited.find(launch), launch.size(), args);
    };
    // One correlation id in the trace: the ids are the ops' (Kineto's usual form), nothing is changed.
    EXPECT_EQ(parse_kineto(with_launch_args(R"("ts":20,"dur":1,"args":{"External id":31,"correlation":5})"), "c.json")
                  .correlated_by_external_id,
              0u);
    // A launch id given twice cannot pair one kernel with one launch: nothing is changed.
    EXPECT_EQ(parse_kineto(with_launch_args(R"("ts":20,"dur":1,"args":{"External id":30})"), "t.json").correlated_by_external_id,
              0u);
}

// Ids given more than once (the id maps are sorted arrays, docs/ingest.md "Performance"): among ops
// sharing an External id the latest start wins, the later in the file on equal starts; among launches
// sharing a correlation id the first in the file names the op.
TEST(KinetoLink, RepeatedIdsKeepTheirRule) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":0,"dur":100,"args":{"External id":5}},
      {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":10,"dur":10,"args":{"External id":5}},
      {"ph":"X","cat":"cpu_op","name":"c","pid":1,"tid":2,"ts":5,"dur":10,"args":{"External id":5}},
      {"ph":"X","cat":"cpu_op","name":"d","pid":1,"tid":3,"ts":30,"dur":10,"args":{"External id":6}},
      {"ph":"X","cat":"cpu_op","name":"e","pid":1,"tid":4,"ts":30,"dur":10,"args":{"External id":6}},
      {"ph":"X","cat":"cpu_op","name":"f","pid":1,"tid":5,"ts":50,"dur":10,"args":{"External id":7}},
      {"ph":"X","cat":"cpu_op","name":"g","pid":1,"tid":5,"ts":70,"dur":10,"args":{"External id":8}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":5,"ts":52,"dur":1,"args":{"External id":7,"correlation":40}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":5,"ts":72,"dur":1,"args":{"External id":8,"correlation":40}},
      {"ph":"X","cat":"kernel","name":"k5","ts":200,"dur":1,"args":{"External id":5}},
      {"ph":"X","cat":"kernel","name":"k6","ts":210,"dur":1,"args":{"External id":6}},
      {"ph":"X","cat":"kernel","name":"k40","ts":220,"dur":1,"args":{"correlation":40}}
    ]})";
    const Trace t = parse_kineto(text, "repeated.json");
    const Links l = link_activities(t);
    ASSERT_EQ(l.op.size(), 3u);
    EXPECT_EQ(l.op[0], 1);  // b (ts 10) over a (ts 0) and c (ts 5)
    EXPECT_EQ(l.op[1], 4);  // d and e both start at 30: e, the later in the file
    EXPECT_EQ(l.op[2], 5);  // correlation 40: the first launch (External id 7, op f)
    EXPECT_EQ(l.how[2], LinkHow::correlation);
}

// PyTorch 1.8/1.9 traces (pytorch/kineto tb_plugin/test/gpu_metrics_input.json; the corpus file
// torch-trace/kineto_tbplugin_v100_torch19_old_categories_subset.json): the GPU list is named
// "computeProperties" and the GPU and runtime events spell "external id" in lower case. The GPU is
// read, and the kernel links to its op by that External id: here the launch (ts 50) lies inside
// "ProfilerStep#1" (ts 0..100) on the same thread, so containment alone would pick the step, not
// "aten::add_" (thread "2"). Steps are "Operator" events in these traces and still bound the window.
TEST(KinetoLink, Torch19SpellingsOfTheGpuListAndExternalId) {
    const std::string text = R"({"schemaVersion": 1,
      "computeProperties": [{"id": 0, "name": "Tesla V100-DGXS-32GB", "totalGlobalMem": 34084028416}],
      "traceEvents": [
      {"ph":"X","cat":"Operator","name":"ProfilerStep#1","pid":1,"tid":"1","ts":0,"dur":100,"args":{"Device":1,"External id":60}},
      {"ph":"X","cat":"Operator","name":"aten::add_","pid":1,"tid":"2","ts":0,"dur":100,"args":{"Device":1,"External id":61}},
      {"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":1,"tid":"1","ts":50,"dur":15,
       "args":{"cbid":211,"correlation":369,"external id":61,"external ts":0}},
      {"ph":"X","cat":"Kernel","name":"k","pid":0,"tid":"stream 7","ts":70,"dur":2,
       "args":{"queued":0,"device":0,"context":1,"stream":7,"correlation":369,"external id":61}}
    ]})";
    const Trace t = parse_kineto(text, "torch19.json");
    EXPECT_EQ(trace_gpu_name(t), "Tesla V100-DGXS-32GB");
    // Its steps are "Operator" events too (here the outer op spans the step): ProfilerStep#1, [0, 100].
    ASSERT_EQ(t.steps.size(), 1u);
    EXPECT_EQ(t.steps[0].name, "ProfilerStep#1");
    EXPECT_EQ(t.steps[0].dur, 100);
    const Links l = link_activities(t);
    ASSERT_EQ(l.op.size(), 1u);
    EXPECT_EQ(l.op[0], 1);  // aten::add_, by the kernel's own "external id"
    EXPECT_EQ(l.how[0], LinkHow::external_id);
}

// An op kept only by its External id keeps the ops enclosing it: the kernel's op aten::addmm has no
// shapes, so the costing climbs to aten::linear (x [8, 16], W [32, 16], b [32]: M=8 N=32 K=16, FLOPs
// 2·8·32·16 = 8192), which holds no launch (the trace has no runtime events) and whose id nothing carries.
TEST(KinetoLink, TheOpsEnclosingAnOpKeptByItsIdAreKept) {
    const std::string text = R"({"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":100,
       "args":{"External id":1,"Input Dims":[[8,16],[32,16],[32]],"Input type":["float","float","float"]}},
      {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":10,"dur":50,"args":{"External id":2}},
      {"ph":"X","cat":"kernel","name":"sm80_gemm","pid":0,"tid":7,"ts":300,"dur":5,
       "args":{"device":0,"stream":7,"External id":2,"correlation":11}}]})";
    const Trace full = parse_kineto(text, "ancestors.json");
    Trace t = full;
    EXPECT_EQ(drop_idle_ops(t), 0u);
    const Summary before = summarize(full), after = summarize(t);
    ASSERT_EQ(after.groups.size(), 1u);
    EXPECT_EQ(after.groups[0].what.cost.flops, 8192u);
    EXPECT_EQ(before.groups[0].what.cost.flops, after.groups[0].what.cost.flops);
    EXPECT_EQ(after.uncosted_kernels, 0u);
}

// Another backend's runtime calls (libkineto's <backend>_runtime / _driver categories: an Intel GPU's
// "xpu_runtime", a PrivateUse1 device's "privateuse1_driver") are launch records as CUDA's are: the
// kernels link by correlation id to the op holding their launch. A "cuda_sync" event is not one.
TEST(KinetoLink, AnyBackendsRuntimeCallsAreLaunchRecords) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":100,"args":{}},
      {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":200,"dur":100,"args":{}},
      {"ph":"X","cat":"xpu_runtime","name":"piKernelLaunch","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
      {"ph":"X","cat":"privateuse1_driver","name":"launch","pid":1,"tid":1,"ts":210,"dur":5,"args":{"correlation":2}},
      {"ph":"X","cat":"cuda_sync","name":"Stream Sync","pid":1,"tid":1,"ts":250,"dur":5,"args":{"correlation":3}},
      {"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":400,"dur":2,"args":{"device":0,"stream":7,"correlation":1}},
      {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":410,"dur":2,"args":{"device":0,"stream":7,"correlation":2}}
    ]})";
    const Trace t = parse_kineto(text, "xpu.json");
    EXPECT_EQ(t.launches.size(), 2u);  // the two runtime calls; not the sync
    const Links l = link_activities(t);
    ASSERT_EQ(l.op.size(), 2u);
    EXPECT_EQ(l.op[0], 0);  // aten::mm [0, 100] holds the launch at 10
    EXPECT_EQ(l.op[1], 1);  // aten::add [200, 300] holds the launch at 210
    EXPECT_EQ(l.how[0], LinkHow::containment);
}

// An External id that names an op not holding the launch in time is not the ops' id: passed over, the
// kernel is linked by its launch (here by containment), and counted once however many ids were passed.
TEST(KinetoLink, ExternalIdOfAnOpNotHoldingTheLaunchIsPassedOver) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::early","pid":1,"tid":1,"ts":0,"dur":10,"args":{"External id":7}},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":20,"args":{"External id":8}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":25,"dur":5,
       "args":{"correlation":7,"External id":7}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":50,"dur":2,
       "args":{"device":0,"stream":7,"correlation":7,"External id":7}}
    ]})";
    const Trace t = parse_kineto(text, "ids.json");
    const Links l = link_activities(t);
    ASSERT_EQ(l.op.size(), 1u);
    EXPECT_EQ(l.op[0], 1);  // aten::mm [20, 40] holds the launch at 25; aten::early [0, 10] does not
    EXPECT_EQ(l.how[0], LinkHow::containment);
    EXPECT_EQ(l.ids_not_enclosing, 1u);  // the kernel's id and its launch's both passed over: one activity
}

// Correlation ids are unique only within a process: a trace merged from two ranks reuses them. Counted: the ids two
// or more processes launched. Here id 5 is launched by pid 100 and pid 200 (1 id); id 6 twice by pid 100 on two
// threads (one process: not counted); id 7 once. 1 in all.
TEST(KinetoLink, CorrelationIdsLaunchedByTwoProcessesAreCounted) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":10,"dur":1,"args":{"correlation":5}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":200,"tid":1,"ts":12,"dur":1,"args":{"correlation":5}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":1,"ts":20,"dur":1,"args":{"correlation":6}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":2,"ts":22,"dur":1,"args":{"correlation":6}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":200,"tid":1,"ts":30,"dur":1,"args":{"correlation":7}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":40,"dur":2,"args":{"device":0,"stream":7,"correlation":5}},
      {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":41,"dur":2,"args":{"device":1,"stream":7,"correlation":5}},
      {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":50,"dur":2,"args":{"device":0,"stream":7,"correlation":6}},
      {"ph":"X","cat":"kernel","name":"k","pid":1,"tid":7,"ts":60,"dur":2,"args":{"device":1,"stream":7,"correlation":7}}
    ]})";
    const Trace t = parse_kineto(text, "merged.json");
    ASSERT_EQ(t.launches.size(), 5u);
    EXPECT_EQ(link_activities(t).correlation_ids_across_processes, 1u);
}

// An unlinked kernel's reason says which case it is: its launch record lies in no CPU op, or it has
// no launch record at all (queued before the profiler).
TEST(KinetoLink, UnlinkedKernelsSayWhetherTheyHadALaunchRecord) {
    const std::string text = R"({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":20,"args":{"External id":8}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":60,"dur":5,"args":{"correlation":3}},
      {"ph":"X","cat":"kernel","name":"graph_kernel","pid":0,"tid":7,"ts":70,"dur":2,
       "args":{"device":0,"stream":7,"correlation":3}},
      {"ph":"X","cat":"kernel","name":"early_kernel","pid":0,"tid":7,"ts":1,"dur":2,
       "args":{"device":0,"stream":7,"correlation":1}}
    ]})";
    const Trace t = parse_kineto(text, "unlinked.json");
    const Links l = link_activities(t);
    ASSERT_EQ(l.op.size(), 2u);
    EXPECT_EQ(l.op[0], -1);
    EXPECT_EQ(l.op[1], -1);
    EXPECT_EQ(l.launch_outside_ops, std::vector<std::size_t>{0});  // the graph launch at 60 is outside aten::mm [20, 40]
    const Summary s = summarize(t, l);
    std::map<std::string, std::string> reason;
    for (const KernelRow& k : s.kernels)
        reason[k.name] = k.reason;
    EXPECT_EQ(reason["graph_kernel"].rfind("no CPU op linked (its launch record lies in no CPU op", 0), 0u)
        << reason["graph_kernel"];
    EXPECT_EQ(reason["early_kernel"], "no CPU op linked (no launch record: queued before the profiler started)");
}

// A memcpy without a "bytes" arg and without an op says it the way an unlinked kernel does, then that it
// has no byte count of its own.
TEST(KinetoLink, UnlinkedCopiesSayItAsKernelsDo) {
    const Trace t = parse_kineto(R"json({"traceEvents": [
      {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":7,"ts":1,"dur":2,
       "args":{"device":0,"stream":7,"correlation":1}}
    ]})json",
                                 "unlinked_copy.json");
    const Summary s = summarize(t);
    ASSERT_EQ(s.kernels.size(), 1u);
    EXPECT_EQ(s.kernels[0].reason, "no CPU op linked (no launch record: queued before the profiler started); no \"bytes\" arg");
}

// The ops no activity can be charged to are dropped, and the links are the same. Kept: aten::linear
// [0, 100] and aten::mm [10, 20] hold the launch at 15; aten::copy_ on another thread, whose id (4) the
// memcpy carries; aten::add_ [200, 210], whose end is the launch at 210 (bounds included). Dropped:
// aten::empty [30, 40] (id 3: no launch or activity carries it, no launch in it) and aten::view
// [50, 60] (no id); 6 ops − 4 = 2.
TEST(KinetoLink, OpsNoActivityCanBeChargedToAreDropped) {
    const std::string text = R"J({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":100,"args":{"External id":1}},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":10,"args":{"External id":2}},
      {"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":30,"dur":10,"args":{"External id":3}},
      {"ph":"X","cat":"cpu_op","name":"aten::view","pid":1,"tid":1,"ts":50,"dur":10,"args":{}},
      {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":2,"ts":0,"dur":100,"args":{"External id":4}},
      {"ph":"X","cat":"cpu_op","name":"aten::add_","pid":1,"tid":1,"ts":200,"dur":10,"args":{"External id":5}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":15,"dur":2,"args":{"correlation":11}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":210,"dur":2,"args":{"correlation":12}},
      {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":300,"dur":2,"args":{"device":0,"stream":7,"correlation":11}},
      {"ph":"X","cat":"kernel","name":"add","pid":0,"tid":7,"ts":310,"dur":2,"args":{"device":0,"stream":7,"correlation":12}},
      {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":8,"ts":320,"dur":2,
       "args":{"device":0,"stream":8,"External id":4}}
    ]})J";
    const Trace full = parse_kineto(text, "drop.json");
    Trace t = full;
    EXPECT_EQ(drop_idle_ops(t), 2u);
    std::vector<std::string> kept;
    for (const CpuOp& o : t.ops)
        kept.push_back(t.names[o.name]);
    EXPECT_EQ(kept, (std::vector<std::string>{"aten::linear", "aten::mm", "aten::copy_", "aten::add_"}));
    const Links before = link_activities(full), after = link_activities(t);
    ASSERT_EQ(after.op.size(), 3u);
    for (std::size_t a = 0; a < 3; ++a) {
        ASSERT_GE(after.op[a], 0) << a;
        EXPECT_EQ(t.names[t.ops[static_cast<std::size_t>(after.op[a])].name],
                  full.names[full.ops[static_cast<std::size_t>(before.op[a])].name])
            << a;
        EXPECT_EQ(after.how[a], before.how[a]) << a;
    }
}

// Two reads (what `ingest torch-trace` does with a plain file): the first keeps all but the CPU ops, the
// second keeps only the ops a launch or activity can be charged to; every op read is still counted. Kept:
// aten::linear [0, 100] and aten::mm [10, 20] hold the launch at 15, aten::copy_ (tid 2) its memcpy's
// launch at 5. Not kept: aten::empty [30, 40] (no launch in it), aten::item [50, 60], which holds only
// a cudaStreamSynchronize (correlation 13: no activity carries it, so it is not a launch the linking can
// find). ops_read = 5; Input Dims on aten::linear only.
TEST(KinetoReader, TwoReadsKeepOnlyTheOpsThatLaunchWork) {
    const std::string text = R"J({"traceEvents": [
      {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":100,
       "args":{"External id":1,"Input Dims":[[8,16],[32,16]],"Input type":["float","float"]}},
      {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":10,"args":{"External id":2}},
      {"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":30,"dur":10,"args":{"External id":3}},
      {"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":3,"ts":50,"dur":10,"args":{"External id":6}},
      {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":2,"ts":0,"dur":100,"args":{"External id":4}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":15,"dur":2,
       "args":{"correlation":11,"External id":2}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":2,"ts":5,"dur":2,
       "args":{"correlation":14,"External id":4}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":3,"ts":52,"dur":2,
       "args":{"correlation":13,"External id":6}},
      {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":300,"dur":2,"args":{"device":0,"stream":7,"correlation":11}},
      {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD (Device -> Device)","pid":0,"tid":8,"ts":320,"dur":2,
       "args":{"device":0,"stream":8,"correlation":14,"External id":4}}
    ]})J";
    const Trace two = parse_kineto(text, "two.json", ReadPasses::two);
    Trace one = parse_kineto(text, "one.json");
    EXPECT_EQ(two.ops_read, 5u);
    EXPECT_EQ(one.ops_read, 5u);
    EXPECT_TRUE(two.ops_have_dims);
    EXPECT_EQ(two.launches.size(), 2u);  // the synchronisation is not kept
    std::vector<std::string> kept;
    for (const CpuOp& o : two.ops)
        kept.push_back(two.names[o.name]);
    EXPECT_EQ(kept, (std::vector<std::string>{"aten::linear", "aten::mm", "aten::copy_"}));
    // One read then drop_idle_ops keeps the same ops, with the same names and threads numbered alike.
    EXPECT_EQ(drop_idle_ops(one), 2u);
    ASSERT_EQ(one.ops.size(), two.ops.size());
    for (std::size_t i = 0; i < one.ops.size(); ++i) {
        EXPECT_EQ(one.ops[i].name, two.ops[i].name) << i;
        EXPECT_EQ(one.ops[i].thread, two.ops[i].thread) << i;
        EXPECT_EQ(one.ops[i].dims.size(), two.ops[i].dims.size()) << i;
    }
    EXPECT_EQ(one.names, two.names);
    EXPECT_EQ(one.threads, two.threads);
    const Links a = link_activities(one), b = link_activities(two);
    EXPECT_EQ(a.op, b.op);
}

// An activity whose External id no launch carries (its launch is not in the trace) may be charged by id
// to an op that holds no launch, and the costing climbs to the ops enclosing it: the second read then keeps
// every op, so the trace of TheOpsEnclosingAnOpKeptByItsIdAreKept is costed alike (FLOPs 2·8·32·16 = 8192).
TEST(KinetoReader, TwoReadsKeepEveryOpWhenAnActivitysIdHasNoLaunch) {
    const std::string text = R"({"traceEvents":[
      {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":0,"dur":100,
       "args":{"External id":1,"Input Dims":[[8,16],[32,16],[32]],"Input type":["float","float","float"]}},
      {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":10,"dur":50,"args":{"External id":2}},
      {"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":70,"dur":5,"args":{"External id":3}},
      {"ph":"X","cat":"kernel","name":"sm80_gemm","pid":0,"tid":7,"ts":300,"dur":5,
       "args":{"device":0,"stream":7,"External id":2,"correlation":11}}]})";
    Trace t = parse_kineto(text, "ancestors.json", ReadPasses::two);
    EXPECT_EQ(t.ops.size(), 3u);
    EXPECT_EQ(drop_idle_ops(t), 1u);  // aten::empty
    const Summary s = summarize(t);
    ASSERT_EQ(s.groups.size(), 1u);
    EXPECT_EQ(s.groups[0].what.cost.flops, 8192u);
}

// A trace whose runtime calls launch work but which holds no activity: the records were lost, not
// unprofiled (runtime calls exist only with the CUDA activity on). One cudaLaunchKernel of two calls.
TEST(KinetoReader, LaunchesWithoutActivitiesSayTheRecordsWereLost) {
    const std::string text = R"({"traceEvents":[
      {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":2,"args":{"correlation":5}},
      {"ph":"X","cat":"cuda_runtime","name":"cudaGetDevice","pid":1,"tid":1,"ts":20,"dur":1,"args":{"correlation":6}}]})";
    const std::string why = error_of([&] { (void)parse_kineto(text, "lost.json"); });
    EXPECT_NE(why.find("(2 GPU runtime calls, 1 of them launches, memcpys or memsets)"), std::string::npos) << why;
    EXPECT_NE(why.find("the activity records were lost"), std::string::npos) << why;
}

// A JSON bool or null where "Concrete Inputs" has a string reads as PyTorch writes it ("True"/"False", None
// as ""), a number as its JSON text: SDPA's is_causal written `true` is causal. B 2, H 16, S 1024, D 64:
// pairs = 1024·1024 − 1024·1023/2 = 1048576 − 523776 = 524800; FLOPs 4·B·H·D·pairs = 4·2·16·64·524800 =
// 4,299,161,600 (the old reading, "true", was non-causal: 4·2·16·64·1024·1024 = 8,589,934,592).
TEST(KinetoReader, JsonBoolsAndNullsInConcreteInputsReadAsPyTorchWritesThem) {
    const Trace t = parse_kineto(R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::scaled_dot_product_attention", "pid": 1, "tid": 1, "ts": 100, "dur": 50,
       "args": {"External id": 1, "Input Dims": [[2, 16, 1024, 64], [2, 16, 1024, 64], [2, 16, 1024, 64], [], [], [], [], []],
                "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "", "Scalar", "Scalar", "", "Scalar"],
                "Concrete Inputs": ["", "", "", "", 0.0, true, null, false]}},
      {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": 110, "dur": 20,
       "args": {"External id": 1, "device": 0, "stream": 7}}
    ]})",
                                 "sdpa.json");
    ASSERT_EQ(t.ops.size(), 1u);
    const std::vector<std::string> concrete(t.ops[0].concrete.begin(), t.ops[0].concrete.end());
    EXPECT_EQ(concrete, (std::vector<std::string>{"", "", "", "", "0.0", "True", "", "False"}));
    const auto c = cost_cpu_op("aten::scaled_dot_product_attention", t.ops[0]);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cost.flops, 4299161600u);
}

}  // namespace
