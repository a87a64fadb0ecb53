// Subcommands described as data: app.cpp (the only file that includes CLI11) turns each
// CommandSpec into a CLI11 subcommand, collects the values as strings and calls `run`.
#pragma once
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bwacct/catalog.h"

namespace bwacct::cli {

struct OptionSpec {
    std::string name;  // "--m"
    std::string help;
    std::string default_value;  // shown in --help; used when the option is absent
    bool flag = false;          // takes no value
    bool positional = false;    // a positional argument (name without dashes)
};

class Args {
public:
    void set(const std::string& name, std::string value) { values_[name] = std::move(value); }
    void mark_given(const std::string& name) { given_.insert(name); }
    const std::string& get(const std::string& name) const;
    bool given(const std::string& name) const { return given_.count(name) > 0; }
    bool declared(const std::string& name) const { return values_.count(name) > 0; }
    bool flag(const std::string& name) const { return get(name) == "true"; }

private:
    std::map<std::string, std::string> values_;
    std::set<std::string> given_;
};

struct Env {
    std::FILE* out = stdout;
    bool tty = false;  // stdout is a terminal and NO_COLOR is unset
};

struct CommandSpec {
    std::string name;
    std::string parent;  // "ingest" for `bwacct ingest nccl-tests ...`; empty for a top-level command
    std::string summary;
    std::string example;
    std::vector<OptionSpec> options;
    std::function<int(const Args&, const Env&)> run;
    bool hidden = false;  // left out of --help and the completions (`bwacct man`, run at build time)
};

// Options every op subcommand takes (--gpu, --gpu-file, --format, --time-us, --explain, --launch-us).
std::vector<OptionSpec> common_op_options();
// The shipped catalog with the command's --gpu-file merged in (when it has one and it is set).
Catalog catalog_for(const Args& args);
std::vector<CommandSpec> all_commands();

CommandSpec gemm_command();
CommandSpec conv_command();  // cmd_conv.cpp: convolutions (issue 12)
CommandSpec attention_command();
CommandSpec elementwise_command();
std::vector<CommandSpec> norm_commands();
std::vector<CommandSpec> collective_commands();
std::vector<CommandSpec> catalog_commands();
std::vector<CommandSpec> completion_commands();  // cmd_completion.cpp: completion bash|zsh|fish, man (hidden)
std::vector<CommandSpec> measure_commands();
// Workload accounting (issue 4): one group per file.
std::vector<CommandSpec> layer_commands();       // cmd_layer.cpp: layer, model
std::vector<CommandSpec> train_commands();       // cmd_train.cpp: train (seed 002)
std::vector<CommandSpec> step_commands();        // cmd_step.cpp: step (seed 003), zero (seed 004 §4/§8)
std::vector<CommandSpec> projection_commands();  // cmd_project.cpp: project (seed 000), fit
// Other tools' measurements (issue 5), each `bwacct ingest TOOL FILE`: one file per tool.
std::vector<CommandSpec> ingest_commands();         // cmd_ingest.cpp: collects the ones below
CommandSpec ingest_nccl_command();                  // cmd_ingest_nccl.cpp: nccl-tests text and -J JSON
CommandSpec ingest_torch_command();                 // cmd_ingest_torch.cpp: PyTorch profiler (Kineto) traces
std::vector<CommandSpec> ingest_nsight_commands();  // cmd_ingest_nsight.cpp: nsys, ncu
CommandSpec ingest_babelstream_command();           // cmd_ingest_babelstream.cpp: BabelStream text and CSV
CommandSpec compare_command();                      // cmd_compare.cpp: two bwacct JSON outputs (issue 14)

}  // namespace bwacct::cli
