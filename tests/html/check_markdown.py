#!/usr/bin/env python3
"""check_markdown.py - check, compare and report --format markdown through the real binary, read back by a Markdown
parser (python3-markdown with its tables extension, as GitHub reads pipe tables): every table of the result is one
HTML table with its columns and shown rows, the verdict is bold, and hostile names stay text.
Usage: check_markdown.py XPSTAT XPGEN XP2TRACE"""
import html.parser
import json
import os
import sys
import tempfile

import markdown

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402

XPSTAT, XPGEN, XP2TRACE = (os.path.abspath(a) for a in sys.argv[1:4])
ROWS = 20
fails = []


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.tags, self.strong, self.text, self._in_strong = [], set(), [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == 'table':
            self.tables.append({'cols': 0, 'rows': 0})
        elif tag == 'th':
            self.tables[-1]['cols'] += 1
        elif tag == 'tr' and self.tables:
            self.tables[-1]['rows'] += 1
        elif tag == 'strong':
            self._in_strong = True
            self.strong.append('')

    def handle_endtag(self, tag):
        if tag == 'strong':
            self._in_strong = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_strong:
            self.strong[-1] += data


def parse(md):
    p = Tables()
    p.feed(markdown.markdown(md, extensions=['tables']))
    return p


def match(got, want, md):
    """GOT (columns, rows with header) against WANT (columns or None, rows of the result): a table shows all its
    rows, or at most ROWS and says how many more there are."""
    if len(got) != len(want):
        return False
    for (gc, gr), (wc, wr) in zip(got, want):
        shown = gr - 1
        if wc not in (None, gc):
            return False
        if shown != wr and not (shown < wr and shown <= ROWS and
                                '\u2026 %d more row' % (wr - shown) in md):
            return False
    return True


def expect_tables(p, doc, name, md):
    want = []
    if doc.get('summary'):
        want.append((2, len(doc['summary'])))
    for t in doc['tables'].values():
        if t:
            want.append((None, len(t)))
    got = [(t['cols'], t['rows']) for t in p.tables]
    if not match(got, want, md):
        fails.append('%s: tables (columns, rows with header) %s, want %s' % (name, got, want))


def xp(*args, ok=(0,)):
    import subprocess
    r = subprocess.run([XPSTAT, *args], capture_output=True)
    if r.returncode not in ok:
        raise SystemExit('FAIL: xpstat %s: exit %d %s' % (' '.join(args), r.returncode, r.stderr.decode()))
    return r.stdout.decode()


with tempfile.TemporaryDirectory() as d:
    a, _ = fixtures.generated(XPGEN, d, 'a.xplane.pb', '--variant', 'raw', '--steps', '8', '--gpus', '1', '--seed', '1')
    b, _ = fixtures.generated(XPGEN, d, 'b.xplane.pb', '--variant', 'raw', '--steps', '8', '--gpus', '1', '--seed', '2')
    # compare and check: the result's own tables.
    for name, args, ok in (('compare', ('compare', a, b), (0,)),
                           ('check', ('check', '--baseline', a, '--max-regression', '1%', b), (0, 1))):
        doc = json.loads(xp(*args, '--format', 'json', ok=ok))
        md = xp(*args, '--format', 'markdown', ok=ok)
        p = parse(md)
        expect_tables(p, doc, name, md)
        if not p.strong or p.strong[0] != doc['verdict']:
            fails.append('%s: the verdict is not the first bold text: %r' % (name, p.strong[:1]))
    # report: the verdicts table, then each analysis' summary and tables.
    doc = json.loads(xp('report', '--format', 'json', a))
    md = xp('report', '--format', 'markdown', a)
    p = parse(md)
    lead = [(2, len(doc['reports']))]
    got_tables = list(p.tables)
    for key, sec in doc['reports'].items():
        expect = lead + ([(2, len(sec['summary']))] if sec.get('summary') else []) + \
            [(None, len(t)) for t in sec['tables'].values() if t]
        lead = []
        n = len(expect)
        part, got_tables = got_tables[:n], got_tables[n:]
        got = [(t['cols'], t['rows']) for t in part]
        if not match(got, expect, md):
            fails.append('report %s: tables %s, want %s' % (key, got, expect))
    if got_tables:
        fails.append('report: %d tables more than the analyses have' % len(got_tables))
    # Hostile names are text: no tag of the capture's, every string shown.
    cap = fixtures.hostile(XPGEN, XP2TRACE, d)
    p = parse(xp('report', '--format', 'markdown', '--step-marker', '^train$', cap))
    extra = p.tags - {'h2', 'h3', 'p', 'strong', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'ul', 'li'}
    if extra:
        fails.append('hostile: markup from the capture: %s' % sorted(extra))
    text = ''.join(p.text)
    for h in fixtures.HOSTILE.values():
        if h not in text:
            fails.append('hostile: %r does not read as text' % h)
for f in fails:
    print('FAIL:', f)
print('ok' if not fails else '%d failure(s)' % len(fails))
sys.exit(1 if fails else 0)
