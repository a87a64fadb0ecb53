// `bwacct ingest babelstream FILE`: BabelStream text or --csv output, or SuperBench gpu-stream output
// (parser in src/ingest/babelstream_*.cpp).
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
        const std::vector<const GpuSpec*> gpus = ingest_gpus_or_none(args, catalog, babelstream_device_name(parsed), no_gpu);
        IngestReport report = babelstream_report(parsed, path, gpus);
        if (!no_gpu.empty())
            report.notes.push_back(no_gpu);
        return emit_ingest(report, gpus, args, env);
    };
    return c;
}

}  // namespace bwacct::cli
