#!/usr/bin/env bash
# Runs every measurement once on this machine's GPU, checks sanity bounds, and writes one JSON report.
#   scripts/gpu-check.sh [report.json]      (default: docs/measurements/<date>-<gpu>.json)
# Checks: HBM copy and triad between 70 % and 100 % of the peak derived from bus width × memory clock;
# GEMM TFLOP/s at or below the catalog's dense peak; every result verified (a failed verification is an
# error, so a run that reaches the report passed it); no CUDA error under compute-sanitizer (memcheck)
# for the HBM, launch, GEMM, softmax and attention kernels when compute-sanitizer is installed. Needs python3 for the checks.
# Never changes clocks or any GPU setting.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DBWACCT_TESTS=OFF -DBWACCT_CUDA=ON >/dev/null || exit 1
cmake --build build-gpu -j "$(nproc)" --target bwacct >/dev/null || exit 1
bw=build-gpu/bwacct
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
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
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
    if ! compute-sanitizer --tool memcheck --error-exitcode 3 "$bw" $args >/dev/null 2>"$work/sanitizer.err"; then
      echo "FAIL  compute-sanitizer: $args: $(grep -m1 -E 'ERROR|error' "$work/sanitizer.err")"
      sanitizer=errors
      fail=1
    fi
  done
fi

python3 - "$work" "$sanitizer" "${1:-}" <<'PY' || fail=1
import json, os, sys, datetime
work, sanitizer, target = sys.argv[1], sys.argv[2], sys.argv[3]
def load(name):
    try:
        return json.load(open(os.path.join(work, name + ".json")))
    except Exception:
        return None
report = {"schema": "bwacct.gpu-check/1", "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
          "sanitizer": sanitizer, "checks": [], "results": {}}
ok = True
def check(name, passed, detail):
    global ok
    ok &= bool(passed)
    report["checks"].append({"check": name, "passed": bool(passed), "detail": detail})
    print(("ok    " if passed else "FAIL  ") + name + ": " + detail)
bandwidth_bound = ["elementwise", "rmsnorm", "layernorm", "softmax", "attention_decode", "attention_causal",
                   "attention_fp32", "attention_fp16"]
for name in ["device", "hbm", "launch", "gemm_seed", "gemm_8192", "gemm_fp8", "allreduce", "calibrate"] + bandwidth_bound:
    doc = load(name)
    if doc is not None:
        report["results"][name] = doc
hbm = report["results"].get("hbm")
if hbm:
    derived = hbm["device"]["derived_hbm_GBps"]
    for k in hbm["kernels"]:
        if k["kernel"] in ("copy", "triad"):
            f = k["bw_GBps"] / derived
            check("hbm " + k["kernel"] + " within 70-100 % of derived peak", 0.70 <= f <= 1.0,
                  "%.1f GB/s = %.1f %% of %.1f GB/s" % (k["bw_GBps"], 100 * f, derived))
for name in ["gemm_seed", "gemm_8192", "gemm_fp8"]:
    doc = report["results"].get(name)
    if doc:
        for g in doc["gpus"]:
            if g["gpu"] == doc["measurement"]["device"]["catalog_match"]:
                peak = g["peaks"]["compute_tflops"]
                check(name + " at or below the catalog peak", g["tflops"] <= peak,
                      "%.1f TFLOP/s vs %.1f dense peak" % (g["tflops"], peak))
        check(name + " verified", bool(doc["measurement"]["verification"]), doc["measurement"]["verification"])
for name in bandwidth_bound:
    doc = report["results"].get(name)
    if doc:
        for g in doc["gpus"]:
            if g["gpu"] == doc["measurement"]["device"]["catalog_match"]:
                peak = g["peaks"]["hbm_GBps"]
                check(name + " implied bandwidth at or below the catalog HBM peak", g["implied_bw_GBps"] <= peak,
                      "%.1f GB/s vs %.1f GB/s" % (g["implied_bw_GBps"], peak))
        check(name + " verified", bool(doc["measurement"]["verification"]), doc["measurement"]["verification"])
name = report["results"].get("device", {}).get("device", {}).get("name", "gpu").replace(" ", "-")
out = target or os.path.join("docs", "measurements", datetime.date.today().isoformat() + "-" + name + ".json")
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
json.dump(report, open(out, "w"), indent=2)
print("report: " + out)
sys.exit(0 if ok else 1)
PY
exit $fail
