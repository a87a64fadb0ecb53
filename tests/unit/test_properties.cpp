// Property tests: invariants of the engine over a few hundred random valid inputs each.
//
// Every generator is a std::mt19937_64 with a fixed seed, so a failure reproduces exactly; the
// failing input is printed by SCOPED_TRACE. The expected values are the formulas themselves
// (docs/formulas.md), written out here by hand, never the program's own output.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bwacct/catalog.h"
#include "bwacct/error.h"
#include "bwacct/ops.h"
#include "bwacct/record.h"
#include "bwacct/report.h"
#include "bwacct/roofline.h"

using namespace bwacct;

namespace {

constexpr int kCases = 300;
using u64 = std::uint64_t;

const Catalog& shipped() {
    static const Catalog c = Catalog::load(std::string(BWACCT_CONFIG_DIR) + "/gpus.json", "test");
    return c;
}

u64 uniform(std::mt19937_64& rng, u64 lo, u64 hi) { return std::uniform_int_distribution<u64>(lo, hi)(rng); }
template <class T, std::size_t N>
const T& pick(std::mt19937_64& rng, const std::array<T, N>& a) {
    return a[uniform(rng, 0, N - 1)];
}

// The byte-aligned dtypes with their storage size in bytes, by hand (no block scales, so bytes are
// linear in the element count): fp64 8, fp32 4, tf32 stored as fp32 4, bf16/fp16 2, fp8/int8 1.
struct SizedType {
    DType type;
    u64 bytes;
};
constexpr std::array<SizedType, 8> kSizedTypes{{{DType::fp64, 8},
                                                {DType::fp32, 4},
                                                {DType::tf32, 4},
                                                {DType::bf16, 2},
                                                {DType::fp16, 2},
                                                {DType::fp8_e4m3, 1},
                                                {DType::fp8_e5m2, 1},
                                                {DType::int8, 1}}};

// Passes per GemmPass: fwd 1, bwd-data 1, bwd-weight 1, bwd 2, fwd+bwd 3.
struct PassCount {
    GemmPass pass;
    u64 count;
};
constexpr std::array<PassCount, 5> kPasses{
    {{GemmPass::fwd, 1}, {GemmPass::bwd_data, 1}, {GemmPass::bwd_weight, 1}, {GemmPass::bwd, 2}, {GemmPass::fwd_bwd, 3}}};

// A random op of every kind the engine models, all in bf16 (every catalog GPU with a bf16 peak can take it).
Cost random_cost(std::mt19937_64& rng, int which) {
    switch (which % 5) {
        case 0: {
            GemmDesc d;
            d.m = uniform(rng, 1, 1 << 16);
            d.n = uniform(rng, 1, 1 << 16);
            d.k = uniform(rng, 1, 1 << 16);
            d.batch = uniform(rng, 1, 4);
            return gemm_cost(d);
        }
        case 1: {
            AttentionDesc d;
            d.kv_heads = uniform(rng, 1, 8);
            d.heads = d.kv_heads * uniform(rng, 1, 8);
            d.kv_len = uniform(rng, 1, 1 << 15);
            d.q_len = uniform(rng, 1, d.kv_len);
            d.head_dim = 64 * uniform(rng, 1, 4);
            d.causal = uniform(rng, 0, 1) == 1;
            d.impl = uniform(rng, 0, 1) == 1 ? AttentionImpl::flash : AttentionImpl::naive;
            return attention_cost(d);
        }
        case 2: {
            ElementwiseDesc d;
            d.shape = {uniform(rng, 1, 64), uniform(rng, 1, 4096), uniform(rng, 1, 8192)};
            d.inputs = uniform(rng, 1, 3);
            d.flops_per_elem = uniform(rng, 1, 200);
            return elementwise_cost(d);
        }
        case 3: {
            NormDesc d;
            d.kind = std::array{NormKind::layernorm, NormKind::rmsnorm, NormKind::softmax}[uniform(rng, 0, 2)];
            d.shape = {uniform(rng, 1, 64), uniform(rng, 1, 8192)};
            return norm_cost(d);
        }
        default: {
            CollectiveDesc d;
            d.kind = static_cast<CollectiveKind>(uniform(rng, 0, 6));
            d.ranks = uniform(rng, 2, 64);
            d.size_bytes = 2 * d.ranks * uniform(rng, 1, u64(1) << 24);  // whole bf16 elements, a multiple of n
            return collective_cost(d);
        }
    }
}

// Analyzes `cost` on every catalog GPU that can take it; GPUs without the needed peak or link are skipped.
std::vector<Verdict> verdicts_for(const Cost& cost, const AnalysisOptions& opt = {}) {
    std::vector<Verdict> out;
    for (const GpuSpec& g : shipped().gpus()) {
        try {
            out.push_back(analyze(cost, g, opt));
        } catch (const InputError&) {
        }
    }
    return out;
}

}  // namespace

// Doubling M doubles the FLOPs (2·batch·M·N·K·passes is linear in M) and adds exactly the bytes of the
// M-sized operands once more. Per pass, A (M×K) or dA is moved once and C (M×N) or dC once; B (K×N)
// and the bias (N) do not depend on M. So bytes(2M) − bytes(M) = passes · batch · M · (K·size(A) + N·size(C)).
TEST(Properties, DoublingMDoublesGemmFlopsAndAddsTheMSizedBytes) {
    std::mt19937_64 rng(0x6e6d6d01);
    for (int i = 0; i < kCases; ++i) {
        const SizedType ab = pick(rng, kSizedTypes);
        const SizedType c = pick(rng, kSizedTypes);
        const PassCount p = pick(rng, kPasses);
        GemmDesc d;
        d.m = uniform(rng, 1, 1 << 16);
        d.n = uniform(rng, 1, 1 << 16);
        d.k = uniform(rng, 1, 1 << 16);
        d.batch = uniform(rng, 1, 16);
        d.a = d.b = ab.type;
        d.c = c.type;
        d.bias = uniform(rng, 0, 1) == 1;
        d.pass = p.pass;
        SCOPED_TRACE(fmt::format("case {}: m {} n {} k {} batch {} a/b {} c {} bias {} pass {}", i, d.m, d.n, d.k, d.batch,
                                 dtype_name(d.a), dtype_name(d.c), d.bias, gemm_pass_name(d.pass)));
        const Cost one = gemm_cost(d);
        GemmDesc twice = d;
        twice.m = 2 * d.m;
        const Cost two = gemm_cost(twice);
        EXPECT_EQ(one.flops, 2 * d.batch * d.m * d.n * d.k * p.count);
        EXPECT_EQ(two.flops, 2 * one.flops);
        EXPECT_EQ(two.bytes() - one.bytes(), p.count * d.batch * d.m * (d.k * ab.bytes + d.n * c.bytes));
        EXPECT_EQ(two.launches, one.launches);
    }
}

// The modelled floor is the largest of the four roofs, and the bound roof is the one that reaches it.
TEST(Properties, FloorIsTheMaximumRoof) {
    std::mt19937_64 rng(0xf100f100);
    int analyzed = 0;
    for (int i = 0; i < kCases; ++i) {
        const Cost cost = random_cost(rng, i);
        for (const Verdict& v : verdicts_for(cost)) {
            SCOPED_TRACE(fmt::format("case {} ({}) on {}", i, cost.op, v.gpu));
            const RoofTimes& r = v.roofs_us;
            const double biggest = std::max({r.compute, r.hbm, r.link, r.dispatch});
            EXPECT_EQ(v.floor_us, biggest);
            EXPECT_GT(v.floor_us, 0);
            const double bound_time = v.bound == Roof::compute ? r.compute
                                      : v.bound == Roof::hbm   ? r.hbm
                                      : v.bound == Roof::link  ? r.link
                                                               : r.dispatch;
            EXPECT_EQ(bound_time, v.floor_us) << "bound " << roof_name(v.bound);
            EXPECT_EQ(v.sum_us, r.compute + r.hbm + r.link + r.dispatch);
            EXPECT_GE(v.sum_us, v.floor_us);
            ++analyzed;
        }
    }
    EXPECT_GE(analyzed, kCases);  // at least one GPU per case on average
}

// With the floor as the time (everything overlapping perfectly), no unit can be busier than its peak:
// every utilization lies in [0, 1], and the binding roof's unit is exactly at 1 (compute or HBM).
// The tolerance is rounding only (a few ulp of the divisions), 1e-12.
TEST(Properties, UtilizationAtTheModelledFloorIsWithinZeroAndOne) {
    std::mt19937_64 rng(0x0711);
    constexpr double kUlps = 1e-12;
    int analyzed = 0;
    for (int i = 0; i < kCases; ++i) {
        const Cost cost = random_cost(rng, i);
        for (const Verdict& modelled : verdicts_for(cost)) {
            const GpuSpec& g = shipped().get(modelled.gpu, "test");
            AnalysisOptions opt;
            opt.time_us = modelled.floor_us;
            const Verdict v = analyze(cost, g, opt);
            SCOPED_TRACE(fmt::format("case {} ({}) on {} at {} µs", i, cost.op, v.gpu, modelled.floor_us));
            ASSERT_TRUE(v.timed);
            const TimedAnalysis& t = *v.timed;
            for (const double u : {t.util_compute, t.util_hbm, t.util_link.value_or(0)}) {
                EXPECT_GE(u, 0);
                EXPECT_LE(u, 1 + kUlps);
            }
            if (modelled.bound == Roof::compute) {
                EXPECT_NEAR(t.util_compute, 1, kUlps);
            }
            if (modelled.bound == Roof::hbm) {
                EXPECT_NEAR(t.util_hbm, 1, kUlps);
            }
            ++analyzed;
        }
    }
    EXPECT_GE(analyzed, kCases);
}

// busbw / algbw is nccl-tests' factor (its *GetBw functions): allreduce 2(n−1)/n; allgather,
// reducescatter, alltoall (n−1)/n; broadcast, reduce, sendrecv 1 — at the floor and at a given time.
TEST(Properties, BusbwOverAlgbwIsTheCollectivesFactor) {
    std::mt19937_64 rng(0xb05b);
    const GpuSpec& h200 = shipped().get("h200", "test");
    for (int i = 0; i < kCases; ++i) {
        CollectiveDesc d;
        d.kind = static_cast<CollectiveKind>(uniform(rng, 0, 6));
        d.ranks = uniform(rng, 2, 1024);
        d.size_bytes = 2 * d.ranks * uniform(rng, 1, u64(1) << 20);
        const double n = static_cast<double>(d.ranks);
        const double factor =
            d.kind == CollectiveKind::allreduce ? 2 * (n - 1) / n
            : d.kind == CollectiveKind::allgather || d.kind == CollectiveKind::reducescatter || d.kind == CollectiveKind::alltoall
                ? (n - 1) / n
                : 1.0;
        AnalysisOptions opt;
        if (i % 2 == 1)
            opt.time_us = static_cast<double>(uniform(rng, 1, 1'000'000)) / 10;
        SCOPED_TRACE(fmt::format("case {}: {} n {} size {} time {}", i, collective_name(d.kind), d.ranks, d.size_bytes,
                                 opt.time_us.value_or(-1)));
        const Cost c = collective_cost(d);
        ASSERT_TRUE(c.collective);
        EXPECT_DOUBLE_EQ(c.collective->bus_factor, factor);
        EXPECT_DOUBLE_EQ(bus_factor(d.kind, d.ranks), factor);
        const Verdict v = analyze(c, h200, opt);
        ASSERT_TRUE(v.algbw_GBps && v.busbw_GBps);
        EXPECT_DOUBLE_EQ(*v.busbw_GBps / *v.algbw_GBps, factor);
        // algbw = size / time: bytes / (µs · 1e3) = GB/s
        EXPECT_DOUBLE_EQ(*v.algbw_GBps, static_cast<double>(d.size_bytes) / (opt.time_us.value_or(v.floor_us) * 1e3));
    }
}

// A record written as JSON and parsed back carries the same numbers: exact integers for FLOPs and
// bytes, and every double bit for bit (the writer prints the shortest representation that round-trips).
TEST(Properties, RecordJsonRoundTripsTheNumbers) {
    std::mt19937_64 rng(0x75011);
    for (int i = 0; i < kCases; ++i) {
        Record r;
        r.cost = random_cost(rng, i);
        AnalysisOptions opt;
        if (i % 3 == 0)
            opt.time_us = static_cast<double>(uniform(rng, 1, 10'000'000)) / 7;  // not a round number
        r.source = opt.time_us ? TimeSource::given : TimeSource::modelled;
        r.verdicts = verdicts_for(r.cost, opt);
        ASSERT_FALSE(r.verdicts.empty());
        SCOPED_TRACE(fmt::format("case {} ({})", i, r.cost.op));

        std::FILE* f = std::tmpfile();
        ASSERT_NE(f, nullptr);
        {
            auto sink = make_sink(Format::json, f, {});
            sink->emit(r);
            sink->finish();
        }
        std::rewind(f);
        std::string text;
        char buf[4096];
        for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;)
            text.append(buf, got);
        std::fclose(f);

        const nlohmann::json j = nlohmann::json::parse(text);
        EXPECT_EQ(j.at("flops").get<u64>(), r.cost.flops);
        EXPECT_EQ(j.at("bytes_read").get<u64>(), r.cost.bytes_read);
        EXPECT_EQ(j.at("bytes_written").get<u64>(), r.cost.bytes_written);
        EXPECT_EQ(j.at("bytes").get<u64>(), r.cost.bytes());
        EXPECT_EQ(j.at("launches").get<u64>(), r.cost.launches);
        const nlohmann::json& gpus = j.at("gpus");
        ASSERT_EQ(gpus.size(), r.verdicts.size());
        for (std::size_t g = 0; g < r.verdicts.size(); ++g) {
            const Verdict& v = r.verdicts[g];
            const nlohmann::json& e = gpus.at(g);
            EXPECT_EQ(e.at("gpu").get<std::string>(), v.gpu);
            EXPECT_EQ(e.at("floor_us").get<double>(), v.floor_us);
            EXPECT_EQ(e.at("roofs_us").at("compute").get<double>(), v.roofs_us.compute);
            EXPECT_EQ(e.at("roofs_us").at("hbm").get<double>(), v.roofs_us.hbm);
            EXPECT_EQ(e.at("roofs_us").at("link").get<double>(), v.roofs_us.link);
            EXPECT_EQ(e.at("roofs_us").at("dispatch").get<double>(), v.roofs_us.dispatch);
            EXPECT_EQ(e.at("sum_us").get<double>(), v.sum_us);
            if (v.algbw_GBps) {
                EXPECT_EQ(e.at("algbw_GBps").get<double>(), *v.algbw_GBps);
                EXPECT_EQ(e.at("busbw_GBps").get<double>(), *v.busbw_GBps);
            }
            if (v.timed) {
                EXPECT_EQ(e.at("time_us").get<double>(), v.timed->time_us);
                EXPECT_EQ(e.at("util").at("compute").get<double>(), v.timed->util_compute);
                EXPECT_EQ(e.at("util").at("hbm").get<double>(), v.timed->util_hbm);
            }
        }
    }
}
