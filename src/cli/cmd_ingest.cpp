// `bwacct ingest TOOL FILE`: the tools whose output bwacct reads, one file each.
#include "command.h"

namespace bwacct::cli {

std::vector<CommandSpec> ingest_commands() {
    std::vector<CommandSpec> out{ingest_nccl_command(), ingest_torch_command()};
    for (CommandSpec& c : ingest_nsight_commands())
        out.push_back(std::move(c));
    out.push_back(ingest_babelstream_command());
    for (CommandSpec& c : out)
        c.parent = "ingest";
    return out;
}

}  // namespace bwacct::cli
