// A file one reader refused, checked for another tool's markers (bwacct/file_kind.h): the refusal then
// names the reader that takes it. Used by every `ingest` command and by --hf-config.
#pragma once
#include <string>

#include "bwacct/error.h"
#include "bwacct/file_kind.h"

namespace bwacct::cli {

// "; the file looks like ...: read it with `...`" (or the gunzip step for a compressed text log) for the
// file at `path` that the reader of `own` refused; "" when it looks like no other kind.
std::string other_reader_hint(const std::string& path, FileKind own);

// `e` with other_reader_hint appended (same option), or `e` itself when there is no hint, "-" is the
// path, or the message already names a reader.
InputError with_reader_hint(const InputError& e, const std::string& path, FileKind own);

}  // namespace bwacct::cli
