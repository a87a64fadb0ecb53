// End-to-end: `bwacct ingest torch-trace` on the real traces in tests/data/kineto/ and on files that
// are not traces (exit 2, one line on stderr naming the file, nothing on stdout).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <string>

#include "harness.h"

namespace {

using namespace bwacct_test;

std::string data(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/kineto/" + name; }
const std::string kBert = "kineto_h100_gaunernst_bert-small-uncased__1016001.redacted.json";
const std::string kDdp = "kineto_a100_ddp2gpu_nccl_collectives_hta.json.gz";

void expect_bad_input(const std::vector<std::string>& args, const std::string& what) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    EXPECT_NE(r.err.find(what), std::string::npos) << "want '" << what << "'\n" << report(r);
}

double section_us(const json& doc, const std::string& section, const std::string& key_col, const std::string& key,
                  const std::string& col) {
    for (const json& row : doc["sections"][section]["rows"])
        if (row[key_col] == key)
            return row[col].get<double>();
    ADD_FAILURE() << section << " has no row " << key;
    return 0;
}

TEST(IngestTorchCli, BertOnTheTracesOwnGpu) {
    // No --gpu: deviceProperties "NVIDIA H100 80GB HBM3" matches h100-sxm's "H100 80GB HBM3".
    const json doc = run_json({"ingest", "torch-trace", data(kBert), "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    EXPECT_EQ(doc["tool"], "torch-trace");
    EXPECT_EQ(doc["gpus"], json::array({"h100-sxm"}));
    ASSERT_FALSE(doc["records"].empty());
    // The largest group by total kernel time: addmm M=141 N=512 K=512 with bias, 17 calls, 98.718 µs
    // (TraceLens's Kernel Time sum for that row); 814080 B per call (test_kineto_fixtures.cpp),
    // time per call 98.718 / 17 = 5.80694 µs, implied bandwidth 814080 / 5.80694e-6 / 1e9 = 140.19 GB/s.
    const json& top = doc["records"][0];
    EXPECT_EQ(top["source"], "ingested");
    EXPECT_EQ(top["params"]["torch_op"], "aten::addmm");
    EXPECT_EQ(top["params"]["m"], 141);
    EXPECT_EQ(top["params"]["calls"], 17);
    EXPECT_EQ(num_u(top, "bytes"), 814080u);
    expect_rel(num_d(top, "time_us"), 98.718 / 17, 1e-6, "time per call");
    const json* h100 = gpu_entry(top, "h100-sxm");
    ASSERT_NE(h100, nullptr);
    expect_rel(num_d(*h100, "implied_bw_GBps"), 814080 / (98.718 / 17) / 1e3, 1e-6, "implied bandwidth");
    // The parts add up to the busy time: categories, roofs (costed + unaccounted), busy + idle = span.
    const double busy = section_us(doc, "gpu_time", "what", "busy", "us");
    double by_category = 0, by_roof = 0;
    for (const json& row : doc["sections"]["by_category"]["rows"])
        by_category += row["busy_us"].get<double>();
    for (const json& row : doc["sections"]["by_roof"]["rows"])
        by_roof += row["busy_us"].get<double>();
    EXPECT_NEAR(by_category, busy, 1e-9 * busy);
    EXPECT_NEAR(by_roof, busy, 1e-9 * busy);
    EXPECT_NEAR(busy + section_us(doc, "gpu_time", "what", "idle", "us"), section_us(doc, "gpu_time", "what", "span", "us"),
                1e-6);
    expect_finite_json_text(run_bwacct({"ingest", "torch-trace", data(kBert), "--format", "json"}).out, "json");
}

TEST(IngestTorchCli, TopLimitsRecordsAndKernels) {
    const json doc = run_json({"ingest", "torch-trace", data(kBert), "--gpu", "h100-sxm", "--top", "3", "--format", "json"});
    EXPECT_EQ(doc["records"].size(), 3u);
    EXPECT_EQ(doc["sections"]["kernels"]["rows"].size(), 3u);
    const RunResult table = run_bwacct({"ingest", "torch-trace", data(kBert), "--gpu", "h100-sxm", "--top", "5"});
    EXPECT_TRUE(succeeded(table)) << report(table);
    EXPECT_NE(table.out.find("GPU time by category"), std::string::npos);
}

TEST(IngestTorchCli, DdpTraceOnMetasA100BoardGetsItsRoofsThenCostsTheAllReduces) {
    // 'NVIDIA A100-PG509-200' is Meta's board name for PCI 20B0 subsystem 10DE:1450, the A100-SXM4-40GB's device
    // ID (NVIDIA's driver README table): matched to a100-sxm-40gb (it used to be read without a GPU), so every
    // record has its roofs; the busy time is the same as with another GPU given.
    const json bare = run_json({"ingest", "torch-trace", data(kDdp), "--format", "json"});
    EXPECT_EQ(bare["gpus"], json::parse(R"(["a100-sxm-40gb"])"));
    for (const json& r : bare["records"])
        EXPECT_FALSE(r["gpus"].empty()) << r.dump();
    const json doc = run_json({"ingest", "torch-trace", data(kDdp), "--gpu", "a100-sxm-80gb", "--format", "json"});
    int allreduce = 0;
    for (const json& r : doc["records"]) {
        if (r["params"]["torch_op"] != "nccl:allreduce")
            continue;
        ++allreduce;
        EXPECT_EQ(r["params"]["ranks"], 2);
        EXPECT_EQ(r["params"]["calls"], 3);
        // size = In msg nelems · 4 B (Float)
        EXPECT_EQ(r["params"]["size_bytes"].get<u64>(), r["params"]["in_nelems"].get<u64>() * 4);
    }
    EXPECT_EQ(allreduce, 5);
    EXPECT_EQ(bare["records"].size(), doc["records"].size());
    EXPECT_EQ(bare["sections"]["gpu_time"]["rows"].dump(), doc["sections"]["gpu_time"]["rows"].dump());
}

TEST(IngestTorchCli, FilesThatAreNotTracesExitTwoNamingTheFile) {
    TempDir dir;
    const std::string csv = data("kineto_h100_gaunernst_bert-small-uncased__1016001_TraceLens_GEMM.csv");
    expect_bad_input({"ingest", "torch-trace", csv, "--gpu", "h100-sxm"}, csv + ": not valid JSON");

    const std::string empty = dir.file("empty.json");
    write_text(empty, "");
    expect_bad_input({"ingest", "torch-trace", empty, "--gpu", "h100-sxm"}, empty + ": is empty");

    const std::string binary = dir.file("blob.bin");
    write_text(binary, std::string("\x7f"
                                   "ELF\x02\x01\x01\x00\x00\x00\xff\xfe",
                                   12));
    expect_bad_input({"ingest", "torch-trace", binary, "--gpu", "h100-sxm"}, binary + ": binary data, not JSON");

    const std::string no_events = dir.file("no_events.json");
    write_text(no_events, R"({"schemaVersion": 1, "deviceProperties": []})");
    expect_bad_input({"ingest", "torch-trace", no_events, "--gpu", "h100-sxm"}, "no \"traceEvents\" array");

    // The first half of the real gzip file: a truncated stream.
    const std::string whole = read_text(data(kDdp));
    const std::string half = dir.file("half.json.gz");
    write_text(half, whole.substr(0, whole.size() / 2));
    expect_bad_input({"ingest", "torch-trace", half, "--gpu", "a100-sxm-80gb"}, half + ": truncated or corrupt gzip");

    expect_bad_input({"ingest", "torch-trace", dir.file("missing.json"), "--gpu", "h100-sxm"}, "no such file");
}

// Defect 15: kernel names were cut to 96 characters in JSON and two kernels sharing those 96 became two
// rows with the same name. Machine output carries the full names (one row each); only the table
// shortens them. Defect 9: the kernel without "ts" is counted in skipped_events and warned about.
TEST(IngestTorchCli, FullKernelNamesInMachineOutputShortInTheTable) {
    TempDir dir;
    const std::string stem =
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<" + std::string(80, 'x');
    const std::string k1 = stem + "_first>(int, Fn)", k2 = stem + "_second>(int, Fn)";
    const std::string trace = dir.file("long.json");
    write_text(trace, R"({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": ")" +
                          k1 + R"(", "ts": 100, "dur": 5, "args": {"device": 0}},
      {"ph": "X", "cat": "kernel", "name": ")" +
                          k2 + R"(", "ts": 110, "dur": 7, "args": {"device": 0}},
      {"ph": "X", "cat": "kernel", "name": ")" +
                          k2 + R"(", "ts": 120, "dur": 7, "args": {"device": 0}},
      {"ph": "X", "cat": "kernel", "name": "lost", "dur": 3, "args": {"device": 0}}
    ]})");
    const json doc = run_json({"ingest", "torch-trace", trace, "--gpu", "h100-sxm", "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    const json& rows = doc["sections"]["kernels"]["rows"];
    ASSERT_EQ(rows.size(), 2u);
    // By total time: k2 2 x 7 = 14 µs, then k1 5 µs.
    EXPECT_EQ(rows[0]["kernel"], k2);
    EXPECT_EQ(rows[0]["count"], 2);
    EXPECT_EQ(rows[1]["kernel"], k1);
    const json& skipped = doc["sections"]["skipped_events"]["rows"];
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_EQ(skipped[0]["reason"], "GPU activity without \"ts\"");
    EXPECT_EQ(skipped[0]["count"], 1);
    ASSERT_EQ(doc["warnings"].size(), 1u);
    EXPECT_NE(doc["warnings"][0].get<std::string>().find("1 trace events skipped"), std::string::npos);
    // CSV carries them whole too; the table view shows at most 96 characters per name.
    const RunResult csv = run_bwacct({"ingest", "torch-trace", trace, "--gpu", "h100-sxm", "--format", "csv"});
    EXPECT_EQ(csv.status, 0) << report(csv);
    EXPECT_NE(csv.out.find(k1), std::string::npos) << csv.out;
    const RunResult table = run_bwacct({"ingest", "torch-trace", trace, "--gpu", "h100-sxm"});
    EXPECT_EQ(table.status, 0) << report(table);
    EXPECT_EQ(table.out.find(k1), std::string::npos);
    EXPECT_NE(table.out.find(stem.substr(5, 90)), std::string::npos) << table.out;
    EXPECT_NE(table.err.find("skipped"), std::string::npos) << table.err;
}

TEST(IngestTorchCli, EagerAttentionGroupedBesideTheKernels) {
    // tests/data/kineto/synthetic_eager_attention.json: two bf16 matmul → div → softmax → matmul chains,
    // scores [2,4,128,128], D 64 (hand arithmetic in tests/unit/test_kineto_eager_attention.cpp).
    const json doc = run_json({"ingest", "torch-trace", data("synthetic_eager_attention.json"), "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    const json& rows = doc["sections"]["eager_attention"]["rows"];
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0]["shape"], "batch=2x4 Sq=128 Sk=128 D=64");
    EXPECT_EQ(rows[0]["calls"], 2);
    EXPECT_EQ(rows[0]["flops"], 33554432);  // 4·2·4·128·128·64
    // 30 µs of kernels per call: 33554432 FLOP / 30 µs = 1.1185 TFLOP/s; (917504 + 655360) B / 30 µs = 52.43 GB/s.
    EXPECT_NEAR(rows[0]["tflops"].get<double>(), 1.1185, 1e-3);
    EXPECT_NEAR(rows[0]["bw_GBps"].get<double>(), 52.429, 1e-2);
    // The kernels keep their own rows: the bmm kernels are still GEMMs.
    EXPECT_GT(section_us(doc, "by_category", "category", "gemm", "kernel_us"), 0);
    // Traces without such chains have no section.
    const json ddp = run_json({"ingest", "torch-trace", data(kDdp), "--gpu", "a100-sxm-40gb", "--format", "json"});
    EXPECT_FALSE(ddp["sections"].contains("eager_attention"));
}

// A trace profiled without the GPU activities holds no kernel to account: refused in one line that says
// what the trace shows of the GPU (runtime calls, the deviceProperties name) and how to profile it, instead
// of "expected a trace of a CUDA run" for what was a CUDA run.
TEST(IngestTorchCli, TraceWithoutGpuActivityNamesTheGpuAndTheProfilerSetting) {
    auto corpus = [](const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/corpus/torch-trace/" + name; };
    const std::string fix = "activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]";
    // Seven cuda_runtime calls (cudaGetDeviceCount, cudaStreamIsCapturing, cudaDeviceSynchronize, ...: none
    // queues work) and an A100 in deviceProperties, no kernel: the CUDA activity was on (runtime calls are
    // CUPTI's), the window ran no GPU work.
    const std::string runtime = corpus("particle_transformer_a100_pcie_40gb_runtime_calls_no_gpu_activity.json");
    expect_bad_input({"ingest", "torch-trace", runtime},
                     "a GPU was present (7 GPU runtime calls, none launching a kernel, memcpy or memset; "
                     "deviceProperties names 'NVIDIA A100-PCIE-40GB') and profiled, but the window ran no GPU work");
    expect_bad_input({"ingest", "torch-trace", runtime, "--gpu", "a100-sxm-40gb"}, "profile steps that run on the GPU");
    // CPU activity only on a machine with an RTX 4080 SUPER: no runtime call, the GPU in deviceProperties.
    expect_bad_input({"ingest", "torch-trace", corpus("cuda_guide_rtx4080_super_cpu_activity_only.json")},
                     "a GPU was present (deviceProperties names 'NVIDIA GeForce RTX 4080 SUPER')");
    // A CPU-only run (no deviceProperties, no runtime call): the same remedy.
    expect_bad_input({"ingest", "torch-trace", corpus("unsloth_puzzles_cpu_only_macos_trace_subset.json")},
                     "expected a trace of a GPU run; profile with " + fix);
}

// The H100 Llama training trace, read once by the two tests below; the record of `torch_op` (null if none).
json llama_train_record(const std::string& torch_op) {
    static const json doc = [] {
        const std::string trace =
            std::string(BWACCT_TEST_DATA) + "/corpus/torch-trace/h100_bwacct_make_traces_llama_train_bf16.json.gz";
        const RunResult r = run_bwacct({"ingest", "torch-trace", trace, "--format", "json"});
        EXPECT_EQ(r.status, 0) << report(r);
        return r.status == 0 ? json::parse(r.out) : json::object();
    }();
    for (const json& rec : doc.value("records", json::array()))
        if (rec["params"]["torch_op"] == torch_op)
            return rec;
    return nullptr;
}

// The trace's own GPU (an H100 in deviceProperties, no --gpu) gives the HBM peak the inferred list bytes are checked
// against; the record says the shapes are inferred. Llama's fused AdamW over P = 311,445,504 bf16 parameters (the
// arithmetic: tests/unit/test_kineto_param_inventory.cpp): read 8·P + 39·4 = 2,491,564,188 B.
TEST(IngestTorchCli, ListShapesInferredFromAccumulateGradAreLabelled) {
    const json rec = llama_train_record("aten::_fused_adamw_");
    ASSERT_FALSE(rec.is_null());
    EXPECT_EQ(rec["params"]["shapes_from"], "inferred");
    EXPECT_EQ(rec["bytes_read"].get<std::uint64_t>(), 2491564188u);
}

// "Input Strides" are read: the same trace's aten::gather(self [32000, 2048] bf16, 0, index [4096, 2048] long) has
// index strides [1, 0], an expand()ed [4096, 1]: its stored elements are 4096, not 4096·2048. Read 4096·2048·2 =
// 16,777,216 picked + 4096·8 = 32,768 index = 16,809,984 B (counting the index whole was 83,886,080 B, more than
// the 14.3 µs kernel could read at 3.35 TB/s); written 16,777,216 B.
TEST(IngestTorchCli, AnExpandedInputIsCountedAtItsStoredElements) {
    const json rec = llama_train_record("aten::gather");
    ASSERT_FALSE(rec.is_null());
    EXPECT_EQ(rec["bytes_read"].get<std::uint64_t>(), 16809984u);
    EXPECT_EQ(rec["bytes_written"].get<std::uint64_t>(), 16777216u);
}

}  // namespace
