"""check_memory_groups.py - memory groups a capture's events into steps only when it has memory events.

The profile attributes memory events to steps by group id; a capture without memory events needs none, and
grouping is most of what memory would do. Through the real binary, on captures written here: with step
roots and no memory event, memory spreads no group (XPSTAT_WORK's spread counter is 0) while steps does;
with a memory event too, memory groups as before. Usage: check_memory_groups.py XPSTAT"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'hostile'))
import wire  # noqa: E402

XPSTAT = sys.argv[1]


def capture(path, with_memory):
    """A host line of 50 steps (a train root with _r, an op inside it); with_memory: one allocation too."""
    evs = []
    for k in range(50):
        evs.append(wire.event(1, k * 1000, 900, [wire.stat(1, 1)]))
        evs.append(wire.event(2, k * 1000 + 100, 500))
    metas = [(1, 'train'), (2, 'op')]
    stat_metas = [(1, '_r'), (2, 'allocator_name'), (3, 'bytes_allocated')]
    if with_memory:
        evs.append(wire.event(3, 50 * 1000 + 10, 0, [wire.stat(2, 'GPU_0_bfc'), wire.stat(3, 4096)]))
        metas.append((3, 'MemoryAllocation'))
    pl = wire.plane(0, '/host:CPU', [wire.line(1, 'python', 0, evs)], metas, stat_metas)
    with open(path, 'wb') as f:
        f.write(wire.xspace([pl]))


def spread(args):
    r = subprocess.run([XPSTAT] + args, env=dict(os.environ, XPSTAT_WORK='1'), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=120)
    if r.returncode:
        raise SystemExit('FAIL: xpstat %s exited %d: %s' % (' '.join(args), r.returncode, r.stderr[-400:]))
    for ln in r.stderr.decode('utf-8', 'replace').splitlines():
        parts = ln.split()
        if parts[:2] == ['xpstat-work:', 'spread']:
            return int(parts[2])
    raise SystemExit('FAIL: no spread counter from xpstat %s' % ' '.join(args))


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for with_memory in (False, True):
            p = os.path.join(d, 'mem%d.xplane.pb' % with_memory)
            capture(p, with_memory)
            by_steps = spread(['steps', '-o', os.devnull, p])
            by_memory = spread(['memory', '--format', 'json', '-o', os.devnull, p])
            ok = by_steps > 0 and (by_memory > 0 if with_memory else by_memory == 0)
            print('%s %s memory events: steps spread %d, memory spread %d' %
                  ('ok' if ok else 'FAIL', 'with' if with_memory else 'without', by_steps, by_memory))
            bad += not ok
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
