#!/usr/bin/env python3
"""check_hlo.py - a JAX capture whose HLO proto stat is cut in half: one diagnostic, exit 0, the rest unchanged.

Usage: check_hlo.py XPSTAT REAL_DIR TMPDIR
Exits 77 (skip) when REAL_DIR is absent.

The capture tracelens/jax_conv_minimal_legacy is rewritten here (never stored): the `Hlo Proto` bytes of
one program on /host:metadata are cut to half their length, the enclosing messages' lengths fixed.
- Cutting a program that ran no device op: tf-stats and kernel-stats give the same tables as on the
  whole capture, exit 0, and exactly one hlo_proto_unreadable diagnostic naming that program.
- Cutting the program that ran every device op (jit_forward_3d_conv): exit 0, one such diagnostic, the
  kernel-stats tables and the device op time unchanged; its ops fall back to rows keyed by HLO op.
"""
import json
import os
import subprocess
import sys

LEGACY = "tracelens/jax_conv_minimal_legacy/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def enc_varint(v):
    out = bytearray()
    while True:
        if v < 0x80:
            out.append(v)
            return bytes(out)
        out.append((v & 0x7F) | 0x80)
        v >>= 7


def fields(b):
    """[(field, wire type, raw bytes of the whole field, payload)] of a message."""
    i, out = 0, []
    while i < len(b):
        start = i
        t, i = varint(b, i)
        w = t & 7
        if w == 0:
            _, i = varint(b, i)
            payload = None
        elif w == 1:
            i += 8
            payload = None
        elif w == 5:
            i += 4
            payload = None
        elif w == 2:
            n, i = varint(b, i)
            payload = b[i:i + n]
            i += n
        else:
            raise ValueError(w)
        out.append((t >> 3, w, b[start:i], payload))
    return out


def ld(field, payload):
    return enc_varint(field << 3 | 2) + enc_varint(len(payload)) + payload


def cut_program(data, program_name):
    """The XSpace with the Hlo Proto of the program whose metadata name starts with PROGRAM_NAME halved."""
    cut = [0]

    def stat(x):
        out = b""
        for f, w, raw, p in fields(x):
            out += ld(6, p[:len(p) // 2]) if f == 6 and w == 2 else raw
        return out

    def emeta(x):
        parts = fields(x)
        name = next((p for f, w, raw, p in parts if f == 2 and w == 2), b"")
        if not name.startswith(program_name.encode()):
            return x
        cut[0] += 1
        return b"".join(ld(5, stat(p)) if f == 5 else raw for f, w, raw, p in parts)

    def entry(x):
        return b"".join(ld(2, emeta(p)) if f == 2 else raw for f, w, raw, p in fields(x))

    def plane(x):
        parts = fields(x)
        if next((p for f, w, raw, p in parts if f == 2 and w == 2), b"") != b"/host:metadata":
            return x
        return b"".join(ld(4, entry(p)) if f == 4 else raw for f, w, raw, p in parts)

    out = b"".join(ld(1, plane(p)) if f == 1 else raw for f, w, raw, p in fields(data))
    expect(f"programs cut ({program_name})", cut[0], 1)
    return out


def run(xpstat, cmd, path):
    out = subprocess.run([xpstat, cmd, "--format", "json", path], capture_output=True, text=True)
    expect(f"{cmd} {os.path.basename(path)} exit", out.returncode, 0)
    return json.loads(out.stdout) if out.returncode == 0 else {"tables": {}, "diagnostics": [], "summary": {}}


def kernel_totals(doc):
    """(kernel name, total us) of every kernel-stats row, sorted: what no op name changes."""
    rows = doc["tables"].get("kernels", [])
    return sorted((r["kernel_name"], r["total_duration_us"]) for r in rows)


def unreadable(doc):
    return [d for d in doc.get("diagnostics", []) if d["code"] == "hlo_proto_unreadable"]


def main():
    xpstat, real, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    whole = os.path.join(real, LEGACY)
    data = open(whole, "rb").read()
    os.makedirs(tmp, exist_ok=True)
    base = {cmd: run(xpstat, cmd, whole) for cmd in ("tf-stats", "kernel-stats", "info")}
    for cmd, doc in base.items():
        expect(f"{cmd} whole capture: unreadable HLO diagnostics", unreadable(doc), [])
    for program, same_ops in (("jit__normal(9)", True), ("jit_forward_3d_conv(15)", False)):
        path = os.path.join(tmp, "cut.xplane.pb")
        with open(path, "wb") as f:
            f.write(cut_program(data, program))
        for cmd in ("tf-stats", "kernel-stats", "info"):
            doc = run(xpstat, cmd, path)
            diags = unreadable(doc)
            expect(f"{program} {cmd}: one hlo_proto_unreadable", len(diags), 1)
            if diags:
                expect(f"{program} {cmd}: the diagnostic names the program",
                       f"({program})" in diags[0]["message"] or program in diags[0]["message"], True)
            if same_ops and cmd != "info":
                expect(f"{program} {cmd}: tables unchanged", doc["tables"] == base[cmd]["tables"], True)
            if cmd == "kernel-stats":
                expect(f"{program} kernel totals", kernel_totals(doc), kernel_totals(base[cmd]))
            if cmd == "tf-stats":
                expect(f"{program} device op time", doc["summary"]["device_op_time_us"],
                       base[cmd]["summary"]["device_op_time_us"])
        os.remove(path)
    for f in failures:
        print("FAIL " + f)
    print(f"check_hlo: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
