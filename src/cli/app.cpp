// The only file that includes CLI11: turns the CommandSpecs into subcommands, parses, dispatches,
// and maps errors to exit codes (0 ok, 1 runtime failure, 2 bad input: one line on stderr).
#include "app.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <system_error>

#include "backend.h"
#include "bwacct/error.h"
#include "bwacct/finite_guard.h"
#include "bwacct/suggest.h"
#include "bwacct/values.h"
#include "command.h"
#include "mpi_context.h"
#include "option_kind.h"
#include "output_policy.h"

#ifndef BWACCT_VERSION
#define BWACCT_VERSION "0.0.0"
#endif
#ifndef BWACCT_BUILD_NOTE
#define BWACCT_BUILD_NOTE "model only"
#endif

namespace bwacct::cli {
namespace {

struct Bound {
    CLI::App* app;
    const CommandSpec* spec;
    std::string full_name;  // "gemm", "ingest nccl-tests"
    std::map<std::string, std::string> values;
    std::map<std::string, bool> flags;
    std::map<std::string, CLI::Option*> options;
};

// An error message on one line: a control character a file or option put into it (a key "a\nb", a CRLF line)
// is shown escaped (a backslash and n, \x1b), never as a line break that cuts the rest of the message off.
std::string one_line(const std::string& s) {
    std::string out;
    std::size_t end = s.size();
    while (end > 0 && (s[end - 1] == '\n' || s[end - 1] == '\r'))
        --end;
    for (std::size_t i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if ((c < 0x20 && c != '\t') || c == 0x7f)
            out += fmt::format("\\x{:02x}", c);
        else
            out += static_cast<char>(c);
    }
    return out;
}

// A figure that came out inf or NaN is blamed on the real-valued options the user gave (the values
// layer noted each real option it parsed, defaults included; only those on the command line are
// named); with none, on the input file, else on the figure alone (a catalog value).
std::string non_finite_message(const NonFiniteFigure& e, const Args& args, const CommandSpec& spec) {
    std::string given;
    for (const auto& noted : real_options_given())
        if (args.given(noted.first))
            given += fmt::format("{}{} {}", given.empty() ? "" : ", ", noted.first, args.get(noted.first));
    for (const OptionSpec& o : spec.options)  // the input files (fit FILE, ingest TOOL FILE), when no option is to blame
        if (given.empty() && o.positional && !args.get(o.name).empty())
            given = args.get(o.name);
    if (given.empty())
        return one_line(e.what());
    return fmt::format(
        "{}: the derived figure {} is not a finite number (it overflows or underflows a double); give "
        "values in a plausible range",
        given, e.figure());
}

// Help and --version: CLI11 writes them to a stream; they go to stdout through fmt, which reports a
// failed write with its errno (a help text longer than stdio's buffer fails mid-way on a full disk,
// and the error flag alone does not say why).
int print_through_fmt(const CLI::App& app, const CLI::Error& e, int& write_errno) {
    std::ostringstream out;
    const int code = app.exit(e, out, out);
    try {
        fmt::print(stdout, "{}", out.str());
    } catch (const std::system_error& se) {
        write_errno = se.code().value();
        return 1;
    }
    return code;
}

// The names one level of the command tree accepts: the top-level commands and groups (parent
// empty), or a group's tools (parent "ingest").
std::vector<std::string> command_names(const std::vector<CommandSpec>& commands, const std::string& parent,
                                       bool with_hidden = false) {
    std::vector<std::string> names;
    for (const CommandSpec& c : commands) {
        const std::string& name = parent.empty() && !c.parent.empty() ? c.parent : c.name;
        if ((with_hidden || !c.hidden) && (parent.empty() || c.parent == parent) &&
            std::find(names.begin(), names.end(), name) == names.end())
            names.push_back(name);
    }
    return names;
}

bool is_group(const std::vector<CommandSpec>& commands, std::string_view name) {
    return std::any_of(commands.begin(), commands.end(), [&](const CommandSpec& c) { return c.parent == name; });
}

// An unknown command or tool, named before CLI11 parses: "unknown command 'gemn'; did you mean gemm?".
// Empty when the words name a command (or are options, which CLI11 handles).
std::string unknown_command(const std::vector<CommandSpec>& commands, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-')
        return {};
    const std::string first = argv[1];
    const std::vector<std::string> top = command_names(commands, ""), all = command_names(commands, "", true);
    if (std::find(all.begin(), all.end(), first) == all.end())
        return fmt::format("bwacct: unknown command '{}'{} (see 'bwacct --help')", first, did_you_mean(first, top));
    if (!is_group(commands, first))
        return {};
    const std::vector<std::string> tools = command_names(commands, first);
    std::string list;
    for (const std::string& t : tools)
        list += (list.empty() ? "" : ", ") + t;
    if (argc < 3)
        return fmt::format("bwacct {}: name a tool: {} (see 'bwacct {} --help')", first, list, first);
    const std::string second = argv[2];
    if (second[0] == '-' || std::find(tools.begin(), tools.end(), second) != tools.end())
        return {};
    return fmt::format("bwacct {}: unknown tool '{}'{}; accepted: {} (see 'bwacct {} --help')", first, second,
                       did_you_mean(second, tools), list, first);
}

// The first option on the command line that `spec` does not take, with the nearest it does:
// "unknown option '--dtyp'; did you mean --dtype?". Empty when every option is known.
std::string unknown_option(const CommandSpec& spec, int argc, char** argv) {
    std::vector<std::string> names{"--help"};
    for (const OptionSpec& o : spec.options)
        if (!o.positional)
            names.push_back(o.name);
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.size() < 2 || arg[0] != '-' || !std::isalpha(static_cast<unsigned char>(arg[arg[1] == '-' ? 2 : 1])))
            continue;  // a value ("-5" is refused by the option it belongs to)
        const std::string name = arg.substr(0, arg.find('='));
        if (name == "-h" || std::find(names.begin(), names.end(), name) != names.end())
            continue;
        return fmt::format("unknown option '{}'{}", name, did_you_mean(name, names));
    }
    return {};
}

// Parses and runs one command. `who` becomes "bwacct CMD" once the command is known; `write_errno`
// the errno of a failed write to stdout that ended the command (run_app reports it).
int dispatch(int argc, char** argv, std::string& who, int& write_errno) {
    const std::vector<CommandSpec> commands = all_commands();
    if (const std::string unknown = unknown_command(commands, argc, argv); !unknown.empty()) {
        fmt::print(stderr, "{}\n", unknown);
        return 2;
    }
    CLI::App app{
        "bwacct — GPU bandwidth accounting and roofline analysis.\n"
        "Byte and FLOP formulas per op, four roofs (compute, HBM, link, dispatch), catalog peaks with sources."};
    app.name("bwacct");
    app.set_version_flag("--version", std::string("bwacct ") + BWACCT_VERSION + " (" + BWACCT_BUILD_NOTE + ")");
    app.require_subcommand(argc > 1 ? 1 : 0);  // `bwacct` alone prints this help (exit 0), as git and cargo do
    app.footer(
        "Every output says whether its time is modelled, given (--time-us), measured, simulated or ingested.\n"
        "Docs: docs/formulas.md (every formula), docs/json.md (output contract), docs/catalog.md (peaks and sources).");

    // The options of the command the arguments name, alone, are handed to CLI11: building every
    // command's options took 40 % of a model-only run's instructions (issue 14, start-up). The other
    // commands are listed (name and summary) for `bwacct --help`.
    const std::string word1 = argc > 1 ? argv[1] : "", word2 = argc > 2 ? argv[2] : "";
    auto named = [&](const CommandSpec& spec) {
        return spec.parent.empty() ? spec.name == word1 : spec.parent == word1 && spec.name == word2;
    };

    std::vector<std::unique_ptr<Bound>> bound;
    std::map<std::string, CLI::App*> parents;  // command groups: `bwacct ingest TOOL`
    for (const CommandSpec& spec : commands) {
        auto b = std::make_unique<Bound>();
        b->spec = &spec;
        CLI::App* parent = &app;
        if (!spec.parent.empty()) {
            auto [it, added] = parents.try_emplace(spec.parent, nullptr);
            if (added) {
                it->second = app.add_subcommand(
                    spec.parent,
                    "read another tool's measurements (nccl-tests, torch-trace, nsys, ncu, babelstream) and account for them");
                it->second->require_subcommand(1);
                it->second->footer(
                    "Example:\n  bwacct ingest nccl-tests all_reduce_perf.log --gpu h100-sxm\n"
                    "  bwacct ingest torch-trace trace.json.gz --gpu h200");
            }
            parent = it->second;
        }
        b->full_name = spec.parent.empty() ? spec.name : spec.parent + " " + spec.name;
        b->app = parent->add_subcommand(spec.name, spec.summary);
        b->app->footer("Example:\n  " + spec.example);
        if (spec.hidden)
            b->app->group("");
        if (!named(spec)) {
            bound.push_back(std::move(b));
            continue;
        }
        for (const OptionSpec& o : spec.options) {
            if (o.flag) {
                b->flags[o.name] = false;
                b->options[o.name] = b->app->add_flag(o.name, b->flags[o.name], o.help);
            } else {
                b->values[o.name] = o.default_value;
                CLI::Option* opt = b->app->add_option(o.name, b->values[o.name], o.help);
                opt->type_name(std::string(option_kind(spec, o).value_or("TEXT")));  // INT|RANGE, SIZE, FILE ...
                if (!o.default_value.empty())
                    opt->default_str(o.default_value);
                b->options[o.name] = opt;
            }
        }
        bound.push_back(std::move(b));
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return print_through_fmt(app, e, write_errno);
    } catch (const CLI::CallForAllHelp& e) {
        return print_through_fmt(app, e, write_errno);
    } catch (const CLI::CallForVersion& e) {
        return print_through_fmt(app, e, write_errno);
    } catch (const CLI::ParseError& e) {
        std::string sub, message = one_line(e.what());
        for (const auto& [name, p] : parents)
            if (p->parsed())
                sub = " " + name;
        for (const auto& b : bound)
            if (b->app->parsed()) {
                sub = " " + b->full_name;
                if (const std::string unknown = unknown_option(*b->spec, argc, argv); !unknown.empty())
                    message = unknown;
            }
        fmt::print(stderr, "bwacct{}: {} (see 'bwacct{} --help')\n", sub, message, sub);
        return 2;
    }
    if (argc <= 1) {  // no command: the help, on stdout
        fmt::print(stdout, "{}", app.help());
        return 0;
    }

    for (const auto& b : bound) {
        if (!b->app->parsed())
            continue;
        Args args;
        for (const auto& [name, value] : b->values)
            args.set(name, value);
        for (const auto& [name, value] : b->flags)
            args.set(name, value ? "true" : "false");
        for (const auto& [name, opt] : b->options)
            if (opt->count() > 0)
                args.mark_given(name);
        who = "bwacct " + b->full_name;
        Env env;
        env.tty = colour_wanted(::isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"), std::getenv("TERM"),
                                measure::MpiContext::under_launcher());
        try {
            for (const OptionSpec& o : b->spec->options)
                if (o.positional && args.get(o.name).empty())
                    throw InputError(o.name, "is required (see --help)");
            return b->spec->run(args, env);
        } catch (const NonFiniteFigure& e) {
            fmt::print(stderr, "bwacct {}: {}\n", b->full_name, non_finite_message(e, args, *b->spec));
            return 2;
        } catch (const InputError& e) {
            fmt::print(stderr, "bwacct {}: {}\n", b->full_name, one_line(e.what()));
            return 2;
        } catch (const measure::MeasureError& e) {
            fmt::print(stderr, "bwacct {}: {}\n", b->full_name, one_line(e.what()));
            return 1;
        } catch (const std::exception& e) {
            if (standard_output_failed()) {  // fmt throws when a write to stdout fails: run_app says so
                if (const auto* se = dynamic_cast<const std::system_error*>(&e))
                    write_errno = se->code().value();
                return 1;
            }
            fmt::print(stderr, "bwacct {}: internal error: {}\n", b->full_name, one_line(e.what()));
            return 1;
        }
    }
    return 2;
}

}  // namespace

// Every command's output is flushed and checked here, in one place (output_policy.h).
int run_app(int argc, char** argv) {
    prepare_standard_streams();
    std::string who = "bwacct";
    int write_errno = 0;
    const int code = dispatch(argc, argv, who, write_errno);
    return finish_standard_output(code, who, write_errno);
}

}  // namespace bwacct::cli
