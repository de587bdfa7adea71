#!/usr/bin/env python3
"""check_growth.py - complexity guards: each pathological input at n and 2n (n >= 10,000 unless a case says why
not), the work xpstat counts (XPSTAT_WORK=1, 'xpstat-work: <name> <count>' on stderr) must grow by at most 2.3x.
Never wall time."""
import gzip
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402
import saved  # noqa: E402

XPSTAT = sys.argv[1]
LIMIT = 2.3


def zstd(data, path):
    subprocess.run(['zstd', '-q', '-f', '-o', path], input=data, check=True)


def json_blanks_gz(n, d):
    """n KiB of blanks between two traceEvents elements, gzip."""
    p = os.path.join(d, 'blanks.trace.json.gz')
    ev = b'{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"a"}'
    with gzip.open(p, 'wb', compresslevel=1) as f:
        f.write(b'{"traceEvents":[' + ev + b',' + b' ' * (n * 1024) + ev + b']}')
    return [p]


def json_long_element_zst(n, d):
    """One element holding an n KiB string and n KiB of blanks, zstd (tiny pieces per decoder call)."""
    p = os.path.join(d, 'long.trace.json.zst')
    body = (b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"' + b'a' * (n * 1024) + b'"'
            + b' ' * (n * 1024) + b'}]}')
    zstd(body, p)
    return [p]


def xspace_planes(n, d):
    """n planes with distinct names and n with one shared name."""
    p = os.path.join(d, 'planes.xplane.pb')
    ps = [wire.plane(i, '/device:CUSTOM:%d' % i if i % 2 else '/device:CUSTOM:x') for i in range(n)]
    with open(p, 'wb') as f:
        f.write(wire.xspace(ps))
    return [p]


def xspace_nested_roots(n, d):
    """One line of n events each nested in the one before, each a step root (_r) of a higher level than its
    parent: roots spread innermost first, and each outer one must not walk its inner ones' events again. n is
    1,000: each root's walk up its ancestors (capped at 4,096 of them) costs the square of the depth, which
    at 10,000 ran past the suite's time under the sanitizers; the spread counter is exact at any n."""
    p = os.path.join(d, 'nested.xplane.pb')
    evs = [wire.event(1, k, 2 * n - 2 * k, [wire.stat(1, k + 1)]) for k in range(n)]
    pl = wire.plane(0, '/host:CPU', [wire.line(1, 'main', 0, evs)], [(1, 'step')], [(1, '_r')])
    with open(p, 'wb') as f:
        f.write(wire.xspace([pl]))
    return [p]


# name, generator, xpstat arguments before the inputs, counter, n
CASES = [
    ('json-blanks-gz', json_blanks_gz, ['info'], 'json_lex', 10240),
    ('json-blanks-gz-1thread', json_blanks_gz, ['--threads', '1', 'info'], 'json_lex', 10240),
    ('json-long-element-zst', json_long_element_zst, ['--threads', '1', 'info'], 'json_lex', 10240),
    ('json-long-element-zst-threads', json_long_element_zst, ['--threads', '4', 'info'], 'json_lex', 10240),
    ('xspace-planes', xspace_planes, ['info'], 'planes', 20000),
    ('xspace-nested-roots', xspace_nested_roots, ['steps', '--format', 'json', '-o', os.devnull], 'spread', 1000),
]
CASES += saved.GROWTH_CASES


def work(args, counter):
    env = dict(os.environ, XPSTAT_WORK='1')
    r = subprocess.run([XPSTAT] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
    for ln in r.stderr.decode('utf-8', 'replace').splitlines():
        parts = ln.split()
        if len(parts) == 3 and parts[0] == 'xpstat-work:' and parts[1] == counter:
            return int(parts[2]), r.returncode
    raise SystemExit('no work counter %r from %s (exit %d): %s' % (counter, args, r.returncode, r.stderr[-500:]))


def main():
    only = sys.argv[2:]
    bad = 0
    for name, gen, args, counter, n in CASES:
        if only and name not in only:
            continue
        counts = []
        for k in (n, 2 * n):
            with tempfile.TemporaryDirectory() as d:
                counts.append(work(args + gen(k, d), counter))
        (w1, rc1), (w2, rc2) = counts
        ratio = w2 / w1 if w1 else (1.0 if w2 == 0 else float('inf'))
        ok = ratio <= LIMIT and rc1 == rc2
        print('%s %s: n=%d %s=%d, 2n %d: x%.2f (exit %d/%d)' % ('ok' if ok else 'FAIL', name, n, counter, w1, w2,
                                                              ratio, rc1, rc2))
        bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
