// Loads and validates the GPU catalog. Every figure must carry a source; compute peaks must say
// "dense"; link bandwidths must say "per-direction". A catalog that breaks these rules is refused.
#include "bwacct/catalog.h"

#include <fmt/format.h>
#include <algorithm>

#include <cctype>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "bwacct/error.h"
#include "bwacct/suggest.h"
#include "bwacct/text_file.h"

namespace bwacct {
namespace {

using json = nlohmann::ordered_json;

class Reader {
public:
    explicit Reader(std::string origin) : origin_(std::move(origin)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw InputError(origin_, fmt::format("{}: {}", path, what));
    }

    const json& member(const json& obj, const std::string& path, const char* key) const {
        if (!obj.is_object())
            fail(path, "expected an object");
        auto it = obj.find(key);
        if (it == obj.end())
            fail(path, fmt::format("missing '{}'", key));
        return *it;
    }

    std::string string(const json& obj, const std::string& path, const char* key, bool required = true) const {
        if (!obj.contains(key)) {
            if (required)
                fail(path, fmt::format("missing '{}'", key));
            return {};
        }
        const json& v = obj.at(key);
        if (!v.is_string() || (required && v.get<std::string>().empty()))
            fail(path + "." + key, "expected a non-empty string");
        return v.get<std::string>();
    }

    // Every catalog figure (peaks in TFLOP/s and GB/s, times in µs, sizes in bytes, clocks in MHz) lies
    // far inside [1e-6, 1e15]; outside it (1e-310, 1e308) the derived figures (bytes / peak, peak ×
    // 1e12) leave the range of a double, so such a value is refused when the catalog is read.
    double positive(const json& v, const std::string& path) const {
        if (!v.is_number())
            fail(path, "expected a number");
        double d = v.get<double>();
        if (!std::isfinite(d) || d <= 0)
            fail(path, "expected a positive number");
        if (d < kMinFigure || d > kMaxFigure)
            fail(path, fmt::format("{:g} is outside the plausible range of a catalog figure ({:g} to {:g})", d, kMinFigure,
                                   kMaxFigure));
        return d;
    }
    static constexpr double kMinFigure = 1e-6, kMaxFigure = 1e15;

    // A figure: {"value": >0, "source": "...", "note"?, "alternatives"?}, plus a required
    // attribute (e.g. "sparsity": "dense") when `attr` is given.
    Figure figure(const json& v, const std::string& path, const char* attr = nullptr, const char* attr_value = nullptr) const {
        if (!v.is_object())
            fail(path, "expected an object with 'value' and 'source'");
        Figure f;
        f.value = positive(member(v, path, "value"), path + ".value");
        f.source = string(v, path, "source");
        f.note = string(v, path, "note", false);
        if (attr != nullptr) {
            std::string got = string(v, path, attr);
            if (got != attr_value)
                fail(path + "." + attr, fmt::format("must be \"{}\" (got \"{}\")", attr_value, got));
        }
        if (v.contains("alternatives")) {
            const json& alts = v.at("alternatives");
            if (!alts.is_array())
                fail(path + ".alternatives", "expected an array");
            for (std::size_t i = 0; i < alts.size(); ++i) {
                const std::string p = fmt::format("{}.alternatives[{}]", path, i);
                Figure::Alternative a;
                a.value = positive(member(alts[i], p, "value"), p + ".value");
                a.source = string(alts[i], p, "source");
                a.note = string(alts[i], p, "note", false);
                f.alternatives.push_back(std::move(a));
            }
        }
        return f;
    }

    std::optional<Figure> optional_figure(const json& obj, const std::string& path, const char* key) const {
        if (!obj.contains(key) || obj.at(key).is_null())
            return std::nullopt;
        return figure(obj.at(key), path + "." + key);
    }

    std::map<std::string, Figure> peaks(const json& obj, const std::string& path, const char* key,
                                        std::initializer_list<std::string_view> allowed) const {
        std::map<std::string, Figure> out;
        if (!obj.contains(key))
            return out;
        const json& p = obj.at(key);
        if (!p.is_object())
            fail(path + "." + key, "expected an object of dtype → figure");
        for (const auto& [name, v] : p.items()) {
            if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
                fail(path + "." + key, fmt::format("unknown dtype key '{}'", name));
            out.emplace(name, figure(v, fmt::format("{}.{}.{}", path, key, name), "sparsity", "dense"));
        }
        return out;
    }

    std::optional<Link> link(const json& obj, const std::string& path, const char* key) const {
        if (!obj.contains(key) || obj.at(key).is_null())
            return std::nullopt;
        const json& v = obj.at(key);
        const std::string p = path + "." + key;
        Link l;
        l.name = string(v, p, "name");
        l.bw_GBps = figure(member(v, p, "bw_GBps"), p + ".bw_GBps", "direction", "per-direction");
        if (v.contains("nvls")) {
            if (!v.at("nvls").is_boolean())
                fail(p + ".nvls", "expected true or false");
            l.nvls = v.at("nvls").get<bool>();
        }
        l.step_latency_us = optional_figure(v, p, "step_latency_us");
        return l;
    }

    GpuSpec gpu(const std::string& id, const json& v) const {
        const std::string p = "gpus." + id;
        if (!v.is_object())
            fail(p, "expected an object");
        GpuSpec g;
        g.id = id;
        g.name = string(v, p, "name");
        g.vendor = string(v, p, "vendor", false);
        g.arch = string(v, p, "arch", false);
        if (v.contains("match")) {
            if (!v.at("match").is_array())
                fail(p + ".match", "expected an array of strings");
            for (const auto& m : v.at("match")) {
                if (!m.is_string())
                    fail(p + ".match", "expected an array of strings");
                g.match.push_back(m.get<std::string>());
            }
        }
        g.sm_count = optional_figure(v, p, "sm_count");
        g.boost_clock_MHz = optional_figure(v, p, "boost_clock_MHz");
        g.l2_bytes = optional_figure(v, p, "l2_bytes");
        g.hbm_capacity_bytes = optional_figure(v, p, "hbm_capacity_bytes");
        g.hbm_bw_GBps = figure(member(v, p, "hbm_bw_GBps"), p + ".hbm_bw_GBps");
        g.tensor_tflops = peaks(v, p, "tensor_tflops", {"fp64", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8"});
        g.vector_tflops = peaks(v, p, "vector_tflops", {"fp64", "fp32", "fp16", "bf16"});
        g.scaleup_link = link(v, p, "scaleup_link");
        g.pcie = link(v, p, "pcie");
        g.launch_overhead_us = figure(member(v, p, "launch_overhead_us"), p + ".launch_overhead_us");
        return g;
    }

private:
    std::string origin_;
};

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// `text` names the model `part` names: `part` occurs in it as whole words (no letter or digit right
// before or after: "NVIDIA L4" is not in "NVIDIA L40S"), and what follows it is no further word of
// the name, only punctuation or a remark in parentheses. Words before it may be a vendor or family
// ("NVIDIA H100 80GB HBM3" names "H100 80GB HBM3"; "NVIDIA B200 (simulated)" names "NVIDIA B200"),
// but a word after it names another model ("NVIDIA H200 NVL" does not name "NVIDIA H200").
bool names_model(std::string_view text, std::string_view part) {
    if (part.empty())
        return false;
    for (std::size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + 1)) {
        const std::size_t end = at + part.size();
        if ((at > 0 && alnum(text[at - 1])) || (end < text.size() && alnum(text[end])))
            continue;
        int depth = 0;
        bool word_after = false;
        for (std::size_t i = end; i < text.size() && !word_after; ++i) {
            if (text[i] == '(')
                ++depth;
            else if (text[i] == ')' && depth > 0)
                --depth;
            else if (depth == 0 && alnum(text[i]))
                word_after = true;
        }
        if (!word_after)
            return true;
    }
    return false;
}

// A parser callback that refuses a key given twice in one JSON object (nlohmann's parser would keep
// the last silently), naming the key and the object it is in; a repeated id under "gpus" is named
// as such.
json::parser_callback_t unique_keys(const std::string& origin) {
    struct Frame {
        bool object = false;
        std::string key;  // the key whose value is being read (objects), "[]" for arrays
        std::set<std::string> seen;
    };
    auto stack = std::make_shared<std::vector<Frame>>();
    return [stack, origin](int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start:
                stack->push_back(Frame{event == json::parse_event_t::object_start, "[]", {}});
                break;
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                if (!stack->empty())
                    stack->pop_back();
                break;
            case json::parse_event_t::key: {
                if (stack->empty() || !stack->back().object)
                    break;
                Frame& top = stack->back();
                const std::string key = parsed.is_string() ? parsed.get<std::string>() : parsed.dump();
                if (!top.seen.insert(key).second) {
                    std::string where;
                    for (std::size_t i = 0; i + 1 < stack->size(); ++i)
                        where += (where.empty() || (*stack)[i].key == "[]" ? "" : ".") + (*stack)[i].key;
                    if (where == "gpus")
                        throw InputError(origin, fmt::format("GPU id '{}' is defined twice; give each id once per file", key));
                    throw InputError(origin, fmt::format("{}: key '{}' appears twice in one object; give each key once",
                                                         where.empty() ? "top level" : where, key));
                }
                top.key = key;
                break;
            }
            case json::parse_event_t::value:
                break;
        }
        return true;
    };
}

// Entry equality for merge (every field the loader reads).
bool same(const Figure& a, const Figure& b) {
    if (a.value != b.value || a.source != b.source || a.note != b.note || a.alternatives.size() != b.alternatives.size())
        return false;
    for (std::size_t i = 0; i < a.alternatives.size(); ++i) {
        const auto &x = a.alternatives[i], &y = b.alternatives[i];
        if (x.value != y.value || x.source != y.source || x.note != y.note)
            return false;
    }
    return true;
}
bool same(const std::optional<Figure>& a, const std::optional<Figure>& b) {
    return a.has_value() == b.has_value() && (!a || same(*a, *b));
}
bool same(const std::map<std::string, Figure>& a, const std::map<std::string, Figure>& b) {
    if (a.size() != b.size())
        return false;
    for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
        if (i->first != j->first || !same(i->second, j->second))
            return false;
    return true;
}
bool same(const std::optional<Link>& a, const std::optional<Link>& b) {
    if (a.has_value() != b.has_value())
        return false;
    return !a || (a->name == b->name && same(a->bw_GBps, b->bw_GBps) && a->nvls == b->nvls &&
                  same(a->step_latency_us, b->step_latency_us));
}
bool same(const GpuSpec& a, const GpuSpec& b) {
    return a.id == b.id && a.name == b.name && a.vendor == b.vendor && a.arch == b.arch && a.match == b.match &&
           same(a.sm_count, b.sm_count) && same(a.boost_clock_MHz, b.boost_clock_MHz) && same(a.l2_bytes, b.l2_bytes) &&
           same(a.hbm_capacity_bytes, b.hbm_capacity_bytes) && same(a.hbm_bw_GBps, b.hbm_bw_GBps) &&
           same(a.tensor_tflops, b.tensor_tflops) && same(a.vector_tflops, b.vector_tflops) &&
           same(a.scaleup_link, b.scaleup_link) && same(a.pcie, b.pcie) && same(a.launch_overhead_us, b.launch_overhead_us);
}

}  // namespace

const Figure* GpuSpec::peak(Unit unit, std::string_view key) const {
    const auto& m = unit == Unit::tensor ? tensor_tflops : vector_tflops;
    auto it = m.find(std::string(key));
    return it == m.end() ? nullptr : &it->second;
}

Catalog Catalog::parse(std::string_view text, const std::string& origin) {
    json doc;
    try {
        doc = json::parse(text, unique_keys(origin));
    } catch (const json::parse_error& e) {
        throw InputError(origin, fmt::format("not valid JSON (at byte {}); expected a bwacct GPU catalog", e.byte));
    } catch (const json::out_of_range&) {  // a number beyond a double's range (1e999)
        throw InputError(origin, "a number is too large for a double; expected a bwacct GPU catalog");
    }
    Reader r(origin);
    if (!doc.is_object())
        r.fail("top level", "expected an object with \"schema\" and \"gpus\"");
    const std::string schema = r.string(doc, "top level", "schema");
    if (schema != "bwacct.gpus/1")
        r.fail("schema", fmt::format("expected \"bwacct.gpus/1\", got \"{}\"", schema));
    const json& gpus = r.member(doc, "top level", "gpus");
    if (!gpus.is_object() || gpus.empty())
        r.fail("gpus", "expected a non-empty object of id → GPU");
    Catalog c;
    for (const auto& [id, v] : gpus.items()) {
        if (id.empty() || id.find_first_of(", \t") != std::string::npos)
            r.fail("gpus", fmt::format("bad id '{}'", id));
        c.gpus_.push_back(r.gpu(id, v));
    }
    return c;
}

Catalog Catalog::load(const std::string& path, const std::string& option) {
    // Errors inside the file name both the option and the file: "--gpu-file my.json: ...".
    return parse(read_input_file(path, option, "expected a JSON catalog file (schema bwacct.gpus/1)"), option + " " + path);
}

Catalog Catalog::from_entries(std::vector<GpuSpec> entries) {
    Catalog c;
    c.gpus_ = std::move(entries);
    return c;
}

std::vector<std::string> Catalog::merge(const Catalog& other) {
    std::vector<std::string> replaced;
    for (const GpuSpec& g : other.gpus_) {
        auto it = std::find_if(gpus_.begin(), gpus_.end(), [&](const GpuSpec& x) { return x.id == g.id; });
        if (it != gpus_.end()) {
            if (!same(*it, g))  // the same entry again changes nothing and is not reported
                replaced.push_back(g.id);
            *it = g;
        } else {
            gpus_.push_back(g);
        }
    }
    return replaced;
}

const GpuSpec& Catalog::get(std::string_view id, const std::string& option) const {
    // Case-insensitive (--gpu H200); an unknown id gets the nearest ids (h100 -> h100-sxm, h100-pcie, ...).
    std::vector<std::string> all;
    for (const GpuSpec& g : gpus_) {
        if (equal_ignoring_case(g.id, id))
            return g;
        all.push_back(g.id);
    }
    throw InputError(option, fmt::format("unknown GPU '{}'{}; known: {}", id, did_you_mean(id, all), ids()));
}

const GpuSpec* Catalog::match(std::string_view device_name) const {
    // Exact first, over every entry: a name that is some entry's own name or match string is that
    // entry, whatever a shorter string of an earlier entry would claim.
    for (const GpuSpec& g : gpus_) {
        if (g.name == device_name)
            return &g;
        for (const std::string& m : g.match)
            if (m == device_name)
                return &g;
    }
    // Then the longest entry name or match string that names the same model (names_model).
    const GpuSpec* best = nullptr;
    std::size_t best_len = 0;
    for (const GpuSpec& g : gpus_) {
        auto consider = [&](const std::string& s) {
            if (s.size() > best_len && names_model(device_name, s))
                best = &g, best_len = s.size();
        };
        consider(g.name);
        for (const std::string& m : g.match)
            consider(m);
    }
    return best;
}

namespace {

// The models a name lists with " / " ("AMD Instinct MI250X / MI250": ROCm's name for PCI 0x740C, which
// is either part), each as a full name: a later part that is one word takes the words before the first
// part's last word ("AMD Instinct " + "MI250"). Empty when the name lists one model.
std::vector<std::string> listed_models(std::string_view name) {
    std::vector<std::string> parts;
    // Split at every '/', with or without spaces around it (libdrm's amdgpu.ids writes "MI250X / MI250", HIP and
    // rocminfo "MI250X/MI250").
    for (std::size_t start = 0;;) {
        const std::size_t slash = name.find('/', start);
        std::string_view part = name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        while (!part.empty() && part.front() == ' ')
            part.remove_prefix(1);
        while (!part.empty() && part.back() == ' ')
            part.remove_suffix(1);
        parts.emplace_back(part);
        if (slash == std::string_view::npos)
            break;
        start = slash + 1;
    }
    if (parts.size() < 2)
        return {};
    const std::size_t last_space = parts.front().rfind(' ');
    const std::string family = last_space == std::string::npos ? "" : parts.front().substr(0, last_space + 1);
    for (std::size_t i = 1; i < parts.size(); ++i)
        if (parts[i].find(' ') == std::string::npos)
            parts[i] = family + parts[i];
    return parts;
}

}  // namespace

std::vector<const GpuSpec*> Catalog::candidates(std::string_view device_name) const {
    std::vector<const GpuSpec*> out;
    if (device_name.empty())
        return out;
    // A name that lists several models is each of the entries they match (never one chosen silently).
    for (const std::string& model : listed_models(device_name))
        if (const GpuSpec* g = match(model); g != nullptr && std::find(out.begin(), out.end(), g) == out.end())
            out.push_back(g);
    auto begins_with = [&](const std::string& s) {
        return s.size() > device_name.size() &&
               equal_ignoring_case(std::string_view(s).substr(0, device_name.size()), device_name) &&
               s[device_name.size()] == ' ';
    };
    for (const GpuSpec& g : gpus_)
        if ((begins_with(g.name) || std::any_of(g.match.begin(), g.match.end(), begins_with)) &&
            std::find(out.begin(), out.end(), &g) == out.end())
            out.push_back(&g);
    return out;
}

std::vector<const GpuSpec*> Catalog::select(std::string_view list, const std::string& option) const {
    std::vector<const GpuSpec*> out;
    if (equal_ignoring_case(list, "all")) {
        for (const GpuSpec& g : gpus_)
            out.push_back(&g);
        return out;
    }
    for (std::size_t start = 0;;) {
        const auto comma = list.find(',', start);
        const std::string_view id = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (id.empty())
            throw InputError(option, "expected catalog ids separated by commas (e.g. h200,b200) or 'all'");
        out.push_back(&get(id, option));
        if (comma == std::string_view::npos)
            return out;
        start = comma + 1;
    }
}

std::string Catalog::ids() const {
    std::string out;
    for (const GpuSpec& g : gpus_)
        out += (out.empty() ? "" : ", ") + g.id;
    return out;
}

}  // namespace bwacct
