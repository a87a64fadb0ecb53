// `bwacct ingest torch-trace TRACE.json[.gz]`: a PyTorch profiler (Kineto) trace accounted kernel by
// kernel (src/ingest/kineto*.cpp); one record per (op, shape, dtype) with the mean kernel time per call.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "bwacct/error.h"
#include "bwacct/hf_config.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/kineto_baseline.h"
#include "bwacct/kineto_eager_attention.h"
#include "bwacct/values.h"
#include "command.h"
#include "ingest_common.h"
#include "ingest_torch_time.h"
#include "inventory_hbm.h"
#include "tolerance.h"

namespace bwacct::cli {
namespace {

using namespace bwacct::kineto;

std::size_t top_of(const Args& args) {
    const std::vector<double> v = parse_values(args.get("--top"), "--top", ValueKind::whole);
    return v.size() == 1 ? static_cast<std::size_t>(v.front()) : 0;
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

// Kernel times are printed in ns by the profiler: keep 3 decimals (no binary-fraction noise).
double round_ns(double us) { return std::round(us * 1000) / 1000; }

// The table view's form of a demangled kernel name: without "void " and its parameter list, at most
// 96 characters (templated kernels' names run to hundreds). JSON, JSONL, CSV and Markdown carry the
// full name, and kernels are grouped by it.
std::string short_kernel_name(const std::string& full) {
    std::string n = full;
    if (n.rfind("void ", 0) == 0)
        n.erase(0, 5);
    if (!n.empty() && n.back() == ')') {
        int depth = 0;
        for (std::size_t i = n.size(); i-- > 0;) {
            depth += n[i] == ')' ? 1 : n[i] == '(' ? -1 : 0;
            if (depth == 0) {
                if (i > 0)
                    n.erase(i);
                break;
            }
        }
    }
    if (n.size() > 96)
        n = n.substr(0, 93) + "...";
    return n;
}

Section kernel_section(const Summary& s, std::size_t top) {
    Section sec{"kernels", "GPU kernels by total time", {}, {}, {}};
    sec.columns = {{"kernel", "kernel", 0, short_kernel_name},
                   {"count", "count", 0},
                   {"total_us", "total µs", 2},
                   {"mean_us", "mean µs", 3},
                   {"op", "linked op", 0},
                   {"category", "category", 0},
                   {"reason", "why no formula", 0}};
    for (const KernelRow& k : s.kernels) {
        if (top > 0 && sec.rows.size() == top) {
            sec.notes.push_back(fmt::format("{} more kernel names not shown (--top {})", s.kernels.size() - top, top));
            break;
        }
        sec.rows.push_back({k.name, k.count, k.total_us, k.total_us / static_cast<double>(k.count),
                            k.op.empty() ? Cell{} : Cell{k.op}, std::string(category_name(k.category)),
                            k.reason.empty() ? Cell{} : Cell{k.reason}});
    }
    return sec;
}

Section category_section(const Summary& s) {
    Section sec{"by_category", "GPU time by category", {}, {}, {}};
    sec.columns = {{"category", "category", 0},
                   {"kernels", "kernels", 0},
                   {"costed", "costed", 0},
                   {"kernel_us", "kernel µs", 2},
                   {"busy_us", "busy µs", 2},
                   {"busy_share", "% busy", 1},
                   {"uncosted_busy_us", "unaccounted µs", 2},
                   {"exposed_us", "exposed µs", 2},
                   {"window_busy_us", "window busy µs", 2},
                   {"window_busy_share", "% window busy", 1},
                   {"window_uncosted_busy_us", "window unaccounted µs", 2},
                   {"window_exposed_us", "window exposed µs", 2},
                   {"reason", "main reason unaccounted", 0}};
    for (const CategoryTime& c : s.categories) {
        if (c.kernels == 0)
            continue;
        // The reason covering the most uncosted kernel time in the category.
        const auto top = std::max_element(c.uncosted_reasons.begin(), c.uncosted_reasons.end(),
                                          [](const auto& x, const auto& y) { return x.second < y.second; });
        sec.rows.push_back({std::string(category_name(c.category)), c.kernels, c.costed, c.kernel_us, c.busy_us,
                            100 * share(c.busy_us, s.busy_us), c.uncosted_busy_us, c.exposed_us, c.window_busy_us,
                            100 * share(c.window_busy_us, s.window_busy_us), c.window_uncosted_busy_us, c.window_exposed_us,
                            top == c.uncosted_reasons.end() ? Cell{} : Cell{top->first}});
    }
    sec.notes.push_back(
        "busy µs: each kernel's share of the GPU busy time (whole trace): each instant goes to the highest time class "
        "running (compute > communication > memcpy), shared equally among its running kernels; the rows add up to the "
        "busy time");
    sec.notes.push_back(
        "exposed µs: the time this category runs while no higher time class runs (categories of one class overlap, "
        "so these do not add up)");
    sec.notes.push_back(
        "window columns: the same over the profiled window (see the window section), the basis of the summary; the "
        "window busy rows add up to the window's busy time");
    return sec;
}

// Busy time (whole trace and profiled window) of the records by the roof that binds each, beside the
// groups not analysed and the time no formula covers.
struct BusyPair {
    double trace = 0, window = 0;
};
Section roof_section(const Summary& s, const std::vector<Record>& records, const std::vector<const Group*>& record_group,
                     BusyPair unanalysed) {
    std::map<std::string, BusyPair> by_roof;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& v = records[i].verdicts;
        BusyPair& b = by_roof[!v.empty() && v.front().timed ? std::string(roof_name(v.front().timed->bound)) : "no verdict"];
        b.trace += record_group[i]->busy_us;
        b.window += record_group[i]->window_busy_us;
    }
    Section sec{"by_roof", "GPU busy time by binding roof", {}, {}, {}};
    sec.columns = {{"roof", "binding roof", 0},
                   {"busy_us", "busy µs", 2},
                   {"busy_share", "% busy", 1},
                   {"window_busy_us", "window busy µs", 2},
                   {"window_busy_share", "% window busy", 1}};
    const auto row = [&](const std::string& roof, BusyPair b) {
        sec.rows.push_back({roof, b.trace, 100 * share(b.trace, s.busy_us), b.window, 100 * share(b.window, s.window_busy_us)});
    };
    for (const auto& [roof, b] : by_roof)
        row(roof, b);
    if (unanalysed.trace > 0 || unanalysed.window > 0)
        row("not analysed", unanalysed);
    row("unaccounted (no formula)", {s.uncosted_busy_us, s.window_uncosted_busy_us});
    sec.notes.push_back(
        "roof of each (op, shape, dtype) group on the first GPU, at its mean kernel time per call; busy: whole trace, "
        "window busy: the profiled window");
    return sec;
}

Section time_section(const Summary& s) {
    Section sec{"gpu_time", "GPU time", {}, {}, {}};
    sec.columns = {{"what", "what", 0}, {"us", "µs", 2}, {"span_share", "% of span", 1}, {"meaning", "meaning", 0}};
    auto row = [&](const char* what, double us, const char* meaning) {
        sec.rows.push_back({std::string(what), us, 100 * share(us, s.span_us), std::string(meaning)});
    };
    row("span", s.span_us, "first kernel start to last kernel end");
    row("busy", s.busy_us, "union of the kernel intervals");
    row("idle", s.idle_us, "span - busy: the GPU waits between kernels (dispatch share)");
    row("busy_costed", s.busy_us - s.uncosted_busy_us, "busy time of kernels a formula covers");
    row("busy_unaccounted", s.uncosted_busy_us, "busy time of kernels no formula covers");
    row("kernel_sum", s.kernel_us, "sum of kernel durations (exceeds busy when streams overlap)");
    sec.notes.push_back("whole trace, per device, summed over devices; the profiled window is in the window section");
    return sec;
}

// Eager attention chains (matmul → softmax → matmul): a view beside the per-op records, whose kernels
// keep their own rows and costs.
Section eager_attention_section(const std::vector<EagerAttention>& groups) {
    Section sec{"eager_attention", "eager attention (matmul → softmax → matmul, grouped)", {}, {}, {}};
    sec.columns = {{"ops", "ops", 0},
                   {"shape", "shape", 0},
                   {"dtype", "dtype", 0},
                   {"calls", "calls", 0},
                   {"kernels", "kernels", 0},
                   {"kernel_us", "kernel µs", 2},
                   {"time_us", "µs per call", 3},
                   {"flops", "FLOPs", 0},
                   {"bytes_read", "bytes read", 0},
                   {"bytes_written", "bytes written", 0},
                   {"tflops", "TFLOP/s", 2},
                   {"bw_GBps", "GB/s", 1},
                   {"flash_bytes", "fused bytes", 0}};
    for (const EagerAttention& g : groups) {
        const double per_call = g.kernel_us / static_cast<double>(g.calls);
        const std::uint64_t bytes = g.eager.bytes_read + g.eager.bytes_written;
        sec.rows.push_back({g.ops, g.shape, g.dtype, g.calls, g.kernels, g.kernel_us, per_call, g.eager.flops, g.eager.bytes_read,
                            g.eager.bytes_written,
                            per_call > 0 ? Cell{static_cast<double>(g.eager.flops) / per_call / 1e6} : Cell{},
                            per_call > 0 ? Cell{static_cast<double>(bytes) / per_call / 1e3} : Cell{},
                            g.flash.bytes_read + g.flash.bytes_written});
    }
    sec.notes.push_back(
        "each chain's kernels (both matmuls, the softmax and the scale/mask/dropout ops between) keep their own rows "
        "above; this groups them: FLOPs 4·batch·Sq·Sk·D, bytes Q, K, V read and O written plus the score matrix S "
        "written and read and P written and read (4·|S|); fused bytes: the same attention in one kernel "
        "(docs/formulas.md, \"Attention\")");
    return sec;
}

// The events the reader could not use (no or non-numeric "ts"/"dur"), by reason: never dropped silently.
Section skipped_section(const Trace& t) {
    Section sec{"skipped_events", "trace events skipped", {}, {}, {}};
    sec.columns = {{"reason", "reason", 0}, {"count", "count", 0}};
    for (const auto& [reason, n] : t.skipped)
        sec.rows.push_back({reason, n});
    sec.notes.push_back(
        "events of a kind the accounting uses (GPU activity, CPU op, runtime call) without a usable numeric \"ts\" "
        "or \"dur\"; a string holding a plain number (\"ts\": \"123.5\") is read as that number");
    return sec;
}

// What the trace lacks, from the user: --hf-config FILE (MoE ops without expert-weight inputs costed from it)
// and --tp N (their model-parallel degree when the trace's attention ops do not show it).
TraceHints trace_hints(const Args& args) {
    TraceHints h;
    if (args.given("--hf-config") || !args.get("--hf-config").empty()) {  // an empty path: the reader's "no file named"
        h.model = load_hf_config(args.get("--hf-config"), "--hf-config");
        h.model_origin = "--hf-config " + args.get("--hf-config");
    }
    if (args.given("--tp") || !args.get("--tp").empty()) {
        const std::vector<double> v = parse_values(args.get("--tp"), "--tp", ValueKind::count);
        if (v.size() != 1)
            throw InputError("--tp", "takes one positive integer (the model-parallel ranks the experts are split over)");
        if (!h.model)
            throw InputError("--tp", "applies with --hf-config FILE (the MoE model's config.json)");
        h.tp = static_cast<std::uint64_t>(v.front());
    }
    return h;
}

// --baseline FILE read with the same reader and summarised (its Trace freed at once), its inferred list shapes checked
// against its own GPU's HBM peak (its deviceProperties, else the --gpu rule: inventory_hbm), else the trace's own
// (`fallback`: a baseline without a GPU of its own compares like with like); errors name --baseline.
Summary baseline_summary(const std::string& base_path, TraceHints hints, const Catalog& catalog,
                         const std::vector<const GpuSpec*>& given, const std::optional<kineto::HbmRoof>& fallback) {
    try {
        Trace base = read_kineto(base_path);
        drop_idle_ops(base);
        hints.hbm = inventory_hbm(trace_gpu_name(base), catalog, given);
        if (!hints.hbm)
            hints.hbm = fallback;
        return summarize(base, link_activities(base), hints);
    } catch (const InputError& e) {
        throw InputError("--baseline", e.what());
    }
}

int run(const Args& args, const Env& env) {
    const std::string& path = args.get("file");
    const std::size_t top = top_of(args);
    const double tolerance = parse_tolerance(args.get("--tolerance"), "--tolerance");
    const std::string& base_path = args.get("--baseline");
    if (base_path.empty() && args.given("--tolerance"))
        throw InputError("--tolerance", "applies to --baseline; give --baseline FILE too");
    if (base_path == "-" && path == "-")
        throw InputError("--baseline", "standard input ('-') is already the trace; give the baseline as a file");
    const TraceHints hints = trace_hints(args);
    Trace trace = read_kineto(path);
    // What the report says of every op read (the reader counts them, kept or not): ops_read, ops_have_dims.
    const std::uint64_t cpu_ops = trace.ops_read;
    const bool shapes = trace.ops_have_dims;
    drop_idle_ops(trace);
    const Catalog catalog = catalog_for(args);
    const std::string device = trace_gpu_name(trace);
    std::string no_gpu;  // without a GPU: the time accounting, categories and costs, but no roofs
    const std::vector<const GpuSpec*> gpus = ingest_gpus_or_none(args, catalog, device, no_gpu);
    // The --gpu given (not the trace's own GPU, which ingest_gpus_or_none returns without --gpu): for inventory_hbm.
    const std::vector<const GpuSpec*> given =
        args.given("--gpu") || !args.get("--gpu").empty() ? gpus : std::vector<const GpuSpec*>{};
    TraceHints full_hints = hints;
    full_hints.hbm = inventory_hbm(device, catalog, given);
    // The baseline is read and checked before anything is printed (with the same hints, its own GPU's HBM peak).
    std::optional<Summary> base;
    if (!base_path.empty())
        base = baseline_summary(base_path, hints, catalog, given, full_hints.hbm);
    const Links links = link_activities(trace);  // made once: the summary and the eager-attention view use them
    const Summary s = summarize(trace, links, full_hints);

    IngestReport r;
    r.tool = "torch-trace";
    r.file = path;
    r.format = fmt::format("PyTorch profiler (Kineto) Chrome trace: {} events, {} CPU ops, {} GPU activities{}", trace.events,
                           cpu_ops, trace.activities.size(), device.empty() ? "" : fmt::format(", GPU '{}'", device));
    for (const GpuSpec* g : gpus)
        r.gpus.push_back(g->id);
    std::vector<const Group*> record_group;
    BusyPair unanalysed;
    for (const Group& g : s.groups) {
        if (g.calls == 0 || !(g.kernel_us > 0)) {
            unanalysed.trace += g.busy_us;
            unanalysed.window += g.window_busy_us;
            continue;
        }
        std::vector<Param> params{{"torch_op", g.what.op}};
        params.insert(params.end(), g.what.params.begin(), g.what.params.end());
        params.push_back({"dtype", g.what.dtype});
        params.push_back({"calls", g.calls});
        params.push_back({"kernels", g.kernels});
        params.push_back({"kernel_us_total", round_ns(g.kernel_us)});
        try {
            r.records.push_back(
                ingested_record(std::move(params), g.what.cost, g.kernel_us / static_cast<double>(g.calls), gpus));
            record_group.push_back(&g);
        } catch (const InputError& e) {
            unanalysed.trace += g.busy_us;
            unanalysed.window += g.window_busy_us;
            r.warnings.push_back(fmt::format("{} {} {}: not analysed: {}", g.what.op, g.what.shape, g.what.dtype, e.what()));
        }
    }
    r.summary = torch_summary(s, r.records, record_group, unanalysed.window);
    r.sections = {kernel_section(s, top), category_section(s), roof_section(s, r.records, record_group, unanalysed),
                  time_section(s),        window_section(s),   stream_section(s)};
    if (const auto eager = eager_attention(trace, links); !eager.empty())
        r.sections.push_back(eager_attention_section(eager));
    if (!trace.skipped.empty()) {
        std::uint64_t skipped = 0, gpu = 0;
        for (const auto& [reason, n] : trace.skipped) {
            skipped += n;
            gpu += reason.rfind("GPU activity", 0) == 0 ? n : 0;
        }
        r.sections.push_back(skipped_section(trace));
        r.warnings.push_back(
            fmt::format("{} trace events skipped ({} of them GPU activities, whose time is not counted): "
                        "no usable \"ts\" or \"dur\"; see the skipped_events section",
                        skipped, gpu));
    }
    if (trace.string_times > 0)
        r.notes.push_back(fmt::format("{} events gave \"ts\" or \"dur\" as a string holding a number; read as that number",
                                      trace.string_times));
    if (trace.correlated_by_external_id > 0)
        r.notes.push_back(fmt::format(
            "the trace has no correlation ids: {} GPU activities paired with their launch by the External id both carry "
            "(the runtime's numbering, not the ops'), the launches with their op by time",
            trace.correlated_by_external_id));
    r.notes.push_back(
        "records: one per (op, shape, dtype); bytes and FLOPs of ONE call, time = kernel time per call "
        "(sum of the op's kernels / calls)");
    r.notes.push_back(
        fmt::format("kernels linked to their CPU op: {} by External id, {} via the launch's correlation id, "
                    "{} by time containment, {} inferred from the same place of a repeated kernel sequence, {} not linked",
                    s.linked[0], s.linked[1], s.linked[2], s.linked[3], s.linked[4]));
    if (links.ids_not_enclosing > 0)
        r.warnings.push_back(
            fmt::format("{} GPU activities carry an External id naming a CPU op that does not hold their launch in time (not "
                        "the ops' ids): the id was passed over and each linked by its launch record instead",
                        links.ids_not_enclosing));
    if (links.correlation_ids_across_processes > 0)
        r.warnings.push_back(fmt::format(
            "the trace holds several processes' events whose correlation ids repeat ({} id{} launched by two or more "
            "processes): a kernel is matched to the first launch with its id, so links, launch delays and per-op costs "
            "may mix processes; profile one rank per trace",
            links.correlation_ids_across_processes, links.correlation_ids_across_processes == 1 ? "" : "s"));
    r.notes.push_back(
        fmt::format("{} of {} GPU activities costed by a formula; whole trace: busy {:.2f} µs, idle {:.2f} µs, "
                    "unaccounted {:.2f} µs; profiled window: busy {:.2f} µs, unaccounted {:.2f} µs",
                    s.activities - s.uncosted_kernels, s.activities, s.busy_us, s.idle_us, s.uncosted_busy_us, s.window_busy_us,
                    s.window_uncosted_busy_us));
    if (cpu_ops > 0 && !shapes)
        r.notes.push_back(
            "the CPU ops carry no \"Input Dims\" (profiled without record_shapes=True): only kernels "
            "with their own metadata (NCCL) can be costed");
    r.warnings.insert(r.warnings.end(), s.warnings.begin(), s.warnings.end());
    r.notes.insert(r.notes.end(), s.notes.begin(), s.notes.end());
    if (!no_gpu.empty())
        r.notes.push_back(no_gpu);
    if (!base)
        return emit_ingest(r, gpus, args, env);
    TraceBaseline cmp = compare_traces(s, *base, tolerance, base_path);
    return emit_ingest_with_baseline(r, cmp.lines, std::move(cmp.section), cmp.regressed, gpus, args, env);
}

}  // namespace

CommandSpec ingest_torch_command() {
    CommandSpec c;
    c.name = "torch-trace";
    c.summary = "PyTorch profiler (Kineto) trace: kernels linked to their ops, costed, per-shape bandwidth and roofs";
    c.example = "bwacct ingest torch-trace trace.json.gz --gpu h100-sxm --top 20";
    c.options = ingest_options("PyTorch profiler (Kineto) Chrome trace, .json or .json.gz", "");
    c.options.push_back({"--baseline",
                         "a known-good trace of the same run: kernel time per category and per (op, shape, dtype) "
                         "against it (per step when both have ProfilerSteps); exit code 3 when any grew beyond "
                         "--tolerance",
                         ""});
    c.options.push_back({"--tolerance", "with --baseline: how far a time may grow before it counts as a regression", "5%"});
    c.options.push_back({"--hf-config",
                         "the model's Hugging Face config.json: MoE ops whose inputs lack the expert weights (vLLM's "
                         "moe_forward) are costed from it (top-k, hidden, expert FFN, weight format)",
                         ""});
    c.options.push_back({"--tp",
                         "with --hf-config: the ranks the experts are split over, when the trace's attention ops do not "
                         "show it",
                         ""});
    c.example += "\n  bwacct ingest torch-trace vllm_moe.json.gz --hf-config gpt-oss-120b/config.json";
    c.example += "\n  bwacct ingest torch-trace new.json.gz --baseline known_good.json.gz --tolerance 3%";
    c.run = run;
    return c;
}

}  // namespace bwacct::cli
