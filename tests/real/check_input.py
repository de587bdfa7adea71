#!/usr/bin/env python3
"""check_input.py - xpstat input-pipeline and tf-data on the real TF 8xV100 capture, against facts read independently.

Usage: check_input.py XPSTAT REAL_DIR
Exits 77 (skip) when REAL_DIR is absent.

The capture (tensorflow-profiler/GPU-multi-worker/34.83.195.179_6003.xplane.pb,
TF 2.4 era, BERT on 8 V100s with MirroredStrategy) holds tf.data events of
two input pipelines fed to the devices: per pipeline one Iterator::Prefetch
call with a PrefetchConsume (element 0) on a tf_data_iterator_get_next_as_optional
thread, and on a tf_data_iterator_resource thread a PrefetchProduce (element 0)
around an Iterator::Prefetch::Generator whose parent_id is the Prefetch's id.

What is checked, each number derived here from the file with the project's
independent wire reader (tests/gen/xpcheck.py, no code shared with xpstat):
- tf-data: the pipelines are the root iterator ids (names with one "::"),
  both device pipelines (named by a Generator's parent_id), numbered
  Device:0, Device:1 by their first call; each call's latency is the
  Prefetch event's duration, the Generator's self time its duration (it
  lies inside the Prefetch call), the Prefetch's self time the rest; the
  bottleneck analysis is empty (device pipelines are left out) and the
  summary is the reference's "No tf.data activity captured ..." sentence;
- input-pipeline: input_pct equals 100 x the sum of input_ms over the sum
  of step_time_ms of `xpstat steps --format json` (a ratio of sums), the
  classification follows the 20/5/3 % thresholds, the input ops are the
  Iterator:: events with their count and total time, all Preprocessing;
- both commands give the same bytes with --threads 1 and --threads 2.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen"))
import xpcheck  # noqa: E402

REL = "tensorflow-profiler/GPU-multi-worker/34.83.195.179_6003.xplane.pb"
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def run(xpstat, *args):
    out = subprocess.run([xpstat, *args], capture_output=True, text=True)
    if out.returncode != 0:
        failures.append(f"xpstat {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return out.stdout


def stat_value(plane, st):
    return plane["sm"].get(st.val, b"") if st.kind == "r" else st.val


def host_events(path):
    """Every event of /host:CPU as (line id, name, offset_ps + line timestamp, duration_ps, stats)."""
    data = xpcheck.load(path)
    planes, _, _ = xpcheck.parse_space(data)
    out = []
    for p in planes:
        if p["name"] != "/host:CPU":
            continue
        for line in p["lines"]:
            base = line["ts"] * 1000
            for ev in line["events"]:
                name = p["em"].get(ev["mid"], b"").decode("utf-8", "replace")
                stats = {p["sm"].get(s.mid, b"").decode(): stat_value(p, s) for s in ev["stats"]}
                out.append((line["id"], name, base + ev["off"], ev["dur"], stats))
    return out


def derive(events):
    roots, generators, by_name = {}, [], {}
    for _, name, start, dur, stats in events:
        if name.startswith("Iterator:"):
            n, total = by_name.get(name, (0, 0))
            by_name[name] = (n + 1, total + dur)
        if name.startswith("Iterator:") and name.count("::") == 1 and "id" in stats:
            roots.setdefault(stats["id"], []).append((start, dur))
        if name == "Iterator::Prefetch::Generator":
            generators.append((start, dur, stats.get("parent_id")))
    return roots, generators, by_name


def check_tf_data(xpstat, path, events):
    roots, generators, _ = derive(events)
    device_ids = {g[2] for g in generators}
    doc = json.loads(run(xpstat, "tf-data", "--format", "json", path) or "null")
    if doc is None:
        return
    s, t = doc["summary"], doc["tables"]
    expect("pipelines", s["input_pipelines"], len(roots))
    expect("pipelines found", len(roots), 2)
    expect("device pipelines", s["device_input_pipelines"], len([r for r in roots if r in device_ids]))
    expect("host pipelines", s["host_input_pipelines"], 0)
    expect("calls", s["calls"], sum(len(c) for c in roots.values()))
    expect("bottleneck rows", t["bottleneck_analysis"], [])
    expect("summary", s["summary"], "No tf.data activity captured in your profile. If your job uses tf.data, "
           "try to capture a longer profile.")
    expect("is_input_bound", s["is_input_bound"], False)
    order = sorted(roots, key=lambda i: (min(c[0] for c in roots[i]), i))
    rows = t["input_pipelines"]
    expect("pipeline ids in order", [int(r["pipeline_id"]) for r in rows], order)
    expect("pipeline names", [r["input_pipeline"] for r in rows], [f"Device:{k}" for k in range(len(order))])
    for r in rows:
        calls = roots[int(r["pipeline_id"])]
        lat = [d for _, d in calls]
        expect(f"{r['input_pipeline']} max_latency_us", round(r["max_latency_us"] * 1e6), max(lat))
        expect(f"{r['input_pipeline']} min_latency_us", round(r["min_latency_us"] * 1e6), min(lat))
        expect(f"{r['input_pipeline']} avg_latency_us", round(r["avg_latency_us"] * 1e6), sum(lat) // len(lat))
        expect(f"{r['input_pipeline']} slow_calls", r["slow_calls"], sum(1 for d in lat if d > 50_000_000))
        expect(f"{r['input_pipeline']} type", r["type"], "device")
        expect(f"{r['input_pipeline']} bottleneck", r["bottleneck_long_name"], "Iterator::Prefetch::Generator")
    # The slowest call: the Generator whose parent is the pipeline lies inside the Prefetch call.
    for r in rows:
        pid = int(r["pipeline_id"])
        start, dur = max(roots[pid], key=lambda c: c[1])
        gen = [g for g in generators if g[2] == pid]
        expect(f"generators of {pid}", len(gen), 1)
        if not gen:
            continue
        g0, gd, _ = gen[0]
        overlap = max(0, min(start + dur, g0 + gd) - max(start, g0))
        path_rows = [x for x in t["slowest_call"] if x["input_pipeline"] == r["input_pipeline"]]
        expect(f"{r['input_pipeline']} slowest call iterators", [x["iterator_long_name"] for x in path_rows],
               ["Iterator::Prefetch", "Iterator::Prefetch::Generator"])
        if len(path_rows) == 2:
            expect(f"{r['input_pipeline']} Prefetch self", round(path_rows[0]["self_time_us"] * 1e6), dur - overlap)
            expect(f"{r['input_pipeline']} Generator self", round(path_rows[1]["self_time_us"] * 1e6), gd)
            expect(f"{r['input_pipeline']} critical path", [x["is_blocking"] for x in path_rows], [True, overlap > 0])
            expect(f"{r['input_pipeline']} bottleneck latency", round(r["bottleneck_latency_us"] * 1e6), gd)


def check_input_pipeline(xpstat, path, events):
    _, _, by_name = derive(events)
    doc = json.loads(run(xpstat, "input-pipeline", "--format", "json", path) or "null")
    steps = json.loads(run(xpstat, "steps", "--format", "json", path) or "null")
    if doc is None or steps is None:
        return
    s = doc["summary"]
    rows = steps["tables"]["steps"]
    total = sum(r["step_time_ms"] for r in rows)
    inp = sum(r["input_ms"] for r in rows)
    want = 100.0 * inp / total if total else 0.0
    if abs(s["input_pct"] - want) > 1e-9 * max(1.0, want):
        failures.append(f"input_pct {s['input_pct']} != 100 * {inp} / {total} = {want}")
    expect("steps", s["steps"], len(rows))
    cls = "host" if want >= 20 else "both" if want >= 5 else None
    if cls:
        expect("classification", s["classification"], cls)
    expect("statement", s["statement"].startswith("Your program is MODERATELY input-bound because %.1f%%" % want)
           if cls == "both" else True, True)
    ops = {r["input_op"]: r for r in doc["tables"]["input_ops"]}
    expect("input ops", sorted(ops), sorted(by_name))
    for name, (n, total_ps) in by_name.items():
        r = ops.get(name)
        if not r:
            continue
        expect(f"{name} count", r["count"], n)
        expect(f"{name} total time ps", round(r["total_time_ms"] * 1e9), total_ps)
        expect(f"{name} category", r["category"], "Preprocessing")
        if r["self_time_ms"] > r["total_time_ms"]:
            failures.append(f"{name}: self time above total time")
    expect("input op time", round(s["input_op_time_us"] * 1e6),
           sum(round(r["self_time_ms"] * 1e9) for r in doc["tables"]["input_ops"]))
    expect("preprocessing_us", s["preprocessing_us"], s["input_op_time_us"])
    expect("tf_data_in_use", s["tf_data_in_use"], True)
    reco = {r["topic"]: r for r in doc["tables"]["recommendation"]}
    expect("host_input level", reco.get("host_input", {}).get("level"), "preprocessing")
    expect("tf_data level", reco.get("tf_data", {}).get("level"), "no")


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    path = os.path.join(real, REL)
    if not os.path.exists(path):
        print(f"skip: {path} is absent")
        return 77
    events = host_events(path)
    check_tf_data(xpstat, path, events)
    check_input_pipeline(xpstat, path, events)
    for cmd in ("tf-data", "input-pipeline"):
        for fmt in ("json", "text"):
            one = run(xpstat, cmd, "--format", fmt, "--threads", "1", path)
            two = run(xpstat, cmd, "--format", fmt, "--threads", "2", path)
            expect(f"{cmd} {fmt} with 1 vs 2 threads", one, two)
    for f in failures:
        print("FAIL " + f)
    print(f"check_input: {'ok' if not failures else str(len(failures)) + ' failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
