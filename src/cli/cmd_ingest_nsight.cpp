// `bwacct ingest nsys FILE` and `bwacct ingest ncu FILE`: Nsight Systems kernel summaries and Nsight
// Compute CSV exports (parsers in src/ingest/nsys_*.cpp and ncu_*.cpp).
#include "bwacct/error.h"
#include "bwacct/ingest_nsight.h"
#include "bwacct/text_file.h"
#include "command.h"
#include "ingest_common.h"

namespace bwacct::cli {
namespace {

constexpr const char* kNsysExpected =
    "expected `nsys stats --report cuda_gpu_kern_sum` output (CSV or text), an nsys or nvprof GPU trace, nvprof's summary "
    "or AMD rocprof's kernel statistics CSV";
constexpr const char* kNcuExpected = "expected an `ncu --csv` export (--page details or --page raw)";

CommandSpec nsys_command() {
    CommandSpec c;
    c.name = "nsys";
    c.summary =
        "Nsight Systems kernel summary (cuda_gpu_kern_sum; also GPU traces, memory operations, nvprof and AMD rocprof "
        "statistics): time per kernel and per category";
    c.example =
        "nsys stats --report cuda_gpu_kern_sum --format csv --output . report.nsys-rep  # writes *_cuda_gpu_kern_sum.csv\n"
        "  bwacct ingest nsys report_cuda_gpu_kern_sum.csv";
    c.options = ingest_options("nsys stats cuda_gpu_kern_sum output (CSV, or the console text of nsys profile --stats=true)", "");
    c.run = [](const Args& args, const Env& env) {
        const std::string path = args.get("file");
        const NsysKernSum sum = parse_nsys_kern_sum(read_text_input(path, kNsysExpected), path);
        IngestReport report = nsys_report(sum, path);
        std::vector<const GpuSpec*> gpus;
        if (args.given("--gpu")) {  // accepted for symmetry; nsys has no bytes to set against a peak
            gpus = catalog_for(args).select(args.get("--gpu"), "--gpu");
            for (const GpuSpec* g : gpus)
                report.gpus.push_back(g->id);
        }
        return emit_ingest(report, gpus, args, env);
    };
    return c;
}

CommandSpec ncu_command() {
    CommandSpec c;
    c.name = "ncu";
    c.summary = "Nsight Compute CSV: measured DRAM bytes, time and bandwidth per kernel against the HBM peak";
    c.example =
        "ncu --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum --csv ./app > metrics.csv\n"
        "  bwacct ingest ncu metrics.csv --gpu h100-sxm";
    c.options = ingest_options("ncu --csv export (--page details or --page raw)", "");
    c.run = [](const Args& args, const Env& env) {
        const std::string path = args.get("file");
        const NcuProfile profile = parse_ncu_csv(read_text_input(path, kNcuExpected), path);
        const Catalog catalog = catalog_for(args);
        std::string no_gpu;
        const std::vector<const GpuSpec*> gpus = ingest_gpus_or_none(args, catalog, ncu_device_name(profile), no_gpu);
        IngestReport report = ncu_report(profile, path, gpus);
        if (!no_gpu.empty())
            report.notes.push_back(no_gpu);
        return emit_ingest(report, gpus, args, env);
    };
    return c;
}

}  // namespace

std::vector<CommandSpec> ingest_nsight_commands() { return {nsys_command(), ncu_command()}; }

}  // namespace bwacct::cli
