#!/usr/bin/env python3
"""check_real.py - xpstat info on the shared real captures must report the counts in their MANIFEST.

Usage: check_real.py XPSTAT REAL_DIR [DIFF_TOOL]
Exits 77 (skip) when REAL_DIR is absent. The expected numbers are the "Facts for tests"
of ../shared/testdata/real/MANIFEST.md, counted there with an independent reader.
"""
import json
import os
import subprocess
import sys

# file: (events, planes, kernels, distinct kernel names, kernel time ps, allocations, deallocations)
FACTS = {
    "openxla-xprof/tpu_inference_2.xplane.pb": (26723, 7, 0, 0, 0, 453, 453),
    "tensorflow-profiler/GPU-multi-worker/34.83.195.179_6003.xplane.pb": (23128, 9, 1330, 11, 29690748000, 1859, 634),
    "tracelens/jax08_elementwise/tw003.xplane.pb": (4623, 11, 75, 5, 3880724000, 85, 85),
    "tracelens/jax08_gemm/tw003.xplane.pb": (3782, 11, 54, 8, 3475484000, 81, 81),
    "tracelens/jax_conv_minimal_08/tw003.xplane.pb": (3650, 11, 235, 6, 28137077000, 115, 115),
    "tracelens/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb":
        (6024, 11, 25, 5, 3586493000, 230, 230),
    "tracelens/te_fused_attn/934987a2fc2f.xplane.pb": (1992, 12, 150, 19, 12133585000, 30, 29),
}

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got}, want {want}")


def info(xpstat, path, *extra):
    out = subprocess.run([xpstat, "info", "--format", "json", *extra, path],
                         capture_output=True, text=True)
    if out.returncode != 0:
        failures.append(f"{path}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return out.stdout


def check_capture(xpstat, real, rel, facts):
    path = os.path.join(real, rel)
    text = info(xpstat, path)
    if text is None:
        return
    doc = json.loads(text)
    host = doc["tables"]["hosts"][0]
    events, planes, kernels, distinct, kernel_ps, alloc, dealloc = facts
    expect(f"{rel} events", host["events"], events)
    expect(f"{rel} planes", host["planes"], planes)
    expect(f"{rel} kernels", host["kernels"], kernels)
    expect(f"{rel} distinct kernels", host["distinct_kernels"], distinct)
    expect(f"{rel} kernel time ps", host["kernel_time_ps"], kernel_ps)
    expect(f"{rel} allocations", host["memory_allocations"], alloc)
    expect(f"{rel} deallocations", host["memory_deallocations"], dealloc)
    expect(f"{rel} plane events sum", sum(p["events"] for p in doc["tables"]["planes"]), events)
    # Same bytes whatever the thread count.
    expect(f"{rel} output with 1 vs 2 threads", info(xpstat, path, "--threads", "1"), info(xpstat, path, "--threads", "2"))
    return doc


def check_tf_gpu(doc):
    """The TF 2.4 8xV100 capture: details the MANIFEST spells out."""
    planes = {p["plane"]: p for p in doc["tables"]["planes"]}
    expect("TF host plane lines", planes["/host:CPU"]["lines"], 22)
    expect("TF host plane events", planes["/host:CPU"]["events"], 15354)
    expect("TF GPU:4 kernels", planes["/device:GPU:4"]["kernels"], 665)
    expect("TF GPU:6 kernels", planes["/device:GPU:6"]["kernels"], 665)
    expect("TF GPU:1 events", planes["/device:GPU:1"]["events"], 19)
    expect("TF pre-grouped", doc["tables"]["hosts"][0]["pre_grouped"], True)
    expect("TF host name", doc["tables"]["hosts"][0]["host"], "34.83.195.179:6003")
    devices = doc["tables"]["devices"]
    expect("TF devices", len(devices), 8)
    expect("TF device cc", {d["compute_capability"] for d in devices}, {"7.0"})
    expect("TF device SMs", {d["core_count"] for d in devices}, {80})


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    diff_tool = sys.argv[3] if len(sys.argv) > 3 else None
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    for rel, facts in FACTS.items():
        if not os.path.exists(os.path.join(real, rel)):
            failures.append(f"{rel}: missing from {real}")
            continue
        doc = check_capture(xpstat, real, rel, facts)
        if doc and rel.startswith("tensorflow-profiler/GPU-multi-worker"):
            check_tf_gpu(doc)
    if diff_tool:
        paths = [os.path.join(real, rel) for rel in FACTS if os.path.exists(os.path.join(real, rel))]
        r = subprocess.run([diff_tool, *paths], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("walker vs protobuf-c: " + r.stderr.strip())
    for f in failures:
        print("FAIL", f)
    print(f"{len(FACTS)} real captures checked, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
