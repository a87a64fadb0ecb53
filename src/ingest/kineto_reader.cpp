// One SAX pass over a Kineto Chrome trace: keeps per event only the fields the accounting needs
// (include/bwacct/ingest_kineto.h). No DOM: memory grows with the events kept, not with the file.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"

namespace bwacct::kineto {
namespace {

using json = nlohmann::json;

constexpr const char* kExpected = "expected a PyTorch profiler (Kineto) Chrome trace (.json or .json.gz)";

// `s` with control characters as '?': error messages stay on one line.
std::string printable(std::string s) {
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = '?';
    return s;
}

enum class TopKey { other, events, devices };
enum class DeviceKey { other, name, id };  // keys of a deviceProperties entry
enum class EventKey { other, name, cat, ph, ts, dur, pid, tid, args };
enum class ArgKey {
    other,
    external_id,
    correlation,
    device,
    stream,
    dims,
    types,
    concrete,
    coll_name,
    in_nelems,
    out_nelems,
    group_size,
    dtype,
    bytes
};

// How an event's "ts" or "dur" was given.
enum class TimeField { absent, number, string_number, not_a_number };

struct RawEvent {
    std::string name, cat, ph, pid, tid;
    double ts = 0, dur = 0;
    TimeField ts_field = TimeField::absent, dur_field = TimeField::absent;
    std::int64_t external_id = -1, correlation = -1, device = 0, stream = 0;
    std::uint64_t bytes = 0;  // memcpy / memset "bytes"
    std::vector<std::vector<std::int64_t>> dims;
    std::vector<std::string> types, concrete;
    CollectiveArgs coll;
    bool has_coll = false;
    void clear() { *this = RawEvent{}; }
};

ArgKey arg_key(const std::string& k) {
    static const std::unordered_map<std::string, ArgKey> keys{{"External id", ArgKey::external_id},
                                                              {"correlation", ArgKey::correlation},
                                                              {"device", ArgKey::device},
                                                              {"stream", ArgKey::stream},
                                                              {"Input Dims", ArgKey::dims},
                                                              {"Input type", ArgKey::types},
                                                              {"Concrete Inputs", ArgKey::concrete},
                                                              {"Collective name", ArgKey::coll_name},
                                                              {"In msg nelems", ArgKey::in_nelems},
                                                              {"Out msg nelems", ArgKey::out_nelems},
                                                              {"Group size", ArgKey::group_size},
                                                              {"dtype", ArgKey::dtype},
                                                              {"bytes", ArgKey::bytes}};
    const auto it = keys.find(k);
    return it == keys.end() ? ArgKey::other : it->second;
}

EventKey event_key(const std::string& k) {
    static const std::unordered_map<std::string, EventKey> keys{
        {"name", EventKey::name}, {"cat", EventKey::cat}, {"ph", EventKey::ph},   {"ts", EventKey::ts},
        {"dur", EventKey::dur},   {"pid", EventKey::pid}, {"tid", EventKey::tid}, {"args", EventKey::args}};
    const auto it = keys.find(k);
    return it == keys.end() ? EventKey::other : it->second;
}

class Handler : public nlohmann::json_sax<json> {
public:
    Handler(Trace& t, const std::string& origin) : t_(t), origin_(origin) {}
    bool saw_events = false;
    std::size_t error_pos = 0;
    std::string error_token;
    bool failed = false;
    bool binary_input = false;  // the offending token holds control bytes: a binary file

    bool start_object(std::size_t) override {
        ++depth_;
        if (depth_ == 3 && top_key_ == TopKey::devices)
            t_.devices.emplace_back();
        else if (event_depth_ > 0 && depth_ == event_depth_) {
            ev_.clear();
            in_event_ = true;
        } else if (in_event_ && depth_ == event_depth_ + 1 && ev_key_ == EventKey::args) {
            in_args_ = true;
        }
        return true;
    }
    bool end_object() override {
        if (in_args_ && depth_ == event_depth_ + 1)
            in_args_ = false;
        else if (in_event_ && depth_ == event_depth_) {
            in_event_ = false;
            finish_event();
        }
        --depth_;
        return true;
    }
    bool start_array(std::size_t) override {
        ++depth_;
        if (depth_ == 1 || (depth_ == 2 && top_key_ == TopKey::events)) {
            event_depth_ = depth_ + 1;  // a bare array of events (Chrome's JSON Array Format) or traceEvents
            saw_events = true;
        } else if (in_args_ && depth_ == event_depth_ + 3 && arg_key_ == ArgKey::dims) {
            ev_.dims.emplace_back();
        }
        return true;
    }
    bool end_array() override {
        if (depth_ + 1 == event_depth_)
            event_depth_ = -1;
        --depth_;
        return true;
    }
    bool key(std::string& k) override {
        if (depth_ == 1)
            top_key_ = k == "traceEvents" ? TopKey::events : k == "deviceProperties" ? TopKey::devices : TopKey::other;
        else if (in_args_ && depth_ == event_depth_ + 1)
            arg_key_ = arg_key(k);
        else if (in_event_ && depth_ == event_depth_)
            ev_key_ = event_key(k);
        else if (depth_ == 3 && top_key_ == TopKey::devices)
            device_key_ = k == "name" ? DeviceKey::name : k == "id" ? DeviceKey::id : DeviceKey::other;
        return true;
    }
    bool string(std::string& s) override {
        if (in_args_ && depth_ == event_depth_ + 1) {
            if (arg_key_ == ArgKey::coll_name) {
                ev_.coll.name = s;
                ev_.has_coll = true;
            } else if (arg_key_ == ArgKey::dtype) {
                ev_.coll.dtype = s;
            }
        } else if (in_args_ && depth_ == event_depth_ + 2) {
            if (arg_key_ == ArgKey::types)
                ev_.types.push_back(std::move(s));
            else if (arg_key_ == ArgKey::concrete)
                ev_.concrete.push_back(std::move(s));
        } else if (in_event_ && depth_ == event_depth_) {
            switch (ev_key_) {
                case EventKey::name:
                    ev_.name = std::move(s);
                    break;
                case EventKey::cat:
                    ev_.cat = std::move(s);
                    break;
                case EventKey::ph:
                    ev_.ph = std::move(s);
                    break;
                case EventKey::pid:
                    ev_.pid = std::move(s);
                    break;
                case EventKey::tid:
                    ev_.tid = std::move(s);
                    break;
                case EventKey::ts:
                    ev_.ts_field = string_time(s, ev_.ts);
                    break;
                case EventKey::dur:
                    ev_.dur_field = string_time(s, ev_.dur);
                    break;
                default:
                    break;
            }
        } else if (depth_ == 3 && top_key_ == TopKey::devices && device_key_ == DeviceKey::name && !t_.devices.empty()) {
            t_.devices.back().name = s;
        }
        return true;
    }
    bool number_integer(json::number_integer_t v) override { return number(static_cast<double>(v), v); }
    bool number_unsigned(json::number_unsigned_t v) override {
        return number(static_cast<double>(v), v > static_cast<std::uint64_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(v));
    }
    bool number_float(json::number_float_t v, const json::string_t&) override {
        return number(v, v >= 0 && v < 9.2e18 && v == static_cast<double>(static_cast<std::int64_t>(v))
                             ? static_cast<std::int64_t>(v)
                             : -1);
    }
    bool null() override { return not_a_time(); }
    bool boolean(bool) override { return not_a_time(); }
    bool binary(json::binary_t&) override { return true; }
    bool parse_error(std::size_t pos, const std::string& token, const nlohmann::detail::exception&) override {
        failed = true;
        error_pos = pos;
        binary_input = false;
        for (const char c : token.substr(0, 20)) {
            const auto u = static_cast<unsigned char>(c);
            binary_input = binary_input || u < 0x20 || u == 0x7f;
            error_token += (u < 0x20 || u >= 0x7f) ? '?' : c;
        }
        return false;
    }

private:
    // "ts": "123.5": a string holding a plain decimal number (as some exporters write it) is read as
    // that number; any other string is not a time.
    static TimeField string_time(const std::string& s, double& out) {
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
    // null, true or false where a time belongs.
    bool not_a_time() {
        if (in_event_ && depth_ == event_depth_ && !in_args_) {
            if (ev_key_ == EventKey::ts)
                ev_.ts_field = TimeField::not_a_number;
            else if (ev_key_ == EventKey::dur)
                ev_.dur_field = TimeField::not_a_number;
        }
        return true;
    }

    // Which of the kept kinds an event's category is ("" for the others).
    static const char* kept_kind(const std::string& c) {
        if (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Kernel" || c == "Memcpy" || c == "Memset")
            return "GPU activity";
        if (c == "cpu_op" || c == "Operator")
            return "CPU op";
        if (c == "cuda_runtime" || c == "cuda_driver" || c == "Runtime")
            return "runtime call";
        return "";
    }

    // False (and the reason counted in Trace::skipped) when a complete event of a kept kind lacks a
    // usable "ts" or "dur".
    bool usable_times() {
        const char* kind = kept_kind(ev_.cat);
        if (*kind == '\0')
            return false;
        const auto why = [](TimeField f) -> const char* {
            return f == TimeField::absent ? "without" : f == TimeField::not_a_number ? "with a non-numeric" : "";
        };
        const bool ts_ok = ev_.ts_field == TimeField::number || ev_.ts_field == TimeField::string_number;
        const bool dur_ok = ev_.dur_field == TimeField::number || ev_.dur_field == TimeField::string_number;
        if (!ts_ok || !dur_ok) {
            const TimeField bad = !ts_ok ? ev_.ts_field : ev_.dur_field;
            ++t_.skipped[fmt::format("{} {} \"{}\"", kind, why(bad), !ts_ok ? "ts" : "dur")];
            return false;
        }
        if (ev_.ts_field == TimeField::string_number || ev_.dur_field == TimeField::string_number)
            ++t_.string_times;
        return true;
    }

    bool number(double d, std::int64_t i) {
        if (depth_ == 3 && top_key_ == TopKey::devices && device_key_ == DeviceKey::id && !t_.devices.empty())
            t_.devices.back().id = i;
        else if (in_args_ && depth_ == event_depth_ + 1) {
            switch (arg_key_) {
                case ArgKey::external_id:
                    ev_.external_id = i;
                    break;
                case ArgKey::correlation:
                    ev_.correlation = i;
                    break;
                case ArgKey::device:
                    ev_.device = i;
                    break;
                case ArgKey::stream:
                    ev_.stream = i;
                    break;
                case ArgKey::in_nelems:
                    ev_.coll.in_nelems = i < 0 ? 0 : static_cast<std::uint64_t>(i);
                    break;
                case ArgKey::out_nelems:
                    ev_.coll.out_nelems = i < 0 ? 0 : static_cast<std::uint64_t>(i);
                    break;
                case ArgKey::group_size:
                    ev_.coll.group_size = i < 0 ? 0 : static_cast<std::uint64_t>(i);
                    break;
                case ArgKey::bytes:
                    ev_.bytes = i < 0 ? 0 : static_cast<std::uint64_t>(i);
                    break;
                default:
                    break;
            }
        } else if (in_args_ && depth_ == event_depth_ + 3 && arg_key_ == ArgKey::dims && !ev_.dims.empty()) {
            ev_.dims.back().push_back(i);
        } else if (in_event_ && depth_ == event_depth_) {
            switch (ev_key_) {
                case EventKey::ts:
                    ev_.ts = d;
                    ev_.ts_field = TimeField::number;
                    break;
                case EventKey::dur:
                    ev_.dur = d;
                    ev_.dur_field = TimeField::number;
                    break;
                case EventKey::pid:
                    ev_.pid = fmt::format("{}", i);
                    break;
                case EventKey::tid:
                    ev_.tid = fmt::format("{}", i);
                    break;
                default:
                    break;
            }
        }
        return true;
    }

    std::uint32_t intern(std::unordered_map<std::string, std::uint32_t>& map, std::vector<std::string>& list, std::string&& s) {
        const auto it = map.find(s);
        if (it != map.end())
            return it->second;
        const auto id = static_cast<std::uint32_t>(list.size());
        list.push_back(s);
        map.emplace(std::move(s), id);
        return id;
    }
    std::uint32_t thread_id() { return intern(thread_ids_, t_.threads, ev_.pid + "/" + ev_.tid); }

    void finish_event() {
        ++t_.events;
        if (ev_.ph != "X") {
            // Kineto writes every GPU activity as a complete event; another phase ("B"/"E" pairs, an
            // instant) has no duration to account.
            if (std::string_view(kept_kind(ev_.cat)) == "GPU activity")
                ++t_.skipped[fmt::format("GPU activity with phase \"{}\" instead of \"X\"", printable(ev_.ph.substr(0, 8)))];
            return;
        }
        // "ProfilerStep#N" (a user annotation, a CPU op in older PyTorch): the steps' CPU ranges, which
        // bound the profiled window (kineto_timeline.cpp).
        const bool numeric_times = (ev_.ts_field == TimeField::number || ev_.ts_field == TimeField::string_number) &&
                                   (ev_.dur_field == TimeField::number || ev_.dur_field == TimeField::string_number);
        if ((ev_.cat == "user_annotation" || ev_.cat == "cpu_op") && ev_.name.rfind("ProfilerStep#", 0) == 0 && numeric_times &&
            ev_.dur >= 0 && ev_.dur <= 1e12 && std::abs(ev_.ts) <= 1e17)
            t_.steps.push_back({ev_.name, ev_.ts, ev_.dur});
        if (!usable_times())
            return;
        // Timestamps are µs since some epoch (~1e12 today); a duration beyond 1e12 µs (11 days) or a
        // timestamp beyond 1e17 µs is not a profile: refuse it rather than sum infinities.
        if (!(ev_.dur >= 0 && ev_.dur <= 1e12 && std::abs(ev_.ts) <= 1e17))
            throw InputError(origin_, fmt::format("traceEvents[{}] ('{}') has ts {} and dur {} µs, out of range: {}",
                                                  t_.events - 1, printable(ev_.name.substr(0, 60)), ev_.ts, ev_.dur, kExpected));
        const std::string& c = ev_.cat;
        if (c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Kernel" || c == "Memcpy" || c == "Memset") {
            GpuActivity a;
            a.kind = (c == "kernel" || c == "Kernel")       ? Activity::kernel
                     : (c == "gpu_memcpy" || c == "Memcpy") ? Activity::memcpy
                                                            : Activity::memset;
            a.name = intern(name_ids_, t_.names, std::move(ev_.name));
            a.ts = ev_.ts;
            a.dur = ev_.dur;
            a.device = ev_.device;
            a.stream = ev_.stream;
            a.external_id = ev_.external_id;
            a.correlation = ev_.correlation;
            if (ev_.has_coll)
                a.collective = std::move(ev_.coll);
            a.bytes = ev_.bytes;
            t_.activities.push_back(std::move(a));
        } else if (c == "cpu_op" || c == "Operator") {
            CpuOp o;
            o.name = intern(name_ids_, t_.names, std::move(ev_.name));
            o.thread = thread_id();
            o.ts = ev_.ts;
            o.dur = ev_.dur;
            o.external_id = ev_.external_id;
            o.dims = std::move(ev_.dims);
            o.types = std::move(ev_.types);
            o.concrete = std::move(ev_.concrete);
            t_.ops.push_back(std::move(o));
        } else if (c == "cuda_runtime" || c == "cuda_driver" || c == "Runtime") {
            Launch l;
            l.thread = thread_id();
            l.ts = ev_.ts;
            l.dur = ev_.dur;
            l.external_id = ev_.external_id;
            l.correlation = ev_.correlation;
            t_.launches.push_back(l);
        }
    }

    Trace& t_;
    const std::string& origin_;
    int depth_ = 0;
    int event_depth_ = -1;  // depth of the event objects while inside the events array
    TopKey top_key_ = TopKey::other;
    EventKey ev_key_ = EventKey::other;
    ArgKey arg_key_ = ArgKey::other;
    bool in_event_ = false, in_args_ = false;
    DeviceKey device_key_ = DeviceKey::other;
    RawEvent ev_;
    std::unordered_map<std::string, std::uint32_t> name_ids_, thread_ids_;
};

Trace finish(Handler& h, Trace t, const std::string& origin) {
    if (h.failed)
        throw InputError(
            origin, fmt::format("{} (at byte {}{}): {}", h.binary_input ? "binary data, not JSON" : "not valid JSON", h.error_pos,
                                h.error_token.empty() ? "" : ", near '" + h.error_token + "'", kExpected));
    if (!h.saw_events)
        throw InputError(origin, fmt::format("no \"traceEvents\" array: {}", kExpected));
    if (t.activities.empty())
        throw InputError(origin, fmt::format("{} trace events but no GPU kernel, memcpy or memset (cat \"kernel\", "
                                             "\"gpu_memcpy\", \"gpu_memset\"): expected a trace of a CUDA run",
                                             t.events));
    return t;
}

}  // namespace

Trace parse_kineto(const std::string& text, const std::string& origin) {
    Trace t;
    Handler h(t, origin);
    json::sax_parse(text.begin(), text.end(), &h);
    return finish(h, std::move(t), origin);
}

Trace parse_kineto_stream(std::istream& in, const std::string& origin) {
    Trace t;
    Handler h(t, origin);
    json::sax_parse(in, &h);
    return finish(h, std::move(t), origin);
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
