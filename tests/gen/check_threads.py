#!/usr/bin/env python3
"""check_threads.py - the output does not depend on --threads: the same bytes with 1, 2 and 3 threads.

Usage: check_threads.py XPSTAT XPGEN
One thread reads an XSpace in one pass (walk and decode together); several walk the lines, then
decode blocks of 65,536 events side by side; info surveys events in chunks on every thread, report
runs its analyses side by side, overview and input-pipeline build what they read of the capture alone
beside the preparation, and tf-stats builds the kernels' per-op facts beside its op databases. The captures have lines longer than a block, so every one of those
splits happens; odd content (unsorted lines, times that overflow) takes the slower paths.
A file with two faults, an event's in an early line and a line's own in a later one, must give the
same error whatever --threads is (the walk of every line comes before any event on several threads).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xpcheck import fields  # noqa: E402  (the independent wire walker's field splitter)

CAPTURES = [
    ("raw", ["--variant", "raw", "--gpus", "2", "--seed", "71", "--target-bytes", "12M"]),
    ("odd", ["--variant", "raw", "--steps", "40", "--seed", "72", "--odd"]),
    ("grouped", ["--variant", "grouped", "--steps", "30", "--gpus", "2", "--seed", "73"]),
]
COMMANDS = [
    ["info", "--lines", "--format", "json"],
    ["report", "--format", "json"],
    ["memory", "--timeline", "--format", "csv"],
    # Commands that leave stats they never read out of the load (xp_cmd.drop_stats), on both decode paths.
    ["input-pipeline", "--format", "json"],
    ["kernel-stats", "--format", "csv"],
    # Run alone with several threads, overview builds its device op DB and shared inputs beside the preparation.
    ["overview", "--format", "json"],
    # Run alone with several threads, tf-stats builds the kernels' per-op facts beside the op databases.
    ["tf-stats", "--format", "json"],
]


def run(xpstat, args):
    p = subprocess.run([xpstat] + args, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def event_tags(b):
    """Per line, in file order: (tag offset, body offset) of each event (XSpace.planes = 1,
    XPlane.lines = 3, XLine.events = 4; an event's tag is the one byte 0x22)."""
    lines = []
    for f, w, v in fields(b, 0, len(b)):
        if f != 1 or w != 2:
            continue
        for pf, pw, pv in fields(b, v[0], v[1]):
            if pf != 3 or pw != 2:
                continue
            tags = [(v[0] - 1 - len(varint_bytes(v[1] - v[0])), v[0]) for lf, lw, v in fields(b, pv[0], pv[1])
                    if lf == 4 and lw == 2]
            lines.append(tags)
    return lines


def varint_bytes(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def two_faults(xpstat, xpgen, tmp):
    """1 when the error depends on --threads."""
    cap = os.path.join(tmp, "faults.xplane.pb")
    subprocess.run([xpgen, "--variant", "raw", "--gpus", "1", "--seed", "74", "--target-bytes", "2M", "-o", cap],
                   check=True, stdout=subprocess.DEVNULL)
    b = bytearray(open(cap, "rb").read())
    lines = [t for t in event_tags(bytes(b)) if len(t) >= 4]
    first, last = lines[0], lines[-1]
    body = first[1][1]  # the second event of the first line
    b[body] = 0x0F  # field 1, wire type 7: the event's fault
    b[last[-1][0]] = 0x27  # field 4, wire type 7 in place of the last line's last event tag: the line's fault
    bad = os.path.join(tmp, "two-faults.xplane.pb")
    open(bad, "wb").write(bytes(b))
    outs = {t: run(xpstat, ["info", "--threads", t, bad]) for t in ("1", "2", "3")}
    rc, out, err = outs["1"]
    if rc != 3 or out or b"(at byte %d)" % body not in err:
        print(f"FAIL two faults, --threads 1: status {rc}, {err.decode(errors='replace').strip()} "
              f"(want status 3 at byte {body})")
        return 1
    for t in ("2", "3"):
        if outs[t] != outs["1"]:
            print(f"FAIL two faults: --threads {t} says {outs[t][2].decode(errors='replace').strip()}, "
                  f"--threads 1 {err.decode(errors='replace').strip()}")
            return 1
    print(f"ok two faults: {err.decode(errors='replace').strip()} with 1, 2 and 3 threads")
    return 0


def main():
    xpstat, xpgen = sys.argv[1], sys.argv[2]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, gen in CAPTURES:
            cap = os.path.join(tmp, name + ".xplane.pb")
            subprocess.run([xpgen] + gen + ["-o", cap], check=True, stdout=subprocess.DEVNULL)
            for cmd in COMMANDS:
                outs = {t: run(xpstat, cmd + ["--threads", t, cap]) for t in ("1", "2", "3")}
                rc, out, err = outs["1"]
                if rc != 0 or not out:
                    print(f"FAIL {name} {' '.join(cmd)}: status {rc}: {err.decode(errors='replace')}")
                    failed += 1
                    continue
                for t in ("2", "3"):
                    if outs[t] != outs["1"]:
                        print(f"FAIL {name} {' '.join(cmd)}: --threads {t} differs from --threads 1")
                        failed += 1
                print(f"ok {name} {' '.join(cmd)}: {len(out)} bytes, same with 1, 2 and 3 threads")
        failed += two_faults(xpstat, xpgen, tmp)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
