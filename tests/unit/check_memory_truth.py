#!/usr/bin/env python3
"""check_memory_truth.py - xpstat memory must find what the generators say they wrote.

Usage: check_memory_truth.py XPSTAT XPGEN MEMGEN
xpgen (every variant, several hosts, odd content) and memgen (memory events only, on lines that
start at different times) write captures with a known allocation sequence and a --truth file.
xpgen's truth has per allocator the counts, the limit, the heap before the first and after the
last event and the lifetime peak; memgen's has also the peak in the profile window (largest
stack + heap in time order, the later on a tie) with its time, step and stats, the deallocations
without an allocation and the allocations never freed.
"""
import json
import os
import subprocess
import sys
import tempfile

XPGEN_CASES = [
    ("raw", ["--variant", "raw", "--steps", "4", "--gpus", "2", "--seed", "41"]),
    ("grouped", ["--variant", "grouped", "--steps", "3", "--gpus", "3", "--seed", "42"]),
    ("jax", ["--variant", "jax", "--steps", "4", "--gpus", "2", "--seed", "43"]),
    ("cpu", ["--variant", "cpu", "--steps", "5", "--seed", "44"]),
    ("odd", ["--variant", "raw", "--steps", "2", "--seed", "45", "--odd"]),
    ("multihost", ["--variant", "raw", "--hosts", "3", "--steps", "2", "--seed", "46"]),
    ("sized", ["--variant", "raw", "--gpus", "2", "--seed", "47", "--target-bytes", "2M"]),
]

MEMGEN_CASES = [
    ("memgen-small", ["--allocations", "2000", "--allocators", "3", "--lines", "5", "--step-events", "300",
                      "--seed", "7"]),
    ("memgen", ["--allocations", "60000", "--allocators", "6", "--lines", "12", "--step-events", "5000",
                "--seed", "8"]),
    ("memgen-one-line", ["--allocations", "5000", "--allocators", "1", "--lines", "1", "--seed", "9"]),
]

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: xpstat says {got!r}, the generator wrote {want!r}")


def memory(xpstat, path, *args):
    out = subprocess.run([xpstat, "memory", "--format", "json", *args, path], capture_output=True, text=True)
    if out.returncode != 0:
        failures.append(f"memory {path}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return json.loads(out.stdout)


def by_host_allocator(doc):
    return {(a["host"], a["allocator"]): a for a in doc["tables"]["allocators"]}


def check_xpgen(xpstat, xpgen, work, name, args):
    multi = "--hosts" in args
    out = os.path.join(work, name if multi else name + ".xplane.pb")
    if multi:
        os.makedirs(out, exist_ok=True)
    truth_path = os.path.join(work, name + ".json")
    subprocess.run([xpgen, *args, "--truth", truth_path, "-o", out], check=True, capture_output=True)
    truth = json.load(open(truth_path))
    doc = memory(xpstat, out, "--timeline")
    if doc is None:
        return
    got = by_host_allocator(doc)
    timeline = doc["tables"]["timeline"]
    total_alloc = total_dealloc = 0
    for h in truth["hosts"]:
        total_alloc += h["memory_allocations"]
        total_dealloc += h["memory_deallocations"]
        expect(f"{name} {h['host']} allocators", sorted(a for (hh, a) in got if hh == h["host"]),
               sorted(a["name"] for a in h["allocators"]))
        for t in h["allocators"]:
            what = f"{name} {h['host']} {t['name']}"
            a = got.get((h["host"], t["name"]))
            if a is None:
                failures.append(f"{what}: missing")
                continue
            expect(f"{what} allocations", a["allocations"], t["allocations"])
            expect(f"{what} deallocations", a["deallocations"], t["deallocations"])
            expect(f"{what} lifetime peak", a["peak_heap_lifetime_bytes"], t["peak_bytes_in_use"])
            # No stack: capacity = heap + (limit - heap) at the peak.
            expect(f"{what} capacity", a["memory_capacity_bytes"], t["bytes_limit"])
            rows = [r for r in timeline if r["host"] == h["host"] and r["allocator"] == t["name"]]
            heap = [r["heap_bytes"] for r in rows]
            expect(f"{what} final heap", heap[-1] if heap else None, t["final_bytes_allocated"])
            expect(f"{what} peak = max heap", a["peak_usage_bytes"], max(heap) if heap else None)
            low = max(t["initial_bytes_allocated"], t["final_bytes_allocated"])
            if not low <= a["peak_usage_bytes"] <= t["peak_bytes_in_use"]:
                failures.append(f"{what}: peak {a['peak_usage_bytes']} outside [{low}, {t['peak_bytes_in_use']}]")
    expect(f"{name} allocations", doc["summary"]["allocations"], total_alloc)
    expect(f"{name} deallocations", doc["summary"]["deallocations"], total_dealloc)


def check_memgen(xpstat, memgen, work, name, args):
    out = os.path.join(work, name + ".xplane.pb")
    truth_path = os.path.join(work, name + ".json")
    subprocess.run([memgen, *args, "--truth", truth_path, "-o", out], check=True, capture_output=True)
    truth = json.load(open(truth_path))
    doc = memory(xpstat, out, "--breakdown")
    if doc is None:
        return
    got = by_host_allocator(doc)
    expect(f"{name} allocations", doc["summary"]["allocations"], truth["memory_allocations"])
    expect(f"{name} deallocations", doc["summary"]["deallocations"], truth["memory_deallocations"])
    expect(f"{name} allocators", sorted(a for (_, a) in got), sorted(t["name"] for t in truth["allocators"]))
    for t in truth["allocators"]:
        what = f"{name} {t['name']}"
        a = got.get(("memgen", t["name"]))
        if a is None:
            failures.append(f"{what}: missing")
            continue
        for key in ("allocations", "deallocations", "unmatched_deallocations", "unfreed_allocations",
                    "peak_usage_bytes", "peak_step", "stack_bytes", "heap_bytes", "free_bytes",
                    "memory_capacity_bytes"):
            expect(f"{what} {key}", a[key], t[key])
        expect(f"{what} lifetime peak", a["peak_heap_lifetime_bytes"], t["peak_bytes_in_use"])
        # Exact: ps to ms is a decimal shift of an integer.
        expect(f"{what} peak time", round(a["peak_time_ms"] * 1e9), t["peak_time_ps"])
        if abs(a["fragmentation_pct"] - t["fragmentation"] * 100) > 1e-9:
            failures.append(f"{what} fragmentation: {a['fragmentation_pct']} vs {t['fragmentation'] * 100}")
        stack = [r for r in doc["tables"]["breakdown"] if r["allocator"] == t["name"] and r["op_name"] == "stack"]
        expect(f"{what} stack row", [r["allocation_bytes"] for r in stack], [t["stack_bytes"]])


def main():
    xpstat, xpgen, memgen = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as work:
        for name, args in XPGEN_CASES:
            check_xpgen(xpstat, xpgen, work, name, args)
        for name, args in MEMGEN_CASES:
            check_memgen(xpstat, memgen, work, name, args)
    for f in failures:
        print("FAIL " + f)
    print(f"check_memory_truth: {len(XPGEN_CASES) + len(MEMGEN_CASES)} captures, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
