// End-to-end: `bwacct ingest torch-trace NEW --baseline OLD [--tolerance 5%]` (issue 14, "Keep a
// baseline"): kernel time per category and per (op, shape, dtype) group in each trace's profiled
// window, against the baseline; exit 3 after the full output when a row grew beyond the tolerance,
// exit 2 with one line for a bad baseline. The modified traces are written here from tests/data/kineto/.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

std::string data(const std::string& name) { return std::string(BWACCT_TEST_DATA) + "/kineto/" + name; }
const std::string kSynthetic = data("synthetic_eager_attention.json");
const std::string kBert = data("kineto_h100_gaunernst_bert-small-uncased__1016001.redacted.json");

json load(const std::string& path) { return json::parse(read_text(path)); }

// The synthetic trace's events with args[key] == value.
std::vector<json*> events_with(json& trace, const char* key, int value) {
    std::vector<json*> out;
    for (json& e : trace["traceEvents"])
        if (e.contains("args") && e["args"].contains(key) && e["args"][key] == value)
            out.push_back(&e);
    return out;
}

// The baseline section's row of `kind` ("category" / "group") whose `col` is `value`, or null.
const json* row_of(const json& doc, const std::string& kind, const std::string& col, const std::string& value,
                   const std::string& verdict = "") {
    for (const json& r : doc["sections"]["baseline"]["rows"])
        if (r["row"] == kind && r[col] == value && (verdict.empty() || r["verdict"] == verdict))
            return &r;
    return nullptr;
}

// The synthetic trace (tests/data/kineto/synthetic_eager_attention.json.src.txt) with the kernel of
// correlation 1004 (the first bf16 P·V bmm, 11 µs at ts 70) taking 22 µs: it still ends at 92 µs,
// before the next kernel (220 µs), and inside the window (every kernel has a launch: "linked", 20 to
// 537 µs), so only its own time changes.
std::string slower_bmm(const TempDir& d) {
    json t = load(kSynthetic);
    const std::vector<json*> k = events_with(t, "correlation", 1004);
    for (json* e : k)
        if ((*e)["cat"] == "kernel")
            (*e)["dur"] = 22;
    write_text(d.file("slower.json"), t.dump());
    return d.file("slower.json");
}

TEST(IngestTorchBaseline, SameTraceIsNoRegression) {
    const RunResult r = run_bwacct({"ingest", "torch-trace", kSynthetic, "--baseline", kSynthetic});
    EXPECT_EQ(r.status, 0) << report(r);
    // Every row is in both windows with the same time: nothing regressed.
    EXPECT_NE(r.out.find("0 regressed beyond 5 %, 0 improved; largest change +0.0 %"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;
    const json doc = run_json({"ingest", "torch-trace", kSynthetic, "--baseline", kSynthetic, "--format", "json"});
    ASSERT_TRUE(doc.is_object());
    const json& rows = doc["sections"]["baseline"]["rows"];
    ASSERT_FALSE(rows.empty());
    for (const json& row : rows) {
        EXPECT_EQ(row["verdict"], "same") << row.dump();
        EXPECT_EQ(row["change_pct"], 0.0) << row.dump();
        EXPECT_EQ(row["baseline_kernel_us"], row["kernel_us"]) << row.dump();
    }
    // gemm: 10 + 11 + 10 + 11 (bf16 bmm) + 2 + 2.5 (fp32 bmm) + 1 + 1 (fp32 matmul) = 48.5 µs.
    const json* gemm = row_of(doc, "category", "category", "gemm");
    ASSERT_NE(gemm, nullptr);
    EXPECT_DOUBLE_EQ((*gemm)["kernel_us"].get<double>(), 48.5);
}

TEST(IngestTorchBaseline, SlowerKernelRegressesItsGroupAndCategory) {
    TempDir d;
    const std::string slower = slower_bmm(d);
    const RunResult r = run_bwacct({"ingest", "torch-trace", slower, "--baseline", kSynthetic});
    EXPECT_EQ(r.status, 3) << report(r);
    // The group of the P·V bmm ([8,128,128] x [8,128,64], bf16; kernels 1004 and 1008, 11 µs each):
    // 11 + 11 = 22 µs → 22 + 11 = 33 µs: 33 / 22 − 1 = +50.0 %. The gemm category: 48.5 → 48.5 + 11 =
    // 59.5 µs: 59.5 / 48.5 − 1 = +22.68 %. Both beyond 5 %, the group first (worst first).
    EXPECT_NE(r.out.find("2 regressed beyond 5 %"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("REGRESSION: kernel time grew beyond the tolerance at aten::bmm "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("+50.0 %; category gemm +22.7 % (exit code 3)"), std::string::npos) << r.out;
    // The full report is printed before exit 3: its records and sections too.
    EXPECT_NE(r.out.find("GPU kernels by total time"), std::string::npos) << r.out;

    const RunResult j = run_bwacct({"ingest", "torch-trace", slower, "--baseline", kSynthetic, "--format", "json"});
    EXPECT_EQ(j.status, 3) << report(j);
    const json doc = parse_json(j.out, "baseline json");
    ASSERT_TRUE(doc.is_object());
    const json* gemm = row_of(doc, "category", "category", "gemm");
    ASSERT_NE(gemm, nullptr);
    EXPECT_DOUBLE_EQ((*gemm)["baseline_kernel_us"].get<double>(), 48.5);
    EXPECT_DOUBLE_EQ((*gemm)["kernel_us"].get<double>(), 59.5);
    EXPECT_DOUBLE_EQ((*gemm)["change_us"].get<double>(), 11);
    expect_rel((*gemm)["change_pct"].get<double>(), (59.5 / 48.5 - 1) * 100, 1e-12, "gemm change");
    EXPECT_EQ((*gemm)["verdict"], "regressed");
    const json* bmm = row_of(doc, "group", "verdict", "regressed");
    ASSERT_NE(bmm, nullptr);
    EXPECT_EQ((*bmm)["torch_op"], "aten::bmm");
    EXPECT_EQ((*bmm)["category"], "gemm");
    EXPECT_DOUBLE_EQ((*bmm)["baseline_kernel_us"].get<double>(), 22);
    EXPECT_DOUBLE_EQ((*bmm)["kernel_us"].get<double>(), 33);
    expect_rel((*bmm)["change_pct"].get<double>(), 50, 1e-12, "bmm change");
    // Every other row is unchanged: softmax 5 + 5 + 1.5 + 1 = 12.5 µs in both.
    const json* softmax = row_of(doc, "category", "category", "softmax");
    ASSERT_NE(softmax, nullptr);
    EXPECT_DOUBLE_EQ((*softmax)["kernel_us"].get<double>(), 12.5);
    EXPECT_EQ((*softmax)["verdict"], "same");
    std::size_t regressed = 0;
    for (const json& row : doc["sections"]["baseline"]["rows"])
        regressed += row["verdict"] == "regressed";
    EXPECT_EQ(regressed, 2u);

    // Reversed, the same change is an improvement: 22 / 33 − 1 = −33.3 %; exit 0.
    const RunResult back = run_bwacct({"ingest", "torch-trace", kSynthetic, "--baseline", slower});
    EXPECT_EQ(back.status, 0) << report(back);
    EXPECT_NE(back.out.find("0 regressed beyond 5 %, 2 improved"), std::string::npos) << back.out;
}

TEST(IngestTorchBaseline, ToleranceDecides) {
    TempDir d;
    const std::string slower = slower_bmm(d);
    // +50.0 % and +22.7 % are within 60 %: exit 0, both "same".
    const RunResult within = run_bwacct({"ingest", "torch-trace", slower, "--baseline", kSynthetic, "--tolerance", "60%"});
    EXPECT_EQ(within.status, 0) << report(within);
    EXPECT_NE(within.out.find("0 regressed beyond 60 %"), std::string::npos) << within.out;
    // 30 (a plain number is a percentage): the group regresses (+50 %), the category (+22.7 %) does not.
    const RunResult part = run_bwacct({"ingest", "torch-trace", slower, "--baseline", kSynthetic, "--tolerance", "30"});
    EXPECT_EQ(part.status, 3) << report(part);
    EXPECT_NE(part.out.find("1 regressed beyond 30 %"), std::string::npos) << part.out;
}

TEST(IngestTorchBaseline, NewAndVanishedGroups) {
    // The two fp32 matmuls [1,2,8,4] x [1,2,4,8] (External ids 22 and 24, 1 µs kernels) become
    // [1,2,8,4] x [1,2,4,16]: their group vanishes and a new one appears with the same 1 + 1 = 2 µs,
    // so the gemm category keeps 48.5 µs: no regression, exit 0.
    TempDir d;
    json t = load(kSynthetic);
    for (int id : {22, 24})
        for (json* e : events_with(t, "External id", id))
            if ((*e)["cat"] == "cpu_op")
                (*e)["args"]["Input Dims"] = json::parse("[[1,2,8,4],[1,2,4,16]]");
    write_text(d.file("renamed.json"), t.dump());
    const RunResult r =
        run_bwacct({"ingest", "torch-trace", d.file("renamed.json"), "--baseline", kSynthetic, "--format", "json"});
    EXPECT_EQ(r.status, 0) << report(r);
    const json doc = parse_json(r.out, "baseline json");
    ASSERT_TRUE(doc.is_object());
    const json* added = row_of(doc, "group", "verdict", "new");
    const json* gone = row_of(doc, "group", "verdict", "vanished");
    ASSERT_NE(added, nullptr);
    ASSERT_NE(gone, nullptr);
    EXPECT_EQ((*added)["torch_op"], "aten::matmul");
    EXPECT_EQ((*gone)["torch_op"], "aten::matmul");
    EXPECT_NE((*added)["shape"], (*gone)["shape"]);
    EXPECT_DOUBLE_EQ((*added)["kernel_us"].get<double>(), 2);
    EXPECT_TRUE((*added)["baseline_kernel_us"].is_null());
    EXPECT_DOUBLE_EQ((*gone)["baseline_kernel_us"].get<double>(), 2);
    EXPECT_TRUE((*gone)["kernel_us"].is_null());
    EXPECT_TRUE((*gone)["change_pct"].is_null());
    const json* gemm = row_of(doc, "category", "category", "gemm");
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ((*gemm)["verdict"], "same");
    const RunResult table = run_bwacct({"ingest", "torch-trace", d.file("renamed.json"), "--baseline", kSynthetic});
    EXPECT_EQ(table.status, 0) << report(table);
    EXPECT_NE(table.out.find("1 only in the trace (new), 1 only in the baseline (vanished)"), std::string::npos) << table.out;
}

TEST(IngestTorchBaseline, PerStepWhenBothHaveProfilerSteps) {
    // The BERT trace against itself: one ProfilerStep each, per step, all "same".
    const RunResult same = run_bwacct({"ingest", "torch-trace", kBert, "--baseline", kBert});
    EXPECT_EQ(same.status, 0) << report(same);
    EXPECT_NE(same.out.find("compared by kernel time per step in the profiled window, 0 regressed"), std::string::npos)
        << same.out;
    // Its ProfilerStep#6 range split in two at its middle (#6 and #7; every launch falls in one of
    // them): the window and its kernel time are the same, over 2 steps instead of 1, so every row's
    // time per step halves: change −50 %, "improved", and a line says the step counts differ.
    TempDir d;
    json t = load(kBert);
    json second;
    for (json& e : t["traceEvents"])
        if (e.value("cat", "") == "user_annotation" && e.value("name", "") == "ProfilerStep#6") {
            const double half = e["dur"].get<double>() / 2;
            e["dur"] = half;
            second = e;
            second["name"] = "ProfilerStep#7";
            second["ts"] = e["ts"].get<double>() + half;
            second["args"] = json::object();
        }
    ASSERT_TRUE(second.is_object());
    t["traceEvents"].push_back(second);
    write_text(d.file("two_steps.json"), t.dump());
    const RunResult r = run_bwacct({"ingest", "torch-trace", d.file("two_steps.json"), "--baseline", kBert, "--format", "json"});
    EXPECT_EQ(r.status, 0) << report(r);
    const json doc = parse_json(r.out, "two steps");
    ASSERT_TRUE(doc.is_object());
    ASSERT_EQ(doc["summary"]["window_steps"], 2) << "the split did not give two steps";
    const json& rows = doc["sections"]["baseline"]["rows"];
    ASSERT_FALSE(rows.empty());
    for (const json& row : rows) {
        ASSERT_TRUE(row["change_pct"].is_number()) << row.dump();
        expect_rel(row["change_pct"].get<double>(), -50, 1e-9, row.dump());
        EXPECT_EQ(row["verdict"], "improved") << row.dump();
    }
    const RunResult table = run_bwacct({"ingest", "torch-trace", d.file("two_steps.json"), "--baseline", kBert});
    EXPECT_NE(table.out.find("the baseline's window holds 1 ProfilerStep and the trace's 2 ProfilerSteps: times compared "
                             "per step"),
              std::string::npos)
        << table.out;
}

TEST(IngestTorchBaseline, TotalsWhenNotBothStepped) {
    // The BERT trace without its ProfilerStep annotation: its window is "linked" (first to last
    // launched activity; every activity has a launch), so the windows are compared by their totals, and a
    // line says the windows differ in kind. The kernels are the same: every row "same", exit 0.
    TempDir d;
    json t = load(kBert);
    json kept = json::array();
    for (const json& e : t["traceEvents"])
        if (!(e.value("cat", "") == "user_annotation" && e.value("name", "") == "ProfilerStep#6"))
            kept.push_back(e);
    ASSERT_EQ(kept.size() + 1, t["traceEvents"].size());
    t["traceEvents"] = kept;
    write_text(d.file("no_steps.json"), t.dump());
    const RunResult r = run_bwacct({"ingest", "torch-trace", d.file("no_steps.json"), "--baseline", kBert});
    EXPECT_EQ(r.status, 0) << report(r);
    EXPECT_NE(r.out.find("compared by kernel time in the profiled window, 0 regressed beyond 5 %, 0 improved"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("the windows differ and are not both ProfilerStep windows (baseline window: 1 ProfilerStep "
                         "(ProfilerStep#6)"),
              std::string::npos)
        << r.out;
}

TEST(IngestTorchBaseline, CsvSection) {
    const RunResult r =
        run_bwacct({"ingest", "torch-trace", kSynthetic, "--baseline", kSynthetic, "--format", "csv", "--section", "baseline"});
    ASSERT_TRUE(succeeded(r)) << report(r);
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0], "row,category,torch_op,shape,dtype,baseline_kernel_us,kernel_us,change_us,change_pct,verdict");
    const json doc = run_json({"ingest", "torch-trace", kSynthetic, "--baseline", kSynthetic, "--format", "json"});
    EXPECT_EQ(lines.size(), doc["sections"]["baseline"]["rows"].size() + 1);
}

void expect_bad(const std::vector<std::string>& args, const std::vector<std::string>& wants) {
    const RunResult r = run_bwacct(args);
    EXPECT_EQ(r.status, 2) << report(r);
    EXPECT_TRUE(r.out.empty()) << report(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << report(r);
    for (const std::string& w : wants)
        EXPECT_NE(r.err.find(w), std::string::npos) << "want '" << w << "'\n" << report(r);
}

TEST(IngestTorchBaseline, BadBaselineIsOneLine) {
    TempDir d;
    write_text(d.file("notes.txt"), "this is not a trace\n");
    write_text(d.file("no_gpu.json"),
               R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 2}]})");
    expect_bad({"ingest", "torch-trace", kSynthetic, "--baseline", d.file("notes.txt")}, {"--baseline", d.file("notes.txt")});
    expect_bad({"ingest", "torch-trace", kSynthetic, "--baseline", d.file("no_gpu.json")}, {"--baseline", "no GPU"});
    expect_bad({"ingest", "torch-trace", kSynthetic, "--baseline", d.file("missing.json")}, {"--baseline", "missing.json"});
    expect_bad({"ingest", "torch-trace", kSynthetic, "--tolerance", "5%"}, {"--tolerance", "--baseline"});
    expect_bad({"ingest", "torch-trace", kSynthetic, "--baseline", kSynthetic, "--tolerance", "x"}, {"--tolerance"});
    expect_bad({"ingest", "torch-trace", "-", "--baseline", "-"}, {"--baseline", "standard input"});
}

}  // namespace
