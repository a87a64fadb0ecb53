// Serving engines' variable-length and paged-KV attention (src/ingest/kineto_cost_paged_attention.cpp):
// costed only where the trace's Input Dims and Concrete Inputs force every sequence's lengths (Σq = B ·
// max_seqlen_q; a KV cache holds each sequence's new tokens, so q ≤ kv ≤ max_seqlen_k), else a reason.
// Expected values by hand, arithmetic in the comments; the SGLang trace's aiter row against TraceLens.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../../src/ingest/kineto_attention.h"
#include "bwacct/ingest_kineto.h"
#include "kineto_test_csv.h"
#include "kineto_test_ops.h"

namespace {

using namespace bwacct::kineto;

using bwacct::kineto::test::bf;
using bwacct::kineto::test::op_of;

using Dims = std::vector<std::vector<std::int64_t>>;
using Strings = std::vector<std::string>;

// aiter::mha_batch_prefill as the SGLang trace records it (30 inputs): q [Σq, 32, 128], k_cache and
// v_cache [835874, 8, 128] (page size 1: the cache's capacity in slots), cu_seqlens_q [B + 1],
// kv_indptr [B + 1], kv_page_indices [15616]; Concrete Inputs max_seqlen_q, max_seqlen_k, p_dropout 0,
// softmax_scale, logits_soft_cap 0, zero_tensors False, is_causal, window -1/-1, sink 0, lse False,
// randval False.
CpuOp aiter_prefill(std::int64_t total_q, std::int64_t cu, const std::string& max_q, const std::string& max_k,
                    const std::string& causal = "True", const std::string& window_left = "-1") {
    Dims dims{{total_q, 32, 128}, {835874, 8, 128}, {835874, 8, 128}, {cu}, {cu}, {15616}};
    Strings types{bf, bf, bf, "int", "int", "int"};
    Strings concrete{"",   "",      "",     "",          "",   "",  max_q,   max_k,  "0.", "0.088388347648318447",
                     "0.", "False", causal, window_left, "-1", "0", "False", "False"};
    while (types.size() < 18)
        types.push_back("Scalar");
    dims.resize(30);
    types.resize(30);
    concrete.resize(30);
    return op_of(dims, types, concrete);
}

TEST(KinetoPagedAttention, AiterBatchPrefillEqualLengthsCosted) {
    // The SGLang trace's call: B = len(cu_seqlens_q) − 1 = 16 − 1 = 15; Σq = 15360 = 15 · 1024 = B · max_seqlen_q
    // ⇒ every q = 1024; the cache holds each sequence's new tokens (kv ≥ q = 1024) and kv ≤ max_seqlen_k = 1024
    // ⇒ every kv = 1024. The cache's 835874 slots are capacity, never a length.
    const auto c = cost_cpu_op("aiter::mha_batch_prefill", aiter_prefill(15360, 16, "1024", "1024"));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->category, Category::attention);
    EXPECT_EQ(c->shape, "B=15 H=32 Hkv=8 Sq=1024 Sk=1024 D=128 causal paged");
    // Causal pairs 1024·1024 − 1024·1023/2 = 1048576 − 523776 = 524800 per head;
    // FLOPs 4·B·H·pairs·d = 4·15·32·524800·128 = 128,974,848,000.
    EXPECT_EQ(c->cost.flops, 128974848000u);
    // Q 15·32·1024·128·2 B = 125,829,120; K and V 15·8·1024·128·2 = 31,457,280 each (the sequences' keys,
    // not the cache): read 125,829,120 + 2·31,457,280 = 188,743,680; O written 125,829,120.
    EXPECT_EQ(c->cost.bytes_read, 188743680u);
    EXPECT_EQ(c->cost.bytes_written, 125829120u);
    ASSERT_FALSE(c->cost.terms.empty());
    EXPECT_EQ(c->cost.terms.front().name, "sequence lengths");
    EXPECT_NE(c->cost.terms.front().formula.find("Σq = 15360 = B·max_seqlen_q ⇒ every q = 1024"), std::string::npos);
    EXPECT_EQ(attention_uncosted_reason("aiter::mha_batch_prefill", aiter_prefill(15360, 16, "1024", "1024")), "");
}

TEST(KinetoPagedAttention, AiterBatchPrefillNotCostedWithoutForcedLengths) {
    // 15000 tokens in 15 sequences of at most 1024: 15000 < 15·1024 = 15360, the lengths are cu_seqlens_q values.
    const CpuOp uneven = aiter_prefill(15000, 16, "1024", "1024");
    EXPECT_FALSE(cost_cpu_op("aiter::mha_batch_prefill", uneven));
    EXPECT_NE(attention_uncosted_reason("aiter::mha_batch_prefill", uneven).find("unequal query lengths"), std::string::npos);
    // Equal queries of 1024 but max_seqlen_k 2048 (a prefix-cache hit): each kv in [1024, 2048], values.
    const CpuOp prefix = aiter_prefill(15360, 16, "1024", "2048");
    EXPECT_FALSE(cost_cpu_op("aiter::mha_batch_prefill", prefix));
    EXPECT_NE(attention_uncosted_reason("aiter::mha_batch_prefill", prefix).find("between q = 1024 and max_seqlen_k = 2048"),
              std::string::npos);
    // No max_seqlen_q recorded.
    EXPECT_FALSE(cost_cpu_op("aiter::mha_batch_prefill", aiter_prefill(15360, 16, "", "1024")));
    // A sliding window of 256 (window_size_left 255 < 1024 − 1) changes the pairs.
    const CpuOp window = aiter_prefill(15360, 16, "1024", "1024", "True", "255");
    EXPECT_FALSE(cost_cpu_op("aiter::mha_batch_prefill", window));
    EXPECT_NE(attention_uncosted_reason("aiter::mha_batch_prefill", window).find("sliding window"), std::string::npos);
    // A window at least as wide as the keys is no window (aiter sets it to -1 itself): costed.
    EXPECT_TRUE(cost_cpu_op("aiter::mha_batch_prefill", aiter_prefill(15360, 16, "1024", "1024", "True", "1024")));
}

TEST(KinetoPagedAttention, AiterBatchPrefillOneSequenceNeedsNoMax) {
    // B = 2 − 1 = 1: its query length is Σq = 600 with or without max_seqlen_q; the KV length still needs
    // max_seqlen_k = 600 (q ≤ kv ≤ 600). Non-causal: pairs 600·600 = 360000;
    // FLOPs 4·1·32·360000·128 = 5,898,240,000.
    const auto c = cost_cpu_op("aiter::mha_batch_prefill", aiter_prefill(600, 2, "", "600", "False"));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "B=1 H=32 Hkv=8 Sq=600 Sk=600 D=128 paged");
    EXPECT_EQ(c->cost.flops, 5898240000u);
    EXPECT_FALSE(cost_cpu_op("aiter::mha_batch_prefill", aiter_prefill(600, 2, "", "")));
}

// vLLM's flash-attention 2 varlen_fwd(q, k, v, out, cu_seqlens_q, cu_seqlens_k, seqused_k, leftpad_k,
// block_table, alibi_slopes, max_seqlen_q, max_seqlen_k, p_dropout, softmax_scale, zero_tensors, is_causal,
// window_size_left, window_size_right, softcap, return_softmax, num_splits).
CpuOp vllm_fa2(std::int64_t total_q, std::vector<std::int64_t> k, std::int64_t cu, std::vector<std::int64_t> block_table,
               const std::string& max_q, const std::string& max_k, const std::string& window_left = "-1") {
    return op_of(
        {{total_q, 32, 128},
         k,
         k,
         {total_q, 32, 128},
         {cu},
         {cu},
         {},
         {},
         block_table,
         {},
         {},
         {},
         {},
         {},
         {},
         {},
         {},
         {},
         {},
         {},
         {}},
        {bf,       bf,       bf,       bf,       "int",    "int",    "",       "",       block_table.empty() ? "" : "int",
         "",       "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar",
         "Scalar", "Scalar", "Scalar"},
        {"",      "",     "",          "",   "",   "",      "", "", "", "", max_q, max_k, "0.", "0.088388347648318447",
         "False", "True", window_left, "-1", "0.", "False", "0"});
}

TEST(KinetoPagedAttention, VllmFa2PagedPrefillEqualLengths) {
    // 4 sequences (cu_seqlens [5]); Σq = 2048 = 4·512 ⇒ every q = 512; paged cache [1000 blocks, 16, 8, 128]
    // with block_table [4, 32]; max_seqlen_k 512 = q ⇒ every kv = 512. Causal pairs 512·512 − 512·511/2 =
    // 262144 − 130816 = 131328; FLOPs 4·4·32·131328·128 = 8,606,711,808.
    const auto c = cost_cpu_op("_vllm_fa2_C::varlen_fwd", vllm_fa2(2048, {1000, 16, 8, 128}, 5, {4, 32}, "512", "512"));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "B=4 H=32 Hkv=8 Sq=512 Sk=512 D=128 causal paged");
    EXPECT_EQ(c->cost.flops, 8606711808u);
    // Q 4·32·512·128·2 = 16,777,216 B; K, V 4·8·512·128·2 = 4,194,304 each: read 25,165,824; O 16,777,216 written.
    EXPECT_EQ(c->cost.bytes_read, 25165824u);
    EXPECT_EQ(c->cost.bytes_written, 16777216u);
    // A sliding window of 128 keys (window_size_left 127 < 511): not costed.
    EXPECT_FALSE(cost_cpu_op("_vllm_fa2_C::varlen_fwd", vllm_fa2(2048, {1000, 16, 8, 128}, 5, {4, 32}, "512", "512", "127")));
}

TEST(KinetoPagedAttention, VllmFa2DecodeAndUnequalKeysNotCosted) {
    // Decode: 64 sequences of one query each (Σq = 64 = 64·1), KV lengths between 1 and 4096: values.
    const CpuOp decode = vllm_fa2(64, {1000, 16, 8, 128}, 65, {64, 256}, "1", "4096");
    EXPECT_FALSE(cost_cpu_op("_vllm_fa2_C::varlen_fwd", decode));
    EXPECT_NE(attention_uncosted_reason("_vllm_fa2_C::varlen_fwd", decode).find("between q = 1 and max_seqlen_k = 4096"),
              std::string::npos);
    // Packed K (no block_table) whose first dim 835874 ≠ 4·512 = 2048: the key lengths are values.
    const CpuOp packed = vllm_fa2(2048, {835874, 8, 128}, 5, {}, "512", "512");
    EXPECT_FALSE(cost_cpu_op("_vllm_fa2_C::varlen_fwd", packed));
    EXPECT_NE(attention_uncosted_reason("_vllm_fa2_C::varlen_fwd", packed).find("unequal key lengths"), std::string::npos);
}

TEST(KinetoPagedAttention, VllmFa2PackedDecodeEqualLengthsCosted) {
    // Decode with packed keys: 8 sequences (cu_seqlens [9]) of one query (Σq = 8 = 8·1); K [32768, 8, 128]
    // with 32768 = 8·4096 = B·max_seqlen_k ⇒ every kv = 4096. Causal, one query aligned to the end of the keys:
    // pairs 1·4096 − 1·0/2 = 4096; FLOPs 4·8·32·4096·128 = 536,870,912. Q 8·32·1·128·2 = 65,536 B; K, V
    // 8·8·4096·128·2 = 67,108,864 each: read 65,536 + 134,217,728 = 134,283,264; O 65,536 written.
    const auto c = cost_cpu_op("_vllm_fa2_C::varlen_fwd", vllm_fa2(8, {32768, 8, 128}, 9, {}, "1", "4096"));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "B=8 H=32 Hkv=8 Sq=1 Sk=4096 D=128 causal varlen");
    EXPECT_EQ(c->cost.flops, 536870912u);
    EXPECT_EQ(c->cost.bytes_read, 134283264u);
    EXPECT_EQ(c->cost.bytes_written, 65536u);
}

// FlashAttention-3 as sgl-kernel registers it: fwd(q, k, v, k_new, v_new, q_v, out, cu_seqlens_q,
// cu_seqlens_k, cu_seqlens_k_new, seqused_q, seqused_k, max_seqlen_q, max_seqlen_k, page_table,
// kv_batch_idx, leftpad_k, rotary_cos, rotary_sin, seqlens_rotary, q_descale, k_descale, v_descale,
// softmax_scale, is_causal, window_size_left, window_size_right, softcap, ...).
CpuOp fa3(Dims inputs_0_to_16, const std::string& max_q, const std::string& max_k) {
    Dims dims = std::move(inputs_0_to_16);
    dims.resize(33);
    Strings types(33, "");
    for (std::size_t i = 0; i < 3; ++i)
        types[i] = bf;
    for (std::size_t i = 7; i < 17; ++i)
        if (!dims[i].empty())
            types[i] = "int";
    Strings concrete(33, "");
    concrete[12] = max_q;
    concrete[13] = max_k;
    concrete[23] = "0.088388347648318447";
    concrete[24] = "True";
    concrete[25] = "-1";
    concrete[26] = "-1";
    return op_of(dims, types, concrete);
}

TEST(KinetoPagedAttention, Fa3OneSequencePackedAndDecodeRefused) {
    // One sequence (cu_seqlens [2]) of 777 packed tokens, K [777, 8, 128]: q = Σq = 777, kv = Σk = 777 with no
    // max needed. Causal pairs 777·777 − 777·776/2 = 603729 − 301476 = 302253; FLOPs 4·1·32·302253·128 =
    // 4,952,113,152. Q 777·32·128·2 = 6,365,184 B; K, V 777·8·128·2 = 1,591,296 each: read 9,547,776.
    const auto c =
        cost_cpu_op("sgl_kernel::fwd", fa3({{777, 32, 128}, {777, 8, 128}, {777, 8, 128}, {}, {}, {}, {}, {2}, {2}}, "", ""));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "B=1 H=32 Hkv=8 Sq=777 Sk=777 D=128 causal varlen");
    EXPECT_EQ(c->cost.flops, 4952113152u);
    EXPECT_EQ(c->cost.bytes_read, 9547776u);
    EXPECT_EQ(c->cost.bytes_written, 6365184u);
    // Paged decode: 8 sequences of one query, page_table [8, 256], seqused_k [8], max_seqlen_k 4096: values.
    const CpuOp decode =
        fa3({{8, 32, 128}, {5000, 16, 8, 128}, {5000, 16, 8, 128}, {}, {}, {}, {}, {9}, {}, {}, {}, {8}, {}, {}, {8, 256}}, "1",
            "4096");
    EXPECT_FALSE(cost_cpu_op("_vllm_fa3_C::fwd", decode));
    EXPECT_NE(attention_uncosted_reason("_vllm_fa3_C::fwd", decode).find("KV lengths"), std::string::npos);
    // leftpad_k given: which keys each query sees are its values.
    const CpuOp leftpad =
        fa3({{777, 32, 128}, {777, 8, 128}, {777, 8, 128}, {}, {}, {}, {}, {2}, {2}, {}, {}, {}, {}, {}, {}, {}, {1}}, "", "");
    EXPECT_FALSE(cost_cpu_op("sgl_kernel::fwd", leftpad));
    EXPECT_NE(attention_uncosted_reason("sgl_kernel::fwd", leftpad).find("leftpad_k given"), std::string::npos);
}

TEST(KinetoPagedAttention, Fa3BatchModeFromDims) {
    // FlashAttention-3's batch mode: Q [2, 128, 32, 128], K, V [2, 128, 8, 128], no cu_seqlens, page table or
    // seqused_k: B = 2, S_q = S_k = 128. Causal pairs 128·128 − 128·127/2 = 16384 − 8128 = 8256; FLOPs
    // 4·2·32·8256·128 = 270,532,608. Q 2·128·32·128·2 = 2,097,152 B; K, V 2·128·8·128·2 = 524,288 each: read
    // 3,145,728.
    const auto c = cost_cpu_op("_vllm_fa3_C::fwd", fa3({{2, 128, 32, 128}, {2, 128, 8, 128}, {2, 128, 8, 128}}, "", ""));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->shape, "B=2 H=32 Hkv=8 Sq=128 Sk=128 D=128 causal");
    EXPECT_EQ(c->cost.flops, 270532608u);
    EXPECT_EQ(c->cost.bytes_read, 3145728u);
    EXPECT_EQ(c->cost.bytes_written, 2097152u);
    // With seqused_k [2] the cache [2, 128, …] holds up to 128 keys per sequence and the queries are 64:
    // each kv between 64 and 128, values.
    const CpuOp used = fa3({{2, 64, 32, 128}, {2, 128, 8, 128}, {2, 128, 8, 128}, {}, {}, {}, {}, {}, {}, {}, {}, {2}}, "", "");
    EXPECT_FALSE(cost_cpu_op("_vllm_fa3_C::fwd", used));
    EXPECT_NE(attention_uncosted_reason("_vllm_fa3_C::fwd", used).find("between q = 64 and max_seqlen_k = 128"),
              std::string::npos);
}

TEST(KinetoPagedAttention, UncostedReasonNamesWhatTheTraceLacks) {
    // vLLM's unified_attention_with_output as the B200 trace records it: Q, K, V and out of the new tokens
    // only ([888, heads, 64]); the sequence lengths live in the forward context.
    const CpuOp unified = op_of({{888, 8, 64}, {888, 1, 64}, {888, 1, 64}, {888, 8, 64}, {}, {}, {}},
                                {"c10::Float8_e4m3fn", bf, bf, bf, "", "", ""}, {"", "", "", "", "", "", ""});
    EXPECT_FALSE(cost_cpu_op("vllm::unified_attention_with_output", unified));
    EXPECT_EQ(attention_uncosted_reason("vllm::unified_attention_with_output", unified),
              "no sequence lengths in trace for vllm::unified_attention_with_output (888 query tokens; per-sequence KV lengths "
              "are tensor values)");
    // Not attention: a GEMM, and a KV-cache store whose name holds "flash".
    EXPECT_EQ(attention_uncosted_reason("aten::mm", op_of({{4, 8}, {8, 2}}, {bf, bf})), "");
    EXPECT_EQ(attention_uncosted_reason("_C_cache_ops::reshape_and_cache_flash",
                                        op_of({{888, 1, 64}, {888, 1, 64}, {4213816, 16, 1, 64}, {4213816, 16, 1, 64}, {888}},
                                              {bf, bf, "unsigned char", "unsigned char", "long int"})),
              "");
    // Lengths past 64-bit counts: one sequence of 2^40 tokens gives 2^40·2^40 pairs; the engine refuses
    // (OverflowError), and the reason says so instead of throwing.
    const CpuOp huge = aiter_prefill(std::int64_t{1} << 40, 2, "1099511627776", "1099511627776");
    EXPECT_ANY_THROW(cost_cpu_op("aiter::mha_batch_prefill", huge));
    EXPECT_EQ(attention_uncosted_reason("aiter::mha_batch_prefill", huge).rfind("shapes of aiter::mha_batch_prefill refused", 0),
              0u);
    // A costed fixed-shape attention has no reason.
    EXPECT_EQ(attention_uncosted_reason("aten::_scaled_dot_product_flash_attention",
                                        op_of({{1, 8, 141, 64}, {1, 8, 141, 64}, {1, 8, 141, 64}, {}, {}},
                                              {bf, bf, bf, "Scalar", "Scalar"}, {"", "", "", "0.", "False"})),
              "");
}

// The SGLang trace end to end: the aiter::mha_batch_prefill group against TraceLens's
// InferenceAttention_fwd report of the same trace (tests/data/kineto/sglang_tracelens_csvs/).
// FLOPs: TraceLens 128.84901888 G = 15 sequences × 1024·1024/2 pairs × 4·32·128 = 15·524288·16384 =
// 128,849,018,880 (causal: exactly half of S_q·S_k). Ours 128,974,848,000 counts the diagonal, S(S+1)/2 =
// 524800 pairs: ratio 524800 / 524288 = 1.000977 (+0.098 %). Bytes: TraceLens "Data Moved" 300 MB is MiB:
// 300 · 2^20 = 314,572,800 B = Q + K + V of the sequences + O, exactly ours (read 188,743,680 + written
// 125,829,120); neither counts the cache slots, cu_seqlens_q, kv_indptr or the 15616 page indices
// (62,592 B of int32, 0.02 %).
TEST(KinetoPagedAttention, SglangTraceAiterRowAgreesWithTraceLens) {
    const std::string dir = std::string(BWACCT_TEST_DATA) + "/kineto/";
    const Summary s = summarize(read_kineto(dir + "kineto_mi300x_sglang_qwen3_8b_prefilldecode_tracelens.json.gz"));
    const Group* g = nullptr;
    for (const Group& x : s.groups)
        if (x.what.op == "aiter::mha_batch_prefill")
            g = &x;
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->what.shape, "B=15 H=32 Hkv=8 Sq=1024 Sk=1024 D=128 causal paged");
    const auto rows = kineto_test::read_csv(dir + "sglang_tracelens_csvs/InferenceAttention_fwd.csv");
    ASSERT_FALSE(rows.empty());
    const auto& row = rows.front();
    ASSERT_EQ(row.at("name"), "aiter::mha_batch_prefill");
    const double tl_flops = std::stod(row.at("GFLOPS_first")) * 1e9;
    EXPECT_NEAR(static_cast<double>(g->what.cost.flops) / tl_flops, 524800.0 / 524288.0, 1e-9);
    EXPECT_DOUBLE_EQ(static_cast<double>(g->what.cost.bytes()) / (1024.0 * 1024.0), std::stod(row.at("Data Moved (MB)_first")));
    EXPECT_EQ(g->calls, std::stoull(row.at("name_count")));
    const double mean_us = g->kernel_us / static_cast<double>(g->calls);
    const double want_us = std::stod(row.at("Kernel Time (µs)_mean"));
    EXPECT_NEAR(mean_us, want_us, 1e-3 * want_us);
    // The attention category now has no uncosted kernel with a linked op (the one left,
    // create_flashinfer_kv_indices_triton, has no CPU launch record).
    const CategoryTime& att = s.categories[static_cast<std::size_t>(Category::attention)];
    double uncosted = 0;
    for (const auto& [why, us] : att.uncosted_reasons)
        uncosted += us;
    EXPECT_LT(uncosted, 0.001 * att.kernel_us);
}

}  // namespace
