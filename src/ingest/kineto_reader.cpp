// The Kineto Chrome-trace reader: the text is split into its top-level values and the elements of its
// arrays by a bounded streaming splitter (json_elements.h), and each element ("traceEvents" entry,
// "deviceProperties" entry, any other value) is parsed and validated alone by simdjson. Memory: one
// input block, the largest single element and the fields kept per event (include/bwacct/ingest_kineto.h),
// never the file. Every byte is validated as JSON: a value the accounting never reads is parsed too.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "json_elements.h"
#include "kineto_keep.h"
#include "kineto_type_names.h"

namespace bwacct::kineto {
namespace {

namespace dom = simdjson::dom;
using ingest::JsonElements;

constexpr const char* kExpected = "expected a PyTorch profiler (Kineto) Chrome trace (.json or .json.gz)";

// `s` with control characters as '?': error messages stay on one line.
std::string printable(std::string s) {
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    return s;
}

// How an event's "ts" or "dur" was given.
enum class TimeField { absent, number, string_number, not_a_number };

// "ts": "123.5": a string holding a plain decimal number (as some exporters write it) is read as that
// number; any other string is not a time.
TimeField string_time(std::string_view s, double& out) {
    const char* first = s.data();
    const char* last = s.data() + s.size();
    while (first < last && *first == ' ')
        ++first;
    while (last > first && last[-1] == ' ')
        --last;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (first == last || ec != std::errc() || ptr != last || !std::isfinite(v))
        return TimeField::not_a_number;
    out = v;
    return TimeField::string_number;
}

// A time field: a number, a string holding one, or something else (null, true: not a number; an
// object or array leaves it as it was).
void read_time(dom::element v, double& out, TimeField& field) {
    switch (v.type()) {
        case dom::element_type::INT64:
            out = static_cast<double>(v.get_int64().value_unsafe());
            field = TimeField::number;
            break;
        case dom::element_type::UINT64:
            out = static_cast<double>(v.get_uint64().value_unsafe());
            field = TimeField::number;
            break;
        case dom::element_type::DOUBLE:
            out = v.get_double().value_unsafe();
            field = TimeField::number;
            break;
        case dom::element_type::STRING:
            field = string_time(v.get_string().value_unsafe(), out);
            break;
        case dom::element_type::NULL_VALUE:
        case dom::element_type::BOOL:
            field = TimeField::not_a_number;
            break;
        default:
            break;
    }
}

// A number as an id or count: an integer as it is; an integral float (0 ≤ v < 9.2e18) as that integer;
// any other number (a fraction, one past INT64_MAX) as -1; nullopt when not a number.
std::optional<std::int64_t> read_id(dom::element v) {
    switch (v.type()) {
        case dom::element_type::INT64:
            return v.get_int64().value_unsafe();
        case dom::element_type::UINT64: {
            const std::uint64_t u = v.get_uint64().value_unsafe();
            return u > static_cast<std::uint64_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(u);
        }
        case dom::element_type::DOUBLE: {
            const double d = v.get_double().value_unsafe();
            return d >= 0 && d < 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d)) ? static_cast<std::int64_t>(d)
                                                                                                  : -1;
        }
        default:
            return std::nullopt;
    }
}

// An object's or array's handle, by value (a reference into a temporary simdjson_result would dangle).
dom::object object_of(dom::element v) {
    dom::object o;
    if (v.get(o) != simdjson::SUCCESS)
        return {};
    return o;
}
dom::array array_of(dom::element v) {
    dom::array a;
    if (v.get(a) != simdjson::SUCCESS)
        return {};
    return a;
}

std::optional<std::string_view> read_string(dom::element v) {
    if (v.type() != dom::element_type::STRING)
        return std::nullopt;
    return v.get_string().value_unsafe();
}

std::uint64_t count(dom::element v) {
    const auto i = read_id(v);
    return !i || *i < 0 ? 0 : static_cast<std::uint64_t>(*i);
}

// Which of the kept kinds an event's category is.
enum class Kind { none, activity, op, launch };

// The reads of a document: one (Pass::all), or two over the same bytes (Pass::plan, then Pass::ops).
enum class Pass { all, plan, ops };

// Which CPU ops the second read keeps (docs/ingest.md, "Performance"): an op whose External id a kept
// launch carries, or that holds in time the start of a kept launch of any thread. drop_idle_ops, run after,
// keeps of these the ops its own rule holds; what that rule keeps and this one does not (an op holding only
// the start of an op kept by id) holds no launch, so it is no launch's op and no linked op's ancestor: the
// links and costs are the same. Any thread, not only the op's own: an op linked by id holds its activity's
// launch in time (kineto_link.cpp), wherever the launch was recorded, and so do the ops enclosing it. Made
// only when every External id an activity carries is also a launch's: an activity without its launch record
// may be charged by id to an op that holds no launch, whose enclosing ops the costing climbs to, and those
// are known only once every op has been read.
class OpFilter {
public:
    static std::optional<OpFilter> of(const Trace& t) {
        OpFilter f;
        f.ids_.reserve(t.launches.size());
        f.launch_ts_.reserve(t.launches.size());
        for (const Launch& l : t.launches) {
            if (l.external_id >= 0)
                f.ids_.push_back(l.external_id);
            f.launch_ts_.push_back(l.ts);
        }
        sort_unique(f.ids_);
        for (const GpuActivity& a : t.activities)
            if (a.external_id >= 0 && !std::binary_search(f.ids_.begin(), f.ids_.end(), a.external_id))
                return std::nullopt;
        std::sort(f.launch_ts_.begin(), f.launch_ts_.end());
        return f;
    }
    // The linking's containment test, bounds included (kineto_link.cpp).
    bool holds(double ts, double dur, std::int64_t external_id) const {
        if (external_id >= 0 && std::binary_search(ids_.begin(), ids_.end(), external_id))
            return true;
        return holds_a_start(launch_ts_, ts, dur);
    }

private:
    std::vector<std::int64_t> ids_;  // External ids the launches carry, sorted
    std::vector<double> launch_ts_;  // the launches' starts, every thread, sorted
};
Kind kind_of(std::string_view c) {
    if (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Kernel" || c == "Memcpy" || c == "Memset")
        return Kind::activity;
    if (c == "cpu_op" || c == "Operator")
        return Kind::op;
    // Host-side runtime and driver calls of any backend: libkineto names them <backend>_runtime and
    // <backend>_driver (cuda_, xpu_, mtia_, privateuse1_, musa_; ROCm's as cuda_); "Runtime" before 2021.
    if (c.ends_with("_runtime") || c.ends_with("_driver") || c == "Runtime")
        return Kind::launch;
    return Kind::none;
}
// The list of GPUs: "deviceProperties" (Kineto since 2021); "computeProperties" in the traces of
// PyTorch 1.8/1.9 (its entries also carry "id" and "name").
bool is_device_list_key(std::string_view k) { return k == "deviceProperties" || k == "computeProperties"; }
// An event's External id: "External id"; "external id" in the GPU and runtime events of PyTorch 1.8/1.9.
bool is_external_id_key(std::string_view k) { return k == "External id" || k == "external id"; }

const char* kind_name(Kind k) {
    return k == Kind::activity ? "GPU activity" : k == Kind::op ? "CPU op" : k == Kind::launch ? "runtime call" : "";
}

// What the elements of an array are.
enum class Elements { events, devices, other };

// Whether `text` holds a control byte no JSON text has (binary data), and its first 20 bytes, printable ('?'
// for the others), for an error message.
struct NearText {
    bool binary = false;
    std::string token;
};
NearText near_text(std::string_view text) {
    NearText n;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        n.binary = n.binary || (u < 0x20 && c != '\n' && c != '\r' && c != '\t') || u == 0x7f;
    }
    for (const char c : text.substr(0, 20))
        n.token += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) ? '?' : c;
    return n;
}

class Reader {
public:
    Reader(Trace& t, const std::string& origin) : t_(t), origin_(origin) {}

    bool saw_events = false;
    std::uint64_t work_calls = 0;  // runtime calls that queue GPU work (launches, memcpys, memsets)

    // One read of the document. Pass::all keeps every event; Pass::plan keeps all but the CPU ops (it
    // counts them and marks which events are ops); Pass::ops, over the same bytes again, parses only
    // the events the plan marked and keeps the ops `keep` holds (all of them without one).
    void run(JsonElements::Read read, Pass pass, const OpFilter* keep = nullptr) {
        in_.emplace(std::move(read));
        pass_ = pass;
        keep_ = keep;
        ordinal_ = 0;
        const int c = in_->peek();
        if (c == -1)
            throw InputError(origin_, fmt::format("holds only blanks; {}", kExpected));
        if (c == '{')
            top_object();
        else if (c == '[') {  // a bare array of events (Chrome's JSON Array Format)
            saw_events = true;
            array(Elements::events);
        } else {
            parse(in_->value());
        }
        if (in_->peek() != -1)  // text after the document
            syntax_error();
    }

private:
    [[noreturn]] void syntax_error() {
        if (in_->ended())  // the input ended: inside a value, or before the brackets that close the document
            throw InputError(origin_, fmt::format("the JSON is cut short: the input ends after {} bytes, {} (a partial copy, or "
                                                  "a profiler run that stopped while writing the file); {}",
                                                  in_->bytes_read(),
                                                  in_->offset() < in_->bytes_read()
                                                      ? fmt::format("inside the value that starts at byte {}", in_->offset())
                                                      : std::string("before the brackets that close the trace"),
                                                  kExpected));
        const auto [binary, token] = near_text(in_->ahead(20));
        throw InputError(origin_, fmt::format("{} (at byte {}{}): {}", binary ? "binary data, not JSON" : "not valid JSON",
                                              in_->offset(), token.empty() ? "" : ", near '" + token + "'", kExpected));
    }

    // The next complete value, parsed; a syntax error names its first byte and simdjson's reason.
    dom::element parse(std::string_view text) {
        if (text.empty())
            syntax_error();
        dom::element e;
        const auto error = parser_.parse(text.data(), text.size(), false).get(e);
        if (error == simdjson::SUCCESS)
            return e;
        const auto [binary, token] = near_text(text);
        throw InputError(origin_, fmt::format("{} (the value at byte {}, '{}{}': {}): {}",
                                              binary ? "binary data, not JSON" : "not valid JSON", in_->value_offset(), token,
                                              text.size() > 20 ? "..." : "", simdjson::error_message(error), kExpected));
    }

    void expect(char c) {
        if (in_->peek() != static_cast<unsigned char>(c))
            syntax_error();
        in_->advance();
    }

    void top_object() {
        in_->advance();
        if (in_->peek() == '}') {
            in_->advance();
            return;
        }
        for (;;) {
            if (in_->peek() != '"')
                syntax_error();
            const dom::element k = parse(in_->value());
            key_.assign(k.get_string().value_unsafe());
            expect(':');
            const int c = in_->peek();
            if (c == '[') {
                const bool events = key_ == "traceEvents";
                saw_events = saw_events || events;
                array(events ? Elements::events : is_device_list_key(key_) ? Elements::devices : Elements::other);
            } else if (pass_ == Pass::ops) {
                (void)in_->value();  // validated by the plan
            } else {
                const dom::element v = parse(in_->value());
                if (is_device_list_key(key_) && v.type() == dom::element_type::OBJECT)
                    for (const dom::key_value_pair d : object_of(v))
                        device(d.value);
            }
            const int next = in_->peek();
            if (next != ',' && next != '}')
                syntax_error();
            in_->advance();
            if (next == '}')
                return;
        }
    }

    void array(Elements what) {
        in_->advance();
        if (in_->peek() == ']') {
            in_->advance();
            return;
        }
        for (;;) {
            if (pass_ == Pass::ops) {  // only the elements the plan marked as CPU ops are parsed again
                const std::string_view text = in_->value();
                const bool marked = what == Elements::events && ordinal_ < op_events_.size() && op_events_[ordinal_];
                if (what == Elements::events)
                    ++ordinal_;
                if (marked) {
                    const dom::element e = parse(text);
                    if (e.type() == dom::element_type::OBJECT)
                        event(object_of(e));
                } else if (text.empty()) {
                    syntax_error();
                }
            } else {
                const dom::element e = parse(in_->value());
                if (what == Elements::events)
                    ++ordinal_;
                if (e.type() == dom::element_type::OBJECT) {
                    if (what == Elements::events)
                        event(object_of(e));
                    else if (what == Elements::devices)
                        device(e);
                }
            }
            const int next = in_->peek();
            if (next == ']') {
                in_->advance();
                return;
            }
            if (next != ',')
                syntax_error();
            in_->advance();
        }
    }

    void device(dom::element e) {
        if (e.type() != dom::element_type::OBJECT)
            return;
        TraceDevice d;
        for (const dom::key_value_pair f : object_of(e)) {
            if (f.key == "name") {
                if (const auto s = read_string(f.value))
                    d.name = *s;
            } else if (f.key == "id") {
                if (const auto i = read_id(f.value))
                    d.id = *i;
            }
        }
        t_.devices.push_back(std::move(d));
    }

    // pid or tid as text: a string as it is, a number as its integer, else "".
    static void read_id_text(const std::optional<dom::element>& e, std::string& out) {
        out.clear();
        if (!e)
            return;
        const dom::element v = *e;
        if (const auto s = read_string(v))
            out.assign(*s);
        else if (const auto i = read_id(v)) {
            out.clear();
            fmt::format_to(std::back_inserter(out), "{}", *i);
        }
    }

    std::uint32_t intern(std::unordered_map<std::string, std::uint32_t>& map, std::vector<std::string>& list,
                         const std::string& s) {
        const auto it = map.find(s);
        if (it != map.end())
            return it->second;
        const auto id = static_cast<std::uint32_t>(list.size());
        list.push_back(s);
        map.emplace(s, id);
        return id;
    }
    std::uint32_t name_id(std::string_view name) {
        scratch_.assign(name);
        return intern(name_ids_, t_.names, scratch_);
    }
    // "pid/tid" of the event (formatted only for the events that keep a thread).
    std::uint32_t thread_id() {
        read_id_text(pid_, scratch_);
        scratch_ += '/';
        read_id_text(tid_, tid_text_);
        scratch_ += tid_text_;
        return intern(thread_ids_, t_.threads, scratch_);
    }

    void event(dom::object obj) {
        const bool plan = pass_ != Pass::ops;  // the pass that counts (the ops pass reads only marked ops)
        if (plan)
            ++t_.events;
        std::string_view name, cat, ph;
        double ts = 0, dur = 0;
        TimeField ts_field = TimeField::absent, dur_field = TimeField::absent;
        pid_.reset();
        tid_.reset();
        args_.clear();
        for (const dom::key_value_pair f : obj) {
            const std::string_view k = f.key;
            if (k == "name") {
                if (const auto s = read_string(f.value))
                    name = *s;
            } else if (k == "cat") {
                if (const auto s = read_string(f.value))
                    cat = *s;
            } else if (k == "ph") {
                if (const auto s = read_string(f.value))
                    ph = *s;
            } else if (k == "ts") {
                read_time(f.value, ts, ts_field);
            } else if (k == "dur") {
                read_time(f.value, dur, dur_field);
            } else if (k == "pid") {
                pid_ = f.value;
            } else if (k == "tid") {
                tid_ = f.value;
            } else if (k == "args" && f.value.type() == dom::element_type::OBJECT) {
                args_.push_back(object_of(f.value));
            }
        }
        const Kind kind = kind_of(cat);
        const bool ts_ok = ts_field == TimeField::number || ts_field == TimeField::string_number;
        const bool dur_ok = dur_field == TimeField::number || dur_field == TimeField::string_number;
        // Timestamps are µs since some epoch (~1e12 today); a duration beyond 1e12 µs (11 days) or a
        // timestamp beyond 1e17 µs is not a profile.
        const bool in_range = dur >= 0 && dur <= 1e12 && std::abs(ts) <= 1e17;
        if (!plan) {  // a marked event: a CPU op with usable times, unless the file changed between the reads
            if (kind == Kind::op && ph == "X" && ts_ok && dur_ok && in_range)
                op(name, ts, dur);
            return;
        }
        if (ph != "X") {
            // Kineto writes every GPU activity as a complete event; another phase ("B"/"E" pairs, an
            // instant) has no duration to account.
            if (kind == Kind::activity)
                ++t_.skipped[fmt::format("GPU activity with phase \"{}\" instead of \"X\"",
                                         printable(std::string(ph.substr(0, 8))))];
            return;
        }
        // "ProfilerStep#N" (a user annotation; a CPU op in older PyTorch: "cpu_op", or "Operator" in
        // PyTorch 1.8/1.9): the steps' CPU ranges, which bound the profiled window (kineto_timeline.cpp).
        if ((cat == "user_annotation" || kind == Kind::op) && name.rfind("ProfilerStep#", 0) == 0 && ts_ok && dur_ok && in_range)
            t_.steps.push_back({std::string(name), ts, dur});
        if (kind == Kind::none)
            return;
        // A complete event of a kept kind without a usable "ts" or "dur": counted by reason.
        if (!ts_ok || !dur_ok) {
            const TimeField bad = !ts_ok ? ts_field : dur_field;
            ++t_.skipped[fmt::format("{} {} \"{}\"", kind_name(kind), bad == TimeField::absent ? "without" : "with a non-numeric",
                                     !ts_ok ? "ts" : "dur")];
            return;
        }
        if (ts_field == TimeField::string_number || dur_field == TimeField::string_number)
            ++t_.string_times;
        // Out of range: refuse it rather than sum infinities.
        if (!in_range)
            throw InputError(origin_, fmt::format("traceEvents[{}] ('{}') has ts {} and dur {} µs, out of range: {}",
                                                  t_.events - 1, printable(std::string(name.substr(0, 60))), ts, dur, kExpected));
        switch (kind) {
            case Kind::activity:
                activity(cat, name, ts, dur);
                break;
            case Kind::op:
                note_op();
                if (pass_ == Pass::plan) {
                    // Interned as the one-pass read does, so names and threads get the same numbers.
                    (void)name_id(name);
                    (void)thread_id();
                    if (op_events_.size() < ordinal_)
                        op_events_.resize(ordinal_);
                    op_events_[ordinal_ - 1] = true;
                } else {
                    op(name, ts, dur);
                }
                break;
            case Kind::launch:
                launch(name, ts, dur);
                break;
            case Kind::none:
                break;
        }
    }

    void activity(std::string_view cat, std::string_view name, double ts, double dur) {
        GpuActivity a;
        a.kind = (cat == "kernel" || cat == "Kernel")       ? runtime_kernel_kind(name)
                 : (cat == "gpu_memcpy" || cat == "Memcpy") ? Activity::memcpy
                                                            : Activity::memset;
        a.name = name_id(name);
        a.ts = ts;
        a.dur = dur;
        CollectiveArgs coll;
        bool has_coll = false;
        for (const dom::object args : args_)
            for (const dom::key_value_pair f : args) {
                const std::string_view k = f.key;
                if (is_external_id_key(k))
                    a.external_id = read_id(f.value).value_or(a.external_id);
                else if (k == "correlation")
                    a.correlation = read_id(f.value).value_or(a.correlation);
                else if (k == "device")
                    a.device = read_id(f.value).value_or(a.device);
                else if (k == "stream")
                    a.stream = read_id(f.value).value_or(a.stream);
                else if (k == "Collective name") {
                    if (const auto s = read_string(f.value)) {
                        coll.name = *s;
                        has_coll = true;
                    }
                } else if (k == "dtype") {
                    if (const auto s = read_string(f.value))
                        coll.dtype = *s;
                } else if (k == "In msg nelems") {
                    if (read_id(f.value))
                        coll.in_nelems = count(f.value);
                } else if (k == "Out msg nelems") {
                    if (read_id(f.value))
                        coll.out_nelems = count(f.value);
                } else if (k == "Group size") {
                    if (read_id(f.value))
                        coll.group_size = count(f.value);
                } else if (k == "bytes") {  // memcpy / memset
                    if (read_id(f.value))
                        a.bytes = count(f.value);
                }
            }
        if (has_coll)
            a.collective = intern_collective(std::move(coll));
        t_.activities.push_back(std::move(a));
    }

    // A kernel's NCCL metadata, interned: every kernel with the same shares one.
    SharedValue<CollectiveArgs> intern_collective(CollectiveArgs c) {
        auto key = std::make_tuple(c.name, c.dtype, c.in_nelems, c.out_nelems, c.group_size);
        const auto it = collectives_.find(key);
        if (it != collectives_.end())
            return it->second;
        SharedValue<CollectiveArgs> v(std::move(c));
        collectives_.emplace(std::move(key), v);
        return v;
    }

    // An op's list ("Input type", "Concrete Inputs": strings; "Input Dims": shapes), interned: every op
    // with the same list shares one (a trace repeats a few hundred lists over all its ops). `before`
    // is the list read so far (a key given twice in "args" appends to it).
    template <class T, class Map>
    static SharedList<T> intern_list(Map& map, std::vector<T>& items) {
        if (items.empty())
            return {};
        const auto it = map.find(items);
        if (it != map.end())
            return it->second;
        SharedList<T> list(items);
        map.emplace(items, list);
        return list;
    }
    // `spelling` maps each string (the "Input type" names to one compiler's spelling: kineto_type_names.h); a
    // non-string item keeps its place: a bool as "True"/"False" and null as "" (as PyTorch writes them), a number
    // or array as its JSON text.
    SharedList<std::string> strings(dom::element v, const SharedList<std::string>& before,
                                    std::string_view (*spelling)(std::string_view) = nullptr) {
        if (v.type() != dom::element_type::ARRAY)
            return before;
        scratch_strings_.assign(before.begin(), before.end());
        for (const dom::element s : array_of(v))
            if (const auto text = read_string(s))
                scratch_strings_.emplace_back(spelling ? spelling(*text) : *text);
            else if (s.type() == dom::element_type::BOOL)  // PyTorch's spellings: "True"/"False", None as ""
                scratch_strings_.emplace_back(s.get_bool().value_unsafe() ? "True" : "False");
            else if (s.type() == dom::element_type::NULL_VALUE)
                scratch_strings_.emplace_back();
            else  // a number or array where a string belongs: its JSON text, so the later items keep their places
                scratch_strings_.emplace_back(simdjson::minify(s));
        return intern_list(string_lists_, scratch_strings_);
    }
    // "Input Dims": one entry per array in the list (a non-tensor input: []), its numbers as integers.
    // An input whose elements are arrays is a TensorList (`[[2, 3], [2, 3]]`): its entry stays empty and
    // its tensors go to the list's extra (TensorListDims), bounded: at most kMaxListTensors tensors of
    // kMaxListRank dims kept, the rest counted. Only these three levels are read (deeper arrays are
    // skipped, never walked), so no nesting costs more than its text.
    // The scratch lists are reused (cleared, capacity kept): no allocation per op once warm.
    InputDims dims(dom::element v, const InputDims& before) {
        std::size_t n = 0;
        auto next = [&]() -> std::vector<std::int64_t>& {
            if (n == scratch_dims_.first.size())
                scratch_dims_.first.emplace_back();
            std::vector<std::int64_t>& shape = scratch_dims_.first[n++];
            shape.clear();
            return shape;
        };
        std::vector<TensorListDims>& lists = scratch_dims_.second;
        lists.assign(before.extra().begin(), before.extra().end());
        for (const std::vector<std::int64_t>& shape : before)
            next() = shape;
        for (const dom::element in : array_of(v)) {
            if (in.type() != dom::element_type::ARRAY)
                continue;
            const auto position = static_cast<std::uint32_t>(std::min<std::size_t>(n, UINT32_MAX));
            std::vector<std::int64_t>& shape = next();
            TensorListDims* list = nullptr;
            for (const dom::element d : array_of(in)) {
                if (d.type() == dom::element_type::ARRAY) {  // a tensor of a TensorList
                    if (!list) {
                        lists.emplace_back();
                        list = &lists.back();
                        list->input = position;
                    }
                    tensor(*list, array_of(d));
                } else if (const auto i = read_id(d)) {
                    shape.push_back(*i);
                }
            }
            if (list)
                shape.clear();  // a list's entry: empty, as for any input that is not one tensor
        }
        scratch_dims_.first.resize(n);
        if (scratch_dims_.first.empty() && lists.empty())
            return {};
        const auto it = dims_lists_.find(scratch_dims_);
        if (it != dims_lists_.end())
            return it->second;
        InputDims list(scratch_dims_.first, lists);
        dims_lists_.emplace(scratch_dims_, list);
        return list;
    }
    // One tensor of a list: kept while the list holds fewer than kMaxListTensors and it has at most
    // kMaxListRank integer dims (once one is not kept, the rest are only counted: what is kept is a prefix).
    static void tensor(TensorListDims& list, dom::array dims) {
        const bool room = list.complete() && list.count < kMaxListTensors;
        if (list.count < UINT32_MAX)
            ++list.count;
        if (!room)
            return;
        const std::size_t start = list.dims.size();
        bool ok = dims.size() <= kMaxListRank;
        for (const dom::element d : dims) {
            if (!ok)
                break;
            const auto i = read_id(d);
            ok = i.has_value();
            if (ok)
                list.dims.push_back(*i);
        }
        if (!ok) {
            list.dims.resize(start);
            return;
        }
        list.ends.push_back(static_cast<std::uint32_t>(list.dims.size()));
    }

    // What the report says of every op read: their count, and whether any recorded a shape (op_has_shapes:
    // an "Input Dims" entry holding a dim or a tensor list's tensor; `[[], []]` of scalars is none), taken
    // as each is read, whichever ops are kept.
    void note_op() {
        ++t_.ops_read;
        if (t_.ops_have_dims)
            return;
        for (const dom::object args : args_)
            for (const dom::key_value_pair f : args)
                if (f.key == "Input Dims" && f.value.type() == dom::element_type::ARRAY)
                    for (const dom::element in : array_of(f.value))
                        if (in.type() == dom::element_type::ARRAY)
                            for (const dom::element d : array_of(in))
                                if (d.type() == dom::element_type::ARRAY || read_id(d)) {
                                    t_.ops_have_dims = true;
                                    return;
                                }
    }

    void op(std::string_view name, double ts, double dur) {
        CpuOp o;
        o.thread = thread_id();
        o.ts = ts;
        o.dur = dur;
        // AccumulateGrad ops are kept aside whether they launch work or not (a parameter's first gradient is
        // stolen, not added: no kernel): Trace::accumulate_grads, the parameter inventory's source.
        const bool grad = name == kAccumulateGrad;
        bool kept = true;
        if (keep_) {  // the ops pass: an op no launch or activity can be charged to is not kept
            for (const dom::object args : args_)
                for (const dom::key_value_pair f : args)
                    if (is_external_id_key(f.key))
                        o.external_id = read_id(f.value).value_or(o.external_id);
            kept = keep_->holds(ts, dur, o.external_id);
            if (!kept && !grad)
                return;
            o.external_id = -1;  // read again below, in the same order
        }
        o.name = name_id(name);
        for (const dom::object args : args_)
            for (const dom::key_value_pair f : args) {
                const std::string_view k = f.key;
                if (is_external_id_key(k))
                    o.external_id = read_id(f.value).value_or(o.external_id);
                else if (k == "Input Dims" && f.value.type() == dom::element_type::ARRAY)
                    o.dims = dims(f.value, o.dims);
                else if (k == "Input Strides" && f.value.type() == dom::element_type::ARRAY)
                    o.strides = dims(f.value, o.strides);
                else if (k == "Input type")
                    o.types = strings(f.value, o.types, gcc_type_spelling);
                else if (k == "Concrete Inputs")
                    o.concrete = strings(f.value, o.concrete);
            }
        // "Int", "Double", "Bool", "ComplexDouble" name a tensor's type only where its dims are not empty;
        // with dims [] they are an old trace's Python scalars.
        bool shared = false;
        for (std::size_t i = 0; i < o.types.size() && i < o.dims.size() && !shared; ++i)
            shared = !o.dims[i].empty() && tensor_scalar_spelling(o.types[i]) != o.types[i];
        if (shared) {
            scratch_strings_.clear();
            for (std::size_t i = 0; i < o.types.size(); ++i)
                scratch_strings_.emplace_back(i < o.dims.size() && !o.dims[i].empty() ? tensor_scalar_spelling(o.types[i])
                                                                                      : std::string_view(o.types[i]));
            o.types = intern_list(string_lists_, scratch_strings_);
        }
        if (grad)
            t_.accumulate_grads.push_back(o);
        if (kept)
            t_.ops.push_back(std::move(o));
    }

    void launch(std::string_view name, double ts, double dur) {
        // A call that queues GPU work: cudaLaunchKernel, cuLaunchKernel, hipExtModuleLaunchKernel,
        // cudaGraphLaunch, cudaMemcpyAsync, hipMemsetAsync, ... (the refusal of a trace without activities).
        if (name.find("Launch") != std::string_view::npos || name.find("Memcpy") != std::string_view::npos ||
            name.find("Memset") != std::string_view::npos)
            ++work_calls;
        Launch l;
        l.thread = thread_id();
        l.ts = ts;
        l.dur = dur;
        const bool copy = name.find("Memcpy") != std::string_view::npos;
        for (const dom::object args : args_)
            for (const dom::key_value_pair f : args) {
                if (is_external_id_key(f.key))
                    l.external_id = read_id(f.value).value_or(l.external_id);
                else if (f.key == "correlation")
                    l.correlation = read_id(f.value).value_or(l.correlation);
                else if (copy && f.key == "kind") {  // hipMemcpyKind, a number or its text: 1 HtoD, 2 DtoH, 3 DtoD
                    const std::optional<std::string_view> text = read_string(f.value);
                    const std::optional<std::int64_t> k = text ? (*text == "1"   ? 1
                                                                  : *text == "2" ? 2
                                                                  : *text == "3" ? 3
                                                                                 : 0)
                                                               : read_id(f.value);
                    l.copy = k == 1 ? CopyKind::htod : k == 2 ? CopyKind::dtoh : k == 3 ? CopyKind::dtod : CopyKind::unknown;
                }
            }
        if (copy && l.copy == CopyKind::unknown)  // hipMemcpyHtoD, hipMemcpyDtoHAsync, hipMemcpyDtoD
            l.copy = name.find("HtoD") != std::string_view::npos   ? CopyKind::htod
                     : name.find("DtoH") != std::string_view::npos ? CopyKind::dtoh
                     : name.find("DtoD") != std::string_view::npos ? CopyKind::dtod
                                                                   : CopyKind::unknown;
        t_.launches.push_back(l);
    }

    Trace& t_;
    const std::string& origin_;
    std::optional<JsonElements> in_;
    Pass pass_ = Pass::all;
    const OpFilter* keep_ = nullptr;
    std::uint64_t ordinal_ = 0;    // elements of the traceEvents arrays read so far
    std::vector<bool> op_events_;  // the plan's mark: element i is a CPU op kept by kind and time
    dom::parser parser_;
    std::string key_, scratch_, tid_text_;
    std::optional<dom::element> pid_, tid_;  // the event's "pid" and "tid"
    std::vector<dom::object> args_;
    std::unordered_map<std::string, std::uint32_t> name_ids_, thread_ids_;
    struct ListHash {  // FNV-1a over the items
        static void mix(std::size_t& h, std::size_t v) { h = (h ^ v) * 1099511628211ull; }
        std::size_t operator()(const std::vector<std::string>& l) const {
            std::size_t h = 14695981039346656037ull;
            for (const std::string& s : l)
                mix(h, std::hash<std::string>{}(s));
            return h;
        }
        std::size_t operator()(const std::pair<std::vector<std::vector<std::int64_t>>, std::vector<TensorListDims>>& l) const {
            std::size_t h = 14695981039346656037ull;
            for (const auto& shape : l.first) {
                mix(h, shape.size());
                for (const std::int64_t d : shape)
                    mix(h, static_cast<std::size_t>(d));
            }
            for (const TensorListDims& list : l.second) {
                mix(h, list.input);
                mix(h, list.count);
                mix(h, list.ends.size());
                for (const std::int64_t d : list.dims)
                    mix(h, static_cast<std::size_t>(d));
            }
            return h;
        }
    };
    std::vector<std::string> scratch_strings_;
    using DimsKey = std::pair<std::vector<std::vector<std::int64_t>>, std::vector<TensorListDims>>;
    DimsKey scratch_dims_;
    std::unordered_map<std::vector<std::string>, SharedList<std::string>, ListHash> string_lists_;
    std::map<std::tuple<std::string, std::string, std::uint64_t, std::uint64_t, std::uint64_t>, SharedValue<CollectiveArgs>>
        collectives_;
    std::unordered_map<DimsKey, InputDims, ListHash> dims_lists_;
};

// `open` gives the document's bytes from the start, once per read: twice (the plan, then the ops
// it keeps) when `passes` is two, else once.
Trace parse(const std::function<JsonElements::Read()>& open, const std::string& origin, ReadPasses passes) {
    Trace t;
    Reader r(t, origin);
    r.run(open(), passes == ReadPasses::two ? Pass::plan : Pass::all);
    if (!r.saw_events)
        throw InputError(origin, fmt::format("no \"traceEvents\" array: {}", kExpected));
    if (t.activities.empty()) {
        // No kernel, memcpy or memset. Runtime calls are CUPTI's, recorded only with the CUDA activity on:
        // without any, the GPU activity was not profiled (activities=[ProfilerActivity.CPU] only); with
        // some but none that launches work, the window ran no GPU work; with launches, their activity
        // records were lost. Say which, what the trace shows of the GPU, and what to change.
        const std::string gpu =
            t.devices.empty() ? std::string() : fmt::format("deviceProperties names '{}'", t.devices.front().name);
        std::string what, fix;
        if (t.launches.empty()) {
            what = gpu.empty() ? std::string("expected a trace of a GPU run")
                               : fmt::format("a GPU was present ({}) but no GPU activity was recorded", gpu);
            fix = "profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]";
        } else if (r.work_calls == 0) {
            what = fmt::format(
                "a GPU was present ({} GPU runtime calls, none launching a kernel, memcpy or memset{}{}) and "
                "profiled, but the window ran no GPU work",
                t.launches.size(), gpu.empty() ? "" : "; ", gpu);
            fix = "profile steps that run on the GPU (torch.profiler.schedule: active steps after wait and warmup)";
        } else {
            what = fmt::format(
                "a GPU was present ({} GPU runtime calls, {} of them launches, memcpys or memsets{}{}) but no GPU "
                "activity was recorded: the activity records were lost (a full CUPTI buffer) or cut from the file",
                t.launches.size(), r.work_calls, gpu.empty() ? "" : "; ", gpu);
            fix = "profile fewer steps, and keep the whole file";
        }
        throw InputError(origin, fmt::format("{} trace events but no GPU kernel, memcpy or memset (cat \"kernel\", "
                                             "\"gpu_memcpy\", \"gpu_memset\"): {}; {}",
                                             t.events, what, fix));
    }
    correlate_by_external_id(t);
    copy_kinds_from_launches(t);
    if (passes == ReadPasses::two) {
        drop_idle_calls(t);
        const std::optional<OpFilter> keep = OpFilter::of(t);
        r.run(open(), Pass::ops, keep ? &*keep : nullptr);
    }
    return t;
}

}  // namespace

Trace parse_kineto(const std::string& text, const std::string& origin, ReadPasses passes) {
    return parse(
        [&text]() -> JsonElements::Read {
            return [&text, at = std::size_t{0}](char* dst, std::size_t n) mutable {
                const std::size_t k = std::min(n, text.size() - at);
                std::memcpy(dst, text.data() + at, k);
                at += k;
                return k;
            };
        },
        origin, passes);
}

Trace parse_kineto_streams(const std::function<std::istream&()>& open, const std::string& origin, ReadPasses passes) {
    // Straight from the stream buffer: its exceptions (read_kineto's size bound, binary data) pass.
    return parse(
        [&open]() -> JsonElements::Read {
            std::streambuf* buf = open().rdbuf();
            return [buf](char* dst, std::size_t n) {
                return static_cast<std::size_t>(buf->sgetn(dst, static_cast<std::streamsize>(n)));
            };
        },
        origin, passes);
}

TensorListDims tensor_list_dims(std::uint32_t input, const std::vector<std::vector<std::int64_t>>& shapes) {
    TensorListDims list;
    list.input = input;
    for (const std::vector<std::int64_t>& shape : shapes) {
        const bool room = list.complete() && list.count < kMaxListTensors && shape.size() <= kMaxListRank;
        if (list.count < UINT32_MAX)
            ++list.count;
        if (!room)
            continue;
        list.dims.insert(list.dims.end(), shape.begin(), shape.end());
        list.ends.push_back(static_cast<std::uint32_t>(list.dims.size()));
    }
    return list;
}

std::string trace_gpu_name(const Trace& t) {
    if (t.devices.empty())
        return "";
    std::map<std::int64_t, std::uint64_t> activities;
    for (const GpuActivity& a : t.activities)
        ++activities[a.device];
    std::int64_t busiest = -1;
    std::uint64_t most = 0;
    for (const auto& [device, n] : activities)
        if (n > most) {
            busiest = device;
            most = n;
        }
    for (const TraceDevice& d : t.devices)
        if (d.id == busiest && busiest >= 0)
            return d.name;
    return t.devices.front().name;
}

}  // namespace bwacct::kineto
