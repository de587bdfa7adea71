#!/usr/bin/env python3
"""check_truth.py - xpstat info must report exactly what xpgen says it wrote, for every variant.

Usage: check_truth.py XPSTAT XPGEN
For each variant (and compression, multi-host and odd content) it generates a capture with
--truth, runs `xpstat info --format json`, and compares hosts, planes, lines, events, kernels,
distinct kernel names, kernel time, memory events and the odd-content counts.
"""
import json
import os
import subprocess
import sys
import tempfile

CASES = [
    ("raw", ["--variant", "raw", "--steps", "5", "--gpus", "2", "--seed", "31"]),
    ("grouped", ["--variant", "grouped", "--steps", "4", "--gpus", "2", "--seed", "32"]),
    ("jax", ["--variant", "jax", "--steps", "4", "--gpus", "3", "--seed", "33"]),
    ("cpu", ["--variant", "cpu", "--steps", "6", "--seed", "34"]),
    ("gzip", ["--variant", "raw", "--steps", "3", "--seed", "35", "--compress", "gzip"]),
    ("zstd", ["--variant", "grouped", "--steps", "3", "--seed", "36", "--compress", "zstd"]),
    ("odd", ["--variant", "raw", "--steps", "3", "--seed", "37", "--odd"]),
    ("multihost", ["--variant", "raw", "--hosts", "3", "--steps", "2", "--seed", "38"]),
    ("sized", ["--variant", "raw", "--gpus", "2", "--seed", "39", "--target-bytes", "3M"]),
]

# diagnostic code in `info` -> key of the truth file's "odd" object
ODD_CODES = {
    "missing_event_metadata": "missing_event_metadata",
    "missing_stat_metadata": "missing_stat_metadata",
    "dangling_ref_value": "dangling_ref_values",
    "invalid_utf8": "invalid_utf8_names",
    "pid_suffixed_planes": "pid_suffixed_planes",
    "negative_durations": "negative_durations",
    "unsorted_lines": "unsorted_lines",
    "duplicate_lines": "duplicate_line_ids",
    "time_overflow": "epoch_timestamp_lines",
    "unknown_fields": "unknown_fields",
}

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: xpstat says {got!r}, xpgen wrote {want!r}")


def check_host(name, info_host, planes, diags, truth_host):
    expect(f"{name} events", info_host["events"], truth_host["events"])
    expect(f"{name} planes", info_host["planes"], truth_host["planes_count"])
    expect(f"{name} kernels", info_host["kernels"], truth_host["kernels"])
    expect(f"{name} distinct kernels", info_host["distinct_kernels"], truth_host["kernel_names_distinct"])
    expect(f"{name} kernel time", info_host["kernel_time_ps"], truth_host["kernel_time_ps"])
    expect(f"{name} allocations", info_host["memory_allocations"], truth_host["memory_allocations"])
    expect(f"{name} deallocations", info_host["memory_deallocations"], truth_host["memory_deallocations"])
    expect(f"{name} pre-grouped", info_host["pre_grouped"], truth_host["pre_grouped"])
    host_planes = [p for p in planes if p["host"] == info_host["host"]]
    expect(f"{name} plane names", [p["plane"] for p in host_planes],
           [p["name"] for p in truth_host["planes"]])
    for got, want in zip(host_planes, truth_host["planes"]):
        expect(f"{name} {want['name']} events", got["events"], want["events"])
        expect(f"{name} {want['name']} lines", got["lines"], want["lines_count"])
        expect(f"{name} {want['name']} id", got["plane_id"], want["id"])
    odd = truth_host.get("odd") or {}
    host_diags = {d["code"]: d for d in diags if d["host"] == info_host["host"]}
    for code, key in ODD_CODES.items():
        want = odd.get(key, 0)
        got = int(host_diags[code]["message"].split()[0]) if code in host_diags else 0
        expect(f"{name} odd {code}", got, want)


def run_case(xpstat, xpgen, work, name, args):
    out = os.path.join(work, name)
    truth = os.path.join(work, name + ".truth.json")
    multi = "--hosts" in args
    if multi:
        os.makedirs(out)
    r = subprocess.run([xpgen, *args, "--truth", truth, "-o", out], capture_output=True, text=True)
    if r.returncode:
        failures.append(f"{name}: xpgen failed: {r.stderr.strip()}")
        return
    r = subprocess.run([xpstat, "info", "--format", "json", out], capture_output=True, text=True)
    if r.returncode:
        failures.append(f"{name}: xpstat exit {r.returncode}: {r.stderr.strip()}")
        return
    doc = json.loads(r.stdout)
    t = json.load(open(truth))
    expect(f"{name} hosts", len(doc["tables"]["hosts"]), t["totals"]["hosts"])
    expect(f"{name} total events", doc["summary"]["events"], t["totals"]["events"])
    by_host = {h["host"]: h for h in t["hosts"]}
    for h in doc["tables"]["hosts"]:
        if h["host"] not in by_host:
            failures.append(f"{name}: unexpected host {h['host']}")
            continue
        check_host(f"{name}/{h['host']}", h, doc["tables"]["planes"], doc["diagnostics"], by_host[h["host"]])


def main():
    xpstat, xpgen = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        for name, args in CASES:
            run_case(xpstat, xpgen, work, name, args)
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES)} generated captures checked against their truth files, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
