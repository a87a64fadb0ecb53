#include "command.h"

namespace bwacct::cli {

// Filled in by the workload-accounting work (issue 4); no command is registered until it lands.
std::vector<CommandSpec> step_commands() { return {}; }

}  // namespace bwacct::cli
