#!/usr/bin/python3
# check_pairs.py - check and compare on generated capture pairs: exit statuses, JUnit, verdicts and exact deltas.
"""Usage: check_pairs.py XPSTAT XPGEN

Pairs (made with xpgen, and by editing a saved report, since xpgen has no
knob for "10 % slower"):
  noise      the same workload, seeds 1 and 2 (noise only)        -> exit 0
  slower     the baseline report with every step time x 1.1       -> exit 1
  outlier    the baseline report with one step x 3                 -> exit 0
  few        a 3-step capture                                      -> exit 3, the sample-size message
  none       a capture without step markers                        -> exit 3, no_step_markers
  ops        the baseline report with known op and kernel changes  -> compare: every delta exact
  captures   compare of the seed-1 and seed-2 captures: every op and kernel delta equals the
             difference of the two saved reports, to the picosecond
Every JSON number is read as a Decimal, so "exact" means exact.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from decimal import Decimal

FAILS = []
SCALE = {"ms": 10**9, "us": 10**6, "ns": 10**3, "ps": 1}


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def expect(cond, msg):
    if not cond:
        fail(msg)
    return cond


def run(args, want=None, what=""):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    if want is not None and p.returncode != want:
        fail("%s: exit %d, want %d\n  %s\n%s%s" % (what, p.returncode, want, " ".join(args), out[-1500:], err[-800:]))
    return p.returncode, out, err


def load(path_or_text, text=False):
    s = path_or_text if text else open(path_or_text, encoding="utf-8").read()
    return json.loads(s, parse_float=Decimal)


def dump(o):
    """JSON with Decimals written as they are (no float rounding)."""
    if isinstance(o, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(v) for k, v in o.items()) + "}"
    if isinstance(o, list):
        return "[" + ",".join(dump(v) for v in o) + "]"
    if isinstance(o, Decimal):
        return format(o, "f")
    return json.dumps(o)


def save(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(dump(doc))


def ps(v, unit):
    return None if v is None else int(Decimal(v) * SCALE[unit])


def median(v):
    s = sorted(v)
    n = len(s)
    if n % 2:
        return s[n // 2]
    a, b = s[n // 2 - 1], s[n // 2]
    return (a + b + 1) // 2


def step_times(report):
    return [ps(r["step_time_ms"], "ms") for r in report["reports"]["steps"]["tables"]["steps"]]


def scale_steps(report, num, den, only=None):
    """Step time x num/den, exact to the picosecond (rounded half up)."""
    doc = copy.deepcopy(report)
    for i, row in enumerate(doc["reports"]["steps"]["tables"]["steps"]):
        if only is None or i == only:
            v = ps(row["step_time_ms"], "ms")
            row["step_time_ms"] = Decimal((v * num * 2 + den) // (2 * den)) / SCALE["ms"]
    return doc


def junit(path):
    root = ET.parse(path).getroot()
    suite = root.find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    return root, cases


def main(xpstat, xpgen):
    work = tempfile.mkdtemp(prefix="xpstat-pairs.")
    os.chdir(work)

    def gen(out, *extra):
        run([xpgen, "--variant", "raw", "--gpus", "1", "-o", out] + list(extra), 0, "xpgen " + out)

    gen("a.xplane.pb", "--steps", "30", "--seed", "1")
    gen("b.xplane.pb", "--steps", "30", "--seed", "2")
    gen("few.xplane.pb", "--steps", "3", "--seed", "3")
    run([xpgen, "--variant", "jax", "--gpus", "1", "--steps", "4", "--seed", "4", "-o", "none.xplane.pb"], 0, "xpgen jax")
    run([xpstat, "report", "--format", "json", "-o", "base.json", "a.xplane.pb"], 0, "report baseline")
    base = load("base.json")
    expect(base["command"] == "report" and "steps" in base["reports"], "report JSON has reports.steps")
    bsteps = step_times(base)
    expect(len(bsteps) == 30, "baseline has 30 steps, got %d" % len(bsteps))

    # noise: pass, from the saved report and from the capture; JUnit says so
    _, out, _ = run([xpstat, "check", "--baseline", "base.json", "b.xplane.pb"], 0, "noise vs saved baseline")
    expect(out.startswith("PASS: "), "noise: verdict starts with PASS")
    run([xpstat, "check", "--baseline", "a.xplane.pb", "b.xplane.pb"], 0, "noise vs capture baseline")
    run([xpstat, "check", "--baseline", "base.json", "--format", "junit", "-o", "noise.xml", "b.xplane.pb"], 0,
        "noise junit")
    root, cases = junit("noise.xml")
    expect(root.get("failures") == "0" and root.get("errors") == "0", "noise junit: no failures")
    expect("step_time_regression" in cases and "min_steps" in cases, "noise junit: testcases named by check")

    # 10 % slower in every step: fail, verdict names the test, p and medians
    slower = scale_steps(base, 11, 10)
    save(slower, "slower.json")
    _, out, _ = run([xpstat, "check", "--baseline", "base.json", "--format", "json", "slower.json"], 1, "10% slower")
    doc = load(out, text=True)
    s = doc["summary"]
    expect(s["status"] == "fail", "slower: status fail")
    expect(ps(s["median_step_time_ms"], "ms") == median(step_times(slower)), "slower: candidate median exact")
    expect(ps(s["baseline_median_step_time_ms"], "ms") == median(bsteps), "slower: baseline median exact")
    expect(s["test"] == "one-sided Mann-Whitney U" and s["test_method"] in ("exact", "normal approximation"),
           "slower: test named")
    expect(s["p_value"] < Decimal("0.05"), "slower: p < 0.05 (%s)" % s["p_value"])
    v = doc["verdict"]
    expect(v.startswith("FAIL: ") and "Mann-Whitney U" in v and "p = " in v, "slower: verdict: " + v)
    run([xpstat, "check", "--baseline", "base.json", "--format", "junit", "-o", "slower.xml", "slower.json"], 1,
        "slower junit")
    root, cases = junit("slower.xml")
    expect(root.get("failures") == "1", "slower junit: failures=1")
    c = cases.get("step_time_regression")
    expect(c is not None and c.find("failure") is not None, "slower junit: step_time_regression has <failure>")
    # the same from the text format
    _, out, _ = run([xpstat, "check", "--baseline", "base.json", "slower.json"], 1, "slower text")
    expect(out.startswith("FAIL: 1 of 2 checks failed (step_time_regression)."), "slower text verdict: " + out[:120])

    # one slow outlier step: pass
    save(scale_steps(base, 3, 1, only=7), "outlier.json")
    run([xpstat, "check", "--baseline", "base.json", "outlier.json"], 0, "one outlier step")

    # 3 steps: exit 3 with the sample-size message, in text and JUnit
    _, out, _ = run([xpstat, "check", "--baseline", "base.json", "few.xplane.pb"], 3, "3 steps")
    expect(out.startswith("UNUSABLE: ") and "the candidate has 3 steps, fewer than --min-steps 5" in out,
           "3 steps: message: " + out[:200])
    run([xpstat, "check", "--baseline", "base.json", "--format", "junit", "-o", "few.xml", "few.xplane.pb"], 3,
        "3 steps junit")
    root, cases = junit("few.xml")
    expect(root.get("errors") == "1" and root.get("failures") == "0", "3 steps junit: errors=1 failures=0")
    expect(cases.get("min_steps") is not None and cases["min_steps"].find("error") is not None,
           "3 steps junit: min_steps has <error>")
    run([xpstat, "check", "--max-step-time", "1s", "few.xplane.pb"], 3, "3 steps, threshold only")
    run([xpstat, "check", "--max-step-time", "1s", "--min-steps", "3", "few.xplane.pb"], 0, "3 steps, --min-steps 3")

    # no steps at all: exit 3, the steps diagnosis carried over
    _, out, _ = run([xpstat, "check", "--format", "json", "--max-step-time", "1s", "none.xplane.pb"], 3, "no steps")
    doc = load(out, text=True)
    codes = [d["code"] for d in doc["diagnostics"]]
    expect("no_step_markers" in codes and "no_steps" in codes, "no steps: diagnostics %s" % codes)

    # compare with known per-op and per-kernel changes: every delta exact
    cand = scale_steps(base, 11, 10)
    ops = cand["reports"]["tf_stats"]["tables"]["tf_stats"]
    dev = [r for r in ops if r["host_or_device"] == "Device" and r["op_type"] != "IDLE"]
    changed, gone = dev[0]["op_name"], dev[1]["op_name"]
    dev[0]["total_self_time_us"] += Decimal("12.345678")
    ops.remove(dev[1])
    new = copy.deepcopy(dev[2])
    new["op_name"], new["total_self_time_us"] = "model/new/Op", Decimal("3.5")
    ops.append(new)
    kern = cand["reports"]["kernel_stats"]["tables"]["kernels"]
    kern[0]["total_duration_us"] += Decimal("0.001")
    kern.pop()
    save(cand, "ops.json")
    _, out, _ = run([xpstat, "compare", "--format", "json", "base.json", "ops.json"], 0, "compare known changes")
    doc = load(out, text=True)
    check_deltas(doc, base, cand, "known changes")
    rows = {(r["host_or_device"], r["op_name"]): r for r in doc["tables"]["ops"]}
    expect(rows[("device", changed)]["change"] == "slower" and
           ps(rows[("device", changed)]["delta_us"], "us") == 12345678, "known: changed op +12.345678 us")
    expect(rows[("device", gone)]["change"] == "disappeared", "known: removed op disappeared")
    expect(rows[("device", "model/new/Op")]["change"] == "appeared" and
           ps(rows[("device", "model/new/Op")]["delta_us"], "us") == 3500000, "known: new op appeared")
    expect(doc["summary"]["ops_appeared"] == 1 and doc["summary"]["ops_disappeared"] == 1, "known: counts")
    expect(doc["summary"]["kernels_disappeared"] == 1 and doc["summary"]["kernels_slower"] == 1, "known: kernels")
    expect(doc["summary"]["comparable"] is False, "known: op set changed -> not comparable")
    med = {r["metric"]: r for r in doc["tables"]["step_time"]}
    expect(ps(med["step_time_median"]["delta_ms"], "ms") == median(step_times(cand)) - median(bsteps),
           "known: median delta exact")

    # compare of two captures: every delta is the difference of their saved reports
    run([xpstat, "report", "--format", "json", "-o", "b.json", "b.xplane.pb"], 0, "report b")
    _, out, _ = run([xpstat, "compare", "--format", "json", "a.xplane.pb", "b.xplane.pb"], 0, "compare captures")
    check_deltas(load(out, text=True), base, load("b.json"), "captures")

    print("check_pairs: %d failure%s" % (len(FAILS), "" if len(FAILS) == 1 else "s"))
    return 1 if FAILS else 0


def op_totals(report):
    t = {}
    for r in report["reports"]["tf_stats"]["tables"]["tf_stats"]:
        if r["op_type"] == "IDLE":
            continue
        k = (r["host_or_device"].lower(), r["op_name"], r["hlo_module"] or "")
        t[k] = t.get(k, 0) + ps(r["total_self_time_us"], "us")
    return t


def kernel_totals(report):
    t = {}
    for r in report["reports"]["kernel_stats"]["tables"]["kernels"]:
        k = (r["kernel_name"], r["op_name"] or "")
        t[k] = t.get(k, 0) + ps(r["total_duration_us"], "us")
    return t


def check_deltas(doc, base, cand, what):
    """Every op and kernel row of compare's JSON against the two reports, to the picosecond."""
    bo, co = op_totals(base), op_totals(cand)
    seen = set()
    for r in doc["tables"]["ops"]:
        k = (r["host_or_device"], r["op_name"], r["hlo_module"] or "")
        seen.add(k)
        b, c = bo.get(k, 0), co.get(k, 0)
        got = (ps(r["baseline_self_time_us"], "us"), ps(r["candidate_self_time_us"], "us"), ps(r["delta_us"], "us"))
        if got != (b, c, c - b):
            fail("%s: op %s: got %s, want %s" % (what, k, got, (b, c, c - b)))
        want = "appeared" if k not in bo else "disappeared" if k not in co else \
            "slower" if c > b else "faster" if c < b else "same"
        expect(r["change"] == want, "%s: op %s: change %s, want %s" % (what, k, r["change"], want))
    expect(seen == set(bo) | set(co), "%s: every op of both reports has a row" % what)
    bk, ck = kernel_totals(base), kernel_totals(cand)
    seen = set()
    for r in doc["tables"]["kernels"]:
        k = (r["kernel_name"], r["op_name"] or "")
        seen.add(k)
        b, c = bk.get(k, 0), ck.get(k, 0)
        got = (ps(r["baseline_total_duration_us"], "us"), ps(r["candidate_total_duration_us"], "us"),
               ps(r["delta_us"], "us"))
        if got != (b, c, c - b):
            fail("%s: kernel %s: got %s, want %s" % (what, k, got, (b, c, c - b)))
    expect(seen == set(bk) | set(ck), "%s: every kernel of both reports has a row" % what)
    for r in doc["tables"]["step_time"]:
        d = ps(r["delta_ms"], "ms")
        expect(d == ps(r["candidate_ms"], "ms") - ps(r["baseline_ms"], "ms"), "%s: step_time %s delta" % (what, r["metric"]))
    bs, cs = step_times(base), step_times(cand)
    s = doc["summary"]
    expect(ps(s["median_delta_ms"], "ms") == median(cs) - median(bs), "%s: median delta exact" % what)


if __name__ == "__main__":
    sys.exit(main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])))
