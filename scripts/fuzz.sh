#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, one per parser) with clang, ASan and UBSan in build-fuzz/, replays
# the saved reproducers (fuzz/regressions/<target>/), then fuzzes every target for SECONDS each, as many
# at once as there are cores. Prints one line per target with its executions; exits non-zero on any
# crash, uncaught exception, leak, timeout, out-of-memory or sanitizer report (the input that caused it
# is left in build-fuzz/fuzz-artifacts/<target>/, the log in build-fuzz/fuzz-logs/<target>.log).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30: build + 10 targets fit in ~6 min on 2 cores)
#
# BWACCT_FUZZ_BUILD_DIR picks the build directory (one already configured with -DBWACCT_FUZZ=ON is
# reused as it is, as .ci/run does with its sanitizer build); BWACCT_FUZZ_JOBS how many fuzzers run at once.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz: SECONDS_PER_TARGET must be a positive integer, got '$seconds'" >&2
  exit 2
fi
build=${BWACCT_FUZZ_BUILD_DIR:-build-fuzz}
jobs=${BWACCT_FUZZ_JOBS:-$(nproc)}
for tool in clang clang++; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool not found (apt-get install clang libclang-rt-dev)" >&2; exit 1; }
done

# target | -max_len | seed directories (missing ones are skipped; libFuzzer reads them recursively)
targets=(
  "values|128|fuzz/corpus/values"
  "catalog|131072|fuzz/corpus/catalog configs tests/data/nsight tests/data/babelstream"
  "model_preset|4096|fuzz/corpus/model_preset configs/models"
  "fit_input|16384|fuzz/corpus/fit_input tests/data/fit"
  "nccl_tests|8192|fuzz/corpus/nccl_tests tests/data/nccl tests/data/corpus/nccl-tests"
  "kineto|32768|fuzz/corpus/kineto tests/data/corpus/torch-trace"
  "nsys|16384|fuzz/corpus/nsys tests/data/nsight tests/data/babelstream tests/data/corpus/nsys"
  "ncu|16384|fuzz/corpus/ncu tests/data/nsight tests/data/corpus/ncu"
  "babelstream|16384|fuzz/corpus/babelstream tests/data/babelstream tests/data/corpus/babelstream"
  "csv|16384|fuzz/corpus/csv tests/data/nsight tests/data/fit"
)

start=$SECONDS
if [[ -f "$build/CMakeCache.txt" ]] && grep -qx 'BWACCT_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
  # A build directory already configured with the fuzzers (CI's sanitizer build, .ci/run): its flags
  # are kept and only what is missing is built.
  echo "== fuzz: building in $build (configured with BWACCT_FUZZ=ON; its flags kept)"
else
  echo "== fuzz: building $build (clang, libFuzzer + ASan + UBSan)"
  configure_log=$(mktemp)
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    -DBWACCT_CUDA=OFF -DBWACCT_MPI=OFF -DBWACCT_TESTS=OFF -DBWACCT_FUZZ=ON >"$configure_log" 2>&1 ||
    { cat "$configure_log" >&2; rm -f "$configure_log"; exit 1; }
  grep "fuzz_.* not built" "$configure_log" || true
  rm -f "$configure_log"
fi
cmake --build "$build" -j "$(nproc)" --target bwacct_fuzzers >/dev/null
echo "   built in $((SECONDS - start)) s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logs="$build/fuzz-logs"
mkdir -p "$logs"
failed=0

# The reproducers of past findings must be rejected cleanly now.
echo "== fuzz: replaying fuzz/regressions/"
for entry in "${targets[@]}"; do
  name=${entry%%|*}
  bin="$build/fuzz/fuzz_$name"
  [[ -x "$bin" && -d "fuzz/regressions/$name" ]] || continue
  mapfile -t inputs < <(find "fuzz/regressions/$name" -type f | sort)
  [[ ${#inputs[@]} -gt 0 ]] || continue
  if "$bin" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" >"$logs/$name.regressions.log" 2>&1; then
    echo "   $name: ${#inputs[@]} reproducers ok"
  else
    echo "   $name: FAILED on a saved reproducer (see $logs/$name.regressions.log)"
    failed=1
  fi
done

run_one() {  # name max_len seeds...: fuzzes one target; writes its log and exit status
  local name=$1 max_len=$2
  shift 2
  local seeds=() dir
  for dir in "$@"; do
    [[ -d "$dir" ]] && seeds+=("$dir")
  done
  local work="$build/fuzz-corpus/$name" artifacts="$build/fuzz-artifacts/$name/"
  mkdir -p "$work" "$artifacts"
  local rc=0
  "$build/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$artifacts" "$work" "${seeds[@]}" >"$logs/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$logs/$name.rc"
}

echo "== fuzz: $seconds s per target, $jobs at a time"
names=()
for entry in "${targets[@]}"; do
  IFS='|' read -r name max_len seeds <<<"$entry"
  if [[ ! -x "$build/fuzz/fuzz_$name" ]]; then
    echo "   $name: not built (its parser's header is missing; see the configure output)"
    continue
  fi
  rm -f "$logs/$name.rc"
  while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do
    wait -n || true
  done
  # shellcheck disable=SC2086  # seeds is a space-separated list of directories
  run_one "$name" "$max_len" $seeds &
  names+=("$name")
done
wait

for name in "${names[@]}"; do
  log="$logs/$name.log"
  rc=$(cat "$logs/$name.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if [[ "$rc" == 0 ]] && ! grep -qE "ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|runtime error:" "$log"; then
    printf '   %-13s ok      %12s executions\n' "$name" "${execs:-?}"
  else
    what=$(grep -m1 -oE "ERROR: [A-Za-z]+: [a-z -]+|runtime error: .*|fuzz invariant broken: .*|terminate called .*" "$log" || true)
    printf '   %-13s FAILED  %12s executions  %s (log %s, input in %s)\n' "$name" "${execs:-?}" \
      "${what:-exit $rc}" "$log" "$build/fuzz-artifacts/$name/"
    failed=1
  fi
done
echo "== fuzz: done in $((SECONDS - start)) s"
exit "$failed"
