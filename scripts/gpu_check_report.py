#!/usr/bin/env python3
"""The checks of scripts/gpu-check.sh, on a directory of `bwacct ... --format json` outputs.

    scripts/gpu_check_report.py WORK_DIR SANITIZER [REPORT.json]

WORK_DIR holds NAME.json for each run gpu-check made (device, hbm, gemm_seed, ...). Writes the report
(default docs/measurements/<date>-<gpu>.json) and exits 1 when any check fails. A check that cannot be
made is a failure, never a silent pass: a device that matches no catalog entry has no peak to bound
its GEMM and bandwidth figures by, and a derived HBM peak of 0 (the driver reported no bus width or
memory clock) bounds nothing.
"""
import datetime
import json
import os
import sys


def main():
    work, sanitizer = sys.argv[1], sys.argv[2]
    target = sys.argv[3] if len(sys.argv) > 3 else ""

    def load(name):
        try:
            with open(os.path.join(work, name + ".json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    report = {"schema": "bwacct.gpu-check/1",
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "sanitizer": sanitizer, "checks": [], "results": {}}
    ok = True

    def check(name, passed, detail):
        nonlocal ok
        ok &= bool(passed)
        report["checks"].append({"check": name, "passed": bool(passed), "detail": detail})
        print(("ok    " if passed else "FAIL  ") + name + ": " + detail)

    bandwidth_bound = ["elementwise", "rmsnorm", "layernorm", "softmax", "attention_decode", "attention_causal",
                       "attention_fp32", "attention_fp16"]
    for name in ["device", "hbm", "launch", "gemm_seed", "gemm_8192", "gemm_fp8", "allreduce", "calibrate"] + bandwidth_bound:
        doc = load(name)
        if doc is not None:
            report["results"][name] = doc

    # A run that failed (gpu-check.sh keeps its stderr as NAME.err and its stdout, no JSON, as NAME.json) is a
    # failed check in the report too: the first H100 run's report listed only passing checks while the
    # script exited 1 for an fp8 GEMM that found no algorithm.
    for err in sorted(f for f in os.listdir(work) if f.endswith(".err") and f != "sanitizer.err"):
        name = err[:-len(".err")]
        if load(name) is None:
            with open(os.path.join(work, err), errors="replace") as f:
                first = f.readline().strip()
            check(name + " ran", False, first or "no JSON output and nothing on stderr")

    device = report["results"].get("device", {}).get("device", {})
    device_name = device.get("name", "this GPU")

    hbm = report["results"].get("hbm")
    if hbm:
        derived = hbm.get("device", {}).get("derived_hbm_GBps", 0) or 0
        if derived <= 0:
            check("hbm derived peak", False,
                  "the derived HBM peak is %s (no bus width or memory clock from the driver): the copy and triad "
                  "bandwidths cannot be bounded" % derived)
        else:
            for k in hbm["kernels"]:
                if k["kernel"] in ("copy", "triad"):
                    f = k["bw_GBps"] / derived
                    check("hbm " + k["kernel"] + " within 70-100 % of derived peak", 0.70 <= f <= 1.0,
                          "%.1f GB/s = %.1f %% of %.1f GB/s" % (k["bw_GBps"], 100 * f, derived))

    def catalog_row(name, doc):
        """The record's entry for the catalog GPU this device matched, or a failed check saying why not."""
        match = doc.get("measurement", {}).get("device", {}).get("catalog_match", "")
        if not match:
            check(name + " bounded by a catalog peak", False,
                  "'%s' matches no catalog entry, so there is no peak to check against: add it to "
                  "configs/gpus.json (with sources) and run again" % device_name)
            return None
        for g in doc.get("gpus", []):
            if g.get("gpu") == match:
                return g
        check(name + " bounded by a catalog peak", False,
              "the record has no row for the matched catalog entry '%s'" % match)
        return None

    for name in ["gemm_seed", "gemm_8192", "gemm_fp8"]:
        doc = report["results"].get(name)
        if doc:
            g = catalog_row(name, doc)
            if g:
                peak = g["peaks"]["compute_tflops"]
                check(name + " at or below the catalog peak", g["tflops"] <= peak,
                      "%.1f TFLOP/s vs %.1f dense peak" % (g["tflops"], peak))
            check(name + " verified", bool(doc["measurement"]["verification"]), doc["measurement"]["verification"])
    for name in bandwidth_bound:
        doc = report["results"].get(name)
        if doc:
            g = catalog_row(name, doc)
            if g:
                peak = g["peaks"]["hbm_GBps"]
                check(name + " implied bandwidth at or below the catalog HBM peak", g["implied_bw_GBps"] <= peak,
                      "%.1f GB/s vs %.1f GB/s" % (g["implied_bw_GBps"], peak))
            check(name + " verified", bool(doc["measurement"]["verification"]), doc["measurement"]["verification"])
    if not report["checks"]:
        check("results", False, "no measurement produced a result to check")

    out = target or os.path.join("docs", "measurements",
                                 datetime.date.today().isoformat() + "-" + device_name.replace(" ", "-") + ".json")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as f:
        json.dump(report, f, indent=2)
    print("report: " + out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
