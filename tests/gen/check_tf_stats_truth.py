#!/usr/bin/env python3
"""check_tf_stats_truth.py - xpstat tf-stats on generated captures: every device row against what xpgen wrote.

Usage: check_tf_stats_truth.py XPSTAT XPGEN
For each variant it generates a capture with --truth and checks:
- the kernel count and kernel time of xpgen's truth file, as an independent wire walk of the file
  (tests/real/check_tf_stats.py) counts them;
- every device row: its total and self time and its occurrences, per op, against the walk; the device
  total time (per GPU the larger of op time and event span); JAX captures, whose device events all carry
  hlo_op, have a device op time equal to the truth's kernel time;
- the host side adds up: op time = the rows' self time, total = op + IDLE, shares add to 100;
- CSV = JSON, cell for cell.
xpgen's truth has no per-op numbers (its file names kernels and steps, not ops), so the per-op totals come
from the walk; the unit test test_tf_stats.c checks per-op numbers of captures built in code.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "real"))
import check_tf_stats as walk  # noqa: E402

CASES = [
    ("raw", ["--variant", "raw", "--steps", "4", "--gpus", "2", "--seed", "41"]),
    ("grouped", ["--variant", "grouped", "--steps", "3", "--gpus", "2", "--seed", "42"]),
    ("jax", ["--variant", "jax", "--steps", "3", "--gpus", "3", "--seed", "43"]),
    ("cpu", ["--variant", "cpu", "--steps", "4", "--seed", "44"]),
    ("odd", ["--variant", "raw", "--steps", "3", "--seed", "45", "--odd"]),
    ("multihost", ["--variant", "raw", "--hosts", "3", "--steps", "2", "--seed", "46"]),
]


def merge(facts_list):
    total = {"kernel_ps": 0, "kernels": 0, "annotated_ps": 0, "annotated_kernel_ps": 0, "xla_ops": set(),
             "tf_ops": set(), "ops": {}, "device_time_ps": 0, "gpus": 0}
    for f in facts_list:
        for k in ("kernel_ps", "kernels", "annotated_ps", "annotated_kernel_ps", "device_time_ps", "gpus"):
            total[k] += f[k]
        total["xla_ops"] |= f["xla_ops"]
        total["tf_ops"] |= f["tf_ops"]
        for key, op in f["ops"].items():
            t = total["ops"].setdefault(key, {"ps": 0, "counts": {}})
            t["ps"] += op["ps"]
            for k, n in op["counts"].items():
                t["counts"][k] = t["counts"].get(k, 0) + n
    return total


def check_case(xpstat, xpgen, tmp, name, args):
    out = os.path.join(tmp, name)
    if "--hosts" in args:
        os.mkdir(out)
    else:
        out += ".xplane.pb"
    truth_path = os.path.join(tmp, name + ".truth.json")
    subprocess.run([xpgen, *args, "--truth", truth_path, "-o", out], check=True, capture_output=True)
    truth = json.load(open(truth_path))
    files = [h["file"] for h in truth["hosts"]]   # as xpgen wrote them: under OUT, which is absolute
    facts = merge(walk.walk(f) for f in files)
    walk.expect(f"{name} kernels (walk vs truth)", facts["kernels"], sum(h["kernels"] for h in truth["hosts"]))
    walk.expect(f"{name} kernel time (walk vs truth)", facts["kernel_ps"],
                sum(h["kernel_time_ps"] for h in truth["hosts"]))
    text = walk.run(xpstat, out, "--format", "json")
    csv_text = walk.run(xpstat, out, "--format", "csv")
    if text is None or csv_text is None:
        return
    doc = json.loads(text)
    rows, s = doc["tables"]["tf_stats"], doc["summary"]
    walk.expect(f"{name} hosts", s["hosts"], len(truth["hosts"]))
    walk.check_device_rows(name, rows, s, facts)
    walk.expect(f"{name} device ops", s["device_ops"], len(facts["ops"]))
    walk.expect(f"{name} device op time", walk.us_to_ps(s["device_op_time_us"]), facts["annotated_ps"])
    if args[1] == "jax":
        walk.expect(f"{name} device op time = truth kernel time", walk.us_to_ps(s["device_op_time_us"]),
                    sum(h["kernel_time_ps"] for h in truth["hosts"]))
    walk.expect(f"{name} kernels without op", s["kernels_without_op"], 0)
    host = [r for r in rows if r["host_or_device"] == "Host"]
    walk.expect(f"{name} host op time = rows",
                sum(walk.us_to_ps(r["total_self_time_us"]) for r in host if r["op_name"] != "IDLE"),
                walk.us_to_ps(s["host_op_time_us"]))
    walk.expect(f"{name} host time = op + idle", walk.us_to_ps(s["host_time_us"]),
                walk.us_to_ps(s["host_op_time_us"]) + walk.us_to_ps(s["host_idle_time_us"]))
    # xpgen's JAX host threads hold no TF ops (its launch calls carry no tf_op); the others do.
    walk.expect(f"{name} host rows have ops", s["host_ops"] > 0, args[1] != "jax")
    for r in host:
        if r["total_self_time_us"] > r["total_time_us"]:
            walk.failures.append(f"{name} host {r['op_name']}: self time above total time")
    walk.check_sides(name, rows, "with IDLE")
    walk.check_csv_json(name, csv_text, doc)


def main():
    xpstat, xpgen = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in CASES:
            check_case(xpstat, xpgen, tmp, name, args)
    for f in walk.failures:
        print("FAIL " + f)
    print(f"check_tf_stats_truth: {len(CASES)} captures, {len(walk.failures)} failures")
    return 1 if walk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
