// What each option's value is, as `--help` shows it in place of CLI11's TEXT ("--m INT|RANGE",
// "--workspace SIZE", "--gpu-file FILE"): one table (option_kind.cpp) for every command, read by
// app.cpp when it builds the options.
#pragma once
#include <optional>
#include <string_view>

#include "command.h"

namespace bwacct::cli {

// The kind of `option` of `command` ("gemm", "ingest nccl-tests"): INT, INT|RANGE, INT|LIST, SIZE,
// SIZE|RANGE, FLOAT, FLOAT|RANGE, FLOAT|LIST, NAME, LIST, FILE, SHAPE, PERCENT, RATE, KEY=VALUE.
// Empty for a flag (it takes no value); nullopt for an option the table does not know (a test
// fails on it, so that every option a command declares has its kind).
std::optional<std::string_view> option_kind(const CommandSpec& command, const OptionSpec& option);

}  // namespace bwacct::cli
