// End-to-end: expert parallelism (--ep), pipeline parallelism (--pp, --micro-batches) and the
// efficiency factors (--efficiency) of `bwacct layer|model`, with their bad-input cases. Expected
// values derived by hand in the comments (and in tests/unit/test_expert_parallel.cpp,
// tests/unit/test_pipeline_parallel.cpp).
#include "harness.h"

using namespace bwacct_test;

namespace {

void expect_bad(const std::vector<std::string>& args, const std::vector<std::string>& names) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    for (const std::string& n : names)
        EXPECT_NE(r.err.find(n), std::string::npos) << "stderr should name " << n << "\n" << report(r);
}

const json* op_named(const json& doc, const std::string& name) {
    for (const json& op : doc.at("ops"))
        if (op.at("name") == name)
            return &op;
    return nullptr;
}

}  // namespace

TEST(ParallelismCli, DeepSeekTp8Ep8DispatchAndCombineBytes) {
    const json doc = run_json({"model", "--preset", "deepseek-v3", "--phase", "decode", "--batch", "64", "--context", "8192",
                               "--tp", "8", "--ep", "8", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    EXPECT_EQ(num_u(doc.at("run"), "ep"), 8u);
    for (const char* name : {"alltoall experts dispatch (fwd)", "alltoall experts combine (fwd)"}) {
        const json* op = op_named(doc, name);
        ASSERT_NE(op, nullptr) << name;
        // 64 tokens / tp 8 = 8 per rank, top-8: 64 rows · 7168 · 2 B = 917,504 B per rank;
        // (8 − 1)/8 of it = 802,816 B leaves each rank per direction
        EXPECT_EQ(num_u(op->at("collective"), "size_bytes"), 917504u);
        EXPECT_EQ(num_u(op->at("collective"), "wire_bytes_per_rank"), 802816u);
    }
}

// The parameters line gives the whole model's bytes and, under --tp/--ep, one GPU's. Mixtral 8x7B
// (--preset mixtral-8x7b: 46,702,792,704 parameters) in bf16: whole 2 · 46,702,792,704 = 93,405,585,408 B
// (with --ep 8 it had been one EP rank's bytes). At --ep 8 a GPU holds per layer attention 41,943,040,
// router 4096 · 8 = 32,768, norms 8,192 and one of the 8 experts, 3 · 4096 · 14336 = 176,160,768:
// 218,144,768 · 2 B · 32 layers = 13,961,265,152; embedding and LM head 2 · 32000 · 4096 · 2 = 524,288,000
// (tp 1: whole); final norm 4096 · 2 = 8,192. Sum 14,485,561,344 B.
TEST(ParallelismCli, ParametersGiveTheWholeModelAndOneGpusWeightBytes) {
    const std::vector<std::string> base{"model",     "--preset", "mixtral-8x7b", "--phase", "decode", "--batch", "8",
                                        "--context", "1024",     "--ep",         "8",       "--gpu",  "h200"};
    json doc = run_json(with(base, {"--format", "json"}));
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(num_u(doc.at("params"), "total"), 46702792704u);
    EXPECT_EQ(num_u(doc.at("params"), "bytes"), 93405585408u);
    EXPECT_EQ(num_u(doc.at("params"), "bytes_per_gpu"), 14485561344u);
    const RunResult table = run_bwacct(base);
    ASSERT_EQ(table.status, 0) << report(table);
    // 93,405,585,408 B = 87.0 GiB; 14,485,561,344 B = 13.49 GiB
    EXPECT_NE(table.out.find("87.0 GiB in bf16, 13.5 GiB per GPU at tp 1, ep 8"), std::string::npos) << table.out;
}

TEST(ParallelismCli, PipelineStepIsMPlusNMinusOneSlots) {
    const json doc = run_json({"model", "--preset", "llama3-70b", "--tokens", "4096", "--tp", "8", "--pp", "4", "--micro-batches",
                               "8", "--gpu", "h200", "--format", "json"});
    ASSERT_FALSE(doc.is_null());
    expect_finite_numbers(doc, "");
    const json& p = doc.at("totals").at(0).at("pipeline");
    // [4096, 8192] bf16 = 67,108,864 B from stage to stage per micro-batch
    EXPECT_EQ(num_u(p, "send_bytes_per_micro_batch"), 67108864u);
    EXPECT_DOUBLE_EQ(num_d(p, "bubble_fraction"), 3.0 / 11.0);  // (4 − 1)/(8 + 4 − 1)
    EXPECT_DOUBLE_EQ(num_d(p, "slot_us"), num_d(p, "slowest_stage_us") + num_d(p, "send_us"));
    EXPECT_DOUBLE_EQ(num_d(p, "step_us"), 11 * num_d(p, "slot_us"));
    // 80 layers / 4 = 20 per stage; the slowest is a first or last stage: 20 layers + its edge ops
    const double layer = num_d(doc.at("totals").at(0).at("layer"), "floor_us");
    EXPECT_GE(num_d(p, "slowest_stage_us"), 20 * layer * (1 - 1e-12));
    EXPECT_LT(num_d(p, "slowest_stage_us"), num_d(doc.at("totals").at(0).at("model"), "floor_us"));
}

TEST(ParallelismCli, EfficiencyScalesTheRoofsAndSaysSo) {
    const std::vector<std::string> base{"layer",     "--preset", "llama3-8b", "--phase", "decode",   "--batch", "1",
                                        "--context", "4096",     "--gpu",     "h200",    "--format", "json"};
    const json plain = run_json(base);
    const json scaled = run_json(with(base, {"--efficiency", "hbm=0.9,compute=0.7"}));
    ASSERT_FALSE(plain.is_null());
    ASSERT_FALSE(scaled.is_null());
    EXPECT_DOUBLE_EQ(num_d(scaled.at("efficiency"), "hbm"), 0.9);
    EXPECT_DOUBLE_EQ(num_d(scaled.at("efficiency"), "compute"), 0.7);
    EXPECT_NE(str_of(scaled.at("efficiency"), "source").find("--efficiency"), std::string::npos);
    const json& a = plain.at("ops").at(0).at("gpus").at(0);
    const json& b = scaled.at("ops").at(0).at("gpus").at(0);
    // roof = bytes / (0.9 · peak) = roof at the peak / 0.9
    expect_rel(num_d(b, "hbm_us"), num_d(a, "hbm_us") / 0.9, 1e-12, "hbm roof / 0.9");
    expect_rel(num_d(b, "compute_us"), num_d(a, "compute_us") / 0.7, 1e-12, "compute roof / 0.7");
    const RunResult table = run_bwacct({"layer", "--preset", "llama3-8b", "--phase", "decode", "--batch", "1", "--context",
                                        "4096", "--gpu", "h200", "--efficiency", "hbm=0.9"});
    EXPECT_EQ(table.status, 0) << report(table);
    EXPECT_NE(table.out.find("roofs scaled by efficiency"), std::string::npos) << table.out;
}

TEST(ParallelismCli, BadInputNamesTheOption) {
    const std::vector<std::string> mixtral{"layer",   "--preset", "mixtral-8x7b", "--phase", "decode",
                                           "--batch", "16",       "--context",    "4096"};
    expect_bad(with(mixtral, {"--ep", "3"}), {"--ep", "8"});
    expect_bad(with(mixtral, {"--ep", "0"}), {"--ep"});
    expect_bad({"layer", "--preset", "llama3-8b", "--tokens", "2048", "--ep", "2"}, {"--ep", "mixture-of-experts"});
    expect_bad({"model", "--preset", "llama3-8b", "--tokens", "2048", "--pp", "33"}, {"--pp", "32"});
    expect_bad({"model", "--preset", "llama3-8b", "--tokens", "2048", "--micro-batches", "4"}, {"--micro-batches", "--pp"});
    expect_bad({"model", "--preset", "wan2.1-t2v-14b", "--tokens", "2160", "--pp", "41"}, {"--pp", "40"});  // 40 blocks
    for (const char* e :
         {"hbm", "hbm=", "hbm=1.5", "hbm=0", "hbm=-0.5", "hbm=abc", "flops=0.5", "hbm=0.9,hbm=0.8", "hbm=nan", ""})
        expect_bad(with(mixtral, {"--efficiency", e}), {"--efficiency"});
}
