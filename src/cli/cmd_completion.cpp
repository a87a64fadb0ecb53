// `bwacct completion bash|zsh|fish` (shell completion) and the hidden `bwacct man` (the man page
// bwacct.1, generated at build time and installed): both written from the same command tables
// (CommandSpec, OptionSpec) that build `--help`, so they name exactly the commands and options there are.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "bwacct/catalog.h"
#include "bwacct/dtype.h"
#include "bwacct/error.h"
#include "bwacct/suggest.h"
#include "command.h"
#include "option_kind.h"

#ifndef BWACCT_VERSION
#define BWACCT_VERSION "0.0.0"
#endif

namespace bwacct::cli {
namespace {

std::string words(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& w : v)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

// The dtype names and aliases, from the accepted list ("fp8 (= fp8_e4m3)" gives fp8 and fp8_e4m3).
std::vector<std::string> dtype_words() {
    std::vector<std::string> out;
    std::string word;
    for (char c : std::string(dtype_choices()) + " ") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            word += c;
        } else if (!word.empty()) {
            out.push_back(word);
            word.clear();
        }
    }
    return out;
}

// What an option's value is completed from: GPU ids, dtypes, formats, files, or nothing (a number).
enum class Values { none, gpus, dtypes, formats, files };
Values values_of(const CommandSpec& c, const OptionSpec& o) {
    if (o.positional || option_kind(c, o) == std::optional<std::string_view>("FILE"))  // --gpu-file, --plot, --baseline ...
        return Values::files;
    if (o.name == "--gpu" || o.name == "--from" || o.name == "--to")
        return Values::gpus;
    if (o.name.rfind("--dtype", 0) == 0)
        return Values::dtypes;
    if (o.name == "--format")
        return Values::formats;
    return Values::none;
}

struct Tables {
    std::vector<CommandSpec> commands;
    std::vector<std::string> gpus, dtypes = dtype_words(), formats{"table", "json", "jsonl", "csv", "md"};
    std::vector<std::string> top, groups;

    Tables() : commands(all_commands()) {
        const Catalog catalog = Catalog::load_default();
        for (const GpuSpec& g : catalog.gpus())
            gpus.push_back(g.id);
        gpus.push_back("all");
        for (const CommandSpec& c : commands) {
            if (c.hidden)
                continue;
            const std::string& name = c.parent.empty() ? c.name : c.parent;
            if (std::find(top.begin(), top.end(), name) == top.end())
                top.push_back(name);
            if (!c.parent.empty() && std::find(groups.begin(), groups.end(), c.parent) == groups.end())
                groups.push_back(c.parent);
        }
    }
    std::vector<std::string> tools(const std::string& group) const {
        std::vector<std::string> out;
        for (const CommandSpec& c : commands)
            if (c.parent == group)
                out.push_back(c.name);
        return out;
    }
    std::vector<std::string> option_names(Values v) const {
        std::vector<std::string> out;
        for (const CommandSpec& c : commands)
            for (const OptionSpec& o : c.options)
                if (!o.positional && values_of(c, o) == v && std::find(out.begin(), out.end(), o.name) == out.end())
                    out.push_back(o.name);
        return out;
    }
};

std::string join_alternatives(const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& w : v)
        out += (out.empty() ? "" : "|") + w;
    return out;
}

std::string bash_function(const Tables& t) {
    std::string s =
        "_bwacct() {\n"
        "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path=${COMP_WORDS[1]}\n";
    s += fmt::format("    if ((COMP_CWORD == 1)); then COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return; fi\n", words(t.top));
    s += "    case $path in\n";
    for (const std::string& g : t.groups)
        s += fmt::format(
            "        {0})\n            if ((COMP_CWORD == 2)); then COMPREPLY=($(compgen -W \"{1}\" -- \"$cur\")); return; fi\n"
            "            path=\"{0} ${{COMP_WORDS[2]}}\" ;;\n",
            g, words(t.tools(g)));
    s += "    esac\n    case $prev in\n";
    const std::pair<Values, std::string> lists[] = {
        {Values::gpus, words(t.gpus)}, {Values::dtypes, words(t.dtypes)}, {Values::formats, words(t.formats)}};
    for (const auto& [v, list] : lists)
        s += fmt::format("        {}) COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return ;;\n",
                         join_alternatives(t.option_names(v)), list);
    s += fmt::format("        {}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n",
                     join_alternatives(t.option_names(Values::files)));
    s += "    esac\n    local opts=\n    case $path in\n";
    for (const CommandSpec& c : t.commands) {
        std::vector<std::string> opts{"--help"};
        for (const OptionSpec& o : c.options)
            if (!o.positional)
                opts.push_back(o.name);
        s += fmt::format("        \"{}\") opts=\"{}\" ;;\n", c.parent.empty() ? c.name : c.parent + " " + c.name, words(opts));
    }
    s += "    esac\n"
         "    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); else COMPREPLY=($(compgen -f -- "
         "\"$cur\")); fi\n"
         "}\n";
    return s;
}

std::string fish_quote(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'' || c == '\\')
            out += '\\';
        out += c;
    }
    return out + "'";
}

std::string fish(const Tables& t) {
    std::string s = "# fish completion for bwacct (generated by `bwacct completion fish`)\ncomplete -c bwacct -f\n";
    for (const CommandSpec& c : t.commands)
        if (c.parent.empty() && !c.hidden)
            s += fmt::format("complete -c bwacct -n __fish_use_subcommand -a {} -d {}\n", c.name, fish_quote(c.summary));
    for (const std::string& g : t.groups) {
        s += fmt::format("complete -c bwacct -n __fish_use_subcommand -a {} -d {}\n", g,
                         fish_quote("read another tool's measurements"));
        for (const CommandSpec& c : t.commands)
            if (c.parent == g)
                s += fmt::format(
                    "complete -c bwacct -n '__fish_seen_subcommand_from {}; and not __fish_seen_subcommand_from {}' -a {} -d "
                    "{}\n",
                    g, words(t.tools(g)), c.name, fish_quote(c.summary));
    }
    for (const CommandSpec& c : t.commands) {
        const std::string cond =
            c.parent.empty()
                ? fmt::format("'__fish_seen_subcommand_from {}'", c.name)
                : fmt::format("'__fish_seen_subcommand_from {}; and __fish_seen_subcommand_from {}'", c.parent, c.name);
        for (const OptionSpec& o : c.options) {
            if (o.positional) {
                s += fmt::format("complete -c bwacct -n {} -F\n", cond);
                continue;
            }
            std::string values;
            switch (values_of(c, o)) {
                case Values::gpus:
                    values = " -xa " + fish_quote(words(t.gpus));
                    break;
                case Values::dtypes:
                    values = " -xa " + fish_quote(words(t.dtypes));
                    break;
                case Values::formats:
                    values = " -xa " + fish_quote(words(t.formats));
                    break;
                case Values::files:
                    values = " -rF";
                    break;
                case Values::none:
                    values = o.flag ? "" : " -x";
                    break;
            }
            s += fmt::format("complete -c bwacct -n {} -l {}{} -d {}\n", cond, o.name.substr(2), values, fish_quote(o.help));
        }
    }
    return s;
}

// roff text: backslashes and hyphens escaped, no line starting with a control character.
std::string roff(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
        if (c == '\n')
            out += "\\&";
    }
    return (!out.empty() && (out[0] == '.' || out[0] == '\'')) ? "\\&" + out : out;
}

std::string man_page(const Tables& t) {
    std::string s = fmt::format(".TH BWACCT 1 \"\" \"bwacct {}\" \"User Commands\"\n", BWACCT_VERSION);
    s += ".SH NAME\nbwacct \\- GPU bandwidth accounting and roofline analysis\n"
         ".SH SYNOPSIS\n.B bwacct\n.I command\n[\\fIoptions\\fR]\n.br\n.B bwacct\n.B ingest\n.I tool file\n[\\fIoptions\\fR]\n"
         ".SH DESCRIPTION\nByte and FLOP formulas per op, four roofs (compute, HBM, link, dispatch) and the catalog's peaks, "
         "each with its source. Every output says whether its time is modelled, given (\\-\\-time\\-us), measured, simulated or "
         "ingested. Numeric options take one value, a list a,b,c or a range a:b:xF (geometric) or a:b:+S (arithmetic); sizes "
         "and token counts take K, M, G, T (or k, m, g, t), powers of 1024. Names (GPU ids, dtypes, formats) are "
         "case-insensitive.\n.SH COMMANDS\n";
    for (const CommandSpec& c : t.commands) {
        if (c.hidden)
            continue;
        s += fmt::format(".SS \"bwacct {}\"\n{}\n", roff(c.parent.empty() ? c.name : c.parent + " " + c.name), roff(c.summary));
        for (const OptionSpec& o : c.options) {
            const std::string_view kind = option_kind(c, o).value_or("");
            s += fmt::format(".TP\n.B {}{}\n{}", roff(o.name), kind.empty() ? "" : " \\fI" + roff(std::string(kind)) + "\\fR",
                             roff(o.help));
            if (!o.default_value.empty())
                s += fmt::format(" (default: {})", roff(o.default_value));
            s += "\n";
        }
        s += fmt::format(".PP\nExample:\n.nf\n.RS\n{}\n.RE\n.fi\n", roff(c.example));
    }
    s += ".SH EXIT STATUS\n0: success. 1: runtime failure (a measurement or a write failed). 2: bad input (one line on standard "
         "error naming the option or file and the accepted form).\n"
         ".SH ENVIRONMENT\n.TP\n.B BWACCT_CATALOG\na GPU catalog file used instead of the one compiled in "
         "(configs/gpus.json at build time)\n.TP\n.B BWACCT_MODELS\na directory of model presets used instead of the ones "
         "compiled in\n.TP\n.B NO_COLOR\nno colour in tables\n"
         ".SH SEE ALSO\nbwacct completion bash|zsh|fish prints a shell completion script.\n";
    return s;
}

}  // namespace

std::vector<CommandSpec> completion_commands() {
    CommandSpec completion;
    completion.name = "completion";
    completion.summary = "print a shell completion script (bash, zsh or fish) for commands, options, GPU ids, dtypes and formats";
    completion.example = "source <(bwacct completion bash)\n  bwacct completion fish > ~/.config/fish/completions/bwacct.fish";
    completion.options = {{"shell", "bash, zsh or fish", "", false, true}};
    completion.run = [](const Args& args, const Env& env) {
        const std::string shell = lower_ascii(args.get("shell"));
        const std::vector<std::string> shells{"bash", "zsh", "fish"};
        if (std::find(shells.begin(), shells.end(), shell) == shells.end())
            throw InputError("shell", fmt::format("unknown shell '{}'{}; accepted: bash, zsh, fish", args.get("shell"),
                                                  did_you_mean(args.get("shell"), shells)));
        const Tables t;
        if (shell == "bash")
            fmt::print(env.out,
                       "# bash completion for bwacct (generated by `bwacct completion bash`)\n{}complete -F _bwacct bwacct\n",
                       bash_function(t));
        else if (shell == "zsh")
            fmt::print(
                env.out,
                "#compdef bwacct\n# zsh completion for bwacct (generated by `bwacct completion zsh`): the bash "
                "completion through bashcompinit\nautoload -U +X bashcompinit && bashcompinit\n{}complete -F _bwacct bwacct\n",
                bash_function(t));
        else
            fmt::print(env.out, "{}", fish(t));
        return 0;
    };

    CommandSpec man;
    man.name = "man";
    man.hidden = true;
    man.summary = "print the man page bwacct.1 (roff)";
    man.example = "bwacct man > bwacct.1 && man -l bwacct.1";
    man.run = [](const Args&, const Env& env) {
        fmt::print(env.out, "{}", man_page(Tables{}));
        return 0;
    };
    return {completion, man};
}

}  // namespace bwacct::cli
