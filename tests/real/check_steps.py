#!/usr/bin/env python3
"""check_steps.py - steps on the shared real captures, against expectations derived independently.

Usage: check_steps.py XPSTAT REAL_DIR
The expectations come from tests/gen/xpcheck.py's own protobuf walk of each file (no xpstat
code): the TF 8xV100 capture's one step time is its longest Steps-line marker of group 0
(no host marker of that group contains it); with --step-marker every matching host event is
one step whose time is that event's duration, except matches inside another match. Skips (77) when REAL_DIR is absent.
"""
import glob
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen"))
import xpcheck  # noqa: E402

TF = "tensorflow-profiler/GPU-multi-worker/34.83.195.179_6003.xplane.pb"
JAX = [
    "tracelens/jax08_gemm/tw003.xplane.pb",
    "tracelens/jax08_elementwise/tw003.xplane.pb",
    "tracelens/jax_conv_minimal_08/tw003.xplane.pb",
    "tracelens/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb",
    "tracelens/te_fused_attn/934987a2fc2f.xplane.pb",
]
MARKER = r"^PjitFunction\("
CATEGORIES = ["device_compute_ms", "device_to_device_ms", "device_collectives_ms", "host_compute_ms",
              "kernel_launch_ms", "input_ms", "output_ms", "compilation_ms", "all_others_ms"]
HOST_PLANES = ("/host:CPU",)

failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: xpstat says {got!r}, expected {want!r}")


def run(xpstat, *args):
    r = subprocess.run([xpstat, *args], capture_output=True, text=True)
    if r.returncode:
        failures.append(f"xpstat {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout, parse_float=Decimal)


def planes_of(path):
    planes, _, _ = xpcheck.parse_space(xpcheck.load(path))
    return planes


def stat_int(plane, ev, name):
    for st in ev["stats"]:
        if plane["sm"].get(st.mid) == name.encode() and st.kind in ("i", "u"):
            return st.val
    return None


def gpu_events(planes):
    """(plane, line, event) of every event of the GPU planes."""
    for p in planes:
        if not p["name"].startswith("/device:GPU:"):
            continue
        for line in p["lines"]:
            for ev in line["events"]:
                yield p, line, ev


def tf_expected_step_ps(planes):
    """Longest Steps-line event of group 0 over the GPU planes."""
    best = 0
    for p, line, ev in gpu_events(planes):
        if line["name"] == "Steps" and stat_int(p, ev, "group_id") == 0:
            best = max(best, ev["dur"])
    return best


def check_tf(xpstat, real):
    path = os.path.join(real, TF)
    want_ps = tf_expected_step_ps(planes_of(path))
    for compat in ("xpstat", "xprof"):
        doc = run(xpstat, "steps", "--format", "json", "--compat", compat, path)
        if doc is None:
            continue
        rows = doc["tables"]["steps"]
        expect(f"TF steps ({compat})", len(rows), 1)
        if not rows:
            continue
        step_ps = rows[0]["step_time_ms"] * Decimal(10**9)
        expect(f"TF step time ps ({compat})", step_ps, Decimal(want_ps))
        total = sum(rows[0][k] for k in CATEGORIES)
        expect(f"TF categories sum ({compat})", total, rows[0]["step_time_ms"])


def marker_durations(planes, regex):
    """Durations of the outermost matches: a match inside another is part of it."""
    spans = []
    for p in planes:
        if p["name"] not in HOST_PLANES:
            continue
        for line in p["lines"]:
            for ev in line["events"]:
                name = p["em"].get(ev["mid"], b"").decode("utf-8", "replace")
                if regex.search(name):
                    begin = line["ts"] * 1000 + ev["off"]
                    spans.append((begin, -(begin + ev["dur"]), ev["dur"]))
    spans.sort()
    durs, reach = [], None
    for begin, neg_end, dur in spans:
        if reach is not None and -neg_end <= reach:
            continue
        reach = -neg_end if reach is None else max(reach, -neg_end)
        durs.append(dur)
    return sorted(durs)


def check_jax(xpstat, real):
    regex = re.compile(MARKER)
    for rel in JAX:
        path = os.path.join(real, rel)
        doc = run(xpstat, "overview", "--format", "json", path)
        if doc is not None:
            codes = {d["code"] for d in doc["diagnostics"]}
            expect(f"{rel}: no_step_markers diagnostic", "no_step_markers" in codes, True)
        doc = run(xpstat, "steps", "--format", "json", "--step-marker", MARKER, path)
        if doc is None:
            continue
        got = sorted(int(r["step_time_ms"] * Decimal(10**9)) for r in doc["tables"]["steps"])
        want = marker_durations(planes_of(path), regex)
        expect(f"{rel}: --step-marker step count", len(got), len(want))
        expect(f"{rel}: --step-marker step times (ps)", got, want)


COPY_PREFIXES = (b"CopyHostToDevice", b"CopyDeviceToHost", b"CopyDeviceToDevice", b"__amd_rocclr_copyBuffer")


def copy_ps(planes):
    """Time of ROCm's copies and copy kernels on the GPU planes."""
    return sum(ev["dur"] for p, _line, ev in gpu_events(planes) if p["em"].get(ev["mid"], b"").startswith(COPY_PREFIXES))


def check_rocm_copies(xpstat, real):
    """ROCm copies (and __amd_rocclr_copyBuffer kernels) are transfers, not device compute: with --step-marker
    the steps hold Device-to-device time, never more than the copies took (issue 20)."""
    for rel in JAX:
        path = os.path.join(real, rel)
        want = copy_ps(planes_of(path))
        doc = run(xpstat, "steps", "--format", "json", "--step-marker", MARKER, path)
        if doc is None:
            continue
        got = sum(Decimal(str(r["device_to_device_ms"])) for r in doc["tables"]["steps"]) * Decimal(10**9)
        if want and not 0 < got <= want:
            failures.append(f"{rel}: Device to device over steps {got} ps, copies take {want} ps")
        if not want and got:
            failures.append(f"{rel}: Device to device {got} ps without a copy")


def check_info_agrees(xpstat, real):
    """info's "Step markers" says what its analyses table says (a TPU capture said yes while the row said no)."""
    paths = glob.glob(os.path.join(real, "**", "*.xplane.pb"), recursive=True)
    paths += glob.glob(os.path.join(real, "**", "*.json.gz"), recursive=True)
    for folder in sorted(paths):
        doc = run(xpstat, "info", "--format", "json", folder)
        if doc is None:
            continue
        rows = [r["available"] for r in doc["tables"]["analyses"] if r["analysis"] == "steps"]
        expect(f"{os.path.relpath(folder, real)}: info step_markers = the steps rows", doc["summary"]["step_markers"],
               bool(rows) and all(rows))


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    check_tf(xpstat, real)
    check_jax(xpstat, real)
    check_info_agrees(xpstat, real)
    check_rocm_copies(xpstat, real)
    for f in failures:
        print("FAIL", f)
    print(f"steps on {1 + len(JAX)} real captures, {len(failures)} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
