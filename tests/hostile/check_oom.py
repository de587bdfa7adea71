#!/usr/bin/env python3
"""check_oom.py - out of memory ends with one line and exit 4, never a crash: every command on a generated capture,
its address space capped at a sweep of limits (RLIMIT_AS) so that allocations fail in different places."""
import os
import resource
import subprocess
import sys
import tempfile

XPSTAT, XPGEN = sys.argv[1], sys.argv[2]
COMMANDS = [['info', '--lines'], ['overview'], ['steps'], ['pod'], ['input-pipeline'], ['tf-data'],
            ['tf-stats'], ['kernel-stats'], ['memory', '--breakdown', '--timeline'], ['report', '--format', 'json'],
            ['report', '--format', 'csv', '-o', '@DIR'], ['compare', '@CAP']]


def capped(limit):
    def fn():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return fn


def main():
    fails = 0
    runs = ooms = 0
    with tempfile.TemporaryDirectory() as d:
        cap = os.path.join(d, 'cap.xplane.pb')
        subprocess.run([XPGEN, '--variant', 'grouped', '--gpus', '2', '--seed', '5',
                        '--target-bytes', '24M', '-o', cap], check=True, stdout=subprocess.DEVNULL)
        free = subprocess.run([XPSTAT, 'report', '--format', 'json', cap], capture_output=True)
        if free.returncode != 0:
            print('check_oom: report fails without a limit:', free.stderr.decode(errors='replace'))
            return 1
        # compressed captures too: out of memory while decompressing is exit 4 as well, not 3
        caps = {'': cap}
        for comp, suffix in (('gzip', '.gz'), ('zstd', '.zst')):
            p = os.path.join(d, 'cz')
            subprocess.run([XPGEN, '--variant', 'grouped', '--gpus', '2', '--seed', '5', '--target-bytes', '24M',
                            '--compress', comp, '-o', p + '.xplane.pb' + suffix], check=True, stdout=subprocess.DEVNULL)
            caps[suffix] = p + '.xplane.pb' + suffix
        runs_c = [(['info'], caps['.gz']), (['info'], caps['.zst']), (['tf-stats'], caps['.zst'])]
        for cmd, cap_used in [(c, cap) for c in COMMANDS] + runs_c:
            for mib in range(20, 68, 4):
                out = os.path.join(d, 'out')
                args = [a.replace('@DIR', out + '.d').replace('@CAP', cap) for a in cmd]
                p = subprocess.run([XPSTAT] + args + ['--threads', '1', cap_used], capture_output=True,
                                   preexec_fn=capped(mib << 20))
                runs += 1
                err = p.stderr.decode(errors='replace')
                what = f"{' '.join(cmd[:1])} at {mib} MiB"
                if p.returncode < 0:
                    print(f'check_oom: {what}: killed by signal {-p.returncode}: {err.strip()[-300:]}')
                    fails += 1
                elif p.returncode == 4:
                    ooms += 1
                    if err != 'xpstat: out of memory\n':
                        print(f'check_oom: {what}: exit 4 but stderr is not the one line: {err[-300:]!r}')
                        fails += 1
                elif p.returncode != 0:
                    print(f'check_oom: {what}: exit {p.returncode}: {err.strip()[-300:]}')
                    fails += 1
    print(f'check_oom: {runs} runs, {ooms} out of memory, {fails} bad')
    if ooms == 0:
        print('check_oom: no run ran out of memory: the sweep does not test anything')
        return 1
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
