#!/usr/bin/env python3
"""check_tf_stats.py - xpstat tf-stats on the shared real captures, against facts counted independently.

Usage: check_tf_stats.py XPSTAT REAL_DIR
Exits 77 (skip) when REAL_DIR is absent.

For every GPU capture (the TF 2.4 8xV100 one and the JAX ones on AMD GPUs):
- a small wire-format walk of the XSpace (no code shared with xpstat) sums the
  kernels (events on /device:GPU planes, non-derived lines, with a
  kernel_details stat and a duration > 0) and the events that carry an op
  annotation (hlo_op, tf_op or "level 0", on the event or its metadata);
- the kernel total must be the MANIFEST's "total kernel time";
- the device op time of tf-stats (the sum of the device rows' self time
  other than IDLE) must be the annotated total; where every kernel has an op
  and every annotated event is a kernel, that is the MANIFEST kernel time;
- the time of the kernels without an op must be what tf-stats reports;
- CSV records = JSON rows, the CSV cells = the JSON values;
- each side's self-time percentages add up to 100 (+-1e-9), with and without
  IDLE, and the last cumulative percentage of each side is 100;
- 1 and 2 decode threads give the same bytes.
The row counts asserted (ROWS below) are the distinct ops of each capture: for
the JAX captures the framework ops (the HLO instruction's metadata op_name, or
its name when that is empty) of the distinct (hlo_module, HLO op) pairs the walk
finds, with the instruction looked up in the HLO protos of /host:metadata by a
small decoder here; every XLA device event must resolve to an instruction, and
`info` must say so; a framework op's occurrences are the most of its HLO ops'
(xprof's rule), its time their sum; for
the TF capture the distinct TF op names of the annotated device events (also
from the walk) and, on the host, 4694 ops as xpstat counted them when this
test was written (TF op events on 22 threads; no independent count).
"""
import csv
import io
import json
import os
import subprocess
import sys

DERIVED_MIN = -559038737
DERIVED_NAMES = {"Steps", "Sparse Core Steps", "Launch Stats", "Framework Name Scope", "Framework Ops",
                 "TensorFlow Name Scope", "TensorFlow Ops", "XLA Modules", "XLA Ops", "Source code",
                 "CUPTI overhead"}

# file: (MANIFEST total kernel time in ps, every kernel has an op, host ops or None when not pinned).
# The TF capture's device ops also hold the copies annotated with their op (MakeTensorFromProto,
# _HostRecv, ...): its device op time is the kernel time plus those, 30,104,026,000 ps. Three JAX
# captures have runtime copy kernels (__amd_rocclr_copyBuffer) without an op.
CAPTURES = {
    "tensorflow-profiler/GPU-multi-worker/34.83.195.179_6003.xplane.pb": (29690748000, True, 4694),
    "tracelens/jax08_gemm/tw003.xplane.pb": (3475484000, False, None),
    "tracelens/jax08_elementwise/tw003.xplane.pb": (3880724000, False, None),
    "tracelens/jax_conv_minimal_08/tw003.xplane.pb": (28137077000, False, None),
    "tracelens/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb": (3586493000, True, None),
    "tracelens/te_fused_attn/934987a2fc2f.xplane.pb": (12133585000, True, None),
}

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def close(what, got, want, tol):
    if abs(got - want) > tol:
        failures.append(f"{what}: got {got!r}, want {want!r} (+-{tol})")


# ---- a minimal XSpace walker ----

def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def fields(b, i, end):
    while i < end:
        t, i = varint(b, i)
        f, w = t >> 3, t & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 2:
            n, i = varint(b, i)
            v, i = (i, i + n), i + n
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v


def stats_of(b, rng_list):
    """[(metadata id, kind, value)] of XStat messages."""
    out = []
    for rng in rng_list:
        mid, kind, val = 0, None, None
        for f, w, v in fields(b, *rng):
            if f == 1:
                mid = s64(v)
            elif f == 5:
                kind, val = "s", b[v[0]:v[1]]
            elif f == 7:
                kind, val = "r", v
            elif f in (2, 3, 4, 6):
                kind, val = "n", v
        out.append((mid, kind, val))
    return out


def hlo_modules(b, rng):
    """{module name: [{instruction name: (op_name, op_type)}, ...]} of a /host:metadata XPlane, and
    {program id: (module name, instructions)}: the event metadata id of an Hlo Proto is its program id."""
    smeta, blobs = {}, []
    for f, w, v in fields(b, *rng):
        if f == 4 or f == 5:
            val = None
            key = 0
            for g, _, x in fields(b, *v):
                if g == 1:
                    key = s64(x)
                elif g == 2:
                    val = x
            if val is None:
                continue
            for g, _, x in fields(b, *val):
                if f == 5 and g == 2:
                    smeta[key] = b[x[0]:x[1]]
                elif f == 4 and g == 5:
                    blobs.append((key, x))
    mods, by_pid = {}, {}
    for pid, rng_stat in blobs:
        mid, blob = 0, None
        for g, _, x in fields(b, *rng_stat):
            if g == 1:
                mid = s64(x)
            elif g == 6:
                blob = x
        if smeta.get(mid) != b"Hlo Proto" or blob is None:
            continue
        for g, _, mod in fields(b, *blob):
            if g != 1:
                continue
            name, instrs = "", {}
            for h, _, x in fields(b, *mod):
                if h == 1:
                    name = b[x[0]:x[1]].decode()
                elif h == 3:
                    for k, _, ins in fields(b, *x):
                        if k != 2:
                            continue
                        iname, op_name, op_type = "", "", ""
                        for q, _, y in fields(b, *ins):
                            if q == 1:
                                iname = b[y[0]:y[1]].decode()
                            elif q == 7:
                                for r, _, z in fields(b, *y):
                                    if r == 1:
                                        op_type = b[z[0]:z[1]].decode()
                                    elif r == 2:
                                        op_name = b[z[0]:z[1]].decode()
                        instrs.setdefault(iname, (op_name, op_type))
            mods.setdefault(name, []).append(instrs)
            by_pid[pid] = (name, instrs)
    return mods, by_pid


def plane_facts(b, rng):
    """(plane name, kernel ps, kernels, annotated ps, annotated kernel ps, XLA ops, TF ops) of one XPlane."""
    name, lines, emeta, smeta = "", [], {}, {}
    for f, w, v in fields(b, *rng):
        if f == 2:
            name = b[v[0]:v[1]].decode("utf-8", "replace")
        elif f == 3:
            lines.append(v)
        elif f == 4 or f == 5:
            key, val = 0, None
            for g, _, x in fields(b, *v):
                if g == 1:
                    key = s64(x)
                elif g == 2:
                    val = x
            if val is None:
                continue
            if f == 4:
                mname, mstats = b"", []
                for g, _, x in fields(b, *val):
                    if g == 2:
                        mname = b[x[0]:x[1]]
                    elif g == 5:
                        mstats.append(x)
                emeta[key] = (mname, mstats)
            else:
                sname = b""
                for g, _, x in fields(b, *val):
                    if g == 2:
                        sname = b[x[0]:x[1]]
                smeta[key] = sname
    if not (name.startswith("/device:GPU:") and name[12:].isdigit()):
        return None
    meta_stats = {k: stats_of(b, v[1]) for k, v in emeta.items()}
    facts = {"kernel_ps": 0, "kernels": 0, "annotated_ps": 0, "annotated_kernel_ps": 0, "xla_ops": set(),
             "tf_ops": set(), "ops": {}, "first": None, "last": None}

    def number(stat_list, want):
        for mid, kind, val in stat_list:
            if smeta.get(mid) == want and kind == "n" and isinstance(val, int):
                return s64(val)
        return None

    def text(stat_list, want):
        found = None
        for mid, kind, val in stat_list:
            if smeta.get(mid) != want:
                continue
            if kind == "s":
                found = val
            elif kind == "r":
                found = smeta.get(val, b"")
        return found

    for lrng in lines:
        lid, lname, events, ts_ns = 0, "", [], 0
        for f, w, v in fields(b, *lrng):
            if f == 1:
                lid = s64(v)
            elif f == 2:
                lname = b[v[0]:v[1]].decode("utf-8", "replace")
            elif f == 3:
                ts_ns = s64(v)
            elif f == 4:
                events.append(v)
        if DERIVED_MIN <= lid < DERIVED_MIN + 4096 or lname in DERIVED_NAMES:
            continue
        for erng in events:
            mid, dur, st, off = 0, 0, [], 0
            for f, w, v in fields(b, *erng):
                if f == 1:
                    mid = s64(v)
                elif f == 2:
                    off = s64(v)
                elif f == 3:
                    dur = s64(v)
                elif f == 4:
                    st.append(v)
            start = ts_ns * 1000 + off
            if facts["first"] is None or start < facts["first"]:
                facts["first"] = start
            if facts["last"] is None or start + dur > facts["last"]:
                facts["last"] = start + dur
            own = stats_of(b, st)
            meta = meta_stats.get(mid, [])

            def stat(want):
                v = text(own, want)
                return v if v else text(meta, want)

            kernel = dur > 0 and bool(stat(b"kernel_details"))
            hlo = stat(b"hlo_op")
            tf = stat(b"tf_op") or stat(b"level 0")
            if kernel:
                facts["kernel_ps"] += dur
                facts["kernels"] += 1
            if hlo or tf:
                facts["annotated_ps"] += dur
                if kernel:
                    facts["annotated_kernel_ps"] += dur
                if hlo:
                    module = stat(b"hlo_module") or b""
                    pid = number(own, b"program_id")
                    if pid is None:
                        pid = number(meta, b"program_id")
                    # Keyed by program where the event names one: compilations of one name stay apart.
                    key = (module.decode(), hlo.split(b"::")[-1].decode(), pid)
                    facts["xla_ops"].add(key)
                else:
                    key = (None, tf.split(b":", 1)[0].decode())
                    facts["tf_ops"].add(key[1])
                op = facts["ops"].setdefault(key, {"ps": 0, "counts": {}})
                op["ps"] += dur
                # TF ops execute once per launch of each of their kernels; XLA ops count every event.
                kname = emeta.get(mid, (b"", []))[0] if not hlo else len(op["counts"])
                op["counts"][kname] = op["counts"].get(kname, 0) + 1
    return facts


def walk(path):
    b = open(path, "rb").read()
    total = {"kernel_ps": 0, "kernels": 0, "annotated_ps": 0, "annotated_kernel_ps": 0, "xla_ops": set(),
             "tf_ops": set(), "ops": {}, "device_time_ps": 0, "gpus": 0}
    modules = ({}, {})
    for f, w, v in fields(b, 0, len(b)):
        if f != 1:
            continue
        for g, _, x in fields(b, *v):
            if g == 2 and b[x[0]:x[1]] == b"/host:metadata":
                modules = hlo_modules(b, v)
        p = plane_facts(b, v)
        if p is None:
            continue
        total["gpus"] += 1
        for k in ("kernel_ps", "kernels", "annotated_ps", "annotated_kernel_ps"):
            total[k] += p[k]
        total["xla_ops"] |= p["xla_ops"]
        total["tf_ops"] |= p["tf_ops"]
        span = p["last"] - p["first"] if p["first"] is not None else 0
        total["device_time_ps"] += max(span, p["annotated_ps"])
        for key, op in p["ops"].items():
            t = total["ops"].setdefault(key, {"ps": 0, "counts": {}})
            t["ps"] += op["ps"]
            for k, n in op["counts"].items():
                t["counts"][k] = t["counts"].get(k, 0) + n
    return framework_ops(total, modules)


def framework_ops(total, modules):
    """XLA ops regrouped by the framework op of their instruction; counts the events that resolve."""
    total["xla_resolved"] = total["xla_events"] = 0
    if not total["xla_ops"]:
        return total
    ops, names = {}, set()
    by_name, by_pid = modules
    for key, op in total["ops"].items():
        n = sum(op["counts"].values())
        total["xla_events"] += n
        prog = by_pid.get(key[2])
        if prog and key[1] in prog[1]:
            hits = [prog[1][key[1]]]
        else:
            hits = [m[key[1]] for m in by_name.get(key[0], []) if key[1] in m]
        if not hits:
            # No proto holds it: xpstat keeps the HLO op under its module, one row, every event counted.
            t = ops.setdefault(key[:2], {"ps": 0, "counts": {}})
            t["ps"] += op["ps"]
            for k, c in op["counts"].items():
                t["counts"][(key, k)] = c
            names.add(key[:2])
            continue
        total["xla_resolved"] += n
        op_name, op_type = hits[0]
        name = (op_name + ":" + op_type).split(":", 1)[0] if op_name else key[1]
        names.add(name)
        t = ops.setdefault((None, name), {"ps": 0, "counts": {}})
        t["ps"] += op["ps"]
        t["counts"][key] = n
    total["ops"], total["xla_ops"] = ops, names
    return total


def op_occurrences(key, op):
    """TF ops: the most launches of one kernel (the reference's max over its kernels); XLA ops: every event."""
    return max(op["counts"].values()) if key[0] is None else sum(op["counts"].values())


# ---- xpstat ----

def run(xpstat, path, *args):
    out = subprocess.run([xpstat, "tf-stats", *args, path], capture_output=True, text=True)
    if out.returncode != 0:
        failures.append(f"{path} {args}: exit {out.returncode}: {out.stderr.strip()}")
        return None
    return out.stdout


def us_to_ps(v):
    # Durations are exact decimals of microseconds with up to 6 digits after the point.
    return round(v * 1000000)


def check_device_rows(rel, rows, s, facts):
    """Every device row's total time and occurrences, and the device total, against the walk."""
    expect(f"{rel} device time", us_to_ps(s["device_time_us"]), facts["device_time_ps"])
    expect(f"{rel} gpus", s["gpus"], facts["gpus"])
    seen = 0
    for r in rows:
        if r["host_or_device"] != "Device" or r["op_name"] == "IDLE":
            continue
        key = (r["hlo_module"], r["op_name"])
        op = facts["ops"].get(key)
        if op is None:
            failures.append(f"{rel}: device row {key} not in the capture")
            continue
        seen += 1
        expect(f"{rel} {key} time", us_to_ps(r["total_time_us"]), op["ps"])
        expect(f"{rel} {key} self time", us_to_ps(r["total_self_time_us"]), op["ps"])
        expect(f"{rel} {key} occurrences", r["occurrences"], op_occurrences(key, op))
    expect(f"{rel} device rows checked", seen, len(facts["ops"]))


def check_sides(rel, rows, label):
    for side, key in (("Device", "device"), ("Host", "host")):
        mine = [r for r in rows if r["host_or_device"] == side]
        if not mine:
            continue
        close(f"{rel} {label} {side} self-time % sum", sum(r[f"{key}_self_time_pct"] for r in mine), 100.0, 1e-9)
        close(f"{rel} {label} {side} last cumulative %", mine[-1][f"{key}_cumulative_self_time_pct"], 100.0, 1e-9)
        other = "host" if key == "device" else "device"
        expect(f"{rel} {label} {side} rows leave the {other} % empty",
               {r[f"{other}_self_time_pct"] for r in mine}, {None})


def check_csv_json(rel, csv_text, doc):
    rows = doc["tables"]["tf_stats"]
    records = list(csv.reader(io.StringIO(csv_text, newline="")))
    expect(f"{rel} CSV records = JSON rows", len(records) - 1, len(rows))
    if rows:
        expect(f"{rel} CSV header = JSON keys", records[0], list(rows[0].keys()))
    for rec, row in zip(records[1:], rows):
        for key, cell in zip(records[0], rec):
            v = row[key]
            if v is None:
                expect(f"{rel} {row['rank']} {key}", cell, "")
            elif isinstance(v, bool):
                expect(f"{rel} {row['rank']} {key}", cell, "true" if v else "false")
            elif isinstance(v, (int, float)):
                if float(cell) != float(v):
                    failures.append(f"{rel} rank {row['rank']} {key}: CSV {cell} != JSON {v}")
            elif cell != v and cell != "'" + v:
                failures.append(f"{rel} rank {row['rank']} {key}: CSV {cell!r} != JSON {v!r}")


def check_hlo_ops(rel, doc, facts):
    """The hlo_ops table: one row per instruction that ran; by framework op, the most occurrences and the
    time added up are the tf_stats row's; every row ran at least once per execution."""
    hlo = doc["tables"].get("hlo_ops", [])
    expect(f"{rel} hlo_ops rows", len(hlo), sum(len(op["counts"]) for op in facts["ops"].values()))
    by_fw = {}
    for r in hlo:
        fw = r["framework_op"] or r["hlo_op"]
        occ, ps = by_fw.get(fw, (0, 0))
        by_fw[fw] = (max(occ, r["occurrences"]), ps + us_to_ps(r["total_time_us"]))
        if not 1 <= r["executions"] <= r["occurrences"]:
            failures.append(f"{rel} hlo_ops {r['hlo_op']}: executions {r['executions']} of {r['occurrences']}")
    dev = {r["op_name"]: (r["occurrences"], us_to_ps(r["total_time_us"])) for r in doc["tables"]["tf_stats"]
           if r["host_or_device"] == "Device" and r["op_name"] != "IDLE"}
    expect(f"{rel} hlo_ops by framework op = tf_stats rows", by_fw, dev)


def check_capture(xpstat, real, rel, manifest_kernel_ps, every_kernel_op, host_ops):
    path = os.path.join(real, rel)
    facts = walk(path)
    expect(f"{rel} walk: kernel time = MANIFEST", facts["kernel_ps"], manifest_kernel_ps)
    if facts["xla_ops"]:
        expect(f"{rel} XLA device events resolved to an HLO instruction", facts["xla_resolved"], facts["xla_events"])
        info = subprocess.run([xpstat, "info", "--format", "json", path], capture_output=True, text=True).stdout
        hlo = [a for a in json.loads(info)["tables"]["analyses"] if a["analysis"] == "hlo"]
        n = facts["xla_events"]
        expect(f"{rel} info's hlo row", [a["detail"] for a in hlo],
               [f"{n} of {n} XLA device events resolved to an HLO instruction (100.0%)"])
    text = run(xpstat, path, "--format", "json")
    csv_text = run(xpstat, path, "--format", "csv")
    if text is None or csv_text is None:
        return
    doc = json.loads(text)
    rows, s = doc["tables"]["tf_stats"], doc["summary"]
    dev_ops = [r for r in rows if r["host_or_device"] == "Device" and r["op_name"] != "IDLE"]
    op_ps = sum(us_to_ps(r["total_self_time_us"]) for r in dev_ops)
    expect(f"{rel} device op time = annotated device events", op_ps, facts["annotated_ps"])
    expect(f"{rel} summary device op time", us_to_ps(s["device_op_time_us"]), op_ps)
    all_kernels_have_ops = facts["annotated_kernel_ps"] == facts["kernel_ps"]
    expect(f"{rel} every kernel has an op", all_kernels_have_ops, every_kernel_op)
    only_kernels = facts["annotated_kernel_ps"] == facts["annotated_ps"]
    if all_kernels_have_ops and only_kernels:
        expect(f"{rel} device op time = MANIFEST kernel time", op_ps, manifest_kernel_ps)
    elif all_kernels_have_ops:
        # Kernels plus annotated copies: the kernels' part is the MANIFEST kernel time.
        expect(f"{rel} device op time - annotated copies = MANIFEST kernel time",
               op_ps - (facts["annotated_ps"] - facts["annotated_kernel_ps"]), manifest_kernel_ps)
    unattributed = facts["kernel_ps"] - facts["annotated_kernel_ps"]
    expect(f"{rel} kernels without op reported", s["kernels_without_op"] > 0, unattributed > 0)
    want_ops = len(facts["xla_ops"]) + len(facts["tf_ops"])
    expect(f"{rel} device ops", s["device_ops"], want_ops)
    check_device_rows(rel, rows, s, facts)
    expect(f"{rel} device rows (with IDLE)", len(dev_ops) + 1, s["device_rows"])
    if host_ops is not None:
        expect(f"{rel} host ops", s["host_ops"], host_ops)
    check_sides(rel, rows, "with IDLE")
    check_csv_json(rel, csv_text, doc)
    no_idle = run(xpstat, path, "--format", "json", "--no-idle")
    if no_idle is not None:
        nrows = json.loads(no_idle)["tables"]["tf_stats"]
        expect(f"{rel} --no-idle has no IDLE row", [r for r in nrows if r["op_name"] == "IDLE"], [])
        check_sides(rel, nrows, "--no-idle")
    if facts["xla_ops"]:
        check_hlo_ops(rel, doc, facts)
    expect(f"{rel} 1 vs 2 threads", run(xpstat, path, "--format", "csv", "--threads", "1"),
           run(xpstat, path, "--format", "csv", "--threads", "2"))
    return facts


def check_legacy_acceptance(xpstat, real):
    """jax_conv_minimal_legacy as xprof shows it: 3 framework device ops; conv_general_dilated 10
    occurrences (its HLO ops' most kernels, not its 15 kernels) and 3,490.792 us."""
    rel = "tracelens/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"
    for compat in ((), ("--compat", "xprof")):
        text = run(xpstat, os.path.join(real, rel), "--format", "json", *compat)
        if text is None:
            return
        doc = json.loads(text)
        expect(f"legacy {compat} device ops", doc["summary"]["device_ops"], 3)
        conv = [r for r in doc["tables"]["tf_stats"] if r["op_name"].endswith("/conv_general_dilated")]
        expect(f"legacy {compat} conv_general_dilated", [(r["occurrences"], r["total_time_us"]) for r in conv],
               [(10, 3490.792)])


def check_programs(xpstat, real):
    """jax08_gemm: jit_dot compiled 5 times; the device events carry program_id, so its custom-call.1 is 5
    rows of 5 programs (keyed by module id, not merged by module name), none left ambiguous."""
    text = run(xpstat, os.path.join(real, "tracelens/jax08_gemm/tw003.xplane.pb"), "--format", "json")
    if text is None:
        return
    doc = json.loads(text)
    rows = [r for r in doc["tables"]["hlo_ops"] if r["hlo_op"] == "custom-call.1"]
    expect("jax08_gemm custom-call.1 programs", sorted(r["program_id"] or -1 for r in rows), [21, 34, 49, 64, 79])
    codes = {d["code"] for d in doc["diagnostics"]}
    expect("jax08_gemm xla_program_ambiguous", "xla_program_ambiguous" in codes, False)


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    for rel, (kernel_ps, every_kernel_op, host_ops) in CAPTURES.items():
        if not os.path.exists(os.path.join(real, rel)):
            failures.append(f"{rel}: missing from {real}")
            continue
        check_capture(xpstat, real, rel, kernel_ps, every_kernel_op, host_ops)
    check_legacy_acceptance(xpstat, real)
    check_programs(xpstat, real)
    for f in failures:
        print("FAIL " + f)
    print(f"check_tf_stats: {len(CAPTURES)} captures, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
