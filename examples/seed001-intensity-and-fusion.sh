#!/usr/bin/env bash
# Seed 001 — arithmetic intensity and kernel fusion (seeds/001): the two worked questions on a
# [32, 2048, 4096] fp16 tensor on H100. Needs `bwacct` on the PATH.
set -euo pipefail
command -v bwacct >/dev/null || { echo "seed001: bwacct is not on the PATH" >&2; exit 1; }

echo "== 1. ~10 FLOPs per element on [32,2048,4096] fp16: intensity 10 / (2 + 2 bytes) = 2.5 FLOP/B"
echo "   against the H100 fp16 ridge (~295 FLOP/B): attainable 0.85 % of the dense fp16 tensor peak"
bwacct elementwise --shape 32,2048,4096 --dtype fp16 --flops-per-elem 10 --unit tensor --gpu h100-sxm

echo
echo "== 2. Three unfused elementwise ops vs one fused kernel (read once, write once):"
echo "   the unfused chain moves 2 extra reads + 2 extra writes of 1 GiB = 2,147,483,648 B (2.15 GB) more"
bwacct elementwise --shape 32,2048,4096 --dtype fp16 --chain 3 --gpu h100-sxm
