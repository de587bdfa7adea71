#!/usr/bin/env python3
"""check_shapes.py - xpgen's shape variants (diverse, dynamic-shapes, many-hosts) hold the shapes they promise.

Usage: check_shapes.py XPSTAT XPGEN
Each variant is generated with --truth and read back through xpstat: the events and kernels xpgen wrote are the
ones xpstat counts; diverse has 8 GPUs of 4 streams and about one kernel-stats row per launch; dynamic-shapes has
at most 50 launch shapes per (kernel, op) pair and far fewer rows than launches; many-hosts is 16 host files, each
with 2 GPUs; the same arguments give the same bytes.
"""
import json
import os
import subprocess
import sys
import tempfile

failures = []


def expect(what, ok):
    if not ok:
        failures.append(what)


def run_json(xpstat, *args):
    out = subprocess.run([xpstat, *args, "--format", "json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def gen(xpgen, d, variant, name, *extra):
    out, truth = os.path.join(d, name), os.path.join(d, name + ".json")
    subprocess.run([xpgen, "--variant", variant, "--truth", truth, "-o", out, *extra], check=True)
    return out, json.load(open(truth))


def common(xpstat, path, truth, label):
    info = run_json(xpstat, "info", path)["summary"]
    expect(f"{label}: info counts {info['events']} events, xpgen wrote {truth['totals']['events']}",
           info["events"] == truth["totals"]["events"])
    expect(f"{label}: info counts {info['kernels']} kernels, xpgen wrote {truth['totals']['kernels']}",
           info["kernels"] == truth["totals"]["kernels"])
    ks = run_json(xpstat, "kernel-stats", path)
    expect(f"{label}: kernel-stats counts {ks['summary']['kernels']} kernels",
           ks["summary"]["kernels"] == truth["totals"]["kernels"])
    return info, ks


def main():
    xpstat, xpgen = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as d:
        path, truth = gen(xpgen, d, "diverse", "diverse.xplane.pb", "--seed", "3", "--host", "h")
        info, ks = common(xpstat, path, truth, "diverse")
        s = ks["summary"]
        expect(f"diverse: 8 GPU planes, got {s['gpu_planes']}", s["gpu_planes"] == 8)
        expect(f"diverse: {s['rows']} kernel-op rows for {s['kernels']} kernels (nearly one a launch)",
               s["rows"] >= 0.95 * s["kernels"])
        tfs = run_json(xpstat, "tf-stats", path)["summary"]
        expect(f"diverse: {tfs['device_ops']} device ops (504 written)", tfs["device_ops"] == 504)
        again = os.path.join(d, "again.xplane.pb")
        subprocess.run([xpgen, "--variant", "diverse", "--seed", "3", "--host", "h", "-o", again], check=True)
        expect("diverse: the same arguments give other bytes", open(path, "rb").read() == open(again, "rb").read())

        path, truth = gen(xpgen, d, "dynamic-shapes", "dyn.xplane.pb", "--seed", "4", "--target-bytes", "16M")
        info, ks = common(xpstat, path, truth, "dynamic-shapes")
        rows = ks["tables"]["kernels"]
        shapes = {}
        for r in rows:
            shapes.setdefault((r["kernel_name"], r["op_name"]), set()).add((r["grid_dim"], r["block_dim"]))
        most = max(len(v) for v in shapes.values())
        expect(f"dynamic-shapes: a (kernel, op) pair with {most} launch shapes (1-50 written)", 1 <= most <= 50)
        expect(f"dynamic-shapes: {len(rows)} rows for {ks['summary']['kernels']} kernels",
               len(rows) < ks["summary"]["kernels"] / 2 and len(shapes) > 100)

        path, truth = gen(xpgen, d, "many-hosts", "many", "--seed", "5")
        info, ks = common(xpstat, path, truth, "many-hosts")
        expect(f"many-hosts: {info['hosts']} hosts (16 written)", info["hosts"] == 16 == len(truth["hosts"]))
        expect(f"many-hosts: {info['active_gpus']} GPUs (2 a host)", info["active_gpus"] == 32)
    for f in failures:
        print("FAIL:", f)
    print(f"{'FAILED' if failures else 'ok'}: shape variants")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
