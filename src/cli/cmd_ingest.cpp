// `bwacct ingest TOOL FILE`: the tools whose output bwacct reads, one file each. A file a reader refuses
// is sniffed (file_kind.h): when it looks like another tool's output, the refusal says which reader
// takes it.
#include <fmt/format.h>

#include <algorithm>

#include "bwacct/error.h"
#include "bwacct/file_kind.h"
#include "command.h"

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

std::string with_path(const FileKind kind, const std::string& path) {
    std::string c = file_kind_command(kind);
    return c.replace(c.find("FILE"), 4, path);
}

// "; the file looks like ...: read it with `...`" for a file `command` refused, or "" (no other kind).
std::string other_reader_hint(const std::string& path, const std::string& command) {
    const FileKind own = own_kind(command);
    std::vector<FileKind> kinds = sniff_file_kinds_at(path);
    const bool gzip = !kinds.empty() && kinds.front() == FileKind::gzip;
    if (gzip)
        kinds.erase(kinds.begin());
    // torch-trace reads gzip itself; the text readers need the file decompressed.
    if (gzip && own != FileKind::kineto_trace && (kinds.empty() || kinds.front() == own))
        return kinds.empty() ? "" : fmt::format("; the file is gzip-compressed: decompress it first (gunzip -k {})", path);
    const auto other = std::find_if(kinds.begin(), kinds.end(), [&](FileKind k) { return k != own; });
    if (other == kinds.end())
        return "";
    if (gzip && *other != FileKind::kineto_trace)
        return fmt::format("; the file looks like gzip-compressed {}: decompress it (gunzip -k {}) and read it with `{}`",
                           file_kind_name(*other), path,
                           with_path(*other, path.substr(0, path.size() - (path.ends_with(".gz") ? 3 : 0))));
    return fmt::format("; the file looks like {}: read it with `{}`", file_kind_name(*other), with_path(*other, path));
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
                const std::string message = e.what();
                if (path.empty() || path == "-" || e.option() != path || message.find("read it with") != std::string::npos)
                    throw;
                const std::string hint = other_reader_hint(path, name);
                if (hint.empty())
                    throw;
                throw InputError(path, message.substr(path.size() + 2) + hint);
            }
        };
    }
    return out;
}

}  // namespace bwacct::cli
