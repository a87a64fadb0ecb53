#!/usr/bin/env bash
# Runs every measurement once on this machine's GPU, checks sanity bounds, and writes one JSON report.
#   scripts/gpu-check.sh [report.json]      (default: docs/measurements/<date>-<gpu>.json)
#   BWACCT_GPU_BIN=path/to/bwacct scripts/gpu-check.sh   (a binary built elsewhere; nothing is built)
# Checks: HBM copy and triad between 70 % and 100 % of the peak derived from bus width × memory clock;
# GEMM TFLOP/s at or below the catalog's dense peak; every result verified (a failed verification is an
# error, so a run that reaches the report passed it); no CUDA error under compute-sanitizer (memcheck)
# for the HBM, launch, GEMM, softmax and attention kernels when compute-sanitizer is installed. The checks
# are scripts/gpu_check_report.py (python3); a check that cannot be made (a GPU the catalog does not
# know, a derived peak of 0) fails the run.
# Never changes clocks or any GPU setting.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

# Kernels for this machine's own GPU (A100, L40S, L4, an RTX card: not only the default sm_90/sm_100);
# BWACCT_GPU_ARCHS overrides (e.g. "90;100").
# BWACCT_GPU_BIN: a bwacct built elsewhere with BWACCT_CUDA=ON (a GPU machine without the Debian
# packages the build needs); it is used as it is and nothing is built.
if [[ -n "${BWACCT_GPU_BIN:-}" ]]; then
  bw=$BWACCT_GPU_BIN
  [[ -x "$bw" ]] || { echo "gpu-check: BWACCT_GPU_BIN=$bw is not an executable file" >&2; exit 2; }
else
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DBWACCT_TESTS=OFF -DBWACCT_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES="${BWACCT_GPU_ARCHS:-native}" >/dev/null || exit 1
  cmake --build build-gpu -j "$(nproc)" --target bwacct >/dev/null || exit 1
  bw=build-gpu/bwacct
fi
"$bw" --version
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail=0
run() {  # run NAME ARGS...: keeps stdout as $work/NAME.json, stderr as $work/NAME.err
  local name=$1
  shift
  if "$bw" "$@" --format json >"$work/$name.json" 2>"$work/$name.err"; then
    echo "ok    $name"
  else
    echo "FAIL  $name: $(head -1 "$work/$name.err")"
    fail=1
  fi
}

run device device
run hbm hbm
run launch launch
run gemm_seed gemm --m 2160 --k 5120 --n 5120 --measure
run gemm_8192 gemm --m 8192 --k 8192 --n 8192 --measure
run gemm_fp8 gemm --m 8192 --k 8192 --n 8192 --dtype fp8 --measure
run elementwise elementwise --shape 32,2048,4096 --dtype bf16 --flops-per-elem 10 --measure
run rmsnorm rmsnorm --shape 8,2048,4096 --dtype bf16 --measure
run layernorm layernorm --shape 8,2048,4096 --dtype bf16 --measure
run softmax softmax --shape 8,2048,4096 --dtype bf16 --measure
# Attention decode (memory-bound): a 1 GiB bf16 KV cache; then the kernel's edge cases (a ragged last
# tile, causal with 16 rows per KV head, fp32 at d = 64, fp16 at d = 256).
run attention_decode attention --batch 8 --heads 32 --kv-heads 8 --q-len 1 --kv-len 32768 --head-dim 128 --measure
run attention_causal attention --heads 32 --kv-heads 8 --q-len 4 --kv-len 1000 --head-dim 128 --causal --measure
run attention_fp32 attention --heads 8 --kv-heads 1 --q-len 2 --kv-len 777 --head-dim 64 --dtype fp32 --causal --measure
run attention_fp16 attention --heads 4 --q-len 1 --kv-len 4100 --head-dim 256 --dtype fp16 --measure
# The GPUs CUDA sees (CUDA_VISIBLE_DEVICES applies; MIG instances are not GPUs to NCCL), as bwacct's
# own device report counts them: not nvidia-smi -L, which lists MIG devices and ignores the variable.
ngpu=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device"].get("visible_devices", 1))' "$work/device.json" 2>/dev/null || echo 1)
if ((ngpu >= 2)); then
  run allreduce allreduce --bytes 1G --ranks "$ngpu" --measure
fi
run calibrate calibrate --cache "$work/calibration.json"

sanitizer=skipped
if command -v compute-sanitizer >/dev/null 2>&1; then
  sanitizer=clean
  for args in "hbm --size 64M --max-samples 3" "launch --max-samples 3" "gemm --m 512 --n 512 --k 512 --measure --max-samples 3" \
    "softmax --shape 64,1000 --measure --max-samples 3" \
    "attention --heads 32 --kv-heads 8 --q-len 4 --kv-len 1000 --head-dim 128 --causal --measure --max-samples 3"; do
    # shellcheck disable=SC2086
    # BWACCT_NO_GATE: the checker serialises launches, so a spin gate would wait out its timeout.
    if ! BWACCT_NO_GATE=1 compute-sanitizer --tool memcheck --error-exitcode 3 "$bw" $args >/dev/null 2>"$work/sanitizer.err"; then
      echo "FAIL  compute-sanitizer: $args: $(grep -m1 -E 'ERROR|error' "$work/sanitizer.err")"
      sanitizer=errors
      fail=1
    fi
  done
fi

python3 scripts/gpu_check_report.py "$work" "$sanitizer" "${1:-}" || fail=1
exit $fail
