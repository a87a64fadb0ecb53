// `bwacct ingest TOOL FILE`: the tools whose output bwacct reads, one file each. A file a reader refuses
// is sniffed (file_kind.h): when it looks like another tool's output, the refusal says which reader
// takes it.
#include "command.h"
#include "reader_hint.h"

namespace bwacct::cli {

namespace {

// The kind each reader reads.
FileKind own_kind(const std::string& command) {
    if (command == "nccl-tests")
        return FileKind::nccl_tests;
    if (command == "torch-trace")
        return FileKind::kineto_trace;
    if (command == "ncu")
        return FileKind::ncu_export;
    if (command == "babelstream")
        return FileKind::babelstream;
    return FileKind::nsys_stats;
}

}  // namespace

std::vector<CommandSpec> ingest_commands() {
    std::vector<CommandSpec> out{ingest_nccl_command(), ingest_torch_command()};
    for (CommandSpec& c : ingest_nsight_commands())
        out.push_back(std::move(c));
    out.push_back(ingest_babelstream_command());
    for (CommandSpec& c : out) {
        c.parent = "ingest";
        c.run = [run = std::move(c.run), name = c.name](const Args& args, const Env& env) {
            try {
                return run(args, env);
            } catch (const InputError& e) {
                const std::string path = args.get("file");
                if (e.option() != path)  // a refusal of an option, not of the file
                    throw;
                throw with_reader_hint(e, path, own_kind(name));
            }
        };
    }
    return out;
}

}  // namespace bwacct::cli
