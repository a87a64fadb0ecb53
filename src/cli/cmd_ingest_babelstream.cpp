// `bwacct ingest babelstream FILE`: BabelStream text or --csv output, or SuperBench gpu-stream output
// (parser in src/ingest/babelstream_*.cpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "bwacct/error.h"
#include "bwacct/ingest_babelstream.h"
#include "bwacct/text_file.h"
#include "command.h"
#include "ingest_common.h"

namespace bwacct::cli {

CommandSpec ingest_babelstream_command() {
    CommandSpec c;
    c.name = "babelstream";
    c.summary = "BabelStream (text or --csv) or SuperBench gpu-stream output: bandwidth per kernel vs the HBM peak";
    c.example = "./cuda-stream > out.txt && bwacct ingest babelstream out.txt --gpu h100-sxm";
    c.options = ingest_options("BabelStream output (text or --csv), or SuperBench gpu-stream output", "");
    c.run = [](const Args& args, const Env& env) {
        constexpr const char* kExpected = "expected BabelStream output (text or --csv) or SuperBench gpu-stream output";
        const std::string path = args.get("file");
        const std::string text = read_text_input(path, kExpected);
        const BabelStreamFile parsed = parse_babelstream(text, path);
        const Catalog catalog = catalog_for(args);
        std::string no_gpu;
        const std::string device = babelstream_device_name(parsed);
        const std::vector<const GpuSpec*> gpus = ingest_gpus_or_none(args, catalog, device, no_gpu);
        // A run on another device than the file's first (a paste of a TITAN Xp run and an A100 run) is
        // analysed on its own GPU unless --gpu names the GPUs for all; on none when the catalog lacks it.
        std::vector<std::optional<std::vector<const GpuSpec*>>> run_gpus;
        std::vector<std::string> run_notes;
        if (!args.given("--gpu"))
            for (const BabelStreamRun& run : parsed.runs) {
                run_gpus.resize(static_cast<std::size_t>(std::max(run.run, 1)));
                if (run.device == device)
                    continue;
                if (run.device.empty()) {
                    // A run that names no device beside one that does: a CPU model (TBB, OpenMP, STD print
                    // none), or one whose device line was not pasted; it is not the named run's GPU.
                    run_gpus.back() = std::vector<const GpuSpec*>{};
                    run_notes.push_back(
                        fmt::format("run {} ({}) names no device: read without a GPU (no % of peak); give "
                                    "--gpu to compare every run with one GPU",
                                    run.run, run.implementation.empty() ? "BabelStream" : run.implementation));
                    continue;
                }
                std::string note;
                run_gpus.back() = ingest_gpus_or_none(args, catalog, run.device, note);
                if (!note.empty())
                    note = fmt::format("run {}: {}", run.run, note);
                else {
                    std::vector<std::string> ids;
                    for (const GpuSpec* g : *run_gpus.back())
                        ids.push_back(g->id);
                    note = fmt::format("run {} ran on '{}', not on the file's first device '{}': analysed on {}", run.run,
                                       run.device, device, fmt::join(ids, ", "));
                }
                run_notes.push_back(std::move(note));
            }
        IngestReport report = babelstream_report(parsed, path, gpus, run_gpus);
        if (!no_gpu.empty())
            report.notes.push_back(no_gpu);
        for (std::string& note : run_notes)
            report.notes.push_back(std::move(note));
        return emit_ingest(report, gpus, args, env);
    };
    return c;
}

}  // namespace bwacct::cli
