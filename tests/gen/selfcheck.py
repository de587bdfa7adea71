#!/usr/bin/env python3
# selfcheck.py - meson test: xpgen output passes xpcheck in every variant, is deterministic, and compresses losslessly.
#
# Usage: selfcheck.py PATH/TO/xpgen
import gzip
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xpcheck  # noqa: E402


def run(xpgen, *args):
    subprocess.run([xpgen, *args], check=True)


def main():
    xpgen = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for variant in ("raw", "grouped", "jax", "cpu"):
            gpus = [] if variant == "cpu" else ["--gpus", "2"]
            for odd in ([], ["--odd"]):
                tag = variant + ("-odd" if odd else "")
                out, truth = os.path.join(tmp, tag + ".xplane.pb"), os.path.join(tmp, tag + ".json")
                run(xpgen, "--variant", variant, *gpus, *odd, "--steps", "6", "--seed", "3", "-o", out, "--truth", truth)
                errors, _ = xpcheck.check(out, json.load(open(truth)))
                failures += ["%s: %s" % (tag, e) for e in errors]
                again = os.path.join(tmp, "again", tag + ".xplane.pb")
                run(xpgen, "--variant", variant, *gpus, *odd, "--steps", "6", "--seed", "3", "-o", again)
                if open(out, "rb").read() != open(again, "rb").read():
                    failures.append("%s: two runs gave different bytes" % tag)
        plain = os.path.join(tmp, "h.xplane.pb")
        run(xpgen, "--steps", "3", "-o", plain)
        run(xpgen, "--hosts", "2", "--steps", "3", "--compress", "gzip", "-o", os.path.join(tmp, "pod"),
            "--truth", os.path.join(tmp, "pod.json"))
        pod = json.load(open(os.path.join(tmp, "pod.json")))
        for i in range(2):
            errors, _ = xpcheck.check(os.path.join(tmp, "pod", "worker-%d.xplane.pb.gz" % i), pod, i)
            failures += ["pod host %d: %s" % (i, e) for e in errors]
        gz = os.path.join(tmp, "h.gz")
        run(xpgen, "--steps", "3", "--host", "h", "--compress", "gzip", "-o", gz)
        if gzip.decompress(open(gz, "rb").read()) != open(plain, "rb").read():
            failures.append("gzip output does not decompress to the plain capture")
    for f in failures:
        print("FAIL", f)
    print("xpgen selfcheck: %s" % ("FAILED" if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
