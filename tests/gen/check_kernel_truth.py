#!/usr/bin/env python3
"""check_kernel_truth.py - xpstat kernel-stats must count exactly the kernels xpgen says it wrote.

Usage: check_kernel_truth.py XPSTAT XPGEN
For each variant (TF on NVIDIA with the current kernel_details form, TF 2.4 style with
"regs shm" and "level 0", JAX on AMD; compressed, odd, multi-host and sized captures) it
generates a capture with --truth and compares, per host, the kernel launches, distinct kernel
names and total kernel time (exact, in ps) with the rows of `kernel-stats --format json`,
and the summary with their sum over hosts.
"""
import json
import os
import subprocess
import sys
import tempfile
from decimal import Decimal

CASES = [
    ("raw", ["--variant", "raw", "--steps", "5", "--gpus", "2", "--seed", "41"]),
    ("grouped", ["--variant", "grouped", "--steps", "4", "--gpus", "2", "--seed", "42"]),
    ("jax", ["--variant", "jax", "--steps", "4", "--gpus", "3", "--seed", "43"]),
    ("cpu", ["--variant", "cpu", "--steps", "3", "--seed", "44"]),
    ("gzip", ["--variant", "raw", "--steps", "3", "--seed", "45", "--compress", "gzip"]),
    ("zstd", ["--variant", "grouped", "--steps", "3", "--seed", "46", "--compress", "zstd"]),
    ("odd", ["--variant", "raw", "--steps", "3", "--seed", "47", "--odd"]),
    ("multihost", ["--variant", "raw", "--hosts", "3", "--steps", "2", "--seed", "48"]),
    ("multihost-jax", ["--variant", "jax", "--hosts", "2", "--steps", "2", "--seed", "49"]),
    ("sized", ["--variant", "raw", "--gpus", "2", "--seed", "50", "--target-bytes", "3M"]),
]

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: xpstat says {got!r}, xpgen wrote {want!r}")


def ps(us):
    return int(Decimal(us) * 1000000)


def check(xpstat, xpgen, name, args, work):
    out = os.path.join(work, name if "--hosts" in args else name + ".xplane.pb")
    truth_path = os.path.join(work, name + ".truth.json")
    if "--hosts" in args:
        os.makedirs(out, exist_ok=True)
    subprocess.run([xpgen, *args, "--truth", truth_path, "-o", out], check=True, capture_output=True)
    with open(truth_path) as f:
        truth = json.load(f)
    r = subprocess.run([xpstat, "kernel-stats", "--format", "json", out], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
        return
    doc = json.loads(r.stdout, parse_float=Decimal)
    rows, summary = doc["tables"]["kernels"], doc["summary"]
    kernels = sum(h["kernels"] for h in truth["hosts"])
    expect(f"{name} hosts", summary["hosts"], len(truth["hosts"]))
    expect(f"{name} kernels", summary["kernels"], kernels)
    expect(f"{name} kernel time ps", ps(summary["kernel_time_us"]), sum(h["kernel_time_ps"] for h in truth["hosts"]))
    for h in truth["hosts"]:
        mine = [row for row in rows if row["host"] == h["host"]]
        expect(f"{name} {h['host']} kernels", sum(row["occurrences"] for row in mine), h["kernels"])
        expect(f"{name} {h['host']} distinct kernel names", len({row["kernel_name"] for row in mine}),
               h["kernel_names_distinct"])
        expect(f"{name} {h['host']} kernel time ps", sum(ps(row["total_duration_us"]) for row in mine),
               h["kernel_time_ps"])
    if len(truth["hosts"]) == 1:
        expect(f"{name} distinct kernels", summary["distinct_kernels"], truth["hosts"][0]["kernel_names_distinct"])
    if kernels == 0:
        expect(f"{name} diagnostics", [d["code"] for d in doc["diagnostics"]], ["no_kernels"])
    # Every kernel has an op: the generator annotates each one (tf_op, "level 0" or hlo_op).
    expect(f"{name} kernels without op", [row["kernel_name"] for row in rows if not row["op_name"]], [])


def main():
    xpstat, xpgen = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        for name, args in CASES:
            check(xpstat, xpgen, name, args, work)
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES)} generated captures checked, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
