// The Nsight readers as pure functions: the RFC 4180 CSV reader, kernel-name categories, the nsys
// kernel summary (CSV and console table) and the ncu CSV export (long and wide layouts). Expected
// values are read from the fixtures by eye and the arithmetic is in the comments.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ingest_test_util.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "../../src/ingest/csv.h"
#include "bwacct/error.h"
#include "bwacct/ingest_kineto.h"
#include "bwacct/ingest_nsight.h"
#include "bwacct/kernel_category.h"

namespace {

using namespace bwacct;
using bwacct_test::column;
using bwacct_test::fixture;
using bwacct_test::section;
using ingest::parse_csv;
using ingest::parse_number_text;

using bwacct_test::real;

// ---- CSV ----------------------------------------------------------------------------------------

TEST(Csv, QuotedFieldsCommasQuotesNewlinesAndCrlf) {
    const auto rows = parse_csv("a,\"b,c\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",,x\r\n\r\nlast", "t.csv");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].fields, (std::vector<std::string>{"a", "b,c", "say \"hi\""}));
    EXPECT_EQ(rows[0].line, 1u);
    EXPECT_EQ(rows[1].fields, (std::vector<std::string>{"two\nlines", "", "x"}));
    EXPECT_EQ(rows[1].line, 2u);
    EXPECT_EQ(rows[2].fields, (std::vector<std::string>{"last"}));
    EXPECT_EQ(rows[2].line, 5u);  // line 4 is empty (skipped); the quoted newline made row 2 span lines 2-3
}

TEST(Csv, BomTrailingEmptyFieldAndOtherSeparator) {
    auto rows = parse_csv("\xEF\xBB\xBFx,y,\n", "t.csv");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].fields, (std::vector<std::string>{"x", "y", ""}));
    rows = parse_csv("a;\"b;c\"\n", "t.csv", ';');
    EXPECT_EQ(rows[0].fields, (std::vector<std::string>{"a", "b;c"}));
}

TEST(Csv, UnterminatedQuoteAndTextAfterQuoteAreErrors) {
    try {
        parse_csv("a,b\n1,\"open", "cut.csv");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "cut.csv");
        EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    }
    EXPECT_THROW(parse_csv("\"a\"b,c\n", "t.csv"), InputError);
}

TEST(Csv, NumbersWithThousandsSeparators) {
    EXPECT_DOUBLE_EQ(*parse_number_text("1,234"), 1234.0);
    EXPECT_DOUBLE_EQ(*parse_number_text(" 58,234,880 "), 58234880.0);
    EXPECT_DOUBLE_EQ(*parse_number_text("582,348.8"), 582348.8);
    EXPECT_DOUBLE_EQ(*parse_number_text("-1.5e3"), -1500.0);
    EXPECT_DOUBLE_EQ(*parse_number_text("+7"), 7.0);
    EXPECT_FALSE(parse_number_text("n/a"));
    EXPECT_FALSE(parse_number_text(""));
    EXPECT_FALSE(parse_number_text("1,23"));      // a group of two
    EXPECT_FALSE(parse_number_text("1234,567"));  // four digits before the comma
    EXPECT_FALSE(parse_number_text("1.2.3"));
    EXPECT_FALSE(parse_number_text("12abc"));
    EXPECT_FALSE(parse_number_text("nan"));
    EXPECT_FALSE(parse_number_text("inf"));
}

// ---- kernel categories --------------------------------------------------------------------------

TEST(KernelCategory, NamesFromTheFixtures) {
    EXPECT_EQ(classify_kernel("std::enable_if<!T7, void>::type internal::gemvx::kernel<int, int, __nv_bfloat16>(T13)"),
              KernelCategory::gemm);
    EXPECT_EQ(classify_kernel(
                  "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x1_tn_align8>(T1::Params)"),
              KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<(int)128>>(Flash_fwd_params)"),
              KernelCategory::attention);
    EXPECT_EQ(classify_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096>)"),
              KernelCategory::collective);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16>(int)"),
              KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void at::native::<unnamed>::CatArrayBatchedCopy_vectorized<OpaqueType<2>>(char *)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<float>>(T3)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void <unnamed>::softmax_warp_forward<float, float, float, (int)6>(T2 *)"),
              KernelCategory::softmax);
    EXPECT_EQ(classify_kernel(
                  "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<c10::BFloat16>>(int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::bitonicSortKVInPlace<(int)-2, long>(T5)"), KernelCategory::reduce);  // "sort"
    EXPECT_EQ(classify_kernel("void init_kernel<double>(T1 *, T1 *, T1 *, T1, T1, T1)"), KernelCategory::other);
    EXPECT_STREQ(category_name(KernelCategory::attention), "attention");
}

// Short words count only where a word of the name starts with them (kernel_category.cpp
// has_any_word): PyTorch's unrolled_elementwise_kernel (in the nsys fixture and the corpus V100 trace)
// is elementwise, not "roll" (indexing); roll, padding and pooling kernels keep their category.
// Random-number kernels (aten::normal_) are elementwise, not a normalization.
TEST(KernelCategory, ShortWordsMatchAtWordStarts) {
    EXPECT_EQ(classify_kernel("void at::native::unrolled_elementwise_kernel<at::native::AddFunctor<float>, "
                              "at::detail::Array<char*, 3>, OffsetCalculator<2, unsigned int>>(int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
                              "at::TensorIteratorBase &)::[lambda() (instance 3)]>(int, T1)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::roll_cuda_kernel<float>(const T1 *, T1 *, long, long, long, long, long)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::reflection_pad2d_out_kernel<float>(int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::AdaptiveMaxPool2d<float>(int)"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void vllm::reshape_and_cache_kernel<__nv_bfloat16>(int)"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, "
                              "at::native::templates::cuda::normal_and_transform<float, float>>(int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(int)"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(int)"), KernelCategory::norm);
}

// A library's name is not an operation: "flashinfer" holds "flash", yet SGLang's FlashInfer norm,
// activation and sampling kernels are not attention; FlashInfer's attention kernels still are.
TEST(KernelCategory, FlashInferKernelsByTheirOperation) {
    EXPECT_EQ(classify_kernel("void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(T2 *, T2 *, T2 *, unsigned "
                              "int, unsigned int, unsigned int, float, float)"),
              KernelCategory::norm);
    EXPECT_EQ(
        classify_kernel("void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &silu<float>>(T1 *, const T1 *, int)"),
        KernelCategory::elementwise);
    EXPECT_EQ(
        classify_kernel("void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024u, (cub::BlockScanAlgorithm)1>(float *)"),
        KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void flashinfer::SinglePrefillWithKVCacheKernel<(flashinfer::MaskMode)1, KernelTraits>(Params)"),
              KernelCategory::attention);
    EXPECT_EQ(classify_kernel("void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u>(Params)"),
              KernelCategory::attention);
    EXPECT_EQ(classify_kernel("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>(Flash_fwd_params)"),
              KernelCategory::attention);
    // SGLang's Triton kernel that builds FlashInfer's KV index arrays (shipped sglang trace): index work.
    EXPECT_EQ(classify_kernel("create_flashinfer_kv_indices_triton"), KernelCategory::indexing);
}

TEST(KernelCategory, OneRuleSetWithTorchTraces) {
    // Every kernel of the nsys fixture gets the category a torch trace gives the same kernel name
    // (classify_kernel is the rule set of both; kineto::activity_category maps it onto its enum).
    const NsysKernSum s = parse_nsys_kern_sum(fixture("nsight/nsys_cuda_gpu_kern_sum_rtx5090_deepseekocr_decode.csv"), "n");
    ASSERT_FALSE(s.kernels.empty());
    for (const NsysKernel& k : s.kernels)
        EXPECT_EQ(std::string(category_name(k.category)),
                  std::string(kineto::category_name(kineto::activity_category(kineto::Activity::kernel, k.name))))
            << k.name;
    // Names the two rule sets once disagreed on: a cat kernel (nsys said memcpy), a softmax (nsys said
    // reduce), a MoE kernel and a cuDNN convolution (nsys said other), an NCCL kernel (nsys said nccl).
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::CatArrayBatchedCopy<OpaqueType<2>>(char *)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void moe::dev::finalize::finalizeKernelVecLoad<float>(int)"), KernelCategory::moe);
    EXPECT_EQ(classify_kernel("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
              KernelCategory::collective);
    EXPECT_STREQ(category_name(KernelCategory::collective), "collective");
}

TEST(KernelCategory, ShortNames) {
    EXPECT_EQ(short_kernel_name("std::enable_if<!T7, void>::type internal::gemvx::kernel<int, (bool)0>(T13)"), "gemvx::kernel");
    EXPECT_EQ(short_kernel_name("void at::native::<unnamed>::CatArrayBatchedCopy_vectorized<OpaqueType<2>>(char *, int)"),
              "native::CatArrayBatchedCopy_vectorized");
    EXPECT_EQ(short_kernel_name("void add_kernel<double>(const T1 *, const T1 *, T1 *)"), "add_kernel");
    EXPECT_EQ(short_kernel_name("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn"),
              "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn");
}

// ---- nsys ---------------------------------------------------------------------------------------

// Hand-made: names with commas and an embedded quote, as nsys quotes them.
constexpr const char* kSmallKernSum =
    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    "50.0,5000,10,500.0,500.0,400,600,10.0,\"void gemv_kernel<int, float>(T1)\"\n"
    "30.0,3000,3,1000.0,1000.0,900,1100,5.0,\"void at::native::vectorized_elementwise_kernel<(int)4, add>(int)\"\n"
    "15.0,1500,5,300.0,300.0,300,300,0.0,\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(Args)\"\n"
    "5.0,500,1,500.0,500.0,500,500,0.0,\"void cutlass_gemm \"\"quoted\"\", x\"\n";

TEST(NsysKernSum, SmallCsvRowsAndCategories) {
    const NsysKernSum s = parse_nsys_kern_sum(kSmallKernSum, "small.csv");
    EXPECT_EQ(s.format, "nsys stats cuda_gpu_kern_sum CSV");
    ASSERT_EQ(s.kernels.size(), 4u);
    EXPECT_EQ(s.kernels[0].name, "void gemv_kernel<int, float>(T1)");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 5.0);  // 5000 ns
    EXPECT_EQ(s.kernels[0].instances, 10u);
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 0.5);  // 500.0 ns
    EXPECT_DOUBLE_EQ(*s.kernels[0].min_us, 0.4);
    EXPECT_DOUBLE_EQ(*s.kernels[0].max_us, 0.6);
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_pct, 50.0);
    EXPECT_EQ(s.kernels[3].name, "void cutlass_gemm \"quoted\", x");
    EXPECT_EQ(s.kernels[3].category, KernelCategory::gemm);
    EXPECT_EQ(s.kernels[2].category, KernelCategory::collective);

    // by category: gemm 5000 + 500 ns = 5.5 us of 10000 ns = 55 %; elementwise 3 us, 30 %; collective 1.5 us, 15 %.
    const IngestReport r = nsys_report(s, "small.csv");
    const Section& cats = section(r, "by_category");
    ASSERT_EQ(cats.rows.size(), 3u);
    const std::size_t us = column(cats, "total_us"), share = column(cats, "share_pct"), n = column(cats, "kernels");
    EXPECT_EQ(std::get<std::string>(cats.rows[0][0]), "gemm");
    EXPECT_DOUBLE_EQ(real(cats.rows[0][us]), 5.5);
    EXPECT_DOUBLE_EQ(real(cats.rows[0][share]), 55.0);
    EXPECT_EQ(std::get<std::uint64_t>(cats.rows[0][n]), 2u);
    EXPECT_EQ(std::get<std::string>(cats.rows[1][0]), "elementwise");
    EXPECT_DOUBLE_EQ(real(cats.rows[1][share]), 30.0);
    EXPECT_EQ(std::get<std::string>(cats.rows[2][0]), "collective");
    EXPECT_DOUBLE_EQ(real(cats.rows[2][us]), 1.5);
    EXPECT_TRUE(r.records.empty());  // nsys gives no bytes: nothing to cost
}

TEST(NsysKernSum, OtherTimeUnitInHeader) {
    const NsysKernSum s =
        parse_nsys_kern_sum("Time (%),Total Time (us),Instances,Avg (us),Name\n100.0,\"1,250.5\",2,625.25,k\n", "us.csv");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 1250.5);  // already in us, thousands separator inside quotes
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 625.25);
    // The long spellings --timeunit accepts (nsec, usec, msec, sec); "nsec" was refused as an unknown unit.
    const NsysKernSum n =
        parse_nsys_kern_sum("Time (%),Total Time (nsec),Instances,Avg (msec),Name\n100.0,2500,2,0.00125,k\n", "n.csv");
    EXPECT_DOUBLE_EQ(n.kernels[0].total_us, 2.5);  // 2500 ns
    EXPECT_DOUBLE_EQ(*n.kernels[0].avg_us, 1.25);  // 0.00125 ms
}

TEST(NsysKernSum, RealCsvFixture) {
    // tests/data/nsight/nsys_cuda_gpu_kern_sum_rtx5090_deepseekocr_decode.csv: 46 kernel rows.
    const NsysKernSum s = parse_nsys_kern_sum(fixture("nsight/nsys_cuda_gpu_kern_sum_rtx5090_deepseekocr_decode.csv"), "f");
    ASSERT_EQ(s.kernels.size(), 46u);
    // Row 1: 34.4,61602133,16448,3745.3,3744.0,2080,5728,417.2,"std::enable_if<!T7, void>::type internal::gemvx::kernel<..."
    EXPECT_DOUBLE_EQ(*s.kernels[0].time_pct, 34.4);
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 61602.133);
    EXPECT_EQ(s.kernels[0].instances, 16448u);
    EXPECT_DOUBLE_EQ(*s.kernels[0].med_us, 3.744);
    EXPECT_DOUBLE_EQ(*s.kernels[0].stddev_us, 0.4172);
    EXPECT_EQ(s.kernels[0].category, KernelCategory::gemm);
    EXPECT_EQ(s.kernels[0].name.substr(0, 40), "std::enable_if<!T7, void>::type internal");
    // Row 9 (2.4 %, 4254167 ns, 768 instances): flash::flash_fwd_splitkv_kernel -> attention.
    EXPECT_EQ(s.kernels[8].instances, 768u);
    EXPECT_EQ(s.kernels[8].category, KernelCategory::attention);
    // Last row: 0.0,47649,64,...,cub::DeviceScanInitKernel -> reduce ("cub::").
    EXPECT_DOUBLE_EQ(s.kernels[45].total_us, 47.649);
    EXPECT_EQ(s.kernels[45].category, KernelCategory::reduce);
}

TEST(NsysKernSum, ConsoleTableInsideNsysProfileOutput) {
    // The cuda_gpu_kern_sum table of `nsys profile --stats=true` (tests/data/babelstream/...polaris...txt):
    //  25.0  58,234,880  100  582,348.8  582,333.0  581,341  583,741  505.9  void add_kernel<double>(const T1 *, const T1 *, T1
    //  *)
    const NsysKernSum s =
        parse_nsys_kern_sum(fixture("babelstream/babelstream_and_nsys_stats_a100sxm4_40gb_polaris_alcf.txt"), "p");
    EXPECT_EQ(s.format, "nsys stats cuda_gpu_kern_sum console table");
    ASSERT_EQ(s.kernels.size(), 6u);  // add, triad, mul, dot, copy, init (osrt/api/mem tables are skipped)
    EXPECT_EQ(s.kernels[0].name, "void add_kernel<double>(const T1 *, const T1 *, T1 *)");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 58234.880);
    EXPECT_EQ(s.kernels[0].instances, 100u);
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 582.3488);
    EXPECT_DOUBLE_EQ(*s.kernels[0].min_us, 581.341);
    EXPECT_DOUBLE_EQ(*s.kernels[0].max_us, 583.741);
    EXPECT_EQ(s.kernels[3].name, "void dot_kernel<double>(const T1 *, const T1 *, T1 *, int)");
    EXPECT_EQ(s.kernels[3].category, KernelCategory::reduce);
    EXPECT_EQ(s.kernels[4].category, KernelCategory::elementwise);  // copy_kernel ("copy", as in torch traces)
    EXPECT_EQ(s.kernels[5].category, KernelCategory::other);        // init_kernel
    // Elementwise (add, triad, mul, copy): 58,234,880 + 57,859,042 + 39,251,815 + 38,259,881 = 193,605,618 ns
    // of the sum 193,605,618 + 38,722,376 + 521,885 = 232,849,879 ns -> 83.1461... %.
    const IngestReport report = nsys_report(s, "p");
    const Section& cats = section(report, "by_category");
    EXPECT_EQ(std::get<std::string>(cats.rows[0][0]), "elementwise");
    EXPECT_DOUBLE_EQ(real(cats.rows[0][column(cats, "total_us")]), 193605.618);
    EXPECT_NEAR(real(cats.rows[0][column(cats, "share_pct")]), 100.0 * 193605618.0 / 232849879.0, 1e-9);
}

TEST(NsysKernSum, BadInput) {
    // No table at all (an nccl-tests line), a truncated CSV row, a truncated console row, a non-number.
    EXPECT_THROW(parse_nsys_kern_sum("#  size  count  type  redop  root  time  algbw  busbw\n", "n"), InputError);
    EXPECT_THROW(parse_nsys_kern_sum("Time (%),Total Time (ns),Instances,Name\n50.0,5000,10\n", "t"), InputError);
    EXPECT_THROW(parse_nsys_kern_sum("Time (%),Total Time (ns),Instances,Name\n50.0,5000,10,\"void k(int", "t"), InputError);
    EXPECT_THROW(parse_nsys_kern_sum(" Time (%)  Total Time (ns)  Instances  Name\n --------  ---------------  "
                                     "---------  ----\n     25.0       58,234,880\n",
                                     "t"),
                 InputError);
    EXPECT_THROW(parse_nsys_kern_sum("Time (%),Total Time (ns),Instances,Name\n50.0,abc,10,k\n", "t"), InputError);
    EXPECT_THROW(parse_nsys_kern_sum("Time (%),Total Time (ns),Instances,Name\n50.0,5000,0.5,k\n", "t"), InputError);
    EXPECT_THROW(parse_nsys_kern_sum("Time (%),Total Time (ns),Instances,Name\n", "t"), InputError);  // no rows
    EXPECT_THROW(parse_nsys_kern_sum("Time (%),Total Time (cycles),Instances,Name\n1,2,3,k\n", "t"), InputError);
    try {
        parse_nsys_kern_sum("Time (%),Total Time (ns),Instances,Name\n50.0,5000,10,k\n40.0,4000,-1,k2\n", "bad.csv");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.option(), "bad.csv");
        EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
    }
}

// ---- ncu ----------------------------------------------------------------------------------------

TEST(Ncu, UnitsAreSiDecimal) {
    EXPECT_EQ(*ncu_byte_scale("byte"), 1.0);
    EXPECT_EQ(*ncu_byte_scale("Kbyte"), 1e3);
    EXPECT_EQ(*ncu_byte_scale("Mbyte"), 1e6);
    EXPECT_EQ(*ncu_byte_scale("Gbyte"), 1e9);
    EXPECT_FALSE(ncu_byte_scale("KiB"));
    EXPECT_EQ(*ncu_time_scale_us("ns"), 1e-3);
    EXPECT_EQ(*ncu_time_scale_us("nsecond"), 1e-3);
    EXPECT_EQ(*ncu_time_scale_us("us"), 1.0);
    EXPECT_EQ(*ncu_time_scale_us("usecond"), 1.0);
    EXPECT_EQ(*ncu_time_scale_us("msecond"), 1e3);
    EXPECT_EQ(*ncu_time_scale_us("s"), 1e6);
    EXPECT_FALSE(ncu_time_scale_us("cycle"));
}

TEST(Ncu, LongLayoutFixture) {
    // tests/data/nsight/ncu_metrics_rtx5090_cublas_gemv_bf16_kernel0001.csv (one kernel, ID 0, CC 12.0):
    //   dram__bytes_read.sum Mbyte 2.33; dram__bytes_write.sum byte 0; gpu__time_duration.sum us 6.46;
    //   dram__throughput...pct 20.52; sm__throughput...pct 9.61.
    const NcuProfile p = parse_ncu_csv(fixture("nsight/ncu_metrics_rtx5090_cublas_gemv_bf16_kernel0001.csv"), "f");
    EXPECT_EQ(p.format, "ncu --csv --page details (one row per metric)");
    ASSERT_EQ(p.kernels.size(), 1u);
    const NcuKernel& k = p.kernels[0];
    EXPECT_EQ(k.id, "0");
    EXPECT_EQ(k.cc, "12.0");
    EXPECT_EQ(k.name.substr(0, 27), "enable_if<!T7, void>::type ");
    EXPECT_DOUBLE_EQ(*k.dram_read_bytes, 2330000.0);  // 2.33 x 10^6
    EXPECT_DOUBLE_EQ(*k.dram_write_bytes, 0.0);
    EXPECT_DOUBLE_EQ(*k.time_us, 6.46);
    EXPECT_DOUBLE_EQ(*k.dram_pct, 20.52);
    EXPECT_DOUBLE_EQ(*k.sm_pct, 9.61);
    EXPECT_TRUE(k.rounded_bytes);
    EXPECT_EQ(ncu_device_name(p), "");  // the long layout names no device: --gpu needed

    // Against a 1792 GB/s peak: 2,330,000 B / 6.46 us = 2,330,000 / 6460 GB/s = 360.681... GB/s,
    // 360.681 / 1792 = 20.127 %.
    GpuSpec g;
    g.id = "rtx5090";
    g.hbm_bw_GBps.value = 1792;
    const IngestReport r = ncu_report(p, "f", {&g});
    const Section& s = section(r, "kernels");
    ASSERT_EQ(s.rows.size(), 1u);
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "dram_bytes")]), 2330000u);
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_GBps")]), 2330000.0 / 6460.0, 1e-9);
    EXPECT_NEAR(real(s.rows[0][column(s, "pct_of_hbm_peak")]), 100.0 * 2330000.0 / 6460.0 / 1792.0, 1e-9);
    EXPECT_TRUE(r.records.empty());
}

// Wide (--page raw) layout: a units row under the header, one row per kernel, Kbyte and usecond units,
// thousands separators, an n/a duration.
constexpr const char* kRawCsv =
    "==PROF== Connected to process 1 (/app)\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
    "\"Grid Size\",\"Device\",\"CC\",\"device__attribute_display_name\",\"dram__bytes_read.sum\","
    "\"dram__bytes_write.sum\",\"gpu__time_duration.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"Kbyte\",\"byte\",\"usecond\"\n"
    "\"0\",\"1\",\"app\",\"h\",\"copy_kernel(float *, const float *)\",\"1\",\"7\",\"(256, 1, 1)\",\"(1024, 1, 1)\","
    "\"0\",\"9.0\",\"NVIDIA H100 80GB HBM3\",\"1,048.58\",\"1,048,576\",\"1.25\"\n"
    "\"1\",\"1\",\"app\",\"h\",\"other_kernel(int)\",\"1\",\"7\",\"(32, 1, 1)\",\"(1, 1, 1)\","
    "\"0\",\"9.0\",\"NVIDIA H100 80GB HBM3\",\"2.5\",\"0\",\"n/a\"\n";

TEST(Ncu, RawLayout) {
    const NcuProfile p = parse_ncu_csv(kRawCsv, "raw.csv");
    EXPECT_EQ(p.format, "ncu --csv --page raw (one row per kernel)");
    ASSERT_EQ(p.kernels.size(), 2u);
    EXPECT_EQ(ncu_device_name(p), "NVIDIA H100 80GB HBM3");
    // read 1,048.58 Kbyte = 1,048,580 B; write 1,048,576 B; 1.25 us.
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_read_bytes, 1048580.0);
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_write_bytes, 1048576.0);
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 1.25);
    EXPECT_FALSE(p.kernels[1].time_us);
    GpuSpec g;
    g.id = "h100-sxm";
    g.hbm_bw_GBps.value = 3350;
    const IngestReport r = ncu_report(p, "raw.csv", {&g});
    const Section& s = section(r, "kernels");
    // (1,048,580 + 1,048,576) B / 1.25 us = 2,097,156 / 1250 GB/s = 1677.7248 GB/s = 50.0813 % of 3350.
    EXPECT_NEAR(real(s.rows[0][column(s, "bw_GBps")]), 1677.7248, 1e-9);
    EXPECT_NEAR(real(s.rows[0][column(s, "pct_of_hbm_peak")]), 1677.7248 / 33.5, 1e-9);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(s.rows[1][column(s, "bw_GBps")]));
    ASSERT_EQ(r.warnings.size(), 1u);  // kernel 1 has no duration
}

TEST(Ncu, BadInput) {
    // An nccl-tests log, a header only, an unknown unit, a non-number, a truncated row.
    EXPECT_THROW(parse_ncu_csv("# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728\n", "n.log"), InputError);
    const std::string head = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
    EXPECT_THROW(parse_ncu_csv(head, "h"), InputError);
    EXPECT_THROW(parse_ncu_csv(head + "\"0\",\"k\",\"dram__bytes_read.sum\",\"KiB\",\"1\"\n", "u"), InputError);
    EXPECT_THROW(parse_ncu_csv(head + "\"0\",\"k\",\"gpu__time_duration.sum\",\"us\",\"fast\"\n", "v"), InputError);
    EXPECT_THROW(parse_ncu_csv(head + "\"0\",\"k\",\"gpu__time_duration.sum\"\n", "t"), InputError);
    EXPECT_THROW(parse_ncu_csv(head + "\"0\",\"k\",\"gpu__time_duration.sum\",\"us\",\"1.2", "t"), InputError);
    // Only metrics bwacct does not read: no bytes, no duration.
    EXPECT_THROW(parse_ncu_csv(head + "\"0\",\"k\",\"sm__cycles_elapsed.avg\",\"cycle\",\"100\"\n", "m"), InputError);
}

// A file with two runs' `nsys profile --stats=true` output (a README pasting both): the second kernel
// table was ignored silently; now the report warns, naming both tables' lines.
TEST(NsysKernSum, FurtherKernelTablesAreNamedNotIgnoredSilently) {
    const std::string text = std::string(kSmallKernSum) + "\n" + kSmallKernSum;
    const NsysKernSum s = parse_nsys_kern_sum(text, "two.csv");
    ASSERT_EQ(s.other_tables.size(), 1u);
    EXPECT_EQ(s.table_line, 1u);
    const IngestReport r = nsys_report(s, "two.csv");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("2 kernel summary tables"), std::string::npos) << r.warnings[0];
    EXPECT_NE(r.warnings[0].find(fmt::format("line {}", s.other_tables[0])), std::string::npos) << r.warnings[0];
    EXPECT_TRUE(nsys_report(parse_nsys_kern_sum(kSmallKernSum, "one.csv"), "one.csv").warnings.empty());
}

// `nsys stats --format table` draws the table with '|' and "+----+" borders (mystous/vllm_hybrid,
// profile/qwen7b_suffix_first.nsys_stats.md); a README pastes it as markdown ("|----|" under the header,
// Tyler-Hilbert/CUDA-LinearRegression). Both were refused ("'|' is not a non-negative number", "lacks a
// Total Time ... column"); their cells are now split at the bars.
TEST(NsysKernSum, PipeSeparatedTablesBoxAndMarkdown) {
    const std::string box =
        " ** CUDA API Summary (cuda_api_sum):\n\n"
        "+----------+-----------------+-----------+----------+------------------+\n"
        "| Time (%) | Total Time (ns) | Num Calls | Avg (ns) |       Name       |\n"
        "+----------+-----------------+-----------+----------+------------------+\n"
        "|     36.3 |      5261402681 |   1116364 |   4713.0 | cudaLaunchKernel |\n"
        "+----------+-----------------+-----------+----------+------------------+\n\n"
        " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n\n"
        "+----------+-----------------+-----------+----------+----------+----------+----------+-------------+--------------"
        "-------------------------------------------------------------------+\n"
        "| Time (%) | Total Time (ns) | Instances | Avg (ns) | Med (ns) | Min (ns) | Max (ns) | StdDev (ns) |                  "
        "                    Name                                         |\n"
        "+----------+-----------------+-----------+----------+----------+----------+----------+-------------+--------------"
        "-------------------------------------------------------------------+\n"
        "|     65.8 |     24038586640 |    333648 |  72047.7 |  77376.0 |     7808 |   117536 |     25273.9 | "
        "fmhaSm100fKernel_QkvBfloat16OBfloat16H128PagedKvCausalP16VarSeqQ128Kv128PersistentContext |\n"
        "|      2.7 |       979257472 |     12884 |  76005.7 |  63776.0 |    14976 |  1507741 |     47015.7 | "
        "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)            |\n"
        "```\n\n"
        "+----------+-----------------+-----------+----------+----------+----------+----------+-------------+----------+\n"
        "| Time (%) | Total Time (ns) | Instances | Avg (ns) | Med (ns) | Min (ns) | Max (ns) | StdDev (ns) |  Range   |\n"
        "+----------+-----------------+-----------+----------+----------+----------+----------+-------------+----------+\n"
        "|    100.0 |       448485486 |     12884 |  34809.5 |  33717.5 |    30609 |   108985 |      3532.7 | NCCL:x   |\n";
    const NsysKernSum b = parse_nsys_kern_sum(box, "box.md");
    EXPECT_NE(b.format.find("'|' separated"), std::string::npos) << b.format;
    ASSERT_EQ(b.kernels.size(), 2u);  // the API table (Num Calls) and the NVTX table (Range, no Name) are not kernels
    EXPECT_TRUE(b.other_tables.empty());
    EXPECT_EQ(b.kernels[0].name, "fmhaSm100fKernel_QkvBfloat16OBfloat16H128PagedKvCausalP16VarSeqQ128Kv128PersistentContext");
    EXPECT_DOUBLE_EQ(b.kernels[0].total_us, 24038586.640);  // 24,038,586,640 ns / 1000
    EXPECT_EQ(b.kernels[0].instances, 333648u);
    EXPECT_DOUBLE_EQ(*b.kernels[0].time_pct, 65.8);
    EXPECT_DOUBLE_EQ(*b.kernels[0].avg_us, 72.0477);  // 72,047.7 ns
    EXPECT_DOUBLE_EQ(*b.kernels[0].med_us, 77.376);
    EXPECT_DOUBLE_EQ(*b.kernels[0].min_us, 7.808);
    EXPECT_DOUBLE_EQ(*b.kernels[0].max_us, 117.536);
    EXPECT_EQ(b.kernels[1].name, "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<(unsigned long)4096>)");
    EXPECT_DOUBLE_EQ(b.kernels[1].total_us, 979257.472);
    EXPECT_DOUBLE_EQ(*b.kernels[1].max_us, 1507.741);

    // Markdown: thousands separators, two trailing blanks after the last bar, a name touching its bar, and a
    // '|' inside a kernel name in the last column joined back.
    const std::string md =
        "#### Table 2: CUDA 'cuda_gpu_kern_sum'  \n"
        "| Time (%) | Total Time (ns) | Instances | Avg (ns)   | Min (ns) | Max (ns) | Name                        |  \n"
        "|---------:|-----------------|-----------|------------|----------|----------|:----------------------------|  \n"
        "| 31.8     | 88,766           | 1         | 88,766.0   | 88,766   | 88,766   | calculatePartialSums(float *, int)|  \n"
        "| 7.2      | 20,128           | 4         | 5,032.0    | 4,000    | 6,128    | void k<bit_or>(a|b)          |  \n"
        "\n### cuBLAS  \n";
    const NsysKernSum m = parse_nsys_kern_sum(md, "readme.md");
    ASSERT_EQ(m.kernels.size(), 2u);
    EXPECT_EQ(m.kernels[0].name, "calculatePartialSums(float *, int)");
    EXPECT_DOUBLE_EQ(m.kernels[0].total_us, 88.766);  // 88,766 ns
    EXPECT_EQ(m.kernels[1].name, "void k<bit_or>(a|b)");
    EXPECT_DOUBLE_EQ(m.kernels[1].total_us, 20.128);
    EXPECT_EQ(m.kernels[1].instances, 4u);
    EXPECT_DOUBLE_EQ(*m.kernels[1].avg_us, 5.032);  // 20,128 ns / 4 = 5,032 ns
    EXPECT_FALSE(m.kernels[1].med_us.has_value());  // no Med column in this paste: n/a, not 0
    // A row short of cells (a paste cut mid-row) is an error naming its line.
    try {
        parse_nsys_kern_sum("| Time (%) | Total Time (ns) | Instances | Name |\n|---|---|---|---|\n| 50.0 | 5000 |\n", "cut.md");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("line 3: 2 cells where the header has 4"), std::string::npos) << e.what();
    }
}

// cuda_gpu_kern_gb_sum's console table has GridXYZ and BlockXYZ columns whose cells hold blanks
// ("   2   16    1"); read blank-separated, the last two numbers of each went into the kernel name
// ("1    128    1    1  kernel_kernel"). Rows are now cut at the dashed rule's extents. Layout of nsys's
// column format; values of a TileLang kernel's kern_gb_sum.
TEST(NsysKernSum, ConsoleColumnsHoldingBlanksAreCutAtTheRule) {
    const std::string text =
        " Time (%)  Total Time (ns)  Instances     Avg (ns)     Med (ns)   Min (ns)   Max (ns)  StdDev (ns)         GridXYZ   "
        "      BlockXYZ                 Name               \n"
        " --------  ---------------  ---------  -----------  -----------  ---------  ---------  -----------  --------------  "
        "---------------  ----------------------------------\n"
        "     41.5      131,076,074        111  1,180,865.5  1,186,086.0  1,156,773  1,204,869     13,566.5     2   16    1   "
        " 128    1    1  kernel_kernel                     \n"
        "      9.1       28,699,232        112    256,243.1    257,073.0     89,473    265,825     16,135.7   512    1    1   "
        " 128    1    1  chunk_fwd_kernel<64>(float *, int)\n";
    const NsysKernSum s = parse_nsys_kern_sum(text, "gb.txt");
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "kernel_kernel");
    EXPECT_DOUBLE_EQ(s.kernels[0].total_us, 131076.074);  // 131,076,074 ns
    EXPECT_EQ(s.kernels[0].instances, 111u);
    EXPECT_DOUBLE_EQ(*s.kernels[0].avg_us, 1180.8655);
    EXPECT_DOUBLE_EQ(*s.kernels[0].max_us, 1204.869);
    EXPECT_EQ(s.kernels[1].name, "chunk_fwd_kernel<64>(float *, int)");
    EXPECT_DOUBLE_EQ(s.kernels[1].total_us, 28699.232);
    EXPECT_DOUBLE_EQ(*s.kernels[1].min_us, 89.473);
}

// A file where nsys printed "SKIPPED: ... does not contain CUDA kernel data." for the kernel summary
// (a profile without kernels) was refused as "no kernel summary table found"; the message now quotes nsys.
// Likewise an "ncu --csv" log holding only ncu's errors (CodeGandee/llm-perf-opt outputs/.../ncu/raw.csv).
TEST(NsightBadInput, ToolMessagesAreQuotedWhenThereIsNoTable) {
    try {
        parse_nsys_kern_sum(
            "Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_kern_sum.py]...\n"
            "SKIPPED: r.sqlite does not contain CUDA kernel data.\n",
            "r.txt");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'SKIPPED: r.sqlite does not contain CUDA kernel data.'"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("expected `nsys stats"), std::string::npos) << e.what();
    }
    try {
        parse_ncu_csv(
            "==ERROR== Option '--section .*SpeedOfLight.*' did not match any section.\r\n"
            "==ERROR== Use --list-sections to see the list of available sections.\n",
            "raw.csv");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("('==ERROR== Option '--section .*SpeedOfLight.*' did not match any section.')"),
                  std::string::npos)
            << e.what();
    }
    try {
        parse_ncu_csv("==PROF== Connected to process 42\n==WARNING== No kernels were profiled.\n", "none.csv");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("No kernels were profiled"), std::string::npos) << e.what();
    }
}

// ncu writes numbers in the user's locale. A Spanish-locale export ("2.508.800" byte, as quoted verbatim
// in a project's test of its own ncu reader) was refused ("'2.508.800' is not a non-negative number"),
// and worse, a lone "4.750" byte was read as 4.75 bytes and "12,500" us as 12500 us. The file's values now
// decide its convention: "2.508.800" (a repeated dot) and "12,50" (a comma not followed by three digits)
// say decimal comma, so "4.750" is 4750.
TEST(Ncu, DecimalCommaLocaleIsReadByTheFilesOwnConvention) {
    const std::string head =
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
    const std::string row =
        "\"0\",\"19936\",\"k_integrate(int, int, const unsigned int *, int *, float *)\",\"Command line profiler metrics\",";
    const NcuProfile p = parse_ncu_csv(head + row + "\"dram__bytes_read.sum\",\"byte\",\"2.508.800\"\n" + row +
                                           "\"dram__bytes_write.sum\",\"byte\",\"4.750\"\n" + row +
                                           "\"gpu__time_duration.sum\",\"usecond\",\"12,50\"\n" + row +
                                           "\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"62,50\"\n" + row +
                                           "\"launch__grid_size\",\"\",\"288\"\n",
                                       "es.csv");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_read_bytes, 2508800.0);
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_write_bytes, 4750.0);
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 12.5);
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_pct, 62.5);
    EXPECT_NE(p.format.find("decimal comma"), std::string::npos) << p.format;
    // (2,508,800 + 4,750) B / 12.5 us = 2,513,550 / 12,500 = 201.084 GB/s.
    const IngestReport r = ncu_report(p, "es.csv", {});
    const Section& s = section(r, "kernels");
    EXPECT_DOUBLE_EQ(real(s.rows[0][column(s, "bw_GBps")]), 201.084);
    // The same values written with a decimal point stay as they were: "4.750" byte beside "62.50" % is 4.75.
    const NcuProfile us = parse_ncu_csv(head + row + "\"dram__bytes_read.sum\",\"Kbyte\",\"4.750\"\n" + row +
                                            "\"gpu__time_duration.sum\",\"usecond\",\"12.50\"\n",
                                        "us.csv");
    EXPECT_DOUBLE_EQ(*us.kernels[0].dram_read_bytes, 4750.0);  // 4.750 Kbyte
    EXPECT_DOUBLE_EQ(*us.kernels[0].time_us, 12.5);
    // Both conventions in one file: refused, not guessed.
    EXPECT_THROW(parse_ncu_csv(head + row + "\"dram__bytes_read.sum\",\"byte\",\"2.508.800\"\n" + row +
                                   "\"gpu__time_duration.sum\",\"usecond\",\"12.50\"\n",
                               "mixed.csv"),
                 InputError);
}

// `nsys stats --format csv` output pasted into a markdown code fence (LittleLittleCloud/dotLLM-Optimization,
// dotLLM-prefill-profiling.md) was refused: the closing "```" right under the last row was read as a
// one-field row ("line 4: 1 fields where the header has 9"). The fence now ends the table, in CSV and
// in the column format alike.
TEST(NsysKernSum, CodeFenceEndsATable) {
    const NsysKernSum c = parse_nsys_kern_sum(
        "```\nTime (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "50.1,99385786,32,3105805.8,3041179.0,2987340,3777790,216832.4,flash_attention_prefill_f16\n"
        "0.0,1632,1,1632.0,1632.0,1632,1632,0.0,convert_f16_to_f32\n```\n\nnext paragraph\n",
        "fence.md");
    ASSERT_EQ(c.kernels.size(), 2u);
    EXPECT_DOUBLE_EQ(c.kernels[0].total_us, 99385.786);  // 99,385,786 ns
    EXPECT_EQ(c.kernels[0].instances, 32u);
    EXPECT_EQ(c.kernels[1].name, "convert_f16_to_f32");
    EXPECT_DOUBLE_EQ(c.kernels[1].total_us, 1.632);
    const NsysKernSum t = parse_nsys_kern_sum(
        "```\n Time (%)  Total Time (ns)  Instances  Name\n --------  ---------------  ---------  ----\n"
        "    100.0             1600          1  add_func(float *, float *, float *, unsigned long)\n```\n",
        "fence2.md");
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(t.kernels[0].total_us, 1.6);
}

// `ncu --csv --print-summary per-kernel` (header as in a real export quoted in a project's README:
// "Process ID",...,"Invocations","Section Name","Metric Name","Metric Unit","Minimum","Maximum","Average")
// has no "ID" column and was refused ("no ncu CSV header"). Each row is now a kernel and launch shape,
// its values ncu's Average over the Invocations.
TEST(Ncu, PerKernelSummaryAveragesOverInvocations) {
    const std::string head =
        "==PROF== Disconnected from process 109199\n"
        "\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
        "\"Invocations\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Minimum\",\"Maximum\",\"Average\"\n";
    const auto row = [](const char* block, const char* grid, const char* n, const char* metric, const char* unit,
                        const char* avg) {
        return fmt::format(
            "\"109199\",\"bench\",\"127.0.0.1\",\"saxpyKernel(float, const float *, float *, unsigned long)\","
            "\"{}\",\"{}\",\"0\",\"11.0\",\"{}\",\"Command line profiler "
            "metrics\",\"{}\",\"{}\",\"1.00\",\"9,999,999.00\",\"{}\"\n",
            block, grid, n, metric, unit, avg);
    };
    const std::string text = head + row("(256, 1, 1)", "(4096, 1, 1)", "14", "dram__bytes_read.sum", "byte", "8,392,704.00") +
                             row("(256, 1, 1)", "(4096, 1, 1)", "14", "dram__bytes_write.sum", "byte", "4,196,352.00") +
                             row("(256, 1, 1)", "(4096, 1, 1)", "14", "gpu__time_duration.sum", "us", "12.80") +
                             row("(512, 1, 1)", "(2048, 1, 1)", "2", "dram__bytes_read.sum", "byte", "1,048,576.00") +
                             row("(512, 1, 1)", "(2048, 1, 1)", "2", "dram__bytes_write.sum", "byte", "524,288.00") +
                             row("(512, 1, 1)", "(2048, 1, 1)", "2", "gpu__time_duration.sum", "us", "2.00");
    const NcuProfile p = parse_ncu_csv(text, "summary.csv");
    EXPECT_NE(p.format.find("per-kernel"), std::string::npos) << p.format;
    ASSERT_EQ(p.kernels.size(), 2u);  // one kernel, two launch shapes
    EXPECT_EQ(p.kernels[0].invocations, 14u);
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_read_bytes, 8392704.0);  // the Average column, not Minimum/Maximum
    EXPECT_DOUBLE_EQ(*p.kernels[0].time_us, 12.8);
    EXPECT_EQ(p.kernels[1].invocations, 2u);
    EXPECT_EQ(p.kernels[1].cc, "11.0");
    const IngestReport r = ncu_report(p, "summary.csv", {});
    const Section& s = section(r, "kernels");
    // (8,392,704 + 4,196,352) B / 12.8 us = 12,589,056 / 12,800 = 983.52 GB/s;
    // (1,048,576 + 524,288) B / 2.0 us = 1,572,864 / 2,000 = 786.432 GB/s.
    EXPECT_DOUBLE_EQ(real(s.rows[0][column(s, "bw_GBps")]), 983.52);
    EXPECT_DOUBLE_EQ(real(s.rows[1][column(s, "bw_GBps")]), 786.432);
    EXPECT_EQ(std::get<std::uint64_t>(s.rows[0][column(s, "invocations")]), 14u);
    // Time in all = 12.8 us x 14 + 2.0 us x 2 = 179.2 + 4.0 = 183.2 us.
    ASSERT_FALSE(r.summary.lines.empty());
    EXPECT_NE(r.summary.lines[0].find("183.2 us in all"), std::string::npos) << r.summary.lines[0];
    // A page with one row per launch has no such column.
    const IngestReport one_per_launch =
        ncu_report(parse_ncu_csv(fixture("nsight/ncu_metrics_rtx5090_cublas_gemv_bf16_kernel0001.csv"), "f"), "f", {});
    EXPECT_THROW(column(section(one_per_launch, "kernels"), "invocations"), std::runtime_error);
}

// A kernel-table header on a line that is itself a code fence ends its own table: no records. Refused in one
// line (it read records.front() of an empty list: UBSan, found by CI's fuzz step).
TEST(NsysKernSum, AHeaderThatEndsItsOwnTableIsRefused) {
    const std::string text = "```Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n";
    try {
        (void)parse_nsys_kern_sum(text, "fence_header.md");
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("no table under it"), std::string::npos) << e.what();
    }
}

// A file in which no value decides the number convention (every comma-marked value has three digits after
// its one mark: "12,500" is 12500 with a decimal point, 12.5 with a decimal comma) is read with a decimal
// point, as before, and now says so in a warning naming such a value.
TEST(Ncu, AnUndecidedNumberConventionIsWarnedAbout) {
    const std::string text =
        "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"k\",\"dram__bytes_read.sum\",\"byte\",\"12,500\"\n"
        "\"0\",\"k\",\"gpu__time_duration.sum\",\"usecond\",\"5\"\n";
    const NcuProfile p = parse_ncu_csv(text, "undecided.csv");
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(*p.kernels[0].dram_read_bytes, 12500.0);
    ASSERT_EQ(p.warnings.size(), 1u);
    EXPECT_NE(p.warnings[0].find("'12,500'"), std::string::npos) << p.warnings[0];
    const IngestReport r = ncu_report(p, "undecided.csv", {});
    EXPECT_NE(std::find(r.warnings.begin(), r.warnings.end(), p.warnings[0]), r.warnings.end());
    // A value that decides ("2,508,800": two commas, so groups) leaves no doubt and no warning.
    const NcuProfile q = parse_ncu_csv(text + "\"0\",\"k\",\"dram__bytes_write.sum\",\"byte\",\"2,508,800\"\n", "decided.csv");
    EXPECT_TRUE(q.warnings.empty());
}

// A summary row that ends before a column of its kernel key (here Device, column 5 of a 5-field row) is
// too short: one line naming the file, never a read past the row's end.
TEST(Ncu, ASummaryRowEndingBeforeItsKeyColumnsIsRefused) {
    const std::string text =
        "\"Kernel Name\",\"Invocations\",\"Metric Name\",\"Metric Unit\",\"Average\",\"Device\"\n"
        "\"k\",\"1\",\"gpu__time_duration.sum\",\"usecond\",\"5.0\"\n";
    try {
        (void)parse_ncu_csv(text, "short.csv");
        FAIL() << "no throw";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("too few"), std::string::npos) << e.what();
    }
}

// ncu --devices all on a machine with two GPU models: every kernel was rated against the first device's
// GPU without a word. The report now warns, naming the devices.
TEST(Ncu, KernelsOnDifferentGpuModelsAreWarnedAbout) {
    const std::string head = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
    const std::string text = head + "\"0\",\"k\",\"device__attribute_display_name\",\"\",\"NVIDIA H100 80GB HBM3\"\n" +
                             "\"0\",\"k\",\"gpu__time_duration.sum\",\"us\",\"10\"\n" +
                             "\"1\",\"k\",\"device__attribute_display_name\",\"\",\"NVIDIA A100-SXM4-80GB\"\n" +
                             "\"1\",\"k\",\"gpu__time_duration.sum\",\"us\",\"20\"\n";
    const IngestReport r = ncu_report(parse_ncu_csv(text, "two.csv"), "two.csv", {});
    bool named = false;
    for (const std::string& w : r.warnings)
        named = named || (w.find("2 different GPUs (NVIDIA H100 80GB HBM3, NVIDIA A100-SXM4-80GB)") != std::string::npos);
    EXPECT_TRUE(named);
    const IngestReport one =
        ncu_report(parse_ncu_csv(head + "\"0\",\"k\",\"device__attribute_display_name\",\"\",\"NVIDIA H100 80GB HBM3\"\n" +
                                     "\"0\",\"k\",\"gpu__time_duration.sum\",\"us\",\"10\"\n",
                                 "one.csv"),
                   "one.csv", {});
    for (const std::string& w : one.warnings)
        EXPECT_EQ(w.find("different GPUs"), std::string::npos) << w;
}

// Real console tables that reach bwacct with their layout disturbed. (1) nsys 2022.4.2 `nsys stats --timeunit ms`
// output kept as comments in a job script (every line led by "#  "; gpukernsum with GridXYZ/BlockXYZ and
// times in ms): the '#' was read as the first cell ("'#' is not a non-negative number"). (2) A terminal
// copy with a tab before the Name column: the header's "Name" fell outside the rule's extent ("lacks a ...
// Name column"). The comment marker is blanked and tabs expanded (stops of 8) on header, rule and rows.
TEST(NsysKernSum, CommentMarkerAndTabsInAConsoleCopy) {
    const std::string commented =
        "#  Time (%)  Total Time (ms)  Instances  Avg (ms)  Med (ms)  Min (ms)  Max (ms)  StdDev (ms)      GridXYZ          "
        "BlockXYZ                                                     Name                                                \n"
        "#  --------  ---------------  ---------  --------  --------  --------  --------  -----------  ----------------  "
        "--------------  ----------------------------------------------------------------------------------------------------\n"
        "#      84.2           0.2009          1    0.2009    0.2009    0.2009    0.2009       0.0000  125000    1    1    32    "
        "1    1  cudapy::__main__::reduce_kernel[abi:v1,cw51cXTLSUwv1sCUt9Uw11Ew0NRRQPKzLTg4gaGKFsG2oMQGEYakJSQB1PQB\xe2\x80\xa6"
        "\n"
        "#       4.9           0.0117          1    0.0117    0.0117    0.0117    0.0117       0.0000  3907    1    1      32    "
        "1    1  cudapy::__main__::reduce_kernel[abi:v1,cw51cXTLSUwv1sCUt9Uw11Ew0NRRQPKzLTg4gaGKFsG2oMQGEYakJSQB1PQB\xe2\x80\xa6"
        "\n"
        "#       2.4           0.0056          2    0.0028    0.0028    0.0028    0.0028       0.0000     1    1    1    1024    "
        "1    1  cudapy::numba::cuda::cudadrv::devicearray::_assign_kernel::_3clocals_3e::kernel[abi:v2,cw51cXTLSUwv\xe2\x80\xa6"
        "\n";
    const NsysKernSum c = parse_nsys_kern_sum(commented, "job.sh");
    ASSERT_EQ(c.kernels.size(), 3u);
    EXPECT_DOUBLE_EQ(c.kernels[0].total_us, 200.9);  // 0.2009 ms
    EXPECT_EQ(c.kernels[0].instances, 1u);
    EXPECT_EQ(c.kernels[0].name.rfind("cudapy::__main__::reduce_kernel[abi:v1,", 0), 0u) << c.kernels[0].name;
    EXPECT_DOUBLE_EQ(c.kernels[1].total_us, 11.7);  // 0.0117 ms; GridXYZ "3907    1    1" is not read as numbers
    EXPECT_EQ(c.kernels[2].instances, 2u);
    EXPECT_DOUBLE_EQ(*c.kernels[2].avg_us, 2.8);  // 0.0028 ms
    EXPECT_EQ(c.kernels[2].name.rfind("cudapy::numba::cuda::cudadrv::devicearray::_assign_kernel", 0), 0u) << c.kernels[2].name;

    const NsysKernSum t = parse_nsys_kern_sum(
        "// cuMalloc \n"
        "Time (%)  Total Time (ms)  Instances  Avg (ms)  Med (ms)  Min (ms)  Max (ms)\tName\n"
        "--------  ---------------  ---------  --------  --------  --------  --------  -----------------------------------\n"
        "   100.0           0.0242          1    0.0242    0.0242    0.0242    0.0242\tadd(float *, float *, float *, int)\n"
        "    \n",
        "tabs.md");
    ASSERT_EQ(t.kernels.size(), 1u);
    EXPECT_EQ(t.kernels[0].name, "add(float *, float *, float *, int)");
    EXPECT_DOUBLE_EQ(t.kernels[0].total_us, 24.2);  // 0.0242 ms
    EXPECT_DOUBLE_EQ(*t.kernels[0].max_us, 24.2);
}

// F7: ns -> us as a bare product printed binary noise into JSON (72,047.7 ns -> 72.04769999999999,
// 1,791 ns -> 1.7910000000000001); times are now rounded to 10^-6 us, far below the 1 ns nsys prints.
TEST(NsysKernSum, MicrosecondsWithoutBinaryNoise) {
    const NsysKernSum s = parse_nsys_kern_sum(
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "100.0,1831281,1010,72047.7,1823.0,1791,4705,584151.4,vectorAdd\n",
        "noise.csv");
    EXPECT_EQ(fmt::format("{}", *s.kernels[0].avg_us), "72.0477");
    EXPECT_EQ(fmt::format("{}", *s.kernels[0].min_us), "1.791");
    EXPECT_EQ(fmt::format("{}", *s.kernels[0].stddev_us), "584.1514");
    EXPECT_EQ(fmt::format("{}", s.kernels[0].total_us), "1831.281");
    const NcuProfile p = parse_ncu_csv(
        "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"k\",\"gpu__time_duration.sum\",\"nsecond\",\"6,460.16\"\n",
        "ns.csv");
    EXPECT_EQ(fmt::format("{}", *p.kernels[0].time_us), "6.46016");
}

}  // namespace
