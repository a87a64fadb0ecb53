// PyTorch profiler (Kineto) Chrome traces: parse_kineto (the SAX reader), then what
// `bwacct ingest torch-trace` does with the trace: link activities to ops and summarize (costing
// every op the engine has a formula for), and the same after drop_idle_ops, which must change nothing, and
// after two reads (ReadPasses::two, a plain file's) and drop_idle_ops, which must give the same.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "bwacct/ingest_kineto.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using bwacct::fuzz::check;
    const std::string text = bwacct::fuzz::as_text(data, size);
    bwacct::fuzz::accept_rejection([&] {
        const bwacct::kineto::Trace trace = bwacct::kineto::parse_kineto(text, "fuzz.json");
        check(!trace.activities.empty(), "a trace without GPU activity was accepted");
        const bwacct::kineto::Links links = bwacct::kineto::link_activities(trace);
        check(links.op.size() == trace.activities.size(), "one link per activity");
        const bwacct::kineto::Summary s = bwacct::kineto::summarize(trace);
        check(!std::isnan(s.busy_us) && !std::isnan(s.span_us) && !std::isnan(s.idle_us) && !std::isnan(s.kernel_us),
              "a summary time is NaN");
        check(!std::isnan(s.time.window.busy_us) && !std::isnan(s.time.window.span_us) && !std::isnan(s.time.delay.max_us),
              "a window time is NaN");
        // Dropping the ops no activity can be charged to changes nothing the summary says.
        bwacct::kineto::Trace kept = trace;
        bwacct::kineto::drop_idle_ops(kept);
        const bwacct::kineto::Summary d = bwacct::kineto::summarize(kept);
        check(d.groups.size() == s.groups.size() && d.kernels.size() == s.kernels.size(), "dropping idle ops changed the groups");
        for (std::size_t i = 0; i < 5; ++i)
            check(d.linked[i] == s.linked[i], "dropping idle ops changed the links");
        check(d.uncosted_kernels == s.uncosted_kernels && d.uncosted_us == s.uncosted_us &&
                  d.window_uncosted_busy_us == s.window_uncosted_busy_us,
              "dropping idle ops changed what is costed");
        for (std::size_t i = 0; i < s.groups.size(); ++i)
            check(d.groups[i].what.op == s.groups[i].what.op && d.groups[i].what.shape == s.groups[i].what.shape &&
                      d.groups[i].calls == s.groups[i].calls && d.groups[i].kernel_us == s.groups[i].kernel_us,
                  "dropping idle ops changed a group");
        // The reader's note of shapes, taken as each op is read, is op_has_shapes over every op.
        check(trace.ops_have_dims == bwacct::kineto::trace_has_shapes(trace) && trace.ops_read == trace.ops.size(),
              "the reader's op count or shapes note disagrees with its ops");
        // Two reads (a plain file's), then drop_idle_ops: the same ops, counts and summary as one read.
        bwacct::kineto::Trace two = bwacct::kineto::parse_kineto(text, "fuzz.json", bwacct::kineto::ReadPasses::two);
        check(two.ops_read == trace.ops_read && two.ops_have_dims == trace.ops_have_dims && two.events == trace.events,
              "two reads counted other ops or events");
        bwacct::kineto::drop_idle_ops(two);
        // At most the same ops: drop_idle_ops also keeps an op that holds only the start of an op kept by
        // its id, which the second read cannot know of; such an op holds no launch, so it is no launch's op
        // and no linked op's ancestor, and the links and the summary are the same.
        check(two.ops.size() <= kept.ops.size() && two.names == kept.names && two.threads == kept.threads,
              "two reads kept other ops");
        const bwacct::kineto::Summary w = bwacct::kineto::summarize(two);
        check(w.groups.size() == d.groups.size() && w.uncosted_kernels == d.uncosted_kernels && w.uncosted_us == d.uncosted_us,
              "two reads changed the summary");
        for (std::size_t i = 0; i < 5; ++i)
            check(w.linked[i] == d.linked[i], "two reads changed the links");
        for (std::size_t i = 0; i < w.groups.size(); ++i)
            check(w.groups[i].what.shape == d.groups[i].what.shape && w.groups[i].calls == d.groups[i].calls,
                  "two reads changed a group");
        // Tensor-list ops: the reader's nested Input Dims through the list formulas, with each kernel's
        // element type (the summary passes none), and their reasons.
        for (const bwacct::kineto::CpuOp& op : trace.ops) {
            if (op.dims.extra().empty())
                continue;
            for (const bwacct::kineto::TensorListDims& l : op.dims.extra())
                check(l.kept() <= l.count && l.count >= 1 && l.kept() <= bwacct::kineto::kMaxListTensors,
                      "a tensor list keeps more than it counts");
            const std::string& name = trace.names[op.name];
            for (const std::string_view kernel :
                 {"CatArrayBatchedCopy<OpaqueType<4u>>", "BinaryOpListAlphaFunctor<c10::BFloat16, 2>", ""}) {
                bwacct::fuzz::accept_rejection([&] {
                    (void)bwacct::kineto::cost_list_op(name, op, bwacct::kineto::kernel_element_type(kernel));
                    (void)bwacct::kineto::list_gap_reason(name, op, kernel);
                });
            }
        }
    });
    return 0;
}
