// The run harness of the end-to-end tests: runs the real `bwacct` binary (or any program, e.g.
// mpirun) as a user runs it, without a shell, capturing stdout, stderr and the exit status
// separately, with a time limit (10 s unless told) so that a hang fails the test instead of
// blocking the suite. Also the JSON helpers and the catalog figures the tests' arithmetic uses.
//
// Shared by tests/cli/test_cli.cpp (the model) and tests/cli/test_measure_cli.cpp (measurement).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace bwacct_test {

namespace fs = std::filesystem;
using json = nlohmann::json;
using u64 = std::uint64_t;

constexpr auto kRunTimeout = std::chrono::seconds(10);

// The bwacct binary under test (BWACCT_BIN at build time).
std::string bwacct_bin();

// ---------------------------------------------------------------------------------------------
// Files.

// Temporary directory, removed on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

std::string read_text(const std::string& path);
void write_text(const std::string& path, const std::string& text);

// ---------------------------------------------------------------------------------------------
// Running the binary (or another program).

struct RunOptions {
    std::map<std::string, std::optional<std::string>> env;  // set (value) or unset (nullopt)
    bool stdout_tty = false;                                // give the child a pseudo-terminal as stdout
    std::chrono::seconds timeout = kRunTimeout;             // then SIGTERM to its process group, SIGKILL 3 s later
};

struct RunResult {
    std::string command;  // for failure messages
    int status = -1;      // exit status; -1 when killed or not started
    bool timed_out = false;
    int signal = 0;
    double wall_s = 0;         // how long the child ran
    long long timeout_s = 10;  // the limit it ran under
    std::string out, err;
};

// "bwacct a b c"
std::string describe(const std::vector<std::string>& args);

// Runs `bwacct args...`.
RunResult run_bwacct(const std::vector<std::string>& args, const RunOptions& opt = {});

// Runs an arbitrary program: argv[0] is a path, or a name looked up on the child's PATH (e.g.
// {"mpirun", "-np", "2", bwacct_bin(), ...}). The child gets the test's environment without
// BWACCT_CATALOG, changed by opt.env.
RunResult run_program(const std::vector<std::string>& argv, const RunOptions& opt = {});

// The full path of an executable named `name` on $PATH, or empty.
std::string find_on_path(const std::string& name);

// The command, status, stdout and stderr, for a failure message.
std::string report(const RunResult& r);

// ---------------------------------------------------------------------------------------------
// Checks on output.

// Text outside JSON string literals (each literal becomes "").
std::string outside_strings(const std::string& text);
// No NaN or infinity, neither as a bare token nor as a non-finite number.
void expect_finite_json_text(const std::string& text, const std::string& what);
void expect_finite_numbers(const json& j, const std::string& path);
// Parses one JSON document; fails the test (returns null json) when it is not valid JSON.
json parse_json(const std::string& text, const std::string& what);
// A simulated median within the backend's noise of the model: each sample is × (1 ± 1 %), so a
// median lies in [0.99, 1.01] × the model (a little slack for rounding).
void expect_within_noise(double got, double model_us, const std::string& what);

std::vector<std::string> lines_of(const std::string& text);
std::vector<std::string> split(const std::string& s, char sep);

// A successful run: exit 0, something on stdout, nothing on stderr.
::testing::AssertionResult succeeded(const RunResult& r);

// Runs a command expected to print one JSON document and returns it parsed.
json run_json(const std::vector<std::string>& args, const RunOptions& opt = {});

void expect_rel(double got, double want, double rel, const std::string& what);

// Numbers and strings in the JSON contract (fail the test when missing or of another type).
u64 num_u(const json& j, const char* key);
double num_d(const json& j, const char* key);
std::string str_of(const json& j, const char* key);

// ---------------------------------------------------------------------------------------------
// The catalog the binary reads: configs/gpus.json beside it (copied there at build time), else the
// source tree's (tests/data/../../configs).

std::string catalog_path();
const json& catalog();
double tensor_tflops(const std::string& gpu, const std::string& key);
double hbm_GBps(const std::string& gpu);
double launch_us(const std::string& gpu);

// ---------------------------------------------------------------------------------------------
// The measurement suites: which backend a run gets, and the failure contract.

// No GPU simulation: BWACCT_SIMULATE, BWACCT_SIMULATE_FAIL, XDG_CACHE_HOME and BWACCT_MPI_TIMEOUT_S
// unset; the calibration cache a file in `dir` that does not exist.
RunOptions no_sim(const TempDir& dir);
// The simulated H200 (BWACCT_SIMULATE=h200), with `fail` injected (BWACCT_SIMULATE_FAIL) when not
// empty and the calibration cache at `cache` when given.
RunOptions sim(const TempDir& dir, const std::string& fail = "", const std::string& cache = "");
// A GPU device node exists on this machine (then "no GPU" tests do not apply).
bool gpu_present();
// A run that failed as the contract says: exit `status`, nothing on stdout, exactly one line on
// stderr, containing `must_contain`.
::testing::AssertionResult failed_cleanly(const RunResult& r, int status, const std::string& must_contain = "");

// The entry for `id` in a record's "gpus" array, or nullptr.
const json* gpu_entry(const json& record, const std::string& id);

// base followed by more.
std::vector<std::string> with(std::vector<std::string> base, std::initializer_list<std::string> more);

// `args` with `option` set to `value`: replaced where the option is already there, else appended.
std::vector<std::string> set_option(std::vector<std::string> args, const std::string& option, const std::string& value);

}  // namespace bwacct_test
