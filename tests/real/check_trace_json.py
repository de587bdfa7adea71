#!/usr/bin/env python3
"""check_trace_json.py - the real PyTorch/Kineto traces read as trace JSON must give the MANIFEST's facts.

Usage: check_trace_json.py XPSTAT REAL_DIR
Exits 77 (skip) when REAL_DIR is absent. Every *.json.gz under kineto/, hta/ and tracelens/h100/
is checked; the expected numbers are the "Facts for tests" of ../shared/testdata/real/MANIFEST.md.

How the MANIFEST counts, checked here against the file itself with Python's json module:
  events       = the entries of traceEvents (metadata and flow events included)
  kernels      = X events of category kernel/Kernel (zero durations included)
  kernel time  = the sum of their dur (microseconds, summed exactly with decimal)
  memory       = the [memory] instant events
  ProfilerSteps = distinct ProfilerStep#N names on the host side (not gpu_user_annotation)
and how xpstat reports them (info --format json):
  events       = the trace_json_contents diagnostic ("N traceEvents entries: ...")
  kernels      = hosts.kernels (kernels with a duration, as kernel-stats counts them) plus the
                 zero_duration_kernels diagnostic (kernels shorter than the trace's resolution)
  distinct kernels, kernel time = hosts.distinct_kernels, hosts.kernel_time_ps
  memory       = hosts.memory_allocations + memory_deallocations
  ProfilerSteps = the steps analysis detail ("N step root events")
Per kernel name, kernel-stats' total durations must equal the exact sums of dur. `steps` must
give one row per distinct host-side ProfilerStep#N (DESIGN §8), named after it.
"""
import collections
import gzip
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

# file: (events, kernel launches, distinct kernel names, total kernel time in us, memory events, ProfilerSteps)
FACTS = {
    "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz": (220, 14, 12, "110.881", 0, 2),
    "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz": (30, 0, 0, "0.000", 0, 1),
    "hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz": (4222, 0, 0, "0.000", 0, 0),
    "hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz": (68692, 4350, 77, "468153.602", 0, 5),
    "kineto/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz": (75718, 8772, 67, "591532.000", 12838, 6),
    "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz": (2551, 60, 11, "307.197", 236, 1),
}
FOLDERS = ["kineto", "hta", os.path.join("tracelens", "h100")]
KERNEL_CATS = {"kernel", "Kernel"}
DEVICE_CATS = KERNEL_CATS | {"gpu_memcpy", "gpu_memset", "Memcpy", "Memset"}

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def xpstat_json(xpstat, *args):
    r = subprocess.run([xpstat, *args[:-1], "--format", "json", args[-1]], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout, parse_float=Decimal)


def ps(us):
    return int(Decimal(us) * 1000000)


def from_file(path):
    """The MANIFEST's counts, derived from the file."""
    doc = json.loads(gzip.open(path).read(), parse_float=Decimal)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    kernels = [e for e in ev if e.get("ph") == "X" and e.get("cat") in KERNEL_CATS]
    per_kernel = collections.defaultdict(Decimal)
    for k in kernels:
        per_kernel[k["name"]] += Decimal(k["dur"])
    steps = {e["name"] for e in ev if str(e.get("name", "")).startswith("ProfilerStep#")
             and e.get("cat") != "gpu_user_annotation"}
    return {
        "events": len(ev),
        "kernels": len(kernels),
        "zero_kernels": sum(1 for k in kernels if Decimal(k["dur"]) == 0),
        "distinct": len(per_kernel),
        "kernel_us": sum(per_kernel.values(), Decimal(0)),
        "per_kernel": per_kernel,
        "memory": sum(1 for e in ev if e.get("name") == "[memory]"),
        "allocations": sum(1 for e in ev if e.get("name") == "[memory]" and e["args"]["Bytes"] >= 0),
        "steps": steps,
    }


def diag_number(info, code, pattern):
    for d in info["diagnostics"]:
        if d["code"] == code:
            m = re.match(pattern, d["message"])
            return int(m.group(1)) if m else None
    return 0


# The PyTorch profiler's rule: ProfilerStep#2 of the AMD trace ran no device work (a 49 us tail).
DROPPED = {"hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz": 1}


def check_trace(xpstat, real, rel):
    path = os.path.join(real, rel)
    f = from_file(path)
    facts = FACTS.get(rel)
    if facts is None:
        failures.append(f"{rel}: no facts for it in this test (add the MANIFEST row)")
        return
    events, kernels, distinct, kernel_us, memory, steps = facts
    # the MANIFEST's definitions hold on the file
    expect(f"{rel}: MANIFEST events = traceEvents entries", f["events"], events)
    expect(f"{rel}: MANIFEST kernels = kernel X events", f["kernels"], kernels)
    expect(f"{rel}: MANIFEST distinct kernels", f["distinct"], distinct)
    expect(f"{rel}: MANIFEST kernel time", f["kernel_us"], Decimal(kernel_us))
    expect(f"{rel}: MANIFEST memory events = [memory]", f["memory"], memory)
    expect(f"{rel}: MANIFEST ProfilerSteps", len(f["steps"]), steps)
    info = xpstat_json(xpstat, "info", path)
    if not info:
        return
    host = info["tables"]["hosts"][0]
    expect(f"{rel}: format", host["format"], "trace-json")
    expect(f"{rel}: events (traceEvents entries)",
           diag_number(info, "trace_json_contents", r"(\d+) traceEvents entries"), events)
    zero = diag_number(info, "zero_duration_kernels", r"(\d+) ")
    expect(f"{rel}: zero-duration kernels", zero, f["zero_kernels"])
    # a PyTorch trace's dur-0 kernels are launches under a microsecond: counted, as kernel-stats and the
    # PyTorch profiler count them; elsewhere the kernel analyses skip them
    counted = host["kernels"] if host["producer"].startswith("PyTorch") else host["kernels"] + zero
    expect(f"{rel}: kernel launches (with duration + zero duration)", counted, kernels)
    expect(f"{rel}: distinct kernels", host["distinct_kernels"], distinct)
    expect(f"{rel}: kernel time ps", host["kernel_time_ps"], ps(kernel_us))
    expect(f"{rel}: memory events", host["memory_allocations"] + host["memory_deallocations"], memory)
    expect(f"{rel}: allocations", host["memory_allocations"], f["allocations"])
    detail = {a["analysis"]: a["detail"] for a in info["tables"]["analyses"]}
    m = re.match(r"(\d+) step root events", detail.get("steps", ""))
    expect(f"{rel}: ProfilerSteps (step roots)", int(m.group(1)) if m else None, steps)
    expect(f"{rel}: same output with 1 and 2 threads",
           xpstat_json(xpstat, "info", "--threads", "1", path), xpstat_json(xpstat, "info", "--threads", "2", path))
    # per kernel: kernel-stats' totals are the exact sums of dur
    ks = xpstat_json(xpstat, "kernel-stats", path)
    if ks:
        got = collections.defaultdict(Decimal)
        for row in ks["tables"]["kernels"]:
            got[row["kernel_name"]] += Decimal(row["total_duration_us"])
        # PyTorch semantics: a dur-0 launch ran under a microsecond, and counts (the PyTorch profiler, HTA)
        expect(f"{rel}: kernel-stats per-kernel totals", dict(got), dict(f["per_kernel"]))
        expect(f"{rel}: kernel-stats launches (zero-duration ones too)", ks["summary"]["kernels"], kernels)
        expect(f"{rel}: kernel-stats kernel time", ks["summary"]["kernel_time_us"], Decimal(kernel_us))
    # steps: one row per distinct host-side ProfilerStep#N (DESIGN §8), named after it; on a
    # capture with device work the trailing steps that launched none are dropped, and said so
    st = xpstat_json(xpstat, "steps", path)
    if st:
        names = sorted(row["step_name"] for row in st["tables"]["steps"])
        dropped = [d for d in st["diagnostics"] if d["code"] == "steps_dropped"]
        n_dropped = int(re.match(r"(\d+) step", dropped[0]["message"]).group(1)) if dropped else 0
        want = sorted(f["steps"], key=lambda s: int(s.split("#")[1]))
        want = sorted(want[:len(want) - n_dropped])
        expect(f"{rel}: steps rows", names, want)
        expect(f"{rel}: steps dropped", n_dropped, DROPPED.get(rel, 0))


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    traces = []
    for folder in FOLDERS:
        for root, _, files in os.walk(os.path.join(real, folder)):
            traces += [os.path.relpath(os.path.join(root, n), real) for n in files if n.endswith(".json.gz")]
    for rel in sorted(traces):
        check_trace(xpstat, real, rel)
    for rel in FACTS:
        if rel not in traces:
            failures.append(f"{rel}: missing from {real}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(traces)} real trace JSON files checked, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
