#!/usr/bin/env python3
"""check_pytorch.py - PyTorch semantics on kineto/resnet50_num_workers_0 against the PyTorch profiler's output.

Usage: check_pytorch.py XPSTAT REAL_DIR
The expectations are tb_plugin_expected.json beside the trace (what the PyTorch profiler's TensorBoard
plugin v0.4.3 shows for it, from pytorch/kineto's checked-in test expectations): each step's
Kernel, Memcpy, Memset, Runtime, DataLoader, CPU Exec and Other within 1 us, the average step,
DataLoader's share and the num_workers recommendation. Skips (77) when REAL_DIR is absent.
"""
import json
import os
import subprocess
import sys

REL = "kineto/resnet50_num_workers_0"
KEYS = {"Kernel": "device_compute_ms", "Memcpy": "memcpy_ms", "Memset": "memset_ms", "Runtime": "kernel_launch_ms",
        "DataLoader": "input_ms", "CPU Exec": "host_compute_ms", "Other": "all_others_ms"}
failures = []


def run(xpstat, *args):
    out = subprocess.run([xpstat, "--format", "json", *args], capture_output=True, text=True)
    if out.returncode:
        failures.append(f"xpstat {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return json.loads(out.stdout)


def near(what, got_ms, want_us):
    if got_ms is None or abs(got_ms * 1000 - want_us) > 1:
        failures.append(f"{what}: xpstat says {got_ms} ms, the PyTorch profiler {want_us} us")


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    folder = os.path.join(real, REL)
    if not os.path.isdir(folder):
        print(f"skip: {folder} is absent")
        return 77
    ref = json.load(open(os.path.join(folder, "tb_plugin_expected.json")))
    trace = os.path.join(folder, ref["trace"])
    cols = ref["step_columns"]
    steps = run(xpstat, "steps", trace)
    if steps:
        rows = {r["step_name"]: r for r in steps["tables"]["steps"]}
        if len(rows) != len(ref["steps"]):
            failures.append(f"steps: {sorted(rows)}, the PyTorch profiler has {len(ref['steps'])}")
        for want in ref["steps"]:
            row = rows.get("ProfilerStep#" + want[0], {})
            for name, value in zip(cols[1:], want[1:]):
                near(f"step {want[0]} {name}", row.get(KEYS[name]), value)
            near(f"step {want[0]} time", row.get("step_time_ms"), sum(want[1:]))
    ov = run(xpstat, "overview", trace)
    if ov:
        near("average step", ov["summary"]["step_time_avg_ms"], ref["average"]["step"])
        if round(ov["summary"]["input_pct"], 1) != round(ref["average_pct"]["DataLoader"], 1):
            failures.append(f"DataLoader share {ov['summary']['input_pct']}, want {ref['average_pct']['DataLoader']}")
        reco = " ".join(r["message"] for r in ov["tables"]["recommendation"])
        for word in ("num_workers", "33.4% of the step time is in DataLoader"):
            if word not in reco:
                failures.append(f"overview recommendation lacks {word!r}: {reco}")
        for word in ("tf.data", "Keras", "Section 3", "TensorFlow"):
            if word in reco:
                failures.append(f"overview recommendation on a PyTorch capture says {word!r}")
    ip = run(xpstat, "input-pipeline", trace)
    if ip:
        words = " ".join([ip.get("verdict", "")] + [r["message"] for r in ip["tables"]["recommendation"]]
                         + [d["message"] + " " + (d.get("hint") or "") for d in ip.get("diagnostics", [])])
        if "num_workers" not in words or "in DataLoader" not in ip.get("verdict", ""):
            failures.append(f"input-pipeline lacks the DataLoader verdict or num_workers: {words}")
        for word in ("tf.data API", "Keras", "Section 3", "tracer level"):
            if word in words:
                failures.append(f"input-pipeline on a PyTorch capture says {word!r}")
    for f in failures:
        print("FAIL", f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
