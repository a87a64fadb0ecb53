#!/usr/bin/env bash
# Seed 004 ("Byte-Movement Formulas"): its worked numbers, reproduced with bwacct.
# Needs `bwacct` on the PATH (e.g. PATH=build:$PATH examples/seed004-byte-movement.sh).
set -euo pipefail

show() {  # a heading, the command, then the lines of its output that hold the number
    local title=$1 pattern=$2
    shift 2
    echo "== ${title}"
    echo "\$ $*"
    "$@" | grep -E "${pattern}"
    echo
}

# §1 GEMM intensity, M = N = K, fp16: AI = 2N/(3·2) → 341 FLOP/B at N = 1024, 85 at N = 256.
show "§1 GEMM N=1024 fp16 (seed: AI = 341 FLOP/B, compute-bound)" "intensity|bound|^  (a100|h200)" \
    bwacct gemm --m 1024 --n 1024 --k 1024 --dtype fp16 --gpu a100-sxm-80gb
show "§1 GEMM N=256 fp16 (seed: AI = 85 FLOP/B, memory-bound on A100)" "intensity|^  (a100|h200)" \
    bwacct gemm --m 256 --n 256 --k 256 --dtype fp16 --gpu a100-sxm-80gb

# §2 Linear layer, B = 2160 tokens, D_in = D_out = 5120, bf16: forward read B·D_in + D_in·D_out,
# write B·D_out; forward + backward read 2·B·D_in + 2·B·D_out + 3·D_in·D_out, write B·D_out + B·D_in + D_in·D_out.
show "§2 linear layer forward (bytes: read (B·D_in + D_in·D_out)·2, write B·D_out·2)" "HBM bytes" \
    bwacct gemm --m 2160 --k 5120 --n 5120 --gpu h200
show "§2 linear layer forward + backward" "HBM bytes" \
    bwacct gemm --m 2160 --k 5120 --n 5120 --pass fwd+bwd --gpu h200

# §4 Ring all-reduce, 4 GPUs, M = 1 GB: each GPU sends 2·(4−1)/4 · 1 GB = 1.5 GB.
show "§4 ring all-reduce of 1 GB over 4 GPUs (seed: 1.5 GB per GPU)" "wire bytes" \
    bwacct allreduce --bytes 1000000000 --ranks 4 --gpu h200

# §5 Attention, B = 1, H = 32, S = 2048, d = 128, bf16: naive materializes S×S scores and
# probabilities (4·B·H·S·S bytes of extra traffic); flash moves only Q, K, V and O.
show "§5 naive attention (S×S through HBM)" "HBM bytes" \
    bwacct attention --heads 32 --q-len 2048 --kv-len 2048 --head-dim 128 --impl naive --gpu h200
show "§5 flash attention (no S×S traffic)" "HBM bytes" \
    bwacct attention --heads 32 --q-len 2048 --kv-len 2048 --head-dim 128 --impl flash --gpu h200

# §3 Activation memory of one layer (seed 000's block: [1, 2160, 5120] bf16, 40 heads), with and
# without checkpointing, and the TP=2 all-reduces of the [1, 2160, 5120] activation (22,118,400 B).
show "§3 activation memory per layer, and the TP=2 all-reduces" "KV cache|activations|checkpointing|allreduce" \
    bwacct layer --hidden 5120 --heads 40 --kv-heads 40 --ffn 13824 --tokens 2160 --tp 2 --phase training --gpu h200
