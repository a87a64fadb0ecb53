// End-to-end failure behaviour of measurement (issue 6, "failure behaviour on a GPU"), with the
// simulated backend and its injected failures (BWACCT_SIMULATE_FAIL, src/measure/sim/sim_backend.h):
//   A. a CUDA error, a failed verification or a GPU that cannot be opened: exit 1, one line, no number,
//      for every measuring command;
//   B. out of GPU memory: HBM arrays halved down to 2 × L2 with a note; fixed-size ops refused;
//   C. NCCL errors carry the NCCL error string;
//   D. the calibration cache under concurrent writers and after truncation;
//   E. under mpirun: one failing, hanging or crashing rank makes every rank exit, non-zero, with a
//      message, in bounded time (BWACCT_MPI_TIMEOUT_S).
//
// Expected numbers are computed by hand from the simulated backend's documented model (time =
// roofline floor / efficiency, HBM efficiency 0.90, ±1 % noise) and the H200 catalog figures (HBM
// 4800 GB/s, L2 50 MiB).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness.h"

namespace {

using namespace bwacct_test;

constexpr u64 kMiB = 1024 * 1024, kGiB = 1024 * kMiB;
constexpr double kSimHbmGBps = 0.90 * 4800;  // 4320 GB/s: the simulated H200's HBM kernels

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Every command that measures on the GPU, in table and JSON form.
std::vector<std::vector<std::string>> measuring_commands(const std::string& cache) {
    return {
        {"gemm", "--m", "2160", "--k", "5120", "--n", "5120", "--gpu", "h200", "--measure"},
        {"elementwise", "--shape", "4096,4096", "--inputs", "2", "--gpu", "h200", "--measure"},
        {"allreduce", "--bytes", "64M", "--gpu", "h200", "--measure"},
        {"allgather", "--bytes", "64M", "--gpu", "h200", "--measure"},
        {"hbm"},
        {"launch"},
        {"calibrate", "--cache", cache},
    };
}

// =============================================================================================
// A. CUDA errors, failed verification, a GPU that cannot be opened: exit 1, one line, no number.

TEST(MeasureFailure, EveryMeasuringCommandFailsWithoutANumber) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    const std::vector<std::pair<std::string, std::string>> failures{
        {"verify", "verification failed: simulated failure"},
        {"cuda", "CUDA error: simulated failure"},
        {"open", "CUDA error in cudaSetDevice: simulated failure opening the GPU"},
    };
    for (std::vector<std::string> args : measuring_commands(cache)) {
        for (const char* format : {"table", "json"}) {
            args.push_back("--format");
            args.push_back(format);
            for (const auto& [fail, text] : failures) {
                const RunResult r = run_bwacct(args, sim(dir, fail));
                EXPECT_TRUE(failed_cleanly(r, 1, fmt::format("bwacct {}: {}", args[0], text)));
            }
            args.resize(args.size() - 2);
        }
    }
    EXPECT_FALSE(fs::exists(cache)) << "a failed calibration writes no cache";
}

// A sweep whose second point cannot be measured (gemm M=32768 N=K=8192 bf16: 0.5 + 0.125 + 0.5 GiB =
// 1.125 GiB > 1 GiB free; M=1024 fits) must print nothing, not the first record and a JSON array left open.
// src/cli/op_runner.cpp measures every point of a --measure sweep before emitting the first record.
TEST(MeasureFailure, SweepFailingAtALaterPointPrintsNothing) {
    TempDir dir;
    for (const char* format : {"table", "json", "jsonl"}) {
        const RunResult r = run_bwacct(
            {"gemm", "--m", "1024,32768", "--k", "8192", "--n", "8192", "--gpu", "h200", "--measure", "--format", format},
            sim(dir, "oom"));
        EXPECT_TRUE(failed_cleanly(r, 1, "out of GPU memory measuring the GEMM M=32768 N=8192 K=8192"));
    }
}

TEST(MeasureFailure, DeviceFailsWhenTheGpuCannotBeOpened) {
    TempDir dir;
    EXPECT_TRUE(failed_cleanly(run_bwacct({"device"}, sim(dir, "open")), 1, "simulated failure opening the GPU"));
}

TEST(MeasureFailure, UnknownInjectionIsBadInputNamingTheVariable) {
    TempDir dir;
    for (const char* bad : {"bogus", "oom:12X", "verify@reduce"}) {
        const RunResult r = run_bwacct({"hbm"}, sim(dir, bad));
        EXPECT_TRUE(failed_cleanly(r, 2, "BWACCT_SIMULATE_FAIL"));
        EXPECT_TRUE(contains(r.err, bad)) << r.err;
    }
}

// =============================================================================================
// B. Out of GPU memory. BWACCT_SIMULATE_FAIL=oom: the simulated GPU has 1 GiB free; oom:SIZE: SIZE.

// hbm --size 1G with 1 GiB free (bytes needed = arrays × array size):
//   copy  2 arrays: 2 GiB > 1 GiB → 512 MiB: 1 GiB fits          → array 536,870,912, moved 1,073,741,824
//   read  1 array:  1 GiB fits                                     → array 1,073,741,824, moved 1,073,741,824
//   write 1 array:  1 GiB fits                                     → array 1,073,741,824, moved 1,073,741,824
//   triad 3 arrays: 3 GiB → 512 MiB: 1.5 GiB → 256 MiB: 768 MiB fits → array 268,435,456, moved 805,306,368
// Bandwidth is bytes moved / time at the size measured: 0.90 × 4800 = 4320 GB/s (±1 %) for each.
TEST(OutOfMemory, HbmRetriesAtHalfTheSizeAndSaysSo) {
    TempDir dir;
    const json j = run_json({"hbm", "--size", "1G", "--format", "json"}, sim(dir, "oom"));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(str_of(j, "backend"), "simulated");
    struct Want {
        const char* kernel;
        u64 array, moved;
        const char* note;  // "" = none
    };
    const std::vector<Want> want{
        {"copy", 512 * kMiB, 1 * kGiB, "out of GPU memory at 1.00 GiB per array; measured at 512.0 MiB per array instead"},
        {"read", kGiB, kGiB, ""},
        {"write", kGiB, kGiB, ""},
        {"triad", 256 * kMiB, 768 * kMiB, "out of GPU memory at 1.00 GiB per array; measured at 256.0 MiB per array instead"},
    };
    ASSERT_EQ(j.at("kernels").size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        const json& k = j.at("kernels").at(i);
        SCOPED_TRACE(want[i].kernel);
        EXPECT_EQ(str_of(k, "kernel"), want[i].kernel);
        EXPECT_EQ(num_u(k, "array_bytes"), want[i].array);
        EXPECT_EQ(num_u(k, "bytes_moved"), want[i].moved);
        expect_rel(num_d(k, "bw_GBps"), kSimHbmGBps, 0.011, "bw_GBps ≈ 4320 at the size measured");
        expect_rel(num_d(k, "bw_GBps"), static_cast<double>(want[i].moved) / (num_d(k, "median_us") * 1e3), 1e-9,
                   "bw = bytes moved at the measured size / median");
        const json& notes = k.at("notes");
        const json expected = *want[i].note == '\0' ? json::array() : json::array({want[i].note});
        EXPECT_EQ(notes, expected);
    }
}

TEST(OutOfMemory, HbmTableShowsTheNote) {
    TempDir dir;
    const RunResult r = run_bwacct({"hbm", "--size", "1G", "--kernel", "copy"}, sim(dir, "oom"));
    ASSERT_TRUE(succeeded(r));
    EXPECT_TRUE(contains(r.out, "note (copy): out of GPU memory at 1.00 GiB per array; measured at 512.0 MiB per array instead"))
        << r.out;
    EXPECT_TRUE(contains(r.out, "simulated")) << r.out;
    EXPECT_TRUE(contains(r.out, "512.0 MiB")) << "the array column shows the size measured\n" << r.out;
}

// 200 MiB free, copy --size 1G: 2 × 1 GiB, 2 × 512 MiB, 2 × 256 MiB, 2 × 128 MiB = 256 MiB all exceed
// 200 MiB; the next half, 64 MiB, is below the floor 2 × L2 = 2 × 50 MiB = 100 MiB: fail.
TEST(OutOfMemory, HbmBelowTheFloorFails) {
    TempDir dir;
    const RunResult r = run_bwacct({"hbm", "--size", "1G", "--kernel", "copy", "--format", "json"}, sim(dir, "oom:200M"));
    EXPECT_TRUE(failed_cleanly(
        r, 1, "out of GPU memory for the copy kernel at 1.00 GiB per array and still at 128.0 MiB; arrays below 100.0 MiB"));
}

// Fixed-size ops: a GEMM shape, a tensor, a message size cannot shrink without measuring something else.
//   gemm 32768³ bf16: A, B, C 2 GiB each (32768² × 2 B) > 1 GiB
//   elementwise 1024³ bf16, 1 in 1 out: 2 GiB + 2 GiB > 1 GiB
//   allreduce 1 GiB out of place: send + receive 2 GiB > 1 GiB; in place one 1 GiB buffer fits
TEST(OutOfMemory, FixedSizeOpsFailWithAClearMessage) {
    TempDir dir;
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"gemm", "--m", "32768", "--k", "32768", "--n", "32768", "--gpu", "h200", "--measure"},
         "out of GPU memory measuring the GEMM M=32768 N=32768 K=32768: its buffers cannot shrink"},
        {{"elementwise", "--shape", "1024,1024,1024", "--gpu", "h200", "--measure"},
         "out of GPU memory measuring the elementwise op over 1073741824 elements: its buffers cannot shrink"},
        {{"allreduce", "--bytes", "1G", "--gpu", "h200", "--measure"},
         "out of GPU memory measuring allreduce of 1.00 GiB: its buffers cannot shrink"},
    };
    for (const auto& [args, text] : cases)
        for (const char* format : {"table", "json"})
            EXPECT_TRUE(failed_cleanly(run_bwacct(with(args, {"--format", format}), sim(dir, "oom")), 1, text));
    const RunResult in_place = run_bwacct(
        {"allreduce", "--bytes", "1G", "--gpu", "h200", "--measure", "--in-place", "--format", "json"}, sim(dir, "oom"));
    EXPECT_TRUE(succeeded(in_place));
}

// calibrate with 600 MiB free; default arrays max(4 × 50 MiB, 256 MiB) = 256 MiB:
//   copy  2 × 256 MiB = 512 MiB fits: no note
//   triad 3 × 256 MiB = 768 MiB > 600 MiB → 128 MiB: 384 MiB fits (floor 100 MiB)
TEST(OutOfMemory, CalibrateNotesTheSmallerArrays) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    const json j = run_json({"calibrate", "--cache", cache, "--format", "json"}, sim(dir, "oom:600M"));
    ASSERT_TRUE(j.is_object());
    EXPECT_EQ(j.at("notes"),
              json::array({"triad: out of GPU memory at 256.0 MiB per array; measured at 128.0 MiB per array instead"}));
    expect_rel(num_d(j.at("achievable"), "hbm_GBps"), kSimHbmGBps, 0.011, "hbm_GBps ≈ 4320");
    const json c = parse_json(read_text(cache), cache);
    ASSERT_TRUE(c.is_object());
    EXPECT_TRUE(c.at("devices").contains("SIM-h200"));
    const RunResult table = run_bwacct({"calibrate", "--cache", cache}, sim(dir, "oom:600M"));
    ASSERT_TRUE(succeeded(table));
    EXPECT_TRUE(contains(table.out, "note: triad: out of GPU memory at 256.0 MiB per array")) << table.out;
}

// =============================================================================================
// C. NCCL errors: "NCCL error in <call>: <ncclGetErrorString> (<ncclGetLastError>)".

TEST(Nccl, ErrorCarriesTheNcclErrorString) {
    TempDir dir;
    const std::vector<std::pair<std::string, std::string>> calls{{"allreduce", "ncclAllReduce"},
                                                                 {"allgather", "ncclAllGather"},
                                                                 {"reducescatter", "ncclReduceScatter"},
                                                                 {"broadcast", "ncclBroadcast"},
                                                                 {"reduce", "ncclReduce"}};
    for (const auto& [command, call] : calls) {
        const RunResult r =
            run_bwacct({command, "--bytes", "64M", "--gpu", "h200", "--measure", "--format", "json"}, sim(dir, "nccl"));
        EXPECT_TRUE(
            failed_cleanly(r, 1,
                           fmt::format("bwacct {}: NCCL error in {}: unhandled system error (run with NCCL_DEBUG=INFO for "
                                       "details) (simulated failure: BWACCT_SIMULATE_FAIL=nccl)\n",
                                       command, call)));
    }
}

TEST(Nccl, OtherMeasurementsAreUnaffected) {
    TempDir dir;
    EXPECT_TRUE(succeeded(run_bwacct({"gemm", "--m", "1024", "--k", "1024", "--n", "1024", "--measure"}, sim(dir, "nccl"))));
    EXPECT_TRUE(succeeded(run_bwacct({"hbm", "--size", "256M"}, sim(dir, "nccl"))));
}

// =============================================================================================
// D. The calibration cache: concurrent writers, truncated files.

// `n` copies of `bwacct calibrate --cache <cache>` started at once by one shell, each with its own
// BWACCT_SIMULATE from `gpus` (cycled); the shell waits for all and fails if any failed.
RunResult concurrent_calibrations(const TempDir& dir, const std::string& cache, int n, const std::vector<std::string>& gpus) {
    std::string script = "set -u; pids=''; ";
    for (int i = 0; i < n; ++i)
        script +=
            fmt::format("BWACCT_SIMULATE={} \"$0\" calibrate --cache \"$1\" --max-samples 5 >/dev/null & pids=\"$pids $!\"; ",
                        gpus[static_cast<std::size_t>(i) % gpus.size()]);
    script += "rc=0; for p in $pids; do wait $p || rc=1; done; exit $rc";
    RunOptions o = sim(dir);
    o.timeout = std::chrono::seconds(60);
    return run_program({"sh", "-c", script, bwacct_bin(), cache}, o);
}

void expect_complete_entry(const json& e, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_TRUE(e.is_object());
    for (const char* key : {"name", "backend", "measured_at"})
        EXPECT_TRUE(e.contains(key) && e.at(key).is_string() && !e.at(key).get<std::string>().empty()) << key;
    for (const char* key : {"hbm_GBps", "bf16_tflops", "launch_us"})
        EXPECT_TRUE(e.contains(key) && e.at(key).is_number() && e.at(key).get<double>() > 0) << key;
}

void expect_no_temporary_files(const TempDir& dir) {
    for (const auto& f : fs::directory_iterator(dir.path()))
        EXPECT_FALSE(contains(f.path().filename().string(), ".tmp.")) << f.path();
}

TEST(CalibrationCache, EightConcurrentCalibrationsLeaveOneValidEntry) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    const RunResult r = concurrent_calibrations(dir, cache, 8, {"h200"});
    ASSERT_EQ(r.status, 0) << report(r);
    const json c = parse_json(read_text(cache), cache);
    ASSERT_TRUE(c.is_object());
    EXPECT_EQ(str_of(c, "schema"), "bwacct.calibration/1");
    ASSERT_EQ(c.at("devices").size(), 1u) << c.dump(2);
    expect_complete_entry(c.at("devices").at("SIM-h200"), "SIM-h200");
    expect_no_temporary_files(dir);
}

// Different GPUs at once: every calibration reads, adds its entry and writes under the lock, so none
// is lost (without the lock, two read-modify-writes could each drop the other's entry).
TEST(CalibrationCache, ConcurrentCalibrationsOfDifferentGpusKeepEveryEntry) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    const std::vector<std::string> gpus{"h100-sxm", "h200", "b200", "a100-sxm-80gb"};
    const RunResult r = concurrent_calibrations(dir, cache, 8, gpus);
    ASSERT_EQ(r.status, 0) << report(r);
    const json c = parse_json(read_text(cache), cache);
    ASSERT_TRUE(c.is_object());
    std::set<std::string> uuids;
    for (const auto& [uuid, entry] : c.at("devices").items()) {
        uuids.insert(uuid);
        expect_complete_entry(entry, uuid);
    }
    EXPECT_EQ(uuids, (std::set<std::string>{"SIM-h100-sxm", "SIM-h200", "SIM-b200", "SIM-a100-sxm-80gb"}));
    expect_no_temporary_files(dir);
}

// A cache that is not a whole calibration file: calibrate says so in one line on stderr, succeeds,
// and leaves a valid file with its entry; the next calibrate is silent.
TEST(CalibrationCache, UnreadableCacheWarnsOnceAndIsRewrittenByCalibrate) {
    TempDir dir;
    const std::string cache = dir.file("cal.json");
    ASSERT_TRUE(succeeded(run_bwacct({"calibrate", "--cache", cache}, sim(dir))));
    const std::string whole = read_text(cache);
    const std::vector<std::pair<std::string, std::string>> broken{
        {"truncated", whole.substr(0, whole.size() / 2)},
        {"empty", ""},
        {"not JSON", "calibration\x01\x02"},
        {"another schema", R"({"schema": "other/1", "devices": {}})"},
    };
    for (const auto& [what, text] : broken) {
        SCOPED_TRACE(what);
        write_text(cache, text);
        const RunResult r = run_bwacct({"calibrate", "--cache", cache, "--format", "json"}, sim(dir));
        EXPECT_EQ(r.status, 0) << report(r);
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << report(r);
        EXPECT_TRUE(contains(r.err, "bwacct calibrate: ignoring the calibration cache " + cache)) << r.err;
        EXPECT_TRUE(contains(r.err, "rewritten")) << r.err;
        EXPECT_TRUE(parse_json(r.out, r.command).is_object());
        const json c = parse_json(read_text(cache), cache);
        ASSERT_TRUE(c.is_object());
        expect_complete_entry(c.at("devices").at("SIM-h200"), "rewritten entry");
        EXPECT_TRUE(succeeded(run_bwacct({"calibrate", "--cache", cache}, sim(dir)))) << "valid again: no warning";
    }
}

// =============================================================================================
// E. Under mpirun (2 ranks, --oversubscribe): a failure on one rank (BWACCT_SIMULATE_FAIL on that
// rank's app context only) ends every rank, non-zero, with a message, well within 20 s.

constexpr auto kMpiRunLimit = std::chrono::seconds(40);
constexpr double kBoundS = 20;

class MpiFailure : public ::testing::Test {
protected:
    void SetUp() override {
        if (find_on_path("mpirun").empty())
            GTEST_SKIP() << "mpirun is not on PATH";
        const RunResult v = run_bwacct({"--version"});
        if (!contains(v.out, "MPI"))
            GTEST_SKIP() << "this bwacct was built without MPI: " << v.out;
    }

    // mpirun with one app context per rank: rank `failing` gets BWACCT_SIMULATE_FAIL=fail. With
    // `report_exit`, each rank runs under `sh -c` that prints "rank R exit S" after bwacct exits, so
    // the test sees every rank's own exit status.
    std::vector<std::string> argv(int failing, const std::string& fail, const std::vector<std::string>& cmd,
                                  bool report_exit) const {
        std::vector<std::string> a{"mpirun", "--allow-run-as-root", "--oversubscribe"};
        for (int rank = 0; rank < 2; ++rank) {
            if (rank > 0)
                a.push_back(":");
            for (const std::string& s :
                 {std::string("-np"), std::string("1"), std::string("-x"), std::string("BWACCT_SIMULATE=h200"), std::string("-x"),
                  std::string("BWACCT_MPI_TIMEOUT_S=3")})
                a.push_back(s);
            if (rank == failing) {
                a.push_back("-x");
                a.push_back("BWACCT_SIMULATE_FAIL=" + fail);
            }
            if (report_exit) {
                for (const char* s : {"sh", "-c", "\"$0\" \"$@\"; echo \"rank $OMPI_COMM_WORLD_RANK exit $?\" >&2"})
                    a.push_back(s);
            }
            a.push_back(bwacct_bin());
            a.insert(a.end(), cmd.begin(), cmd.end());
        }
        return a;
    }

    RunResult run(int failing, const std::string& fail, const std::vector<std::string>& cmd, bool report_exit = false) {
        RunOptions o = sim(dir_);
        o.env["BWACCT_SIMULATE"] = std::nullopt;  // per app context, with -x
        o.timeout = kMpiRunLimit;
        return run_program(argv(failing, fail, cmd, report_exit), o);
    }

    TempDir dir_;
};

const std::vector<std::string> kAllreduce{"allreduce", "--bytes", "1G", "--measure", "--format", "json"};

// Fails cleanly on both ranks: each rank exits 1 by itself, each with its own line.
TEST_F(MpiFailure, RankFailingBeforeTheFirstCollective) {
    for (int failing : {1, 0}) {
        SCOPED_TRACE(fmt::format("rank {} cannot open its GPU", failing));
        const RunResult r = run(failing, "open", kAllreduce, /*report_exit=*/true);
        SCOPED_TRACE(report(r));
        EXPECT_FALSE(r.timed_out);
        EXPECT_LT(r.wall_s, kBoundS);
        EXPECT_EQ(r.out, "") << "never a number";
        EXPECT_TRUE(contains(r.err, "bwacct allreduce: CUDA error in cudaSetDevice: simulated failure opening the GPU"));
        EXPECT_TRUE(
            contains(r.err, fmt::format("bwacct allreduce: MPI rank {} could not open its GPU (see its message)", failing)));
        EXPECT_TRUE(contains(r.err, "rank 0 exit 1"));
        EXPECT_TRUE(contains(r.err, "rank 1 exit 1"));
    }
    const RunResult plain = run(1, "open", kAllreduce);
    EXPECT_NE(plain.status, 0) << report(plain) << "mpirun's own status says the job failed";
}

TEST_F(MpiFailure, NcclErrorOnOneRankEndsEveryRank) {
    const RunResult r = run(1, "nccl", kAllreduce, /*report_exit=*/true);
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out);
    EXPECT_LT(r.wall_s, kBoundS);
    EXPECT_EQ(r.out, "");
    EXPECT_TRUE(contains(r.err, "NCCL error in ncclAllReduce: unhandled system error"));
    EXPECT_TRUE(contains(r.err, "another MPI rank failed to measure; see its message"));
    EXPECT_TRUE(contains(r.err, "rank 0 exit 1"));
    EXPECT_TRUE(contains(r.err, "rank 1 exit 1"));
}

// A rank that never answers: the other waits BWACCT_MPI_TIMEOUT_S = 3 s in its next MPI call, says
// which, and aborts the job; the launcher stops the hung rank, which says so too.
void expect_bounded_abort(const RunResult& r, const std::string& injected, const std::string& waiting_in) {
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out);
    EXPECT_LT(r.wall_s, kBoundS);
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(r.out, "") << "never a number";
    EXPECT_TRUE(contains(r.err, injected));
    if (!waiting_in.empty()) {
        EXPECT_TRUE(contains(r.err, "bwacct: MPI rank 0: no answer from the other ranks within 3 s in " + waiting_in));
    }
}

TEST_F(MpiFailure, HangInTheMeasurementIsBounded) {
    const RunResult r = run(1, "hang", kAllreduce);
    expect_bounded_abort(r, "bwacct: MPI rank 1: simulated hang in the measurement", "the exchange of failures");
    EXPECT_TRUE(contains(r.err, "bwacct: MPI rank 1: stopped by the MPI launcher")) << report(r);
}

TEST_F(MpiFailure, HangDuringTheReductionIsBounded) {
    const RunResult r = run(1, "hang@reduce", kAllreduce);
    expect_bounded_abort(r, "bwacct: MPI rank 1: simulated hang at the reduction", "the reduction of the results");
    EXPECT_TRUE(contains(r.err, "bwacct: MPI rank 1: stopped by the MPI launcher")) << report(r);
}

// A rank that crashes: the launcher sees it die and stops the others, which say so.
TEST_F(MpiFailure, CrashInTheMeasurementIsBounded) {
    const RunResult r = run(1, "crash", kAllreduce);
    expect_bounded_abort(r, "bwacct: MPI rank 1: simulated crash in the measurement", "");
    EXPECT_TRUE(contains(r.err, "bwacct: MPI rank 0: stopped by the MPI launcher")) << report(r);
}

TEST_F(MpiFailure, CrashDuringTheReductionIsBounded) {
    const RunResult r = run(1, "crash@reduce", kAllreduce);
    expect_bounded_abort(r, "bwacct: MPI rank 1: simulated crash at the reduction", "");
    EXPECT_TRUE(contains(r.err, "bwacct: MPI rank 0: stopped by the MPI launcher")) << report(r);
}

// hbm takes no collective: each rank measures its own GPU and only rank 0 prints. A CUDA error on
// rank 1 ends rank 1 with its message and exit 1 (so mpirun's status is non-zero); rank 0 finishes.
TEST_F(MpiFailure, MachineRoofFailureOnOneRankFailsTheJob) {
    const RunResult r = run(1, "cuda", {"hbm", "--size", "256M", "--kernel", "copy", "--format", "json"}, /*report_exit=*/true);
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out);
    EXPECT_LT(r.wall_s, kBoundS);
    EXPECT_TRUE(contains(r.err, "bwacct hbm: CUDA error: simulated failure"));
    EXPECT_TRUE(contains(r.err, "rank 1 exit 1"));
    EXPECT_TRUE(contains(r.err, "rank 0 exit 0"));
    const RunResult plain = run(1, "cuda", {"hbm", "--size", "256M", "--kernel", "copy", "--format", "json"});
    EXPECT_NE(plain.status, 0) << report(plain);
}

// hbm takes no collective: rank 0 measures and prints, then waits for rank 1 at the final barrier
// before MPI_Finalize; rank 1 hangs, so rank 0 aborts the job after 3 s: mpirun's status is non-zero.
TEST_F(MpiFailure, HungRankIsNotWaitedForAtTheEnd) {
    const RunResult r = run(1, "hang", {"hbm", "--size", "256M", "--kernel", "copy", "--format", "json"});
    SCOPED_TRACE(report(r));
    EXPECT_FALSE(r.timed_out);
    EXPECT_LT(r.wall_s, kBoundS);
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(contains(r.err, "bwacct: MPI rank 0: no answer from the other ranks within 3 s in the final barrier"));
}

}  // namespace
