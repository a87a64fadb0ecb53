// The one rule set that names what a GPU kernel (or op) does: `ingest nsys` and `ingest torch-trace`
// (src/ingest/kineto_category.cpp maps it onto its categories) use these same rules.
#include "bwacct/kernel_category.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <initializer_list>
#include <vector>

namespace bwacct {
namespace {

bool has_any(const std::string& s, std::initializer_list<std::string_view> words) {
    return std::any_of(words.begin(), words.end(), [&](std::string_view w) { return s.find(w) != std::string::npos; });
}

bool starts(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

// Does a word of `original` begin at byte i? A word begins at the start, after a character that is
// not a letter ("_roll", "::pad", "2pool"), or at a camel-case step ("AdaptiveMaxPool", "RMSNorm").
bool word_starts_at(std::string_view original, std::size_t i) {
    if (i == 0)
        return true;
    const char prev = original[i - 1], cur = original[i];
    if (!is_upper(prev) && !is_lower(prev))
        return true;
    if (is_lower(prev) && is_upper(cur))
        return true;
    return is_upper(prev) && is_upper(cur) && i + 1 < original.size() && is_lower(original[i + 1]);
}

// Short words that are also pieces of longer ones ("roll" in "unrolled_elementwise_kernel", "pad"
// in "padded", "pool" in "mempool"): they count only where a word of the name starts with them.
// `lowered` is `original` in lower case (same length).
bool has_any_word(std::string_view original, const std::string& lowered, std::initializer_list<std::string_view> words) {
    for (std::string_view w : words)
        for (std::size_t at = lowered.find(w); at != std::string::npos; at = lowered.find(w, at + 1))
            if (word_starts_at(original, at))
                return true;
    return false;
}

// Communication: NCCL/RCCL, PyTorch symmetric memory, vLLM/SGLang custom all-reduce.
// DeepEP's expert-parallel dispatch/combine, NVSHMEM and MSCCL++ kernels move tokens between GPUs too.
bool is_collective(const std::string& n) {
    return has_any(n, {"nccl", "rccl", "multimem_", "symm_mem", "cross_device_reduce", "custom_ar", "all_reduce", "allreduce",
                       "all_gather", "allgather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all",
                       "record_param_comms", "c10d::", "deep_ep::", "nvshmem", "mscclpp",
                       // TensorRT-LLM / FlashInfer Lamport all-reduce buffers (lamport_initialize_kernel)
                       "lamport",
                       // expert-parallel token exchange by its namespaces, whatever the library's name (DeepSeek's
                       // own traces: dpsk::ep::internode::dispatch, dpsk::ep::internode::combine_ll)
                       "internode", "intranode", "::ep::"});
}

// `word` (lower case) as a whole word of `original`: a word starts there and ends where the next character is
// not a letter, or begins a camel-case step ("rms" in "_fused_rms_fp8", "RmsNorm"; not in "rmsprop").
bool has_whole_word(std::string_view original, const std::string& lowered, std::string_view word) {
    for (std::size_t at = lowered.find(word); at != std::string::npos; at = lowered.find(word, at + 1)) {
        const std::size_t end = at + word.size();
        if (word_starts_at(original, at) && (end >= original.size() || !is_lower(original[end])))
            return true;
    }
    return false;
}

// DeepGEMM's GemmType template argument "(deep_gemm::GemmType)<N>" with N a grouped type, 1, 2, 3, 5 or 6, read as
// the whole number ("GemmType)10" is not type 1).
bool is_grouped_gemm_type(const std::string& n) {
    for (std::size_t at = n.find("gemmtype)"); at != std::string::npos; at = n.find("gemmtype)", at + 1)) {
        std::size_t end = at + 9;
        while (end < n.size() && std::isdigit(static_cast<unsigned char>(n[end])))
            ++end;
        const std::string_view number = std::string_view(n).substr(at + 9, end - at - 9);
        if (number == "1" || number == "2" || number == "3" || number == "5" || number == "6")
            return true;
    }
    return false;
}

// "rms" as a whole word that names an RMS normalization: not RMSprop ("RMSProp", "rms_prop", an optimizer) nor
// RMSE ("RMSELoss", a loss), where "prop" or an "e" that ends the word follows it.
bool has_rms_norm_word(std::string_view original, const std::string& lowered) {
    for (std::size_t at = lowered.find("rms"); at != std::string::npos; at = lowered.find("rms", at + 1)) {
        const std::size_t end = at + 3;
        if (!word_starts_at(original, at) || (end < original.size() && is_lower(original[end])))
            continue;
        const std::string_view rest = std::string_view(lowered).substr(end);
        if (rest.starts_with("prop") || rest.starts_with("_prop") ||
            (rest.starts_with("e") && (rest.size() == 1 || !is_lower(original[end + 1]))))
            continue;
        return true;
    }
    return false;
}

// aiter's rotary-embedding kernels, named by their entry, the channels they rotate (1c: one tensor, 2c: q and k)
// and layout: kn_entry_1c_sbhd_uncached, kn_entry_2c_sbhd, kn_entry_2c_thd_cached.
bool is_aiter_rope_entry(std::string_view fn) {
    if (const std::size_t colon = fn.rfind("::"); colon != std::string_view::npos)
        fn.remove_prefix(colon + 2);
    return fn.starts_with("kn_entry_") && fn.size() > 11 && std::isdigit(static_cast<unsigned char>(fn[9])) && fn[10] == 'c' &&
           fn[11] == '_';
}

// Is `s` `word` followed by one or more digits and nothing else ("stage1", "att2")?
bool is_word_and_number(std::string_view s, std::string_view word) {
    return s.starts_with(word) && s.size() > word.size() &&
           std::all_of(s.begin() + static_cast<std::ptrdiff_t>(word.size()), s.end(),
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// A word of the suffix of a Triton attention kernel named by its pass: a step of it (split-KV decode's "stage1" and
// merge "stage2", LightLLM's token attention "token_att1" / "token_att2", the backward's "dq", "dk_dv",
// "one_col_block") or a variant ("alibi", "with_bias", an "int8kv" KV cache).
bool is_attention_pass_word(std::string_view w) {
    for (std::string_view known :
         {"alibi", "with", "bias", "one", "col", "block", "dq", "dk", "dv", "dkdv", "token", "int8kv", "int4kv", "fp8kv"})
        if (w == known)
            return true;
    return is_word_and_number(w, "stage") || is_word_and_number(w, "att");
}

// A Triton kernel named by its pass alone: a leading "_", then "fwd" or "bwd", then "_kernel" or
// "_grouped_kernel", ending there or with a suffix whose every "_"-separated word names a step or variant of
// attention itself (is_attention_pass_word: `_fwd_kernel`, `_fwd_kernel_stage2`, `_fwd_grouped_kernel_stage1`,
// `_fwd_kernel_alibi`, `_bwd_kernel_dk_dv`), in the function's own lower-cased name (a namespace before it is
// skipped). Any other word says the kernel does something else (LightLLM's `_fwd_kernel_init_att_window_info`,
// `_fwd_kernel_gen_b_req_mtp_start_loc`: batch bookkeeping).
bool is_pass_only_triton_kernel(std::string_view fn) {
    if (const std::size_t colon = fn.rfind("::"); colon != std::string_view::npos)
        fn.remove_prefix(colon + 2);
    if (!fn.starts_with("_fwd_") && !fn.starts_with("_bwd_"))
        return false;
    fn.remove_prefix(5);
    if (fn.starts_with("grouped_"))
        fn.remove_prefix(8);
    if (!fn.starts_with("kernel"))
        return false;
    if (fn.size() == 6)
        return true;
    if (fn[6] != '_')
        return false;
    for (std::string_view rest = fn.substr(7);;) {
        const std::size_t cut = rest.find('_');
        if (!is_attention_pass_word(rest.substr(0, cut)))
            return false;
        if (cut == std::string_view::npos)
            return true;
        rest.remove_prefix(cut + 1);
    }
}

// A convolution named as a word "conv" (MIOpen's "MIOpenConvUni", "miopenSp3AsmConv_v30…", "conv_depthwise2d"),
// not the word "convert"/"conversion" (dtype casts).
bool has_conv_word(std::string_view original, const std::string& lowered) {
    for (std::size_t at = lowered.find("conv"); at != std::string::npos; at = lowered.find("conv", at + 1))
        if (word_starts_at(original, at) && lowered.compare(at + 4, 2, "er") != 0)
            return true;
    return false;
}

// cuDNN's own kernels: a "cudnn" namespace or argument type (cudnn::reduced_divisor, cask_cudnn::…,
// cutlass_cudnn_train::…, cudnn_infer_…), in the kernel's name or its argument list.
bool is_cudnn(const std::string& n) { return n.find("cudnn") != std::string::npos; }

// The prefix TorchInductor gives the kernels it generates: "triton_poi_" (pointwise), "triton_red_" /
// "triton_per_" (reductions, persistent reductions), "triton_tem_" (a GEMM or convolution template),
// "triton_for_" (a horizontal fusion of foreach ops), also after a "void " or a namespace.
std::string_view inductor_kind(const std::string& n) {
    std::size_t at = n.find("triton_");
    if (at == std::string::npos || (at > 0 && n[at - 1] != ' ' && n[at - 1] != ':'))
        return {};
    const std::string_view rest = std::string_view(n).substr(at + 7);
    for (std::string_view k : {"poi_", "red_", "per_", "tem_", "for_"})
        if (rest.substr(0, k.size()) == k)
            return k.substr(0, 3);
    return {};
}

// cuDNN's FFT-convolution tile kernels, named by the transform's rank, direction and tile:
// fft2d_r2c_32x32, fft2d_c2r_64x64, fft1d_r2c_32 ("fft<r>d_<r2c|c2r|c2c>_<digits>"). cuFFT's kernels are
// named otherwise (regular_fft, vector_fft, …), so the shape holds where an nsys summary printed the name
// without its argument list.
bool is_cudnn_fft_tile(const std::string& n) {
    for (std::size_t at = n.find("fft"); at != std::string::npos; at = n.find("fft", at + 1)) {
        const std::string_view r = std::string_view(n).substr(at + 3);
        if (r.size() >= 9 && std::isdigit(static_cast<unsigned char>(r[0])) && r[1] == 'd' && r[2] == '_' &&
            (r.substr(3, 3) == "r2c" || r.substr(3, 3) == "c2r" || r.substr(3, 3) == "c2c") && r[6] == '_' &&
            std::isdigit(static_cast<unsigned char>(r[7])) && (at == 0 || !std::isalnum(static_cast<unsigned char>(n[at - 1]))))
            return true;
    }
    return false;
}

// "mm" as a whole word, a matrix product's own name (SGLang's fp8_scaled_mm and int8_scaled_mm ops, vLLM's
// cutlass_scaled_mm, aten::_scaled_mm): at a word start and not followed by a letter ("mmap", "comm" are not).
bool has_mm_word(std::string_view original, const std::string& lowered) {
    for (std::size_t at = lowered.find("mm"); at != std::string::npos; at = lowered.find("mm", at + 1))
        if (word_starts_at(original, at) && (at + 2 >= lowered.size() || !is_lower(lowered[at + 2])))
            return true;
    return false;
}

// Does an Inductor kernel's name after its "triton_xxx_" prefix list an op? "fused_0", "0" do not:
// only "fused", underscores and the kernel's index remain.
bool names_an_op(std::string_view rest) {
    if (rest.substr(0, 5) == "fused")
        rest.remove_prefix(5);
    return std::any_of(rest.begin(), rest.end(), [](char c) { return is_lower(c); });
}

// A mangled C++ name (Itanium ABI): its identifiers carry their length in digits ("_ZN11cudnn_infer…").
bool is_mangled(const std::string& n) { return starts(n, "_z"); }

// "mma" (a tensor-core matrix multiply-accumulate: CUTLASS's MmaMultistage, mma_sm80) as a word that ends
// there or at a camel-case step, not the start of a longer word ("mmap_copy_kernel").
bool has_mma_word(std::string_view original, const std::string& lowered) {
    for (std::size_t at = lowered.find("mma"); at != std::string::npos; at = lowered.find("mma", at + 1))
        if (word_starts_at(original, at) && (at + 3 >= original.size() || !is_lower(original[at + 3])))
            return true;
    return false;
}

}  // namespace

bool is_state_space_name(std::string_view name) {
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return has_any(n, {"selective_scan", "selective_state_update", "mamba", "chunk_scan", "chunk_state", "state_passing"});
}

KernelCategory classify_kernel(std::string_view name) {
    std::string n(name);
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (n.empty())
        return KernelCategory::other;
    // An Inductor kernel's prefix says what kind of kernel it is; the aten ops its name lists are the ops
    // fused into it ("triton_poi_fused_convolution_relu_0" is the bias add and ReLU after a convolution,
    // "triton_poi_fused_bmm_1" a copy feeding a bmm): a name rule may refine the kind (a norm or softmax
    // reduction, a pointwise gather), never change it.
    if (const std::string_view kind = inductor_kind(n); !kind.empty()) {
        std::string fused(name);
        const std::size_t at = n.find("triton_") + 11;  // past "triton_xxx_"
        fused.replace(0, at, at, '#');
        const KernelCategory refined = classify_kernel(fused);
        // A template: convolution or attention where it says so, else GEMM; a template whose name lists no op
        // ("triton_tem_fused_0": Inductor's flex-attention templates) says nothing of what it computes: other.
        if (kind == "tem")
            return !names_an_op(std::string_view(n).substr(at))                              ? KernelCategory::other
                   : refined == KernelCategory::conv || refined == KernelCategory::attention ? refined
                                                                                             : KernelCategory::gemm;
        // A reduction that takes a mean (or a variance) and multiplies by its reciprocal square root is a
        // normalization whatever module it was written as: RMSNorm ("_to_copy_add_mean_mul_pow_rsqrt", HF Llama's
        // LlamaRMSNorm compiled), LayerNorm ("add_native_layer_norm" aside, "var_mean_add_rsqrt_sub"); a softmax
        // fused with one ("_log_softmax_add_rsqrt_var_mean") is the softmax its name says.
        if ((kind == "red" || kind == "per") && refined == KernelCategory::softmax)
            return refined;
        if ((kind == "red" || kind == "per") && has_any_word(name, n, {"rsqrt"}) && has_any_word(name, n, {"mean", "var"}))
            return KernelCategory::norm;
        if (kind == "red" || kind == "per")
            return refined == KernelCategory::norm || refined == KernelCategory::softmax ? refined : KernelCategory::reduce;
        if (kind == "for")
            return refined == KernelCategory::optimizer ? refined : KernelCategory::elementwise;
        return refined == KernelCategory::indexing || refined == KernelCategory::norm || refined == KernelCategory::softmax ||
                       refined == KernelCategory::optimizer
                   ? refined
                   : KernelCategory::elementwise;
    }
    if (is_collective(n))
        return KernelCategory::collective;
    // (OpenAI's triton_kernels, gpt-oss MoE in vLLM and SGLang, name their routing kernels _routing_compute_indx,
    // _expt_data_compute, _sum_bitmatrix_rows, _combined_routing_compute, and their expert GEMMs with the tokens'
    // gather and scatter _matmul_ogs_… / _p_matmul_ogs_…, and the sum of each token's expert outputs that
    // follows them, _finalize_matmul)
    if (has_any(n, {"moe", "expert", "expt_", "bitmatrix", "matmul_ogs", "finalize_matmul"}) ||
        has_any_word(name, n, {"routing"}) ||
        // TensorRT-LLM's generated batched GEMMs over a dynamic batch (`bmm_…_dynBatch`, FlashInfer's trtllm-gen MoE
        // in vLLM and SGLang on Blackwell): one GEMM per expert over the tokens routed to it, whatever op launched it
        // (a CUDA graph replay has none)
        (has_any_word(name, n, {"bmm"}) && has_any_word(name, n, {"dyn_batch", "dynbatch"})) ||
        // DeepGEMM's grouped GEMMs over experts: a grouped GemmType template argument (deep_gemm's types: Normal 0,
        // (M)GroupedContiguous 1, (M)GroupedMasked 2, KGroupedContiguous 3, Batched 4 (not grouped),
        // MGroupedContiguousWithPsumLayout 5, KGroupedContiguousWithPsumLayout 6), or m_/k_grouped in the
        // function's name (sm90_m_grouped_fp8_gemm_masked_1d2d_impl)
        (has_any(n, {"deep_gemm"}) &&
         (is_grouped_gemm_type(n) || has_any(n, {"m_grouped", "k_grouped", "mgrouped", "kgrouped"}))))
        return KernelCategory::moe;
    // Stores of new keys and values into the KV cache are data movement, whatever attention backend's cache
    // layout they name (vLLM's reshape_and_cache_flash, concat_and_cache_mla, indexer_k_quant_and_cache).
    if (has_any(n, {"_and_cache"}))
        return KernelCategory::indexing;
    // The function's own name (no namespace, template or argument list), lower-cased: words that name a
    // step of a serving engine are looked for here only, never in the template arguments.
    const std::string fn_original = short_kernel_name(name);
    std::string fn = fn_original;
    std::transform(fn.begin(), fn.end(), fn.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // Serving engines' preparation of the next step's inputs, which names the phase it prepares (vLLM's
    // _prepare_inputs_kernel, _prepare_prefill_inputs_kernel, advance_step_flashattn_kernel, SGLang's
    // create_extend_after_decode_spec_info, compute_seg_indptr / pre_reorder / post_reorder of expert-parallel
    // tokens, FlashInfer's AppendPagedKVCacheKernel): index writes, not attention.
    if (has_any_word(fn_original, fn, {"advance_step", "spec_info", "indptr", "reorder", "append"}) ||
        (has_any_word(fn_original, fn, {"prepare"}) && has_any_word(fn_original, fn, {"inputs"})))
        return KernelCategory::indexing;
    // Speculative decoding's draft trees (SGLang's EAGLE kernels build_tree_efficient, VerifyTreeGreedy): building
    // a tree writes its mask, positions and retrieval indices; verifying it compares each draft token with the
    // target model's choice along the tree, a scan over the candidates.
    if (has_any_word(fn_original, fn, {"build_tree"}))
        return KernelCategory::indexing;
    if (has_any_word(fn_original, fn, {"verify"}) && has_any(fn, {"tree", "draft"}))
        return KernelCategory::reduce;
    // A top-k selection whatever phase it serves (vLLM's top_k_per_row_decode, TensorRT-LLM's topk_with_k2_kernel).
    if (const std::size_t last = fn.rfind("::"); fn.compare(last == std::string::npos ? 0 : last + 2, 4, "topk") == 0 ||
                                                 fn.compare(last == std::string::npos ? 0 : last + 2, 5, "top_k") == 0)
        return KernelCategory::reduce;
    // Stores and loads of the KV cache named by a verb beside "kv" or "cache" in the function's own name (SGLang's
    // store_kvcache, set_mla_kv_buffer_kernel, _fwd_kernel_destindex_copy_kv): data movement, though an attention
    // backend's words (mla_) may follow.
    if ((has_any(fn, {"kv", "cache"})) && has_any_word(fn_original, fn, {"store", "set", "get", "copy", "write"}) &&
        !has_any(fn, {"metadata"}))
        return KernelCategory::indexing;
    // Library names say nothing of the operation: "flashinfer" (which holds "flash") names FlashInfer's
    // norm, activation and sampling kernels too. Its attention kernels say Prefill, Decode or Paged.
    std::string ops = n, ops_original(name);
    for (std::size_t at = ops.find("flashinfer"); at != std::string::npos; at = ops.find("flashinfer", at + 1)) {
        ops.replace(at, 10, 10, '#');
        ops_original.replace(at, 10, 10, '#');
    }
    // Cascade / split-KV attention merges the partial outputs and their log-sum-exp states (FlashInfer's
    // MergeStatesKernel, PersistentVariableLengthMergeStatesKernel, SGLang's merge_state_kernel).
    // Linear attention and state-space scans mix tokens over the sequence as attention does (FLA's gated
    // delta rule: chunk_gated_delta_rule_fwd_kernel_h, fused_recurrent_…, chunk_scaled_dot_kkt_fwd_kernel,
    // recompute_w_u_fwd_kernel; Mamba's selective_scan_fwd_kernel, selective_state_update, _chunk_scan_fwd,
    // _chunk_state_fwd, _state_passing_fwd). TensorRT-LLM's XQA decode kernels (xqa::kernel_mha), CK's fused
    // batched_gemm_softmax_gemm.
    if (has_any(ops,
                {"flash", "fmha", "attention", "attn", "sdpa", "mha_", "paged", "mla_", "decode_kernel", "mergestate",
                 "merge_state", "delta_rule", "fused_recurrent", "scaled_dot_kkt", "recompute_w_u", "xqa", "softmax_gemm"}) ||
        has_any_word(ops_original, ops, {"prefill", "decode", "mha", "mqa"}) || is_state_space_name(n))
        return KernelCategory::attention;
    // cuDNN's FFT convolutions (fft2d_r2c_32x32, fft2d_c2r_32x32, fft1d_r2c_32, … with cudnn::reduced_divisor
    // among their arguments, or their tile names alone) are convolution work, not a user's FFT.
    // Its complex GEMMs (cudnn_maxwell_gcgemm_64x32_tn_batched, cudnn_maxwell_cgemm_64x64_tn_batched) are the
    // products of those transforms: cuDNN multiplies complex matrices only in an FFT convolution.
    if ((is_cudnn(n) && (has_any_word(name, n, {"fft", "r2c", "c2r"}) || has_any(n, {"cgemm"}))) || is_cudnn_fft_tile(n))
        return KernelCategory::conv;
    // CASK, the kernel library inside cuDNN, builds the offset tables of its implicit-GEMM convolutions
    // (cask_cudnn::computeOffsetsKernel, computeBOffsetsKernel, computeWgradBOffsetsKernel): offsets
    // kernels of a cuDNN namespace.
    if (is_cudnn(n) && has_any(n, {"offsetskernel", "offsetsparams"}))
        return KernelCategory::conv;
    // cuDNN's convolution SASS kernels put the operand precision (and MMA shape) straight before "cudnn":
    // ampere_scudnn_128x64_relu_interior_nn_v1, volta_hcudnn_…, turing_fp16_s1688cudnn_fp16_…,
    // ampere_h16816cudnn_… ("relu" there is the fused epilogue, not the kernel's work).
    // (not a mangled name, whose digits before "cudnn" are an identifier's length: _ZN11cudnn_infer14genericKernelE)
    for (std::size_t at = is_mangled(n) ? std::string::npos : n.find("cudnn"); at != std::string::npos;
         at = n.find("cudnn", at + 1))
        if (at > 0 && std::isalnum(static_cast<unsigned char>(n[at - 1])) && (at + 5 >= n.size() || n[at + 5] == '_'))
            return KernelCategory::conv;
    if (has_any(n, {"conv_", "convolution", "conv1d", "conv2d", "conv3d", "igemm_", "implicit_gemm", "dgrad", "wgrad", "fprop",
                    "winograd", "im2col", "col2im", "vol2col", "col2vol", "deconv"}) ||
        has_conv_word(name, n))
        return KernelCategory::conv;
    // Fast Fourier transforms: cuFFT's kernels (regular_fft, vector_fft, regular_fft_factor), rocFFT's
    // runtime-compiled ones (fft_rtc_fwd_len64_…, fft_rtc_back_len…) and their real-to-complex pre/post
    // passes (r2c_even_post, c2r_even_pre, …), the ops aten::_fft_r2c / _fft_c2r / _fft_c2c / fft_rfft /
    // stft. After conv: cuDNN's FFT convolution kernels (fft2d_r2c_32x32) launched by a convolution keep
    // the op's category (activity_category asks the op's family first).
    if (has_any(n, {"cufft", "rocfft", "vkfft"}) || has_any_word(name, n, {"fft", "stft", "r2c", "c2r", "c2c"}))
        return KernelCategory::fft;
    if (starts(n, "triton_mm") || starts(n, "triton_bmm"))  // older Inductor GEMM templates
        return KernelCategory::gemm;
    // cuBLAS's level-1 routines are vector work, though their argument types name cuBLAS ("void
    // nrm2_kernel<…>(cublasNrm2Params<…>)"): dot, asum, nrm2, amax/amin reduce; scal and axpy update.
    if (has_any_word(name, n,
                     {"dot_kernel", "asum_kernel", "nrm2_kernel", "amax_kernel", "amin_kernel", "iamax_kernel", "iamin_kernel"}))
        return KernelCategory::reduce;
    if (has_any_word(name, n, {"scal_kernel", "axpy_kernel"}))
        return KernelCategory::elementwise;
    // Repacking a quantized weight into a GEMM's layout (vLLM's gptq_marlin_repack_kernel) moves data.
    if (has_any_word(fn_original, fn, {"repack"}))
        return KernelCategory::indexing;
    // "gemm" names a GEMM, not the Gemma models (FlashInfer's GemmaFusedAddRMSNormKernel, gemma_rmsnorm)
    // nor DeepGEMM's helpers by their library's name (deep_gemm::transpose_fp32).
    std::string g = n;
    for (std::size_t at = g.find("gemma"); at != std::string::npos; at = g.find("gemma", at + 1))
        if (at + 5 >= g.size() || !is_lower(static_cast<char>(name[at + 5])))
            g.replace(at, 4, 4, '#');
    for (std::size_t at = g.find("deep_gemm::"); at != std::string::npos; at = g.find("deep_gemm::", at + 1))
        g.replace(at, 9, 9, '#');
    if (has_any(g, {"gemm", "gemv", "cutlass", "cublas", "matmul", "xmma", "nvjet", "wgmma", "_mma", "hipblaslt", "rocblas",
                    "tensile", "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear", "splitk",
                    // vLLM ROCm skinny GEMMs, older spelling (wvSpltK_hf_sml_)
                    "wvspltk",
                    // sparse matrix products (cuSPARSE's csrmv/spmm kernels, torch.sparse.mm)
                    "cusparse", "spmm", "spmv", "csrmv", "csrmm",
                    // cuDNN's persistent RNN kernels (RNN_blockPersist_fp_LSTM): the recurrent matmuls
                    "blockpersist",
                    // quantized-weight GEMMs: Marlin, Machete, ggml's mul_mat_q / mul_mat_vec_q (vLLM's GGUF
                    // kernels), AQLM's Code1x16MatVec
                    "marlin", "machete", "mul_mat", "matvec"}) ||
        has_any_word(name, g, {"bmm", "cijk_"}) ||
        // naive matrix products named for what they compute, as words (CUDA samples' matrixMul / MatrixMulCUDA,
        // matrix_mul, mat_mul_kernel; not "format_mul"): before the last-resort word "mul"
        has_any_word(name, g, {"matrixmul", "matrix_mul", "mat_mul"}) || has_mma_word(name, g) || has_mm_word(name, g))
        return KernelCategory::gemm;
    // (ggml spells it soft_max_f32)
    if (has_any(n, {"softmax", "soft_max"}))
        return KernelCategory::softmax;
    // Random-number generation (aten::normal_, the functional aten::normal, uniform_, bernoulli_, dropout masks) is
    // pointwise work; "normal" would otherwise read as a normalization.
    if (has_any(n, {"normal_", "aten::normal", "uniform_", "bernoulli", "philox", "curand", "distribution_elementwise"}))
        return KernelCategory::elementwise;
    // Vector norms are reductions (torch.linalg.vector_norm, clip_grad_norm_'s _foreach_norm): PyTorch's
    // reduce_kernel over NormOps / NormTwoOps / NormOneOps / NormZeroOps, the LpNormFunctor of
    // multi_tensor_apply and its lpnorm_cleanup, the ops aten::norm / linalg_vector_norm.
    // So are apex's multi_tensor_l2norm functors (Megatron's, DeepSpeed's and Transformer Engine's gradient norm for
    // clipping: L2NormFunctor, L2NormScaleFunctor, MaxNormFunctor).
    if (has_any(n, {"normops", "normtwoops", "normoneops", "normzeroops", "lpnorm", "vector_norm", "aten::norm", "frobenius_norm",
                    "_foreach_norm", "l2normfunctor", "l2normscalefunctor", "maxnormfunctor"}))
        return KernelCategory::reduce;
    // Norm statistics and affine-parameter gradients: PyTorch's RowwiseMomentsCUDAKernel (group/layer
    // norm) and GammaBetaBackward*, apex's cuComputePartGradGammaBeta.
    // (PyTorch's group norm: ComputeFusedParamsCUDAKernel, Compute1dBackwardFusedParamsCUDAKernel,
    // ComputeInternalGradientsCUDAKernel fold the statistics into per-channel scale and bias)
    // torch.multinomial renormalises its probability rows (renormRowsL1) before it samples: part of the
    // sampling, not a normalization layer.
    // So do FlashInfer's top-p / top-k renormalisations of sampling probabilities (TopPRenormProbKernel,
    // top_p_renorm_probs, TopKRenormProbKernel): a threshold search over the vocabulary.
    if (has_any(n, {"renormrows"}) || (has_any(n, {"renorm"}) && has_any(n, {"prob"})))
        return KernelCategory::reduce;
    // (local response normalization: MIOpen's MIOpenLRNFwd)
    // (apex's and PyTorch's layer-norm kernels cuComputeGradInput, cuComputePartGradGammaBeta, cuApplyLayerNorm)
    if (has_any(n, {"norm", "bn_fw", "bn_bw", "moments", "gammabeta", "gamma_beta", "fusedparams", "internalgradients",
                    "cucompute"}) ||
        has_any_word(name, n, {"lrn"}) ||
        // RMS normalization named "rms" as a whole word (aiter's Triton _fused_rms_fp8, _fused_rms_mxfp4_quant: the
        // norm with its output quantized), not the start of a longer word, nor RMSprop or RMSE (has_rms_norm_word)
        has_rms_norm_word(name, n))
        return KernelCategory::norm;
    // ("lamb_", not "lamb": every lambda in a templated kernel name would match)
    // (AMP's grad scaler: amp_update_scale, unscale: optimizer-step bookkeeping; so is Transformer Engine's FP8
    // scale update from the amax history, transformer_engine::delayed_scaling_recipe::…::kernel / kernel_bulk; its
    // other recipes' namespaces, mxfp8_scaling_recipe and fp8_block_scaling_recipe, hold casts and transposes)
    // (RMSprop: TensorFlow's ResourceApplyRMSProp, RMSPropKernel, rms_prop_kernel)
    // (a multi_tensor_apply kernel whose functor copies, torch._foreach_copy_'s CopyFunctor<dst, src> or its
    // UnaryOpFunctor with the Copy<> op: FSDP2's parameter copy-in, not optimizer math; the copy rule files it)
    if (has_any(n, {"adam", "sgd", "lamb_", "foreach", "multi_tensor_apply", "optimizer", "update_scale", "unscale",
                    "delayed_scaling_recipe", "rmsprop", "rms_prop"}) &&
        !has_any(n, {"copyfunctor<", "::copy<"}))
        return KernelCategory::optimizer;
    // Log-probabilities of the sampled tokens (vLLM's _compute_logprobs): a log-softmax over the vocabulary.
    if (has_any(fn, {"logprob"}))
        return KernelCategory::softmax;
    // Token sampling named "sample" after an underscore or first (vLLM's _sample_kernel,
    // _gumbel_sample_kernel), not "upsample", "downsample", a "grid_sampler" nor tokens already "sampled"
    // (vLLM's _combine_sampled_and_draft_tokens_kernel).
    for (std::size_t at = fn.find("sample"); at != std::string::npos; at = fn.find("sample", at + 1))
        if ((at == 0 || fn[at - 1] == '_' || fn[at - 1] == ':') &&
            (at + 6 >= fn.size() || (fn[at + 6] != 'r' && fn[at + 6] != 'd')))
            return KernelCategory::reduce;
    if (has_any(n,
                {"dot_kernel", "reduce",    "reduction",  "argmax",    "argmin",    "topk",     "argsort",       "scan",
                 "cumsum",     "cumprod",   "radix",      "histogram", "cub::",     "rocprim",  "aten::sum",     "aten::mean",
                 "aten::max",  "aten::min", "aten::amax", "aten::any", "aten::all", "nll_loss", "cross_entropy", "criterion"}) ||
        // losses (ctc_loss, mse_loss), token sampling from probabilities (FlashInfer MinPSampling, SGLang
        // tree_speculative_sampling, torch.multinomial's sampleMultinomialOnce / multinomialWithReplacement:
        // scans over the vocabulary), non-maximum suppression
        // sorts as a word (radixSort, bitonicSortKVInPlace, segmented_sort): "tensorTransform" holds "sort"
        has_any_word(name, n, {"loss", "sampling", "multinomial", "nms", "sort"}) ||
        // root-mean-square error (a loss or metric), which the norm rule leaves
        has_whole_word(name, n, "rmse"))
        return KernelCategory::reduce;
    // Rotary position embeddings are pointwise (vllm::rotary_embedding_kernel), not an embedding lookup; so is
    // PyTorch's elementwise_kernel_with_index (arange, linspace: each element written from its own index).
    // ("rope" as a word: aiter's rope_cached_positions_2c_fwd_kernel names a cache of angles, not the KV cache)
    if (has_any(n, {"rotary", "elementwise_kernel_with_index"}) || has_any_word(name, n, {"rope"}) || is_aiter_rope_entry(fn))
        return KernelCategory::elementwise;
    if (has_any(n, {"index", "indices", "gather", "scatter", "embedding", "catarray", "cat_", "aten::cat", "aten::stack",
                    "transpose", "permute", "masked_select", "nonzero", "upsampl", "grid_sampler", "roi_align", "tonhwc",
                    "tonchw", "2nhwc", "2nchw",
                    // cuDNN's layout transforms (tensorTransformGeneric); binary searches of sorted
                    // boundaries (torch.searchsorted / bucketize)
                    "tensortransform", "searchsorted", "bucketize"}) ||
        // (embedding backward's compute_grad_weight / compute_grad_weight_bags: a segmented sum into the rows)
        has_any_word(name, n,
                     {"cache", "page", "unique", "pad", "roll", "flip", "repeat", "pool", "segment", "compute_grad_weight",
                      // KV-cache block swaps (vLLM's swap_blocks), TensorFlow's SwapDimension1And2InTensor3
                      "swap",
                      // adaptive pooling's backward kernels name no "pool" (adaptive_average_gradinput,
                      // atomic_adaptive_maxgradinput)
                      "adaptive_average", "adaptive_max"}) ||
        // scale-factor layouts rearranged for a block-scaled GEMM (Transformer Engine's swizzle_col_scaling_kernel /
        // swizzle_row_scaling_kernel, and the inverse multi_tensor_unswizzle_row_scaling_kernel / unswizzle_scaling_kernel):
        // "swizzle" or "unswizzle" as a whole word of the function's own name, never a template
        // argument (cute::copy_kernel<…, cute::Swizzle<3, 4, 3>, …>) nor "swizzled" (fp8_quant_swizzled_scales_kernel
        // quantizes: the quant rule files it)
        has_whole_word(fn_original, fn, "swizzle") || has_whole_word(fn_original, fn, "unswizzle"))
        return KernelCategory::indexing;
    if (starts(n, "triton_"))
        return KernelCategory::elementwise;  // triton_poi_* and other generated pointwise kernels
    if (has_any(n, {"elementwise", "vectorized", "unrolled", "pointwise", "fused_", "activation", "silu", "gelu", "relu",
                    "sigmoid", "tanh", "add_kernel", "mul_kernel", "rotary", "rope", "quant", "fill", "copy", "act_and_mul",
                    "cast", "convert", "where", "clamp", "dropout", "masked_", "triad_kernel", "nstream_kernel",
                    "aten::", "_c::", "sgl_kernel::", "aiter::",
                    // gated activations (Liger's _swiglu/_geglu kernels), cuDNN RNN cells' "elemWise", triangular
                    // masks, penalties on logits, random permutations, device-side asserts, MIOpen's OpTensor family
                    "swiglu", "geglu", "reglu", "elemwise", "triu_", "tril_", "penalt", "randperm", "assert", "op1dtensor",
                    "op2dtensor", "op3dtensor", "op4dtensor", "op5dtensor", "subtensorop",
                    // PyTorch's fused LSTM / GRU cell pointwise kernels (lstm_cell_forward, gru_cell_backward)
                    "lstm_cell", "gru_cell"}) ||
        // scaling a tensor by a constant (cuDNN's scalePackedTensor_kernel, rescale kernels), dtype conversions
        // (TensorRT-LLM's cvt_fp16_to_fp4, MIOpen's cvt_fp32_fp16), MIOpen's activations (MIOpenActiveFwd)
        has_any_word(name, n, {"scale", "rescale", "cvt", "activ"}))
        return KernelCategory::elementwise;
    // Serving engines' batch bookkeeping: token ids, positions, slot mappings and sequence lengths of the
    // next step (SGLang resolve_future_token_ids / compute_position / get_last_loc, vLLM
    // _compute_slot_mapping): small index writes. After the pointwise words, so a rotary kernel that
    // names its positions stays elementwise.
    if (has_any(n, {"token_id", "position", "slot_mapping", "seq_len", "seqlen", "last_loc"}))
        return KernelCategory::indexing;
    // Triton attention named only by its pass: the Triton tutorial's and LightLLM's `_fwd_kernel` / `_bwd_kernel`,
    // which SGLang's and vLLM's Triton attention backends kept (extend and prefix-prefill `_fwd_kernel`, split-KV
    // decode `_fwd_kernel_stage1`, `_fwd_grouped_kernel_stage1` and the merge `_fwd_kernel_stage2`,
    // `_fwd_kernel_alibi`). Last, so a name that also says what else it does (`_fwd_kernel_ep_scatter_1`,
    // `_fwd_kernel_destindex_copy_kv`) keeps the rule that word decides.
    if (is_pass_only_triton_kernel(fn))
        return KernelCategory::attention;
    // Hand-written kernels named by their operation alone, as whole words of the function's own name (CUDA samples'
    // vectorAdd, ggml's add_f32, acc_f32, cpy_f32_f16, k_get_rows_float, k_sum_rows_f32, upscale_f32): rows gathered
    // and upscaling are index work, sums reductions, arithmetic and copies pointwise. Last, so every rule above
    // (ggml's mul_mat GEMMs, rms_norm) decides first.
    if (has_whole_word(fn_original, fn, "get_rows") || has_whole_word(fn_original, fn, "upscale"))
        return KernelCategory::indexing;
    if (has_whole_word(fn_original, fn, "sum") || has_whole_word(fn_original, fn, "sum_rows"))
        return KernelCategory::reduce;
    for (std::string_view w : {"add", "sub", "mul", "multiply", "div", "acc", "axpy", "cpy"})
        if (has_whole_word(fn_original, fn, w))
            return KernelCategory::elementwise;
    return KernelCategory::other;
}

const char* category_name(KernelCategory c) {
    static constexpr std::array<const char*, 13> kNames{"gemm",    "conv",        "attention", "moe",      "norm",
                                                        "softmax", "elementwise", "reduce",    "indexing", "optimizer",
                                                        "fft",     "collective",  "other"};
    static_assert(kNames.size() == static_cast<std::size_t>(KernelCategory::other) + 1);
    return kNames[static_cast<std::size_t>(c)];
}

std::string short_kernel_name(std::string_view name) {
    // Drop everything inside <...>, [...] and (...) at any depth, remembering where the first
    // top-level '(' (the argument list) starts.
    std::string flat;
    int angle = 0, paren = 0, square = 0;
    bool args_seen = false;
    for (std::size_t i = 0; i < name.size() && !args_seen; ++i) {
        const char c = name[i];
        if (c == '<') {
            ++angle;
        } else if (c == '>') {
            angle = std::max(0, angle - 1);
        } else if (c == '[') {
            ++square;
        } else if (c == ']') {
            square = std::max(0, square - 1);
        } else if (c == '(') {
            if (angle == 0 && square == 0 && paren == 0 && !flat.empty() && flat.back() != ' ' && flat.back() != ':')
                args_seen = true;  // the argument list of the function
            ++paren;
        } else if (c == ')') {
            paren = std::max(0, paren - 1);
        } else if (angle == 0 && paren == 0 && square == 0) {
            flat += c;
        }
    }
    // The function name is the last blank-separated word (before it: "void", a return type).
    while (!flat.empty() && flat.back() == ' ')
        flat.pop_back();
    const std::size_t blank = flat.rfind(' ');
    std::string fn = blank == std::string::npos ? flat : flat.substr(blank + 1);
    // Keep the last two non-empty "::" components.
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= fn.size()) {
        const std::size_t sep = fn.find("::", start);
        const std::string part = fn.substr(start, sep == std::string::npos ? std::string::npos : sep - start);
        if (!part.empty())
            parts.push_back(part);
        if (sep == std::string::npos)
            break;
        start = sep + 2;
    }
    if (parts.empty()) {  // no function name: the first 60 bytes, not cutting a UTF-8 character
        std::size_t cut = std::min<std::size_t>(name.size(), 60);
        while (cut > 0 && cut < name.size() && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
            --cut;
        return std::string(name.substr(0, cut));
    }
    if (parts.size() == 1)
        return parts.back();
    return parts[parts.size() - 2] + "::" + parts.back();
}

}  // namespace bwacct
