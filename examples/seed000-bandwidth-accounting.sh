#!/usr/bin/env bash
# Seed 000 — bandwidth accounting from first principles (seeds/000): minimum bytes, implied bandwidth,
# the binding roof, the FPS projection across GPUs and the scaling slope. Needs `bwacct` on the PATH.
set -euo pipefail
command -v bwacct >/dev/null || { echo "seed000: bwacct is not on the PATH" >&2; exit 1; }

echo "== 1. GEMM (2160x5120)·(5120x5120) bf16: minimum bytes 2(MK + KN + MN) = 96,665,600 and the bound"
bwacct gemm --m 2160 --k 5120 --n 5120 --gpu h200

echo
echo "== 2. TP all-reduce of [1,2160,5120] bf16 on 2 ranks at the seed's 0.113 ms: ~195 GB/s per rank"
bwacct allreduce --shape 1,2160,5120 --dtype bf16 --ranks 2 --time-us 113 --gpu h200

echo
echo "== 3. Anchor observation: FPS tracks HBM bandwidth. 20 FPS on H200 projected to B200 (seed: 33-34 FPS)"
bwacct project --from h200 --to b200 --fps 20 --bound hbm

echo
echo "== 4. Measure the scaling slope first: chunk period vs pixel area at +10 %, +20 %, +50 %"
echo "   (illustrative numbers: replace them with your sweep)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'area,period_ms\n1.0,50.0\n1.1,55.0\n1.2,60.0\n1.5,75.0\n' > "$tmp/area-sweep.csv"
bwacct fit "$tmp/area-sweep.csv" --x area --y period_ms
