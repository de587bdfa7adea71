#!/usr/bin/env python3
"""check_memory.py - xpstat memory on the shared real captures: MANIFEST counts and internal consistency.

Usage: check_memory.py XPSTAT REAL_DIR
Exits 77 (skip) when REAL_DIR is absent. The allocation and deallocation counts are the
"Facts for tests" of ../shared/testdata/real/MANIFEST.md, counted there with an independent
reader. Everything else is checked against the full-resolution timeline of the same run: each
allocator's peak is the largest stack + heap of its events (the later one on a tie), its stats are
that event's, the timeline is in time order, and a sampled timeline keeps the peak.
"""
import json
import os
import subprocess
import sys

# file: (allocations, deallocations, allocator ids)
FACTS = {
    "openxla-xprof/tpu_inference_2.xplane.pb": (453, 453, ["0", "1", "2", "3"]),
    "tensorflow-profiler/GPU-multi-worker/34.83.195.179_6003.xplane.pb":
        (1859, 634, ["GPU_1_bfc", "GPU_4_bfc", "GPU_6_bfc", "gpu_host_bfc"]),
    "tracelens/jax08_elementwise/tw003.xplane.pb": (85, 85, ["GPU_0_bfc", "xla_gpu_host_bfc"]),
    "tracelens/jax08_gemm/tw003.xplane.pb": (81, 81, ["GPU_0_bfc", "xla_gpu_host_bfc"]),
    "tracelens/jax_conv_minimal_08/tw003.xplane.pb": (115, 115, [f"GPU_{i}_bfc" for i in range(8)]),
    "tracelens/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb":
        (230, 230, [f"GPU_{i}_bfc" for i in range(8)]),
    "tracelens/te_fused_attn/934987a2fc2f.xplane.pb": (30, 29, ["GPU_0_bfc"]),
}

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def run(xpstat, *args):
    out = subprocess.run([xpstat, "memory", *args], capture_output=True, text=True)
    if out.returncode != 0:
        failures.append(f"memory {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return out.stdout


def check_allocator(name, a, rows):
    expect(f"{name} events", len(rows), a["memory_events"])
    expect(f"{name} allocations", sum(r["activity"] == "allocation" for r in rows), a["allocations"])
    expect(f"{name} deallocations", sum(r["activity"] == "deallocation" for r in rows), a["deallocations"])
    expect(f"{name} event order", [r["event_index"] for r in rows], list(range(len(rows))))
    times = [r["time_ms"] for r in rows]
    expect(f"{name} time order", times, sorted(times))
    expect(f"{name} first/last", (a["first_event_ms"], a["last_event_ms"]), (times[0], times[-1]))
    for r in rows:
        if r["in_use_bytes"] != r["stack_bytes"] + r["heap_bytes"]:
            failures.append(f"{name} row {r['event_index']}: in use is not stack + heap")
            break
    peak = max(r["in_use_bytes"] for r in rows)
    expect(f"{name} peak = max(stack + heap)", a["peak_usage_bytes"], peak)
    last = [r for r in rows if r["in_use_bytes"] == peak][-1]
    expect(f"{name} peak time (the later of equal peaks)", a["peak_time_ms"], last["time_ms"])
    expect(f"{name} peak step", a["peak_step"], last["step"])
    for k in ("stack_bytes", "heap_bytes", "free_bytes", "fragmentation_pct"):
        expect(f"{name} {k} at the peak", a[k], last[k])
    expect(f"{name} capacity", a["memory_capacity_bytes"],
           last["stack_bytes"] + last["heap_bytes"] + last["free_bytes"])


def check_breakdown(name, a, rows):
    if a["stack_bytes"] > 0:
        stack = [r for r in rows if r["op_name"] == "stack"]
        expect(f"{name} stack row", [r["allocation_bytes"] for r in stack], [a["stack_bytes"]])
    keys = [(-r["allocation_bytes"], -r["requested_bytes"], r["op_name"].encode(), r["region_type"].encode(),
             r["data_type"].encode(), r["shape"].encode()) for r in rows]
    expect(f"{name} breakdown order", keys, sorted(keys))
    expect(f"{name} breakdown step", {r["step"] for r in rows} - {a["peak_step"]}, set())


def check_capture(xpstat, real, rel, facts):
    path = os.path.join(real, rel)
    alloc, dealloc, ids = facts
    text = run(xpstat, "--breakdown", "--timeline", "--format", "json", path)
    if text is None:
        return
    doc = json.loads(text)
    s = doc["summary"]
    expect(f"{rel} allocations", s["allocations"], alloc)
    expect(f"{rel} deallocations", s["deallocations"], dealloc)
    allocators = doc["tables"]["allocators"]
    expect(f"{rel} allocators", [a["allocator"] for a in allocators], ids)
    expect(f"{rel} allocations over allocators", sum(a["allocations"] for a in allocators), alloc)
    expect(f"{rel} deallocations over allocators", sum(a["deallocations"] for a in allocators), dealloc)
    expect(f"{rel} events", s["memory_events"], alloc + dealloc)
    for a in allocators:
        name = f"{rel} {a['allocator']}"
        check_allocator(name, a, [r for r in doc["tables"]["timeline"] if r["allocator"] == a["allocator"]])
        check_breakdown(name, a, [r for r in doc["tables"]["breakdown"] if r["allocator"] == a["allocator"]])
    # A sampled timeline keeps each allocator's peak and at most N points.
    text = run(xpstat, "--points", "10", "--format", "json", path)
    if text is not None:
        sampled = json.loads(text)["tables"]["timeline"]
        for a in allocators:
            rows = [r for r in sampled if r["allocator"] == a["allocator"]]
            expect(f"{rel} {a['allocator']} sampled points", len(rows), min(10, a["memory_events"]))
            expect(f"{rel} {a['allocator']} sampled peak", max(r["in_use_bytes"] for r in rows),
                   a["peak_usage_bytes"])
    # Same bytes whatever the thread count; the CSV of a filter is its rows.
    expect(f"{rel} 1 vs 2 threads", run(xpstat, "--format", "json", "--threads", "1", path),
           run(xpstat, "--format", "json", "--threads", "2", path))
    one = run(xpstat, "--allocator", ids[-1], "--format", "json", path)
    if one is not None:
        expect(f"{rel} --allocator {ids[-1]}", json.loads(one)["tables"]["allocators"], [allocators[-1]])


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    for rel, facts in FACTS.items():
        if not os.path.exists(os.path.join(real, rel)):
            failures.append(f"{rel}: missing from {real}")
            continue
        check_capture(xpstat, real, rel, facts)
    for f in failures:
        print("FAIL " + f)
    print(f"check_memory: {len(FACTS)} captures, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
