#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <stdexcept>

#include "command.h"
#include "plot_option.h"

namespace bwacct::cli {

const std::string& Args::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end())
        throw std::logic_error("option not declared: " + name);
    return it->second;
}

Catalog catalog_for(const Args& args) {
    Catalog c = Catalog::load_default();
    if (args.declared("--gpu-file") && !args.get("--gpu-file").empty()) {
        const std::string& file = args.get("--gpu-file");
        static std::set<std::string> warned;  // one warning per run, however often the catalog is built
        if (const std::vector<std::string> replaced = c.merge(Catalog::load(file, "--gpu-file"));
            !replaced.empty() && warned.insert(file).second)
            fmt::print(stderr,
                       "bwacct: warning: --gpu-file {}: {} {} the shipped catalog's entr{} of the same id; the file's figures "
                       "are used\n",
                       file, fmt::join(replaced, ", "), replaced.size() == 1 ? "replaces" : "replace",
                       replaced.size() == 1 ? "y" : "ies");
    }
    return c;
}

std::vector<OptionSpec> common_op_options() {
    return {
        {"--gpu", "GPUs to compare, comma-separated catalog ids, or 'all'", "h200,b200"},
        {"--gpu-file", "extra catalog JSON (same schema as configs/gpus.json); adds or overrides entries", ""},
        {"--format", "output: table, json, jsonl, csv or md", "table"},
        {"--time-us", "a time you measured elsewhere (µs): gives implied bandwidth, TFLOP/s and utilization", ""},
        {"--time-gpu", "the GPU --time-us was measured on (default: the first --gpu); the others get it projected", ""},
        {"--zip", "pair the values of list options one to one instead of taking every combination", "", true},
        {"--launch-us", "kernel launch overhead for the dispatch roof (µs); 0: no dispatch roof; default: the catalog's", ""},
        {"--explain", "print every formula with its numbers", "", true},
        {"--no-header", "csv and md: leave the header row out (for appending to a file in a loop)", "", true},
        plot_option(),
    };
}

std::vector<CommandSpec> all_commands() {
    std::vector<CommandSpec> out{gemm_command(), conv_command(), attention_command(), elementwise_command(), compare_command()};
    for (auto* group : {norm_commands, collective_commands, layer_commands, train_commands, step_commands, projection_commands,
                        ingest_commands, measure_commands, catalog_commands, completion_commands})
        for (CommandSpec& c : group())
            out.push_back(std::move(c));
    return out;
}

}  // namespace bwacct::cli
