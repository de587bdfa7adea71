#!/usr/bin/env python3
"""check_pt_ops.py - PyTorch operators, kernels and memory on the shared traces against the reference tools.

Usage: check_pt_ops.py XPSTAT REAL_DIR
- kineto/resnet50_num_workers_0: tf-stats' operators table against tb_plugin_expected.json (the PyTorch
  profiler's TensorBoard plugin v0.4.3 operator view): the top 20 operators by device self time, each with
  its calls, host self/total and device self/total within 1 us; the Tensor-Core-eligible share of
  kernel-stats 68% +- 1 and overview's AMP advice with 68% (the plugin's recommendation); kernel-stats' op column names an operator for
  every kernel of the top operators; check --max-op-self-time on aten::cudnn_convolution.
- tracelens/h100 BERT: memory's devices table, GPU 0 allocated peak 101,305,344 bytes (the largest Total
  Allocated of its [memory] events) and a reserved peak no smaller.
Skips (77) when REAL_DIR is absent.
"""
import gzip
import json
import os
import re
import subprocess
import sys

failures = []


def run(xpstat, *args, rc=0):
    out = subprocess.run([xpstat, "--format", "json", *args], capture_output=True, text=True)
    if out.returncode != rc:
        failures.append(f"xpstat {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return json.loads(out.stdout)


def operators(xpstat, folder, trace):
    ref = json.load(open(os.path.join(folder, "tb_plugin_expected.json")))["operators"]
    ref = sorted(ref, key=lambda o: -o["device_self_duration"])[:20]
    doc = run(xpstat, "tf-stats", trace)
    if not doc:
        return
    rows = {r["op_name"]: r for r in doc["tables"]["operators"]}
    pairs = [("calls", "calls", 1), ("host_self_duration", "host_self_time_us", 1),
             ("host_total_duration", "host_total_time_us", 1), ("device_self_duration", "device_self_time_us", 1),
             ("device_total_duration", "device_total_time_us", 1)]
    for o in ref:
        r = rows.get(o["name"])
        if not r:
            failures.append(f"operator {o['name']} missing")
            continue
        for rk, k, tol in pairs:
            if abs(r[k] - o[rk]) > tol:
                failures.append(f"{o['name']} {k}: xpstat {r[k]}, tb_plugin {o[rk]}")
        if r["tensor_core_eligible"] != (o["tc_eligible"] == "Yes"):
            failures.append(f"{o['name']} tensor_core_eligible: xpstat {r['tensor_core_eligible']}, tb_plugin {o['tc_eligible']}")
    if len(rows) != 76:
        failures.append(f"{len(rows)} operators, tb_plugin lists 76")


def kernels(xpstat, folder, trace):
    ref = json.load(open(os.path.join(folder, "tb_plugin_expected.json")))["recommendations"]
    m = re.search(r"Kernels with (\d+)% time are launched by Tensor Cores eligible operators", ref)
    want = int(m.group(1)) if m else 68
    doc = run(xpstat, "kernel-stats", trace)
    if not doc:
        return
    got = doc["summary"]["tc_eligible_pct"]
    if abs(got - want) > 1:
        failures.append(f"Tensor-Core-eligible share {got:.2f}%, tb_plugin {want}%")
    named = sum(r["total_duration_us"] for r in doc["tables"]["kernels"] if r["op_name"])
    total = doc["summary"]["kernel_time_us"]
    if named < 0.99 * total:
        failures.append(f"kernels with an op: {named} of {total} us")
    ov = run(xpstat, "overview", trace)
    amp = [r["message"] for r in (ov or {}).get("tables", {}).get("recommendation", []) if r["topic"] == "precision"]
    if not amp or f"Kernels with {want}% of the time" not in amp[0]:
        failures.append(f"overview's AMP advice: {amp}, tb_plugin: Kernels with {want}% time")
    top = [r for r in doc["tables"]["kernels"] if "cudnn::detail::dgrad_engine" in r["kernel_name"]]
    if not top or any(r["op_name"] != "aten::cudnn_convolution_backward_input" for r in top):
        failures.append("dgrad_engine kernels are not aten::cudnn_convolution_backward_input's")


def check(xpstat, trace):
    ok = run(xpstat, "check", "--max-op-self-time", "aten::cudnn_convolution=130ms", trace)
    bad = run(xpstat, "check", "--max-op-self-time", "aten::cudnn_convolution=120ms", trace, rc=1)
    if ok and ok["summary"]["status"] != "pass":
        failures.append("check at 130 ms: not a pass (device self time 126.6 ms)")
    if bad and bad["summary"]["status"] != "fail":
        failures.append("check at 120 ms: not a fail")


def bert_memory(xpstat, trace):
    want = 0
    with gzip.open(trace, "rt") as f:
        for e in json.load(f)["traceEvents"]:
            a = e.get("args", {})
            if e.get("name") == "[memory]" and a.get("Device Type") == 1 and a.get("Device Id") == 0:
                want = max(want, a.get("Total Allocated", 0))
    doc = run(xpstat, "memory", trace)
    if not doc:
        return
    rows = [r for r in doc["tables"]["devices"] if r["allocator"] == "GPU_0"]
    if want != 101305344:
        failures.append(f"the trace's largest Total Allocated is {want}, not 101305344")
    if not rows or rows[0]["allocated_peak_bytes"] != 101305344:
        failures.append(f"BERT GPU 0 allocated peak: {rows[0]['allocated_peak_bytes'] if rows else None}")
    elif rows[0]["reserved_peak_bytes"] is None or rows[0]["reserved_peak_bytes"] < 101305344:
        failures.append(f"BERT GPU 0 reserved peak {rows[0]['reserved_peak_bytes']} below the allocated peak")
    alloc = [r for r in doc["tables"]["allocators"] if r["allocator"] == "GPU_0"]
    if not alloc or alloc[0]["peak_usage_bytes"] != 101305344:
        failures.append(f"allocators table GPU_0 peak {alloc[0]['peak_usage_bytes'] if alloc else None}")


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    folder = os.path.join(real, "kineto/resnet50_num_workers_0")
    bert = os.path.join(real, "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz")
    if not os.path.isdir(folder) or not os.path.exists(bert):
        print(f"skip: {real} lacks the traces")
        return 77
    trace = os.path.join(folder, "worker0.1623143089861.pt.trace.json.gz")
    operators(xpstat, folder, trace)
    kernels(xpstat, folder, trace)
    check(xpstat, trace)
    bert_memory(xpstat, bert)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
