#!/usr/bin/env python3
"""check_html.py - report/compare --format html through the real binary, read back with Python's HTML parser:
each chart has the bars and points the capture's known truth gives (xpgen), the memory peak survives the sampling,
every hostile name is text (no tag, attribute or script but the page's own), no URL, the same bytes whatever
--threads, and the size grows with the steps, not the events. The browser suite loads the same pages in Chromium.
Usage: check_html.py XPSTAT XPGEN XP2TRACE, or check_html.py XPSTAT XPGEN XP2TRACE --real DIR: every real capture
under DIR (../shared/testdata/real) gives a page that passes the same checks (77 when DIR is absent)."""
import html.parser
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402

XPSTAT, XPGEN, XP2TRACE = (os.path.abspath(a) for a in sys.argv[1:4])
ALLOWED = {'html', 'head', 'meta', 'title', 'style', 'body', 'h1', 'h2', 'h3', 'p', 'ul', 'li', 'b', 'br', 'table',
           'thead', 'tbody', 'tr', 'th', 'td', 'a', 'section', 'span', 'script', 'svg', 'g', 'rect', 'text', 'line',
           'polyline', 'circle'}
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
    return cond


class Page(html.parser.HTMLParser):
    """The charts (per svg: its data-chart and what it holds), every tag and attribute, the text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.charts, self.tags, self.attrs, self.text, self.scripts, self.svg = [], set(), set(), [], 0, None
        self.stack, self.urls = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        self.attrs.update(k for k, _ in attrs)
        # An address in an attribute is a request (or a link out); in text it is only text.
        self.urls += [v for _, v in attrs if v and ('://' in v or v.startswith('//'))]
        if tag == 'script':
            self.scripts += 1
        if tag not in ('meta', 'br', 'line', 'rect', 'circle', 'polyline') or tag == 'svg':
            self.stack.append(tag)
        if tag == 'b' and 'td' in self.stack[:-1]:
            fails.append('a <b> element inside a table cell: capture text became markup')
        if tag == 'svg':
            self.svg = {'chart': a.get('data-chart'), 'step': 0, 'bar': 0, 'host': 0, 'metric': 0, 'seg': 0,
                        'polyline': {}, 'peak': None}
            self.charts.append(self.svg)
        elif self.svg is not None:
            cls = a.get('class', '')
            if tag == 'g' and cls in ('step', 'host', 'metric'):
                self.svg[cls] += 1
            elif tag == 'rect' and cls in ('bar', 'seg'):
                self.svg[cls] += 1
            elif tag == 'polyline':
                self.svg['polyline'][cls] = len(a.get('points', '').split())
            elif tag == 'circle' and cls == 'peak':
                self.svg['peak'] = int(a['data-bytes'])

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == 'svg':
            self.svg = None
        while self.stack:
            if self.stack.pop() == tag:
                break

    def handle_data(self, data):
        self.text.append(data)


def page(path):
    p = Page()
    with open(path, encoding='utf-8') as f:
        src = f.read()
    p.feed(src)
    p.src = src
    return p


def common(p, name):
    check(not (p.tags - ALLOWED), '%s: unexpected elements %s' % (name, sorted(p.tags - ALLOWED)))
    check(not [a for a in p.attrs if a.startswith('on')], '%s: event-handler attributes %s' % (name, p.attrs))
    check(p.scripts == 1, '%s: %d scripts (want the page\'s one)' % (name, p.scripts))
    check(not p.urls, '%s: addresses in attributes %s' % (name, p.urls[:3]))
    check("default-src 'none'" in p.src, '%s: no Content-Security-Policy' % name)


def charts(p, kind):
    return [c for c in p.charts if c['chart'] == kind]


def xp(*args):
    return fixtures.run([XPSTAT, *args])


def report_html(d, name, *paths, extra=()):
    out = os.path.join(d, name)
    xp('report', '--format', 'html', '-o', out, *extra, *paths)
    return out


def check_generated(d):
    """Two hosts, 7 steps each: one step-time chart and one input chart per host, bar for bar."""
    run = os.path.join(d, 'run')
    fixtures.run([XPGEN, '--variant', 'raw', '--hosts', '2', '--steps', '7', '--gpus', '1', '--seed', '3',
                  '--truth', os.path.join(d, 'run.truth.json'), '-o', run])
    truth = json.load(open(os.path.join(d, 'run.truth.json')))
    path = report_html(d, 'run.html', run)
    p = page(path)
    common(p, 'generated')
    steps = [len(h['step_list']) for h in truth['hosts']]
    st = charts(p, 'step-time')
    check([c['step'] for c in st] == steps, 'step-time: %s bars per host, truth %s' % ([c['step'] for c in st], steps))
    check(all(c['seg'] >= c['step'] for c in st), 'step-time: a step bar without a segment')
    ip = charts(p, 'input-steps')
    check([c['bar'] for c in ip] == steps, 'input-steps: %s bars, truth %s' % ([c['bar'] for c in ip], steps))
    pod = charts(p, 'pod')
    check(len(pod) == 1 and pod[0]['host'] == len(truth['hosts']), 'pod: %s host bars' % [c['host'] for c in pod])
    doc = json.loads(xp('report', '--format', 'json', run))['reports']
    top = min(20, len(doc['overview']['tables']['top_ops']))
    check([c['bar'] for c in charts(p, 'top-ops')] == [top], 'top-ops: want %d bars' % top)
    kern = min(20, len(doc['kernel_stats']['tables']['kernels']))
    check([c['bar'] for c in charts(p, 'kernels')] == [kern], 'kernels: want %d bars' % kern)
    # Memory: every event of an allocator is a point while there are at most 1000 (per host, per allocator).
    mem = charts(p, 'memory')
    want = sorted(a['allocations'] + a['deallocations'] for h in truth['hosts'] for a in h['allocators'])
    got = sorted(c['polyline'].get('in-use', 0) for c in mem)
    check(got == want, 'memory: points %s, truth events %s' % (got, want))
    check(all(c['polyline'].get('fragmentation') == c['polyline'].get('in-use') for c in mem),
          'memory: fragmentation and in-use series differ in length')
    # The same bytes whatever --threads.
    other = report_html(d, 'run-j1.html', run, extra=('-j', '1'))
    check(open(path, 'rb').read() == open(other, 'rb').read(), 'report html differs between -j N and -j 1')


def check_sampled(d):
    """More events than windows: at most 2000 points per series, and the peak is the allocator's true peak."""
    cap, truth = fixtures.generated(XPGEN, d, 'long.xplane.pb', '--variant', 'raw', '--steps', '60', '--gpus', '1',
                                    '--seed', '4')
    small, _ = fixtures.generated(XPGEN, d, 'short.xplane.pb', '--variant', 'raw', '--steps', '6', '--gpus', '1',
                                  '--seed', '4')
    path = report_html(d, 'long.html', cap)
    p = page(path)
    common(p, 'sampled')
    events = {a['name']: a['allocations'] + a['deallocations'] for a in truth['hosts'][0]['allocators']}
    check(max(events.values()) > 1000, 'sampled: the capture should have more than 1000 events per allocator')
    peaks = [a['peak_usage_bytes'] for a in json.loads(xp('memory', '--format', 'json', cap))['tables']['allocators']]
    mem = charts(p, 'memory')
    for c, peak in zip(mem, peaks):
        n = c['polyline'].get('in-use', 0)
        check(0 < n <= 2000, 'sampled: %d points' % n)
        check(c['peak'] == peak, 'sampled: marked peak %s, the allocator\'s peak %s' % (c['peak'], peak))
    check(len(mem) == len(peaks), 'sampled: %d memory charts for %d allocators' % (len(mem), len(peaks)))
    # Ten times the steps, ten times the events: the page grows with the steps drawn, far less than the events.
    size_small = os.path.getsize(report_html(d, 'short.html', small))
    check(os.path.getsize(path) < 2 * 1024 * 1024, 'sampled: page of %d bytes' % os.path.getsize(path))
    check(os.path.getsize(path) < 4 * size_small, 'sampled: %d bytes for 60 steps, %d for 6' %
          (os.path.getsize(path), size_small))


def check_hostile(d):
    cap = fixtures.hostile(XPGEN, XP2TRACE, d)
    p = page(report_html(d, 'hostile.html', cap, extra=('--step-marker', '^train$')))
    common(p, 'hostile')
    text = ''.join(p.text)
    for h in fixtures.HOSTILE.values():
        check(h in text, 'hostile: %r does not show as text' % h)


def check_compare(d):
    a, _ = fixtures.generated(XPGEN, d, 'a.xplane.pb', '--variant', 'raw', '--steps', '8', '--gpus', '1', '--seed', '1')
    b, _ = fixtures.generated(XPGEN, d, 'b.xplane.pb', '--variant', 'raw', '--steps', '8', '--gpus', '1', '--seed', '2')
    out = os.path.join(d, 'compare.html')
    xp('compare', '--format', 'html', '-o', out, a, b)
    p = page(out)
    common(p, 'compare')
    doc = json.loads(xp('compare', '--format', 'json', a, b))['tables']
    check([c['metric'] for c in charts(p, 'compare-steps')] == [len(doc['step_time'])], 'compare-steps: bars')
    check([c['bar'] for c in charts(p, 'compare-ops')] == [min(20, len(doc['ops']))], 'compare-ops: bars')
    check([c['bar'] for c in charts(p, 'compare-kernels')] == [min(20, len(doc['kernels']))], 'compare-kernels')


def check_errors(d):
    """Bad input: one line, exit 3, nothing written."""
    bad = os.path.join(d, 'bad.xplane.pb')
    with open(bad, 'wb') as f:
        f.write(b'\xff' * 64)
    out = os.path.join(d, 'bad.html')
    r = subprocess.run([XPSTAT, 'report', '--format', 'html', '-o', out, bad], capture_output=True)
    check(r.returncode == 3 and not os.path.exists(out) and r.stderr.count(b'\n') == 1,
          'bad input: exit %d, file %s' % (r.returncode, os.path.exists(out)))


def check_real(d, real):
    """Every XSpace and trace JSON capture: a page, escaped, without addresses, of at most a few MB."""
    names = ('.xplane.pb', '.trace.json', '.trace.json.gz', '_trace.json.gz', '_kineto.json.gz', '.json.gz')
    n = 0
    for root, _, files in sorted(os.walk(real)):
        for f in sorted(files):
            if not f.endswith(names) or f.endswith('_expected.json'):
                continue
            path = os.path.join(root, f)
            out = os.path.join(d, 'real-%d.html' % n)
            r = subprocess.run([XPSTAT, 'report', '--format', 'html', '-o', out, path], capture_output=True)
            n += 1
            if not check(r.returncode == 0, '%s: exit %d %s' % (path, r.returncode, r.stderr.decode()[-300:])):
                continue
            p = page(out)
            common(p, path)
            check(os.path.getsize(out) < 8 << 20, '%s: page of %d bytes' % (path, os.path.getsize(out)))
    check(n > 0, 'no real capture under %s' % real)


with tempfile.TemporaryDirectory() as d:
    if len(sys.argv) > 5 and sys.argv[4] == '--real':
        if not os.path.isdir(sys.argv[5]):
            print('no real captures at', sys.argv[5])
            sys.exit(77)
        check_real(d, sys.argv[5])
    else:
        for t in (check_generated, check_sampled, check_hostile, check_compare, check_errors):
            t(d)
for f in fails:
    print('FAIL:', f)
print('ok' if not fails else '%d failure(s)' % len(fails))
sys.exit(1 if fails else 0)
