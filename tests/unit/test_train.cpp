// Seed 002's training-sizing model: every expected value is the seed's printed table, recomputed by
// hand in the comments.
#include <gtest/gtest.h>

#include "bwacct/error.h"
#include "bwacct/workload_train.h"

using namespace bwacct;

namespace {

// The seed's example: 70B decoder, 80 layers, d 8192, bf16; γ 1.2, κ 6, α_opt 16, c_act 5,
// B_g 512,000, b_g 2, DP 8.
TrainModel seed_model() {
    TrainModel m;
    m.params = 70'000'000'000;
    m.layers = 80;
    m.hidden = 8192;
    m.bytes_per_elem = 2;
    return m;
}
TrainConfig seed_config() {
    TrainConfig c;
    c.gamma = 1.2;
    c.kappa = 6;
    c.alpha_opt = 16;
    c.c_act = 5;
    c.tokens_per_step = 512'000;
    c.bytes_per_grad = 2;
    c.dp = 8;
    return c;
}
TrainHardware hw(const char* name, double tflops, double hbm, double nic, double price) {
    TrainHardware h;
    h.name = name;
    h.tflops = tflops;
    h.hbm_TBps = hbm;
    h.nic_Gbps = nic;
    h.price_per_hr = price;
    return h;
}
// The seed's placeholder catalog.
std::vector<TrainHardware> seed_hardware() {
    return {hw("H100-SXM", 900, 3.35, 200, 3.93), hw("H200", 1000, 4.80, 400, 4.33), hw("L4", 120, 0.30, 100, 1.15)};
}

}  // namespace

TEST(Train, PerTokenFigures) {
    const TrainPerToken t = train_per_token(seed_model(), seed_config());
    // F_tok = 1.2·6·70e9 = 5.04e11 FLOP
    EXPECT_DOUBLE_EQ(t.flops, 5.04e11);
    // optimizer 16·70e9 / 512,000 = 2,187,500 B; activations 5·80·8192·2 = 6,553,600 B; M_tok 8,741,100 B
    EXPECT_DOUBLE_EQ(t.optimizer_bytes, 2187500.0);
    EXPECT_DOUBLE_EQ(t.activation_bytes, 6553600.0);
    EXPECT_DOUBLE_EQ(t.hbm_bytes, 8741100.0);
    // network 2·70e9·2 / 512,000 = 546,875 B
    EXPECT_DOUBLE_EQ(t.net_bytes, 546875.0);
    TrainConfig one = seed_config();
    one.dp = 1;  // the seed: no network term for a single data-parallel rank
    EXPECT_EQ(train_per_token(seed_model(), one).net_bytes, 0.0);
}

TEST(Train, RatesOfH100) {
    const TrainPerToken t = train_per_token(seed_model(), seed_config());
    const TrainRates r = train_rates(seed_hardware()[0], t);
    // r_comp = 900e12 / 5.04e11 = 1785.714…; r_mem = 3.35e12 / 8,741,100 = 383,246.960;
    // r_net = (200e9/8) / 546,875 = 45,714.28…; min = r_comp: compute-bound; r_gpu = 0.75·1785.714 = 1339.2857
    EXPECT_NEAR(r.r_comp, 1785.7142857, 1e-6);
    EXPECT_NEAR(r.r_mem, 383246.960, 1e-3);
    ASSERT_TRUE(r.r_net.has_value());
    EXPECT_NEAR(*r.r_net, 45714.2857, 1e-3);
    EXPECT_EQ(r.bound, TrainBound::compute);
    EXPECT_NEAR(r.r_gpu, 1339.2857143, 1e-6);
    // intensity 5.04e11 / 8,741,100 = 57,658.647 FLOP/B; machine balance 900/3.35 = 268.66
    EXPECT_NEAR(r.intensity, 57658.647, 1e-3);
    EXPECT_NEAR(r.machine_balance, 268.6567, 1e-3);
}

TEST(Train, SeedTableInSeedOrder) {
    const TrainPerToken t = train_per_token(seed_model(), seed_config());
    const auto plans = compare_training(seed_hardware(), t, 200'000);
    ASSERT_EQ(plans.size(), 3u);
    // Sorted by $/hr: H200 584.55 < H100-SXM 589.5 < L4 1288.0.
    EXPECT_EQ(plans[0].hw.name, "H200");
    EXPECT_EQ(plans[1].hw.name, "H100-SXM");
    EXPECT_EQ(plans[2].hw.name, "L4");
    // H200: r_gpu = 0.75·1000e12/5.04e11 = 1488.095 → 1488.1; GPUs ⌈200,000/1488.095⌉ = ⌈134.4⌉ = 135;
    // $/hr 135·4.33 = 584.55; $/TB/s·hr 4.33/4.80 = 0.902 → 0.9
    EXPECT_DOUBLE_EQ(seed_round(plans[0].rates.r_gpu, 2), 1488.1);
    EXPECT_EQ(plans[0].gpus, 135u);
    EXPECT_DOUBLE_EQ(seed_round(*plans[0].cost_per_hr, 2), 584.55);
    EXPECT_DOUBLE_EQ(seed_round(*plans[0].usd_per_TBps_hr, 2), 0.9);
    // H100: 1339.29; ⌈149.33⌉ = 150; 150·3.93 = 589.5; 3.93/3.35 = 1.173 → 1.17
    EXPECT_DOUBLE_EQ(seed_round(plans[1].rates.r_gpu, 2), 1339.29);
    EXPECT_EQ(plans[1].gpus, 150u);
    EXPECT_DOUBLE_EQ(seed_round(*plans[1].cost_per_hr, 2), 589.5);
    EXPECT_DOUBLE_EQ(seed_round(*plans[1].usd_per_TBps_hr, 2), 1.17);
    // L4: 0.75·120e12/5.04e11 = 178.571 → 178.57; 200,000/178.571 = 1120 exactly (the seed's
    // floating point gives 1120, not 1121); 1120·1.15 = 1288.0; 1.15/0.30 = 3.833 → 3.83
    EXPECT_DOUBLE_EQ(seed_round(plans[2].rates.r_gpu, 2), 178.57);
    EXPECT_EQ(plans[2].gpus, 1120u);
    EXPECT_DOUBLE_EQ(seed_round(*plans[2].cost_per_hr, 2), 1288.0);
    EXPECT_DOUBLE_EQ(seed_round(*plans[2].usd_per_TBps_hr, 2), 3.83);
    // Cluster HBM TB/s = 200,000 · 8,741,100 / 1e12 = 1.74822 → 1.748, the same for all three.
    for (const TrainPlan& p : plans) {
        EXPECT_DOUBLE_EQ(seed_round(p.cluster_hbm_TBps, 3), 1.748);
        EXPECT_EQ(p.rates.bound, TrainBound::compute);
    }
}

TEST(Train, NetworkAndMemoryBounds) {
    TrainConfig c = seed_config();
    c.tokens_per_step = 4096;  // tiny global batch: the per-token network bytes grow 125×
    const TrainPerToken t = train_per_token(seed_model(), c);
    // net = 2·70e9·2 / 4096 = 68,359,375 B; H100 r_net = 25e9 / 68,359,375 = 365.7 < r_comp 1785.7
    const TrainRates r = train_rates(seed_hardware()[0], t);
    EXPECT_EQ(r.bound, TrainBound::network);
    EXPECT_NEAR(r.r_gpu, 0.75 * 25e9 / 68359375.0, 1e-9);
    // No NIC figure: no network term at all.
    TrainHardware no_nic = seed_hardware()[0];
    no_nic.nic_Gbps = 0;
    EXPECT_FALSE(train_rates(no_nic, t).r_net.has_value());
    // A huge c_act makes HBM the binding roof: M_tok = 2,187,500 + 5000·80·8192·2 = 6,555,787,500 B;
    // r_mem = 3.35e12 / that = 511.0 < 1785.7
    TrainConfig mem = seed_config();
    mem.c_act = 5000;
    mem.dp = 1;
    const TrainRates rm = train_rates(seed_hardware()[0], train_per_token(seed_model(), mem));
    EXPECT_EQ(rm.bound, TrainBound::memory);
    EXPECT_NEAR(rm.r_mem, 3.35e12 / 6555787500.0, 1e-9);
}

TEST(Train, BadInput) {
    TrainModel m = seed_model();
    m.params = 0;
    EXPECT_THROW(train_per_token(m, seed_config()), InputError);
    TrainConfig c = seed_config();
    c.gamma = 0.9;
    EXPECT_THROW(train_per_token(seed_model(), c), InputError);
    c = seed_config();
    c.alpha_opt = 0;
    c.c_act = 0;
    EXPECT_THROW(train_per_token(seed_model(), c), InputError);
    TrainHardware h = seed_hardware()[0];
    h.util = 1.5;
    EXPECT_THROW(train_rates(h, train_per_token(seed_model(), seed_config())), InputError);
    EXPECT_THROW(plan_training(seed_hardware()[0], train_per_token(seed_model(), seed_config()), 0), InputError);
}

TEST(Train, SeedRoundMatchesPython) {
    EXPECT_DOUBLE_EQ(seed_round(1488.0952380952381, 2), 1488.1);
    EXPECT_DOUBLE_EQ(seed_round(1.74822, 3), 1.748);
    EXPECT_DOUBLE_EQ(seed_round(0.9020833333, 2), 0.9);
}
