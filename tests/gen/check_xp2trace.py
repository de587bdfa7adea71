#!/usr/bin/env python3
"""check_xp2trace.py - one generated capture read as .xplane.pb and as the trace JSON TF would export from it.

Usage: check_xp2trace.py XPSTAT XPGEN XP2TRACE
For each variant: xpgen writes the XSpace, xp2trace exports it (TSL style: %.17g microseconds,
args as strings, pid 701 and 1+N), then
  - `info --lines` on the JSON has one line per thread with exactly the X events Python's json
    module counts for that (pid, tid), on the planes the JSON names;
  - `info --lines` on the XSpace has the same planes and lines, each with those events plus the
    ones TF does not export (memory, tf.data produce/consume: xp2trace --dropped);
  - kernel-stats and tf-stats give the same tables from both (the summary too, but for the
    device peaks, which come from plane stats the JSON does not carry);
  - the gzip and zstd forms read like the plain one;
  - a trace of exactly 1,000,000 complete events (TF 2.3's cap) is reported as truncated.
"""
import collections
import gzip
import json
import os
import subprocess
import sys
import tempfile

CASES = [
    ("raw", ["--variant", "raw", "--steps", "4", "--gpus", "2", "--seed", "51"], []),
    ("grouped", ["--variant", "grouped", "--steps", "3", "--gpus", "2", "--seed", "52"], []),
    ("jax", ["--variant", "jax", "--steps", "3", "--gpus", "3", "--seed", "53"], []),
    ("cpu", ["--variant", "cpu", "--steps", "4", "--seed", "54"], []),
    ("exact", ["--variant", "raw", "--steps", "2", "--gpus", "1", "--seed", "55"], ["--exact"]),
    ("tf23", ["--variant", "grouped", "--steps", "2", "--gpus", "1", "--seed", "56"], ["--host-pid", "501"]),
]

# Summary keys that come from plane stats (device capabilities), which trace JSON does not carry.
PLANE_STAT_KEYS = {"device_peak_gflop_per_s", "device_peak_hbm_gb_per_s"}

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return r.stdout


def xpstat_json(xpstat, *args):
    out = run(xpstat, *args[:-1], "--format", "json", args[-1])
    return json.loads(out) if out else None


def json_threads(path):
    """Independent count: X events per (pid, tid), and the names metadata gives them."""
    doc = json.load(open(path))
    procs, threads, events = {}, {}, collections.Counter()
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e.get("ph") == "X":
            events[(e["pid"], e["tid"])] += 1
    assert doc["traceEvents"][-1] == {}, "the exporter ends with {}"
    return procs, threads, events


def lines_of(info):
    return {(l["plane"], l["line"]): l["events"] for l in info["tables"]["lines"]}


def check_case(xpstat, xpgen, xp2trace, work, name, gen_args, exp_args):
    pb = os.path.join(work, name + ".xplane.pb")
    js = os.path.join(work, name + ".trace.json")
    dropped_path = os.path.join(work, name + ".dropped.json")
    if run(xpgen, *gen_args, "-o", pb) is None:
        return
    if run(xp2trace, *exp_args, "--dropped", dropped_path, pb, js) is None:
        return
    procs, threads, events = json_threads(js)
    dropped = {(d["pid"], d["tid"]): d["dropped"] for d in json.load(open(dropped_path))}
    info_js = xpstat_json(xpstat, "info", "--lines", js)
    info_pb = xpstat_json(xpstat, "info", "--lines", pb)
    if not info_js or not info_pb:
        return
    # the reader: every thread a line, with the events Python counts
    want = {(procs[pid], tname): events[(pid, tid)] for (pid, tid), tname in threads.items()}
    expect(f"{name}: JSON lines", lines_of(info_js), want)
    expect(f"{name}: JSON planes", sorted(p["plane"] for p in info_js["tables"]["planes"]), sorted(procs.values()))
    expect(f"{name}: JSON format", info_js["tables"]["hosts"][0]["format"], "trace-json")
    # the XSpace: the same lines, each with the dropped events on top
    want_pb = {(procs[pid], tname): events[(pid, tid)] + dropped.get((pid, tid), 0)
               for (pid, tid), tname in threads.items()}
    got_pb = {k: v for k, v in lines_of(info_pb).items() if k[0] in procs.values() and k[1] != "Async XLA Ops"}
    expect(f"{name}: XSpace lines vs JSON lines + dropped", got_pb, want_pb)
    # the analyses: same tables from both forms
    for cmd in ("kernel-stats", "tf-stats"):
        a, b = xpstat_json(xpstat, cmd, pb), xpstat_json(xpstat, cmd, js)
        if not a or not b:
            continue
        expect(f"{name}: {cmd} tables", b["tables"], a["tables"])
        sa = {k: v for k, v in a["summary"].items() if k not in PLANE_STAT_KEYS}
        sb = {k: v for k, v in b["summary"].items() if k not in PLANE_STAT_KEYS}
        expect(f"{name}: {cmd} summary", sb, sa)
    # compressed forms read the same
    raw = open(js, "rb").read()
    gz = js + ".gz"
    with open(gz, "wb") as f:
        f.write(gzip.compress(raw, 6))
    zs = js + ".zst"
    if subprocess.run(["zstd", "-q", "-f", "-o", zs, js], capture_output=True).returncode != 0:
        zs = None
    base = run(xpstat, "kernel-stats", "--format", "csv", js)
    for comp in [gz, zs]:
        if comp:
            expect(f"{name}: kernel-stats of {os.path.basename(comp)}",
                   run(xpstat, "kernel-stats", "--format", "csv", comp), base)
            # 1: all on one thread; 2: decompressing on its own; 3: lexing on its own too.
            for threads_opt in ("1", "2", "3"):
                i = xpstat_json(xpstat, "info", "--threads", threads_opt, "--lines", comp)
                if i:
                    expect(f"{name}: lines of {os.path.basename(comp)} (--threads {threads_opt})",
                           lines_of(i), lines_of(info_js))


def check_cap(xpstat, work):
    """Exactly 1,000,000 complete events: the TF 2.3 exporter's cap."""
    path = os.path.join(work, "capped.trace.json")
    with open(path, "w") as f:
        f.write('{"displayTimeUnit":"ns","traceEvents":[{"ph":"M","pid":501,"name":"process_name",'
                '"args":{"name":"/host:CPU"}}')
        for i in range(1000000):
            f.write(',{"ph":"X","pid":501,"tid":1,"ts":%d.5,"dur":0.25,"name":"op%d"}' % (i, i % 7))
        f.write(",{}]}")
    info = xpstat_json(xpstat, "info", path)
    if not info:
        return
    diags = {d["code"]: d for d in info["diagnostics"]}
    expect("cap: truncated_trace reported", "truncated_trace" in diags, True)
    if "truncated_trace" in diags:
        expect("cap: severity", diags["truncated_trace"]["severity"], "warning")
        expect("cap: hint", "xplane.pb" in (diags["truncated_trace"]["hint"] or ""), True)
    expect("cap: events", info["summary"]["events"], 1000000)
    # one event fewer is not a cap
    with open(path, "w") as f:
        f.write('[{"ph":"X","pid":501,"tid":1,"ts":0,"dur":1,"name":"a"},{"ph":"X","pid":501,"tid":1,"ts":1,"name":"b"}]')
    info = xpstat_json(xpstat, "info", path)
    if info:
        expect("no cap: truncated_trace", any(d["code"] == "truncated_trace" for d in info["diagnostics"]), False)


def main():
    xpstat, xpgen, xp2trace = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as work:
        for name, gen_args, exp_args in CASES:
            check_case(xpstat, xpgen, xp2trace, work, name, gen_args, exp_args)
        check_cap(xpstat, work)
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES)} generated captures read as XSpace and as trace JSON, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
