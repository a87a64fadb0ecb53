// cuBLASLt GEMM measurement. bwacct's GEMM is row-major, C[M,N] = A[M,K]·B[K,N] per batch problem;
// cuBLASLt is column-major, so it computes the transpose, Cᵀ[N,M] = Bᵀ[N,K]·Aᵀ[K,M]: a row-major
// matrix read column-major is its transpose, so no data moves. cuBLASLt's "A" operand is our B and
// its "B" operand is our A (map_to_lt below).
#include "gemm_lt.h"

#include <cublasLt.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../dynlib.h"
#include "../flush_rule.h"
#include "bwacct/ops.h"
#include "check_kernels.h"
#include "cupti_activity.h"
#include "dram_counters.h"
#include "timing.h"

namespace bwacct::measure::cuda {
namespace {

using checks::Elem;

constexpr std::size_t kWorkspaceBytes = 32ull << 20;  // 32 MiB, as NVIDIA recommends for Hopper
constexpr int kMaxCandidates = 8;
constexpr std::size_t kRandomSamples = 64;

// ---- cuBLASLt, loaded once and kept loaded for the life of the process.
struct LtApi {
    DynLib lib{{"libcublasLt.so.13", "libcublasLt.so"},
               "install the CUDA toolkit's cuBLAS (libcublas-13-0 / cuda-libraries-13-0) or put libcublasLt.so.13 "
               "on LD_LIBRARY_PATH"};
#define BWACCT_LT_SYM(name) decltype(&::name) name = lib.sym<decltype(&::name)>(#name)
    BWACCT_LT_SYM(cublasLtCreate);
    BWACCT_LT_SYM(cublasLtDestroy);
    BWACCT_LT_SYM(cublasLtGetVersion);
    BWACCT_LT_SYM(cublasLtGetStatusName);
    BWACCT_LT_SYM(cublasLtMatmul);
    BWACCT_LT_SYM(cublasLtMatmulDescCreate);
    BWACCT_LT_SYM(cublasLtMatmulDescDestroy);
    BWACCT_LT_SYM(cublasLtMatmulDescSetAttribute);
    BWACCT_LT_SYM(cublasLtMatrixLayoutCreate);
    BWACCT_LT_SYM(cublasLtMatrixLayoutDestroy);
    BWACCT_LT_SYM(cublasLtMatrixLayoutSetAttribute);
    BWACCT_LT_SYM(cublasLtMatmulPreferenceCreate);
    BWACCT_LT_SYM(cublasLtMatmulPreferenceDestroy);
    BWACCT_LT_SYM(cublasLtMatmulPreferenceSetAttribute);
    BWACCT_LT_SYM(cublasLtMatmulAlgoGetHeuristic);
#undef BWACCT_LT_SYM
};

const LtApi& lt_api() {
    // Never unloaded: cuBLASLt keeps internal state for the process. A failed load throws and is retried next call.
    static const LtApi* api = new LtApi();
    return *api;
}

void lt_check(const LtApi& api, cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS) {
        const char* name = api.cublasLtGetStatusName(s);
        if (s == CUBLAS_STATUS_ALLOC_FAILED)
            throw OutOfMemory(std::string("out of GPU memory in ") + what + ": CUBLAS_STATUS_ALLOC_FAILED");
        throw MeasureError(std::string("cuBLASLt error in ") + what + ": " +
                           (name != nullptr ? name : ("status " + std::to_string(static_cast<int>(s))).c_str()));
    }
}

// ---- RAII holders (destructors never throw).
struct DeviceBuffer {
    void* ptr = nullptr;
    DeviceBuffer(std::size_t bytes, const char* what) {
        if (bytes > 0)
            check(cudaMalloc(&ptr, bytes), what);
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (ptr != nullptr)
            (void)cudaFree(ptr);
    }
};

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() {
        if (s != nullptr) {
            (void)cudaStreamSynchronize(s);
            (void)cudaStreamDestroy(s);
        }
    }
};

struct LtHandle {
    const LtApi& api;
    cublasLtHandle_t h = nullptr;
    explicit LtHandle(const LtApi& a) : api(a) { lt_check(api, api.cublasLtCreate(&h), "cublasLtCreate"); }
    LtHandle(const LtHandle&) = delete;
    LtHandle& operator=(const LtHandle&) = delete;
    ~LtHandle() {
        if (h != nullptr)
            (void)api.cublasLtDestroy(h);
    }
};

struct MatmulDesc {
    const LtApi& api;
    cublasLtMatmulDesc_t d = nullptr;
    MatmulDesc(const LtApi& a, cublasComputeType_t compute, cudaDataType_t scale) : api(a) {
        lt_check(api, api.cublasLtMatmulDescCreate(&d, compute, scale), "cublasLtMatmulDescCreate");
    }
    MatmulDesc(const MatmulDesc&) = delete;
    MatmulDesc& operator=(const MatmulDesc&) = delete;
    ~MatmulDesc() {
        if (d != nullptr)
            (void)api.cublasLtMatmulDescDestroy(d);
    }
    template <typename T>
    void set(cublasLtMatmulDescAttributes_t attr, const T& value, const char* what) {
        lt_check(api, api.cublasLtMatmulDescSetAttribute(d, attr, &value, sizeof(T)), what);
    }
};

struct MatrixLayout {
    const LtApi& api;
    cublasLtMatrixLayout_t l = nullptr;
    MatrixLayout(const LtApi& a, cudaDataType_t type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld, std::int32_t batch,
                 std::int64_t batch_stride)
        : api(a) {
        lt_check(api, api.cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld), "cublasLtMatrixLayoutCreate");
        if (batch > 1) {
            lt_check(api, api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)),
                     "CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT");
            lt_check(api,
                     api.cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &batch_stride,
                                                          sizeof(batch_stride)),
                     "CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET");
        }
    }
    MatrixLayout(const MatrixLayout&) = delete;
    MatrixLayout& operator=(const MatrixLayout&) = delete;
    ~MatrixLayout() {
        if (l != nullptr)
            (void)api.cublasLtMatrixLayoutDestroy(l);
    }
};

struct Preference {
    const LtApi& api;
    cublasLtMatmulPreference_t p = nullptr;
    explicit Preference(const LtApi& a) : api(a) {
        lt_check(api, api.cublasLtMatmulPreferenceCreate(&p), "cublasLtMatmulPreferenceCreate");
    }
    Preference(const Preference&) = delete;
    Preference& operator=(const Preference&) = delete;
    ~Preference() {
        if (p != nullptr)
            (void)api.cublasLtMatmulPreferenceDestroy(p);
    }
};

// ---- Types: which cuBLASLt configuration a GemmDesc maps to, and how exactly C can be checked.
struct TypePlan {
    Elem ea{}, eb{}, ec{};  // storage of A, B, C (and bias, which is in C's type)
    cudaDataType_t ta{}, tb{}, tc{};
    cublasComputeType_t compute{};
    cudaDataType_t scale{};  // alpha/beta type
    bool fp8 = false;
    double u_out = 0;     // unit roundoff of C's format (round to nearest)
    double rel_norm = 0;  // tolerance term, relative to ‖a∘b‖₂ of the entry's dot product
    std::string tolerance;
};

bool is_fp8(DType t) { return t == DType::fp8_e4m3 || t == DType::fp8_e5m2; }

Elem storage(DType t) {
    switch (t) {
        case DType::bf16:
            return Elem::bf16;
        case DType::fp16:
            return Elem::fp16;
        case DType::fp32:
        case DType::tf32:
            return Elem::fp32;
        case DType::fp64:
            return Elem::fp64;
        case DType::fp8_e4m3:
            return Elem::e4m3;
        case DType::fp8_e5m2:
            return Elem::e5m2;
        default:
            return Elem::int8;  // refused before use
    }
}

cudaDataType_t cuda_type(Elem e) {
    switch (e) {
        case Elem::bf16:
            return CUDA_R_16BF;
        case Elem::fp16:
            return CUDA_R_16F;
        case Elem::fp32:
            return CUDA_R_32F;
        case Elem::fp64:
            return CUDA_R_64F;
        case Elem::e4m3:
            return CUDA_R_8F_E4M3;
        case Elem::e5m2:
            return CUDA_R_8F_E5M2;
        case Elem::int8:
            return CUDA_R_8I;
    }
    return CUDA_R_8I;
}

double unit_roundoff(Elem e) {
    switch (e) {
        case Elem::bf16:
            return 0x1.0p-8;
        case Elem::fp16:
            return 0x1.0p-11;
        case Elem::fp32:
            return 0x1.0p-24;
        case Elem::fp64:
            return 0x1.0p-53;
        case Elem::e4m3:
            return 0x1.0p-4;
        case Elem::e5m2:
            return 0x1.0p-3;
        case Elem::int8:
            return 0;
    }
    return 0;
}

std::string name_of(DType t) { return std::string(dtype_name(t)); }

std::string short_num(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", x);
    return buf;
}

TypePlan plan_types(const GemmDesc& d) {
    for (DType t : {d.a, d.b, d.c})
        if (t == DType::fp4 || t == DType::mxfp4 || t == DType::int8 || t == DType::int4)
            throw MeasureError("GEMM with " + name_of(t) +
                               " is not measurable yet (bwacct measures bf16, fp16, tf32, fp32, fp64 and fp8 "
                               "e4m3/e5m2 GEMMs); model it without --measure");
    TypePlan p;
    p.ea = storage(d.a);
    p.eb = storage(d.b);
    p.ec = storage(d.c);
    p.ta = cuda_type(p.ea);
    p.tb = cuda_type(p.eb);
    p.tc = cuda_type(p.ec);
    p.scale = CUDA_R_32F;
    p.compute = CUBLAS_COMPUTE_32F;
    const double kf = static_cast<double>(d.k);
    const double acc32 = 16 * 0x1.0p-24 * std::sqrt(kf);  // fp32 accumulation, random rounding errors, 16× margin
    const std::string out = "2^" + std::to_string(static_cast<int>(std::lround(std::log2(unit_roundoff(p.ec))))) + "·|ref| (" +
                            name_of(d.c) + " output rounding)";
    auto refuse_c = [&](const char* allowed) {
        throw MeasureError("GEMM with A/B " + name_of(d.a) + " and C " + name_of(d.c) +
                           " is not measurable: cuBLASLt takes C in " + allowed + " for these inputs (--dtype-c)");
    };

    if (is_fp8(d.a) || is_fp8(d.b)) {
        if (!is_fp8(d.a) || !is_fp8(d.b))
            throw MeasureError("GEMM with A " + name_of(d.a) + " and B " + name_of(d.b) +
                               " is not measurable: cuBLASLt fp8 needs both A and B in fp8 (e4m3 or e5m2)");
        if (d.a == DType::fp8_e5m2 && d.b == DType::fp8_e5m2)
            throw MeasureError(
                "GEMM with A and B both fp8 e5m2 is not measurable: cuBLASLt has no e5m2×e5m2 kernel "
                "with per-tensor scales (use e4m3 for A or B)");
        if (d.c != DType::bf16 && d.c != DType::fp16 && d.c != DType::fp32)
            refuse_c("bf16, fp16 or fp32");
        if (d.c == DType::fp32 && d.bias)
            throw MeasureError(
                "fp8 GEMM with fp32 C and --bias is not measurable as modelled: cuBLASLt takes a bf16 "
                "bias there, the model counts it in C's type (use --dtype-c bf16)");
        p.fp8 = true;
        p.u_out = unit_roundoff(p.ec);
        // Inputs and products are exact; fp8 tensor-core accumulation keeps fewer bits between cuBLASLt's promotions
        // to fp32 (fast accumulation off), and split-K may reduce in C's type: 2^-8 and 4 output ulps of ‖a∘b‖₂.
        p.rel_norm = 0x1.0p-8 + 4 * p.u_out + acc32;
        p.tolerance = out + " + " + short_num(p.rel_norm) +
                      "·‖a∘b‖₂ (fp8 tensor-core accumulation between fp32 promotions, split-K reduction in C's type)";
        return p;
    }
    if (d.a != d.b)
        throw MeasureError("GEMM with A " + name_of(d.a) + " and B " + name_of(d.b) +
                           " is not measurable: cuBLASLt needs A and B in one type (or an fp8 e4m3/e5m2 pair)");
    switch (d.a) {
        case DType::bf16:
        case DType::fp16:
            if (d.c != d.a && d.c != DType::fp32)
                refuse_c(d.a == DType::bf16 ? "bf16 or fp32" : "fp16 or fp32");
            p.u_out = unit_roundoff(p.ec);
            p.rel_norm = 4 * p.u_out + acc32;
            p.tolerance = out + " + " + short_num(p.rel_norm) +
                          "·‖a∘b‖₂ (exact products, fp32 accumulation, split-K reduction in C's type)";
            return p;
        case DType::tf32:
            if (d.c != DType::tf32 && d.c != DType::fp32)
                refuse_c("fp32");
            p.compute = CUBLAS_COMPUTE_32F_FAST_TF32;
            p.u_out = unit_roundoff(Elem::fp32);
            p.rel_norm = 8 * 0x1.0p-10 + acc32;
            p.tolerance =
                out + " + " + short_num(p.rel_norm) + "·‖a∘b‖₂ (inputs rounded to tf32's 10 mantissa bits, fp32 accumulation)";
            return p;
        case DType::fp32:
            if (d.c != DType::fp32 && d.c != DType::tf32)
                refuse_c("fp32");
            p.u_out = unit_roundoff(Elem::fp32);
            p.rel_norm = 1e-5 + acc32;
            p.tolerance = out + " + " + short_num(p.rel_norm) + "·‖a∘b‖₂ (fp32 accumulation)";
            return p;
        case DType::fp64:
            if (d.c != DType::fp64)
                refuse_c("fp64");
            p.compute = CUBLAS_COMPUTE_64F;
            p.scale = CUDA_R_64F;
            p.u_out = unit_roundoff(Elem::fp64);
            p.rel_norm = 1e-13 + 16 * 0x1.0p-53 * std::sqrt(kf);
            p.tolerance = out + " + " + short_num(p.rel_norm) + "·‖a∘b‖₂ (fp64 accumulation)";
            return p;
        default:
            break;
    }
    throw MeasureError("GEMM with " + name_of(d.a) + " is not measurable with cuBLASLt");
}

// ---- Layout: row-major bwacct operands as cuBLASLt column-major operands.
//   A not transposed: stored [M,K], A(i,k) at i·K + k.   transposed: stored [K,M], A(i,k) at k·M + i.
//   B not transposed: stored [K,N], B(k,j) at k·N + j.   transposed: stored [N,K], B(k,j) at j·K + k.
//   C: stored [M,N], C(i,j) at i·N + j. Batch strides M·K, K·N, M·N; bias N per batch problem.
// Read column-major, stored [R,S] row-major with ld S is the S×R matrix Xᵀ. cuBLASLt computes
// D(N×M) = op(A')·op(B') with A' = our B and B' = our A:
//   A' (our B): not transposed → stored Bᵀ (N×K, ld N), op N;  transposed → stored B (K×N, ld K), op T.
//   B' (our A): not transposed → stored Aᵀ (K×M, ld K), op N;  transposed → stored A (M×K, ld M), op T.
//   D: Cᵀ (N×M, ld N).
struct LtOperand {
    std::uint64_t rows = 0, cols = 0;
    std::int64_t ld = 0, batch_stride = 0;
    cublasOperation_t op = CUBLAS_OP_N;
};
struct LtProblem {
    LtOperand a, b, c;  // cuBLASLt's A (our B), B (our A), C/D (our C)
};

LtProblem map_to_lt(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool trans_a, bool trans_b) {
    LtProblem p;
    const auto i64 = [](std::uint64_t v) { return static_cast<std::int64_t>(v); };
    p.a = trans_b ? LtOperand{k, n, i64(k), i64(k * n), CUBLAS_OP_T} : LtOperand{n, k, i64(n), i64(k * n), CUBLAS_OP_N};
    p.b = trans_a ? LtOperand{m, k, i64(m), i64(m * k), CUBLAS_OP_T} : LtOperand{k, m, i64(k), i64(m * k), CUBLAS_OP_N};
    p.c = LtOperand{n, m, i64(n), i64(m * n), CUBLAS_OP_N};
    return p;
}

// ---- Host reference: formats decoded from their bit patterns.
double decode(Elem e, const unsigned char* p) {
    switch (e) {
        case Elem::bf16: {
            std::uint16_t h;
            std::memcpy(&h, p, 2);
            const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
            float f;
            std::memcpy(&f, &u, 4);
            return f;
        }
        case Elem::fp16: {
            std::uint16_t h;
            std::memcpy(&h, p, 2);
            const int exp = (h >> 10) & 0x1F, man = h & 0x3FF;
            double v = exp == 0    ? std::ldexp(man, -24)
                       : exp == 31 ? (man != 0 ? std::nan("") : INFINITY)
                                   : std::ldexp(1024 + man, exp - 25);
            return (h & 0x8000) != 0 ? -v : v;
        }
        case Elem::fp32: {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        case Elem::fp64: {
            double v;
            std::memcpy(&v, p, 8);
            return v;
        }
        case Elem::e4m3: {  // bias 7, 3 mantissa bits, no infinity, S.1111.111 = NaN, max 448
            const int b = *p, exp = (b >> 3) & 0xF, man = b & 7;
            double v = exp == 15 && man == 7 ? std::nan("") : exp == 0 ? std::ldexp(man, -9) : std::ldexp(8 + man, exp - 10);
            return (b & 0x80) != 0 ? -v : v;
        }
        case Elem::e5m2: {  // bias 15, 2 mantissa bits, IEEE-like infinity and NaN, max 57344
            const int b = *p, exp = (b >> 2) & 0x1F, man = b & 3;
            double v = exp == 31  ? (man != 0 ? std::nan("") : INFINITY)
                       : exp == 0 ? std::ldexp(man, -16)
                                  : std::ldexp(4 + man, exp - 17);
            return (b & 0x80) != 0 ? -v : v;
        }
        case Elem::int8:
            return static_cast<signed char>(*p);
    }
    return 0;
}

struct Entry {
    std::uint64_t b, i, j;
};

std::uint64_t next_random(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Every entry when there are few; else the four corners of the first and last problem and 64 random ones.
std::vector<Entry> sample_entries(std::uint64_t batch, std::uint64_t m, std::uint64_t n) {
    std::vector<Entry> out;
    const std::uint64_t total = batch * m * n;
    if (total <= kRandomSamples + 4) {
        for (std::uint64_t t = 0; t < total; ++t)
            out.push_back({t / (m * n), (t / n) % m, t % n});
        return out;
    }
    out = {{0, 0, 0}, {0, m - 1, 0}, {0, 0, n - 1}, {batch - 1, m - 1, n - 1}};
    std::uint64_t state = 0x5EED0F6E11ull;
    for (std::size_t s = 0; s < kRandomSamples; ++s)
        out.push_back({next_random(state) % batch, next_random(state) % m, next_random(state) % n});
    return out;
}

struct Layouts {
    bool trans_a = false, trans_b = false;
};

// Element offsets and strides of A's row i, B's column j, C(i,j) and bias(j) in batch problem b.
struct Offsets {
    std::vector<std::uint64_t> a, b, c, bias;
    std::uint64_t stride_a = 1, stride_b = 1;
};

Offsets entry_offsets(const std::vector<Entry>& es, std::uint64_t m, std::uint64_t n, std::uint64_t k, Layouts l) {
    Offsets o;
    o.stride_a = l.trans_a ? m : 1;
    o.stride_b = l.trans_b ? 1 : n;
    for (const Entry& e : es) {
        o.a.push_back(e.b * m * k + (l.trans_a ? e.i : e.i * k));
        o.b.push_back(e.b * k * n + (l.trans_b ? e.j * k : e.j));
        o.c.push_back(e.b * m * n + e.i * n + e.j);
        o.bias.push_back(e.b * n + e.j);
    }
    return o;
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
    if (a != 0 && b > UINT64_MAX / a)
        throw MeasureError(std::string("GEMM too large to measure: ") + what + " overflows 64 bits");
    return a * b;
}

struct Candidate {
    cublasLtMatmulAlgo_t algo{};
    std::size_t workspace = 0;
    int index = 0;  // 1-based position in the heuristic's list
    double screen_us = 0;
};

}  // namespace

Timing measure_gemm(const GemmDesc& d, const SamplePolicy& p, int device) {
    if (d.pass != GemmPass::fwd)
        throw MeasureError("GEMM measurement times the forward GEMM only; --pass " + std::string(gemm_pass_name(d.pass)) +
                           " is modelled, not measured (measure each GEMM of the pass with its own --m/--n/--k)");
    if (d.m == 0 || d.n == 0 || d.k == 0 || d.batch == 0)
        throw MeasureError("GEMM dimensions must be positive to measure");
    if (d.m > INT32_MAX || d.n > INT32_MAX || d.k > INT32_MAX || d.batch > INT32_MAX)
        throw MeasureError("GEMM dimensions and batch must each fit in 32 bits for cuBLASLt");
    const TypePlan tp = plan_types(d);

    check(cudaSetDevice(device), "cudaSetDevice");
    int cc_major = 0, cc_minor = 0, l2 = 0;
    check(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&cc_minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2 size)");
    if (tp.fp8 && (cc_major * 10 + cc_minor) < 89)
        throw MeasureError("fp8 GEMM needs compute capability 8.9 or later; this GPU is " + std::to_string(cc_major) + "." +
                           std::to_string(cc_minor));

    const LtApi& api = lt_api();
    std::vector<std::string> notes;

    // fp8: cuBLASLt runs only the "TN" layout (cuBLASLt A transposed, B not) on Ada, Hopper and
    // Blackwell GeForce (8.9, 9.x, 12.x). In our terms: B stored [N,K] (trans_b) and A stored [M,K].
    Layouts lay{d.trans_a, d.trans_b};
    const bool tn_only = tp.fp8 && (cc_major == 8 || cc_major == 9 || cc_major == 12);
    if (tn_only && (lay.trans_a || !lay.trans_b)) {
        lay = {false, true};
        notes.push_back("fp8 on compute capability " + std::to_string(cc_major) + "." + std::to_string(cc_minor) +
                        " runs only in cuBLASLt's TN layout: measured with A stored [M,K] and B stored [N,K] "
                        "(as --trans-b), not the requested layout; the bytes moved are the same");
    }

    const std::uint64_t m = d.m, n = d.n, k = d.k, batch = d.batch;
    const std::uint64_t elems_a = checked_mul(checked_mul(m, k, "A"), batch, "A");
    const std::uint64_t elems_b = checked_mul(checked_mul(k, n, "B"), batch, "B");
    const std::uint64_t elems_c = checked_mul(checked_mul(m, n, "C"), batch, "C");
    const std::uint64_t elems_bias = d.bias ? n * batch : 0;
    const unsigned sa = checks::elem_bytes(tp.ea), sb = checks::elem_bytes(tp.eb), sc = checks::elem_bytes(tp.ec);
    const std::uint64_t bytes_a = checked_mul(elems_a, sa, "A bytes"), bytes_b = checked_mul(elems_b, sb, "B bytes"),
                        bytes_c = checked_mul(elems_c, sc, "C bytes"), bytes_bias = elems_bias * sc;

    DeviceBuffer A(bytes_a, "cudaMalloc(A)"), B(bytes_b, "cudaMalloc(B)"), C(bytes_c, "cudaMalloc(C)"),
        bias(bytes_bias, "cudaMalloc(bias)"), workspace(kWorkspaceBytes, "cudaMalloc(cuBLASLt workspace)"),
        scale_a_buf(sizeof(float), "cudaMalloc(fp8 scale of A)"), scale_b_buf(sizeof(float), "cudaMalloc(fp8 scale of B)"),
        counter(sizeof(unsigned long long), "cudaMalloc(counter)");
    Stream stream;  // declared after the buffers: on any exit it is synchronized before they are freed

    check(checks::fill_uniform(A.ptr, tp.ea, elems_a, 0xA11CE5EEDull, stream.s), "fill A");
    check(checks::fill_uniform(B.ptr, tp.eb, elems_b, 0xB0B5EEDull, stream.s), "fill B");
    if (d.bias)
        check(checks::fill_uniform(bias.ptr, tp.ec, elems_bias, 0xB1A55EEDull, stream.s), "fill bias");
    // One allocation per scale: cuBLASLt 13 refuses (CUBLAS_STATUS_NOT_SUPPORTED, every candidate) an fp8
    // scale pointer that is not 16-byte aligned, as two floats of one buffer were (seen on an H100).
    const float one = 1.0f;
    check(cudaMemcpyAsync(scale_a_buf.ptr, &one, sizeof one, cudaMemcpyHostToDevice, stream.s), "cudaMemcpy(fp8 scale of A)");
    check(cudaMemcpyAsync(scale_b_buf.ptr, &one, sizeof one, cudaMemcpyHostToDevice, stream.s), "cudaMemcpy(fp8 scale of B)");
    check(cudaMemsetAsync(C.ptr, 0xFF, bytes_c, stream.s), "cudaMemset(C)");
    check(cudaStreamSynchronize(stream.s), "fill GEMM inputs");

    // ---- cuBLASLt problem.
    LtHandle handle(api);
    const LtProblem lp = map_to_lt(m, n, k, lay.trans_a, lay.trans_b);
    MatmulDesc op(api, tp.compute, tp.scale);
    op.set(CUBLASLT_MATMUL_DESC_TRANSA, lp.a.op, "CUBLASLT_MATMUL_DESC_TRANSA");
    op.set(CUBLASLT_MATMUL_DESC_TRANSB, lp.b.op, "CUBLASLT_MATMUL_DESC_TRANSB");
    if (d.bias) {
        const std::uint32_t epilogue = CUBLASLT_EPILOGUE_BIAS;  // bias[N]: one per row of Cᵀ, broadcast over M
        op.set(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue, "CUBLASLT_MATMUL_DESC_EPILOGUE");
        const void* bias_ptr = bias.ptr;
        op.set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias_ptr, "CUBLASLT_MATMUL_DESC_BIAS_POINTER");
        if (batch > 1)
            op.set(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, static_cast<std::int64_t>(n),
                   "CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE");
    }
    if (tp.fp8) {
        // cuBLASLt's A is our B and vice versa; both scales are 1.0 here.
        const void* scale_a = scale_b_buf.ptr;
        const void* scale_b = scale_a_buf.ptr;
        op.set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, scale_a, "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER");
        op.set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, scale_b, "CUBLASLT_MATMUL_DESC_B_SCALE_POINTER");
    }
    const auto b32 = static_cast<std::int32_t>(batch);
    MatrixLayout la(api, tp.tb, lp.a.rows, lp.a.cols, lp.a.ld, b32, lp.a.batch_stride);  // our B
    MatrixLayout lb(api, tp.ta, lp.b.rows, lp.b.cols, lp.b.ld, b32, lp.b.batch_stride);  // our A
    MatrixLayout lc(api, tp.tc, lp.c.rows, lp.c.cols, lp.c.ld, b32, lp.c.batch_stride);
    Preference pref(api);
    const std::uint64_t ws = kWorkspaceBytes;
    lt_check(api, api.cublasLtMatmulPreferenceSetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
             "CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES");

    cublasLtMatmulHeuristicResult_t results[kMaxCandidates] = {};
    int returned = 0;
    const cublasStatus_t hs =
        api.cublasLtMatmulAlgoGetHeuristic(handle.h, op.d, la.l, lb.l, lc.l, lc.l, pref.p, kMaxCandidates, results, &returned);
    const std::string what = std::string(dtype_name(d.a)) + "×" + std::string(dtype_name(d.b)) + "→" +
                             std::string(dtype_name(d.c)) + " GEMM " + std::to_string(m) + "×" + std::to_string(n) + "×" +
                             std::to_string(k) + (batch > 1 ? " batch " + std::to_string(batch) : "");
    const std::string fp8_hint =
        tp.fp8 ? std::string(" (fp8 needs 16-byte aligned leading dimensions: K a multiple of 16, N of 8") +
                     (lay.trans_a || !lay.trans_b ? "; try the TN layout: --trans-b without --trans-a)" : ")")
               : "";
    if (hs == CUBLAS_STATUS_NOT_SUPPORTED || (hs == CUBLAS_STATUS_SUCCESS && returned == 0))
        throw MeasureError("cuBLASLt has no algorithm for the " + what + fp8_hint);
    lt_check(api, hs, "cublasLtMatmulAlgoGetHeuristic");

    const float alpha32 = 1.0f, beta32 = 0.0f;
    const double alpha64 = 1.0, beta64 = 0.0;
    const void* alpha = tp.scale == CUDA_R_64F ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = tp.scale == CUDA_R_64F ? static_cast<const void*>(&beta64) : &beta32;
    auto matmul = [&](const Candidate& c, cudaStream_t s) {
        return api.cublasLtMatmul(handle.h, op.d, alpha, B.ptr, la.l, A.ptr, lb.l, beta, C.ptr, lc.l, C.ptr, lc.l, &c.algo,
                                  workspace.ptr, kWorkspaceBytes, s);
    };

    // Candidates the heuristic returned that run: one untimed call each, checked.
    std::vector<Candidate> cands;
    std::string refusals;  // why each candidate did not run, for the error when none did
    auto refused = [&](int i, const std::string& why) {
        refusals += (refusals.empty() ? "#" : ", #") + std::to_string(i + 1) + " " + why;
    };
    for (int i = 0; i < returned; ++i) {
        if (results[i].state != CUBLAS_STATUS_SUCCESS || results[i].workspaceSize > kWorkspaceBytes) {
            refused(i, results[i].state != CUBLAS_STATUS_SUCCESS ? api.cublasLtGetStatusName(results[i].state)
                                                                 : "workspace over 32 MiB");
            continue;
        }
        Candidate c{results[i].algo, results[i].workspaceSize, i + 1, 0};
        const cublasStatus_t s = matmul(c, stream.s);
        if (s != CUBLAS_STATUS_SUCCESS) {
            refused(i, api.cublasLtGetStatusName(s));
            notes.push_back("cuBLASLt candidate " + std::to_string(i + 1) + " of " + std::to_string(returned) +
                            " skipped: " + api.cublasLtGetStatusName(s));
            continue;
        }
        check(cudaStreamSynchronize(stream.s), "cublasLtMatmul (first run)");
        cands.push_back(c);
    }
    if (cands.empty())
        throw MeasureError("no cuBLASLt algorithm ran for the " + what + " (candidates: " + refusals + ")" + fp8_hint);

    const std::uint64_t working_set = bytes_a + bytes_b + bytes_c + bytes_bias;
    Region region;
    region.stream = stream.s;
    region.device = device;
    region.flush_l2 = wants_l2_flush(p.cold, working_set, static_cast<std::uint64_t>(std::max(l2, 0)));
    auto enqueue_for = [&](const Candidate& c) {
        return [api_p = &api, matmul_p = &matmul, c](cudaStream_t s) { lt_check(*api_p, (*matmul_p)(c, s), "cublasLtMatmul"); };
    };

    // Screen the candidates with a short policy; the fastest median is timed with the caller's policy.
    std::size_t best = 0;
    if (cands.size() > 1) {
        SamplePolicy screen = p;
        screen.warmup = 1;
        screen.min_samples = 3;
        screen.max_samples = 10;
        screen.target_cv = std::max(p.target_cv, 0.02);
        screen.budget_ms = std::max(1.0, p.budget_ms / static_cast<double>(cands.size() + 1));
        std::string line = "cuBLASLt candidates (heuristic order), screening median µs:";
        for (std::size_t i = 0; i < cands.size(); ++i) {
            cands[i].screen_us = time_region(region, screen, enqueue_for(cands[i])).stats.median_us;
            if (cands[i].screen_us < cands[best].screen_us)
                best = i;
        }
        for (std::size_t i = 0; i < cands.size(); ++i)
            line += " #" + std::to_string(cands[i].index) + " " + short_num(cands[i].screen_us) + (i == best ? " (kept)" : "");
        notes.push_back(line);
    }
    const Candidate& chosen = cands[best];

    const Clocks before = read_clocks(device);
    Timing t = time_region(region, p, enqueue_for(chosen));
    t.clocks_before = before;
    t.clocks_after = read_clocks(device);
    t.source = TimeSource::measured;
    t.detail = "cuBLASLt heuristic candidate " + std::to_string(chosen.index) + " of " + std::to_string(returned) +
               " (fastest); workspace 32 MiB";
    const std::size_t v = api.cublasLtGetVersion();
    notes.push_back("cuBLASLt " + std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
                    std::to_string(v % 100) + " (" + api.lib.name() + "); algorithm workspace " +
                    std::to_string(chosen.workspace) + " bytes" + (tp.fp8 ? "; fp8 scales 1.0, fast accumulation off" : ""));

    // The kernels of one more (untimed) run, traced (CUPTI Activity API: before the Range Profiler's run).
    trace_one_run(t, [&] {
        lt_check(api, matmul(chosen, stream.s), "cublasLtMatmul (traced run)");
        check(cudaStreamSynchronize(stream.s), "the traced GEMM run (cudaStreamSynchronize)");
    });

    // DRAM bytes of one more (untimed) run of the chosen algorithm, against the GEMM's lower bound
    // (A, B, bias read once, C written once); the verification below rewrites C anyway.
    const Cost lower = gemm_cost(d);
    add_dram_bytes(t, device, lower.bytes_read, lower.bytes_written, [&] {
        lt_check(api, matmul(chosen, stream.s), "cublasLtMatmul (profiled run)");
        check(cudaStreamSynchronize(stream.s), "the profiled GEMM run (cudaStreamSynchronize)");
    });

    // ---- Verification: poison C, run once, every element written, sampled entries against float64.
    check(cudaMemsetAsync(C.ptr, 0xFF, bytes_c, stream.s), "cudaMemset(C poison)");
    check(cudaMemsetAsync(counter.ptr, 0, sizeof(unsigned long long), stream.s), "cudaMemset(counter)");
    lt_check(api, matmul(chosen, stream.s), "cublasLtMatmul (verification run)");
    check(checks::count_nonfinite(C.ptr, tp.ec, elems_c, static_cast<unsigned long long*>(counter.ptr), stream.s),
          "count non-finite C");
    unsigned long long nonfinite = 0;
    check(cudaMemcpyAsync(&nonfinite, counter.ptr, sizeof nonfinite, cudaMemcpyDeviceToHost, stream.s), "cudaMemcpy(counter)");

    const std::vector<Entry> entries = sample_entries(batch, m, n);
    const Offsets off = entry_offsets(entries, m, n, k, lay);
    const std::uint64_t S = entries.size();
    std::vector<std::uint64_t> all_offsets;
    for (const auto* v_ : {&off.a, &off.b, &off.c, &off.bias})
        all_offsets.insert(all_offsets.end(), v_->begin(), v_->end());
    DeviceBuffer d_off(all_offsets.size() * sizeof(std::uint64_t), "cudaMalloc(offsets)");
    const std::uint64_t ga = S * k * sa, gb = S * k * sb, gc = S * sc, gbias = d.bias ? S * sc : 0;
    DeviceBuffer gathered(ga + gb + gc + gbias, "cudaMalloc(gathered entries)");
    auto* g = static_cast<unsigned char*>(gathered.ptr);
    const auto* o = static_cast<const std::uint64_t*>(d_off.ptr);
    check(cudaMemcpyAsync(d_off.ptr, all_offsets.data(), all_offsets.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice,
                          stream.s),
          "cudaMemcpy(offsets)");
    check(checks::gather_strided(g, A.ptr, sa, S, k, o, off.stride_a, stream.s), "gather A rows");
    check(checks::gather_strided(g + ga, B.ptr, sb, S, k, o + S, off.stride_b, stream.s), "gather B columns");
    check(checks::gather_strided(g + ga + gb, C.ptr, sc, S, 1, o + 2 * S, 1, stream.s), "gather C entries");
    if (d.bias)
        check(checks::gather_strided(g + ga + gb + gc, bias.ptr, sc, S, 1, o + 3 * S, 1, stream.s), "gather bias");
    std::vector<unsigned char> host(ga + gb + gc + gbias);
    check(cudaMemcpyAsync(host.data(), gathered.ptr, host.size(), cudaMemcpyDeviceToHost, stream.s),
          "cudaMemcpy(gathered entries)");
    check(cudaStreamSynchronize(stream.s), "GEMM verification");

    if (nonfinite != 0)
        throw MeasureError("GEMM verification failed: " + std::to_string(nonfinite) + " of " + std::to_string(elems_c) +
                           " elements of C are NaN or infinite after the run (unwritten or overflowed)");
    double worst = 0;
    std::size_t failed = 0;
    std::string first_failure;
    for (std::uint64_t s = 0; s < S; ++s) {
        const unsigned char* ra = host.data() + s * k * sa;
        const unsigned char* rb = host.data() + ga + s * k * sb;
        double ref = 0, sq = 0;
        for (std::uint64_t q = 0; q < k; ++q) {
            const double prod = decode(tp.ea, ra + q * sa) * decode(tp.eb, rb + q * sb);
            ref += prod;
            sq += prod * prod;
        }
        if (d.bias) {
            const double bv = decode(tp.ec, host.data() + ga + gb + gc + s * sc);
            ref += bv;
            sq += bv * bv;
        }
        const double got = decode(tp.ec, host.data() + ga + gb + s * sc);
        const double tol = tp.u_out * std::fabs(ref) + tp.rel_norm * std::sqrt(sq);
        const double err = std::fabs(got - ref);
        if (!(err <= tol)) {
            if (failed++ == 0)
                first_failure = "C[" + std::to_string(entries[s].b) + "][" + std::to_string(entries[s].i) + "][" +
                                std::to_string(entries[s].j) + "] = " + short_num(got) + ", expected " + short_num(ref) + " ± " +
                                short_num(tol);
        } else if (tol > 0) {
            worst = std::max(worst, err / tol);
        }
    }
    if (failed != 0)
        throw MeasureError("GEMM verification failed: " + std::to_string(failed) + " of " + std::to_string(S) +
                           " sampled entries of C outside the tolerance, first " + first_failure + " (" + what + ")");
    t.verification = std::to_string(S) + " sampled entries of C against a float64 host dot product of the stored " +
                     "inputs, |C − ref| ≤ " + tp.tolerance + ", worst " + short_num(worst) + " of the tolerance; all " +
                     std::to_string(elems_c) + " elements of C written (NaN-poisoned first)";
    for (std::string& s : notes)
        t.notes.push_back(std::move(s));
    return t;
}

}  // namespace bwacct::measure::cuda
