#!/usr/bin/env python3
"""check_output.py - what xpstat leaves behind and how it ends when writing goes wrong, through the real binary:
SIGINT/SIGTERM/SIGHUP in the middle of writing -o FILE or a CSV directory remove the temporary file or directory and
end with the signal; a CSV directory that cannot be written whole leaves nothing (exit 4); every -o failure is exit 4;
a failed write says why (a full disk, the file size limit), also where the CSV writer gathers its fields; an
existing file keeps its mode; -o naming the input is refused (exit 2) and leaves the capture alone; an unreadable
newest run is an error, never an older run; NUL in a name is shown, not cut; usage errors name the right argument and
leak nothing (the sanitizer build exits 1 on a leak)."""
import errno
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

XPSTAT, XPGEN = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402

failures = []


def check(ok, what):
    print('%s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)


def run(args, cwd, **kw):
    return subprocess.run([XPSTAT] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600, **kw)


def leftovers(d):
    return [n for n in os.listdir(d) if n.startswith('.xpstat-')]


def default_signals():
    """The child starts with the signals' default actions: a test run under nohup (SIGHUP ignored, which
    xpstat leaves ignored, as nohup asks) still sees xpstat catch them."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def signal_mid_write(d, cap, sig, csv_dir):
    """Start a long write, wait for its temporary file or directory, send SIG; tries again when the write ended first."""
    target = os.path.join(d, 'out.d' if csv_dir else 'out.csv')
    args = ['report', '--format', 'csv', '-o', target] if csv_dir else ['kernel-stats', '--format', 'csv', '-o',
                                                                        target]
    for _ in range(5):
        p = subprocess.Popen([XPSTAT] + args + ['--threads', '1', cap], cwd=d, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, preexec_fn=default_signals)
        seen = False
        while p.poll() is None:
            if leftovers(d):
                seen = True
                time.sleep(0.05)
                p.send_signal(sig)
                break
            time.sleep(0.001)
        p.communicate(timeout=600)
        if seen:
            return p.returncode, leftovers(d), os.path.exists(target)
        shutil.rmtree(target, ignore_errors=True)
        if os.path.exists(target):
            os.unlink(target)
    return None, [], False


def signals(d, cap):
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for csv_dir in (False, True):
            rc, left, made = signal_mid_write(d, cap, sig, csv_dir)
            what = '%s during %s' % (sig.name, 'a CSV directory' if csv_dir else '-o FILE')
            check(rc is not None, what + ': the write was caught under way')
            if rc is None:
                continue
            check(rc == -sig, '%s: ends with the signal (status %s)' % (what, rc))
            check(not left, '%s: no temporary file or directory left (%s)' % (what, left))
            check(not made, '%s: no half output in place' % what)


def no_fsize(limit):
    def fn():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return fn


def write_errors(d, cap):
    r = run(['report', '--format', 'csv', '-o', 'full.d', cap], d, preexec_fn=no_fsize(1500))
    check(r.returncode == 4, 'CSV directory on a full disk: exit 4 (%d)' % r.returncode)
    check(len(r.stderr.splitlines()) == 1, 'CSV directory on a full disk: one line (%r)' % r.stderr[-200:])
    check(not os.path.exists(os.path.join(d, 'full.d')) and not leftovers(d),
          'CSV directory on a full disk: nothing left (%s)' % os.listdir(d))
    r = run(['info', '--format', 'json', '-o', 'full.json', cap], d, preexec_fn=no_fsize(100))
    check(r.returncode == 4 and not os.path.exists(os.path.join(d, 'full.json')) and not leftovers(d),
          '-o FILE on a full disk: exit 4, nothing left (%d)' % r.returncode)
    for args in (['info', '-o', 'no/such/dir/x.txt'], ['report', '--format', 'csv', '-o', 'no/such/dir'],
                 ['report', '--format', 'csv', '-o', 'a-file']):
        with open(os.path.join(d, 'a-file'), 'w') as f:
            f.write('x')
        r = run(args + [cap], d)
        check(r.returncode == 4 and len(r.stderr.splitlines()) == 1,
              '%s: an output that cannot be written is exit 4 (%d, %r)' % (' '.join(args), r.returncode, r.stderr))


def write_error_reasons(d, cap):
    """A CSV table far larger than stdio's buffer, on a full disk and past the file size limit, plain and
    compressed: the one line says why (the CSV writer and the compressing stream drop the rest at the first
    failed write, so stdio alone could no longer say), in the C locale's words."""
    env = dict(os.environ, LC_ALL='C')
    cases = [(['-o', name], no_fsize(100000), os.strerror(errno.EFBIG))
             for name in ('limited.csv', 'limited.csv.gz', 'limited.csv.zst')]
    if os.path.exists('/dev/full'):
        cases.append((['-o', '/dev/full'], None, os.strerror(errno.ENOSPC)))
    for out, pre, why in cases:
        r = run(['kernel-stats', '--format', 'csv'] + out + [cap], d, preexec_fn=pre, env=env)
        err = r.stderr.decode(errors='replace').strip()
        check(r.returncode == 4 and len(err.splitlines()) == 1 and err.endswith(why) and not leftovers(d),
              'kernel-stats CSV %s: exit 4 saying %r (%d, %r)' % (' '.join(out), why, r.returncode, err[-200:]))


def modes(d, cap):
    p = os.path.join(d, 'private.txt')
    with open(p, 'w') as f:
        f.write('old\n')
    os.chmod(p, 0o600)
    r = run(['info', '-o', p, cap], d)
    check(r.returncode == 0 and stat.S_IMODE(os.stat(p).st_mode) == 0o600,
          '-o onto a 0600 file keeps 0600 (%o)' % stat.S_IMODE(os.stat(p).st_mode))
    os.unlink(p)


def output_is_input(d, cap):
    copy = os.path.join(d, 'copy.xplane.pb')
    shutil.copy(cap, copy)
    before = open(copy, 'rb').read()
    for args in (['info', '-o', copy, copy], ['report', '--format', 'json', '-o', 'copy.xplane.pb', copy],
                 ['info', '-o', copy, os.path.join(d, '.', 'copy.xplane.pb')]):
        r = run(args, d)
        check(r.returncode == 2 and open(copy, 'rb').read() == before and b'input' in r.stderr,
              '%s: refused (exit 2), the capture untouched (%d %r)' % (' '.join(args[:3]), r.returncode, r.stderr))
    # through a run directory of a logdir
    run_dir = os.path.join(d, 'logs', 'plugins', 'profile', '2024_01_01_00_00_00')
    os.makedirs(run_dir)
    inside = os.path.join(run_dir, 'h.xplane.pb')
    shutil.copy(cap, inside)
    r = run(['info', '-o', inside, os.path.join(d, 'logs')], d)
    check(r.returncode == 2 and open(inside, 'rb').read() == before,
          '-o naming a capture of the logdir: refused (exit 2) (%d %r)' % (r.returncode, r.stderr))
    shutil.rmtree(os.path.join(d, 'logs'))
    os.unlink(copy)


def unreadable_run(d, cap):
    logs = os.path.join(d, 'ulogs')
    old = os.path.join(logs, 'plugins', 'profile', '2024_01_01_00_00_00')
    new = os.path.join(logs, 'plugins', 'profile', '2024_02_01_00_00_00')
    for r in (old, new):
        os.makedirs(r)
        shutil.copy(cap, os.path.join(r, 'h.xplane.pb'))
    os.chmod(os.path.dirname(d), 0o755)
    for p, _, files in os.walk(d):
        os.chmod(p, 0o755)
        for f in files:
            os.chmod(os.path.join(p, f), 0o644)
    os.chmod(new, 0)
    pre = None
    if os.geteuid() == 0:  # root reads any directory: drop to nobody for these runs
        if not shutil.which('setpriv'):
            check(False, 'unreadable run: setpriv is needed to test as root')
            return
        pre = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']
    for args, want in ((['info', logs], 'newest run unreadable'), (['--run', '2024_02_01_00_00_00', 'info', logs],
                                                                   '--run of an unreadable run')):
        r = subprocess.run((pre or []) + [XPSTAT] + args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(r.returncode == 3 and b'ermission denied' in r.stderr and len(r.stderr.splitlines()) == 1,
              '%s: exit 3, permission denied (%d %r)' % (want, r.returncode, r.stderr))
    os.chmod(new, 0o755)
    shutil.rmtree(logs)


def nul_names(d):
    p = os.path.join(d, 'nul.xplane.pb')
    ev = [wire.event(1, 10, 5)]
    with open(p, 'wb') as f:
        f.write(wire.xspace([wire.plane(1, '/host:CPU', lines=[wire.line(1, 'py\x00thon', 1000, ev)],
                                        event_metas=[(1, 'op')]), wire.plane(2, '/device:CUSTOM:a\x00zz')]))
    for fmt in ('text', 'json', 'csv'):
        r = run(['info', '--lines', '--format', fmt] + (['--table', 'lines'] if fmt == 'csv' else []) + [p], d)
        check(r.returncode == 0 and b'thon' in r.stdout, 'NUL in a line name (%s): shown whole' % fmt)
    r = run(['info', '--lines', p], d)
    check(r.returncode == 0 and b'CUSTOM:a\\x00zz' in r.stdout, 'NUL in a plane name: shown as \\x00')
    os.unlink(p)


def usage(d, cap):
    for args, want in ((['--wide=1', 'info', cap], b"'--wide' takes no value"),
                       (['info', '--quiet=yes', cap], b"'--quiet' takes no value"),
                       (['info', '-Z', cap], b"unknown option '-Z'"),
                       (['--bogus', 'info', cap], b"unknown option '--bogus'"),
                       (['check', '--max-op-self-time', 'x=1', cap], b'--max-op-self-time needs'),
                       (['check', '--max-category', 'input=zz', cap], b'--max-category needs')):
        r = run(args, d)
        check(r.returncode == 2 and want in r.stderr and len(r.stderr.splitlines()) == 1,
              '%s: exit 2 naming it (%d %r)' % (' '.join(args[:2]), r.returncode, r.stderr[-300:]))
    for args in (['--forma', 'json', 'info', cap], ['-qo', 'q.json', '--format', 'json', 'info', cap]):
        r = run(args, d)
        check(r.returncode == 0, '%s: the option and its value are read as getopt reads them (%d %r)'
              % (' '.join(args[:2]), r.returncode, r.stderr[-200:]))
    if os.path.exists(os.path.join(d, 'q.json')):
        os.unlink(os.path.join(d, 'q.json'))


def main():
    with tempfile.TemporaryDirectory() as d:
        small = os.path.join(d, 'small.xplane.pb')
        big = os.path.join(d, 'big.xplane.pb')
        subprocess.run([XPGEN, '--steps', '3', '-o', small], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([XPGEN, '--variant', 'diverse', '--seed', '5', '--target-bytes', '8M', '-o', big], check=True,
                       stdout=subprocess.DEVNULL)
        work = os.path.join(d, 'w')
        os.mkdir(work)
        only = sys.argv[3:]
        for name, fn, args in (('signals', signals, (work, big)), ('write_errors', write_errors, (work, small)),
                               ('write_error_reasons', write_error_reasons, (work, big)),
                               ('modes', modes, (work, small)), ('output_is_input', output_is_input, (work, small)),
                               ('unreadable_run', unreadable_run, (work, small)), ('nul_names', nul_names, (work,)),
                               ('usage', usage, (work, small))):
            if not only or name in only:
                fn(*args)
    print('%d failed' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
