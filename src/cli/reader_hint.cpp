#include "reader_hint.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace bwacct::cli {

namespace {

std::string with_path(const FileKind kind, const std::string& path) {
    std::string c = file_kind_command(kind);
    return c.replace(c.find("FILE"), 4, path);
}

}  // namespace

std::string other_reader_hint(const std::string& path, const FileKind own) {
    std::vector<FileKind> kinds = sniff_file_kinds_at(path);
    const bool gzip = !kinds.empty() && kinds.front() == FileKind::gzip;
    if (gzip)
        kinds.erase(kinds.begin());
    // torch-trace reads gzip itself; the text readers (and --hf-config) need the file decompressed.
    if (gzip && own != FileKind::kineto_trace && (kinds.empty() || kinds.front() == own))
        return kinds.empty() ? "" : fmt::format("; the file is gzip-compressed: decompress it first (gunzip -k {})", path);
    const auto other = std::find_if(kinds.begin(), kinds.end(), [&](FileKind k) { return k != own; });
    if (other == kinds.end())
        return "";
    if (gzip && *other != FileKind::kineto_trace) {
        const std::string plain = path.ends_with(".gz") ? path.substr(0, path.size() - 3) : path;
        return fmt::format("; the file looks like gzip-compressed {}: decompress it (gunzip -k {}) and read it with `{}`",
                           file_kind_name(*other), path, with_path(*other, plain));
    }
    return fmt::format("; the file looks like {}: read it with `{}`", file_kind_name(*other), with_path(*other, path));
}

InputError with_reader_hint(const InputError& e, const std::string& path, const FileKind own) {
    const std::string message = e.what();
    if (path.empty() || path == "-" || message.find("read it with") != std::string::npos)
        return e;
    const std::string hint = other_reader_hint(path, own);
    if (hint.empty())
        return e;
    const std::size_t prefix = e.option().empty() ? 0 : e.option().size() + 2;  // "option: "
    return InputError(e.option(), message.substr(prefix) + hint);
}

}  // namespace bwacct::cli
