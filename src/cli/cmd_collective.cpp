#include <fmt/format.h>

#include <array>

#include "bwacct/choice.h"
#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "bwacct/values.h"
#include "mpi_context.h"
#include "op_runner.h"

namespace bwacct::cli {

namespace {

LinkChoice link_option(const Args& args) {
    static constexpr std::array<Choice<LinkChoice>, 3> kLinks{
        {{"auto", LinkChoice::automatic}, {"nvlink", LinkChoice::scaleup}, {"pcie", LinkChoice::pcie}}};
    return parse_choice(args.get("--link"), "--link", "link", kLinks);
}

CommandSpec collective_command(CollectiveKind kind) {
    CommandSpec c;
    c.name = std::string(collective_name(kind));
    c.summary = fmt::format("{}: algbw and busbw as nccl-tests defines them, wire bytes per rank, α–β time", c.name);
    c.example = fmt::format(
        "bwacct {} --shape 1,2160,5120 --dtype bf16 --ranks 2 --time-us 113\n  bwacct {} --bytes 8:8G:x2 --ranks 8 --format "
        "jsonl",
        c.name, c.name);
    const bool total =
        kind == CollectiveKind::allgather || kind == CollectiveKind::reducescatter || kind == CollectiveKind::alltoall;
    c.options = {
        {"--bytes",
         total ? "size in bytes as nccl-tests counts it: the total across ranks (alltoall: each rank's send buffer); K, M, G = "
                 "1024^n"
               : "size in bytes (K, M, G = 1024^n)",
         ""},
        {"--shape", "size as a tensor shape (with --dtype) instead of --bytes", ""},
        {"--dtype", "element dtype", "bf16"},
        {"--ranks", "ranks (GPUs) taking part (default: the MPI size under mpirun, else 8)", ""},
        {"--algo", "ring, tree (allreduce) or nvls (NVLink SHARP: allreduce, allgather, reducescatter)", "ring"},
        {"--link", "auto (scale-up link if the GPU has one, else PCIe), nvlink or pcie", "auto"},
        {"--link-GBps", "per-direction link bandwidth (GB/s) instead of the catalog's", ""},
        {"--alpha-us", "per-step latency (µs) instead of the catalog's", ""},
    };
    // NCCL defines in-place for these five only; alltoall and sendrecv do not offer the option.
    if (kind != CollectiveKind::alltoall && kind != CollectiveKind::sendrecv)
        c.options.push_back({"--in-place",
                             "measure in place: the send buffer lies inside the receive buffer as NCCL defines it; the "
                             "model is the same",
                             "", true});
    // --hot (leave L2 warm) is for ops timed over HBM data: a collective's time is the link's.
    for (auto* group : {common_op_options, measure_options})
        for (OptionSpec& o : group())
            if (o.name != "--hot")
                c.options.push_back(std::move(o));
    c.run = [kind](const Args& args, const Env& env) {
        CollectiveDesc base;
        base.kind = kind;
        base.dtype = dtype_option(args, "--dtype");
        base.algo = parse_algo(args.get("--algo"));
        base.in_place = args.declared("--in-place") && args.flag("--in-place");
        const bool from_shape = !args.get("--shape").empty();
        if (from_shape == !args.get("--bytes").empty())
            throw InputError("--bytes", "give exactly one of --bytes or --shape (with --dtype)");
        OpPlan plan;
        plan.analysis.link = link_option(args);
        plan.analysis.link_GBps = single_real(args, "--link-GBps");
        plan.analysis.alpha_us = single_real(args, "--alpha-us");
        plan.axes = {{"--ranks", ValueKind::count}};
        std::uint64_t shape_bytes = 0;
        if (from_shape) {
            const auto shape = parse_shape(args.get("--shape"), "--shape");
            try {
                shape_bytes = storage_bytes(base.dtype, element_count(shape)).value();
            } catch (const OverflowError&) {
                throw InputError("--shape", "the size overflows 64 bits");
            }
            plan.fixed.push_back({"shape", args.get("--shape")});
        } else {
            plan.axes.insert(plan.axes.begin(), Axis{"--bytes", ValueKind::size, "size_bytes"});
        }
        plan.fixed.push_back({"dtype", std::string(dtype_name(base.dtype))});
        plan.fixed.push_back({"algo", std::string(algo_name(base.algo))});
        plan.fixed.push_back({"in_place", base.in_place});
        plan.size_options = from_shape ? "--shape" : "--bytes";
        auto desc = [base, from_shape, shape_bytes](const Point& p) {
            CollectiveDesc d = base;
            d.size_bytes = from_shape ? shape_bytes : p.count("--bytes");
            d.ranks = p.count("--ranks");
            return d;
        };
        plan.measure = [desc](measure::Backend& b, const Point& p, const measure::SamplePolicy& sp) {
            return b.collective(desc(p), sp);
        };
        // Under mpirun the ranks are the MPI processes; otherwise 8 (one HGX node) unless given.
        const auto& mpi = measure::MpiContext::instance();
        plan.defaults["--ranks"] = std::to_string(mpi.active() ? mpi.size() : 8);
        plan.evaluate = [desc, from_shape](const Point& p) {
            const CollectiveDesc d = desc(p);
            try {
                return Evaluated{collective_cost(d), std::nullopt};
            } catch (const InputError& e) {
                // The model names --bytes; when the size came from --shape, say so.
                if (from_shape && e.option() == "--bytes")
                    throw InputError("--shape", std::string(e.what()).substr(e.option().size() + 2));
                throw;
            }
        };
        return run_op(plan, args, env);
    };
    return c;
}

}  // namespace

std::vector<CommandSpec> collective_commands() {
    std::vector<CommandSpec> out;
    for (CollectiveKind k :
         {CollectiveKind::allreduce, CollectiveKind::allgather, CollectiveKind::reducescatter, CollectiveKind::broadcast,
          CollectiveKind::reduce, CollectiveKind::alltoall, CollectiveKind::sendrecv})
        out.push_back(collective_command(k));
    return out;
}

}  // namespace bwacct::cli
