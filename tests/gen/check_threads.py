#!/usr/bin/env python3
"""check_threads.py - the output does not depend on --threads: the same bytes with 1, 2 and 3 threads.

Usage: check_threads.py XPSTAT XPGEN
One thread reads an XSpace in one pass (walk and decode together); several walk the lines, then
decode blocks of 65,536 events side by side; info surveys events in chunks on every thread and report
runs its analyses side by side. The captures have lines longer than a block, so every one of those
splits happens; odd content (unsorted lines, times that overflow) takes the slower paths.
"""
import os
import subprocess
import sys
import tempfile

CAPTURES = [
    ("raw", ["--variant", "raw", "--gpus", "2", "--seed", "71", "--target-bytes", "12M"]),
    ("odd", ["--variant", "raw", "--steps", "40", "--seed", "72", "--odd"]),
    ("grouped", ["--variant", "grouped", "--steps", "30", "--gpus", "2", "--seed", "73"]),
]
COMMANDS = [
    ["info", "--lines", "--format", "json"],
    ["report", "--format", "json"],
    ["memory", "--timeline", "--format", "csv"],
]


def run(xpstat, args):
    p = subprocess.run([xpstat] + args, capture_output=True)
    return p.returncode, p.stdout, p.stderr


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
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
