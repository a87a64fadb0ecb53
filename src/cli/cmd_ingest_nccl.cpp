// bwacct ingest nccl-tests LOG: an nccl-tests log (text or -J JSON) re-derived and accounted for.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "bwacct/error.h"
#include "bwacct/ingest_nccl.h"
#include "bwacct/ops.h"
#include "bwacct/text_file.h"
#include "bwacct/values.h"
#include "ingest_common.h"
#include "tolerance.h"

namespace bwacct::cli {

CommandSpec ingest_nccl_command() {
    CommandSpec c;
    c.name = "nccl-tests";
    c.summary = "nccl-tests log (text or -J JSON): algbw/busbw re-derived, % of link, α–β fit, latency vs bandwidth regime";
    c.example =
        "bwacct ingest nccl-tests all_reduce.log --gpu h100-sxm\n"
        "  mpirun -np 16 ./all_reduce_perf -b 8 -e 8G -f 2 -g 1 | tee ar.log; bwacct ingest nccl-tests ar.log --format json";
    c.options = ingest_options("the nccl-tests output (stdout saved to a file, or the -J JSON file)", "");
    c.options.push_back(
        {"--op",
         "the collective when the log does not say (allreduce, allgather, reducescatter, broadcast, reduce, alltoall, "
         "sendrecv, gather, scatter)",
         ""});
    c.options.push_back({"--ranks",
                         "the rank count of every run, overriding the log's clues (\"# Rank\" lines, nGpus header, "
                         "busbw/algbw ratio)",
                         ""});
    c.options.push_back({"--baseline",
                         "a known-good log of the same test: per size the busbw change and a verdict; exit code 3 when "
                         "any size regresses beyond --tolerance",
                         ""});
    c.options.push_back({"--tolerance", "with --baseline: how far busbw may fall before it counts as a regression", "5%"});
    c.example += "\n  bwacct ingest nccl-tests new.log --baseline known_good.log --tolerance 3%";
    c.run = [](const Args& args, const Env& env) {
        const std::string& path = args.get("file");
        const std::string text =
            read_input_file(path, "", "expected nccl-tests output (all_reduce_perf ... > log) or its -J JSON");
        const NcclLog log = parse_nccl_tests(text, path);
        // The baseline is read and checked before anything is printed.
        const std::string& baseline_path = args.get("--baseline");
        std::optional<NcclLog> baseline;
        const double tolerance = parse_tolerance(args.get("--tolerance"), "--tolerance");
        if (!baseline_path.empty())
            baseline = parse_nccl_tests(read_input_file(baseline_path, "--baseline",
                                                        "expected nccl-tests output (all_reduce_perf ... > log) or its -J JSON"),
                                        baseline_path);
        else if (args.given("--tolerance"))
            throw InputError("--tolerance", "applies to --baseline; give --baseline FILE too");

        NcclAccountingInput in;
        if (!args.get("--op").empty()) {
            const auto k = collective_from_name(args.get("--op"));
            if (!k)
                throw InputError("--op", "unknown collective '" + args.get("--op") +
                                             "'; accepted: allreduce, allgather, reducescatter, broadcast, reduce, alltoall, "
                                             "sendrecv, gather, scatter");
            in.kind = *k;
        }
        in.file_kind = collective_from_name(path);
        if (!args.get("--ranks").empty()) {
            const auto v = parse_values(args.get("--ranks"), "--ranks", ValueKind::count);
            if (v.size() != 1)
                throw InputError("--ranks", "takes one positive integer, not a range or list");
            in.ranks = static_cast<std::uint64_t>(v.front());
        }
        const Catalog catalog = catalog_for(args);
        std::string device;
        for (const NcclRun& run : log.runs)
            if (device.empty())
                device = run.device_name;
        std::string no_gpu;
        const auto gpus = ingest_gpus_or_none(args, catalog, device, no_gpu);
        // Runs on another device (a paste of an H100 run and an A100 run) are analysed on their own GPU
        // unless --gpu names the GPUs for all; a run on a GPU the catalog lacks is read without one.
        std::vector<std::string> run_notes;
        std::vector<std::string> unnamed;  // runs that name no device: analysed on the file's first
        if (!args.given("--gpu") && log.runs.size() > 1)
            for (std::size_t i = 0; i < log.runs.size(); ++i) {
                const NcclRun& run = log.runs[i];
                if (run.device_name.empty() && !device.empty())
                    unnamed.push_back(std::to_string(i + 1));
                if (run.device_name.empty() || run.device_name == device) {
                    in.run_gpus.emplace_back();
                    continue;
                }
                std::string note;
                in.run_gpus.emplace_back(ingest_gpus_or_none(args, catalog, run.device_name, note));
                if (!note.empty() && std::find(run_notes.begin(), run_notes.end(), note) == run_notes.end())
                    run_notes.push_back(note);
            }
        if (!unnamed.empty() && !gpus.empty())  // without a catalog GPU they are analysed on none: no_gpu says so
            run_notes.push_back(
                fmt::format("run{} {} name{} no GPU: analysed on the file's first named GPU ('{}'); give --gpu if {} ran "
                            "on another",
                            unnamed.size() > 1 ? "s" : "", fmt::join(unnamed, ", "), unnamed.size() > 1 ? "" : "s", device,
                            unnamed.size() > 1 ? "they" : "it"));
        IngestReport report = account_nccl(log, path, in, gpus);
        if (!no_gpu.empty())
            report.notes.push_back(no_gpu);
        for (std::string& note : run_notes)
            report.notes.push_back(std::move(note));
        if (!baseline)
            return emit_ingest(report, gpus, args, env);
        NcclBaseline cmp = compare_nccl(log, *baseline, tolerance, baseline_path);
        return emit_ingest_with_baseline(report, cmp.lines, std::move(cmp.section), cmp.regressed, gpus, args, env);
    };
    return c;
}

}  // namespace bwacct::cli
