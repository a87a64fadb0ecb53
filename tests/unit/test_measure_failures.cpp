// Failure behaviour of the measurement layer (issue 6, "failure behaviour on a GPU"), below the CLI:
// out of GPU memory retried at a smaller HBM array (oom_retry.h) or refused for fixed-size ops,
// the simulated backend's injected failures (BWACCT_SIMULATE_FAIL), NCCL error wording, and the
// calibration cache under concurrent writers. The end-to-end side is tests/cli/test_failures_cli.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "backend.h"
#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "calibration.h"
#include "failure_text.h"
#include "mpi_context.h"
#include "oom_retry.h"
#include "sampling.h"
#include "sim/sim_backend.h"

using namespace bwacct;
using namespace bwacct::measure;

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024, kGiB = 1024 * kMiB;

const GpuSpec& h200() {
    static const Catalog c = Catalog::load_default();
    return c.get("h200", "--gpu");
}

// A backend whose GPU has `free_bytes` free: hbm() runs out of memory above it (and records every
// size it was asked for); `other` makes it fail with a plain MeasureError instead.
class TightBackend : public Backend {
public:
    explicit TightBackend(std::uint64_t free_bytes, bool other = false) : free_(free_bytes), other_(other) {}
    std::string name() const override { return "tight"; }
    TimeSource source() const override { return TimeSource::simulated; }
    DeviceInfo device() override { return {}; }
    Clocks clocks() override { return {}; }
    Timing gemm(const GemmDesc&, const SamplePolicy&) override { return {}; }
    Timing elementwise(const ElementwiseDesc&, const SamplePolicy&) override { return {}; }
    LaunchTimes launch(const SamplePolicy&) override { return {}; }
    Timing collective(const CollectiveDesc&, const SamplePolicy&) override { return {}; }
    Timing hbm(HbmKernel k, std::uint64_t array_bytes, const SamplePolicy&) override {
        asked.push_back(array_bytes);
        if (other_)
            throw MeasureError("CUDA error in the HBM kernel launch: unspecified launch failure");
        if (hbm_bytes_moved(k, array_bytes) > free_)  // copy: 2 arrays, the size of the bytes moved
            throw OutOfMemory("out of GPU memory in cudaMalloc (array b): out of memory (cudaErrorMemoryAllocation)");
        Timing t;
        t.samples_us = {100};
        t.stats = summarize(t.samples_us);
        return t;
    }
    std::vector<std::uint64_t> asked;

private:
    std::uint64_t free_;
    bool other_;
};

}  // namespace

// ---- hbm_fitting: halve on out-of-memory, down to the floor, and say so.

TEST(OomRetry, FitsAtOnceWithoutANote) {
    TightBackend b(4 * kGiB);
    const HbmRun r = hbm_fitting(b, HbmKernel::copy, kGiB, 100 * kMiB, SamplePolicy{});
    EXPECT_EQ(r.array_bytes, kGiB);
    EXPECT_EQ(b.asked, (std::vector<std::uint64_t>{kGiB}));
    EXPECT_TRUE(r.timing.notes.empty());
}

TEST(OomRetry, HalvesUntilItFitsAndSaysSo) {
    // copy moves 2 × the array: 1 GiB → 2 GiB > 600 MiB; 512 MiB → 1 GiB > 600 MiB; 256 MiB → 512 MiB fits.
    TightBackend b(600 * kMiB);
    const HbmRun r = hbm_fitting(b, HbmKernel::copy, kGiB, 100 * kMiB, SamplePolicy{});
    EXPECT_EQ(b.asked, (std::vector<std::uint64_t>{kGiB, 512 * kMiB, 256 * kMiB}));
    EXPECT_EQ(r.array_bytes, 256 * kMiB);
    ASSERT_EQ(r.timing.notes.size(), 1u);
    EXPECT_EQ(r.timing.notes[0], "out of GPU memory at 1.00 GiB per array; measured at 256.0 MiB per array instead");
}

TEST(OomRetry, HalvesToMultiplesOf64Bytes) {
    // 100 MiB + 200 B = 104,857,800 B; half = 52,428,900 → 52,428,864 (= 819,201 × 64), which fits.
    TightBackend b(110 * kMiB);
    const HbmRun r = hbm_fitting(b, HbmKernel::copy, 100 * kMiB + 200, 0, SamplePolicy{});
    ASSERT_EQ(b.asked.size(), 2u);
    EXPECT_EQ(r.array_bytes, 52428864u);
    EXPECT_EQ(r.array_bytes % 64, 0u);
}

TEST(OomRetry, StopsAtTheFloorWithAClearMessage) {
    // 1 GiB, 512 MiB, 256 MiB, 128 MiB all run out of 100 MiB; 64 MiB is below the 100 MiB floor.
    TightBackend b(100 * kMiB);
    try {
        (void)hbm_fitting(b, HbmKernel::copy, kGiB, 100 * kMiB, SamplePolicy{});
        FAIL() << "expected a MeasureError";
    } catch (const OutOfMemory&) {
        FAIL() << "the final error must not be retried again by a caller: a plain MeasureError";
    } catch (const MeasureError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("out of GPU memory for the copy kernel at 1.00 GiB per array and still at 128.0 MiB"), std::string::npos)
            << m;
        EXPECT_NE(m.find("arrays below 100.0 MiB are not tried"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << "one line";
    }
    EXPECT_EQ(b.asked, (std::vector<std::uint64_t>{kGiB, 512 * kMiB, 256 * kMiB, 128 * kMiB}));
}

TEST(OomRetry, OtherErrorsAreNotRetried) {
    TightBackend b(kGiB, /*other=*/true);
    EXPECT_THROW((void)hbm_fitting(b, HbmKernel::copy, kGiB, 0, SamplePolicy{}), MeasureError);
    EXPECT_EQ(b.asked.size(), 1u);
}

TEST(OomRetry, FloorIsTwiceTheL2) {
    DeviceInfo d;
    d.l2_bytes = 50 * kMiB;  // H100/H200
    EXPECT_EQ(hbm_floor_bytes(d), 100 * kMiB);
    d.l2_bytes = 0;  // unknown
    EXPECT_EQ(hbm_floor_bytes(d), 64 * kMiB);
}

// ---- BWACCT_SIMULATE_FAIL

TEST(SimFailureText, AcceptedForms) {
    EXPECT_EQ(parse_sim_failure("").kind, SimFailure::Kind::none);
    EXPECT_EQ(parse_sim_failure("verify").kind, SimFailure::Kind::verify);
    EXPECT_EQ(parse_sim_failure("cuda").kind, SimFailure::Kind::cuda);
    EXPECT_EQ(parse_sim_failure("nccl").kind, SimFailure::Kind::nccl);
    EXPECT_EQ(parse_sim_failure("open").kind, SimFailure::Kind::open);
    const SimFailure oom = parse_sim_failure("oom");
    EXPECT_EQ(oom.kind, SimFailure::Kind::oom);
    EXPECT_EQ(oom.free_bytes, kGiB);  // default
    EXPECT_EQ(parse_sim_failure("oom:600M").free_bytes, 600 * kMiB);
    EXPECT_EQ(parse_sim_failure("oom:2G").free_bytes, 2 * kGiB);
    EXPECT_EQ(parse_sim_failure("oom:4096").free_bytes, 4096u);
    const SimFailure hang = parse_sim_failure("hang@reduce");
    EXPECT_EQ(hang.kind, SimFailure::Kind::hang);
    EXPECT_TRUE(hang.at_reduction);
    EXPECT_FALSE(parse_sim_failure("crash").at_reduction);
    EXPECT_TRUE(parse_sim_failure("crash@reduce").at_reduction);
}

TEST(SimFailureText, RejectedFormsNameTheVariable) {
    for (const char* bad : {"bogus", "oom:", "oom:0", "oom:12X", "oom:-1", "verify@reduce", "hang@open", "@reduce", "CUDA"}) {
        try {
            (void)parse_sim_failure(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(e.option(), "BWACCT_SIMULATE_FAIL") << bad;
        }
    }
}

// ---- The simulated backend's injected failures.

TEST(SimOom, HbmRunsOutAboveTheFreeMemory) {
    auto b = make_sim_backend(h200(), "oom", 1);  // 1 GiB free
    // read: 1 array of 1 GiB fits exactly; triad: 3 arrays of 1 GiB do not.
    EXPECT_NO_THROW((void)b->hbm(HbmKernel::read, kGiB, SamplePolicy{}));
    EXPECT_THROW((void)b->hbm(HbmKernel::triad, kGiB, SamplePolicy{}), OutOfMemory);
}

TEST(SimOom, HbmFittingMeasuresSmallerWithTheSameBandwidth) {
    auto b = make_sim_backend(h200(), "oom", 1);
    // triad: 3 × 1 GiB, 3 × 512 MiB = 1.5 GiB do not fit in 1 GiB; 3 × 256 MiB = 768 MiB do.
    const HbmRun r = hbm_fitting(*b, HbmKernel::triad, kGiB, hbm_floor_bytes(b->device()), SamplePolicy{});
    EXPECT_EQ(r.array_bytes, 256 * kMiB);
    // bandwidth = 3 × 256 MiB / median: HBM-bound, 0.90 × 4800 = 4320 GB/s ± 1 %
    const double bw = static_cast<double>(hbm_bytes_moved(HbmKernel::triad, r.array_bytes)) / (r.timing.stats.median_us * 1e3);
    EXPECT_NEAR(bw, 4320, 4320 * 0.011);
    ASSERT_EQ(r.timing.notes.size(), 1u);
    EXPECT_EQ(r.timing.notes[0], "out of GPU memory at 1.00 GiB per array; measured at 256.0 MiB per array instead");
}

TEST(SimOom, FixedSizeOpsFailInsteadOfShrinking) {
    auto b = make_sim_backend(h200(), "oom", 1);
    GemmDesc g;
    g.m = g.n = g.k = 32768;  // A = 32768² × 2 B = 2 GiB > 1 GiB
    try {
        (void)b->gemm(g, SamplePolicy{});
        FAIL() << "expected out of memory";
    } catch (const OutOfMemory&) {
        FAIL() << "a GEMM must not be retried at another shape: plain MeasureError expected";
    } catch (const MeasureError& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("out of GPU memory measuring the GEMM M=32768 N=32768 K=32768:", 0), 0u) << m;
        EXPECT_NE(m.find("no smaller size was tried"), std::string::npos) << m;
    }
    g.m = g.n = g.k = 8192;  // 3 × 128 MiB fits
    EXPECT_NO_THROW((void)b->gemm(g, SamplePolicy{}));

    CollectiveDesc c;
    c.size_bytes = kGiB;
    c.ranks = 2;
    EXPECT_THROW((void)b->collective(c, SamplePolicy{}), MeasureError);  // send + receive: 2 GiB
    c.in_place = true;
    EXPECT_NO_THROW((void)b->collective(c, SamplePolicy{}));  // one buffer: 1 GiB

    ElementwiseDesc e;
    e.shape = {1024, 1024, 1024};  // bf16: 2 GiB in, 2 GiB out
    EXPECT_THROW((void)b->elementwise(e, SamplePolicy{}), MeasureError);
}

TEST(SimNccl, CollectivesFailWithTheNcclWording) {
    auto b = make_sim_backend(h200(), "nccl", 1);
    CollectiveDesc c;
    c.size_bytes = kMiB;
    c.ranks = 2;
    const std::vector<std::pair<CollectiveKind, std::string>> calls{{CollectiveKind::allreduce, "ncclAllReduce"},
                                                                    {CollectiveKind::allgather, "ncclAllGather"},
                                                                    {CollectiveKind::reducescatter, "ncclReduceScatter"},
                                                                    {CollectiveKind::broadcast, "ncclBroadcast"},
                                                                    {CollectiveKind::reduce, "ncclReduce"}};
    for (const auto& [kind, call] : calls) {
        c.kind = kind;
        try {
            (void)b->collective(c, SamplePolicy{});
            ADD_FAILURE() << call;
        } catch (const MeasureError& e) {
            // ncclGetErrorString(ncclSystemError), then ncclGetLastError's text in parentheses
            EXPECT_EQ(std::string(e.what()), "NCCL error in " + call +
                                                 ": unhandled system error (run with NCCL_DEBUG=INFO for details) "
                                                 "(simulated failure: BWACCT_SIMULATE_FAIL=nccl)");
        }
    }
    GemmDesc g;
    g.m = g.n = g.k = 1024;
    EXPECT_NO_THROW((void)b->gemm(g, SamplePolicy{})) << "an NCCL failure touches collectives only";
}

TEST(FailureText, NcclMessageWithoutDetail) {
    EXPECT_EQ(nccl_error_message("ncclCommInitRank", "invalid argument (run with NCCL_DEBUG=WARN for details)", ""),
              "NCCL error in ncclCommInitRank: invalid argument (run with NCCL_DEBUG=WARN for details)");
}

TEST(FailureText, IecSizes) {
    EXPECT_EQ(iec_size(3 * kGiB / 2), "1.50 GiB");
    EXPECT_EQ(iec_size(256 * kMiB), "256.0 MiB");
    EXPECT_EQ(iec_size(4096), "4.0 KiB");
    EXPECT_EQ(iec_size(12), "12 B");
}

// ---- Calibration: out of memory, and concurrent writers.

TEST(CalibrationFailures, RunUnderOomNotesTheSmallerArrays) {
    auto b = make_sim_backend(h200(), "oom:600M", 3);
    const Calibration c = run_calibration(*b, kGiB, SamplePolicy{}, "2026-11-23T00:00:00Z");
    // copy: 2 × 1 GiB, 2 × 512 MiB > 600 MiB; 2 × 256 MiB = 512 MiB fits.
    // triad: 3 × 1 GiB, 3 × 512 MiB, 3 × 256 MiB = 768 MiB > 600 MiB; 3 × 128 MiB = 384 MiB fits (floor 2 × 50 MiB).
    EXPECT_EQ(c.notes, (std::vector<std::string>{
                           "copy: out of GPU memory at 1.00 GiB per array; measured at 256.0 MiB per array instead",
                           "triad: out of GPU memory at 1.00 GiB per array; measured at 128.0 MiB per array instead"}));
    EXPECT_NEAR(c.hbm_GBps, 4320, 4320 * 0.011);  // bytes counted at the measured size: still 0.90 × 4800
}

TEST(CalibrationFailures, StoreWarnsWhenItReplacesAnUnreadableFile) {
    // Per process: other builds may run this test at the same time.
    const std::string path = ::testing::TempDir() + "bwacct_cal_failures_warn." + std::to_string(::getpid()) + ".json";
    {
        std::ofstream out(path, std::ios::trunc);
        out << "{\"schema\": \"bwacct.calibration/1\", \"devi";  // truncated
    }
    Calibration a;
    a.uuid = "GPU-a";
    const std::string warning = store_calibration(path, a);
    EXPECT_NE(warning.find("ignoring the calibration cache " + path), std::string::npos) << warning;
    EXPECT_NE(warning.find("rewritten"), std::string::npos) << warning;
    std::string w2;
    EXPECT_TRUE(load_calibration(path, "GPU-a", w2));
    EXPECT_TRUE(w2.empty());
    EXPECT_EQ(store_calibration(path, a), "") << "a valid file: no warning";
    std::remove(path.c_str());
    std::remove((path + ".lock").c_str());
}

// Threads of one process, each storing its own GPU at once: the lock keeps every entry, and no
// temporary file is left behind.
TEST(CalibrationFailures, ConcurrentWritersKeepEveryEntry) {
    const std::filesystem::path dir =
        std::filesystem::path(::testing::TempDir()) / ("bwacct_cal_concurrent." + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const std::string path = (dir / "calibration.json").string();
    constexpr int kWriters = 8;
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i)
        writers.emplace_back([&path, i] {
            Calibration c;
            c.uuid = "GPU-" + std::to_string(i);
            c.name = "writer";
            c.backend = "simulated";
            c.hbm_GBps = 1000.0 + i;
            for (int round = 0; round < 5; ++round)
                (void)store_calibration(path, c);
        });
    for (std::thread& t : writers)
        t.join();
    for (int i = 0; i < kWriters; ++i) {
        std::string warning;
        const auto c = load_calibration(path, "GPU-" + std::to_string(i), warning);
        ASSERT_TRUE(c) << i << " " << warning;
        EXPECT_DOUBLE_EQ(c->hbm_GBps, 1000.0 + i);
        EXPECT_TRUE(warning.empty());
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
    std::filesystem::remove_all(dir);
}

// ---- MPI context without a launcher: one rank, local answers, the default time limit.

TEST(MpiFailures, SingleRankAnswersLocally) {
    const MpiContext& mpi = MpiContext::instance();
    ASSERT_FALSE(mpi.active());
    EXPECT_EQ(mpi.first_failed(false), -1);
    EXPECT_EQ(mpi.first_failed(true), 0);
    EXPECT_FALSE(mpi.any(false));
    EXPECT_TRUE(mpi.any(true));
    if (std::getenv("BWACCT_MPI_TIMEOUT_S") == nullptr) {
        EXPECT_DOUBLE_EQ(mpi.timeout_s(), 600);
    }
}
