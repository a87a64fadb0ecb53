#!/usr/bin/env bash
# Times `bwacct ingest torch-trace` on a ~100 MB synthetic Kineto trace: the BERT trace's events
# (tests/data/kineto/) repeated with shifted timestamps and External/correlation ids, written plain
# and gzip-compressed. Reports wall time and max RSS (GNU time -v when present, else a Python
# getrusage wrapper). Usage: scripts/bench_ingest.sh [path/to/bwacct] [target MB]
# Budgets per 100 MB of JSON: 3 s and 64 MiB (a DOM of the file would take ~10x the file). Fails on
# gross regressions only (10x the budgets), so a loaded CI machine stays green while a DOM or a
# quadratic pass does not slip through.
set -euo pipefail
bin=${1:-build/bwacct}
target_mb=${2:-100}
here=$(cd "$(dirname "$0")/.." && pwd)
src="$here/tests/data/kineto/kineto_h100_gaunernst_bert-small-uncased__1016001.redacted.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$src" "$work/big.json" "$target_mb" <<'EOF'
import json, sys
src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = json.load(open(src))
events = d["traceEvents"]
ts = [e["ts"] for e in events if "ts" in e]
span = max(e["ts"] + e.get("dur", 0) for e in events if "ts" in e) - min(ts) + 1000.0
one = sum(len(json.dumps(e)) + 1 for e in events)
reps = max(1, int(target_mb * 1e6 / one))
head = {k: v for k, v in d.items() if k != "traceEvents"}
with open(out, "w") as f:
    f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
    first = True
    for r in range(reps):
        for e in events:
            e2 = dict(e)
            if "ts" in e2:
                e2["ts"] = e["ts"] + r * span
            if "args" in e2:
                a = dict(e2["args"])
                for k in ("External id", "correlation"):
                    if isinstance(a.get(k), int):
                        a[k] = a[k] + r * 10_000_000
                e2["args"] = a
            if e2.get("cat") == "ac2g" and isinstance(e2.get("id"), int):
                e2["id"] = e2["id"] + r * 10_000_000
            f.write(("" if first else ",\n") + json.dumps(e2))
            first = False
    f.write("\n]}\n")
print(f"synthetic trace: {reps} copies of {len(events)} events", file=sys.stderr)
EOF
gzip -k -6 "$work/big.json"
plain_mb=$(($(stat -c %s "$work/big.json") / 1000000))
gz_mb=$(($(stat -c %s "$work/big.json.gz") / 1000000))

# Runs bwacct on a file; prints "wall_s max_rss_kib cpu_s" (cpu: user + system, unaffected by a loaded machine).
measure() {
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -v "$bin" ingest torch-trace "$1" --gpu h100-sxm --top 20 --format json >/dev/null 2>"$work/time.txt"
    local wall rss cpu
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
    cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$work/time.txt")
    echo "$wall $rss $cpu"
  else
    python3 - "$bin" "$1" <<'EOF'
import resource, subprocess, sys, time
t0 = time.monotonic()
r = subprocess.run([sys.argv[1], "ingest", "torch-trace", sys.argv[2], "--gpu", "h100-sxm", "--top", "20",
                "--format", "json"], stdout=subprocess.DEVNULL, check=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.monotonic() - t0:.2f} {u.ru_maxrss} {u.ru_utime + u.ru_stime:.2f}")
EOF
  fi
}

fail=0
for f in "$work/big.json" "$work/big.json.gz"; do
  read -r wall rss cpu < <(measure "$f")
  size=$([[ $f == *.gz ]] && echo "$gz_mb MB gzip of $plain_mb MB" || echo "$plain_mb MB")
  printf 'ingest torch-trace %-26s wall %6.2f s   cpu %6.2f s   max RSS %7.1f MiB\n' "($size)" "$wall" "$cpu" \
    "$(awk -v r="$rss" 'BEGIN {print r / 1024}')"
  if awk -v w="$wall" -v mb="$plain_mb" 'BEGIN {exit !(w > 30 * mb / 100)}'; then
    echo "FAIL: slower than 10x the budget (3 s per 100 MB)" >&2
    fail=1
  fi
  if ((rss > 655360 * plain_mb / 100)); then
    echo "FAIL: more memory than 10x the budget (64 MiB per 100 MB)" >&2
    fail=1
  fi
done
exit $fail
