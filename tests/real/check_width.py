#!/usr/bin/env python3
"""check_width.py - with COLUMNS=80 no line of any command's text output on any real capture is wider than 80 columns.

Usage: check_width.py XPSTAT REAL_DIR
Exits 77 (skip) when REAL_DIR is absent. Widths are terminal columns (East Asian wide
characters count two, combining marks none), as the text writer counts them. Without
COLUMNS (a pipe) the same output must be whole: at least one line wider than 80 on the
captures with long names, so that the test shows the fitting is what keeps lines short.
"""
import os
import subprocess
import sys
import unicodedata

COMMANDS = [["info"], ["overview"], ["steps"], ["pod"], ["input-pipeline"], ["tf-data"], ["tf-stats"],
            ["kernel-stats"], ["memory", "--breakdown"], ["memory", "--timeline"], ["report"],
            ["check", "--max-step-time", "1s"], ["compare", "--self"]]
HELP = [["--help"]] + [["help", c[0]] for c in COMMANDS]


def width(line):
    w = 0
    for ch in line:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def captures(real):
    for root, _dirs, files in os.walk(real):
        for f in sorted(files):
            if f.endswith((".pb", ".json", ".json.gz", ".pb.gz")):
                yield os.path.join(root, f)


def run(xpstat, args, columns):
    if "--self" in args:  # compare a capture with itself: every command has its text checked
        args = [a for a in args if a != "--self"]
        args = args[:-1] + [args[-1], args[-1]]
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    if columns:
        env["COLUMNS"] = str(columns)
    env["NO_COLOR"] = "1"
    out = subprocess.run([xpstat, *args], capture_output=True, env=env)
    return out.returncode, out.stdout.decode("utf-8", "replace")


def main():
    xpstat, real = sys.argv[1], sys.argv[2]
    if not os.path.isdir(real):
        print(f"skip: {real} is absent")
        return 77
    failures, checked, whole_wide = [], 0, 0
    for path in sorted(captures(real)):
        for cmd in COMMANDS:
            # Without -q: the line naming what was read must fit too.
            rc, text = run(xpstat, [*cmd, path], 80)
            if rc not in (0, 1, 3):
                failures.append(f"{' '.join(cmd)} {path}: exit {rc}")
                continue
            checked += 1
            for n, line in enumerate(text.splitlines(), 1):
                if width(line) > 80:
                    failures.append(f"{' '.join(cmd)} {path}: line {n} is {width(line)} columns: {line[:100]}")
                    break
            if cmd == ["kernel-stats"]:
                _, whole = run(xpstat, [*cmd, "-q", path], None)
                whole_wide += any(width(l) > 80 for l in whole.splitlines())
    for args in HELP:
        rc, text = run(xpstat, args, 80)
        for line in text.splitlines():
            if width(line) > 80:
                failures.append(f"xpstat {' '.join(args)}: {width(line)} columns: {line}")
                break
    if not whole_wide:
        failures.append("no kernel-stats output was wider than 80 without COLUMNS: the test cannot tell")
    for f in failures:
        print("FAIL:", f)
    print(f"{checked} outputs checked, {len(failures)} too wide")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
