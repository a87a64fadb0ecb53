#include "calibration.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "backend.h"
#include "bwacct/error.h"
#include "bwacct/json_text.h"
#include "bwacct/text_file.h"
#include "oom_retry.h"

namespace bwacct::measure {
namespace {

using json = nlohmann::ordered_json;
constexpr const char* kSchema = "bwacct.calibration/1";

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
}

// The whole cache, or an empty one when the file is missing; nullopt when it is unreadable.
// Read through the one bounded reader (text_file.h), like every other file bwacct takes.
std::optional<json> read_cache(const std::string& path, std::string& warning) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return json{{"schema", kSchema}, {"devices", json::object()}};
    try {
        json j = json::parse(read_input_file(path, "", "expected a bwacct calibration cache (JSON)"));
        if (!j.is_object() || j.value("schema", "") != kSchema || !j.contains("devices") || !j.at("devices").is_object())
            throw std::runtime_error("not a bwacct calibration cache");
        return j;
    } catch (const std::exception& e) {
        warning = "ignoring the calibration cache " + path + " (" + std::string(e.what()).substr(0, 80) +
                  "); `bwacct calibrate` rewrites it";
        return std::nullopt;
    }
}

}  // namespace

std::string calibration_path(const std::string& option_value) {
    if (!option_value.empty())
        return option_value;
    if (std::string v = env("BWACCT_CACHE"); !v.empty())
        return v;
    // The XDG base directory rules: a relative XDG_CACHE_HOME is ignored.
    if (std::string v = env("XDG_CACHE_HOME"); !v.empty() && v.front() == '/')
        return v + "/bwacct/calibration.json";
    if (std::string v = env("HOME"); !v.empty())
        return v + "/.cache/bwacct/calibration.json";
    return {};  // no default: never "/.cache/..." at the root of the file system
}

std::string calibration_path_to_write(const std::string& option_value) {
    std::string path = calibration_path(option_value);
    if (path.empty())
        throw InputError("--cache",
                         "no default cache path (HOME unset, XDG_CACHE_HOME unset or relative); give --cache FILE or "
                         "set BWACCT_CACHE=FILE");
    return path;
}

std::optional<Calibration> load_calibration(const std::string& path, const std::string& uuid, std::string& warning) {
    const std::optional<json> cache = read_cache(path, warning);
    if (!cache || !cache->at("devices").contains(uuid))
        return std::nullopt;
    try {
        const json& e = cache->at("devices").at(uuid);
        Calibration c;
        c.uuid = uuid;
        c.name = e.at("name").get<std::string>();
        c.backend = e.at("backend").get<std::string>();
        c.measured_at = e.at("measured_at").get<std::string>();
        c.hbm_GBps = e.at("hbm_GBps").get<double>();
        c.bf16_tflops = e.at("bf16_tflops").get<double>();
        c.launch_us = e.at("launch_us").get<double>();
        return c;
    } catch (const std::exception&) {
        warning = "ignoring the malformed entry for " + uuid + " in " + path;
        return std::nullopt;
    }
}

Calibration run_calibration(Backend& b, std::uint64_t array_bytes, const SamplePolicy& p, const std::string& measured_at) {
    const DeviceInfo d = b.device();
    Calibration c;
    c.uuid = d.uuid;
    c.name = d.name;
    c.backend = b.name();
    c.measured_at = measured_at;
    for (HbmKernel k : {HbmKernel::copy, HbmKernel::triad}) {
        const HbmRun run = hbm_fitting(b, k, array_bytes, hbm_floor_bytes(d), p);
        c.hbm_GBps =
            std::max(c.hbm_GBps, static_cast<double>(hbm_bytes_moved(k, run.array_bytes)) / (run.timing.stats.median_us * 1e3));
        for (const std::string& n : run.timing.notes)
            c.notes.push_back(std::string(hbm_kernel_name(k)) + ": " + n);
    }
    GemmDesc g;
    g.m = g.n = g.k = 8192;
    c.bf16_tflops = static_cast<double>(gemm_cost(g).flops) / (b.gemm(g, p).stats.median_us * 1e6);
    c.launch_us = b.launch(p).stream_kernel.stats.median_us;
    return c;
}

namespace {

// An exclusive flock on a file, released (and closed) on scope exit; a no-op where locking is not
// possible (the rename below still keeps the file whole).
class FileLock {
public:
    explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ >= 0)
            while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    ~FileLock() {
        if (fd_ >= 0)
            ::close(fd_);  // releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int fd_;
};

// Writes `text` to a new file and flushes it to disk; false on any error.
bool write_synced(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ::close(fd);
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    const bool synced = ::fsync(fd) == 0;
    return ::close(fd) == 0 && synced;
}

}  // namespace

std::string store_calibration(const std::string& path, const Calibration& c) {
    std::error_code ec;
    const std::filesystem::path target(path);
    if (target.has_parent_path())
        std::filesystem::create_directories(target.parent_path(), ec);
    // Read-modify-write under the lock, so two calibrations of different GPUs both keep their entry.
    const FileLock lock(path + ".lock");
    std::string warning;
    json cache = read_cache(path, warning).value_or(json{{"schema", kSchema}, {"devices", json::object()}});
    if (!warning.empty())
        warning = warning.substr(0, warning.find("; `bwacct")) + "; rewritten with this GPU's entry only";
    cache["devices"][c.uuid] = {{"name", c.name},         {"backend", c.backend},         {"measured_at", c.measured_at},
                                {"hbm_GBps", c.hbm_GBps}, {"bf16_tflops", c.bf16_tflops}, {"launch_us", c.launch_us}};
    // Write beside the target and rename: readers see the old file or the new one, never a mix.
    static std::atomic<unsigned> serial{0};  // threads of one process get names of their own too
    const std::string tmp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), serial++);
    if (!write_synced(tmp, detail::json_text(cache, 2) + "\n")) {
        std::remove(tmp.c_str());
        throw MeasureError("cannot write the calibration cache " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw MeasureError("cannot replace the calibration cache " + path);
    }
    return warning;
}

}  // namespace bwacct::measure
