#!/usr/bin/env python3
"""check_trace.py - `xpstat trace` on generated or real captures: valid Chrome trace JSON, and a lossless round trip.

Usage: check_trace.py XPSTAT --xpgen XPGEN      (golden suite: generated captures)
       check_trace.py XPSTAT --real REAL_DIR    (real suite: every XSpace capture and every trace JSON
                                                 one, which export as a normalized copy; 77 when absent)

For each capture:
  1. `xpstat trace -o t.json.gz CAPTURE` exits 0; the file is read with Python's gzip and json
     modules (not xpstat's reader): every X event has ph, name, pid, tid, ts and dur, every
     flow start (s) has exactly one end (f) of its id and the other way round, every process
     and thread an event names has its process_name / thread_name metadata, and the times are
     exact decimal microseconds (no exponent, at most 6 fraction digits);
  2. kernel-stats, steps and tf-stats on t.json.gz give the same tables, summary, verdict and
     diagnostics as on the capture;
  3. the .zst and the plain export hold the same document as the .gz one; the streamed export (the
     default) gives the same bytes as the one read whole first (XPSTAT_TRACE_WHOLE=1), on 1 and 2
     threads, full and with selections of planes and lines, a step, a window;
  4. --steps N writes only events overlapping step N (the step track's slice gives the span)
     and fewer than the full export; a step that does not exist is exit 2 with the step range,
     nothing written; a file that is no capture is exit 3, nothing written.
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from decimal import Decimal

GENERATED = [
    ("raw", ["--variant", "raw", "--steps", "4", "--gpus", "2", "--seed", "71"]),
    ("grouped", ["--variant", "grouped", "--steps", "3", "--gpus", "2", "--seed", "72"]),
    ("jax", ["--variant", "jax", "--steps", "3", "--gpus", "2", "--seed", "73"]),
    ("cpu", ["--variant", "cpu", "--steps", "4", "--seed", "74"]),
]
# runs of several host files, exported to one trace and read back as those hosts
GENERATED_RUNS = [
    ("two-hosts", ["--hosts", "2", "--steps", "4", "--gpus", "2", "--seed", "75"]),
]


TIME = re.compile(r"^-?[0-9]+(\.[0-9]{1,6})?$")
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def run(*args, code=0):
    r = subprocess.run(list(args), capture_output=True, text=True)
    if r.returncode != code:
        failures.append(f"{' '.join(args)}: exit {r.returncode} (want {code}): {r.stderr.strip()[:300]}")
        return None
    return r


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal, parse_int=Decimal)


SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schemas", "trace.schema.json")


def check_schema(name, doc):
    """The document against schemas/trace.schema.json (jsonschema, as the lint suite uses): its first
    5,000 and last 1,000 events (jsonschema takes minutes over a million; check_valid reads them all)."""
    import jsonschema
    schema = json.load(open(SCHEMA))
    ev = doc["traceEvents"]
    sample = dict(doc, traceEvents=ev if len(ev) <= 6000 else ev[:5000] + ev[-1000:])
    plain = json.loads(json.dumps(sample, default=float))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(plain), key=lambda e: list(e.path))
    for e in errors[:3]:
        failures.append(f"{name}: schema: {list(e.path)[:3]}: {e.message[:200]}")


def check_valid(name, doc, raw_text):
    """Structure of the export, read without xpstat."""
    check_schema(name, doc)
    ev = doc.get("traceEvents")
    if not isinstance(ev, list):
        failures.append(f"{name}: no traceEvents list")
        return
    other = doc.get("otherData", {})
    expect(f"{name}: producer", str(other.get("producer", "")).startswith("xpstat "), True)
    expect(f"{name}: absolute start", str(other.get("xpstat_start_ns", "x")).lstrip("-").isdigit(), True)
    procs, threads, starts, ends = set(), set(), {}, {}
    n_x = 0
    for e in ev:
        ph = e.get("ph")
        if not all(0 <= e.get(k, 0) < 2**32 for k in ("pid", "tid")):
            failures.append(f"{name}: pid or tid outside 0..2^32-1 (viewers read them as uint32): {e}")
            return
        if ph == "M" and e.get("name") == "process_name":
            procs.add(e["pid"])
        elif ph == "M" and e.get("name") == "thread_name":
            threads.add((e["pid"], e["tid"]))
        elif ph == "X":
            n_x += 1
            missing = [k for k in ("ph", "name", "pid", "tid", "ts", "dur") if k not in e]
            if missing:
                failures.append(f"{name}: X event without {missing}: {e}")
                return
            if e["dur"] < 0:
                failures.append(f"{name}: negative dur: {e}")
        elif ph in ("s", "f"):
            (starts if ph == "s" else ends).setdefault(e["id"], []).append(e)
    for e in ev:
        if e.get("ph") in ("X", "C") and e["pid"] not in procs:
            failures.append(f"{name}: pid {e['pid']} has no process_name")
            break
        if e.get("ph") == "X" and (e["pid"], e["tid"]) not in threads:
            failures.append(f"{name}: thread {e['pid']}/{e['tid']} has no thread_name")
            break
    expect(f"{name}: flow ids started and ended", sorted(starts), sorted(ends))
    bad = [i for i in starts if len(starts[i]) != 1 or len(ends.get(i, [])) != 1]
    expect(f"{name}: flows with one start and one end", bad, [])
    # times as written: exact decimals
    for m in re.finditer(r'"(ts|dur)":([^,}]*)', raw_text):
        if not TIME.match(m.group(2)):
            failures.append(f"{name}: {m.group(1)} written as {m.group(2)}")
            break
    return n_x


def tables_of(xpstat, cmd, path):
    r = run(xpstat, cmd, "--format", "json", path)
    return json.loads(r.stdout, parse_float=Decimal) if r else None


def check_round_trip(xpstat, name, cap, exported):
    for cmd in ("kernel-stats", "steps", "tf-stats"):
        a, b = tables_of(xpstat, cmd, cap), tables_of(xpstat, cmd, exported)
        if a is None or b is None:
            continue
        for t in sorted(set(a["tables"]) | set(b["tables"])):
            ra, rb = a["tables"].get(t), b["tables"].get(t)
            if ra != rb:
                failures.append(f"{name}: {cmd} table {t} differs after the round trip: "
                                f"{first_difference(ra, rb)}")
        sa, sb = a["summary"], b["summary"]
        diff = sorted(k for k in set(sa) | set(sb) if sa.get(k) != sb.get(k))
        expect(f"{name}: {cmd} summary keys that differ", diff, [])
        expect(f"{name}: {cmd} verdict", b.get("verdict"), a.get("verdict"))
        expect(f"{name}: {cmd} diagnostics", b.get("diagnostics"), a.get("diagnostics"))


def first_difference(ra, rb):
    if not isinstance(ra, list) or not isinstance(rb, list):
        return f"{type(ra).__name__} vs {type(rb).__name__}"
    if len(ra) != len(rb):
        return f"{len(ra)} rows vs {len(rb)}"
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            cols = [k for k in set(x) | set(y) if x.get(k) != y.get(k)]
            return f"row {i}: " + ", ".join(f"{k}: {x.get(k)!r} vs {y.get(k)!r}" for k in sorted(cols)[:4])
    return "?"


def check_forms(xpstat, name, cap, work, doc):
    plain = os.path.join(work, name + ".json")
    if run(xpstat, "trace", "-q", "-o", plain, cap):
        expect(f"{name}: plain export", load(plain), doc)
    if shutil.which("zstd"):
        zs = os.path.join(work, name + ".json.zst")
        if run(xpstat, "trace", "-q", "-o", zs, cap):
            r = subprocess.run(["zstd", "-dc", zs], capture_output=True)
            expect(f"{name}: zstd export", json.loads(r.stdout, parse_float=Decimal, parse_int=Decimal), doc)


def step_number(row):
    """The number users read in the Step column: the integer ending the step's name, else its id."""
    m = re.search(r"(?<![-0-9])([0-9]{1,18})$", row.get("step_name") or "")
    return int(m.group(1)) if m else row["step"]


def step_numbers(xpstat, cap):
    r = run(xpstat, "steps", "--format", "json", cap)
    return [step_number(row) for row in json.loads(r.stdout)["tables"]["steps"]] if r else []


def host_of_pid(doc):
    """Each process's host (process_labels' xpstat_host in an export of several hosts)."""
    return {e["pid"]: int(e["args"]["xpstat_host"]) for e in doc["traceEvents"]
            if e.get("ph") == "M" and e.get("name") == "process_labels" and "xpstat_host" in e.get("args", {})}


def inside(e, lo, hi):
    return (e["ts"] < hi and e["ts"] + e["dur"] > lo) or (e["dur"] == 0 and lo <= e["ts"] < hi)


def check_selection(xpstat, name, cap, work, n_full):
    steps = step_numbers(xpstat, cap)
    if steps:
        n = steps[len(steps) // 2]
        out = os.path.join(work, name + ".step.json.gz")
        if run(xpstat, "trace", "-q", "--steps", str(n), "-o", out, cap):
            doc = load(out)
            track = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["name"] == str(n)
                     and e.get("args", {}).get("step_time_ps") is not None]
            host_of = host_of_pid(doc)
            hosts = sum(1 for k in doc["otherData"] if re.match(r"^xpstat_host_[0-9]+$", k)) or 1
            expect(f"{name}: --steps {n}: one step slice a host", len(track), hosts)
            window = {host_of.get(e["pid"], 0): (e["ts"], e["ts"] + e["dur"]) for e in track}
            if len(window) == hosts:
                xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
                outside = [e for e in xs if not inside(e, *window[host_of.get(e["pid"], 0)])]
                expect(f"{name}: --steps {n}: events outside their host's step", len(outside), 0)
                expect(f"{name}: --steps {n} writes fewer events than the full export", len(xs) < n_full, True)
        missing = max(steps) + 1000
        out = os.path.join(work, name + ".none.json")
        r = run(xpstat, "trace", "--steps", str(missing), "-o", out, cap, code=2)
        if r:
            expect(f"{name}: exit 2 names the step range", f"steps {min(steps)}..{max(steps)}" in r.stderr, True)
            expect(f"{name}: exit 2 writes nothing", os.path.exists(out), False)
    bad = os.path.join(work, "bad.xplane.pb")
    with open(bad, "wb") as f:
        f.write(b"\x0a\xff\xff\xff\xff\x0f garbage")
    out = os.path.join(work, "bad.json")
    run(xpstat, "trace", "-o", out, bad, code=3)
    expect(f"{name}: bad input writes nothing", os.path.exists(out), False)


def check_streamed(xpstat, name, cap, work, doc_gz):
    """The streamed export (each line decoded as it is written; in a selection in time, only the events
    selected) gives the bytes of the export read whole first (XPSTAT_TRACE_WHOLE=1), on one thread and on
    two: full, a plane and line selection, the middle step, a window, a window with a minimum duration and a minimum
    duration alone."""
    steps = step_numbers(xpstat, cap)
    sels = [[], ["--plane", "^/(host|device)", "--line", "."], ["--window", "1ms:30ms"],
            ["--window", "0:2s", "--min-duration", "2us"], ["--min-duration", "2us"]]
    if steps:
        sels.append(["--steps", str(steps[len(steps) // 2])])
    for sel in sels:
        outs = []
        for env, threads in ((None, "1"), ("1", "1"), (None, "2")):
            out = os.path.join(work, f"{name}.diff{len(outs)}.json")
            e = dict(os.environ)
            e.pop("XPSTAT_TRACE_WHOLE", None)
            if env:
                e["XPSTAT_TRACE_WHOLE"] = env
            r = subprocess.run([xpstat, "trace", "-q", "--threads", threads, *sel, "-o", out, cap],
                               capture_output=True, env=e)
            if r.returncode == 2 and "--window" in sel:
                outs.append(r.stderr)  # a window that selects nothing: the same message both ways
                continue
            if r.returncode != 0:
                failures.append(f"{name}: trace {' '.join(sel)} (whole={env}, threads {threads}): exit "
                                f"{r.returncode}: {r.stderr.decode()[:300]}")
                return
            with open(out, "rb") as f:
                outs.append(f.read())
            os.unlink(out)
        for i, b in enumerate(outs[1:], 1):
            expect(f"{name}: {' '.join(sel) or 'full'} export {i} (whole on 1 thread, streamed on 2) same bytes as the "
                   f"streamed one", b == outs[0], True)
        if not sel:
            expect(f"{name}: the plain export holds the .gz one", outs[0] == doc_gz.encode(), True)


def check_capture(xpstat, name, cap, work):
    gz = os.path.join(work, name + ".json.gz")
    if not run(xpstat, "trace", "-q", "-o", gz, cap):
        return
    with gzip.open(gz, "rt", encoding="utf-8") as f:
        raw_text = f.read()
    doc = json.loads(raw_text, parse_float=Decimal, parse_int=Decimal)
    n_x = check_valid(name, doc, raw_text)
    check_round_trip(xpstat, name, cap, gz)
    check_forms(xpstat, name, cap, work, doc)
    check_streamed(xpstat, name, cap, work, raw_text)
    check_selection(xpstat, name, cap, work, n_x or 0)


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("--xpgen", "--real"):
        print(__doc__, file=sys.stderr)
        return 2
    xpstat, mode, arg = sys.argv[1:4]
    count = 0
    with tempfile.TemporaryDirectory() as work:
        if mode == "--xpgen":
            for name, gen in GENERATED:
                cap = os.path.join(work, name + ".xplane.pb")
                if run(arg, *gen, "-o", cap):
                    check_capture(xpstat, name, cap, work)
                    count += 1
            for name, gen in GENERATED_RUNS:
                cap = os.path.join(work, name)
                if run(arg, *gen, "-o", cap):
                    check_capture(xpstat, name, cap, work)
                    count += 1
        else:
            if not os.path.isdir(arg):
                print(f"{arg} is absent: skipped")
                return 77
            for d, _, files in sorted(os.walk(arg)):
                if sum(f.endswith(".xplane.pb") for f in files) > 1:
                    # a multi-host run: one export of all its hosts reads back as them
                    name = os.path.relpath(d, arg).replace("/", "_") + "_all-hosts"
                    check_capture(xpstat, name, d, work)
                    count += 1
                for f in sorted(files):
                    # XSpace captures, and the trace JSON ones (kineto/, hta/, tracelens/h100/)
                    if f.endswith((".xplane.pb", ".json.gz")):
                        name = os.path.relpath(os.path.join(d, f), arg).replace("/", "_")
                        check_capture(xpstat, name, os.path.join(d, f), work)
                        count += 1
    for f in failures:
        print("FAIL", f)
    print(f"{count} captures exported and read back, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
