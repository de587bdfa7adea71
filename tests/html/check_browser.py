#!/usr/bin/env python3
"""check_browser.py - the HTML pages loaded in headless Chromium (Debian's chromium and chromium-driver, driven by
python3-selenium): no console error (a script the page's Content-Security-Policy refuses is one), no network request
of any kind, each chart's SVG with the bars and points the capture's truth gives, no script from a hostile capture
runs and its names show as text, the tables sort on a click. Screenshots go to OUTDIR (test artifacts).
Usage: check_browser.py XPSTAT XPGEN XP2TRACE SAMPLE OUTDIR
Without Chromium or selenium: skipped (77), unless XPSTAT_REQUIRE_BROWSER=1 (CI, where tools/test.sh installs them)."""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402

XPSTAT, XPGEN, XP2TRACE, SAMPLE, OUTDIR = (os.path.abspath(a) for a in sys.argv[1:6])
CHROMIUM = shutil.which('chromium') or '/usr/bin/chromium'
DRIVER = shutil.which('chromedriver') or '/usr/bin/chromedriver'
try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError:
    webdriver = None
if webdriver is None or not os.access(CHROMIUM, os.X_OK) or not os.access(DRIVER, os.X_OK):
    print('chromium, chromium-driver or python3-selenium missing')
    sys.exit(1 if os.environ.get('XPSTAT_REQUIRE_BROWSER') == '1' else 77)

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
    return cond


def browser():
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1100,900',
              '--hide-scrollbars', '--no-first-run', '--disable-extensions', '--disable-background-networking'):
        o.add_argument(a)
    o.set_capability('goog:loggingPrefs', {'browser': 'ALL', 'performance': 'ALL'})
    return webdriver.Chrome(service=Service(DRIVER), options=o)


def load(drv, path, name):
    """Open PATH; fail on a console error or any request but the page itself."""
    drv.get_log('browser')
    drv.get_log('performance')
    url = 'file://' + path
    drv.get(url)
    check(drv.execute_script('return document.readyState') == 'complete', '%s: did not load' % name)
    for e in drv.get_log('browser'):
        check(e['level'] not in ('SEVERE', 'ERROR'), '%s: console error: %s' % (name, e['message'][:300]))
    for e in drv.get_log('performance'):
        m = json.loads(e['message'])['message']
        if m['method'] == 'Network.requestWillBeSent':
            u = m['params']['request']['url']
            check(u == url, '%s: network request for %s' % (name, u[:200]))
    # The page's own script ran (it makes the headings focusable): scripting is on and the CSP hash is right.
    check(drv.execute_script("return document.querySelector('table.sortable th').tabIndex") == 0,
          '%s: the sorting script did not run' % name)


def count(drv, selector):
    return drv.execute_script('return [...document.querySelectorAll(arguments[0])].length', selector)


def per_chart(drv, chart, inner):
    return drv.execute_script(
        "return [...document.querySelectorAll('svg[data-chart=\"'+arguments[0]+'\"]')]"
        ".map(s => s.querySelectorAll(arguments[1]).length)", chart, inner)


def shoot(drv, name, chart=None):
    os.makedirs(OUTDIR, exist_ok=True)
    if chart:
        drv.find_element(By.CSS_SELECTOR, 'svg[data-chart="%s"]' % chart).screenshot(
            os.path.join(OUTDIR, name + '.png'))
    else:
        # The top of the page (verdict, recommendations, first charts): a whole long page is slow to render.
        drv.save_screenshot(os.path.join(OUTDIR, name + '.png'))


def xp(*args):
    return fixtures.run([XPSTAT, *args])


def html(d, name, *args):
    out = os.path.join(d, name)
    xp(*args[:1], '--format', 'html', '-o', out, *args[1:])
    return out


def sorting(drv, name):
    """A click on the step-time heading sorts the steps table up, a second down."""
    th = drv.find_element(By.CSS_SELECTOR, 'table[data-table="steps"] th[title="step_time_ms"]')
    for want in ('asc', 'desc'):
        th.click()
        v = drv.execute_script(
            "const t=document.querySelector('table[data-table=\"steps\"]'),i=[...t.tHead.rows[0].cells]"
            ".findIndex(c=>c.title==='step_time_ms');return [...t.tBodies[0].rows].map(r=>+r.cells[i].dataset.v)")
        check(v == sorted(v, reverse=want == 'desc') and len(v) > 1, '%s: sorting %s gave %s' % (name, want, v))


def main(drv, d):
    # The README sample: one bar per step, every category its colour.
    steps = json.loads(xp('steps', '--format', 'json', SAMPLE))['tables']['steps']
    page = html(d, 'sample.html', 'report', SAMPLE)
    load(drv, page, 'sample')
    check(per_chart(drv, 'step-time', 'g.step') == [len(steps)], 'sample: step bars %s, %d steps' %
          (per_chart(drv, 'step-time', 'g.step'), len(steps)))
    sorting(drv, 'sample')
    shoot(drv, 'sample-step-time', 'step-time')
    shoot(drv, 'sample-report')
    # Generated, two hosts, with truth.
    run = os.path.join(d, 'run')
    fixtures.run([XPGEN, '--variant', 'raw', '--hosts', '2', '--steps', '9', '--gpus', '1', '--seed', '8',
                  '--truth', os.path.join(d, 't.json'), '-o', run])
    truth = json.load(open(os.path.join(d, 't.json')))
    want = [len(h['step_list']) for h in truth['hosts']]
    load(drv, html(d, 'run.html', 'report', run), 'generated')
    check(per_chart(drv, 'step-time', 'g.step') == want, 'generated: step bars %s, truth %s' %
          (per_chart(drv, 'step-time', 'g.step'), want))
    check(per_chart(drv, 'input-steps', 'rect.bar') == want, 'generated: input bars')
    check(per_chart(drv, 'pod', 'g.host') == [len(truth['hosts'])], 'generated: pod host bars')
    events = sorted(a['allocations'] + a['deallocations'] for h in truth['hosts'] for a in h['allocators'])
    points = sorted(drv.execute_script(
        "return [...document.querySelectorAll('svg[data-chart=memory] polyline.in-use')]"
        ".map(p => p.points.numberOfItems)"))
    check(points == events, 'generated: memory points %s, truth events %s' % (points, events))
    shoot(drv, 'generated-step-time', 'step-time')
    shoot(drv, 'generated-report')
    # Hostile names: nothing runs, every name is text.
    cap = fixtures.hostile(XPGEN, XP2TRACE, d)
    load(drv, html(d, 'hostile.html', 'report', '--step-marker', '^train$', cap), 'hostile')
    check(drv.execute_script('return window.__xss === undefined'), 'hostile: a script from the capture ran')
    check(drv.title == 'xpstat report', 'hostile: title %r' % drv.title)
    check(count(drv, 'td b, td svg, td img, td script, text *') == 0, 'hostile: markup from the capture')
    text = drv.execute_script('return document.body.textContent')
    for h in fixtures.HOSTILE.values():
        check(h in text, 'hostile: %r is not shown as text' % h)
    shoot(drv, 'hostile-report')
    # compare: side by side, deltas.
    a, _ = fixtures.generated(XPGEN, d, 'a.xplane.pb', '--variant', 'raw', '--steps', '8', '--gpus', '1', '--seed', '1')
    b, _ = fixtures.generated(XPGEN, d, 'b.xplane.pb', '--variant', 'raw', '--steps', '8', '--gpus', '1', '--seed', '2')
    doc = json.loads(xp('compare', '--format', 'json', a, b))['tables']
    load(drv, html(d, 'compare.html', 'compare', a, b), 'compare')
    check(per_chart(drv, 'compare-steps', 'g.metric') == [len(doc['step_time'])], 'compare: metric bars')
    check(per_chart(drv, 'compare-ops', 'rect.bar') == [min(20, len(doc['ops']))], 'compare: op bars')
    shoot(drv, 'compare')


drv = browser()
try:
    with tempfile.TemporaryDirectory() as d:
        main(drv, d)
finally:
    drv.quit()
for f in fails:
    print('FAIL:', f)
print('ok (screenshots in %s)' % OUTDIR if not fails else '%d failure(s)' % len(fails))
sys.exit(1 if fails else 0)
