// Kernel names from real PyTorch, vLLM and cuDNN builds whose words led the name rules
// (src/ingest/kernel_category.cpp) to a category the kernel's work is not. These matter most where the
// kernel name is all a trace gives (CUDA-graph replays, kernels without a shaped op).
#include <gtest/gtest.h>

#include "bwacct/kernel_category.h"

namespace {

using bwacct::classify_kernel;
using bwacct::KernelCategory;

// vLLM's KV-cache stores name the attention backend whose cache layout they write ("flash", "mla"):
// they were filed as attention. They copy the step's keys and values into the cache: data movement.
TEST(KinetoKernelNames, KvCacheStoresAreDataMovementNotAttention) {
    EXPECT_EQ(classify_kernel("void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, "
                              "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, long const*, int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void vllm::concat_and_cache_mla_kernel<__nv_bfloat16, __nv_bfloat16, "
                              "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, long const*, int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("_C_cache_ops::reshape_and_cache_flash"), KernelCategory::indexing);
    // Attention kernels that read a paged KV cache stay attention.
    EXPECT_EQ(classify_kernel("void flashinfer::BatchPrefillWithPagedKVCacheKernel<...>()"), KernelCategory::attention);
    EXPECT_EQ(classify_kernel("void vllm::paged_attention_v2_kernel<__nv_bfloat16, 128>()"), KernelCategory::attention);
}

// A vector norm (torch.linalg.vector_norm, clip_grad_norm_'s _foreach_norm) is a reduction over its
// input; the word "Norm" in its functor filed it with layer/batch norm.
TEST(KinetoKernelNames, VectorNormsAreReductions) {
    EXPECT_EQ(classify_kernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                              "at::native::NormTwoOps<float, float, float>, unsigned int, float, 4, 4> >(...)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
                              "at::native::NormOps<float, float, float>, unsigned int, float, 4, 4> >(...)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                              "namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, "
                              "(at::native::(anonymous namespace)::NormType)1, float, float>, float*, int>(...)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::lpnorm_cleanup<float, "
                              "(at::native::(anonymous namespace)::NormType)1, float, float>(float const*, "
                              "at::native::(anonymous namespace)::TensorListAddresses, int)"),
              KernelCategory::reduce);
    // apex's multi_tensor_l2norm (Megatron's and DeepSpeed's gradient clipping; Transformer Engine's copy of it):
    // a norm per tensor list, filed with layer norm by the word "Norm".
    EXPECT_EQ(classify_kernel(
                  "void multi_tensor_apply_kernel<TensorListMetadata<1>, L2NormFunctor<float>, float*, float*, "
                  "bool, int>(long, int volatile*, TensorListMetadata<1>, L2NormFunctor<float>, float*, float*, bool, int)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void transformer_engine::multi_tensor_apply_kernel<transformer_engine::TensorListMetadata<1>, "
                              "transformer_engine::L2NormFunctor<float>, float*, float*, bool, int>(long)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("void multi_tensor_apply_kernel<TensorListMetadata<1>, MaxNormFunctor<float>, float*, float*, "
                              "bool, int>(long)"),
              KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("aten::linalg_vector_norm"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("aten::norm"), KernelCategory::reduce);
    // clip_grad_norm_'s op (review: it named neither "aten::norm" nor "vector_norm" and stayed norm); the functional
    // torch.normal (no trailing '_') is random numbers, not the norm "aten::norm" would make of it.
    EXPECT_EQ(classify_kernel("aten::_foreach_norm"), KernelCategory::reduce);
    EXPECT_EQ(classify_kernel("aten::normal"), KernelCategory::elementwise);
    // Normalizations stay norm; random normal numbers stay elementwise.
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(...)"),
              KernelCategory::norm);
    EXPECT_EQ(classify_kernel("void at::native::batch_norm_collect_statistics_kernel<float, float, float, int>(...)"),
              KernelCategory::norm);
    EXPECT_EQ(classify_kernel("aten::native_layer_norm"), KernelCategory::norm);
    EXPECT_EQ(classify_kernel("aten::normal_"), KernelCategory::elementwise);
}

// Dropout's masked scale (older PyTorch's dropout backward) is pointwise; it matched no rule: other.
TEST(KinetoKernelNames, MaskedScaleIsPointwise) {
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::masked_scale_kernel<float, float>(at::Tensor&, "
                              "at::Tensor const&, at::Tensor const&, float)"),
              KernelCategory::elementwise);
    // masked_select stays indexing (a compaction, not a pointwise op).
    EXPECT_EQ(classify_kernel("aten::masked_select"), KernelCategory::indexing);
}

// torch._foreach_copy_ runs on multi_tensor_apply like the optimizers' foreach math, and FSDP2 copies every
// parameter shard into its all-gather buffer with it: the kernel's functor says it copies (CopyFunctor<dst,
// src> when the types differ, UnaryOpFunctor with the Copy<> op when they match). It was filed as optimizer.
TEST(KinetoKernelNames, ForeachCopiesArePointwiseCopiesNotOptimizerMath) {
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                              "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::CopyFunctor<c10::BFloat16, "
                              "float, 2, 1, 1>, at::native::(anonymous namespace)::Copy<c10::BFloat16, float> >(...)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                              "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, "
                              "1, 1>, at::native::(anonymous namespace)::Copy<float, float> >(...)"),
              KernelCategory::elementwise);
    // The optimizers' foreach math and fused steps stay optimizer.
    EXPECT_EQ(classify_kernel("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
                              "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<"
                              "float, 2, 2, 0>, std::plus<float>, float>(...)"),
              KernelCategory::optimizer);
    EXPECT_EQ(classify_kernel("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctorMaster<float, float, float, "
                              "int>, float, float, float, float, float, float, adamMode_t, float>(...)"),
              KernelCategory::optimizer);
}

// Transformer Engine's MXFP8 scale-factor swizzles rearrange the block scales into the layout the GEMM
// reads: index work. They matched no rule: other.
TEST(KinetoKernelNames, ScaleSwizzlesAreIndexWork) {
    EXPECT_EQ(classify_kernel("void transformer_engine::swizzle_col_scaling_kernel<int, 4, 4>(void const*, void*, int, int)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void transformer_engine::swizzle_row_scaling_kernel<int, 4, 4>(void const*, void*, int, int)"),
              KernelCategory::indexing);
    // A CUTLASS GEMM naming its threadblock swizzle stays a GEMM.
    EXPECT_EQ(classify_kernel("void cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaMultistage<>, "
                              "cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, false> >(...)"),
              KernelCategory::gemm);
    // "swizzle" counts only as a whole word of the function's own name: a CuTe copy whose template arguments name
    // its shared-memory Swizzle stays a copy (elementwise), and a kernel that quantizes into "swizzled" scales stays
    // with the quant rule (elementwise); both were filed as indexing when the word was matched anywhere.
    EXPECT_EQ(classify_kernel("void cute::copy_kernel<cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::C<0>, "
                              "cute::Layout<cute::Shape<cute::C<8>, cute::C<64> > > > >(float const*, float*)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void my_ops::fp8_quant_swizzled_scales_kernel<__nv_bfloat16>(__nv_bfloat16 const*, float*, int)"),
              KernelCategory::elementwise);
    EXPECT_EQ(classify_kernel("void transformer_engine::swizzle_scaling_kernel(void const*, void*, int, int)"),
              KernelCategory::indexing);
}

// The inverse rearrangement (Transformer Engine's unswizzle kernels, names from a real TE trace) is the same index
// work; "unswizzle" is its own word, so the "swizzle" word rule missed it and it fell to other.
TEST(KinetoKernelNames, ScaleUnswizzlesAreIndexWork) {
    EXPECT_EQ(classify_kernel("void transformer_engine::(anonymous namespace)::multi_tensor_unswizzle_row_scaling_kernel<int4, "
                              "128, 4>(transformer_engine::(anonymous namespace)::MultiSwizzleArgs)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void transformer_engine::(anonymous namespace)::multi_tensor_unswizzle_scaling_kernel<int4, 128, "
                              "4>(transformer_engine::(anonymous namespace)::MultiSwizzleArgs, bool)"),
              KernelCategory::indexing);
    EXPECT_EQ(classify_kernel("void transformer_engine::unswizzle_scaling_kernel(void const*, void*, int, int)"),
              KernelCategory::indexing);
}

}  // namespace
