// What kind of measurement file a text looks like, from its first bytes: used only to point a user who
// gave a file to the wrong reader at the right one (`bwacct ingest nccl-tests trace.json` is refused by
// the nccl-tests reader, then told that the file looks like a PyTorch profiler trace). A guess on
// markers each tool always writes, never a reading: the readers decide what they accept.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace bwacct {

enum class FileKind { gzip, kineto_trace, model_config, nccl_tests, babelstream, nsys_stats, ncu_export };

// The kinds whose markers `head` (the file's first bytes; 64 KiB is plenty) holds, in the order above.
std::vector<FileKind> sniff_file_kinds(std::string_view head);

// The kinds of the file at `path` from its first 64 KiB; a gzip file's from its first 64 KiB
// decompressed, with FileKind::gzip first. Empty when the file cannot be read (no error: a hint only).
std::vector<FileKind> sniff_file_kinds_at(const std::string& path);

// "a PyTorch profiler (Kineto) trace", ... for messages.
std::string file_kind_name(FileKind kind);

// The command that reads the kind, with FILE for the path: "bwacct ingest torch-trace FILE",
// "bwacct model --hf-config FILE"; gzip: empty (no one reader: the contents decide).
std::string file_kind_command(FileKind kind);

}  // namespace bwacct
