// nccl-tests -J output (util.cu, JSON file version 1): {"version", "args": [argv...], "config":
// {"nthreads", "ngpus", "devices": [{"rank", "device_info", ...}]}, "results": [{"size", "count",
// "type", "redop", "root" (a padded string), "out_of_place" | "in_place": {"time" | "cpu_time",
// "alg_bw", "bus_bw", "nwrong"} or null}], "average_bus_bandwidth": {"bandwidth"}}.
// Doubles are printf("%lf"): 6 decimals.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "bwacct/error.h"
#include "nccl_tests_parts.h"

namespace bwacct::detail {
namespace {

using json = nlohmann::json;

PrintedNumber json_number(const json& v, const std::string& where, const std::string& origin) {
    if (!v.is_number())
        throw InputError(origin, fmt::format("{} is not a number; expected nccl-tests -J JSON", where));
    PrintedNumber p;
    p.value = v.get<double>();
    p.decimals = v.is_number_float() ? 6 : 0;
    p.text = v.dump();
    return p;
}

std::optional<NcclResult> json_result(const json& r, const std::string& where, const std::string& origin) {
    if (r.is_null())
        return std::nullopt;
    if (!r.is_object())
        throw InputError(origin, fmt::format("{} is not an object; expected nccl-tests -J JSON", where));
    NcclResult out;
    const char* time_key = r.contains("time") ? "time" : "cpu_time";
    for (const char* key : {time_key, "alg_bw", "bus_bw"})
        if (!r.contains(key))
            throw InputError(origin, fmt::format("{} has no \"{}\"; expected nccl-tests -J JSON", where, key));
    out.time_us = json_number(r[time_key], where + "." + time_key, origin);
    out.algbw_GBps = json_number(r["alg_bw"], where + ".alg_bw", origin);
    out.busbw_GBps = json_number(r["bus_bw"], where + ".bus_bw", origin);
    if (r.contains("nwrong") && r["nwrong"].is_number())
        out.wrong = r["nwrong"].get<double>();
    return out;
}

std::uint64_t json_u64(const json& v, const std::string& where, const std::string& origin) {
    if (!v.is_number_unsigned())
        throw InputError(origin, fmt::format("{} is not a non-negative integer; expected nccl-tests -J JSON", where));
    return v.get<std::uint64_t>();
}

}  // namespace

NcclLog parse_nccl_json(const std::string& text, const std::string& origin) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        throw InputError(origin, fmt::format("is not valid JSON (byte {}); expected nccl-tests -J JSON", e.byte));
    } catch (const json::exception&) {  // out_of_range: a number too large for a double (1e999)
        throw InputError(origin, "holds a number too large for a double; expected nccl-tests -J JSON");
    }
    if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
        throw InputError(origin, "is JSON without a \"results\" array; expected nccl-tests -J JSON");
    NcclLog file;
    NcclRun log;
    file.format = fmt::format("nccl-tests -J JSON (version {})", doc.contains("version") ? doc["version"].dump() : "?");
    if (doc.contains("args") && doc["args"].is_array() && !doc["args"].empty() && doc["args"][0].is_string())
        log.program = doc["args"][0].get<std::string>();
    if (doc.contains("config") && doc["config"].is_object()) {
        const json& c = doc["config"];
        if (c.contains("nthreads") && c["nthreads"].is_number_unsigned())
            log.header_threads = c["nthreads"].get<std::uint64_t>();
        if (c.contains("ngpus") && c["ngpus"].is_number_unsigned())
            log.header_gpus = c["ngpus"].get<std::uint64_t>();
        if (c.contains("devices") && c["devices"].is_array())
            for (const json& d : c["devices"]) {
                if (!d.is_object() || !d.contains("rank") || !d["rank"].is_number_unsigned())
                    continue;
                log.ranks.insert(d["rank"].get<std::uint64_t>());
                if (d.contains("hostname") && d["hostname"].is_string())
                    log.hosts.insert(d["hostname"].get<std::string>());
                if (log.device_name.empty() && d.contains("device_info") && d["device_info"].is_string())
                    log.device_name = d["device_info"].get<std::string>();
            }
    }
    if (doc.contains("average_bus_bandwidth") && doc["average_bus_bandwidth"].is_object() &&
        doc["average_bus_bandwidth"].contains("bandwidth") && doc["average_bus_bandwidth"]["bandwidth"].is_number())
        log.avg_busbw_GBps = doc["average_bus_bandwidth"]["bandwidth"].get<double>();
    std::size_t i = 0;
    for (const json& r : doc["results"]) {
        const std::string where = fmt::format("results[{}]", i++);
        if (!r.is_object() || !r.contains("size") || !r.contains("count"))
            throw InputError(origin, fmt::format("{} has no size and count; expected nccl-tests -J JSON", where));
        NcclRow row;
        row.size = json_u64(r["size"], where + ".size", origin);
        row.count = json_u64(r["count"], where + ".count", origin);
        if (r.contains("type") && r["type"].is_string())
            row.type = r["type"].get<std::string>();
        if (r.contains("redop") && r["redop"].is_string())
            row.redop = r["redop"].get<std::string>();
        if (r.contains("root") && r["root"].is_string()) {
            PrintedNumber root;
            std::string s = r["root"].get<std::string>();
            s.erase(0, s.find_first_not_of(' '));
            if (parse_printed_number(s, root) && root.decimals == 0 && std::abs(root.value) < 1e18)
                row.root = static_cast<long long>(root.value);
        }
        if (r.contains("out_of_place"))
            row.out_of_place = json_result(r["out_of_place"], where + ".out_of_place", origin);
        if (r.contains("in_place"))
            row.in_place = json_result(r["in_place"], where + ".in_place", origin);
        if (!row.out_of_place && !row.in_place)
            throw InputError(origin, fmt::format("{} has neither out_of_place nor in_place results", where));
        log.rows.push_back(std::move(row));
    }
    if (log.rows.empty())
        throw InputError(origin, "has an empty \"results\" array; expected nccl-tests -J JSON with results");
    file.runs.push_back(std::move(log));
    return file;
}

}  // namespace bwacct::detail
