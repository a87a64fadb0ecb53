#!/usr/bin/env bash
# Speed and memory of `bwacct ingest torch-trace` on large Kineto traces. A shipped trace (default: the
# BERT one in tests/data/kineto/) is replicated to each size with fresh ids (External id, correlation,
# flow ids) and timestamps shifted by one trace span per copy, so linking works as on a real long
# trace. Each size is written plain (and the smallest also gzip-compressed), ingested once, and deleted.
# Prints one row per file: JSON MB, CPU seconds (user + system, so a loaded machine changes little),
# MB of JSON per CPU second, wall seconds and peak RSS (GNU time -v, else getrusage via Python), of
# the run with the least CPU time of BENCH_RUNS (default 3).
# A report, not a test: it exits 0 whatever the figures (the targets are printed beside them).
#
#   scripts/bench_ingest.sh [path/to/bwacct] [sizes in MB, comma-separated] [source trace]
#   scripts/bench_ingest.sh build/bwacct 50,200,500
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/bwacct}
sizes=${2:-50,200,500}
src=${3:-$here/tests/data/kineto/kineto_h100_gaunernst_bert-small-uncased__1016001.redacted.json}
runs=${BENCH_RUNS:-3}
[[ -x $bin ]] || { echo "bench_ingest: $bin is not an executable (build it first)" >&2; exit 2; }
[[ -r $src ]] || { echo "bench_ingest: cannot read the source trace $src" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench_ingest: BENCH_RUNS must be a positive integer, got '$runs'" >&2; exit 2; }
[[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || { echo "bench_ingest: sizes must be MB values like 50,200,500, got '$sizes'" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Writes a trace of about $2 MB to $1 from the source trace.
make_trace() {
  python3 - "$src" "$1" "$2" <<'EOF'
import gzip, json, sys
src, out, target_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
opener = gzip.open if open(src, "rb").read(2) == b"\x1f\x8b" else open
with opener(src, "rt") as f:
    d = json.load(f)
events = [e for e in d["traceEvents"] if isinstance(e, dict)]
times = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
ends = [e["ts"] + e["dur"] for e in events if isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float))]
span = max(ends + times) - min(times) + 1000.0
ID_STEP = 10_000_000  # far above any id in one copy
# Each event serialized once with placeholders; each copy only substitutes numbers.
templates = []
for e in events:
    e2 = dict(e)
    shifted = {}
    if isinstance(e2.get("ts"), (int, float)):
        shifted["@TS@"] = e2["ts"]
        e2["ts"] = "@TS@"
    if isinstance(e2.get("args"), dict):
        a = dict(e2["args"])
        for k, mark in (("External id", "@EXT@"), ("correlation", "@COR@")):
            if isinstance(a.get(k), int):
                shifted[mark] = a[k]
                a[k] = mark
        e2["args"] = a
    if e2.get("cat") == "ac2g" and isinstance(e2.get("id"), int):
        shifted["@ID@"] = e2["id"]
        e2["id"] = "@ID@"
    text = json.dumps(e2, separators=(", ", ": "))
    templates.append((text, shifted))
one = sum(len(t) + 2 for t, _ in templates)
reps = max(1, round(target_mb * 1e6 / one))
head = {k: v for k, v in d.items() if k != "traceEvents"}
with open(out, "w") as f:
    f.write(json.dumps(head)[:-1] + ', "traceEvents": [\n')
    sep = ""
    for r in range(reps):
        parts = []
        for text, shifted in templates:
            for mark, v in shifted.items():
                nv = v + r * span if mark == "@TS@" else v + r * ID_STEP
                text = text.replace(f'"{mark}"', repr(round(nv, 3)) if mark == "@TS@" else str(nv), 1)
            parts.append(text)
        f.write(sep + ",\n".join(parts))
        sep = ",\n"
    f.write("\n]}\n")
EOF
}

# Runs bwacct on a file; prints "wall_s max_rss_kib cpu_s".
measure() {
  local args=(ingest torch-trace "$1" --gpu h100-sxm --top 20 --format json)
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -v "$bin" "${args[@]}" >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
    awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; wall = s}
                /Maximum resident set size/ {rss = $2}
                /User time|System time/ {cpu += $2}
                END {print wall, rss, cpu}' "$work/time.txt"
  else
    python3 - "$bin" "${args[@]}" <<'EOF'
import resource, subprocess, sys, time
t0 = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{time.monotonic() - t0:.2f} {u.ru_maxrss} {u.ru_utime + u.ru_stime:.2f}")
EOF
  fi
}

echo "bwacct: $bin"
echo "source: $(basename "$src"), replicated with fresh ids and shifted timestamps"
printf '%-22s %9s %8s %9s %8s %12s\n' "file" "JSON MB" "CPU s" "MB/CPU s" "wall s" "peak RSS MiB"
first=1
IFS=, read -ra list <<<"$sizes"
for mb in "${list[@]}"; do
  make_trace "$work/t.json" "$mb"
  json_mb=$(awk -v b="$(stat -c %s "$work/t.json")" 'BEGIN {printf "%.1f", b / 1e6}')
  files=("$work/t.json")
  if ((first)); then
    gzip -k -6 "$work/t.json"
    files+=("$work/t.json.gz")
    first=0
  fi
  for f in "${files[@]}"; do
    # The run with the least CPU time of $runs (a shared machine adds time, never removes it).
    best=""
    for ((run = 0; run < runs; run++)); do
      read -r w r c < <(measure "$f")
      if [[ -z $best ]] || awk -v c="$c" -v b="$cpu" 'BEGIN {exit !(c < b)}'; then
        best=1 wall=$w rss=$r cpu=$c
      fi
    done
    label="$mb MB"
    if [[ $f == *.gz ]]; then label+=" (gzip $(awk -v b="$(stat -c %s "$f")" 'BEGIN {printf "%.0f", b / 1e6}') MB)"; fi
    awk -v l="$label" -v mb="$json_mb" -v c="$cpu" -v w="$wall" -v r="$rss" \
      'BEGIN {printf "%-22s %9.1f %8.2f %9.0f %8.2f %12.1f\n", l, mb, c, (c > 0 ? mb / c : 0), w, r / 1024}'
  done
  rm -f "$work/t.json" "$work/t.json.gz"
done
echo "targets (issue 12): >= 200 MB of JSON per CPU second; peak RSS <= 64 MiB, flat from 50 MB to 500 MB"
