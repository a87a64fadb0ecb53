// Kernel families that real traces hold and the name rules once left in `other` (src/ingest/kernel_category.cpp):
// each name is a kernel name as PyTorch, cuDNN, MIOpen, Liger, DeepEP, vLLM, SGLang or FlashInfer write it.
#include <gtest/gtest.h>

#include "bwacct/ingest_kineto.h"
#include "bwacct/kernel_category.h"

using namespace bwacct;

namespace {
std::string torch_category(const char* kernel, const char* op = "") {
    return std::string(kineto::category_name(kineto::activity_category(kineto::Activity::kernel, kernel, op)));
}
}  // namespace

// The two kernels of the shipped SGLang trace (kineto_mi300x_sglang_qwen3_8b_prefilldecode) that sat in
// `other`: SGLang's bookkeeping of the next step's token ids and positions is index work.
TEST(KernelCategoryFamilies, ServingBookkeepingIsIndexing) {
    EXPECT_EQ(
        classify_kernel("void (anonymous namespace)::resolve_future_token_ids_kernel<long>(long*, long const*, unsigned long)"),
        KernelCategory::indexing);
    EXPECT_EQ(torch_category("compute_position_kernel", "sglang_profiler::forward_batch_info_compute_position_triton_340"),
              "indexing");
    EXPECT_EQ(classify_kernel("get_last_loc_kernel"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("_compute_slot_mapping_kernel"), KernelCategory::indexing);
    // A rotary kernel that names its positions stays pointwise.
    EXPECT_EQ(classify_kernel("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const* positions, int)"),
              KernelCategory::elementwise);
}

TEST(KernelCategoryFamilies, CommunicationLibraries) {
    EXPECT_EQ(classify_kernel("void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*)"),
              KernelCategory::collective);
    EXPECT_EQ(classify_kernel("void nvshmemi_transfer_rma_nbi<(threadgroup_t)2>(void*, void*, unsigned long, int)"),
              KernelCategory::collective);
    EXPECT_EQ(classify_kernel("mscclpp::allreduce6<__nv_bfloat16>"), KernelCategory::collective);
    // DeepEP as DeepSeek's own profile-data traces name it (train.json, decode.json): by its namespaces
    EXPECT_EQ(classify_kernel("void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*)"),
              KernelCategory::collective);
    EXPECT_EQ(classify_kernel("void dpsk::ep::internode::combine_ll<3, 10, 7168>(void*)"), KernelCategory::collective);
}

// MIOpen and ASM convolutions name "Conv" as a camel-case word; "convert" stays a cast.
TEST(KernelCategoryFamilies, ConvolutionsNamedConvAsAWord) {
    EXPECT_EQ(classify_kernel("miopenSp3AsmConv_v30_3_1_gfx9_fp32_f2x3_stride1"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("MIOpenConvUni"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::deconv_kernel<float>(int)"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void convert_fp8_kernel<__nv_bfloat16>(int)"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("ConvertKernel"), KernelCategory::elementwise);
}

TEST(KernelCategoryFamilies, GemmsWithoutTheWordGemm) {
    // vLLM's ROCm skinny GEMM (split-K) and Mamba-2's chunked bmm (Triton).
    EXPECT_EQ(classify_kernel("void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, int)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("_bmm_chunk_fwd_kernel"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("bmm_MxE4m3_MxE2m1_Bfloat16_t128x8x256"), KernelCategory::gemm);
    // "bmm" only as a word: a name that merely holds the letters is not a GEMM.
    EXPECT_EQ(classify_kernel("void submmap_copy_kernel(int)"), KernelCategory::elementwise);
}

TEST(KernelCategoryFamilies, NormStatisticsAndAffineGradients) {
    EXPECT_EQ(classify_kernel(
                  "void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, float const*, "
                  "float*, float*)"),
              KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long)"),
              KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void cuComputePartGradGammaBeta<float, float, float>(float const*, float const*, int, int)"),
              KernelCategory::norm);
}

TEST(KernelCategoryFamilies, LossesSamplingAndSuppressionAreReductions) {
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::cunn_ClassNLLCriterion_updateOutput_kernel<float, float, "
                              "long>(float*, float*, float*, long*, float*, int, int, int, int, long)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::ctc_loss_log_alpha_gpu_kernel<float, long>(float*, int)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void flashinfer::sampling::MinPSamplingFromProbKernel<1024u, (cub::BlockScanAlgorithm)0>(float*)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void tree_speculative_sampling_target_only<float, long>(long*, int)"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void vision::ops::(anonymous namespace)::nms_kernel_impl<float>(int, double, float const*)"),
              KernelCategory::reduce);
    // "sampling" as a word: an upsampling kernel keeps its indexing category.
    EXPECT_EQ(classify_kernel("upsampling_bilinear_kernel"), KernelCategory::indexing);
}

TEST(KernelCategoryFamilies, SamplersSegmentsAndLayoutsAreIndexing) {
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::grid_sampler_2d_kernel<float, int>(int, int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void vision::ops::(anonymous namespace)::roi_align_forward_kernel_impl<float>(int, float const*)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::krn_partials_per_segment<long>(long*, long const*, long)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void cudnn::engines_precompiled::nhwcToNchwKernel<float, float, float, true, false, "
                              "(cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nhwc2nchw_params_t<float>)"),
              KernelCategory::indexing);
    // In a torch trace the convolution that launched it still decides (the op's family comes first).
    EXPECT_EQ(torch_category("void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(int)",
                             "aten::cudnn_convolution"),
              "conv");
}

TEST(KernelCategoryFamilies, PointwiseFamilies) {
    EXPECT_EQ(classify_kernel("_swiglu_forward_kernel"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("_geglu_tanh_forward_kernel"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void elemWiseRNNcell<float, float, float, (cudnnRNNMode_t)2, (cudnnRNNBiasMode_t)2>(int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::triu_tril_kernel<float, int, true, 4, false>(int)"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void vllm::apply_repetition_penalties_kernel<c10::BFloat16>(int)"), KernelCategory::elementwise);
    EXPECT_EQ(
        classify_kernel("void at::native::(anonymous namespace)::randperm_handle_duplicate_keys_kernel<int, unsigned int>(int)"),
        KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::_assert_async_cuda_kernel<bool>(bool const*, c10::cuda::CUDAKernelAssert*)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("Op2dTensorGeneric"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("SubTensorOpWithScalar1d"), KernelCategory::elementwise);
}

TEST(KernelCategoryFamilies, GradScalerIsOptimizerWork) {
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::amp_update_scale_cuda_kernel(float*, int*, float const*, "
                              "double, double, int)"),
              KernelCategory::optimizer);
}

// Fast Fourier transforms are their own category: cuFFT's kernels as nsys and Kineto print them (a
// radar pipeline's "void vector_fft" and "void regular_fft_factor", a spectral solver's
// "regular_fft<192u, EPT<12u, 16u>, …>"), rocFFT's runtime-compiled kernels and real-to-complex passes,
// and the aten ops, while words that merely hold "fft" letters elsewhere do not count.
TEST(KernelCategoryFamilies, FastFourierTransforms) {
    EXPECT_EQ(classify_kernel("void vector_fft"), KernelCategory::fft);
    EXPECT_EQ(classify_kernel("void regular_fft_factor<...>  (cuFFT)"), KernelCategory::fft);
    EXPECT_EQ(classify_kernel("void regular_fft<192u, EPT<12u, 16u>, 16u, 2u, (padding_t)6, (twiddle_t)0, "
                              "(loadstore_modifier_t)2, (layout_t)1, unsigned int, double, "
                              "HostConfigPlaceholder>(kernel_arguments_t<unsigned int>)"),
              KernelCategory::fft);
    EXPECT_EQ(classify_kernel("fft_rtc_fwd_len64_factors_8_8_wgs_64_tpt_8_dim3_dp_ip_CI_unitstride_sbrr"), KernelCategory::fft);
    EXPECT_EQ(classify_kernel("fft_rtc_back_len128_factors_16_8_wgs_256_tpt_16_halfLds_sp_ip_CI_unitstride_sbrr_C2R_dirReg"),
              KernelCategory::fft);
    EXPECT_EQ(classify_kernel("r2c_even_post_kernel<float2, true>"), KernelCategory::fft);
    EXPECT_EQ(classify_kernel("void postprocessC2C_kernelMem<unsigned int, float>(float2*, float2 const*)"), KernelCategory::fft);
    EXPECT_EQ(classify_kernel("aten::_fft_r2c"), KernelCategory::fft);
    EXPECT_EQ(classify_kernel("aten::fft_irfft"), KernelCategory::fft);
    EXPECT_EQ(classify_kernel("aten::stft"), KernelCategory::fft);
    EXPECT_STREQ(category_name(KernelCategory::fft), "fft");
    // A cuFFT helper kernel with no FFT word in its name takes the category of the op that launched it.
    EXPECT_EQ(torch_category("void composite_2way_kernel<float2>(kernel_arguments_t<unsigned int>)", "aten::_fft_c2c"), "fft");
    // cuDNN's FFT convolution kernels launched by a convolution stay convolution work.
    EXPECT_EQ(
        torch_category("void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int)", "aten::cudnn_convolution"),
        "conv");
    // Letters "fft" inside a word are not the word: an "offt" offset, "shifft" and the like.
    EXPECT_EQ(classify_kernel("void scatter_kernel_with_offt_table(int*)"), KernelCategory::indexing);
}

// Kernel families of PyTorch, cuDNN, cuBLAS, cuSPARSE and FlashInfer that sat in `other` when no op was
// linked (queued before the profiler, a CUDA-graph replay): each by what the family does.
TEST(KernelCategoryFamilies, LibraryFamiliesOnceLeftInOther) {
    // torch.multinomial (aten/src/ATen/native/cuda/MultinomialKernel.cu): sampling, a scan over the vocabulary
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::sampleMultinomialOnce<float, float>(long*, long, int, "
                              "float const*, float const*, int, int, int, int)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::multinomialWithReplacement<float, float>"),
              KernelCategory::reduce);
    // group norm's statistics folded into scale and bias (aten/src/ATen/native/cuda/group_norm_kernel.cu)
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::ComputeFusedParamsCUDAKernel<float>(long, long, long, "
                              "float const*, float const*, float const*, float const*, float*, float*)"),
              KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::Compute1dBackwardFusedParamsCUDAKernel<float>"),
              KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::ComputeInternalGradientsCUDAKernel<float>"),
              KernelCategory::norm);
    // slow_conv3d's column transforms (vol2col.cuh), like im2col / col2im
    EXPECT_EQ(classify_kernel("void at::native::vol2col_kernel<float>(long, float const*, int, int, int, int, int)"),
              KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void at::native::col2vol_kernel<float, float>(long, float const*, unsigned int)"),
              KernelCategory::conv);
    // cuDNN's implicit-GEMM offset tables
    EXPECT_EQ(classify_kernel("void cask_cudnn::computeOffsetsKernel<false, false>(cask_cudnn::ComputeOffsetsParams)"),
              KernelCategory::conv);
    // embedding backward's segmented sums (EmbeddingBackwardKernel.cu)
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::compute_grad_weight<float, long>(long const*, "
                              "float const*, long const*, long, long, long const*, long const*, float*, long)"),
              KernelCategory::indexing);
    // cuBLAS level 1: reductions and vector updates
    EXPECT_EQ(classify_kernel("void nrm2_kernel<float, float, float, 0, 0, 128, 0>(cublasNrm2Params<float, float>)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void asum_kernel<float, float, 0>(cublasAsumParams<float, float>)"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensor<float const>, "
                              "cublasGemvTensorStridedBatched<float> > >(cublasDotParams<cublasGemvTensor<float const>, "
                              "cublasGemvTensorStridedBatched<float> >)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void scal_kernel<float, float, 1, true, 6, 5, 5, 3>(cublasTransposeParams<float>, float "
                              "const*, float*, float const*)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void axpy_kernel_val<float, float>(cublasAxpyParamsVal<float, float, float>)"),
              KernelCategory::elementwise);
    // sparse matrix products
    EXPECT_EQ(
        classify_kernel("void cusparse::csrmv_v3_kernel<std::integral_constant<bool, false>, int, int, float, float, float, "
                        "float, void>(cusparse::KernelCoeffs<float>, int const*, int const*, float const*, float const*, "
                        "int, int, int, float const*, float*, int*, float*)"),
        KernelCategory::gemm);
    // FlashInfer's cascade attention merges (cascade.cuh)
    EXPECT_EQ(classify_kernel("void flashinfer::MergeStatesKernel<8u, 16u, 8u, 4u, __nv_bfloat16, __nv_bfloat16>(__nv_bfloat16*, "
                              "float*, __nv_bfloat16*, float*, unsigned int, unsigned int, unsigned int)"),
              KernelCategory::attention);
    // PyTorch's fused RNN cells (aten/src/ATen/native/cuda/RNN.cu)
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::lstm_cell_forward<float, float, int, 1>(at::cuda::"
                              "detail::TensorInfo<float, int>, int, int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::gru_cell_backward<float, float, int, 1>"),
              KernelCategory::elementwise);
    // torch.multinomial's row renormalization is sampling work, not a norm layer (MultinomialKernel.cu)
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::renormRowsL1<float>(float*, long, long)"),
              KernelCategory::reduce);
    // adaptive pooling backward (AdaptiveAveragePooling.cu, AdaptiveMaxPooling2d.cu): pooling, filed with indexing
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::atomic_adaptive_average_gradinput<float>(float*, float "
                              "const*, int, int, int, int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::adaptive_maxgradinput<float>(float*, float const*, long "
                              "const*, int, int, int, int)"),
              KernelCategory::indexing);
    // vLLM's ROCm skinny GEMM in its older spelling
    EXPECT_EQ(classify_kernel("void wvSpltK_hf_sml_<__half, 64, 2, 16, 8, 2, 1>(int, int, __half const*, __half const*, __half*, "
                              "int, int)"),
              KernelCategory::gemm);
    // arange / linspace write each element from its index (RangeFactories.cu): a pointwise fill, not a gather
    EXPECT_EQ(classify_kernel("void at::native::elementwise_kernel_with_index<int, at::native::arange_cuda_out(c10::Scalar "
                              "const&, c10::Scalar const&, c10::Scalar const&, at::Tensor&)::{lambda()#1}::operator()() "
                              "const::{lambda()#4}::operator()() const::{lambda(long)#1}>(int, long*, long)"),
              KernelCategory::elementwise);
    // The words need their word start: "scale_kernel" is no cuBLAS scal, "bscal_kernel" neither.
    EXPECT_EQ(classify_kernel("void myscal_kernel(float*)"), KernelCategory::other);
}

// TorchInductor's prefix says what kind of kernel it generated; the aten ops in the rest of the name are the
// ops fused into it (names from Inductor output code and an nsys summary of a compiled attention benchmark).
TEST(KernelCategoryFamilies, InductorPrefixDecidesTheKind) {
    // pointwise kernels named after the convolution, bmm or SDPA they feed or follow
    EXPECT_EQ(classify_kernel("triton_poi_fused_convolution_relu_3"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("triton_poi_fused_bmm_expand_transpose_0"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("triton_poi_fused__scaled_dot_product_efficient_attention_1"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("triton_poi_fused_convolution_backward_div_hardtanh_backward_native_batch_norm_backward_4"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("triton_poi_fused_exp_mul_sub_unsqueeze_2"), KernelCategory::elementwise);
    // a pointwise gather or concatenation keeps its finer category
    EXPECT_EQ(classify_kernel("triton_poi_fused_cat_2"), KernelCategory::indexing);
    // reductions, a norm's reduction
    EXPECT_EQ(classify_kernel("triton_red_fused_mul_sum_1"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("triton_per_fused_mul_sum_1"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("triton_red_fused_bmm_3"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("triton_per_fused_native_layer_norm_0"), KernelCategory::norm);
    // templates: GEMM unless a convolution
    EXPECT_EQ(classify_kernel("triton_tem_fused_mm_0"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("triton_tem_fused_convolution_1"), KernelCategory::conv);
    // a torch trace files the kernel under its own op (PyTorch records the launch as an op of the same name)
    EXPECT_EQ(torch_category("triton_poi_fused_convolution_relu_3", "triton_poi_fused_convolution_relu_3"), "elementwise");
}

// cuDNN's FFT convolutions are convolution work, by their cuDNN argument types or their tile names (HTA's
// AlexNet trace: "void fft2d_r2c_32x32<float, false, 0u, false>(…, cudnn::reduced_divisor, …)"; a TensorFlow
// profile's "void fft2d_r2c_16x16"); cuFFT's kernels stay FFTs.
TEST(KernelCategoryFamilies, CudnnFftConvolutionsAreConvolutions) {
    EXPECT_EQ(classify_kernel("void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, int, int, int, "
                              "int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)"),
              KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void fft2d_c2r_32x32<float, false, false, 0u, false, false>(float*, float2 const*, int, int, "
                              "int, int, int, int, int, int, int, float, float, cudnn::reduced_divisor, bool, float*, float*, "
                              "int2, int, int)"),
              KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void fft2d_r2c_16x16"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void fft2d_c2r_16x16"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void regular_fft<192u, EPT<12u, 16u>, 16u, 2u>(kernel_arguments_t<unsigned int>)"),
              KernelCategory::fft);
    EXPECT_EQ(classify_kernel("void vector_fft_c2r<64u>(kernel_arguments_t<unsigned int>)"), KernelCategory::fft);
}

// cuDNN's kernels by their structure: the CASK offsets kernels of its implicit-GEMM convolutions (a cuDNN
// namespace, not the one name), its convolution SASS kernels (precision letters glued to "cudnn"), its
// scaling, layout-transform and persistent-RNN kernels (names from TensorFlow and PyTorch profiles).
TEST(KernelCategoryFamilies, CudnnKernelsByStructure) {
    EXPECT_EQ(classify_kernel("cask_cudnn::computeWgradBOffsetsKernel(cask_cudnn::ComputeWgradBOffsetsParams)"),
              KernelCategory::conv);
    EXPECT_EQ(classify_kernel("cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("volta_scudnn_128x64_relu_interior_nn_v1"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("trt_maxwell_scudnn_128x64_relu_interior_nn_v1"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("maxwell_scudnn_128x128_stridedB_interior_nn"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("cudnn_infer_ampere_scudnn_128x64_relu_xregs_large_nn_v1"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("void cudnn::ops::scalePackedTensor_kernel<float, float>(cudnnTensor4dStruct, float*, float)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void RNN_blockPersist_fp_LSTM<float, float, float, 128>(int)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void tensorTransformGeneric<float, float, float, true, false, false, (cudnnKernelDataType_t)0>("
                              "cudnnTensorTransformStruct, float const*, float*, float, float, float, float, float*, float "
                              "const*, bool)"),
              KernelCategory::indexing);
    // cuDNN's complex GEMMs are its FFT convolutions' products (a TensorFlow profile's kernel list beside
    // fft2d_r2c_16x16); a complex GEMM outside cuDNN (cuBLAS's) stays a GEMM
    EXPECT_EQ(classify_kernel("cudnn_maxwell_gcgemm_64x32_tn_batched"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("cudnn_maxwell_cgemm_64x64_tn_batched"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("volta_cgemm_32x32_tn"), KernelCategory::gemm);
}

// Sorts are words: "tensorTransform" holds the letters "sort" (ten-sor-Transform); sort kernels still sort.
TEST(KernelCategoryFamilies, SortAsAWord) {
    EXPECT_EQ(classify_kernel("void at::native::bitonicSortKVInPlace<2, -1, 16, 16, float, long>(int)"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void at_cuda_detail::cub::DeviceRadixSortOnesweepKernel<int>"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::sort_postprocess_kernel<long>(long const*, long*)"),
              KernelCategory::reduce);
    // a torch trace's kernel names keep their case, so camel-case words count there too
    EXPECT_EQ(torch_category("void at::native::bitonicSortKVInPlace<2, -1, 16, 16, float, long>(int)", "aten::sort"), "reduce");
}

// Serving engines' kernels once left in `other` or filed by a word of the phase they serve (vLLM, SGLang,
// FlashInfer, TensorRT-LLM, FLA / Mamba), and quantized-weight GEMMs.
TEST(KernelCategoryFamilies, ServingStepsSamplingAndQuantizedGemms) {
    // preparing the next step's inputs names "prefill" / "decode" but is index work
    EXPECT_EQ(classify_kernel("_prepare_prefill_inputs_kernel"), KernelCategory::indexing);
    // (autograd's _NoopSaveInputs prepares nothing: not filed by its "Inputs")
    EXPECT_EQ(classify_kernel("_NoopSaveInputs"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("void vllm::advance_step_flashattn_kernel<256, 4>(int, int, int, long*)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("create_extend_after_decode_spec_info"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("compute_seg_indptr_triton_kernel"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void flashinfer::AppendPagedKVCacheKernel<128u, 8u, __nv_bfloat16, int>(int)"),
              KernelCategory::indexing);
    // a top-k over each row of logits, whatever phase
    EXPECT_EQ(classify_kernel("top_k_per_row_decode"), KernelCategory::reduce);
    // token sampling and log-probabilities
    EXPECT_EQ(classify_kernel("_gumbel_sample_kernel"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("_compute_logprobs"), KernelCategory::softmax);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::upsample_bilinear2d_out_frame<float, float>(int)"),
              KernelCategory::indexing);
    // linear attention and state-space scans
    EXPECT_EQ(classify_kernel("chunk_gated_delta_rule_fwd_kernel_h_blockdim64"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("selective_scan_fwd_kernel<Selective_Scan_fwd_kernel_traits<32, 16, 1>>"),
              KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_chunk_state_fwd_kernel"), KernelCategory::attention);
    // quantized-weight GEMMs and their weight repacking
    EXPECT_EQ(classify_kernel("void marlin::Marlin<__nv_bfloat16, 4, 256, 1, 8, 8, true, true, 8, 0>(int4 const*)"),
              KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void gptq_marlin_repack_kernel<256, 4, false>(unsigned int const*)"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void mul_mat_q2_K"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void vllm::aqlm::Code1x16MatVec(int4 const*, int4*, int4 const*, int4 const*, int, int)"),
              KernelCategory::gemm);
    // DeepGEMM's layout helpers are named by their library, not by a GEMM
    EXPECT_EQ(classify_kernel("void deep_gemm::transpose_fp32<128u>(float const*, float*, unsigned int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u>(float*)"), KernelCategory::gemm);
    // "gemm" is not the Gemma models' norm (SGLang's op), though CUTLASS's GemmArray is a GEMM
    EXPECT_EQ(classify_kernel("sgl_kernel::gemma_fused_add_rmsnorm"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void cutlass::Kernel<cutlass::gemm::kernel::GemmArray<float>>(int)"), KernelCategory::gemm);
    // conversions, Lamport all-reduce buffers, XQA decode attention, RoPE with a cos/sin cache
    EXPECT_EQ(classify_kernel("void tensorrt_llm::kernels::cvt_fp16_to_fp4<__nv_bfloat16, false>(int, int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void lamport_initialize_kernel<float>(float*, unsigned long)"), KernelCategory::collective);
    EXPECT_EQ(classify_kernel("void tensorrt_llm::kernels::xqa::kernel_mha(int)"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("void aiter::rope_cached_positions_2c_fwd_kernel<__hip_bfloat16>(int)"),
              KernelCategory::elementwise);
    // MIOpen's local response normalization, hipBLASLt's custom kernels, TensorFlow's layout swaps
    EXPECT_EQ(classify_kernel("MIOpenLRNAcrossChannels4"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("Custom_Cijk_Alik_Bljk_HHS_BH_MT64x32x64"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void tensorflow::functor::SwapDimension1And2InTensor3UsingTiles<unsigned int, 256, 32, 32, "
                              "false>(unsigned int const*, tensorflow::functor::Dimension<3>, unsigned int*)"),
              KernelCategory::indexing);
}

// MoE routing of OpenAI's triton_kernels (gpt-oss in vLLM / SGLang), KV-cache stores named by a verb,
// MQA logits, SGLang's scaled-mm ops, apex's layer-norm kernels (names from SGLang's profiler-analysis
// kernel tables and vLLM / SGLang sources).
TEST(KernelCategoryFamilies, RoutingKvStoresAndMatrixProductsByName) {
    EXPECT_EQ(classify_kernel("_combined_routing_compute"), KernelCategory::moe);
    EXPECT_EQ(classify_kernel("_expt_data_memset"), KernelCategory::moe);
    EXPECT_EQ(classify_kernel("_sum_bitmatrix_rows"), KernelCategory::moe);
    EXPECT_EQ(classify_kernel("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x256x128x1_swiglu"), KernelCategory::moe);
    EXPECT_EQ(classify_kernel("store_kvcache"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("set_mla_kv_buffer_kernel"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("_fwd_kernel_destindex_copy_kv"), KernelCategory::indexing);
    // attention kernels that name the KV cache without a store verb stay attention; MLA metadata too
    EXPECT_EQ(classify_kernel("void flashinfer::BatchPrefillWithPagedKVCacheKernel<(flashinfer::MaskMode)1>(Params)"),
              KernelCategory::attention);
    EXPECT_EQ(classify_kernel("void aiter::kn_get_mla_metadata_v1(int)"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("void deep_gemm::sm100_fp8_mqa_logits<64u>(int)"), KernelCategory::attention);
    // "mm" as a word is a matrix product; inside a word it is not
    EXPECT_EQ(classify_kernel("sgl_kernel::fp8_scaled_mm"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("_C::cutlass_scaled_mm"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void submmap_copy_kernel(int)"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::cuComputeGradInput<float, float, float>(float const*)"),
              KernelCategory::norm);
}

// Review of the last rule changes: each name was filed elsewhere.
TEST(KernelCategoryFamilies, WordEndsPrefixesAndLayerOps) {
    // a template whose name lists no op (Inductor's flex-attention templates): nothing says GEMM
    EXPECT_EQ(classify_kernel("triton_tem_fused_0"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("triton_tem_fused_addmm_convert_element_type_0"), KernelCategory::gemm);
    // "mma" must end its word: mmap is no matrix product (a copy); CUTLASS's MmaMultistage is
    EXPECT_EQ(classify_kernel("mmap_copy_kernel"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("cutlass_80_tensorop_MmaMultistage_kernel"), KernelCategory::gemm);
    // tokens already sampled are no sampling
    EXPECT_NE(classify_kernel("_combine_sampled_and_draft_tokens_kernel"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("_sample_kernel"), KernelCategory::reduce);
    // a compiled pointwise optimizer step stays optimizer, as the triton_for_ kernels do
    EXPECT_EQ(classify_kernel("triton_poi_fused__fused_adam_0"), KernelCategory::optimizer);
    // a mangled name's identifier length before "cudnn" is no SASS precision; a SASS name's is
    EXPECT_NE(classify_kernel("_ZN11cudnn_infer14genericKernelE"), KernelCategory::conv);
    EXPECT_EQ(classify_kernel("turing_fp16_s1688cudnn_fp16_128x128_ldg8_relu_f2f_exp_small_nhwc_tn_v1"), KernelCategory::conv);
    // FlashInfer's top-p and top-k renormalisations of probabilities are both reductions
    EXPECT_EQ(classify_kernel("void flashinfer::sampling::TopPRenormProbKernel<1024, 1, 4, float>(float*, float*)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("top_p_renorm_probs"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void flashinfer::sampling::TopKRenormProbKernel<1024, 1, 4, float>(float*, float*)"),
              KernelCategory::reduce);
    // OpenAI triton_kernels' sum of the expert outputs after _matmul_ogs_
    EXPECT_EQ(classify_kernel("_finalize_matmul"), KernelCategory::moe);
    // a state-space layer's op does not pull its kernels' categories; its scan kernels stay attention
    EXPECT_EQ(torch_category("_layer_norm_fwd_1pass_kernel", "vllm::mamba_mixer2"), "norm");
    EXPECT_EQ(torch_category("_causal_conv1d_fwd_kernel", "vllm::mamba_mixer2"), "conv");
    EXPECT_EQ(torch_category("_chunk_scan_fwd_kernel", "vllm::mamba_mixer2"), "attention");
    EXPECT_EQ(torch_category("flash_fwd_kernel", "vllm::unified_attention"), "attention");
}

// Triton attention named only by its pass, as SGLang's and vLLM's Triton attention backends (from LightLLM and the
// Triton tutorial) name it: split-KV decode (stage1 per split, stage2 merging the splits), extend / prefix
// prefill, backward. A name that also says what else it does keeps that word's rule; a pass word inside a longer
// word, or a pass with another op before "kernel", is not this family.
TEST(KernelCategoryFamilies, TritonAttentionNamedByItsPassOnly) {
    EXPECT_EQ(classify_kernel("_fwd_grouped_kernel_stage1"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_kernel_stage1"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_kernel_stage2"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_kernel"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_kernel_alibi"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_bwd_kernel"), KernelCategory::attention);
    EXPECT_EQ(torch_category("_fwd_grouped_kernel_stage1"), "attention");
    // SGLang's expert-parallel token moves and KV-cache store keep their own words' rules.
    EXPECT_EQ(classify_kernel("_fwd_kernel_ep_scatter_1"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("_fwd_kernel_destindex_copy_kv"), KernelCategory::indexing);
    // Not the family: "kernel" glued to more letters, another op between the pass and "kernel", no leading "_".
    EXPECT_EQ(classify_kernel("_fwd_kernels"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("_fwd_foo_kernel"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("fwd_kernel"), KernelCategory::other);
}

// Speculative decoding's draft trees, as SGLang's EAGLE kernels name them: building the tree is index work,
// verifying it a scan over the candidates. "verify" alone (no tree, no draft) says nothing.
TEST(KernelCategoryFamilies, SpeculativeDecodingDraftTrees) {
    EXPECT_EQ(classify_kernel("build_tree_efficient(long*, int*, int*, long*, long*, long*, int, int, int, int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("build_tree_efficient_partial_packed"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void VerifyTreeGreedy(int*, int*, int*, long const*, long const*, long const*, long const*)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("verify_checksum_kernel"), KernelCategory::other);
}

// Inductor reductions that take a mean or a variance and multiply by its reciprocal square root are norms
// (HF Llama's RMSNorm compiled: real kernel names from torch.compile caches), a plain mean or sum stays a
// reduction, and a pointwise kernel with rsqrt stays pointwise (its kind is never changed).
TEST(KernelCategoryFamilies, InductorRmsAndLayerNormReductions) {
    EXPECT_EQ(classify_kernel("triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("triton_per_fused__to_copy_add_embedding_mean_mul_pow_rsqrt_0"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("triton_per_fused_add_var_mean_rsqrt_sub_mul_3"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("triton_red_fused_mean_1"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("triton_red_fused_sum_3"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("triton_poi_fused_add_mean_mul_rsqrt_2"), KernelCategory::elementwise);
    // a softmax fused with the statistics is the softmax its name says, whichever comes first in the name
    EXPECT_EQ(classify_kernel("triton_per_fused__log_softmax_add_rsqrt_var_mean_7"), KernelCategory::softmax);
    EXPECT_EQ(classify_kernel("triton_red_fused__softmax_mean_rsqrt_0"), KernelCategory::softmax);
    EXPECT_EQ(classify_kernel("triton_red_fused_add_mean_rsqrt_softmax_1"), KernelCategory::softmax);
}

// Kernel names of SGLang on MI355X (aiter) as a trace classifier built from real traces lists them: the fused RMS
// norm + quantization Triton kernels are norms ("rms" as a whole word), aiter's rotary entries
// (kn_entry_<channels>c_<layout>) pointwise; RMSprop is not a norm.
TEST(KernelCategoryFamilies, AiterRmsNormAndRopeEntries) {
    EXPECT_EQ(classify_kernel("_fused_rms_fp8"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("_fused_rms_mxfp4_quant"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("kn_entry_2c_sbhd"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void aiter::kn_entry_1c_thd_uncached<float>(int)"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("rmsprop_step_kernel"), KernelCategory::optimizer);
    EXPECT_EQ(classify_kernel("kn_entry_point"), KernelCategory::other);
}

// trtllm-gen's batched GEMMs over a dynamic batch are MoE expert GEMMs by their name alone (the shipped B200 vLLM
// trace's two largest kernels, linked there to vllm::moe_forward; under a CUDA graph no op names them). A bmm
// without dynBatch stays a GEMM.
TEST(KernelCategoryFamilies, TrtllmGenDynamicBatchGemmsAreMoe) {
    EXPECT_EQ(classify_kernel("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_"
                              "transOut_schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100"),
              KernelCategory::moe);
    EXPECT_EQ(classify_kernel("bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_"
                              "transOut_schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100"),
              KernelCategory::moe);
    EXPECT_EQ(torch_category("bmm_E4m3_E2m1E2m1_Fp32_t128x8x512u2_s6_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_transOut_schedS_"
                             "swiGlu_dynBatch"),
              "moe");
    EXPECT_EQ(classify_kernel("bmm_MxE4m3_MxE2m1_Bfloat16_t128x8x256"), KernelCategory::gemm);
}

// DeepGEMM: its dense GEMM (GemmType 0) is a GEMM, its grouped ones (contiguous 1, masked 2, the m_grouped
// functions) are MoE expert GEMMs, as in DeepSeek's own profile-data traces.
TEST(KernelCategoryFamilies, DeepGemmGroupedGemmsAreMoe) {
    EXPECT_EQ(classify_kernel("void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 128u, 128u, 1u, 8u, 128u, 128u, 1u, 1u, 4u, "
                              "8u, (deep_gemm::GemmType)0>(float*, int*, unsigned int)"),
              KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void deep_gemm::fp8_gemm_kernel<2112u, 7168u, 64u, 128u, 128u, 1u, 8u, 128u, 128u, 1u, 1u, 4u, "
                              "8u, (deep_gemm::GemmType)1>(float*, int*, unsigned int)"),
              KernelCategory::moe);
    EXPECT_EQ(classify_kernel("void deep_gemm::fp8_gemm_kernel<7168u, 2048u, 64u, 128u, 128u, 1u, 8u, 128u, 128u, 1u, 1u, 4u, "
                              "8u, (deep_gemm::GemmType)2>(float*, int*, unsigned int)"),
              KernelCategory::moe);
    EXPECT_EQ(classify_kernel("void deep_gemm::sm90_m_grouped_fp8_gemm_masked_1d2d_impl<4096u, 7168u>(int*)"),
              KernelCategory::moe);
    // GemmType 4 is Batched (deep_gemm/common/types.cuh), not grouped over experts: a GEMM; 5 (contiguous with a
    // prefix-sum layout) is grouped.
    EXPECT_EQ(classify_kernel("void deep_gemm::sm100_bf16_gemm_impl<(deep_gemm::GemmType)4, 128u>(int*)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void deep_gemm::sm100_fp8_gemm_1d1d_impl<(deep_gemm::GemmType)5, 128u>(int*)"),
              KernelCategory::moe);
    // the type is read as a whole number: 10, 21 are no grouped types 1, 2
    EXPECT_EQ(classify_kernel("void deep_gemm::sm90_bf16_gemm_impl<(deep_gemm::GemmType)10, 0u>(float*)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void deep_gemm::sm90_bf16_gemm_impl<(deep_gemm::GemmType)21, 0u>(float*)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void deep_gemm::sm90_bf16_gemm_impl<(deep_gemm::GemmType)6>(float*)"), KernelCategory::moe);
}

// Hand-written kernels named by their operation alone (ggml-cuda's kernels as nsys prints them for llama.cpp runs,
// CUDA samples' vectorAdd): whole words of the function's own name, after every other rule (ggml's mul_mat_q GEMMs
// stay GEMMs); a word inside a longer one ("address", "summary", "accept") is not the operation.
TEST(KernelCategoryFamilies, HandWrittenKernelsNamedByTheirOperation) {
    EXPECT_EQ(classify_kernel("void soft_max_f32<true, 0, 0>(float const*, float const*, float*, int, int, float)"),
              KernelCategory::softmax);
    EXPECT_EQ(classify_kernel("void k_get_rows_float<float, float>(float const*, int const*, float*)"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void upscale_f32(float const*, float*, int, int)"), KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void k_sum_rows_f32(float const*, float*, int)"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void add_f32(float const*, float const*, float*, int, int)"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void acc_f32(float const*, float const*, float*, int, int, int, int, int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void cpy_f32_f16<&(cpy_1_f32_f16(char const*, char*))>(char const*, char*, int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("vectorAdd"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("multiply_add_kn"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void mul_mat_q4_K<false>(void const*, void const*, float*)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("address_map_kernel"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("summary_kernel"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("accept_kernel"), KernelCategory::other);
}

// Transformer Engine's FP8 scale update from the amax history is step bookkeeping, as AMP's update_scale is.
TEST(KernelCategoryFamilies, TransformerEngineDelayedScalingUpdate) {
    EXPECT_EQ(
        classify_kernel("void transformer_engine::delayed_scaling_recipe::(anonymous namespace)::kernel(float const*, "
                        "float*, float*, unsigned long, unsigned long, transformer_engine::delayed_scaling_recipe::(anonymous "
                        "namespace)::AmaxComputeAlgo, float)"),
        KernelCategory::optimizer);
    EXPECT_EQ(classify_kernel("void at::native::amp_update_scale_cuda_kernel(float*, int*, float const*, double, double, int)"),
              KernelCategory::optimizer);
}

// Naive matrix products named for what they compute (CUDA samples' matrixMul as nsys prints it, course kernels) are
// GEMMs, decided before the last-resort word "mul" (which would file them as pointwise); the words must start a word
// of the name ("format_mul" is no matrix product).
TEST(KernelCategoryFamilies, NaiveMatrixProductsAreGemms) {
    EXPECT_EQ(classify_kernel("void MatrixMulCUDA<32>(float*, float*, float*, int, int)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void matrixMulCUDA(float*, float*, float*, int)"), KernelCategory::gemm);
    // as nvprof printed the CUDA sample's kernel (Stack Overflow question 51886311, GeForce GT 640M GPU trace)
    EXPECT_EQ(classify_kernel("void matrixMulCUDA<int=32>(float*, float*, float*, int, int)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("matrixMul"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void matrix_mul(float*, float*, float*, int)"), KernelCategory::gemm);
    EXPECT_EQ(classify_kernel("void mat_mul_kernel(float*, float*, float*, int)"), KernelCategory::gemm);
    EXPECT_EQ(torch_category("void MatrixMulCUDA<32>(float*, float*, float*, int, int)"), "gemm");
    // the last-resort words still decide where no matrix product is named
    EXPECT_EQ(classify_kernel("void format_mul(float*)"), KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void vector_mul(float*, float*, float*, int)"), KernelCategory::elementwise);
}

// RMSprop is an optimizer and RMSE a loss, not an RMS norm, however the name spells "RMS" (a camel-case word of its
// own in "RMSProp", "RMSELoss"); the op Optimizer.step#RMSProp.step stays an optimizer step. "rms" that names a
// norm still does.
TEST(KernelCategoryFamilies, RmspropAndRmseAreNotNorms) {
    EXPECT_EQ(classify_kernel("void RMSPropKernel(float*)"), KernelCategory::optimizer);
    EXPECT_EQ(classify_kernel("void ResourceApplyRMSProp(float*)"), KernelCategory::optimizer);
    EXPECT_EQ(classify_kernel("void rms_prop_kernel(float*)"), KernelCategory::optimizer);
    EXPECT_EQ(classify_kernel("Optimizer.step#RMSProp.step"), KernelCategory::optimizer);
    // a kernel its name leaves in other is filed by the op that launched it
    EXPECT_EQ(torch_category("void step_kernel(float*)", "Optimizer.step#RMSProp.step"), "optimizer");
    EXPECT_EQ(classify_kernel("void RMSELoss_kernel(float*)"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void rmse_kernel(float*)"), KernelCategory::reduce);
    // norms named "RMS" as a word
    EXPECT_EQ(classify_kernel("_fused_rms_fp8"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void RMSKernel(float*)"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void fused_add_RMS_kernel(float*)"), KernelCategory::norm);
}

// Transformer Engine's other scaling recipes name namespaces of casts and transposes, not a scale update: only
// delayed_scaling_recipe is optimizer bookkeeping; the kernels of mxfp8_scaling_recipe / fp8_block_scaling_recipe
// keep their own words (transpose: indexing, cast: elementwise, amax: reduce).
TEST(KernelCategoryFamilies, TransformerEngineCastRecipesAreNotOptimizer) {
    EXPECT_EQ(classify_kernel("void transformer_engine::mxfp8_scaling_recipe::mxfp8_scaling_transpose_cast_kernel<__nv_bfloat16, "
                              "__nv_fp8_e4m3>(__nv_bfloat16 const*, unsigned char const*, __nv_fp8_e4m3*, int, int, int)"),
              KernelCategory::indexing);
    EXPECT_EQ(
        classify_kernel("void transformer_engine::mxfp8_scaling_recipe::mxfp8_scaling_transpose_scales_kernel(unsigned char "
                        "const*, unsigned char*, int, int, int, int, bool)"),
        KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void transformer_engine::fp8_block_scaling_recipe::fp8_block_scaling_partial_cast_kernel<float, "
                              "__nv_fp8_e4m3>(float const*, __nv_fp8_e4m3*, float const*, unsigned long, unsigned long)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void transformer_engine::fp8_block_scaling_recipe::fp8_block_scaling_compute_partial_amax_kernel<"
                              "float>(float const*, float*, unsigned long, unsigned long)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void transformer_engine::delayed_scaling_recipe::(anonymous namespace)::kernel_bulk(float*)"),
              KernelCategory::optimizer);
}

// LightLLM's and SGLang's Triton kernels that begin "_fwd_kernel_" but name other work after it (batch bookkeeping:
// the attention window, request start locations) are not attention: every word after "_fwd_kernel_" must name a
// step or variant of attention (stage<N>, alibi, token_att<N>, the backward's dq / dk_dv, with_bias, int8kv).
TEST(KernelCategoryFamilies, PassOnlyTritonAttentionSuffixes) {
    EXPECT_EQ(classify_kernel("_fwd_kernel_init_att_window_info"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("_fwd_kernel_gen_b_req_mtp_start_loc"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("_fwd_kernel_init_req_to_token_table"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("_fwd_kernel_stage"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("_fwd_kernel_"), KernelCategory::other);
    EXPECT_EQ(classify_kernel("_fwd_kernel_token_att1"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_kernel_token_att2"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_kernel_int8kv"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_kernel_with_bias"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_bwd_kernel_dk_dv"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_bwd_kernel_dq"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_bwd_kernel_one_col_block"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("_fwd_grouped_kernel_stage12"), KernelCategory::attention);
}
