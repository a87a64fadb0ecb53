#include "harness.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#ifndef BWACCT_BIN
#error "BWACCT_BIN must be defined (path of the bwacct binary)"
#endif
#ifndef BWACCT_TEST_DATA
#define BWACCT_TEST_DATA ""
#endif

extern char** environ;

namespace bwacct_test {

std::string bwacct_bin() { return BWACCT_BIN; }

// ---------------------------------------------------------------------------------------------
// Files.

TempDir::TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/bwacct-cli-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr)
        throw std::runtime_error("mkdtemp failed: " + std::string(std::strerror(errno)));
    path_ = buf.data();
}

TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

// ---------------------------------------------------------------------------------------------
// Running.

namespace {

std::vector<std::string> child_environment(const RunOptions& opt) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string kv(*e);
        const std::string key = kv.substr(0, kv.find('='));
        // The binary must read the catalog beside it (what a user of the build tree gets).
        if (key == "BWACCT_CATALOG" || opt.env.count(key) > 0)
            continue;
        env.push_back(kv);
    }
    for (const auto& [key, value] : opt.env)
        if (value)
            env.push_back(key + "=" + *value);
    return env;
}

// Drains whatever the pty master has (non-blocking). Returns false once the slave side is gone.
bool drain(int fd, std::string& into) {
    char buf[4096];
    while (true) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            into.append(buf, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (n < 0 && errno == EINTR)
            continue;
        return false;  // 0 or EIO: slave closed
    }
}

std::string find_in(const std::string& name, const std::string& path_list) {
    for (const std::string& dir : split(path_list, ':')) {
        if (dir.empty())
            continue;
        const std::string candidate = dir + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate))
            return candidate;
    }
    return "";
}

std::string describe_argv(const std::vector<std::string>& argv) {
    std::string s;
    for (const std::string& a : argv)
        s += (s.empty() ? "" : " ") + a;
    return s;
}

}  // namespace

std::string describe(const std::vector<std::string>& args) {
    std::string s = "bwacct";
    for (const std::string& a : args)
        s += " " + a;
    return s;
}

std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    return find_in(name, path != nullptr ? path : "");
}

RunResult run_program(const std::vector<std::string>& program_argv, const RunOptions& opt) {
    if (program_argv.empty())
        throw std::invalid_argument("run_program: empty argv");
    RunResult r;
    r.command = describe_argv(program_argv);
    r.timeout_s = static_cast<long long>(opt.timeout.count());
    TempDir dir;
    const std::string out_path = dir.file("stdout"), err_path = dir.file("stderr");
    const int err_fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int out_fd = -1, master = -1;
    if (opt.stdout_tty) {
        master = ::posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0)
            throw std::runtime_error("no pseudo-terminal");
        const char* slave_name = ::ptsname(master);
        if (slave_name == nullptr)
            throw std::runtime_error("ptsname failed");
        out_fd = ::open(slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        ::fcntl(master, F_SETFL, ::fcntl(master, F_GETFL) | O_NONBLOCK);
        ::fcntl(master, F_SETFD, FD_CLOEXEC);
    } else {
        out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    }
    if (err_fd < 0 || out_fd < 0)
        throw std::runtime_error("cannot open capture files");

    // Everything the child needs is prepared before fork.
    std::vector<std::string> env_s = child_environment(opt);
    std::string bin = program_argv.front();
    if (bin.find('/') == std::string::npos) {
        std::string path_list;
        for (const std::string& kv : env_s)
            if (kv.rfind("PATH=", 0) == 0)
                path_list = kv.substr(5);
        bin = find_in(bin, path_list);
        if (bin.empty())
            throw std::runtime_error(program_argv.front() + " not found on PATH");
    }
    std::vector<std::string> argv_s = program_argv;
    std::vector<char*> argv;
    for (std::string& a : argv_s)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (std::string& e : env_s)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);

    const auto started = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::setpgid(0, 0);  // its own process group, so a timeout kills whatever it started too
        if (null_fd >= 0)
            ::dup2(null_fd, STDIN_FILENO);
        ::dup2(out_fd, STDOUT_FILENO);
        ::dup2(err_fd, STDERR_FILENO);
        ::execve(bin.c_str(), argv.data(), envp.data());
        _exit(127);
    }
    ::setpgid(pid, pid);  // also from this side, so the group exists before any kill
    ::close(out_fd);
    ::close(err_fd);
    if (null_fd >= 0)
        ::close(null_fd);

    std::string tty_text;
    const auto deadline = started + opt.timeout;
    int wstatus = 0;
    while (true) {
        if (master >= 0) {
            pollfd p{master, POLLIN, 0};
            ::poll(&p, 1, 5);
            drain(master, tty_text);
        }
        const pid_t w = ::waitpid(pid, &wstatus, WNOHANG);
        if (w == pid)
            break;
        if (std::chrono::steady_clock::now() > deadline) {
            // SIGTERM first, to the process group of the child we started: a launcher such as mpirun
            // puts its ranks in process groups of their own and stops them on SIGTERM, not on SIGKILL.
            ::kill(-pid, SIGTERM);
            const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(3);
            while (::waitpid(pid, &wstatus, WNOHANG) != pid) {
                if (std::chrono::steady_clock::now() > grace) {
                    ::kill(-pid, SIGKILL);
                    ::kill(pid, SIGKILL);
                    ::waitpid(pid, &wstatus, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            r.timed_out = true;
            break;
        }
        if (master < 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (master >= 0) {
        drain(master, tty_text);
        ::close(master);
        r.out = tty_text;
    } else {
        r.out = read_text(out_path);
    }
    r.err = read_text(err_path);
    if (WIFEXITED(wstatus))
        r.status = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus))
        r.signal = WTERMSIG(wstatus);
    return r;
}

RunResult run_bwacct(const std::vector<std::string>& args, const RunOptions& opt) {
    std::vector<std::string> argv{bwacct_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = run_program(argv, opt);
    r.command = describe(args);
    return r;
}

std::string report(const RunResult& r) {
    return fmt::format("command: {}\nexit status: {}{}{}\n--- stdout ({} bytes) ---\n{}\n--- stderr ---\n{}", r.command, r.status,
                       r.timed_out ? fmt::format(" (timed out after {} s)", r.timeout_s) : "",
                       r.signal ? fmt::format(" (signal {})", r.signal) : "", r.out.size(), r.out.substr(0, 4000), r.err);
}

// ---------------------------------------------------------------------------------------------
// Checks on output.

// No NaN or infinity may appear in JSON: neither as a bare token (which is not JSON at all) nor
// as a non-finite number. nlohmann writes a non-finite double as null, so nulls are allowed only
// where the contract says "absent" (optional fields); the parsed numbers must all be finite.
// Only text outside string literals can be a number: the catalog's sources may well say "AMD
// Infinity Fabric", which is no number.
std::string outside_strings(const std::string& text) {
    std::string out;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
            out += "\"\"";
        } else {
            out += c;
        }
    }
    return out;
}

void expect_finite_json_text(const std::string& text, const std::string& what) {
    static const std::regex bad(R"(\b(nan|inf|infinity)\b)", std::regex::icase);
    EXPECT_FALSE(std::regex_search(outside_strings(text), bad)) << what << ": 'nan' or 'inf' in JSON output:\n"
                                                                << text.substr(0, 4000);
}

void expect_finite_numbers(const json& j, const std::string& path) {
    if (j.is_number_float()) {
        EXPECT_TRUE(std::isfinite(j.get<double>())) << "non-finite number at " << path;
    } else if (j.is_object()) {
        for (const auto& [k, v] : j.items())
            expect_finite_numbers(v, path + "." + k);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            expect_finite_numbers(j[i], fmt::format("{}[{}]", path, i));
    }
}

json parse_json(const std::string& text, const std::string& what) {
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(j.is_discarded()) << what << ": not valid JSON:\n" << text.substr(0, 4000);
    if (j.is_discarded())
        return json();
    expect_finite_json_text(text, what);
    expect_finite_numbers(j, "$");
    return j;
}

void expect_within_noise(double got, double model_us, const std::string& what) {
    EXPECT_GE(got, model_us * 0.99 * (1 - 1e-9)) << what << " (model " << model_us << " µs)";
    EXPECT_LE(got, model_us * 1.01 * (1 + 1e-9)) << what << " (model " << model_us << " µs)";
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const auto pos = s.find(sep, start);
        out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
        if (pos == std::string::npos)
            return out;
        start = pos + 1;
    }
}

::testing::AssertionResult succeeded(const RunResult& r) {
    if (r.timed_out || r.status != 0 || r.out.empty() || !r.err.empty())
        return ::testing::AssertionFailure() << "expected exit 0, output on stdout, empty stderr\n" << report(r);
    return ::testing::AssertionSuccess();
}

json run_json(const std::vector<std::string>& args, const RunOptions& opt) {
    const RunResult r = run_bwacct(args, opt);
    EXPECT_TRUE(succeeded(r));
    return parse_json(r.out, r.command);
}

void expect_rel(double got, double want, double rel, const std::string& what) {
    EXPECT_NEAR(got, want, std::abs(want) * rel) << what;
}

u64 num_u(const json& j, const char* key) {
    EXPECT_TRUE(j.contains(key) && j.at(key).is_number_unsigned())
        << "missing or not an unsigned integer: " << key << " in " << j.dump().substr(0, 2000);
    return j.contains(key) && j.at(key).is_number() ? j.at(key).get<u64>() : 0;
}

double num_d(const json& j, const char* key) {
    EXPECT_TRUE(j.contains(key) && j.at(key).is_number())
        << "missing or not a number: " << key << " in " << j.dump().substr(0, 2000);
    return j.contains(key) && j.at(key).is_number() ? j.at(key).get<double>() : std::nan("");
}

std::string str_of(const json& j, const char* key) {
    EXPECT_TRUE(j.contains(key) && j.at(key).is_string())
        << "missing or not a string: " << key << " in " << j.dump().substr(0, 2000);
    return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

// ---------------------------------------------------------------------------------------------
// The catalog.

std::string catalog_path() {
    const fs::path beside = fs::path(BWACCT_BIN).parent_path() / "configs" / "gpus.json";
    if (fs::exists(beside))
        return beside.string();
    return (fs::path(BWACCT_TEST_DATA) / ".." / ".." / "configs" / "gpus.json").string();
}

const json& catalog() {
    static const json c = [] {
        const std::string text = read_text(catalog_path());
        json j = json::parse(text, nullptr, false);
        if (j.is_discarded() || !j.contains("gpus"))
            throw std::runtime_error("cannot read catalog " + catalog_path());
        return j;
    }();
    return c;
}

double tensor_tflops(const std::string& gpu, const std::string& key) {
    return catalog().at("gpus").at(gpu).at("tensor_tflops").at(key).at("value").get<double>();
}
double hbm_GBps(const std::string& gpu) { return catalog().at("gpus").at(gpu).at("hbm_bw_GBps").at("value").get<double>(); }
double launch_us(const std::string& gpu) {
    return catalog().at("gpus").at(gpu).at("launch_overhead_us").at("value").get<double>();
}

const json* gpu_entry(const json& record, const std::string& id) {
    if (!record.contains("gpus") || !record.at("gpus").is_array())
        return nullptr;
    for (const json& g : record.at("gpus"))
        if (g.value("gpu", "") == id)
            return &g;
    return nullptr;
}

std::vector<std::string> with(std::vector<std::string> base, std::initializer_list<std::string> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

RunOptions no_sim(const TempDir& dir) {
    RunOptions o;
    o.env["BWACCT_SIMULATE"] = std::nullopt;
    o.env["BWACCT_SIMULATE_FAIL"] = std::nullopt;
    o.env["BWACCT_CACHE"] = dir.file("no-such-cache.json");
    o.env["XDG_CACHE_HOME"] = std::nullopt;
    o.env["BWACCT_MPI_TIMEOUT_S"] = std::nullopt;
    return o;
}

RunOptions sim(const TempDir& dir, const std::string& fail, const std::string& cache) {
    RunOptions o = no_sim(dir);
    o.env["BWACCT_SIMULATE"] = std::string("h200");
    if (!fail.empty())
        o.env["BWACCT_SIMULATE_FAIL"] = fail;
    if (!cache.empty())
        o.env["BWACCT_CACHE"] = cache;
    return o;
}

bool gpu_present() {
    for (const char* dev : {"/dev/nvidia0", "/dev/nvidiactl", "/dev/kfd"})
        if (::access(dev, F_OK) == 0)
            return true;
    return false;
}

::testing::AssertionResult failed_cleanly(const RunResult& r, int status, const std::string& must_contain) {
    const auto newlines = std::count(r.err.begin(), r.err.end(), '\n');
    if (r.timed_out || r.status != status || !r.out.empty() || newlines != 1 || r.err.empty() || r.err.back() != '\n' ||
        r.err.find(must_contain) == std::string::npos)
        return ::testing::AssertionFailure()
               << fmt::format("expected exit {}, nothing on stdout, exactly one line on stderr containing '{}'\n", status,
                              must_contain)
               << report(r);
    return ::testing::AssertionSuccess();
}

std::vector<std::string> set_option(std::vector<std::string> args, const std::string& option, const std::string& value) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == option) {
            args[i + 1] = value;
            return args;
        }
    args.push_back(option);
    args.push_back(value);
    return args;
}

}  // namespace bwacct_test
