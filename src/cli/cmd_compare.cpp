// bwacct compare A.json B.json: two bwacct JSON outputs of the same op (one record, a sweep's array,
// JSONL, or an ingest document's records), point by point and GPU by GPU: the time (given, measured
// or ingested; the modelled floor when neither has one), its change, and exit code 3 when any point
// got slower than the tolerance allows.
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bwacct/error.h"
#include "bwacct/json_text.h"
#include "bwacct/report.h"
#include "bwacct/text_file.h"
#include "command.h"
#include "tolerance.h"

namespace bwacct::cli {
namespace {

using json = nlohmann::ordered_json;

struct ComparedPoint {
    std::string op, params, gpu;
    std::optional<double> time_us;
    double floor_us = 0;
};

std::vector<json> documents(const std::string& text, const std::string& path) {
    const auto bad = [&](const std::string& why) {
        return InputError(path, "expected bwacct JSON output (--format json or jsonl of an op, or of ingest); " + why);
    };
    std::vector<json> docs;
    try {
        docs.push_back(json::parse(text));
    } catch (const json::exception&) {
        // JSONL: one object per line.
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            if (line.find_first_not_of(" \t\r") == std::string::npos)
                continue;
            try {
                docs.push_back(json::parse(line));
            } catch (const json::exception&) {
                throw bad("not JSON");
            }
        }
    }
    std::vector<json> records;
    for (json& d : docs) {
        if (d.is_array()) {
            for (json& e : d)
                records.push_back(std::move(e));
        } else if (d.is_object() && d.contains("records") && d["records"].is_array()) {
            for (json& e : d["records"])
                records.push_back(std::move(e));
        } else {
            records.push_back(std::move(d));
        }
    }
    for (const json& r : records)
        if (!r.is_object() || !r.contains("schema") || !r["schema"].is_string() ||
            r["schema"].get<std::string>().rfind("bwacct.op/", 0) != 0 || !r.contains("gpus") || !r["gpus"].is_array() ||
            !r.contains("op") || !r["op"].is_string())
            throw bad("a record without schema bwacct.op/1, op and gpus");
    if (records.empty())
        throw bad("no records");
    return records;
}

std::vector<ComparedPoint> points(const std::string& path) {
    const std::string text = read_input_file(path, path, "expected bwacct JSON output (--format json or jsonl)");
    std::vector<ComparedPoint> out;
    for (const json& r : documents(text, path)) {
        std::string params;
        if (r.contains("params") && r["params"].is_object())
            for (const auto& [k, v] : r["params"].items())
                params += fmt::format("{}{}={}", params.empty() ? "" : " ", k,
                                      v.is_string() ? v.get<std::string>() : detail::json_text(v));
        for (const json& g : r["gpus"]) {
            if (!g.is_object() || !g.contains("gpu") || !g["gpu"].is_string() || !g.contains("floor_us") ||
                !g["floor_us"].is_number())
                throw InputError(path, "expected bwacct JSON output; a gpus entry lacks gpu or floor_us");
            ComparedPoint p{r["op"].get<std::string>(), params, g["gpu"].get<std::string>(), std::nullopt,
                            g["floor_us"].get<double>()};
            if (g.contains("time_us") && g["time_us"].is_number())
                p.time_us = g["time_us"].get<double>();
            out.push_back(std::move(p));
        }
    }
    return out;
}

int run_compare(const Args& args, const Env& env) {
    const std::string& a_path = args.get("a");
    const std::string& b_path = args.get("b");
    const double tolerance = parse_tolerance(args.get("--tolerance"), "--tolerance");
    const Format format = parse_format(args.get("--format"));
    if (format != Format::table && format != Format::json)
        throw InputError("--format", "compare prints table or json");
    const std::vector<ComparedPoint> a = points(a_path), b = points(b_path);
    if (a.front().op != b.front().op)
        throw InputError(b_path, fmt::format("is a {} output and {} a {} output; compare two outputs of the same op",
                                             b.front().op, a_path, a.front().op));
    // Both sides' time when both have one, else the modelled floor (a catalog or model change).
    std::map<std::pair<std::string, std::string>, const ComparedPoint*> in_b;
    for (const ComparedPoint& p : b)
        in_b[{p.params, p.gpu}] = &p;
    struct Row {
        const ComparedPoint* pa;
        const ComparedPoint* pb;
        std::string metric;
        double va = 0, vb = 0, change = 0;
        std::string verdict;
    };
    std::vector<Row> rows;
    std::size_t regressed = 0, only_a = 0;
    for (const ComparedPoint& p : a) {
        const auto it = in_b.find({p.params, p.gpu});
        if (it == in_b.end()) {
            ++only_a;
            continue;
        }
        const ComparedPoint& q = *it->second;
        Row r{&p, &q, "floor_us", p.floor_us, q.floor_us, 0, "same"};
        if (p.time_us && q.time_us) {
            r.metric = "time_us";
            r.va = *p.time_us;
            r.vb = *q.time_us;
        }
        r.change = r.va > 0 ? r.vb / r.va - 1 : 0;
        // A time that grew is slower: a regression beyond the tolerance.
        if (r.change > tolerance) {
            r.verdict = "regressed";
            ++regressed;
        } else if (r.change < -tolerance) {
            r.verdict = "improved";
        }
        rows.push_back(r);
    }
    if (rows.empty())
        throw InputError(b_path, fmt::format("shares no point (same parameters on the same GPU) with {}", a_path));
    const std::size_t only_b = b.size() - rows.size();
    if (format == Format::json) {
        json doc;
        doc["schema"] = "bwacct.compare/1";
        doc["op"] = a.front().op;
        doc["a"] = a_path;
        doc["b"] = b_path;
        doc["tolerance"] = tolerance;
        doc["compared"] = rows.size();
        doc["regressed"] = regressed;
        doc["only_in_a"] = only_a;
        doc["only_in_b"] = only_b;
        doc["rows"] = json::array();
        for (const Row& r : rows)
            doc["rows"].push_back({{"params", r.pa->params},
                                   {"gpu", r.pa->gpu},
                                   {"metric", r.metric},
                                   {"a", r.va},
                                   {"b", r.vb},
                                   {"change_pct", r.change * 100},
                                   {"verdict", r.verdict}});
        fmt::print(env.out, "{}\n", detail::json_text(doc, 2));
    } else {
        fmt::print(env.out, "{}: {} points compared, {} regressed beyond {:g} %{}{}\n", a.front().op, rows.size(), regressed,
                   tolerance * 100, regressed > 0 ? " (exit code 3)" : "",
                   only_a + only_b > 0 ? fmt::format("; {} only in {}, {} only in {}", only_a, a_path, only_b, b_path) : "");
        std::size_t wp = 6, wg = 3;
        for (const Row& r : rows) {
            wp = std::max(wp, r.pa->params.size());
            wg = std::max(wg, r.pa->gpu.size());
        }
        fmt::print(env.out, "\n{:<{}}  {:<{}}  {:>9}  {:>12}  {:>12}  {:>9}  {}\n", "params", wp, "gpu", wg, "of", "a µs", "b µs",
                   "change", "verdict");
        for (const Row& r : rows)
            fmt::print(env.out, "{:<{}}  {:<{}}  {:>9}  {:>12.2f}  {:>12.2f}  {:>+8.1f}%  {}\n", r.pa->params, wp, r.pa->gpu, wg,
                       r.metric == "time_us" ? "time" : "floor", r.va, r.vb, r.change * 100, r.verdict);
    }
    return regressed > 0 ? kExitRegressed : 0;
}

}  // namespace

CommandSpec compare_command() {
    CommandSpec c;
    c.name = "compare";
    c.summary = "compare two bwacct JSON outputs of the same op point by point; exit code 3 when a time regressed";
    c.example =
        "bwacct gemm --m 1024,2048 --k 5120 --n 5120 --time-us 50,100 --zip --format json > before.json\n"
        "  bwacct compare before.json after.json --tolerance 3%";
    c.options = {
        {"a", "the known-good output (--format json or jsonl)", "", false, true},
        {"b", "the new output of the same op", "", false, true},
        {"--tolerance", "how much slower a time may get before it counts as a regression", "5%"},
        {"--format", "table or json", "table"},
    };
    c.run = run_compare;
    return c;
}

}  // namespace bwacct::cli
