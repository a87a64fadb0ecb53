#include "bwacct/catalog.h"
#include "bwacct/catalog_report.h"
#include "command.h"

namespace bwacct::cli {

std::vector<CommandSpec> catalog_commands() {
    CommandSpec list;
    list.name = "gpus";
    list.summary = "the GPU catalog: dense peaks, memory bandwidth, per-direction link bandwidth";
    list.example = "bwacct gpus\n  bwacct gpus --format json";
    list.options = {{"--format", "table, json, jsonl (same as json), csv or md", "table"},
                    {"--gpu-file", "extra catalog JSON that adds or overrides entries", ""}};
    list.run = [](const Args& args, const Env& env) {
        const Format f = parse_format(args.get("--format"));
        print_catalog(catalog_for(args), f, env.out);
        return 0;
    };

    CommandSpec one;
    one.name = "gpu";
    one.summary = "one catalog entry with every figure's source, notes and alternatives";
    one.example = "bwacct gpu h200\n  bwacct gpu b200 --format json";
    one.options = {{"id", "catalog id (see `bwacct gpus`)", "", false, true},
                   {"--format", "table or json", "table"},
                   {"--gpu-file", "extra catalog JSON that adds or overrides entries", ""}};
    one.run = [](const Args& args, const Env& env) {
        const Format f = parse_format(args.get("--format"));
        const Catalog c = catalog_for(args);
        print_gpu(c.get(args.get("id"), "id"), f, env.out);
        return 0;
    };
    return {list, one};
}

}  // namespace bwacct::cli
