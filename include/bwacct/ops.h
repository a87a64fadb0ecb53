// Op descriptions and their cost models: one pure function per op (src/model/<op>.cpp).
// Each throws InputError for a description that cannot be costed and OverflowError when a
// count does not fit in 64 bits.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "bwacct/cost.h"

namespace bwacct {

// ---- GEMM: C[M,N] = A[M,K] · B[K,N], `batch` independent problems (strided batched).
enum class GemmPass { fwd, bwd_data, bwd_weight, bwd, fwd_bwd };
struct GemmDesc {
    std::uint64_t m = 0, n = 0, k = 0, batch = 1;
    DType a = DType::bf16, b = DType::bf16, c = DType::bf16;
    bool bias = false;                      // C += bias[N]: one bias vector per batch problem, read once, in C's dtype
    bool trans_a = false, trans_b = false;  // layout only: the minimum bytes do not change
    GemmPass pass = GemmPass::fwd;
};
Cost gemm_cost(const GemmDesc& d);
GemmPass parse_gemm_pass(std::string_view s);  // "fwd", "bwd", "fwd+bwd", "bwd-data", "bwd-weight"
std::string_view gemm_pass_name(GemmPass p);

// ---- Attention: softmax(Q Kᵀ / √d) V over batch × heads, GQA/MQA via kv_heads.
enum class AttentionImpl { flash, naive };
struct AttentionDesc {
    std::uint64_t batch = 1, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
    bool causal = false;
    AttentionImpl impl = AttentionImpl::flash;
    DType dtype = DType::bf16;
};
Cost attention_cost(const AttentionDesc& d);
// Unmasked (query, key) pairs per head: S_q·S_k, or S_q·S_k − S_q(S_q−1)/2 when causal
// (queries aligned to the end of the keys).
Exact attention_pairs(const AttentionDesc& d);

// ---- Elementwise: `inputs` tensors in, `outputs` tensors out, same shape, FLOPs per element.
struct ElementwiseDesc {
    std::vector<std::uint64_t> shape;
    DType dtype = DType::bf16;
    std::uint64_t inputs = 1, outputs = 1, flops_per_elem = 1;
    Unit unit = Unit::vector;
};
Cost elementwise_cost(const ElementwiseDesc& d);
Exact element_count(const std::vector<std::uint64_t>& shape);

// A chain of `ops` elementwise kernels, unfused (each reads and writes HBM) and fused (one kernel
// reads the chain's inputs once and writes its outputs once). Every op does flops_per_elem.
struct FusionCost {
    Cost unfused;
    Cost fused;
};
FusionCost fused_chain_cost(const ElementwiseDesc& d, std::uint64_t ops);

// ---- Row-wise reductions over the last dimension of `shape`.
enum class NormKind { layernorm, rmsnorm, softmax };
struct NormDesc {
    NormKind kind = NormKind::layernorm;
    std::vector<std::uint64_t> shape;
    DType dtype = DType::bf16;
    // How many sets of the norm's parameters (layernorm γ and β, rmsnorm γ; D each) the op reads: 1; 0 for a norm
    // without them (LayerNorm(elementwise_affine=False)); 2 for one op normalising two tensors with their own (q and k).
    std::uint64_t parameter_sets = 1;
};
Cost norm_cost(const NormDesc& d);
// FLOPs per element (docs/formulas.md): layernorm 7, rmsnorm 4, softmax 5.
std::uint64_t norm_flops_per_elem(NormKind k);
std::string_view norm_name(NormKind k);

// ---- Collectives, as nccl-tests defines them. size_bytes is nccl-tests' "size": for allgather the
// gathered output and for reducescatter the input (both the total across ranks); for alltoall each
// rank's send buffer (n chunks of size/n, one per peer).
struct CollectiveDesc {
    CollectiveKind kind = CollectiveKind::allreduce;
    CollectiveAlgo algo = CollectiveAlgo::ring;
    std::uint64_t size_bytes = 0;
    std::uint64_t ranks = 2;
    DType dtype = DType::bf16;
    bool in_place = false;  // measurement only (send buffer inside the receive buffer, as NCCL defines); the model ignores it
    // The algorithm a trace's kernel shows (its name), not a user's choice: a GPU the catalog lists
    // without NVLS gets a note, not a refusal.
    bool algo_seen = false;
};
Cost collective_cost(const CollectiveDesc& d);
// nccl-tests' busbw factor for a collective over n ranks (its *GetBw functions).
double bus_factor(CollectiveKind k, std::uint64_t ranks);
std::string_view collective_name(CollectiveKind k);
CollectiveKind parse_collective(std::string_view s);
// The kind a canonical name ("allreduce", "allgather", ...; any case) names, or nullopt: parse_collective
// without the error, for names read from files.
std::optional<CollectiveKind> find_collective(std::string_view s);
std::string_view algo_name(CollectiveAlgo a);
CollectiveAlgo parse_algo(std::string_view s);

// ---- Convolution (1D/2D/3D), channels-first description: input N×C_in×spatial (layout does not
// change the minimum bytes). Per-spatial-dimension parameters hold one value per dimension or one
// value for all; empty means the default (stride 1, padding 0, dilation 1, output_padding 0).
// Transposed (deconvolution) follows PyTorch's ConvTranspose*d: weight C_in×(C_out/groups)×kernel.
// The passes are the layer's, as for GEMM: bwd-data gives dX, bwd-weight dW (and dbias).
struct ConvDesc {
    std::uint64_t batch = 1, in_channels = 0, out_channels = 0, groups = 1;
    std::vector<std::uint64_t> spatial;  // input H[,W[,D]]: 1 to 3 sizes
    std::vector<std::uint64_t> kernel, stride, padding, dilation, output_padding;
    bool transposed = false;
    bool bias = false;  // C_out elements, in the output's dtype
    DType input_dtype = DType::bf16, weight_dtype = DType::bf16, output_dtype = DType::bf16;
    GemmPass pass = GemmPass::fwd;
};
// One implicit GEMM, per group (`groups` of them): C[M,N] += A[M,K]·B[K,N].
struct ConvGemm {
    std::uint64_t m = 0, n = 0, k = 0;
};
// The shape a convolution resolves to: parameters broadcast to every spatial dimension, the output
// size, and the implicit GEMMs of its three passes (docs/formulas.md, "Convolution").
struct ConvGeometry {
    std::vector<std::uint64_t> in, kernel, stride, padding, dilation, output_padding, out;
    std::uint64_t spatial_in = 0, spatial_out = 0, kernel_volume = 0;
    ConvGemm fwd, bwd_data, bwd_weight;
};
ConvGeometry conv_geometry(const ConvDesc& d);  // throws InputError naming the option for impossible shapes
Cost conv_cost(const ConvDesc& d);

}  // namespace bwacct
