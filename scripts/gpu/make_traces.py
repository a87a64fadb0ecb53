#!/usr/bin/env python3
"""Records PyTorch profiler (Kineto) traces of a few real workloads on this machine's GPU.

    python3 scripts/gpu/make_traces.py OUT_DIR [NAME ...]

Each workload runs its warm-up steps, then one profiled step (record_shapes=True, as TraceLens and
bwacct's cost model want), and writes OUT_DIR/NAME.json.gz. Models are built from configs with random
weights (nothing is downloaded). The traces are test data for `bwacct ingest torch-trace`: their GPU
time is real, their content is what PyTorch, cuDNN, cuBLAS and Inductor chose on that GPU. A workload
that fails prints why and the others go on.
"""
import gzip
import os
import shutil
import sys
import time
import traceback

import torch
from torch.profiler import ProfilerActivity, profile


def record(out_dir, name, step, warmup=2):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        step()
        torch.cuda.synchronize()
    raw = os.path.join(out_dir, name + ".json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)
    print(f"{name}: {os.path.getsize(raw + '.gz')} bytes gzipped", flush=True)


def vision_step(model, opt, x, y):
    """An image classifier's training step under bf16 autocast: cross-entropy, backward, optimizer."""

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def resnet50_train():
    import torchvision

    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    return vision_step(model, opt, x, y)


def llama_config(layers=4):
    from transformers import LlamaConfig

    return LlamaConfig(hidden_size=2048, intermediate_size=5632, num_hidden_layers=layers, num_attention_heads=16,
                       num_key_value_heads=4, vocab_size=32000, max_position_embeddings=4096)


def llama_model():
    from transformers import LlamaForCausalLM

    return LlamaForCausalLM._from_config(llama_config(), attn_implementation="sdpa", torch_dtype=torch.bfloat16).cuda()


def no_grad_forward(fwd, ids):
    """One forward without the KV cache, as a step."""

    def step():
        with torch.no_grad():
            fwd(input_ids=ids, use_cache=False)

    return step


def train_step(fwd, opt, ids, accum=1, divide=False):
    """`accum` forward/backward passes, then the optimizer step; `divide`: the loss scaled by 1/accum
    first (an aten::div in the trace even for accum 1, as the llama_train_* variants were recorded)."""

    def step():
        for _ in range(accum):
            loss = fwd(input_ids=ids, labels=ids).loss
            (loss / accum if divide else loss).backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def llama_train():
    model = llama_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    return train_step(model, opt, torch.randint(0, 32000, (4, 1024), device="cuda"))


def llama_compiled_prefill():
    model = llama_model().eval()
    return no_grad_forward(torch.compile(model), torch.randint(0, 32000, (4, 512), device="cuda"))


def llama_eager_decode():
    model = llama_model().eval()
    ids = torch.randint(0, 32000, (8, 256), device="cuda")

    def step():
        with torch.no_grad():
            model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=8, min_new_tokens=8,
                           do_sample=False, pad_token_id=0)

    return step


def qwen3_moe_prefill():
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    cfg = Qwen3MoeConfig(hidden_size=1024, intermediate_size=2816, moe_intermediate_size=512, num_hidden_layers=4,
                         num_attention_heads=16, num_key_value_heads=4, head_dim=64, num_experts=32,
                         num_experts_per_tok=4, vocab_size=32000, decoder_sparse_step=1, mlp_only_layers=[])
    model = Qwen3MoeForCausalLM._from_config(cfg, attn_implementation="sdpa", torch_dtype=torch.bfloat16).cuda()
    return no_grad_forward(model.eval(), torch.randint(0, 32000, (4, 512), device="cuda"))


def vit_b16_train():
    import torchvision

    model = torchvision.models.vit_b_16().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(32, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (32,), device="cuda")
    return vision_step(model, opt, x, y)


def llama_train_variant(accum=1, groups=1, fused=True):
    """Llama training step: `accum` micro-batches per optimizer step; `groups` 2 splits the parameters
    into a weight-decay and a no-decay group (as Hugging Face's Trainer does); `fused` False uses
    AdamW's default multi-tensor (foreach) implementation."""
    model = llama_model()
    params = list(model.parameters())
    if groups == 2:
        params = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
                  {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(params, lr=1e-4, fused=True) if fused else torch.optim.AdamW(params, lr=1e-4)
    return train_step(model, opt, torch.randint(0, 32000, (2, 1024), device="cuda"), accum, divide=True)


def resnet18_ddp1_train():
    """DistributedDataParallel over one rank (NCCL): the all-reduce kernels and bucket copies of a
    real DDP step, on the one GPU this machine has."""
    import torch.distributed as dist
    import torchvision

    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29512")
    if not dist.is_initialized():
        dist.init_process_group("nccl", rank=0, world_size=1)
    model = torch.nn.parallel.DistributedDataParallel(torchvision.models.resnet18().cuda(), device_ids=[0])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    return vision_step(model, opt, x, y)


def llama_compiled_cudagraph_prefill():
    """torch.compile(mode="reduce-overhead"): Inductor's kernels replayed from a CUDA graph."""
    model = llama_model().eval()
    return no_grad_forward(torch.compile(model, mode="reduce-overhead"),
                           torch.randint(0, 32000, (4, 512), device="cuda"))


def llama_compiled_train():
    """torch.compile'd training step: Inductor forward and backward kernels, eager fused AdamW."""
    model = llama_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    return train_step(torch.compile(model), opt, torch.randint(0, 32000, (2, 1024), device="cuda"))


def gpt2_amp_fp16_train():
    """GPT-2 (124M shape) fp32 weights, fp16 autocast with GradScaler, gradient clipping, AdamW foreach:
    AMP's unscale, _foreach_norm, the optimizer's list ops."""
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel._from_config(GPT2Config(n_layer=6), attn_implementation="sdpa").cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda")
    ids = torch.randint(0, 50257, (8, 512), device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(input_ids=ids, labels=ids).loss
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad(set_to_none=True)

    return step


def mixtral_prefill():
    from transformers import MixtralConfig, MixtralForCausalLM

    cfg = MixtralConfig(hidden_size=1024, intermediate_size=3584, num_hidden_layers=4, num_attention_heads=16,
                        num_key_value_heads=4, num_local_experts=8, num_experts_per_tok=2, vocab_size=32000)
    model = MixtralForCausalLM._from_config(cfg, attn_implementation="sdpa", torch_dtype=torch.bfloat16).cuda()
    return no_grad_forward(model.eval(), torch.randint(0, 32000, (4, 512), device="cuda"))


def record_scheduled(out_dir, name, make):
    """A training loop profiled as users do: schedule(wait=1, warmup=1, active=2), so the trace holds
    ProfilerStep#2 and ProfilerStep#3."""
    from torch.profiler import schedule

    step = make()
    step()
    torch.cuda.synchronize()
    raw = os.path.join(out_dir, name + ".json")

    def ready(prof):
        prof.export_chrome_trace(raw)

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=2), on_trace_ready=ready) as prof:
        for _ in range(4):
            step()
            torch.cuda.synchronize()
            prof.step()
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    os.remove(raw)
    print(f"{name}: {os.path.getsize(raw + '.gz')} bytes gzipped", flush=True)


WORKLOADS = {
    "resnet50_train_bf16": resnet50_train,
    "llama_train_bf16": llama_train,
    "llama_compiled_prefill_bf16": llama_compiled_prefill,
    "llama_eager_decode_bf16": llama_eager_decode,
    "qwen3moe_prefill_bf16": qwen3_moe_prefill,
    "vitb16_train_bf16": vit_b16_train,
    "llama_train_accum2_bf16": lambda: llama_train_variant(accum=2),
    "llama_train_2groups_bf16": lambda: llama_train_variant(groups=2),
    "llama_train_foreach_adamw_bf16": lambda: llama_train_variant(fused=False),
    "resnet18_ddp1_train_bf16": resnet18_ddp1_train,
    "llama_compiled_cudagraph_prefill_bf16": llama_compiled_cudagraph_prefill,
    "llama_compiled_train_bf16": llama_compiled_train,
    "gpt2_amp_fp16_train": gpt2_amp_fp16_train,
    "mixtral_prefill_bf16": mixtral_prefill,
}
SCHEDULED = {"resnet50_train_bf16_profiler_steps": resnet50_train}


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(WORKLOADS) + list(SCHEDULED)
    os.makedirs(out_dir, exist_ok=True)
    import transformers
    import torchvision

    print(f"torch {torch.__version__}, transformers {transformers.__version__}, torchvision {torchvision.__version__}, "
          f"{torch.cuda.get_device_name()}", flush=True)
    for name in names:
        t0 = time.time()
        try:
            torch.manual_seed(0)
            if name in SCHEDULED:
                record_scheduled(out_dir, name, SCHEDULED[name])
            else:
                record(out_dir, name, WORKLOADS[name]())
        except Exception:
            print(f"{name}: FAILED", flush=True)
            traceback.print_exc()
        torch.cuda.empty_cache()
        print(f"{name}: {time.time() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
