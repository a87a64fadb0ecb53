#!/usr/bin/env bash
# Times what users feel: one model-only invocation (process start to exit, median of N runs) and a
# 100,000-point sweep streamed to JSONL. Usage: scripts/bench_model.sh [path/to/bwacct] [runs]
# Fails only on gross regressions (10x the budgets: 50 ms per call, 10 s per 100k sweep), so CI on a
# loaded machine stays green while a real slowdown does not slip through.
set -euo pipefail
bin=${1:-build/bwacct}
runs=${2:-50}

now_ns() { date +%s%N; }

# Process start-up on this machine, for scale: /bin/true, run interleaved with bwacct (one of each per
# round) so that a change in the machine's load touches both alike.
base=()
times=()
for ((i = 0; i < runs; i++)); do
  t0=$(now_ns)
  /bin/true
  t1=$(now_ns)
  "$bin" gemm --m 2160 --k 5120 --n 5120 --format json >/dev/null
  t2=$(now_ns)
  base+=($(((t1 - t0) / 1000)))
  times+=($(((t2 - t1) / 1000)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "%d\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
base_us=$(median "${base[@]}")
median_us=$(median "${times[@]}")
min_us=$(printf '%s\n' "${times[@]}" | sort -n | head -1)
echo "model-only gemm (json): median $(awk -v u="$median_us" 'BEGIN{printf "%.2f", u/1000}') ms, min $(awk -v u="$min_us" 'BEGIN{printf "%.2f", u/1000}') ms over $runs runs; an empty process, /bin/true, interleaved: median $(awk -v u="$base_us" 'BEGIN{printf "%.2f", u/1000}') ms; ratio $(awk -v a="$median_us" -v b="$base_us" 'BEGIN{printf "%.2f", a/b}')x (budget 3x)"

t0=$(now_ns)
lines=$("$bin" gemm --m 1:100000:+1 --k 5120 --n 5120 --format jsonl | wc -l)
t1=$(now_ns)
sweep_ms=$(((t1 - t0) / 1000000))
echo "100,000-point gemm sweep to JSONL (2 GPUs): $lines records in $sweep_ms ms"

[[ $lines -eq 100000 ]] || { echo "bench: expected 100000 records, got $lines" >&2; exit 1; }
((median_us < 50000)) || { echo "bench: model-only call took ${median_us} µs (budget 5 ms, limit 50 ms)" >&2; exit 1; }
((sweep_ms < 10000)) || { echo "bench: sweep took ${sweep_ms} ms (budget ~1 s, limit 10 s)" >&2; exit 1; }
