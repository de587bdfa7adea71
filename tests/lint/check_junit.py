#!/usr/bin/python3
# check_junit.py - structure of `xpstat check --format junit`: well-formed XML, counts that match the testcases.
"""Usage: check_junit.py FILE.xml

Exits 0 when FILE.xml is well-formed UTF-8 XML with <testsuites> holding one
<testsuite>, whose tests/failures/errors/skipped attributes (the same on
both) count its <testcase> elements and their <failure>, <error> and
<skipped> children; every testcase has a classname and a name and at most one
of those children. 1 otherwise, with the problem on stderr.
"""
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("check_junit: %s: %s" % (sys.argv[1], msg), file=sys.stderr)
    sys.exit(1)


def main():
    try:
        with open(sys.argv[1], "rb") as f:
            raw = f.read()
        raw.decode("utf-8")
        root = ET.fromstring(raw)
    except (OSError, UnicodeDecodeError, ET.ParseError) as e:
        fail(str(e))
    if root.tag != "testsuites":
        fail("root element is <%s>, not <testsuites>" % root.tag)
    suites = root.findall("testsuite")
    if len(suites) != 1:
        fail("%d <testsuite> elements, want 1" % len(suites))
    suite = suites[0]
    cases = suite.findall("testcase")
    counts = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
    for c in cases:
        if not c.get("classname") or not c.get("name"):
            fail("a testcase without classname or name")
        kinds = [k for k in ("failure", "error", "skipped") if c.find(k) is not None]
        if len(kinds) > 1:
            fail("testcase %s has %s" % (c.get("name"), kinds))
        for k in kinds:
            counts["failures" if k == "failure" else "errors" if k == "error" else "skipped"] += 1
    for el in (root, suite):
        for k, v in counts.items():
            if el.get(k) != str(v):
                fail("<%s %s=%r>, but %d counted" % (el.tag, k, el.get(k), v))
    print("check_junit: %s: ok (%d testcases)" % (sys.argv[1], len(cases)))


if __name__ == "__main__":
    main()
