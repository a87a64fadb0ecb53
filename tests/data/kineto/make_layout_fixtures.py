#!/usr/bin/env python3
"""Hand-written Kineto traces in the event layout of real ones (no real trace of these kinds was found).

Each fixture copies the exact event shape (keys, categories, arg names and spellings) of a real trace
shipped in tests/data/kineto/:
  - torch.compile ops and kernels: the B200 vLLM trace's "Torch-Compiled Region: 0/1",
    "## Call CompiledFxGraph <hash> ##" (user_annotation + gpu_user_annotation) and its
    triton_poi_fused_... cpu_op (kernel_backend "triton", Input Dims of the kernel's tensor arguments,
    Scalars for xnumel/constants) launched by cuLaunchKernelEx (cuda_driver) with the kernel carrying
    "External id" and "correlation";
  - NCCL metadata: the A100 DDP trace's record_param_comms cpu_op and ncclKernel_... kernel args
    ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype", "Process Group ...");
  - GPU and process metadata: deviceProperties and distributedInfo as in the A100 DDP trace.
What is made up: the models, shapes, times and ids. Run: python3 tests/data/kineto/make_layout_fixtures.py tests/data/kineto
"""
import json
import sys

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85031714816, "computeMajor": 9,
        "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
        "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132,
        "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448,
        "sharedMemPerMultiprocessor": 233472}
PID, TID = 4242, 4242


class Trace:
    def __init__(self):
        self.ev = []
        self.ext = 100
        self.corr = 1000

    def op(self, name, ts, dur, cat="cpu_op", **args):
        self.ext += 1
        a = {"External id": self.ext, "Record function id": 0, "Ev Idx": len(self.ev)}
        a.update(args)
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": TID, "ts": ts, "dur": dur,
                        "args": a})
        return self.ext

    def launch(self, ext, ts, name="cudaLaunchKernel", cat="cuda_runtime"):
        self.corr += 1
        self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": TID, "ts": ts, "dur": 4.0,
                        "args": {"External id": ext, "cbid": 211, "correlation": self.corr}})
        return self.corr

    def kernel(self, name, ts, dur, corr, ext=None, stream=7, grid=(132, 1, 1), block=(256, 1, 1), **extra):
        a = {}
        if ext is not None:
            a["External id"] = ext
        a.update({"queued": 0, "device": 0, "context": 1, "stream": stream, "correlation": corr,
                  "registers per thread": 32, "shared memory": 0, "blocks per SM": 1.0, "warps per SM": 8.0,
                  "grid": list(grid), "block": list(block), "est. achieved occupancy %": 50})
        a.update(extra)
        self.ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                        "args": a})

    def doc(self, dist=None):
        d = {"schemaVersion": 1, "deviceProperties": [H100]}
        if dist:
            d["distributedInfo"] = dist
        d.update({"record_shapes": 1, "displayTimeUnit": "ms", "baseTimeNanoseconds": 1759300074000000000,
                  "traceEvents": self.ev, "traceName": "rank0.pt.trace.json"})
        return d


def triton_args(dims, types, concrete):
    return {"Input Dims": dims, "Input Strides": [[] for _ in dims], "Input type": types,
            "Concrete Inputs": concrete, "num_warps": 8, "stream": 0, "kernel_backend": "triton",
            "kernel_file": "/tmp/torchinductor_user/ab/cabcdef.py", "kernel_hash": "abcdef0123456789"}


def compile_and_cudagraph():
    """A compiled MLP block: one eager-launched step (record_shapes), then the same graph replayed by a
    CUDA graph (torch.compile mode="reduce-overhead"): cudaGraphLaunch, kernels with no External id."""
    t = Trace()
    BF, S = "c10::BFloat16", "Scalar"
    M, H, F = 8192, 4096, 14336
    kernels = []  # (name, op builder) in launch order, for the replay
    t.op("ProfilerStep#1", 1000.0, 1200.0, cat="user_annotation")
    reg = t.op("Torch-Compiled Region: 0/0", 1010.0, 700.0)
    fx = t.op("## Call CompiledFxGraph f3x2kq7vbtm5 ##", 1020.0, 680.0, cat="user_annotation")
    # RMSNorm: in [M,H] bf16, weight [H] bf16, out [M,H] bf16; xnumel, rnumel
    n1 = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"
    e = t.op(n1, 1030.0, 30.0, **triton_args([[M, H], [H], [M, H], [], []], [BF, BF, BF, S, S],
                                              ["", "", "", str(M), str(H)]))
    c = t.launch(e, 1040.0, "cuLaunchKernel", "cuda_driver")
    t.kernel(n1, 1100.0, 55.0, c, e, grid=(M, 1, 1))
    kernels.append((n1, 55.0))
    # extern GEMM (gate_up): aten::mm [M,H] x [H,2F]
    e = t.op("aten::mm", 1080.0, 40.0, **{"Input Dims": [[M, H], [H, 2 * F]], "Input Strides": [[H, 1], [1, H]],
                                          "Input type": [BF, BF], "Concrete Inputs": ["", ""]})
    c = t.launch(e, 1090.0)
    n2 = "nvjet_tst_256x128_64x4_2x1_v_bz_coopA_NTN"
    t.kernel(n2, 1160.0, 2200.0, c, e)
    kernels.append((n2, 2200.0))
    # SiLU(gate) * up: in [M,2F] bf16, out [M,F] bf16, xnumel
    n3 = "triton_poi_fused_mul_silu_1"
    e = t.op(n3, 1130.0, 25.0, **triton_args([[M, 2 * F], [M, F], []], [BF, BF, S], ["", "", str(M * F)]))
    c = t.launch(e, 1140.0, "cuLaunchKernel", "cuda_driver")
    t.kernel(n3, 3370.0, 300.0, c, e)
    kernels.append((n3, 300.0))
    # down projection as an Inductor GEMM template: A [M,F], B [F,H], out [M,H]
    n4 = "triton_tem_fused_mm_2"
    e = t.op(n4, 1170.0, 25.0, **triton_args([[M, F], [F, H], [M, H]], [BF, BF, BF], ["", "", ""]))
    c = t.launch(e, 1180.0, "cuLaunchKernel", "cuda_driver")
    t.kernel(n4, 3680.0, 1100.0, c, e)
    kernels.append((n4, 1100.0))
    # softmax over the logits [M, 32000] in fp32 (persistent reduction): in, out, xnumel, rnumel
    n5 = "triton_per_fused__softmax_3"
    e = t.op(n5, 1200.0, 25.0, **triton_args([[M, 32000], [M, 32000], [], []], ["float", "float", S, S],
                                              ["", "", str(M), "32000"]))
    c = t.launch(e, 1210.0, "cuLaunchKernel", "cuda_driver")
    t.kernel(n5, 4790.0, 700.0, c, e)
    kernels.append((n5, 700.0))
    t.ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": "## Call CompiledFxGraph f3x2kq7vbtm5 ##",
                 "pid": 0, "tid": 7, "ts": 1100.0, "dur": 4390.0, "args": {"External id": fx}})
    # step 2: the same graph replayed as a CUDA graph
    t.op("ProfilerStep#2", 5600.0, 300.0, cat="user_annotation")
    reg2 = t.op("Torch-Compiled Region: 0/0", 5610.0, 60.0)
    c = t.launch(reg2, 5620.0, "cudaGraphLaunch")
    ts = 5700.0
    for name, dur in kernels:
        t.kernel(name, ts, dur, c, None, **{"graph id": 3, "graph node id": 1000 + len(name)})
        ts += dur + 2.0
    del reg
    return t.doc()


def fsdp2_rank0():
    """FSDP2 (fully_shard) on 8 GPUs, rank 0, MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32): the
    bf16 parameter all-gather with its copy-in and copy-out, and the bf16 gradients chunk_cat'ed into the fp32
    reduce-scatter input, as record_param_comms and NCCL kernels."""
    t = Trace()
    BF = "c10::BFloat16"
    # one transformer block's attention weights (4096 wide), each sharded on dim 0 over 8 ranks:
    # wq [512, 4096], wk [128, 4096], wv [128, 4096], wo [512, 4096] a rank, fp32 shards copied into bf16
    world, hidden = 8, 4096
    rows = [512, 128, 128, 512]
    shard = sum(rows) * hidden  # 5,242,880 elements a rank, 41,943,040 gathered
    shards = [[r, hidden] for r in rows]
    dist = {"backend": "nccl", "rank": 0, "world_size": world, "pg_count": 1,
            "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                           "pg_size": world, "ranks": list(range(world))}], "nccl_version": "2.21.5"}
    t.op("ProfilerStep#3", 1000.0, 20000.0, cat="user_annotation")
    t.op("FSDP::all_gather_copy_in", 1010.0, 80.0, cat="user_annotation")
    # fsdp::all_gather_copy_in(Tensor[] all_gather_inputs, SymInt[] inp_split_sizes, SymInt numel,
    # SymInt world_size, SymInt rank, ScalarType dtype, Device device)
    e_ag = t.op("fsdp::all_gather_copy_in", 1012.0, 76.0, **{
        "Input Dims": [shards, [], [], [], [], [], []], "Input Strides": [[], [], [], [], [], [], []],
        "Input type": ["TensorList", "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar", ""],
        "Concrete Inputs": ["", str([r * hidden for r in rows]), str(shard), str(world), "0", "15", ""]})
    # its torch._foreach_copy_(self: the bf16 views of the all-gather input, src: the fp32 shards)
    e_fc = t.op("aten::_foreach_copy_", 1040.0, 40.0, **{
        "Input Dims": [shards, shards, []], "Input Strides": [[], [], []],
        "Input type": ["TensorList", "TensorList", "Scalar"], "Concrete Inputs": ["", "", "False"]})
    c = t.launch(e_fc, 1060.0)
    t.kernel("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
             "TensorListMetadata<2>, at::native::(anonymous namespace)::CopyFunctor<c10::BFloat16, float, 2, 1, 1>, "
             "at::native::(anonymous namespace)::Copy<c10::BFloat16, float> >(at::native::(anonymous namespace)::"
             "TensorListMetadata<2>, at::native::(anonymous namespace)::CopyFunctor<c10::BFloat16, float, 2, 1, 1>, "
             "at::native::(anonymous namespace)::Copy<c10::BFloat16, float>)", 1100.0, 15.0, c, e_fc, stream=20)
    del e_ag
    # the all-gather itself
    t.op("c10d::_allgather_base_", 1100.0, 60.0, **{
        "Input Dims": [[world * shard], [shard]], "Input Strides": [[1], [1]], "Input type": [BF, BF],
        "Concrete Inputs": ["", "", "", "False", "-1"]})
    meta = {"Collective name": "_allgather_base", "In msg nelems": shard, "Out msg nelems": world * shard,
            "Group size": world, "dtype": "BFloat16", "In split size": "[]", "Out split size": "[]",
            "Process Group Name": "0", "Process Group Description": "default_pg",
            "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}
    e = t.op("record_param_comms", 1105.0, 50.0, **dict(meta, **{"Global rank start": 0, "Global rank stride": 1}))
    c = t.launch(e, 1120.0, "cudaLaunchKernelExC")
    t.kernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 1200.0, 400.0, c, e, stream=24,
             **meta)
    # copy-out into the parameters: fsdp::split_with_sizes_copy(all_gather_output, split sizes, dim, out list)
    t.op("FSDP::all_gather_copy_out", 1700.0, 60.0, cat="user_annotation")
    outs = [[world, r * hidden] for r in rows]
    e_so = t.op("fsdp::split_with_sizes_copy", 1702.0, 56.0, **{
        "Input Dims": [[world, shard], [], [], outs], "Input Strides": [[shard, 1], [], [], []],
        "Input type": [BF, "ScalarList", "Scalar", "TensorList"],
        "Concrete Inputs": ["", str([r * hidden for r in rows]), "1", ""]})
    e_sw = t.op("aten::split_with_sizes_copy", 1710.0, 40.0, **{
        "Input Dims": [[world, shard], [], [], outs], "Input Strides": [[shard, 1], [], [], []],
        "Input type": [BF, "ScalarList", "Scalar", "TensorList"],
        "Concrete Inputs": ["", str([r * hidden for r in rows]), "1", ""]})
    c = t.launch(e_sw, 1730.0)
    t.kernel("void at::native::(anonymous namespace)::split_with_sizes_copy_out_contiguous_no_cast_kernel"
             "<at::native::(anonymous namespace)::SplitWithSizesCopyOutContiguousNoCastKernel>(char**, long*, long*, long*, long, long)",
             1800.0, 120.0, c, e_sw, stream=7)
    del e_so
    # gradient reduce-scatter: chunk_cat of the fp32 gradients, then reduce_scatter_tensor
    t.op("FSDP::post_backward_reduce", 10000.0, 800.0, cat="user_annotation")
    grads = [[world * r, hidden] for r in rows]
    e_cc = t.op("fsdp::chunk_cat", 10010.0, 60.0, **{
        "Input Dims": [grads, [], [], [world * shard]], "Input Strides": [[], [], [], [1]],
        "Input type": ["TensorList", "Scalar", "Scalar", "float"], "Concrete Inputs": ["", "0", str(world), ""]})
    e_c2 = t.op("aten::_chunk_cat", 10020.0, 40.0, **{
        "Input Dims": [grads, [], [], [world * shard]], "Input Strides": [[], [], [], [1]],
        "Input type": ["TensorList", "Scalar", "Scalar", "float"], "Concrete Inputs": ["", "0", str(world), ""]})
    c = t.launch(e_c2, 10040.0)
    t.kernel("void at::native::(anonymous namespace)::chunk_cat_cuda_kernel<float, c10::BFloat16>(c10::BFloat16**, float*, long*, long*, long*, long*, long*, long*, long, long, long)",
             10100.0, 200.0, c, e_c2, stream=26)
    del e_cc
    meta = {"Collective name": "_reduce_scatter_base", "In msg nelems": world * shard, "Out msg nelems": shard,
            "Group size": world, "dtype": "Float", "In split size": "[]", "Out split size": "[]",
            "Process Group Name": "0", "Process Group Description": "default_pg",
            "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}
    e = t.op("record_param_comms", 10310.0, 50.0, **dict(meta, **{"Global rank start": 0, "Global rank stride": 1}))
    c = t.launch(e, 10320.0, "cudaLaunchKernelExC")
    t.kernel("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 10400.0, 1500.0, c, e,
             stream=26, **meta)
    return t.doc(dist)


def scaled_mm_fp8():
    """Float8 training linear (torchao / TransformerEngine style): the activations and weights cast to
    e4m3 with per-tensor scales, then aten::_scaled_mm with a bf16 output, on cuBLASLt's fp8 kernel."""
    t = Trace()
    BF, F8 = "c10::BFloat16", "c10::Float8_e4m3fn"
    M, K, N = 16384, 8192, 8192
    t.op("ProfilerStep#1", 1000.0, 5000.0, cat="user_annotation")
    # the cast of the activations: abs-max, then the scaled cast (to(e4m3))
    e = t.op("aten::_to_copy", 1010.0, 30.0, **{"Input Dims": [[M, K], [], [], [], [], []],
                                                "Input Strides": [[K, 1], [], [], [], [], []],
                                                "Input type": [BF, "Scalar", "", "", "", "Scalar"],
                                                "Concrete Inputs": ["", "24", "", "", "", "False"]})
    e2 = t.op("aten::copy_", 1015.0, 20.0, **{"Input Dims": [[M, K], [M, K], []], "Input Strides": [[K, 1], [K, 1], []],
                                              "Input type": [F8, BF, "Scalar"], "Concrete Inputs": ["", "", "False"]})
    c = t.launch(e2, 1020.0)
    t.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)"
             "::{lambda()#3}::operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, "
             "std::array<char*, 2ul> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::"
             "operator()() const::{lambda()#14}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)",
             1100.0, 160.0, c, e2)
    del e
    # aten::_scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum)
    e = t.op("aten::_scaled_mm", 1300.0, 40.0, **{
        "Input Dims": [[M, K], [K, N], [], [], [], [], [], []],
        "Input Strides": [[K, 1], [1, K], [], [], [], [], [], []],
        "Input type": [F8, F8, "float", "float", "", "", "Scalar", "Scalar"],
        "Concrete Inputs": ["", "", "", "", "", "", "15", "True"]})
    c = t.launch(e, 1320.0, "cudaLaunchKernelExC")
    t.kernel("sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x256x128_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
             1400.0, 1500.0, c, e)
    return t.doc()


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    for name, fn in (("synthetic_h100_torch_compile_then_cudagraph_replay.json", compile_and_cudagraph),
                     ("synthetic_h100x8_fsdp2_allgather_reducescatter_rank0.json", fsdp2_rank0),
                     ("synthetic_h100_float8_scaled_mm.json", scaled_mm_fp8)):
        with open(f"{out}/{name}", "w") as f:
            json.dump(fn(), f, indent=1)
            f.write("\n")
