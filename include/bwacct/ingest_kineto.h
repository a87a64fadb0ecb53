// PyTorch profiler (Kineto) Chrome traces: `bwacct ingest torch-trace TRACE.json[.gz]`.
//
// Reading (src/ingest/kineto_reader.cpp, json_elements.cpp, kineto_gzip.cpp): one streaming pass, each
// event parsed alone by simdjson (never a DOM of the whole file), keeping per event only what the
// accounting needs: CPU ops with their shapes, the CUDA runtime launches and the GPU activities
// (kernels, memcpy, memset, with NCCL metadata).
// Linking (kineto_link.cpp): each GPU activity to the CPU op that launched it. Costing
// (kineto_cost*.cpp): the engine's formulas (ops.h) for the ops it knows. Summary (kineto_summary.cpp):
// groups per (op, shape, dtype), kernel table, time by category, busy and idle time.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bwacct/cost.h"
#include "bwacct/record.h"
#include "bwacct/transformer.h"

namespace bwacct::kineto {

enum class Activity : std::uint8_t { kernel, memcpy, memset };

// NCCL kernel arguments (PyTorch >= 2.1 records them on the kernel event).
struct CollectiveArgs {
    std::string name;  // "Collective name": allreduce, allgather, reduce_scatter, broadcast, ...
    std::uint64_t in_nelems = 0, out_nelems = 0, group_size = 0;
    std::string dtype;  // "Float", "BFloat16", "Half", "Long", ...
    bool operator==(const CollectiveArgs&) const = default;
};

namespace detail {
// The reference count behind SharedList and SharedValue: a pointer to a heap node (`Node` has an
// std::atomic<std::size_t> `refs`) deleted with its last holder.
template <class Node>
class Ref {
public:
    Ref() = default;
    explicit Ref(Node* n) noexcept : node_(n) {}
    Ref(const Ref& o) noexcept : node_(o.node_) {
        if (node_)
            node_->refs.fetch_add(1, std::memory_order_relaxed);
    }
    Ref(Ref&& o) noexcept : node_(std::exchange(o.node_, nullptr)) {}
    Ref& operator=(Ref o) noexcept {
        std::swap(node_, o.node_);
        return *this;
    }
    ~Ref() {
        if (node_ && node_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
            delete node_;
    }
    Node* get() const { return node_; }

private:
    Node* node_ = nullptr;
};
}  // namespace detail

// A read-only list shared by every CPU op that has the same one: the reader interns each op's "Input
// Dims", "Input type" and "Concrete Inputs" (a trace repeats a few hundred distinct lists over
// millions of ops), so an op holds three pointers, not three vectors of its own. Reads as a const
// std::vector (size, [], iteration); assigning a vector makes a list of its own (tests, fuzzers).
// `Extra`: what the shared node carries beside the items (the Input Dims' tensor lists), in the same
// allocation, so it costs an op nothing.
struct NoExtra {
    bool operator==(const NoExtra&) const = default;
};
template <class T, class Extra = NoExtra>
class SharedList {
public:
    using value_type = T;
    using const_iterator = typename std::vector<T>::const_iterator;

    SharedList() = default;
    SharedList(std::vector<T> items, Extra extra = {}) {  // NOLINT(google-explicit-constructor): `op.dims = {...}`
        if (!items.empty() || !(extra == Extra{}))
            node_ = detail::Ref<Node>(new Node{std::move(items), std::move(extra), {1}});
    }
    SharedList(std::initializer_list<T> items) : SharedList(std::vector<T>(items)) {}

    const std::vector<T>& items() const { return node_.get() ? node_.get()->items : empty_(); }
    const Extra& extra() const { return node_.get() ? node_.get()->extra : no_extra_(); }
    std::size_t size() const { return items().size(); }
    bool empty() const { return items().empty(); }
    const T& operator[](std::size_t i) const { return items()[i]; }
    const T& front() const { return items().front(); }
    const T& back() const { return items().back(); }
    const_iterator begin() const { return items().begin(); }
    const_iterator end() const { return items().end(); }
    // The same list object (interned lists compare by identity).
    bool same(const SharedList& o) const { return node_.get() == o.node_.get(); }

private:
    struct Node {
        std::vector<T> items;
        [[no_unique_address]] Extra extra;
        std::atomic<std::size_t> refs;
    };
    static const std::vector<T>& empty_() {
        static const std::vector<T> none;
        return none;
    }
    static const Extra& no_extra_() {
        static const Extra none{};
        return none;
    }
    detail::Ref<Node> node_;
};

// A read-only value shared by every event that has the same one, held as one pointer: the reader
// interns each kernel's NCCL metadata (a trace repeats a few dozen over all its collective kernels).
// Reads as a std::optional<T> (has_value, bool, *, ->); assigning a T makes a value of its own.
template <class T>
class SharedValue {
public:
    SharedValue() = default;
    SharedValue(std::nullopt_t) {}                                    // NOLINT(google-explicit-constructor)
    SharedValue(T value) : node_(new Node{std::move(value), {1}}) {}  // NOLINT(google-explicit-constructor)
    bool has_value() const { return node_.get() != nullptr; }
    explicit operator bool() const { return has_value(); }
    const T& operator*() const { return node_.get()->value; }
    const T* operator->() const { return &node_.get()->value; }

private:
    struct Node {
        T value;
        std::atomic<std::size_t> refs;
    };
    detail::Ref<Node> node_;
};

// One TensorList input's tensors, as "Input Dims" gives them (`[[64], [128, 64]]` for a list of two).
// Kineto writes "TensorList" as the input's type (no element type: the kernel's name shows it, see
// kernel_element_type) and spells out at most 30 tensors (PyTorch's TENSOR_LIST_DISPLAY_LENGTH_LIMIT; a
// longer list is written `[]`, and so is not here at all). The reader keeps at most kMaxListTensors
// tensors of up to kMaxListRank dims; past those it only counts (`count` > kept(): the list is partial).
struct TensorListDims {
    std::uint32_t input = 0;          // its position among the op's inputs ("Input Dims" index)
    std::uint32_t count = 0;          // tensors the trace lists (kept and not kept)
    std::vector<std::int64_t> dims;   // the kept tensors' dims, one tensor after another
    std::vector<std::uint32_t> ends;  // per kept tensor: where its dims end in `dims`
    std::size_t kept() const { return ends.size(); }
    bool complete() const { return kept() == count; }
    // Tensor k's dims (k < kept()); empty for a 0-dim tensor.
    std::vector<std::int64_t> shape(std::size_t k) const {
        const std::size_t b = k == 0 ? 0 : ends[k - 1];
        return {dims.begin() + static_cast<std::ptrdiff_t>(b), dims.begin() + static_cast<std::ptrdiff_t>(ends[k])};
    }
    bool operator==(const TensorListDims&) const = default;
};
constexpr std::uint32_t kMaxListTensors = 1024;  // tensors kept per list (PyTorch writes at most 30)
constexpr std::size_t kMaxListRank = 64;         // dims kept per tensor of a list
// A list of shapes (one per input, in order) with the op's TensorList inputs beside it, sorted by input.
using InputDims = SharedList<std::vector<std::int64_t>, std::vector<TensorListDims>>;
// Builds a TensorListDims (tests, fuzzers): the same bounds as the reader.
TensorListDims tensor_list_dims(std::uint32_t input, const std::vector<std::vector<std::int64_t>>& shapes);

struct CpuOp {
    std::uint32_t name = 0;    // index into Trace::names
    std::uint32_t thread = 0;  // index into Trace::threads
    double ts = 0, dur = 0;    // µs
    std::int64_t external_id = -1;
    InputDims dims;                    // "Input Dims" (a non-tensor or TensorList input: empty; lists: dims.extra())
    InputDims strides;                 // "Input Strides", the same layout (absent in traces before PyTorch 2.1)
    SharedList<std::string> types;     // "Input type"
    SharedList<std::string> concrete;  // "Concrete Inputs"
};

// The direction a copy's runtime call names (hipMemcpyKind / cudaMemcpyKind values): its "kind" arg
// (hipMemcpyAsync, hipMemcpyWithStream: "1" HtoD, "2" DtoH, "3" DtoD), else HtoD/DtoH/DtoD in its name
// (hipMemcpyHtoDAsync); unknown when it says none or says "0" (HtoH) or "4" (default: from the pointers).
enum class CopyKind : std::uint8_t { unknown, htod, dtoh, dtod };

struct Launch {  // cuda_runtime / cuda_driver event (cudaLaunchKernel, cudaMemcpyAsync, ...)
    std::uint32_t thread = 0;
    double ts = 0, dur = 0;
    std::int64_t external_id = -1, correlation = -1;
    CopyKind copy = CopyKind::unknown;  // a copy call's direction
};

// 72 bytes (the fields ordered by size): a trace of millions of kernels keeps one each.
struct GpuActivity {
    double ts = 0, dur = 0;
    std::int64_t device = 0, stream = 0;
    std::int64_t external_id = -1, correlation = -1;
    std::uint64_t bytes = 0;                 // memcpy / memset: the event's "bytes" arg (0: absent)
    SharedValue<CollectiveArgs> collective;  // interned by the reader
    std::uint32_t name = 0;
    Activity kind = Activity::kernel;
    CopyKind copy = CopyKind::unknown;  // a runtime copy kernel's direction, from its launch (copy_kinds_from_launches)
};

struct TraceDevice {  // one "deviceProperties" entry
    std::int64_t id = -1;
    std::string name;
};

// A "ProfilerStep#N" range on the CPU (torch.profiler's schedule writes one per step).
struct Step {
    std::string name;
    double ts = 0, dur = 0;  // µs
};

// The autograd node that stores a parameter's gradient, once per parameter per backward pass.
constexpr std::string_view kAccumulateGrad = "torch::autograd::AccumulateGrad";

struct Trace {
    std::vector<std::string> names;    // interned op and kernel names
    std::vector<std::string> threads;  // "pid/tid"
    // Deques, not vectors: they grow by blocks, without a vector's doubling (a peak of 1.5 to 3 times
    // the events kept while it moves to a buffer twice as large) on a trace of millions of events.
    std::deque<CpuOp> ops;
    std::deque<Launch> launches;
    std::deque<GpuActivity> activities;
    // Every `torch::autograd::AccumulateGrad` op read (kAccumulateGrad), in file order, kept or not by
    // drop_idle_ops (a parameter's first gradient is stolen, not added: the op launches nothing): its Input
    // Dims and Input type are one parameter's shape and dtype (parameter_inventory).
    std::vector<CpuOp> accumulate_grads;
    std::vector<TraceDevice> devices;  // top-level "deviceProperties", in order
    std::vector<Step> steps;           // "ProfilerStep#N" annotations, in file order
    std::uint64_t events = 0;          // every element of traceEvents
    // Events of a kept category (GPU activity, CPU op, runtime launch) that could not be used, by
    // reason: "GPU activity without \"ts\"", "CPU op with a non-numeric \"dur\"", ... Never dropped silently.
    std::map<std::string, std::uint64_t> skipped;
    // Events kept whose "ts" or "dur" was a string holding a well-formed number ("123.5"): read as that number.
    std::uint64_t string_times = 0;
    // What the report says of every CPU op read, whether kept or not: how many, and whether any recorded
    // a shape (op_has_shapes; profiled with record_shapes=True).
    std::uint64_t ops_read = 0;
    bool ops_have_dims = false;
    // GPU activities paired with their launch by a shared External id, the trace having no correlation ids
    // (correlate_by_external_id).
    std::uint64_t correlated_by_external_id = 0;
};

// The bound on a trace's JSON (after decompression): far above any real profile (a long training
// step traces to a few GiB at most); a gzip bomb or an endless stream stops there.
constexpr std::uint64_t kMaxTraceBytes = 8ull << 30;  // 8 GiB

// The name of the GPU the trace's activities ran on: the "deviceProperties" entry whose id is the
// device most GPU activities name (the first entry when none matches); "" without entries.
std::string trace_gpu_name(const Trace& t);

// A trace without any correlation id whose launches each carry a distinct External id, and whose every GPU
// activity carries one of those (a ROCm profiler path: the runtime's numbering, not the ops'): those ids
// are made the correlation ids, pairing each activity with its launch, and no longer read as op ids (the
// launch finds its op by time). Returns the activities paired (0:
// the trace is left as it is). The reader runs it on every trace.
std::uint64_t correlate_by_external_id(Trace& t);
// A copy the GPU runtime ran as a kernel (ROCm's "__amd_rocclr_copyBuffer…") names no direction: it takes
// its launching runtime call's (CopyKind), paired by correlation id. Returns the copies given one. The
// reader runs it on every trace, after correlate_by_external_id.
std::uint64_t copy_kinds_from_launches(Trace& t);
// The (device, correlation id) pairs two or more GPU activities share, sorted: one CUDA graph launch's (CUPTI gives
// every kernel of a cudaGraphLaunch the launch's id). Keyed by device: ids are unique only within one process, and a
// trace merging several processes reuses them on other devices. `kernels_only`: kernels alone count.
std::vector<std::pair<std::int64_t, std::int64_t>> shared_launch_ids(const Trace& t, bool kernels_only);

// How many times the reader reads the document. one: every event as it comes (every CPU op held until
// the launches are read). two: the first read keeps all but the CPU ops; the second parses only the CPU
// ops and keeps those a launch or activity can be charged to (drop_idle_ops's rule), so the memory grows
// with the ops that launch work, not with every op (docs/ingest.md, "Performance"). Same trace after
// drop_idle_ops either way.
enum class ReadPasses { one, two };

// The pure entry point (fuzzers): JSON text in, trace out. Throws InputError(origin, one line) when
// the text is not JSON, has no "traceEvents" array, or holds no GPU activity.
Trace parse_kineto(const std::string& text, const std::string& origin, ReadPasses passes = ReadPasses::one);
// The same over streams: `open` gives the document from its start, once per read (read_kineto feeds it
// decompressed bytes).
Trace parse_kineto_streams(const std::function<std::istream&()>& open, const std::string& origin, ReadPasses passes);
// Reads a trace file ("-": standard input; pipes work), plain JSON or gzip told apart by the gzip
// magic bytes (streamed: memory grows with the events kept, not the file). A file is read twice
// (ReadPasses::two), standard input once. Throws InputError when
// the JSON passes `max_bytes` (kMaxTraceBytes; smaller in tests).
Trace read_kineto(const std::string& path, std::uint64_t max_bytes = kMaxTraceBytes);

// Drops the CPU ops no GPU activity can be charged to: those that hold no launch record of their thread
// in time and whose External id no launch or activity carries (src/ingest/kineto_drop_ops.cpp). The
// linking, costing and grouping read only the others, so the report is the same, and the memory after
// reading grows with the ops that launch work, not with every op. Returns how many were dropped.
std::size_t drop_idle_ops(Trace& t);
// Drops the runtime calls whose correlation id no GPU activity carries (synchronisations, event records,
// allocations: the linking looks a launch up only by an activity's correlation). drop_idle_ops does it
// first; the two-pass reader before its second read. Returns how many were dropped.
std::size_t drop_idle_calls(Trace& t);

// ---- Linking.
enum class LinkHow { external_id, correlation, containment, inferred, none };
std::string_view link_how_name(LinkHow h);
struct Links {
    std::vector<std::int64_t> op;      // per activity: the innermost CPU op that launched it, or -1
    std::vector<LinkHow> how;          // per activity
    std::vector<std::int64_t> parent;  // per CPU op: the op enclosing it on its thread, or -1
    // Activities whose External id (their own or their launch's) was passed over because the op it
    // names does not hold the launch in time (not the ops' ids); each was linked by the next clue.
    std::uint64_t ids_not_enclosing = 0;
    // Correlation ids launched by two or more processes (a trace merged from several ranks: each process numbers
    // its own): a kernel is matched to the first launch with its id, which may be another process's.
    std::uint64_t correlation_ids_across_processes = 0;
    // Activities with a launch record that no CPU op holds in time (and no usable External id), ascending:
    // not linked, but not queued before the profiler either.
    std::vector<std::size_t> launch_outside_ops;
    // Collective kernels with no metadata of their own (queued before the profiler), set by
    // infer_unlinked, sorted by activity: the linked twin whose collective metadata each takes, or why
    // none (docs/ingest.md, "Linking").
    std::vector<std::pair<std::size_t, std::size_t>> collective_twin;  // (activity, twin activity)
    std::vector<std::pair<std::size_t, std::string>> collective_why;   // (activity, reason)
};
// An activity's collective metadata: its own, else its twin's (Links::collective_twin); nullptr without.
const CollectiveArgs* collective_of(const Trace& t, const Links& links, std::size_t a);
// Why a collective kernel without metadata took none from twins (Links::collective_why); "" otherwise.
std::string_view collective_why(const Links& links, std::size_t a);
// External id (op ↔ activity), else the launch with the activity's correlation id (its External id,
// else the innermost op on its thread containing it), else none; then infer_unlinked. An id whose op does
// not hold the activity's launch in time is not taken (Links::ids_not_enclosing).
Links link_activities(const Trace& t);
// Activities with no link and no CPU launch record at all (queued before the profiler started; never a
// CUDA-graph replay, which has its cudaGraphLaunch record) get the op of the linked activity in the same
// place of a repeated kernel sequence (src/ingest/kineto_infer.cpp, docs/ingest.md "Linking"): the
// names of the activity and of its K neighbours before and after on its stream, in start order, found
// among the linked activities of the same device, all of whose ops carry the same shaped ops (name,
// Input Dims, Input type, Concrete Inputs), so the same cost group. K = kInferContext, doubled up to
// kInferContextMax while the linked activities with the context disagree; at a stream's edge, or when
// no linked activity has the whole context, the context after it, else the one before. A collective
// kernel without metadata of its own takes its twins' when all carry the same, found by that context on
// its stream, else by its stream's repeated sequence (Links::collective_twin); else a reason
// (Links::collective_why). Sets LinkHow::inferred; returns how many.
constexpr std::size_t kInferContext = 8, kInferContextMax = 128;
std::uint64_t infer_unlinked(const Trace& t, Links& links);

// ---- Costing.
// What a GPU activity does (docs/ingest.md, "Categories"). memcpy_* by direction; `memcpy` when the
// event's name gives none. `other`: no rule matched, and the kernel row says why it has no formula.
enum class Category {
    gemm,
    conv,
    attention,
    moe,
    norm,
    softmax,
    elementwise,
    reduce,
    indexing,
    optimizer,
    fft,
    collective,
    memcpy_htod,
    memcpy_dtoh,
    memcpy_dtod,
    memcpy_ptop,
    memcpy,
    memset,
    other
};
std::string_view category_name(Category c);

struct OpCost {
    std::string op;     // "aten::addmm", or the NCCL collective ("nccl:allreduce")
    std::string shape;  // "M=141 N=512 K=512 bias", the grouping key with op and dtype
    std::string dtype;
    std::vector<Param> params;
    Cost cost;
    Category category = Category::other;
};
// "float" → fp32, "c10::BFloat16" → bf16, "c10::Half" → fp16, "double" → fp64, fp8 types; else nullopt.
std::optional<DType> torch_dtype(std::string_view input_type);
// The element size of any torch tensor type, integers and bool included, as an engine dtype of the
// same width (for byte counts only: "long int" → fp64's 8 bytes, "bool" → int8's 1 byte); else nullopt.
std::optional<DType> storage_dtype(std::string_view input_type);
// Input `i`'s dims as a tensor shape (every dim positive), or nullopt (absent, a scalar, a zero dim).
std::optional<std::vector<std::uint64_t>> input_shape(const CpuOp& op, std::size_t i);
// Whether the op recorded any shape: a tensor input's dims or a tensor list's element shapes.
inline bool op_has_shapes(const CpuOp& op) {
    if (!op.dims.extra().empty())
        return true;
    for (const auto& d : op.dims)
        if (!d.empty())
            return true;
    return false;
}
// Whether any op of the trace recorded a shape (profiled with record_shapes=True): an op whose Input Dims
// hold only scalars (`[[], []]`) does not count.
inline bool trace_has_shapes(const Trace& t) { return std::any_of(t.ops.begin(), t.ops.end(), op_has_shapes); }
// Input `i`'s dtype (torch_dtype of its "Input type"), or nullopt.
std::optional<DType> input_dtype(const CpuOp& op, std::size_t i);
std::string shape_text(const std::vector<std::uint64_t>& shape);  // "1x141x512"
// Input `input`'s tensor list (its element shapes as the trace gives them), or null (not a list, or the
// trace spelled out none of its tensors).
const TensorListDims* input_list(const CpuOp& op, std::size_t input);
// The element type of the tensors a kernel moves, as its name shows it: the first template argument of
// a multi-tensor functor ("multi_tensor_apply_kernel<…, BinaryOpListAlphaFunctor<c10::BFloat16, 2, 2,
// 0>, …>": bf16) or a copy kernel's opaque width ("CatArrayBatchedCopy<OpaqueType<8u>, …>": 8 bytes).
struct ElementType {
    DType dtype = DType::fp32;  // for an opaque width: a dtype of that width (1: int8, 2: bf16, 4: fp32, 8: fp64)
    std::string label;          // "bf16", or "8-byte" for an opaque width
    // a converting copy's source type, when the kernel names one apart from the destination's
    // (torch._foreach_copy_'s CopyFunctor<dst, src, ...>: FSDP2's fp32 → bf16 parameter copy-in)
    std::optional<DType> source = std::nullopt;
};
std::optional<ElementType> kernel_element_type(std::string_view kernel_name);
// The same, with the op that launched the kernel: PyTorch's TensorShape.cu launches
// chunk_cat_cuda_kernel<char, char> (bytes, not elements) whenever the out tensor has the inputs' dtype, so
// for that kernel the element type is the out tensor's Input type (index 3), else none (the list's own Input
// type is "TensorList").
std::optional<ElementType> kernel_element_type(std::string_view kernel_name, const CpuOp& op);
// The engine's cost of one call of `op`; nullopt when the engine has no formula for it or its
// shapes are not recorded (record_shapes off). `kernel_name`: a kernel the op launched (the element
// type of its tensor lists, which the trace gives nowhere else); "" when unknown.
// `categories`: the name categories a costing pass has found so far (compiled kernels are costed once per
// call, their category from their name alone); nullptr to find each anew.
using NameCategories = std::map<std::string, Category, std::less<>>;
std::optional<OpCost> cost_cpu_op(const std::string& name, const CpuOp& op, std::string_view kernel_name = {},
                                  NameCategories* categories = nullptr);
// Ops over tensor lists (cat, stack, _foreach_*, _fused_adam[w]_, _amp_foreach_non_finite_check_and_unscale_),
// with the lists' element type `element`; nullopt without it, when a list's shapes are not in the trace, or
// for another op.
std::optional<OpCost> cost_list_op(const std::string& name, const CpuOp& op, const std::optional<ElementType>& element);
// Why a tensor-list op has no cost (the summary's reason for its kernels): "tensor-list shapes of OP not in
// trace" (Kineto writes a list of more than 30 tensors as []), "tensor list of OP cut at N of M tensors",
// "no element type for the tensor lists of OP in its kernel's name"; "" when `op` has no TensorList input.
std::string list_gap_reason(const std::string& name, const CpuOp& op, std::string_view kernel_name);
std::optional<OpCost> cost_gemm_op(const std::string& name, const CpuOp& op);
std::optional<OpCost> cost_attention_op(const std::string& name, const CpuOp& op);
std::optional<OpCost> cost_pointwise_op(const std::string& name, const CpuOp& op);  // norms, softmax, elementwise
std::optional<OpCost> cost_conv_op(const std::string& name, const CpuOp& op);       // convolutions, fwd and bwd
std::optional<OpCost> cost_backward_op(const std::string& name, const CpuOp& op);   // norm/activation/softmax/loss bwd
std::optional<OpCost> cost_data_op(const std::string& name, const CpuOp& op);       // indexing, reductions, fills, sort
std::optional<OpCost> cost_serving_op(const std::string& name, const CpuOp& op);    // vLLM/SGLang/aiter custom ops
// TorchInductor triton_* kernels
std::optional<OpCost> cost_compiled_op(const std::string& name, const CpuOp& op, NameCategories* categories = nullptr);
std::optional<OpCost> cost_fft_op(const std::string& name, const CpuOp& op);  // aten::_fft_r2c / _fft_c2r / _fft_c2c
// An NCCL kernel's own collective, from its metadata; nullopt without it.
std::optional<OpCost> cost_collective_kernel(const GpuActivity& a);
// `kernel_name` shows the algorithm (NVLS, TREE; ring otherwise).
std::optional<OpCost> cost_collective_kernel(const CollectiveArgs& m, std::string_view kernel_name = {});
// A collective op outside NCCL (PyTorch symmetric memory `symm_mem::*all_reduce*`, vLLM/SGLang custom
// all-reduce): kind from the op's name, message = its largest floating-point input, over `ranks`
// (the group size the trace's NCCL kernels give; nullopt below 2).
std::optional<OpCost> cost_symmetric_collective(const std::string& name, const CpuOp& op, std::uint64_t ranks);
// A memcpy or memset from its own event: direction from the name ("Memcpy HtoD (Pinned -> Device)"),
// bytes from its "bytes" arg, else from the op that launched it (`op`, may be null, named `op_name`)
// when that op is a copy (memcpy) or a fill (memset), whose input 0 is the destination; nullopt for
// kernels or without a byte count.
std::optional<OpCost> cost_transfer(const GpuActivity& a, std::string_view name, const CpuOp* op, std::string_view op_name = {});
// What a kernel event is: a copy or a fill where the GPU runtime ran it as a kernel (ROCm's blit kernels
// "__amd_rocclr_copyBuffer…" → memcpy, "__amd_rocclr_fillBuffer…" → memset), else a kernel.
Activity runtime_kernel_kind(std::string_view kernel_name);
// Whether a kernel event is a copy the GPU runtime ran as a kernel (its name gives no direction).
bool runtime_copy_kernel(std::string_view kernel_name);
// Category of an activity no formula covered, from its kind, its kernel name and the name of the op
// that launched it ("" when none): rules on names (docs/ingest.md), never a list of one trace's kernels.
// A runtime copy kernel's direction is `copy` (its launch's); unknown, it is `memcpy`.
Category activity_category(Activity kind, std::string_view kernel_name, std::string_view op_name = {},
                           CopyKind copy = CopyKind::unknown);
// The operand types a low-precision kernel's name shows ("MxE4m3 x MxE2m1" for an MXFP8 × MXFP4
// grouped GEMM), or "" when it shows none.
std::string kernel_operand_types(std::string_view kernel_name);

// ---- What the trace lacks, given by the user (`ingest torch-trace --hf-config FILE [--tp N]`;
// src/ingest/kineto_cost_moe_config.cpp, docs/formulas.md "MoE from a model config").
// A GPU's catalog HBM peak, for a check the cost stage makes: list shapes inferred from the parameter inventory
// are taken only when the op's kernels ran at least as long as their bytes need at this peak.
struct HbmRoof {
    std::string gpu;  // catalog id, named in reasons
    double GBps = 0;
};
struct TraceHints {
    std::optional<TransformerConfig> model;  // MoE ops whose inputs lack expert weights are costed from it
    std::string model_origin;                // how reports name it: "--hf-config FILE"
    std::uint64_t tp = 0;                    // the model-parallel degree when the trace does not show it (0: not given)
    // The HBM peak inferred list bytes are checked against (src/cli/inventory_hbm.h); none: nothing inferred.
    std::optional<HbmRoof> hbm;
};
// The degree d the experts are split over (TP shards each expert's FFN, EP splits the experts: either way a
// rank does 1/d of the FLOPs and reads 1/d of the expected expert-weight bytes), and the clue it came from.
struct ModelParallel {
    std::uint64_t degree = 1;
    std::string clue;  // "attention heads: OP holds 8 of the config's 64 query heads per rank", "--tp", ...
};
// From the trace's attention ops (the config's num_attention_heads / query heads per rank, the most common
// over the ops), else `tp` (--tp), else 1. Throws InputError naming --tp when `tp` disagrees with the trace.
ModelParallel model_parallel_degree(const Trace& t, const TransformerConfig& cfg, std::uint64_t tp);
// Whether `name` is a MoE op's (the serving rule: "moe" or "experts" in its base name, not a backward).
bool moe_op_name(std::string_view name);
// A MoE op whose inputs hold the hidden states [T, H'] (input 0) and the router logits [T, E] but no expert
// weights (vLLM's moe_forward), costed per rank from `cfg` (top-k, hidden H, expert FFN I, the weights'
// format) over `mp.degree` ranks. nullopt with `why` set when it cannot be (E ≠ the config's routed experts,
// both named; no router logits; a config without routed experts).
std::optional<OpCost> cost_moe_from_config(const std::string& name, const CpuOp& op, const TransformerConfig& cfg,
                                           const ModelParallel& mp, const std::string& origin, std::string& why);

// ---- Time accounting (src/ingest/kineto_timeline.cpp): concurrent streams by priority, the profiled
// window, idle time explained, launch delays. It works for any Category value (categories are
// iterated, never named): the priority is by time class, taken from the activity itself.

// The classes of GPU work, in priority order (highest first): where several run at the same time, the
// time belongs to the highest (TraceLens's GPU timeline). compute: every kernel that is not
// communication; communication: collective kernels (NCCL/RCCL metadata on the kernel, or a kernel
// filed under the collective category); memcpy: memcpy and memset activities (copy engines, driver).
enum class TimeClass { compute, communication, memcpy };
constexpr std::size_t kTimeClasses = 3;
std::string_view time_class_name(TimeClass c);  // "compute", "communication", "memcpy"
TimeClass time_class(const GpuActivity& a, Category c);

// Time of one window (a step, the profiled window, the whole trace), per device, summed over devices.
struct WindowTime {
    std::string name;              // "ProfilerStep#5", "profiled window", "whole trace"
    std::uint64_t activities = 0;  // activities that start inside it
    double span_us = 0, busy_us = 0, idle_us = 0;
    double class_us[kTimeClasses] = {};    // union of each class's activities (total comm, total memcpy)
    double exposed_us[kTimeClasses] = {};  // runs while no higher class runs; the three add up to busy
    // Idle time explained (device level: no activity on any stream): the gap before an activity split at
    // its CPU launch: before it the GPU waits for the host, after it for other work (dependencies,
    // launch latency); "no launch" when the next activity has no CPU launch record.
    double host_wait_us = 0, after_launch_us = 0, no_launch_us = 0;
};

// One stream's idle time over the profiled window: the gaps between its consecutive activities,
// split as in WindowTime; launch delay = kernel start − CPU launch start, over its activities that
// start in the window and have a launch record.
struct LaunchDelays {
    std::uint64_t count = 0;
    double median_us = 0, p90_us = 0, max_us = 0;  // nearest rank
};
struct StreamTime {
    std::int64_t device = 0, stream = 0;
    std::uint64_t activities = 0;
    double span_us = 0, busy_us = 0, idle_us = 0;
    double host_wait_us = 0, after_launch_us = 0, no_launch_us = 0;
    LaunchDelays delay;
};

struct Timeline {
    std::vector<double> activity_busy;               // per activity: its share of the whole-trace busy time
    std::vector<double> activity_window_us;          // per activity: its duration inside the profiled window (clipped to it)
    std::vector<double> activity_window_busy;        // per activity: its share of the profiled window's busy time
    std::vector<double> category_exposed_us;         // per category (enum order), whole trace
    std::vector<double> window_category_exposed_us;  // per category (enum order), profiled window
    WindowTime trace;                                // first activity start to last end, per device
    WindowTime window;                               // the profiled window (below)
    std::vector<WindowTime> steps;                   // per ProfilerStep, in time order; empty without steps
    // How the window was found: "ProfilerStep" (each step from the first GPU start of the activities
    // launched during it to the next step's; the last to the last end of its activities) or "linked"
    // (first start to last end of the activities with a CPU launch record).
    std::string window_basis;
    // Activities that run wholly outside the window, by reason; and those cut by its edges.
    std::uint64_t outside_no_launch = 0;     // no CPU launch record (queued before the profiler started)
    std::uint64_t outside_other_launch = 0;  // launched outside every ProfilerStep range
    std::uint64_t outside_ran_outside = 0;   // launched in a step, ran outside the window
    std::uint64_t cut = 0;                   // partly inside
    double outside_kernel_us = 0;            // durations of the activities wholly outside
    std::vector<StreamTime> streams;         // by device, stream
    LaunchDelays delay;                      // all streams, activities starting in the window
};
// `category`: per activity; `categories`: how many Category values there are.
Timeline account_time(const Trace& t, const Links& links, const std::vector<Category>& category, std::size_t categories);

// ---- Summary. Times in µs.
struct Group {
    OpCost what;  // the cost of ONE call
    std::uint64_t calls = 0, kernels = 0;
    double kernel_us = 0;       // sum of the kernels' durations
    double busy_us = 0;         // their share of the GPU busy time (overlaps counted once)
    double window_us = 0;       // the kernels' durations inside the profiled window (Timeline::activity_window_us)
    double window_busy_us = 0;  // their share of the profiled window's busy time (Timeline::activity_window_busy)
};
struct KernelRow {
    std::string name, op;
    Category category = Category::other;
    std::string reason;  // why its time has no formula ("no shapes in trace", "no formula for aten::sort"): the reason covering
                         // most of its uncosted time; "" when costed
    std::uint64_t count = 0;
    double total_us = 0;
};
struct CategoryTime {
    Category category = Category::other;
    std::uint64_t kernels = 0, costed = 0;
    double kernel_us = 0, busy_us = 0, uncosted_busy_us = 0;
    double window_us = 0;   // kernel durations inside the profiled window
    double exposed_us = 0;  // time this category runs and no higher time class runs (see TimeClass)
    // The same over the profiled window: busy share, the part no formula covers, exposed time.
    double window_busy_us = 0, window_uncosted_busy_us = 0, window_exposed_us = 0;
    std::map<std::string, double> uncosted_reasons;         // why kernels had no formula → their kernel µs
    std::map<std::string, double> window_uncosted_reasons;  // the same → their share of the window's busy µs
};
struct Summary {
    std::vector<Group> groups;                                  // by kernel_us, largest first
    std::vector<KernelRow> kernels;                             // by total_us, largest first
    std::vector<CategoryTime> categories;                       // every category, in enum order
    std::uint64_t activities = 0, linked[5] = {0, 0, 0, 0, 0};  // by LinkHow
    std::uint64_t uncosted_kernels = 0;
    double busy_us = 0;      // union of activity intervals, per device, summed over devices
    double span_us = 0;      // first start to last end, per device, summed
    double idle_us = 0;      // span − busy: the GPU waits between kernels (dispatch share)
    double kernel_us = 0;    // sum of durations (≥ busy when streams overlap)
    double uncosted_us = 0;  // durations of activities no formula covered
    double uncosted_busy_us = 0;
    double window_busy_us = 0;           // busy time of the profiled window (Timeline::window)
    double window_uncosted_busy_us = 0;  // the part of it no formula covers
    Timeline time;                       // overlap by priority, the profiled window, idle explained
    std::vector<std::string> warnings;
    std::vector<std::string> notes;  // what the hints did ("36 MoE ops costed from --hf-config FILE: ...")
};
Summary summarize(const Trace& t);
// The same with the trace's links already made (link_activities), for callers that need them too, and what
// the trace lacks from the user (`hints`: without them nothing changes).
Summary summarize(const Trace& t, const Links& links, const TraceHints& hints = {});

}  // namespace bwacct::kineto
