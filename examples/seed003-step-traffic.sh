#!/usr/bin/env bash
# Seed 003, "Memory bottleneck analysis with bandwidth estimation": traffic per training step =
# params·2 + grads·2 + activations·2 + optimizer state·2, bandwidth = traffic / step time, and the
# capacity footprint beside it. The example: a 124M-parameter GPT (fp32, Adam), 3.2 GB of
# activations, a 180 ms step on an A100 SXM 80GB:
#   traffic 2·(496e6 + 496e6 + 3.2e9 + 992e6) = 10,368,000,000 B per step
#   57.6 GB/s = 2.8 % of 2039 GB/s; footprint 5,184,000,000 B = 6.0 % of 80 GiB: neither limit.
# Requires `bwacct` on the PATH.
set -euo pipefail

bwacct step --params 124e6 --activations-bytes 3.2e9 --step-ms 180 --gpu a100-sxm-80gb

echo
echo "# the same step at 8 ms would need 1296 GB/s = 63.6 % of the peak: bandwidth-limited"
bwacct step --params 124e6 --activations-bytes 3.2e9 --step-ms 8 --gpu a100-sxm-80gb --format csv

echo
echo "# seed 004 §4: data-parallel all-reduce of M = 1 GB over 4 GPUs sends 1.5 GB per GPU"
bwacct zero --model-bytes 1e9 --ranks 4 --gpu h100-sxm
