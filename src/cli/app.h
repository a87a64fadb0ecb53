#pragma once

namespace bwacct::cli {

// Parses argv, runs the subcommand, returns the process exit code.
int run_app(int argc, char** argv);

}  // namespace bwacct::cli
